"""complex128 in WGSL: two software float64 parts (issue #20).

A complex128 value is a ``vec4<u32>``: the IEEE bits of its real part in ``.xy`` and of its
imaginary part in ``.zw``, low words first, as NumPy stores complex128. Every helper here is
built on the ``wa_f64_*`` helpers (``wgsl_f64.py``, ``wgsl_f64_math.py``), so its cost is
theirs: a kernel that calls exp, sin and cos of float64 compiles for tens of seconds on
lavapipe. The helpers are ``wa_z_<op>``, registered in ``wgsl_lib.LIB`` like the others, so
``helpers_for`` pulls them in by name and the WebGL2 translator could take them.

Which results NumPy's are, bit for bit (tests/test_complex128.py):

- add, subtract by parts; multiply ``(ac - bd, ad + bc)`` and square ``(a² - b², ab + ba)``
  with every product and sum rounded on its own, as CPython's complex and NumPy's scalars
  compute them (NumPy's array loops on CPUs with FMA fuse ``ac - bd`` into one rounding, so
  a product whose parts cancel can differ by an ulp there);
- divide is Smith's algorithm as NumPy writes it: ``r = d/c``, ``s = 1/(c + d r)``,
  ``((a + b r) s, (b - a r) s)`` for ``|c| >= |d|`` (and the mirror image), ``(a/|c|, b/|c|)``
  for a zero divisor; reciprocal NumPy's ``1/(c + d r)`` and ``-r/(c + d r)``;
- sign is ``z / |z|`` (the direction of an infinite part, NaN for two infinite parts) with
  the parts scaled by 1/4 where ``|z|`` overflows.

abs is ``wa_f64_hypot``; exp is ``e^a (cos b, sin b)`` with e^(a/2) applied twice above
a = 709 (so that Re exp(710 + 1j) is finite); log is ``(ln|z|, atan2(b, a))`` with ln|z| the
logarithm of the double-double ``a² + b²`` (scaled by a power of two), accurate near |z| = 1
too; sqrt is ``t = sqrt((|a| + |z|)/2)``, ``(t, b/2t)`` for a >= 0 and ``(|b|/2t, ±t)``
otherwise, scaled by powers of two at the ends of the range. The special cases are C99's
(Annex G), as NumPy returns them.
"""

from __future__ import annotations

from .wgsl_f64_math import atan2_stages
from .wgsl_lib import Stage, _def, compose

# -- arithmetic --------------------------------------------------------------------------
_def("""
fn wa_z_add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_add(a.xy, b.xy), wa_f64_add(a.zw, b.zw));
}""")
_def("""
fn wa_z_sub(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_sub(a.xy, b.xy), wa_f64_sub(a.zw, b.zw));
}""")
_def("fn wa_z_neg(a: vec4<u32>) -> vec4<u32> { return a ^ vec4<u32>(0u, 0x80000000u, 0u, 0x80000000u); }")
_def("fn wa_z_conj(a: vec4<u32>) -> vec4<u32> { return a ^ vec4<u32>(0u, 0u, 0u, 0x80000000u); }")
_def("""
fn wa_z_mul(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_sub(wa_f64_mul(a.xy, b.xy), wa_f64_mul(a.zw, b.zw)),
                     wa_f64_add(wa_f64_mul(a.xy, b.zw), wa_f64_mul(a.zw, b.xy)));
}""")
# (p + q r) s and (u - v r) s: Smith's two parts, one helper for both branches
_def("""
fn wa_z_smith(p: vec2<u32>, q: vec2<u32>, u: vec2<u32>, v: vec2<u32>, r: vec2<u32>, s: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_mul(wa_f64_add(p, wa_f64_mul(q, r)), s),
                     wa_f64_mul(wa_f64_sub(u, wa_f64_mul(v, r)), s));
}""")
_def("""
fn wa_z_div(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let c = b.xy;
    let d = b.zw;
    let ac = wa_f64_abs(c);
    let one = vec2<u32>(0u, 0x3ff00000u);
    if (wa_f64_le(wa_f64_abs(d), ac)) {
        if (wa_f64_is0(ac) && wa_f64_is0(wa_f64_abs(d))) {
            return vec4<u32>(wa_f64_div(a.xy, ac), wa_f64_div(a.zw, ac));
        }
        let r = wa_f64_div(d, c);
        let s = wa_f64_div(one, wa_f64_add(c, wa_f64_mul(d, r)));
        return wa_z_smith(a.xy, a.zw, a.zw, a.xy, r, s);
    }
    let r = wa_f64_div(c, d);
    let s = wa_f64_div(one, wa_f64_add(d, wa_f64_mul(c, r)));
    return wa_z_smith(a.zw, a.xy, wa_f64_neg(a.xy), wa_f64_neg(a.zw), r, s);
}""")
_def("""
fn wa_z_reciprocal(a: vec4<u32>) -> vec4<u32> {
    let one = vec2<u32>(0u, 0x3ff00000u);
    if (wa_f64_le(wa_f64_abs(a.zw), wa_f64_abs(a.xy))) {
        let r = wa_f64_div(a.zw, a.xy);
        let d = wa_f64_add(a.xy, wa_f64_mul(a.zw, r));
        return vec4<u32>(wa_f64_div(one, d), wa_f64_neg(wa_f64_div(r, d)));
    }
    let r = wa_f64_div(a.xy, a.zw);
    let d = wa_f64_add(wa_f64_mul(a.xy, r), a.zw);
    return vec4<u32>(wa_f64_div(r, d), wa_f64_neg(wa_f64_div(one, d)));
}""")
_def("""
fn wa_z_square(a: vec4<u32>) -> vec4<u32> {
    let t = wa_f64_mul(a.xy, a.zw);
    return vec4<u32>(wa_f64_sub(wa_f64_mul(a.xy, a.xy), wa_f64_mul(a.zw, a.zw)), wa_f64_add(t, t));
}""")
# a complex128 with both parts divided by one float64 (mean's last step)
_def("""
fn wa_z_div_real(a: vec4<u32>, d: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_div(a.xy, d), wa_f64_div(a.zw, d));
}""")

# -- comparison and classification -------------------------------------------------------
_def("""
fn wa_z_eq(a: vec4<u32>, b: vec4<u32>) -> bool {
    return wa_f64_eq(a.xy, b.xy) && wa_f64_eq(a.zw, b.zw);
}""")
_def("fn wa_z_isnan(a: vec4<u32>) -> bool { return wa_f64_isnan(a.xy) || wa_f64_isnan(a.zw); }")
_def("fn wa_z_isinf(a: vec4<u32>) -> bool { return wa_f64_isinf(a.xy) || wa_f64_isinf(a.zw); }")
_def("fn wa_z_isfinite(a: vec4<u32>) -> bool { return wa_f64_isfinite(a.xy) && wa_f64_isfinite(a.zw); }")
_def("""
fn wa_z_nan() -> vec4<u32> {
    return vec4<u32>(wa_f64_default_nan(), wa_f64_default_nan());
}""")

# -- abs and sign --------------------------------------------------------------------------
_def("fn wa_z_abs(a: vec4<u32>) -> vec2<u32> { return wa_f64_hypot(a.xy, a.zw); }")
# ±1 with the sign of x (x's sign bit on the bits of 1.0)
_def("fn wa_z_unit(x: vec2<u32>) -> vec2<u32> { return vec2<u32>(0u, (x.y & 0x80000000u) | 0x3ff00000u); }")
_def("""
fn wa_z_sign(a: vec4<u32>) -> vec4<u32> {
    let zero = vec2<u32>(0u, 0u);
    if (wa_z_isnan(a)) { return wa_z_nan(); }  // (the standard's; NumPy: sign(NaN + inf j) = 1j)
    if (wa_f64_isinf(a.xy)) {
        if (wa_f64_isinf(a.zw)) { return wa_z_nan(); }
        return vec4<u32>(wa_z_unit(a.xy), zero);
    }
    if (wa_f64_isinf(a.zw)) { return vec4<u32>(zero, wa_z_unit(a.zw)); }
    if (wa_f64_is0(wa_f64_abs(a.xy)) && wa_f64_is0(wa_f64_abs(a.zw))) { return vec4<u32>(0u); }
    // |z|, and where it overflows |z/4| (one call site of hypot, which the compiler inlines
    // at every one: two made the kernel too large for SwiftShader)
    var x = a.xy;
    var y = a.zw;
    var h: vec2<u32>;
    for (var k = 0u; k < 2u; k = k + 1u) {
        h = wa_f64_hypot(x, y);
        if (!wa_f64_isinf(h)) { break; }
        x = wa_f64_ldexp(x, -2);
        y = wa_f64_ldexp(y, -2);
    }
    return vec4<u32>(wa_f64_div(x, h), wa_f64_div(y, h));
}""")

