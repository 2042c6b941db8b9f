"""WGSL helper functions that op-table expressions call.

WGSL leaves NaN and infinity handling of most builtins undefined, and several builtins are
undefined outside their domain (log of a negative, acos above 1, pow of a negative base),
so every such op goes through a helper that applies the standard's special cases explicitly
and tests NaN by its bits. Helpers name their dependencies simply by calling them;
``helpers_for`` pulls in the transitive closure.
"""

from __future__ import annotations

import re

LIB: dict[str, str] = {}


def _def(src: str) -> None:
    name = re.match(r"\s*fn (wa_\w+)", src).group(1)
    LIB[name] = src.strip() + "\n"


# -- constants and classification --------------------------------------------------------
_def("fn wa_nan() -> f32 { return bitcast<f32>(0x7fc00000u); }")
_def("fn wa_inf() -> f32 { return bitcast<f32>(0x7f800000u); }")
_def("fn wa_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }")
_def("fn wa_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }")
_def("fn wa_isfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u; }")
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
_def("""
fn wa_sign_f(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (x > 0.0) { return 1.0; }
    if (x < 0.0) { return -1.0; }
    return 0.0;
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
_def("""
fn wa_floordiv_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    if (b == 0.0 || wa_isinf(a) || wa_isinf(b)) {
        let q = a / b;
        if (wa_isinf(b) && wa_isfinite(a)) {
            if (a == 0.0 || (a < 0.0) == (b < 0.0)) { return wa_copysign(0.0, q); }
            return -1.0;
        }
        return q;
    }
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
_def("""
fn wa_is_odd_int(y: f32) -> bool {
    if (!wa_isfinite(y) || abs(y) >= 16777216.0 || trunc(y) != y) { return false; }
    return (i32(y) & 1) != 0;
}""")
# C99 pow: y == 0 gives 1 even for NaN x, x == 1 gives 1 even for NaN y, and so on.
_def("""
fn wa_pow_f(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) { return 1.0; }
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    let ax = abs(x);
    if (wa_isinf(y)) {
        if (ax == 1.0) { return 1.0; }
        if ((ax > 1.0) == (y > 0.0)) { return wa_inf(); }
        return 0.0;
    }
    let odd = wa_is_odd_int(y);
    if (x == 0.0) {
        if (y > 0.0) { return select(0.0, x, odd); }
        return select(wa_inf(), wa_copysign(wa_inf(), x), odd);
    }
    if (wa_isinf(x)) {
        if (x > 0.0) { return select(0.0, wa_inf(), y > 0.0); }
        if (y > 0.0) { return select(wa_inf(), -wa_inf(), odd); }
        return select(0.0, -0.0, odd);
    }
    if (x < 0.0 && trunc(y) != y) { return wa_nan(); }
    let r = exp2(y * log2(ax));
    return select(r, -r, x < 0.0 && odd);
}""")

# -- roots, exponentials, logarithms ---------------------------------------------------------
_def("""
fn wa_sqrt(x: f32) -> f32 {
    if (x < 0.0) { return wa_nan(); }
    if (x == 0.0 || wa_isnan(x) || wa_isinf(x)) { return x; }
    return sqrt(x);
}""")
_def("""
fn wa_exp(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (x > 88.72284) { return wa_inf(); }
    if (x < -103.97908) { return 0.0; }
    return exp(x);
}""")
_def("""
fn wa_log(x: f32) -> f32 {
    if (wa_isnan(x) || x < 0.0) { return wa_nan(); }
    if (x == 0.0) { return -wa_inf(); }
    if (wa_isinf(x)) { return x; }
    return log(x);
}""")
_def("""
fn wa_log2(x: f32) -> f32 {
    if (wa_isnan(x) || x < 0.0) { return wa_nan(); }
    if (x == 0.0) { return -wa_inf(); }
    if (wa_isinf(x)) { return x; }
    return log2(x);
}""")
_def("""
fn wa_log10(x: f32) -> f32 {
    return wa_log2(x) * 0.30102999566398120;
}""")
# log1p and expm1 by the classic correction that cancels the rounding error of 1 + x.
_def("""
fn wa_log1p(x: f32) -> f32 {
    if (wa_isnan(x) || x < -1.0) { return wa_nan(); }
    if (x == -1.0) { return -wa_inf(); }
    if (wa_isinf(x)) { return x; }
    let u = 1.0 + x;
    if (u == 1.0) { return x; }
    return log(u) * (x / (u - 1.0));
}""")
_def("""
fn wa_expm1(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    if (x > 88.72284) { return wa_inf(); }
    if (x < -17.0) { return -1.0; }
    if (abs(x) < 1e-5) { return x + 0.5 * x * x; }
    let u = exp(x);
    if (u == 1.0) { return x; }
    let um1 = u - 1.0;
    if (um1 == -1.0) { return -1.0; }
    return um1 * (x / log(u));
}""")
_def("""
fn wa_logaddexp(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    if (a == b) { return a + 0.69314718055994531; }
    let m = max(a, b);
    if (wa_isinf(m)) { return m; }
    return m + wa_log1p(exp(-abs(a - b)));
}""")
_def("""
fn wa_hypot(a: f32, b: f32) -> f32 {
    if (wa_isinf(a) || wa_isinf(b)) { return wa_inf(); }
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    let x = abs(a);
    let y = abs(b);
    let m = max(x, y);
    if (m == 0.0) { return 0.0; }
    let r = min(x, y) / m;
    return m * sqrt(1.0 + r * r);
}""")
_def("""
fn wa_nextafter(x: f32, y: f32) -> f32 {
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    if (x == y) { return y; }
    if (x == 0.0) { return wa_copysign(bitcast<f32>(1u), y); }
    let ux = bitcast<u32>(x);
    let away = (x < y) == (x > 0.0);
    return bitcast<f32>(select(ux - 1u, ux + 1u, away));
}""")

# -- trigonometric -----------------------------------------------------------------------
_def("""
fn wa_sin(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    if (x == 0.0) { return x; }
    return sin(x);
}""")
_def("""
fn wa_cos(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    return cos(x);
}""")
_def("""
fn wa_tan(x: f32) -> f32 {
    if (!wa_isfinite(x)) { return wa_nan(); }
    if (x == 0.0) { return x; }
    return tan(x);
}""")
_def("""
fn wa_asin(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    if (x == 0.0) { return x; }
    return asin(x);
}""")
_def("""
fn wa_acos(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    return acos(x);
}""")
_def("""
fn wa_atan2(y: f32, x: f32) -> f32 {
    if (wa_isnan(x) || wa_isnan(y)) { return wa_nan(); }
    let pi = 3.14159265358979323846;
    if (y == 0.0) {
        if (x > 0.0 || (x == 0.0 && (bitcast<u32>(x) >> 31u) == 0u)) { return y; }
        return wa_copysign(pi, y);
    }
    if (wa_isinf(y)) {
        if (wa_isinf(x)) {
            return wa_copysign(select(0.75 * pi, 0.25 * pi, x > 0.0), y);
        }
        return wa_copysign(0.5 * pi, y);
    }
    if (x == 0.0) { return wa_copysign(0.5 * pi, y); }
    if (wa_isinf(x)) {
        return select(wa_copysign(pi, y), wa_copysign(0.0, y), x > 0.0);
    }
    return atan2(y, x);
}""")

# -- hyperbolic (through expm1 and log1p, so small arguments keep their digits) --------------
_def("""
fn wa_sinh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0 || wa_isinf(x)) { return x; }
    let a = abs(x);
    var r: f32;
    if (a > 89.0) {
        let h = exp(0.5 * a);
        r = (0.5 * h) * h;
    } else {
        let u = wa_expm1(a);
        r = 0.5 * (u + u / (u + 1.0));
    }
    return wa_copysign(r, x);
}""")
_def("""
fn wa_cosh(x: f32) -> f32 {
    if (wa_isnan(x)) { return x; }
    let a = abs(x);
    if (wa_isinf(a)) { return a; }
    if (a > 89.0) {
        let h = exp(0.5 * a);
        return (0.5 * h) * h;
    }
    let e = exp(a);
    return 0.5 * (e + 1.0 / e);
}""")
_def("""
fn wa_tanh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0) { return x; }
    let a = abs(x);
    if (a > 9.1) { return wa_copysign(1.0, x); }
    let u = wa_expm1(2.0 * a);
    return wa_copysign(u / (u + 2.0), x);
}""")
_def("""
fn wa_asinh(x: f32) -> f32 {
    if (wa_isnan(x) || x == 0.0 || wa_isinf(x)) { return x; }
    let a = abs(x);
    var r: f32;
    if (a > 1e18) {
        r = log(a) + 0.69314718055994531;
    } else {
        let a2 = a * a;
        r = wa_log1p(a + a2 / (1.0 + sqrt(1.0 + a2)));
    }
    return wa_copysign(r, x);
}""")
_def("""
fn wa_acosh(x: f32) -> f32 {
    if (wa_isnan(x) || x < 1.0) { return wa_nan(); }
    if (wa_isinf(x)) { return x; }
    if (x > 1e18) { return log(x) + 0.69314718055994531; }
    let t = x - 1.0;
    return wa_log1p(t + sqrt(2.0 * t + t * t));
}""")
_def("""
fn wa_atanh(x: f32) -> f32 {
    if (wa_isnan(x) || abs(x) > 1.0) { return wa_nan(); }
    if (x == 0.0) { return x; }
    if (abs(x) == 1.0) { return wa_copysign(wa_inf(), x); }
    let a = abs(x);
    return wa_copysign(0.5 * wa_log1p(2.0 * a / (1.0 - a)), x);
}""")

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
