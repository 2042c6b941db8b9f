"""The array object: attributes, operators (normal, reflected, in-place), conversions,
interchange (__array__, DLPack), repr, len/iter, hashing, and recovery after errors.

Operators are compared with NumPy on random values drawn by hypothesis, on plain and
non-contiguous views, with broadcasting and Python scalar operands.
"""

from __future__ import annotations

import ctypes
import gc
import math
import operator
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import (ALL_NAMES, DTYPES, INT_NAMES, NUMERIC_NAMES, SUPPORTED_NAMES, arrays,
                     assert_equal, shapes, views)

# -- operator table ----------------------------------------------------------------------------
# name: (operator function, in-place function, dtype names allowed)

_INT_BOOL = ["bool"] + INT_NAMES
BINARY = {
    "add": (operator.add, operator.iadd, NUMERIC_NAMES),
    "sub": (operator.sub, operator.isub, NUMERIC_NAMES),
    "mul": (operator.mul, operator.imul, NUMERIC_NAMES),
    "truediv": (operator.truediv, operator.itruediv, ["float32"]),
    "floordiv": (operator.floordiv, operator.ifloordiv, NUMERIC_NAMES),
    "mod": (operator.mod, operator.imod, NUMERIC_NAMES),
    "pow": (operator.pow, operator.ipow, NUMERIC_NAMES),
    "and": (operator.and_, operator.iand, _INT_BOOL),
    "or": (operator.or_, operator.ior, _INT_BOOL),
    "xor": (operator.xor, operator.ixor, _INT_BOOL),
    "lshift": (operator.lshift, operator.ilshift, INT_NAMES),
    "rshift": (operator.rshift, operator.irshift, INT_NAMES),
    "eq": (operator.eq, None, ALL_NAMES),
    "ne": (operator.ne, None, ALL_NAMES),
    "lt": (operator.lt, None, NUMERIC_NAMES),
    "le": (operator.le, None, NUMERIC_NAMES),
    "gt": (operator.gt, None, NUMERIC_NAMES),
    "ge": (operator.ge, None, NUMERIC_NAMES),
}
INPLACE = [k for k, v in BINARY.items() if v[1] is not None]
UNARY = {
    "neg": (operator.neg, NUMERIC_NAMES),
    "pos": (operator.pos, NUMERIC_NAMES),
    "abs": (operator.abs, NUMERIC_NAMES),
    "invert": (operator.invert, _INT_BOOL),
}
# Float results that may differ from NumPy's correctly rounded ones on a GPU (the standard
# leaves accuracy to the implementation): WGSL's division is within 2.5 ulps, and pow is
# exp2(y * log2(|x|)) in float32, whose relative error grows with |y * log2(|x|)|.
TOLERANCE = {"truediv": {"ulps": 2}, "pow": {"rtol": 2e-5}}


def _kind(name: str) -> str:
    return np.dtype(DTYPES[name]).kind


def _result_name(n1: str, n2: str) -> str | None:
    """The promoted dtype name, or None when the standard defines no promotion or the
    result is not one of the dtypes these tests draw (uint32 with a signed integer gives
    int64, which tests/test_wide_dtypes.py covers)."""
    k1, k2 = _kind(n1), _kind(n2)
    same = (k1 == k2) or ({k1, k2} <= {"i", "u"})
    if not same:
        return None
    r = np.result_type(DTYPES[n1], DTYPES[n2]).name
    return r if r in DTYPES else None


def _same_kind_partner(data, name: str, allowed, *, into: bool = False) -> str:
    """A dtype that promotes with ``name`` to a supported dtype (to ``name`` itself when
    ``into``: the other operand of an in-place operator)."""
    cands = [m for m in allowed if _result_name(name, m) is not None
             and (not into or _result_name(name, m) == name)]
    return data.draw(st.sampled_from(cands), label="other dtype")


@st.composite
def broadcastable(draw, shape):
    """A shape that broadcasts to ``shape``: leading axes dropped, some sizes set to 1."""
    drop = draw(st.integers(0, len(shape)))
    out = [1 if draw(st.booleans()) else n for n in shape[drop:]]
    return tuple(out)


