"""The 16 creation functions of the standard, against NumPy, on random inputs."""

from __future__ import annotations

import array
import math

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

import webarray as xp
from webarray._core.device import Device
from helpers import (ALL_NAMES, DTYPES, INT_NAMES, SUPPORTED_NAMES, UNSUPPORTED_NAMES, arrays,
                     assert_equal, elements, shapes, views)

DEVICE = xp.__array_namespace_info__().default_device()
UNSUPPORTED = UNSUPPORTED_NAMES
HAS_COMPLEX64 = "complex64" in SUPPORTED_NAMES
BAD_DEVICES = ["cpu", "native", "gpu", 0, object()]


def D(name):
    return getattr(xp, name)


def f32_spacing(v: float) -> float:
    """The gap between float32 values at magnitude v (finite even at float32's maximum)."""
    if v == 0:
        return 2.0 ** -149
    return max(2.0 ** (math.frexp(abs(v))[1] - 24), 2.0 ** -149)


# -- shape, dtype and device arguments ------------------------------------------------------------

shape_args = st.one_of(
    st.integers(0, 6),
    shapes(max_dims=4, max_side=5),
    shapes(max_dims=3, max_side=4).map(lambda s: tuple(np.int64(n) for n in s)),
)


def _norm(shape):
    return (int(shape),) if not isinstance(shape, tuple) else tuple(int(n) for n in shape)


@given(shape_args, st.sampled_from(ALL_NAMES + [None]))
def test_zeros_ones_empty(shape, name):
    dtype = None if name is None else D(name)
    npd = np.float32 if name is None else DTYPES[name]
    assert_equal(xp.zeros(shape, dtype=dtype), np.zeros(_norm(shape), dtype=npd))
    assert_equal(xp.ones(shape, dtype=dtype, device=DEVICE), np.ones(_norm(shape), dtype=npd))
    e = xp.empty(shape, dtype=dtype)
    assert e.shape == _norm(shape) and e.dtype is (dtype or xp.float32)


@pytest.mark.parametrize("make", [
    lambda s: xp.zeros(s), lambda s: xp.ones(s), lambda s: xp.empty(s),
    lambda s: xp.full(s, 1.0),
])
def test_shape_argument_errors(make):
    for bad in (-1, (2, -1), (-3,)):
        with pytest.raises(ValueError):
            make(bad)
    for bad in (2.0, (2.0, 3), "3", None, (2, None), True, (True, 2), 1j):
        with pytest.raises(TypeError):
            make(bad)


@pytest.mark.parametrize("make", [
    lambda **kw: xp.zeros(2, **kw), lambda **kw: xp.ones(2, **kw), lambda **kw: xp.empty(2, **kw),
    lambda **kw: xp.full(2, 3, **kw), lambda **kw: xp.arange(3, **kw),
    lambda **kw: xp.linspace(0, 1, 3, **kw), lambda **kw: xp.eye(2, **kw),
    lambda **kw: xp.asarray([1, 2], **kw),
    lambda **kw: xp.zeros_like(xp.ones(2), **kw), lambda **kw: xp.ones_like(xp.ones(2), **kw),
    lambda **kw: xp.empty_like(xp.ones(2), **kw), lambda **kw: xp.full_like(xp.ones(2), 2, **kw),
])
def test_device_argument(make):
    for dev in (None, DEVICE, *xp.__array_namespace_info__().devices()):
        assert make(device=dev).device == DEVICE
    for bad in BAD_DEVICES:
        with pytest.raises(ValueError):
            make(device=bad)


@pytest.mark.parametrize("make", [
    lambda d: xp.zeros(2, dtype=d), lambda d: xp.ones(2, dtype=d), lambda d: xp.empty(2, dtype=d),
    lambda d: xp.full(2, 1, dtype=d), lambda d: xp.eye(2, dtype=d),
    lambda d: xp.asarray([1, 0], dtype=d), lambda d: xp.zeros_like(xp.ones(2), dtype=d),
    lambda d: xp.ones_like(xp.ones(2), dtype=d), lambda d: xp.empty_like(xp.ones(2), dtype=d),
    lambda d: xp.full_like(xp.ones(2), 1, dtype=d),
])
def test_dtype_argument_errors(make):
    for name in UNSUPPORTED:
        with pytest.raises(TypeError, match="not supported on"):
            make(D(name))
    for bad in ("float32", np.float32, np.dtype("int8"), float, 1):
        with pytest.raises(TypeError):
            make(bad)


# -- full and the _like functions ----------------------------------------------------------------

