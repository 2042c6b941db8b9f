"""WGSL helpers for int64 and uint64, held as ``vec2<u32>`` (x = low word, y = high word).

WGSL has no 64-bit integers, so every operation is written on two's-complement word
pairs: carries for addition, a 16-bit split for the 32x32->64 product, bit-serial long
division, and correctly rounded conversion to float32. Semantics follow NumPy: arithmetic
wraps modulo 2^64, division and remainder by zero give 0, shifts by 64 or more give 0
(or -1 for a negative signed right shift), floor division rounds toward -inf.
"""

from __future__ import annotations

from .wgsl_lib import _def

# -- construction and comparison --------------------------------------------------------------
_def("fn wa_i64_from_i32(v: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0)); }")
_def("fn wa_eq64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }")
_def("fn wa_isneg64(a: vec2<u32>) -> bool { return (a.y >> 31u) == 1u; }")
_def("""
fn wa_lt_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}""")
_def("""
fn wa_lt_i64(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}""")
_def("fn wa_max_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, wa_lt_i64(a, b)); }")
_def("fn wa_min_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, wa_lt_i64(b, a)); }")
_def("fn wa_max_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, wa_lt_u64(a, b)); }")
_def("fn wa_min_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, wa_lt_u64(b, a)); }")

# -- arithmetic ------------------------------------------------------------------------------
_def("""
fn wa_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}""")
_def("""
fn wa_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}""")
_def("fn wa_neg64(a: vec2<u32>) -> vec2<u32> { return wa_sub64(vec2<u32>(0u, 0u), a); }")
_def("fn wa_abs_i64(a: vec2<u32>) -> vec2<u32> { return select(a, wa_neg64(a), wa_isneg64(a)); }")
_def("""
fn wa_mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = wa_mulwide32(a.x, b.x);
    return vec2<u32>(r.x, r.y + a.x * b.y + a.y * b.x);
}""")
# unsigned quotient (xy) and remainder (zw); x / 0 gives 0 remainder 0
_def("""
fn wa_divmod_u64(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    if (b.x == 0u && b.y == 0u) { return vec4<u32>(0u, 0u, 0u, 0u); }
    if (a.y == 0u && b.y == 0u) { return vec4<u32>(a.x / b.x, 0u, a.x % b.x, 0u); }
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63; i >= 0; i = i - 1) {
        let word = select(a.x, a.y, i >= 32);
        let bit = (word >> u32(i & 31)) & 1u;
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (!wa_lt_u64(r, b)) {
            r = wa_sub64(r, b);
            if (i >= 32) { q.y = q.y | (1u << u32(i - 32)); } else { q.x = q.x | (1u << u32(i)); }
        }
    }
    return vec4<u32>(q, r);
}""")
_def("""
fn wa_floordiv_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (b.x == 0u && b.y == 0u) { return vec2<u32>(0u, 0u); }
    let qr = wa_divmod_u64(wa_abs_i64(a), wa_abs_i64(b));
    var q = qr.xy;
    if (wa_isneg64(a) != wa_isneg64(b)) {
        q = wa_neg64(q);
        if (qr.z != 0u || qr.w != 0u) { q = wa_sub64(q, vec2<u32>(1u, 0u)); }
    }
    return q;
}""")
_def("""
fn wa_rem_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (b.x == 0u && b.y == 0u) { return vec2<u32>(0u, 0u); }
    var r = wa_divmod_u64(wa_abs_i64(a), wa_abs_i64(b)).zw;
    if (wa_isneg64(a)) { r = wa_neg64(r); }
    if ((r.x != 0u || r.y != 0u) && wa_isneg64(r) != wa_isneg64(b)) { r = wa_add64(r, b); }
    return r;
}""")
_def("fn wa_div_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_divmod_u64(a, b).xy; }")
_def("fn wa_rem_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_divmod_u64(a, b).zw; }")
_def("""
fn wa_pow_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    var r = vec2<u32>(1u, 0u);
    var base = a;
    var e = b;
    loop {
        if (e.x == 0u && e.y == 0u) { break; }
        if ((e.x & 1u) != 0u) { r = wa_mul64(r, base); }
        base = wa_mul64(base, base);
        e = vec2<u32>((e.x >> 1u) | (e.y << 31u), e.y >> 1u);
    }
    return r;
}""")
_def("""
fn wa_pow_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_isneg64(b)) {
        if (a.x == 1u && a.y == 0u) { return a; }
        if (a.x == 0xffffffffu && a.y == 0xffffffffu) {
            return select(vec2<u32>(1u, 0u), a, (b.x & 1u) != 0u);
        }
        return vec2<u32>(0u, 0u);
    }
    return wa_pow_u64(a, b);
}""")
_def("""
fn wa_sign_i64(a: vec2<u32>) -> vec2<u32> {
    if (wa_isneg64(a)) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
    return vec2<u32>(select(0u, 1u, a.x != 0u || a.y != 0u), 0u);
}""")
_def("fn wa_sign_u64(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(select(0u, 1u, a.x != 0u || a.y != 0u), 0u); }")

