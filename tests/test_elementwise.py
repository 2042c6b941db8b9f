"""The 67 elementwise functions against NumPy, and the standard's special cases.

One table (``FUNCS``) says, per function, its NumPy reference, the dtype category the
standard gives its inputs, its arity and how close a result must be: exact (signed zeros
included) or within a number of float32 ULPs of NumPy evaluated in float64. The tests are
parametrized over that table, so each function is its own test id:

- ``test_matches_numpy_unary/binary/clip``: hypothesis draws dtypes of the category (mixed
  where they promote), shapes that broadcast, 0-d and empty arrays, non-contiguous views,
  and Python scalars on either side;
- ``test_zero_dim_and_empty``: 0-d operands and empty results, deterministically;
- ``test_integer_edges`` / ``test_float_edges``: every pair of edge values (integer
  limits, bit widths, NaN, ±inf, ±0, subnormals, huge and tiny magnitudes) at once;
- ``test_dense_accuracy`` and ``test_trig_hard_arguments``: the inexact functions on dense
  grids and on the arguments hardest to reduce (docs/accuracy.md has the full measurement);
- ``test_special_cases``: the "Special cases" of the standard (2025.12), transcribed
  line by line into ``SPECIAL`` and checked on every value of a pool that meets a line's
  condition;
- ``test_rejects_dtype_outside_category`` and the scalar and promotion error tests.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, note, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
from helpers import ALL_NAMES, DTYPES, INT_NAMES, NUMERIC_NAMES, assert_equal, elements, views

F32 = np.float32
NAN = float("nan")
INF = float("inf")

# What the device stores. The NumPy comparisons below cover the dtypes of helpers.DTYPES;
# int64, uint64 and complex64, where the device has them, get the edge-value and error tests.
SUPPORTED = set(xp.__array_namespace_info__().dtypes())
WIDE_INTS = [n for n in ("int64", "uint64") if n in SUPPORTED]

# the standard's categories, by dtype name
_INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
_REAL_FLOATS = {"float32", "float64"}
_COMPLEX = {"complex64", "complex128"}
SPEC_CATEGORIES = {
    "any": {"bool"} | _INTS | _REAL_FLOATS | _COMPLEX,
    "boolean": {"bool"},
    "integer": _INTS,
    "integer or boolean": _INTS | {"bool"},
    "numeric": _INTS | _REAL_FLOATS | _COMPLEX,
    "real numeric": _INTS | _REAL_FLOATS,
    "floating-point": _REAL_FLOATS | _COMPLEX,
    "real floating-point": _REAL_FLOATS,
    "complex floating-point": _COMPLEX,
}

CATEGORY_DTYPES = {
    "any": ALL_NAMES,
    "boolean": ["bool"],
    "integer": INT_NAMES,
    "integer or boolean": ["bool"] + INT_NAMES,
    "numeric": NUMERIC_NAMES,
    "real numeric": NUMERIC_NAMES,
    "floating-point": ["float32"],
    "real floating-point": ["float32"],
    "complex floating-point": [],
}


def _same_for_ints(f):
    """Rounding functions are the identity on integers (NumPy agrees, but say it here)."""

    def ref(x):
        return x.copy() if x.dtype.kind in "iu" else f(x)

    return ref


def _int_pow(x1, x2):
    """NumPy's wrapping integer power; a negative exponent (unspecified by the standard)
    follows webarray's rule: 1 ** n == 1, (-1) ** n == ±1, anything else gives 0."""
    x1, x2 = np.broadcast_arrays(x1, x2)
    neg = x2 < 0
    safe = np.where(neg, 0, x2).astype(x2.dtype)
    out = np.power(x1, safe)
    if x2.dtype.kind == "i":
        sign = np.where(x2 % 2 == 0, 1, -1).astype(out.dtype)
        inv = np.where(x1 == 1, 1, np.where(x1 == -1, sign, 0)).astype(out.dtype)
        out = np.where(neg, inv, out)
    return out


def _pow(x1, x2):
    return _int_pow(x1, x2) if x1.dtype.kind in "iu" else np.power(x1, x2)


def _logical(f):
    return lambda *a: f(*a).astype(bool)


@dataclass(frozen=True)
class Fn:
    name: str
    ref: Callable
    category: str
    arity: int = 1
    # None: exact (signed zeros included); n: within n float32 ULPs of NumPy's float64 result
    # rounded to float32, that is about the error docs/accuracy.md measures plus 0.5
    ulps: float | None = None
    bool_result: bool = False
    # elements of the second argument, when the function restricts them: "shift" (0 to a
    # bit beyond the width), "exponent" (non-negative for signed integers)
    x2: str | None = None

    @property
    def dtypes(self) -> list[str]:
        return CATEGORY_DTYPES[self.category]

    def __str__(self) -> str:
        return self.name


def _floor_divide(a, b):
    """NumPy's floor_divide with the standard's main-text values for infinite operands
    (±inf // finite is ±inf, finite // ±inf a signed zero), which webarray follows; NumPy
    takes the alternatives (NaN, -1.0) that the standard's notes also allow."""
    out = np.floor_divide(a, b)
    if out.dtype.kind != "f":
        return out
    a, b = np.broadcast_arrays(a, b)
    inf_a = np.isinf(a) & np.isfinite(b) & (b != 0)
    inf_b = np.isfinite(a) & (a != 0) & np.isinf(b)
    return np.where(inf_a | inf_b, (a / b).astype(out.dtype), out)


