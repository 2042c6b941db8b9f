"""``x[key]`` and ``x[key] = value`` against NumPy: basic keys (ints, slices with any step
and out-of-range bounds, ``...``, None) on plain and strided arrays, boolean masks, integer
arrays and lists; views share memory; invalid keys raise IndexError naming the key; errors
leak no device memory.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, note, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
from helpers import ALL_NAMES, DTYPES, INT_NAMES, arrays, assert_equal, elements, shapes, views


def _np_get(a: np.ndarray, key) -> np.ndarray:
    return np.asarray(a[key])  # NumPy gives a scalar where the standard gives a 0-d array


# -- key strategies ----------------------------------------------------------------------------


def _axis_entry(n: int):
    """An int (in range) or a slice (any step, bounds possibly out of range) for an axis."""
    bound = st.none() | st.integers(-n - 3, n + 3)
    step = st.none() | st.sampled_from([1, 2, 3, -1, -2, -3])
    sl = st.builds(slice, bound, bound, step)
    if n == 0:
        return sl
    return st.one_of(sl, st.integers(-n, n - 1))


@st.composite
def basic_keys(draw, shape):
    """Ints, slices, None and at most one ellipsis; the key may cover fewer axes than
    ``shape`` has (the rest are taken whole)."""
    ndim = len(shape)
    covered = draw(st.integers(0, ndim), label="axes indexed")
    if draw(st.booleans(), label="ellipsis"):
        before = draw(st.integers(0, covered))
        axes = list(range(before)) + list(range(ndim - (covered - before), ndim))
        entries = [draw(_axis_entry(shape[a])) for a in axes]
        entries.insert(before, Ellipsis)
    else:
        entries = [draw(_axis_entry(shape[a])) for a in range(covered)]
    for _ in range(draw(st.integers(0, 2), label="Nones")):
        entries.insert(draw(st.integers(0, len(entries))), None)
    if len(entries) == 1 and draw(st.booleans()):
        return entries[0]  # a bare key, not a tuple
    return tuple(entries)


def _case(names=ALL_NAMES, **shape_kw):
    kw = dict(max_dims=4, max_side=5)
    kw.update(shape_kw)
    return st.sampled_from(names).flatmap(
        lambda n: shapes(**kw).flatmap(lambda s: st.tuples(st.just(n), views(n, s))))


# -- basic indexing --------------------------------------------------------------------------------


@given(case=_case(), data=st.data())
def test_getitem_basic(case, data):
    name, (a, x) = case
    key = data.draw(basic_keys(a.shape), label="key")
    got = x[key]
    assert_equal(got, _np_get(a, key))
    assert got._buf is x._buf, "basic indexing must give a view"


@given(case=_case(min_dims=1), data=st.data())
def test_basic_views_write_through(case, data):
    name, (a, x) = case
    key = data.draw(basic_keys(a.shape), label="key")
    v = x[key]
    values = data.draw(arrays(name, v.shape), label="values")
    v[...] = xp.asarray(values)  # through the view ...
    a[key] = values
    assert_equal(x, a)  # ... into the array it views
    if v.size:
        s = data.draw(elements(name), label="scalar")
        s = s.item() if isinstance(s, np.generic) else s
        v2 = x[key]
        v2[...] = s
        a[key] = s
        assert_equal(x, a)


@given(case=_case(min_dims=1, min_side=1), data=st.data())
def test_getitem_single_integers(case, data):
    name, (a, x) = case
    n = a.shape[0]
    i = data.draw(st.integers(-n, n - 1), label="i")
    assert_equal(x[i], a[i])
    assert_equal(x[np.int64(i)], a[i])  # anything with __index__
    assert_equal(x[xp.asarray(i)], a[i])  # a 0-d integer array is its integer
    if a.ndim == 1:
        assert x[i].shape == ()  # not a scalar: a 0-d array
        assert_equal(x[i, ...], a[i, ...])


def test_getitem_zero_dimensional():
    x = xp.asarray(np.float32(2.5))
    for key in [(), ..., None, (None, ...), (..., None, None)]:
        assert_equal(x[key], np.asarray(np.asarray(np.float32(2.5))[key]))
    assert x[()]._buf is x._buf
    with pytest.raises(IndexError, match="too many indices"):
        x[0]


def test_slice_views_share_memory():
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    x = xp.asarray(a)
    v = x[1:, ::-2]
    v[0, 1] = -7
    a[1:, ::-2][0, 1] = -7
    w = v[::-1, 1:]
    w[...] = 100
    a[1:, ::-2][::-1, 1:] = 100
    assert_equal(x, a)
    assert_equal(v, a[1:, ::-2])


# -- boolean masks ---------------------------------------------------------------------------------


@given(case=_case(max_dims=3), data=st.data())
def test_getitem_boolean_mask(case, data):
    name, (a, x) = case
    m = data.draw(st.integers(0, a.ndim), label="mask dims")
    mask = data.draw(hnp.arrays(np.bool_, a.shape[:m]), label="mask")
    form = data.draw(st.sampled_from(["array", "array, ...", "view", "list", "numpy"]),
                     label="form")
    if form == "list" and mask.size:  # (an empty list is an empty integer index)
        key, npkey = mask.tolist(), mask
    elif form == "numpy" and m >= 1:  # a host (NumPy) mask, as NumPy reads it
        key, npkey = mask, mask
    elif form == "view" and m >= 1:
        big = np.stack([mask, ~mask], axis=-1)  # mask is big[..., 0]: a strided view
        key, npkey = xp.asarray(big)[..., 0], mask
    elif form == "array, ...":
        key, npkey = (xp.asarray(mask), ...), (mask, ...)
    else:
        key, npkey = xp.asarray(mask), mask
    assert_equal(x[key], a[npkey])


@pytest.mark.parametrize("value", [True, False])
def test_getitem_python_and_zero_dimensional_bool(value):
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = xp.asarray(a)
    mask0 = xp.asarray(value)
    for key, npkey in [(value, value), ((value,), (value,)), ((value, ...), (value, ...)),
                       ((None, value), (None, value)), ((value, 1), (value, 1)),
                       ((0, value), (0, value)), (mask0, np.asarray(value)),
                       ((mask0, ...), (np.asarray(value), ...))]:
        assert_equal(x[key], a[npkey])
    z = xp.asarray(np.float32(3))
    assert_equal(z[mask0], np.asarray(np.float32(3))[np.asarray(value)])
    x[mask0] = 7
    a[np.asarray(value)] = 7
    assert_equal(x, a)
    x[value, 1] = xp.asarray(np.int16([-1, -2, -3]))
    a[value, 1] = np.int16([-1, -2, -3])
    assert_equal(x, a)


@given(case=_case(max_dims=3), data=st.data())
def test_setitem_boolean_mask(case, data):
    name, (a, x) = case
    m = data.draw(st.integers(0, a.ndim), label="mask dims")
    mask = data.draw(hnp.arrays(np.bool_, a.shape[:m]), label="mask")
    selected = a[mask].shape
    if data.draw(st.booleans(), label="scalar value"):
        value = data.draw(elements(name), label="value")
        value = value.item() if isinstance(value, np.generic) else value
        wvalue = value
    else:
        vshape = data.draw(_broadcastable(selected), label="value shape")
        value = data.draw(arrays(name, vshape), label="value")
        wvalue = xp.asarray(value)
    x[xp.asarray(mask)] = wvalue
    a[mask] = value
    assert_equal(x, a)


@st.composite
def _inner_mask_key(draw, a):
    """A mask after j >= 1 full slices or '...' (and before full slices): (webarray key
    maker, NumPy key)."""
    j = draw(st.integers(1, a.ndim), label="axes before the mask")
    m = draw(st.integers(0, a.ndim - j), label="mask dims")
    mask = draw(hnp.arrays(np.bool_, a.shape[j:j + m]), label="mask")
    after = draw(st.integers(0, a.ndim - j - m), label="full slices after")
    whole = j + m + after == a.ndim  # '...' stands for the j axes only when the key ends there
    lead = (...,) if whole and draw(st.booleans(), label="ellipsis") else (slice(None),) * j
    tail = (slice(None),) * after
    return (lambda: lead + (xp.asarray(mask),) + tail), lead + (mask,) + tail


@given(case=_case(max_dims=3), data=st.data())
def test_a_mask_after_slices_or_ellipsis_selects_as_numpy(case, data):
    # x[..., mask] and x[:, mask, :]: NumPy's selection, the hits' axis where the mask was
    # (scipy.ndimage.vectorized_filter indexes x[..., footprint])
    name, (a, x) = case
    if a.ndim == 0:
        return
    key, npkey = data.draw(_inner_mask_key(a))
    assert_equal(x[key()], a[npkey])
    selected = a[npkey].shape
    if data.draw(st.booleans(), label="scalar value"):
        value = data.draw(elements(name), label="value")
        value = value.item() if isinstance(value, np.generic) else value
        wvalue = value
    else:
        vshape = data.draw(_broadcastable(selected), label="value shape")
        value = data.draw(arrays(name, vshape), label="value")
        wvalue = xp.asarray(value)
    x[key()] = wvalue
    a[npkey] = value
    assert_equal(x, a)


def test_a_mask_after_slices_that_does_not_fit_its_axes_raises_index_error():
    x = xp.zeros((2, 3, 4))
    with pytest.raises(IndexError, match=r"shape \(3,\) .* dimensions \(4,\) at axes 2"):
        x[..., xp.asarray([True, False, True])]
    with pytest.raises(IndexError, match="must be the only index"):
        x[0, xp.asarray([True, False, True])]


# -- integer arrays --------------------------------------------------------------------------------


@st.composite
def _broadcastable(draw, shape):
    drop = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else n for n in shape[drop:])


@st.composite
def integer_keys(draw, shape):
    """(webarray key, NumPy key): integers and integer arrays (or lists) broadcasting to a
    common shape on adjacent axes: the leading ones, then optionally ``...`` or full slices,
    or after full slices or ``...`` (NumPy's x[:, i] and x[..., i]: the indices' axes in
    place of the indexed ones)."""
    head = draw(st.sampled_from(["", "", "slices", "..."]), label="head")
    lead = draw(st.integers(1, len(shape) - 1)) if head == "slices" and len(shape) > 1 else 0
    n_adv = draw(st.integers(1, len(shape) - lead), label="indexed axes")
    first = len(shape) - n_adv if head == "..." else lead
    common = draw(shapes(max_dims=2, max_side=3), label="index shape")
    key, npkey = [slice(None)] * lead, [slice(None)] * lead
    if head == "...":
        key, npkey = [...], [...]
    for axis in range(first, first + n_adv):
        n = shape[axis]
        form = draw(st.sampled_from(["int", "array", "array", "list", "numpy"]))
        if form == "int":
            i = draw(st.integers(-n, n - 1))
            key.append(i)
            npkey.append(i)
            continue
        ishape = draw(_broadcastable(common))
        names = [t for t in INT_NAMES if t.startswith("int")] + (
            [t for t in INT_NAMES if t.startswith("uint")] if form in ("array", "numpy") else [])
        tname = draw(st.sampled_from(names))
        low = 0 if tname.startswith("uint") else -n
        idx = draw(hnp.arrays(DTYPES[tname], ishape, elements=st.integers(low, n - 1)))
        if form == "list" and idx.size:  # (tolist() of an empty array loses its shape)
            key.append(idx.tolist())
        elif form == "numpy" and idx.ndim:  # a host (NumPy) index array, as NumPy reads it
            key.append(idx)
        elif idx.ndim and draw(st.booleans()):
            key.append(xp.asarray(idx[::-1].copy())[::-1])  # a non-contiguous index array
        else:
            key.append(xp.asarray(idx))
        npkey.append(idx)
    if not any(isinstance(k, np.ndarray) for k in npkey):
        idx = np.asarray([0], dtype=np.int32)
        at = len(key) - n_adv
        key[at], npkey[at] = xp.asarray(idx), idx
    tail = "" if head == "..." else draw(st.sampled_from(["", "...", "slices"]))
    if tail == "...":
        key.append(...)
        npkey.append(...)
    elif tail == "slices":
        k = draw(st.integers(0, len(shape) - first - n_adv))
        key += [slice(None)] * k
        npkey += [slice(None)] * k
    return tuple(key), tuple(npkey)


@given(case=_case(min_dims=1, min_side=1, max_dims=3), data=st.data())
def test_getitem_integer_arrays(case, data):
    name, (a, x) = case
    key, npkey = data.draw(integer_keys(a.shape), label="key")
    assert_equal(x[key], a[npkey])
    if len(key) == 1 and not isinstance(key[0], int):
        assert_equal(x[key[0]], a[npkey[0]])  # a bare array or list


def test_numpy_index_arrays_read_and_write_as_numpy_reads_them():
    """A NumPy index array (scikit-learn's _safe_indexing passes one with dispatch off) is
    read as NumPy reads it: integers of any width (bounds checked on the host values), a
    boolean mask; in __setitem__ too. Other dtypes and out-of-range values raise IndexError
    naming what was given, and the device keeps working."""
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = xp.asarray(a)
    for idx in [np.array([3, 0, -1]), np.array([1, 2], dtype=np.uint64),
                np.array([[0], [2]], dtype=np.int8), np.array([], dtype=np.int64)]:
        assert_equal(x[idx], a[idx])
        assert_equal(x[idx, 1], a[idx, 1])
    mask = np.array([True, False, True, True])
    assert_equal(x[mask], a[mask])
    y, b = xp.asarray(a), a.copy()
    y[np.array([0, 3])] = 7.0
    b[np.array([0, 3])] = 7.0
    y[mask[::-1].copy()] = -1.0
    b[mask[::-1].copy()] = -1.0
    assert_equal(y, b)
    with pytest.raises(IndexError, match="integer or boolean, got a ndarray of dtype float64"):
        x[np.array([0.0, 1.0])]
    with pytest.raises(IndexError, match="out of bounds"):
        x[np.array([4])]
    with pytest.raises(IndexError, match="out of bounds"):
        x[np.array([2 ** 63], dtype=np.uint64)]
    assert_equal(x[np.int64(2)], a[2])  # a NumPy integer is an integer
    assert_equal(x + 1, a + 1)


def test_getitem_integer_arrays_examples():
    a = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    x = xp.asarray(a)
    i = np.array([[3, 0], [1, -1]], dtype=np.int32)
    j = np.array([2, -3], dtype=np.int32)
    assert_equal(x[xp.asarray(i), xp.asarray(j)], a[i, j])  # (2, 2) then trailing (2,)
    assert_equal(x[xp.asarray(i), 1, xp.asarray(j) % 2], a[i, 1, j % 2])
    assert_equal(x[[0, 0, 3]], a[[0, 0, 3]])  # duplicates repeat
    assert_equal(x[[]], a[np.array([], dtype=np.int32)])
    assert_equal(x[[[1], [2]], [0, 2]], a[[[1], [2]], [0, 2]])
    assert_equal(x[xp.asarray(np.int32(2)), xp.asarray(np.uint8(1))], a[2, 1])


@given(case=_case(min_dims=1, min_side=1, max_dims=3), data=st.data())
def test_setitem_integer_arrays(case, data):
    name, (a, x) = case
    key, npkey = data.draw(integer_keys(a.shape), label="key")
    selected = a[npkey].shape
    # which elements are written: duplicates are written in an unspecified order, so an
    # array value is used only where every element is written once
    marks = np.zeros(a.shape, dtype=np.int32)
    np.add.at(marks, npkey, 1)
    unique = marks.max(initial=0) <= 1
    if not unique or data.draw(st.booleans(), label="scalar value"):
        value = data.draw(elements(name), label="value")
        value = value.item() if isinstance(value, np.generic) else value
        wvalue = value
    else:
        vshape = data.draw(_broadcastable(selected), label="value shape")
        value = data.draw(arrays(name, vshape), label="value")
        wvalue = xp.asarray(value)
    note(f"unique={unique}")
    x[key] = wvalue
    a[npkey] = value
    assert_equal(x, a)


def test_setitem_integer_array_with_overlapping_value():
    a = np.arange(10, dtype=np.int32)
    x = xp.asarray(a)
    idx = [1, 3, 5, 7, 9]
    x[idx] = x[::2]  # the value is read before any write
    a[idx] = a[::2].copy()
    assert_equal(x, a)
    i = xp.asarray(np.array([0, 1, 2], dtype=np.int32))
    x[i] = x[i] + 1
    a[[0, 1, 2]] += 1
    assert_equal(x, a)
    # an index array that lives in the array being written
    y = xp.asarray(np.array([2, 0, 1, 5, 6], dtype=np.int32))
    b = np.array([2, 0, 1, 5, 6], dtype=np.int32)
    y[y[:3]] = 4
    b[b[:3].copy()] = 4
    assert_equal(y, b)


# -- setitem with basic keys ---------------------------------------------------------------------


@given(case=_case(), data=st.data())
def test_setitem_basic(case, data):
    name, (a, x) = case
    key = data.draw(basic_keys(a.shape), label="key")
    selected = _np_get(a, key).shape
    if data.draw(st.booleans(), label="scalar value"):
        value = data.draw(elements(name), label="value")
        value = value.item() if isinstance(value, np.generic) else value
        wvalue = value
    else:
        vshape = data.draw(_broadcastable(selected), label="value shape")
        vname = data.draw(st.sampled_from(_into(name)), label="value dtype")
        value = data.draw(arrays(vname, vshape), label="value")
        wvalue = xp.asarray(value)
    x[key] = wvalue
    a[key] = value
    assert_equal(x, a)


def _into(name: str) -> list[str]:
    """dtypes whose values assign into an array of dtype ``name`` (promotion gives name)."""
    out = []
    for other in ALL_NAMES:
        k1, k2 = np.dtype(DTYPES[name]).kind, np.dtype(DTYPES[other]).kind
        if (k1 == k2 or {k1, k2} <= {"i", "u"}) and np.result_type(DTYPES[name], DTYPES[other]) == DTYPES[name]:
            out.append(other)
    return out


def test_setitem_overlapping_value():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = xp.asarray(a)
    x[1:] = x[:-1]
    a[1:] = a[:-1].copy()
    assert_equal(x, a)
    x[:, ::-1] = x
    a[:, ::-1] = a.copy()
    assert_equal(x, a)
    x[0] = x[2]
    a[0] = a[2]
    assert_equal(x, a)


@pytest.mark.parametrize(
    "name,value,err",
    [
        ("int32", 1.5, TypeError),
        ("int32", True, TypeError),
        ("bool", 1, TypeError),
        ("bool", 1.0, TypeError),
        ("uint8", 256, OverflowError),
        ("uint8", -1, OverflowError),
        ("int8", -129, OverflowError),
        ("float32", "a", TypeError),
        ("float32", [1.0], TypeError),
        ("float32", None, TypeError),
    ],
)
def test_setitem_scalar_dtype_rules(name, value, err):
    a = np.arange(4).astype(DTYPES[name])
    x = xp.asarray(a)
    for key in [0, slice(None), xp.asarray(a.astype(bool)), [1, 2]]:
        with pytest.raises(err):
            x[key] = value
    assert_equal(x, a)


@pytest.mark.parametrize("n1", ALL_NAMES)
@pytest.mark.parametrize("n2", ALL_NAMES)
def test_setitem_array_dtype_rules(n1, n2):
    a = np.zeros(4, dtype=DTYPES[n1])
    x = xp.asarray(a)
    v = np.array([1, 0, 1, 1]).astype(DTYPES[n2])
    if n2 in _into(n1):
        x[::-1] = xp.asarray(v)
        a[::-1] = v
        assert_equal(x, a)
        x[[0, 2]] = xp.asarray(v[:2])
        a[[0, 2]] = v[:2]
        assert_equal(x, a)
        return
    for key in [slice(None), ..., [0, 1, 2, 3], xp.asarray(v.astype(bool) | True)]:
        with pytest.raises(TypeError, match=f"{n2}.*{n1}"):
            x[key] = xp.asarray(v)
    assert_equal(x, a)


def test_setitem_shape_errors():
    a = np.zeros((3, 4), dtype=np.float32)
    x = xp.asarray(a)
    bad = [
        (0, np.ones(3)), (slice(None), np.ones((3, 3))), (..., np.ones((2, 3, 4))),
        ((slice(None), 1), np.ones((4,))), ([0, 1], np.ones((3, 4))),
        (xp.asarray(np.array([True, False, True])), np.ones((3, 4))),
        (0, np.ones((1, 4))),  # a value may not have more dimensions than the selection
    ]
    for key, v in bad:
        with pytest.raises(ValueError, match="shape|broadcast"):
            x[key] = xp.asarray(v.astype(np.float32))
    assert_equal(x, a)


def test_mask_dimensions_of_zero_pick_nothing():
    # the standard: each mask dimension equals the array's or is 0 (NumPy raises here)
    x = xp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for shape, out in [((0, 3), (0, 4)), ((2, 0), (0, 4)), ((0, 0, 4), (0,)), ((0,), (0, 3, 4))]:
        assert x[xp.asarray(np.zeros(shape, bool))].shape == out
    x[xp.asarray(np.zeros((2, 0), bool))] = -1.0
    assert np.array_equal(np.asarray(x), np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert xp.zeros((0, 1))[xp.asarray(np.zeros((0, 0), bool))].shape == (0,)
    with pytest.raises(IndexError, match=r"\(1, 3\).*\(2, 3\).*or be 0"):
        x[xp.asarray(np.zeros((1, 3), bool))]


# -- invalid keys ------------------------------------------------------------------------------------


def _invalid_keys():
    """(key, pattern the IndexError message must match) for a (2, 3, 4) array x."""
    return [
        (1.5, "got float 1.5"),
        (np.float32(1), "float32"),
        ((0, 1.0), "got float 1.0"),
        (slice(1.5, None), r"got float 1.5 in slice\(1.5"),
        (slice(None, "a"), "got str 'a'"),
        ("a", "got str 'a'"),
        ((0, (1, 2)), r"got tuple \(1, 2\)"),
        ([1.5, 0], r"float 1.5 in \[1.5, 0\]"),
        ([0, None], "NoneType"),
        ([[0, 1], [2]], "rectangular"),
        ((0, 0, 0, 0), "too many indices.*4.*3"),
        ((..., 0, 0, 0, 0), "too many indices"),
        ((0, ..., 1, ...), "single ellipsis"),
        ((..., ...), "single ellipsis"),
        (2, "index 2 is out of bounds for axis 0 with size 2"),
        (-3, "index -3 is out of bounds for axis 0 with size 2"),
        ((slice(None), 3), "index 3 is out of bounds for axis 1 with size 3"),
        ((..., -5), "index -5 is out of bounds for axis 2 with size 4"),
        ((0, xp.asarray(np.int32(7))), "index 7 is out of bounds for axis 1"),
        ([0, 2], "index 2 is out of bounds for axis 0 with size 2"),
        ((0, [-4, 1]), "index -4 is out of bounds for axis 1 with size 3"),
        ((xp.asarray([0]), [0, 5]), "index 5 is out of bounds for axis 1"),
        ((xp.asarray([0]), 5), "index 5 is out of bounds for axis 1 with size 3"),
        (xp.asarray([1.0]), r"float32 array of shape \(1,\)"),
        ((0, xp.asarray([[1.0]])), "float32"),
        (xp.asarray(np.ones((2, 4), dtype=bool)), r"boolean index of shape \(2, 4\).*\(2, 3\)"),
        (xp.asarray(np.ones((2, 3, 4, 1), dtype=bool)), "too many indices"),
        ((xp.asarray([True, False]), 0), "boolean"),
        ((None, xp.asarray([True, False])), "boolean"),
        ((xp.asarray([0, 1]), slice(None), xp.asarray([0])), "must be adjacent"),
        ((slice(1, None), xp.asarray([0, 1])), "integer array"),
        ((xp.asarray([0, 1]), None), "integer array"),
        ((xp.asarray([0, 1]), slice(1, None)), "integer array"),
    ]


def test_invalid_keys_raise_index_error():
    x = xp.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    for key, pattern in _invalid_keys():
        with pytest.raises(IndexError, match=pattern):
            x[key]
        with pytest.raises(IndexError, match=pattern):
            x[key] = 0


def test_other_invalid_keys():
    x = xp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    with pytest.raises(ValueError, match="zero"):
        x[::0]
    with pytest.raises(ValueError, match="broadcast"):
        x[xp.asarray([0, 1]), xp.asarray([0, 1, 2])]


def test_errors_leak_no_device_memory():
    x = xp.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    cases = _invalid_keys()
    bad_values = [
        (0, 1.5), (0, xp.asarray(np.ones((3, 4), np.float32))),
        (0, xp.asarray(np.ones((5,), np.int32))), ([0, 1], xp.asarray(np.ones((3,), np.int32))),
        (xp.asarray(np.ones((2, 3), dtype=bool)), xp.asarray(np.ones(6, np.uint32))),
        (slice(None), 2 ** 40),
    ]

    def run():
        for key, _ in cases:
            with pytest.raises(IndexError):
                x[key]
            with pytest.raises(IndexError):
                x[key] = 1
        for key, v in bad_values:
            with pytest.raises((TypeError, ValueError, OverflowError)):
                x[key] = v

    run()  # compiles kernels and fills the pool's size classes
    gc.collect()
    baseline = xp.memory.stats()["used_bytes"]
    for _ in range(3):
        run()
    gc.collect()
    assert xp.memory.stats()["used_bytes"] == baseline
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert_equal(x, a)  # nothing was written, and the device still works
    x[1, [0, 2]] = -1
    a[1, [0, 2]] = -1
    assert_equal(x[::-1] * 2, a[::-1] * 2)