# -- shifts: the count is itself a 64-bit value; 64 or more (or negative) saturates ---------
_def("fn wa_shift_count(s: vec2<u32>) -> u32 { return select(s.x, 64u, s.y != 0u || s.x > 64u); }")
_def("""
fn wa_shl64(a: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    let s = wa_shift_count(c);
    if (s >= 64u) { return vec2<u32>(0u, 0u); }
    if (s >= 32u) { return vec2<u32>(0u, a.x << (s - 32u)); }
    if (s == 0u) { return a; }
    return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}""")
_def("""
fn wa_shr_u64(a: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    let s = wa_shift_count(c);
    if (s >= 64u) { return vec2<u32>(0u, 0u); }
    if (s >= 32u) { return vec2<u32>(a.y >> (s - 32u), 0u); }
    if (s == 0u) { return a; }
    return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}""")
_def("""
fn wa_shr_i64(a: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    let s = min(wa_shift_count(c), 63u);
    let fill = select(0u, 0xffffffffu, wa_isneg64(a));
    if (s >= 32u) { return vec2<u32>(bitcast<u32>(bitcast<i32>(a.y) >> (s - 32u)), fill); }
    if (s == 0u) { return a; }
    return vec2<u32>((a.x >> s) | (a.y << (32u - s)), bitcast<u32>(bitcast<i32>(a.y) >> s));
}""")

# -- conversions -----------------------------------------------------------------------------
# Correctly rounded (to nearest, ties to even): keep the top 24 significant bits, round on
# the next bit with everything below it as the sticky bit.
_def("""
fn wa_u64_to_f32(a: vec2<u32>) -> f32 {
    if (a.y == 0u) { return f32(a.x); }
    let lz = countLeadingZeros(a.y);
    let top = (a.y << lz) | select(0u, a.x >> (32u - lz), lz > 0u);
    let rest = select(a.x, a.x << lz, lz > 0u);
    var m = top >> 8u;
    let round_bit = (top >> 7u) & 1u;
    let sticky = (top & 0x7fu) != 0u || (lz > 0u && rest != 0u) || (lz == 0u && a.x != 0u);
    if (round_bit == 1u && (sticky || (m & 1u) == 1u)) { m = m + 1u; }
    return wa_ldexp(f32(m), i32(40u - lz));
}""")
_def("""
fn wa_i64_to_f32(a: vec2<u32>) -> f32 {
    if (wa_isneg64(a)) { return -wa_u64_to_f32(wa_neg64(a)); }
    return wa_u64_to_f32(a);
}""")
# float32 to int64 truncates toward zero; out-of-range values saturate (the standard leaves
# them unspecified), NaN gives 0.
_def("""
fn wa_f32_to_i64(x: f32) -> vec2<u32> {
    if (wa_isnan(x)) { return vec2<u32>(0u, 0u); }
    let t = trunc(abs(x));
    var m: vec2<u32>;
    if (t >= 9223372036854775808.0) {
        m = vec2<u32>(0xffffffffu, 0x7fffffffu);
        if (x < 0.0) { return vec2<u32>(0u, 0x80000000u); }
        return m;
    }
    let hi = floor(t / 4294967296.0);
    m = vec2<u32>(u32(t - hi * 4294967296.0), u32(hi));
    return select(m, wa_neg64(m), x < 0.0);
}""")
