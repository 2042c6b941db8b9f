"""float64 elementary functions (issue #20) on the software binary64 of ``wgsl_f64.py``.

Built on its correctly rounded operations, so every step is IEEE binary64 whatever the device
does with f32. Accuracy comes from double-double arithmetic (an unevaluated sum hi + lo of two
float64, a ``vec4<u32>`` (hi, lo)) where one rounding would cost too much: exact products by
the fused multiply-add (``wa_f64_two_prod``), exact sums (``wa_f64_two_sum``), and the leading
term of a result added last. Arguments are reduced with tables of double-doubles (2^(j/64)
for exp, ln(1/c_j) for the logarithms, sin and cos of j/64, atan(j/64)), so polynomials are
short Taylor series, taken until the first omitted term is below 2^-80, evaluated by Horner's
rule with one fused multiply-add per step in a loop over a constant array (written out, LLVM
compiles each ``wa_f64_fma`` anew, about half a second each on lavapipe). Constants are bit
patterns computed in Python with exact rational or integer arithmetic. Where a function is
a ratio, a root or a logarithm of intermediate results, those are double-doubles too
(``wa_f64_dd_div``, ``wa_f64_dd_sqrt``, ``wa_f64_ln_m`` and ``wa_f64_ln_of_dd_m``) and the result is rounded once.

Every helper is also WebGL2's (``shader/translate.py`` writes it as GLSL ES 3.00), so they
keep to the WGSL subset it reads: no structs, arrays only as local variables.
tests/test_float64_math.py measures the errors against long double references;
docs/float64.md lists them.
"""

from __future__ import annotations

import decimal
import math
import struct
from fractions import Fraction

from . import wgsl_f64  # noqa: F401  (the arithmetic these helpers call)
from .wgsl_lib import Stage, _def, compose


def _bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def _k(v: float) -> str:
    """A float64 constant as WGSL: its bit pattern, low word first."""
    b = _bits(v)
    return f"vec2<u32>({b & 0xffffffff:#x}u, {b >> 32:#x}u)"


def _split(v: Fraction, bits: int) -> tuple[float, float]:
    """v as hi + lo: hi with ``bits`` significant bits (so that hi times a small integer is
    exact), lo the rest rounded."""
    e = math.frexp(float(v))[1]
    hi = Fraction(round(v * 2 ** (bits - e)), 2 ** (bits - e))
    return float(hi), float(v - hi)


def _dd(v: Fraction) -> tuple[float, float]:
    hi = float(v)
    return hi, float(v - Fraction(hi))


def _horner(name: str, coefs: list[Fraction]) -> None:
    """``fn name(x) -> vec2<u32>``: the polynomial with these coefficients (constant term
    first), by Horner's rule with a fused multiply-add per step."""
    words = []
    for c in reversed(coefs):
        b = _bits(float(c))
        words += [f"{b & 0xffffffff:#x}u", f"{b >> 32:#x}u"]
    n = len(coefs)
    _def(f"""
fn {name}(x: vec2<u32>) -> vec2<u32> {{
    var c = array<u32, {2 * n}>({", ".join(words)});
    var p = vec2<u32>(c[0], c[1]);
    for (var i = 1; i < {n}; i = i + 1) {{
        p = wa_f64_fma(p, x, vec2<u32>(c[2 * i], c[2 * i + 1]));
    }}
    return p;
}}""")


def _ln(v: Fraction, digits: int = 40) -> Fraction:
    """ln(v) to ``digits`` decimal digits (decimal's correctly rounded ln)."""
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        d = (decimal.Decimal(v.numerator) / decimal.Decimal(v.denominator)).ln()
    return Fraction(d)


LN2 = _ln(Fraction(2))
LN10 = _ln(Fraction(10))
ONE = _k(1.0)
ONE_DD = f"vec4<u32>({ONE}, 0u, 0u)"  # 1 as a double-double
# functions a browser runs in stages that this module composes (ops.STAGED takes them)
STAGED: dict = {}

# double-double steps: (a + b) and (a * b) exactly, as (rounded, error). fast_two_sum needs
# |a| >= |b| (or a = 0); two_sum orders its operands by magnitude (integer comparison of the
# bits) for it: the same sum and error as Knuth's six operations, with three (every software
# operation is inlined, and compile time on lavapipe grows faster than the code)
_def("""
fn wa_f64_fast_two_sum(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let s = wa_f64_add(a, b);
    return vec4<u32>(s, wa_f64_sub(b, wa_f64_sub(s, a)));
}""")
_def("""
fn wa_f64_two_sum(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let swap = wa_lt_u64(vec2<u32>(a.x, a.y & 0x7fffffffu), vec2<u32>(b.x, b.y & 0x7fffffffu));
    return wa_f64_fast_two_sum(select(a, b, swap), select(b, a, swap));
}""")
_def("""
fn wa_f64_two_prod(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let p = wa_f64_mul(a, b);
    return vec4<u32>(p, wa_f64_fma(a, b, wa_f64_neg(p)));
}""")
# 2^k for -1022 <= k <= 1023, and x * 2^k for |k| <= 2044 in two steps, the first exact, so a
# subnormal result is rounded once
_def("fn wa_f64_pow2(k: i32) -> vec2<u32> { return vec2<u32>(0u, u32(k + 1023) << 20u); }")
_def("""
fn wa_f64_ldexp(x: vec2<u32>, k: i32) -> vec2<u32> {
    let h = k / 2;
    return wa_f64_mul(wa_f64_mul(x, wa_f64_pow2(h)), wa_f64_pow2(k - h));
}""")

# -- exponentials ----------------------------------------------------------------------------
# e^r - 1 = r + r^2/2 + r^3 Q(r): Q's Taylor coefficients 1/3! ... 1/8!; for |r| <= 0.0055 the
# first term left out, r^9/9!, is below 2^-84
_horner("wa_f64_expm1_q", [Fraction(1, math.factorial(n)) for n in range(3, 9)])
# e^(rh + rl) - 1 as a double-double for |rh| <= 0.0055, |rl| <= 2^-50: r + r^2/2 exactly,
# the rest (below r^3/6, 2^-24.6) rounded, then added to the leading terms: about 2^-76 off
_def("""
fn wa_f64_expm1_dd(rh: vec2<u32>, rl: vec2<u32>) -> vec4<u32> {
    let sq = wa_f64_two_prod(rh, rh);
    let half = vec2<u32>(0u, 0x3fe00000u);
    let a = wa_f64_fast_two_sum(rh, wa_f64_mul(sq.xy, half));
    let tail = wa_f64_fma(wa_f64_mul(rh, sq.xy), wa_f64_expm1_q(rh), wa_f64_fma(rl, rh, rl));
    return wa_f64_fast_two_sum(a.xy, wa_f64_add(wa_f64_add(a.zw, wa_f64_mul(sq.zw, half)), tail));
}""")
C64 = LN2 / 64
C64_HI, C64_LO = _dd(C64)


def _exp2_table() -> list[str]:
    """2^(j/64), j = 0 ... 63, as double-doubles."""
    words = []
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        for j in range(64):
            for v in _dd(Fraction(decimal.Decimal(2) ** (decimal.Decimal(j) / 64))):
                b = _bits(v)
                words += [f"{b & 0xffffffff:#x}u", f"{b >> 32:#x}u"]
    return words


