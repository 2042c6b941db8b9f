"""int64, uint64 and complex64 across the namespace, against NumPy.

These dtypes are stored as word pairs (see _storage.py and kernels/webgpu/lanes.py), so
every path that moves or computes elements is exercised here with them: upload and
readback, views, casts, elementwise ops with their edge values, scalars, reductions,
indexing and matmul.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
from helpers import assert_equal
from webarray._device import Device, default_device

# A device that lists the two-word dtypes (the default one lists them only with
# WEBARRAY_WIDE_DTYPES=1 until sorting, set functions and matmul support them too).
WIDE = Device(default_device().executor, wide_dtypes=True)
_asarray = xp.asarray


def _wide(fn):
    def call(*args, **kw):
        kw.setdefault("device", WIDE)
        return fn(*args, **kw)
    return call


_wide_zeros, _wide_ones, _wide_full = _wide(xp.zeros), _wide(xp.ones), _wide(xp.full)
_wide_eye, _wide_arange, _wide_linspace = _wide(xp.eye), _wide(xp.arange), _wide(xp.linspace)


def _on_wide(obj, **kw):
    kw.setdefault("device", WIDE)
    return _asarray(obj, **kw)

I64 = np.iinfo(np.int64)
U64 = np.iinfo(np.uint64)
I64_EDGES = [0, 1, -1, 2, -2, int(I64.max), int(I64.min), 1 << 32, -(1 << 32), (1 << 31), 63, 64]
U64_EDGES = [0, 1, 2, int(U64.max), (1 << 63), (1 << 32), (1 << 32) - 1, 63, 64]


def ints(dtype):
    info = np.iinfo(dtype)
    edges = I64_EDGES if dtype == np.int64 else U64_EDGES
    return st.one_of(st.integers(int(info.min), int(info.max)), st.sampled_from(edges))


def complexes():
    part = st.one_of(st.floats(-1e3, 1e3, width=32), st.sampled_from([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan]))
    return st.builds(complex, part, part)


def arr(dtype, shape=st.integers(0, 7).map(lambda n: (n,))):
    el = complexes() if dtype == np.complex64 else ints(dtype)
    return hnp.arrays(dtype, shape, elements=el)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.complex64])
@given(data=st.data())
def test_roundtrip_and_views(dtype, data):
    a = data.draw(arr(dtype, st.just((3, 4))))
    x = _on_wide(a)
    assert x.dtype == getattr(xp, np.dtype(dtype).name)
    assert_equal(x, a)
    assert_equal(x[::-1, 1::2], a[::-1, 1::2])
    assert_equal(x.T, a.T)
    assert_equal(_on_wide(x.T, copy=True), a.T)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "floor_divide", "remainder",
                                "bitwise_and", "bitwise_or", "bitwise_xor", "maximum", "minimum",
                                "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"])
@given(data=st.data())
def test_integer_binary(dtype, op, data):
    n = data.draw(st.integers(1, 8))
    a = data.draw(arr(dtype, st.just((n,))))
    b = data.draw(arr(dtype, st.just((n,))))
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(a, b)
        if op in ("floor_divide", "remainder"):
            expected = np.where(b == 0, 0, expected).astype(expected.dtype)
    assert_equal(getattr(xp, op)(_on_wide(a), _on_wide(b)), expected)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@given(data=st.data())
def test_integer_unary_shift_pow(dtype, data):
    a = data.draw(arr(dtype, st.just((6,))))
    x = _on_wide(a)
    with np.errstate(all="ignore"):
        assert_equal(-x, -a)
        assert_equal(xp.abs(x), np.abs(a))
        assert_equal(~x, ~a)
        assert_equal(xp.sign(x), np.sign(a))
        s = data.draw(hnp.arrays(dtype, (6,), elements=st.integers(0, 63)))
        assert_equal(x << _on_wide(s), a << s)
        assert_equal(x >> _on_wide(s), a >> s)
        e = data.draw(hnp.arrays(dtype, (6,), elements=st.integers(0, 5)))
        assert_equal(x ** _on_wide(e), a ** e)
        assert_equal(x + 7, a + dtype(7))


@given(data=st.data())
def test_complex_arithmetic(data):
    a = data.draw(arr(np.complex64, st.just((6,))))
    b = data.draw(arr(np.complex64, st.just((6,))))
    x, y = _on_wide(a), _on_wide(b)
    finite = np.isfinite(a) & np.isfinite(b)
    a, b = a[finite], b[finite]
    x, y = _on_wide(a), _on_wide(b)
    assert_equal(x + y, a + b)
    assert_equal(x - y, a - b)
    assert_equal(xp.real(x * y), (a * b).real, rtol=2e-6, atol=1e-30)
    assert_equal(xp.conj(x), np.conj(a))
    assert_equal(xp.real(x), a.real)
    assert_equal(xp.imag(x), a.imag)
    assert_equal(xp.abs(x), np.abs(a), rtol=2e-6, atol=0)
    assert_equal(x == y, a == b)
    assert_equal(x * 2.0, a * np.complex64(2))
    assert_equal(x + 1j, a + np.complex64(1j))


def test_complex_functions_and_promotion():
    a = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j], np.complex64)
    x = _on_wide(a)
    for name in ["exp", "log", "sqrt", "sin", "cos", "tanh"]:
        with np.errstate(all="ignore"):
            want = getattr(np, name)(a)
        got = np.asarray(getattr(xp, name)(x))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    f = _on_wide(np.array([1.5, -2.0, 0.0, 4.0], np.float32))
    # the sign of a zero imaginary part of complex * real is not specified
    assert_equal(x * f, a * np.array([1.5, -2.0, 0.0, 4.0], np.float32), rtol=1e-7)
    assert (f + 1j).dtype == xp.complex64
    assert _on_wide(1j).dtype == xp.complex64


@pytest.mark.parametrize("src", ["int8", "int32", "uint32", "int64", "uint64", "float32", "bool"])
@pytest.mark.parametrize("dst", ["int64", "uint64", "complex64", "float32", "int32", "uint8", "bool"])
def test_astype(src, dst):
    rng = np.random.default_rng(7)
    if src == "bool":
        a = rng.integers(0, 2, 20).astype(bool)
    elif src == "float32":
        a = rng.uniform(-1e6, 1e6, 20).astype(np.float32)
        if dst.startswith("u"):
            a = np.abs(a)
    else:
        info = np.iinfo(src)
        a = rng.integers(int(info.min), int(info.max), 20, dtype=src, endpoint=True)
    got = xp.astype(_on_wide(a), getattr(xp, dst))
    assert_equal(got, a.astype(dst))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.complex64])
def test_reductions(dtype):
    rng = np.random.default_rng(3)
    if dtype == np.complex64:
        a = (rng.standard_normal((5, 9)) + 1j * rng.standard_normal((5, 9))).astype(np.complex64)
        assert_equal(xp.sum(_on_wide(a), axis=1), a.sum(axis=1), rtol=1e-5, atol=1e-5)
        return
    info = np.iinfo(dtype)
    a = rng.integers(int(info.min) // 4, int(info.max) // 4, (5, 9), dtype=dtype)
    x = _on_wide(a)
    assert_equal(xp.sum(x, axis=1), a.sum(axis=1, dtype=dtype))
    assert_equal(xp.max(x, axis=0), a.max(axis=0))
    assert_equal(xp.min(x), a.min())
    assert_equal(xp.cumulative_sum(x, axis=1), np.cumsum(a, axis=1, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.int64, np.complex64])
def test_indexing_and_setitem(dtype):
    a = np.arange(24).reshape(4, 6).astype(dtype) * (3 if dtype == np.int64 else (1 + 1j))
    x = _on_wide(a)
    assert_equal(x[_on_wide([2, 0])], a[[2, 0]])
    assert_equal(x[x == x], a[a == a])
    x[1, ::2] = _on_wide(a[2, ::2])
    a[1, ::2] = a[2, ::2]
    assert_equal(x, a)
    x[0] = 5
    a[0] = 5
    assert_equal(x, a)


@pytest.mark.parametrize("dtype", [np.int64, np.complex64])
def test_creation(dtype):
    name = np.dtype(dtype).name
    d = getattr(xp, name)
    assert_equal(_wide_zeros((2, 3), dtype=d), np.zeros((2, 3), dtype))
    assert_equal(_wide_ones(4, dtype=d), np.ones(4, dtype))
    assert_equal(_wide_full((3,), 7, dtype=d), np.full((3,), 7, dtype))
    assert_equal(_wide_eye(3, dtype=d), np.eye(3, dtype=dtype))
    if dtype == np.int64:
        assert_equal(_wide_arange(5, dtype=d), np.arange(5, dtype=dtype))
        assert_equal(_on_wide([2**40, -(2**40)], dtype=d), np.array([2**40, -(2**40)], dtype))
    else:
        assert_equal(_wide_linspace(0, 1 + 1j, 5, dtype=d), np.linspace(0, 1 + 1j, 5, dtype=dtype), rtol=1e-6, atol=1e-7)


def test_info_lists_them_on_a_device_that_has_them():
    info = xp.__array_namespace_info__()
    names = info.dtypes(device=WIDE)
    for n in ["int64", "uint64", "complex64"]:
        assert n in names
    for n in ["float64", "complex128"]:
        assert n not in names
    assert "int64" not in info.dtypes()  # the default device keeps them off for now
