"""Manipulation functions against NumPy: random shapes (0-d and empty included), axes,
dtypes and non-contiguous views; which results are views (writing through them shows in
the base); and the errors the standard names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import webarray as xp
from helpers import (ALL_NAMES, DTYPES, NUMERIC_NAMES, SUPPORTED_NAMES, arrays, assert_equal,
                     shapes, views)

names = st.sampled_from(ALL_NAMES)


@st.composite
def case(draw, shape=None, min_dims=0, max_dims=4, dtypes=ALL_NAMES):
    """(dtype name, numpy array, webarray array, possibly a view)."""
    name = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(shapes(min_dims=min_dims, max_dims=max_dims))
    a, x = draw(views(name, shape))
    return name, a, x


def axis_of(ndim: int):
    return st.integers(-ndim, ndim - 1)


def shares(y, x) -> bool:
    return y._buf is x._buf


def test_write_through_views_shows_in_base():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    xp.flip(x, axis=1)[0, 0, 0] = 100  # x[0, 2, 0]
    xp.permute_dims(x, (2, 0, 1))[1, 1, 0] = 101  # x[1, 0, 1]
    xp.moveaxis(x, 0, -1)[2, 3, 0] = 102  # x[0, 2, 3]
    xp.expand_dims(x, axis=(0, -1))[0, 1, 2, 2, 0] = 103  # x[1, 2, 2]
    xp.squeeze(xp.expand_dims(x, axis=1), axis=1)[0, 1, 1] = 104  # x[0, 1, 1]
    xp.reshape(x, (6, 4))[4, 3] = 105  # x[1, 1, 3]
    xp.unstack(x, axis=2)[1][0, 0] = 106  # x[0, 0, 1]
    for idx, v in [((0, 2, 0), 100), ((1, 0, 1), 101), ((0, 2, 3), 102), ((1, 2, 2), 103),
                   ((0, 1, 1), 104), ((1, 1, 3), 105), ((0, 0, 1), 106)]:
        a[idx] = v
    assert_equal(x, a)
    b = xp.broadcast_to(x[0, 0], (5, 4))
    assert shares(b, x)
    one = xp.asarray(1, dtype=xp.int32)
    bx, bone = xp.broadcast_arrays(x, one)
    assert shares(bx, x) and shares(bone, one)


# -- broadcasting ----------------------------------------------------------------------------

@st.composite
def broadcastable_shapes(draw, n=None):
    base = draw(shapes(max_dims=4))
    count = draw(st.integers(1, 4)) if n is None else n
    out = []
    for _ in range(count):
        k = draw(st.integers(0, len(base)))
        s = list(base[len(base) - k:])
        for i in range(len(s)):
            if draw(st.booleans()):
                s[i] = 1
        out.append(tuple(s))
    return out


@given(broadcastable_shapes())
def test_broadcast_shapes(ss):
    assert xp.broadcast_shapes(*ss) == np.broadcast_shapes(*ss)


def test_broadcast_shapes_edge_cases():
    assert xp.broadcast_shapes() == ()
    assert xp.broadcast_shapes((0, 1), (3, 1, 5)) == (3, 0, 5)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        xp.broadcast_shapes((2, 3), (4,))
    with pytest.raises(TypeError):
        xp.broadcast_shapes(3)


@given(names, broadcastable_shapes(n=3), st.data())
def test_broadcast_arrays_and_to(name, ss, data):
    pairs = [data.draw(views(name, s)) for s in ss]
    got = xp.broadcast_arrays(*(x for _, x in pairs))
    expected = np.broadcast_arrays(*(a for a, _ in pairs))
    assert isinstance(got, tuple) and len(got) == 3
    for g, e, (_, x) in zip(got, expected, pairs):
        assert_equal(g, e)
        assert shares(g, x)
    target = np.broadcast_shapes(*ss)
    a, x = pairs[0]
    assert_equal(xp.broadcast_to(x, target), np.broadcast_to(a, target))
    assert xp.broadcast_arrays() == ()


def test_broadcast_to_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(3, 3\)"):
        xp.broadcast_to(x, (3, 3))
    with pytest.raises(ValueError):
        xp.broadcast_to(x, (3,))
    with pytest.raises(TypeError):
        xp.broadcast_to([1, 2], (2,))


# -- concat and stack ------------------------------------------------------------------------

# pairs of dtypes that promote to a supported dtype
PROMOTING = [("int8", "int16"), ("uint8", "int16"), ("uint8", "uint32"), ("int8", "int32"),
             ("uint16", "int32"), ("bool", "bool"), ("float32", "float32")]


@st.composite
def joinable(draw, same_shape: bool):
    d1, d2 = draw(st.sampled_from(PROMOTING + [(n, n) for n in ALL_NAMES]))
    shape = draw(shapes(min_dims=0 if same_shape else 1, max_dims=3))
    count = draw(st.integers(1, 3))
    axis = draw(axis_of(len(shape) + (1 if same_shape else 0))) if shape or same_shape else 0
    out = []
    for i in range(count):
        s = list(shape)
        if not same_shape:
            s[axis] = draw(st.integers(0, 4))
        out.append(draw(views(d1 if i % 2 == 0 else d2, tuple(s))))
    return out, axis


@given(joinable(same_shape=False), st.booleans())
def test_concat(case, flat):
    pairs, axis = case
    if flat:
        expected = np.concatenate([a.ravel() for a, _ in pairs])
        got = xp.concat([x for _, x in pairs], axis=None)
    else:
        expected = np.concatenate([a for a, _ in pairs], axis=axis)
        got = xp.concat(tuple(x for _, x in pairs), axis=axis)
    assert_equal(got, expected)


@given(joinable(same_shape=True))
def test_stack(case):
    pairs, axis = case
    expected = np.stack([a for a, _ in pairs], axis=axis)
    assert_equal(xp.stack([x for _, x in pairs], axis=axis), expected)


def test_concat_and_stack_errors():
    a, b = xp.zeros((2, 3)), xp.zeros((2, 4))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"):
        xp.concat([a, b])
    assert xp.concat([a, b], axis=1).shape == (2, 7)
    with pytest.raises(ValueError, match="same number of dimensions"):
        xp.concat([a, xp.zeros(3)])
    with pytest.raises(ValueError, match="zero-dimensional"):
        xp.concat([xp.zeros(()), xp.zeros(())])
    assert xp.concat([xp.zeros(()), xp.ones(())], axis=None).shape == (2,)
    with pytest.raises(ValueError, match="at least one"):
        xp.concat([])
    with pytest.raises(IndexError, match="axis 2"):
        xp.concat([a, a], axis=2)
    # float32 with int32: NumPy's float64
    assert xp.concat([a, xp.zeros((2, 3), dtype=xp.int32)]).dtype == xp.float64
    i, u = xp.asarray([-1, 2], dtype=xp.int32), xp.asarray([3, 2**32 - 1], dtype=xp.uint32)
    if "int64" in SUPPORTED_NAMES:
        assert_equal(xp.concat([i, u]), np.array([-1, 2, 3, 2**32 - 1], np.int64))
    else:
        with pytest.raises(TypeError, match="int64"):
            xp.concat([i, u])
    with pytest.raises(ValueError, match="same shape"):
        xp.stack([a, b])
    with pytest.raises(IndexError):
        xp.stack([a, a], axis=3)
    assert xp.stack([a, a], axis=-3).shape == (2, 2, 3)


# -- views -------------------------------------------------------------------------------------

@given(case(), st.data())
def test_expand_dims(c, data):
    _, a, x = c
    k = data.draw(st.integers(1, 3))
    m = a.ndim + k
    axes = data.draw(st.lists(st.integers(-m, m - 1), min_size=k, max_size=k,
                              unique_by=lambda v: v % m))
    got = xp.expand_dims(x, axis=tuple(axes))
    assert_equal(got, np.expand_dims(a, tuple(axes)))
    assert shares(got, x)
    if k == 1:
        assert_equal(xp.expand_dims(x, axis=axes[0]), np.expand_dims(a, axes[0]))


def test_expand_dims_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(IndexError, match="axis 3"):
        xp.expand_dims(x, axis=3)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=(0, 4))
    with pytest.raises(ValueError, match="repeated"):
        xp.expand_dims(x, axis=(0, -4))
    assert xp.expand_dims(x, axis=-1).shape == (2, 3, 1)


@given(case(), st.data())
def test_flip(c, data):
    _, a, x = c
    if a.ndim and data.draw(st.booleans()):
        axes = data.draw(st.lists(axis_of(a.ndim), min_size=1, max_size=a.ndim,
                                  unique_by=lambda v: v % a.ndim))
        axis = tuple(axes) if len(axes) > 1 or data.draw(st.booleans()) else axes[0]
    else:
        axis = None
    got = xp.flip(x, axis=axis)
    assert_equal(got, np.flip(a, axis))
    assert shares(got, x)


@given(case(min_dims=1), st.data())
def test_permute_dims_and_moveaxis(c, data):
    _, a, x = c
    perm = data.draw(st.permutations(range(a.ndim)))
    signed = tuple(p - a.ndim if data.draw(st.booleans()) else p for p in perm)
    got = xp.permute_dims(x, signed)
    assert_equal(got, np.transpose(a, perm))
    assert shares(got, x)
    k = data.draw(st.integers(1, a.ndim))
    distinct = st.lists(axis_of(a.ndim), min_size=k, max_size=k, unique_by=lambda v: v % a.ndim)
    src, dst = data.draw(distinct), data.draw(distinct)
    got = xp.moveaxis(x, tuple(src), tuple(dst))
    assert_equal(got, np.moveaxis(a, src, dst))
    assert_equal(xp.moveaxis(x, src[0], dst[0]), np.moveaxis(a, src[0], dst[0]))


def test_permute_and_moveaxis_errors():
    x = xp.zeros((2, 3, 4))
    with pytest.raises(ValueError, match="each of"):
        xp.permute_dims(x, (0, 1))
    with pytest.raises(ValueError, match="repeated"):
        xp.permute_dims(x, (0, 1, -3))
    with pytest.raises(IndexError, match="axis 3"):
        xp.permute_dims(x, (0, 1, 3))
    with pytest.raises(ValueError, match="same number"):
        xp.moveaxis(x, (0, 1), 2)
    with pytest.raises(IndexError):
        xp.moveaxis(x, 0, 3)


@given(case(), st.data())
def test_squeeze(c, data):
    _, a, x = c
    ones = [i for i, n in enumerate(a.shape) if n == 1]
    assume(ones)
    axes = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
    axes = [ax - a.ndim if data.draw(st.booleans()) else ax for ax in axes]
    got = xp.squeeze(x, axis=tuple(axes))
    assert_equal(got, np.squeeze(a, tuple(axes)))
    assert shares(got, x)
    assert_equal(xp.squeeze(x, axis=axes[0]), np.squeeze(a, axes[0]))


def test_squeeze_errors():
    x = xp.zeros((1, 3, 1))
    with pytest.raises(ValueError, match="axis 1 has size 3"):
        xp.squeeze(x, axis=1)
    with pytest.raises(IndexError):
        xp.squeeze(x, axis=3)
    assert xp.squeeze(x, axis=(0, -1)).shape == (3,)


@given(case(min_dims=1), st.data())
def test_unstack(c, data):
    _, a, x = c
    axis = data.draw(axis_of(a.ndim))
    got = xp.unstack(x, axis=axis)
    assert isinstance(got, tuple) and len(got) == a.shape[axis]
    for g, e in zip(got, np.moveaxis(a, axis, 0)):
        assert_equal(g, e)
        assert shares(g, x)
    with pytest.raises(IndexError):
        xp.unstack(x, axis=a.ndim)


def test_unstack_zero_dimensional():
    with pytest.raises(ValueError):
        xp.unstack(xp.asarray(1.0))


# -- reshape -------------------------------------------------------------------------------------

@st.composite
def reshape_case(draw):
    name = draw(names)
    shape = draw(shapes(max_dims=4))
    size = int(np.prod(shape))
    # factor the size into a new shape, maybe with a -1 and some 1s
    dims = []
    rest = size
    while rest > 1 and len(dims) < 4:
        f = draw(st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0]))
        dims.append(f)
        rest //= f
    if rest != 1 or size == 0:
        dims.append(rest)
    dims += [1] * draw(st.integers(0, 1))
    dims = draw(st.permutations(dims))
    if dims and size and draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    # keep a base NumPy array and the same view on both sides, to ask NumPy whether a view
    # is possible
    big = tuple(2 * n for n in shape)
    base = draw(arrays(name, big))
    kind = draw(st.sampled_from(["plain", "strided", "transposed", "reversed"]))
    if kind == "plain":
        idx = tuple(slice(0, n) for n in shape)
    elif kind == "strided":
        idx = tuple(slice(None, None, 2) for _ in shape)
    else:
        idx = tuple(slice(n - 1, None, -1) if kind == "reversed" else slice(0, n) for n in shape)
    perm = tuple(reversed(range(len(shape)))) if kind == "transposed" else tuple(range(len(shape)))
    a = np.transpose(base[idx], perm)
    x = xp.permute_dims(xp.asarray(base)[idx], perm)
    return a, x, tuple(dims)


@given(reshape_case(), st.sampled_from([None, True, False]))
def test_reshape(c, copy):
    a, x, shape = c
    try:
        np.reshape(a, shape, copy=False)
        viewable = True
    except ValueError:
        viewable = False
    if copy is False and not viewable:
        with pytest.raises(ValueError, match="copy=False"):
            xp.reshape(x, shape, copy=False)
        return
    got = xp.reshape(x, shape, copy=copy)
    assert_equal(got, np.reshape(a, shape))
    assert shares(got, x) == (viewable and not copy)


def test_reshape_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match=r"size 6 into \(4, -1\)"):
        xp.reshape(x, (4, -1))
    with pytest.raises(ValueError, match="only one"):
        xp.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="size 6"):
        xp.reshape(x, (7,))
    with pytest.raises(ValueError):
        xp.reshape(x, (-2, -3))
    with pytest.raises(ValueError):
        xp.reshape(xp.zeros((0, 3)), (0, -1))
    with pytest.raises(TypeError):
        xp.reshape(x, 6)
    y = xp.reshape(x, (3, 2), copy=True)
    y[0, 0] = 1.0
    assert float(x[0, 0]) == 0.0


# -- copies --------------------------------------------------------------------------------------

@given(case(), st.data())
def test_roll(c, data):
    _, a, x = c
    if a.ndim == 0 or data.draw(st.booleans()):
        shift = data.draw(st.integers(-10, 10))
        assert_equal(xp.roll(x, shift), np.roll(a, shift))
        return
    axes = data.draw(st.lists(axis_of(a.ndim), min_size=1, max_size=3))
    shifts = data.draw(st.lists(st.integers(-10, 10), min_size=len(axes), max_size=len(axes)))
    assert_equal(xp.roll(x, tuple(shifts), axis=tuple(axes)), np.roll(a, shifts, tuple(axes)))
    assert_equal(xp.roll(x, shifts[0], axis=tuple(axes)), np.roll(a, shifts[0], tuple(axes)))
    assert_equal(xp.roll(x, shifts[0], axis=axes[0]), np.roll(a, shifts[0], axes[0]))


def test_roll_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="same length"):
        xp.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError, match="tuple axis"):
        xp.roll(x, (1, 2))
    with pytest.raises(IndexError):
        xp.roll(x, 1, axis=2)


@given(case(max_dims=3), st.data())
def test_tile(c, data):
    _, a, x = c
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4)))
    assert_equal(xp.tile(x, reps), np.tile(a, reps))


def test_tile_errors():
    with pytest.raises(ValueError, match="non-negative"):
        xp.tile(xp.zeros(2), (-1,))
    with pytest.raises(TypeError):
        xp.tile(xp.zeros(2), 2)


@given(case(max_dims=3), st.data())
def test_repeat(c, data):
    _, a, x = c
    axis = data.draw(st.one_of(st.none(), axis_of(a.ndim))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    kind = data.draw(st.sampled_from(["int", "array", "array1"]))
    if kind == "int":
        r = data.draw(st.integers(0, 3))
        got, expected = xp.repeat(x, r, axis=axis), np.repeat(a, r, axis=axis)
    else:
        rname = data.draw(st.sampled_from(["int8", "uint8", "int32", "uint16"]))
        r = data.draw(arrays(rname, (1,) if kind == "array1" else (n,),
                             elements_strategy=st.integers(0, 4)))
        got, expected = xp.repeat(x, xp.asarray(r), axis=axis), np.repeat(a, r, axis=axis)
    assert_equal(got, expected)


def test_repeat_errors():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match="non-negative"):
        xp.repeat(x, -1)
    with pytest.raises(ValueError, match="non-negative"):
        xp.repeat(x, xp.asarray([1, -1, 2]), axis=1)
    with pytest.raises(ValueError, match=r"\(3,\)"):
        xp.repeat(x, xp.asarray([1, 2]), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        xp.repeat(x, xp.asarray([1.0, 2.0]), axis=0)
    with pytest.raises(IndexError):
        xp.repeat(x, 2, axis=2)


def test_copies_of_large_arrays():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((300, 257)).astype(np.float32)
    x = xp.asarray(a)
    assert_equal(xp.roll(x, (7, -100), axis=(0, 1)), np.roll(a, (7, -100), (0, 1)))
    assert_equal(xp.concat([x, x[::-1]], axis=1), np.concatenate([a, a[::-1]], axis=1))
    assert_equal(xp.tile(x[:3], (2, 2)), np.tile(a[:3], (2, 2)))


@pytest.mark.parametrize("fn", [
    lambda x: xp.flip(x), lambda x: xp.reshape(x, (-1,)), lambda x: xp.squeeze(x, axis=0),
    lambda x: xp.concat([x, x]), lambda x: xp.tile(x, (2,)), lambda x: xp.roll(x, 1),
])
def test_non_arrays_raise_type_error(fn):
    with pytest.raises(TypeError):
        fn(np.zeros((1, 2), np.float32))


@given(st.sampled_from(NUMERIC_NAMES))
def test_dtype_is_kept(name):
    a = np.arange(6).astype(DTYPES[name]).reshape(2, 3)
    x = xp.asarray(a)
    for got, expected in [(xp.roll(x, 1, axis=1), np.roll(a, 1, 1)),
                          (xp.tile(x, (2, 1)), np.tile(a, (2, 1))),
                          (xp.repeat(x, 2), np.repeat(a, 2)), (xp.stack([x, x]), np.stack([a, a]))]:
        assert_equal(got, expected)
