"""``cupy.lib.stride_tricks``: views with strides of the caller's choosing.

``as_strided`` makes a view over the same device buffer (writes through it reach the
original, as NumPy's), with strides in bytes, each a multiple of the item size. Unlike
NumPy it refuses a view that would reach outside the elements its buffer was made for
(IndexError naming the range), so a wrong stride is an error, not a read of stale memory.
"""

from __future__ import annotations

import math

import webarray as _wa
from webarray._array_object import Array

from .._core import operand, to_array, wrap

__all__ = ["as_strided", "broadcast_to", "sliding_window_view"]


def _device_array(x, name: str) -> Array:
    return x if isinstance(x, Array) else to_array(operand(x, name))


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    x = _device_array(x, "as_strided")
    width = x.dtype.itemsize
    shape = tuple(x.shape if shape is None else shape)
    if strides is None:  # NumPy: x's own strides
        if len(shape) != x.ndim:
            raise ValueError(f"as_strided: shape {shape} without strides needs {x.ndim} "
                             "dimensions (x's strides are used)")
        steps = tuple(x._strides)
    else:
        strides = tuple(strides)
        if len(strides) != len(shape):
            raise ValueError(f"as_strided: {len(shape)} dimensions in shape {shape} but "
                             f"{len(strides)} strides {strides}")
        bad = [s for s in strides if s % width]
        if bad:
            raise ValueError(f"as_strided: strides {strides} must be multiples of the item "
                             f"size {width} of {x.dtype}")
        steps = tuple(s // width for s in strides)
    if any(not isinstance(n, int) or n < 0 for n in shape):
        raise ValueError(f"as_strided: shape {shape} must be non-negative integers")
    buf = x._buf
    lo = hi = x._offset
    if math.prod(shape):
        lo += sum(s * (n - 1) for s, n in zip(steps, shape) if s < 0)
        hi += sum(s * (n - 1) for s, n in zip(steps, shape) if s > 0)
        if lo < 0 or (hi + 1) * width > buf.extent:
            raise IndexError(f"as_strided: shape {shape} with strides "
                             f"{tuple(s * width for s in steps)} bytes reaches elements "
                             f"{lo - x._offset}..{hi - x._offset} from the array's start; "
                             f"its buffer holds elements {-x._offset}.."
                             f"{buf.extent // width - x._offset - 1}")
    return wrap(Array._view(buf, x.dtype, shape, steps, x._offset, x.device))


def broadcast_to(array, shape, subok=False):
    return wrap(_wa.broadcast_to(_device_array(array, "broadcast_to"), tuple(shape)))


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's sliding windows: a view whose last dimensions walk the window."""
    x = _device_array(x, "sliding_window_view")
    window_shape = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != x.ndim:
            raise ValueError(f"sliding_window_view: window_shape {window_shape} needs one "
                             f"entry per dimension of shape {x.shape} when axis is None")
    else:
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(axis) != len(window_shape):
            raise ValueError(f"sliding_window_view: {len(window_shape)} window sizes for "
                             f"{len(axis)} axes")
    shape = list(x.shape)
    for ax, w in zip(axis, window_shape):
        ax = ax + x.ndim if ax < 0 else ax
        if not 0 <= w <= shape[ax]:
            raise ValueError(f"sliding_window_view: window {w} does not fit axis {ax} of "
                             f"size {x.shape[ax]}")
        shape[ax] -= w - 1
    width = x.dtype.itemsize
    strides = [s * width for s in x._strides]
    extra = [x._strides[ax] * width for ax in axis]
    return as_strided(x, tuple(shape) + window_shape, tuple(strides) + tuple(extra))