# x = k ln2/64 + r for |x| < 746: k = round(64 x / ln2) as a float64 (wa_f64_exp_k), then r
# as rh + rl (wa_f64_exp_r). x - k * C64_HI is exact: for k != 0 both are multiples of 2^-60
# and their difference is below 2^-7; k * C64_LO is rounded 2^-150 off.
_def(f"""
fn wa_f64_exp_k(x: vec2<u32>) -> vec2<u32> {{
    return wa_f64_round(wa_f64_mul(x, {_k(float(1 / C64))}));
}}""")
_def(f"""
fn wa_f64_exp_r(x: vec2<u32>, k: vec2<u32>) -> vec4<u32> {{
    let r0 = wa_f64_fma(wa_f64_neg(k), {_k(C64_HI)}, x);
    let kl = wa_f64_mul(k, {_k(C64_LO)});
    let rh = wa_f64_sub(r0, kl);
    return vec4<u32>(rh, wa_f64_sub(wa_f64_sub(r0, rh), kl));
}}""")
# e^(x + lo) / 2^K = 2^(j/64) (1 + p) as a double-double in [1, 2), with K = k >> 6 and
# j = k & 63 for k = round(64 (x + lo) / ln2) (returned as the integer k); |lo| <= 2^-40 |x|.
# For a browser's stages in three parts: wa_f64_exp_rh, r + lo as a double-double; p =
# wa_f64_expm1_dd of it; wa_f64_exp_core_from the rest
_def("""
fn wa_f64_exp_rh(x: vec2<u32>, lo: vec2<u32>) -> vec4<u32> {
    let r = wa_f64_exp_r(x, wa_f64_exp_k(x));
    return wa_f64_fast_two_sum(r.xy, wa_f64_add(r.zw, lo));
}""")
# (wa_f64_exp_core whole computes k once: SwiftShader's WebGPU compiles exp, sinh and complex
# exp's stages as measured at this size)
_def("""
fn wa_f64_exp_core(x: vec2<u32>, lo: vec2<u32>) -> vec4<u32> {
    let k = wa_f64_exp_k(x);
    let r = wa_f64_exp_r(x, k);
    let rh = wa_f64_fast_two_sum(r.xy, wa_f64_add(r.zw, lo));
    return wa_f64_exp_join(k, wa_f64_expm1_dd(rh.xy, rh.zw));
}""")
_def("fn wa_f64_exp_core_from(p: vec4<u32>, x: vec2<u32>) -> vec4<u32> { return wa_f64_exp_join(wa_f64_exp_k(x), p); }")
# 2^(j/64) (1 + p) for the j of k
_def("""
fn wa_f64_exp_join(k: vec2<u32>, p: vec4<u32>) -> vec4<u32> {
    var t = array<u32, 256>(""" + ", ".join(_exp2_table()) + """);
    let j = 4u * (bitcast<u32>(wa_f64_to_i32(k)) & 63u);
    let th = vec2<u32>(t[j], t[j + 1u]);
    let q = wa_f64_two_prod(th, p.xy);
    let ql = wa_f64_add(wa_f64_fma(th, p.zw, vec2<u32>(t[j + 2u], t[j + 3u])), wa_f64_mul(vec2<u32>(t[j + 2u], t[j + 3u]), p.xy));
    let s = wa_f64_fast_two_sum(th, q.xy);
    return wa_f64_fast_two_sum(s.xy, wa_f64_add(s.zw, wa_f64_add(q.zw, ql)));
}""")
_def("fn wa_f64_exp_big(x: vec2<u32>) -> i32 { return wa_f64_to_i32(wa_f64_exp_k(x)) >> 6u; }")
# e^x = 2^K e^x / 2^K: rounded once from the double-double, then scaled (once more rounded
# only where the result is subnormal). In two parts for a browser's stages (pow's):
# wa_f64_exp_p, wa_f64_exp_core's series where e^x is computed (of 0 elsewhere), then
# wa_f64_exp_from(p, x), the same value as wa_f64_exp(x).
_def(f"""
fn wa_f64_exp_in(x: vec2<u32>) -> bool {{
    return !wa_f64_isnan(x) && !wa_f64_lt({_k(709.8)}, x) && !wa_f64_lt(x, {_k(-745.2)});
}}""")
_def("""
fn wa_f64_exp_p(x: vec2<u32>) -> vec4<u32> {
    let rh = wa_f64_exp_rh(select(vec2<u32>(0u), x, wa_f64_exp_in(x)), vec2<u32>(0u, 0u));
    return wa_f64_expm1_dd(rh.xy, rh.zw);
}""")
_def(f"""
fn wa_f64_exp_from(p: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    if (wa_f64_lt({_k(709.8)}, x)) {{ return wa_f64_inf(0u); }}
    if (wa_f64_lt(x, {_k(-745.2)})) {{ return vec2<u32>(0u, 0u); }}
    let e = wa_f64_exp_core_from(p, x);
    return wa_f64_ldexp(wa_f64_add(e.xy, e.zw), wa_f64_exp_big(x));
}}""")
_def(f"""
fn wa_f64_exp(x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    if (wa_f64_lt({_k(709.8)}, x)) {{ return wa_f64_inf(0u); }}
    if (wa_f64_lt(x, {_k(-745.2)})) {{ return vec2<u32>(0u, 0u); }}
    let e = wa_f64_exp_core(x, vec2<u32>(0u, 0u));
    return wa_f64_ldexp(wa_f64_add(e.xy, e.zw), wa_f64_exp_big(x));
}}""")
# e^(x + lo) as a double-double for -709 <= x <= 709, |lo| <= 2^-40 |x| (the result's low
# part may lose bits below 2^-1022)
_def("""
fn wa_f64_exp_dd(x: vec2<u32>, lo: vec2<u32>) -> vec4<u32> {
    let e = wa_f64_exp_core(x, lo);
    let big = wa_f64_exp_big(x);
    return vec4<u32>(wa_f64_ldexp(e.xy, big), wa_f64_ldexp(e.zw, big));
}""")
# e^x - 1 = e^x as a double-double minus 1; -1 below -38 (e^x is below half an ulp of 1).
# In two stages (STAGED in ops.py: a device may run them as two kernels): _a, e^x as a
# double-double where the difference is taken from it (k != 0 below), zeros elsewhere; _b
# the rest. Above 700, where 1 is 2^-1000 of an ulp, the sum of e^x's parts is e^x itself
# (wa_f64_exp: the same parts, scaled by 2^K exactly before their sum rather than after).
_def(f"""
fn wa_f64_expm1_from(x: vec2<u32>) -> bool {{
    return !wa_f64_isnan(x) && (x.y & 0x7fffffffu) >= 0x3c900000u && !wa_f64_lt({_k(709.8)}, x)
        && !wa_f64_lt(x, {_k(-38.0)}) && !wa_f64_is0(wa_f64_exp_k(x));
}}""")
_def("""
fn wa_f64_expm1_a(x: vec2<u32>) -> vec4<u32> {
    let ok = wa_f64_expm1_from(x);
    return select(vec4<u32>(0u), wa_f64_exp_dd(select(vec2<u32>(0u), x, ok), vec2<u32>(0u, 0u)), ok);
}""")
_def(f"""
fn wa_f64_expm1_b(e: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    if ((x.y & 0x7fffffffu) < 0x3c900000u) {{ return x; }}
    if (wa_f64_lt({_k(709.8)}, x)) {{ return wa_f64_inf(0u); }}
    if (wa_f64_lt(x, {_k(-38.0)})) {{ return {_k(-1.0)}; }}
    let k = wa_f64_exp_k(x);
    if (wa_f64_is0(k)) {{
        let r = wa_f64_exp_r(x, k);
        let p = wa_f64_expm1_dd(r.xy, r.zw);
        return wa_f64_add(p.xy, p.zw);
    }}
    if (wa_f64_lt({_k(700.0)}, x)) {{ return wa_f64_add(e.xy, e.zw); }}
    let d = wa_f64_two_sum(e.xy, {_k(-1.0)});
    return wa_f64_add(d.xy, wa_f64_add(d.zw, e.zw));
}}""")
_def("fn wa_f64_expm1(x: vec2<u32>) -> vec2<u32> { return wa_f64_expm1_b(wa_f64_expm1_a(x), x); }")

# -- logarithms ------------------------------------------------------------------------------
# x = 2^k m with m in [0.75, 1.5), for finite x > 0 (subnormal too): (k as a float64, m)
_def("""
fn wa_f64_log_split(x: vec2<u32>) -> vec4<u32> {
    var u = x;
    var k = -1023;
    if (wa_f64_biased_exp(u) == 0) {
        u = wa_f64_mul(u, wa_f64_pow2(54));
        k = k - 54;
    }
    k = k + wa_f64_biased_exp(u);
    var m = vec2<u32>(u.x, (u.y & 0xfffffu) | 0x3ff00000u);
    if (m.y >= 0x3ff80000u) {
        m.y = m.y - 0x100000u;
        k = k + 1;
    }
    return vec4<u32>(wa_f64_from_i32(k), m);
}""")


def _log_table() -> list[str]:
    """64 rows (1/c, -ln(1/c) as a double-double) for c at the middle of m's 64 intervals
    (width 1/64 on [1, 1.5), 1/128 on [0.75, 1)), row j for the top 6 fraction bits of m;
    c = 1 on the two intervals next to 1, so that ln m keeps its relative accuracy there."""
    words = []
    for j in range(64):
        c = Fraction(2 * j + 1, 128) + 1 if j < 32 else Fraction(1, 2) + Fraction(2 * j + 1, 256)
        inv = 1.0 if j in (0, 63) else float(1 / c)
        lh, ll = (0.0, 0.0) if inv == 1.0 else _dd(-_ln(Fraction(inv)))
        for v in (inv, lh, ll):
            b = _bits(v)
            words += [f"{b & 0xffffffff:#x}u", f"{b >> 32:#x}u"]
    return words


# ln(1 + r) = r - r^2/2 + r^3 Q(r): Q's coefficients (-1)^(n+1)/n, n = 3 ... 14; for
# |r| <= 2^-6 the first term left out is below 2^-80
_horner("wa_f64_log_q", [Fraction((-1) ** (n + 1), n) for n in range(3, 15)])
# ln m as a double-double for m in [0.75, 1.5): m = c (1 + r) with c from the table, where
# r = m/c - 1 = m (1/c) - 1 exactly as a double-double (|r| <= 2^-6); then -ln(1/c) + r -
# r^2/2 with r^2/2 exact, the rest (below 2^-19) rounded: about 2^-70 off in all
_def("""
fn wa_f64_ln_dd(m: vec2<u32>) -> vec4<u32> {
    var t = array<u32, 384>(""" + ", ".join(_log_table()) + """);
    let j = 6u * ((m.y >> 14u) & 0x3fu);
    let inv = vec2<u32>(t[j], t[j + 1u]);
    let p = wa_f64_two_prod(m, inv);
    let r = wa_f64_fast_two_sum(wa_f64_sub(p.xy, vec2<u32>(0u, 0x3ff00000u)), p.zw);
    let sq = wa_f64_two_prod(r.xy, r.xy);
    let half = vec2<u32>(0u, 0x3fe00000u);
    let a = wa_f64_fast_two_sum(r.xy, wa_f64_neg(wa_f64_mul(sq.xy, half)));
    let sql = wa_f64_fma(wa_f64_add(r.xy, r.xy), r.zw, sq.zw);
    let tail = wa_f64_fma(wa_f64_mul(r.xy, sq.xy), wa_f64_log_q(r.xy), wa_f64_fma(wa_f64_neg(sql), half, r.zw));
    let c = wa_f64_two_sum(vec2<u32>(t[j + 2u], t[j + 3u]), a.xy);
    let rest = wa_f64_add(wa_f64_add(vec2<u32>(t[j + 4u], t[j + 5u]), a.zw), tail);
    return wa_f64_fast_two_sum(c.xy, wa_f64_add(c.zw, rest));
}""")
# NaN, x <= 0 and +inf: the standard's special cases of log, log2 and log10
_def("""
fn wa_f64_log_special(x: vec2<u32>) -> bool {
    return x.y >= 0x7ff00000u || wa_f64_is0(vec2<u32>(x.x, x.y & 0x7fffffffu));
}""")
_def("""
fn wa_f64_log_of_special(x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x)) { return wa_f64_quiet(x); }
    if ((x.x | (x.y & 0x7fffffffu)) == 0u) { return wa_f64_inf(1u); }
    if ((x.y >> 31u) == 1u) { return wa_f64_default_nan(); }
    return x;
}""")
LN2_HI42, LN2_LO42 = _split(LN2, 42)
# k ln2 + ln m + c as a double-double: k times LN2_HI42 is exact, the sum of the two
# leading terms too
_def(f"""
fn wa_f64_log_join(kf: vec2<u32>, l: vec4<u32>, c: vec2<u32>) -> vec4<u32> {{
    let t = wa_f64_two_sum(wa_f64_mul(kf, {_k(LN2_HI42)}), l.xy);
    let rest = wa_f64_add(wa_f64_add(l.zw, c), wa_f64_mul(kf, {_k(LN2_LO42)}));
    return wa_f64_fast_two_sum(t.xy, wa_f64_add(t.zw, rest));
}}""")
_def("""
fn wa_f64_log(x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_log_special(x)) { return wa_f64_log_of_special(x); }
    let kf = wa_f64_log_split(x);
    return wa_f64_log_join(kf.xy, wa_f64_ln_dd(kf.zw), vec2<u32>(0u, 0u)).xy;
}""")
# ln(u + c) + k ln2 for a double-double with u > 0 normal and a small integer k: ln(u) + c / u
# (the next term, c^2 / 2u^2, is below 2^-106 of it), as a double-double, in two parts that
# a browser runs as stages of their own: m = wa_f64_ln_m(u), ln of the significand of u's
# leading part (wa_f64_ln_dd: most of the work), then wa_f64_ln_of_dd_m(u, m, k), the rest
_def("fn wa_f64_ln_m(u: vec4<u32>) -> vec4<u32> { return wa_f64_ln_dd(wa_f64_log_split(u.xy).zw); }")
_def("""
fn wa_f64_ln_of_dd_m(u: vec4<u32>, m: vec4<u32>, k: vec2<u32>) -> vec4<u32> {
    return wa_f64_log_join(wa_f64_add(wa_f64_log_split(u.xy).xy, k), m, wa_f64_div(u.zw, u.xy));
}""")
# ln(1 + x) with 1 + x = u + c exactly; x itself below 2^-54
# (for a browser's stages from 1 + x as a double-double v and l = wa_f64_ln_of_dd_m(v,
# wa_f64_ln_m(v), 0): wa_f64_log1p_fin(l, x))
# In a browser three stages (STAGED): _a 1 + x as the double-double v, _m wa_f64_ln_m(v),
# _b the rest (the whole function was 679,000 characters inlined, near SwiftShader's limit)
_def("fn wa_f64_log1p_a(x: vec2<u32>) -> vec4<u32> { return wa_f64_two_sum(vec2<u32>(0u, 0x3ff00000u), x); }")
_def("fn wa_f64_log1p_m(v: vec4<u32>, x: vec2<u32>) -> vec4<u32> { return wa_f64_ln_m(v); }")
_def("""
fn wa_f64_log1p_b(v: vec4<u32>, m: vec4<u32>, x: vec2<u32>) -> vec2<u32> {
    return wa_f64_log1p_fin(wa_f64_ln_of_dd_m(v, m, vec2<u32>(0u, 0u)).xy, x);
}""")
STAGED["log1p"] = compose("wa_f64_log1p", "x: vec2<u32>", "vec2<u32>", (
    Stage("wa_f64_log1p_a"), Stage("wa_f64_log1p_m", (0,)), Stage("wa_f64_log1p_b", (0, 1))))
