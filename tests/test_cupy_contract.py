"""CuPy's contract beyond its names (issue #19): the module surface CuPy code imports,
NumPy dtypes and CuPy devices seen from outside webarray, the functions Chainer calls, and
the kernel language of Chainer's kernels (raw parameters, ``_j``, ``_ind.size()``,
``static_cast``, folded float constants), each against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import webarray.cupy as cp
from webarray.cupy import cuda

floats = st.floats(-50, 50, width=32)


def farrays(shape):
    return hnp.arrays(np.float32, shape, elements=floats)


# -- the surface ------------------------------------------------------------------------------

def test_dtype_is_numpys_outside_webarray():
    x = cp.arange(3, dtype=cp.float32)
    assert isinstance(x.dtype, np.dtype)
    assert x.dtype == np.float32 and np.float32 == x.dtype
    assert np.dtype(x.dtype) == np.dtype("float32")
    assert (x.dtype.type, x.dtype.char, x.dtype.kind, x.dtype.str) == (np.float32, "f", "f", "<f4")
    assert np.promote_types(x.dtype, np.int8) == np.float32
    assert cp.float32 is np.float32 and cp.dtype("f") == np.float32
    assert cp.arange(3).astype("i").dtype == np.int32
    assert x.astype("d").dtype == np.float64


def test_device_is_cuda_device():
    x = cp.zeros(2)
    assert isinstance(x.device, cuda.Device)
    assert x.device.id == 0 and int(x.device) == 0 and x.device == cuda.Device(0)
    with x.device:
        x.device.use()


def test_module_surface():
    assert cp.__version__.split(".")[0] == "7"
    from webarray.cupy import _util, cupyx

    assert issubclass(_util.PerformanceWarning, Warning)
    calls = []

    @cp.memoize()
    def f(k):
        calls.append(k)
        return k * 2

    assert f(3) == 6 and f(3) == 6 and calls == [3]
    cp.clear_memo()
    assert f(3) == 6 and calls == [3, 3]
    start, end = cuda.Event(), cuda.Event()
    start.record()
    end.record()
    assert cuda.get_elapsed_time(start, end) >= 0
    assert cuda.cublas is not None
    a = np.array([4.0, 9.0], np.float32)
    np.testing.assert_allclose(cp.asnumpy(cupyx.rsqrt(cp.asarray(a))), 1 / np.sqrt(a), rtol=1e-6)


def test_scatter_add_accumulates_repeats():
    from webarray.cupy import cupyx

    a = cp.zeros((4, 2), dtype=cp.float32)
    idx = np.array([0, 2, 0, 0], np.int32)
    v = np.arange(8, dtype=np.float32).reshape(4, 2)
    cupyx.scatter_add(a, cp.asarray(idx), cp.asarray(v))
    want = np.zeros((4, 2), np.float32)
    np.add.at(want, idx, v)
    np.testing.assert_array_equal(cp.asnumpy(a), want)


@settings(max_examples=10, deadline=None)
@given(farrays((2, 3, 4)), st.integers(-3, 2), st.integers(-3, 3))
def test_rollaxis(a, axis, start):
    np.testing.assert_array_equal(cp.asnumpy(cp.rollaxis(cp.asarray(a), axis, start)),
                                  np.rollaxis(a, axis, start))


@settings(max_examples=10, deadline=None)
@given(farrays((3, 4)), st.integers(0, 1), st.data())
def test_take_along_axis(a, axis, data):
    idx = data.draw(hnp.arrays(np.int32, a.shape, elements=st.integers(-a.shape[axis], a.shape[axis] - 1)))
    np.testing.assert_array_equal(cp.asnumpy(cp.take_along_axis(cp.asarray(a), cp.asarray(idx), axis)),
                                  np.take_along_axis(a, idx, axis))


def test_tensordot_pair_of_ints():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_allclose(cp.asnumpy(cp.tensordot(cp.asarray(a), cp.asarray(b), axes=(0, 1))),
                               np.tensordot(a, b, axes=(0, 1)), rtol=1e-6)


# -- the kernel language of Chainer's kernels -------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(farrays((7,)), st.integers(1, 6))
def test_raw_read_with_index_and_size(a, shift):
    k = cp.ElementwiseKernel("raw T x, int32 s", "T y",
                             "y = x[(i + s) % _ind.size()] * static_cast<T>(2)", "roll2")
    got = k(cp.asarray(a), shift, size=a.size)
    np.testing.assert_array_equal(cp.asnumpy(got), np.roll(a, -shift) * 2)


def test_raw_with_broadcast_inputs_and_store():
    k = cp.ElementwiseKernel("T a, raw T x", "T y", "y = a + x[0]", "addfirst")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = np.array([5, 7], np.float32)
    np.testing.assert_array_equal(cp.asnumpy(k(cp.asarray(a), cp.asarray(x))), a + 5)
    # a raw output written at computed positions (reversed)
    rev = cp.ElementwiseKernel("T v, raw T out", "T y", "out[_ind.size() - 1 - i] = v; y = v", "rev")
    dst = cp.zeros(3, dtype=cp.float32)
    rev(cp.asarray(x[:1].repeat(3) + np.arange(3, dtype=np.float32)), dst)
    np.testing.assert_array_equal(cp.asnumpy(dst), [7, 6, 5])


def test_infinity_constant():
    k = cp.ElementwiseKernel("T x", "T y", "y = max(x, (T)-(1.0/0.0))", "ninf")
    a = np.array([-np.inf, 1, -3], np.float32)
    np.testing.assert_array_equal(cp.asnumpy(k(cp.asarray(a))), a)
    k = cp.ElementwiseKernel("T x", "T y", "y = (T)-(1.0/0.0)", "ninf_only")
    assert np.all(np.isneginf(cp.asnumpy(k(cp.asarray(a)))))


@settings(max_examples=10, deadline=None)
@given(hnp.arrays(np.int32, (6,), elements=st.integers(0, 3)), farrays((6, 4)))
def test_reduction_with_raw_and_j(t, log_y):
    # Chainer's crossent_fwd: mean of -log_y[j, t[j]]
    k = cp.ReductionKernel("S t, raw T log_y, int32 n_channel, raw T coeff", "T out",
                           "log_y[_j * n_channel + t]", "a + b",
                           "out = static_cast<T>(a * -coeff[0])", "0", "crossent")
    coeff = np.array([1 / 6], np.float32)
    got = k(cp.asarray(t), cp.asarray(log_y), 4, cp.asarray(coeff))
    want = -(log_y[np.arange(6), t].astype(np.float64).sum()) / 6
    np.testing.assert_allclose(float(got), want, rtol=1e-5, atol=1e-5)


def test_reduction_j_orders_reduced_axes_first():
    # _j: the element's index with the reduced axes first (CuPy's), reducing axis 0 of (3, 2)
    k = cp.ReductionKernel("T x, raw T w", "T y", "x * w[_j]", "a + b", "y = a", "0", "wj")
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    w = np.arange(6, dtype=np.float32)
    got = k(cp.asarray(x), cp.asarray(w), axis=0)
    np.testing.assert_array_equal(cp.asnumpy(got), (x * w.reshape(3, 2)).sum(axis=0))


# -- mixing with NumPy: dispatched, not converted -----------------------------------------------

def test_numpy_ufuncs_and_operators_dispatch_to_the_device():
    a = np.array([1.0, 4.0, 9.0], np.float32)
    x = cp.asarray(a)
    for got, want in [(np.float32(2) * x, np.float32(2) * a), (np.ones(3, np.float32) + x, 1 + a),
                      (np.sqrt(x), np.sqrt(a)), (np.maximum(x, 3.0), np.maximum(a, 3.0)),
                      (np.add.reduce(x), np.add.reduce(a)), (np.mean(x), np.mean(a)),
                      (np.concatenate([x, x]), np.concatenate([a, a]))]:
        assert isinstance(got, cp.ndarray), type(got)
        np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-6)
    y = cp.zeros(3, dtype=cp.float32)
    np.add.at(y, cp.asarray([0, 0, 2]), cp.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(cp.asnumpy(y), [3, 0, 3])
    with pytest.raises(TypeError):
        np.frexp(x)  # no such function here: NumPy's TypeError, not a host computation


def test_reduction_post_map_reads_the_outputs_passed_in():
    # Chainer's logsumexp: vmax is an input and the output, and the post-map adds to it;
    # reading the output as zero gave log(sum(exp(x - vmax))) alone, silently
    k = cp.ReductionKernel("T x, T vmax", "T y", "exp(x - vmax)", "a + b", "y += log(a)", "0",
                           "logsumexp_impl")
    a = np.random.default_rng(5).standard_normal((3, 7)).astype(np.float32)
    x = cp.asarray(a)
    for axis, keep in ((1, True), (0, True), (None, True)):
        vmax = cp.amax(x, axis=axis, keepdims=keep)
        k(x, vmax, vmax, axis=axis, keepdims=keep)
        want = np.log(np.exp(a.astype(np.float64)).sum(axis=axis, keepdims=keep))
        np.testing.assert_allclose(cp.asnumpy(vmax), want, rtol=2e-6)
    # a fresh output starts from zero, not from the pool's stale memory
    fresh = cp.ReductionKernel("T x", "T y", "x", "a + b", "y += a", "0", "acc")(x, axis=1)
    np.testing.assert_allclose(cp.asnumpy(fresh), a.sum(axis=1), rtol=2e-6)


def test_numpy_loaded_after_the_cupy_layer_is_seen():
    # Pyodide resumes Python with webarray.cupy imported and loads NumPy later, when a
    # script imports it: from then on dtypes are NumPy's, as when NumPy came first
    import subprocess
    import sys

    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("blocked")
sys.meta_path.insert(0, Block())
import webarray.cupy as cp
assert cp.float32 is cp._dt.by_name["float32"]
x = cp.arange(3, dtype=cp.float32)
assert x.dtype is cp._dt.float32
sys.meta_path.pop(0)
import numpy as np
assert cp.float32 is np.float32 and cp.bool_ is np.bool_ and cp.int_ is np.int32
assert isinstance(x.dtype, np.dtype) and x.dtype == np.float32
assert cp.dtype("f") == np.float32
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
