"""The hardware float64 lane: the software binary64 primitives on a GPU's own 64-bit floats.

A float64 is a ``vec2<u32>`` of its bits in both lanes (storage, registers, every helper of
``wgsl_f64.py`` and ``wgsl_f64_math.py``). Where the device offers 64-bit floats to shaders
(Vulkan's ``shaderFloat64`` and ``shaderInt64``, which wgpu exposes natively as the
``shader-f64`` and ``shader-int64`` features; no browser has them), ``lower`` swaps the
bodies of the correctly rounded primitives for the hardware's: the words become an ``f64``
through a ``u64`` (``wa_f64_hw``), one instruction computes, and the result goes back to
words (``wa_f64_bits``). Everything built on them (remainders, the elementary functions,
complex128, matmul) follows without change, and compiles in a fraction of the time.

Bit for bit with the software lane, which is NumPy's float64 on x86:

- IEEE 754 rounds +, -, *, / and sqrt correctly; the device probe (``PROBE``) checks that the
  device does, with subnormal operands and results (a device that flushes them, or divides
  approximately, keeps the software lane);
- a NaN result is replaced by x86's NaN (the first NaN operand quieted, else the default NaN
  0xFFF8000000000000), since GPUs return their own canonical NaN. That select on the result's
  bits is also what keeps the compiler from rewriting the arithmetic: Mesa's NIR may turn
  ``(a + b) - a`` into ``b`` or fuse a product into a following sum, but not through a select;
- the fused multiply-add: WGSL's ``fma`` may round twice (lavapipe's does), so the probe
  tests it; where it is not fused, ``wa_f64_fma`` is emulated exactly (Boldo and Melquiond's
  algorithm: Dekker's exact product, an exact sum with c, the two error terms added with
  rounding to odd, then one rounding to nearest), and operands outside the range where that
  product is exact (subnormal, huge, inf, NaN) take the software fma.
"""

from __future__ import annotations

import math
import random
import re
import struct
from fractions import Fraction

from .wgsl_lib import LIB, _CALL

HW: dict[str, str] = {}


def _hw(src: str) -> None:
    name = re.match(r"\s*fn (wa_\w+)", src).group(1)
    HW[name] = src.strip() + "\n"


