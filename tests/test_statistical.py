"""Statistical functions (sum, prod, min, max, mean, var, std, cumulative_sum,
cumulative_prod) against NumPy, or against float64 references within the error bound of a
tree (pairwise) sum where float32 rounding order differs from NumPy's."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import (DTYPES, INT_NAMES, NUMERIC_NAMES, SUPPORTED_NAMES, UNSUPPORTED_NAMES,
                     assert_equal, shapes, to_np, views)

EPS = 2.0 ** -24  # unit roundoff of float32
TINY = 2.0 ** -126  # smallest normal float32: the error of an operation that flushes subnormals
F32_MAX = float(np.finfo(np.float32).max)
# finite values whose sums cannot overflow float32 in any order
BOUNDED = st.floats(-1e4, 1e4, width=32)
# values whose products stay in range for the arrays drawn for prod
NEAR_ONE = st.one_of(st.floats(0.5, 2, width=32), st.floats(-2, -0.5, width=32))
SPECIAL = st.sampled_from([1.0, -2.5, 0.0, np.nan, np.inf, -np.inf]).map(np.float32)
DEFAULT_INT = {"i": "int32", "u": "uint32"}
# a relative tolerance far below one ulp: exact comparison, except that -0.0 == 0.0 (the
# order of signed zeros in min and max is implementation-defined)
SIGNLESS = 1e-30


# -- shared strategies and checks (test_utility and test_searching_reductions use them) ------

@st.composite
def axis_arg(draw, ndim: int):
    """None, an int, or a tuple of distinct axes (any order, either sign)."""
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or (kind == "int" and ndim == 0):
        return None
    if kind == "int":
        a = draw(st.integers(0, ndim - 1))
        return a - ndim if draw(st.booleans()) else a
    perm = draw(st.permutations(list(range(ndim))))
    k = draw(st.integers(0, ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in perm[:k])


def reduced_count(shape, axis) -> int:
    if axis is None:
        return math.prod(shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    return math.prod(shape[a] for a in axes)


def assert_within(got, expected64, bound, dtype="float32"):
    """got (webarray) has dtype and shape of the reference and lies within bound (arrays,
    float64) of it; NaN and infinities must match exactly."""
    assert got.dtype == getattr(xp, dtype), (got.dtype, dtype)
    expected64 = np.asarray(expected64, dtype=np.float64)
    assert got.shape == expected64.shape, (got.shape, expected64.shape)
    g = to_np(got).astype(np.float64)
    bound = np.broadcast_to(bound, expected64.shape)
    # beyond float32's range the result is an infinity of the exact value's sign
    big = np.abs(expected64) - bound > F32_MAX
    expected64 = np.where(big, np.copysign(np.inf, expected64), expected64)
    # near the edge of the range either the finite value or the infinity is right
    edge = (np.isinf(g) & (np.abs(expected64) + bound >= F32_MAX)
            & (np.sign(g) == np.sign(expected64)))
    g = np.where(edge & ~big, expected64, g)
    special = ~np.isfinite(expected64)
    np.testing.assert_array_equal(g[special], expected64[special])
    err = np.abs(g - expected64)[~special]
    tol = bound[~special] + 1e-30
    assert (err <= tol).all(), (
        f"worst error {np.max(err - tol) + tol[np.argmax(err - tol)]:.3g} over bound "
        f"{tol[np.argmax(err - tol)]:.3g}; got {g[~special][np.argmax(err - tol)]}, "
        f"expected {expected64[~special][np.argmax(err - tol)]}")


def assert_stored_exactly(got, expected):
    """Narrow integers must be stored wrapped (as the device's kernels read them): compare
    on the device too, not only after the host's conversion."""
    if got.size:
        assert bool(xp.all(got == xp.asarray(expected))), "stored words are not wrapped"


def sum_bound(a64, axis, keepdims):
    """Error bound of a float32 tree sum: (⌈log2 n⌉ + 2)·u·Σ|a| plus the final rounding, plus
    n·TINY where subnormals may be flushed (WGSL allows it)."""
    n = max(reduced_count(a64.shape, axis), 1)
    mag = np.abs(a64).sum(axis=axis, keepdims=keepdims)
    return (math.ceil(math.log2(n)) + 3) * EPS * mag + (n + 1) * TINY


# -- sum and prod ------------------------------------------------------------------------------

@st.composite
def sum_case(draw, bounded=BOUNDED, max_side=6):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes(max_side=max_side))
    a, x = draw(views(name, shape, elements_strategy=bounded if name == "float32" else None))
    axis = draw(axis_arg(len(shape)))
    keepdims = draw(st.booleans())
    dtype = draw(st.sampled_from([None, name] + ([] if name == "float32" else
                                                 ["int32", "uint32", "int8", "float32"])))
    return name, a, x, axis, keepdims, dtype


