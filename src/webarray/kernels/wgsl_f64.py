"""WGSL helpers for float64 in software: IEEE 754 binary64 held as ``vec2<u32>`` of its bits.

Neither WGSL nor GLSL ES 3.00 has a 64-bit float, so a float64 travels as its IEEE bit
pattern in two words (x = low 32 bits, y = high 32 bits: sign, 11-bit exponent, top 20
fraction bits) and every operation is integer arithmetic on those words. No f32 arithmetic
is used: devices may flush f32 subnormals (SwiftShader does), and that would leak into the
results. Every result is correctly rounded (to nearest, ties to even) with gradual
underflow, ±0, ±inf and NaN as IEEE 754 says, so results are bit-identical to NumPy's
float64; tests/test_f64_soft.py checks that bit for bit.

The structure is Berkeley SoftFloat's, written here for word pairs: a significand is a
64-bit ``vec2<u32>`` with its leading bit at bit 62 and 10 bits below the float64's last
one (``wa_f64_round_pack`` rounds on them, a sticky bit ORed into bit 0 standing for every
bit shifted out, ``wa_f64_shr_jam``); ``exp`` is then the biased exponent minus one, so that
packing *adds* the significand's leading bit into the exponent field and a rounding carry
or a subnormal that rounds up to the smallest normal needs no special case.

NaN results follow x86 (SSE2), which NumPy's float64 on x86 gives: a NaN operand comes back
quieted, the first one if both are NaN; an invalid operation (inf - inf, 0 * inf, 0 / 0,
inf / inf, sqrt of a negative) gives the default NaN 0xFFF8000000000000. ``wa_f64_max`` and
``wa_f64_min`` return the NaN operand itself, as np.maximum does. Conversions to integers
truncate; NaN and out-of-range values give what NumPy gives on x86 (see each helper).
``wa_f64_rem`` and ``wa_f64_floordiv`` are NumPy's npy_divmod step by step on these
correctly rounded operations, so they match np.remainder and np.floor_divide bit for bit;
``wa_f64_fma`` rounds once.

Loops. Division and square root are bit-serial, 54 steps written out 9 to a loop pass (6
passes); ``wa_f64_fmod`` takes one step per bit of exponent difference, up to 2,098 steps,
16 to a pass (at most 146 passes). Mesa's llvmpipe gives a SIMD group of a shader run
65,535 loop passes in all and silently ends loops beyond them (``shader/emit.py``
explains), so an invocation there may run about 9,000 divisions or square roots, or 480
remainders of the widest operands (measured on lavapipe: 484 ran, 490 did not; with one
step per pass, 31 and 32); one per element is far inside it.
"""

from __future__ import annotations

from .wgsl_lib import _def

# steps of the bit-serial loops written out per pass: 6 passes of 9 for the 54 bits of a
# quotient or a root, 16 per pass for fmod
UNROLL = 9


def _steps(step: str, n: int) -> str:
    """``step`` written ``n`` times, ``{j}`` replaced by its index."""
    return "".join(step.replace("{j}", str(j)) for j in range(n))


# -- word-pair plumbing: shifts (counts below 64 unless said), leading zeros, 128-bit product
_def("fn wa_f64_is0(a: vec2<u32>) -> bool { return a.x == 0u && a.y == 0u; }")
_def("fn wa_f64_shl1(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x << 1u, (a.y << 1u) | (a.x >> 31u)); }")
_def("fn wa_f64_clz64(a: vec2<u32>) -> u32 { return select(countLeadingZeros(a.y), 32u + countLeadingZeros(a.x), a.y == 0u); }")
_def("""
fn wa_f64_shl(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) { return a; }
    if (n >= 32u) { return vec2<u32>(0u, a.x << (n - 32u)); }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}""")
_def("""
fn wa_f64_shr(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) { return a; }
    if (n >= 32u) { return vec2<u32>(a.y >> (n - 32u), 0u); }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}""")
# a >> n for any n, with every bit shifted out ORed into bit 0 (the sticky bit)
_def("""
fn wa_f64_shr_jam(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) { return a; }
    if (n >= 64u) { return vec2<u32>(select(0u, 1u, !wa_f64_is0(a)), 0u); }
    let r = wa_f64_shr(a, n);
    let back = wa_f64_shl(r, n);
    return vec2<u32>(r.x | select(0u, 1u, back.x != a.x || back.y != a.y), r.y);
}""")
# the 128-bit product of two 64-bit values, low word first
_def("""
fn wa_f64_mul128(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let p00 = wa_mulwide32(a.x, b.x);
    let p01 = wa_mulwide32(a.x, b.y);
    let p10 = wa_mulwide32(a.y, b.x);
    let p11 = wa_mulwide32(a.y, b.y);
    let w1a = p00.y + p01.x;
    let w1 = w1a + p10.x;
    let carry = select(0u, 1u, w1a < p01.x) + select(0u, 1u, w1 < p10.x);
    let hi = wa_add64(wa_add64(p11, vec2<u32>(p01.y, 0u)), wa_add64(vec2<u32>(p10.y, 0u), vec2<u32>(carry, 0u)));
    return vec4<u32>(p00.x, w1, hi.x, hi.y);
}""")