_def("""
fn wa_f64_log1p_fin(l: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x)) { return wa_f64_quiet(x); }
    if ((x.y & 0x7fffffffu) < 0x3c900000u) { return x; }
    if (x.y == 0xbff00000u && x.x == 0u) { return wa_f64_inf(1u); }
    if (wa_f64_lt(x, vec2<u32>(0u, 0xbff00000u))) { return wa_f64_default_nan(); }
    if (wa_f64_isinf(x)) { return x; }
    return l;
}""")
# k + ln m / ln2 and k log10(2) + ln m / ln10, the constants as double-doubles
_def("""
fn wa_f64_log_scaled(kh: vec2<u32>, kl: vec2<u32>, l: vec4<u32>, ch: vec2<u32>, cl: vec2<u32>) -> vec2<u32> {
    let p = wa_f64_two_prod(l.xy, ch);
    let plo = wa_f64_add(p.zw, wa_f64_fma(l.xy, cl, wa_f64_mul(l.zw, ch)));
    let t = wa_f64_two_sum(kh, p.xy);
    return wa_f64_add(t.xy, wa_f64_add(t.zw, wa_f64_add(plo, kl)));
}""")
INV_LN2 = _dd(1 / LN2)
INV_LN10 = _dd(1 / LN10)
LG2_HI42, LG2_LO42 = _split(LN2 / LN10, 42)
_def(f"""
fn wa_f64_log2(x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_log_special(x)) {{ return wa_f64_log_of_special(x); }}
    let kf = wa_f64_log_split(x);
    return wa_f64_log_scaled(kf.xy, vec2<u32>(0u, 0u), wa_f64_ln_dd(kf.zw), {_k(INV_LN2[0])}, {_k(INV_LN2[1])});
}}""")
_def(f"""
fn wa_f64_log10(x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_log_special(x)) {{ return wa_f64_log_of_special(x); }}
    let kf = wa_f64_log_split(x);
    return wa_f64_log_scaled(wa_f64_mul(kf.xy, {_k(LG2_HI42)}), wa_f64_mul(kf.xy, {_k(LG2_LO42)}),
                             wa_f64_ln_dd(kf.zw), {_k(INV_LN10[0])}, {_k(INV_LN10[1])});
}}""")

# -- functions of two arguments --------------------------------------------------------------
# the next float64 after x toward y: one step of the bit pattern, away from zero or toward it
_def("""
fn wa_f64_nextafter(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x) || wa_f64_isnan(y)) { return wa_f64_nan_of(x, y); }
    if (wa_f64_eq(x, y)) { return y; }
    if ((x.x | (x.y & 0x7fffffffu)) == 0u) { return vec2<u32>(1u, y.y & 0x80000000u); }
    let away = wa_f64_lt(x, y) == ((x.y >> 31u) == 0u);
    return select(wa_sub64(x, vec2<u32>(1u, 0u)), wa_add64(x, vec2<u32>(1u, 0u)), away);
}""")
# sqrt(a^2 + b^2) for a >= b >= 0 scaled by 2^s so that 1 <= a < 2 (or a is the scaled
# smallest normal's multiple): the sum of squares exactly as a double-double, its root
# rounded once after a Newton correction, scaled back (overflow to inf; a subnormal result
# is rounded twice). b below 2^-60 a leaves a.
_def("""
fn wa_f64_hypot(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    var a = wa_f64_abs(x);
    var b = wa_f64_abs(y);
    if (wa_f64_isinf(a) || wa_f64_isinf(b)) { return wa_f64_inf(0u); }
    if (wa_f64_isnan(x) || wa_f64_isnan(y)) { return wa_f64_nan_of(x, y); }
    if (wa_lt_u64(a, b)) {
        let t = a;
        a = b;
        b = t;
    }
    let ea = max(wa_f64_biased_exp(a), 1);
    if (wa_f64_is0(b) || ea - wa_f64_biased_exp(b) > 60) { return a; }
    let sc = 0x3ff - ea;
    a = wa_f64_ldexp(a, sc);
    b = wa_f64_ldexp(b, sc);
    let a2 = wa_f64_two_prod(a, a);
    let b2 = wa_f64_two_prod(b, b);
    let s = wa_f64_fast_two_sum(a2.xy, b2.xy);
    let q = wa_f64_fast_two_sum(s.xy, wa_f64_add(s.zw, wa_f64_add(a2.zw, b2.zw)));
    let r = wa_f64_sqrt(q.xy);
    let rr = wa_f64_two_prod(r, r);
    let d = wa_f64_add(wa_f64_sub(wa_f64_sub(q.xy, rr.xy), rr.zw), q.zw);
    let c = wa_f64_div(d, wa_f64_add(r, r));
    return wa_f64_ldexp(wa_f64_add(r, c), -sc);
}""")
# ln(e^a + e^b) = m + ln(1 + e^d), m = max(a, b), d = -|a - b|: d, e^d and 1 + e^d as
# double-doubles, so that m + ln(1 + e^d) is rounded once even where they cancel; a = b
# (infinities among them) gives a + ln 2, e^d below 2^-1075 m + 0 (+0 for m = -0, as NumPy).
# Six stages (STAGED): _a_r, _a_p and _a, e^d as a double-double where it is needed (zeros
# elsewhere), in wa_f64_exp_core's three parts; _b_m and _b, ln(1 + e^d) in the logarithm's
# two; _c the rest.
_def("""
fn wa_f64_logaddexp_d(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let d = wa_f64_two_sum(a, wa_f64_neg(b));
    return select(d, vec4<u32>(wa_f64_neg(d.xy), wa_f64_neg(d.zw)), (d.y >> 31u) == 0u);
}""")
_def(f"""
fn wa_f64_logaddexp_far(a: vec2<u32>, b: vec2<u32>, d: vec4<u32>) -> bool {{
    return wa_f64_isinf(wa_f64_max(a, b)) || wa_f64_lt(d.xy, {_k(-746.0)});
}}""")
_def("""
fn wa_f64_logaddexp_in(a: vec2<u32>, b: vec2<u32>, d: vec4<u32>) -> bool {
    return !(wa_f64_isnan(a) || wa_f64_isnan(b) || wa_f64_eq(a, b)) && !wa_f64_logaddexp_far(a, b, d);
}""")
# d where e^d is taken, 0 elsewhere
_def("""
fn wa_f64_logaddexp_dd(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let d = wa_f64_logaddexp_d(a, b);
    return select(vec4<u32>(0u), d, wa_f64_logaddexp_in(a, b, d));
}""")
_def("""
fn wa_f64_logaddexp_a_r(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let d = wa_f64_logaddexp_dd(a, b);
    return wa_f64_exp_rh(d.xy, d.zw);
}""")
_def("fn wa_f64_logaddexp_a_p(rh: vec4<u32>, a: vec2<u32>, b: vec2<u32>) -> vec4<u32> { return wa_f64_expm1_dd(rh.xy, rh.zw); }")
_def("""
fn wa_f64_logaddexp_a(p: vec4<u32>, a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let d = wa_f64_logaddexp_d(a, b);
    let x = select(vec2<u32>(0u), d.xy, wa_f64_logaddexp_in(a, b, d));
    let e = wa_f64_exp_core_from(p, x);
    let big = wa_f64_exp_big(x);
    return select(vec4<u32>(0u), vec4<u32>(wa_f64_ldexp(e.xy, big), wa_f64_ldexp(e.zw, big)), wa_f64_logaddexp_in(a, b, d));
}""")
# _b, ln(1 + e^d) as a double-double from _a's e^d (0 where _a gave zeros): 1 + e^d, ln of it
_def(f"""
fn wa_f64_logaddexp_u(t: vec4<u32>) -> vec4<u32> {{
    let u = wa_f64_fast_two_sum({ONE}, t.xy);
    return vec4<u32>(u.xy, wa_f64_add(u.zw, t.zw));
}}""")
_def("fn wa_f64_logaddexp_b_m(t: vec4<u32>, a: vec2<u32>, b: vec2<u32>) -> vec4<u32> { return wa_f64_ln_m(wa_f64_logaddexp_u(t)); }")
_def("""
fn wa_f64_logaddexp_b(t: vec4<u32>, m: vec4<u32>, a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    return wa_f64_ln_of_dd_m(wa_f64_logaddexp_u(t), m, vec2<u32>(0u, 0u));
}""")
_def(f"""
fn wa_f64_logaddexp_c(t: vec4<u32>, l: vec4<u32>, a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) {{ return wa_f64_nan_of(a, b); }}
    if (wa_f64_eq(a, b)) {{ return wa_f64_add(a, {_k(float(LN2))}); }}
    let m = wa_f64_max(a, b);
    if (wa_f64_logaddexp_far(a, b, wa_f64_logaddexp_d(a, b))) {{ return wa_f64_add(m, vec2<u32>(0u, 0u)); }}
    let z = wa_f64_two_sum(m, l.xy);
    return wa_f64_add(z.xy, wa_f64_add(z.zw, l.zw));
}}""")
STAGED["logaddexp"] = compose("wa_f64_logaddexp", "a: vec2<u32>, b: vec2<u32>", "vec2<u32>", (
    Stage("wa_f64_logaddexp_a_r"), Stage("wa_f64_logaddexp_a_p", (0,)), Stage("wa_f64_logaddexp_a", (1,)),
    Stage("wa_f64_logaddexp_b_m", (2,)), Stage("wa_f64_logaddexp_b", (2, 3)), Stage("wa_f64_logaddexp_c", (2, 4))))