def _table():
    u, b = 1, 2
    rows = [
        # name, reference, category, arity, ulps, bool result
        ("abs", np.abs, "numeric", u, None, False),
        ("acos", np.arccos, "floating-point", u, 1.5, False),
        ("acosh", np.arccosh, "floating-point", u, 1.5, False),
        ("add", np.add, "numeric", b, None, False),
        ("asin", np.arcsin, "floating-point", u, 1.5, False),
        ("asinh", np.arcsinh, "floating-point", u, 1.5, False),
        ("atan", np.arctan, "floating-point", u, 2, False),
        ("atan2", np.arctan2, "real floating-point", b, 3, False),
        ("atanh", np.arctanh, "floating-point", u, 1.5, False),
        ("bitwise_and", np.bitwise_and, "integer or boolean", b, None, False),
        ("bitwise_left_shift", np.left_shift, "integer", b, None, False),
        ("bitwise_invert", np.invert, "integer or boolean", u, None, False),
        ("bitwise_or", np.bitwise_or, "integer or boolean", b, None, False),
        ("bitwise_right_shift", np.right_shift, "integer", b, None, False),
        ("bitwise_xor", np.bitwise_xor, "integer or boolean", b, None, False),
        ("ceil", _same_for_ints(np.ceil), "real numeric", u, None, False),
        ("clip", np.clip, "real numeric", 3, None, False),
        ("conj", np.conj, "numeric", u, None, False),
        ("copysign", np.copysign, "real floating-point", b, None, False),
        ("cos", np.cos, "floating-point", u, 2, False),
        ("cosh", np.cosh, "floating-point", u, 1.5, False),
        ("divide", np.divide, "floating-point", b, None, False),
        ("equal", np.equal, "any", b, None, True),
        ("exp", np.exp, "floating-point", u, 2, False),
        ("expm1", np.expm1, "floating-point", u, 1.5, False),
        ("floor", _same_for_ints(np.floor), "real numeric", u, None, False),
        ("floor_divide", _floor_divide, "real numeric", b, None, False),
        ("greater", np.greater, "real numeric", b, None, True),
        ("greater_equal", np.greater_equal, "real numeric", b, None, True),
        ("hypot", np.hypot, "real floating-point", b, 1.5, False),
        ("imag", np.imag, "complex floating-point", u, None, False),
        ("isfinite", np.isfinite, "numeric", u, None, True),
        ("isinf", np.isinf, "numeric", u, None, True),
        ("isnan", np.isnan, "numeric", u, None, True),
        ("less", np.less, "real numeric", b, None, True),
        ("less_equal", np.less_equal, "real numeric", b, None, True),
        ("log", np.log, "floating-point", u, 1.5, False),
        ("log1p", np.log1p, "floating-point", u, 1.5, False),
        ("log2", np.log2, "floating-point", u, 1.5, False),
        ("log10", np.log10, "floating-point", u, 1.5, False),
        ("logaddexp", np.logaddexp, "real floating-point", b, 2, False),
        ("logical_and", _logical(np.logical_and), "boolean", b, None, True),
        ("logical_not", _logical(np.logical_not), "boolean", u, None, True),
        ("logical_or", _logical(np.logical_or), "boolean", b, None, True),
        ("logical_xor", _logical(np.logical_xor), "boolean", b, None, True),
        ("maximum", np.maximum, "real numeric", b, None, False),
        ("minimum", np.minimum, "real numeric", b, None, False),
        ("multiply", np.multiply, "numeric", b, None, False),
        ("negative", np.negative, "numeric", u, None, False),
        ("nextafter", np.nextafter, "real floating-point", b, None, False),
        ("not_equal", np.not_equal, "any", b, None, True),
        ("positive", np.positive, "numeric", u, None, False),
        ("pow", _pow, "numeric", b, 2, False),
        ("real", np.real, "numeric", u, None, False),
        ("reciprocal", np.reciprocal, "floating-point", u, None, False),
        ("remainder", np.remainder, "real numeric", b, None, False),
        ("round", _same_for_ints(np.round), "numeric", u, None, False),
        ("sign", np.sign, "numeric", u, None, False),
        ("signbit", np.signbit, "real floating-point", u, None, True),
        ("sin", np.sin, "floating-point", u, 2, False),
        ("sinh", np.sinh, "floating-point", u, 2, False),
        ("square", np.square, "numeric", u, None, False),
        ("sqrt", np.sqrt, "floating-point", u, None, False),
        ("subtract", np.subtract, "numeric", b, None, False),
        ("tan", np.tan, "floating-point", u, 2.5, False),
        ("tanh", np.tanh, "floating-point", u, 1.5, False),
        ("trunc", _same_for_ints(np.trunc), "real numeric", u, None, False),
    ]
    x2 = {"bitwise_left_shift": "shift", "bitwise_right_shift": "shift", "pow": "exponent"}
    return {r[0]: Fn(*r, x2=x2.get(r[0])) for r in rows}


FUNCS = _table()
WITH_DTYPES = [f for f in FUNCS.values() if f.dtypes]
UNARY = [f for f in WITH_DTYPES if f.arity == 1]
BINARY = [f for f in WITH_DTYPES if f.arity == 2]
FLOAT_FNS = [f for f in WITH_DTYPES if "float32" in f.dtypes and f.arity <= 2]
INT_FNS = [f for f in WITH_DTYPES if set(INT_NAMES) & set(f.dtypes) and f.arity <= 2]


def test_table_covers_the_namespace():
    assert len(FUNCS) == 67
    assert set(FUNCS) == set(xp._elementwise.__all__)
    for name in FUNCS:
        assert callable(getattr(xp, name))


# -- comparing with NumPy -----------------------------------------------------------------


def reference(fn: Fn, *args) -> np.ndarray:
    """NumPy's result, in the dtype webarray must return."""
    with np.errstate(all="ignore"):
        if fn.ulps is not None and np.result_type(*args) == F32:
            out = fn.ref(*(np.asarray(a, np.float64) for a in args))
            return np.asarray(out).astype(np.bool_ if fn.bool_result else F32)
        out = np.asarray(fn.ref(*args))
    want = np.bool_ if fn.bool_result else np.result_type(*args)
    assert out.dtype == want, f"reference {fn.name} gave {out.dtype}, expected {want}"
    return out


def check(fn: Fn, got, want: np.ndarray, ulps=None, args=()) -> None:
    """Exact comparison, or ULPs for floating results of inexact functions; where the
    float64 reference is exactly ±0 the sign must match even then."""
    ulps = fn.ulps if ulps is None else ulps
    if ulps is not None and want.dtype == np.float64:  # (float32 with int32, say)
        assert_equal(got, want, rtol=2.0**-51)  # within 2 ULP, as tests/test_float64_math.py
        return
    if ulps is None or want.dtype != F32:
        assert_equal(got, want)
        return
    if fn.name == "logaddexp" and args:
        # max(a, b) + ln(1 + e^-|a-b|) may cancel to far below its terms; there an absolute
        # 2^-30 max(|a|, |b|) is allowed (docs/accuracy.md: 8 ULP at worst, NumPy 1000)
        a, b = (np.abs(np.asarray(v, np.float64)) for v in np.broadcast_arrays(*args))
        with np.errstate(invalid="ignore"):
            near = np.abs(np.asarray(got, np.float64) - want) <= 2.0**-30 * np.maximum(a, b)
        want = np.where(near, np.asarray(got), want)
    assert_equal(got, want, ulps=ulps)
    g = np.asarray(got)
    # (a ULP tolerance at the largest float32 is infinite: overflow is checked here)
    np.testing.assert_array_equal(np.isfinite(g), np.isfinite(want), err_msg=f"{fn.name}: overflow")
    zero = want == 0
    np.testing.assert_array_equal(
        np.signbit(g[zero]), np.signbit(want[zero]), err_msg=f"{fn.name}: sign of zero")


# -- strategies -----------------------------------------------------------------------------


def _int_bits(name: str) -> int:
    return np.iinfo(DTYPES[name]).bits


def x2_elements(fn: Fn, name: str):
    """Elements of the second argument, where a function restricts them."""
    if fn.x2 == "shift":
        bits = _int_bits(name)
        hi = int(np.iinfo(DTYPES[name]).max)
        return st.one_of(st.integers(0, bits + 1), st.integers(0, hi))
    if fn.x2 == "exponent" and name in INT_NAMES:
        # small exponents, which do not always wrap to 0, and a few negative ones
        info = np.iinfo(DTYPES[name])
        return st.one_of(st.integers(max(-3, int(info.min)), 9), elements(name))
    return elements(name)


def promotable_partners(name: str, names: list[str]) -> list[str]:
    """The dtypes of ``names`` that promote with ``name`` to a dtype the device supports."""
    out = []
    for other in names:
        a, b = np.dtype(DTYPES[name]), np.dtype(DTYPES[other])
        if (a.kind == "b") != (b.kind == "b") or (a.kind == "f") != (b.kind == "f"):
            continue
        if np.result_type(a, b).name in DTYPES:
            out.append(other)
    return out


