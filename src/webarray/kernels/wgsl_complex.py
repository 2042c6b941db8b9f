"""complex64 math in WGSL: one helper per elementwise function of the standard.

A complex64 value is held in a ``vec2<f32>`` (x real, y imaginary). Helpers are registered
in ``wgsl_lib.LIB`` like the real ones, so ``helpers_for`` pulls them in by name: the public
ones are ``wa_c<op>`` (``wa_cmul``, ``wa_csqrt``, ...), the building blocks they share are
``wa_c_<name>``. The op table (``ops.py``) calls them in the complex lane (``"c"``) of every
function the 2025.12 standard defines for complex operands.

Special cases. Every case the standard lists for complex operands is implemented as listed
(C99 Annex G, from which the standard takes them, decides the cases it leaves open), and the
branch cuts are C99's: the sign of a zero imaginary part (real part for the cuts on the
imaginary axis) picks the side of the cut. The functions the standard defines through
others (asin through asinh, sin through sinh, log2 through log, ...) are computed that way,
with ``x*1j`` read as the exact rotation (-b, a). An unsigned 0 in a listed result is read
as +0, as array-api-tests reads it: expm1(-0 + 0j) = +0 + 0j (NumPy: -0 + 0j) and
tanh(+inf + bj) = 1 + 0j for every positive finite b (C99 and NumPy: the sign of sin 2b).
Every function keeps the symmetries the standard requires (``f(conj(z)) == conj(f(z))``,
and oddness or evenness), signed zeros included, also where the standard leaves a sign
unspecified. Where it leaves a result implementation-defined:

- multiply is the plain formula and divide Smith's algorithm, as NumPy, with the quotient
  divided rather than multiplied by a reciprocal (so a tiny divisor gives inf, not NaN) and
  the divisor scaled by a power of two (so that (1e38 + 1e38j) / (3e38 + 3e38j) is not 0);
  a zero divisor gives (a/0, b/0), as NumPy. reciprocal is Smith's 1 / z (1/0 = inf + NaN j),
  with the zero signs of conj(z) / |z|^2.
- sign of an infinite value is its direction, as NumPy (sign(inf + 1j) = 1 + 0j); NaN + NaN j
  when both parts are infinite.
- pow(x, 0) is 1 for every x; pow(x, n) for a finite x and n in {1, 2, 3} multiplies, as
  NumPy, so that pow(x, 2) == square(x); every other case is exp(y log x) as the standard
  says, computed in double-float when the result is finite.

Accuracy, measured by ``tests/test_complex_math.py`` (``python tests/test_complex_math.py``
prints the table): at most 0.5 to 4 float32 ULPs of |result| depending on the function.
Intermediate results do not overflow or underflow where the result does not: abs is
``wa_hypot``; sqrt, log, sign and divide scale by a power of two; exp-like functions apply the power of two of e^x last, so that
Re exp(100 + 1.5707963j) = 2.03e36 is finite and correct although e^100 is not.
Cancellation is avoided where it would cost accuracy relative to |result|: ln|z| is
ln(|z|^2) / 2 with |z|^2 in double-float, and near |z| = 1 log1p(|z|^2 - 1) / 2; expm1 is
expm1(a) cos b - 2 sin^2(b/2); log1p uses 2a + a^2 + b^2; tanh has a sum of squares or a
bounded correction to 1 as denominator; the inverse functions use Kahan's formulas with
sqrt(1 - z) and sqrt(1 + z), in which every sum adds terms of one sign. As in ``wgsl_lib``,
nothing uses WGSL's transcendental builtins, and ``wa_keep`` guards the arithmetic that the
shader compiler would otherwise rewrite.

Devices. The bounds above are lavapipe's (IEEE arithmetic, subnormals kept). On NVIDIA's
Vulkan driver (H100, measured) subnormals flush to zero, division is within 2 ULP, and the
driver folds (a + b) - a to b through ``wa_keep``, so the double-float steps of ``wgsl_lib``
and of these helpers lose their error terms: most functions stay within 3 ULP there, pow and
sinh/cosh/sin/cos above |a| = 10 reach 10 to 50 ULP, and asin/asinh inherit the error of
``wa_asinh`` near 4e-4 (thousands of ULP there).
"""

from __future__ import annotations

from .wgsl_lib import _def

