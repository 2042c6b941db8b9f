"""WGSL helper functions that op-table expressions call.

WGSL leaves NaN and infinity handling of most builtins undefined, and several builtins are
undefined outside their domain (log of a negative, acos above 1, pow of a negative base),
so every such op goes through a helper that applies the standard's special cases explicitly
and tests NaN by its bits. Helpers name their dependencies simply by calling them;
``helpers_for`` pulls in the transitive closure.

Accuracy. WGSL only bounds its transcendental builtins loosely (exp within 3 + 2|x| ULP, log
to an absolute 2^-21 near 1, sin and cos to an absolute 2^-11 and only on [-π, π]), and
Mesa's lavapipe uses that freedom: its exp is 10 ULP off and flushes subnormal results, its
log, asin and atan are off by thousands of ULP, and its sin(1e30) is 1.0. So every
transcendental function here is built from +, -, *, / and sqrt, which lavapipe (and IEEE
hardware generally) rounds correctly. They are within about 1 ULP over the whole float32
range (most within 0.5-0.8); docs/accuracy.md has the measured errors and
``benchmarks/accuracy.py`` measures them. Three techniques carry the accuracy:

- Exact range reduction: Cody–Waite constants split so that k * C_hi is exact (exp, log),
  and Payne–Hanek reduction for sin, cos and tan (every float32, up to 3.4e38, is reduced
  with all its bits against a 96-bit window of 2/π).
- Double-float arithmetic where one float32 is not enough (the logarithms, y log2 x in pow,
  the reduced argument of sin, hypot, logaddexp, the hyperbolic functions): a value is an
  unevaluated sum hi + lo of two f32, a ``vec2<f32>``. It rests on the error-free transformations ``wa_two_sum`` (Knuth) and
  ``wa_two_prod`` (Dekker). fma() cannot replace Dekker's product: lavapipe computes it as a
  rounded multiply followed by a rounded add.
- ``wa_keep``: shader compilers may rewrite floating-point algebra as if it were exact (Mesa's
  NIR turns (a + b) - a into b and (c / b) * b into c), which would make every error term
  zero; routing the operands of an error-free step through an integer identity the
  compiler cannot prove keeps the arithmetic as written.

Series are Taylor series of the function on a reduced interval, taken far enough that the
first omitted term is below 2^-30 relative; their coefficients are plain fractions.

Subnormals. WGSL lets a device flush them, and SwiftShader (Chromium's WebGPU without a
GPU) does, on input and output: there a subnormal operand of +, <, == ... reads as ±0. So
where a helper must see a subnormal (its sign, its magnitude) it reads the bits
(``wa_is_neg``, ``wa_is_zero``, ``wa_unflush``), and functions with f(x) ~ x near 0 return a
tiny x itself, which keeps its bits on every device. A subnormal *result* of arithmetic is
still flushed to 0 on such a device.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

LIB: dict[str, str] = {}


def _def(src: str) -> None:
    name = re.match(r"\s*fn (wa_\w+)", src).group(1)
    LIB[name] = src.strip() + "\n"


class Stage(NamedTuple):
    """A stage of a large function that a browser runs as several kernels (ops.STAGED): its
    helper, and the positions of the stages before it whose results (carriers, complex128:
    a double-double or a pair) it takes, in order, before the function's operands (None:
    every one before it)."""
    fn: str
    reads: tuple[int, ...] | None = None

    def carriers(self, k: int) -> tuple[int, ...]:
        """The carriers stage k of its function takes."""
        return tuple(range(k)) if self.reads is None else self.reads


def compose(name: str, params: str, result: str, stages: tuple[Stage, ...]) -> tuple[Stage, ...]:
    """``fn name(params) -> result``: the stages applied in turn, each to the carriers it
    reads and the operands, the function whole (so a staged result is the whole one bit for
    bit). The stages, for ops.STAGED."""
    names = ", ".join(p.split(":")[0].strip() for p in params.split(","))
    lines = [f"    let c{k} = {st.fn}({', '.join([f'c{j}' for j in st.carriers(k)] + [names])});"
             for k, st in enumerate(stages[:-1])]
    last = stages[-1]
    args = ", ".join([f"c{j}" for j in last.carriers(len(stages) - 1)] + [names])
    _def(f"fn {name}({params}) -> {result} {{\n" + "\n".join(lines) + f"\n    return {last.fn}({args});\n}}")
    return stages


# -- constants and classification --------------------------------------------------------
_def("fn wa_nan() -> f32 { let bits = 0x7fc00000u; return bitcast<f32>(bits); }")
_def("fn wa_inf() -> f32 { let bits = 0x7f800000u; return bitcast<f32>(bits); }")
_def("fn wa_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }")
_def("fn wa_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }")
_def("fn wa_isfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u; }")
# by the bits, so that a subnormal counts on devices that flush subnormals in comparisons
_def("fn wa_is_zero(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }")
_def("fn wa_is_neg(x: f32) -> bool { return bitcast<u32>(x) > 0x80000000u; }")
# x * 2^24 exactly for |x| < 2^-126, from the bits (the significand as an integer, scaled):
# a device that flushes subnormals would read x * 2^24 as 0
_def("""
fn wa_unflush(x: f32) -> f32 {
    let u = bitcast<u32>(x);
    return wa_copysign(f32(u & 0x7fffffu) * 0x1p-125, x);
}""")
_def("""
fn wa_copysign(x: f32, y: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u));
}""")

# -- comparisons that stay IEEE-correct for NaN whatever the compiler assumes --------------
_def("fn wa_eq(a: f32, b: f32) -> bool { return !wa_isnan(a) && !wa_isnan(b) && a == b; }")
_def("fn wa_lt(a: f32, b: f32) -> bool { return !wa_isnan(a) && !wa_isnan(b) && a < b; }")
_def("fn wa_le(a: f32, b: f32) -> bool { return !wa_isnan(a) && !wa_isnan(b) && a <= b; }")
_def("""
fn wa_max_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    return select(b, a, a > b);
}""")
_def("""
fn wa_min_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    return select(b, a, a < b);
}""")
_def("""
fn wa_clip_f(x: f32, lo: f32, hi: f32) -> f32 {
    if (wa_isnan(x) || wa_isnan(lo) || wa_isnan(hi)) { return wa_nan(); }
    return select(select(x, lo, x < lo), hi, select(x, lo, x < lo) > hi);
}""")
# Built from bits: lavapipe turns a compare-and-select chain into a sign builtin that gives
# -0 for +0 and 0 for NaN.
_def("""
fn wa_sign_f(x: f32) -> f32 {
    let u = bitcast<u32>(x);
    if (wa_isnan(x)) { return x; }
    if ((u & 0x7fffffffu) == 0u) { return 0.0; }
    return bitcast<f32>((u & 0x80000000u) | 0x3f800000u);
}""")

# -- integer division with NumPy's conventions (x // 0 == 0, x % 0 == 0, floor rounding) ---
_def("""
fn wa_floordiv_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    if (b == -1) { return 0 - a; }
    let q = a / b;
    return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));
}""")
_def("""
fn wa_rem_i(a: i32, b: i32) -> i32 {
    if (b == 0 || b == -1) { return 0; }
    let r = a % b;
    return select(r, r + b, (r != 0) && ((r < 0) != (b < 0)));
}""")

# -- exact floating-point remainder (C fmod) by long division of the significands ----------
_def("""
fn wa_fmod(x: f32, y: f32) -> f32 {
    let ux = bitcast<u32>(x) & 0x7fffffffu;
    let uy = bitcast<u32>(y) & 0x7fffffffu;
    let sx = bitcast<u32>(x) & 0x80000000u;
    if (uy == 0u || ux >= 0x7f800000u || uy > 0x7f800000u) { return wa_nan(); }
    if (ux < uy) { return x; }
    var ex = i32(ux >> 23u);
    var ey = i32(uy >> 23u);
    var mx: u32;
    var my: u32;
    if (ex == 0) {
        let lz = i32(countLeadingZeros(ux)) - 8;
        mx = ux << u32(lz);
        ex = 1 - lz;
    } else {
        mx = (ux & 0x7fffffu) | 0x800000u;
    }
    if (ey == 0) {
        let lz = i32(countLeadingZeros(uy)) - 8;
        my = uy << u32(lz);
        ey = 1 - lz;
    } else {
        my = (uy & 0x7fffffu) | 0x800000u;
    }
    loop {
        if (ex <= ey) { break; }
        if (mx >= my) { mx = mx - my; }
        if (mx == 0u) { return bitcast<f32>(sx); }
        mx = mx << 1u;
        ex = ex - 1;
    }
    if (mx >= my) { mx = mx - my; }
    if (mx == 0u) { return bitcast<f32>(sx); }
    let lz = i32(countLeadingZeros(mx)) - 8;
    mx = mx << u32(lz);
    ex = ex - lz;
    if (ex > 0) {
        return bitcast<f32>(sx | (u32(ex) << 23u) | (mx & 0x7fffffu));
    }
    return bitcast<f32>(sx | (mx >> u32(1 - ex)));
}""")
# NumPy's divmod: the remainder takes the divisor's sign, the quotient is rounded so that
# q * b + r == a as closely as floating point allows.
_def("""
fn wa_rem_f(a: f32, b: f32) -> f32 {
    if (b == 0.0 || wa_isnan(a) || wa_isnan(b) || wa_isinf(a)) { return wa_nan(); }
    if (wa_isinf(b)) {
        if (a == 0.0) { return wa_copysign(0.0, b); }
        return select(b, a, (a < 0.0) == (b < 0.0));
    }
    var m = wa_fmod(a, b);
    if (m != 0.0) {
        if ((b < 0.0) != (m < 0.0)) { m = m + b; }
        return m;
    }
    return wa_copysign(0.0, b);
}""")
# Where the standard lets floor_divide follow Python (±inf // finite is NaN, a finite x
# // ∓inf is -1), it does, as NumPy does.
_def("""
fn wa_floordiv_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    if (b == 0.0) { return a / b; }
    // The standard's main text for infinite operands (floor(a / b)): ±inf // finite is
    // ±inf and finite // ±inf a signed zero. NumPy's NaN and -1.0 are allowed alternatives.
    if (wa_isinf(a) || wa_isinf(b)) { return a / b; }
    let m = wa_fmod(a, b);
    var d = (a - m) / b;
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) { d = d - 1.0; }
    if (d == 0.0) { return wa_copysign(0.0, a / b); }
    var f = floor(d);
    if (d - f > 0.5) { f = f + 1.0; }
    return f;
}""")

# -- integer powers by squaring, wrapping like the integer type ------------------------------
_def("""
fn wa_pow_i(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1) { return 1; }
        if (a == -1) { return select(1, -1, (b & 1) != 0); }
        return 0;
    }
    var r = 1;
    var base = a;
    var e = u32(b);
    loop {
        if (e == 0u) { break; }
        if ((e & 1u) != 0u) { r = r * base; }
        base = base * base;
        e = e >> 1u;
    }
    return r;
}""")
_def("""
fn wa_pow_u(a: u32, b: u32) -> u32 {
    var r = 1u;
    var base = a;
    var e = b;
    loop {
        if (e == 0u) { break; }
        if ((e & 1u) != 0u) { r = r * base; }
        base = base * base;
        e = e >> 1u;
    }
    return r;
}""")

# -- error-free transformations and double-float arithmetic ---------------------------------
# An identity at run time (a population count is at most 32) that the compiler cannot fold.
# The transformations below, and every helper that computes an exact error by hand, pass
# their operands through it too: otherwise the compiler, knowing how an operand was made,
# turns (c / b) * b back into c, or re-evaluates f = (e - 1) / 2 inside f - p in another
# order, and the "exact" error comes out wrong.
_def("""
fn wa_keep(x: f32) -> f32 {
    let u = bitcast<u32>(x);
    return bitcast<f32>(u | (countOneBits(u) >> 6u));
}""")
# s + e == a + b exactly (Knuth's TwoSum)
_def("""
fn wa_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = wa_keep(a0);
    let b = wa_keep(b0);
    let s = wa_keep(a + b);
    let bb = wa_keep(s - a);
    return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}""")
# s + e == a + b exactly when |a| >= |b| (or a == 0)
_def("""
fn wa_fast_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = wa_keep(a0);
    let b = wa_keep(b0);
    let s = wa_keep(a + b);
    return vec2<f32>(s, b - (s - a));
}""")
# p + e == a * b (Dekker's product; masking off 12 significand bits splits a factor into
# halves whose products are exact)
_def("""
fn wa_two_prod(a0: f32, b0: f32) -> vec2<f32> {
    let a = wa_keep(a0);
    let b = wa_keep(b0);
    let p = a * b;
    let ah = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
    let bh = bitcast<f32>(bitcast<u32>(b) & 0xfffff000u);
    let al = a - ah;
    let bl = b - bh;
    return vec2<f32>(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}""")
_def("""
fn wa_df_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let s = wa_two_sum(a.x, b.x);
    return wa_fast_two_sum(s.x, s.y + (a.y + b.y));
}""")
_def("""
fn wa_df_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let p = wa_two_prod(a.x, b.x);
    return wa_fast_two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}""")
# a / b for double-floats a and b: the quotient and its correction
_def("""
fn wa_df_div(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let ax = wa_keep(a.x);
    let q = ax / b.x;
    let qb = wa_two_prod(q, b.x);
    return vec2<f32>(q, (((ax - qb.x) - qb.y) + (a.y - q * b.y)) / b.x);
}""")
# sqrt(x) as a double-float, for a double-float x >= 0: one Newton step from sqrt(x.hi)
_def("""
fn wa_sqrt_df(x: vec2<f32>) -> vec2<f32> {
    let xh = wa_keep(x.x);
    let r = sqrt(xh);
    let rr = wa_two_prod(r, r);
    return vec2<f32>(r, select(0.0, (((xh - rr.x) - rr.y) + x.y) / (2.0 * r), r > 0.0));
}""")
# 2^k for an integer k in [-126, 127], and x * 2^k for k in [-252, 254] in two exact steps,
# so that a subnormal result is rounded once
_def("fn wa_exp2i(k: i32) -> f32 { return bitcast<f32>(u32(k + 127) << 23u); }")
_def("""
fn wa_ldexp(x: f32, k: i32) -> f32 {
    let h = k / 2;
    return wa_keep(x * wa_exp2i(h)) * wa_exp2i(k - h);
}""")

# -- exponentials --------------------------------------------------------------------------
# e^(hi + lo) - 1 as a double-float, for |hi| <= 0.36 and |lo| <= 2^-20 |hi|: the Taylor
# series of e^hi - 1 to degree 8 with its hi^2/2 term exact, plus lo e^hi.
_def("""
fn wa_expm1_taylor(hi: f32, lo: f32) -> vec2<f32> {
    let h2 = wa_two_prod(hi, hi);
    let p = hi * h2.x * (1.0 / 6.0 + hi * (1.0 / 24.0 + hi * (1.0 / 120.0 + hi * (1.0 / 720.0
        + hi * (1.0 / 5040.0 + hi * (1.0 / 40320.0))))));
    let s = wa_fast_two_sum(hi, 0.5 * h2.x);
    return wa_fast_two_sum(s.x, s.y + (0.5 * h2.y + p + lo * (1.0 + hi + 0.5 * h2.x)));
}""")
# x = k ln2 + r, |r| <= ln2 / 2; returns (k, r as a double-float). ln2 is split so that
# k * (its high part, 15 significant bits) is exact for |k| < 2^9 (|x| < 354), and
# x - k * high is exact (Sterbenz).
_def("""
fn wa_exp_reduce(x0: f32) -> vec3<f32> {
    let x = wa_keep(x0);
    let k = round(x * 1.44269504);
    let r = wa_two_sum(x - k * 0x1.62e4p-1, k * -0x1.7f7d1cp-20);
    return vec3<f32>(k, r);
}""")
# e^x * 2^s for finite x <= 90 (s lets sinh and cosh reach e^x / 2 past e^x's overflow)
_def("""
fn wa_exp_scaled(x: f32, s: i32) -> f32 {
    let v = wa_exp_reduce(x);
    let u = wa_expm1_taylor(v.y, v.z);
    let one = wa_fast_two_sum(1.0, u.x);
    return wa_ldexp(one.x + (one.y + u.y), i32(v.x) + s);
}""")
# e^(x + lo) as a double-float, for x in [-87, 88.7] (a normal, finite result)
_def("""
fn wa_exp_df(x: f32, lo: f32) -> vec2<f32> {
    let v = wa_exp_reduce(x);
    let u = wa_expm1_taylor(v.y, v.z + lo);
    let one = wa_fast_two_sum(1.0, u.x);
    let k = i32(v.x);
    return vec2<f32>(wa_ldexp(one.x, k), wa_ldexp(one.y + u.y, k));
}""")
_def("""
fn wa_exp(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (x > 89.0) { return wa_inf(); }
    if (x < -104.0) { return 0.0; }
    return wa_exp_scaled(x, 0);
}""")
# e^x - 1 = 2^k (1 + u) - 1 = (2^k - 1) + 2^k u as a double-float, for x in [-17.5, 16.5]
# (|k| <= 25)
_def("""
fn wa_expm1_df(x: f32) -> vec2<f32> {
    let v = wa_exp_reduce(x);
    let u = wa_expm1_taylor(v.y, v.z);
    if (v.x == 0.0) { return u; }
    let p = wa_exp2i(i32(v.x));
    return wa_df_add(wa_two_sum(p, -1.0), p * u);
}""")
_def("""
fn wa_expm1(x: f32) -> f32 {
    // e^x - 1 = x + x^2/2 + ...: below 2^-25, x is the rounded result
    if (wa_isnan(x) || abs(x) < 2.98023224e-8) { return x; }
    if (x > 88.5) { return wa_exp(x); }
    if (x > 16.5) { return wa_df_add(wa_exp_df(x, 0.0), vec2<f32>(-1.0, 0.0)).x; }
    if (x < -17.5) { return -1.0; }
    return wa_expm1_df(x).x;
}""")

# -- logarithms ------------------------------------------------------------------------------
# x = 2^k (1 + f) with f in [sqrt(1/2) - 1, sqrt(2) - 1], for finite x > 0 (subnormal too);
# returns (k, f), both exact.
_def("""
fn wa_log_split(x: f32) -> vec2<f32> {
    var u = bitcast<u32>(x);
    var k = -127;
    if (u < 0x00800000u) {
        u = bitcast<u32>(wa_unflush(x));
        k = k - 24;
    }
    k = k + i32(u >> 23u);
    var m = bitcast<f32>((u & 0x007fffffu) | 0x3f800000u);
    if (m > 1.41421354) {
        m = 0.5 * m;
        k = k + 1;
    }
    return vec2<f32>(f32(k), m - 1.0);
}""")
# ln(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] as a double-float, relative error about
# 2^-34: 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ... with s = f / (2 + f), |s| <= 0.172 (0.2 at
# f = 1/2). s and the s^3 term are carried in double-float; the rest, below 2^-10 of the
# result, in float32.
_def("""
fn wa_log1p_core(f0: f32) -> vec2<f32> {
    let f = wa_keep(f0);
    let d = wa_fast_two_sum(2.0, f);
    let s = f / d.x;
    let sd = wa_two_prod(s, d.x);
    let s_lo = (((f - sd.x) - sd.y) - s * d.y) / d.x;
    let s2 = wa_two_prod(s, s);
    let s3 = wa_two_prod(s2.x, s);
    let s3_lo = s3.y + s * s2.y + 3.0 * s2.x * s_lo;
    let t3 = wa_df_mul(vec2<f32>(s3.x, s3_lo), vec2<f32>(0x1.555556p-1, -0x1.555556p-26));
    let z = s2.x;
    let t5 = s3.x * z * (2.0 / 5.0 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0
        + z * (2.0 / 13.0)))));
    let h = wa_fast_two_sum(2.0 * s, t3.x);
    return wa_fast_two_sum(h.x, h.y + (2.0 * s_lo + (t3.y + t5)));
}""")
# ln(1 + f) for a double-float f in [-0.29, 0.5] (the core's series holds to 0.5); below
# 2^-30 it is f - f^2/2, which keeps the core's exact products away from the subnormals
# that a flushing device zeroes
_def("""
fn wa_log1p_df(f: vec2<f32>) -> vec2<f32> {
    if (abs(f.x) < 9.31322575e-10) { return wa_fast_two_sum(f.x, f.y - 0.5 * f.x * f.x); }
    return wa_df_add(wa_log1p_core(f.x), vec2<f32>(f.y / (1.0 + f.x), 0.0));
}""")
# ln(x.hi + x.lo) rounded to float32, for a double-float x > 0
_def("""
fn wa_ln_of_df(x: vec2<f32>) -> f32 {
    return wa_df_add(wa_ln_df(x.x), vec2<f32>(x.y / x.x, 0.0)).x;
}""")
# ln(x) as a double-float for finite x > 0; k ln2 with ln2 split as in wa_exp_reduce
_def("""
fn wa_ln_df(x: f32) -> vec2<f32> {
    let v = wa_log_split(x);
    return wa_df_add(vec2<f32>(v.x * 0x1.62e4p-1, v.x * 0x1.7f7d1cp-20), wa_log1p_core(v.y));
}""")
# log2(x) as a double-float for finite x > 0: k + ln(1 + f) / ln2
_def("""
fn wa_log2_df(x: f32) -> vec2<f32> {
    let v = wa_log_split(x);
    let l = wa_df_mul(wa_log1p_core(v.y), vec2<f32>(0x1.715476p+0, 0x1.4ae0cp-26));
    return wa_df_add(vec2<f32>(v.x, 0.0), l);
}""")
# the special cases log, log2 and log10 share: NaN, x <= 0 and +inf
_def("fn wa_log_is_special(x: f32) -> bool { return bitcast<u32>(x) >= 0x7f800000u || wa_is_zero(x); }")
_def("""
fn wa_log_special(x: f32) -> f32 {
    if (wa_isnan(x) || wa_is_neg(x)) { return wa_nan(); }
    if (wa_is_zero(x)) { return -wa_inf(); }
    return x;
}""")
_def("""
fn wa_log(x: f32) -> f32 {
    if (wa_log_is_special(x)) { return wa_log_special(x); }
    return wa_ln_df(x).x;
}""")
_def("""
fn wa_log2(x: f32) -> f32 {
    if (wa_log_is_special(x)) { return wa_log_special(x); }
    return wa_log2_df(x).x;
}""")
# k log10(2) + ln(1 + f) / ln10, log10(2) split so that k times its high part is exact
_def("""
fn wa_log10(x: f32) -> f32 {
    if (wa_log_is_special(x)) { return wa_log_special(x); }
    let v = wa_log_split(x);
    let l = wa_df_mul(wa_log1p_core(v.y), vec2<f32>(0x1.bcb7b2p-2, -0x1.5b235ep-27));
    return wa_df_add(vec2<f32>(v.x * 0x1.3442p-2, v.x * -0x1.95ec1p-19), l).x;
}""")
# ln(1 + x): directly where 1 + x needs no rounding in the core's range, else
# ln(u) + e / u for 1 + x = u + e exactly.
_def("""
fn wa_log1p(x: f32) -> f32 {
    if (wa_isnan(x) || x < -1.0) { return wa_nan(); }
    if (x == -1.0) { return -wa_inf(); }
    // below 2^-24, x itself is within a quarter ULP of x - x^2/2 + ...
    if (abs(x) < 5.96046448e-8 || wa_isinf(x)) { return x; }
    if (x > -0.29 && x < 0.41) { return wa_log1p_core(x).x; }
    return wa_ln_of_df(wa_two_sum(1.0, x));
}""")

# -- power -----------------------------------------------------------------------------------
_def("""
fn wa_is_odd_int(y: f32) -> bool {
    if (!wa_isfinite(y) || abs(y) >= 16777216.0 || trunc(y) != y) { return false; }
    return (i32(y) & 1) != 0;
}""")
# C99 pow: y == 0 gives 1 even for NaN x, x == 1 gives 1 even for NaN y, and so on. The
# general case is 2^(y log2|x|) with y log2|x| in double-float: its integer part k can reach
# 150, so a float32 product would leave only 16 good bits for the fraction.
_def("""
fn wa_pow_f(x: f32, y: f32) -> f32 {
    if (wa_is_zero(y) || x == 1.0) { return 1.0; }
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    let ax = abs(x);
    if (wa_isinf(y)) {
        if (ax == 1.0) { return 1.0; }
        if ((ax > 1.0) == (y > 0.0)) { return wa_inf(); }
        return 0.0;
    }
    let odd = wa_is_odd_int(y);
    if (wa_is_zero(x)) {
        if (y > 0.0) { return select(0.0, x, odd); }
        return select(wa_inf(), wa_copysign(wa_inf(), x), odd);
    }
    if (wa_isinf(x)) {
        if (x > 0.0) { return select(0.0, wa_inf(), y > 0.0); }
        if (y > 0.0) { return select(wa_inf(), -wa_inf(), odd); }
        // -0 from the bits: SwiftShader folds a -0.0 constant into +0
        return bitcast<f32>(select(0u, 0x80000000u, odd));
    }
    let neg = wa_is_neg(x);
    if (neg && trunc(y) != y) { return wa_nan(); }
    let l = wa_log2_df(ax);
    var r: f32;
    if (y * l.x > 129.0) {
        r = wa_inf();
    } else if (y * l.x < -151.0) {
        r = 0.0;
    } else {
        let p = wa_two_prod(y, l.x);
        let t = wa_fast_two_sum(p.x, p.y + y * l.y);
        let k = round(t.x);
        let f = wa_fast_two_sum(t.x - k, t.y);
        // 2^f = e^(f ln2), f ln2 in double-float
        let w0 = wa_two_prod(f.x, 0x1.62e43p-1);
        let w = wa_fast_two_sum(w0.x, w0.y + (f.x * -0x1.05c61p-29 + f.y * 0x1.62e43p-1));
        let u = wa_expm1_taylor(w.x, w.y);
        let one = wa_fast_two_sum(1.0, u.x);
        r = wa_ldexp(one.x + (one.y + u.y), i32(k));
    }
    return select(r, -r, neg && odd);
}""")

# -- roots and norms -------------------------------------------------------------------------
# a subnormal x is scaled by 2^24 from its bits first, so flushing devices get it right too
_def("""
fn wa_sqrt(x: f32) -> f32 {
    if (wa_is_neg(x)) { return wa_nan(); }
    if (wa_is_zero(x) || !wa_isfinite(x)) { return x; }
    if (bitcast<u32>(x) < 0x00800000u) { return sqrt(wa_unflush(x)) * 0x1p-12; }
    return sqrt(x);
}""")
# the real cube root (NumPy's cbrt): exp2(log2|x| / 3) refined by two Newton steps on
# y^3 = |x| (written as y + (|x|/y^2 - y)/3, which cannot overflow); a subnormal is scaled
# by 2^24 from its bits first (its root by 2^8)
_def("""
fn wa_cbrt(x: f32) -> f32 {
    if (wa_is_zero(x) || !wa_isfinite(x)) { return x; }
    var a = abs(x);
    var s = 1.0;
    if (bitcast<u32>(a) < 0x00800000u) { a = wa_unflush(a); s = 0x1p-8; }
    var y = exp2(log2(a) * (1.0 / 3.0));
    y = y + (a / (y * y) - y) * (1.0 / 3.0);
    y = y + (a / (y * y) - y) * (1.0 / 3.0);
    return select(y, -y, wa_is_neg(x)) * s;
}""")
# (a 2^-e, b 2^-e, e) for a, b >= 0, not both 0, with the larger of the two results in
# [1, 2): the scaling is exact unless the smaller underflows, where it no longer matters
_def("""
fn wa_normalize_pair(a: f32, b: f32) -> vec3<f32> {
    var x = a;
    var y = b;
    var k = 0;
    if (max(bitcast<u32>(x), bitcast<u32>(y)) < 0x00800000u) {
        x = wa_unflush(x);
        y = wa_unflush(y);
        k = -24;
    }
    let e = i32(bitcast<u32>(max(x, y)) >> 23u) - 127;
    return vec3<f32>(wa_ldexp(x, -e), wa_ldexp(y, -e), f32(e + k));
}""")
# sqrt(a^2 + b^2) with the larger scaled into [1, 2) by a power of two, the sum of squares
# in double-float and one Newton correction of the root: within about 0.5 ULP, with no
# spurious overflow or underflow.
_def("""
fn wa_hypot(a: f32, b: f32) -> f32 {
    if (wa_isinf(a) || wa_isinf(b)) { return wa_inf(); }
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    if (wa_is_zero(a) || wa_is_zero(b)) { return max(abs(a), abs(b)); }
    let v = wa_normalize_pair(abs(a), abs(b));
    let r = wa_sqrt_df(wa_df_add(wa_two_prod(v.x, v.x), wa_two_prod(v.y, v.y)));
    return wa_ldexp(r.x + r.y, i32(v.z));
}""")
# m + ln(1 + e^d), m = max(a, b), d = -|a - b|. The sum cancels when m is near -ln(1 + e^d),
# so d is formed exactly and e^d, ln(1 + e^d) and the sum are carried in double-float.
_def("""
fn wa_logaddexp(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    if (a == b) { return a + 0.69314718055994531; }
    let m = max(a, b);
    if (wa_isinf(m)) { return m; }
    var d = wa_two_sum(a, -b);
    d = select(d, -d, d.x > 0.0);
    if (d.x < -87.0) { return m + wa_exp(d.x); }
    let e = wa_exp_df(d.x, d.y);
    // ln(1 + e) directly, or as ln2 + ln(1 + (e - 1) / 2) above 1/2, where e - 1 is exact
    var l: vec2<f32>;
    if (e.x <= 0.5) {
        l = wa_log1p_df(e);
    } else {
        l = wa_df_add(vec2<f32>(0x1.62e43p-1, -0x1.05c61p-29),
                      wa_log1p_df(vec2<f32>(0.5 * (e.x - 1.0), 0.5 * e.y)));
    }
    return wa_df_add(vec2<f32>(m, 0.0), l).x;
}""")
# on the bits throughout, which order like the numbers once the sign is folded in
_def("fn wa_ordered(x: f32) -> i32 { let u = bitcast<u32>(x); return select(i32(u), -i32(u & 0x7fffffffu), u >= 0x80000000u); }")
_def("""
fn wa_nextafter(x: f32, y: f32) -> f32 {
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    let ix = wa_ordered(x);
    let iy = wa_ordered(y);
    if (ix == iy) { return y; }
    if (wa_is_zero(x)) { return wa_copysign(bitcast<f32>(1u), y); }
    let ux = bitcast<u32>(x);
    let away = (ix < iy) == (ix > 0);
    return bitcast<f32>(select(ux - 1u, ux + 1u, away));
}""")

# -- trigonometric ---------------------------------------------------------------------------
# |x| = (4j + n) π/2 + r for |x| >= π/4, |r| <= π/4: returns (n, r as a double-float).
# Payne–Hanek: |x| = m 2^e with m a 24-bit integer, so |x| 2/π = Σ m b_i 2^(e-i) over the
# bits b_i of 2/π, and the terms with e - i >= 2 are multiples of 4 that do not change the
# result. The product of m with the 96 bits from b_(e-1) on gives the quadrant and 62 bits of
# fraction for every float32, whatever its size.
_def("""
fn wa_rem_pio2(x: f32) -> vec3<f32> {
    // 2/π in binary after 32 zero bits (padding for small exponents); a var, since every
    // WGSL compiler indexes those at run time
    var t = array<u32, 8>(0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
                          0xdb629599u, 0x3c439041u, 0xfe5163abu);
    let u = bitcast<u32>(abs(x));
    let e = i32(u >> 23u) - 150;
    let m = (u & 0x7fffffu) | 0x800000u;
    // the window's first bit is b_(e-1), bit e + 30 of t (counting from t[0]'s top bit)
    let q = u32(e + 30);
    let w = q >> 5u;
    let sh = q & 31u;
    var win: array<u32, 3>;
    for (var j = 0u; j < 3u; j = j + 1u) {
        win[j] = select((t[w + j] << sh) | (t[w + j + 1u] >> (32u - sh)), t[w + j], sh == 0u);
    }
    // m * window = P3:P2:P1:P0 (32-bit words); the binary point of |x| 2/π is below bit 94
    let a0 = wa_mulwide32(m, win[0]);
    let a1 = wa_mulwide32(m, win[1]);
    let a2 = wa_mulwide32(m, win[2]);
    let p0 = a2.x;
    let p1 = a1.x + a2.y;
    let p2 = a0.x + a1.y + select(0u, 1u, p1 < a1.x);
    var n = p2 >> 30u;
    // 64 bits of fraction, as a signed fixed-point number in [-1/2, 1/2) of a quadrant
    var fh = (p2 << 2u) | (p1 >> 30u);
    var fl = (p1 << 2u) | (p0 >> 30u);
    let neg = (fh >> 31u) == 1u;
    if (neg) {
        n = n + 1u;
        fl = ~fl + 1u;
        fh = ~fh + select(0u, 1u, fl == 0u);
    }
    // normalize and take 48 bits as two exact floats
    var lz = countLeadingZeros(fh);
    if (fh == 0u) {
        lz = 32u + countLeadingZeros(fl);
        fh = fl;
        fl = 0u;
        if (fh == 0u) { return vec3<f32>(f32(n & 3u), 0.0, 0.0); }
        fh = fh << (lz - 32u);
    } else if (lz > 0u) {
        fh = (fh << lz) | (fl >> (32u - lz));
        fl = fl << lz;
    }
    let hi = f32(fh >> 8u) * wa_exp2i(-24 - i32(lz));
    let lo = f32(((fh & 0xffu) << 16u) | (fl >> 16u)) * wa_exp2i(-48 - i32(lz));
    // times π/2 (double-float)
    let p = wa_two_prod(hi, 0x1.921fb6p+0);
    let r = wa_fast_two_sum(p.x, p.y + (hi * -0x1.777a5cp-25 + lo * 0x1.921fb6p+0));
    return vec3<f32>(f32(n & 3u), select(r, -r, neg));
}""")
# sin(hi + lo) and cos(hi + lo) as double-floats for |hi| <= π/4 + ε, by Taylor series to
# degree 11 and 10
_def("""
fn wa_sin_kernel(hi: f32, lo: f32) -> vec2<f32> {
    let z = hi * hi;
    let p = z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0
        + z * (-1.0 / 39916800.0)))));
    return wa_fast_two_sum(hi, hi * p + lo * (1.0 - 0.5 * z));
}""")
# 1 - z/2 is rounded once and its rounding error recovered exactly (1 - w is exact)
_def("""
fn wa_cos_kernel(hi: f32, lo: f32) -> vec2<f32> {
    let z = hi * hi;
    let hz = 0.5 * z;
    let w = wa_keep(1.0 - hz);
    let q = z * z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0
        + z * (-1.0 / 3628800.0))));
    return wa_fast_two_sum(w, ((1.0 - w) - hz) + (q - hi * lo));
}""")
# the full 64-bit product of two u32 as (low, high) words, from four 16x16->32 partial
# products (the trig reduction's long multiply; wgsl_int64.py's 64-bit product)
_def("""
fn wa_mulwide32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}""")
# (n, r) for any finite x: no reduction below π/4
_def("""
fn wa_trig_reduce(x: f32) -> vec3<f32> {
    if (abs(x) < 0.785398) { return vec3<f32>(0.0, abs(x), 0.0); }
    return wa_rem_pio2(x);
}""")
_def("""
fn wa_sin(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    // sin x = x - x^3/6 + ...: below 2^-12, x is the rounded result
    if (abs(x) < 0.000244140625) { return x; }
    let v = wa_trig_reduce(x);
    let n = u32(v.x);
    var s = select(wa_sin_kernel(v.y, v.z), wa_cos_kernel(v.y, v.z), (n & 1u) == 1u).x;
    s = select(s, -s, n >= 2u);
    return select(s, -s, x < 0.0);
}""")
_def("""
fn wa_cos(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    let v = wa_trig_reduce(x);
    let n = u32(v.x);
    let c = select(wa_cos_kernel(v.y, v.z), wa_sin_kernel(v.y, v.z), (n & 1u) == 1u).x;
    return select(c, -c, n == 1u || n == 2u);
}""")
_def("""
fn wa_tan(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    if (abs(x) < 0.000244140625) { return x; }
    let v = wa_trig_reduce(x);
    let s = wa_sin_kernel(v.y, v.z);
    let c = wa_cos_kernel(v.y, v.z);
    let q = select(wa_df_div(s, c), -wa_df_div(c, s), (u32(v.x) & 1u) == 1u);
    let t = q.x + q.y;
    return select(t, -t, x < 0.0);
}""")

# -- inverse trigonometric -------------------------------------------------------------------
# atan(t) for |t| <= 7/16: Taylor series t - t^3/3 + t^5/5 - ... to degree 23
_def("""
fn wa_atan_series(t: f32) -> f32 {
    let z = t * t;
    let p = z * (-1.0 / 3.0 + z * (1.0 / 5.0 + z * (-1.0 / 7.0 + z * (1.0 / 9.0
        + z * (-1.0 / 11.0 + z * (1.0 / 13.0 + z * (-1.0 / 15.0 + z * (1.0 / 17.0
        + z * (-1.0 / 19.0 + z * (1.0 / 21.0 + z * (-1.0 / 23.0)))))))))));
    return t + t * p;
}""")
# atan(a) for a >= 0 (or +inf): atan(a) = atan(c) + atan((a - c) / (1 + a c)) with
# c in {0, 1/2, 1, 3/2, inf} chosen so that the second argument is at most 7/16, and
# a - c exact; atan(c) in double-float
# (unrounded: high part, rest)
_def("""
fn wa_atan_pos(a: f32) -> vec2<f32> {
    if (a < 0.4375) { return vec2<f32>(0.0, wa_atan_series(a)); }
    if (a < 0.6875) {
        return vec2<f32>(0x1.dac67p-2, 0x1.586ed4p-28 + wa_atan_series((2.0 * a - 1.0) / (2.0 + a)));
    }
    if (a < 1.1875) {
        return vec2<f32>(0x1.921fb6p-1, -0x1.777a5cp-26 + wa_atan_series((a - 1.0) / (a + 1.0)));
    }
    if (a < 2.4375) {
        return vec2<f32>(0x1.f730bep-1,
                         -0x1.afc12cp-26 + wa_atan_series((a - 1.5) / (1.0 + 1.5 * a)));
    }
    return vec2<f32>(0x1.921fb6p+0, -0x1.777a5cp-25 + wa_atan_series(-1.0 / a));
}""")
_def("""
fn wa_atan(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) < 0.000244140625) { return x; }
    let r = wa_atan_pos(abs(x));
    return wa_copysign(r.x + r.y, x);
}""")
_def("""
fn wa_atan2(y: f32, x: f32) -> f32 {
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    let pi = 3.14159265358979323846;
    if (wa_is_zero(y)) {
        if ((bitcast<u32>(x) >> 31u) == 0u) { return y; }
        return wa_copysign(pi, y);
    }
    if (wa_isinf(y)) {
        if (wa_isinf(x)) {
            return wa_copysign(select(0.75 * pi, 0.25 * pi, x > 0.0), y);
        }
        return wa_copysign(0.5 * pi, y);
    }
    if (wa_is_zero(x)) { return wa_copysign(0.5 * pi, y); }
    if (wa_isinf(x)) {
        return select(wa_copysign(pi, y), wa_copysign(0.0, y), x > 0.0);
    }
    // |result| = base + sign * atan(t), t <= 1, with base 0, π/2 or π; the quotient t is
    // corrected in double-float, on operands scaled to keep its products normal
    let v = wa_normalize_pair(abs(x), abs(y));
    let ax = v.x;
    let ay = v.y;
    var t: vec2<f32>;
    var base = vec2<f32>(0.0, 0.0);
    var neg = x < 0.0;
    var q: vec2<f32>;
    if (ay <= ax) {
        q = wa_df_div(vec2<f32>(ay, 0.0), vec2<f32>(ax, 0.0));
        if (neg) { base = vec2<f32>(0x1.921fb6p+1, -0x1.777a5cp-24); }
    } else {
        q = wa_df_div(vec2<f32>(ax, 0.0), vec2<f32>(ay, 0.0));
        base = vec2<f32>(0x1.921fb6p+0, -0x1.777a5cp-25);
        neg = !neg;
    }
    // atan(q + dq) = atan(q) + dq / (1 + q^2). Below 2^-60 the correction's partial products
    // would be subnormal, which a flushing device zeroes, leaving it garbage; there the
    // correctly rounded quotient is the result anyway.
    t = wa_atan_pos(q.x);
    if (q.x > 8.67361738e-19) { t.y = t.y + q.y / (1.0 + q.x * q.x); }
    t = select(t, -t, neg);
    let h = wa_two_sum(base.x, t.x);
    return wa_copysign(h.x + (h.y + (base.y + t.y)), y);
}""")
# asin(a) - a for |a| <= 1/2: the Taylor series a^3/6 + 3a^5/40 + ..., to degree 25
_def("""
fn wa_asin_tail(a: f32) -> f32 {
    let z = a * a;
    return a * z * (1.0 / 6.0 + z * (3.0 / 40.0 + z * (5.0 / 112.0 + z * (35.0 / 1152.0
        + z * (63.0 / 2816.0 + z * (231.0 / 13312.0 + z * (143.0 / 10240.0
        + z * (6435.0 / 557056.0 + z * (12155.0 / 1245184.0 + z * (46189.0 / 5505024.0
        + z * (88179.0 / 12058624.0 + z * (676039.0 / 104857600.0))))))))))));
}""")
# Above 1/2: asin(a) = π/2 - 2 asin(s) and acos(a) = 2 asin(s), s = sqrt((1 - a) / 2), where
# (1 - a) / 2 is exact and s is carried in double-float.
_def("""
fn wa_asin(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    let a = abs(x);
    if (a < 0.000244140625) { return x; }
    if (a < 0.5) { return x + wa_asin_tail(x); }
    let s = wa_sqrt_df(vec2<f32>(0.5 * (1.0 - a), 0.0));
    let w = wa_two_sum(0x1.921fb6p+0, -2.0 * s.x);
    let r = w.x + (w.y + (-0x1.777a5cp-25 - 2.0 * (s.y + wa_asin_tail(s.x))));
    return wa_copysign(r, x);
}""")
_def("""
fn wa_acos(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    if (abs(x) < 0.5) {
        let w = wa_two_sum(0x1.921fb6p+0, -x);
        return w.x + (w.y + (-0x1.777a5cp-25 - wa_asin_tail(x)));
    }
    let s = wa_sqrt_df(vec2<f32>(0.5 * (1.0 - abs(x)), 0.0));
    let t = 2.0 * (s.y + wa_asin_tail(s.x));
    if (x > 0.0) { return 2.0 * s.x + t; }
    let w = wa_two_sum(0x1.921fb6p+1, -2.0 * s.x);
    return w.x + (w.y + (-0x1.777a5cp-24 - t));
}""")

# -- hyperbolic ------------------------------------------------------------------------------
_def("""
fn wa_sinh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0 || wa_isinf(x)) { return x; }
    let a = abs(x);
    var r: f32;
    if (a < 1.0) {
        // Taylor series to degree 13
        let z = a * a;
        r = a + a * z * (1.0 / 6.0 + z * (1.0 / 120.0 + z * (1.0 / 5040.0 + z * (1.0 / 362880.0
            + z * (1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))));
    } else if (a < 10.0) {
        // (e^a - e^-a) / 2 = (u + u / (u + 1)) / 2, u = e^a - 1 in double-float
        let u = wa_expm1_df(a);
        let v = wa_df_div(u, wa_df_add(u, vec2<f32>(1.0, 0.0)));
        r = 0.5 * wa_df_add(u, v).x;
    } else {
        r = wa_exp_scaled(min(a, 90.0), -1);
    }
    return wa_copysign(r, x);
}""")
_def("""
fn wa_cosh(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    let a = abs(x);
    if (a >= 10.0) { return wa_exp_scaled(min(a, 90.0), -1); }
    let e = wa_exp_df(a, 0.0);
    return 0.5 * wa_df_add(e, wa_df_div(vec2<f32>(1.0, 0.0), e)).x;
}""")
# tanh(a) = u / (u + 2) = 1 - 2 / (u + 2) with u = e^(2a) - 1 in double-float
_def("""
fn wa_tanh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0) { return x; }
    let a = abs(x);
    if (a > 9.1) { return wa_copysign(1.0, x); }
    if (a < 0.000244140625) { return x; }
    let u = wa_expm1_df(2.0 * a);
    let d = wa_df_add(u, vec2<f32>(2.0, 0.0));
    var r: f32;
    if (a < 0.625) {
        let q = wa_df_div(u, d);
        r = q.x + q.y;
    } else {
        let q = wa_df_div(vec2<f32>(2.0, 0.0), d);
        let w = wa_two_sum(1.0, -q.x);
        r = w.x + (w.y - q.y);
    }
    return wa_copysign(r, x);
}""")
# asinh(a) = ln(a + sqrt(a^2 + 1)) and acosh(x) = ln(x + sqrt(x^2 - 1)) with the square,
# the root and the sum in double-float (so x^2 - 1 keeps its digits near x = 1); from 2^12 on,
# ln(2a) is within 2^-26 relative.
_def("""
fn wa_asinh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0 || wa_isinf(x)) { return x; }
    let a = abs(x);
    if (a < 0.000244140625) { return x; }
    var r: f32;
    if (a < 4096.0) {
        let sq = wa_two_prod(a, a);
        let s = wa_two_sum(sq.x, 1.0);
        r = wa_ln_of_df(wa_df_add(vec2<f32>(a, 0.0), wa_sqrt_df(vec2<f32>(s.x, s.y + sq.y))));
    } else {
        r = wa_df_add(wa_ln_df(a), vec2<f32>(0x1.62e43p-1, -0x1.05c61p-29)).x;
    }
    return wa_copysign(r, x);
}""")
_def("""
fn wa_acosh(x: f32) -> f32 {
    if (wa_isnan(x) || x < 1.0) { return wa_nan(); }
    if (wa_isinf(x)) { return x; }
    if (x < 4096.0) {
        let sq = wa_two_prod(x, x);
        let s = wa_two_sum(sq.x, -1.0);
        return wa_ln_of_df(wa_df_add(vec2<f32>(x, 0.0), wa_sqrt_df(vec2<f32>(s.x, s.y + sq.y))));
    }
    return wa_df_add(wa_ln_df(x), vec2<f32>(0x1.62e43p-1, -0x1.05c61p-29)).x;
}""")
# atanh(a) = ln((1 + a) / (1 - a)) / 2, where 1 + a and 1 - a are exact double-floats and the
# quotient is carried in double-float
_def("""
fn wa_atanh(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    let a = abs(x);
    if (a == 1.0) { return wa_copysign(wa_inf(), x); }
    if (a < 0.000244140625) { return x; }
    let n = wa_two_sum(1.0, a);
    let d = wa_two_sum(1.0, -a);
    let q = n.x / d.x;
    let qd = wa_two_prod(q, d.x);
    let q_lo = (((n.x - qd.x) - qd.y) + (n.y - q * d.y)) / d.x;
    return wa_copysign(0.5 * wa_ln_of_df(vec2<f32>(q, q_lo)), x);
}""")

# -- special functions (CUDA's erf, erfc, erfcx, erfinv, erfcinv, normcdf, normcdfinv,
# lgamma, and digamma, for user kernels) ------------------------------------------------------
# Built from series and a continued fraction whose terms are all of one sign, so that
# float32 arithmetic keeps them within a few ULP; tests/test_cupy_kernels.py checks them
# against SciPy. Coefficients are computed here in double precision from their definitions.


def _zeta(k: int) -> float:
    """Riemann's zeta(k) for k >= 2: 63 terms, then Euler-Maclaurin for the tail."""
    n = 64
    return (sum(j ** -k for j in range(1, n)) + n ** (1 - k) / (k - 1) + 0.5 * n ** -k
            + k * n ** (-k - 1) / 12 - k * (k + 1) * (k + 2) * n ** (-k - 3) / 720)