def python_scalar(name: str, fn: Fn, second: bool):
    """A Python scalar that 2025.12 lets combine with an array of dtype ``name``."""
    if name == "bool":
        return st.booleans()
    if name == "float32":
        return st.one_of(st.floats(width=32), st.integers(-(2**24), 2**24))
    if second and fn.x2 is not None:
        return x2_elements(fn, name).map(int)
    info = np.iinfo(DTYPES[name])
    return st.integers(int(info.min), int(info.max))


@pytest.mark.parametrize("fn", UNARY, ids=str)
@given(data=st.data())
def test_matches_numpy_unary(fn, data):
    name = data.draw(st.sampled_from(fn.dtypes), label="dtype")
    a, x = data.draw(views(name), label="x")
    check(fn, getattr(xp, fn.name)(x), reference(fn, a))


@pytest.mark.parametrize("fn", BINARY, ids=str)
@given(data=st.data())
def test_matches_numpy_binary(fn, data):
    mode = data.draw(st.sampled_from(["arrays", "scalar x1", "scalar x2"]), label="mode")
    name1 = data.draw(st.sampled_from(fn.dtypes), label="dtype x1")
    if mode != "arrays":
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
        scalar_first = mode == "scalar x1"
        elems = x2_elements(fn, name1) if scalar_first and fn.x2 else None
        a, x = data.draw(views(name1, shape, elements_strategy=elems), label="array")
        v = data.draw(python_scalar(name1, fn, second=not scalar_first), label="scalar")
        s = np.asarray(v, dtype=DTYPES[name1])
        args, np_args = ((v, x), (s, a)) if scalar_first else ((x, v), (a, s))
    else:
        name2 = data.draw(st.sampled_from(promotable_partners(name1, fn.dtypes)), label="dtype x2")
        shapes = data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4), label="shapes")
        a1, x1 = data.draw(views(name1, shapes.input_shapes[0]), label="x1")
        elems = x2_elements(fn, name2) if fn.x2 else None
        a2, x2 = data.draw(views(name2, shapes.input_shapes[1], elements_strategy=elems),
                           label="x2")
        args, np_args = (x1, x2), (a1, a2)
    note(f"{fn.name}{tuple(np.asarray(a).tolist() for a in np_args)}")
    check(fn, getattr(xp, fn.name)(*args), reference(fn, *np_args), args=np_args)


@given(data=st.data())
def test_matches_numpy_clip(data):
    name = data.draw(st.sampled_from(CATEGORY_DTYPES["real numeric"]), label="dtype")
    a, x = data.draw(views(name), label="x")
    bounds, np_bounds = [], []
    extras = [(), (2,), (0,)]  # the leading dimensions a bound may add; both must broadcast
    for which in ("min", "max"):
        kind = data.draw(st.sampled_from(["none", "scalar", "array"]), label=which)
        if kind == "none":
            bounds.append(None)
            np_bounds.append(None)
        elif kind == "scalar":
            v = data.draw(python_scalar(name, FUNCS["clip"], second=False), label=f"{which} value")
            bounds.append(v)
            np_bounds.append(np.asarray(v, DTYPES[name]))
        else:
            k = data.draw(st.integers(0, a.ndim), label=f"{which} dims")
            shape = tuple(data.draw(st.sampled_from([1, n])) for n in a.shape[a.ndim - k:])
            if k == a.ndim:  # a bound may also broadcast x (to more dimensions, or from 1 to 0 or 2)
                extra = data.draw(st.sampled_from(extras), label=f"{which} extra")
                extras = [(), extra]
                shape = extra + shape
            b, y = data.draw(views(name, shape), label=f"{which} array")
            bounds.append(y)
            np_bounds.append(b)
    lo, hi = np_bounds
    want = a.copy()
    with np.errstate(all="ignore"):
        for b, beyond in ((lo, np.less), (hi, np.greater)):
            if b is not None:  # a NaN bound gives NaN
                want = np.where(np.isnan(b) | beyond(want, b), b, want)
    out_shape = np.broadcast_shapes(a.shape, *(b.shape for b in np_bounds if b is not None))
    want = np.broadcast_to(want, out_shape).astype(a.dtype)
    note(f"clip({a.tolist()}, {lo}, {hi})")
    got = xp.clip(x, min=bounds[0], max=bounds[1])
    assert got.dtype == x.dtype and got.shape == out_shape
    # values only: the sign of a zero that equals a bound is unspecified
    np.testing.assert_array_equal(np.asarray(got), want)


# -- 0-d and empty arrays ----------------------------------------------------------------


def _sample(name: str, shape) -> np.ndarray:
    rng = np.random.default_rng(len(shape))
    if name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if name == "float32":
        return rng.uniform(0.1, 0.9, shape).astype(F32)
    info = np.iinfo(DTYPES[name])
    return rng.integers(max(int(info.min), -5), 6, shape, endpoint=False).astype(DTYPES[name])


@pytest.mark.parametrize("fn", WITH_DTYPES, ids=str)
@pytest.mark.parametrize("shapes", [((), ()), ((0,), ()), ((0, 3), (3,)), ((2, 1), (0,))],
                         ids=["0d", "empty-0d", "empty-broadcast", "broadcast-to-empty"])
def test_zero_dim_and_empty(fn, shapes):
    name = "float32" if "float32" in fn.dtypes else fn.dtypes[-1]
    np_args = [_sample(name, s) for s in shapes[: min(fn.arity, 2)]]
    if fn.x2 and name in INT_NAMES:
        np_args[1] = np.abs(np_args[1])
    args = [xp.asarray(a) for a in np_args]
    if fn.name == "clip":
        # the bounds broadcast to x's shape, never the other way round
        lo = args[1] if len(args) > 1 and np.broadcast_shapes(*shapes) == shapes[0] else None
        got = xp.clip(args[0], min=lo, max=None)
        assert got.shape == np_args[0].shape and got.dtype == args[0].dtype
        return
    want = reference(fn, *np_args)
    got = getattr(xp, fn.name)(*args)
    assert got.shape == want.shape
    check(fn, got, want)


# -- edge values, all pairs at once -------------------------------------------------------


def int_edges(name: str) -> np.ndarray:
    info = np.iinfo(name)
    lo, hi, bits = int(info.min), int(info.max), info.bits
    vals = {lo, lo + 1, -2, -1, 0, 1, 2, 3, 7, bits - 1, bits, bits + 1, hi // 2, hi - 1, hi,
            2**31 - 1, 2**31, 2**32 - 1, 2**32, -(2**31), -(2**31) - 1}
    return np.array(sorted(v for v in vals if lo <= v <= hi), dtype=name)


FLOAT_POOL = np.array(
    [NAN, -NAN, 0.0, -0.0, INF, -INF, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5,
     1.5, -1.5, 0.25, 7.0, -7.0, 0.1, -0.1, 1e-3, 100.5, -100.5, 1e-40, -1e-40, 1e-45,
     1.1754944e-38, -1.1754944e-38, 1e20, -1e20, 1e30, -3.4028235e38, 3.4028235e38,
     16777216.0, -16777217.0, 88.7, -103.5, 1e-7, math.pi / 2, -math.pi],
    dtype=F32,
)


