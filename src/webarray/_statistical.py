"""Statistical functions of the standard, over the tree reductions and block scans of
``_core/algorithms/reduce.py``.

Dtype rules (the default integer dtype is int32): sum, prod and the cumulative functions
return int32 for int8/int16/int32 input and uint32 for uint8/uint16/uint32 input unless
``dtype=`` says otherwise; the elements are converted to the result dtype as they are read,
and integer results wrap in it, as NumPy's do, so ``sum(x, dtype=float64)`` of float32 x
adds in float64 (on a device that offers it). bool input is refused (the standard asks for
numeric input). mean accepts the floating-point dtypes, var and std the real ones; each
computes in its input's dtype.

Empty reductions: sum 0, prod 1, mean/var/std NaN, min/max ValueError.
"""

from __future__ import annotations

from . import _dtypes as dt
from ._core.algorithms import reduce as _reduce
from ._array_object import Array
from ._core.device import DEFAULT_INT

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]

# the accumulators of narrower integers: the default integer dtype, or the unsigned one of
# its width (the standard's rule for sum, prod and the cumulative functions)
_DEFAULT_INT = {"i": DEFAULT_INT, "u": dt.uint64 if DEFAULT_INT is dt.int64 else dt.uint32}


def _array(x, name: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} requires a webarray array, got {type(x).__name__}")
    return x


def _keepdims(keepdims, name: str) -> bool:
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, got {keepdims!r}")
    return keepdims


def _accumulating_dtype(x: Array, dtype, name: str) -> dt.DType:
    """The result dtype of sum, prod and the cumulative functions."""
    if dtype is None:
        if x.dtype.kind in "iu" and x.dtype.bits < DEFAULT_INT.bits:
            return _DEFAULT_INT[x.dtype.kind]
        return x.dtype
    if not isinstance(dtype, dt.DType):
        raise TypeError(f"{name}: dtype must be a webarray dtype or None, got {dtype!r}")
    if dtype not in dt.numeric_dtypes:
        raise TypeError(f"{name}: dtype must be a numeric data type, got {dtype.name}")
    x.device.check_dtype(dtype)
    return dtype


def _reduction(x, axis, keepdims, name: str, category: str):
    x = _array(x, name)
    dt.check_category(x.dtype, category, name)
    return x, _reduce.normalize_axes(axis, x.ndim, name), _keepdims(keepdims, name)


def sum(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: dt.DType | None = None,
        keepdims: bool = False) -> Array:
    """float32 sums are tree (pairwise) sums."""
    x, axes, keepdims = _reduction(x, axis, keepdims, "sum", "numeric")
    out = _accumulating_dtype(x, dtype, "sum")
    return _reduce.reduce(x, axes, "sum", out, keepdims)


def prod(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
         dtype: dt.DType | None = None, keepdims: bool = False) -> Array:
    x, axes, keepdims = _reduction(x, axis, keepdims, "prod", "numeric")
    out = _accumulating_dtype(x, dtype, "prod")
    return _reduce.reduce(x, axes, "prod", out, keepdims)


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """NaN propagates; the maximum of no elements raises ValueError."""
    x, axes, keepdims = _reduction(x, axis, keepdims, "max", "real numeric")
    return _reduce.reduce(x, axes, "max", x.dtype, keepdims)


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """NaN propagates; the minimum of no elements raises ValueError."""
    x, axes, keepdims = _reduction(x, axis, keepdims, "min", "real numeric")
    return _reduce.reduce(x, axes, "min", x.dtype, keepdims)


def mean(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
         keepdims: bool = False) -> Array:
    """Floating-point input only (integer input raises TypeError)."""
    x, axes, keepdims = _reduction(x, axis, keepdims, "mean", "floating-point")
    return _reduce.mean(x, axes, keepdims)


def _correction(correction, name: str) -> float:
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{name}: correction must be an int or a float, got {correction!r}")
    return float(correction)


def var(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """Two passes: the mean, then the tree sum of squared deviations from it."""
    x, axes, keepdims = _reduction(x, axis, keepdims, "var", "real floating-point")
    c = _correction(correction, "var")
    return _reduce.var(x, axes, c, keepdims)


def std(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    x, axes, keepdims = _reduction(x, axis, keepdims, "std", "real floating-point")
    c = _correction(correction, "std")
    return _reduce.var(x, axes, c, keepdims, sqrt=True)


def _cumulative(x, axis, dtype, include_initial, name: str, op: str) -> Array:
    x = _array(x, name)
    dt.check_category(x.dtype, "numeric", name)
    if x.ndim == 0:
        raise ValueError(f"{name} requires an array with at least one dimension, got a 0-d array")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{name}: axis is required for an array of {x.ndim} dimensions (it may be "
                "left out for one-dimensional arrays only)"
            )
        axis = 0
    a = _reduce.normalize_axis(axis, x.ndim, name, "an int (or None for a 1-d array)")
    if not isinstance(include_initial, bool):
        raise TypeError(f"{name}: include_initial must be a bool, got {include_initial!r}")
    out = _accumulating_dtype(x, dtype, name)
    return _reduce.scan(x, a, op, out, include_initial=include_initial)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: dt.DType | None = None,
                   include_initial: bool = False) -> Array:
    """A parallel block scan; 0-d input raises ValueError."""
    return _cumulative(x, axis, dtype, include_initial, "cumulative_sum", "sum")


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: dt.DType | None = None,
                    include_initial: bool = False) -> Array:
    """A parallel block scan; 0-d input raises ValueError."""
    return _cumulative(x, axis, dtype, include_initial, "cumulative_prod", "prod")