@given(shape_args, st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), elements(n))))
def test_full_like_numpy(shape, case):
    name, value = case
    value = value.item() if isinstance(value, np.generic) else value
    assert_equal(xp.full(shape, value, dtype=D(name)), np.full(_norm(shape), value, dtype=DTYPES[name]))


@given(st.one_of(st.booleans(), st.integers(-(2**31), 2**31 - 1),
                 st.floats(width=32)))
def test_full_infers_dtype(value):
    want = {bool: np.bool_, int: np.int32, float: np.float32}[type(value)]
    assert_equal(xp.full((2, 3), value), np.full((2, 3), value, dtype=want))


def test_full_and_full_like_take_a_zero_dimensional_array():
    # as NumPy and CuPy do (SciPy's continued fractions pass one)
    x = xp.ones((2, 3))
    assert_equal(xp.full_like(x, xp.asarray(2.5)), np.full((2, 3), 2.5, np.float32))
    assert_equal(xp.full_like(xp.ones(2, dtype=xp.int32), xp.asarray(7)), np.full(2, 7, np.int32))
    assert_equal(xp.full((2,), xp.asarray(-1.5)), np.full(2, -1.5, np.float32))
    with pytest.raises(TypeError, match="zero-dimensional"):
        xp.full_like(x, xp.ones(3))
    with pytest.raises(TypeError):
        xp.full_like(xp.ones(2, dtype=xp.int32), xp.asarray(2.5))


def test_full_errors():
    for value in (2**31, -(2**31) - 1, 2**70):
        with pytest.raises(OverflowError):
            xp.full(2, value)
    for name in INT_NAMES:
        info = np.iinfo(name)
        for value in (int(info.max) + 1, int(info.min) - 1):
            with pytest.raises(OverflowError):
                xp.full(2, value, dtype=D(name))
            with pytest.raises(OverflowError):
                xp.full_like(xp.ones(2, dtype=D(name)), value)
    if HAS_COMPLEX64:  # the default complex dtype
        assert_equal(xp.full(2, 1j), np.full(2, 1j, np.complex64))
    else:
        with pytest.raises(TypeError, match="not supported on"):
            xp.full(2, 1j)
    for value in ("1", None, [1], b"1"):
        with pytest.raises(TypeError):
            xp.full(2, value)
        with pytest.raises(TypeError):
            xp.full(2, value, dtype=xp.float32)
    for value in (1.5, float("nan"), float("inf"), 1j):
        with pytest.raises(TypeError):
            xp.full(2, value, dtype=xp.int32)


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: views(n)), st.sampled_from(ALL_NAMES + [None]),
       st.data())
def test_like_functions(case, name, data):
    a, x = case
    target = a.dtype if name is None else np.dtype(DTYPES[name])
    dtype = None if name is None else D(name)
    assert_equal(xp.zeros_like(x, dtype=dtype), np.zeros_like(a, dtype=target))
    assert_equal(xp.ones_like(x, dtype=dtype), np.ones_like(a, dtype=target))
    e = xp.empty_like(x, dtype=dtype)
    assert e.shape == a.shape and e.dtype is (dtype or x.dtype) and e._buf is not x._buf
    value = data.draw(elements(target.name))
    value = value.item() if isinstance(value, np.generic) else value
    assert_equal(xp.full_like(x, value, dtype=dtype), np.full_like(a, value, dtype=target))


def test_like_errors():
    for make in (xp.zeros_like, xp.ones_like, xp.empty_like, lambda a: xp.full_like(a, 1)):
        for bad in ([1, 2], np.ones(2, dtype=np.float32), 3, None):
            with pytest.raises(TypeError):
                make(bad)


# -- arange --------------------------------------------------------------------------------------

def _np_arange_len(start, stop, step):
    return len(np.arange(start, stop, step))


@given(st.integers(-1000, 1000), st.one_of(st.none(), st.integers(-1000, 1000)),
       st.integers(-60, 60).filter(bool))
def test_arange_int(start, stop, step):
    if stop is None:
        got, want = xp.arange(start), np.arange(start, dtype=np.int32)
    else:
        got = xp.arange(start, stop, step)
        want = np.arange(start, stop, step, dtype=np.int32)
        n = math.ceil((stop - start) / step) if (stop - start) * step > 0 else 0
        assert want.shape == (n,)
    assert_equal(got, want)