def _result_name(name, dtype):
    if dtype is not None:
        return dtype
    kind = np.dtype(DTYPES[name]).kind
    return DEFAULT_INT.get(kind, name)


@given(sum_case())
def test_sum(case):
    name, a, x, axis, keepdims, dtype = case
    out = _result_name(name, dtype)
    got = xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype and getattr(xp, dtype))
    if out == "float32":
        a64 = a.astype(np.float64)
        ref = a64.sum(axis=axis, keepdims=keepdims)
        assert_within(got, ref, sum_bound(a64, axis, keepdims))
    else:
        # NumPy converts to the result dtype before summing and wraps in it, as webarray does
        expected = np.sum(a.astype(DTYPES[out]), axis=axis, keepdims=keepdims, dtype=DTYPES[out])
        assert_equal(got, expected)
        assert_stored_exactly(got, expected)


@given(sum_case(bounded=NEAR_ONE, max_side=4))
def test_prod(case):
    name, a, x, axis, keepdims, dtype = case
    out = _result_name(name, dtype)
    got = xp.prod(x, axis=axis, keepdims=keepdims, dtype=dtype and getattr(xp, dtype))
    if out == "float32":
        a64 = a.astype(np.float64)
        ref = np.prod(a64, axis=axis, keepdims=keepdims)
        # a zero factor times a partial product that overflowed float32 (integer input
        # converted to float32, e.g. 0 and 47 times 41) is NaN in IEEE arithmetic: the tree
        # gives it, and NumPy's own loop does when the zero comes last; there NaN is as
        # right as the exact 0
        over = np.prod(np.where(a64 == 0, 1.0, np.abs(a64)), axis=axis, keepdims=keepdims) > F32_MAX
        ref = np.where((ref == 0) & over & np.isnan(to_np(got)), np.nan, ref)
        n = max(reduced_count(a.shape, axis), 1)
        assert_within(got, ref, (n + 1) * EPS * np.abs(ref) + (n + 1) * TINY)
    else:
        expected = np.prod(a.astype(DTYPES[out]), axis=axis, keepdims=keepdims, dtype=DTYPES[out])
        assert_equal(got, expected)
        assert_stored_exactly(got, expected)


@given(st.data())
def test_sum_prod_special_values(data):
    """NaN and infinities propagate as through successive add / multiply."""
    shape = data.draw(shapes(min_dims=1, max_side=5))
    a, x = data.draw(views("float32", shape, elements_strategy=SPECIAL))
    axis = data.draw(axis_arg(len(shape)))
    with np.errstate(invalid="ignore"):
        for f in ("sum", "prod"):
            ref = getattr(np, f)(a.astype(np.float64), axis=axis)
            got = getattr(xp, f)(x, axis=axis)
            g = to_np(got).astype(np.float64)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(ref), err_msg=f)
            finite = ~np.isnan(ref)
            np.testing.assert_array_equal(np.isinf(g[finite]), np.isinf(ref[finite]), err_msg=f)
            np.testing.assert_allclose(g[finite], ref[finite], rtol=1e-6, err_msg=f)


def test_sum_of_2_24_ones_is_exact():
    got = xp.sum(xp.ones((1 << 24,), dtype=xp.float32))
    assert float(got) == 16777216.0
    # a sequential float32 sum would stall at 2^24 once more ones are added
    got = xp.sum(xp.ones((1 << 24) + 4096, dtype=xp.float32))
    assert float(got) == float((1 << 24) + 4096)


