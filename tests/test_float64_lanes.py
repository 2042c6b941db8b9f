"""The hardware float64 lane (kernels/wgsl_f64_hw.py) bit for bit against the software lane.

Where the device offers 64-bit floats to shaders (lavapipe does: Vulkan's shaderFloat64 and
shaderInt64), float64 kernels run the correctly rounded primitives on the hardware instead of
in software. Both lanes must give the same bits, NaN payloads included: the primitives on
every pair of edge values, random bit patterns and the hard cases of a fused multiply-add
(cancellation, ties, products at the edges of the range where the emulation hands over to
software); the namespace's ops through a device on each lane; and the device's choice
(probe, refusal, the switch).

    XDG_RUNTIME_DIR=/tmp python -m pytest -q tests/test_float64_lanes.py
"""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core.device import Device, default_device
from webarray.kernels import wgsl_f64, wgsl_f64_hw  # noqa: F401  (registers the helpers)

from test_f64_soft import EDGE, F64_ANY, _as_bits, _as_f64, _finite, _random_doubles
from test_f64_soft import _run as soft_run

EX = default_device().executor
HAS_F64 = getattr(EX, "shader_f64", False)
pytestmark = pytest.mark.skipif(not HAS_F64, reason="the adapter offers no 64-bit floats to shaders")


@pytest.fixture(scope="module")
def hw():
    dev = Device(EX, float64=True, float64_lane="hardware")
    assert dev.float64_lane == "hardware"
    return dev


@pytest.fixture(scope="module")
def sw():
    return Device(EX, float64=True, float64_lane="software")


def _run(call: str, args: list[np.ndarray], lane: str) -> np.ndarray:
    """``call`` (a float64 expression of a0, a1, ...) on every element, as result bits; lane
    is ``software`` or a hardware fma variant (``fused``, ``emulated``)."""
    lower = None if lane == "software" else (lambda src: wgsl_f64_hw.lower(src, lane))
    body = f"    let r = {call};\n    O[2u * i] = r.x; O[2u * i + 1u] = r.y;"
    words = soft_run(EX, body, [_as_bits(a) for a in args], 2, lower)
    return words[:, 0].astype(np.uint64) | (words[:, 1].astype(np.uint64) << np.uint64(32))


def _same(hard: np.ndarray, soft: np.ndarray, *args: np.ndarray, what: str) -> None:
    bad = np.flatnonzero(hard != soft)
    if bad.size:
        rows = [f"  {what}({', '.join(f'{a[k]!r}' for a in args)}): hardware {int(hard[k]):#018x}, "
                f"software {int(soft[k]):#018x}" for k in bad[:8]]
        raise AssertionError(f"{bad.size} of {len(hard)} differ:\n" + "\n".join(rows))


def _pairs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    e = np.array(EDGE)
    a, b = (np.array(v) for v in zip(*itertools.product(e, e)))
    n = 4096
    near = _finite(rng, n, 1, 0x7fe)
    parts_a = [a, _random_doubles(rng, n), _finite(rng, n, 0, 0x7fe), near, near]
    parts_b = [b, _random_doubles(rng, n), _finite(rng, n, 0, 0x7fe),
               -near * (1 + rng.choice([-1, 1], n) * 2.0 ** -rng.integers(1, 53, n)),  # cancellation
               _finite(rng, n, 0x3ff - 60, 0x3ff + 60)]
    return np.concatenate(parts_a), np.concatenate(parts_b)


def _variants() -> list[str]:
    """The fma variants this device can run correctly: the emulation always, the device's own
    fma only where the probe found it fused."""
    lane = Device(EX, float64=True)._choose_f64_lane()
    return ["emulated", "fused"] if lane == ("hardware", "fused") else ["emulated"]


