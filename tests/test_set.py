"""unique_all, unique_counts, unique_inverse, unique_values and isin against NumPy: random
shapes (0-d and empty included), dtypes, views, many ties; NaNs each unique, -0.0 and +0.0
one value; the namedtuple fields; mixed dtypes and scalars in isin; errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import ALL_NAMES, SUPPORTED_NAMES, assert_equal, elements, few_values, shapes, views


@st.composite
def unique_case(draw):
    name = draw(st.sampled_from(ALL_NAMES))
    strategy = draw(st.sampled_from([elements(name), few_values(name)]))
    return draw(views(name, draw(shapes(max_dims=3, max_side=7)), elements_strategy=strategy))


def expected_unique(a: np.ndarray):
    """NumPy's unique with NaNs distinct; values as their first occurrence in x."""
    flat = a.reshape(-1)
    _, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
    return flat[first], first, inverse.reshape(a.shape), counts


@given(unique_case())
def test_unique_all(case):
    a, x = case
    values, first, inverse, counts = expected_unique(a)
    r = xp.unique_all(x)
    assert type(r).__name__ == "UniqueAllResult"
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    assert_equal(r.values, values)
    assert_equal(r.indices, first.astype(np.int32))
    assert_equal(r.inverse_indices, inverse.astype(np.int32))
    assert_equal(r.counts, counts.astype(np.int32))


@given(unique_case())
def test_unique_counts_inverse_values(case):
    a, x = case
    values, _, inverse, counts = expected_unique(a)
    c = xp.unique_counts(x)
    assert c._fields == ("values", "counts")
    assert_equal(c.values, values)
    assert_equal(c.counts, counts.astype(np.int32))
    i = xp.unique_inverse(x)
    assert i._fields == ("values", "inverse_indices")
    assert_equal(i.values, values)
    assert_equal(i.inverse_indices, inverse.astype(np.int32))
    assert_equal(xp.unique_values(x), values)


def test_unique_special_values():
    a = np.array([np.nan, -0.0, 1.0, 0.0, np.nan, -0.0, np.inf, 1.0], np.float32)
    r = xp.unique_all(xp.asarray(a))
    got = np.asarray(r.values)
    assert got.shape == (5,) and np.isnan(got[-2:]).all()
    assert got[0] == 0 and np.signbit(got[0])  # -0.0 came first
    assert_equal(r.counts, np.array([3, 2, 1, 1, 1], np.int32))
    assert_equal(r.indices, np.array([1, 2, 6, 0, 4], np.int32))
    assert_equal(r.inverse_indices, np.array([3, 0, 1, 0, 4, 0, 2, 1], np.int32))


def test_unique_of_a_large_array():
    rng = np.random.default_rng(4)
    a = rng.integers(-3000, 3000, size=(40, 500)).astype(np.int32)
    values, first, inverse, counts = expected_unique(a)
    r = xp.unique_all(xp.asarray(a)[:, ::-1])
    values, first, inverse, counts = expected_unique(a[:, ::-1])
    assert_equal(r.values, values)
    assert_equal(r.indices, first.astype(np.int32))
    assert_equal(r.inverse_indices, inverse.astype(np.int32))
    assert_equal(r.counts, counts.astype(np.int32))


def test_unique_errors():
    with pytest.raises(TypeError):
        xp.unique_values([1, 2])
    with pytest.raises(TypeError):
        xp.unique_all(np.zeros(3))


# -- isin ----------------------------------------------------------------------------------------

# dtype pairs whose promotion is supported
PAIRS = [(n, n) for n in ALL_NAMES] + [("int8", "uint8"), ("uint8", "int16"),
                                       ("uint16", "int32"), ("int8", "int32"), ("uint8", "uint32")]


@st.composite
def isin_case(draw):
    n1, n2 = draw(st.sampled_from(PAIRS))
    if draw(st.booleans()):
        n1, n2 = n2, n1
    s1 = draw(shapes(max_dims=3, max_side=6))
    s2 = draw(shapes(max_dims=2, max_side=8))
    a1, x1 = draw(views(n1, s1, elements_strategy=few_values(n1)))
    strategy = draw(st.sampled_from([few_values(n2), elements(n2)]))
    a2, x2 = draw(views(n2, s2, elements_strategy=strategy))
    return a1, x1, a2, x2


@given(isin_case(), st.booleans())
def test_isin(case, invert):
    a1, x1, a2, x2 = case
    assert_equal(xp.isin(x1, x2, invert=invert), np.isin(a1, a2, invert=invert))


@given(st.sampled_from(["int8", "uint8", "int32", "uint32", "float32"]), st.data())
def test_isin_scalars(name, data):
    a, x = data.draw(views(name, data.draw(shapes(max_dims=2)), elements_strategy=few_values(name)))
    v = data.draw(st.sampled_from([0, 1, 7, -1, 300, 2**31, -(2**31) - 1]))
    invert = data.draw(st.booleans())
    assert_equal(xp.isin(x, v, invert=invert), np.isin(a, np.array(v), invert=invert))
    assert_equal(xp.isin(v, x, invert=invert), np.isin(np.array(v), a, invert=invert))


def test_isin_special_values():
    a = xp.asarray([np.nan, 0.0, -0.0, 1.0, np.inf], dtype=xp.float32)
    b = xp.asarray([np.nan, -0.0, np.inf], dtype=xp.float32)
    assert_equal(xp.isin(a, b), np.array([False, True, True, False, True]))
    assert_equal(xp.isin(a, b, invert=True), np.array([True, False, False, True, False]))


def test_isin_errors():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="at least one"):
        xp.isin(1, 2)
    # int32 with float32 compares in float64, NumPy's promotion
    assert_equal(xp.isin(x, xp.asarray([1.0, 2.5])), np.array([True, False, False]))
    u = xp.asarray([1, 2**32 - 1], dtype=xp.uint32)
    if "int64" in SUPPORTED_NAMES:  # compared as int64
        assert_equal(xp.isin(x, u), np.array([True, False, False]))
        assert_equal(xp.isin(xp.asarray([-1, 1]), u), np.array([False, True]))
    else:
        with pytest.raises(TypeError, match="int64"):
            xp.isin(x, u)
    with pytest.raises(TypeError, match="invert"):
        xp.isin(x, x, invert=None)
    with pytest.raises(TypeError):
        xp.isin(x, 1.5)
