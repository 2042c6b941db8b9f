"""Software float64 (``kernels/wgsl_f64.py``) on its own, through raw kernels on the native
executor, bit for bit against NumPy's float64 (x86: SSE2 rounding, no flushing).

Every helper is run on thousands of operands per launch: all pairs of ``EDGE`` values, a
seeded sweep aimed at the hard cases (random bit patterns, cancellation between neighbours,
results at the overflow and gradual-underflow boundaries, exact ties), and bit patterns drawn
by hypothesis. A result matches when its bits equal NumPy's, or when both are NaN (NumPy's
SIMD loops may swap operands, so a NaN's payload is checked against x86's rule separately).

    XDG_RUNTIME_DIR=/tmp python -m pytest -q tests/test_f64_soft.py
"""

from __future__ import annotations

import itertools
import shutil
import struct
import subprocess
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from webarray.executors.native import NativeExecutor
from webarray.kernels import wgsl_f64  # noqa: F401  (registers the helpers)
from webarray.kernels.shader.translate import TranslationError
from webarray.kernels.webgl2 import glsl_lib
from webarray.kernels.wgsl_lib import LIB, helpers_for

M64 = (1 << 64) - 1
N_SWEEP = 4096


def bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def flt(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & M64))[0]


TINY = 5e-324
EDGE = [0.0, -0.0, TINY, -TINY, flt(0x000fffffffffffff), -flt(0x000fffffffffffff), flt(0x0000000000000003),
        2.2250738585072014e-308, -2.2250738585072014e-308, flt(0x0010000000000001),
        1.7976931348623157e308, -1.7976931348623157e308, flt(0x7fe0000000000000), 8.98846567431158e307,
        float("inf"), float("-inf"), float("nan"), flt(0xfff8000000000000), flt(0x7ff0000000000001),
        flt(0xfff4000000000123), 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, -0.3,
        0.49999999999999994, 1 + 2 ** -52, 1 - 2 ** -53, 1 + 2 ** -53, 2.0 ** 52, 2.0 ** 52 + 0.5,
        2.0 ** 53, 2.0 ** 53 + 2, -(2.0 ** 53) - 2, 2.0 ** 31, -(2.0 ** 31), 2.0 ** 31 - 0.5,
        -(2.0 ** 31) - 0.5, 2.0 ** 32, 2.0 ** 32 + 5, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 2.0 ** 64 - 2048,
        -(2.0 ** 63) - 2048, 1e300, -1e-300, 2.0 ** -1022 * 0.75, 2.0 ** 1023, 2.0 ** -537, 2.0 ** 512,
        3.0e-162, 7.0, 1 / 3, 2.0 ** -1074 * 3, 123456.789]

# -- running helpers on the device --------------------------------------------------------


@pytest.fixture(scope="module")
def ex():
    return NativeExecutor()


