"""webarray.cupy against NumPy: the NumPy-style namespace, ndarray methods, random numbers,
memory and device shims, fuse, and the examples. User kernels: tests/test_cupy_kernels.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as wa
import webarray.cupy as cp
from webarray._core import graph as _graph, launch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

# NumPy's dtype for each device dtype the layer computes in (float64 is not on the device)
NP = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "float32": np.float32}
NAMES = list(NP)


def numpy_dtype_here(d: np.dtype) -> np.dtype:
    """NumPy's result dtype as this layer documents it: float64 -> float32."""
    return np.dtype(np.float32) if d == np.float64 else np.dtype(d)


def arrays(dtype, shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=5)):
    if np.dtype(dtype).kind == "f":
        elements = st.floats(-100, 100, width=32)
    else:
        elements = None
    return hnp.arrays(dtype, shape, elements=elements)


def assert_summed(got, exact, abs_sum, n):
    """A float32 sum (or mean, or prefix sums) of n terms against its float64 value: the
    error of any summation order is at most about n·eps·Σ|terms|."""
    assert isinstance(got, cp.ndarray), type(got)
    g = cp.asnumpy(got)
    assert g.dtype == np.float32 and g.shape == np.shape(exact), (g.dtype, g.shape)
    bound = max(n, 1) * 2.0**-23 * np.asarray(abs_sum) + 1e-30
    assert np.all(np.abs(g.astype(np.float64) - exact) <= bound), (g, exact)


def assert_same(got, want, exact=False):
    assert isinstance(got, cp.ndarray), type(got)
    g = cp.asnumpy(got)
    want = np.asarray(want)
    assert g.dtype == numpy_dtype_here(want.dtype), (g.dtype, want.dtype)
    assert g.shape == want.shape
    if exact or g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want.astype(g.dtype), rtol=2e-6, atol=1e-6)


# -- promotion and ufuncs ---------------------------------------------------------------------

@given(st.sampled_from(NAMES), st.sampled_from(NAMES), st.data())
def test_binary_promotion_follows_numpy(n1, n2, data):
    a = data.draw(arrays(NP[n1], (4,)))
    b = data.draw(arrays(NP[n2], (3, 1)))
    x, y = cp.asarray(a), cp.asarray(b)
    for name in ("add", "multiply", "maximum", "less_equal", "not_equal"):
        want = getattr(np, name)(a, b)
        assert_same(getattr(cp, name)(x, y), want)


@given(st.sampled_from(["int8", "int32", "uint8", "float32", "bool"]),
       st.sampled_from([3, -2, 2.5, True]), st.data())
def test_python_scalars_are_weak(name, scalar, data):
    a = data.draw(arrays(NP[name], (5,)))
    if isinstance(scalar, int) and not isinstance(scalar, bool) and scalar < 0 and name.startswith("uint"):
        return  # NumPy 2 raises OverflowError; so does the strict namespace
    x = cp.asarray(a)
    with np.errstate(all="ignore"):
        want = a * scalar
    if want.dtype == np.bool_:
        want = np.logical_and(a, scalar)
        assert_same(cp.logical_and(x, scalar), want)
        return
    if isinstance(scalar, int) and not isinstance(scalar, bool) and a.dtype == np.bool_:
        want = want.astype(np.int32)  # NumPy: int64, the device's default int here
    assert_same(x * scalar, want)
    assert_same(scalar * x, want)


def test_numpy_names_and_float_functions_of_ints():
    a = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    b = np.array([3.0, -1.5, 2.0], dtype=np.float32)
    x, y = cp.asarray(a), cp.asarray(b)
    assert_same(cp.arctan2(x, y), np.arctan2(a, b))
    assert_same(cp.power(x, 2), np.power(a, 2))
    assert_same(cp.sqrt(x), np.sqrt(a).astype(np.float32))
    assert_same(x / 2, (a / 2).astype(np.float32))
    assert_same(cp.true_divide(x, x), np.ones((2, 3), np.float32))
    assert_same(cp.absolute(-x), np.absolute(-a))
    assert_same(cp.concatenate([x, x + 1], axis=1), np.concatenate([a, a + 1], axis=1))
    assert_same(cp.concatenate([x, y[None, :]]), np.concatenate([a, b[None, :]]).astype(np.float32))
    assert_same(cp.dot(y, y), np.dot(b, b))
    assert_same(cp.dot(x, y), np.dot(a, b).astype(np.float32))
    assert_same(x.T, a.T)
    assert_same(cp.transpose(x), np.transpose(a))
    assert_same(cp.where(x > 2, x, 0), np.where(a > 2, a, 0).astype(np.int32))
    assert_same(cp.clip(x, 2, 4), np.clip(a, 2, 4))
    assert_same(cp.linspace(0, 1, 5), np.linspace(0, 1, 5).astype(np.float32))
    assert_same(cp.arange(5), np.arange(5, dtype=np.int32))
    assert_same(cp.fmod(cp.asarray([-7, 7]), 3), np.fmod(np.array([-7, 7], np.int32), 3))