@given(st.sampled_from(INT_NAMES), st.data())
def test_arange_int_dtypes_near_limits(name, data):
    info = np.iinfo(name)
    lo, hi = int(info.min), int(info.max)
    start = data.draw(st.integers(lo, hi), label="start")
    step = data.draw(st.integers(-(hi - lo), hi - lo).filter(bool), label="step")
    last_max = (hi - start) // step if step > 0 else (start - lo) // -step
    n = data.draw(st.integers(0, min(last_max + 1, 30)), label="n")
    stop = start + n * step - data.draw(st.integers(0, abs(step) - 1)) * (1 if step > 0 else -1)
    want = np.arange(start, stop, step, dtype=np.int64)
    assert len(want) == n
    assert_equal(xp.arange(start, stop, step, dtype=D(name)), want.astype(name))


@given(st.one_of(st.integers(-500, 500), st.floats(-500, 500)),
       st.one_of(st.integers(-500, 500), st.floats(-500, 500)),
       st.one_of(st.floats(0.01, 50), st.floats(-50, -0.01), st.integers(1, 50)))
def test_arange_float(start, stop, step):
    assume(isinstance(start, float) or isinstance(stop, float) or isinstance(step, float))
    ref = np.arange(start, stop, step, dtype=np.float64)
    assert ref.shape == (max(0, math.ceil((stop - start) / step)),)
    tol = 4 * f32_spacing(max(abs(start), abs(stop), abs(step)))
    got = xp.arange(start, stop, step)
    assert_equal(got, ref.astype(np.float32), atol=tol)
    if len(ref):
        assert float(got[0]) == float(np.float32(start))


@given(st.integers(-100, 100), st.integers(-100, 100), st.integers(1, 20), st.booleans())
def test_arange_float_dtype_with_int_args(start, stop, step, neg):
    step = -step if neg else step
    assert_equal(xp.arange(start, stop, step, dtype=xp.float32),
                 np.arange(start, stop, step, dtype=np.float32))


@given(st.integers(-100, 100), st.integers(-100, 100), st.sampled_from([1, 3, -2, 0.5, -0.25]),
       st.sampled_from(["complex64", "complex128"]))
def test_arange_of_a_complex_dtype_is_the_real_ramp_as_in_numpy(start, stop, step, name):
    # NumPy and array_api_strict take a complex dtype (SciPy's convolve tests use one)
    got = xp.arange(start, stop, step, dtype=D(name))
    assert got.dtype == D(name)
    assert_equal(got, np.arange(start, stop, step, dtype=name))


def test_range_bounds_may_be_0d_arrays_as_in_numpy():
    # NumPy and array_api_strict take 0-D arrays as arange's and linspace's bounds (SciPy
    # passes them: signal.freqs, stats.cramervonmises); their values are read back, and their
    # dtype and device are the result's unless given
    # (arange's result is of the default int or float by the values, as NumPy's)
    i16, f32 = xp.asarray(4, dtype=xp.int16), xp.asarray(0.5, dtype=xp.float32)
    default_int = xp.__array_namespace_info__().default_dtypes()["integral"]
    assert xp.arange(i16).dtype == default_int
    assert np.asarray(xp.arange(i16)).tolist() == [0, 1, 2, 3]
    assert np.asarray(xp.arange(1, i16)).tolist() == [1, 2, 3]
    assert_equal(xp.arange(f32, 3.0), np.arange(0.5, 3.0, dtype=np.float32))
    assert np.asarray(xp.arange(i16, 0.5, -1.0)).tolist() == [4.0, 3.0, 2.0, 1.0]
    assert np.asarray(xp.arange(0, 10, xp.asarray(3))).tolist() == [0, 3, 6, 9]
    assert_equal(xp.linspace(xp.asarray(0.0), xp.asarray(1.0), 5), np.linspace(0, 1, 5, dtype=np.float32))
    z = xp.linspace(xp.asarray(1 + 1j, dtype=xp.complex64), 0, 3)
    assert z.dtype == xp.complex64
    assert_equal(z, np.linspace(1 + 1j, 0, 3).astype(np.complex64))
    assert xp.linspace(f32, 2, 3, dtype=xp.float32).dtype == xp.float32
    for bad in [xp.asarray([1, 2]), xp.asarray(True), xp.asarray(1j, dtype=xp.complex64)]:
        with pytest.raises(TypeError, match="0-D array"):
            xp.arange(bad)
    for bad in [xp.asarray([0.0, 1.0]), xp.asarray(False)]:
        with pytest.raises(TypeError, match="linspace: start must be a number or a 0-D array"):
            xp.linspace(bad, 1.0, 3)