# -- sqrt ------------------------------------------------------------------------------------
_def("""
fn wa_z_sqrt(z: vec4<u32>) -> vec4<u32> {
    let a = z.xy;
    let b = z.zw;
    let inf = wa_f64_inf(0u);
    if (wa_f64_isinf(b)) { return vec4<u32>(inf, b); }
    if (wa_f64_isnan(a)) {
        return vec4<u32>(wa_f64_default_nan(), wa_f64_default_nan());
    }
    if (wa_f64_isinf(a)) {
        if (wa_f64_signbit(a)) {
            if (wa_f64_isnan(b)) { return vec4<u32>(wa_f64_default_nan(), inf); }
            return vec4<u32>(0u, 0u, wa_f64_with_sign(inf, b));
        }
        return vec4<u32>(a, select(wa_f64_with_sign(vec2<u32>(0u, 0u), b), b, wa_f64_isnan(b)));
    }
    if (wa_f64_isnan(b)) {
        return vec4<u32>(wa_f64_default_nan(), wa_f64_default_nan());
    }
    if (wa_f64_is0(wa_f64_abs(a)) && wa_f64_is0(wa_f64_abs(b))) { return vec4<u32>(0u, 0u, b); }
    // scale so that |a| + |z| neither overflows nor loses bits below the normal range
    let e = max(wa_f64_biased_exp(a), wa_f64_biased_exp(b));
    var k = 0;
    if (e > 0x7fd) { k = -2; }
    if (e < 0x100) { k = 600; }
    let x = wa_f64_ldexp(a, k);
    let y = wa_f64_ldexp(b, k);
    let half = vec2<u32>(0u, 0x3fe00000u);
    let t = wa_f64_sqrt(wa_f64_mul(wa_f64_add(wa_f64_abs(x), wa_f64_hypot(x, y)), half));
    let q = wa_f64_div(wa_f64_abs(y), wa_f64_add(t, t));
    let back = -k / 2;
    if (wa_f64_signbit(a)) {
        return vec4<u32>(wa_f64_ldexp(q, back), wa_f64_with_sign(wa_f64_ldexp(t, back), b));
    }
    return vec4<u32>(wa_f64_ldexp(t, back), wa_f64_with_sign(wa_f64_ldexp(q, back), b));
}""")

# -- exp and log -----------------------------------------------------------------------------
# (sin b, cos b) from one reduction of b and one call site of wa_f64_trig_from (modes 0 and
# 1): its body is large, and the compiler inlines every call site
_def("""
fn wa_z_sincos_from(r: vec4<u32>, b: vec2<u32>) -> vec4<u32> {
    var cs: array<vec2<u32>, 2>;
    for (var k = 0u; k < 2u; k = k + 1u) { cs[k] = wa_f64_trig_from(r, b, k); }
    return vec4<u32>(cs[0], cs[1]);
}""")
_def("fn wa_z_sincos(b: vec2<u32>) -> vec4<u32> { return wa_z_sincos_from(wa_f64_trig_r(b), b); }")


def _sincos_stage(name: str, ok: str, b: str = "z.zw") -> None:
    """``name``(z): (sin b, cos b) where ``ok`` (zeros elsewhere), a function's first stage
    as one kernel; in a browser two (ops.STAGED): ``name``_r, b's reduction (wa_f64_trig_r),
    and ``name``_s(r, z) the sine and cosine from it."""
    for fn, params, value in ((name, "z: vec4<u32>", "wa_z_sincos(bb)"),
                              (name + "_r", "z: vec4<u32>", "wa_f64_trig_r(bb)"),
                              (name + "_s", "r: vec4<u32>, z: vec4<u32>", "wa_z_sincos_from(r, bb)")):
        _def(f"""
fn {fn}({params}) -> vec4<u32> {{
    let ok = {ok};
    let bb = select(vec2<u32>(0u), {b}, ok);
    return select(vec4<u32>(0u), {value}, ok);
}}""")


# In two stages (ops.STAGED, for a browser; three there with the sincos stage split): _a,
# (sin b, cos b) where the result is made of them (zeros elsewhere); _b the rest
_sincos_stage("wa_z_exp_a", "!(wa_f64_isnan(z.xy) || wa_f64_is0(wa_f64_abs(z.zw)) || !wa_f64_isfinite(z.zw))")
# the exponential of the real part a that the result is made of (e^(a/2) above 708, so that
# a part below the overflow threshold stays finite; e^a on the real axis), as (e, 0)
_def("""
fn wa_z_exp_big(a: vec2<u32>) -> bool {
    return wa_f64_lt(vec2<u32>(0u, 0x40862000u), a) && wa_f64_isfinite(a);
}""")
_def("""
fn wa_z_exp_e(z: vec4<u32>) -> vec4<u32> { return vec4<u32>(wa_f64_exp(wa_z_exp_arg(z)), 0u, 0u); }""")
# (the exponential in two parts, wa_f64_exp's p, then wa_z_exp_e_from, for pow's stages)
_def("""
fn wa_z_exp_arg(z: vec4<u32>) -> vec2<u32> {
    let a = z.xy;
    return select(select(a, wa_f64_ldexp(a, -1), wa_z_exp_big(a)), a, wa_f64_is0(wa_f64_abs(z.zw)));
}""")
_def("fn wa_z_exp_e_from(p: vec4<u32>, z: vec4<u32>) -> vec4<u32> { return vec4<u32>(wa_f64_exp_from(p, wa_z_exp_arg(z)), 0u, 0u); }")
_def("""
fn wa_z_exp_from(sc: vec4<u32>, ee: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let a = z.xy;
    let b = z.zw;
    let b0 = wa_f64_is0(wa_f64_abs(b));
    let e = ee.xy;
    if (wa_f64_isnan(a)) {
        if (b0) { return vec4<u32>(wa_f64_quiet(a), b); }
        return wa_z_nan();
    }
    if (b0) { return vec4<u32>(e, b); }
    if (!wa_f64_isfinite(b)) {
        if (wa_f64_isinf(a)) {
            if (wa_f64_signbit(a)) {  // ±0 as NumPy: the sign of b (+ for NaN)
                return vec4<u32>(0u, 0u, select(wa_f64_with_sign(vec2<u32>(0u, 0u), b), vec2<u32>(0u, 0u), wa_f64_isnan(b)));
            }
            return vec4<u32>(a, wa_f64_default_nan());
        }
        return wa_z_nan();
    }
    var re = wa_f64_mul(e, sc.zw);
    var im = wa_f64_mul(e, sc.xy);
    if (wa_z_exp_big(a)) {
        re = wa_f64_mul(re, e);
        im = wa_f64_mul(im, e);
    }
    return vec4<u32>(re, im);
}""")
_def("fn wa_z_exp_b(sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> { return wa_z_exp_from(sc, wa_z_exp_e(z), z); }")
# in a browser the exponential is a stage of its own: _b_e(r, sc, z), _b_from(r, sc, e, z)
_def("fn wa_z_exp_b_e(r: vec4<u32>, sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> { return wa_z_exp_e(z); }")
_def("fn wa_z_exp(z: vec4<u32>) -> vec4<u32> { return wa_z_exp_b(wa_z_exp_a(z), z); }")
# ln|z| for finite, not both zero parts, as a double-double: ln of the double-double a² + b²
# of the parts scaled to [1, 2) (_v), halved (_from, given v and wa_f64_ln_m of it)
_def("""
fn wa_z_ln_abs_sc(x: vec2<u32>, y: vec2<u32>) -> i32 {
    return 0x3ff - max(max(wa_f64_biased_exp(x), wa_f64_biased_exp(y)), 1);
}""")
_def("""
fn wa_z_ln_abs_from(v: vec4<u32>, m: vec4<u32>, x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let l = wa_f64_ln_of_dd_m(v, m, wa_f64_from_i32(-2 * wa_z_ln_abs_sc(x, y)));
    return vec4<u32>(wa_f64_ldexp(l.xy, -1), wa_f64_ldexp(l.zw, -1));
}""")
_def("""
fn wa_z_ln_abs_v(x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    var a = wa_f64_abs(x);
    var b = wa_f64_abs(y);
    if (wa_lt_u64(a, b)) {
        let t = a;
        a = b;
        b = t;
    }
    let sc = wa_z_ln_abs_sc(a, b);
    a = wa_f64_ldexp(a, sc);
    b = wa_f64_ldexp(b, sc);
    let a2 = wa_f64_two_prod(a, a);
    let b2 = wa_f64_two_prod(b, b);
    let s = wa_f64_two_sum(a2.xy, b2.xy);
    return wa_f64_fast_two_sum(s.xy, wa_f64_add(s.zw, wa_f64_add(a2.zw, b2.zw)));
}""")
# -- the logarithms: ln z, log2, log10, log1p, and the ln z of pow ---------------------------
# ln z = (ln|z|, atan2(b, a)). In a browser six stages (ops.STAGED; compose() makes the
# function whole from the same ones): _q, _u and _d, atan2_dd's three for the angle (in
# wa_f64_atan2's last case, wa_z_angle_in); _v, ln|z|'s double-double (wa_z_ln_abs_v) where
# z is finite and not 0; _m, wa_f64_ln_m of it; the last stage the rest. _log_stages defines
# the first five for z computed from a function's operands.
_def("""
fn wa_z_angle_in(z: vec4<u32>) -> bool {
    return !wa_z_isnan(z) && wa_f64_atan2_case(wa_f64_abs(z.zw), wa_f64_abs(z.xy)) == 5u;
}""")
_def("""
fn wa_z_ln_in(z: vec4<u32>) -> bool {
    return wa_f64_isfinite(z.xy) && wa_f64_isfinite(z.zw)
        && !(wa_f64_is0(wa_f64_abs(z.xy)) && wa_f64_is0(wa_f64_abs(z.zw)));
}""")
# atan2(Im z, Re z) from the double-double angle of the stages (where wa_z_angle_in), the
# other cases directly (wa_f64_atan2_a and _c: wa_f64_atan2 bit for bit)
_def("""
fn wa_z_angle(d: vec4<u32>, z: vec4<u32>) -> vec2<u32> {
    let s = wa_f64_atan2_a(z.zw, z.xy);
    return wa_f64_atan2_c(s, select(s, d, wa_z_angle_in(z)), z.zw, z.xy);
}""")
# ln z where z is not finite or 0 (not wa_z_ln_in), with its angle im
_def("""
fn wa_z_log_special(z: vec4<u32>, im: vec2<u32>) -> vec4<u32> {
    if (wa_f64_isinf(z.xy) || wa_f64_isinf(z.zw)) { return vec4<u32>(wa_f64_inf(0u), im); }
    if (wa_z_isnan(z)) { return wa_z_nan(); }
    return vec4<u32>(wa_f64_inf(1u), im);
}""")