# -- fields, special values and NaN propagation ---------------------------------------------
_def("fn wa_f64_biased_exp(a: vec2<u32>) -> i32 { return i32((a.y >> 20u) & 0x7ffu); }")
_def("fn wa_f64_frac(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x, a.y & 0xfffffu); }")
_def("fn wa_f64_default_nan() -> vec2<u32> { return vec2<u32>(0u, 0xfff80000u); }")
_def("fn wa_f64_inf(sign: u32) -> vec2<u32> { return vec2<u32>(0u, (sign << 31u) | 0x7ff00000u); }")
_def("fn wa_f64_zero(sign: u32) -> vec2<u32> { return vec2<u32>(0u, sign << 31u); }")
_def("fn wa_f64_quiet(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x, a.y | 0x00080000u); }")
# x86's rule: the first NaN operand, quieted
_def("""
fn wa_f64_nan_of(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return wa_f64_quiet(select(b, a, wa_f64_isnan(a)));
}""")
# sign, exponent field (biased, minus one where sig has its leading bit) and significand,
# added: the significand's leading bit and any rounding carry land in the exponent field
_def("""
fn wa_f64_pack(sign: u32, e: i32, sig: vec2<u32>) -> vec2<u32> {
    return wa_add64(vec2<u32>(0u, (sign << 31u) + (u32(e) << 20u)), sig);
}""")
# sig has its leading bit at bit 62 (or lower for results on their way to a subnormal),
# with 10 bits below the last kept one: round to nearest even, underflow gradually,
# overflow to infinity
_def("""
fn wa_f64_round_pack(sign: u32, e_in: i32, sig_in: vec2<u32>) -> vec2<u32> {
    var e = e_in;
    var sig = sig_in;
    if (e < 0) {
        sig = wa_f64_shr_jam(sig, u32(-e));
        e = 0;
    } else if (e > 0x7fd || (e == 0x7fd && (sig.y > 0x7fffffffu || (sig.y == 0x7fffffffu && sig.x >= 0xfffffe00u)))) {
        return wa_f64_inf(sign);
    }
    let round_bits = sig.x & 0x3ffu;
    sig = wa_add64(sig, vec2<u32>(0x200u, 0u));
    var m = vec2<u32>((sig.x >> 10u) | (sig.y << 22u), sig.y >> 10u);
    if (round_bits == 0x200u) { m.x = m.x & 0xfffffffeu; }
    if (wa_f64_is0(m)) { e = 0; }
    return wa_f64_pack(sign, e, m);
}""")
# as wa_f64_round_pack for a sig with its leading bit anywhere (zero allowed)
_def("""
fn wa_f64_norm_round_pack(sign: u32, e_in: i32, sig: vec2<u32>) -> vec2<u32> {
    let shift = i32(wa_f64_clz64(sig)) - 1;
    let e = e_in - shift;
    if (shift >= 10 && e >= 0 && e < 0x7fd) {
        return wa_f64_pack(sign, select(e, 0, wa_f64_is0(sig)), wa_f64_shl(sig, u32(shift - 10)));
    }
    return wa_f64_round_pack(sign, e, wa_f64_shl(sig, u32(shift)));
}""")
# a subnormal's fraction (nonzero) normalized to a leading bit at 52: (fraction, exponent)
_def("""
fn wa_f64_norm_sub(frac: vec2<u32>) -> vec3<u32> {
    let shift = wa_f64_clz64(frac) - 11u;
    let s = wa_f64_shl(frac, shift);
    return vec3<u32>(s.x, s.y, bitcast<u32>(1 - i32(shift)));
}""")

# -- classification and comparison ----------------------------------------------------------
_def("""
fn wa_f64_isnan(a: vec2<u32>) -> bool {
    let h = a.y & 0x7fffffffu;
    return h > 0x7ff00000u || (h == 0x7ff00000u && a.x != 0u);
}""")
_def("fn wa_f64_isinf(a: vec2<u32>) -> bool { return (a.y & 0x7fffffffu) == 0x7ff00000u && a.x == 0u; }")
_def("fn wa_f64_isfinite(a: vec2<u32>) -> bool { return (a.y & 0x7fffffffu) < 0x7ff00000u; }")
_def("fn wa_f64_signbit(a: vec2<u32>) -> bool { return (a.y >> 31u) == 1u; }")
_def("fn wa_f64_neg(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x, a.y ^ 0x80000000u); }")
_def("fn wa_f64_abs(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x, a.y & 0x7fffffffu); }")
_def("""
fn wa_f64_copysign(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x, (a.y & 0x7fffffffu) | (b.y & 0x80000000u));
}""")
_def("""
fn wa_f64_both_zero(a: vec2<u32>, b: vec2<u32>) -> bool {
    return ((a.y | b.y) & 0x7fffffffu) == 0u && (a.x | b.x) == 0u;
}""")
_def("""
fn wa_f64_eq(a: vec2<u32>, b: vec2<u32>) -> bool {
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return false; }
    return (a.x == b.x && a.y == b.y) || wa_f64_both_zero(a, b);
}""")
_def("""
fn wa_f64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return false; }
    let sa = a.y >> 31u;
    if (sa != (b.y >> 31u)) { return sa == 1u && !wa_f64_both_zero(a, b); }
    if (sa == 1u) { return wa_lt_u64(b, a); }
    return wa_lt_u64(a, b);
}""")
_def("fn wa_f64_le(a: vec2<u32>, b: vec2<u32>) -> bool { return wa_f64_eq(a, b) || wa_f64_lt(a, b); }")
# np.maximum / np.minimum: a NaN operand comes back as it is (the first if both are NaN);
# of two equal values (+0 and -0 among them) the second
_def("""
fn wa_f64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(a)) { return a; }
    return select(b, a, wa_f64_lt(b, a));
}""")
_def("""
fn wa_f64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(a)) { return a; }
    return select(b, a, wa_f64_lt(a, b));
}""")

