"""float64 reductions, scans and sorts (issue #20) on a device that opts in, against NumPy.

Exact (bit for bit, any NaN matching any NaN) wherever the order of operations cannot
change the result: min/max (up to the sign of a zero result, whose order NumPy leaves to
its SIMD loops), argmin/argmax, all/any/count_nonzero, sums of integer-valued doubles
whose partial sums stay below 2**53, products of powers of two, sort/argsort and
searchsorted. Elsewhere our tree sums round in another order than NumPy's pairwise sums,
so they are checked against the exact value (math.fsum, or Fraction for var) within the
error bound of a summation tree of depth d: |error| <= d * u * sum|x| (u = 2**-53),
d = ceil(log2 n) + 2 (a tree over n padded to a power of two in each pass, with a level per
pass); NaN and ±inf must match exactly.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core.device import Device, default_device
from test_statistical import axis_arg

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's NaN/inf warnings

U = 2.0 ** -53  # unit roundoff of float64
EDGE = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072009e-308,
        1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan,
        1.0, -1.0, 0.5, 2.5, 1.0000000000000002, 0.9999999999999999, 2.0 ** 53, 0.1, -1 / 3]


@pytest.fixture(scope="module")
def dev():
    return Device(default_device().executor, float64=True)


def host(x) -> np.ndarray:
    return np.from_dlpack(x)


def same(got: np.ndarray, want: np.ndarray, signless_zero: bool = False) -> None:
    """Bit for bit, any NaN matching any NaN; with signless_zero, -0.0 matches +0.0."""
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    if want.dtype.kind != "f":
        assert (got == want).all(), (got, want)
        return
    g, w = got.ravel(), want.ravel()
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all(), (g, w)
    bad = ~nan & (g.view(np.uint64) != w.view(np.uint64))
    if signless_zero:
        bad &= ~((g == 0) & (w == 0))
    assert not bad.any(), list(zip(g[bad][:5], w[bad][:5]))


doubles = st.integers(0, 2 ** 64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0])
any_double = st.one_of(doubles, st.sampled_from(EDGE), st.floats(-1e6, 1e6))
small_shapes = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)


@st.composite
def arrays(draw, dev, elements, shape=None, min_size=0):
    """(numpy array, webarray array) with equal float64 values; the webarray side may be a
    reversed, strided or transposed view."""
    if shape is None:
        shape = draw(small_shapes.filter(lambda s: math.prod(s) >= min_size))
    kind = draw(st.sampled_from(["plain", "reversed", "strided", "transposed"]))
    big = tuple(2 * n for n in shape) if kind == "strided" else shape
    values = draw(st.lists(elements, min_size=math.prod(big), max_size=math.prod(big)))
    a = np.array(values, np.float64).reshape(big)
    x = xp.asarray(a, device=dev)
    if kind == "reversed":
        idx = tuple(slice(None, None, -1) for _ in shape)
        return a[idx], x[idx]
    if kind == "strided":
        idx = tuple(slice(None, None, 2) for _ in shape)
        return a[idx], x[idx]
    if kind == "transposed":
        return a.T, xp.permute_dims(x, tuple(reversed(range(len(shape)))))
    return a, x


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))


def exact_sums(a: np.ndarray, axis, keepdims: bool, f=math.fsum) -> np.ndarray:
    """f (math.fsum: the correctly rounded sum) of each reduced group, and Σ|x| alongside."""
    axes = _axes(axis, a.ndim)
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    rest = moved.shape[:a.ndim - len(axes)]
    flat = moved.reshape(rest + (-1,))
    out = np.empty(rest, np.float64)
    mag = np.empty(rest, np.float64)
    for i in np.ndindex(*rest):
        finite = np.isfinite(flat[i]).all()  # else the caller takes NumPy's special value
        out[i] = f(flat[i]) if finite else math.nan
        mag[i] = math.fsum(abs(v) for v in flat[i]) if finite else 0.0
    if keepdims:
        out = np.expand_dims(out, axes)
        mag = np.expand_dims(mag, axes)
    return out, mag


def depth(n: int) -> int:
    return max(n - 1, 0).bit_length() + 2


def assert_within(got: np.ndarray, want: np.ndarray, bound: np.ndarray) -> None:
    assert got.dtype == np.float64 and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    special = ~np.isfinite(want)
    same(got[special], want[special])
    err = np.abs(got[~special] - want[~special])
    tol = np.broadcast_to(bound, want.shape)[~special]
    assert (err <= tol).all(), (got[~special][err > tol], want[~special][err > tol],
                                tol[err > tol])


def _reduce_args(data, shape):
    axis = data.draw(axis_arg(len(shape)))
    keepdims = data.draw(st.booleans())
    return axis, keepdims


# -- exact: order does not matter ---------------------------------------------------------

@given(st.data())
def test_min_max_exact(dev, data):
    a, x = data.draw(arrays(dev, any_double, min_size=1))
    axis, keepdims = _reduce_args(data, a.shape)
    if any(a.shape[d] == 0 for d in _axes(axis, a.ndim)):
        with pytest.raises(ValueError):
            xp.max(x, axis=axis, keepdims=keepdims)
        return
    for f, ref in ((xp.max, np.max), (xp.min, np.min)):
        same(host(f(x, axis=axis, keepdims=keepdims)), ref(a, axis=axis, keepdims=keepdims),
             signless_zero=True)


@given(st.data())
def test_argmin_argmax_exact(dev, data):
    # few distinct values, so ties (±0 among them) and NaNs meet across lanes and chunks
    few = st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, math.inf, -math.inf,
                           math.nan, 1e308])
    a, x = data.draw(arrays(dev, st.one_of(few, any_double), min_size=1))
    axis = data.draw(st.one_of(st.none(), st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1)))
    if a.ndim == 0 and axis is not None:
        axis = None
    keepdims = data.draw(st.booleans())
    if (a.size if axis is None else a.shape[axis]) == 0:
        with pytest.raises(ValueError):
            xp.argmax(x, axis=axis)
        return
    for f, ref in ((xp.argmax, np.argmax), (xp.argmin, np.argmin)):
        got = host(f(x, axis=axis, keepdims=keepdims))
        same(got, ref(a, axis=axis, keepdims=keepdims).astype(np.int32))


@given(st.data())
def test_all_any_count_nonzero(dev, data):
    few = st.sampled_from([0.0, -0.0, 5e-324, math.nan, -math.inf, 1.0])
    a, x = data.draw(arrays(dev, few))
    axis, keepdims = _reduce_args(data, a.shape)
    same(host(xp.all(x, axis=axis, keepdims=keepdims)), np.all(a, axis=axis, keepdims=keepdims))
    same(host(xp.any(x, axis=axis, keepdims=keepdims)), np.any(a, axis=axis, keepdims=keepdims))
    same(host(xp.count_nonzero(x, axis=axis, keepdims=keepdims)),
         np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims)).astype(np.int32))


# integers below 2**40 in magnitude: sums of up to 2**12 of them are exact in every order
integral = st.integers(-2 ** 40, 2 ** 40).map(float)


@given(st.data())
def test_sum_of_integers_is_exact(dev, data):
    a, x = data.draw(arrays(dev, st.one_of(integral, st.just(-0.0))))
    axis, keepdims = _reduce_args(data, a.shape)
    # sums of -0.0 alone stay -0.0, as NumPy's do
    same(host(xp.sum(x, axis=axis, keepdims=keepdims)), np.sum(a, axis=axis, keepdims=keepdims))


def test_sum_of_negative_zeros_and_specials(dev):
    a = np.array([[-0.0, -0.0, -0.0], [-0.0, 0.0, -0.0], [math.inf, 1.0, -math.inf],
                  [math.nan, 1.0, 2.0], [math.inf, math.inf, 1.0], [1e308, 1e308, -1e308]])
    x = xp.asarray(a, device=dev)
    with np.errstate(invalid="ignore", over="ignore"):
        same(host(xp.sum(x, axis=1)), np.sum(a, axis=1))
        same(host(xp.prod(x, axis=1)), np.prod(a, axis=1))
    # NumPy's sum starts from +0.0, its cumulative sum from the first element
    same(host(xp.sum(x[0])), np.float64(0.0))
    same(host(xp.cumulative_sum(x[0])), np.full(3, -0.0))
    for shape, axis in (((16,), None), ((3, 16), 1), ((16, 3), 0), ((4096,), None)):
        z = xp.asarray(np.full(shape, -0.0), device=dev)  # rows of no padding: the tree's -0.0
        same(host(xp.sum(z, axis=axis)), np.sum(np.full(shape, -0.0), axis=axis))
        same(host(xp.mean(z, axis=axis)), np.mean(np.full(shape, -0.0), axis=axis))
    z = np.full(3000, -0.0)  # several chunks: the carries keep -0.0 too
    same(host(xp.cumulative_sum(xp.asarray(z, device=dev))), z)
    same(host(xp.sum(xp.asarray(z, device=dev))), np.float64(0.0))


powers = st.builds(lambda s, k: s * 2.0 ** k, st.sampled_from([1.0, -1.0]), st.integers(-40, 40))


@given(st.data())
def test_prod_of_powers_of_two_is_exact(dev, data):
    a, x = data.draw(arrays(dev, st.one_of(powers, st.sampled_from([0.0, -0.0, math.inf]))))
    axis, keepdims = _reduce_args(data, a.shape)
    same(host(xp.prod(x, axis=axis, keepdims=keepdims)), np.prod(a, axis=axis, keepdims=keepdims))


# -- within the error bound of a tree ------------------------------------------------------

finite = st.one_of(st.floats(-1e6, 1e6), st.floats(-1e300, 1e300), st.sampled_from(
    [0.0, -0.0, 5e-324, 0.1, 1 / 3, 1e-300]))


@given(st.data())
def test_sum_within_tree_bound(dev, data):
    a, x = data.draw(arrays(dev, st.one_of(finite, st.sampled_from([math.inf, -math.inf,
                                                                    math.nan]))))
    axis, keepdims = _reduce_args(data, a.shape)
    got = host(xp.sum(x, axis=axis, keepdims=keepdims))
    with np.errstate(invalid="ignore"):
        want = np.sum(a, axis=axis, keepdims=keepdims)  # specials and shape as NumPy's
    exact, mag = exact_sums(a, axis, keepdims) if a.size else (want, want)
    exact = np.where(np.isfinite(want), exact, want)
    n = max(1, a.size // max(1, want.size))
    assert_within(got, exact, depth(n) * U * mag + 5e-324)


@given(st.integers(1, 3000), st.integers(1, 3), st.integers(0, 2 ** 32 - 1))
@settings(max_examples=15)
def test_long_sums_and_means(dev, n, rows, seed):
    """Rows long enough for several chunks and passes; values of one sign over six decades,
    so the bound relative to the result is about log2(n) ulps."""
    rng = np.random.default_rng(seed)
    a = rng.random((rows, n)) * 10.0 ** rng.integers(-3, 3, (rows, n))
    x = xp.asarray(a, device=dev)
    exact = np.array([math.fsum(r) for r in a])
    bound = depth(n) * U * exact
    assert_within(host(xp.sum(x, axis=1)), exact, bound)
    assert_within(host(xp.sum(x.T, axis=0)), exact, bound)  # column layout
    assert_within(host(xp.mean(x, axis=1)), exact / n, bound / n + U * exact / n)
    total = math.fsum(a.ravel())
    assert_within(host(xp.sum(x)), np.float64(total), depth(a.size) * U * total)


@given(st.data())
def test_prod_within_bound(dev, data):
    near_one = st.one_of(st.floats(0.5, 2.0), st.floats(-2.0, -0.5))
    a, x = data.draw(arrays(dev, near_one))
    axis, keepdims = _reduce_args(data, a.shape)
    got = host(xp.prod(x, axis=axis, keepdims=keepdims))
    want = np.prod(a, axis=axis, keepdims=keepdims)
    n = max(1, a.size // max(1, want.size))
    # every product rounds once: n - 1 roundings of relative u at most
    assert_within(got, want, 2 * n * U * np.abs(want))


def _exact_var(values, correction: float) -> Fraction | None:
    n = len(values)
    if n - correction <= 0:
        return None
    f = [Fraction(v) for v in values]
    mu = sum(f) / n
    return sum((v - mu) ** 2 for v in f) / Fraction(n - correction)


@given(st.data())
def test_mean_var_std(dev, data):
    well = st.one_of(st.floats(-1e3, 1e3), st.floats(1e5, 1e5 + 1))
    a, x = data.draw(arrays(dev, well, min_size=1))
    axis, keepdims = _reduce_args(data, a.shape)
    axes = _axes(axis, a.ndim)
    n = math.prod(a.shape[d] for d in axes)
    correction = data.draw(st.sampled_from([0, 1, 0.5, 0.1, 1e-9, n, n + 0.5]))
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    rest = moved.shape[:a.ndim - len(axes)]
    flat = moved.reshape(rest + (n,))
    mean = np.empty(rest)
    var = np.empty(rest)
    vbound = np.empty(rest)
    mbound = np.empty(rest)
    for i in np.ndindex(*rest):
        row = list(flat[i])
        s = math.fsum(row)
        mag = math.fsum(abs(v) for v in row)
        mean[i] = s / n if n else math.nan
        mbound[i] = (depth(n) * U * mag + U * abs(s)) / max(n, 1)
        v = _exact_var(row, correction) if n else None
        var[i] = math.nan if v is None else float(v)
        if v is not None:
            # the deviations from the rounded mean: each off by up to mbound, so the sum of
            # their squares by up to 2 * sqrt(n * ssq) * mbound + n * mbound**2, then each
            # square and the tree round (depth + 3 roundings of relative u)
            ssq = float(v) * (n - correction)
            dm = mbound[i] + U * max(abs(r) for r in row)
            err = 2 * math.sqrt(n * ssq) * dm + n * dm * dm + (depth(n) + 3) * U * ssq
            vbound[i] = err / (n - correction) + U * var[i]
        else:
            vbound[i] = 0.0
    if keepdims:
        mean, var, vbound, mbound = (np.expand_dims(t, axes) for t in (mean, var, vbound, mbound))
    assert_within(host(xp.mean(x, axis=axis, keepdims=keepdims)), mean, mbound + 5e-324)
    got_var = host(xp.var(x, axis=axis, correction=correction, keepdims=keepdims))
    assert_within(got_var, var, vbound + 5e-324)
    std = np.sqrt(var)
    sbound = np.where(std > 0, vbound / (2 * np.where(std > 0, std, 1)), np.sqrt(vbound)) \
        + U * std
    got_std = host(xp.std(x, axis=axis, correction=correction, keepdims=keepdims))
    assert_within(got_std, std, sbound + 5e-324)


def test_var_divisor_is_float64(dev):
    """count - correction as float64: 3 - 1e-9 is 3.0 in float32."""
    a = np.array([1.0, 2.0, 4.0])
    x = xp.asarray(a, device=dev)
    for c in (1e-9, 0.1, 2.9999999):
        want = float(_exact_var(list(a), c))
        got = float(host(xp.var(x, correction=c)))
        assert abs(got - want) <= 4 * U * want, (c, got, want)
        same(host(xp.var(x, correction=c)), np.var(a, ddof=c))


def test_mean_var_specials(dev):
    a = np.array([[1.0, math.inf], [math.nan, 1.0], [math.inf, -math.inf], [2.0, 2.0],
                  [-0.0, -0.0]])
    x = xp.asarray(a, device=dev)
    with np.errstate(invalid="ignore"):
        same(host(xp.mean(x, axis=1)), np.mean(a, axis=1))
        same(host(xp.var(x, axis=1)), np.var(a, axis=1))
        same(host(xp.std(x, axis=1)), np.std(a, axis=1))


# -- scans ---------------------------------------------------------------------------------

@given(st.data())
def test_cumulative_sum_of_integers_is_exact(dev, data):
    a, x = data.draw(arrays(dev, integral, min_size=1))
    if a.ndim == 0:
        return
    axis = data.draw(st.integers(0, a.ndim - 1))
    init = data.draw(st.booleans())
    got = host(xp.cumulative_sum(x, axis=axis, include_initial=init))
    want = np.cumsum(a, axis=axis)
    if init:
        want = np.concatenate([np.zeros_like(np.take(want, [0], axis=axis)), want], axis=axis)
    same(got, want)


@given(st.data())
def test_cumulative_prod_of_powers_of_two_is_exact(dev, data):
    a, x = data.draw(arrays(dev, st.one_of(powers, st.sampled_from([0.0, -0.0, math.nan])),
                            min_size=1))
    if a.ndim == 0:
        return
    axis = data.draw(st.integers(0, a.ndim - 1))
    same(host(xp.cumulative_prod(x, axis=axis)), np.cumprod(a, axis=axis))


@pytest.mark.parametrize("n", [1, 7, 100, 2049, 20000])
def test_long_cumulative_sum_within_bound(dev, n):
    """Rows of several chunks: each prefix within the bound of a scan (P = 8 sequential
    steps, an up- and a down-sweep and the carries of one more level per pass)."""
    rng = np.random.default_rng(n)
    a = rng.random((2, n)) * 100
    x = xp.asarray(a, device=dev)
    got = host(xp.cumulative_sum(x, axis=1))
    exact = np.array([[math.fsum(r[:j + 1]) for j in range(n)] for r in a]) if n <= 2049 \
        else np.cumsum(a.astype(np.longdouble), axis=1).astype(np.float64)
    bound = (8 + 4 * depth(n)) * U * exact
    assert_within(got, exact, bound)
    assert_within(host(xp.cumulative_sum(x.T, axis=0)).T, exact, bound)


# -- dtype=, empty, 0-d, broadcast ---------------------------------------------------------

def test_float32_accumulated_in_float64(dev):
    a = np.full(10000, 0.1, np.float32)  # float32 sums of these drift far; float64 ones are exact
    x = xp.asarray(a, device=dev)
    got = xp.sum(x, dtype=xp.float64)
    assert got.dtype == xp.float64
    same(host(got), np.sum(a, dtype=np.float64))
    b = np.full(20, 1.5, np.float32)  # 1.5**20 = 3**20 / 2**20: exact in float64, not float32
    same(host(xp.prod(xp.asarray(b, device=dev), dtype=xp.float64)), np.prod(b, dtype=np.float64))
    same(host(xp.cumulative_sum(x, dtype=xp.float64)), np.cumsum(a, dtype=np.float64))
    i = np.arange(-50, 50, dtype=np.int32) * 123456789
    same(host(xp.sum(xp.asarray(i, device=dev), dtype=xp.float64)), np.sum(i, dtype=np.float64))
    # float64 to a narrower accumulator converts each element as it is read
    d = np.array([1.5, -2.25, 3e9, 0.1])
    same(host(xp.sum(xp.asarray(d, device=dev), dtype=xp.int64)), np.sum(d.astype(np.int64)))
    assert xp.sum(xp.asarray(d, device=dev), dtype=xp.float32).dtype == xp.float32
    assert float(host(xp.sum(xp.asarray(d, device=dev), dtype=xp.float32))) == pytest.approx(
        float(np.sum(d.astype(np.float32))), rel=1e-6)


def test_empty_and_zero_d(dev):
    e = xp.asarray(np.zeros((0, 3)), device=dev)
    same(host(xp.sum(e)), np.float64(0.0))
    same(host(xp.prod(e)), np.float64(1.0))
    same(host(xp.sum(e, axis=0)), np.zeros(3))
    same(host(xp.sum(e, axis=1)), np.zeros(0))
    same(host(xp.cumulative_sum(e, axis=0)), np.zeros((0, 3)))
    same(host(xp.cumulative_sum(e, axis=0, include_initial=True)), np.zeros((1, 3)))
    same(host(xp.mean(e, axis=0)), np.full(3, math.nan))
    same(host(xp.var(e, axis=0)), np.full(3, math.nan))
    same(host(xp.all(e)), np.bool_(True))
    same(host(xp.any(e)), np.bool_(False))
    same(host(xp.count_nonzero(e)), np.int32(0))
    for f in (xp.min, xp.max, xp.argmin, xp.argmax):
        with pytest.raises(ValueError):
            f(e)
    for v in (-0.0, 2.5, math.nan, -math.inf):
        z = xp.asarray(v, dtype=xp.float64, device=dev)
        for f, ref in ((xp.sum, np.sum), (xp.prod, np.prod), (xp.min, np.min),
                       (xp.max, np.max), (xp.mean, np.mean)):
            same(host(f(z)), ref(np.float64(v)))
        same(host(xp.var(z)), np.float64(0.0 if math.isfinite(v) else math.nan))
        same(host(xp.argmin(z)), np.int32(0))
        same(host(xp.all(z)), np.bool_(v != 0))


def test_broadcast_axes(dev):
    a = np.array([[1.5, -0.0, math.nan], [2.0 ** 60, 3.0, -7.25]])
    b = np.broadcast_to(a[:, None, :], (2, 1000, 3))
    x = xp.broadcast_to(xp.asarray(a, device=dev)[:, None, :], (2, 1000, 3))
    for f, ref in ((xp.sum, np.sum), (xp.max, np.max), (xp.min, np.min), (xp.mean, np.mean)):
        same(host(f(x, axis=1)), ref(b, axis=1), signless_zero=True)
    same(host(xp.argmax(x, axis=1)), np.argmax(b, axis=1).astype(np.int32))
    same(host(xp.var(x, axis=(0, 1))), np.var(b, axis=(0, 1)))


def test_long_rows_nan_and_extremes(dev):
    n = 5000
    a = np.linspace(-1.0, 1.0, n)
    x = xp.asarray(a, device=dev)
    same(host(xp.argmin(x)), np.int32(0))
    same(host(xp.argmax(x)), np.int32(n - 1))
    for pos in (0, 17, 4095, n - 1):
        b = a.copy()
        b[pos] = math.nan
        y = xp.asarray(b, device=dev)
        assert math.isnan(float(host(xp.max(y))))
        assert math.isnan(float(host(xp.min(y))))
        assert math.isnan(float(host(xp.sum(y))))
        same(host(xp.argmin(y)), np.int32(pos))
        same(host(xp.argmax(y)), np.int32(pos))
    c = np.full(n, 2.5)
    same(host(xp.argmax(xp.asarray(c, device=dev))), np.int32(0))


# -- sorting -------------------------------------------------------------------------------

def _desc_order(v: np.ndarray) -> np.ndarray:
    """Descending, NaN first, equal values (±0 among them) in their original order."""
    return np.array(sorted(range(len(v)), key=lambda i: (0, 0.0) if math.isnan(v[i])
                           else (1, -v[i])), np.int64)


@given(st.data())
def test_sort_argsort(dev, data):
    few = st.sampled_from([0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 5e-324,
                           -5e-324, 1.0, -1.0])
    a, x = data.draw(arrays(dev, st.one_of(few, any_double), min_size=1))
    if a.ndim == 0:
        return
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    same(host(xp.argsort(x, axis=axis)), np.argsort(a, axis=axis, kind="stable").astype(np.int32))
    same(host(xp.sort(x, axis=axis)), np.sort(a, axis=axis, kind="stable"))
    desc = np.apply_along_axis(_desc_order, axis, a) if a.size else np.zeros(a.shape, np.int64)
    same(host(xp.argsort(x, axis=axis, descending=True)), desc.astype(np.int32))


def test_sort_edge_values(dev):
    v = np.array(EDGE + [-0.0, 0.0, -math.nan, math.nan, -math.inf] + EDGE[::-1])
    x = xp.asarray(v, device=dev)
    same(host(xp.argsort(x)), np.argsort(v, kind="stable").astype(np.int32))
    same(host(xp.sort(x)), np.sort(v, kind="stable"))
    same(host(xp.argsort(x, descending=True)), _desc_order(v).astype(np.int32))
    r = np.tile(v, (3, 1))
    r[1] = r[1, ::-1]
    same(host(xp.argsort(xp.asarray(r, device=dev), axis=1)),
         np.argsort(r, axis=1, kind="stable").astype(np.int32))


@given(st.data())
def test_searchsorted_and_isin(dev, data):
    few = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 1.0, -1.0])
    vals = st.one_of(few, any_double)
    s = np.sort(np.array(data.draw(st.lists(vals, min_size=1, max_size=40))))
    q = np.array(data.draw(st.lists(st.one_of(vals, st.sampled_from(list(s))), max_size=20)))
    xs, xq = xp.asarray(s, device=dev), xp.asarray(q, device=dev)
    for side in ("left", "right"):
        same(host(xp.searchsorted(xs, xq, side=side)),
             np.searchsorted(s, q, side=side).astype(np.int32))
    same(host(xp.isin(xq, xs)), np.isin(q, s) & ~np.isnan(q))
