"""Linear algebra functions of the main namespace: matmul, matrix_transpose, tensordot,
vecdot. All share one matmul kernel that reads operands through their strides, so
transposed and broadcast views are never copied."""

from __future__ import annotations

import math
import operator

from . import _dtypes as dt
from ._core import graph as _graph
from ._core import tensor as _tensor
from ._core.algorithms import matmul as _matmul
from ._array_object import Array
from ._elementwise import broadcast_shapes, conj, multiply
from ._statistical import sum as _sum

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def _check(x1, x2, name: str):
    for x in (x1, x2):
        if not isinstance(x, Array):
            raise TypeError(f"{name} requires arrays, got {type(x).__name__}")
        dt.check_category(x.dtype, "numeric", name)
    if x1.device != x2.device:
        raise ValueError(f"{name}: arrays are on different devices ({x1.device!r}, {x2.device!r})")
    out = dt.promote(x1.dtype, x2.dtype)
    x1.device.check_dtype(out)
    return out


def _cast(x: Array, dtype) -> Array:
    return x if x.dtype is dtype else _graph.copy_of(x, dtype)


# complex128 products hold every term (the product kernels have no four-word lane, issue #20)
_C128_TERMS = 1 << 24


def _product(a: Array, b: Array, batch, dtype) -> Array:
    """a @ b over broadcast batch dimensions, C-contiguous. complex128 is the sum over K of
    a[..., :, :, None] * b[..., None, :, :]: every product rounded as multiply rounds it,
    then the reduction's tree sum."""
    if dtype is not dt.complex128:
        return _matmul.matmul(a, b, batch, dtype)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    terms = math.prod(batch) * m * k * n
    if terms > _C128_TERMS:
        raise TypeError(
            f"matmul: a complex128 product of {terms} terms is not supported yet (at most "
            f"{_C128_TERMS}: complex128 products are computed term by term)"
        )
    av = Array._view(a._buf, a.dtype, a.shape + (1,), a._strides + (0,), a._offset, a.device)
    bv = Array._view(b._buf, b.dtype, b.shape[:-2] + (1,) + b.shape[-2:],
                     b._strides[:-2] + (0,) + b._strides[-2:], b._offset, b.device)
    return _graph.bindable(_sum(multiply(av, bv), axis=-2))


def _reshape_contiguous(x: Array, shape) -> Array:
    x = _graph.bindable(x)
    return Array._view(x._buf, x.dtype, shape, _tensor.c_strides(shape), x._offset, x.device)


def matmul(x1: Array, x2: Array, /) -> Array:
    out_dtype = _check(x1, x2, "matmul")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul requires arrays with at least one dimension, got a 0-d array")
    a = _graph.bindable(_cast(x1, out_dtype), strided=True)
    b = _graph.bindable(_cast(x2, out_dtype), strided=True)
    squeeze_m = a.ndim == 1
    squeeze_n = b.ndim == 1
    if squeeze_m:
        a = Array._view(a._buf, a.dtype, (1,) + a.shape, (0,) + a._strides, a._offset, a.device)
    if squeeze_n:
        b = Array._view(b._buf, b.dtype, b.shape + (1,), b._strides + (0,), b._offset, b.device)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"matmul: shapes {x1.shape} and {x2.shape} are not aligned (contracted "
            f"dimensions {a.shape[-1]} != {b.shape[-2]})"
        )

    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = _product(a, b, batch, out_dtype)
    if not (squeeze_m or squeeze_n) and type(out) is Array:
        return out  # (C-contiguous at offset 0 already)
    shape = out.shape
    if squeeze_m and squeeze_n:
        shape = shape[:-2]
    elif squeeze_m:
        shape = shape[:-2] + shape[-1:]
    elif squeeze_n:
        shape = shape[:-1]
    return Array._view(out._buf, out.dtype, shape, _tensor.c_strides(shape), 0, out.device)


def matrix_transpose(x: Array, /) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"matrix_transpose requires an array, got {type(x).__name__}")
    return x.mT