def _run(ex, body: str, args: list[np.ndarray], out_words: int, lower=None) -> np.ndarray:
    """The body's output words (uint32, out_words per element) for 64-bit arguments a0, a1, ...
    (``vec2<u32>``, low word first), one invocation per element. ``lower``: a function that
    makes the shader from its declarations and main (the helpers written out by it), for
    another lane than software (tests/test_float64_lanes.py)."""
    n = len(args[0])
    decl = "@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
    for k in range(len(args)):
        decl += f"@group(0) @binding({k + 1}) var<storage, read> A{k}: array<u32>;\n"
    decl += f"@group(0) @binding({len(args) + 1}) var<storage, read_write> O: array<u32>;\n"
    loads = "".join(f"    let a{k} = vec2<u32>(A{k}[2u * i], A{k}[2u * i + 1u]);\n" for k in range(len(args)))
    main = ("@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
            "    let i = g.x;\n    if (i >= U[0]) { return; }\n" + loads + body + "\n}\n")
    kid = ex.compile(decl + helpers_for(main) + main if lower is None else lower(decl + main))
    handles = []
    for a in args:
        h = ex.alloc(8 * n + 16)
        ex.write(h, 0, np.ascontiguousarray(a, np.uint64).tobytes())
        handles.append(h)
    out = ex.alloc(4 * out_words * n + 16)
    ex.dispatch(kid, handles + [out], struct.pack("<I", n), (-(-n // 64), 1, 1))
    raw = ex.read(out, 0, 4 * out_words * n)
    for h in handles + [out]:
        ex.free(h)
    return np.frombuffer(raw, np.uint32).reshape(n, out_words)


def _f64_out(ex, call: str, args: list[np.ndarray]) -> np.ndarray:
    words = _run(ex, f"    let r = {call};\n    O[2u * i] = r.x; O[2u * i + 1u] = r.y;", args, 2)
    return (words[:, 0].astype(np.uint64) | (words[:, 1].astype(np.uint64) << np.uint64(32)))


def _as_f64(b) -> np.ndarray:
    return np.asarray(b, np.uint64).view(np.float64)


def _as_bits(x) -> np.ndarray:
    return np.asarray(x, np.float64).view(np.uint64)


def _check(got_bits: np.ndarray, want: np.ndarray, *args: np.ndarray, what: str = "") -> None:
    want_bits = _as_bits(want)
    got = _as_f64(got_bits)
    bad = ~((got_bits == want_bits) | (np.isnan(got) & np.isnan(want)))
    if bad.any():
        rows = []
        for k in np.flatnonzero(bad)[:8]:
            ops = ", ".join(f"{a[k]!r} ({int(_as_bits(a[k])):#018x})" for a in args)
            rows.append(f"  {what}({ops}) = {got[k]!r} ({int(got_bits[k]):#018x}),"
                        f" want {want[k]!r} ({int(want_bits[k]):#018x})")
        raise AssertionError(f"{int(bad.sum())} of {len(bad)} wrong:\n" + "\n".join(rows))


# -- operands --------------------------------------------------------------------------------

def _random_doubles(rng: np.random.Generator, n: int) -> np.ndarray:
    """Bit patterns with every exponent equally likely, extremes and special fractions
    overrepresented."""
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    exps = rng.integers(0, 0x800, n, dtype=np.uint64)
    special = np.array([0, 1, 2, 0x3fe, 0x3ff, 0x400, 0x433, 0x434, 0x7fd, 0x7fe, 0x7ff], np.uint64)
    pick = rng.random(n) < 0.25
    exps[pick] = rng.choice(special, int(pick.sum()))
    frac = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    fracs = np.array([0, 1, (1 << 52) - 1, 1 << 51, (1 << 51) + 1], np.uint64)
    pick = rng.random(n) < 0.2
    frac[pick] = rng.choice(fracs, int(pick.sum()))
    return _as_f64(sign | (exps << np.uint64(52)) | frac)


def _finite(rng: np.random.Generator, n: int, lo: int, hi: int) -> np.ndarray:
    """Random finite doubles with biased exponents in [lo, hi], random signs."""
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    exps = rng.integers(lo, hi + 1, n, dtype=np.uint64)
    return _as_f64(sign | (exps << np.uint64(52)) | rng.integers(0, 1 << 52, n, dtype=np.uint64))


def _binary_sweep(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = N_SWEEP
    e = np.array(EDGE)
    pairs = [np.array(list(itertools.product(e, e))).T]
    # every exponent and special values
    pairs.append((_random_doubles(rng, n), _random_doubles(rng, n)))
    pairs.append((_as_f64(rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)),
                  _as_f64(rng.integers(0, M64, n, dtype=np.uint64, endpoint=True))))
    # cancellation: neighbours, a few ULPs apart, and close exponents
    a = _finite(rng, n, 0, 0x7fe)
    steps = rng.integers(-3, 4, n).astype(np.int64)
    b = _as_f64((_as_bits(a).astype(np.int64) + steps).astype(np.uint64))
    b[: n // 2] = -b[: n // 2]
    pairs.append((a, b))
    a = _finite(rng, n, 1, 0x7fe)
    b = a * (1 + rng.integers(-64, 64, n) * 2.0 ** -rng.integers(20, 54, n))
    pairs.append((a, np.where(rng.random(n) < 0.5, -b, b)))
    a = _finite(rng, n, 0, 0x7fe)
    shift = rng.integers(-60, 61, n).astype(np.int64)
    eb = np.clip((_as_bits(np.abs(a)) >> np.uint64(52)).astype(np.int64) + shift, 0, 0x7fe)
    b = _finite(rng, n, 0, 0)
    b = _as_f64(_as_bits(b) | (eb.astype(np.uint64) << np.uint64(52)))
    pairs.append((a, b))
    # short significands (few fraction bits) far apart: sticky bits only in the high word
    k = rng.integers(0, 53, (2, n)).astype(np.uint64)
    frac = (rng.integers(0, 1 << 52, (2, n), dtype=np.uint64) >> (np.uint64(52) - k)) << (np.uint64(52) - k)
    ea = rng.integers(1, 0x7fe, n)
    eb = np.clip(ea + rng.integers(-70, 71, n), 0, 0x7fe)
    sb = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    pairs.append((_as_f64(frac[0] | (ea.astype(np.uint64) << np.uint64(52))),
                  _as_f64(sb | frac[1] | (eb.astype(np.uint64) << np.uint64(52)))))
    # products and quotients at the overflow and underflow boundaries
    ea = rng.integers(1, 0x7ff, n)
    for target in (0x3ff + 1023, -52 + 0x3ff - 1022, 0x3ff - 1022, 0x3ff - 1075, 0x3ff - 1080):
        eb = np.clip(target + 0x3ff - ea + rng.integers(-2, 3, n), 0, 0x7fe)
        a = _finite(rng, n, 0, 0)
        a = _as_f64(_as_bits(a) | (ea.astype(np.uint64) << np.uint64(52)))
        b = _as_f64(_as_bits(_finite(rng, n, 0, 0)) | (eb.astype(np.uint64) << np.uint64(52)))
        pairs.append((a, b))
        ediv = np.clip(ea - (target - 0x3ff), 0, 0x7fe)
        pairs.append((a, _as_f64(_as_bits(b) & np.uint64(0x800fffffffffffff) | (ediv.astype(np.uint64) << np.uint64(52)))))
    # exact ties: integers whose sum or product needs 54 bits, subnormal sums
    x = rng.integers(1 << 26, 1 << 27, n).astype(np.float64)
    y = rng.integers(1 << 27, 1 << 28, n).astype(np.float64)
    pairs.append((x, y))
    big = rng.integers(1 << 52, 1 << 53, n).astype(np.float64) * 2.0 ** rng.integers(-1074, 971, n)
    half = np.ldexp(np.ones(n), np.frexp(big)[1] - 54) * rng.choice([1, -1, 3, -3, 0.5], n)
    pairs.append((big, half))
    # a half ULP off by one far-away bit: only the sticky bit decides
    j = rng.integers(1, 60, n)
    near = half * (1 + rng.choice([1.0, -1.0], n) * 2.0 ** -j)
    pairs.append((big, near))
    pairs.append((near, big))
    pairs.append((_finite(rng, n, 0, 1), _finite(rng, n, 0, 1)))
    a = np.concatenate([p[0] for p in pairs])
    b = np.concatenate([p[1] for p in pairs])
    return a, b


@pytest.fixture(scope="module")
def sweep2():
    return _binary_sweep(20)


def _unary_sweep(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = N_SWEEP
    parts = [np.array(EDGE), _random_doubles(rng, n),
             _as_f64(rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)),
             _finite(rng, n, 0x3f0, 0x440),
             rng.integers(-1 << 40, 1 << 40, n) / 2.0 ** rng.integers(0, 4, n),
             rng.integers(-1 << 20, 1 << 20, n) / 2.0,
             (rng.integers(-1 << 53, 1 << 53, n) + 0.5) * 2.0 ** rng.integers(-1, 12, n),
             rng.uniform(-2.0 ** 65, 2.0 ** 65, n), rng.uniform(-5e9, 5e9, n),
             _finite(rng, n, 0x380 - 30, 0x380 + 3),  # float32's subnormals
             _finite(rng, n, 0x47e, 0x47f)]           # float32's overflow
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def sweep1():
    return _unary_sweep(21)


F64_BITS = st.integers(0, M64)
F64_ANY = st.one_of(F64_BITS, st.floats(allow_nan=True, allow_infinity=True).map(bits),
                    st.sampled_from(EDGE).map(bits))


# -- arithmetic ------------------------------------------------------------------------------

ARITH = {"wa_f64_add": np.add, "wa_f64_sub": np.subtract, "wa_f64_mul": np.multiply,
         "wa_f64_div": np.divide, "wa_f64_max": np.maximum, "wa_f64_min": np.minimum,
         "wa_f64_copysign": np.copysign}


@pytest.mark.parametrize("fn", sorted(ARITH))
def test_binary_sweep(ex, fn, sweep2):
    a, b = sweep2
    got = _f64_out(ex, f"{fn}(a0, a1)", [_as_bits(a), _as_bits(b)])
    with np.errstate(all="ignore"):
        _check(got, ARITH[fn](a, b), a, b, what=fn)


@pytest.mark.parametrize("fn", sorted(ARITH))
@given(pairs=st.lists(st.tuples(F64_ANY, F64_ANY), min_size=1, max_size=200))
def test_binary_drawn(ex, fn, pairs):
    a = _as_f64([p[0] for p in pairs])
    b = _as_f64([p[1] for p in pairs])
    got = _f64_out(ex, f"{fn}(a0, a1)", [_as_bits(a), _as_bits(b)])
    with np.errstate(all="ignore"):
        _check(got, ARITH[fn](a, b), a, b, what=fn)


def _x86_nan(a: int, b: int | None, invalid: bool) -> int:
    """x86's NaN result: the first NaN operand, quieted; else the default NaN."""
    for v in (a, b):
        if v is not None and (v & 0x7fffffffffffffff) > 0x7ff0000000000000:
            return v | 0x0008000000000000
    assert invalid
    return 0xfff8000000000000


def test_nan_results_follow_x86(ex):
    snan, qnan, nnan = 0x7ff0000000000001, 0x7ff8000000000abc, 0xfff4000000000042
    one, inf, zero = bits(1.0), bits(float("inf")), 0
    cases = [(x, y) for x in (snan, qnan, nnan, one, inf, zero) for y in (snan, qnan, nnan, one, inf, zero)]
    a = np.array([c[0] for c in cases], np.uint64)
    b = np.array([c[1] for c in cases], np.uint64)
    for fn, invalid in (("wa_f64_add", {(inf, bits(-np.inf))}), ("wa_f64_sub", {(inf, inf)}),
                        ("wa_f64_mul", {(inf, zero), (zero, inf)}),
                        ("wa_f64_div", {(inf, inf), (zero, zero)})):
        got = _f64_out(ex, f"{fn}(a0, a1)", [a, b])
        for (x, y), g in zip(cases, got):
            if np.isnan(flt(int(g))):
                assert int(g) == _x86_nan(x, y, (x, y) in invalid), (fn, hex(x), hex(y), hex(int(g)))
    unary = np.array([snan, nnan, bits(-1.0), bits(-np.inf)], np.uint64)
    got = _f64_out(ex, "wa_f64_sqrt(a0)", [unary])
    assert [int(g) for g in got] == [snan | 1 << 51, nnan | 1 << 51] + [0xfff8000000000000] * 2


COMPARE = {"wa_f64_eq": np.equal, "wa_f64_lt": np.less, "wa_f64_le": np.less_equal}
CLASSIFY = {"wa_f64_isnan": np.isnan, "wa_f64_isinf": np.isinf, "wa_f64_isfinite": np.isfinite,
            "wa_f64_signbit": np.signbit}


def test_comparisons_and_classification(ex, sweep2):
    a, b = sweep2
    # and equal operands, which random pairs rarely are
    a = np.concatenate([a, b, np.array(EDGE)])
    b = np.concatenate([b, b, -np.array(EDGE)])
    names = list(COMPARE) + list(CLASSIFY)
    body = "\n".join(f"    O[{len(names)}u * i + {k}u] = select(0u, 1u, {fn}(a0, a1));" for k, fn in enumerate(COMPARE))
    body += "\n" + "\n".join(f"    O[{len(names)}u * i + {k + len(COMPARE)}u] = select(0u, 1u, {fn}(a0));"
                             for k, fn in enumerate(CLASSIFY))
    got = _run(ex, body, [_as_bits(a), _as_bits(b)], len(names)).astype(bool)
    for k, fn in enumerate(COMPARE):
        np.testing.assert_array_equal(got[:, k], COMPARE[fn](a, b), err_msg=fn)
    for k, fn in enumerate(CLASSIFY):
        np.testing.assert_array_equal(got[:, len(COMPARE) + k], CLASSIFY[fn](a), err_msg=fn)


# -- unary: square root, negation, rounding -------------------------------------------------

UNARY = {"wa_f64_sqrt": np.sqrt, "wa_f64_neg": np.negative, "wa_f64_abs": np.abs,
         "wa_f64_floor": np.floor, "wa_f64_ceil": np.ceil, "wa_f64_trunc": np.trunc,
         "wa_f64_round": np.round}


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_sweep(ex, fn, sweep1):
    a = sweep1
    if fn == "wa_f64_sqrt":  # and squares of every size, whose roots are exact
        r = _finite(np.random.default_rng(3), N_SWEEP, 0x200, 0x5ff)
        with np.errstate(all="ignore"):
            a = np.concatenate([a, r * r, np.nextafter(r * r, 0), np.nextafter(r * r, np.inf)])
    got = _f64_out(ex, f"{fn}(a0)", [_as_bits(a)])
    with np.errstate(all="ignore"):
        _check(got, UNARY[fn](a), a, what=fn)


@pytest.mark.parametrize("fn", sorted(UNARY))
@given(values=st.lists(F64_ANY, min_size=1, max_size=200))
def test_unary_drawn(ex, fn, values):
    a = _as_f64(values)
    got = _f64_out(ex, f"{fn}(a0)", [_as_bits(a)])
    with np.errstate(all="ignore"):
        _check(got, UNARY[fn](a), a, what=fn)


# -- conversions -----------------------------------------------------------------------------

def test_to_and_from_float32(ex, sweep1):
    a = sweep1
    got = _run(ex, "    O[i] = wa_f64_to_f32_bits(a0);", [_as_bits(a)], 1)[:, 0]
    with np.errstate(all="ignore"):
        want = a.astype(np.float32)
    np.testing.assert_array_equal(got.view(np.float32), want)  # NaN matches NaN
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(got[finite], want.view(np.uint32)[finite])
    # every float32 class, subnormals included, read by its bits
    rng = np.random.default_rng(5)
    f32 = np.concatenate([rng.integers(0, 1 << 32, 8192, dtype=np.uint64).astype(np.uint32),
                          rng.integers(0, 1 << 23, 2048).astype(np.uint32) | (rng.integers(0, 2, 2048) << 31).astype(np.uint32),
                          np.array([0, 1, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x7f7fffff,
                                    0x00800000, 0x007fffff], np.uint32)])
    got = _f64_out(ex, "wa_f64_from_f32(bitcast<f32>(a0.x))", [f32.astype(np.uint64)])
    with np.errstate(all="ignore"):  # signalling NaNs
        want = f32.view(np.float32).astype(np.float64)
    _check(got, want, want, what="wa_f64_from_f32")
    nan = np.isnan(want)  # x86 quiets a NaN and keeps its payload
    np.testing.assert_array_equal(got[nan], _as_bits(want[nan]) | np.uint64(1 << 51))


def _from_ints(ex, fn: str, load: str, ints: np.ndarray, dtype) -> None:
    got = _f64_out(ex, f"{fn}({load})", [ints.astype(dtype).view(np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32).astype(np.uint64)])
    want = ints.astype(dtype).astype(np.float64)
    _check(got, want, want, what=fn)


def test_from_integers(ex):
    rng = np.random.default_rng(6)
    i64 = np.concatenate([rng.integers(-(1 << 63), (1 << 63) - 1, 8192, dtype=np.int64, endpoint=True),
                          rng.integers(-(1 << 63), (1 << 63) - 1, 8192, dtype=np.int64) >> rng.integers(0, 64, 8192),
                          np.array([0, 1, -1, (1 << 53) + 1, (1 << 54) + 2, (1 << 54) + 6, -(1 << 63), (1 << 63) - 1,
                                    (1 << 63) - 512, (1 << 63) - 513, -(1 << 53) - 1, (1 << 62) + (1 << 9)], np.int64)])
    _from_ints(ex, "wa_f64_from_i64", "a0", i64, np.int64)
    _from_ints(ex, "wa_f64_from_u64", "a0", i64.view(np.uint64), np.uint64)
    _from_ints(ex, "wa_f64_from_i32", "bitcast<i32>(a0.x)", i64.astype(np.int32), np.int32)
    _from_ints(ex, "wa_f64_from_u32", "a0.x", i64.astype(np.uint32), np.uint32)


@given(values=st.lists(st.integers(0, M64), min_size=1, max_size=200))
def test_from_integers_drawn(ex, values):
    u = np.array(values, np.uint64)
    _from_ints(ex, "wa_f64_from_u64", "a0", u, np.uint64)
    _from_ints(ex, "wa_f64_from_i64", "a0", u.view(np.int64), np.int64)


def _to_ints(ex, a: np.ndarray) -> dict:
    body = ("    let s = wa_f64_to_i64(a0); let u = wa_f64_to_u64(a0);\n"
            "    O[6u * i] = bitcast<u32>(wa_f64_to_i32(a0)); O[6u * i + 1u] = wa_f64_to_u32(a0);\n"
            "    O[6u * i + 2u] = s.x; O[6u * i + 3u] = s.y; O[6u * i + 4u] = u.x; O[6u * i + 5u] = u.y;")
    w = _run(ex, body, [_as_bits(a)], 6)
    w64 = w.astype(np.uint64)
    return {"i32": w[:, 0].view(np.int32), "u32": w[:, 1],
            "i64": (w64[:, 2] | (w64[:, 3] << np.uint64(32))).view(np.int64),
            "u64": w64[:, 4] | (w64[:, 5] << np.uint64(32))}


def _check_to_ints(got: dict, a: np.ndarray) -> None:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # NumPy truncates; NaN and out of range give x86's cvttsd2si answers (INT_MIN)
        np.testing.assert_array_equal(got["i32"], a.astype(np.int32))
        np.testing.assert_array_equal(got["i64"], a.astype(np.int64))
        np.testing.assert_array_equal(got["u64"], a.astype(np.uint64))
        # uint32: the int64 conversion's low word, which NumPy's scalar and strided casts give
        # (its contiguous SIMD loop differs out of range); in range, any NumPy cast
        np.testing.assert_array_equal(got["u32"], a.astype(np.int64).astype(np.uint32))
        inside = (a > -1) & (a < 2.0 ** 32)
        np.testing.assert_array_equal(got["u32"][inside], a[inside].astype(np.uint32))
        for k in np.flatnonzero(~inside)[:50]:
            assert got["u32"][k] == np.float64(a[k]).astype(np.uint32), a[k]


def test_to_integers(ex, sweep1):
    a = sweep1
    _check_to_ints(_to_ints(ex, a), a)


@given(values=st.lists(F64_ANY, min_size=1, max_size=200))
def test_to_integers_drawn(ex, values):
    a = _as_f64(values)
    _check_to_ints(_to_ints(ex, a), a)


# -- WebGL2: every helper translates to GLSL ES 3.00 and compiles ------------------------------

F64_HELPERS = sorted(n for n in LIB if n.startswith("wa_f64_"))


def test_every_helper_translates_to_glsl():
    bad = {}
    for name in F64_HELPERS:
        try:
            glsl_lib.translated(name)
        except TranslationError as e:
            bad[name] = str(e)
    assert not bad, bad


@pytest.mark.skipif(shutil.which("glslangValidator") is None, reason="glslangValidator is not installed")
def test_translated_helpers_compile_as_glsl_es_300(tmp_path):
    src = ("#version 300 es\nprecision highp float;\nprecision highp int;\n" + glsl_lib.helpers_for(F64_HELPERS)
           + "out vec4 o;\nvoid main() { o = vec4(0.0); }\n")
    path = tmp_path / "f64.frag"
    path.write_text(src)
    r = subprocess.run(["glslangValidator", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]


# -- remainder and floor division ------------------------------------------------------------

def _floor_divide(a, b):
    """np.floor_divide, but for infinite operands the standard's floor(a / b) (±inf // finite
    is ±inf, finite // ±inf a signed zero), as float32's, where NumPy gives NaN and -1.0."""
    return np.where(np.isinf(a) | np.isinf(b), a / b, np.floor_divide(a, b))


DIVMOD = {"wa_f64_rem": np.remainder, "wa_f64_floordiv": _floor_divide, "wa_f64_fmod": np.fmod}


@pytest.mark.parametrize("fn", sorted(DIVMOD))
def test_divmod_sweep(ex, fn, sweep2):
    a, b = sweep2
    got = _f64_out(ex, f"{fn}(a0, a1)", [_as_bits(a), _as_bits(b)])
    with np.errstate(all="ignore"):
        _check(got, DIVMOD[fn](a, b), a, b, what=fn)


# -- fused multiply-add, against exact rational arithmetic ----------------------------------

def _fma_exact(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (CPython's int / int is correctly rounded, subnormals too)."""
    if np.isnan(a) or np.isnan(b) or np.isnan(c):
        return np.nan
    sp = np.signbit(a) != np.signbit(b)
    if np.isinf(a) or np.isinf(b):
        if a == 0 or b == 0 or (np.isinf(c) and np.signbit(c) != sp):
            return np.nan
        return -np.inf if sp else np.inf
    if np.isinf(c):
        return c
    p = Fraction(a) * Fraction(b)
    if p == 0 and c == 0:
        return -0.0 if sp and np.signbit(c) else 0.0
    r = p + Fraction(c)
    if r == 0:
        return 0.0
    try:
        return float(r)
    except OverflowError:
        return -np.inf if r < 0 else np.inf


def _fma_check(ex, a, b, c) -> None:
    got = _f64_out(ex, "wa_f64_fma(a0, a1, a2)", [_as_bits(a), _as_bits(b), _as_bits(c)])
    want = np.array([_fma_exact(*t) for t in zip(a.tolist(), b.tolist(), c.tolist())])
    _check(got, want, a, b, c, what="wa_f64_fma")


def test_fma_sweep(ex):
    rng = np.random.default_rng(8)
    n = 2048
    e = np.array(EDGE)
    t = np.array(list(itertools.product(e[::2], e[1::2], e[::3]))).T
    z = [0.0, -0.0, 1.0, -1.0, TINY, -TINY, np.inf, -np.inf, np.nan]
    parts = [t, np.array(list(itertools.product(z, z, z))).T, [_random_doubles(rng, n) for _ in range(3)]]
    with np.errstate(all="ignore"):
        # c cancelling the product's leading bits, exactly or all but a few
        a, b = _finite(rng, n, 0x200, 0x5ff), _finite(rng, n, 0x200, 0x5ff)
        steps = rng.integers(-2, 3, n)
        c = -_as_f64((_as_bits(a * b).astype(np.int64) + steps).astype(np.uint64))
        parts.append([a, b, c])
        # integer products needing 54-60 bits, c moving them onto and off a tie
        x = rng.integers(1 << 26, 1 << 30, n).astype(np.float64)
        y = rng.integers(1 << 27, 1 << 30, n).astype(np.float64)
        c = np.ldexp(rng.choice([0.5, -0.5, 1.5, 2 ** -40, -(2 ** -60)], n), np.frexp(x * y)[1] - 53)
        parts.append([x, y, c])
        # products at the overflow and gradual-underflow boundaries, c tiny or large
        ea = rng.integers(1, 0x7ff, n)
        for target in (0x3ff + 1024, 0x3ff - 1022, 0x3ff - 1070):
            eb = np.clip(target + 0x3ff - ea + rng.integers(-2, 3, n), 1, 0x7fe)
            a = _as_f64(_as_bits(_finite(rng, n, 0, 0)) | (ea.astype(np.uint64) << np.uint64(52)))
            b = _as_f64(_as_bits(_finite(rng, n, 0, 0)) | (eb.astype(np.uint64) << np.uint64(52)))
            parts.append([a, b, np.where(rng.random(n) < 0.5, -a * b, _finite(rng, n, 0, 3))])
            parts.append([a, b, rng.choice([0.0, -0.0], n)])  # the product alone, rounded once
        # a zero c with products of every exponent, subnormal factors included
        parts.append([_random_doubles(rng, n), _random_doubles(rng, n), rng.choice([0.0, -0.0], n)])
        # c far above or below the product: sticky bits only
        a, b = _finite(rng, n, 0x300, 0x4ff), _finite(rng, n, 0x300, 0x4ff)
        c = a * b * 2.0 ** rng.integers(-140, 140, n)
        parts.append([a, b, c])
    a, b, c = (np.concatenate([np.asarray(p[k], np.float64) for p in parts]) for k in range(3))
    _fma_check(ex, a, b, c)


@given(triples=st.lists(st.tuples(F64_ANY, F64_ANY, F64_ANY), min_size=1, max_size=100))
def test_fma_drawn(ex, triples):
    a, b, c = (_as_f64([t[k] for t in triples]) for k in range(3))
    _fma_check(ex, a, b, c)