@pytest.mark.parametrize("n", [(1 << 22) + 12345])
def test_long_sum_has_pairwise_accuracy(n):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(n) * 1000 + 10).astype(np.float32)
    exact = math.fsum(a.astype(np.float64).tolist())
    got = float(xp.sum(xp.asarray(a)))
    bound = (math.ceil(math.log2(n)) + 3) * EPS * float(np.abs(a.astype(np.float64)).sum())
    assert abs(got - exact) <= bound, (got, exact, bound)
    # much closer than the worst case of a sequential sum (n·u·Σ|a|)
    assert abs(got - exact) <= 1e-4 * n * EPS * float(np.abs(a).sum())


# Long and awkward layouts: multi-pass rows, the column layout, reduced axes that do not
# merge (folded into rows), vec4 loads, transposed and reversed views.
LAYOUTS = [((3, 5000), (1,)), ((5000, 3), (0,)), ((300, 70), (0,)), ((70, 300), 0),
           ((7, 9, 11), (0, 2)), ((40, 3, 600), (0, 2)), ((1, 70000), None), ((130001,), None),
           ((6, 7, 8, 9), (1, 3)), ((2, 3000, 5), 1), ((2, 3, 4), ())]
VIEWS = ["plain", "transposed", "reversed", "sliced"]


@pytest.mark.parametrize("shape,axis", LAYOUTS)
@pytest.mark.parametrize("view", VIEWS)
def test_reductions_over_long_and_strided_rows(shape, axis, view):
    rng = np.random.default_rng(sum(shape))
    ai = rng.integers(-1000, 1000, shape, dtype=np.int32)
    af = rng.standard_normal(shape).astype(np.float32)
    results = []
    for a in (ai, af):
        if view == "transposed":
            x = _transposed(a)
        elif view == "reversed":
            rev = tuple(slice(None, None, -1) for _ in shape)
            x = xp.asarray(a[rev].copy())[rev]
        elif view == "sliced":  # the last axis cut from a wider array: runs that do not merge
            wide = np.concatenate([a, a[..., :8]], axis=-1)
            x = xp.asarray(wide)[..., :shape[-1]]
        else:
            x = xp.asarray(a)
        results.append((a, x))
    (ai, xi), (af, xf) = results
    assert_equal(xp.sum(xi, axis=axis), np.sum(ai, axis=axis, dtype=np.int32))
    assert_equal(xp.max(xi, axis=axis), np.max(ai, axis=axis))
    assert_equal(xp.min(xf, axis=axis), np.min(af, axis=axis))
    a64 = af.astype(np.float64)
    assert_within(xp.sum(xf, axis=axis), a64.sum(axis=axis), sum_bound(a64, axis, False))
    n = reduced_count(shape, axis)
    assert_within(xp.mean(xf, axis=axis), a64.mean(axis=axis),
                  sum_bound(a64, axis, False) / n + 4 * EPS * np.abs(a64.mean(axis=axis)))
    assert_within(xp.var(xf, axis=axis), a64.var(axis=axis), 1e-4 * a64.var(axis=axis))


def _transposed(a):
    """A webarray view equal to a whose memory is a.T's (every stride reversed)."""
    from webarray._array_object import Array

    w = xp.asarray(np.ascontiguousarray(a.T))
    perm = tuple(reversed(range(a.ndim)))
    return Array._view(w._buf, w.dtype, [w.shape[p] for p in perm],
                       [w._strides[p] for p in perm], w._offset, w.device)


# -- min and max -------------------------------------------------------------------------------

@st.composite
def minmax_case(draw):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes())
    a, x = draw(views(name, shape))
    axis = draw(axis_arg(len(shape)))
    return name, a, x, axis, draw(st.booleans())


@given(minmax_case())
def test_min_max(case):
    name, a, x, axis, keepdims = case
    for f in ("min", "max"):
        if reduced_count(a.shape, axis) == 0:
            shape = np.sum(a, axis=axis, keepdims=keepdims).shape
            if math.prod(shape):
                with pytest.raises(ValueError, match="empty"):
                    getattr(xp, f)(x, axis=axis, keepdims=keepdims)
            else:  # no output element lacks a value (NumPy raises here too)
                assert_equal(getattr(xp, f)(x, axis=axis, keepdims=keepdims),
                             np.zeros(shape, a.dtype))
            continue
        expected = getattr(np, f)(a, axis=axis, keepdims=keepdims)
        assert_equal(getattr(xp, f)(x, axis=axis, keepdims=keepdims), expected, rtol=SIGNLESS)


