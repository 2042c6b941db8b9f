"""sort and argsort against NumPy's stable sort: random shapes (0-d and empty included),
axes, dtypes, non-contiguous views, both orders; special values (NaN, ±0, ±inf, integer
limits) and many ties, to check the order conventions and stability; rows longer than one
workgroup's block, which take the multi-pass global merge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import DTYPES, NUMERIC_NAMES, assert_equal, elements, shapes, views
from webarray.kernels.webgpu.sort import BLOCK


def ranks(a: np.ndarray) -> np.ndarray:
    """Dense ranks in webarray's order: -0.0 equal to +0.0, every NaN equal and last."""
    if a.dtype.kind == "f":
        v = a.astype(np.float64) + 0.0  # folds -0.0 onto +0.0
        nan = np.isnan(v)
        u = np.unique(v[~nan])
        r = np.searchsorted(u, np.where(nan, 0, v))
        return np.where(nan, len(u), r)
    return np.searchsorted(np.unique(a), a)


def expected_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    r = ranks(a).astype(np.int64)
    return np.argsort(-r if descending else r, axis=axis, kind="stable")


def few_values(name: str):
    """Elements with many ties (and the dtype's limits)."""
    dtype = np.dtype(DTYPES[name])
    if dtype.kind == "f":
        return st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5])
    info = np.iinfo(dtype)
    return st.sampled_from([int(info.min), int(info.max), 0, 1, int(info.max) // 2])


@st.composite
def sort_case(draw, min_dims=0):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes(min_dims=min_dims, max_dims=3, max_side=9))
    strategy = draw(st.sampled_from([elements(name), few_values(name)]))
    a, x = draw(views(name, shape, elements_strategy=strategy))
    axis = draw(st.integers(-a.ndim, a.ndim - 1)) if a.ndim else -1
    return a, x, axis


@given(sort_case(), st.booleans(), st.booleans())
def test_sort_and_argsort(c, descending, stable):
    a, x, axis = c
    kw = dict(descending=descending, stable=stable)
    if a.ndim == 0:
        assert_equal(xp.sort(x, **kw), a)
        assert_equal(xp.argsort(x, **kw), np.zeros((), np.int32))
        return
    order = expected_argsort(a, axis, descending)
    assert_equal(xp.argsort(x, axis=axis, **kw), order.astype(np.int32))
    assert_equal(xp.sort(x, axis=axis, **kw), np.take_along_axis(a, order, axis=axis))


def test_ascending_matches_numpy_sort_on_special_values():
    a = np.array([np.nan, 1.0, -np.inf, -0.0, np.nan, 0.0, np.inf, -0.0, -1.0, 3e38,
                  -3e38, 1e-45, -1e-45], np.float32)
    x = xp.asarray(a)
    assert_equal(xp.sort(x), np.sort(a, kind="stable"))
    assert_equal(xp.argsort(x), np.argsort(a, kind="stable").astype(np.int32))
    # descending: NaNs first, then +inf; -0.0 and +0.0 keep their order
    got = np.asarray(xp.sort(x, descending=True))
    assert np.isnan(got[:2]).all() and got[2] == np.inf and got[-1] == -np.inf
    zeros = got[(got == 0)]
    assert list(np.signbit(zeros)) == [True, False, True]


def test_nans_of_any_sign_and_payload_sort_last_and_stay_in_order():
    bits = np.array([0x7F800001, 0x3F800000, 0xFFC00000, 0xFF800000, 0x7FFFFFFF, 0x80000000,
                     0xFF800001, 0x00000000, 0x7FC00000], np.uint32)
    a = bits.view(np.float32)
    x = xp.asarray(a)
    assert_equal(xp.argsort(x), np.argsort(a, kind="stable").astype(np.int32))
    assert_equal(xp.argsort(x, descending=True), expected_argsort(a, 0, True).astype(np.int32))
    r = xp.unique_counts(x)
    assert np.isnan(np.asarray(r.values)[-5:]).all() and r.values.shape == (8,)
    assert_equal(xp.searchsorted(xp.sort(x), x[:3]), np.array([4, 3, 4], np.int32))


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "uint8", "uint16", "uint32"])
def test_integer_limits(name):
    info = np.iinfo(DTYPES[name])
    a = np.array([info.max, info.min, 0, info.max, 1, info.min, info.max - 1], DTYPES[name])
    x = xp.asarray(a)
    for descending in (False, True):
        order = expected_argsort(a, 0, descending)
        assert_equal(xp.argsort(x, descending=descending), order.astype(np.int32))
        assert_equal(xp.sort(x, descending=descending), a[order])