# -- arithmetic --------------------------------------------------------------------------
_def("fn wa_cadd(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> { return a + b; }")
_def("fn wa_csub(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> { return a - b; }")
# wa_keep stops the compiler from factoring a.x * b.y + a.y * b.x once a == b (square):
# Mesa turns z.x * z.y + z.y * z.x into z.y * (z.x + z.x), which overflows for |z.x| > max/2
_def("""
fn wa_cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - wa_keep(a.y * b.y), a.x * b.y + wa_keep(a.y * b.x));
}""")
# Smith's algorithm: with r the ratio of the smaller to the larger part of the divisor,
# every intermediate stays within twice the operands. The divisor is scaled by 2^-e so that
# its larger part is in [1, 2) and the quotient by 2^e afterwards (exactly, once rounded):
# no intermediate overflows or underflows where the quotient does not, and every divisor
# is in [1, 4), where WGSL bounds the error of division (GPUs divide through a reciprocal
# that flushes above 2^126). A dividend above 2^125 is halved for the same reason; one
# below 2^-100 is scaled up by up to 2^64 of the 2^e, so that the quotients are divided in
# the normal range: divided there as subnormals, (1e-45j) / (1e-5j) kept one bit and came
# back as 1.84e-40 instead of 1.40e-40.
_def("""
fn wa_cdiv(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    var c = b.x;
    var d = b.y;
    var x = a;
    var k = 0;
    if (c == 0.0 && d == 0.0) { return vec2<f32>(x.x / abs(c), x.y / abs(c)); }
    if (wa_isfinite(c) && wa_isfinite(d)) {
        let e = wa_c_ilogb(max(abs(c), abs(d)));
        c = wa_ldexp(c, -e);
        d = wa_ldexp(d, -e);
        k = -e;
        let m = max(abs(x.x), abs(x.y));
        if (m > 0x1p125) {
            x = 0.5 * x;
            k = k + 1;
        } else if (k > 0 && m < 0x1p-100) {
            let s = min(k, 64);
            x = vec2<f32>(wa_ldexp(x.x, s), wa_ldexp(x.y, s));
            k = k - s;
        }
    }
    var q: vec2<f32>;
    if (abs(c) >= abs(d)) {
        let r = d / c;
        let den = c + d * r;
        q = vec2<f32>((x.x + x.y * r) / den, (x.y - x.x * r) / den);
    } else {
        let r = c / d;
        let den = c * r + d;
        q = vec2<f32>((x.x * r + x.y) / den, (x.y * r - x.x) / den);
    }
    if (k == 0) { return q; }
    return vec2<f32>(wa_ldexp(q.x, k), wa_ldexp(q.y, k));
}""")
_def("fn wa_csquare(z: vec2<f32>) -> vec2<f32> { return wa_cmul(z, z); }")
# Smith's algorithm for 1 / z, scaled as in wa_cdiv, and written out: through wa_cdiv the
# compiler would fold the constant dividend (0 / |c| to 0, 0 - x to -x) and lose the special
# values. Its zero signs are those of conj(z) / |z|^2.
_def("""
fn wa_creciprocal(z: vec2<f32>) -> vec2<f32> {
    var c = z.x;
    var d = z.y;
    var k = 0;
    if (c == 0.0 && d == 0.0) { return vec2<f32>(wa_inf(), wa_nan()); }
    if (wa_isfinite(c) && wa_isfinite(d)) {
        let e = wa_c_ilogb(max(abs(c), abs(d)));
        c = wa_ldexp(c, -e);
        d = wa_ldexp(d, -e);
        k = -e;
    }
    var q: vec2<f32>;
    if (abs(c) >= abs(d)) {
        let r = d / c;
        let den = c + d * r;
        q = vec2<f32>(1.0 / den, -r / den);
    } else {
        let r = c / d;
        let den = c * r + d;
        q = vec2<f32>(r / den, -1.0 / den);
    }
    if (k == 0) { return q; }
    return vec2<f32>(wa_ldexp(q.x, k), wa_ldexp(q.y, k));
}""")
_def("fn wa_cabs(z: vec2<f32>) -> f32 { return wa_hypot(z.x, z.y); }")
_def("fn wa_cround(z: vec2<f32>) -> vec2<f32> { return round(z); }")