def test_min_max_nan_propagates():
    a = np.array([[1.0, np.nan, 3.0], [np.inf, -np.inf, 2.0], [0.0, -0.0, 5.0]], np.float32)
    x = xp.asarray(a)
    for f in ("min", "max"):
        for axis in (None, 0, 1):
            assert_equal(getattr(xp, f)(x, axis=axis), getattr(np, f)(a, axis=axis), rtol=SIGNLESS)
    # subnormals are values like any other (a device that flushes them in float min/max
    # instructions must not show it)
    sub = np.array([[1e-45, 0.0, 3e-45], [-1e-45, -3e-45, 0.0]], np.float32)
    for f in ("min", "max"):
        for axis in (None, 0, 1):
            assert_equal(getattr(xp, f)(xp.asarray(sub), axis=axis),
                         getattr(np, f)(sub, axis=axis), rtol=SIGNLESS)
    big = np.arange(100000, dtype=np.float32)
    big[77777] = np.nan
    assert math.isnan(float(xp.max(xp.asarray(big))))
    assert math.isnan(float(xp.min(xp.asarray(big))))


# -- mean, var, std ----------------------------------------------------------------------------

@st.composite
def moments_case(draw):
    shape = draw(shapes())
    a, x = draw(views("float32", shape, elements_strategy=BOUNDED))
    axis = draw(axis_arg(len(shape)))
    correction = draw(st.sampled_from([0, 1, 0.5, 2.0, 7]))
    return a, x, axis, draw(st.booleans()), correction


@given(moments_case())
def test_mean(case):
    a, x, axis, keepdims, _ = case
    got = xp.mean(x, axis=axis, keepdims=keepdims)
    a64 = a.astype(np.float64)
    n = reduced_count(a.shape, axis)
    if n == 0:
        shape = np.sum(a64, axis=axis, keepdims=keepdims).shape
        assert_equal(got, np.full(shape, np.nan, np.float32))
        return
    ref = a64.mean(axis=axis, keepdims=keepdims)
    assert_within(got, ref, sum_bound(a64, axis, keepdims) / n + 4 * EPS * np.abs(ref))


@given(moments_case())
def test_var_std(case):
    a, x, axis, keepdims, correction = case
    a64 = a.astype(np.float64)
    n = reduced_count(a.shape, axis)
    shape = np.sum(a64, axis=axis, keepdims=keepdims).shape
    for f in ("var", "std"):
        got = getattr(xp, f)(x, axis=axis, keepdims=keepdims, correction=correction)
        if n - correction <= 0:
            assert_equal(got, np.full(shape, np.nan, np.float32))
            continue
        m = a64.mean(axis=axis, keepdims=True)
        dev = np.abs(a64 - m)
        dof = n - correction
        v = (dev ** 2).sum(axis=axis, keepdims=keepdims) / dof
        # the float32 mean is off by up to delta, which adds 2·delta·Σ|d| + n·delta²;
        # then the rounding of x - mean, of the squares and of their tree sum
        delta = sum_bound(a64, axis, True) / n + 2 * EPS * np.abs(m)
        shifted = (2 * delta * dev + delta ** 2).sum(axis=axis, keepdims=keepdims) / dof
        bound = shifted + (math.ceil(math.log2(max(n, 1))) + 6) * EPS * (
            v + shifted + 2 * (np.abs(a64) * (dev + delta)).sum(axis=axis, keepdims=keepdims) / dof
        ) + 2 * (n + 1) * TINY / dof  # squares and sums below the normal range
        if f == "var":
            assert_within(got, v, bound)
        else:
            s = np.sqrt(v)
            assert_within(got, s, np.minimum(bound / np.maximum(s, 1e-300), np.sqrt(bound))
                          + 4 * EPS * s)