def _horner(coefs, var: str) -> str:
    text = repr(coefs[-1])
    for c in reversed(coefs[:-1]):
        text = f"{c!r} + {var} * ({text})"
    return text


_EULER = 0.5772156649015329
# lgamma(1 + z) = z (-gamma + sum_k>=2 (-1)^k zeta(k)/k z^(k-1)) and
# digamma(1 + z) = -gamma + sum_k>=2 (-1)^k zeta(k) z^(k-1), for |z| <= 1/2 (26 terms: the
# next is below 2^-26 of the first)
_def("fn wa_lgamma1p_series(z: f32) -> f32 { return z * ("
     + _horner([-_EULER] + [(-1) ** k * _zeta(k) / k for k in range(2, 27)], "z") + "); }")
_def("fn wa_digamma1p_series(z: f32) -> f32 { return "
     + _horner([-_EULER] + [(-1) ** k * _zeta(k) for k in range(2, 27)], "z") + "; }")
# the same at 2, for |z| <= 1/2: lgamma(2 + z) = z ((1 - gamma) + sum_k>=2 (-1)^k
# (zeta(k) - 1)/k z^(k-1)), digamma(2 + z) = (1 - gamma) + sum_k>=2 (-1)^k (zeta(k) - 1) z^(k-1)
_def("fn wa_lgamma2p_series(z: f32) -> f32 { return z * ("
     + _horner([1 - _EULER] + [(-1) ** k * (_zeta(k) - 1) / k for k in range(2, 18)], "z") + "); }")