@pytest.mark.parametrize("op", ["wa_f64_add", "wa_f64_sub", "wa_f64_mul", "wa_f64_div"])
def test_arithmetic_bit_for_bit(op):
    a, b = _pairs(1)
    with np.errstate(all="ignore"):
        want = {"wa_f64_add": np.add, "wa_f64_sub": np.subtract,
                "wa_f64_mul": np.multiply, "wa_f64_div": np.divide}[op](a, b)
    soft = _run(f"{op}(a0, a1)", [a, b], "software")
    hard = _run(f"{op}(a0, a1)", [a, b], "emulated")
    _same(hard, soft, a, b, what=op)
    finite = ~np.isnan(want)
    assert (hard[finite] == _as_bits(want)[finite]).all()  # and both are NumPy's


def test_sqrt_bit_for_bit():
    a, _ = _pairs(2)
    soft = _run("wa_f64_sqrt(a0)", [a], "software")
    hard = _run("wa_f64_sqrt(a0)", [a], "emulated")
    _same(hard, soft, a, what="sqrt")
    with np.errstate(all="ignore"):
        want = np.sqrt(a)
    assert (hard[~np.isnan(want)] == _as_bits(want)[~np.isnan(want)]).all()


def _triples(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """fma operands: edge values, random bits, and the cases that need the exact product:
    c cancelling a*b to a few bits, c at half an ulp of a*b (ties), tiny c, and products at
    the bounds of the emulation's range (exponent sums near -900 and 1000, factors near
    2^990) and of the format (underflow, overflow)."""
    rng = np.random.default_rng(seed)
    e = np.array(EDGE[::2])
    a, b, c = (np.array(v) for v in zip(*itertools.product(e, e, e)))
    parts = [(a, b, c)]
    n = 8192
    parts.append((_random_doubles(rng, n), _random_doubles(rng, n), _random_doubles(rng, n)))
    x, y = _finite(rng, n, 0x200, 0x600), _finite(rng, n, 0x200, 0x600)
    with np.errstate(all="ignore"):
        p = x * y
        ulp = np.spacing(np.abs(p))
        parts.append((x, y, -p))
        parts.append((x, y, -p + ulp * rng.integers(-4, 5, n)))
        parts.append((x, y, ulp * rng.choice([0.5, -0.5, 0.25, 1.5], n)))
        parts.append((x, y, _finite(rng, n, 0, 0x30)))
        for lo, hi in ((0x3ff - 520, 0x3ff - 380), (0x3ff + 480, 0x3ff + 520), (0x3ff + 985, 0x3ff + 995)):
            u, v = _finite(rng, n, lo, hi), _finite(rng, n, 0x3ff - 40, 0x3ff + 40)
            w = -(u * v) * (1 + rng.uniform(-1e-12, 1e-12, n))
            parts.append((u, v, w))
            parts.append((u, v, _random_doubles(rng, n)))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


@pytest.mark.parametrize("variant", _variants() if HAS_F64 else ["emulated"])
def test_fma_bit_for_bit(variant):
    a, b, c = _triples(3)
    soft = _run("wa_f64_fma(a0, a1, a2)", [a, b, c], "software")
    hard = _run("wa_f64_fma(a0, a1, a2)", [a, b, c], variant)
    _same(hard, soft, a, b, c, what=f"fma[{variant}]")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(F64_ANY, F64_ANY, F64_ANY), min_size=1, max_size=64))
def test_hypothesis_draws_bit_for_bit(triples):
    a, b, c = (_as_f64(np.array(v, np.uint64)) for v in zip(*triples))
    for call in ("wa_f64_add(a0, a1)", "wa_f64_sub(a0, a2)", "wa_f64_mul(a1, a2)", "wa_f64_div(a0, a1)",
                 "wa_f64_sqrt(a2)", "wa_f64_fma(a0, a1, a2)"):
        _same(_run(call, [a, b, c], "emulated"), _run(call, [a, b, c], "software"), a, b, c, what=call)


def test_the_device_fma_is_probed():
    """lavapipe's fma rounds twice (0.1 * 10 - 1 is 0 there, 2^-54 fused): the probe says so,
    and the emulation, not the device's fma, stands in for it."""
    got = _run("wa_f64_fma_fused(a0, a1, a2)", [np.array([0.1]), np.array([10.0]), np.array([-1.0])], "emulated")
    fused = _as_f64(got)[0] == 2.0 ** -54
    lane = Device(EX, float64=True)._choose_f64_lane()
    assert lane == ("hardware", "fused" if fused else "emulated")