def test_statistics_of_empty():
    x = xp.zeros((0, 3), dtype=xp.float32)
    assert_equal(xp.sum(x), np.float32(0))
    assert_equal(xp.prod(x, axis=0), np.ones(3, np.float32))
    assert_equal(xp.mean(x), np.float32(np.nan))
    assert_equal(xp.var(x, axis=0), np.full(3, np.nan, np.float32))
    assert_equal(xp.sum(x, axis=1), np.zeros(0, np.float32))
    assert_equal(xp.max(x, axis=1), np.zeros(0, np.float32))
    xi = xp.zeros((4, 0), dtype=xp.int16)
    assert_equal(xp.sum(xi, axis=1, keepdims=True), np.zeros((4, 1), np.int32))
    assert_equal(xp.prod(xi, axis=1), np.ones(4, np.int32))
    for f in ("min", "max"):
        with pytest.raises(ValueError, match=r"empty.*\(0, 3\)"):
            getattr(xp, f)(x)
        with pytest.raises(ValueError):
            getattr(xp, f)(xi, axis=1)


def test_result_dtypes():
    for name in INT_NAMES:
        x = xp.ones((3,), dtype=getattr(xp, name))
        want = getattr(xp, DEFAULT_INT[name[0]])
        for f in (xp.sum, xp.prod, xp.cumulative_sum, xp.cumulative_prod):
            assert f(x).dtype == want, (f, name)
            assert f(x, dtype=xp.int16).dtype == xp.int16
        assert xp.max(x).dtype == getattr(xp, name)
    assert xp.sum(xp.ones(3), dtype=xp.int32).dtype == xp.int32
    assert xp.sum(xp.asarray([1.5, 2.5]), dtype=xp.int32).dtype == xp.int32
    assert int(xp.sum(xp.asarray([1.5, 2.5]), dtype=xp.int32)) == 3  # converted, then summed


# -- cumulative_sum and cumulative_prod --------------------------------------------------------

@st.composite
def scan_case(draw, bounded, max_side=6):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes(min_dims=1, max_side=max_side))
    a, x = draw(views(name, shape, elements_strategy=bounded if name == "float32" else None))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    if len(shape) == 1 and draw(st.booleans()):
        axis = None
    dtype = draw(st.sampled_from([None, name, "int32", "uint16"]))
    if name == "float32" and dtype not in (None, "float32"):
        dtype = None
    return name, a, x, axis, draw(st.booleans()), dtype


def _np_scan(f, a, axis, out, include_initial):
    ax = 0 if axis is None else axis % a.ndim
    res = f(a.astype(out), axis=ax, dtype=out)
    if include_initial:
        first = np.full(a.shape[:ax] + (1,) + a.shape[ax + 1:], 0 if f is np.cumsum else 1, out)
        res = np.concatenate([first, res], axis=ax)
    return res


@given(scan_case(BOUNDED))
def test_cumulative_sum(case):
    name, a, x, axis, include_initial, dtype = case
    out = _result_name(name, dtype)
    got = xp.cumulative_sum(x, axis=axis, include_initial=include_initial,
                            dtype=None if dtype is None else getattr(xp, dtype))
    if out != "float32":
        assert_equal(got, _np_scan(np.cumsum, a, axis, DTYPES[out], include_initial))
        return
    a64 = a.astype(np.float64)
    ref = _np_scan(np.cumsum, a64, axis, np.float64, include_initial)
    mag = _np_scan(np.cumsum, np.abs(a64), axis, np.float64, include_initial)
    assert_within(got, ref, 40 * EPS * mag + (a.size + 1) * TINY)


@given(scan_case(NEAR_ONE, max_side=5))
def test_cumulative_prod(case):
    name, a, x, axis, include_initial, dtype = case
    out = _result_name(name, dtype)
    got = xp.cumulative_prod(x, axis=axis, include_initial=include_initial,
                             dtype=None if dtype is None else getattr(xp, dtype))
    if out != "float32":
        assert_equal(got, _np_scan(np.cumprod, a, axis, DTYPES[out], include_initial))
        return
    ref = _np_scan(np.cumprod, a.astype(np.float64), axis, np.float64, include_initial)
    assert_within(got, ref, 64 * EPS * np.abs(ref) + 64 * TINY)


SCAN_LAYOUTS = [((100000,), 0), ((3, 5000), 1), ((5000, 3), 0), ((300, 70), 0),
                ((2, 5000, 3), 1), ((4, 5, 3000), -1), ((4_300_000,), 0)]