@pytest.mark.parametrize("shape, axis", [
    ((BLOCK - 1,), 0), ((BLOCK,), 0), ((BLOCK + 1,), 0), ((3, 2 * BLOCK + 5), -1),
    ((5 * BLOCK + 3, 2), 0), ((17000,), 0), ((70000,), 0), ((140000,), 0),
])
def test_rows_longer_than_a_block(shape, axis):
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(-50, 50, size=shape).astype(np.float32)
    a[rng.random(shape) < 0.01] = np.nan
    a[rng.random(shape) < 0.05] = -0.0
    x = xp.asarray(a)
    for descending in (False, True):
        order = expected_argsort(a, axis, descending)
        assert_equal(xp.argsort(x, axis=axis, descending=descending), order.astype(np.int32))
        assert_equal(xp.sort(x, axis=axis, descending=descending),
                     np.take_along_axis(a, order, axis=axis))


def _reference_step(k, i, h, flip):
    for q in range(k.size // 2):
        lo = ((q & ~(h - 1)) << 1) | (q & (h - 1))
        hi = lo ^ (2 * h - 1) if flip else lo + h
        if (k[lo], i[lo]) > (k[hi], i[hi]):
            k[lo], k[hi], i[lo], i[hi] = k[hi], k[lo], i[hi], i[lo]


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
@pytest.mark.parametrize("flip", [False, True])
def test_fused_global_steps_equal_single_steps(steps, flip):
    """Each launch of global_steps does what its single compare-exchange steps do, for
    every fusion depth (the sorts above reach only some of them)."""
    from webarray._core import launch
    from webarray._core.algorithms import sort as impl
    from webarray.kernels.webgpu import sort as gen

    rng = np.random.default_rng(steps)
    total = 256
    for h in (1 << (steps - 1), 1 << (steps + 1)):
        k = rng.integers(0, 8, total).astype(np.uint32)
        i = rng.permutation(total).astype(np.uint32)
        keys, idx = xp.asarray(k), xp.asarray(i)
        launch.kernel(keys.device, ("sort", "steps", steps, flip),
                      lambda: gen.global_steps(steps, flip), [keys, idx],
                      impl._words(total >> steps, h), 1)
        for s in range(steps):
            _reference_step(k, i, h >> s, flip and s == 0)
        assert_equal(keys, k)
        assert_equal(idx, i)


def test_many_short_rows():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, size=(3000, 7)).astype(np.uint16)
    x = xp.asarray(a)
    assert_equal(xp.argsort(x, axis=1), np.argsort(a, axis=1, kind="stable").astype(np.int32))
    assert_equal(xp.sort(x[:, ::-1], axis=0), np.sort(a[:, ::-1], axis=0))


def test_input_is_not_modified_and_result_is_new():
    a = np.array([3, 1, 2], np.int32)
    x = xp.asarray(a)
    s = xp.sort(x)
    s[0] = 100
    assert_equal(x, a)


def test_errors():
    with pytest.raises(TypeError, match="real numeric.*bool"):
        xp.sort(xp.asarray([True, False]))
    with pytest.raises(TypeError, match="real numeric"):
        xp.argsort(xp.asarray([True, False]))
    x = xp.zeros((2, 3))
    with pytest.raises(IndexError, match="axis 2"):
        xp.sort(x, axis=2)
    with pytest.raises(IndexError):
        xp.argsort(x, axis=-3)
    with pytest.raises(TypeError, match="descending"):
        xp.sort(x, descending=1)
    with pytest.raises(TypeError):
        xp.sort(np.zeros(3))
    with pytest.raises(IndexError):
        xp.sort(xp.asarray(1.0), axis=1)
