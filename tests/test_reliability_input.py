"""Hostile input: the standard's exceptions, and nothing corrupted afterwards.

Each case is followed by a check that arrays made before it still hold their values and
that the device still computes (``_intact``).

User kernels: a bad WGSL source through the native compile path is tested in
test_reliability.py; malformed ``ElementwiseKernel`` bodies of the CuPy layer are here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import webarray as xp

REF = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.fixture
def intact():
    x = xp.asarray(REF)
    yield x
    np.testing.assert_array_equal(np.asarray(x), REF)
    np.testing.assert_array_equal(np.asarray(x * 2.0 + 1.0), REF * 2 + 1)
    assert xp.memory.stats()["used_bytes"] >= 0


@pytest.mark.parametrize("shape", [(-1,), (3, -2), (2**70,), (2**31, 2**31), (1.5,), ("3",),
                                   (None,)])
def test_bad_shapes_raise_the_standards_errors(intact, shape):
    with pytest.raises((ValueError, TypeError, MemoryError, OverflowError)) as e:
        xp.fusion.flush(xp.zeros(shape))
    if any(isinstance(n, int) and n < 0 for n in shape):
        assert e.type is ValueError
    if all(isinstance(n, int) and n >= 0 for n in shape):
        assert issubclass(e.type, MemoryError)  # too big: the sizes are named
        assert str(math.prod(shape) * 4) in str(e.value) or "bytes" in str(e.value)


@pytest.mark.parametrize("make", [xp.ones, xp.empty, lambda s: xp.full(s, 2.0)])
def test_huge_shapes_raise_memory_error_not_a_crash(intact, make):
    with pytest.raises(MemoryError, match="bytes"):
        xp.fusion.flush(make((1 << 20, 1 << 20)))


@pytest.mark.parametrize("index", [float("nan"), float("inf"), -float("inf"), 1.0, "1",
                                   [0.5], slice(0, 2, 0)])
def test_nan_inf_and_non_integer_indices_raise(intact, index):
    with pytest.raises((IndexError, TypeError, ValueError)):
        intact[index]
    with pytest.raises((IndexError, TypeError, ValueError)):
        intact[index] = 1.0


def test_float_index_arrays_and_out_of_range_indices_raise(intact):
    with pytest.raises((IndexError, TypeError)):
        intact[xp.asarray([0.0, math.nan])]
    with pytest.raises(IndexError):
        intact[3]
    with pytest.raises(IndexError):
        intact[0, -5]
    with pytest.raises((IndexError, TypeError, ValueError)):
        xp.take(intact, xp.asarray([0.5, 1.0]), axis=0)


def test_mismatched_devices_raise_value_error(intact):
    from webarray._core import device as _device
    from webarray.executors.native import NativeExecutor

    other = _device.Device(NativeExecutor())
    y = xp.ones((3, 4), device=other)
    assert y.device != intact.device
    with pytest.raises(ValueError, match="different devices"):
        intact + y
    with pytest.raises(ValueError):
        xp.fusion.flush(xp.where(y > 0, intact, y))
    with pytest.raises(ValueError):
        intact[...] = y


class _Pretender:
    """Quacks like an array: shape, dtype, __array_namespace__, __dlpack__ that lie."""

    shape = (3, 4)
    ndim = 2
    dtype = xp.float32
    size = 12
    device = None

    def __array_namespace__(self, api_version=None):
        return xp

    def __dlpack__(self, **kw):
        raise RuntimeError("not really")

    def __dlpack_device__(self):
        return (1, 0)

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return [1.0, 2.0, "x", 4.0]


@pytest.mark.parametrize("fn", [lambda a, p: a + p, lambda a, p: xp.add(a, p),
                                lambda a, p: xp.sin(p), lambda a, p: xp.sum(p),
                                lambda a, p: xp.concat([a, p]), lambda a, p: xp.matmul(a, p)])
def test_objects_pretending_to_be_arrays_raise_type_error(intact, fn):
    with pytest.raises(TypeError):
        xp.fusion.flush(fn(intact, _Pretender()))


@pytest.mark.parametrize("obj", [_Pretender(), [[1.0, "x"]], [[1.0, 2.0], [3.0]], {1: 2},
                                 object(), [1, [2]]])
def test_asarray_of_malformed_objects_raises(intact, obj):
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        xp.fusion.flush(xp.asarray(obj))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2**80, -(2**80)])
def test_out_of_range_scalars_for_integer_arrays(intact, value):
    x = xp.asarray([1, 2, 3], dtype=xp.int8)
    with pytest.raises((OverflowError, TypeError, ValueError)):
        xp.fusion.flush(x + value)
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])


@pytest.mark.parametrize("body", ["y = x * ;", "y = z;", "y = nosuchfunction(x);",
                                  "y = x; }", "y = x +* 2;", "y = (x;"])
def test_malformed_user_kernels_raise_kernel_error_and_the_device_works(intact, body):
    cp = pytest.importorskip("webarray.cupy")
    from webarray.executors.protocol import KernelError

    x = cp.asarray(np.arange(4, dtype=np.float32))
    with pytest.raises(KernelError, match="bad"):
        k = cp.ElementwiseKernel("float32 x", "float32 y", body, "bad")
        np.asarray(k(x))
    good = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2;", "good")
    np.testing.assert_array_equal(np.asarray(good(x)), np.arange(4, dtype=np.float32) * 2)