def _angle_stages(prefix: str, params: str, arg: str, carriers: str = "", lets: str = "") -> None:
    """``prefix``_q, _u and _d: atan2_dd's stages for the angle of z = ``arg``, computed from
    the carriers before them (``carriers``, WGSL parameters) and the operands ``params``
    (after ``lets``)."""
    atan2_stages(prefix, carriers + "; " + params, f"""{lets}
    let zz = {arg};
    let ok = wa_z_angle_in(zz);
    let sab = wa_f64_atan2_scaled(wa_f64_abs(select(vec2<u32>(0u, 0x3ff00000u), zz.zw, ok)),
                                  wa_f64_abs(select(vec2<u32>(0u, 0x3ff00000u), zz.xy, ok)));
    let A = vec4<u32>(sab.xy, 0u, 0u);
    let B = vec4<u32>(sab.zw, 0u, 0u);""")


def _log_stages(prefix: str, params: str, arg: str) -> tuple[Stage, ...]:
    """``prefix``_q, _u, _d, _v and _m: the stages of ln z before its last for z = ``arg``,
    computed from the operands ``params``, as Stages (the last reads 2, 3 and 4)."""
    _angle_stages(prefix, params, arg)
    _def(f"""
fn {prefix}_v({params}) -> vec4<u32> {{
    let zz = {arg};
    let ok = wa_z_ln_in(zz);
    return wa_z_ln_abs_v(select(vec2<u32>(0u, 0x3ff00000u), zz.xy, ok), select(vec2<u32>(0u), zz.zw, ok));
}}""")
    _def(f"fn {prefix}_m(v: vec4<u32>, {params}) -> vec4<u32> {{ return wa_f64_ln_m(v); }}")
    return (Stage(prefix + "_q"), Stage(prefix + "_u", (0,)), Stage(prefix + "_d", (0, 1)),
            Stage(prefix + "_v", ()), Stage(prefix + "_m", (3,)))


_Z = "z: vec4<u32>"
LOG_STAGES = _log_stages("wa_z_log", _Z, "z")
_def("""
fn wa_z_log_c(d: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let im = wa_z_angle(d, z);
    if (!wa_z_ln_in(z)) { return wa_z_log_special(z, im); }
    return vec4<u32>(wa_z_ln_abs_from(v, m, z.xy, z.zw).xy, im);
}""")
STAGED = {"log": compose("wa_z_log", _Z, "vec4<u32>", LOG_STAGES + (Stage("wa_z_log_c", (2, 3, 4)),))}
# log z times a constant k given as a double-double (1/ln 2, 1/ln 10): ln|z| as a
# double-double times k, rounded once; arg z rounded, then times k
_def("""
fn wa_z_log_k_c(d: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>, kh: vec2<u32>, kl: vec2<u32>) -> vec4<u32> {
    let g = wa_z_angle(d, z);
    let t = wa_f64_two_prod(g, kh);
    var im = wa_f64_add(t.xy, wa_f64_fma(g, kl, t.zw));
    if (wa_f64_is0(wa_f64_abs(g)) || wa_f64_isnan(g)) { im = g; }
    if (!wa_z_ln_in(z)) { return wa_z_log_special(z, im); }
    let l = wa_z_ln_abs_from(v, m, z.xy, z.zw);
    let p = wa_f64_two_prod(l.xy, kh);
    return vec4<u32>(wa_f64_add(p.xy, wa_f64_add(p.zw, wa_f64_fma(l.xy, kl, wa_f64_mul(l.zw, kh)))), im);
}""")
for _name, _kh, _kl in (("log2", "vec2<u32>(0x652b82feu, 0x3ff71547u)", "vec2<u32>(0xffda0d24u, 0x3c7777d0u)"),
                        ("log10", "vec2<u32>(0x1526e50eu, 0x3fdbcb7bu)", "vec2<u32>(0xbaaafad3u, 0x3c695355u)")):
    _def(f"""
fn wa_z_{_name}_c(d: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{
    return wa_z_log_k_c(d, v, m, z, {_kh}, {_kl});
}}""")
    STAGED[_name] = compose(f"wa_z_{_name}", _Z, "vec4<u32>", LOG_STAGES + (Stage(f"wa_z_{_name}_c", (2, 3, 4)),))
# log(1 + z), as complex64's wa_clog1p: with 1 + a = x + e exactly, near |1 + z| = 1
# ln|1 + z| = log1p(2a + a² + b²) / 2 with the sum s as a double-double; elsewhere ln|x + ib|
# plus e's first-order term e·x/|x + ib|²; the imaginary part is atan2(b, x). In eight
# stages: the angle's three and _a, the angle itself; _s, s near |1 + z| = 1 (zeros
# elsewhere); _v, the double-double whose logarithm is taken (1 + s there, else ln|x + ib|'s);
# _m, wa_f64_ln_m of it; the last, the rest
_def("""
fn wa_z_log1p_x(z: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), z.xy).xy, z.zw);
}""")
_def("""
fn wa_z_log1p_near(z: vec4<u32>) -> bool {
    let x = wa_z_log1p_x(z);
    let q = wa_f64_add(wa_f64_mul(x.xy, x.xy), wa_f64_mul(x.zw, x.zw));
    return wa_f64_isfinite(z.xy) && wa_f64_isfinite(z.zw) && wa_z_ln_in(x)
        && wa_f64_lt(vec2<u32>(0u, 0x3fe00000u), q) && wa_f64_lt(q, vec2<u32>(0u, 0x40000000u));
}""")
_angle_stages("wa_z_log1p", _Z, "wa_z_log1p_x(z)")
_def("""
fn wa_z_log1p_a(d: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_z_angle(d, wa_z_log1p_x(z)), 0u, 0u);
}""")
_def("""
fn wa_z_log1p_s(z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_log1p_near(z);
    let a = select(vec2<u32>(0u), z.xy, ok);
    let b = select(vec2<u32>(0u), z.zw, ok);
    let a2 = wa_f64_two_prod(a, a);
    let b2 = wa_f64_two_prod(b, b);
    let t1 = wa_f64_two_sum(wa_f64_ldexp(a, 1), a2.xy);
    let t2 = wa_f64_two_sum(t1.xy, b2.xy);
    let lo = wa_f64_add(wa_f64_add(t1.zw, t2.zw), wa_f64_add(a2.zw, b2.zw));
    return wa_f64_fast_two_sum(t2.xy, lo);
}""")
_def("""
fn wa_z_log1p_v(s: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    if (wa_z_log1p_near(z)) { return wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), s.xy); }
    let x = wa_z_log1p_x(z);
    let ok = wa_z_ln_in(x);
    return wa_z_ln_abs_v(select(vec2<u32>(0u, 0x3ff00000u), x.xy, ok), select(vec2<u32>(0u), x.zw, ok));
}""")
_def("fn wa_z_log1p_m(v: vec4<u32>, z: vec4<u32>) -> vec4<u32> { return wa_f64_ln_m(v); }")
_def("""
fn wa_z_log1p_c(g: vec4<u32>, s: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let u = wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), z.xy);
    let x = u.xy;
    let b = z.zw;
    let im = g.xy;
    if (!wa_f64_isfinite(z.xy) || !wa_f64_isfinite(b) || !wa_z_ln_in(vec4<u32>(x, b))) {
        return wa_z_log_special(vec4<u32>(x, b), im);
    }
    // one call site of the logarithm's last part (the compiler inlines every one): of 1 + s
    // near |1 + z| = 1 (as log1p of s), else of |x + ib|^2 scaled (as ln_abs_from)
    let near = wa_z_log1p_near(z);
    let k = select(wa_f64_from_i32(-2 * wa_z_ln_abs_sc(x, b)), vec2<u32>(0u), near);
    let l = wa_f64_ln_of_dd_m(v, m, k);
    if (near) {
        let c = wa_f64_div(s.zw, wa_f64_add(vec2<u32>(0u, 0x3ff00000u), s.xy));
        return vec4<u32>(wa_f64_ldexp(wa_f64_add(wa_f64_log1p_fin(l.xy, s.xy), c), -1), im);
    }
    var re = wa_f64_ldexp(l.xy, -1);  // ln_abs_from's
    if (!wa_f64_is0(wa_f64_abs(u.zw))) {
        let q = wa_f64_add(wa_f64_mul(x, x), wa_f64_mul(b, b));
        re = wa_f64_add(re, wa_f64_div(wa_f64_mul(u.zw, x), q));
    }
    return vec4<u32>(re, im);
}""")
STAGED["log1p"] = compose("wa_z_log1p", _Z, "vec4<u32>", (
    Stage("wa_z_log1p_q"), Stage("wa_z_log1p_u", (0,)), Stage("wa_z_log1p_d", (0, 1)),
    Stage("wa_z_log1p_a", (2,)), Stage("wa_z_log1p_s", ()), Stage("wa_z_log1p_v", (4,)),
    Stage("wa_z_log1p_m", (5,)), Stage("wa_z_log1p_c", (3, 4, 5, 6))))
