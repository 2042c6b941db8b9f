"""int64, uint64 and complex64 across the namespace, against NumPy.

These dtypes are stored as word pairs (see _core/storage.py and kernels/lanes.py), so
every path that moves or computes elements is exercised here with them: upload and
readback, views, casts, elementwise ops with their edge values, scalars, reductions,
indexing, sorting, searching and set functions (sorted in two passes of one word), statistics,
manipulation and linear algebra.
"""

import os

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
from helpers import assert_equal
from webarray._core.device import Device, default_device

# A device that lists the two-word dtypes whatever WEBARRAY_WIDE_DTYPES says.
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
    # the product's parts may cancel: the error bound scales with |a| |b|, not the result
    scale = (np.abs(a.astype(np.complex128)) * np.abs(b.astype(np.complex128))).astype(np.float32)
    assert_equal(xp.real(x * y), (a * b).real, atol=4e-7 * scale + 1e-30)
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
    for n in ["float64", "complex128"]:  # unless WEBARRAY_FLOAT64=0
        assert (n in names) == (os.environ.get("WEBARRAY_FLOAT64") != "0")
    narrow = Device(default_device().executor, wide_dtypes=False)
    for n in ["int64", "uint64", "complex64"]:
        assert n not in info.dtypes(device=narrow)
        with pytest.raises(TypeError, match="not supported on"):
            xp.zeros(2, dtype=getattr(xp, n), device=narrow)


# -- sorting, searching and set functions ---------------------------------------------------