# The words as an f64, a zero the compiler cannot see mixed in (``lower`` explains): the first
# operand of an op through ``wa_f64_hw``, the second through ``wa_f64_hw2``
_hw("fn wa_f64_hw(a: vec2<u32>) -> f64 { return bitcast<f64>((u64(a.y) << 32u) | u64(a.x | wa_f64_z)); }")
_hw("fn wa_f64_hw2(a: vec2<u32>) -> f64 { return bitcast<f64>((u64(a.y) << 32u) | u64(a.x ^ wa_f64_z)); }")
_hw("""
fn wa_f64_bits(x: f64) -> vec2<u32> {
    let u = bitcast<u64>(x);
    return vec2<u32>(u32(u & 0xfffffffflu), u32(u >> 32u));
}""")
# r computed by the hardware from a and b, with x86's NaN where r is a NaN: the first NaN
# operand quieted, else (an invalid operation) the default NaN
_hw("""
fn wa_f64_hw_nan(r: f64, a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let w = wa_f64_bits(r);
    let nan = select(wa_f64_default_nan(), wa_f64_nan_of(a, b), wa_f64_isnan(a) || wa_f64_isnan(b));
    return select(w, nan, wa_f64_isnan(w));
}""")
_hw("fn wa_f64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_f64_hw_nan(wa_f64_hw(a) + wa_f64_hw2(b), a, b); }")
_hw("fn wa_f64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_f64_hw_nan(wa_f64_hw(a) - wa_f64_hw2(b), a, b); }")
_hw("fn wa_f64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_f64_hw_nan(wa_f64_hw(a) * wa_f64_hw2(b), a, b); }")
_hw("fn wa_f64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return wa_f64_hw_nan(wa_f64_hw(a) / wa_f64_hw2(b), a, b); }")
_hw("fn wa_f64_sqrt(a: vec2<u32>) -> vec2<u32> { return wa_f64_hw_nan(sqrt(wa_f64_hw(a)), a, a); }")
# the software fma's NaN rule: a NaN factor first, then a NaN addend, else invalid
_hw("""
fn wa_f64_nan3(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    if (wa_f64_isnan(a) || wa_f64_isnan(b)) { return wa_f64_nan_of(a, b); }
    return select(wa_f64_default_nan(), wa_f64_quiet(c), wa_f64_isnan(c));
}""")
_hw("""
fn wa_f64_fma_fused(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    let w = wa_f64_bits(fma(wa_f64_hw(a), wa_f64_hw2(b), wa_f64_hw2(c)));
    return select(w, wa_f64_nan3(a, b, c), wa_f64_isnan(w));
}""")
_hw(LIB["wa_f64_fma"].replace("fn wa_f64_fma(", "fn wa_f64_fma_soft(", 1))
# An f64 the compiler cannot look through (the zero of ``lower`` ORed into it): Mesa's NIR
# would turn Veltkamp's ``t - (t - x)`` into x, and fuse a product into the sum after it
_hw("fn wa_f64_o(x: f64) -> f64 { return bitcast<f64>(bitcast<u64>(x) | u64(wa_f64_z)); }")
# Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
# rounding to odd" (IEEE TC 2008), Algorithm 5: exact where a*b's error term is a normal
# float64 and nothing overflows, which the exponent test below ensures. Inside that range no
# operation sees an inf or a NaN, so it runs on f64 registers, every result through
# ``wa_f64_o``: a few dozen instructions where each op of the word lane (with its NaN rule)
# costs as many, since every call is inlined (lavapipe compiled float64 kernels 4x slower).
# Veltkamp's split of x into two halves of 26 bits (x = .x + .y exactly)
_hw("""
fn wa_f64_hw_split(x: f64) -> vec2<f64> {
    let t = wa_f64_o(x * bitcast<f64>(0x41a0000002000000lu));  // x * (2^27 + 1)
    let h = wa_f64_o(t - wa_f64_o(t - x));
    return vec2<f64>(h, wa_f64_o(x - h));
}""")
# Knuth's TwoSum: .x = a + b rounded, .x + .y == a + b exactly
_hw("""
fn wa_f64_hw_two_sum(a: f64, b: f64) -> vec2<f64> {
    let s = wa_f64_o(a + b);
    let bb = wa_f64_o(s - a);
    return vec2<f64>(s, wa_f64_o(wa_f64_o(a - wa_f64_o(s - bb)) + wa_f64_o(b - bb)));
}""")
_hw("""
fn wa_f64_fma_emulated(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
    let ea = wa_f64_biased_exp(a) - 1023;
    let eb = wa_f64_biased_exp(b) - 1023;
    let ec = wa_f64_biased_exp(c) - 1023;
    if (ea < -1000 || eb < -1000 || ea > 990 || eb > 990 || ea + eb < -900 || ea + eb > 1000
            || ec > 1000) {
        return wa_f64_fma_soft(a, b, c);
    }
    let fa = wa_f64_hw(a);
    let fb = wa_f64_hw2(b);
    let z = wa_f64_hw2(c);
    // Dekker's product: uh + ul == a * b exactly
    let uh = wa_f64_o(fa * fb);
    let x = wa_f64_hw_split(fa);
    let y = wa_f64_hw_split(fb);
    var ul = wa_f64_o(wa_f64_o(x.x * y.x) - uh);
    ul = wa_f64_o(ul + wa_f64_o(x.x * y.y));
    ul = wa_f64_o(ul + wa_f64_o(x.y * y.x));
    ul = wa_f64_o(ul + wa_f64_o(x.y * y.y));
    let t = wa_f64_hw_two_sum(z, uh);  // t.x + t.y == c + uh exactly
    // v = t.y + ul rounded to odd: to nearest, then one step toward the error where that
    // was inexact and landed on an even significand
    let v = wa_f64_hw_two_sum(t.y, ul);
    var s = bitcast<u64>(v.x);
    let e = bitcast<u64>(v.y);
    if ((e << 1u) != 0lu && (s & 1lu) == 0lu) {
        s = select(s - 1lu, s + 1lu, (s >> 63u) == (e >> 63u));
    }
    return wa_f64_bits(t.x + bitcast<f64>(s));
}""")