# e^z - 1 as NumPy computes it, (expm1(a) cos b - 2 sin^2(b/2), e^a sin b); the special
# values are the standard's, as complex64's wa_cexpm1 (NumPy: expm1(+inf + 0j) = inf + NaN j,
# the standard +inf + 0j). In five stages (ops.STAGED), each reading the ones before: _a,
# (sin b, cos b); _b, sin(b/2); _c, wa_f64_expm1_a of a; _d, e^a (zeros from _a, _b and _d
# where the result is not made of them); _e the rest. Whole, sin b, cos b and sin(b/2) come
# from one call site of wa_f64_trig: its body is large, and the compiler inlines every one.
_def("""
fn wa_z_expm1_from(z: vec4<u32>) -> bool {
    return !wa_f64_is0(wa_f64_abs(z.zw)) && wa_f64_isfinite(z.zw) && !wa_f64_isnan(z.xy);
}""")
_sincos_stage("wa_z_expm1_a", "wa_z_expm1_from(z)")
_def("""
fn wa_z_expm1_b(sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_expm1_from(z);
    let h = wa_f64_trig(wa_f64_ldexp(select(vec2<u32>(0u), z.zw, ok), -1), 0u);
    return select(vec4<u32>(0u), vec4<u32>(h, 0u, 0u), ok);
}""")
# in a browser b's reduction is a stage of its own too: _b_r(r, sc, z) and _b_s(r, sc, r2, z)
_def("""
fn wa_z_expm1_b_r(r: vec4<u32>, sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_expm1_from(z);
    return select(vec4<u32>(0u), wa_f64_trig_r(wa_f64_ldexp(select(vec2<u32>(0u), z.zw, ok), -1)), ok);
}""")
_def("""
fn wa_z_expm1_b_s(r: vec4<u32>, sc: vec4<u32>, r2: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_expm1_from(z);
    let h = wa_f64_trig_from(r2, wa_f64_ldexp(select(vec2<u32>(0u), z.zw, ok), -1), 0u);
    return select(vec4<u32>(0u), vec4<u32>(h, 0u, 0u), ok);
}""")
_def("""
fn wa_z_expm1_c(sc: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    return wa_f64_expm1_a(z.xy);
}""")
_def("""
fn wa_z_expm1_d(sc: vec4<u32>, h: vec4<u32>, e: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_expm1_from(z);
    return select(vec4<u32>(0u), vec4<u32>(wa_f64_exp(select(vec2<u32>(0u), z.xy, ok)), 0u, 0u), ok);
}""")
_def("""
fn wa_z_expm1_e(sc: vec4<u32>, h: vec4<u32>, e: vec4<u32>, x: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let a = z.xy;
    let b = z.zw;
    let zero = vec2<u32>(0u, 0u);
    let nan = vec2<u32>(0u, 0x7ff80000u);
    let m = wa_f64_expm1_b(e, a);
    if (wa_f64_both_zero(b, b)) {
        if (wa_f64_both_zero(a, a)) { return vec4<u32>(zero, b); }  // (+0 real, as complex64's)
        return vec4<u32>(m, b);
    }
    if (!wa_f64_isfinite(b)) {
        if (wa_f64_isinf(a)) {
            if (wa_f64_signbit(a)) { return vec4<u32>(vec2<u32>(0u, 0xbff00000u), wa_f64_copysign(zero, b)); }
            return vec4<u32>(a, nan);
        }
        return vec4<u32>(nan, nan);
    }
    if (wa_f64_isnan(a)) { return vec4<u32>(nan, nan); }
    let re = wa_f64_sub(wa_f64_mul(m, sc.zw), wa_f64_ldexp(wa_f64_mul(h.xy, h.xy), 1));
    return vec4<u32>(re, wa_f64_mul(x.xy, sc.xy));
}""")
_def("""
fn wa_z_expm1(z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_expm1_from(z);
    let b = select(vec2<u32>(0u), z.zw, ok);
    var t: array<vec2<u32>, 3>;
    for (var k = 0u; k < 3u; k = k + 1u) {
        t[k] = wa_f64_trig(select(b, wa_f64_ldexp(b, -1), k == 2u), k & 1u);
    }
    let sc = vec4<u32>(t[0], t[1]);
    let h = vec4<u32>(t[2], 0u, 0u);
    let e = wa_z_expm1_c(sc, h, z);
    return wa_z_expm1_e(sc, h, e, wa_z_expm1_d(sc, h, e, z), z);
}""")

