"""Utility functions of the standard: all, any (tree reductions of "is nonzero") and diff."""

from __future__ import annotations

import builtins

from . import _dtypes as dt
from ._core import graph as _graph
from ._core.algorithms import reduce as _reduce
from ._array_object import Array
from .kernels.expr import Cast, Input
from ._elementwise import subtract

__all__ = ["all", "any", "diff"]


def _truth(x, axis, keepdims, name: str, op: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} requires a webarray array, got {type(x).__name__}")
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, got {keepdims!r}")
    axes = _reduce.normalize_axes(axis, x.ndim, name)
    return _reduce.reduce(x, axes, op, dt.bool, keepdims)


def all(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Any dtype; NaN counts as True, -0.0 as False."""
    return _truth(x, axis, keepdims, "all", "all")


def any(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Any dtype; NaN counts as True, -0.0 as False."""
    return _truth(x, axis, keepdims, "any", "any")


def _along(x: Array, axis: int, start: int, size: int) -> Array:
    """The view of x with ``size`` entries along axis from ``start``."""
    shape = list(x.shape)
    shape[axis] = size
    return Array._view(x._buf, x.dtype, shape, x._strides, x._offset + start * x._strides[axis],
                       x.device)


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """prepend and append may have other dtypes than x: all three are type promoted
    together (so the result has the promoted dtype). Integer differences wrap."""

    if not isinstance(x, Array):
        raise TypeError(f"diff requires a webarray array, got {type(x).__name__}")
    dt.check_category(x.dtype, "numeric", "diff")
    if x.ndim == 0:
        raise ValueError("diff requires an array with at least one dimension, got a 0-d array")
    a = _reduce.normalize_axis(axis, x.ndim, "diff")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    parts = [x]
    dtype = x.dtype
    for label, p in (("prepend", prepend), ("append", append)):
        if p is None:
            continue
        if not isinstance(p, Array):
            raise TypeError(
                f"diff: {label} must be a webarray array or None, got {type(p).__name__}"
            )
        if p.device != x.device:
            raise ValueError(f"diff: {label} is on {p.device!r}, x on {x.device!r}")
        if p.ndim != x.ndim or _mismatch(p.shape, x.shape, a):
            raise ValueError(
                f"diff: {label} has shape {p.shape}; it must match x's shape {x.shape} on "
                f"every axis but axis {a}"
            )
        dt.check_category(p.dtype, "numeric", f"diff ({label})")
        dtype = dt.promote(dtype, p.dtype)
        parts.insert(0 if label == "prepend" else len(parts), p)
    if len(parts) > 1:
        x = _concat(parts, a, dtype)
    for _ in range(n):
        m = max(x.shape[a] - 1, 0)
        x = subtract(_along(x, a, 1, m), _along(x, a, 0, m))
    return x


def _mismatch(shape1, shape2, axis: int) -> bool:
    return builtins.any(s != t for d, (s, t) in enumerate(zip(shape1, shape2)) if d != axis)


def _concat(parts, axis: int, dtype) -> Array:
    """The parts joined along axis into a new array of dtype (values converted)."""
    total = 0
    for p in parts:
        total += p.shape[axis]
    shape = parts[0].shape[:axis] + (total,) + parts[0].shape[axis + 1:]
    device = parts[0].device
    out = Array._empty(shape, dtype, device)
    start = 0
    for p in parts:
        size = p.shape[axis]
        if size:
            node = Input(0, p.dtype)
            if p.dtype is not dtype:
                node = Cast(node, dtype)
            _graph.execute(device, p.shape, [(node, _along(out, axis, start, size))], [p])
        start += size
    return out
