"""argmax, argmin and count_nonzero against NumPy."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import ALL_NAMES, NUMERIC_NAMES, assert_equal, elements, shapes, views
from test_statistical import axis_arg


def _few_values(name):
    """Small value sets, so that ties (first occurrence wins) and NaN are common."""
    if name == "float32":
        return st.sampled_from([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf]).map(np.float32)
    return st.one_of(st.sampled_from([0, 1, 2]), elements(name))


@st.composite
def arg_case(draw):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes())
    few = draw(st.booleans())
    a, x = draw(views(name, shape, elements_strategy=_few_values(name) if few else None))
    axis = None
    if shape and draw(st.booleans()):
        axis = draw(st.integers(-len(shape), len(shape) - 1))
    return a, x, axis, draw(st.booleans())


@given(arg_case())
def test_argmax_argmin(case):
    a, x, axis, keepdims = case
    for f in ("argmax", "argmin"):
        n = a.size if axis is None else a.shape[axis]
        out_shape = np.sum(a, axis=axis, keepdims=keepdims).shape
        if n == 0:
            if np.prod(out_shape) == 0:
                assert_equal(getattr(xp, f)(x, axis=axis, keepdims=keepdims),
                             np.zeros(out_shape, np.int32))
            else:
                with pytest.raises(ValueError, match="empty"):
                    getattr(xp, f)(x, axis=axis, keepdims=keepdims)
            continue
        expected = getattr(np, f)(a, axis=axis, keepdims=keepdims).astype(np.int32)
        assert_equal(getattr(xp, f)(x, axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("shape,axis", [((50, 3000), 1), ((50, 3000), 0), ((3000, 50), 0),
                                        ((40, 3, 600), None), ((200001,), None), ((7, 6, 5), 1)])
def test_argmax_argmin_long_rows(shape, axis):
    """Several passes (the index travels with the value through the partials), the column
    layout, rows folded from axes that do not merge, NaN and ties far apart."""
    rng = np.random.default_rng(shape[0])
    a = rng.integers(-50, 50, shape).astype(np.float32)
    flat = a.reshape(-1)
    flat[rng.integers(0, a.size, 5)] = np.nan
    for x, ref in ((xp.asarray(a), a), (xp.asarray(a)[..., ::-1], a[..., ::-1])):
        for f in ("argmax", "argmin"):
            assert_equal(getattr(xp, f)(x, axis=axis),
                         np.asarray(getattr(np, f)(ref, axis=axis), dtype=np.int32))
    ai = rng.integers(-3, 3, shape).astype(np.int16)  # many ties
    for f in ("argmax", "argmin"):
        assert_equal(getattr(xp, f)(xp.asarray(ai), axis=axis),
                     np.asarray(getattr(np, f)(ai, axis=axis), dtype=np.int32))


def test_argmax_over_unmerged_contiguous_runs():
    """Rows of 16 contiguous elements (vec4 loads) that do not merge across the sliced
    axis: the flat index must continue over the folded dimensions."""
    rng = np.random.default_rng(5)
    a = rng.integers(-1000, 1000, (5, 3, 32)).astype(np.float32)
    v = a[:, :, :16]
    for f in ("argmax", "argmin"):
        assert_equal(getattr(xp, f)(xp.asarray(a)[:, :, :16]),
                     np.asarray(getattr(np, f)(v), dtype=np.int32))
        assert_equal(getattr(xp, f)(xp.asarray(a)[:, :, 16:], axis=2),
                     getattr(np, f)(a[:, :, 16:], axis=2).astype(np.int32))


def test_argmax_nan_and_ties():
    a = np.array([1.0, 3.0, np.nan, 3.0, np.nan, -1.0], np.float32)
    assert int(xp.argmax(xp.asarray(a))) == 2
    assert int(xp.argmin(xp.asarray(a))) == 2
    b = np.array([[2, 5, 5], [7, 7, -1]], np.int8)
    assert_equal(xp.argmax(xp.asarray(b), axis=1), np.array([1, 0], np.int32))
    assert_equal(xp.argmin(xp.asarray(b), axis=0, keepdims=True), np.array([[0, 0, 1]], np.int32))
    assert_equal(xp.argmax(xp.asarray(5.0)), np.int32(0))
    # subnormals order like any value; -0.0 ties with +0.0
    s = np.array([0.0, 1e-45, -0.0, 3e-45, -1e-45], np.float32)
    for f in ("argmax", "argmin"):
        assert_equal(getattr(xp, f)(xp.asarray(s)), np.int32(getattr(np, f)(s)))
    z = np.array([-0.0, 0.0, -1.0], np.float32)
    assert_equal(xp.argmax(xp.asarray(z)), np.int32(0))


def test_argmax_errors():
    x = xp.ones((2, 3), dtype=xp.float32)
    for f in (xp.argmax, xp.argmin):
        with pytest.raises(ValueError, match=r"axis -3 is out of range.*-2 to 1"):
            f(x, axis=-3)
        with pytest.raises(TypeError, match=r"axis must be an int or None, got \(0,\)"):
            f(x, axis=(0,))
        with pytest.raises(TypeError, match="got bool"):
            f(xp.asarray([True]))
        with pytest.raises(ValueError, match="empty"):
            f(xp.zeros((0,), dtype=xp.int32))
        with pytest.raises(ValueError, match="empty"):
            f(xp.zeros((2, 0), dtype=xp.int32), axis=1)
        with pytest.raises(TypeError, match="keepdims"):
            f(x, keepdims="yes")


@st.composite
def count_case(draw):
    name = draw(st.sampled_from(ALL_NAMES))
    shape = draw(shapes())
    few = st.sampled_from([0.0, -0.0, 2.0, np.nan, np.inf]).map(np.float32) \
        if name == "float32" else None
    a, x = draw(views(name, shape, elements_strategy=few if draw(st.booleans()) else None))
    return a, x, draw(axis_arg(len(shape))), draw(st.booleans())


@given(count_case())
def test_count_nonzero(case):
    a, x, axis, keepdims = case
    expected = np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims), dtype=np.int32)
    assert_equal(xp.count_nonzero(x, axis=axis, keepdims=keepdims), expected)


def test_count_nonzero_errors():
    x = xp.ones((2, 3), dtype=xp.uint8)
    with pytest.raises(ValueError, match="repeats"):
        xp.count_nonzero(x, axis=(1, -1))
    with pytest.raises(ValueError, match="out of range"):
        xp.count_nonzero(x, axis=(0, 2))
    with pytest.raises(TypeError, match="axis must be"):
        xp.count_nonzero(x, axis=0.5)