# -- addition and subtraction: magnitudes added (same signs) or subtracted (opposite) ------
_def("""
fn wa_f64_add_mags(a: vec2<u32>, b: vec2<u32>, sign: u32) -> vec2<u32> {
    let ea = wa_f64_biased_exp(a);
    let eb = wa_f64_biased_exp(b);
    var sa = wa_f64_frac(a);
    var sb = wa_f64_frac(b);
    let d = ea - eb;
    if (d == 0) {
        // two subnormals (or zeros) add exactly; a carry makes the smallest normal
        if (ea == 0) { return wa_add64(a, sb); }
        if (ea == 0x7ff) {
            if (!wa_f64_is0(sa) || !wa_f64_is0(sb)) { return wa_f64_nan_of(a, b); }
            return a;
        }
        return wa_f64_round_pack(sign, ea, wa_f64_shl(wa_add64(vec2<u32>(0u, 0x200000u), wa_add64(sa, sb)), 9u));
    }
    sa = wa_f64_shl(sa, 9u);
    sb = wa_f64_shl(sb, 9u);
    var ez: i32;
    if (d < 0) {
        if (eb == 0x7ff) {
            if (!wa_f64_is0(sb)) { return wa_f64_nan_of(a, b); }
            return wa_f64_inf(sign);
        }
        ez = eb;
        sa = select(wa_f64_shl(sa, 1u), wa_add64(sa, vec2<u32>(0u, 0x20000000u)), ea != 0);
        sa = wa_f64_shr_jam(sa, u32(-d));
    } else {
        if (ea == 0x7ff) {
            if (!wa_f64_is0(sa)) { return wa_f64_nan_of(a, b); }
            return a;
        }
        ez = ea;
        sb = select(wa_f64_shl(sb, 1u), wa_add64(sb, vec2<u32>(0u, 0x20000000u)), eb != 0);
        sb = wa_f64_shr_jam(sb, u32(d));
    }
    var z = wa_add64(wa_add64(vec2<u32>(0u, 0x20000000u), sa), sb);
    if (z.y < 0x40000000u) {
        ez = ez - 1;
        z = wa_f64_shl(z, 1u);
    }
    return wa_f64_round_pack(sign, ez, z);
}""")
_def("""
fn wa_f64_sub_mags(a: vec2<u32>, b: vec2<u32>, sign_a: u32) -> vec2<u32> {
    var sign = sign_a;
    let ea = wa_f64_biased_exp(a);
    let eb = wa_f64_biased_exp(b);
    var sa = wa_f64_frac(a);
    var sb = wa_f64_frac(b);
    let d = ea - eb;
    if (d == 0) {
        if (ea == 0x7ff) {
            if (!wa_f64_is0(sa) || !wa_f64_is0(sb)) { return wa_f64_nan_of(a, b); }
            return wa_f64_default_nan();
        }
        // equal exponents: the difference is exact
        if (sa.x == sb.x && sa.y == sb.y) { return vec2<u32>(0u, 0u); }
        var diff: vec2<u32>;
        if (wa_lt_u64(sa, sb)) {
            sign = sign ^ 1u;
            diff = wa_sub64(sb, sa);
        } else {
            diff = wa_sub64(sa, sb);
        }
        let e = select(ea, ea - 1, ea != 0);
        var shift = i32(wa_f64_clz64(diff)) - 11;
        var ez = e - shift;
        if (ez < 0) {
            shift = e;
            ez = 0;
        }
        return wa_f64_pack(sign, ez, wa_f64_shl(diff, u32(shift)));
    }
    sa = wa_f64_shl(sa, 10u);
    sb = wa_f64_shl(sb, 10u);
    var ez: i32;
    var z: vec2<u32>;
    if (d < 0) {
        sign = sign ^ 1u;
        if (eb == 0x7ff) {
            if (!wa_f64_is0(sb)) { return wa_f64_nan_of(a, b); }
            return wa_f64_inf(sign);
        }
        sa = select(wa_f64_shl(sa, 1u), wa_add64(sa, vec2<u32>(0u, 0x40000000u)), ea != 0);
        sa = wa_f64_shr_jam(sa, u32(-d));
        ez = eb;
        z = wa_sub64(wa_add64(sb, vec2<u32>(0u, 0x40000000u)), sa);
    } else {
        if (ea == 0x7ff) {
            if (!wa_f64_is0(sa)) { return wa_f64_nan_of(a, b); }
            return a;
        }
        sb = select(wa_f64_shl(sb, 1u), wa_add64(sb, vec2<u32>(0u, 0x40000000u)), eb != 0);
        sb = wa_f64_shr_jam(sb, u32(d));
        ez = ea;
        z = wa_sub64(wa_add64(sa, vec2<u32>(0u, 0x40000000u)), sb);
    }
    return wa_f64_norm_round_pack(sign, ez - 1, z);
}""")
_def("""
fn wa_f64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sa = a.y >> 31u;
    if (sa == (b.y >> 31u)) { return wa_f64_add_mags(a, b, sa); }
    return wa_f64_sub_mags(a, b, sa);
}""")
_def("""
fn wa_f64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sa = a.y >> 31u;
    if (sa == (b.y >> 31u)) { return wa_f64_sub_mags(a, b, sa); }
    return wa_f64_add_mags(a, b, sa);
}""")