# x^y = e^(y ln x) for x > 0: ln x as a double-double (about 2^-70 off), y ln x as a
# double-double, e^ of both parts, scaled once (a subnormal result is rounded twice). A
# negative x with an integer y gives the sign of (-1)^y; the rest are C99's and NumPy's
# special cases: x^0 = 1 and 1^y = 1 even for NaN, 0^-y = inf, (-1)^±inf = 1, ...
_def("""
fn wa_f64_is_int(y: vec2<u32>) -> bool { return wa_f64_eq(wa_f64_trunc(y), y); }""")
_def("""
fn wa_f64_is_odd(y: vec2<u32>) -> bool {
    let h = wa_f64_mul(y, vec2<u32>(0u, 0x3fe00000u));
    return wa_f64_is_int(y) && !wa_f64_is_int(h);
}""")
# Four stages (STAGED), each reading the stages before: _a, l = ln |x| as a double-double
# for finite x != 0; _b, t = y l as a double-double; _c, e^t.hi / 2^K as a double-double
# (zeros where the result is not computed so); _d the rest, e^t = e^t.hi (1 + t.lo) to
# 2^-86. (SwiftShader ran the exponential of a double-double's high part, not of both.)
_def("""
fn wa_f64_pow_a(x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let ax = wa_f64_abs(x);
    let ok = !wa_f64_is0(ax) && wa_f64_isfinite(ax);
    let kf = wa_f64_log_split(select(vec2<u32>(0u, 0x3ff00000u), ax, ok));
    return select(vec4<u32>(0u), wa_f64_log_join(kf.xy, wa_f64_ln_dd(kf.zw), vec2<u32>(0u, 0u)), ok);
}""")
_def("""
fn wa_f64_pow_b(l: vec4<u32>, x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let p = wa_f64_two_prod(y, l.xy);
    return wa_f64_fast_two_sum(p.xy, wa_f64_fma(y, l.zw, p.zw));
}""")
# whether x^y is computed from y ln |x|: the cases that wa_f64_pow_d's special ones leave
_def("""
fn wa_f64_pow_general(x: vec2<u32>, y: vec2<u32>) -> bool {
    let ax = wa_f64_abs(x);
    return !(wa_f64_is0(wa_f64_abs(y)) || (x.x == 0u && x.y == 0x3ff00000u) || wa_f64_isnan(x)
             || wa_f64_isnan(y) || wa_f64_isinf(y) || wa_f64_is0(ax) || wa_f64_isinf(ax)
             || ((x.y >> 31u) == 1u && !wa_f64_is_int(y)));
}""")
_def(f"""
fn wa_f64_pow_c(l: vec4<u32>, t: vec4<u32>, x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {{
    let p = wa_f64_two_prod(y, l.xy);
    let ok = wa_f64_pow_general(x, y) && !wa_f64_lt({_k(709.8)}, p.xy) && !wa_f64_lt(p.xy, {_k(-745.2)});
    return select(vec4<u32>(0u), wa_f64_exp_core(select(vec2<u32>(0u), t.xy, ok), vec2<u32>(0u, 0u)), ok);
}}""")
_def(f"""
fn wa_f64_pow_d(l: vec4<u32>, t: vec4<u32>, e: vec4<u32>, x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {{
    let one = {ONE};
    if (wa_f64_is0(wa_f64_abs(y)) || (x.x == 0u && x.y == 0x3ff00000u)) {{ return one; }}
    if (wa_f64_isnan(x) || wa_f64_isnan(y)) {{ return wa_f64_nan_of(x, y); }}
    let ax = wa_f64_abs(x);
    let neg_y = (y.y >> 31u) == 1u;
    let odd = wa_f64_is_odd(y);
    let sign = select(0u, x.y >> 31u, odd);
    if (wa_f64_isinf(y)) {{
        if (ax.x == 0u && ax.y == 0x3ff00000u) {{ return one; }}
        if (wa_f64_lt(ax, one) == neg_y) {{ return wa_f64_inf(0u); }}
        return vec2<u32>(0u, 0u);
    }}
    if (wa_f64_is0(ax) || wa_f64_isinf(ax)) {{
        let big = wa_f64_is0(ax) == neg_y;
        return select(wa_f64_zero(sign), wa_f64_inf(sign), big);
    }}
    if ((x.y >> 31u) == 1u && !wa_f64_is_int(y)) {{ return wa_f64_default_nan(); }}
    let p = wa_f64_two_prod(y, l.xy);
    if (wa_f64_lt({_k(709.8)}, p.xy)) {{ return wa_f64_inf(sign); }}
    if (wa_f64_lt(p.xy, {_k(-745.2)})) {{ return wa_f64_zero(sign); }}
    let r = wa_f64_ldexp(wa_f64_add(e.xy, wa_f64_fma(e.xy, t.zw, e.zw)), wa_f64_exp_big(t.xy));
    return vec2<u32>(r.x, r.y | (sign << 31u));
}}""")
_def("""
fn wa_f64_pow(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let l = wa_f64_pow_a(x, y);
    let t = wa_f64_pow_b(l, x, y);
    return wa_f64_pow_d(l, t, wa_f64_pow_c(l, t, x, y), x, y);
}""")

# -- double-double division and square root ---------------------------------------------------
# a / b: the quotient rounded, its remainder exact by the fused multiply-add, the correction
# rounded (about 2^-104 off, relatively)
_def("""
fn wa_f64_dd_div(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let q = wa_f64_div(a.xy, b.xy);
    let r = wa_f64_sub(wa_f64_add(wa_f64_fma(wa_f64_neg(q), b.xy, a.xy), a.zw), wa_f64_mul(q, b.zw));
    return wa_f64_fast_two_sum(q, wa_f64_div(r, b.xy));
}""")
# sqrt(a) for a >= 0: the root rounded, then one Newton step on the exact residual
_def("""
fn wa_f64_dd_sqrt(a: vec4<u32>) -> vec4<u32> {
    if (wa_f64_is0(a.xy)) { return vec4<u32>(0u, 0u, 0u, 0u); }
    let s = wa_f64_sqrt(a.xy);
    let d = wa_f64_add(wa_f64_fma(wa_f64_neg(s), s, a.xy), a.zw);
    return wa_f64_fast_two_sum(s, wa_f64_div(d, wa_f64_add(s, s)));
}""")


# -- constants of π, by integer arithmetic ------------------------------------------------------
def _atan_fixed(p: int, q: int, bits: int) -> int:
    """atan(p/q) 2^bits to within a few units, for 0 <= p/q <= 1/2 (Taylor series)."""
    g = bits + 16
    term, total, n = (p << g) // q, 0, 0
    while term:
        total += term // (2 * n + 1) if n % 2 == 0 else -(term // (2 * n + 1))
        term = term * p * p // (q * q)
        n += 1
    return total >> 16


def _atan(v: Fraction, bits: int = 200) -> Fraction:
    """atan(v) for 0 <= v <= 1, to 2^-bits: Taylor series of v or of (1 - v)/(1 + v)."""
    if v <= Fraction(1, 2):
        return Fraction(_atan_fixed(v.numerator, v.denominator, bits), 2 ** bits)
    w = (1 - v) / (1 + v)
    return PI / 4 - Fraction(_atan_fixed(w.numerator, w.denominator, bits), 2 ** bits)


