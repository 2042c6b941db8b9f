"""Sorting functions of the standard: sort and argsort, on the GPU.

Both sort (key, index) pairs (_core/algorithms/sort.py): long rows by a stable LSD radix
sort (kernels/webgpu/radix.py), short rows and WebGL2 by a bitonic network
(kernels/webgpu/sort.py) whose ties are broken by the original position, so every sort is
stable whatever ``stable`` says. sort then gathers the values at the sorted indices, except
where the radix sort takes rows of a one-word dtype (int32, uint32, float32): it then
sorts the values' bits alone, their keys computed at every pass (``sort_values``), so
nothing is gathered.
Order conventions (the standard leaves them to the implementation): NaNs sort after +inf,
so they come last in ascending order and first in descending order; -0.0 and +0.0 compare
equal and keep their relative order. Descending order keeps equal elements in their
original order too (it is not the reverse of the ascending result).
"""

from __future__ import annotations

from . import _dtypes as dt
from ._core import graph as _graph
from ._core.algorithms import sort as impl
from ._array_object import Array
from ._manipulation import _array, moveaxis, normalize_axis
from .kernels.expr import Apply, Gather, Input, Scalar
from ._creation import as_index, zeros

__all__ = ["argsort", "sort"]

_I32 = dt.int32


def _check(x, axis, descending, stable, what: str) -> int:
    _array(x, what)
    dt.check_category(x.dtype, "real numeric", what)
    for name, v in (("descending", descending), ("stable", stable)):
        if not isinstance(v, bool):
            raise TypeError(f"{what}: {name} must be a bool, got {type(v).__name__}")
    if x.ndim == 0:
        if axis not in (-1, 0) or isinstance(axis, bool):
            raise IndexError(f"{what}: axis {axis!r} is invalid for a zero-dimensional array")
        return -1
    return normalize_axis(axis, x.ndim, what)


def _sorted_pairs(x: Array, ax: int, descending: bool, xc=None):
    """(xc, idx, n): xc the C-contiguous rows of x with the axis last, idx the sorted
    pairs' indices (positions in xc) seen with the shape of xc, n the row length."""
    xm = moveaxis(x, ax, -1)
    xc = impl.contiguous(xm) if xc is None else xc
    n = x.shape[ax]
    batch = xm.shape[:-1]
    rows = xc.size // n
    _, idx, p = impl.sort_rows(xc, rows, n, descending)
    return xc, impl.rows_view(idx, batch, n, p), n


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    ax = _check(x, axis, descending, stable, "sort")
    if ax < 0 or x.size == 0 or x.shape[ax] == 1:
        return _graph.copy_of(x)
    xm = moveaxis(x, ax, -1)
    xc = impl.contiguous(xm)
    n = x.shape[ax]
    bits = impl.sort_values(xc, xc.size // n, n, descending)
    if bits is not None:  # the radix sort carried the values: no gather after it
        v = impl.rows_view(bits, xm.shape[:-1], n, n, x.dtype)
        return v if ax == x.ndim - 1 else _graph.copy_of(moveaxis(v, -1, ax))
    xc, idx, n = _sorted_pairs(x, ax, descending, xc)
    out = Array._empty(x.shape, x.dtype, x.device)
    # the value of each sorted pair, read from the rows at its index
    node = Gather(1, Apply("add", (Input(0, _I32), Scalar(0, _I32)), _I32, _I32), x.dtype)
    _graph.execute(x.device, idx.shape, [(node, moveaxis(out, ax, -1))], [idx, xc],
                   [(_I32, xc._offset)], raw_inputs=(1,))
    return out


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Array:
    ax = _check(x, axis, descending, stable, "argsort")
    if ax < 0 or x.size == 0 or x.shape[ax] == 1:

        return as_index(zeros(x.shape, dtype=_I32, device=x.device))
    xc, idx, n = _sorted_pairs(x, ax, descending)
    if xc.size == n and ax == x.ndim - 1:  # one row: its indices are the positions
        return as_index(Array._view(idx._buf, _I32, x.shape, idx._strides, idx._offset, x.device))
    out = Array._empty(x.shape, _I32, x.device)
    # an index is row * n + position: the position is what argsort returns
    node = Apply("remainder", (Input(0, _I32), Scalar(0, _I32)), _I32, _I32)
    _graph.execute(x.device, idx.shape, [(node, moveaxis(out, ax, -1))], [idx], [(_I32, n)])
    return as_index(out)