# -- multiplication, division, square root --------------------------------------------------
_def("""
fn wa_f64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sign = (a.y ^ b.y) >> 31u;
    var ea = wa_f64_biased_exp(a);
    var eb = wa_f64_biased_exp(b);
    var sa = wa_f64_frac(a);
    var sb = wa_f64_frac(b);
    let a0 = ea == 0 && wa_f64_is0(sa);
    let b0 = eb == 0 && wa_f64_is0(sb);
    if (ea == 0x7ff || eb == 0x7ff) {
        if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return wa_f64_nan_of(a, b); }
        if (a0 || b0) { return wa_f64_default_nan(); }
        return wa_f64_inf(sign);
    }
    if (a0 || b0) { return wa_f64_zero(sign); }
    if (ea == 0) {
        let n = wa_f64_norm_sub(sa);
        sa = n.xy;
        ea = bitcast<i32>(n.z);
    }
    if (eb == 0) {
        let n = wa_f64_norm_sub(sb);
        sb = n.xy;
        eb = bitcast<i32>(n.z);
    }
    var ez = ea + eb - 0x3ff;
    sa = wa_f64_shl(vec2<u32>(sa.x, sa.y | 0x100000u), 10u);
    sb = wa_f64_shl(vec2<u32>(sb.x, sb.y | 0x100000u), 11u);
    let p = wa_f64_mul128(sa, sb);
    var z = vec2<u32>(p.z | select(0u, 1u, (p.x | p.y) != 0u), p.w);
    if (z.y < 0x40000000u) {
        ez = ez - 1;
        z = wa_f64_shl(z, 1u);
    }
    return wa_f64_round_pack(sign, ez, z);
}""")
# restoring division: 54 quotient bits, the remainder's being nonzero as the sticky bit
_def(r"""
fn wa_f64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sign = (a.y ^ b.y) >> 31u;
    var ea = wa_f64_biased_exp(a);
    var eb = wa_f64_biased_exp(b);
    var sa = wa_f64_frac(a);
    var sb = wa_f64_frac(b);
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return wa_f64_nan_of(a, b); }
    let a0 = ea == 0 && wa_f64_is0(sa);
    let b0 = eb == 0 && wa_f64_is0(sb);
    if (ea == 0x7ff) {
        if (eb == 0x7ff) { return wa_f64_default_nan(); }
        return wa_f64_inf(sign);
    }
    if (eb == 0x7ff) { return wa_f64_zero(sign); }
    if (b0) {
        if (a0) { return wa_f64_default_nan(); }
        return wa_f64_inf(sign);
    }
    if (a0) { return wa_f64_zero(sign); }
    if (ea == 0) {
        let n = wa_f64_norm_sub(sa);
        sa = n.xy;
        ea = bitcast<i32>(n.z);
    }
    if (eb == 0) {
        let n = wa_f64_norm_sub(sb);
        sb = n.xy;
        eb = bitcast<i32>(n.z);
    }
    var ez = ea - eb + 0x3fe;
    var r = vec2<u32>(sa.x, sa.y | 0x100000u);
    let d = vec2<u32>(sb.x, sb.y | 0x100000u);
    if (wa_lt_u64(r, d)) {
        ez = ez - 1;
        r = wa_f64_shl(r, 1u);
    }
    var q = vec2<u32>(0u, 0u);
    for (var i = 0; i < 6; i = i + 1) {""" + _steps("""
        q = wa_f64_shl1(q);
        if (!wa_lt_u64(r, d)) {
            r = wa_sub64(r, d);
            q.x = q.x | 1u;
        }
        r = wa_f64_shl1(r);""", UNROLL) + """
    }
    let z = wa_f64_shl(q, 9u);
    return wa_f64_round_pack(sign, ez, vec2<u32>(z.x | select(0u, 1u, !wa_f64_is0(r)), z.y));
}""")
# digit-by-digit square root of the significand (times 2^54, an even exponent): 54 root bits
_def(r"""
fn wa_f64_sqrt(a: vec2<u32>) -> vec2<u32> {
    var e = wa_f64_biased_exp(a);
    var m = wa_f64_frac(a);
    if (wa_f64_isnan(a)) { return wa_f64_quiet(a); }
    if (e == 0 && wa_f64_is0(m)) { return a; }
    if ((a.y >> 31u) == 1u) { return wa_f64_default_nan(); }
    if (e == 0x7ff) { return a; }
    if (e == 0) {
        let n = wa_f64_norm_sub(m);
        m = n.xy;
        e = bitcast<i32>(n.z);
    }
    m = vec2<u32>(m.x, m.y | 0x100000u);
    var k = e - 0x3ff;
    if ((k & 1) != 0) {
        m = wa_f64_shl(m, 1u);
        k = k - 1;
    }
    var rem = vec2<u32>(0u, 0u);
    var root = vec2<u32>(0u, 0u);
    // m * 2^54 two bits at a time from the top: m's (m < 2^54) in the first 27 steps, then zeros
    for (var i = 0; i < 6; i = i + 1) {""" + _steps("""
        {
            let t = UNROLL * i + {j};
            let p = u32(max(52 - 2 * t, 0));
            let pair = select(select((m.x >> p) & 3u, (m.y >> ((p - 32u) & 31u)) & 3u, p >= 32u), 0u, t >= 27);
            rem = vec2<u32>((rem.x << 2u) | pair, (rem.y << 2u) | (rem.x >> 30u));
            let trial = vec2<u32>((root.x << 2u) | 1u, (root.y << 2u) | (root.x >> 30u));
            root = wa_f64_shl1(root);
            if (!wa_lt_u64(rem, trial)) {
                rem = wa_sub64(rem, trial);
                root.x = root.x | 1u;
            }
        }""".replace("UNROLL", str(UNROLL)), UNROLL) + """
    }
    let z = wa_f64_shl(root, 9u);
    return wa_f64_round_pack(0u, 0x3fe + k / 2, vec2<u32>(z.x | select(0u, 1u, !wa_f64_is0(rem)), z.y));
}""")