@pytest.mark.parametrize("shape,axis", SCAN_LAYOUTS)
def test_scans_over_long_and_strided_rows(shape, axis):
    """Several chunks per row (carries from a scan of chunk totals, two levels of them for
    the longest), the column layout, and reversed views."""
    rng = np.random.default_rng(len(shape) + shape[0])
    ai = rng.integers(-100, 100, shape, dtype=np.int32)
    assert_equal(xp.cumulative_sum(xp.asarray(ai), axis=axis),
                 np.cumsum(ai, axis=axis, dtype=np.int32))
    rev = tuple(slice(None, None, -1) for _ in shape)
    x_rev = xp.asarray(ai[rev].copy())[rev]
    assert_equal(xp.cumulative_sum(x_rev, axis=axis, include_initial=True),
                 _np_scan(np.cumsum, ai, axis, np.int32, True))
    if math.prod(shape) <= 200_000:
        af = rng.standard_normal(shape).astype(np.float32)
        a64 = af.astype(np.float64)
        assert_within(xp.cumulative_sum(xp.asarray(af), axis=axis), np.cumsum(a64, axis=axis),
                      40 * EPS * np.cumsum(np.abs(a64), axis=axis))
        au = rng.integers(0, 4, shape, dtype=np.uint8)
        assert_equal(xp.cumulative_prod(xp.asarray(au), axis=axis),
                     np.cumprod(au, axis=axis, dtype=np.uint32))


# -- errors ------------------------------------------------------------------------------------

REDUCERS = [xp.sum, xp.prod, xp.min, xp.max, xp.mean, xp.var, xp.std]


@pytest.mark.parametrize("f", REDUCERS, ids=lambda f: f.__name__)
def test_reduction_errors(f):
    x = xp.ones((2, 3), dtype=xp.float32)
    with pytest.raises(ValueError, match=r"axis 2 is out of range .*2 dimensions.*-2 to 1"):
        f(x, axis=2)
    with pytest.raises(ValueError, match="-3"):
        f(x, axis=(0, -3))
    with pytest.raises(ValueError, match=r"repeats"):
        f(x, axis=(1, -1))
    with pytest.raises(TypeError, match=r"axis must be .*1\.0"):
        f(x, axis=1.0)
    with pytest.raises(TypeError, match="axis"):
        f(x, axis=[0, 1])
    with pytest.raises(TypeError, match="keepdims"):
        f(x, keepdims=1)
    with pytest.raises(TypeError, match="ndarray"):
        f(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="0-d"):
        f(xp.asarray(1.0), axis=0)
    with pytest.raises(TypeError, match=f"{f.__name__} requires .* got bool"):
        f(xp.asarray([True]))


def test_dtype_errors():
    xi = xp.ones((3,), dtype=xp.int32)
    for f in (xp.mean, xp.var, xp.std):
        with pytest.raises(TypeError, match="floating-point .* got int32"):
            f(xi)
    for f in (xp.sum, xp.prod, xp.cumulative_sum, xp.cumulative_prod):
        for name in UNSUPPORTED_NAMES:
            with pytest.raises(TypeError, match=name):
                f(xi, dtype=getattr(xp, name))
        if "int64" in SUPPORTED_NAMES:
            assert f(xi, dtype=xp.int64).dtype == xp.int64
        with pytest.raises(TypeError, match="bool"):
            f(xi, dtype=xp.bool)
        with pytest.raises(TypeError, match="dtype must be"):
            f(xi, dtype="int32")
    for f in (xp.var, xp.std):
        with pytest.raises(TypeError, match="correction"):
            f(xp.ones(3), correction="1")
        with pytest.raises(TypeError, match="correction"):
            f(xp.ones(3), correction=True)


def test_cumulative_errors():
    x = xp.ones((2, 3), dtype=xp.float32)
    for f in (xp.cumulative_sum, xp.cumulative_prod):
        with pytest.raises(ValueError, match="axis is required .* 2 dimensions"):
            f(x)
        with pytest.raises(ValueError, match="axis 2 is out of range"):
            f(x, axis=2)
        with pytest.raises(TypeError, match="axis"):
            f(x, axis=(0,))
        with pytest.raises(ValueError, match="0-d"):
            f(xp.asarray(1.0))
        with pytest.raises(TypeError, match="include_initial"):
            f(x, axis=0, include_initial=None)
        with pytest.raises(TypeError, match="got bool"):
            f(xp.asarray([True, False]))


