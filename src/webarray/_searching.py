"""Searching functions of the standard.

argmax, argmin and count_nonzero are tree reductions (``_core/algorithms/reduce.py``); indices
and counts
have the default index dtype, int32.
"""

from __future__ import annotations

from . import _dtypes as dt
from ._core.algorithms import reduce as _reduce
from ._array_object import Array
from .kernels.expr import Apply, Index, Input, Scalar
from ._core import graph as _graph
from ._core.algorithms import sort as impl
from ._creation import as_index, asarray
from ._elementwise import (_SCALARS, _int_range, _nodes, _operands, broadcast_shapes,
                           scalar_dtype_check)

__all__ = ["argmax", "argmin", "count_nonzero"]


def _check(x, keepdims, name: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} requires a webarray array, got {type(x).__name__}")
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, got {keepdims!r}")
    return x


def _arg(x, axis, keepdims, name: str) -> Array:
    x = _check(x, keepdims, name)
    dt.check_category(x.dtype, "real numeric", name)
    if axis is not None:
        axis = _reduce.normalize_axis(axis, x.ndim, name, "an int or None")
    return as_index(_reduce.argreduce(x, axis, name, keepdims))


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The first maximum wins; NaN counts as the maximum (the first NaN wins), as in NumPy.
    An empty search raises ValueError."""
    return _arg(x, axis, keepdims, "argmax")


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The first minimum wins; NaN counts as the minimum (the first NaN wins), as in NumPy.
    An empty search raises ValueError."""
    return _arg(x, axis, keepdims, "argmin")


def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
                  keepdims: bool = False) -> Array:
    """Any dtype; NaN counts as nonzero, -0.0 as zero."""
    x = _check(x, keepdims, "count_nonzero")
    axes = _reduce.normalize_axes(axis, x.ndim, "count_nonzero")
    return as_index(_reduce.reduce(x, axes, "count_nonzero", dt.int32, keepdims))


# -- nonzero, searchsorted, where ------------------------------------------------------------
# nonzero compacts on the GPU: flags, a prefix sum (_reduce.scan), one readback of the
# count (the result's shape), then one scatter of every dimension's coordinates.
# searchsorted binary-searches with the sort keys of _sorting (NaNs after +inf,
# -0.0 == +0.0), so that inserting at its answers keeps sort's order.

__all__ += ["nonzero", "searchsorted", "where"]