_PI_BITS = 1400
# Machin: π = 16 atan(1/5) - 4 atan(1/239)
PI = Fraction(16 * _atan_fixed(1, 5, _PI_BITS) - 4 * _atan_fixed(1, 239, _PI_BITS), 2 ** _PI_BITS)
PIO2_HI, PIO2_LO = _dd(PI / 2)
PI_HI, PI_LO = _dd(PI)
# π/2 in three float64 parts for Cody–Waite (each the rounding of what the others leave)
CW1 = PIO2_HI
CW2 = float(PI / 2 - Fraction(CW1))
CW3 = float(PI / 2 - Fraction(CW1) - Fraction(CW2))
# the bits of 2/π after the binary point, 32 to a word, after one zero word (padding for
# arguments whose window starts before the binary point): 1,248 bits, enough for 2^1024
TWO_OVER_PI_WORDS = [0] + [(2 ** (1248 + 1) * PI.denominator // PI.numerator >> (32 * (38 - i)))
                           & 0xffffffff for i in range(39)]


def _words(values: list[float]) -> list[str]:
    out = []
    for v in values:
        b = _bits(v)
        out += [f"{b & 0xffffffff:#x}u", f"{b >> 32:#x}u"]
    return out


def _series(coef, zmax: Fraction) -> list[Fraction]:
    """Coefficients c_1, c_2, ... of f(x) = x (1 + sum c_n z^n), z = x^2, taken until the
    first omitted term is below 2^-80 for z <= zmax."""
    out, n = [], 1
    while abs(coef(n)) * zmax ** n >= Fraction(1, 2 ** 80):
        out.append(coef(n))
        n += 1
    return out


# -- trigonometric functions ------------------------------------------------------------------
# x = q π/2 + r with |r| <= π/4 (+ a rounding): |x| <= π/4 as it is; Cody–Waite below 2^27:
# k = round(x 2/π), x - k CW1 exact by the fused multiply-add (x and k CW1 are multiples of
# 2^-53 and the difference is below 2), k CW2 exact as a double-double, k CW3 rounded: r is
# about k 2^-157 off, 2^-72 of the smallest |r| there. Payne–Hanek above: |x| = m 2^s with m a
# 53-bit integer, so |x| 2/π = sum over the bits b_i of 2/π of m b_i 2^(s-i), where the terms
# with s - i >= 2 are multiples of 4 that do not change sin or cos; the 192 bits of 2/π from
# b_(s-1) on, times m, give x 2/π mod 4 to 2^-137 (wa_f64_pio2_bits: the top 128 bits, two of
# them above the binary point). The nearest integer is q; the rest, at least 2^-62 for every
# float64, becomes a double-double with 64 bits or more (wa_f64_pio2_frac), times π/2.
_def(f"""
fn wa_f64_pio2_bits(ax: vec2<u32>) -> vec4<u32> {{
    var t = array<u32, 40>({", ".join(f"{w:#x}u" for w in TWO_OVER_PI_WORDS)});
    // b_(s-1) is bit s + 30 of t counting from t[0]'s top bit, s = exponent field - 1075
    let b = u32(wa_f64_biased_exp(ax) - 1045);
    let w0 = b >> 5u;
    let sh = b & 31u;
    var w: array<u32, 6>;
    for (var i = 0u; i < 6u; i = i + 1u) {{
        let k = w0 + 5u - i;
        w[i] = (t[k] << sh) | ((t[k + 1u] >> 1u) >> (31u - sh));
    }}
    // the low 192 bits of m times the window, m = mh:ml, one row per word of m
    let m = vec2<u32>(ax.x, (ax.y & 0xfffffu) | 0x100000u);
    var p: array<u32, 6>;
    var c = 0u;
    for (var i = 0u; i < 6u; i = i + 1u) {{
        let a = wa_mulwide32(m.x, w[i]);
        p[i] = a.x + c;
        c = a.y + select(0u, 1u, p[i] < c);
    }}
    c = 0u;
    for (var i = 0u; i < 5u; i = i + 1u) {{
        let a = wa_mulwide32(m.y, w[i]);
        let lo = a.x + c;
        let s = p[i + 1u] + lo;
        c = a.y + select(0u, 1u, lo < c) + select(0u, 1u, s < lo);
        p[i + 1u] = s;
    }}
    return vec4<u32>(p[2], p[3], p[4], p[5]);
}}""")
# r = f π/2 as a double-double from the 126 fraction bits f of v, taken in [-1/2, 1/2)
_def(f"""
fn wa_f64_pio2_frac(v: vec4<u32>) -> vec4<u32> {{
    var f = vec4<u32>(v.x, v.y, v.z, v.w & 0x3fffffffu);
    let neg = f.w >= 0x20000000u;
    if (neg) {{
        f = vec4<u32>(~f.x + 1u, ~f.y, ~f.z, ~f.w & 0x3fffffffu);
        if (f.x == 0u) {{
            f.y = f.y + 1u;
            if (f.y == 0u) {{
                f.z = f.z + 1u;
                if (f.z == 0u) {{ f.w = f.w + 1u; }}
            }}
        }}
    }}
    // the words as float64 (exact), summed from the top: each step exact but for the low part
    var words = array<u32, 4>(f.w, f.z, f.y, f.x);
    var fd = vec4<u32>(0u, 0u, 0u, 0u);
    for (var i = 0; i < 4; i = i + 1) {{
        let a = wa_f64_fast_two_sum(fd.xy, wa_f64_mul(wa_f64_from_u32(words[i]), wa_f64_pow2(-30 - 32 * i)));
        fd = vec4<u32>(a.xy, wa_f64_add(fd.zw, a.zw));
    }}
    let h = wa_f64_two_prod(fd.xy, {_k(PIO2_HI)});
    let r = wa_f64_fast_two_sum(h.xy, wa_f64_add(h.zw, wa_f64_fma(fd.xy, {_k(PIO2_LO)}, wa_f64_mul(fd.zw, {_k(PIO2_HI)}))));
    return select(r, vec4<u32>(wa_f64_neg(r.xy), wa_f64_neg(r.zw)), neg);
}}""")
# sin r = r - r^3/6 + r^5 P(r^2) and cos r = 1 - r^2/2 + r^4 Q(r^2) for |r| <= π/4 (+ a
# rounding): the first two terms as double-doubles, the rest (below 0.4% and 1.6% of the
# result) rounded; about 2^-64 off. No table: a table of (sin, cos)(j/64) would need 8 reads,
# and lavapipe's compile time grows with a table's size times its reads (416 words read 8
# times: 12.8 s alone).
_R2 = (PI / 4) ** 2 * Fraction(1001, 1000)
_SIN_P = _series(lambda n: Fraction((-1) ** n, math.factorial(2 * n + 1)), _R2)[1:]
_COS_P = _series(lambda n: Fraction((-1) ** n, math.factorial(2 * n)), _R2)[1:]
SIXTH_HI, SIXTH_LO = _dd(Fraction(1, 6))
# sin r (cosine false) or cos r as a double-double for a double-double |r| <= π/4: lead + c m
# + m z P(z) with z = r^2, (lead, c, m, P) = (r, -1/6, r^3, sin's) or (1, -1/2, r^2, cos's);
# one body for both, so that a kernel compiles it once
_def(f"""
fn wa_f64_sincos_dd(r: vec4<u32>, cosine: bool) -> vec4<u32> {{
    var c = array<u32, {2 * (len(_SIN_P) + len(_COS_P))}>({", ".join(_words([float(v) for v in _SIN_P[::-1] + _COS_P[::-1]]))});
    let z = wa_f64_mul(r.xy, r.xy);
    var m = wa_f64_two_prod(r.xy, r.xy);
    if (!cosine) {{
        let r3 = wa_f64_two_prod(m.xy, r.xy);
        m = vec4<u32>(r3.xy, wa_f64_fma(m.zw, r.xy, r3.zw));
    }}
    let ch = select({_k(-SIXTH_HI)}, {_k(-0.5)}, cosine);
    let t = wa_f64_two_prod(m.xy, ch);
    let tl = wa_f64_fma(m.xy, select({_k(-SIXTH_LO)}, vec2<u32>(0u, 0u), cosine), wa_f64_fma(m.zw, ch, t.zw));
    let s = wa_f64_fast_two_sum(select(r.xy, {ONE}, cosine), t.xy);
    // the low part of the lead: r's (times 1 - z/2, its share of r^3/6) or -rh rl of r^2/2
    let lead_lo = select(wa_f64_fma(wa_f64_mul(r.zw, z), {_k(-0.5)}, r.zw), wa_f64_neg(wa_f64_mul(r.xy, r.zw)), cosine);
    var p = vec2<u32>(0u, 0u);
    let first = select(0u, {len(_SIN_P)}u, cosine);
    for (var i = first; i < select({len(_SIN_P)}u, {len(_SIN_P) + len(_COS_P)}u, cosine); i = i + 1u) {{
        p = wa_f64_fma(p, z, vec2<u32>(c[2u * i], c[2u * i + 1u]));
    }}
    let rest = wa_f64_fma(wa_f64_mul(m.xy, z), p, lead_lo);
    return wa_f64_fast_two_sum(s.xy, wa_f64_add(wa_f64_add(s.zw, tl), rest));
}}""")


# sin, cos (mode 0, 1) or tan (2) of x: x = q π/2 + r, then sin r or cos r as double-doubles,
# tan their double-double quotient. |x| below 2^-27 gives x (cos 1).
# In two stages (STAGED): _r, r as a double-double with x's sign (zeros where x is not finite
# or below 2^-27); _from the rest, q again from x (a multiply and a rounding, or the 128-bit
# window of 2/π: the reduction's cheap part). SwiftShader inlines every function call, and
# the reduction and both polynomials in one kernel are larger than its WebGPU compiler takes.
_def("""
fn wa_f64_trig_ok(x: vec2<u32>) -> bool {
    return wa_f64_isfinite(x) && (x.y & 0x7fffffffu) >= 0x3e400000u;
}""")
_def(f"""
fn wa_f64_trig_r(x: vec2<u32>) -> vec4<u32> {{
    let ok = wa_f64_trig_ok(x);
    let ax = select({ONE}, wa_f64_abs(x), ok);
    var r = vec4<u32>(ax, 0u, 0u);
    if (ax.y >= 0x41a00000u) {{
        r = wa_f64_pio2_frac(wa_f64_pio2_bits(ax));
    }} else if (wa_f64_lt({_k(float(PI / 4))}, ax)) {{
        let k = wa_f64_round(wa_f64_mul(ax, {_k(float(2 / PI))}));
        let r1 = wa_f64_fma(wa_f64_neg(k), {_k(CW1)}, ax);
        let p2 = wa_f64_two_prod(k, {_k(CW2)});
        let d = wa_f64_two_sum(r1, wa_f64_neg(p2.xy));
        r = wa_f64_fast_two_sum(d.xy, wa_f64_sub(wa_f64_sub(d.zw, p2.zw), wa_f64_mul(k, {_k(CW3)})));
    }}
    if ((x.y >> 31u) == 1u) {{ r = vec4<u32>(wa_f64_neg(r.xy), wa_f64_neg(r.zw)); }}
    return select(vec4<u32>(0u), r, ok);
}}""")
_def(f"""
fn wa_f64_trig_from(r: vec4<u32>, x: vec2<u32>, mode: u32) -> vec2<u32> {{
    let ok = wa_f64_trig_ok(x);
    let ax = select({ONE}, wa_f64_abs(x), ok);
    var q = 0u;
    if (ax.y >= 0x41a00000u) {{
        let v = wa_f64_pio2_bits(ax);
        q = ((v.w >> 30u) + ((v.w >> 29u) & 1u)) & 3u;
    }} else if (wa_f64_lt({_k(float(PI / 4))}, ax)) {{
        q = bitcast<u32>(wa_f64_to_i32(wa_f64_round(wa_f64_mul(ax, {_k(float(2 / PI))})))) & 3u;
    }}
    if ((x.y >> 31u) == 1u) {{ q = (4u - q) & 3u; }}
    // cos r where (q + mode) is odd, sin r otherwise; tan divides it by the other
    let cosine = ((q + mode) & 1u) == 1u;
    var f: array<vec4<u32>, 2>;
    for (var i = 0u; i < select(1u, 2u, mode == 2u); i = i + 1u) {{
        f[i] = wa_f64_sincos_dd(r, cosine != (i == 1u));
    }}
    var v = f[0];
    if (mode == 2u) {{ v = wa_f64_dd_div(v, f[1]); }}
    let e = wa_f64_add(v.xy, v.zw);
    var out = select(e, wa_f64_neg(e), select(((q + mode) & 3u) >= 2u, (q & 1u) == 1u, mode == 2u));
    out = select(out, select(x, {ONE}, mode == 1u), (x.y & 0x7fffffffu) < 0x3e400000u);
    out = select(out, wa_f64_default_nan(), wa_f64_isinf(x));
    return select(out, wa_f64_quiet(x), wa_f64_isnan(x));
}}""")
_def("fn wa_f64_trig(x: vec2<u32>, mode: u32) -> vec2<u32> { return wa_f64_trig_from(wa_f64_trig_r(x), x, mode); }")
for _m, _f in enumerate(("sin", "cos", "tan")):
    _def(f"fn wa_f64_{_f}_b(r: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{ return wa_f64_trig_from(r, x, {_m}u); }}")
_def("fn wa_f64_sin(x: vec2<u32>) -> vec2<u32> { return wa_f64_trig(x, 0u); }")
_def("fn wa_f64_cos(x: vec2<u32>) -> vec2<u32> { return wa_f64_trig(x, 1u); }")
_def("fn wa_f64_tan(x: vec2<u32>) -> vec2<u32> { return wa_f64_trig(x, 2u); }")

# -- inverse trigonometric functions ----------------------------------------------------------
# atan u - u = u^3 P(u^2) for |u| <= 1/128 (+ a rounding)
_horner("wa_f64_atan_q", _series(lambda n: Fraction((-1) ** n, 2 * n + 1), Fraction(1, 128) ** 2 * Fraction(1001, 1000)))


def _atan_table() -> list[str]:
    """65 rows atan(j/64) as double-doubles."""
    return _words([v for j in range(65) for v in _dd(_atan(Fraction(j, 64)))])


# atan2(a, b) in [0, π/2] as a double-double for double-doubles a, b >= 0, not both 0, whose
# ratio is far from overflow and underflow: q = min/max as a double-double, q = c + (q - c)
# / (1 + q c) with c = j/64 nearest q, so atan q = atan c + atan u with |u| <= 1/128; π/2 -
# that where a > b. About 2^-100 off but for the polynomial's rounding (2^-75).
# In a browser three stages of the functions that call it (atan2_stages below): _q, the
# quotient q; _u, the reduced argument u; _fin the rest.
_def("""
fn wa_f64_atan2_q(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let swap = wa_f64_lt(b.xy, a.xy);
    return wa_f64_dd_div(select(a, b, swap), select(b, a, swap));
}""")
_def(f"""
fn wa_f64_atan2_u(q: vec4<u32>) -> vec4<u32> {{
    let jf = wa_f64_round(wa_f64_mul(q.xy, {_k(64.0)}));
    let c = wa_f64_mul(jf, {_k(1 / 64)});
    let n = wa_f64_two_sum(wa_f64_sub(q.xy, c), q.zw);
    let p = wa_f64_two_prod(q.xy, c);
    let d = wa_f64_fast_two_sum({ONE}, p.xy);
    return wa_f64_dd_div(n, wa_f64_fast_two_sum(d.xy, wa_f64_add(d.zw, wa_f64_fma(q.zw, c, p.zw))));
}}""")
_def(f"""
fn wa_f64_atan2_fin(q: vec4<u32>, u: vec4<u32>, swap: bool) -> vec4<u32> {{
    var t = array<u32, 260>({", ".join(_atan_table())});
    let jf = wa_f64_round(wa_f64_mul(q.xy, {_k(64.0)}));
    let z = wa_f64_mul(u.xy, u.xy);
    let i = 4u * u32(wa_f64_to_i32(jf));
    let s = wa_f64_two_sum(vec2<u32>(t[i], t[i + 1u]), u.xy);
    let tail = wa_f64_fma(wa_f64_mul(u.xy, z), wa_f64_atan_q(z), u.zw);
    let r = wa_f64_fast_two_sum(s.xy, wa_f64_add(wa_f64_add(s.zw, vec2<u32>(t[i + 2u], t[i + 3u])), tail));
    if (!swap) {{ return r; }}
    let h = wa_f64_two_sum({_k(PIO2_HI)}, wa_f64_neg(r.xy));
    return wa_f64_fast_two_sum(h.xy, wa_f64_add(h.zw, wa_f64_sub({_k(PIO2_LO)}, r.zw)));
}}""")
_def("""
fn wa_f64_atan2_dd(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let q = wa_f64_atan2_q(a, b);
    return wa_f64_atan2_fin(q, wa_f64_atan2_u(q), wa_f64_lt(b.xy, a.xy));
}""")


def atan2_stages(prefix: str, params: str, lets: str, fallback: str = "vec4<u32>(0u)") -> None:
    """``prefix``_q(params), _u(params with q) and _d(params with q, u): a stage that is
    wa_f64_atan2_dd(A, B) where ``ok`` (``fallback`` elsewhere) as three, for a browser;
    ``lets`` computes ok, A and B from ``params`` (the carriers before, then the operands:
    ``c: vec4<u32>, ...;x: vec2<u32>, ...``, the two parts separated by a semicolon)."""
    carriers, operands = (p.strip() for p in params.split(";"))
    join = lambda *ps: ", ".join(p for p in ps if p)
    body = lets.strip()
    _def(f"""
fn {prefix}_q({join(carriers, operands)}) -> vec4<u32> {{
    {body}
    return select(vec4<u32>(0u), wa_f64_atan2_q(A, select(vec4<u32>(0u, 0x3ff00000u, 0u, 0u), B, ok)), ok);
}}""")
    _def(f"""
fn {prefix}_u({join(carriers, "q: vec4<u32>", operands)}) -> vec4<u32> {{
    {body}
    return select(vec4<u32>(0u), wa_f64_atan2_u(q), ok);
}}""")
    _def(f"""
fn {prefix}_d({join(carriers, "q: vec4<u32>, u: vec4<u32>", operands)}) -> vec4<u32> {{
    {body}
    return select({fallback}, wa_f64_atan2_fin(q, u, wa_f64_lt(B.xy, A.xy)), ok);
}}""")


# π - a for a double-double a in [0, π/2]
_def(f"""
fn wa_f64_pi_minus(a: vec4<u32>) -> vec4<u32> {{
    let h = wa_f64_two_sum({_k(PI_HI)}, wa_f64_neg(a.xy));
    return wa_f64_fast_two_sum(h.xy, wa_f64_add(h.zw, wa_f64_sub({_k(PI_LO)}, a.zw)));
}}""")
# |x| with the sign of s (x >= 0)
_def("fn wa_f64_with_sign(x: vec2<u32>, s: vec2<u32>) -> vec2<u32> { return vec2<u32>(x.x, x.y | (s.y & 0x80000000u)); }")
# atan x = atan2(|x|, 1); π/2 above 2^60 (π/2 - 1/|x| rounds to it)
_def(f"""
fn wa_f64_atan(x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (ax.y < 0x3e400000u) {{ return x; }}
    var r = {_k(PIO2_HI)};
    if (ax.y < 0x43b00000u) {{
        let d = wa_f64_atan2_dd(vec4<u32>(ax, 0u, 0u), vec4<u32>({ONE}, 0u, 0u));
        r = wa_f64_add(d.xy, d.zw);
    }}
    return wa_f64_with_sign(r, x);
}}""")
# in a browser three stages (STAGED): atan2_dd's q and u, then wa_f64_atan_c (the rest)
atan2_stages("wa_f64_atan_b", "; x: vec2<u32>", """
    let ax = wa_f64_abs(x);
    let ok = !wa_f64_isnan(x) && ax.y >= 0x3e400000u && ax.y < 0x43b00000u;
    let A = vec4<u32>(select(vec2<u32>(0u), ax, ok), 0u, 0u);
    let B = vec4<u32>(0u, 0x3ff00000u, 0u, 0u);""")
_def(f"""
fn wa_f64_atan_c(q: vec4<u32>, u: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (ax.y < 0x3e400000u) {{ return x; }}
    var r = {_k(PIO2_HI)};
    if (ax.y < 0x43b00000u) {{
        let d = wa_f64_atan2_fin(q, u, wa_f64_lt({ONE}, ax));
        r = wa_f64_add(d.xy, d.zw);
    }}
    return wa_f64_with_sign(r, x);
}}""")
# atan2(|y|, |x|) in [0, π/2], then π - it for x with its sign bit set, with y's sign: C99's
# and NumPy's table of zeros and infinities follows. Operands 2^60 apart or more are divided
# directly (a subnormal quotient rounded once); others are scaled to the exponent of 1 first.
# Three stages (STAGED): _a, the double-double angle of the cases before the last (case 0 to
# 4 of wa_f64_atan2_case), the scaled operands (|y|, |x|) for the last; _b the angle in
# [0, π/2] as a double-double; _c the rest.
_def("""
fn wa_f64_atan2_case(a: vec2<u32>, b: vec2<u32>) -> u32 {
    let ea = max(wa_f64_biased_exp(a), 1);
    let eb = max(wa_f64_biased_exp(b), 1);
    if (wa_f64_isinf(a) && wa_f64_isinf(b)) { return 0u; }
    if (wa_f64_isinf(a) || (wa_f64_is0(b) && !wa_f64_is0(a))) { return 1u; }
    if (wa_f64_isinf(b) || wa_f64_is0(a)) { return 2u; }
    if (eb - ea > 60) { return 3u; }
    if (ea - eb > 60) { return 4u; }
    return 5u;
}""")
# a, b >= 0 scaled by one power of two so that the larger is in [1, 2)
_def("""
fn wa_f64_atan2_scaled(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let sc = 0x3ff - max(max(wa_f64_biased_exp(a), 1), max(wa_f64_biased_exp(b), 1));
    return vec4<u32>(wa_f64_ldexp(a, sc), wa_f64_ldexp(b, sc));
}""")
_def(f"""
fn wa_f64_atan2_a(y: vec2<u32>, x: vec2<u32>) -> vec4<u32> {{
    let a = wa_f64_abs(y);
    let b = wa_f64_abs(x);
    let c = wa_f64_atan2_case(a, b);
    let q = wa_f64_div(select(b, a, c == 3u), select(a, b, c == 3u));  // a / b or b / a
    var r = wa_f64_atan2_scaled(a, b);
    r = select(r, vec4<u32>({_k(PIO2_HI)}, wa_f64_sub({_k(PIO2_LO)}, q)), c == 4u);
    r = select(r, vec4<u32>(q, 0u, 0u), c == 3u);
    r = select(r, vec4<u32>(0u), c == 2u);
    r = select(r, vec4<u32>({_k(PIO2_HI)}, {_k(PIO2_LO)}), c == 1u);
    r = select(r, vec4<u32>({_k(float(PI / 4))}, {_k(PIO2_LO / 2)}), c == 0u);
    return select(r, vec4<u32>(0u), wa_f64_isnan(y) || wa_f64_isnan(x));
}}""")
_def("""
fn wa_f64_atan2_b(s: vec4<u32>, y: vec2<u32>, x: vec2<u32>) -> vec4<u32> {
    let ok = !wa_f64_isnan(y) && !wa_f64_isnan(x) && wa_f64_atan2_case(wa_f64_abs(y), wa_f64_abs(x)) == 5u;
    let one = vec2<u32>(0u, 0x3ff00000u);
    let d = wa_f64_atan2_dd(vec4<u32>(select(one, s.xy, ok), 0u, 0u), vec4<u32>(select(one, s.zw, ok), 0u, 0u));
    return select(s, d, ok);
}""")
atan2_stages("wa_f64_atan2_b", "s: vec4<u32>; y: vec2<u32>, x: vec2<u32>", """
    let ok = !wa_f64_isnan(y) && !wa_f64_isnan(x) && wa_f64_atan2_case(wa_f64_abs(y), wa_f64_abs(x)) == 5u;
    let one = vec2<u32>(0u, 0x3ff00000u);
    let A = vec4<u32>(select(one, s.xy, ok), 0u, 0u);
    let B = vec4<u32>(select(one, s.zw, ok), 0u, 0u);""", fallback="s")
_def("""
fn wa_f64_atan2_c2(s: vec4<u32>, q: vec4<u32>, u: vec4<u32>, d: vec4<u32>, y: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
    return wa_f64_atan2_c(s, d, y, x);
}""")
_def("""
fn wa_f64_atan2_c(s: vec4<u32>, d: vec4<u32>, y: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(y) || wa_f64_isnan(x)) { return wa_f64_nan_of(y, x); }
    var e = d;
    if ((x.y >> 31u) == 1u) { e = wa_f64_pi_minus(d); }
    return wa_f64_with_sign(wa_f64_add(e.xy, e.zw), y);
}""")
_def("""
fn wa_f64_atan2(y: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
    let s = wa_f64_atan2_a(y, x);
    return wa_f64_atan2_c(s, wa_f64_atan2_b(s, y, x), y, x);
}""")
# sqrt(1 - x^2) as a double-double for 0 <= x <= 1: 1 - x^2 exactly (x^2 by the fused
# multiply-add), its double-double root
_def(f"""
fn wa_f64_sqrt1m(x: vec2<u32>) -> vec4<u32> {{
    let p = wa_f64_two_prod(x, x);
    let d = wa_f64_two_sum({ONE}, wa_f64_neg(p.xy));
    return wa_f64_dd_sqrt(wa_f64_fast_two_sum(d.xy, wa_f64_sub(d.zw, p.zw)));
}}""")
# asin x = atan2(|x|, sqrt(1 - x^2)), acos x = atan2(sqrt(1 - x^2), |x|) (π - it for x < 0)
_def("""
fn wa_f64_asin(x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x)) { return wa_f64_quiet(x); }
    let ax = wa_f64_abs(x);
    if (wa_f64_lt(vec2<u32>(0u, 0x3ff00000u), ax)) { return wa_f64_default_nan(); }
    if (ax.y < 0x3e400000u) { return x; }
    let d = wa_f64_atan2_dd(vec4<u32>(ax, 0u, 0u), wa_f64_sqrt1m(ax));
    return wa_f64_with_sign(wa_f64_add(d.xy, d.zw), x);
}""")
# in a browser (STAGED): _a, sqrt(1 - x^2) as acos's; atan2_dd's three stages; _c the rest
_def("fn wa_f64_asin_a(x: vec2<u32>) -> vec4<u32> { return wa_f64_acos_a(x); }")
atan2_stages("wa_f64_asin_b", "r: vec4<u32>; x: vec2<u32>", """
    let ax = wa_f64_abs(x);
    let ok = wa_f64_acos_in(x) && ax.y >= 0x3e400000u;
    let A = vec4<u32>(select(vec2<u32>(0u), ax, ok), 0u, 0u);
    let B = r;""")
_def("""
fn wa_f64_asin_c(r: vec4<u32>, q: vec4<u32>, u: vec4<u32>, d: vec4<u32>, x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x)) { return wa_f64_quiet(x); }
    let ax = wa_f64_abs(x);
    if (wa_f64_lt(vec2<u32>(0u, 0x3ff00000u), ax)) { return wa_f64_default_nan(); }
    if (ax.y < 0x3e400000u) { return x; }
    return wa_f64_with_sign(wa_f64_add(d.xy, d.zw), x);
}""")
# acos in three stages (STAGED): _a, sqrt(1 - x^2) as a double-double for |x| <= 1 (zeros
# elsewhere); _b, atan2 of it and |x| as a double-double; _c the rest (each stage reads the
# ones before)
_def("""
fn wa_f64_acos_in(x: vec2<u32>) -> bool {
    return !wa_f64_isnan(x) && !wa_f64_lt(vec2<u32>(0u, 0x3ff00000u), wa_f64_abs(x));
}""")
_def("""
fn wa_f64_acos_a(x: vec2<u32>) -> vec4<u32> {
    let ok = wa_f64_acos_in(x);
    return select(vec4<u32>(0u), wa_f64_sqrt1m(select(vec2<u32>(0u), wa_f64_abs(x), ok)), ok);
}""")
_def("""
fn wa_f64_acos_b(r: vec4<u32>, x: vec2<u32>) -> vec4<u32> {
    let ok = wa_f64_acos_in(x);
    let d = wa_f64_atan2_dd(r, vec4<u32>(select(vec2<u32>(0u, 0x3ff00000u), wa_f64_abs(x), ok), 0u, 0u));
    return select(vec4<u32>(0u), d, ok);
}""")
atan2_stages("wa_f64_acos_b", "r: vec4<u32>; x: vec2<u32>", """
    let ok = wa_f64_acos_in(x);
    let A = r;
    let B = vec4<u32>(select(vec2<u32>(0u, 0x3ff00000u), wa_f64_abs(x), ok), 0u, 0u);""")
_def("""
fn wa_f64_acos_c2(r: vec4<u32>, q: vec4<u32>, u: vec4<u32>, d: vec4<u32>, x: vec2<u32>) -> vec2<u32> {
    return wa_f64_acos_c(r, d, x);
}""")
_def("""
fn wa_f64_acos_c(r: vec4<u32>, d: vec4<u32>, x: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(x)) { return wa_f64_quiet(x); }
    if (!wa_f64_acos_in(x)) { return wa_f64_default_nan(); }
    var e = d;
    if ((x.y >> 31u) == 1u) { e = wa_f64_pi_minus(d); }
    return wa_f64_add(e.xy, e.zw);
}""")
_def("""
fn wa_f64_acos(x: vec2<u32>) -> vec2<u32> {
    let r = wa_f64_acos_a(x);
    return wa_f64_acos_c(r, wa_f64_acos_b(r, x), x);
}""")

# -- hyperbolic functions ---------------------------------------------------------------------
# below 1/8: odd Taylor series x + x^3 P(x^2), rounded once by the fused multiply-add
_Z8 = Fraction(1, 64)


def _bernoulli(n: int) -> list[Fraction]:
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(60)
_horner("wa_f64_sinh_q", _series(lambda n: Fraction(1, math.factorial(2 * n + 1)), _Z8))
_horner("wa_f64_tanh_q", _series(lambda n: 4 ** (n + 1) * (4 ** (n + 1) - 1) * _B[2 * n + 2]
                                 / math.factorial(2 * n + 2), _Z8))
_horner("wa_f64_asinh_q", _series(lambda n: Fraction((-1) ** n * math.factorial(2 * n),
                                                     4 ** n * math.factorial(n) ** 2 * (2 * n + 1)), _Z8))
_horner("wa_f64_atanh_q", _series(lambda n: Fraction(1, 2 * n + 1), _Z8))
# (e^x + s e^-x) / 2 for x >= 0, s = ±1, with one table-driven exponential: below 25, e^x as
# a double-double (about 2^-75 off) and its reciprocal as one (for x >= 1/8 the difference
# loses at most 3 bits of those); from 25 on e^-x is below 2^-72 of e^x: e^x / 2, rounded
# once from the double-double e^x / 2^K and scaled by 2^(K - 1) (no overflow before 710.48;
# infinity at once above 710.5). Two stages (exp_pm_a: that exponential, e^x as a
# double-double or e^x / 2 rounded; exp_pm_b: the rest), as sinh, cosh and tanh are
# (STAGED): their _a is the exponential where they need one, zeros elsewhere.
_def(f"""
fn wa_f64_exp_pm_a(x: vec2<u32>) -> vec4<u32> {{
    let ok = !wa_f64_isnan(x) && !wa_f64_lt({_k(710.5)}, x);
    let v = select(vec2<u32>(0u), x, ok);
    let e0 = wa_f64_exp_core(v, vec2<u32>(0u, 0u));
    let k = wa_f64_exp_big(v);
    let e = select(vec4<u32>(wa_f64_ldexp(e0.xy, k), wa_f64_ldexp(e0.zw, k)),
                   vec4<u32>(wa_f64_ldexp(wa_f64_add(e0.xy, e0.zw), k - 1), 0u, 0u), !wa_f64_lt(v, {_k(25.0)}));
    return select(vec4<u32>(0u), e, ok);
}}""")
_def(f"""
fn wa_f64_exp_pm_b(e: vec4<u32>, x: vec2<u32>, s: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_lt({_k(710.5)}, x)) {{ return wa_f64_inf(0u); }}
    if (!wa_f64_lt(x, {_k(25.0)})) {{ return e.xy; }}
    let ih = wa_f64_div({ONE}, e.xy);
    let il = wa_f64_mul(ih, wa_f64_sub(wa_f64_fma(wa_f64_neg(ih), e.xy, {ONE}), wa_f64_mul(ih, e.zw)));
    let d = wa_f64_two_sum(e.xy, wa_f64_mul(s, ih));
    let v = wa_f64_add(d.xy, wa_f64_add(d.zw, wa_f64_fma(s, il, e.zw)));
    return wa_f64_mul(v, {_k(0.5)});
}}""")
_def("""
fn wa_f64_exp_pm(x: vec2<u32>, s: vec2<u32>) -> vec2<u32> {
    return wa_f64_exp_pm_b(wa_f64_exp_pm_a(x), x, s);
}""")
_def("""
fn wa_f64_sinh_a(x: vec2<u32>) -> vec4<u32> {
    let ax = wa_f64_abs(x);
    let ok = !(wa_f64_isnan(x) || ax.y < 0x3fc00000u || wa_f64_isinf(ax));
    return select(vec4<u32>(0u), wa_f64_exp_pm_a(select(vec2<u32>(0u), ax, ok)), ok);
}""")
_def(f"""
fn wa_f64_sinh_b(e: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (ax.y < 0x3e400000u || wa_f64_isinf(ax)) {{ return x; }}
    var r = vec2<u32>(0u, 0u);
    if (ax.y < 0x3fc00000u) {{
        let z = wa_f64_mul(ax, ax);
        r = wa_f64_fma(wa_f64_mul(ax, z), wa_f64_sinh_q(z), ax);
    }} else {{
        r = wa_f64_exp_pm_b(e, ax, {_k(-1.0)});
    }}
    return wa_f64_with_sign(r, x);
}}""")
_def("fn wa_f64_sinh(x: vec2<u32>) -> vec2<u32> { return wa_f64_sinh_b(wa_f64_sinh_a(x), x); }")
_def("""
fn wa_f64_cosh_a(x: vec2<u32>) -> vec4<u32> {
    let ax = wa_f64_abs(x);
    let ok = !(wa_f64_isnan(x) || ax.y < 0x3e400000u);
    return select(vec4<u32>(0u), wa_f64_exp_pm_a(select(vec2<u32>(0u), ax, ok)), ok);
}""")
_def(f"""
fn wa_f64_cosh_b(e: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (ax.y < 0x3e400000u) {{ return {ONE}; }}
    return wa_f64_exp_pm_b(e, ax, {ONE});
}}""")
_def("fn wa_f64_cosh(x: vec2<u32>) -> vec2<u32> { return wa_f64_cosh_b(wa_f64_cosh_a(x), x); }")
# tanh x = E / (E + 2), E = e^2|x| - 1 as a double-double; 1 above 22 (1 - 2e^-44 rounds to 1).
# Two stages (STAGED): _a, e^2|x| as a double-double from 1/8 to 22 (zeros elsewhere)
_def(f"""
fn wa_f64_tanh_a(x: vec2<u32>) -> vec4<u32> {{
    let ax = wa_f64_abs(x);
    let ok = !(wa_f64_isnan(x) || ax.y < 0x3fc00000u || !wa_f64_lt(ax, {_k(22.0)}));
    let v = select(vec2<u32>(0u), ax, ok);
    return select(vec4<u32>(0u), wa_f64_exp_dd(wa_f64_add(v, v), vec2<u32>(0u, 0u)), ok);
}}""")
_def(f"""
fn wa_f64_tanh_b(e: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (ax.y < 0x3e400000u) {{ return x; }}
    var r = {ONE};
    if (ax.y < 0x3fc00000u) {{
        let z = wa_f64_mul(ax, ax);
        r = wa_f64_fma(wa_f64_mul(ax, z), wa_f64_tanh_q(z), ax);
    }} else if (wa_f64_lt(ax, {_k(22.0)})) {{
        let m = wa_f64_two_sum(e.xy, {_k(-1.0)});
        let em = wa_f64_fast_two_sum(m.xy, wa_f64_add(m.zw, e.zw));
        let p = wa_f64_two_sum(em.xy, {_k(2.0)});
        let q = wa_f64_dd_div(em, wa_f64_fast_two_sum(p.xy, wa_f64_add(p.zw, em.zw)));
        r = wa_f64_add(q.xy, q.zw);
    }}
    return wa_f64_with_sign(r, x);
}}""")
_def("fn wa_f64_tanh(x: vec2<u32>) -> vec2<u32> { return wa_f64_tanh_b(wa_f64_tanh_a(x), x); }")
# asinh |x| = ln(|x| + sqrt(x^2 + 1)), acosh x = ln(x + sqrt(x^2 - 1)): x^2 ± 1 exactly as a
# double-double, its root and the sum as double-doubles, the logarithm of that; from 2^28 on
# (where sqrt(x^2 ± 1) = x to 2^-57) ln x + ln 2, without overflow
# In a browser stages (STAGED): _a, the double-double u whose logarithm is taken (zeros
# where it is not); _m, wa_f64_ln_m of it; _b the rest (asinh's _b held the whole logarithm,
# 679,000 characters inlined, until a long browser run lost the device compiling it)
_def("""
fn wa_f64_ln_x_root_u(x: vec2<u32>, s: vec2<u32>) -> vec4<u32> {
    var u = vec4<u32>(x, 0u, 0u);
    if (x.y < 0x41b00000u) {
        let p = wa_f64_two_prod(x, x);
        let a = wa_f64_two_sum(p.xy, s);
        let w = wa_f64_dd_sqrt(wa_f64_fast_two_sum(a.xy, wa_f64_add(a.zw, p.zw)));
        let h = wa_f64_two_sum(x, w.xy);
        u = wa_f64_fast_two_sum(h.xy, wa_f64_add(h.zw, w.zw));
    }
    return u;
}""")
_def("""
fn wa_f64_asinh_in(x: vec2<u32>) -> bool {
    let ax = wa_f64_abs(x);
    return !wa_f64_isnan(x) && !(ax.y < 0x3e400000u || wa_f64_isinf(ax)) && !(ax.y < 0x3fc00000u);
}""")
_def(f"""
fn wa_f64_asinh_a(x: vec2<u32>) -> vec4<u32> {{
    let ok = wa_f64_asinh_in(x);
    return select(vec4<u32>(0u), wa_f64_ln_x_root_u(select({ONE}, wa_f64_abs(x), ok), {ONE}), ok);
}}""")
_def(f"""
fn wa_f64_asinh_m(u: vec4<u32>, x: vec2<u32>) -> vec4<u32> {{
    return wa_f64_ln_m(select({ONE_DD}, u, wa_f64_asinh_in(x)));
}}""")
_def(f"""
fn wa_f64_asinh_b(u: vec4<u32>, m: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    let ok = wa_f64_asinh_in(x);
    let ax = select({ONE}, wa_f64_abs(x), ok);
    let large = wa_f64_ln_of_dd_m(select({ONE_DD}, u, ok), m, select({ONE}, vec2<u32>(0u, 0u), ax.y < 0x41b00000u)).xy;
    return wa_f64_asinh_fin(large, x);
}}""")
# asinh x from ln(|x| + sqrt(x^2 + 1)) as ``large`` (where wa_f64_asinh_in)
_def("""
fn wa_f64_asinh_fin(large: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
    let ax = wa_f64_abs(x);
    let z = wa_f64_mul(ax, ax);
    let small = wa_f64_fma(wa_f64_mul(ax, z), wa_f64_asinh_q(z), ax);
    let ok = wa_f64_asinh_in(x);
    var r = wa_f64_with_sign(select(small, large, ok), x);
    r = select(r, x, ax.y < 0x3e400000u || wa_f64_isinf(ax));
    return select(r, wa_f64_quiet(x), wa_f64_isnan(x));
}""")
STAGED["asinh"] = compose("wa_f64_asinh", "x: vec2<u32>", "vec2<u32>", (
    Stage("wa_f64_asinh_a"), Stage("wa_f64_asinh_m", (0,)), Stage("wa_f64_asinh_b", (0, 1))))
_def(f"""
fn wa_f64_acosh_in(x: vec2<u32>) -> bool {{
    return !wa_f64_isnan(x) && !wa_f64_lt(x, {ONE}) && !wa_f64_isinf(x);
}}""")
_def(f"""
fn wa_f64_acosh_a(x: vec2<u32>) -> vec4<u32> {{
    let ok = wa_f64_acosh_in(x);
    return select(vec4<u32>(0u), wa_f64_ln_x_root_u(select({ONE}, x, ok), {_k(-1.0)}), ok);
}}""")
_def(f"""
fn wa_f64_acosh_m(u: vec4<u32>, x: vec2<u32>) -> vec4<u32> {{
    return wa_f64_ln_m(select({ONE_DD}, u, wa_f64_acosh_in(x)));
}}""")
_def(f"""
fn wa_f64_acosh_b(u: vec4<u32>, m: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    if (wa_f64_lt(x, {ONE})) {{ return wa_f64_default_nan(); }}
    if (wa_f64_isinf(x)) {{ return x; }}
    return wa_f64_ln_of_dd_m(u, m, select({ONE}, vec2<u32>(0u, 0u), x.y < 0x41b00000u)).xy;
}}""")
STAGED["acosh"] = compose("wa_f64_acosh", "x: vec2<u32>", "vec2<u32>", (
    Stage("wa_f64_acosh_a"), Stage("wa_f64_acosh_m", (0,)), Stage("wa_f64_acosh_b", (0, 1))))
# atanh |x| = ln((1 + |x|) / (1 - |x|)) / 2, the quotient (both terms exact double-doubles)
# and its logarithm as double-doubles. In a browser three stages (STAGED): _a the quotient
# (zeros where it is not taken), _m wa_f64_ln_m of it, _b the rest
_def(f"""
fn wa_f64_atanh_in(x: vec2<u32>) -> bool {{
    let ax = wa_f64_abs(x);
    return !wa_f64_isnan(x) && wa_f64_lt(ax, {ONE}) && ax.y >= 0x3fc00000u;
}}""")
_def(f"""
fn wa_f64_atanh_a(x: vec2<u32>) -> vec4<u32> {{
    let ok = wa_f64_atanh_in(x);
    let ax = select(vec2<u32>(0u), wa_f64_abs(x), ok);
    return select(vec4<u32>(0u), wa_f64_dd_div(wa_f64_two_sum({ONE}, ax), wa_f64_two_sum({ONE}, wa_f64_neg(ax))), ok);
}}""")
_def(f"""
fn wa_f64_atanh_m(v: vec4<u32>, x: vec2<u32>) -> vec4<u32> {{
    return wa_f64_ln_m(select({ONE_DD}, v, wa_f64_atanh_in(x)));
}}""")
_def(f"""
fn wa_f64_atanh_b(v: vec4<u32>, m: vec4<u32>, x: vec2<u32>) -> vec2<u32> {{
    let ax = wa_f64_abs(x);
    let ok = wa_f64_atanh_in(x);
    let z = wa_f64_mul(ax, ax);
    let small = wa_f64_fma(wa_f64_mul(ax, z), wa_f64_atanh_q(z), ax);
    let l = wa_f64_ln_of_dd_m(select({ONE_DD}, v, ok), m, vec2<u32>(0u, 0u));
    var r = wa_f64_with_sign(select(small, wa_f64_mul(wa_f64_add(l.xy, l.zw), {_k(0.5)}), ok), x);
    r = select(r, x, ax.y < 0x3e400000u);
    r = select(r, wa_f64_with_sign(wa_f64_inf(0u), x), wa_f64_eq(ax, {ONE}));
    r = select(r, wa_f64_default_nan(), wa_f64_lt({ONE}, ax));
    return select(r, wa_f64_quiet(x), wa_f64_isnan(x));
}}""")
STAGED["atanh"] = compose("wa_f64_atanh", "x: vec2<u32>", "vec2<u32>", (
    Stage("wa_f64_atanh_a"), Stage("wa_f64_atanh_m", (0,)), Stage("wa_f64_atanh_b", (0, 1))))

# -- cube root --------------------------------------------------------------------------------
# |x| = 2^3k m with m in [1, 8) (subnormals scaled by 2^54 first); y from the chord of
# cbrt on [1, 8), 5 Newton steps y = (2y + m/y^2)/3 (11% -> 2^-52), then one more on the
# exact residual m - y^3 (y^3 as a double-double): about 2^-99 off before the rounding
_def(f"""
fn wa_f64_cbrt(x: vec2<u32>) -> vec2<u32> {{
    if (wa_f64_isnan(x)) {{ return wa_f64_quiet(x); }}
    let ax = wa_f64_abs(x);
    if (wa_f64_isinf(ax) || wa_f64_is0(ax)) {{ return x; }}
    var u = ax;
    var e = wa_f64_biased_exp(ax) - 1023;
    if (e == -1023) {{
        u = wa_f64_mul(ax, wa_f64_pow2(54));
        e = wa_f64_biased_exp(u) - 1077;
    }}
    let k = (e + 3072) / 3 - 1024;
    let m = vec2<u32>(u.x, (u.y & 0xfffffu) | (u32(1023 + e - 3 * k) << 20u));
    var y = wa_f64_fma(m, {_k(1 / 7)}, {_k(6 / 7)});
    for (var i = 0; i < 5; i = i + 1) {{
        y = wa_f64_mul(wa_f64_add(wa_f64_add(y, y), wa_f64_div(m, wa_f64_mul(y, y))), {_k(1 / 3)});
    }}
    let y2 = wa_f64_two_prod(y, y);
    let y3 = wa_f64_two_prod(y2.xy, y);
    let d = wa_f64_sub(wa_f64_sub(m, y3.xy), wa_f64_fma(y2.zw, y, y3.zw));
    let r = wa_f64_add(y, wa_f64_div(d, wa_f64_mul(y2.xy, {_k(3.0)})));
    return wa_f64_with_sign(wa_f64_mul(r, wa_f64_pow2(k)), x);
}}""")