def all_pairs(values: np.ndarray, arity: int, second: np.ndarray | None = None):
    if arity == 1:
        return (values,)
    other = values if second is None else second
    x1, x2 = np.meshgrid(values, other, indexing="ij")
    return x1.ravel(), x2.ravel()


@pytest.mark.parametrize("fn", INT_FNS, ids=str)
def test_integer_edges(fn):
    """Wraparound, division by zero, INT_MIN / -1, shifts past the width: as NumPy does."""
    for name in [n for n in fn.dtypes if n in INT_NAMES] + WIDE_INTS:
        edges = int_edges(name)
        second = edges[edges >= 0] if fn.x2 == "shift" else None
        np_args = all_pairs(edges, fn.arity, second)
        got = getattr(xp, fn.name)(*(xp.asarray(a) for a in np_args))
        check(fn, got, reference(fn, *np_args))


# Where the inexact functions are evaluated densely: a grid over this range, log-spaced
# magnitudes of both signs from 1e-38 to 1e38, and random bit patterns (benchmarks/accuracy.py
# measures the same way with 10^6 points per range; docs/accuracy.md has the results).
DENSE = {
    "exp": (-104, 89), "expm1": (-20, 89), "log": (0, 4), "log1p": (-1, 4), "log2": (0, 4),
    "log10": (0, 4), "sin": (-1e4, 1e4), "cos": (-1e4, 1e4), "tan": (-1e4, 1e4),
    "asin": (-1, 1), "acos": (-1, 1), "atan": (-8, 8), "sinh": (-90, 90), "cosh": (-90, 90),
    "tanh": (-10, 10), "asinh": (-10, 10), "acosh": (1, 10), "atanh": (-1, 1),
    "atan2": (-10, 10), "hypot": (-100, 100), "logaddexp": (-30, 30), "pow": (0, 10),
}


def _dense_points(lo: float, hi: float, n: int, rng) -> np.ndarray:
    grid = np.linspace(lo, hi, n)
    mags = 10.0 ** np.linspace(-38, 38, n) * np.where(np.arange(n) % 2, 1.0, -1.0)
    bits = rng.integers(0, 2**32, 2 * n, dtype=np.uint64).astype(np.uint32).view(F32)
    return np.concatenate([grid, mags, bits[np.isfinite(bits)][:n]]).astype(F32)


@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_accuracy(name):
    fn = FUNCS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    x1 = _dense_points(*DENSE[name], 20001, rng)
    args = (x1,) if fn.arity == 1 else (x1, rng.permutation(x1))
    if name == "pow":
        # positive bases against exponents on a grid over [-40, 40], negative bases against
        # integer exponents
        k = 2 * x1.size // 3
        y = np.concatenate([np.linspace(-40, 40, k), rng.integers(-30, 31, x1.size - k)])
        args = ((np.where(np.arange(x1.size) < k, 1, -1) * np.abs(x1)).astype(F32), y.astype(F32))
    got = getattr(xp, name)(*(xp.asarray(a) for a in args))
    check(fn, got, reference(fn, *args), args=args)


# float32 arguments closest to multiples of π/2, as (m, e) for m * 2**e, found by a search over
# every significand of every binade: reducing them leaves a remainder near 2^-29 π/2, so
# about 30 bits beyond float32 must be right. The second group's reductions also need the
# carry between the words of the Payne–Hanek product.
HARD_TRIG = [
    (16367173, 72), (10741887, 11), (16573937, -16), (10057457, 62), (11617958, 17),
    (9012376, 53), (14173733, 88), (10695401, 2), (9882596, -21),
    (14176128, 26), (9860544, 100), (16415968, 71), (8972926, 21), (12039263, 51),
    (11246568, 53), (10222030, 96), (15846696, -7), (14897721, 24), (13176746, -23),
]


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_hard_arguments(name):
    x = np.array([m * 2.0**e for m, e in HARD_TRIG], F32)
    x = np.concatenate([x, -x])
    check(FUNCS[name], getattr(xp, name)(xp.asarray(x)), reference(FUNCS[name], x))


def test_integer_semantics_spelled_out():
    """The integer rules the standard leaves to the library, written out literally."""
    i8 = lambda *v: xp.asarray(np.array(v, np.int8))  # noqa: E731
    u8 = lambda *v: xp.asarray(np.array(v, np.uint8))  # noqa: E731
    i32 = lambda *v: xp.asarray(np.array(v, np.int32))  # noqa: E731
    assert_equal(xp.floor_divide(i8(-128, 7, -7, 0), i8(-1, 0, 2, 0)), np.int8([-128, 0, -4, 0]))
    assert_equal(xp.remainder(i8(-128, 7, -7, 5), i8(-1, 0, 2, -3)), np.int8([0, 0, 1, -1]))
    assert_equal(xp.floor_divide(u8(7, 255), u8(0, 16)), np.uint8([0, 15]))
    assert_equal(xp.add(i8(127, -128), i8(1, -1)), np.int8([-128, 127]))
    assert_equal(xp.multiply(u8(16, 255), u8(16, 255)), np.uint8([0, 1]))
    assert_equal(xp.negative(i8(-128)), np.int8([-128]))
    assert_equal(xp.abs(i32(-(2**31))), np.int32([-(2**31)]))
    assert_equal(xp.bitwise_left_shift(i8(1, 1, -1), i8(7, 8, 100)), np.int8([-128, 0, 0]))
    assert_equal(xp.bitwise_right_shift(i8(-128, -1, 64), i8(7, 100, 8)), np.int8([-1, -1, 0]))
    assert_equal(xp.bitwise_left_shift(i32(1, 1), 31), np.int32([-(2**31), -(2**31)]))
    assert_equal(xp.bitwise_right_shift(xp.asarray(np.uint32([2**32 - 1])), 32), np.uint32([0]))
    assert_equal(xp.pow(i8(2, 3, -1, 1, 5), i8(7, 5, -3, -100, -1)), np.int8([-128, -13, -1, 1, 0]))


@given(data=st.data())
def test_integer_true_division(data):
    """``/`` of integers, which the standard leaves to the library, is the default floating
    dtype's quotient (as PyTorch's; NumPy and CuPy divide in float64): each integer rounded
    to that float, then one correctly rounded division. Python ints must fit the integer
    operands' dtype, as for any integer op; a float operand or bool is refused."""
    f = xp.__array_namespace_info__().default_dtypes()["real floating"]
    fn = np.dtype(f.name)
    names = INT_NAMES + WIDE_INTS
    a_name, b_name = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(names))
    promotes = {a_name, b_name} != {"int64", "uint64"} and not (
        "uint64" in (a_name, b_name) and {a_name, b_name} & {"int8", "int16", "int32"})
    a, x = data.draw(views(a_name, shape=(3, 4)) if a_name in INT_NAMES
                     else hnp.arrays(a_name, (3, 4)).map(lambda v: (v, xp.asarray(v))))
    b, y = data.draw(views(b_name, shape=(4,)) if b_name in INT_NAMES
                     else hnp.arrays(b_name, (4,)).map(lambda v: (v, xp.asarray(v))))
    note(f"{a_name} / {b_name}")
    if not promotes:
        with pytest.raises(TypeError):
            x / y
        return
    with np.errstate(all="ignore"):
        got = x / y
        assert got.dtype == f
        assert_equal(got, np.divide(a.astype(fn), b.astype(fn)))
        assert_equal(xp.divide(x, 3), np.divide(a.astype(fn), fn.type(3)))
        assert_equal(7 / y, np.divide(fn.type(7), b.astype(fn)))
    bf = b.astype(np.float32)
    want = np.result_type(a, bf)  # an integer with a float array: NumPy's promotion
    if want.name in SUPPORTED:
        with np.errstate(all="ignore"):
            assert_equal(x / xp.asarray(bf), np.divide(a.astype(want), bf.astype(want)))
    else:
        with pytest.raises(TypeError, match=want.name):
            x / xp.asarray(bf)
    with pytest.raises(TypeError):
        x / 1.5
    with pytest.raises(TypeError):
        xp.asarray([True]) / xp.asarray([False])
    with pytest.raises(TypeError):  # the quotient does not fit back into x
        x /= y