@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements=st.floats(-10, 10, width=32)))
def test_methods_match_numpy(a):
    x = cp.asarray(a)
    a64, abs64 = a.astype(np.float64), np.abs(a.astype(np.float64))
    # sums run in another order than NumPy's: within n·eps·Σ|a| of the exact float64 value
    assert_summed(x.sum(), a64.sum(), abs64.sum(), a.size)
    assert_summed(x.sum(axis=0), a64.sum(axis=0), abs64.sum(axis=0), a.shape[0])
    assert_same(x.max(axis=-1, keepdims=True), a.max(axis=-1, keepdims=True))
    assert_summed(x.mean(), a64.mean(), abs64.mean(), a.size)
    assert_same(x.astype(cp.int32), a.astype(np.int32))
    assert_same(x.astype("int16"), a.astype(np.int16))
    assert_same(x.ravel(), a.ravel(), exact=True)
    assert_same(x.reshape(-1), a.reshape(-1), exact=True)
    assert_same(x.reshape(*reversed(a.shape)), a.reshape(*reversed(a.shape)), exact=True)
    assert_same(x.transpose(), a.transpose(), exact=True)
    assert_summed(x.cumsum(), np.cumsum(a64), np.cumsum(abs64.ravel()), a.size)
    np.testing.assert_array_equal(x.get(), a)
    assert x.tolist() == a.tolist()
    assert x.nbytes == a.nbytes and x.itemsize == 4 and x.ndim == a.ndim


@given(hnp.arrays(np.int8, hnp.array_shapes(min_dims=1, max_dims=2, max_side=6)))
def test_integer_sums_accumulate_in_int64_like_numpy(a):
    x = cp.asarray(a)
    assert_same(x.sum(), a.sum())
    assert_same(cp.sum(x > 0), (a > 0).sum())
    assert_same(x.prod(axis=0), a.prod(axis=0))