# -- classification and comparison ---------------------------------------------------------
_def("fn wa_cisnan(z: vec2<f32>) -> bool { return wa_isnan(z.x) || wa_isnan(z.y); }")
_def("fn wa_cisinf(z: vec2<f32>) -> bool { return wa_isinf(z.x) || wa_isinf(z.y); }")
_def("fn wa_cisfinite(z: vec2<f32>) -> bool { return wa_isfinite(z.x) && wa_isfinite(z.y); }")
_def("fn wa_ceq(a: vec2<f32>, b: vec2<f32>) -> bool { return wa_eq(a.x, b.x) && wa_eq(a.y, b.y); }")

# -- building blocks -------------------------------------------------------------------------
# floor(log2(m)) for finite m > 0, subnormal too
_def("""
fn wa_c_ilogb(m: f32) -> i32 {
    let u = bitcast<u32>(m) & 0x7fffffffu;
    if (u < 0x00800000u) { return -118 - i32(countLeadingZeros(u)); }
    return i32(u >> 23u) - 127;
}""")
# x^2 + y^2 - 1 as a double-float: the squares are exact (Dekker) and summed in double-float,
# so a result near 0 keeps its relative accuracy (for |x|, |y| up to 2^60)
_def("""
fn wa_c_norm2m1(x: f32, y: f32) -> vec2<f32> {
    let xx = wa_two_prod(x, x);
    let yy = wa_two_prod(y, y);
    return wa_df_add(wa_df_add(wa_two_sum(xx.x, -1.0), yy), vec2<f32>(xx.y, 0.0));
}""")
# ln|z| as a double-float for finite nonzero z: z scaled by 2^-e into [1, 2), |z|^2 2^-2e in
# [1, 8) from exact squares in double-float, then ln of that and e ln2
_def("""
fn wa_c_lnabs_df(x: f32, y: f32) -> vec2<f32> {
    let e = wa_c_ilogb(max(abs(x), abs(y)));
    let a = wa_ldexp(x, -e);
    let b = wa_ldexp(y, -e);
    let s = wa_df_add(wa_two_prod(a, a), wa_two_prod(b, b));
    let l = wa_df_add(wa_ln_df(s.x), vec2<f32>(s.y / s.x, 0.0));
    let k = f32(e);
    return wa_df_add(0.5 * l, vec2<f32>(k * 0x1.62e4p-1, k * 0x1.7f7d1cp-20));
}""")
# ln|x + iy| for finite x, y not both zero; near |z| = 1, where ln|z| is small, it is
# log1p(|z|^2 - 1) / 2 with |z|^2 - 1 in double-float
_def("""
fn wa_c_loghypot(x: f32, y: f32) -> f32 {
    let q = x * x + y * y;
    if (q > 0.5 && q < 2.0) {
        let s = wa_c_norm2m1(x, y);
        return 0.5 * (wa_log1p(s.x) + s.y / (1.0 + s.x));
    }
    return wa_c_lnabs_df(x, y).x;
}""")
# (cos, sin) of hi + lo as double-floats (cos hi, cos lo, sin hi, sin lo), for finite hi and
# |lo| <= ulp(hi) / 2, with one reduction for both; lo is dropped above 2^22, where it is no
# longer below a quarter of the kernels' range.
_def("""
fn wa_c_sincos_df(hi: f32, lo: f32) -> vec4<f32> {
    let v = wa_trig_reduce(hi);
    let neg = hi < 0.0;
    var l = select(0.0, lo, abs(hi) < 4194304.0);
    l = select(l, -l, neg);
    let r = wa_two_sum(v.y, v.z + l);
    let s = wa_sin_kernel(r.x, r.y);
    let c = wa_cos_kernel(r.x, r.y);
    let n = u32(v.x);
    let odd = (n & 1u) == 1u;
    var sn = select(s, c, odd);
    sn = select(sn, -sn, n >= 2u);
    sn = select(sn, -sn, neg);
    var cs = select(c, s, odd);
    cs = select(cs, -cs, n == 1u || n == 2u);
    if (hi == 0.0) { sn = vec2<f32>(hi, 0.0); }
    return vec4<f32>(cs, sn);
}""")
# e^(x.x + x.y) = (hi + lo) 2^k as (hi, lo, k) with hi + lo in [0.7, 1.42]; x.x is clamped to
# [-200, 200], beyond which e^x times any nonzero float32 overflows or underflows anyway
_def("""
fn wa_c_exp_split(x: vec2<f32>) -> vec3<f32> {
    let hi = clamp(x.x, -200.0, 200.0);
    let v = wa_exp_reduce(hi);
    let r = wa_two_sum(v.y, v.z + select(0.0, x.y, hi == x.x));
    let u = wa_expm1_taylor(r.x, r.y);
    let e = wa_fast_two_sum(1.0, u.x);
    return vec3<f32>(e.x, e.y + u.y, v.x);
}""")
# (e.x + e.y) 2^e.z t for a split exponential e and finite t, rounded once: t's exponent is
# moved into the power of two, so neither a subnormal t nor a huge e^x loses bits or
# overflows on the way; a zero t stays a (signed) zero.
_def("""
fn wa_c_exp_scale(e: vec3<f32>, t: f32) -> f32 {
    if (t == 0.0 || !wa_isfinite(t)) { return t; }
    var m = t;
    var k = i32(e.z);
    if (abs(m) < 1.17549435e-38) {
        m = m * 16777216.0;
        k = k - 24;
    }
    let u = bitcast<u32>(m);
    k = k + i32((u >> 23u) & 0xffu) - 127;
    m = bitcast<f32>((u & 0x807fffffu) | 0x3f800000u);
    let p = wa_two_prod(e.x, m);
    return wa_ldexp(p.x + (p.y + e.y * m), clamp(k, -252, 254));
}""")
# e^re (cos im + i sin im) for double-float re and im with finite im.x (re.x may be ±inf)
_def("""
fn wa_c_expcis(re: vec2<f32>, im: vec2<f32>) -> vec2<f32> {
    let cs = wa_c_sincos_df(im.x, im.y);
    let e = wa_c_exp_split(re);
    return vec2<f32>(wa_c_exp_scale(e, cs.x), wa_c_exp_scale(e, cs.z));
}""")
# |a| - ln2 as a double-float, so that e^|a| / 2 is rounded once
_def("""
fn wa_c_abs_minus_ln2(a: f32) -> vec2<f32> {
    let d = wa_two_sum(abs(a), -0x1.62e43p-1);
    return vec2<f32>(d.x, d.y + 0x1.05c61p-29);
}""")

