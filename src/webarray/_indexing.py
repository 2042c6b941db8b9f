"""Indexing functions of the standard: take and take_along_axis.

Both are one gather kernel, the same machinery as integer-array ``x[key]``: each output
element decomposes its linear index into coordinates, replaces the coordinate along
``axis`` by the (wrapped) index read from ``indices``, and reads x's buffer at the element
those coordinates address through x's strides. The axis, shape and strides are uniforms,
so one kernel serves every axis of arrays of the same rank. Out-of-bounds indices are
unspecified by the standard; here they are clamped into the axis.
"""

from __future__ import annotations

from . import _dtypes as dt
from ._core import graph as _graph
from ._array_object import Array
from ._manipulation import _array, normalize_axis
from .kernels.expr import Apply, Cast, Gather, Index, Input, Node, Scalar

__all__ = ["take", "take_along_axis"]

_I32 = dt.int32


def gather_along(x: Array, indices: Array, axis: int, out_shape: tuple[int, ...],
                 x_strides: tuple[int, ...]) -> Array:
    """out[c] = x[c with c[axis] replaced by indices[c]]; indices broadcasts to out_shape,
    x_strides are x's strides seen with out_shape (0 along broadcast dimensions)."""
    scalars: list = []

    def sc(v) -> Node:
        scalars.append((_I32, v))
        return Scalar(len(scalars) - 1, _I32)

    def op(name, *args, dtype=_I32) -> Node:
        return Apply(name, args, _I32, dtype)

    n = x.shape[axis]
    u: Node = Input(0, indices.dtype)
    if indices.dtype is not _I32:
        u = Cast(u, _I32)
    u = op("where", op("less", u, sc(0), dtype=dt.bool), op("add", u, sc(n)), u)
    u = op("clip", u, sc(0), sc(max(n - 1, 0)))
    total: Node = op("add", sc(x._offset), op("multiply", u, sc(x._strides[axis])))
    lin: Node = Index(_I32)
    for d in range(len(out_shape) - 1, -1, -1):
        # the axis' own coordinate gets stride 0: the index above replaces it
        stride = 0 if d == axis else x_strides[d]
        c = op("remainder", lin, sc(out_shape[d] or 1)) if d else lin
        total = op("add", total, op("multiply", c, sc(stride)))
        if d:
            lin = op("floor_divide", lin, sc(out_shape[d] or 1))
    node = Gather(1, total, x.dtype)
    return _graph.execute(x.device, out_shape, [(node, None)], [indices, x], scalars,
                          raw_inputs=(1,))[0]


def _index_array(indices, x: Array, what: str) -> Array:
    if not isinstance(indices, Array):
        raise TypeError(f"{what}: indices must be an integer array, got {type(indices).__name__}")
    if indices.dtype not in dt.integer_dtypes:
        raise TypeError(f"{what}: indices must have an integer dtype, got {indices.dtype.name}")
    if indices.device != x.device:
        raise ValueError(f"{what}: indices are on {indices.device!r}, x on {x.device!r}")
    return indices


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    _array(x, "take")
    _index_array(indices, x, "take")
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be one-dimensional, got shape {indices.shape}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"take: axis is required for an array of {x.ndim} dimensions (optional only "
                "for one-dimensional arrays)"
            )
        axis = 0
    if x.ndim == 0:
        raise ValueError("take: x must have at least one dimension")
    ax = normalize_axis(axis, x.ndim, "take")
    x = _graph.bindable(x, strided=True)
    k = indices.shape[0]
    if x.shape[ax] == 0 and k:
        raise IndexError(f"take: cannot take {k} elements from axis {ax}, which is empty")
    out_shape = x.shape[:ax] + (k,) + x.shape[ax + 1:]
    idx = Array._view(indices._buf, indices.dtype, out_shape,
                      tuple(indices._strides[0] if d == ax else 0 for d in range(x.ndim)),
                      indices._offset, indices.device)
    return gather_along(x, idx, ax, out_shape, x._strides)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    _array(x, "take_along_axis")
    _index_array(indices, x, "take_along_axis")
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have as many dimensions as x ({x.ndim}), got "
            f"{indices.ndim}"
        )
    ax = normalize_axis(axis, x.ndim, "take_along_axis")
    x = _graph.bindable(x, strided=True)
    out_shape = []
    for d, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if d == ax:
            out_shape.append(b)
        elif a == b or a == 1 or b == 1:
            out_shape.append(b if a == 1 else a)
        else:
            raise ValueError(
                f"take_along_axis: x of shape {x.shape} and indices of shape {indices.shape} "
                f"do not broadcast outside axis {ax}"
            )
    out_shape = tuple(out_shape)
    if x.shape[ax] == 0 and 0 not in out_shape:
        raise IndexError(f"take_along_axis: cannot take elements from axis {ax}, which is empty")
    x_strides = tuple(0 if (n == 1 and m != 1) else s
                      for n, s, m in zip(x.shape, x._strides, out_shape))
    return gather_along(x, indices, ax, out_shape, x_strides)