def test_negative_shift_is_rejected_for_scalars():
    x = xp.asarray(np.int32([1, 2]))
    for f in (xp.bitwise_left_shift, xp.bitwise_right_shift):
        with pytest.raises(ValueError, match="non-negative"):
            f(x, -1)


@pytest.mark.parametrize("fn", FLOAT_FNS, ids=str)
def test_float_edges(fn):
    """Every pair of special and extreme float32 values, against NumPy in one launch."""
    np_args = all_pairs(FLOAT_POOL, fn.arity)
    got = getattr(xp, fn.name)(*(xp.asarray(a) for a in np_args))
    check(fn, got, reference(fn, *np_args), args=np_args)


# -- the standard's special cases -----------------------------------------------------------


def _odd_int(v: float) -> bool:
    return math.isfinite(v) and v == math.floor(v) and math.fmod(v, 2.0) != 0.0


def _int_valued(v: float) -> bool:
    return math.isfinite(v) and v == math.floor(v)


# Conditions on one operand, by the words the standard uses.
COND: dict[str, Callable[[float], bool]] = {
    "any": lambda v: True,
    "NaN": math.isnan,
    "not NaN": lambda v: not math.isnan(v),
    "+NaN": lambda v: math.isnan(v) and math.copysign(1.0, v) > 0,
    "-NaN": lambda v: math.isnan(v) and math.copysign(1.0, v) < 0,
    "+0": lambda v: v == 0 and math.copysign(1.0, v) > 0,
    "-0": lambda v: v == 0 and math.copysign(1.0, v) < 0,
    "±0": lambda v: v == 0,
    "+inf": lambda v: v == INF,
    "-inf": lambda v: v == -INF,
    "±inf": math.isinf,
    "finite": math.isfinite,
    "finite or NaN": lambda v: not math.isinf(v),
    "nonzero finite": lambda v: math.isfinite(v) and v != 0,
    "positive finite": lambda v: math.isfinite(v) and v > 0,
    "negative finite": lambda v: math.isfinite(v) and v < 0,
    ">0": lambda v: v > 0,
    "<0": lambda v: v < 0,
    ">1": lambda v: v > 1,
    "<1": lambda v: v < 1,
    "<-1": lambda v: v < -1,
    "1": lambda v: v == 1,
    "-1": lambda v: v == -1,
    "!=1": lambda v: not v == 1,
    "!=0": lambda v: not v == 0,
    "|x|>1": lambda v: abs(v) > 1,
    "|x|=1": lambda v: abs(v) == 1,
    "|x|<1": lambda v: abs(v) < 1,
    "integer": _int_valued,
    "not integer": lambda v: math.isfinite(v) and not _int_valued(v),
    "odd integer": _odd_int,
    ">0 odd integer": lambda v: v > 0 and _odd_int(v),
    ">0 not odd integer": lambda v: v > 0 and not _odd_int(v),
    "<0 odd integer": lambda v: v < 0 and _odd_int(v),
    "<0 not odd integer": lambda v: v < 0 and not _odd_int(v),
    "half": lambda v: math.isfinite(v) and v - math.floor(v) == 0.5,
}


def _sign(v: float) -> float:
    return math.copysign(1.0, v)


# Relations between the two operands that some lines add to their conditions.
RELATION: dict[str, Callable[[float, float], bool]] = {
    "x2 == -x1": lambda a, b: b == -a,
    "same sign": lambda a, b: _sign(a) == _sign(b),
    "different signs": lambda a, b: _sign(a) != _sign(b),
    "equal": lambda a, b: a == b,
    "unequal": lambda a, b: a != b,
    # "the same mathematical sign, unless the result is NaN" (inf times zero)
    "same sign, no inf*0": lambda a, b: _sign(a) == _sign(b) and not (
        (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0)),
    "different signs, no inf*0": lambda a, b: _sign(a) != _sign(b) and not (
        (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0)),
}

PI = math.pi


def _approx(v: float):
    return ("approx", v)


# Results. A string names an exact result; ("approx", v) means "an implementation-dependent
# approximation to v" (within 2 ULPs); a tuple of strings lists the allowed alternatives
# where the standard notes that libraries may differ.
def _expected(result, x1: float, x2: float):
    table = {
        "NaN": NAN, "+0": 0.0, "-0": -0.0, "0": 0.0, "+inf": INF, "-inf": -INF,
        "1": 1.0, "-1": -1.0, "True": True, "False": False,
        "x1": x1, "x2": x2, "|x1|": abs(x1), "-|x1|": -abs(x1), "|x2|": abs(x2),
        "+NaN": NAN, "-NaN": -NAN, "rint": float(np.rint(x1)),
        "±inf by signs": INF if _sign(x1) == _sign(x2) else -INF,
    }
    return table[result]


def _matches(result, got, x1: float, x2: float, orig_sign: bool = True) -> bool:
    if isinstance(result, tuple) and result[0] == "approx":
        want = F32(result[1])
        return bool(abs(float(got) - float(want)) <= 2 * float(np.spacing(abs(want))))
    if isinstance(result, tuple):
        return any(_matches(r, got, x1, x2) for r in result)
    if result in ("+sign", "-sign"):
        return not math.isnan(got) and bool(np.signbit(got)) == (result == "-sign")
    want = _expected(result, x1, x2)
    if isinstance(want, bool):
        return bool(got) is want
    want = F32(want)
    if math.isnan(want):
        if not math.isnan(got):
            return False
        # a NaN whose sign the line states (copysign, abs of a sign) must carry it
        signed = result in ("+NaN", "-NaN", "|x1|", "-|x1|", "|x2|")
        return not signed or bool(np.signbit(got)) == bool(np.signbit(want))
    if result == "0":
        return got == 0
    return got == want and bool(np.signbit(got)) == bool(np.signbit(want))