def _coordinates(shape, scalars: list):
    """Int32 nodes of the C-order coordinates of the current element (from Index)."""

    i32 = dt.int32

    def sc(v):
        scalars.append((i32, v))
        return Scalar(len(scalars) - 1, i32)

    coords = []
    lin = Index(i32)
    for d in range(len(shape) - 1, -1, -1):
        coords.append(Apply("remainder", (lin, sc(shape[d] or 1)), i32, i32) if d else lin)
        if d:
            lin = Apply("floor_divide", (lin, sc(shape[d] or 1)), i32, i32)
    return coords[::-1]


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The count of non-zero elements is read back once (it is the result's shape)."""
    from ._manipulation import _array  # loop: _manipulation imports _searching

    _array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError(
            "nonzero: x must have at least one dimension, got a zero-dimensional array"
        )
    i32, n, device = dt.int32, x.size, x.device
    if n == 0:
        return tuple(as_index(Array._empty((0,), i32, device)) for _ in range(x.ndim))
    if n > _reduce.MAX_INDEX:
        # the flags, their int32 prefix sum and the element index are n long
        raise MemoryError(
            f"nonzero: x of shape {x.shape} has {n} elements; nonzero numbers them in int32 "
            f"and handles at most {_reduce.MAX_INDEX}"
        )
    zero = False if x.dtype is dt.bool else 0
    flag = Apply("not_equal", (Input(0, x.dtype), Scalar(0, x.dtype)), x.dtype, dt.bool)
    flags = _graph.execute(device, x.shape, [(flag, None)], [x], [(x.dtype, zero)])[0]
    flat = Array._view(flags._buf, dt.bool, (n,), (1,), 0, device)
    scan = _reduce.scan(flat, 0, "sum", i32)
    count = impl.read_word(scan, n - 1)
    scalars = [(i32, count), (i32, 1)]
    pos = Apply("subtract", (Input(1, i32), Scalar(1, i32)), i32, i32)
    dst = Apply("where", (Input(0, dt.bool), pos, Scalar(0, i32)), i32, i32)
    coords = _coordinates(x.shape, scalars)
    # one slot past the count takes the writes of the zero elements
    outputs = [(c, (Array._empty((count + 1,), i32, device), dst)) for c in coords]
    scan_view = Array._view(scan._buf, i32, x.shape, flags._strides, scan._offset, device)
    res = _graph.execute(device, x.shape, outputs, [flags, scan_view], scalars)
    return tuple(as_index(r[:count]) for r in res)


def searchsorted(x1: Array, x2: Array | int | float, /, *, side: str = "left",
                 sorter: Array | None = None) -> Array:
    """Order as in sort: NaNs after +inf, -0.0 equal to +0.0. x1 and x2 are compared in
    their promoted dtype; a Python scalar x2 takes x1's dtype."""
    # loop: _manipulation imports _searching, _indexing imports _manipulation
    from ._indexing import take
    from ._manipulation import _array, reshape

    _array(x1, "searchsorted")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, got shape {x1.shape}")
    dt.check_category(x1.dtype, "real numeric", "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if not isinstance(x2, Array):
        if isinstance(x2, bool) or not isinstance(x2, (int, float)):
            raise TypeError(
                f"searchsorted: x2 must be an array, int or float, got {type(x2).__name__}"
            )
        scalar_dtype_check(x2, x1.dtype, "searchsorted")
        x2 = asarray(x2, dtype=x1.dtype, device=x1.device)
    dt.check_category(x2.dtype, "real numeric", "searchsorted")
    if x2.device != x1.device:
        raise ValueError(f"searchsorted: x2 is on {x2.device!r}, x1 on {x1.device!r}")
    if sorter is not None:
        if not isinstance(sorter, Array) or sorter.dtype not in dt.integer_dtypes:
            raise TypeError("searchsorted: sorter must be an integer array")
        if sorter.shape != x1.shape:
            raise ValueError(
                f"searchsorted: sorter has shape {sorter.shape}, x1 has {x1.shape}; they "
                "must match"
            )
        x1 = take(x1, sorter)
    dtype = dt.promote(x1.dtype, x2.dtype)
    x1.device.check_dtype(dtype)
    a = impl.contiguous(_graph.copy_of(x1, dtype) if x1.dtype is not dtype else x1)
    b = _graph.copy_of(x2, dtype) if x2.dtype is not dtype else x2
    q = impl.contiguous(reshape(b, (-1,)))
    out = impl.search(a, q, sorted_keys=False, right=side == "right")
    return as_index(reshape(out, x2.shape))


# where's checked form per (x1 kind, x2 kind), as _elementwise._PLANS keeps the table ops':
# (computing dtype, node, the int range a Python int scalar must fit, or None). Its node reads
# x1 and x2 (arrays) as inputs 0 and 1 and the condition as the last input.
_WHERE_PLANS: dict = {}


def where(condition: Array, x1: Array | int | float | bool, x2: Array | int | float | bool,
          /) -> Array:
    """condition must be a bool array; x1 and x2 promote as in the standard's table, with
    Python scalars taking the other operand's dtype."""
    if isinstance(condition, Array) and condition._dtype is dt.bool:
        a1, a2 = isinstance(x1, Array), isinstance(x2, Array)
        plan = _WHERE_PLANS.get((x1._dtype if a1 else type(x1), x2._dtype if a2 else type(x2)))
        if plan is not None:
            compute, node, ints = plan
            device, shape = condition._device, condition._shape
            inputs, scalars = [], []
            for x, a in ((x1, a1), (x2, a2)):
                if a:
                    if x._shape != shape or x._device is not device:
                        break
                    inputs.append(x)
                else:
                    if ints is not None and type(x) is int and not ints[0] <= x <= ints[1]:
                        break  # the full path raises
                    scalars.append((compute, x))
            else:
                if compute in device.dtypes and 0 not in shape:
                    inputs.append(condition)
                    return _graph.apply(device, shape, node, inputs, scalars)

    if not isinstance(condition, Array):
        raise TypeError(f"where: condition must be an array, got {type(condition).__name__}")
    if condition.dtype is not dt.bool:
        raise TypeError(f"where: condition must have dtype bool, got {condition.dtype.name}")
    arrays, compute = _operands("where", (x1, x2), "any")
    for a in arrays:
        if a.device != condition.device:
            raise ValueError(
                f"where: an operand is on {a.device!r}, condition on {condition.device!r}"
            )
    condition.device.check_dtype(compute)
    shape = broadcast_shapes(condition.shape, *(a.shape for a in arrays))
    nodes, inputs, scalars = _nodes((x1, x2), compute)
    # _nodes numbered its inputs from 0; condition takes the next slot
    node = Apply("where", (Input(len(inputs), dt.bool), nodes[0], nodes[1]), compute, compute)
    if (all(type(n) in (Input, Scalar) for n in nodes)
            and all(isinstance(x, Array) or type(x) in _SCALARS for x in (x1, x2))):
        _WHERE_PLANS[tuple(x._dtype if isinstance(x, Array) else type(x) for x in (x1, x2))] = (
            compute, node, _int_range(compute) if compute.kind in "iu" else None)
    return _graph.execute(condition.device, shape, [(node, None)], inputs + [condition],
                          scalars)[0]
