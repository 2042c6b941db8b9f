"""array-api-compat sees webarray as what it is: its own namespace (found through
``__array_namespace__``, no wrapper), eager (values are materialised on demand, so
``is_lazy_array`` is False even while an elementwise result is a pending expression),
writeable, on its GPU device; and DLPack hands NumPy a host copy.

scikit-learn and SciPy vendor their own copies of array-api-compat; those are checked in
test_ecosystem_sklearn.py and test_ecosystem_scipy.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp

compat = pytest.importorskip(
    "array_api_compat", reason="array-api-compat is not installed (pip install -e '.[ecosystem]')"
)

DEVICE = xp.__array_namespace_info__().default_device()


def test_array_namespace_is_webarray_itself():
    x = xp.asarray([1.0, 2.0, 3.0])
    assert compat.array_namespace(x) is xp
    assert compat.array_namespace(x, xp.asarray(1), 2.0, None) is xp
    assert compat.get_namespace(x) is xp
    assert compat.array_namespace(x, api_version="2024.12") is xp


def test_array_namespace_errors():
    x = xp.asarray([1.0])
    with pytest.raises(ValueError, match="webarray implements array API versions 2021.12 to 2025.12"):
        compat.array_namespace(x, api_version="2030.12")
    with pytest.raises(TypeError, match="Multiple namespaces for array inputs"):
        compat.array_namespace(x, np.asarray([1.0]))


def test_webarray_is_none_of_the_known_libraries():
    x = xp.asarray([1.0])
    for name in ("numpy", "cupy", "torch", "dask", "jax", "pydata_sparse", "ndonnx"):
        assert not getattr(compat, f"is_{name}_array")(x), name
        assert not getattr(compat, f"is_{name}_namespace")(xp), name
    assert not compat.is_array_api_strict_namespace(xp)


def test_array_predicates():
    x = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3))
    assert compat.is_array_api_obj(x)
    assert compat.is_writeable_array(x)
    assert not compat.is_lazy_array(x)
    for other in ([1.0], 1.0, None, memoryview(b"ab")):
        assert not compat.is_array_api_obj(other)


def test_pending_expression_is_not_lazy_for_compat():
    x = xp.asarray([0.5, 1.0, 2.0])
    y = xp.sin(x) * 2.0 + 1.0  # an elementwise chain: a pending expression until read
    assert not compat.is_lazy_array(y)
    np.testing.assert_allclose(np.asarray(y), np.sin([0.5, 1.0, 2.0]) * 2 + 1, rtol=1e-6)


@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
def test_size_matches_numpy(shape):
    x = xp.zeros(shape)
    assert compat.size(x) == int(np.prod(shape))


def test_device_and_to_device():
    x = xp.asarray([1.0, 2.0])
    assert compat.device(x) == DEVICE == x.device
    y = compat.to_device(x, compat.device(x))
    assert y.device == DEVICE
    np.testing.assert_array_equal(np.asarray(y), [1.0, 2.0])
    # the device of an expression is known before it runs
    assert compat.device(xp.exp(x) + x) == DEVICE


def test_to_device_cpu_is_refused_with_the_available_devices_named():
    x = xp.asarray([1.0])
    with pytest.raises(ValueError, match=r"'cpu' is not one of its devices \(available:"):
        compat.to_device(x, "cpu")


EXPORT_DTYPES = [d for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                             "uint32", "uint64", "float32", "complex64")
                 if d in xp.__array_namespace_info__().dtypes()]


@pytest.mark.parametrize("name", EXPORT_DTYPES)
@given(data=st.data())
def test_dlpack_export_to_numpy(name, data):
    a = data.draw(hnp.arrays(np.dtype(name), hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                             elements={"allow_nan": False} if name.startswith(("float", "complex")) else None))
    x = xp.asarray(a)
    out = np.from_dlpack(x)
    assert out.dtype == a.dtype and out.shape == a.shape
    np.testing.assert_array_equal(out, a)
    # a host copy: writing to it leaves the GPU array alone
    if out.size and out.flags.writeable:
        before = np.asarray(x).copy()
        out[...] = out.flat[0] if name == "bool" else 0
        np.testing.assert_array_equal(np.asarray(x), before)


def test_dlpack_export_of_views_and_expressions():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xp.asarray(a)
    for got, want in [
        (x.mT, a.swapaxes(-1, -2)),
        (x[:, ::-2, 1:], a[:, ::-2, 1:]),
        (xp.broadcast_to(x[0, :1], (3, 1, 4)), np.broadcast_to(a[0, :1], (3, 1, 4))),
        (xp.sqrt(x) + 1.0, np.sqrt(a) + 1),
    ]:
        np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-6)
    assert np.from_dlpack(x, device="cpu").shape == (2, 3, 4)


def test_dlpack_refusals():
    x = xp.asarray([1.0])
    assert x.__dlpack_device__()[0] == 15  # kDLWebGPU
    with pytest.raises(BufferError, match="copy=False is impossible"):
        x.__dlpack__(copy=False)
    with pytest.raises(BufferError, match=r"can export to the CPU device \(1, 0\) only"):
        x.__dlpack__(dl_device=(2, 0))