def _np_op(fn, a, b, got=None):
    """NumPy's fn(a, b); for float floor division, where the standard allows two results,
    the one webarray gave (``got``) if it is one of them."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = np.asarray(fn(a, b))
    if fn is operator.floordiv and out.dtype.kind == "f":
        out = _floordiv_choices(a, b, out, got)
    return out


def _floordiv_choices(a, b, out, got):
    """±infinity // finite is ±infinity or NaN (NumPy's choice), a finite // ±infinity of
    the other sign is -0 or -1 (NumPy's choice): the standard allows either of each pair."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=out.dtype), np.asarray(b, dtype=out.dtype))
    g = np.full(out.shape, 7, dtype=out.dtype) if got is None else np.asarray(got)
    out = out.copy()
    opposite = np.signbit(a) != np.signbit(b)
    inf_case = np.isinf(a) & np.isfinite(b)
    primary = np.where(opposite, -np.inf, np.inf).astype(out.dtype)
    ok = inf_case & (np.isnan(g) | (g == primary))
    out[inf_case] = np.where(ok, g, primary)[inf_case]
    neg_case = np.isfinite(a) & (a != 0) & np.isinf(b) & opposite
    ok = neg_case & ((g == -1) | ((g == 0) & np.signbit(g)))
    out[neg_case] = np.where(ok, g, np.asarray(-0.0, dtype=out.dtype))[neg_case]
    return out


def _restrict(op: str, name: str, values: np.ndarray) -> np.ndarray:
    """Right operands with values whose result the standard leaves unspecified (integer
    division by zero, negative integer powers and shifts) replaced by harmless ones."""
    if _kind(name) not in "iu":
        return values
    values = values.copy()
    if op in ("floordiv", "mod"):
        values[values == 0] = 1
    if op in ("pow", "lshift", "rshift"):
        values[values < 0] = 1
    return values


def _draw_scalar(data, op: str, name: str, is_right: bool):
    """A Python scalar that the standard allows with an array of dtype ``name``."""
    kind = _kind(name)
    if kind == "b":
        return data.draw(st.booleans(), label="scalar")
    if kind == "f":
        return data.draw(st.one_of(st.integers(-100, 100), st.floats(width=32)), label="scalar")
    info = np.iinfo(DTYPES[name])
    lo, hi = int(info.min), int(info.max)
    if is_right and op in ("floordiv", "mod"):
        return data.draw(st.integers(lo, hi).filter(lambda v: v != 0), label="scalar")
    if is_right and op in ("pow", "lshift", "rshift"):
        return data.draw(st.integers(0, hi if op != "pow" else min(hi, 40)), label="scalar")
    return data.draw(st.integers(lo, hi), label="scalar")


def _tol(op: str, name: str) -> dict:
    return TOLERANCE.get(op, {}) if _kind(name) == "f" else {}


def _check(op: str, got, expected):
    assert_equal(got, expected, **_tol(op, expected.dtype.name))


# -- attributes ----------------------------------------------------------------------------------


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_attributes(case):
    name, (a, x) = case
    assert x.dtype == getattr(xp, name)
    assert x.device == xp.__array_namespace_info__().default_device()
    assert x.ndim == a.ndim and isinstance(x.ndim, int)
    assert x.shape == a.shape and type(x.shape) is tuple
    assert all(type(n) is int for n in x.shape)
    assert x.size == a.size and type(x.size) is int
    if a.ndim == 2:
        assert_equal(x.T, a.T)
    else:
        with pytest.raises(ValueError, match=f"two-dimensional.*got {a.ndim}"):
            x.T
    if a.ndim >= 2:
        assert_equal(x.mT, np.swapaxes(a, -1, -2))
    else:
        with pytest.raises(ValueError, match=f"at least two dimensions, got {a.ndim}"):
            x.mT


def test_transposes_are_views():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    xt = x.mT
    xt[0, 1, 2] = -5
    a[0, 2, 1] = -5
    assert_equal(x, a)
    y = x[1]
    y.T[3, 0] = 99
    a[1][0, 3] = 99
    assert_equal(x, a)


def test_attributes_are_read_only():
    x = xp.asarray([1, 2])
    for attr in ("dtype", "device", "shape", "ndim", "size", "T", "mT"):
        with pytest.raises(AttributeError):
            setattr(x, attr, None)


# -- binary operators ----------------------------------------------------------------------------


@pytest.mark.parametrize("op", list(BINARY))
@given(data=st.data())
def test_binary_operator(op, data):
    fn, _, allowed = BINARY[op]
    n1 = data.draw(st.sampled_from(allowed), label="dtype")
    n2 = _same_kind_partner(data, n1, allowed)
    shape = data.draw(shapes(max_dims=3, max_side=4), label="shape")
    other = data.draw(broadcastable(shape), label="other shape")
    if data.draw(st.booleans(), label="swap"):
        shape, other = other, shape
    a, x = data.draw(views(n1, shape), label="x1")
    b, y = data.draw(views(n2, other), label="x2")
    fixed = _restrict(op, n2, b)
    if not np.array_equal(fixed, b):
        b, y = fixed, xp.asarray(fixed)
    got = fn(x, y)
    _check(op, got, _np_op(fn, a, b, got))


@pytest.mark.parametrize("op", list(BINARY))
@given(data=st.data())
def test_binary_operator_with_python_scalar(op, data):
    fn, _, allowed = BINARY[op]
    name = data.draw(st.sampled_from(allowed), label="dtype")
    a, x = data.draw(views(name, data.draw(shapes(max_dims=3, max_side=4), label="shape")), label="x")
    reflected = data.draw(st.booleans(), label="reflected")
    s = _draw_scalar(data, op, name, is_right=not reflected)
    if reflected:
        a = _restrict(op, name, a)
        x = xp.asarray(a)
        got = fn(s, x)  # runs x.__r<op>__(s)
        expected = _np_op(fn, s, a, got)
    else:
        got = fn(x, s)
        expected = _np_op(fn, a, s, got)
    _check(op, got, expected)


@pytest.mark.parametrize("op", ["add", "mul", "sub", "and", "lshift", "mod", "pow"])
def test_reflected_methods_swap_operands(op):
    fn = BINARY[op][0]
    name = "int16" if op != "and" else "bool"
    a = np.array([1, 2, 3, 5], dtype=DTYPES[name]) if name != "bool" else np.array([True, False])
    s = 3 if name != "bool" else True
    x = xp.asarray(a)
    got = getattr(x, f"__r{op}__")(s)
    assert_equal(got, _np_op(fn, s, a))


@pytest.mark.parametrize(
    "n1,n2",
    [("int8", "float32"), ("bool", "int8"), ("uint8", "bool"), ("float32", "bool"),
     ("int16", "float32"), ("int32", "float32"), ("uint32", "complex64")],
)
def test_binary_operators_between_kinds_promote_as_numpy(n1, n2):
    """The standard leaves arrays of two kinds to the library: NumPy's promotion, or
    TypeError where that needs float64 (complex128) and the device has none."""
    a = np.array([1, 0, 3], dtype=DTYPES.get(n1, n1))
    b = np.array([2, 1, 1], dtype=DTYPES.get(n2, n2))
    x, y = xp.asarray(a), xp.asarray(b)
    want = np.result_type(a, b)
    if want.name not in SUPPORTED_NAMES:
        with pytest.raises(TypeError, match=f"computes in {want.name}.*does not store"):
            x * y
        return
    assert_equal(x * y, a * b)
    assert_equal(y * x, b * a)
    if want.kind != "c":
        assert_equal(x < y, a < b)


def test_signed_with_uint32_promotes_to_int64_where_the_device_has_it():
    a = np.array([-(2**31), -1, 7], np.int32)
    b = np.array([2**32 - 1, 5, 0], np.uint32)
    x, y = xp.asarray(a), xp.asarray(b)
    if "int64" in SUPPORTED_NAMES:
        assert_equal(x + y, a.astype(np.int64) + b)
        assert_equal(y - x, b - a.astype(np.int64))
    else:
        with pytest.raises(TypeError):
            x + y
        with pytest.raises(TypeError):
            y - x


def test_binary_operator_bad_operands():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"
    with pytest.raises(TypeError, match="unsupported operand"):
        x - None
    with pytest.raises(ValueError, match="broadcast"):
        x + xp.asarray([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Python float.*int32"):
        xp.asarray([1, 2]) + 1.5
    with pytest.raises(TypeError, match="Python bool.*int32"):
        xp.asarray([1, 2]) * True
    with pytest.raises(TypeError, match="Python int.*bool"):
        xp.asarray([True]) & 1
    with pytest.raises(OverflowError, match="300.*int8"):
        xp.asarray(np.int8([1])) + 300
    with pytest.raises(TypeError, match="floating-point"):
        xp.asarray([True]) / xp.asarray([True])
    with pytest.raises(ValueError, match="non-negative"):
        xp.asarray([1, 2]) << -1


# -- unary operators -------------------------------------------------------------------------------


@pytest.mark.parametrize("op", list(UNARY))
@given(data=st.data())
def test_unary_operator(op, data):
    fn, allowed = UNARY[op]
    name = data.draw(st.sampled_from(allowed), label="dtype")
    a, x = data.draw(views(name, data.draw(shapes(max_dims=3, max_side=4), label="shape")), label="x")
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(a))
    assert_equal(fn(x), expected)


@pytest.mark.parametrize("op", ["neg", "pos", "abs"])
def test_unary_operator_rejects_bool(op):
    with pytest.raises(TypeError, match="bool"):
        UNARY[op][0](xp.asarray([True, False]))


def test_invert_rejects_float():
    with pytest.raises(TypeError, match="float32"):
        ~xp.asarray([1.0])


# -- in-place operators ----------------------------------------------------------------------------


@st.composite
def view_keys(draw, base_shape):
    """A basic index (slices with any step, possibly an integer) into base_shape."""
    key = []
    for n in base_shape:
        if n and draw(st.integers(0, 4)) == 0:
            key.append(draw(st.integers(-n, n - 1)))
            continue
        step = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
        start = draw(st.none() | st.integers(-n - 1, n + 1))
        stop = draw(st.none() | st.integers(-n - 1, n + 1))
        key.append(slice(start, stop, step))
    return tuple(key)


@pytest.mark.parametrize("op", INPLACE)
@given(data=st.data())
def test_inplace_operator_writes_through_views(op, data):
    _, ifn, allowed = BINARY[op]
    name = data.draw(st.sampled_from(allowed), label="dtype")
    base_shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), label="base")
    base = data.draw(arrays(name, base_shape), label="base values")
    key = data.draw(view_keys(base_shape), label="key")
    xb = xp.asarray(base)
    x = xb[key]
    expected_base = base.copy()
    target = expected_base[key]
    if not isinstance(target, np.ndarray) or target.ndim == 0:
        target = expected_base[key + (...,)]  # a writable 0-d view, as webarray's x is
    if data.draw(st.booleans(), label="scalar operand"):
        rhs_np = rhs = _draw_scalar(data, op, name, is_right=True)
    else:
        n2 = _same_kind_partner(data, name, allowed, into=True)
        rhs_np, rhs = data.draw(views(n2, data.draw(broadcastable(x.shape))), label="y")
        fixed = _restrict(op, n2, rhs_np)
        if not np.array_equal(fixed, rhs_np):
            rhs_np, rhs = fixed, xp.asarray(fixed)
    x_id, dtype, shape = id(x), x.dtype, x.shape
    x = ifn(x, rhs)
    target[...] = _np_op(BINARY[op][0], target, rhs_np, x)
    assert id(x) == x_id, "in-place operator returned a new array"
    assert x.dtype == dtype and x.shape == shape
    assert_equal(x, target, **_tol(op, name))
    assert_equal(xb, expected_base, **_tol(op, name))