# -- hyperbolic and trigonometric ------------------------------------------------------------
# (sinh a, cosh a) for a not NaN, from e = wa_f64_exp_pm_a(|a|) (one call site of the
# exponential), bit for bit wa_f64_sinh's and wa_f64_cosh's
_def("""
fn wa_z_sinhcosh_from(e: vec4<u32>, a: vec2<u32>) -> vec4<u32> {
    let ax = wa_f64_abs(a);
    var h: array<vec2<u32>, 2>;
    for (var k = 0u; k < 2u; k = k + 1u) {
        h[k] = wa_f64_exp_pm_b(e, ax, vec2<u32>(0u, select(0xbff00000u, 0x3ff00000u, k == 1u)));
    }
    let z = wa_f64_mul(ax, ax);
    var s = select(h[0], wa_f64_fma(wa_f64_mul(ax, z), wa_f64_sinh_q(z), ax), ax.y < 0x3fc00000u);
    s = select(s, ax, ax.y < 0x3e400000u || wa_f64_isinf(ax));
    let c = select(h[1], vec2<u32>(0u, 0x3ff00000u), ax.y < 0x3e400000u);
    return vec4<u32>(wa_f64_with_sign(s, a), c);
}""")
# sinh z = (sinh a cos b, cosh a sin b), or with cosine cosh z = (cosh a cos b, sinh a sin b),
# special values as NumPy's (on the real axis cosh's imaginary part is sinh(a) b: a zero of
# the sign of a times b's). Above |a| = 709, where sinh a and cosh a are ±e^|a|/2 in
# float64, from the values at a/2 applied twice, so a part below the overflow threshold
# stays finite.
# In four stages (ops.STAGED, for a browser; five there, _a split by _sincos_stage), each
# reading the ones before: _a, (sin b, cos b); _b, wa_f64_exp_pm_a of |a| (or |a|/2 above
# 709); _c, (sinh, cosh) of that; _d the rest (zeros from the first three where the result
# is not made of them)
_def("""
fn wa_z_hyp_from(z: vec4<u32>) -> bool {
    return !wa_f64_isnan(z.xy) && wa_f64_isfinite(z.zw);
}""")
_def("""
fn wa_z_hyp_half(a: vec2<u32>) -> vec2<u32> {
    return select(a, wa_f64_ldexp(a, -1), wa_f64_lt(vec2<u32>(0u, 0x40862800u), wa_f64_abs(a)));
}""")
_sincos_stage("wa_z_hyp_a", "wa_z_hyp_from(z)")
_def("""
fn wa_z_hyp_b(sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_hyp_from(z);
    return select(vec4<u32>(0u), wa_f64_exp_pm_a(wa_f64_abs(wa_z_hyp_half(select(vec2<u32>(0u), z.xy, ok)))), ok);
}""")
_def("""
fn wa_z_hyp_c(sc: vec4<u32>, e: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_hyp_from(z);
    return select(vec4<u32>(0u), wa_z_sinhcosh_from(e, wa_z_hyp_half(select(vec2<u32>(0u), z.xy, ok))), ok);
}""")
_def("""
fn wa_z_hyp_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>, cosine: bool) -> vec4<u32> {
    let a = z.xy;
    let b = z.zw;
    let b0 = wa_f64_is0(wa_f64_abs(b));
    let zero = select(b, vec2<u32>(b.x, b.y ^ (a.y & 0x80000000u)), cosine);
    if (wa_f64_isnan(a)) {
        if (b0) { return vec4<u32>(wa_f64_quiet(a), b); }
        return wa_z_nan();
    }
    if (!wa_f64_isfinite(b)) {
        if (wa_f64_isinf(a)) { return vec4<u32>(wa_f64_inf(0u), wa_f64_default_nan()); }
        if (wa_f64_is0(wa_f64_abs(a))) {
            return select(vec4<u32>(a, wa_f64_default_nan()),
                          vec4<u32>(wa_f64_default_nan(), 0u, 0u), cosine);
        }
        return wa_z_nan();
    }
    let big = wa_f64_lt(vec2<u32>(0u, 0x40862800u), wa_f64_abs(a));
    var re = wa_f64_mul(select(h.xy, h.zw, cosine), sc.zw);
    var im = wa_f64_mul(select(h.zw, h.xy, cosine), sc.xy);
    if (big) {
        re = wa_f64_ldexp(wa_f64_mul(re, h.zw), 1);
        im = wa_f64_ldexp(wa_f64_mul(im, h.zw), 1);
    }
    return vec4<u32>(re, select(im, zero, b0));
}""")
_def("""
fn wa_z_hyp(z: vec4<u32>, cosine: bool) -> vec4<u32> {
    let sc = wa_z_hyp_a(z);
    let e = wa_z_hyp_b(sc, z);
    return wa_z_hyp_d(sc, e, wa_z_hyp_c(sc, e, z), z, cosine);
}""")
_def("fn wa_z_sinh(z: vec4<u32>) -> vec4<u32> { return wa_z_hyp(z, false); }")
_def("fn wa_z_cosh(z: vec4<u32>) -> vec4<u32> { return wa_z_hyp(z, true); }")
# tanh(a + ib) = (sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b), a sum of squares;
# from |a| = 22 on the real part is ±1 in float64 and the imaginary part
# sin b cos b / cosh^2 a (0 once cosh a overflows)
# In four stages as wa_z_hyp (ops.STAGED)
_def("""
fn wa_z_tanh_from(z: vec4<u32>) -> bool {
    return !wa_f64_isnan(z.xy) && wa_f64_isfinite(z.zw) && !wa_f64_isinf(z.xy);
}""")
_sincos_stage("wa_z_tanh_a", "wa_z_tanh_from(z)")
_def("""
fn wa_z_tanh_b(sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_tanh_from(z);
    return select(vec4<u32>(0u), wa_f64_exp_pm_a(wa_f64_abs(select(vec2<u32>(0u), z.xy, ok))), ok);
}""")
_def("""
fn wa_z_tanh_c(sc: vec4<u32>, e: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_tanh_from(z);
    return select(vec4<u32>(0u), wa_z_sinhcosh_from(e, select(vec2<u32>(0u), z.xy, ok)), ok);
}""")
_def("""
fn wa_z_tanh_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let a = z.xy;
    let b = z.zw;
    if (wa_f64_isnan(a)) {
        if (wa_f64_is0(wa_f64_abs(b))) { return vec4<u32>(wa_f64_quiet(a), b); }
        return wa_z_nan();
    }
    let one = wa_f64_with_sign(vec2<u32>(0u, 0x3ff00000u), a);
    if (!wa_f64_isfinite(b)) {
        if (wa_f64_isinf(a)) { return vec4<u32>(one, wa_f64_with_sign(vec2<u32>(0u, 0u), b)); }
        if (wa_f64_is0(wa_f64_abs(a))) { return vec4<u32>(a, wa_f64_default_nan()); }
        return wa_z_nan();
    }
    // the standard's ±1 ± 0j (C and NumPy: 0 · sin 2b, whose sign is sin 2b's)
    if (wa_f64_isinf(a)) { return vec4<u32>(one, wa_f64_with_sign(vec2<u32>(0u, 0u), b)); }
    let p = wa_f64_mul(sc.xy, sc.zw);
    if (!wa_f64_lt(wa_f64_abs(a), vec2<u32>(0u, 0x40360000u))) {
        return vec4<u32>(one, wa_f64_div(wa_f64_div(p, h.zw), h.zw));
    }
    let d = wa_f64_fma(h.xy, h.xy, wa_f64_mul(sc.zw, sc.zw));
    return vec4<u32>(wa_f64_div(wa_f64_mul(h.xy, h.zw), d), wa_f64_div(p, d));
}""")
_def("""
fn wa_z_tanh(z: vec4<u32>) -> vec4<u32> {
    let sc = wa_z_tanh_a(z);
    let e = wa_z_tanh_b(sc, z);
    return wa_z_tanh_d(sc, e, wa_z_tanh_c(sc, e, z), z);
}""")
# sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), iz = (-b, a), and their stages
# (ops.STAGED): those of sinh, cosh and tanh at iz
_def("fn wa_z_i(z: vec4<u32>) -> vec4<u32> { return vec4<u32>(wa_f64_neg(z.zw), z.xy); }")
_def("fn wa_z_minus_i(w: vec4<u32>) -> vec4<u32> { return vec4<u32>(w.zw, wa_f64_neg(w.xy)); }")
_def("""
fn wa_z_sin_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    if (wa_f64_isinf(z.zw) && !wa_f64_isfinite(z.xy)) { return vec4<u32>(wa_f64_default_nan(), wa_f64_inf(0u)); }
    return wa_z_minus_i(wa_z_hyp_d(sc, e, h, wa_z_i(z), false));
}""")
_def("""
fn wa_z_sin(z: vec4<u32>) -> vec4<u32> {
    let sc = wa_z_sin_a(z);
    let e = wa_z_sin_b(sc, z);
    return wa_z_sin_d(sc, e, wa_z_sin_c(sc, e, z), z);
}""")
_def("""
fn wa_z_cos_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    return wa_z_hyp_d(sc, e, h, wa_z_i(z), true);
}""")
_def("fn wa_z_cos(z: vec4<u32>) -> vec4<u32> { return wa_z_cosh(wa_z_i(z)); }")
_def("""
fn wa_z_tan_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    return wa_z_minus_i(wa_z_tanh_d(sc, e, h, wa_z_i(z)));
}""")
_def("fn wa_z_tan(z: vec4<u32>) -> vec4<u32> { return wa_z_minus_i(wa_z_tanh(wa_z_i(z))); }")
# the first three stages of sin and cos (wa_z_hyp's) and of tan (wa_z_tanh's) at iz; sinh
# and cosh take wa_z_hyp's as they are
for _f, _g in (("sin", "hyp"), ("tan", "tanh")):
    _def(f"fn wa_z_{_f}_a(z: vec4<u32>) -> vec4<u32> {{ return wa_z_{_g}_a(wa_z_i(z)); }}")
    _def(f"fn wa_z_{_f}_a_r(z: vec4<u32>) -> vec4<u32> {{ return wa_z_{_g}_a_r(wa_z_i(z)); }}")
    _def(f"fn wa_z_{_f}_a_s(r: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{ return wa_z_{_g}_a_s(r, wa_z_i(z)); }}")
    _def(f"fn wa_z_{_f}_b(sc: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{ return wa_z_{_g}_b(sc, wa_z_i(z)); }}")
    _def(f"fn wa_z_{_f}_c(sc: vec4<u32>, e: vec4<u32>, z: vec4<u32>) -> vec4<u32> "
         f"{{ return wa_z_{_g}_c(sc, e, wa_z_i(z)); }}")
for _f, _cos in (("sinh", "false"), ("cosh", "true")):
    _def(f"fn wa_z_{_f}_d(sc: vec4<u32>, e: vec4<u32>, h: vec4<u32>, z: vec4<u32>) -> vec4<u32> "
         f"{{ return wa_z_hyp_d(sc, e, h, z, {_cos}); }}")