def _int_rows(dtype, shape, seed):
    """Values with many ties, spread over both words (and the sign), as int64 or uint64."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    a = rng.integers(int(info.min), int(info.max), shape, dtype=dtype, endpoint=True)
    pool = np.array(I64_EDGES if dtype == np.int64 else U64_EDGES, dtype=object).astype(dtype)
    ties = rng.random(shape) < 0.4
    a[ties] = rng.choice(pool, ties.sum())
    # equal high words, different low words and the reverse
    a.flat[::5] = dtype(7 << 32) + rng.integers(0, 4, a.flat[::5].size).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("shape,axis", [((4, 9), 1), ((9, 4), 0), ((2, 2500), 1)])
def test_sort_argsort(dtype, shape, axis):
    a = _int_rows(dtype, shape, shape[0])
    x = _on_wide(a)
    assert_equal(xp.sort(x, axis=axis), np.sort(a, axis=axis))
    assert_equal(xp.argsort(x, axis=axis), np.argsort(a, axis=axis, kind="stable").astype(np.int32))
    # descending keeps ties in their original order
    flipped = np.flip(a, axis=axis)
    n = a.shape[axis]
    want = np.flip(n - 1 - np.argsort(flipped, axis=axis, kind="stable"), axis=axis)
    assert_equal(xp.argsort(x, axis=axis, descending=True), want.astype(np.int32))
    assert_equal(xp.sort(x, axis=axis, descending=True), np.flip(np.sort(a, axis=axis), axis=axis))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@given(data=st.data())
def test_sort_hypothesis(dtype, data):
    a = data.draw(arr(dtype, st.integers(0, 12).map(lambda n: (n,))))
    x = _on_wide(a)
    assert_equal(xp.sort(x), np.sort(a))
    assert_equal(xp.argsort(x), np.argsort(a, kind="stable").astype(np.int32))
    vals, cnt = np.unique(a, return_counts=True)
    r = xp.unique_counts(x)
    assert_equal(r.values, vals)
    assert_equal(r.counts, cnt.astype(np.int32))
    b = a[::2]
    assert_equal(xp.isin(x, _on_wide(b)), np.isin(a, b))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_unique_isin_searchsorted(dtype):
    a = _int_rows(dtype, (6, 7), 11)
    x = _on_wide(a)
    vals, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    r = xp.unique_all(x)
    assert_equal(r.values, vals)
    assert_equal(r.indices, idx.astype(np.int32))
    assert_equal(r.inverse_indices, inv.reshape(a.shape).astype(np.int32))
    assert_equal(r.counts, cnt.astype(np.int32))
    assert_equal(xp.unique_values(x), vals)
    assert_equal(xp.unique_counts(x).counts, cnt.astype(np.int32))
    assert_equal(xp.unique_inverse(x).inverse_indices, inv.reshape(a.shape).astype(np.int32))
    b = a[::2, 1::3]
    assert_equal(xp.isin(x, _on_wide(b)), np.isin(a, b))
    assert_equal(xp.isin(x, _on_wide(b), invert=True), np.isin(a, b, invert=True))
    s = np.sort(a[0])
    for side in ("left", "right"):
        assert_equal(xp.searchsorted(_on_wide(s), x, side=side),
                     np.searchsorted(s, a, side=side).astype(np.int32))
    assert_equal(xp.searchsorted(_on_wide(s), 1 << 35), np.array(np.searchsorted(s, 1 << 35), np.int32))
    # a narrower operand is compared in the promoted dtype
    small = np.array([3, 7 << 28, -1 if dtype == np.int64 else 5], np.int32 if dtype == np.int64 else np.uint32)
    assert_equal(xp.isin(_on_wide(small), x), np.isin(small.astype(dtype), a))


def test_complex_unique_and_isin():
    nan = float("nan")
    c = np.array([1 + 1j, complex(nan, 0), complex(1, nan), 0j, complex(-0.0, 0.0),
                  complex(0.0, -0.0), 1 + 1j, complex(nan, 0), 2 - 1j, 1 - 1j,
                  complex(np.inf, 1), complex(np.inf, 1), 1 + 1j], np.complex64)
    z = _on_wide(c)
    r = xp.unique_all(z)
    vals, idx, inv, cnt = np.unique(c, return_index=True, return_inverse=True, return_counts=True)
    # NumPy folds its NaNs into one; the standard wants each value with a NaN part distinct,
    # and leaves the order open (here: by real part, then imaginary part, NaN last in each)
    finite = ~np.isnan(vals)
    got = np.asarray(r.values)
    assert r.values.dtype == xp.complex64 and got.shape == (finite.sum() + np.isnan(c).sum(),)
    kept = ~np.isnan(got)
    np.testing.assert_array_equal(got[kept], vals[finite])
    np.testing.assert_array_equal(np.asarray(r.counts)[kept], cnt[finite])
    np.testing.assert_array_equal(np.asarray(r.counts)[~kept], 1)
    np.testing.assert_array_equal(np.asarray(r.indices)[kept], idx[finite])
    np.testing.assert_array_equal(np.sort(np.asarray(r.indices)[~kept]), np.flatnonzero(np.isnan(c)))
    # every element maps to a unique value equal to it
    np.testing.assert_array_equal(got[np.asarray(r.inverse_indices)][~np.isnan(c)], c[~np.isnan(c)])
    assert_equal(xp.unique_counts(z).counts, np.asarray(r.counts))
    assert_equal(xp.isin(z, z[::2]), np.isin(c, c[::2]))
    assert_equal(xp.isin(z, z[:3], invert=True), np.isin(c, c[:3], invert=True))


def test_complex_is_not_ordered():
    z = _on_wide(np.array([1 + 1j, 2j], np.complex64))
    for fn in (xp.sort, xp.argsort, xp.argmax, xp.argmin, xp.max, xp.min, xp.var, xp.std):
        with pytest.raises(TypeError):
            fn(z)
    with pytest.raises(TypeError):
        xp.searchsorted(z, z)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_argmax_argmin(dtype):
    a = _int_rows(dtype, (5, 8), 4)
    x = _on_wide(a)
    assert_equal(xp.argmax(x, axis=1), np.argmax(a, axis=1).astype(np.int32))
    assert_equal(xp.argmin(x, axis=0), np.argmin(a, axis=0).astype(np.int32))
    assert_equal(xp.argmax(x), np.array(np.argmax(a), np.int32))
    assert_equal(xp.argmin(x, axis=1, keepdims=True), np.argmin(a, axis=1, keepdims=True).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.complex64])
def test_nonzero_where_count(dtype):
    a = (_int_rows(dtype, (4, 6), 5) if dtype != np.complex64
         else np.array([[0, 1j, 0, -0.0, 2, 0], [3 - 1j, 0, 0, 0, 1, 1]], np.complex64))
    a.flat[::3] = 0
    x = _on_wide(a)
    for got, want in zip(xp.nonzero(x), np.nonzero(a)):
        assert_equal(got, want.astype(np.int32))
    assert_equal(xp.count_nonzero(x, axis=1), np.count_nonzero(a, axis=1).astype(np.int32))
    assert_equal(xp.where(x == x[:1], x, x[-1:]), np.where(a == a[:1], a, a[-1:]))
    assert_equal(xp.all(x, axis=0), np.all(a, axis=0))
    assert_equal(xp.any(x, axis=1), np.any(a, axis=1))


# -- statistics ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_prod_cumulative(dtype):
    rng = np.random.default_rng(8)
    a = rng.integers(-300 if dtype == np.int64 else 0, 300, (4, 7)).astype(dtype)
    a[0] = np.array([1 << 40, 3, 5, 1 << 23, 7, 1, 2], dtype)  # wraps modulo 2^64
    x = _on_wide(a)
    with np.errstate(all="ignore"):
        assert_equal(xp.prod(x, axis=1), np.prod(a, axis=1))
        assert_equal(xp.prod(x), np.prod(a))
        assert_equal(xp.cumulative_prod(x, axis=1), np.cumprod(a, axis=1))
        assert_equal(xp.cumulative_sum(x, axis=0, include_initial=True),
                     np.concatenate([np.zeros((1, 7), dtype), np.cumsum(a, axis=0)]))
    # the result keeps the input's dtype (wider than the default integer dtype)
    assert xp.sum(x).dtype == x.dtype and xp.cumulative_sum(x, axis=1).dtype == x.dtype
    assert xp.sum(x, dtype=xp.int32).dtype == xp.int32
    small = a.astype(np.int32 if dtype == np.int64 else np.uint32)
    assert_equal(xp.sum(_on_wide(small), axis=1, dtype=getattr(xp, np.dtype(dtype).name)),
                 small.sum(axis=1, dtype=dtype))


def test_complex_statistics():
    rng = np.random.default_rng(9)
    a = (rng.uniform(-2, 2, (4, 6)) + 1j * rng.uniform(-2, 2, (4, 6))).astype(np.complex64)
    x = _on_wide(a)
    assert_equal(xp.mean(x, axis=1), a.mean(axis=1), rtol=1e-6, atol=1e-6)
    assert_equal(xp.mean(x), np.array(a.mean(), np.complex64), rtol=1e-6, atol=1e-6)
    assert_equal(xp.prod(x, axis=1), np.prod(a, axis=1), rtol=1e-5, atol=1e-5)
    assert_equal(xp.cumulative_prod(x, axis=1), np.cumprod(a, axis=1), rtol=1e-5, atol=1e-5)
    assert_equal(xp.cumulative_sum(x, axis=0), np.cumsum(a, axis=0), rtol=1e-6, atol=1e-6)
    nan = np.asarray(xp.mean(_on_wide(np.zeros((2, 0), np.complex64)), axis=1))
    assert np.isnan(nan.real).all() and np.isnan(nan.imag).all()


# -- manipulation and indexing -------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.complex64])
def test_manipulation_and_take(dtype):
    a = (_int_rows(dtype, (3, 4), 6) if dtype != np.complex64
         else (np.arange(12).reshape(3, 4) * (1 - 2j) + 0.5j).astype(np.complex64))
    x = _on_wide(a)
    assert_equal(xp.concat([x, x[:1]]), np.concatenate([a, a[:1]]))
    assert_equal(xp.concat([x, x], axis=None), np.concatenate([a.ravel(), a.ravel()]))
    assert_equal(xp.stack([x, x.T.T], axis=1), np.stack([a, a], axis=1))
    assert_equal(xp.flip(x, axis=1), np.flip(a, axis=1))
    assert_equal(xp.roll(x, 5), np.roll(a, 5))
    assert_equal(xp.roll(x, -1, axis=0), np.roll(a, -1, axis=0))
    assert_equal(xp.repeat(x, 2, axis=0), np.repeat(a, 2, axis=0))
    assert_equal(xp.repeat(x, _on_wide(np.array([2, 0, 1, 3], np.int64)), axis=1),
                 np.repeat(a, [2, 0, 1, 3], axis=1))
    assert_equal(xp.tile(x, (2, 1, 2)), np.tile(a, (2, 1, 2)))
    assert_equal(xp.reshape(x.T, (2, 6)), a.T.reshape(2, 6))
    assert_equal(xp.moveaxis(x[None], 0, 2), np.moveaxis(a[None], 0, 2))
    assert_equal(xp.permute_dims(x, (1, 0)), a.T)
    assert_equal(xp.squeeze(xp.expand_dims(x, axis=1), axis=1), a)
    assert_equal(xp.broadcast_to(x[1], (2, 4)), np.broadcast_to(a[1], (2, 4)))
    for got, want in zip(xp.unstack(x, axis=1), np.moveaxis(a, 1, 0)):
        assert_equal(got, want)
    assert_equal(xp.diff(x, axis=1), np.diff(a, axis=1))
    idx = np.array([3, 0, 0, 2])
    assert_equal(xp.take(x, _on_wide(idx), axis=1), np.take(a, idx, axis=1))
    assert_equal(xp.take(x, _on_wide(idx.astype(np.int64)), axis=1), np.take(a, idx, axis=1))
    j = np.array([[1, 0], [3, 3], [0, 2]])
    assert_equal(xp.take_along_axis(x, _on_wide(j), axis=1), np.take_along_axis(a, j, axis=1))


# -- linear algebra ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.complex64])
def test_linear_algebra(dtype):
    rng = np.random.default_rng(10)
    if dtype == np.complex64:
        def make(*s):
            return (rng.integers(-8, 8, s) + 1j * rng.integers(-8, 8, s)).astype(dtype)
    else:
        def make(*s):
            # products and sums that wrap modulo 2^64, both words nonzero
            return _int_rows(dtype, s, int(rng.integers(100)))
    a, b = make(2, 70, 19), make(19, 67)
    x, y = _on_wide(a), _on_wide(b)
    with np.errstate(all="ignore"):
        assert_equal(xp.matmul(x, y), a @ b)
        assert_equal(x @ y[:, 3], a @ b[:, 3])
        assert_equal(xp.matmul(x[0, 5], y), a[0, 5] @ b)
        assert_equal(xp.matmul(xp.matrix_transpose(y), xp.matrix_transpose(x)), np.swapaxes(a @ b, -1, -2))
        assert_equal(xp.tensordot(x, y, axes=1), np.tensordot(a, b, axes=1))
        assert_equal(xp.tensordot(x, x, axes=([0, 2], [0, 2])), np.tensordot(a, a, axes=([0, 2], [0, 2])))
        # vecdot conjugates its first argument
        assert_equal(xp.vecdot(x, x[::-1]), np.sum(np.conj(a) * a[::-1], axis=-1))
        assert_equal(xp.linalg.vecdot(x, x[1], axis=1), np.sum(np.conj(a) * a[1], axis=1))