def test_inplace_operators_cast_back_like_numpy():
    a = np.arange(6, dtype=np.int32)
    x = cp.asarray(a)
    x += cp.asarray(a > 2)
    a += a > 2
    assert_same(x, a)
    x *= 3
    a *= 3
    assert_same(x, a)
    f = cp.zeros(3)
    f += 1  # int scalar into float32
    assert_same(f, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        x += 1.5


def test_setitem_getitem_numpy_style():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = cp.asarray(a)
    x[1] = 7
    a[1] = 7
    x[:, [0, 2]] = cp.asarray([[1], [2], [3]], dtype=cp.int32)
    a[:, [0, 2]] = np.array([[1], [2], [3]])
    assert_same(x, a)
    assert_same(x[[0, 2]], a[[0, 2]])
    assert_same(x[x > 5], a[a > 5])


def test_float64_where_asked_and_numpy_float64_data_arrives_as_float32():
    assert cp.zeros(3, dtype=cp.float64).dtype == np.float64
    y = cp.asarray(np.linspace(0, 1, 4), dtype=np.float64)
    assert y.dtype == np.float64 and (y.get() == np.linspace(0, 1, 4)).all()
    assert (cp.zeros(3) + 0.1).astype(np.float64).dtype == np.float64
    x = cp.asarray(np.linspace(0, 1, 4))
    assert x.dtype == cp.float32
    assert cp.asarray(np.arange(3)).dtype == cp.int64  # NumPy's int64 is on the device


# -- module functions ---------------------------------------------------------------------------

ALL_NP = {**NP, "int64": np.int64, "uint64": np.uint64, "complex64": np.complex64}


@given(st.sampled_from(list(ALL_NP)), st.data())
def test_tobytes_is_numpys(name, data):
    a = data.draw(arrays(ALL_NP[name]) if name != "complex64" else
                  hnp.arrays(np.complex64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                             elements=st.complex_numbers(max_magnitude=100, width=64)))
    x = cp.asarray(a)
    view = data.draw(st.sampled_from(["whole", "reversed", "transposed"]))
    if view == "reversed" and a.ndim:
        a, x = a[::-1], x[::-1]
    elif view == "transposed":
        a, x = a.T, x.T
    for order in ("C", "F"):
        assert x.tobytes(order) == a.tobytes(order), (name, view, order)
    with pytest.raises(ValueError, match="order"):
        x.tobytes("X")


def test_get_array_module_asnumpy_ndarray():
    x = cp.ones(3)
    assert cp.get_array_module(x) is cp
    assert cp.get_array_module(np.ones(3)) is np
    assert cp.get_array_module(1.0) is np
    assert isinstance(x, cp.ndarray) and isinstance(x, wa.Array)
    e = cp.ndarray((2, 3), cp.int16)
    assert type(e) is cp.ndarray and e.shape == (2, 3) and e.dtype == cp.int16
    assert isinstance(cp.asnumpy(x), np.ndarray)
    assert cp.asnumpy([1, 2]).tolist() == [1, 2]
    s = wa.ones(2)
    y = cp.asarray(s)
    assert type(s) is wa.Array and type(y) is cp.ndarray  # the strict array stays strict
    with pytest.raises(AttributeError):
        s.sum()


def test_strict_namespace_stays_strict():
    x = wa.asarray([1, 2], dtype=wa.int32)
    with pytest.raises(TypeError):
        x + 1.5
    assert cp.asarray(x) + 1.5 is not None


@pytest.mark.parametrize("sync", [
    lambda: cp.cuda.Device().synchronize(), lambda: cp.cuda.Stream.null.synchronize(),
    lambda: cp.cuda.runtime.deviceSynchronize(), lambda: cp.cuda.Event().record(),
    lambda: cp.cuda.get_current_stream().synchronize()])
def test_synchronizing_computes_the_pending_arrays_first(sync):
    # CuPy's contract: after a synchronization every op issued before it has run. A pending
    # array's op is issued, so it is computed there; timing code that measured a loop
    # between two synchronizations used to measure only the issuing of its last kernels
    x = cp.arange(8, dtype=cp.float32)
    with wa.fusion.enabled(True):
        y = x * 2.0 + 1.0
        assert y._b is None  # pending
        sync()
        assert y._b is not None  # computed
    np.testing.assert_array_equal(cp.asnumpy(y), np.arange(8, dtype=np.float32) * 2 + 1)


def test_device_memory_pool_and_install():
    cp.cuda.Device().synchronize()
    cp.cuda.Device(0).synchronize()
    cp.cuda.Stream.null.synchronize()
    with pytest.raises(ValueError):
        cp.cuda.Device(1)
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    keep = cp.ones(1 << 16)
    keep.sum()
    assert pool.used_bytes() >= before + (1 << 18)
    assert pool.total_bytes() >= pool.used_bytes()
    del keep
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()
    cp.get_default_pinned_memory_pool().free_all_blocks()
    assert cp.install()
    import cupy

    assert cupy is cp and cupy.random is cp.random
    del sys.modules["cupy"], sys.modules["cupy.random"], sys.modules["cupy.cuda"]


def test_asnumpy_without_numpy_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(RuntimeError, match="tolist"):
        cp.asnumpy(cp.ones(2))
    assert cp.ones(2).tolist() == [1.0, 1.0]


# -- random -------------------------------------------------------------------------------------

def test_random_words_are_threefry_bit_exact():
    from webarray.cupy.random import threefry2x32

    # Random123's known-answer vectors
    assert threefry2x32(0, 0, 0, 0) == (0x6B200159, 0x99BA4EFE)
    assert threefry2x32(0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3) == (0xC4923A9C, 0x483DF7A0)
    seed = 0x0123456789AB
    rs = cp.random.RandomState(seed)
    rs.raw_words(3)  # counter 0
    w0, w1 = rs.raw_words((4, 5))  # counter 1
    want = [threefry2x32(seed & 0xFFFFFFFF, seed >> 32, i, 1) for i in range(20)]
    assert w0.reshape(-1).tolist() == [w[0] for w in want]
    assert w1.reshape(-1).tolist() == [w[1] for w in want]


@given(st.integers(0, 2**64 - 1))
def test_random_distributions(seed):
    cp.random.seed(seed)
    u = cp.random.rand(4096)
    cp.random.seed(seed)
    assert cp.asnumpy(cp.random.rand(4096)).tolist() == cp.asnumpy(u).tolist()
    un = cp.asnumpy(u)
    assert un.dtype == np.float32 and un.min() >= 0 and un.max() < 1
    assert abs(un.mean() - 0.5) < 0.03 and abs(un.var() - 1 / 12) < 0.01
    n = cp.asnumpy(cp.random.randn(64, 64))
    assert abs(n.mean()) < 0.08 and abs(n.std() - 1) < 0.05 and np.isfinite(n).all()
    g = cp.asnumpy(cp.random.normal(3.0, 0.5, size=4096))
    assert abs(g.mean() - 3) < 0.05
    v = cp.asnumpy(cp.random.uniform(-2, 5, size=(4096,)))
    assert v.min() >= -2 and v.max() < 5
    r = cp.asnumpy(cp.random.randint(-3, 7, size=4096))
    assert r.dtype == np.int32 and set(r.tolist()) == set(range(-3, 7))
    assert cp.random.random((2, 3)).shape == (2, 3)
    assert not np.array_equal(cp.asnumpy(cp.random.rand(8)), cp.asnumpy(cp.random.rand(8)))


# -- fuse ---------------------------------------------------------------------------------------

def test_fuse_runs_the_body_as_one_kernel():
    @cp.fuse()
    def body(x, y, s):
        return cp.sqrt(x * x + y * y) * s - cp.minimum(x, y) + 1.0

    rng = np.random.default_rng(1)
    a = rng.standard_normal((33, 17)).astype(np.float32)
    b = rng.standard_normal((33, 17)).astype(np.float32)
    x, y = cp.asarray(a), cp.asarray(b)
    cp.cuda.Device().synchronize()
    _graph.flush()
    before = launch.launches
    out = body(x, y, 2.0)
    assert launch.launches - before == 1
    assert out._b is not None  # computed, not pending
    want = np.sqrt(a * a + b * b) * np.float32(2) - np.minimum(a, b) + np.float32(1)
    assert_same(out, want)
    with wa.fusion.enabled(False):
        before = launch.launches
        body(x, y, 2.0)
        assert launch.launches - before == 1  # fuse turns fusion on for its body
    assert repr(body).startswith("<Fusion")


# -- the examples --------------------------------------------------------------------------------

def test_numpy_style_mandelbrot_matches_numpy():
    from mandelbrot_numpy_style import grid, mandelbrot

    real, imag = grid(cp, 64)
    got = mandelbrot(real, imag, 50)
    want = mandelbrot(cp.asnumpy(real), cp.asnumpy(imag), 50)
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    assert 0 < want.min() and want.max() == 50


@pytest.mark.parametrize("form", ["c", "wgsl", "glsl"])
def test_kernel_mandelbrot_matches_numpy(form):
    from mandelbrot_kernel import make_kernel
    from mandelbrot_numpy_style import grid, mandelbrot

    real, imag = grid(cp, 64)
    got = make_kernel(form)(real, imag, 50)
    want = mandelbrot(cp.asnumpy(real), cp.asnumpy(imag), 50)
    np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_examples_run_as_scripts():
    import subprocess

    for script, extra in (("mandelbrot_numpy_style.py", []), ("mandelbrot_kernel.py", ["--form", "c"])):
        r = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--size", "48",
                            "--iters", "30", *extra], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "identical=True" in r.stdout and "checksum=" in r.stdout


def test_cupy_user_guide_example_runs_natively():
    # basics (with NumPy here), kernels, reduction kernels and fuse, checked by the script
    import subprocess

    r = subprocess.run([sys.executable, str(ROOT / "examples" / "cupy_user_guide.py")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for section in ("basics", "elementwise kernels", "reduction kernels", "fuse"):
        assert f"ok {section}" in r.stdout
    assert "skipped" not in r.stdout and "all sections passed" in r.stdout