def test_arange_empty_and_errors():
    for args in [(0,), (-5,), (5, 5), (5, 3), (3, 5, -1), (0.0, -1.0), (1.0, 2.0, -0.5)]:
        x = xp.arange(*args)
        assert x.shape == (0,) and len(np.arange(*args)) == 0
    with pytest.raises(ValueError):
        xp.arange(0, 5, 0)
    with pytest.raises(ValueError):
        xp.arange(0.0, 5.0, 0.0)
    for args in [(math.inf,), (0, math.nan), (0.0, 1.0, math.inf), (-math.inf, 0.0)]:
        with pytest.raises(ValueError):
            xp.arange(*args)
    for bad in [(True,), (0, True), (1j,), ("3",), (None,), (0, 3, None), (np.zeros(3),)]:
        with pytest.raises(TypeError):
            xp.arange(*bad)
    with pytest.raises(TypeError):
        xp.arange(3, dtype=xp.bool)
    with pytest.raises(TypeError):
        xp.arange(0.5, 3, dtype=xp.int32)
    with pytest.raises(OverflowError):
        xp.arange(2**31, 2**31 + 2)
    with pytest.raises(OverflowError):
        xp.arange(250, 260, dtype=xp.uint8)
    with pytest.raises(OverflowError):
        xp.arange(-1, 2, dtype=xp.uint16)
    for name in UNSUPPORTED:
        if D(name).kind in "iuf":
            with pytest.raises(TypeError, match="not supported on"):
                xp.arange(3, dtype=D(name))


# -- asarray -----------------------------------------------------------------------------------------

@given(st.one_of(st.booleans(), st.integers(-(2**31), 2**31 - 1), st.floats(width=32)))
def test_asarray_python_scalars(value):
    want = {bool: np.bool_, int: np.int32, float: np.float32}[type(value)]
    assert_equal(xp.asarray(value), np.asarray(value, dtype=want))


def test_asarray_scalar_errors():
    for value in (2**31, -(2**31) - 1, [1, 2**40], [[0], [-(2**63)]]):
        with pytest.raises(OverflowError):
            xp.asarray(value)
    with pytest.raises(OverflowError):
        xp.asarray(300, dtype=xp.uint8)
    with pytest.raises(OverflowError):
        xp.asarray([-1], dtype=xp.uint32)
    if HAS_COMPLEX64:
        assert_equal(xp.asarray(1j), np.asarray(1j, np.complex64))
        assert_equal(xp.asarray([1.0, 2j]), np.asarray([1.0, 2j], np.complex64))
    else:
        with pytest.raises(TypeError, match="not supported on"):
            xp.asarray(1j)
        with pytest.raises(TypeError, match="not supported on"):
            xp.asarray([1.0, 2j])
    for bad in ("abc", None, [1, None], [[1], ["a"]], {1: 2}, {1, 2}, object()):
        with pytest.raises(TypeError):
            xp.asarray(bad)
    for bad in (1.5, [1, 2.5]):
        with pytest.raises(TypeError):
            xp.asarray(bad, dtype=xp.int32)


_kinds = {
    "bool": st.booleans(),
    "int": st.one_of(st.booleans(), st.integers(-(2**31), 2**31 - 1)),
    "float": st.one_of(st.booleans(), st.integers(-(2**24), 2**24),
                       st.floats(width=32)),
}


@given(st.sampled_from(list(_kinds)), shapes(min_dims=1, max_dims=3, max_side=4), st.data())
def test_asarray_nested_lists(kind, shape, data):
    flat = data.draw(st.lists(_kinds[kind], min_size=math.prod(shape), max_size=math.prod(shape)))
    if kind == "float":
        assume(any(isinstance(v, float) for v in flat) or not flat)
    elif kind == "int":
        assume(any(not isinstance(v, bool) for v in flat) or not flat)
    want_dtype = {"bool": np.bool_, "int": np.int32, "float": np.float32}[kind]
    if not flat:
        want_dtype = np.float32  # no values: the default floating dtype, as NumPy
    ref = np.array(flat, dtype=object).reshape(shape)
    nested = ref.tolist()
    as_tuples = data.draw(st.booleans())
    if as_tuples:
        nested = _tuplify(nested)
    # a nested list cannot hold a shape like (0, 2): NumPy reads the list's own shape
    assert_equal(xp.asarray(nested), np.array(ref.tolist(), dtype=want_dtype))


def _tuplify(v):
    return tuple(_tuplify(e) for e in v) if isinstance(v, list) else v


