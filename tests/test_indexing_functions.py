"""take and take_along_axis against NumPy: random shapes, axes, index dtypes, negative
indices, non-contiguous views of both x and the indices, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import ALL_NAMES, assert_equal, shapes, views

INDEX_NAMES = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]


@st.composite
def take_case(draw):
    name = draw(st.sampled_from(ALL_NAMES))
    shape = draw(shapes(min_dims=1, max_dims=4, min_side=1))
    a, x = draw(views(name, shape))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    iname = draw(st.sampled_from(INDEX_NAMES))
    lo = -n if iname.startswith("int") and n <= 128 else 0
    k = draw(st.integers(0, 8))
    idx, ix = draw(views(iname, (k,), elements_strategy=st.integers(lo, n - 1)))
    return a, x, axis, idx, ix


@given(take_case())
def test_take(c):
    a, x, axis, idx, ix = c
    assert_equal(xp.take(x, ix, axis=axis), np.take(a, idx.astype(np.int64), axis=axis))
    if a.ndim == 1:
        assert_equal(xp.take(x, ix), np.take(a, idx.astype(np.int64)))


def test_take_errors():
    x = xp.zeros((2, 3))
    i = xp.asarray([0, 1])
    with pytest.raises(ValueError, match="axis is required"):
        xp.take(x, i)
    with pytest.raises(ValueError, match="one-dimensional"):
        xp.take(x, xp.asarray([[0]]), axis=0)
    with pytest.raises(TypeError, match="integer dtype"):
        xp.take(x, xp.asarray([0.0]), axis=0)
    with pytest.raises(IndexError, match="axis 2"):
        xp.take(x, i, axis=2)
    with pytest.raises(IndexError, match="empty"):
        xp.take(xp.zeros((2, 0)), i, axis=1)
    with pytest.raises(TypeError):
        xp.take(x, [0, 1], axis=0)
    assert xp.take(xp.zeros((2, 0)), i, axis=0).shape == (2, 0)


@st.composite
def take_along_case(draw):
    name = draw(st.sampled_from(ALL_NAMES))
    shape = draw(shapes(min_dims=1, max_dims=4, min_side=1))
    a, x = draw(views(name, shape))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    # indices: each dimension equal to x's, or 1 (broadcast), and any length along axis
    ishape = [draw(st.sampled_from([s, 1])) for s in shape]
    ishape[axis] = draw(st.integers(0, 6))
    if draw(st.booleans()):
        # x broadcast along a dimension where the indices are longer
        for d in range(a.ndim):
            if d != axis % a.ndim and shape[d] == 1:
                ishape[d] = draw(st.integers(1, 3))
    iname = draw(st.sampled_from(INDEX_NAMES))
    lo = -n if iname.startswith("int") and n <= 128 else 0
    idx, ix = draw(views(iname, tuple(ishape), elements_strategy=st.integers(lo, n - 1)))
    return a, x, axis, idx, ix


@given(take_along_case())
def test_take_along_axis(c):
    a, x, axis, idx, ix = c
    expected = np.take_along_axis(a, idx.astype(np.int64), axis=axis)
    assert_equal(xp.take_along_axis(x, ix, axis=axis), expected)


def test_take_along_axis_with_argsort():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 50)).astype(np.float32)
    x = xp.asarray(a)
    for axis in (0, 1, -1):
        i = xp.argsort(x, axis=axis)
        assert_equal(xp.take_along_axis(x, i, axis=axis), np.sort(a, axis=axis))
    assert_equal(xp.take_along_axis(x, xp.argsort(x)), np.sort(a))


def test_take_along_axis_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="as many dimensions"):
        xp.take_along_axis(x, xp.asarray([0]), axis=0)
    with pytest.raises(ValueError, match="broadcast"):
        xp.take_along_axis(x, xp.zeros((2, 2), dtype=xp.int32), axis=0)
    with pytest.raises(IndexError):
        xp.take_along_axis(x, xp.zeros((2, 3), dtype=xp.int32), axis=2)
    with pytest.raises(TypeError, match="integer dtype"):
        xp.take_along_axis(x, xp.zeros((2, 3)), axis=0)