# The "Special cases" sections of elementwise_functions.py (2025.12), for real operands, one
# entry per line: (condition on x, result) for unary functions and (condition on x1,
# condition on x2, result[, relation]) for binary ones. Lines that only say "in the
# remaining cases, round as IEEE 754 says" are the NumPy comparisons above.
_ATAN2 = [
    ("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
    (">0", "+0", _approx(PI / 2)), (">0", "-0", _approx(PI / 2)),
    ("+0", ">0", "+0"), ("+0", "+0", "+0"), ("+0", "-0", _approx(PI)), ("+0", "<0", _approx(PI)),
    ("-0", ">0", "-0"), ("-0", "+0", "-0"), ("-0", "-0", _approx(-PI)), ("-0", "<0", _approx(-PI)),
    ("<0", "+0", _approx(-PI / 2)), ("<0", "-0", _approx(-PI / 2)),
    ("positive finite", "+inf", "+0"), ("positive finite", "-inf", _approx(PI)),
    ("negative finite", "+inf", "-0"), ("negative finite", "-inf", _approx(-PI)),
    ("+inf", "finite", _approx(PI / 2)), ("-inf", "finite", _approx(-PI / 2)),
    ("+inf", "+inf", _approx(PI / 4)), ("+inf", "-inf", _approx(3 * PI / 4)),
    ("-inf", "+inf", _approx(-PI / 4)), ("-inf", "-inf", _approx(-3 * PI / 4)),
]
_DIVIDE = [
    ("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
    ("±inf", "±inf", "NaN"), ("±0", "±0", "NaN"),
    ("+0", ">0", "+0"), ("-0", ">0", "-0"), ("+0", "<0", "-0"), ("-0", "<0", "+0"),
    (">0", "+0", "+inf"), (">0", "-0", "-inf"), ("<0", "+0", "-inf"), ("<0", "-0", "+inf"),
    ("+inf", "positive finite", "+inf"), ("+inf", "negative finite", "-inf"),
    ("-inf", "positive finite", "-inf"), ("-inf", "negative finite", "+inf"),
    ("positive finite", "+inf", "+0"), ("positive finite", "-inf", "-0"),
    ("negative finite", "+inf", "-0"), ("negative finite", "-inf", "+0"),
    ("nonzero finite", "nonzero finite", "+sign", "same sign"),
    ("nonzero finite", "nonzero finite", "-sign", "different signs"),
]
# floor_divide: as divide, with the alternatives its notes allow (NumPy takes them)
_FLOOR_DIVIDE = [
    row if row[:2] not in {
        ("+inf", "positive finite"), ("+inf", "negative finite"),
        ("-inf", "positive finite"), ("-inf", "negative finite"),
        ("positive finite", "-inf"), ("negative finite", "+inf")}
    else (row[0], row[1], (row[2], "NaN" if "inf" in row[0] else "-1"))
    for row in _DIVIDE
]
_LOG = [("NaN", "NaN"), ("<0", "NaN"), ("±0", "-inf"), ("1", "+0"), ("+inf", "+inf")]
_ROUNDING = [("integer", "x1"), ("+inf", "+inf"), ("-inf", "-inf"), ("+0", "+0"),
             ("-0", "-0"), ("NaN", "NaN")]
_SIN_TAN = [("NaN", "NaN"), ("+0", "+0"), ("-0", "-0"), ("±inf", "NaN")]
_ODD = [("NaN", "NaN"), ("+0", "+0"), ("-0", "-0"), ("+inf", "+inf"), ("-inf", "-inf")]

SPECIAL: dict[str, list[tuple]] = {
    "abs": [("NaN", "NaN"), ("-0", "+0"), ("-inf", "+inf")],
    "acos": [("NaN", "NaN"), (">1", "NaN"), ("<-1", "NaN"), ("1", "+0")],
    "acosh": [("NaN", "NaN"), ("<1", "NaN"), ("1", "+0"), ("+inf", "+inf")],
    "add": [
        ("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
        ("+inf", "-inf", "NaN"), ("-inf", "+inf", "NaN"),
        ("+inf", "+inf", "+inf"), ("-inf", "-inf", "-inf"),
        ("+inf", "finite", "+inf"), ("-inf", "finite", "-inf"),
        ("finite", "+inf", "+inf"), ("finite", "-inf", "-inf"),
        ("-0", "-0", "-0"), ("-0", "+0", "+0"), ("+0", "-0", "+0"), ("+0", "+0", "+0"),
        ("±0", "nonzero finite", "x2"), ("nonzero finite", "±0", "x1"),
        ("nonzero finite", "any", "+0", "x2 == -x1"),
    ],
    "asin": [("NaN", "NaN"), (">1", "NaN"), ("<-1", "NaN"), ("+0", "+0"), ("-0", "-0")],
    "asinh": _ODD,
    "atan": [("NaN", "NaN"), ("+0", "+0"), ("-0", "-0"),
             ("+inf", _approx(PI / 2)), ("-inf", _approx(-PI / 2))],
    "atan2": _ATAN2,
    "atanh": [("NaN", "NaN"), ("<-1", "NaN"), (">1", "NaN"), ("-1", "-inf"), ("1", "+inf"),
              ("+0", "+0"), ("-0", "-0")],
    "ceil": _ROUNDING,
    "copysign": [
        ("any", "<0", "-|x1|"), ("any", "-0", "-|x1|"), ("any", "+0", "|x1|"),
        ("any", ">0", "|x1|"), ("any", "-NaN", "-|x1|"), ("any", "+NaN", "|x1|"),
        ("NaN", "<0", "-NaN"), ("NaN", "-0", "-NaN"), ("NaN", "+0", "+NaN"),
        ("NaN", ">0", "+NaN"), ("NaN", "-NaN", "-NaN"), ("NaN", "+NaN", "+NaN"),
    ],
    "cos": [("NaN", "NaN"), ("±0", "1"), ("±inf", "NaN")],
    "cosh": [("NaN", "NaN"), ("±0", "1"), ("±inf", "+inf")],
    "divide": _DIVIDE,
    "equal": [
        ("NaN", "any", "False"), ("any", "NaN", "False"),
        ("+inf", "+inf", "True"), ("-inf", "-inf", "True"),
        ("-0", "±0", "True"), ("+0", "±0", "True"),
        ("finite", "finite", "True", "equal"),
    ],
    "exp": [("NaN", "NaN"), ("±0", "1"), ("+inf", "+inf"), ("-inf", "+0")],
    "expm1": [("NaN", "NaN"), ("+0", "+0"), ("-0", "-0"), ("+inf", "+inf"), ("-inf", "-1")],
    "floor": _ROUNDING,
    "floor_divide": _FLOOR_DIVIDE,
    "hypot": [
        ("±inf", "any", "+inf"), ("any", "±inf", "+inf"),
        ("±0", "any", "|x2|"), ("any", "±0", "|x1|"),
        ("finite or NaN", "NaN", "NaN"), ("NaN", "finite or NaN", "NaN"),
    ],
    "isfinite": [("±inf", "False"), ("NaN", "False"), ("finite", "True")],
    "isinf": [("±inf", "True"), ("finite or NaN", "False")],
    "isnan": [("NaN", "True"), ("not NaN", "False")],
    "log": _LOG,
    "log1p": [("NaN", "NaN"), ("<-1", "NaN"), ("-1", "-inf"), ("-0", "-0"), ("+0", "+0"),
              ("+inf", "+inf")],
    "log2": _LOG,
    "log10": _LOG,
    "logaddexp": [("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
                  ("+inf", "not NaN", "+inf"), ("not NaN", "+inf", "+inf")],
    "maximum": [("NaN", "any", "NaN"), ("any", "NaN", "NaN")],
    "minimum": [("NaN", "any", "NaN"), ("any", "NaN", "NaN")],
    "multiply": [
        ("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
        ("±inf", "±0", "NaN"), ("±0", "±inf", "NaN"),
        ("not NaN", "not NaN", "+sign", "same sign, no inf*0"),
        ("not NaN", "not NaN", "-sign", "different signs, no inf*0"),
        ("±inf", "±inf", "±inf by signs"), ("±inf", "nonzero finite", "±inf by signs"),
        ("nonzero finite", "±inf", "±inf by signs"),
    ],
    "nextafter": [("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
                  ("-0", "+0", "+0"), ("+0", "-0", "-0")],
    "not_equal": [
        ("NaN", "any", "True"), ("any", "NaN", "True"),
        ("+inf", "-inf", "True"), ("-inf", "+inf", "True"),
        ("finite", "finite", "True", "unequal"),
    ],
    "pow": [
        ("!=1", "NaN", "NaN"), ("any", "+0", "1"), ("any", "-0", "1"), ("NaN", "!=0", "NaN"),
        ("|x|>1", "+inf", "+inf"), ("|x|>1", "-inf", "+0"),
        ("|x|=1", "+inf", "1"), ("|x|=1", "-inf", "1"), ("1", "not NaN", "1"),
        ("|x|<1", "+inf", "+0"), ("|x|<1", "-inf", "+inf"),
        ("+inf", ">0", "+inf"), ("+inf", "<0", "+0"),
        ("-inf", ">0 odd integer", "-inf"), ("-inf", ">0 not odd integer", "+inf"),
        ("-inf", "<0 odd integer", "-0"), ("-inf", "<0 not odd integer", "+0"),
        ("+0", ">0", "+0"), ("+0", "<0", "+inf"),
        ("-0", ">0 odd integer", "-0"), ("-0", ">0 not odd integer", "+0"),
        ("-0", "<0 odd integer", "-inf"), ("-0", "<0 not odd integer", "+inf"),
        ("negative finite", "not integer", "NaN"),
    ],
    # "as if 1.0 / x"
    "reciprocal": [("NaN", "NaN"), ("+0", "+inf"), ("-0", "-inf"), ("+inf", "+0"),
                   ("-inf", "-0"), ("positive finite", "+sign"), ("negative finite", "-sign")],
    "remainder": [
        ("NaN", "any", "NaN"), ("any", "NaN", "NaN"),
        ("±inf", "±inf", "NaN"), ("±0", "±0", "NaN"),
        ("+0", ">0", "+0"), ("-0", ">0", "+0"), ("+0", "<0", "-0"), ("-0", "<0", "-0"),
        (">0", "±0", "NaN"), ("<0", "±0", "NaN"),
        ("±inf", "finite", "NaN"),
        ("positive finite", "+inf", "x1"), ("positive finite", "-inf", "x2"),
        ("negative finite", "+inf", "x2"), ("negative finite", "-inf", "x1"),
    ],
    "round": _ROUNDING + [("half", "rint")],
    "sign": [("<0", "-1"), ("±0", "0"), (">0", "1"), ("NaN", "NaN")],
    "signbit": [
        ("+0", "False"), ("-0", "True"), ("+inf", "False"), ("-inf", "True"),
        ("positive finite", "False"), ("negative finite", "True"),
        ("+NaN", "False"), ("-NaN", "True"),
    ],
    "sin": _SIN_TAN,
    "sinh": _ODD,
    # "as if x * x"
    "square": [("NaN", "NaN"), ("±inf", "+inf"), ("±0", "+0"), ("nonzero finite", "+sign")],
    "sqrt": [("NaN", "NaN"), ("<0", "NaN"), ("+0", "+0"), ("-0", "-0"), ("+inf", "+inf")],
    "tan": _SIN_TAN,
    "tanh": [("NaN", "NaN"), ("+0", "+0"), ("-0", "-0"), ("+inf", "1"), ("-inf", "-1")],
    "trunc": _ROUNDING,
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_cases(name):
    fn = FUNCS[name]
    rows = SPECIAL[name]
    pool = [float(v) for v in FLOAT_POOL]
    pairs = list(itertools.product(pool, pool)) if fn.arity == 2 else [(v, NAN) for v in pool]
    got = getattr(xp, name)(*(xp.asarray(np.array(c, F32)) for c in list(zip(*pairs))[: fn.arity]))
    got = np.asarray(got)
    failures, used = [], 0
    for row in rows:
        if fn.arity == 1:
            (c1, result), c2, rel = row, "any", None
        else:
            c1, c2, result, rel = row if len(row) == 4 else (*row, None)
        hits = [k for k, (a, b) in enumerate(pairs)
                if COND[c1](a) and COND[c2](b) and (rel is None or RELATION[rel](a, b))]
        assert hits, f"{name}: no pool value meets {row}"
        used += len(hits)
        for k in hits:
            a, b = pairs[k]
            if not _matches(result, got[k], a, b):
                args = (a,) if fn.arity == 1 else (a, b)
                failures.append(f"{name}{args} = {got[k]!r}, expected {result} ({row})")
    assert not failures, (
        f"{len(failures)} of {used} special cases fail:\n" + "\n".join(failures[:20]))


def test_subtract_is_add_of_negation():
    """The standard defines subtract's special cases as those of x1 + (-x2)."""
    x1, x2 = (xp.asarray(a) for a in all_pairs(FLOAT_POOL, 2))
    assert_equal(xp.subtract(x1, x2), np.asarray(xp.add(x1, xp.negative(x2))))


def test_clip_special_cases():
    x = xp.asarray(np.array([NAN, 1.0, -1.0, 5.0], F32))
    assert_equal(xp.clip(x, 0.0, 2.0), np.array([NAN, 1.0, 0.0, 2.0], F32))
    assert_equal(xp.clip(x, NAN, 2.0), np.full(4, NAN, F32))
    assert_equal(xp.clip(x, 0.0, NAN), np.full(4, NAN, F32))
    assert_equal(xp.clip(x, xp.asarray(np.array([0.0, NAN, 0.0, 0.0], F32))),
                 np.array([NAN, NAN, 0.0, 5.0], F32))


# -- errors ---------------------------------------------------------------------------------


# equal and not_equal take every dtype, so they have nothing to reject
@pytest.mark.parametrize("fn", [f for f in FUNCS.values() if f.category != "any"], ids=str)
def test_rejects_dtype_outside_category(fn):
    outside = sorted(SUPPORTED - SPEC_CATEGORIES[fn.category])
    if fn.name == "divide":  # integers divide as floats (test_integer_true_division)
        outside = [n for n in outside if n not in _INTS]
    assert outside
    for name in outside:
        x = xp.asarray(np.zeros(3, name))
        with pytest.raises(TypeError) as info:
            getattr(xp, fn.name)(*([x] * min(fn.arity, 2)))
        msg = str(info.value)
        assert fn.name in msg and name in msg, msg


@pytest.mark.parametrize("fn", BINARY, ids=str)
def test_wide_and_undefined_promotions(fn):
    """int32 with uint32 (or int8 with uint32) promotes to int64: computed as NumPy does
    where the device has int64, else TypeError naming it. Arrays of two kinds, which the
    standard leaves to the library, promote as NumPy's (an integer operand of a floating
    function too: atan2 of int8 and float32 is float32), or raise TypeError where that
    takes a dtype the device lacks (int32 with float32 is float64)."""
    ints = [n for n in fn.dtypes if n in INT_NAMES]
    if "int32" in ints and "uint32" in ints:
        for a, b in ((np.int32([-7, 2**31 - 1, 5]), np.uint32([3, 2**32 - 1, 0])),
                     (np.uint32([2**32 - 1, 8, 1]), np.int8([-128, 3, 0]))):
            call = lambda: getattr(xp, fn.name)(xp.asarray(a), xp.asarray(b))  # noqa: E731
            if "int64" in SUPPORTED:
                if fn.x2 != "shift":  # (an int64 shift by 2^32 - 1 is unspecified)
                    check(fn, call(), reference(fn, a, b))
            else:
                with pytest.raises(TypeError, match="int64"):
                    call()
    group = {"b": "bool", "i": "int", "u": "int", "f": "float"}
    names = list(fn.dtypes)
    if set(names) <= {"float32"}:  # a floating function: integer operands join it
        names += ["int8", "uint16", "int32"]
    for a, b in itertools.permutations(names, 2):
        if group[np.dtype(DTYPES[a]).kind] == group[np.dtype(DTYPES[b]).kind]:
            continue
        na, nb = np.ones(2, DTYPES[a]), np.array([1, 0], DTYPES[b])
        call = lambda: getattr(xp, fn.name)(xp.asarray(na), xp.asarray(nb))  # noqa: E731
        want = np.result_type(na, nb)
        if want.name not in SUPPORTED:
            with pytest.raises(TypeError, match=want.name):
                call()
        else:
            with np.errstate(all="ignore"):
                check(fn, call(), reference(fn, na, nb))


def _one_of(category: str, kind: str) -> str | None:
    for n in CATEGORY_DTYPES[category]:
        if np.dtype(DTYPES[n]).kind in kind:
            return n
    return None


@pytest.mark.parametrize("fn", BINARY, ids=str)
def test_python_scalar_rules(fn):
    """2025.12: bool with bool arrays, int with integer and floating arrays (in range), float
    with floating arrays; at least one argument must be an array."""
    f = getattr(xp, fn.name)
    signed = _one_of(fn.category, "i")
    if signed:
        x = xp.asarray(np.ones(2, DTYPES[signed]))
        info = np.iinfo(DTYPES[signed])
        for bad in (int(info.max) + 1, int(info.min) - 1):
            with pytest.raises(OverflowError):
                f(bad, x)
            # a negative shift is refused before its range is looked at
            with pytest.raises(ValueError if fn.x2 == "shift" and bad < 0 else OverflowError):
                f(x, bad)
        with pytest.raises(TypeError):
            f(x, 1.5)
        with pytest.raises(TypeError):
            f(2.0, x)
        with pytest.raises(TypeError):
            f(x, True)
    unsigned = _one_of(fn.category, "u")
    if unsigned:
        with pytest.raises(ValueError if fn.x2 == "shift" else OverflowError):
            f(xp.asarray(np.ones(2, DTYPES[unsigned])), -1)
        with pytest.raises(OverflowError):
            f(-1, xp.asarray(np.ones(2, DTYPES[unsigned])))
    if "float32" in fn.dtypes:
        x = xp.asarray(np.array([0.5, -2.0], F32))
        for v in (3, -3, 0.25):
            with np.errstate(all="ignore"):
                check(fn, f(x, v), reference(fn, np.array([0.5, -2.0], F32), np.asarray(v, F32)))
                check(fn, f(v, x), reference(fn, np.asarray(v, F32), np.array([0.5, -2.0], F32)))
        with pytest.raises(TypeError):
            f(x, True)
        # a Python complex makes a complex64 computation: refused unless the function takes
        # complex operands and the device has complex64
        if "complex64" in SUPPORTED and SPEC_CATEGORIES[fn.category] & _COMPLEX:
            assert f(x, 1j).dtype in (xp.complex64, xp.bool)
        else:
            with pytest.raises(TypeError):
                f(x, 1j)
    if "bool" in fn.dtypes:
        b = xp.asarray(np.array([True, False]))
        check(fn, f(b, True), reference(fn, np.array([True, False]), np.asarray(True)))
        with pytest.raises(TypeError):
            f(b, 1)
    with pytest.raises(TypeError):
        f(1, 2)


def test_results_are_new_arrays_of_the_right_dtype():
    x = xp.asarray(np.array([1, 2, 3], np.uint8))
    y = xp.asarray(np.array([1, 2, 3], np.int8))
    assert xp.add(x, y).dtype == xp.int16
    assert xp.equal(x, y).dtype == xp.bool
    assert xp.add(x, 1).dtype == xp.uint8
    assert xp.multiply(xp.asarray(np.float32(2.0)), 3).dtype == xp.float32


def test_inplace_operators_keep_dtype_and_shape():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = xp.asarray(a)
    y = x
    x += 1
    assert x is y
    x *= xp.asarray(np.int8([1, -2, 3]))  # int16 with int8 stays int16
    assert_equal(x, (a + 1) * np.int16([1, -2, 3]))
    v = x[:, ::2]  # a strided view writes through to its base
    v -= 100
    assert_equal(x, ((a + 1) * np.int16([1, -2, 3])) - np.int16([[100, 0, 100]]))
    with pytest.raises(TypeError, match="int32"):
        x += xp.asarray(np.int32([1, 2, 3]))
    with pytest.raises(ValueError, match="shape"):
        x += xp.asarray(np.ones((4, 2, 3), np.int16))
    with pytest.raises(TypeError):
        x /= 2
    with pytest.raises(OverflowError):
        x += 40000
    with pytest.raises(ValueError, match="non-negative"):
        x <<= -1
    with pytest.raises(ValueError, match="non-negative"):
        x >>= -1
    assert_equal(x, ((a + 1) * np.int16([1, -2, 3])) - np.int16([[100, 0, 100]]))
    f = xp.asarray(np.float32([1.0, -3.0]))
    f /= 2
    f **= 2
    assert_equal(f, np.float32([0.25, 2.25]))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_power_by_two_and_minus_one_is_numpys_square_and_reciprocal(dtype):
    # NumPy's operator computes these exponents by square and reciprocal (and so, bit for
    # bit, does webarray's: a pow of float64 in software made SciPy's kernels minutes long)
    edge = [0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-30, 3e38, 1e-45, 7.0, 0.1]
    a = np.array(edge, dtype=np.float32).astype(dtype)
    if dtype == np.complex64:
        a = a + 1j * np.array(edge[::-1], dtype=np.float32)
    with np.errstate(all="ignore"):
        for e in (2, 2.0, -1):
            assert_equal(xp.asarray(a) ** e, a ** e)
            y = xp.asarray(a)
            y **= e
            assert_equal(y, a ** e)
    if dtype == np.float32:
        # x ** 0.5 and x ** -1.0 stay pow: the standard's special cases, not sqrt's
        half = xp.asarray(np.float32([-0.0, -np.inf, 4.0])) ** 0.5
        assert_equal(half, np.float32([0.0, np.inf, 2.0]))
        assert_equal(xp.asarray(np.float32([-0.0, 2.0])) ** -1.0, np.float32([-np.inf, 0.5]))
    assert_equal(xp.asarray(np.int32([3, -4])) ** 2, np.int32([9, 16]))  # integers: pow