# -- rounding to integers --------------------------------------------------------------------
# mode 0: to nearest, ties to even (np.round, np.rint); 1: floor; 2: ceil; 3: trunc
_def("""
fn wa_f64_round_int(a: vec2<u32>, mode: u32) -> vec2<u32> {
    let e = wa_f64_biased_exp(a);
    let sign = a.y >> 31u;
    if (e <= 0x3fe) {
        if ((a.x | (a.y & 0x7fffffffu)) == 0u) { return a; }
        var up = false;
        if (mode == 0u) { up = e == 0x3fe && !wa_f64_is0(wa_f64_frac(a)); }
        if (mode == 1u) { up = sign == 1u; }
        if (mode == 2u) { up = sign == 0u; }
        return vec2<u32>(0u, (sign << 31u) | select(0u, 0x3ff00000u, up));
    }
    if (e >= 0x433) {
        if (wa_f64_isnan(a)) { return wa_f64_quiet(a); }
        return a;
    }
    let last = wa_f64_shl(vec2<u32>(1u, 0u), u32(0x433 - e));
    let low = wa_sub64(last, vec2<u32>(1u, 0u));
    var z = a;
    if (mode == 0u) {
        z = wa_add64(z, wa_f64_shr(last, 1u));
        if ((z.x & low.x) == 0u && (z.y & low.y) == 0u) { z = vec2<u32>(z.x & ~last.x, z.y & ~last.y); }
    } else if ((mode == 1u && sign == 1u) || (mode == 2u && sign == 0u)) {
        z = wa_add64(z, low);
    }
    return vec2<u32>(z.x & ~low.x, z.y & ~low.y);
}""")
_def("fn wa_f64_round(a: vec2<u32>) -> vec2<u32> { return wa_f64_round_int(a, 0u); }")
_def("fn wa_f64_floor(a: vec2<u32>) -> vec2<u32> { return wa_f64_round_int(a, 1u); }")
_def("fn wa_f64_ceil(a: vec2<u32>) -> vec2<u32> { return wa_f64_round_int(a, 2u); }")
_def("fn wa_f64_trunc(a: vec2<u32>) -> vec2<u32> { return wa_f64_round_int(a, 3u); }")