def test_a_repeated_reduction_replays_its_kept_passes_over_new_data(monkeypatch):
    # a plain reduction keeps its passes per layout (Device.plans); a repeat only allocates
    # partials and dispatches them, over the new array's buffer: values must follow the data
    from webarray._core.algorithms import reduce as _reduce

    replays = []
    real = _reduce._replay
    monkeypatch.setattr(_reduce, "_replay", lambda *a: replays.append(1) or real(*a))
    rng = np.random.default_rng(5)
    cases = [((1 << 18,), None, lambda a: a[3:]), ((300, 257), 0, lambda a: a[1:, ::2]),
             ((300, 257), 1, lambda a: a[1:, ::2]), ((64, 5000), None, lambda a: a[:, 7:])]
    for shape, axis, cut in cases:
        for _ in range(3):
            a = rng.standard_normal(shape).astype(np.float32)
            x = xp.asarray(a)
            for arr, host in ((x, a), (cut(x), cut(a))):
                np.testing.assert_allclose(np.asarray(xp.sum(arr, axis=axis)),
                                           host.sum(axis=axis, dtype=np.float64),
                                           rtol=1e-5, atol=1e-3)
                np.testing.assert_allclose(np.asarray(xp.mean(arr, axis=axis)),
                                           host.mean(axis=axis, dtype=np.float64),
                                           rtol=1e-5, atol=1e-5)
                assert np.asarray(xp.max(arr, axis=axis)).tolist() == host.max(axis=axis).tolist()
    assert len(replays) >= 2 * 3 * 2 * len(cases)  # every repeat of a layout replayed


def test_a_repeated_reduction_goes_straight_to_its_kept_passes(monkeypatch):
    # reduce() keeps, per layout and op, the result's shape and its passes' plan: a repeat
    # neither plans rows nor walks pieces (a sum's host time), and follows the new data
    from webarray._core.algorithms import reduce as _reduce

    planned = []
    real = _reduce._reduced
    monkeypatch.setattr(_reduce, "_reduced", lambda *a, **k: planned.append(1) or real(*a, **k))
    rng = np.random.default_rng(11)
    for shape, axis, cut in [((4096,), None, lambda a: a[5:]), ((33, 40), 1, lambda a: a[:, ::3]),
                             ((33, 40), (0, 1), lambda a: a[2:].mT)]:
        for op in ("sum", "max", "prod"):
            seen = len(planned)
            for k in range(3):
                a = rng.standard_normal(shape).astype(np.float32) * (0.1 if op == "prod" else 1)
                got = getattr(xp, op)(cut(xp.asarray(a)), axis=axis)
                want = getattr(np, op)(cut(a).astype(np.float64), axis=axis)
                np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=1e-6)
            assert len(planned) - seen == 1, (shape, axis, op)  # planned once, then replayed


@pytest.mark.parametrize("busy", [1, 8])
def test_sums_whose_threads_take_more_columns_keep_numpys_values(monkeypatch, busy):
    # a sum over rows long enough for the grid takes up to P_ADD columns per thread
    # (_core/algorithms/reduce.py _BUSY); small _BUSY puts these sizes on that path
    from webarray._core.algorithms import reduce as _reduce

    monkeypatch.setattr(_reduce, "_BUSY", busy)
    xp.__array_namespace_info__().default_device().plans.clear()
    rng = np.random.default_rng(busy)
    for n in (1, 63, 64, 65, 4095, 16385, 65536 * 4 + 3):
        a = rng.standard_normal(n).astype(np.float32)
        assert abs(float(xp.sum(xp.asarray(a))) - a.sum(dtype=np.float64)) <= 1e-5 * np.abs(a).sum()
        i = rng.integers(-1000, 1000, n).astype(np.int32)
        assert int(xp.sum(xp.asarray(i))) == int(i.sum())
    b = rng.standard_normal((300, 777)).astype(np.float32)
    for ax in (0, 1, None):
        np.testing.assert_allclose(np.asarray(xp.sum(xp.asarray(b), axis=ax)),
                                   b.sum(axis=ax, dtype=np.float64), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(xp.var(xp.asarray(b), axis=ax)),
                                   b.var(axis=ax, dtype=np.float64), rtol=1e-4, atol=1e-5)
    xp.__array_namespace_info__().default_device().plans.clear()