# -- roots, exponentials and logarithms ------------------------------------------------------
# sqrt(z) = t + i b / (2t), t = sqrt((|a| + |z|) / 2) for a >= 0, and |b| / (2t) + i ±t for
# a < 0, after scaling z by an even power of two 2^-2k so that the larger part is in [1, 4)
_def("""
fn wa_csqrt(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (wa_isinf(b)) { return vec2<f32>(wa_inf(), b); }
    if (wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    if (wa_isinf(a)) {
        if (a > 0.0) { return vec2<f32>(a, select(wa_copysign(0.0, b), b, wa_isnan(b))); }
        return vec2<f32>(select(0.0, b, wa_isnan(b)), wa_copysign(wa_inf(), b));
    }
    if (wa_isnan(b)) { return vec2<f32>(wa_nan(), wa_nan()); }
    if (a == 0.0 && b == 0.0) { return vec2<f32>(0.0, b); }
    let k = wa_c_ilogb(max(abs(a), abs(b))) & ~1;
    let x = wa_ldexp(a, -k);
    let y = wa_ldexp(b, -k);
    let t = sqrt(0.5 * (abs(x) + wa_hypot(x, y)));
    let u = 0.5 * y / t;
    let h = k / 2;
    if (x >= 0.0) { return vec2<f32>(wa_ldexp(t, h), wa_ldexp(u, h)); }
    return vec2<f32>(wa_ldexp(abs(u), h), wa_copysign(wa_ldexp(t, h), b));
}""")
_def("""
fn wa_cexp(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (b == 0.0) { return vec2<f32>(wa_exp(a), b); }
    if (!wa_isfinite(b)) {
        if (a == -wa_inf()) { return vec2<f32>(0.0, wa_copysign(0.0, b)); }
        if (a == wa_inf()) { return vec2<f32>(a, wa_nan()); }
        return vec2<f32>(wa_nan(), wa_nan());
    }
    if (wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    return wa_c_expcis(vec2<f32>(a, 0.0), vec2<f32>(b, 0.0));
}""")
# Re = e^a cos b - 1 = expm1(a) cos b - 2 sin^2(b/2) where that cancels least (a < 1);
# below a = -18 e^a cos b is under half an ULP of 1.
_def("""
fn wa_cexpm1(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (a == 0.0 && b == 0.0) { return vec2<f32>(0.0, b); }
    if (b == 0.0) { return vec2<f32>(wa_expm1(a), b); }
    if (!wa_isfinite(b)) {
        if (a == -wa_inf()) { return vec2<f32>(-1.0, wa_copysign(0.0, b)); }
        if (a == wa_inf()) { return vec2<f32>(a, wa_nan()); }
        return vec2<f32>(wa_nan(), wa_nan());
    }
    if (wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    let cs = wa_c_sincos_df(b, 0.0);
    let e = wa_c_exp_split(vec2<f32>(a, 0.0));
    let im = wa_c_exp_scale(e, cs.z);
    if (a < -18.0) { return vec2<f32>(-1.0, im); }
    if (a < 1.0) {
        let h = wa_sin(0.5 * b);
        return vec2<f32>(wa_expm1(a) * cs.x - 2.0 * h * h, im);
    }
    return vec2<f32>(wa_c_exp_scale(e, cs.x) - 1.0, im);
}""")
# ln|z| + i arg z; atan2 gives the C99 special cases and the branch cut
_def("""
fn wa_clog(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (wa_isinf(a) || wa_isinf(b)) { return vec2<f32>(wa_inf(), wa_atan2(b, a)); }
    if (wa_isnan(a) || wa_isnan(b)) { return vec2<f32>(wa_nan(), wa_nan()); }
    if (a == 0.0 && b == 0.0) { return vec2<f32>(-wa_inf(), wa_atan2(b, a)); }
    return vec2<f32>(wa_c_loghypot(a, b), wa_atan2(b, a));
}""")
# log(1 + z): near |1 + z| = 1, ln|1 + z| = log1p(2a + a^2 + b^2) / 2 with the sum in
# double-float; elsewhere ln|x + ib| for x = 1 + a rounded, corrected to first order for the
# rounding error
_def("""
fn wa_clog1p(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    let u = wa_two_sum(1.0, a);
    let x = u.x;
    if (!wa_isfinite(a) || !wa_isfinite(b) || (x == 0.0 && b == 0.0)) {
        return wa_clog(vec2<f32>(x, b));
    }
    let q = x * x + b * b;
    if (q > 0.5 && q < 2.0) {
        let s = wa_df_add(wa_df_add(vec2<f32>(2.0 * a, 0.0), wa_two_prod(a, a)),
                          wa_two_prod(b, b));
        return vec2<f32>(0.5 * (wa_log1p(s.x) + s.y / (1.0 + s.x)), wa_atan2(b, x));
    }
    // 1 + a = x + u.y exactly; d ln|z| / dx = x / |z|^2 (u.y is 0 where q may underflow)
    let dx = select(u.y * x / q, 0.0, u.y == 0.0);
    return vec2<f32>(wa_c_loghypot(x, b) + dx, wa_atan2(b, x));
}""")
_def("fn wa_clog2(z: vec2<f32>) -> vec2<f32> { return wa_clog(z) * 1.44269504088896341; }")
_def("fn wa_clog10(z: vec2<f32>) -> vec2<f32> { return wa_clog(z) * 0.434294481903251828; }")
# ln z in double-float, (Re hi, Re lo, Im hi, Im lo), for finite nonzero z: arg z =
# t + sin(arg z - t) to first order, t = atan2 (within an ULP), with sin and cos of t in
# double-float
_def("""
fn wa_c_log_df(z: vec2<f32>) -> vec4<f32> {
    let t = wa_atan2(z.y, z.x);
    let cs = wa_c_sincos_df(t, 0.0);
    let e = wa_c_ilogb(max(abs(z.x), abs(z.y)));
    let a = wa_ldexp(z.x, -e);
    let b = wa_ldexp(z.y, -e);
    let p = wa_two_prod(b, cs.x);
    let q = wa_two_prod(a, cs.z);
    let num = (p.x - q.x) + ((p.y - q.y) + (b * cs.y - a * cs.w));
    return vec4<f32>(wa_c_lnabs_df(z.x, z.y), wa_fast_two_sum(t, num / wa_hypot(a, b)));
}""")
# x * y for a double-float x and a float y, as a double-float
_def("""
fn wa_c_df_scale(x: vec2<f32>, y: f32) -> vec2<f32> {
    let p = wa_two_prod(x.x, y);
    return wa_fast_two_sum(p.x, p.y + x.y * y);
}""")
_def("""
fn wa_cpow(x: vec2<f32>, y: vec2<f32>) -> vec2<f32> {
    if (y.x == 0.0 && y.y == 0.0) { return vec2<f32>(1.0, 0.0); }
    let finite = wa_cisfinite(x) && wa_cisfinite(y);
    if (finite && y.y == 0.0) {
        if (y.x == 1.0) { return x; }
        if (y.x == 2.0) { return wa_cmul(x, x); }
        if (y.x == 3.0) { return wa_cmul(wa_cmul(x, x), x); }
    }
    let w = wa_cmul(y, wa_clog(x));
    if (!finite || (x.x == 0.0 && x.y == 0.0) || !(abs(w.x) <= 200.0) || !wa_isfinite(w.y)) {
        return wa_cexp(w);
    }
    let l = wa_c_log_df(x);
    let wr = wa_df_add(wa_c_df_scale(l.xy, y.x), -wa_c_df_scale(l.zw, y.y));
    let wi = wa_df_add(wa_c_df_scale(l.zw, y.x), wa_c_df_scale(l.xy, y.y));
    return wa_c_expcis(wr, wi);
}""")