@pytest.mark.parametrize("pattern", ["shift_right", "shift_left", "reversed", "stride2", "columns"])
@given(data=st.data())
def test_inplace_operator_with_overlap(pattern, data):
    op = data.draw(st.sampled_from(["add", "sub", "mul", "xor", "mod", "floordiv"]), label="op")
    _, ifn, allowed = BINARY[op]
    name = data.draw(st.sampled_from([n for n in allowed if n != "bool"]), label="dtype")
    if pattern == "columns":
        a = data.draw(arrays(name, (3, 5)), label="a")
        lhs, rhs = (slice(None), slice(1, None)), (slice(None), slice(None, -1))
    else:
        a = data.draw(arrays(name, data.draw(st.integers(2, 12), label="n")), label="a")
        lhs, rhs = {
            "shift_right": (slice(1, None), slice(None, -1)),
            "shift_left": (slice(None, -1), slice(1, None)),
            "reversed": (slice(None, None, -1), slice(None)),
            "stride2": (slice(None, None, 2), slice(None, (a.shape[0] + 1) // 2)),
        }[pattern]
    a = _restrict(op, name, a)
    x = xp.asarray(a)
    xv = x[lhs]
    ifn(xv, x[rhs])
    a[lhs] = _np_op(BINARY[op][0], a[lhs], a[rhs], xv)  # operands are read before the write
    assert_equal(x, a)


@pytest.mark.parametrize(
    "n1,n2",
    [("int8", "int16"), ("uint8", "uint16"), ("int16", "int32"), ("uint8", "int8"),
     ("bool", "int8"), ("int32", "float32"), ("float32", "int32")],
)
def test_inplace_operator_never_changes_dtype(n1, n2):
    a = np.arange(1, 5).astype(DTYPES[n1])
    x = xp.asarray(a)
    y = xp.asarray(np.arange(1, 5).astype(DTYPES[n2]))
    with pytest.raises(TypeError, match=n1):
        x += y
    assert_equal(x, a)


def test_inplace_operator_scalar_dtype_rules():
    x = xp.asarray(np.int8([1, 2, 3]))
    with pytest.raises(TypeError, match="Python float"):
        x += 1.5
    with pytest.raises(TypeError, match="Python bool"):
        x |= True
    with pytest.raises(OverflowError, match="200"):
        x += 200
    with pytest.raises(TypeError, match="floating-point"):
        x /= 2
    assert_equal(x, np.int8([1, 2, 3]))
    f = xp.asarray(np.float32([1, 2]))
    f += 3  # a Python int combines with a float array, the dtype stays
    assert_equal(f, np.float32([4, 5]))
    f **= 0.5
    assert_equal(f, np.float32([2, math.sqrt(5)]), ulps=2)


@pytest.mark.parametrize("op", ["lshift", "rshift"])
def test_inplace_shift_by_negative_scalar_raises(op):
    a = np.int8([1, -2, 3])
    x = xp.asarray(a)
    with pytest.raises(ValueError, match="non-negative"):
        BINARY[op][1](x, -1)
    assert_equal(x, a)


@pytest.mark.parametrize("op", INPLACE)
def test_inplace_operator_never_changes_shape(op):
    _, ifn, allowed = BINARY[op]
    dtype = DTYPES[allowed[-1]]
    a = np.ones((3,), dtype=dtype)
    x = xp.asarray(a)
    with pytest.raises(ValueError, match=r"shape.*\(3,\).*\(2, 3\)"):
        ifn(x, xp.asarray(np.ones((2, 3), dtype=dtype)))
    with pytest.raises(ValueError, match="broadcast"):
        ifn(x, xp.asarray(np.ones((4,), dtype=dtype)))
    assert_equal(x, a)


def test_inplace_on_zero_dimensional_view():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = xp.asarray(a)
    v = x[1, 2]
    v += 10
    a[1, 2] += 10
    assert_equal(x, a)
    x[0, 0] -= 4  # x.__setitem__(k, x.__getitem__(k).__isub__(4))
    a[0, 0] -= 4
    assert_equal(x, a)


# -- conversions ---------------------------------------------------------------------------------


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), arrays(n, ()))))
def test_scalar_conversions(case):
    name, a = case
    x = xp.asarray(a)
    v = a[()]
    b = bool(x)
    assert type(b) is bool and b == bool(v)
    f = float(x)
    assert type(f) is float
    assert f == float(v) or (math.isnan(f) and math.isnan(float(v)))
    c = complex(x)
    assert type(c) is complex
    if _kind(name) == "f" and math.isnan(float(v)):
        assert math.isnan(c.real) and math.isnan(c.imag)  # NaN + NaN j
    else:
        assert c == complex(v) and math.copysign(1, c.imag) == 1
    if _kind(name) == "f" and not math.isfinite(float(v)):
        err = ValueError if math.isnan(float(v)) else OverflowError
        with pytest.raises(err):
            int(x)
    else:
        i = int(x)
        assert type(i) is int and i == int(v)
    if _kind(name) in "iu":
        i = operator.index(x)
        assert type(i) is int and i == int(v)
        assert [0, 1, 2, 3][x % 4] == int(v) % 4
    else:
        with pytest.raises(TypeError, match=name):
            operator.index(x)