@given(st.sampled_from(ALL_NAMES), shapes(min_dims=0, max_dims=3, max_side=4), st.data())
def test_asarray_lists_with_dtype(name, shape, data):
    a = data.draw(arrays(name, shape, edges=False))
    values = a.tolist()
    assert_equal(xp.asarray(values, dtype=D(name)), np.array(values, dtype=DTYPES[name]))


def test_asarray_lists_of_numpy_scalars():
    # NumPy's float32, int8, bool_ are no Python scalars; their values are taken exactly
    got = xp.asarray([2, 2, 2 + np.spacing(2, dtype=np.float32)], dtype=xp.float32)
    assert_equal(got, np.array([2, 2, 2 + np.spacing(2, dtype=np.float32)], np.float32))
    assert_equal(xp.asarray([[np.int8(-3)], [np.uint16(7)]]), np.array([[-3], [7]], np.int32))
    assert_equal(xp.asarray([np.bool_(True), np.bool_(False)]), np.array([True, False]))
    with pytest.raises(TypeError, match="cannot make an array from datetime64"):
        xp.asarray([np.datetime64("2020-01-01")])


def test_asarray_whole_python_floats_make_integer_arrays():
    # NumPy and array_api_strict convert them (SciPy writes expected ranks so); a float
    # that is not a whole number would be rounded, so it is refused, naming it
    for name in INT_NAMES:
        got = xp.asarray([[1.0, 3], [-0.0, 2.0]] if name.startswith("int") else [[1.0, 3], [0.0, 2.0]],
                         dtype=D(name))
        assert got.dtype == D(name)
        np.testing.assert_array_equal(np.asarray(got), np.array([[1, 3], [0, 2]], dtype=name))
    for bad in (1.5, float("nan"), float("inf")):
        with pytest.raises(TypeError, match=f"not whole numbers \\(got {bad!r}\\)"):
            xp.asarray([1.0, bad], dtype=xp.int32)
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        xp.asarray([256.0], dtype=xp.uint8)


def test_asarray_empty_and_ragged():
    assert_equal(xp.asarray([]), np.zeros((0,), dtype=np.float32))
    assert_equal(xp.asarray([[], []]), np.zeros((2, 0), dtype=np.float32))
    assert_equal(xp.asarray([[[]]]), np.zeros((1, 1, 0), dtype=np.float32))
    assert_equal(xp.asarray((), dtype=xp.int8), np.zeros((0,), dtype=np.int8))
    assert_equal(xp.asarray([[], []], dtype=xp.bool), np.zeros((2, 0), dtype=bool))
    for ragged in ([[1, 2], [3]], [1, [2]], [[1], 2], [[[1]], [2]], [[], [1]], [[1, 2], []]):
        with pytest.raises(ValueError):
            xp.asarray(ragged)


@given(st.sampled_from(ALL_NAMES).flatmap(
    lambda n: st.tuples(arrays(n, shapes(max_dims=3)), st.sampled_from(["plain", "rev", "T", "step"]))))
def test_asarray_numpy(case):
    a, layout = case
    if layout == "rev" and a.ndim:
        a = a[::-1]
    elif layout == "T":
        a = a.T
    elif layout == "step" and a.ndim:
        a = a[::2]
    x = xp.asarray(a)
    assert_equal(x, a)
    assert_equal(xp.asarray(a, copy=True), a)
    if a.ndim == 0:
        assert_equal(xp.asarray(a[()]), a)  # a NumPy scalar


@given(st.sampled_from(ALL_NAMES), st.sampled_from(ALL_NAMES), st.data())
def test_asarray_numpy_with_dtype(src, dst, data):
    if src == "float32" and dst in INT_NAMES:
        info = np.iinfo(dst)
        elems = st.integers(int(info.min), int(info.max)).map(float).filter(
            lambda v: float(np.float32(v)) == v)
    elif dst == "bool" or src == "bool":
        elems = None
    elif src in INT_NAMES and dst in INT_NAMES:
        info = np.iinfo(dst)
        lo = max(int(info.min), int(np.iinfo(src).min))
        hi = min(int(info.max), int(np.iinfo(src).max))
        elems = st.integers(lo, hi)
    else:
        elems = None
    a = data.draw(arrays(src, shapes(max_dims=2), edges=False, elements_strategy=elems))
    assert_equal(xp.asarray(a, dtype=D(dst)), a.astype(DTYPES[dst]))