#: the primitives whose bodies the hardware lane replaces
REPLACED = ("wa_f64_add", "wa_f64_sub", "wa_f64_mul", "wa_f64_div", "wa_f64_sqrt", "wa_f64_fma")
_REPLACED = re.compile(r"\b(" + "|".join(REPLACED) + r")\(")
_FMA = {v: f"fn wa_f64_fma(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {{ return wa_f64_fma_{v}(a, b, c); }}\n"
        for v in ("fused", "emulated")}


def uses(source: str) -> bool:
    """Whether ``source`` calls a primitive the hardware lane replaces."""
    return _REPLACED.search(source) is not None


_RUNTIME_ARRAY = re.compile(r"var<storage[^>]*>\s*(\w+)\s*:\s*array<(.*)>\s*;")
_MAIN = re.compile(r"fn main\([^{]*\{")


def lower(source: str, fma: str) -> str:
    """``source`` (a shader of the software lane, its helpers written out by ``helpers_for``)
    on the hardware lane: every library helper is taken out and the helpers the rest calls
    are written again, the replaced primitives with hardware bodies and ``wa_f64_fma``
    ``fused`` (the device's fma rounds once) or ``emulated``. WGSL declarations may come in
    any order, so the helpers go last.

    Compilers fold float64 algebra as if it were exact: Mesa's NIR makes ``x + 0.0`` x (wrong
    for x = -0), ``x * 0.0`` 0 and ``x - x`` 0 (wrong for inf and NaN). So every operand
    reaches the hardware with a zero ORed (first operand) or XORed (second) into its low
    word, a zero the compiler cannot know, computed at the start of ``main``: n (n + 1) mod 2
    for n the length of a runtime-sized binding (a product of consecutive integers is even;
    lavapipe saw through ``length >> 31``, bounding the length by the buffer size). A constant
    operand is then no constant, and ``x - x`` no longer reads one value twice. A shader
    without such a binding stays on the software lane."""
    arrays = [m.group(1) for m in _RUNTIME_ARRAY.finditer(source)
              if not re.search(r",\s*\w+\s*$", m.group(2))]
    main = _MAIN.search(source)
    if not arrays or main is None:
        return source
    rest = (source[:main.end()] + f"\n    let wa_n = arrayLength(&{arrays[0]});\n    wa_f64_z = (wa_n * (wa_n + 1u)) & 1u;"
            + source[main.end():])
    for name in set(_CALL.findall(source)):
        text = LIB.get(name)
        if text is not None and text in rest:
            rest = rest.replace(text, "")
    lib = {**LIB, **HW, "wa_f64_fma": _FMA[fma]}
    ordered: list[str] = []

    def need(name: str) -> None:
        if name in ordered or name not in lib:
            return
        for dep in _CALL.findall(lib[name].split("{", 1)[1]):
            if dep != name:
                need(dep)
        ordered.append(name)

    for name in sorted(set(_CALL.findall(rest))):
        need(name)
    return rest + "\nvar<private> wa_f64_z: u32;\n" + "".join(lib[n] for n in ordered)


# -- the device probe --------------------------------------------------------------------
# Each case (a, b, c) gives add(a, c), sub(a, c), mul(a, b), div(a, b), sqrt(|a|), the
# device's fma(a, b, c) and the emulated one; PROBE_OUTPUTS words per case.

