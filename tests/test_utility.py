"""all, any and diff against NumPy."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import ALL_NAMES, NUMERIC_NAMES, SUPPORTED_NAMES, assert_equal, shapes, views
from test_statistical import axis_arg

# mostly zeros, so that all() and any() are not decided by the first element
SPARSE = {
    "float32": st.sampled_from([0.0, -0.0, 0.0, 1.5, np.nan, np.inf, -np.inf]).map(np.float32),
    "bool": st.sampled_from([False, False, True]),
}


@st.composite
def truth_case(draw):
    name = draw(st.sampled_from(ALL_NAMES))
    shape = draw(shapes())
    elements = SPARSE.get(name, st.sampled_from([0, 0, 0, 1, -1 if name[0] == "i" else 7]))
    a, x = draw(views(name, shape, elements_strategy=elements))
    return a, x, draw(axis_arg(len(shape))), draw(st.booleans())


@given(truth_case())
def test_all_any(case):
    a, x, axis, keepdims = case
    for f in ("all", "any"):
        assert_equal(getattr(xp, f)(x, axis=axis, keepdims=keepdims),
                     getattr(np, f)(a, axis=axis, keepdims=keepdims))


def test_all_any_special_values():
    x = xp.asarray([np.nan, np.inf, -np.inf, 2.0], dtype=xp.float32)
    assert bool(xp.all(x))
    z = xp.asarray([0.0, -0.0], dtype=xp.float32)
    assert not bool(xp.any(z))
    e = xp.zeros((0, 4), dtype=xp.int8)
    assert_equal(xp.all(e), np.bool_(True))
    assert_equal(xp.any(e), np.bool_(False))
    assert_equal(xp.all(e, axis=0), np.ones(4, bool))
    assert_equal(xp.any(e, axis=0, keepdims=True), np.zeros((1, 4), bool))
    long = np.zeros(300_001, np.int32)
    long[-1] = 3
    assert bool(xp.any(xp.asarray(long))) and not bool(xp.all(xp.asarray(long)))
    assert bool(xp.any(xp.asarray(long)[::-2]))


@pytest.mark.parametrize("f", [xp.all, xp.any], ids=lambda f: f.__name__)
def test_all_any_errors(f):
    x = xp.ones((2, 3), dtype=xp.bool)
    with pytest.raises(ValueError, match=r"axis 5 is out of range"):
        f(x, axis=5)
    with pytest.raises(ValueError, match="repeats"):
        f(x, axis=(0, 0))
    with pytest.raises(TypeError, match="axis must be"):
        f(x, axis="0")
    with pytest.raises(TypeError, match="keepdims"):
        f(x, keepdims=None)
    with pytest.raises(TypeError, match="list"):
        f([True])


# -- diff --------------------------------------------------------------------------------------

@st.composite
def diff_case(draw):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    shape = draw(shapes(min_dims=1))
    a, x = draw(views(name, shape, edges=False))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = draw(st.integers(0, 3))
    extra = {}
    for key in ("prepend", "append"):
        if draw(st.booleans()):
            side = list(shape)
            side[axis] = draw(st.integers(0, 3))
            # same kind as x (so that the promoted dtype exists on the device)
            kin = name if name == "float32" else draw(st.sampled_from(
                [m for m in NUMERIC_NAMES if m[0] == name[0] and m != "float32"]))
            extra[key] = draw(views(kin, tuple(side), edges=False))
    return a, x, axis, n, extra


@given(diff_case())
def test_diff(case):
    a, x, axis, n, extra = case
    kwargs = {k: v[1] for k, v in extra.items()}
    np_kwargs = {k: v[0] for k, v in extra.items()}
    if n == 0:
        # the standard's result has M + N1 + N2 - n entries; NumPy ignores prepend and
        # append when n == 0
        parts = [np_kwargs.get("prepend"), a, np_kwargs.get("append")]
        expected = np.concatenate([p for p in parts if p is not None], axis=axis)
    else:
        expected = np.diff(a, axis=axis, n=n, **np_kwargs)
    # NumPy subtracts one pair at a time in the same dtype: results agree exactly
    assert_equal(xp.diff(x, axis=axis, n=n, **kwargs), expected)


def test_diff_errors():
    x = xp.ones((2, 3), dtype=xp.int32)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        xp.diff(x, axis=2)
    with pytest.raises(TypeError, match="axis must be an int"):
        xp.diff(x, axis=(0,))
    with pytest.raises(ValueError, match="0-d"):
        xp.diff(xp.asarray(1))
    with pytest.raises(ValueError, match="non-negative, got -1"):
        xp.diff(x, n=-1)
    with pytest.raises(TypeError, match="n must be an int, got 1.0"):
        xp.diff(x, n=1.0)
    with pytest.raises(TypeError, match="got bool"):
        xp.diff(xp.asarray([True, False]))
    with pytest.raises(ValueError, match=r"prepend has shape \(3, 3\)"):
        xp.diff(x, axis=1, prepend=xp.ones((3, 3), dtype=xp.int32))
    with pytest.raises(TypeError, match="append must be"):
        xp.diff(x, append=1)
    # int32 with float32: NumPy's float64
    assert xp.diff(x, append=xp.ones((2, 1), dtype=xp.float32)).dtype == xp.float64
    u = xp.full((2, 1), 2**32 - 1, dtype=xp.uint32)
    if "int64" in SUPPORTED_NAMES:  # promotes to int64
        assert_equal(xp.diff(x, append=u), np.diff(np.asarray(x), append=np.asarray(u)).astype(np.int64))
    else:
        with pytest.raises(TypeError, match="int64"):
            xp.diff(x, append=u)