# -- through the namespace -------------------------------------------------------------------

def _both(f, *arrays):
    out = []
    for dev in (Device(EX, float64=True, float64_lane="hardware"),
                Device(EX, float64=True, float64_lane="software")):
        out.append(np.from_dlpack(f(*[xp.asarray(a, device=dev) for a in arrays])).view(np.uint64))
    return out


@pytest.mark.parametrize("fusion", [True, False])
def test_a_product_and_a_sum_stay_two_roundings(fusion):
    """x * y + z is a multiply and an add in NumPy; neither lane may fuse them, nor simplify
    (x + y) - x to y, in a fused kernel or in two."""
    x = np.array([0.1, 1 + 2.0 ** -52, 1e16, 3.0])
    y = np.array([10.0, 1 - 2.0 ** -53, 1.0, 1e-17])
    z = np.array([-1.0, -1.0, -1e16, 7.0])
    with xp.fusion.enabled(fusion):
        hard, soft = _both(lambda a, b, c: a * b + c, x, y, z)
        assert (hard == soft).all() and (hard == (x * y + z).view(np.uint64)).all()
        hard, soft = _both(lambda a, b: (a + b) - a, x, y)
        assert (hard == soft).all() and (hard == ((x + y) - x).view(np.uint64)).all()


def test_no_algebra_on_constant_or_repeated_operands_in_helpers():
    """The library adds constants (``wa_f64_add(m, 0)`` in logaddexp): folded as if exact,
    -0 + 0 would stay -0; and x - x, x * 0 must keep inf and NaN."""
    x = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 5e-324, -2.5, 1e308])
    zero = "vec2<u32>(0u, 0u)"
    for call in (f"wa_f64_add(a0, {zero})", f"wa_f64_mul(a0, {zero})", "wa_f64_sub(a0, a0)",
                 f"wa_f64_sub({zero}, a0)", f"wa_f64_fma(a0, vec2<u32>(0u, 0x3ff00000u), {zero})",
                 "wa_f64_div(a0, a0)", f"wa_f64_fma(a0, {zero}, a0)"):
        _same(_run(call, [x], "emulated"), _run(call, [x], "software"), x, what=call)


@pytest.mark.parametrize("fusion", [True, False])
def test_no_algebra_on_constants_or_repeated_operands(fusion):
    """Compilers fold x + 0 to x (wrong for -0), x * 0 to 0 and x - x to 0 (wrong for inf and
    NaN) when they may treat float64 as exact: the lowered kernels must not let them."""
    x = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 5e-324, -2.5])
    with xp.fusion.enabled(fusion), np.errstate(all="ignore"):
        for f, want in ((lambda a: a + xp.zeros_like(a), x + 0.0), (lambda a: a * xp.zeros_like(a), x * 0.0),
                        (lambda a: a - a, x - x), (lambda a: a * 1.0 + 0.0, x * 1.0 + 0.0),
                        (lambda a: xp.zeros_like(a) - a, 0.0 - x)):
            hard, soft = _both(f, x)
            assert (hard == soft).all(), (hard, soft)
            assert (np.isnan(want) | (hard == want.view(np.uint64))).all(), (hard.view(np.float64), want)


@pytest.mark.parametrize("name", ["exp", "log", "sin", "atan2", "divide", "remainder", "matmul", "sum"])
def test_namespace_ops_agree(name):
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.standard_normal(200) * 10, [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e308]])
    y = np.concatenate([rng.standard_normal(200), [1.0, -0.0, np.inf, 2.0, 1.0, 3.0, 1e-308]])
    if name == "matmul":
        x, y = rng.standard_normal((33, 17)), rng.standard_normal((17, 9))
    with np.errstate(all="ignore"):
        if name in ("atan2", "divide", "remainder", "matmul"):
            hard, soft = _both(getattr(xp, name), x, y)
        else:
            hard, soft = _both(getattr(xp, name), x)
    nan = np.isnan(hard.view(np.float64)) & np.isnan(soft.view(np.float64))
    assert ((hard == soft) | nan).all()