_def("fn wa_digamma2p_series(z: f32) -> f32 { return "
     + _horner([1 - _EULER] + [(-1) ** k * (_zeta(k) - 1) for k in range(2, 20)], "z") + "; }")
# erf(x) for |x| < 1/2: its Taylor series, (2 / sqrt(pi)) sum (-1)^n x^(2n+1) / (n! (2n+1))
_def("fn wa_erf_series(x: f32) -> f32 { let z = x * x; return x * ("
     + _horner([(-1) ** n * 2 / (math.sqrt(math.pi) * math.factorial(n) * (2 * n + 1))
                for n in range(9)], "z") + "); }")
# sin(pi x) and cos(pi x) for finite x, reduced exactly to sin(pi r) with |r| <= 1/2
_def("""
fn wa_sinpi(x: f32) -> f32 {
    var r = x - 2.0 * round(0.5 * x);
    if (r > 0.5) { r = 1.0 - r; } else if (r < -0.5) { r = -1.0 - r; }
    return wa_sin(3.14159265358979 * r);
}""")
_def("""
fn wa_cospi(x: f32) -> f32 {
    let r = abs(x - 2.0 * round(0.5 * x));
    return wa_sin(3.14159265358979 * (0.5 - r));
}""")
_def("""
fn wa_lgamma_pos(x: f32) -> f32 {
    if (x < 0.5) { return wa_lgamma1p_series(x) - wa_log(x); }
    if (x < 1.5) { return wa_lgamma1p_series(x - 1.0); }
    if (x < 8.0) {
        // lgamma(x) = lgamma(z) + log((z)(z+1)...(x-1)) with z in [1.5, 2.5); the
        // product as a double-float
        var z = x;
        var p = vec2<f32>(1.0, 0.0);
        loop {
            if (z < 2.5) { break; }
            z = z - 1.0;
            p = wa_df_mul(p, vec2<f32>(z, 0.0));
        }
        return wa_lgamma2p_series(z - 2.0) + wa_ln_of_df(p);
    }
    if (x > 1e30) { return x * (wa_log(x) - 1.0); }
    // Stirling's series: (x - 1/2) log x - x + log(2 pi)/2 + 1/(12x) - 1/(360x^3) + ...
    let r = 1.0 / x;
    let r2 = r * r;
    let s = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0))));
    let m = wa_df_add(wa_df_mul(vec2<f32>(x - 0.5, 0.0), wa_ln_df(x)), vec2<f32>(-x, 0.0));
    return wa_df_add(m, vec2<f32>(0.9189385332046727 + s, 0.0)).x;
}""")
# lgamma as SciPy's gammaln: +inf at the poles (0, -1, ...), -inf at -inf
_def("""
fn wa_lgamma(x: f32) -> f32 {
    if (wa_isnan(x) || wa_isinf(x)) { return x; }
    if (x <= 0.0 && floor(x) == x) { return wa_inf(); }
    if (x > 0.0) { return wa_lgamma_pos(x); }
    // reflection: gamma(x) gamma(1 - x) = pi / sin(pi x)
    return wa_log(3.14159265358979 / abs(wa_sinpi(x))) - wa_lgamma_pos(1.0 - x);
}""")
_def("""
fn wa_digamma_pos(x: f32) -> f32 {
    if (x < 0.5) { return wa_digamma1p_series(x) - 1.0 / x; }
    if (x < 1.5) { return wa_digamma1p_series(x - 1.0); }
    if (x < 8.0) {
        // digamma(x) = digamma(z) + 1/z + ... + 1/(x-1) with z in [1.5, 2.5)
        var z = x;
        var s = 0.0;
        loop {
            if (z < 2.5) { break; }
            z = z - 1.0;
            s = s + 1.0 / z;
        }
        return wa_digamma2p_series(z - 2.0) + s;
    }
    // the asymptotic series: log x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - ...
    let r = 1.0 / x;
    let r2 = r * r;
    return wa_log(x) - (0.5 * r + r2 * (1.0 / 12.0 - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0
        - r2 * (1.0 / 240.0 - r2 * (1.0 / 132.0))))));
}""")
# digamma as SciPy's psi: -inf at +0, +inf at -0, NaN at the negative integers and -inf
_def("""
fn wa_digamma(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (wa_isinf(x)) { return select(wa_nan(), x, x > 0.0); }
    if (wa_is_zero(x)) { return select(-wa_inf(), wa_inf(), bitcast<u32>(x) != 0u); }
    if (x < 0.0 && floor(x) == x) { return wa_nan(); }
    if (x > 0.0) { return wa_digamma_pos(x); }
    // reflection: digamma(x) = digamma(1 - x) - pi cot(pi x)
    return wa_digamma_pos(1.0 - x) - 3.14159265358979 * wa_cospi(x) / wa_sinpi(x);
}""")
# K(x) = x + (1/2)/(x + 1/(x + (3/2)/(x + ...))) for x >= 1/2, where
# erfc(x) = e^(-x^2) / (sqrt(pi) K(x)): the continued fraction from its n-th term back, n
# enough for 2^-25 (256 terms at x = 1/2, 16 from x = 2 on)
_def("""
fn wa_erfc_k(x: f32) -> f32 {
    var n = 16.0;
    if (x < 2.0) { n = 32.0; }
    if (x < 1.5) { n = 64.0; }
    if (x < 1.0) { n = 128.0; }
    if (x < 0.75) { n = 256.0; }
    var t = x;
    loop {
        if (n < 0.5) { break; }
        t = x + (0.5 * n) / t;
        n = n - 1.0;
    }
    return t;
}""")
# e^(-x^2) with x^2 split exactly (x^2 rounded would be off by up to x^2 2^-24)
_def("""
fn wa_exp_msq(x: f32) -> f32 {
    let p = wa_two_prod(x, x);
    return wa_exp(-p.x) * (1.0 - p.y);
}""")
_def("""
fn wa_erfc_pos(a: f32) -> f32 {
    if (a > 10.5) { return 0.0; }
    return wa_exp_msq(a) / (1.7724538509055159 * wa_erfc_k(a));
}""")
_def("""
fn wa_erfc(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (abs(x) < 0.5) { return 1.0 - wa_erf_series(x); }
    let c = wa_erfc_pos(abs(x));
    return select(c, 2.0 - c, x < 0.0);
}""")
_def("""
fn wa_erf(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (abs(x) < 0.5) { return wa_erf_series(x); }
    return wa_copysign(1.0 - wa_erfc_pos(abs(x)), x);
}""")
_def("""
fn wa_erfcx(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (x >= 0.5) {
        if (wa_isinf(x)) { return 0.0; }
        // K(x) = x (1 + 1/(2x^2) + ...): past 2^60 x itself, whose sqrt(pi) x overflows
        if (x > 1e18) { return 0.5641895835477563 / x; }
        return 1.0 / (1.7724538509055159 * wa_erfc_k(x));
    }
    if (x < -9.5) { return wa_inf(); }
    let p = wa_two_prod(abs(x), abs(x));
    let e = wa_exp(p.x) * (1.0 + p.y);
    if (x > -0.5) { return e * (1.0 - wa_erf_series(x)); }
    return e * (2.0 - wa_erfc_pos(-x));
}""")
# x with erf(x) = y for |y| <= 0.53: Halley steps on erf(x) - y from its series' start
_def("""
fn wa_erfinv_small(y: f32) -> f32 {
    var x = 0.886226925452758 * y * (1.0 + 0.2617993877991494 * y * y);
    for (var k = 0; k < 3; k++) {
        let f = wa_erf(x) - y;
        let d = 1.1283791670955126 * wa_exp_msq(abs(x));
        x = x - f / (d + x * f);
    }
    return x;
}""")
# x > 1/2 with erfc(x) = q for 0 < q < 0.4795: Newton steps on log erfc(x) = log q, where
# log erfc(x) = -x^2 - log(sqrt(pi) K(x)) has the derivative -2 K(x), from the asymptotic
# start x^2 = -log(q sqrt(pi) x)
_def("""
fn wa_erfcinv_tail(q: f32) -> f32 {
    let lq = wa_log(q);
    var x = sqrt(-lq);
    x = sqrt(max(-lq - wa_log(1.7724538509055159 * x), 0.25));
    for (var k = 0; k < 5; k++) {
        x = max(x, 0.5);
        let kx = wa_erfc_k(x);
        let p = wa_two_prod(x, x);
        let g = ((-lq - p.x) - p.y) - wa_log(1.7724538509055159 * kx);
        x = x + g / (2.0 * kx);
    }
    return x;
}""")
_def("""
fn wa_erfinv(y: f32) -> f32 {
    if (wa_isnan(y) || abs(y) > 1.0) { return wa_nan(); }
    let a = abs(y);
    if (a == 1.0) { return wa_copysign(wa_inf(), y); }
    if (a <= 0.5205) { return wa_erfinv_small(y); }
    return wa_copysign(wa_erfcinv_tail(1.0 - a), y);
}""")
_def("""
fn wa_erfcinv(q: f32) -> f32 {
    if (wa_isnan(q) || q < 0.0 || q > 2.0) { return wa_nan(); }
    if (q == 0.0) { return wa_inf(); }
    if (q == 2.0) { return -wa_inf(); }
    if (q >= 0.4795 && q <= 1.5205) { return wa_erfinv_small(1.0 - q); }
    if (q < 0.4795) { return wa_erfcinv_tail(q); }
    return -wa_erfcinv_tail(2.0 - q);
}""")
# normcdf(x) = erfc(-x / sqrt(2)) / 2, the argument as hi + lo (1/sqrt(2) in two floats)
# and erfc(hi + lo) = erfc(hi) - lo (2 / sqrt(pi)) e^(-hi^2) to first order
_def("""
fn wa_normcdf(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (abs(x) > 40.0) { return select(0.0, 1.0, x > 0.0); }
    let p = wa_two_prod(x, 0.70710676908493042);
    let hi = -p.x;
    let lo = -(p.y + x * 1.2101617152815436e-08);
    return 0.5 * (wa_erfc(hi) - lo * 1.1283791670955126 * wa_exp_msq(abs(hi)));
}""")
_def("fn wa_normcdfinv(p: f32) -> f32 { return -1.4142135623730951 * wa_erfcinv(2.0 * p); }")

_CALL = re.compile(r"\bwa_\w+")


def helpers_for(code: str) -> str:
    """Source of every helper that ``code`` uses, dependencies first."""
    ordered: list[str] = []

    def need(name: str) -> None:
        if name in ordered:
            return
        src = LIB[name]
        for dep in _CALL.findall(src.split("{", 1)[1]):
            if dep != name:
                need(dep)
        ordered.append(name)

    for name in sorted(set(_CALL.findall(code))):
        need(name)
    return "".join(LIB[n] for n in ordered)