# -- conversions -----------------------------------------------------------------------------
# exact; a NaN is quieted with its payload kept (as x86's cvtss2sd)
_def("""
fn wa_f64_from_f32(v: f32) -> vec2<u32> {
    let u = bitcast<u32>(v);
    let sign = u & 0x80000000u;
    var e = (u >> 23u) & 0xffu;
    var f = u & 0x7fffffu;
    if (e == 0xffu) {
        return vec2<u32>(f << 29u, sign | 0x7ff00000u | (f >> 3u) | select(0u, 0x80000u, f != 0u));
    }
    if (e == 0u) {
        if (f == 0u) { return vec2<u32>(0u, sign); }
        let shift = countLeadingZeros(f) - 8u;
        f = (f << shift) & 0x7fffffu;
        return vec2<u32>(f << 29u, sign | ((897u - shift) << 20u) | (f >> 3u));
    }
    return vec2<u32>(f << 29u, sign | ((e + 896u) << 20u) | (f >> 3u));
}""")
# the float32 nearest (ties to even), with float32 subnormals and overflow to infinity; a
# NaN keeps the top of its payload, quieted (as x86's cvtsd2ss)
_def("""
fn wa_f64_to_f32_bits(a: vec2<u32>) -> u32 {
    let sign = a.y & 0x80000000u;
    var e = wa_f64_biased_exp(a);
    let f = wa_f64_frac(a);
    if (e == 0x7ff) {
        if (wa_f64_is0(f)) { return sign | 0x7f800000u; }
        return sign | 0x7fc00000u | (f.y << 3u) | (f.x >> 29u);
    }
    // the fraction's top 30 bits, the rest as a sticky bit
    let f30 = (f.y << 10u) | (f.x >> 22u) | select(0u, 1u, (f.x & 0x3fffffu) != 0u);
    if (e == 0 && f30 == 0u) { return sign; }
    var sig = f30 | 0x40000000u;
    e = e - 0x381;
    if (e < 0) {
        let n = u32(-e);
        if (n >= 31u) {
            sig = 1u;
        } else {
            sig = (sig >> n) | select(0u, 1u, (sig << (32u - n)) != 0u);
        }
        e = 0;
    } else if (e > 0xfd || (e == 0xfd && sig >= 0x7fffffc0u)) {
        return sign | 0x7f800000u;
    }
    let round_bits = sig & 0x7fu;
    var m = (sig + 0x40u) >> 7u;
    if (round_bits == 0x40u) { m = m & 0xfffffffeu; }
    if (m == 0u) { e = 0; }
    return sign + (u32(e) << 23u) + m;
}""")
_def("""
fn wa_f64_from_u32(v: u32) -> vec2<u32> {
    if (v == 0u) { return vec2<u32>(0u, 0u); }
    let shift = countLeadingZeros(v);
    let m = v << shift;
    return vec2<u32>(m << 21u, ((1054u - shift) << 20u) | ((m >> 11u) & 0xfffffu));
}""")
_def("""
fn wa_f64_from_i32(v: i32) -> vec2<u32> {
    let r = wa_f64_from_u32(select(bitcast<u32>(v), 0u - bitcast<u32>(v), v < 0));
    return vec2<u32>(r.x, r.y | select(0u, 0x80000000u, v < 0));
}""")
# the magnitude of trunc(a) for 0x3ff <= exponent field <= 0x43e (1 <= |a| < 2^64)
_def("""
fn wa_f64_trunc_mag(a: vec2<u32>) -> vec2<u32> {
    let e = wa_f64_biased_exp(a);
    let sig = vec2<u32>(a.x, (a.y & 0xfffffu) | 0x100000u);
    if (e >= 0x433) { return wa_f64_shl(sig, u32(e - 0x433)); }
    return wa_f64_shr(sig, u32(0x433 - e));
}""")
# truncation toward zero; NaN and values out of range give 0x80000000 (INT_MIN), as x86's
# cvttsd2si and so NumPy's astype(int32)
_def("""
fn wa_f64_to_i32(a: vec2<u32>) -> i32 {
    let e = wa_f64_biased_exp(a);
    if (e >= 0x41e) { return bitcast<i32>(0x80000000u); }
    if (e < 0x3ff) { return 0; }
    let m = bitcast<i32>(wa_f64_trunc_mag(a).x);
    return select(m, -m, (a.y >> 31u) == 1u);
}""")
# truncation toward zero; NaN and values out of range give INT64_MIN, as cvttsd2si
_def("""
fn wa_f64_to_i64(a: vec2<u32>) -> vec2<u32> {
    let e = wa_f64_biased_exp(a);
    if (e >= 0x43e) { return vec2<u32>(0u, 0x80000000u); }
    if (e < 0x3ff) { return vec2<u32>(0u, 0u); }
    let m = wa_f64_trunc_mag(a);
    return select(m, wa_neg64(m), (a.y >> 31u) == 1u);
}""")
# NumPy's float64 -> uint64 on x86: trunc(a) for -2^63 < a < 2^64 (negative ones wrap),
# trunc(a - 2^63) + 2^63 computed with cvttsd2si for a >= 2^63, so 0 from 2^64 up and for
# +inf, and INT64_MIN's bits for NaN, -inf and a <= -2^63
_def("""
fn wa_f64_to_u64(a: vec2<u32>) -> vec2<u32> {
    let e = wa_f64_biased_exp(a);
    if ((a.y >> 31u) == 0u && e >= 0x43e && !wa_f64_isnan(a)) {
        if (e >= 0x43f) { return vec2<u32>(0u, 0u); }
        return wa_f64_trunc_mag(a);
    }
    return wa_f64_to_i64(a);
}""")
# the low word of the int64 conversion: trunc(a) modulo 2^32 where |a| < 2^63, 0 for NaN,
# ±inf and beyond. NumPy's scalar and strided casts do this; its contiguous SIMD loop
# gives other values out of range (the standard leaves them unspecified)
_def("fn wa_f64_to_u32(a: vec2<u32>) -> u32 { return wa_f64_to_i64(a).x; }")
_def("""
fn wa_f64_from_u64(a: vec2<u32>) -> vec2<u32> {
    if ((a.y >> 31u) == 1u) {
        let s = wa_f64_shr(a, 1u);
        return wa_f64_round_pack(0u, 0x43d, vec2<u32>(s.x | (a.x & 1u), s.y));
    }
    return wa_f64_norm_round_pack(0u, 0x43c, a);
}""")
_def("""
fn wa_f64_from_i64(a: vec2<u32>) -> vec2<u32> {
    if (a.x == 0u && a.y == 0x80000000u) { return vec2<u32>(0u, 0xc3e00000u); }
    let sign = a.y >> 31u;
    return wa_f64_norm_round_pack(sign, 0x43c, select(a, wa_neg64(a), sign == 1u));
}""")