PROBE_OUTPUTS = 7
PROBE_SOURCE = """
@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read_write> io: array<vec2<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= P[0]) { return; }
    let a = io[k * 10u];
    let b = io[k * 10u + 1u];
    let c = io[k * 10u + 2u];
    io[k * 10u + 3u] = wa_f64_add(a, c);
    io[k * 10u + 4u] = wa_f64_sub(a, c);
    io[k * 10u + 5u] = wa_f64_mul(a, b);
    io[k * 10u + 6u] = wa_f64_div(a, b);
    io[k * 10u + 7u] = wa_f64_sqrt(vec2<u32>(a.x, a.y & 0x7fffffffu));
    io[k * 10u + 8u] = wa_f64_fma_fused(a, b, c);
    io[k * 10u + 9u] = wa_f64_fma_emulated(a, b, c);
}
"""


def _fma(a: float, b: float, c: float) -> float:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    try:
        return float(exact)
    except OverflowError:
        return float("inf") if exact > 0 else float("-inf")


def probe_cases(n_random: int = 512) -> list[tuple[float, float, float]]:
    """Operands that tell a correctly rounding device from others: subnormal operands and
    results, ties, a fused multiply-add that differs from a multiply and an add, divisions
    and square roots of random significands over the whole exponent range."""
    rng = random.Random(20)
    cases = [
        (0.1, 10.0, -1.0),                      # fma 2^-54 where a*b+c is 0
        (1.0 + 2.0**-52, 1.0 - 2.0**-53, -1.0),
        (2.0**-1000, 2.0**-60, 5e-324),          # a subnormal product
        (5e-324, 3.0, 5e-324),                   # subnormal operands
        (1.5e-323, 2.0, -1e-323),                # a tie below the normal range
        (2.2250738585072014e-308, 0.5, -0.0),
        (1.0, 3.0, 2.0**-1074),
        (2.0**1000, 2.0**-1000, -(2.0**-60)),
        (3.0, 7.0, 1e-310),
    ]
    for _ in range(n_random):
        a = rng.uniform(1, 2) * 2.0 ** rng.randint(-1074, 1000)
        b = rng.uniform(-2, 2) * 2.0 ** rng.randint(-60, 20)
        c = -a * b * (1 + rng.uniform(-1e-9, 1e-9)) if rng.random() < 0.5 else rng.uniform(-1, 1) * 2.0 ** rng.randint(-1074, 1000)
        cases.append((a, b, c))
    return cases


def probe_expected(cases) -> list[tuple[float, ...]]:
    """What a correctly rounding device returns for each case (Python's float arithmetic is
    IEEE binary64; the fma is the exact value rounded once)."""
    out = []
    for a, b, c in cases:
        f = _fma(a, b, c)
        out.append((a + c, a - c, a * b, a / b, math.sqrt(abs(a)), f, f))
    return out


def probe_data(cases) -> bytes:
    words = []
    for a, b, c in cases:
        words += [a, b, c] + [0.0] * PROBE_OUTPUTS
    return struct.pack(f"<{len(words)}d", *words)


def probe_verdict(cases, data: bytes) -> tuple[str | None, str | None]:
    """(fma variant or None, why not) from the probe's output: ``fused`` where the device's
    fma rounds once, ``emulated`` where only the emulation is right, None (with the first
    wrong result) where an arithmetic op is not correctly rounded."""
    got = struct.unpack(f"<{len(data) // 8}Q", data)
    names = ("add", "sub", "mul", "div", "sqrt", "fma", "emulated fma")
    fused = True
    for k, (case, want) in enumerate(zip(cases, probe_expected(cases))):
        for j, w in enumerate(want):
            bits = struct.unpack("<Q", struct.pack("<d", w))[0]
            g = got[k * 10 + 3 + j]
            if g == bits:
                continue
            if j == 5:
                fused = False
                continue
            shown = struct.unpack("<d", struct.pack("<Q", g))[0]
            return None, f"{names[j]}{case} gave {shown!r}, not {w!r}"
    return ("fused" if fused else "emulated"), None