# C's complex product (C11 Annex G, as NumPy's e^(w ln z) gets it from the C library): where
# both parts of the plain product are NaN and an operand is infinite, the product again with
# that operand's parts as ±1 (infinite) and ±0, the other's NaN parts as ±0, times infinity
_def("""
fn wa_z_inf_box(a: vec4<u32>) -> vec4<u32> {
    let one = vec2<u32>(0u, 0x3ff00000u);
    let zero = vec2<u32>(0u, 0u);
    return vec4<u32>(wa_f64_with_sign(select(zero, one, wa_f64_isinf(a.xy)), a.xy),
                     wa_f64_with_sign(select(zero, one, wa_f64_isinf(a.zw)), a.zw));
}""")
_def("""
fn wa_z_nan_zero(a: vec4<u32>) -> vec4<u32> {
    let zero = vec2<u32>(0u, 0u);
    return vec4<u32>(select(a.xy, wa_f64_with_sign(zero, a.xy), wa_f64_isnan(a.xy)),
                     select(a.zw, wa_f64_with_sign(zero, a.zw), wa_f64_isnan(a.zw)));
}""")
_def("""
fn wa_z_mul_c(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let p = wa_z_mul(a, b);
    let ia = wa_f64_isinf(a.xy) || wa_f64_isinf(a.zw);
    let ib = wa_f64_isinf(b.xy) || wa_f64_isinf(b.zw);
    if (!(wa_f64_isnan(p.xy) && wa_f64_isnan(p.zw)) || !(ia || ib)) { return p; }
    let q = wa_z_mul(select(wa_z_nan_zero(a), wa_z_inf_box(a), ia),
                     select(wa_z_nan_zero(b), wa_z_inf_box(b), ib));
    let inf = wa_f64_inf(0u);
    return vec4<u32>(wa_f64_mul(inf, q.xy), wa_f64_mul(inf, q.zw));
}""")
# z ** w as NumPy computes it: 1 for w = 0; for z = 0, 0 where w is real and positive and NaN
# otherwise; for a real integer w below 100 in magnitude, products by binary powering (w = 2:
# z·z, w = 3: z·(z·z)), a negative w's result then divided into 1; else e^(w ln z), whose
# error grows with |w ln z| as NumPy's (glibc's cpow) does.
# In stages (ops.STAGED; compose() below): _a, ln z where e^(w ln z) is the result (zeros
# elsewhere; ln z's stages before it); _b_r and _b_s, wa_z_exp_a of w ln z; _c, the binary
# powers' result where it is the result; _d the rest. wa_z_pow_case: 0 for w = 0, 1 for z = 0, 2 for the
# binary powers, 3 for e^(w ln z)
_def("""
fn wa_z_pow_case(z: vec4<u32>, w: vec4<u32>) -> u32 {
    let br = w.xy;
    let bi0 = wa_f64_is0(wa_f64_abs(w.zw));
    if (bi0 && wa_f64_is0(wa_f64_abs(br))) { return 0u; }
    if (wa_f64_is0(wa_f64_abs(z.xy)) && wa_f64_is0(wa_f64_abs(z.zw))) { return 1u; }
    if (bi0 && wa_f64_eq(wa_f64_trunc(br), br) && wa_f64_lt(wa_f64_abs(br), vec2<u32>(0u, 0x40590000u))) {
        return 2u;
    }
    return 3u;
}""")
_ZW = "z: vec4<u32>, w: vec4<u32>"
POW_L = _log_stages("wa_z_pow_l", _ZW, "select(vec4<u32>(0u, 0x3ff00000u, 0u, 0u), z, wa_z_pow_case(z, w) == 3u)")
_def("""
fn wa_z_pow_a(d: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    let ok = wa_z_pow_case(z, w) == 3u;
    return select(vec4<u32>(0u), wa_z_log_c(d, v, m, select(vec4<u32>(0u, 0x3ff00000u, 0u, 0u), z, ok)), ok);
}""")
_def("fn wa_z_pow_wl(l: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> { return wa_z_mul_c(w, l); }")
_def("fn wa_z_pow_b_r(wl: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> { return wa_z_exp_a_r(wl); }")
_def("""
fn wa_z_pow_b_s(wl: vec4<u32>, r: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    return wa_z_exp_a_s(r, wl);
}""")
_def("""
fn wa_z_pow_c(l: vec4<u32>, sc: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    let one = vec4<u32>(0u, 0x3ff00000u, 0u, 0u);
    let ok = wa_z_pow_case(z, w) == 2u;
    let neg = wa_f64_signbit(w.xy);
    var n = select(0u, u32(wa_f64_to_i32(wa_f64_abs(w.xy))), ok);
    if (!neg && n == 1u) { return z; }
    if (!neg && n == 2u) { return wa_z_mul(z, z); }
    if (!neg && n == 3u) { return wa_z_mul(z, wa_z_mul(z, z)); }
    var r = one;
    var p = z;
    loop {
        if (n == 0u) { break; }
        if ((n & 1u) == 1u) { r = wa_z_mul(r, p); }
        n = n >> 1u;
        if (n == 0u) { break; }
        p = wa_z_mul(p, p);
    }
    return select(r, wa_z_div(one, r), neg && ok);
}""")
_def("""
fn wa_z_pow_p(wl: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    return wa_f64_exp_p(wa_z_exp_arg(wl));
}""")
_def("""
fn wa_z_pow_d(wl: vec4<u32>, sc: vec4<u32>, r: vec4<u32>, p: vec4<u32>, z: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    let c = wa_z_pow_case(z, w);
    let e = wa_z_exp_from(sc, wa_z_exp_e_from(p, wl), wl);
    let bi0 = wa_f64_is0(wa_f64_abs(w.zw));
    let at0 = select(wa_z_nan(), vec4<u32>(0u), bi0 && wa_f64_lt(vec2<u32>(0u, 0u), w.xy));
    return select(select(select(e, r, c == 2u), at0, c == 1u), vec4<u32>(0u, 0x3ff00000u, 0u, 0u), c == 0u);
}""")
# ln z's five stages, its last (_a: l), w l (_wl), its imaginary part's reduction and (sin,
# cos), the binary powers, the series of e^Re(w l) (wa_f64_exp_p), the rest
STAGED["pow"] = compose("wa_z_pow", _ZW, "vec4<u32>", POW_L + (
    Stage("wa_z_pow_a", (2, 3, 4)), Stage("wa_z_pow_wl", (5,)), Stage("wa_z_pow_b_r", (6,)),
    Stage("wa_z_pow_b_s", (6, 7)), Stage("wa_z_pow_c", (5, 8)), Stage("wa_z_pow_p", (6,)),
    Stage("wa_z_pow_d", (6, 8, 9, 10))))

# -- inverse trigonometric and hyperbolic ----------------------------------------------------
# Kahan's formulas ("Branch cuts for complex elementary functions", 1987), as complex64's, for
# x, y >= 0 finite, with s = sqrt(1 - z) and t = sqrt(1 + z): asin z = atan2(x, Re(s t)) +
# i asinh(Im(conj(s) t)), acos z = 2 atan2(Re s, Re t) + i asinh(Im(conj(t) s)); every sum in
# them adds terms of one sign (Im(conj(t) s) is -Im(conj(s) t)). Above |z| = 2^28, asin z =
# atan2(y, x) + i (ln|z| + ln 2) (first quadrant; acos the conjugate, parts swapped).
# asinh and asin take the first for (y, x), acos and acosh the second for (x, y), (x, y) the
# magnitudes of z's parts (asin: of iz; acosh: of conj-folded z). In ten stages (ops.STAGED;
# compose() makes each function whole from them): _s and _t, s and t; _q, _u and _d, atan2_dd's
# for the angle (of the point wa_z_inv_point); _a, the angle; _r, asinh's logarithm's
# argument for u = Im(conj(s) t); _v, the double-double whose logarithm is taken (ln|z|'s
# above 2^28, else _r's); _m, wa_f64_ln_m of it; the last, the function from them and its
# special cases.
_def("""
fn wa_z_inv_big(x: vec2<u32>, y: vec2<u32>) -> bool {
    return wa_f64_lt(vec2<u32>(0u, 0x41b00000u), x) || wa_f64_lt(vec2<u32>(0u, 0x41b00000u), y);
}""")
_def("""
fn wa_z_inv_ok(x: vec2<u32>, y: vec2<u32>) -> bool {
    return wa_f64_isfinite(x) && wa_f64_isfinite(y) && !wa_z_inv_big(x, y);
}""")
# Kahan's formulas' operands: (y, x) for asin, (x, y) for acos; s = sqrt(1 - X - iY) and
# t = sqrt(1 + X + iY) where they are taken (zeros elsewhere)
_def("""
fn wa_z_inv_xy(x: vec2<u32>, y: vec2<u32>, arccos: bool) -> vec4<u32> {
    let ok = wa_z_inv_ok(x, y);
    return select(vec4<u32>(0u), select(vec4<u32>(y, x), vec4<u32>(x, y), arccos), ok);
}""")
_def("""
fn wa_z_inv_s(x: vec2<u32>, y: vec2<u32>, arccos: bool) -> vec4<u32> {
    let p = wa_z_inv_xy(x, y, arccos);
    return select(vec4<u32>(0u), wa_z_sqrt(vec4<u32>(wa_f64_sub(vec2<u32>(0u, 0x3ff00000u), p.xy), wa_f64_neg(p.zw))), wa_z_inv_ok(x, y));
}""")
_def("""
fn wa_z_inv_t(x: vec2<u32>, y: vec2<u32>, arccos: bool) -> vec4<u32> {
    let p = wa_z_inv_xy(x, y, arccos);
    return select(vec4<u32>(0u), wa_z_sqrt(vec4<u32>(wa_f64_add(vec2<u32>(0u, 0x3ff00000u), p.xy), p.zw)), wa_z_inv_ok(x, y));
}""")
# the point whose angle is taken: (x, y) above 2^28, else (Re(s t), X) for asin and
# (Re t, Re s) for acos
_def("""
fn wa_z_inv_point(s: vec4<u32>, t: vec4<u32>, x: vec2<u32>, y: vec2<u32>, arccos: bool) -> vec4<u32> {
    if (wa_z_inv_big(x, y)) { return vec4<u32>(x, y); }
    let p = wa_z_inv_xy(x, y, arccos);
    return select(vec4<u32>(wa_f64_sub(wa_f64_mul(s.xy, t.xy), wa_f64_mul(s.zw, t.zw)), p.xy),
                  vec4<u32>(t.xy, s.xy), arccos);
}""")
# asinh's argument: Im(conj(s) t) for asin, Im(conj(t) s) = -Im(conj(s) t) for acos
_def("""
fn wa_z_inv_u(s: vec4<u32>, t: vec4<u32>, arccos: bool) -> vec2<u32> {
    let u = wa_f64_sub(wa_f64_mul(s.xy, t.zw), wa_f64_mul(s.zw, t.xy));
    return select(u, wa_f64_neg(u), arccos);
}""")
# |u| + sqrt(u^2 + 1) as a double-double, asinh u's logarithm's argument (1 where not taken)
_def("""
fn wa_z_inv_r(s: vec4<u32>, t: vec4<u32>, arccos: bool) -> vec4<u32> {
    let u = wa_z_inv_u(s, t, arccos);
    let ok = wa_f64_asinh_in(u);
    return select(vec4<u32>(0u, 0x3ff00000u, 0u, 0u),
                  wa_f64_ln_x_root_u(select(vec2<u32>(0u, 0x3ff00000u), wa_f64_abs(u), ok), vec2<u32>(0u, 0x3ff00000u)), ok);
}""")
# the double-double whose logarithm is taken: ln|z|'s above 2^28, else asinh's (r)
_def("""
fn wa_z_inv_v(r: vec4<u32>, x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    if (!wa_f64_isfinite(x) || !wa_f64_isfinite(y)) { return vec4<u32>(0u, 0x3ff00000u, 0u, 0u); }
    if (wa_z_inv_big(x, y)) { return wa_z_ln_abs_v(x, y); }
    return r;
}""")
# (asinh's part, the angle's) for asin, (the angle's, asinh's) for acos, for finite x, y: a,
# the angle (_a's); v and m, _v's and _m's
_def("""
fn wa_z_inv_core(a: vec4<u32>, s: vec4<u32>, t: vec4<u32>, v: vec4<u32>, m: vec4<u32>, x: vec2<u32>, y: vec2<u32>, arccos: bool) -> vec4<u32> {
    let big = wa_z_inv_big(x, y);
    let u = wa_z_inv_u(s, t, arccos);
    let k = select(select(vec2<u32>(0u, 0x3ff00000u), vec2<u32>(0u), wa_f64_abs(u).y < 0x41b00000u),
                   wa_f64_from_i32(-2 * wa_z_ln_abs_sc(x, y)), big);
    let l = wa_f64_ln_of_dd_m(v, m, k).xy;
    if (big) {
        let lnv = wa_f64_add(wa_f64_ldexp(l, -1), vec2<u32>(0xfefa39efu, 0x3fe62e42u));
        return select(vec4<u32>(lnv, a.xy), vec4<u32>(a.xy, wa_f64_neg(lnv)), arccos);
    }
    let h = wa_f64_asinh_fin(l, u);
    return select(vec4<u32>(h, a.xy), vec4<u32>(wa_f64_ldexp(a.xy, 1), h), arccos);
}""")