def test_asarray_numpy_float64_and_complex128_scalars():
    # they subclass Python's float and complex, but keep their NumPy dtype like 0-d arrays
    for v in (np.float64(0.5), np.complex128(1 + 2j)):
        if np.dtype(type(v)).name not in SUPPORTED_NAMES:
            with pytest.raises(TypeError, match=f"{np.dtype(type(v)).name} is not supported on"):
                xp.asarray(v)
    assert_equal(xp.asarray(np.float64(0.5), dtype=xp.float32), np.asarray(0.5, np.float32))
    # inside a list they are Python floats and complexes
    assert_equal(xp.asarray([np.float64(1.5)]), np.asarray([1.5], np.float32))
    if HAS_COMPLEX64:
        assert_equal(xp.asarray([np.complex128(1 + 1j), 2]), np.asarray([1 + 1j, 2], np.complex64))


def test_asarray_of_an_array_to_an_unsupported_dtype_raises_at_once():
    x = xp.asarray([3.0, 1.0, 2.0])
    for name in UNSUPPORTED:
        with pytest.raises(TypeError, match=f"{name} is not supported on"):
            xp.asarray(x, dtype=D(name))
    # nothing was left pending that a later computation would trip over
    assert_equal(xp.sum(xp.sin(x)), np.sum(np.sin(np.asarray([3.0, 1.0, 2.0], np.float32))))


def test_asarray_numpy_unsupported():
    for npd in UNSUPPORTED:
        if npd != "bool":
            with pytest.raises(TypeError, match="not supported on"):
                xp.asarray(np.ones(3, dtype=npd))
    with pytest.raises(TypeError):
        xp.asarray(np.ones(3, dtype=np.float16))
    with pytest.raises(TypeError):
        xp.asarray(np.array(["a"]))
    a = np.array([1.5, -2.25, 1e30, 1e300], dtype=np.float64)
    with np.errstate(over="ignore"):
        assert_equal(xp.asarray(a, dtype=xp.float32), a.astype(np.float32))
    assert_equal(xp.asarray(np.arange(5, dtype=np.int64), dtype=xp.int32), np.arange(5, dtype=np.int32))
    with pytest.raises(TypeError):
        xp.asarray(np.array([1 + 1j]), dtype=xp.float32)


@pytest.mark.parametrize("code,name", [
    ("b", "int8"), ("B", "uint8"), ("h", "int16"), ("H", "uint16"), ("i", "int32"),
    ("I", "uint32"), ("f", "float32"),
])
def test_asarray_buffer_protocol(code, name):
    info = np.iinfo(name) if name != "float32" else None
    vals = [0, 1, 7] + ([int(info.min), int(info.max)] if info else [-1.5, 3.25e30])
    buf = array.array(code, vals)
    assert_equal(xp.asarray(buf), np.array(vals, dtype=name))
    assert_equal(xp.asarray(memoryview(buf)), np.array(vals, dtype=name))
    with pytest.raises(ValueError):
        xp.asarray(buf, copy=False)


