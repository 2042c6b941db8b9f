"""nonzero, searchsorted and where against NumPy: random shapes (empty included), dtypes,
views, special values; searchsorted's consistency with sort (NaNs last, -0.0 == +0.0);
scalars and promotion in where and searchsorted; errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import ALL_NAMES, NUMERIC_NAMES, assert_equal, elements, few_values, shapes, views


# -- nonzero -------------------------------------------------------------------------------------

@given(st.sampled_from(ALL_NAMES), st.data())
def test_nonzero(name, data):
    shape = data.draw(shapes(min_dims=1, max_dims=4))
    a, x = data.draw(views(name, shape, elements_strategy=few_values(name)))
    got = xp.nonzero(x)
    expected = np.nonzero(a)
    assert isinstance(got, tuple) and len(got) == a.ndim
    for g, e in zip(got, expected):
        assert_equal(g, e.astype(np.int32))


def test_nonzero_large_and_special():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((70, 90)).astype(np.float32)
    a[rng.random((70, 90)) < 0.7] = 0.0
    a[0, :5] = [np.nan, -0.0, 0.0, np.inf, -np.inf]
    for g, e in zip(xp.nonzero(xp.asarray(a).T), np.nonzero(a.T)):
        assert_equal(g, e.astype(np.int32))


def test_nonzero_errors():
    with pytest.raises(ValueError, match="zero-dimensional"):
        xp.nonzero(xp.asarray(1))
    with pytest.raises(TypeError):
        xp.nonzero(np.ones(3))


# -- searchsorted ----------------------------------------------------------------------------

def sort_order(a: np.ndarray) -> np.ndarray:
    """Stable ascending order with -0.0 == +0.0 and NaNs last, as webarray sorts."""
    return np.argsort(a, kind="stable")


@st.composite
def searchsorted_case(draw):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    strategy = draw(st.sampled_from([elements(name), few_values(name)]))
    m = draw(st.integers(0, 12))
    a, x = draw(views(name, (m,), elements_strategy=strategy))
    q, y = draw(views(name, draw(shapes(max_dims=3, max_side=5)), elements_strategy=strategy))
    return a, x, q, y


@given(searchsorted_case(), st.sampled_from(["left", "right"]), st.booleans())
def test_searchsorted(case, side, use_sorter):
    a, x, q, y = case
    order = sort_order(a)
    if use_sorter:
        got = xp.searchsorted(x, y, side=side, sorter=xp.asarray(order.astype(np.int32)))
    else:
        a = a[order]
        got = xp.searchsorted(xp.asarray(a), y, side=side)
    assert_equal(got, np.searchsorted(a[order] if use_sorter else a, q, side=side).astype(np.int32))


def test_searchsorted_special_values_follow_sort():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan, np.nan], np.float32)
    x = xp.asarray(a)
    q = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 5.0], np.float32)
    for side in ("left", "right"):
        assert_equal(xp.searchsorted(x, xp.asarray(q), side=side),
                     np.searchsorted(a, q, side=side).astype(np.int32))


def test_searchsorted_scalars_and_promotion():
    a = np.array([1, 3, 3, 7], np.int16)
    x = xp.asarray(a)
    for v in (0, 3, 8, -32768):
        for side in ("left", "right"):
            got = xp.searchsorted(x, v, side=side)
            assert got.shape == () and got.dtype == xp.int32
            assert int(got) == np.searchsorted(a, v, side=side)
    f = xp.asarray([0.5, 1.5], dtype=xp.float32)
    assert int(xp.searchsorted(f, 1.0)) == 1
    y = xp.asarray([2, 200], dtype=xp.uint8)  # int16 and uint8 promote to int16
    assert_equal(xp.searchsorted(x, y), np.array([1, 4], np.int32))


def test_searchsorted_errors():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(ValueError, match="one-dimensional"):
        xp.searchsorted(xp.zeros((2, 2)), x)
    with pytest.raises(ValueError, match="side"):
        xp.searchsorted(x, x, side="middle")
    with pytest.raises(TypeError):
        xp.searchsorted(x, 1.5)  # a float does not combine with int32
    with pytest.raises(OverflowError):
        xp.searchsorted(xp.asarray([1, 2], dtype=xp.int8), 1000)
    with pytest.raises(TypeError, match="real numeric"):
        xp.searchsorted(xp.asarray([True]), xp.asarray([False]))
    with pytest.raises(ValueError, match="sorter"):
        xp.searchsorted(x, x, sorter=xp.asarray([0, 1]))
    with pytest.raises(TypeError, match="sorter"):
        xp.searchsorted(x, x, sorter=xp.asarray([0.0, 1.0, 2.0]))


# -- where ---------------------------------------------------------------------------------------

PAIRS = [(n, n) for n in ALL_NAMES] + [("int8", "uint8"), ("uint8", "int16"), ("uint16", "int32"),
                                       ("int8", "int32"), ("uint8", "uint32")]


@given(st.sampled_from(PAIRS), st.data())
def test_where(pair, data):
    n1, n2 = pair
    base = data.draw(shapes(max_dims=3, max_side=4))
    sub = [tuple(1 if data.draw(st.booleans()) else s for s in base[len(base) - k:])
           for k in (data.draw(st.integers(0, len(base))) for _ in range(3))]
    c, xc = data.draw(views("bool", sub[0]))
    a, xa = data.draw(views(n1, sub[1]))
    b, xb = data.draw(views(n2, sub[2]))
    assert_equal(xp.where(xc, xa, xb), np.where(c, a, b))


@given(st.sampled_from(ALL_NAMES), st.data())
def test_where_scalars(name, data):
    a, x = data.draw(views(name, data.draw(shapes(max_dims=2))))
    c, xc = data.draw(views("bool", a.shape))
    v = data.draw(elements(name, edges=False))
    v = bool(v) if name == "bool" else (float(v) if name == "float32" else int(v))
    expected = np.where(c, a, np.asarray(v, dtype=a.dtype))
    assert_equal(xp.where(xc, x, v), expected)
    assert_equal(xp.where(xc, v, x), np.where(c, np.asarray(v, dtype=a.dtype), a))


def test_where_errors():
    x = xp.zeros(3)
    c = xp.asarray([True, False, True])
    with pytest.raises(TypeError, match="bool"):
        xp.where(xp.asarray([1, 0, 1]), x, x)
    with pytest.raises(TypeError, match="at least one array"):
        xp.where(c, 1.0, 2.0)
    mixed = xp.where(c, x, xp.zeros(3, dtype=xp.int32))  # int32 with float32: NumPy's float64
    assert mixed.dtype == xp.float64
    with pytest.raises(ValueError):
        xp.where(c, x, xp.zeros(2))
    with pytest.raises(TypeError):
        xp.where(c, xp.zeros(3, dtype=xp.int8), 1.5)
    with pytest.raises(TypeError):
        xp.where([True], x, x)