# -- hyperbolic and trigonometric ------------------------------------------------------------
# sinh a cos b + i cosh a sin b; above |a| = 10, sinh and cosh are ±e^|a| / 2 to float32
# precision, applied through the split exponential so that the product may be finite where
# e^|a| is not
_def("""
fn wa_csinh(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (b == 0.0) { return vec2<f32>(wa_sinh(a), b); }
    if (!wa_isfinite(b)) {
        if (wa_isinf(a) || a == 0.0) { return vec2<f32>(a, wa_nan()); }
        return vec2<f32>(wa_nan(), wa_nan());
    }
    if (wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    let cs = wa_c_sincos_df(b, 0.0);
    if (abs(a) < 10.0) { return vec2<f32>(wa_sinh(a) * cs.x, wa_cosh(a) * cs.z); }
    let e = wa_c_exp_split(wa_c_abs_minus_ln2(a));
    let re = wa_c_exp_scale(e, cs.x);
    return vec2<f32>(select(re, -re, a < 0.0), wa_c_exp_scale(e, cs.z));
}""")
# cosh a cos b + i sinh a sin b; on the real axis the imaginary part is sinh(a) * b, a zero
# whose sign is that of a times that of b
_def("""
fn wa_ccosh(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (b == 0.0) { return vec2<f32>(wa_cosh(a), wa_copysign(1.0, a) * b); }
    if (!wa_isfinite(b)) {
        if (wa_isinf(a)) { return vec2<f32>(wa_inf(), wa_nan()); }
        if (a == 0.0) { return vec2<f32>(wa_nan(), wa_copysign(1.0, b) * a); }
        return vec2<f32>(wa_nan(), wa_nan());
    }
    if (wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    let cs = wa_c_sincos_df(b, 0.0);
    if (abs(a) < 10.0) { return vec2<f32>(wa_cosh(a) * cs.x, wa_sinh(a) * cs.z); }
    let e = wa_c_exp_split(wa_c_abs_minus_ln2(a));
    let im = wa_c_exp_scale(e, cs.z);
    return vec2<f32>(wa_c_exp_scale(e, cs.x), select(im, -im, a < 0.0));
}""")
# tanh(a + ib) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b). Below |a| = 1 as
# (sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b), a sum of squares; above, the
# denominator is at least cosh 2 - 1 and Re = ±(1 - (e^(-2|a|) + cos 2b) / (cosh 2a + cos 2b))
# has its correction to 1 computed to absolute float32 accuracy. Above |a| = 10 that
# correction is below half an ULP, and Im = 4 sin b cos b e^(-2|a|).
_def("""
fn wa_ctanh(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (b == 0.0) { return vec2<f32>(wa_tanh(a), b); }
    if (wa_isinf(a)) { return vec2<f32>(wa_copysign(1.0, a), wa_copysign(0.0, b)); }
    if (a == 0.0) { return vec2<f32>(a, wa_tan(b)); }
    if (!wa_isfinite(b) || wa_isnan(a)) { return vec2<f32>(wa_nan(), wa_nan()); }
    let cs = wa_c_sincos_df(b, 0.0);
    let x = abs(a);
    if (x > 10.0) {
        let e = wa_c_exp_split(vec2<f32>(-2.0 * x, 0.0));
        return vec2<f32>(wa_copysign(1.0, a), wa_c_exp_scale(e, 4.0 * (cs.z * cs.x)));
    }
    if (x < 1.0) {
        let s = wa_sinh(a);
        let d = s * s + cs.x * cs.x;
        return vec2<f32>(s * wa_cosh(a) / d, cs.z * cs.x / d);
    }
    let c2b = (cs.x - cs.z) * (cs.x + cs.z);
    let d = wa_cosh(2.0 * x) + c2b;
    let re = 1.0 - (wa_exp(-2.0 * x) + c2b) / d;
    return vec2<f32>(wa_copysign(re, a), 2.0 * cs.z * cs.x / d);
}""")
# sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), iz = (-b, a)
_def("""
fn wa_csin(z: vec2<f32>) -> vec2<f32> {
    let w = wa_csinh(vec2<f32>(-z.y, z.x));
    return vec2<f32>(w.y, -w.x);
}""")
_def("fn wa_ccos(z: vec2<f32>) -> vec2<f32> { return wa_ccosh(vec2<f32>(-z.y, z.x)); }")
_def("""
fn wa_ctan(z: vec2<f32>) -> vec2<f32> {
    let w = wa_ctanh(vec2<f32>(-z.y, z.x));
    return vec2<f32>(w.y, -w.x);
}""")