def test_scalar_conversion_special_values():
    assert bool(xp.asarray(float("nan"))) is True
    assert bool(xp.asarray(-0.0)) is False
    assert bool(xp.asarray(float("-inf"))) is True
    assert complex(xp.asarray(True)) == 1 + 0j
    assert float(xp.asarray(False)) == 0.0
    assert int(xp.asarray(True)) == 1
    assert math.copysign(1, float(xp.asarray(-0.0))) == -1
    c = complex(xp.asarray(float("-inf")))
    assert c.real == -math.inf and c.imag == 0
    with pytest.raises(ValueError, match="NaN"):
        int(xp.asarray(float("nan")))
    with pytest.raises(OverflowError, match="infinite"):
        int(xp.asarray(float("inf")))
    with pytest.raises(OverflowError, match="infinite"):
        int(xp.asarray(float("-inf")))
    assert int(xp.asarray(np.uint32(4294967295))) == 4294967295
    assert int(xp.asarray(np.int8(-128))) == -128
    assert int(xp.asarray(-2.75)) == -2


@pytest.mark.parametrize("shape", [(1,), (2,), (0,), (1, 1), (2, 3)])
@pytest.mark.parametrize("conv", [bool, int, float, complex, operator.index])
def test_scalar_conversions_need_zero_dimensions(shape, conv):
    x = xp.asarray(np.ones(shape, dtype=np.int32))
    with pytest.raises(TypeError, match=re.escape(str(shape))):
        conv(x)