# -- the device's choice ---------------------------------------------------------------------

def test_the_lane_switch():
    assert Device(EX, float64=True, float64_lane="software").float64_lane == "software"
    dev = Device(EX, float64=True)
    assert dev.float64_lane == "hardware" and "64-bit floats" in dev.float64_lane_note
    with pytest.raises(ValueError, match="auto, software, hardware.*'fast'"):
        Device(EX, float64=True, float64_lane="fast")


def test_the_first_float64_kernel_may_come_while_jit_records():
    """The probe reads its results back; under webarray.jit's recording reads are refused, so
    the probe runs on the executor itself."""
    dev = Device(EX, float64=True)
    assert dev._f64_lane is None

    @xp.jit
    def f(a):
        return xp.sqrt(a) * 3.0 + 1.0

    x = np.array([2.0, 5e-324, np.inf, -1.0])
    for _ in range(2):
        with np.errstate(invalid="ignore"):
            got = np.from_dlpack(f(xp.asarray(x, device=dev)))
            assert (np.isnan(got) == np.isnan(np.sqrt(x))).all()
            ok = ~np.isnan(got)
            assert (got[ok].view(np.uint64) == (np.sqrt(x[ok]) * 3.0 + 1.0).view(np.uint64)).all()
    assert dev.float64_lane == "hardware"


def test_hardware_refused_where_the_executor_has_none():
    class NoF64:
        backend = "native"
        shader_f64 = False

        def __getattr__(self, name):
            return getattr(EX, name)

    dev = Device(NoF64(), float64=True, float64_lane="hardware")
    with pytest.raises(RuntimeError, match="hardware float64 lane is not available.*no 64-bit floats"):
        dev.float64_lane
    assert Device(NoF64(), float64=True).float64_lane == "software"


def test_the_probe_verdict_names_a_wrong_result():
    cases = wgsl_f64_hw.probe_cases(8)
    want = wgsl_f64_hw.probe_expected(cases)
    words = []
    for (a, b, c), w in zip(cases, want):
        words += [a, b, c] + list(w)
    good = struct.pack(f"<{len(words)}d", *words)
    assert wgsl_f64_hw.probe_verdict(cases, good) == ("fused", None)
    words[3 + 4] = 0.0  # the first case's sqrt
    variant, why = wgsl_f64_hw.probe_verdict(cases, struct.pack(f"<{len(words)}d", *words))
    assert variant is None and why.startswith("sqrt(0.1, 10.0, -1.0) gave 0.0")
    words[3 + 4], words[3 + 5] = want[0][4], 0.0  # the device's fma: rounded twice
    assert wgsl_f64_hw.probe_verdict(cases, struct.pack(f"<{len(words)}d", *words)) == ("emulated", None)


def test_the_written_out_product_equals_the_looped_one(monkeypatch):
    """Where the device's fma is fused (the H200) the float64 product is written out as
    float32's (accumulators in registers) instead of looping over a long software
    multiply-add: the same terms in the same order, so the same bits. Forced here on this
    device (with the emulated fma), against the looped kernel."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 37, 45)) * 10.0 ** rng.integers(-5, 5, (3, 37, 45))
    b = rng.standard_normal((45, 29))
    a[0, 0, 0], b[3, 4] = np.inf, np.nan
    looped = Device(EX, float64=True)
    written = Device(EX, float64=True)
    monkeypatch.setattr(Device, "float64_fma_fused", property(lambda self: self is written))
    with np.errstate(invalid="ignore"):
        x = np.from_dlpack(xp.asarray(a, device=looped) @ xp.asarray(b, device=looped))
        y = np.from_dlpack(xp.asarray(a, device=written) @ xp.asarray(b, device=written))
    assert (x.view(np.uint64) == y.view(np.uint64)).all()
    ok = np.isfinite(x)
    assert ok.sum() > 3000 and np.allclose(x[ok], (a @ b)[ok], rtol=1e-12, atol=1e-300)
