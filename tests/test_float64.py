"""float64 arrays (issue #20): stored as their IEEE bits in word pairs, computed by software
binary64 (kernels/wgsl_f64.py) or the adapter's own 64-bit floats, bit for bit against NumPy's
float64, on every device (WEBARRAY_FLOAT64=0 switches them off). Edge values (±0, subnormals, the largest finite values, ±inf, NaN), random bit
patterns, broadcasting, Python scalars, non-contiguous views, promotion with float32;
fusion on and off (./test.sh runs the suite both ways)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core.device import Device, default_device
from helpers import check_switch

EDGE = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
        -2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
        math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 1e-300, 1e300,
        1.0000000000000002, 0.9999999999999999, 2.0 ** 52, 2.0 ** 52 + 1, 2.0 ** 53,
        4503599627370495.5, 0.1, 1 / 3, math.pi, -math.e, 123456789.123456789]


@pytest.fixture(scope="module")
def dev():
    return Device(default_device().executor, float64=True)


def bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, but any NaN matches any NaN (NumPy's NaN payloads are the CPU's)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        g, w = got.ravel(), want.ravel()
        nan = np.isnan(w)
        assert (np.isnan(g) == nan).all(), (g[np.isnan(g) != nan], w[np.isnan(g) != nan])
        bad = ~nan & (g.view(f"u{g.itemsize}") != w.view(f"u{w.itemsize}"))
        assert not bad.any(), list(zip(g[bad][:5], w[bad][:5]))
    else:
        assert (got == want).all(), (got, want)


def host(x) -> np.ndarray:
    return np.from_dlpack(x)


doubles = st.integers(0, 2 ** 64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0])
values = st.lists(st.one_of(doubles, st.sampled_from(EDGE), st.floats(-1e6, 1e6)),
                  min_size=1, max_size=64)


def test_float64_is_listed_on_every_device(dev):
    assert xp.float64 in xp.__array_namespace_info__().dtypes(device=dev).values()
    assert xp.float64 not in Device(dev.executor, float64=False).dtypes
    assert xp.__array_namespace_info__().default_dtypes(device=dev)["real floating"] == xp.float32


def test_round_trip_keeps_every_bit(dev):
    x = xp.asarray(EDGE, dtype=xp.float64, device=dev)
    assert x.dtype == xp.float64 and x.device == dev
    assert [bits(v) for v in x._host_nested()] == [bits(v) for v in EDGE]
    a = np.array(EDGE, dtype=np.float64)
    same(host(xp.asarray(a, device=dev)), a)
    assert float(xp.asarray(0.1, dtype=xp.float64, device=dev)) == 0.1


UNARY = ["abs", "negative", "positive", "sqrt", "square", "floor", "ceil", "trunc", "round", "sign",
         "isnan", "isinf", "isfinite", "signbit"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum",
          "minimum", "copysign", "equal",
          "not_equal", "less", "less_equal", "greater", "greater_equal"]
NP = {"round": np.rint}


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=25, deadline=None)
@given(v=values)
def test_unary_ops_match_numpy(dev, name, v):
    a = np.array(v, dtype=np.float64)
    with np.errstate(all="ignore"):
        want = NP.get(name, getattr(np, name))(a)
    same(host(getattr(xp, name)(xp.asarray(a, device=dev))), want)


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=25, deadline=None)
@given(v=values, w=values)
def test_binary_ops_match_numpy(dev, name, v, w):
    n = min(len(v), len(w))
    a, b = np.array(v[:n], dtype=np.float64), np.array(w[:n], dtype=np.float64)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
        if name == "floor_divide":  # the standard's ±inf // finite = ±inf, finite // ±inf = ±0
            want = np.where(np.isinf(a) | np.isinf(b), a / b, want)  # (NumPy: NaN and -1.0)
    same(host(getattr(xp, name)(xp.asarray(a, device=dev), xp.asarray(b, device=dev))), want)


def test_every_edge_pair(dev):
    a = np.array(EDGE, dtype=np.float64)
    x, y = np.meshgrid(a, a)
    xa, ya = xp.asarray(x, device=dev), xp.asarray(y, device=dev)
    with np.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "divide"):
            same(host(getattr(xp, name)(xa, ya)), getattr(np, name)(x, y))
        same(host(xp.sqrt(xa)), np.sqrt(x))


def test_ramps_match_numpy(dev):
    for args in ((0.0, 1.0, 0.1), (-3.5, 10.0, 0.25), (1e-3, 2e-3, 1e-7), (0.0, 1e300, 1e298)):
        same(host(xp.arange(*args, dtype=xp.float64, device=dev)), np.arange(*args))
    for start, stop, num, endpoint in ((0.0, 1.0, 7, True), (-1.0, 1.0, 10, False),
                                       (0.1, 0.7, 50, True), (5.0, 5.0, 3, True)):
        same(host(xp.linspace(start, stop, num, dtype=xp.float64, device=dev, endpoint=endpoint)),
             np.linspace(start, stop, num, endpoint=endpoint))


def test_scalars_broadcasting_views_and_promotion(dev):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6)) * 1e3
    b = rng.standard_normal(6)
    xa, xb = xp.asarray(a, device=dev), xp.asarray(b, device=dev)
    same(host(xa * 0.1 + xb), a * 0.1 + b)
    same(host(2.5 / xa[:, ::2]), 2.5 / a[:, ::2])
    same(host(xp.matrix_transpose(xa)[1:, :3] - 1), a.T[1:, :3] - 1)
    f = rng.standard_normal(6).astype(np.float32)
    xf = xp.asarray(f, device=dev)
    same(host(xb + xf), b + f)  # float32 promotes to float64 exactly
    same(host(xp.where(xa > 0, xa, -1.0)), np.where(a > 0, a, -1.0))
    same(host(xp.clip(xa, -100.0, 100.0)), np.clip(a, -100.0, 100.0))


CASTS = [np.float32, np.int8, np.int32, np.uint16, np.uint32, np.int64, np.uint64, np.bool_]


@pytest.mark.parametrize("to", CASTS)
def test_astype_to_and_from_float64(dev, to):
    rng = np.random.default_rng(5)
    a = np.concatenate([np.array(EDGE), rng.standard_normal(200) * 10.0 ** rng.integers(-5, 12, 200)])
    if to is not np.float32 and to is not np.bool_:  # out-of-range float to int is undefined
        info = np.iinfo(to)
        a = a[np.isfinite(a) & (a > info.min - 1) & (a < info.max + 1)]
        a = a[np.abs(a) < 2.0 ** 62]
    x = xp.asarray(a, device=dev)
    name = np.dtype(to).name if to is not np.bool_ else "bool"
    with np.errstate(all="ignore"):
        same(host(xp.astype(x, getattr(xp, name))), a.astype(to))
        back = a.astype(to)
    same(host(xp.astype(xp.asarray(back, device=dev), xp.float64)), back.astype(np.float64))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 4, 5), (64, 64, 64), (100, 37, 70),
                                   (1, 3000, 2), (2, 5000, 3)])
def test_matmul_within_blas_rounding(dev, m, k, n):
    """One rounding per fused multiply-add, summed in k order (beyond 2048, in chunks whose
    products are added): within k ulps of the exact product, as BLAS's loops are; and
    exact where every partial sum is (integer values)."""
    rng = np.random.default_rng(m * 1000 + k)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    got = host(xp.asarray(a, device=dev) @ xp.asarray(b, device=dev))
    bound = 2 * k * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))
    assert (np.abs(got - a @ b) <= bound).all()
    ai, bi = np.round(a * 8), np.round(b * 8)
    same(host(xp.asarray(ai, device=dev) @ xp.asarray(bi, device=dev)), ai @ bi)


def test_unique_values_and_counts(dev):
    a = np.array([0.5, -0.0, 0.0, np.nan, 0.5, np.inf, np.nan, 1e-300, -1e300, 0.5])
    x = xp.asarray(a, device=dev)
    got = host(xp.unique_values(x))
    want = np.unique(a, equal_nan=False)
    assert np.array_equal(np.sort(got), np.sort(want), equal_nan=True)
    vals, counts = xp.unique_counts(x)
    c = dict(zip(host(vals).tolist(), host(counts).tolist()))
    assert c[0.5] == 3 and c[0.0] == 2 and c[np.inf] == 1


def test_batched_products_vecdot_tensordot(dev):
    rng = np.random.default_rng(9)
    x = np.round(rng.standard_normal((2, 3, 4)) * 16)
    y = np.round(rng.standard_normal((4, 5)) * 16)
    xx, yy = xp.asarray(x, device=dev), xp.asarray(y, device=dev)
    same(host(xx @ yy), x @ y)
    same(host(xp.matrix_transpose(xx) @ xx), np.swapaxes(x, -1, -2) @ x)
    same(host(xp.vecdot(xx, xx)), np.sum(x * x, axis=-1))
    same(host(xp.tensordot(xx, yy, axes=1)), np.tensordot(x, y, axes=1))


def test_eig_computes_float64_rather_than_round_it(dev):
    # eigenvalues 1e-10 apart: complex64 kernels would merge them (tests/test_linalg_float64.py)
    a = np.diag([1.0, 1.0 + 1e-10, 2.0, 3.0]) + np.triu(np.full((4, 4), 0.1), 1)
    x = xp.asarray(a, device=dev)
    for f in (lambda m: xp.linalg.eig(m)[0], xp.linalg.eigvals):
        w = host(f(x))
        assert w.dtype == np.complex128
        np.testing.assert_allclose(np.sort(w.real), [1.0, 1.0 + 1e-10, 2.0, 3.0], rtol=1e-14, atol=0)
    x = xp.asarray(np.eye(4) + 0.1, device=dev)
    assert host(xp.fft.fft(xp.astype(x, xp.float32))).dtype == np.complex64
    assert host(xp.fft.fft(x)).dtype == np.complex128  # tests/test_fft_complex128.py
    assert host(xp.linalg.inv(x)).dtype == np.float64  # tests/test_linalg_float64.py


def test_ops_without_a_float64_lane_say_so(dev):
    from webarray.kernels.ops import TABLE

    x = xp.asarray([1.0, 2.0], dtype=xp.float64, device=dev)
    missing = [op.name for op in TABLE.values() if "D" not in op.wgsl and op.arity == 1
               and op.inputs in ("floating-point", "real floating-point") and hasattr(xp, op.name)]
    if not missing:
        pytest.skip("every floating-point function of the table has a float64 lane")
    with pytest.raises(TypeError, match=f"{missing[0]} is not implemented for float64 yet"):
        getattr(xp, missing[0])(x)
    assert host(x + 1.0).tolist() == [2.0, 3.0]  # the device keeps working


# In the browser (Pyodide has no NumPy here): Python's own floats are IEEE binary64, so they
# are the reference, bit for bit. WebGPU (SwiftShader) runs the same software lane;
# WebGL2 keeps one word per element and says so.
BROWSER = r'''
import math, random, struct
import webarray as xp

rng = random.Random(11)
def draw():
    if rng.random() < 0.5:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    return rng.uniform(-1e3, 1e3)
edge = [0.0, -0.0, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308, math.inf, -math.inf,
        math.nan, 1.0, 0.5, 2.5, 1.0000000000000002, 0.1]
a = edge + [draw() for _ in range(300)]
b = edge[::-1] + [draw() for _ in range(300)]
bits = lambda v: struct.unpack("<Q", struct.pack("<d", v))[0]
def check(name, got, want):
    for g, w in zip(got, want):
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g), (name, g, w)
        else:
            assert (bits(g) == bits(w)) if isinstance(w, float) else g == w, (name, g, w)
    print("ok", name)
def ref(op, x, y):
    try:
        return op(x, y)
    except ZeroDivisionError:
        if x != x or y != y or x == 0:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
if "float64" not in xp.__array_namespace_info__().dtypes():
    try:
        xp.asarray([1.0], dtype=xp.float64)
    except TypeError as e:
        print("refused:", e)
    raise SystemExit(0)
x, y = xp.asarray(a, dtype=xp.float64), xp.asarray(b, dtype=xp.float64)
with_inf = lambda f: (lambda p, q: f(p, q) if math.isfinite(p) and math.isfinite(q) else None)
check("add", (x + y)._host_nested(), [p + q for p, q in zip(a, b)])
check("subtract", (x - y)._host_nested(), [p - q for p, q in zip(a, b)])
check("multiply", (x * y)._host_nested(), [p * q for p, q in zip(a, b)])
check("divide", (x / y)._host_nested(), [ref(lambda p, q: p / q, p, q) for p, q in zip(a, b)])
pos = [abs(v) for v in a]
check("sqrt", xp.sqrt(xp.asarray(pos, dtype=xp.float64))._host_nested(), [math.sqrt(v) for v in pos])
check("less", (x < y)._host_nested(), [p < q for p, q in zip(a, b)])
check("equal", (x == y)._host_nested(), [p == q for p, q in zip(a, b)])
fin = [v for v in a if math.isfinite(v)]
check("floor", xp.floor(xp.asarray(fin, dtype=xp.float64))._host_nested(), [v if v == 0 or abs(v) >= 2**52 else float(math.floor(v)) for v in fin])
print("all float64 checks passed on", xp.__array_namespace_info__().default_device())
'''


@pytest.mark.skipif(__import__("os").environ.get("WEBARRAY_SKIP_BROWSER") == "1",
                    reason="WEBARRAY_SKIP_BROWSER=1")
@pytest.mark.parametrize("backend", ["webgpu", "webgl2"])
def test_float64_in_the_browser(tmp_path, backend):
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "f64.py"
    script.write_text(BROWSER)
    r = subprocess.run([sys.executable, "-m", "webarray.browser", "run", str(script), "--backend",
                        backend, "--env", "WEBARRAY_FLOAT64=1", "--timeout", "300"],
                       capture_output=True, text=True, timeout=400,
                       cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for name in ("add", "subtract", "multiply", "divide", "sqrt", "less", "equal", "floor"):
        assert f"ok {name}" in r.stdout, r.stdout[-3000:]
    assert "all float64 checks passed" in r.stdout and f"Device('{backend}'" in r.stdout


DEFAULTS = r'''
import webarray as xp
info = xp.__array_namespace_info__()
assert info.default_dtypes()["real floating"] == xp.float64
assert xp.float64 in info.dtypes().values()
for a in (xp.asarray([0.1, 0.2]), xp.zeros(3), xp.ones((2, 2)), xp.empty(1), xp.arange(0.5, 3.0),
          xp.linspace(0, 1, 5), xp.eye(2), xp.full(2, 0.1)):
    assert a.dtype == xp.float64, a.dtype
assert xp.asarray([1, 2]).dtype == xp.int32
print("defaults ok", float(xp.asarray(0.1)) == 0.1)
'''


def test_float64_as_the_default_float(tmp_path):
    """WEBARRAY_DEFAULT_FLOAT=float64: Python floats and every creation function default to
    float64 (and devices offer it), as NumPy does; any other value is refused by name."""
    check_switch(tmp_path, "WEBARRAY_DEFAULT_FLOAT", "float64", DEFAULTS, "defaults ok True",
                 "float16", "WEBARRAY_DEFAULT_FLOAT must be float32 or float64",
                 unset=("WEBARRAY_FLOAT64",))


OFF = r'''
import webarray as xp
info = xp.__array_namespace_info__()
assert "float64" not in info.dtypes() and "complex128" not in info.dtypes(), info.dtypes()
assert info.default_dtypes()["real floating"] == xp.float32
try:
    xp.ones(2, dtype=xp.float64)
except TypeError as e:
    assert "float64 is not supported" in str(e) and "WEBARRAY_FLOAT64=0" in str(e), e
else:
    raise AssertionError("float64 made with WEBARRAY_FLOAT64=0")
print("float64 off ok")
'''


def test_float64_can_be_switched_off(tmp_path):
    """float64 and complex128 are listed on every device; WEBARRAY_FLOAT64=0 leaves them out
    (a TypeError naming the switch), for a page that must never compile a float64 kernel."""
    check_switch(tmp_path, "WEBARRAY_FLOAT64", "0", OFF, "float64 off ok")


# The elementary functions on WebGPU in Chromium (SwiftShader): run as the stages ops.STAGED
# lists (its compiler crashed the GPU process on several of them whole), bit for bit the
# native device's (float64 pow and complex128 exp: tests/test_webgl2.py, the same stages);
# a kernel above the device's limit (lowered here: every function's stages are below it) is
# refused with NotImplementedError before compiling, and the device goes on working.
STAGED_VALUES = [0.0, -0.0, 1e-300, -0.5, 0.3, 1.0, -1.0, 3.0, -20.5, 100.25, 709.9, 1e300,
                 float("inf"), float("-inf"), float("nan")]
STAGED_C = [complex(a, b) for a in (0.0, -1.5, 3.0, 709.9, float("inf")) for b in (0.0, -0.25, 2.0, 1e300)]
STAGED_SCRIPT = r'''
import struct
import webarray as xp
inf, nan = float("inf"), float("nan")
bits = lambda vs: [struct.unpack("<Q", struct.pack("<d", p))[0]
                   for v in vs for p in ((v.real, v.imag) if isinstance(v, complex) else (v,))]
x = xp.asarray(VALUES, dtype=xp.float64)
y = xp.flip(x)
z = xp.asarray([complex(a, b) for a, b in PAIRS], dtype=xp.complex128)
print("sin", bits(xp.sin(x)._host_nested()))
print("atan2", bits(xp.atan2(x, y)._host_nested()))
print("acosh", bits(xp.acosh(x)._host_nested()))
print("zlog", bits(xp.log(z)._host_nested()))
dev = xp.__array_namespace_info__().default_device()
limit, dev.inline_limit = dev.inline_limit, 300_000  # (every function's stages are below the limit)
try:
    xp.log(x)._host_nested()
    print("ran log")
except NotImplementedError as e:
    print("refused log", "size" if "characters of WGSL" in str(e) else e)
dev.inline_limit = limit
print("after", (x[:3] * 2)._host_nested())
'''


@pytest.mark.skipif(__import__("os").environ.get("WEBARRAY_SKIP_BROWSER") == "1",
                    reason="WEBARRAY_SKIP_BROWSER=1")
def test_staged_functions_on_browser_webgpu_match_the_native_device_bit_for_bit(tmp_path):
    import json
    import struct
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "staged.py"
    script.write_text(STAGED_SCRIPT.replace("VALUES", repr(STAGED_VALUES))
                      .replace("PAIRS", repr([(v.real, v.imag) for v in STAGED_C])))
    r = subprocess.run([sys.executable, "-m", "webarray.browser", "run", str(script), "--backend",
                        "webgpu", "--timeout", "700"], capture_output=True, text=True, timeout=800,
                       cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    bits = lambda vs: [struct.unpack("<Q", struct.pack("<d", p))[0]
                       for v in vs for p in ((v.real, v.imag) if isinstance(v, complex) else (v,))]
    x = xp.asarray(STAGED_VALUES, dtype=xp.float64)
    z = xp.asarray(STAGED_C, dtype=xp.complex128)
    nan = lambda b: (b >> 52) & 0x7ff == 0x7ff and b & (2 ** 52 - 1) != 0
    for name, want in (("sin", xp.sin(x)), ("atan2", xp.atan2(x, xp.flip(x))),
                       ("acosh", xp.acosh(x)), ("zlog", xp.log(z))):
        got, want = json.loads(lines[name]), bits(want._host_nested())
        assert [None if nan(w) else g for g, w in zip(got, want)] == [None if nan(w) else w for w in want], name
        assert all(nan(g) for g, w in zip(got, want) if nan(w)), name
    assert "refused log size" in r.stdout
    assert lines["after"] == "[0.0, -0.0, 2e-300]"