def test_asarray_bytes_like():
    assert_equal(xp.asarray(b"\x00\x7f\xff"), np.array([0, 127, 255], dtype=np.uint8))
    assert_equal(xp.asarray(bytearray(b"ab")), np.array([97, 98], dtype=np.uint8))
    m = memoryview(np.arange(6, dtype=np.int16).reshape(2, 3))
    assert_equal(xp.asarray(m), np.arange(6, dtype=np.int16).reshape(2, 3))
    for code, name in (("d", "float64"), ("q", "int64"), ("Q", "uint64")):
        if name in SUPPORTED_NAMES:
            assert_equal(xp.asarray(array.array(code, [1, 2])), np.array([1, 2], dtype=name))
        else:
            with pytest.raises(TypeError, match="not supported on"):
                xp.asarray(array.array(code, [1, 2]))


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: views(n)))
def test_asarray_of_an_array_copy_semantics(case):
    a, x = case
    assert xp.asarray(x) is x
    assert xp.asarray(x, copy=None) is x
    same = xp.asarray(x, copy=False)
    assert same._buf is x._buf  # shares memory
    assert xp.asarray(x, dtype=x.dtype, copy=False)._buf is x._buf
    y = xp.asarray(x, copy=True)
    assert y._buf is not x._buf
    assert_equal(y, a)
    other = "int16" if x.dtype is not xp.int16 else "uint8"
    with pytest.raises(ValueError):
        xp.asarray(x, dtype=D(other), copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        conv = xp.asarray(x, dtype=D(other))
        assert conv.dtype is D(other) and conv.shape == x.shape


def test_asarray_copy_false_needs_a_copy():
    for obj in ([1, 2], 3, np.ones(2, dtype=np.float32), array.array("f", [1.0])):
        with pytest.raises(ValueError):
            xp.asarray(obj, copy=False)


def test_asarray_copy_is_independent():
    x = xp.asarray([1, 2, 3])
    y = xp.asarray(x, copy=True)
    y[0] = 10
    assert_equal(x, np.array([1, 2, 3], dtype=np.int32))
    z = xp.asarray(x, copy=False)
    z[1] = 20
    assert_equal(x, np.array([1, 20, 3], dtype=np.int32))


# -- eye, tril, triu -------------------------------------------------------------------------------

ks = st.one_of(st.integers(-9, 9), st.sampled_from([2**31, -(2**31) - 1, 2**32, -(2**32), 2**63]))


@given(st.integers(0, 8), st.one_of(st.none(), st.integers(0, 8)), ks,
       st.sampled_from(ALL_NAMES + [None]))
def test_eye(n, m, k, name):
    npd = np.float32 if name is None else DTYPES[name]
    want = np.eye(n, m, k=k, dtype=npd) if abs(k) < 100 else np.zeros((n, n if m is None else m), npd)
    assert_equal(xp.eye(n, m, k=k, dtype=None if name is None else D(name)), want)


def test_eye_errors():
    with pytest.raises(ValueError):
        xp.eye(-1)
    with pytest.raises(ValueError):
        xp.eye(2, -1)
    for bad in [(2.0,), (2, 2.0), ("2",), (None,)]:
        with pytest.raises(TypeError):
            xp.eye(*bad)
    with pytest.raises(TypeError):
        xp.eye(2, k=1.0)


@given(st.sampled_from(ALL_NAMES), shapes(min_dims=2, max_dims=4, max_side=5), ks, st.data())
def test_tril_triu(name, shape, k, data):
    a, x = data.draw(views(name, shape))
    kk = max(-100, min(k, 100))
    assert_equal(xp.tril(x, k=k), np.tril(a, k=kk))
    assert_equal(xp.triu(x, k=k), np.triu(a, k=kk))
    if k == 0:
        assert_equal(xp.tril(x), np.tril(a))
        assert_equal(xp.triu(x), np.triu(a))


def test_tril_triu_errors():
    for f in (xp.tril, xp.triu):
        for bad in (xp.ones(3), xp.asarray(1.0)):
            with pytest.raises(ValueError):
                f(bad)
        with pytest.raises(TypeError):
            f(np.ones((2, 2), dtype=np.float32))
        with pytest.raises(TypeError):
            f(xp.ones((2, 2)), k=1.5)


# -- linspace ---------------------------------------------------------------------------------------

numbers = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, width=32))


@given(numbers, numbers, st.integers(0, 60), st.booleans(), st.sampled_from([None, "float32"]))
def test_linspace(start, stop, num, endpoint, name):
    dtype = None if name is None else D(name)
    got = xp.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    ref = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64)
    tol = 4 * f32_spacing(max(abs(start), abs(stop)))
    assert_equal(got, ref.astype(np.float32), atol=tol)
    if num:
        assert float(got[0]) == float(np.float32(start))
    if endpoint and num > 1:
        assert float(got[num - 1]) == float(np.float32(stop))


@given(st.one_of(st.integers(-2000, 2000), st.floats(-2000, 2000)),
       st.one_of(st.integers(-2000, 2000), st.floats(-2000, 2000)), st.integers(0, 40), st.booleans(),
       st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]))
def test_linspace_integer_dtypes_are_numpys(start, stop, num, endpoint, name):
    # the standard asks for a floating dtype but allows others; NumPy and array_api_strict
    # round the float64 ramp down (SciPy's correlate tests ask for it)
    want = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64)
    info = np.iinfo(name)
    if num and (np.floor(want).min() < info.min or np.floor(want).max() > info.max):
        with pytest.raises(OverflowError, match=f"out of bounds for {name}"):
            xp.linspace(start, stop, num, endpoint=endpoint, dtype=D(name))
        return
    got = xp.linspace(start, stop, num, endpoint=endpoint, dtype=D(name))
    assert got.dtype == D(name)
    np.testing.assert_array_equal(np.asarray(got), np.linspace(start, stop, num, endpoint=endpoint, dtype=name))


def test_linspace_refuses_bool_and_complex_bounds_with_an_integer_dtype():
    with pytest.raises(TypeError, match="floating-point or integer data type, got bool"):
        xp.linspace(0, 1, 3, dtype=xp.bool)
    with pytest.raises(TypeError, match="complex bounds need a complex dtype, got int32"):
        xp.linspace(1j, 2, 3, dtype=xp.int32)


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