# -- inverse trigonometric and hyperbolic ----------------------------------------------------
# Kahan's formulas ("Branch cuts for complex elementary functions", 1987) for x, y >= 0
# finite, with s = sqrt(1 - z) and t = sqrt(1 + z): asin z = atan2(x, Re(s t)) +
# i asinh(Im(conj(s) t)), acos z = 2 atan2(Re s, Re t) + i asinh(Im(conj(t) s)). Every sum
# in them adds terms of one sign. Returned as (Re asin, Im asin, Re acos, Im acos).
_def("""
fn wa_c_asin_acos(x: f32, y: f32) -> vec4<f32> {
    let s = wa_csqrt(vec2<f32>(1.0 - x, -y));
    let t = wa_csqrt(vec2<f32>(1.0 + x, y));
    return vec4<f32>(wa_atan2(x, s.x * t.x - s.y * t.y), wa_asinh(s.x * t.y - s.y * t.x),
                     2.0 * wa_atan2(s.x, t.x), wa_asinh(t.x * s.y - t.y * s.x));
}""")
# asinh is odd and conj-symmetric: computed for (|a|, |b|), signs put back. asinh(x + iy) =
# swap(asin(y + ix)); above |z| = 2^12, asinh z = ln 2z to float32 precision.
_def("""
fn wa_casinh(z: vec2<f32>) -> vec2<f32> {
    let x = abs(z.x);
    let y = abs(z.y);
    var r: vec2<f32>;
    if (wa_isnan(x)) {
        r = vec2<f32>(x, select(x, y, y == 0.0));
        if (wa_isinf(y)) { r = vec2<f32>(wa_inf(), x); }
    } else if (wa_isnan(y)) {
        r = vec2<f32>(select(y, wa_inf(), wa_isinf(x)), y);
    } else if (wa_isinf(x)) {
        r = vec2<f32>(x, select(0.0, 0x1.921fb6p-1, wa_isinf(y)));
    } else if (wa_isinf(y)) {
        r = vec2<f32>(y, 0x1.921fb6p+0);
    } else if (max(x, y) > 4096.0) {
        r = vec2<f32>(wa_c_loghypot(x, y) + 0x1.62e43p-1, wa_atan2(y, x));
    } else {
        r = wa_c_asin_acos(y, x).yx;
    }
    return vec2<f32>(wa_copysign(r.x, z.x), wa_copysign(r.y, z.y));
}""")
_def("""
fn wa_casin(z: vec2<f32>) -> vec2<f32> {
    let w = wa_casinh(vec2<f32>(-z.y, z.x));
    return vec2<f32>(w.y, -w.x);
}""")
# acos(x + iy) = (r, -s) computed for (|a|, |b|), then acos(conj z) = conj acos(z) and
# acos(-z) = π - acos(z). Above |z| = 2^12, acos z = arg z - i ln 2|z| (first quadrant).
_def("""
fn wa_cacos(z: vec2<f32>) -> vec2<f32> {
    let x = abs(z.x);
    let y = abs(z.y);
    var r: vec2<f32>;
    if (wa_isnan(x)) {
        r = vec2<f32>(x, select(x, -wa_inf(), wa_isinf(y)));
    } else if (wa_isnan(y)) {
        r = vec2<f32>(select(y, 0x1.921fb6p+0, x == 0.0), select(y, -wa_inf(), wa_isinf(x)));
    } else if (wa_isinf(x)) {
        r = vec2<f32>(select(0.0, 0x1.921fb6p-1, wa_isinf(y)), -wa_inf());
    } else if (wa_isinf(y)) {
        r = vec2<f32>(0x1.921fb6p+0, -wa_inf());
    } else if (max(x, y) > 4096.0) {
        r = vec2<f32>(wa_atan2(y, x), -(wa_c_loghypot(x, y) + 0x1.62e43p-1));
    } else {
        r = wa_c_asin_acos(x, y).zw;
    }
    // π - r in double-float; for a = -0 the real part is π/2 either way
    let re = select(r.x, (0x1.921fb6p+1 - r.x) + -0x1.777a5cp-24,
                    (bitcast<u32>(z.x) >> 31u) == 1u && x != 0.0);
    let im = select(r.y, -r.y, (bitcast<u32>(z.y) >> 31u) == 1u);
    return vec2<f32>(re, im);
}""")
# acosh z = ±i acos z: i acos z in the upper half plane, conj-symmetric
_def("""
fn wa_cacosh(z: vec2<f32>) -> vec2<f32> {
    let w = wa_cacos(vec2<f32>(z.x, abs(z.y)));
    return vec2<f32>(-w.y, wa_copysign(w.x, z.y));
}""")
# atanh is odd and conj-symmetric: computed for (|a|, |b|), signs put back.
# Re = log1p(4x / ((1 - x)^2 + y^2)) / 4, Im = atan2(2y, 1 - x^2 - y^2) / 2 with
# 1 - x^2 - y^2 in double-float; at x = 1 and tiny y, Re = (ln 2 - ln y) / 2; above
# |z| = 2^30, atanh z = 1/z + iπ/2 to float32 precision.
_def("""
fn wa_catanh(z: vec2<f32>) -> vec2<f32> {
    let x = abs(z.x);
    let y = abs(z.y);
    var r: vec2<f32>;
    if (x == 0.0) {
        r = vec2<f32>(0.0, wa_atan(y));
    } else if (wa_isinf(x) || wa_isinf(y)) {
        r = vec2<f32>(0.0, select(0x1.921fb6p+0, y, wa_isnan(y)));
    } else if (wa_isnan(x) || wa_isnan(y)) {
        r = vec2<f32>(wa_nan(), wa_nan());
    } else if (max(x, y) > 1073741824.0) {
        let h = wa_hypot(x, y);
        r = vec2<f32>((x / h) / h, 0x1.921fb6p+0);
    } else if (x == 1.0 && y == 0.0) {
        r = vec2<f32>(wa_inf(), 0.0);
    } else {
        let s = wa_c_norm2m1(x, y);
        let im = 0.5 * wa_atan2(2.0 * y, -s.x);
        if (x == 1.0 && y < 9.09494702e-13) {
            r = vec2<f32>(0.5 * (0x1.62e43p-1 - wa_log(y)), im);
        } else {
            let d = (1.0 - x) * (1.0 - x) + y * y;
            r = vec2<f32>(0.25 * wa_log1p(4.0 * x / d), im);
        }
    }
    return vec2<f32>(wa_copysign(r.x, z.x), wa_copysign(r.y, z.y));
}""")
_def("""
fn wa_catan(z: vec2<f32>) -> vec2<f32> {
    let w = wa_catanh(vec2<f32>(-z.y, z.x));
    return vec2<f32>(w.y, -w.x);
}""")

# -- sign ------------------------------------------------------------------------------------
# z / |z| with z scaled by a power of two so that |z| is in [1, 3)
_def("""
fn wa_csign(z: vec2<f32>) -> vec2<f32> {
    let a = z.x;
    let b = z.y;
    if (wa_isnan(a) || wa_isnan(b) || (wa_isinf(a) && wa_isinf(b))) {
        return vec2<f32>(wa_nan(), wa_nan());
    }
    if (a == 0.0 && b == 0.0) { return vec2<f32>(0.0, 0.0); }
    if (wa_isinf(a) || wa_isinf(b)) {
        return vec2<f32>(select(wa_copysign(0.0, a), wa_copysign(1.0, a), wa_isinf(a)),
                         select(wa_copysign(0.0, b), wa_copysign(1.0, b), wa_isinf(b)));
    }
    let e = wa_c_ilogb(max(abs(a), abs(b)));
    let x = wa_ldexp(a, -e);
    let y = wa_ldexp(b, -e);
    let h = wa_hypot(x, y);
    return vec2<f32>(x / h, y / h);
}""")