# -- remainder and floor division (NumPy's npy_divmod), fused multiply-add ------------------
# C's fmod, exact: long division of the significands, one step per bit of exponent
# difference (at most 2,098: from 2^1023 down to 2^-1074), 16 steps per pass while 16 remain
_def(r"""
fn wa_f64_fmod(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return wa_f64_nan_of(a, b); }
    var ea = wa_f64_biased_exp(a);
    var eb = wa_f64_biased_exp(b);
    var r = wa_f64_frac(a);
    var d = wa_f64_frac(b);
    if (ea == 0x7ff || (eb == 0 && wa_f64_is0(d))) { return wa_f64_default_nan(); }
    if (eb == 0x7ff || wa_lt_u64(wa_f64_abs(a), wa_f64_abs(b))) { return a; }
    if (ea == 0) {
        let n = wa_f64_norm_sub(r);
        r = n.xy;
        ea = bitcast<i32>(n.z);
    }
    if (eb == 0) {
        let n = wa_f64_norm_sub(d);
        d = n.xy;
        eb = bitcast<i32>(n.z);
    }
    r = vec2<u32>(r.x, r.y | 0x100000u);
    d = vec2<u32>(d.x, d.y | 0x100000u);
    var left = ea - eb;
    for (var i = 0; i < 132; i = i + 1) {
        if (left < 16) { break; }""" + _steps("""
        if (!wa_lt_u64(r, d)) { r = wa_sub64(r, d); }
        r = wa_f64_shl1(r);""", 16) + """
        left = left - 16;
    }
    for (var i = 0; i < 16; i = i + 1) {
        if (left == 0) { break; }
        if (!wa_lt_u64(r, d)) { r = wa_sub64(r, d); }
        r = wa_f64_shl1(r);
        left = left - 1;
    }
    if (!wa_lt_u64(r, d)) { r = wa_sub64(r, d); }
    return wa_f64_norm_round_pack(a.y >> 31u, eb + 9, r);
}""")
# (floor division, remainder) as NumPy's npy_divmod computes them for a nonzero divisor:
# the remainder takes the divisor's sign, the quotient (a - fmod) / b is snapped to the
# nearest integer
_def("""
fn wa_f64_divmod(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    var m = wa_f64_fmod(a, b);
    var d = wa_f64_div(wa_f64_sub(a, m), b);
    let zero = vec2<u32>(0u, 0u);
    if (!wa_f64_eq(m, zero)) {
        if (wa_f64_lt(b, zero) != wa_f64_lt(m, zero)) {
            m = wa_f64_add(m, b);
            d = wa_f64_sub(d, vec2<u32>(0u, 0x3ff00000u));
        }
    } else {
        m = wa_f64_copysign(zero, b);
    }
    if (wa_f64_eq(d, zero)) { return vec4<u32>(wa_f64_copysign(zero, wa_f64_div(a, b)), m); }
    var f = wa_f64_floor(d);
    if (wa_f64_lt(vec2<u32>(0u, 0x3fe00000u), wa_f64_sub(d, f))) { f = wa_f64_add(f, vec2<u32>(0u, 0x3ff00000u)); }
    return vec4<u32>(f, m);
}""")
# np.remainder: fmod's NaN for a zero divisor
_def("""
fn wa_f64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_f64_both_zero(b, b)) { return wa_f64_fmod(a, b); }
    return wa_f64_divmod(a, b).zw;
}""")
# np.floor_divide: a / b for a zero divisor; and as float32's wa_floordiv_f, the standard's
# main text for infinite operands (floor(a / b): ±inf // finite is ±inf, finite // ±inf a
# signed zero) where NumPy gives NaN and -1.0, the alternatives the standard allows
_def("""
fn wa_f64_floordiv(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (wa_f64_both_zero(b, b) || wa_f64_isinf(a) || wa_f64_isinf(b)) { return wa_f64_div(a, b); }
    return wa_f64_divmod(a, b).xy;
}""")