def _inv_stages(prefix: str, arg: str, arccos: bool) -> tuple[Stage, ...]:
    """The stages of an inverse function before its last (``prefix``_s ... _m) for the z
    computed as ``arg`` from the operand z, Kahan's asin (``arccos`` False) or acos, as
    Stages; the last stage (``prefix``_c) reads (a, s, t, v, m)."""
    lets = f"""
    let zf = {arg};
    let x = wa_f64_abs(zf.xy);
    let y = wa_f64_abs(zf.zw);
    let arccos = {str(arccos).lower()};"""
    for name, body in (("s", "wa_z_inv_s(x, y, arccos)"), ("t", "wa_z_inv_t(x, y, arccos)")):
        _def(f"fn {prefix}_{name}(z: vec4<u32>) -> vec4<u32> {{{lets}\n    return {body};\n}}")
    _angle_stages(prefix, _Z, "wa_z_inv_point(s, t, x, y, arccos)", "s: vec4<u32>, t: vec4<u32>", lets)
    _def(f"""fn {prefix}_a(s: vec4<u32>, t: vec4<u32>, d: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{{lets}
    return vec4<u32>(wa_z_angle(d, wa_z_inv_point(s, t, x, y, arccos)), 0u, 0u);
}}""")
    _def(f"""fn {prefix}_r(s: vec4<u32>, t: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{{lets}
    return wa_z_inv_r(s, t, arccos);
}}""")
    _def(f"""fn {prefix}_v(r: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{{lets}
    return wa_z_inv_v(r, x, y);
}}""")
    _def(f"fn {prefix}_m(v: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{ return wa_f64_ln_m(v); }}")
    return (Stage(prefix + "_s"), Stage(prefix + "_t", ()), Stage(prefix + "_q", (0, 1)),
            Stage(prefix + "_u", (0, 1, 2)), Stage(prefix + "_d", (0, 1, 2, 3)), Stage(prefix + "_a", (0, 1, 4)),
            Stage(prefix + "_r", (0, 1)), Stage(prefix + "_v", (6,)), Stage(prefix + "_m", (7,)))


_INV_LAST = (5, 0, 1, 7, 8)  # the last stage reads a, s, t, v, m
_INV = "a: vec4<u32>, s: vec4<u32>, t: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>"
# asinh is odd and conj-symmetric: computed for (|a|, |b|), signs put back; asinh(x + iy) =
# swap(asin(y + ix))
_def(f"""
fn wa_z_asinh_c({_INV}) -> vec4<u32> {{
    let x = wa_f64_abs(z.xy);
    let y = wa_f64_abs(z.zw);
    let inf = wa_f64_inf(0u);
    var r: vec4<u32>;
    if (wa_f64_isnan(x)) {{
        r = vec4<u32>(x, select(x, y, wa_f64_is0(y)));
        if (wa_f64_isinf(y)) {{ r = vec4<u32>(inf, x); }}
    }} else if (wa_f64_isnan(y)) {{
        r = vec4<u32>(select(y, inf, wa_f64_isinf(x)), y);
    }} else if (wa_f64_isinf(x)) {{
        r = vec4<u32>(x, select(vec2<u32>(0u, 0u), vec2<u32>(0x54442d18u, 0x3fe921fbu), wa_f64_isinf(y)));
    }} else if (wa_f64_isinf(y)) {{
        r = vec4<u32>(y, vec2<u32>(0x54442d18u, 0x3ff921fbu));
    }} else {{
        r = wa_z_inv_core(a, s, t, v, m, x, y, false);
    }}
    return vec4<u32>(wa_f64_copysign(r.xy, z.xy), wa_f64_copysign(r.zw, z.zw));
}}""")
STAGED["asinh"] = compose("wa_z_asinh", _Z, "vec4<u32>",
                          _inv_stages("wa_z_asinh", "z", False) + (Stage("wa_z_asinh_c", _INV_LAST),))
# asin z = -i asinh(iz)
_ROT = "vec4<u32>(wa_f64_neg(z.zw), z.xy)"
_def(f"""
fn wa_z_asin_c({_INV}) -> vec4<u32> {{
    let w = wa_z_asinh_c(a, s, t, v, m, {_ROT});
    return vec4<u32>(w.zw, wa_f64_neg(w.xy));
}}""")
STAGED["asin"] = compose("wa_z_asin", _Z, "vec4<u32>",
                         _inv_stages("wa_z_asin", _ROT, False) + (Stage("wa_z_asin_c", _INV_LAST),))
# acos(x + iy) = (r, -s) computed for (|a|, |b|), then acos(conj z) = conj acos(z) and
# acos(-z) = π - acos(z)
_def(f"""
fn wa_z_acos_c({_INV}) -> vec4<u32> {{
    let x = wa_f64_abs(z.xy);
    let y = wa_f64_abs(z.zw);
    let ninf = wa_f64_inf(1u);
    let half_pi = vec2<u32>(0x54442d18u, 0x3ff921fbu);
    var r: vec4<u32>;
    if (wa_f64_isnan(x)) {{
        r = vec4<u32>(x, select(x, ninf, wa_f64_isinf(y)));
    }} else if (wa_f64_isnan(y)) {{
        r = vec4<u32>(select(y, half_pi, wa_f64_is0(x)), select(y, ninf, wa_f64_isinf(x)));
    }} else if (wa_f64_isinf(x)) {{
        r = vec4<u32>(select(vec2<u32>(0u, 0u), vec2<u32>(0x54442d18u, 0x3fe921fbu), wa_f64_isinf(y)), ninf);
    }} else if (wa_f64_isinf(y)) {{
        r = vec4<u32>(half_pi, ninf);
    }} else {{
        r = wa_z_inv_core(a, s, t, v, m, x, y, true);
    }}
    // π - r with π as a double-double; for a = -0 the real part is π/2 either way
    var re = r.xy;
    if (wa_f64_signbit(z.xy) && !wa_f64_is0(x)) {{
        re = wa_f64_add(wa_f64_sub(vec2<u32>(0x54442d18u, 0x400921fbu), r.xy), vec2<u32>(0x33145c07u, 0x3ca1a626u));
    }}
    return vec4<u32>(re, select(r.zw, wa_f64_neg(r.zw), wa_f64_signbit(z.zw)));
}}""")
STAGED["acos"] = compose("wa_z_acos", _Z, "vec4<u32>",
                         _inv_stages("wa_z_acos", "z", True) + (Stage("wa_z_acos_c", _INV_LAST),))