def test_conversions_of_views():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    x = xp.asarray(a)
    assert float(x[2, -1]) == float(a[2, -1])
    assert int(x[::-1, 1:][0, 0]) == int(a[::-1, 1:][0, 0])
    assert bool(x[1, 1]) is True


# -- namespace and devices ---------------------------------------------------------------------------


def test_array_namespace():
    x = xp.asarray([1, 2])
    assert x.__array_namespace__() is xp
    for v in ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        assert x.__array_namespace__(api_version=v) is xp
    for bad in ("2020.10", "2026.12", "latest", "", 2025.12):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            x.__array_namespace__(api_version=bad)
    with pytest.raises(TypeError):
        x.__array_namespace__("2025.12")  # keyword-only


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_to_device(case):
    name, (a, x) = case
    info = xp.__array_namespace_info__()
    for dev in (x.device, info.default_device()) + tuple(info.devices()):
        y = x.to_device(dev)
        assert y.device == dev
        assert_equal(y, a)


def test_to_device_errors():
    x = xp.asarray([1.0])
    with pytest.raises(ValueError, match="'cpu'"):
        x.to_device("cpu")
    with pytest.raises(ValueError, match="stream"):
        x.to_device(x.device, stream=1)
    with pytest.raises(ValueError, match="'gpu:7'"):
        x.to_device("gpu:7")