F32_MAX = float(np.finfo(np.float32).max)


@given(finite32, finite32, st.integers(0, 12), st.booleans())
@example(-3e38, 3e38, 2, True)
@example(F32_MAX, -F32_MAX, 5, False)
def test_linspace_whole_float32_range(start, stop, num, endpoint):
    # stop - start and the step may lie past float32's maximum
    got = xp.linspace(start, stop, num, endpoint=endpoint)
    ref = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64)
    tol = 4 * f32_spacing(max(abs(start), abs(stop)))
    assert_equal(got, ref.astype(np.float32), atol=tol)


@given(finite32, finite32, st.integers(1, 12))
@example(-3e38, 3e38, 6)
@example(F32_MAX, -F32_MAX, 3)
def test_arange_whole_float32_range(start, stop, n):
    step = (stop - start) / n
    assume(step != 0)
    ref = np.arange(start, stop, step, dtype=np.float64)
    tol = 4 * f32_spacing(max(abs(start), abs(stop)))
    assert_equal(xp.arange(start, stop, step), ref.astype(np.float32), atol=tol)


def test_linspace_errors():
    with pytest.raises(ValueError):
        xp.linspace(0, 1, -1)
    for bad in [(0, 1, 2.0), (0, 1, None), ("0", 1, 3), (0, None, 3), (True, 1, 3)]:
        with pytest.raises(TypeError):
            xp.linspace(*bad)
    with pytest.raises(TypeError):  # (integer dtypes are NumPy's: see above)
        xp.linspace(0, 10, 5, dtype=xp.bool)
    if HAS_COMPLEX64:
        assert_equal(xp.linspace(0, 1j, 3), np.linspace(0, 1j, 3).astype(np.complex64))
    else:
        with pytest.raises(TypeError, match="not supported on"):
            xp.linspace(0, 1j, 3)
    for name in UNSUPPORTED:
        if D(name).kind in "fc":
            with pytest.raises(TypeError, match="not supported on"):
                xp.linspace(0, 1, 3, dtype=D(name))


# -- meshgrid ---------------------------------------------------------------------------------------

@given(st.sampled_from(ALL_NAMES), st.lists(st.integers(0, 4), min_size=1, max_size=3),
       st.sampled_from(["xy", "ij", None]), st.data())
def test_meshgrid(name, lengths, indexing, data):
    pairs = [data.draw(views(name, (n,))) for n in lengths]
    kw = {} if indexing is None else {"indexing": indexing}
    got = xp.meshgrid(*[x for _, x in pairs], **kw)
    want = np.meshgrid(*[a for a, _ in pairs], **kw)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert_equal(g, w)


def test_meshgrid_errors():
    assert xp.meshgrid() == ()
    a, b = xp.arange(3), xp.arange(2, dtype=xp.int8)
    with pytest.raises(TypeError):
        xp.meshgrid(a, b)
    with pytest.raises(ValueError):
        xp.meshgrid(a, xp.ones((2, 2), dtype=xp.int32))
    with pytest.raises(ValueError):
        xp.meshgrid(xp.asarray(1))
    with pytest.raises(ValueError):
        xp.meshgrid(a, indexing="xi")
    with pytest.raises(TypeError):
        xp.meshgrid(a, [1, 2])


# -- from_dlpack -------------------------------------------------------------------------------------

@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: arrays(n, shapes(max_dims=3))), st.booleans())
def test_from_dlpack_numpy(a, strided):
    if strided and a.ndim:
        a = a[::-1]
    assert_equal(xp.from_dlpack(a), a)
    assert_equal(xp.from_dlpack(a, copy=True, device=DEVICE), a)


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: views(n)))
def test_from_dlpack_webarray(case):
    a, x = case
    assert_equal(xp.from_dlpack(x), a)
    assert xp.from_dlpack(x, copy=False)._buf is x._buf
    y = xp.from_dlpack(x, copy=True)
    assert y._buf is not x._buf
    assert_equal(y, a)


def test_from_dlpack_errors():
    for bad in (3, [1, 2], "x", None):
        with pytest.raises(AttributeError):
            xp.from_dlpack(bad)
    with pytest.raises(BufferError):
        xp.from_dlpack(np.ones(2, dtype=np.float32), copy=False)
    off = Device(xp.__array_namespace_info__().default_device().executor, float64=False)
    with pytest.raises(TypeError, match="float64 is not supported on"):
        xp.from_dlpack(np.ones(2), device=off)
    with pytest.raises(ValueError):
        xp.from_dlpack(xp.ones(2), device="cpu")