# acosh z = ±i acos z: i acos z in the upper half plane, conj-symmetric
_FOLD = "vec4<u32>(z.xy, wa_f64_abs(z.zw))"
_def(f"""
fn wa_z_acosh_c({_INV}) -> vec4<u32> {{
    let w = wa_z_acos_c(a, s, t, v, m, {_FOLD});
    return vec4<u32>(wa_f64_neg(w.zw), wa_f64_copysign(w.xy, z.zw));
}}""")
STAGED["acosh"] = compose("wa_z_acosh", _Z, "vec4<u32>",
                          _inv_stages("wa_z_acosh", _FOLD, True) + (Stage("wa_z_acosh_c", _INV_LAST),))
# atanh is odd and conj-symmetric: computed for (x, y) = (|a|, |b|), signs put back.
# Re = log1p(4x / ((1 - x)^2 + y^2)) / 4, Im = atan2(2y, 1 - x^2 - y^2) / 2 with
# 1 - x^2 - y^2 from exact products and sums; at x = 1 and y below 2^-500 (where y^2
# underflows), Re = (ln 2 - ln y) / 2; above |z| = 2^30, atanh z = 1/z + iπ/2 to float64
# precision (1/z's imaginary part is not below π/2's ulp there); at x = 0, atanh z = i atan y.
# In nine stages (ops.STAGED; compose() makes it whole): _h, |z| above 2^30 (hypot); _p, the
# point whose angle is taken (wa_z_atanh_point); _q, _u and _d, atan2_dd's for its angle; _a,
# the angle; _v, the
# double-double whose logarithm is taken (y where Re is (ln 2 - ln y) / 2, else 1 + the
# argument of log1p); _m, wa_f64_ln_m of it; the last the rest.
_def("""
fn wa_z_atanh_big(x: vec2<u32>, y: vec2<u32>) -> bool {
    return wa_f64_lt(vec2<u32>(0u, 0x41d00000u), x) || wa_f64_lt(vec2<u32>(0u, 0x41d00000u), y);
}""")
# the case: 0 for x = 0, 1 for a part infinite, 2 for NaN, 3 above 2^30, 4 for 1 + 0i, 5
# for (ln 2 - ln y) / 2, 6 for log1p
_def("""
fn wa_z_atanh_case(x: vec2<u32>, y: vec2<u32>) -> u32 {
    if (wa_f64_is0(x)) { return 0u; }
    if (wa_f64_isinf(x) || wa_f64_isinf(y)) { return 1u; }
    if (wa_f64_isnan(x) || wa_f64_isnan(y)) { return 2u; }
    if (wa_z_atanh_big(x, y)) { return 3u; }
    let one = vec2<u32>(0u, 0x3ff00000u);
    if (wa_f64_eq(x, one) && wa_f64_is0(y)) { return 4u; }
    if (wa_f64_eq(x, one) && wa_f64_lt(y, vec2<u32>(0u, 0x20b00000u))) { return 5u; }
    return 6u;
}""")
# 1 - x^2 - y^2 from exact products and sums
_def("""
fn wa_z_atanh_1m(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let p = wa_f64_two_prod(x, x);
    let q = wa_f64_two_prod(y, y);
    let u = wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), wa_f64_neg(p.xy));
    let v = wa_f64_two_sum(u.xy, wa_f64_neg(q.xy));
    return wa_f64_add(v.xy, wa_f64_sub(wa_f64_add(v.zw, u.zw), wa_f64_add(p.zw, q.zw)));
}""")
# the point whose angle is taken: 1 + iy for x = 0 (atan y), (1 - x^2 - y^2) + 2iy
_def("""
fn wa_z_atanh_point(x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let c = wa_z_atanh_case(x, y);
    if (c == 0u) { return vec4<u32>(0u, 0x3ff00000u, y); }
    if (c >= 5u) { return vec4<u32>(wa_z_atanh_1m(x, y), wa_f64_ldexp(y, 1)); }
    return vec4<u32>(0u, 0x3ff00000u, 0u, 0u);
}""")
# 4x / ((1 - x)^2 + y^2), log1p's argument
_def("""
fn wa_z_atanh_w(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let e = wa_f64_sub(vec2<u32>(0u, 0x3ff00000u), x);
    return wa_f64_div(wa_f64_ldexp(x, 2), wa_f64_fma(e, e, wa_f64_mul(y, y)));
}""")
_def("""
fn wa_z_atanh_logarg(x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let c = wa_z_atanh_case(x, y);
    if (c == 5u) { return vec4<u32>(y, 0u, 0u); }
    if (c == 6u) { return wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), wa_z_atanh_w(x, y)); }
    return vec4<u32>(0u, 0x3ff00000u, 0u, 0u);
}""")
_def("""
fn wa_z_atanh_last(h: vec4<u32>, a: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    let x = wa_f64_abs(z.xy);
    let y = wa_f64_abs(z.zw);
    let half_pi = vec2<u32>(0x54442d18u, 0x3ff921fbu);
    let c = wa_z_atanh_case(x, y);
    var r: vec4<u32>;
    if (c == 0u) {
        r = vec4<u32>(0u, 0u, a.xy);
    } else if (c == 1u) {
        r = vec4<u32>(0u, 0u, select(half_pi, y, wa_f64_isnan(y)));
    } else if (c == 2u) {
        r = wa_z_nan();
    } else if (c == 3u) {
        r = vec4<u32>(wa_f64_div(wa_f64_div(x, h.xy), h.xy), wa_f64_sub(half_pi, wa_f64_div(wa_f64_div(y, h.xy), h.xy)));
    } else if (c == 4u) {
        r = vec4<u32>(wa_f64_inf(0u), 0u, 0u);
    } else {
        let im = wa_f64_ldexp(a.xy, -1);
        let l = wa_f64_ln_of_dd_m(v, m, vec2<u32>(0u, 0u)).xy;
        if (c == 5u) {
            r = vec4<u32>(wa_f64_ldexp(wa_f64_sub(vec2<u32>(0xfefa39efu, 0x3fe62e42u), l), -1), im);
        } else {
            r = vec4<u32>(wa_f64_ldexp(wa_f64_log1p_fin(l, wa_z_atanh_w(x, y)), -2), im);
        }
    }
    return vec4<u32>(wa_f64_copysign(r.xy, z.xy), wa_f64_copysign(r.zw, z.zw));
}""")


def _atanh_stages(prefix: str, arg: str) -> tuple[Stage, ...]:
    """atanh's stages for the z computed as ``arg`` from the operand z (atan: of iz)."""
    lets = f"""
    let zf = {arg};
    let x = wa_f64_abs(zf.xy);
    let y = wa_f64_abs(zf.zw);"""
    _def(f"""fn {prefix}_h(z: vec4<u32>) -> vec4<u32> {{{lets}
    let ok = wa_z_atanh_case(x, y) == 3u;
    return vec4<u32>(wa_f64_hypot(select(vec2<u32>(0u), x, ok), select(vec2<u32>(0u), y, ok)), 0u, 0u);
}}""")
    _def(f"fn {prefix}_p(z: vec4<u32>) -> vec4<u32> {{{lets}\n    return wa_z_atanh_point(x, y);\n}}")
    _angle_stages(prefix, _Z, "p", "p: vec4<u32>")
    _def(f"fn {prefix}_a(p: vec4<u32>, d: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{ return vec4<u32>(wa_z_angle(d, p), 0u, 0u); }}")
    _def(f"fn {prefix}_v(z: vec4<u32>) -> vec4<u32> {{{lets}\n    return wa_z_atanh_logarg(x, y);\n}}")
    _def(f"fn {prefix}_m(v: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{ return wa_f64_ln_m(v); }}")
    return (Stage(prefix + "_h"), Stage(prefix + "_p", ()), Stage(prefix + "_q", (1,)), Stage(prefix + "_u", (1, 2)),
            Stage(prefix + "_d", (1, 2, 3)), Stage(prefix + "_a", (1, 4)), Stage(prefix + "_v", ()),
            Stage(prefix + "_m", (6,)))


_ATANH_LAST = (0, 5, 6, 7)  # the last stage reads h, a, v, m
_def("""
fn wa_z_atanh_c(h: vec4<u32>, a: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {
    return wa_z_atanh_last(h, a, v, m, z);
}""")
STAGED["atanh"] = compose("wa_z_atanh", _Z, "vec4<u32>", _atanh_stages("wa_z_atanh", "z") + (Stage("wa_z_atanh_c", _ATANH_LAST),))
# atan z = -i atanh(iz)
_def(f"""
fn wa_z_atan_c(h: vec4<u32>, a: vec4<u32>, v: vec4<u32>, m: vec4<u32>, z: vec4<u32>) -> vec4<u32> {{
    let w = wa_z_atanh_last(h, a, v, m, {_ROT});
    return vec4<u32>(w.zw, wa_f64_neg(w.xy));
}}""")
STAGED["atan"] = compose("wa_z_atan", _Z, "vec4<u32>", _atanh_stages("wa_z_atan", _ROT) + (Stage("wa_z_atan_c", _ATANH_LAST),))
_def("fn wa_z_round(z: vec4<u32>) -> vec4<u32> { return vec4<u32>(wa_f64_round(z.xy), wa_f64_round(z.zw)); }")