# 128-bit values (vec4<u32>, low word first) for the exact product inside the fused multiply-add
_def("""
fn wa_f64_add128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let lo = wa_add64(a.xy, b.xy);
    let carry = select(0u, 1u, wa_lt_u64(lo, a.xy));
    return vec4<u32>(lo, wa_add64(wa_add64(a.zw, b.zw), vec2<u32>(carry, 0u)));
}""")
_def("""
fn wa_f64_sub128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let borrow = select(0u, 1u, wa_lt_u64(a.xy, b.xy));
    return vec4<u32>(wa_sub64(a.xy, b.xy), wa_sub64(wa_sub64(a.zw, b.zw), vec2<u32>(borrow, 0u)));
}""")
_def("""
fn wa_f64_lt128(a: vec4<u32>, b: vec4<u32>) -> bool {
    return wa_lt_u64(a.zw, b.zw) || (a.z == b.z && a.w == b.w && wa_lt_u64(a.xy, b.xy));
}""")
_def("""
fn wa_f64_clz128(a: vec4<u32>) -> u32 {
    return select(wa_f64_clz64(a.zw), 64u + wa_f64_clz64(a.xy), wa_f64_is0(a.zw));
}""")
# a << n for n < 64
_def("""
fn wa_f64_shl128(a: vec4<u32>, n: u32) -> vec4<u32> {
    if (n == 0u) { return a; }
    let hi = wa_f64_shl(a.zw, n);
    let up = wa_f64_shr(a.xy, 64u - n);
    return vec4<u32>(wa_f64_shl(a.xy, n), hi.x | up.x, hi.y | up.y);
}""")
# a >> n for any n, every bit shifted out ORed into bit 0
_def("""
fn wa_f64_shr_jam128(a: vec4<u32>, n: u32) -> vec4<u32> {
    if (n == 0u) { return a; }
    if (n >= 128u) { return vec4<u32>(select(0u, 1u, !wa_f64_is0(a.xy) || !wa_f64_is0(a.zw)), 0u, 0u, 0u); }
    if (n >= 64u) {
        let lo = wa_f64_shr_jam(a.zw, n - 64u);
        return vec4<u32>(lo.x | select(0u, 1u, !wa_f64_is0(a.xy)), lo.y, 0u, 0u);
    }
    let down = wa_f64_shl(a.zw, 64u - n);
    let lo = wa_f64_shr_jam(a.xy, n);
    return vec4<u32>(lo.x | down.x, lo.y | down.y, wa_f64_shr(a.zw, n));
}""")
# a * b + c with one rounding: the exact 106-bit product and c aligned in 128 bits (the one
# shifted right keeps a sticky bit far below the rounding position), added, rounded once
_def("""
fn wa_f64_fma(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return wa_f64_nan_of(a, b); }
    if (wa_f64_isnan(c)) { return wa_f64_quiet(c); }
    let sp = (a.y ^ b.y) >> 31u;
    let sc = c.y >> 31u;
    var ea = wa_f64_biased_exp(a);
    var eb = wa_f64_biased_exp(b);
    var ec = wa_f64_biased_exp(c);
    var ma = wa_f64_frac(a);
    var mb = wa_f64_frac(b);
    var mc = wa_f64_frac(c);
    let a0 = ea == 0 && wa_f64_is0(ma);
    let b0 = eb == 0 && wa_f64_is0(mb);
    if (ea == 0x7ff || eb == 0x7ff) {
        if (a0 || b0 || (ec == 0x7ff && sc != sp)) { return wa_f64_default_nan(); }
        return wa_f64_inf(sp);
    }
    if (ec == 0x7ff) { return c; }
    // a zero product: c, or a zero whose sign both must share (round to nearest); a zero c:
    // the product rounded, below as q = 0 (this function calls no other arithmetic, which
    // SwiftShader would inline at every fma: WebGL2 ran out of shader size in float64 sin)
    let c0 = ec == 0 && wa_f64_is0(mc);
    if (a0 || b0) { return select(c, wa_f64_zero(sp & sc), c0); }
    if (ea == 0) {
        let n = wa_f64_norm_sub(ma);
        ma = n.xy;
        ea = bitcast<i32>(n.z);
    }
    if (eb == 0) {
        let n = wa_f64_norm_sub(mb);
        mb = n.xy;
        eb = bitcast<i32>(n.z);
    }
    if (ec == 0 && !c0) {
        let n = wa_f64_norm_sub(mc);
        mc = n.xy;
        ec = bitcast<i32>(n.z);
    }
    // p = product * 2^20 and q = c's significand * 2^73, both below 2^126; their last bits
    // weigh 2^fp and 2^fc (a zero c: q = 0 far below p)
    var p = wa_f64_shl128(wa_f64_mul128(vec2<u32>(ma.x, ma.y | 0x100000u), vec2<u32>(mb.x, mb.y | 0x100000u)), 20u);
    var q = select(vec4<u32>(0u, 0u, wa_f64_shl(vec2<u32>(mc.x, mc.y | 0x100000u), 9u)), vec4<u32>(0u), c0);
    let fp = ea + eb - 2170;
    let fc = select(ec - 1148, -0x10000000, c0);
    var f = fp;
    if (fp >= fc) {
        q = wa_f64_shr_jam128(q, u32(fp - fc));
    } else {
        p = wa_f64_shr_jam128(p, u32(fc - fp));
        f = fc;
    }
    var sign = sp;
    var s: vec4<u32>;
    if (sp == sc) {
        s = wa_f64_add128(p, q);
    } else if (wa_f64_lt128(p, q)) {
        s = wa_f64_sub128(q, p);
        sign = sc;
    } else {
        s = wa_f64_sub128(p, q);
    }
    if (wa_f64_is0(s.xy) && wa_f64_is0(s.zw)) { return vec2<u32>(0u, 0u); }
    let t = 127 - i32(wa_f64_clz128(s));
    var sig = wa_f64_shl(s.xy, u32(max(62 - t, 0)));
    if (t >= 62) { sig = wa_f64_shr_jam128(s, u32(t - 62)).xy; }
    return wa_f64_round_pack(sign, f + t + 1022, sig);
}""")