# -- interchange ---------------------------------------------------------------------------------


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_dlpack_to_numpy(case):
    name, (a, x) = case
    got = np.from_dlpack(x)
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got, a)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(a))
    got2 = np.from_dlpack(x, device="cpu", copy=True)
    np.testing.assert_array_equal(got2, a)
    if x.size:
        x[...] = xp.asarray(np.zeros((), dtype=a.dtype))  # a copy: later writes don't show
        np.testing.assert_array_equal(got, a)


class _Legacy:
    """A consumer's view of x through the unversioned protocol (no max_version)."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kwargs):
        return self.x.__dlpack__(dl_device=(1, 0))

    def __dlpack_device__(self):
        return (1, 0)


def _capsule_name(capsule) -> bytes:
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype = ctypes.c_char_p
    get.argtypes = [ctypes.py_object]
    return get(capsule)


def test_dlpack_capsules():
    from webarray import _dlpack

    a = np.arange(-3, 9, dtype=np.int16).reshape(3, 4)[:, ::-2]
    x = xp.asarray(np.arange(-3, 9, dtype=np.int16).reshape(3, 4))[:, ::-2]
    assert x.__dlpack_device__() == (15, 0)  # kDLWebGPU
    gc.collect()
    alive = len(_dlpack._alive)
    assert _capsule_name(x.__dlpack__(dl_device=(1, 0))) == b"dltensor"
    assert _capsule_name(x.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert _capsule_name(x.__dlpack__(max_version=(1, 2), copy=True)) == b"dltensor_versioned"
    assert _capsule_name(x.__dlpack__(max_version=(0, 8))) == b"dltensor"
    np.testing.assert_array_equal(np.from_dlpack(_Legacy(x)), a)
    got = np.from_dlpack(x)
    assert not got.flags.writeable  # a detached copy: writes would never reach x
    np.testing.assert_array_equal(got, a)
    assert np.from_dlpack(x, copy=True).flags.writeable  # asked for: the consumer's own
    del got
    gc.collect()
    assert len(_dlpack._alive) == alive, "a DLPack export was never freed"


def test_dlpack_errors():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        np.from_dlpack(x, copy=False)
    for dev in [(2, 0), (15, 0), (1, 1), (4, 0)]:
        with pytest.raises(BufferError, match=re.escape(str(dev))):
            x.__dlpack__(dl_device=dev)
    with pytest.raises(BufferError, match="stream"):
        x.__dlpack__(stream=1)
    with pytest.raises(TypeError):
        x.__dlpack__((1, 0))  # keyword-only
    assert_equal(x, np.float32([1, 2]))


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_numpy_asarray(case):
    name, (a, x) = case
    got = np.asarray(x)
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got, a)
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float64), a.astype(np.float64))
    np.testing.assert_array_equal(np.array(x, copy=True), a)


def test_numpy_asarray_refuses_no_copy():
    with pytest.raises(ValueError, match="cop"):
        np.asarray(xp.asarray([1, 2]), copy=False)


# -- repr, len, iter, hash -------------------------------------------------------------------------


def _numpy_repr(a: np.ndarray) -> str:
    """What repr(x) must be: NumPy's repr layout named Array, always with dtype and device
    (tests/test_format.py checks the layout itself on many more values)."""
    extras = [f"shape={a.shape}"] if (a.size == 0 and a.shape != (0,)) or a.size > 1000 else []
    extras += [f"dtype={a.dtype.name}", f"device={xp.asarray(0).device.backend}"]
    head = "Array(" + np.array2string(a, separator=", ", prefix="Array(", suffix=")") + ","
    tail = ", ".join(extras) + ")"
    last_line = len(head) - (head.rfind("\n") + 1)
    return head + ("\n      " if last_line + len(tail) + 1 > 75 else " ") + tail


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(
    st.just(n), shapes(max_dims=3, max_side=5).flatmap(lambda s: views(n, s)))))
def test_repr(case):
    name, (a, x) = case
    assert repr(x) == _numpy_repr(a)
    assert str(x) == repr(x)


@pytest.mark.parametrize("shape", [(1001,), (2, 30, 40), (7, 7, 7, 7), (1, 1, 2000), (500, 3)])
@pytest.mark.parametrize("name", ["float32", "bool", "int8", "uint32"])
def test_repr_summary_values(shape, name):
    rng = np.random.default_rng(sum(shape))
    if name == "bool":
        a = rng.random(shape) < 0.5
    elif name == "float32":
        a = (rng.standard_normal(shape) * 1e3).astype(np.float32)
    else:
        info = np.iinfo(DTYPES[name])
        a = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(DTYPES[name])
    x = xp.asarray(a)[..., ::-1]  # a strided view
    assert repr(x) == _numpy_repr(a[..., ::-1])


def test_repr_large_is_summarised():
    a = np.arange(5000, dtype=np.float32).reshape(50, 100) / 8
    r = repr(xp.asarray(a))
    assert r == _numpy_repr(a)
    assert len(r) < 2000 and "..." in r and "shape=(50, 100)" in r
    small = repr(xp.asarray(np.arange(1000, dtype=np.int32)))
    assert "..." not in small and "999" in small
    big = repr(xp.asarray(np.arange(1001, dtype=np.int32))[::-1])
    assert big == ("Array([1000,  999,  998, ...,    2,    1,    0],\n"
                   "      shape=(1001,), dtype=int32, device=%s)" % xp.asarray(0).device.backend)


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_len_and_iter(case):
    name, (a, x) = case
    if a.ndim == 0:
        with pytest.raises(TypeError, match="zero-dimensional"):
            len(x)
        with pytest.raises(TypeError, match="zero-dimensional"):
            iter(x)
        return
    assert len(x) == len(a)
    items = list(x)
    assert len(items) == len(a)
    for got, exp in zip(items, a):
        assert_equal(got, exp)


def test_unhashable():
    x = xp.asarray([1, 2])
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(TypeError):
        {x}
    from collections.abc import Hashable

    assert not isinstance(x, Hashable)


def test_cannot_construct_directly():
    with pytest.raises(TypeError, match="asarray"):
        xp.Array()


# -- errors leave the device working and leak nothing ------------------------------------------------


def _erroring_calls(x, xi):
    """Calls that each raise; x is float32 (2, 3), xi int8 (2, 3)."""
    yield lambda: x + xp.asarray([1.0, 2.0])
    yield lambda: xp.bitwise_and(xi, x)
    yield lambda: operator.iadd(xi, xp.asarray(np.int16([1, 2, 3])))
    yield lambda: operator.iadd(x, xp.asarray(np.ones((4, 2, 3), np.float32)))
    yield lambda: operator.iadd(xi, 1.5)
    yield lambda: xi + 1000
    yield lambda: xi - xp.asarray(np.uint64([1, 2]))
    yield lambda: ~x
    yield lambda: float(x)
    yield lambda: int(xp.asarray(float("nan")))
    yield lambda: operator.index(x[0, 0])
    yield lambda: x.T.T.T.mT[0].T
    yield lambda: x.__dlpack__(copy=False)
    yield lambda: x.__dlpack__(dl_device=(2, 0))
    yield lambda: np.asarray(x, copy=False)
    yield lambda: x.to_device("cpu")
    yield lambda: x.__array_namespace__(api_version="1999.01")
    yield lambda: len(x[0, 0])


def test_errors_leak_no_device_memory():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = xp.asarray(a)
    xi = xp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    calls = list(_erroring_calls(x, xi))
    for f in calls:  # warm up: compile kernels, fill the pool's size classes
        with pytest.raises(Exception):
            f()
    gc.collect()
    baseline = xp.memory.stats()["used_bytes"]
    for _ in range(3):
        for f in calls:
            with pytest.raises((TypeError, ValueError, OverflowError, BufferError, IndexError)):
                f()
    gc.collect()
    assert xp.memory.stats()["used_bytes"] == baseline
    assert_equal(x * 2 + 1, a * 2 + 1)
    assert_equal(x, a)