def tensordot(x1: Array, x2: Array, /, *, axes=2) -> Array:
    out_dtype = _check(x1, x2, "tensordot")
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={axes} is out of range for shapes {x1.shape}, {x2.shape}")
        a_axes = list(range(x1.ndim - axes, x1.ndim))
        b_axes = list(range(axes))
    else:
        try:
            a_axes, b_axes = (list(map(operator.index, s)) for s in axes)
        except (TypeError, ValueError):
            raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}") from None
        if len(a_axes) != len(b_axes):
            raise ValueError("tensordot: the two axes sequences must have the same length")
        a_axes = [_norm_axis(i, x1.ndim, "tensordot") for i in a_axes]
        b_axes = [_norm_axis(i, x2.ndim, "tensordot") for i in b_axes]
    for i, j in zip(a_axes, b_axes):
        if x1.shape[i] != x2.shape[j] and 1 not in (x1.shape[i], x2.shape[j]):
            raise ValueError(
                f"tensordot: contracted dimensions differ: axis {i} of x1 has {x1.shape[i]}, "
                f"axis {j} of x2 has {x2.shape[j]}"
            )
    a_free = [i for i in range(x1.ndim) if i not in a_axes]
    b_free = [j for j in range(x2.ndim) if j not in b_axes]
    k_shape = [max(x1.shape[i], x2.shape[j]) for i, j in zip(a_axes, b_axes)]
    a = _expand(_cast(x1, out_dtype), a_axes, k_shape)._permuted(a_free + a_axes)
    b = _expand(_cast(x2, out_dtype), b_axes, k_shape)._permuted(b_axes + b_free)
    m = math.prod(x1.shape[i] for i in a_free)
    n = math.prod(x2.shape[j] for j in b_free)
    k = math.prod(k_shape)
    a2 = _reshape_contiguous(a, (m, k))
    b2 = _reshape_contiguous(b, (k, n))
    out = _product(a2, b2, (), out_dtype)
    shape = tuple(x1.shape[i] for i in a_free) + tuple(x2.shape[j] for j in b_free)
    return Array._view(out._buf, out.dtype, shape, _tensor.c_strides(shape), 0, out.device)


def _expand(x: Array, axes, sizes) -> Array:
    """Broadcast size-1 contracted axes of x to the other operand's sizes (stride 0)."""
    shape, strides = list(x.shape), list(x._strides)
    for ax, size in zip(axes, sizes):
        if shape[ax] == 1 and size != 1:
            shape[ax], strides[ax] = size, 0
    return Array._view(x._buf, x.dtype, shape, strides, x._offset, x.device)


def _norm_axis(axis: int, ndim: int, name: str) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    out_dtype = _check(x1, x2, "vecdot")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot requires arrays with at least one dimension")

    ndim = max(x1.ndim, x2.ndim)
    if not -ndim <= axis < 0 and not 0 <= axis < ndim:
        raise ValueError(f"vecdot: axis {axis} is out of range for {ndim} dimensions")
    if axis >= 0:
        axis -= ndim
    if -axis > min(x1.ndim, x2.ndim):
        raise ValueError(f"vecdot: axis {axis} is out of range for shapes {x1.shape}, {x2.shape}")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(
            f"vecdot: the contracted axis has size {x1.shape[axis]} in x1 and {x2.shape[axis]} in x2"
        )
    shape = broadcast_shapes(x1.shape, x2.shape)
    a = _cast(x1, out_dtype)
    b = _cast(x2, out_dtype)
    if out_dtype.kind == "c":

        a = conj(a)  # the standard's vecdot is sum(conj(x1) * x2)
    if out_dtype is dt.complex128:  # term by term, as _product
        return _sum(multiply(a, b), axis=axis)

    def as_view(x):
        lead = len(shape) - x.ndim
        full_shape = (1,) * lead + x.shape
        strides = (0,) * lead + x._strides
        perm = [d for d in range(len(shape)) if d != len(shape) + axis] + [len(shape) + axis]
        return Array._view(x._buf, x.dtype, [full_shape[p] for p in perm], [strides[p] for p in perm], x._offset, x.device)

    av, bv = as_view(a), as_view(b)
    # (..., 1, K) @ (..., K, 1) -> (..., 1, 1)
    a4 = Array._view(av._buf, av.dtype, av.shape[:-1] + (1, av.shape[-1]), av._strides[:-1] + (0, av._strides[-1]), av._offset, av.device)
    b4 = Array._view(bv._buf, bv.dtype, bv.shape + (1,), bv._strides + (0,), bv._offset, bv.device)
    batch = broadcast_shapes(a4.shape[:-2], b4.shape[:-2])
    out = _matmul.matmul(a4, b4, batch, out_dtype)
    return Array._view(out._buf, out.dtype, batch, _tensor.c_strides(batch), 0, out.device)
