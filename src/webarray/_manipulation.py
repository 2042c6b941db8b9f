"""Manipulation functions of the standard (15).

Whatever can be a view is one: broadcast_to, broadcast_arrays, expand_dims, flip, moveaxis,
permute_dims, squeeze, unstack, and reshape whenever the strides allow it. The others copy
through the elementwise copy kernel into (views of) a new C-contiguous array: concat and
stack write each input into its slot of the output, tile and integer repeat copy a
broadcast view with a stride-0 axis, roll copies the at most 2**k blocks that a k-axis
roll moves. Shapes and strides travel as uniforms, so these copies share a few kernels.
"""

from __future__ import annotations

import math
import operator

from . import _dtypes as dt
from ._core import graph as _graph
from ._core import tensor as _tensor
from ._array_object import Array
from ._elementwise import broadcast_shapes as _broadcast_shapes
from .kernels.expr import Cast, Input, Node
from ._creation import arange, asarray
from ._searching import searchsorted

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack",
]


# -- argument checks -----------------------------------------------------------------------

def _array(x, what: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{what} requires a webarray array, got {type(x).__name__}")
    return x


def _int(v, what: str) -> int:
    if isinstance(v, bool):
        raise TypeError(f"{what} must be an int, got bool")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{what} must be an int, got {type(v).__name__}") from None


def normalize_axis(axis, ndim: int, what: str) -> int:
    """axis in [-ndim, ndim) as a non-negative int; IndexError otherwise."""
    a = _int(axis, f"{what}: axis")
    if not -ndim <= a < ndim:
        raise IndexError(
            f"{what}: axis {a} is out of bounds for array of dimension {ndim} "
            f"(allowed: {-ndim} to {ndim - 1})"  # (NumPy's words, which callers match)
        )
    return a % ndim


def normalize_axes(axes, ndim: int, what: str) -> tuple[int, ...]:
    """An int or a tuple of ints as distinct non-negative axes."""
    if isinstance(axes, (tuple, list)):
        out = tuple(normalize_axis(a, ndim, what) for a in axes)
    else:
        out = (normalize_axis(axes, ndim, what),)
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: repeated axis in {tuple(axes)}; each axis may appear once")
    return out


def _same_device(arrays, what: str):
    device = arrays[0].device
    for a in arrays[1:]:
        if a.device != device:
            raise ValueError(
                f"{what}: arrays are on different devices ({device!r} and {a.device!r})"
            )
    return device


def _array_sequence(arrays, what: str) -> list[Array]:
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{what} requires a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{what} requires at least one array, got an empty sequence")
    for a in arrays:
        _array(a, what)
    return list(arrays)


def _result_dtype(arrays, what: str) -> dt.DType:
    try:
        dtype = dt.promote_all([a.dtype for a in arrays])
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None
    arrays[0].device.check_dtype(dtype)
    return dtype


# -- copies --------------------------------------------------------------------------------

def copy_into(dst: Array, src: Array) -> None:
    """Write src (broadcast to dst's shape, converted to dst's dtype) into the view dst."""
    node: Node = Input(0, src.dtype)
    if src.dtype is not dst.dtype:
        node = Cast(node, dst.dtype)
    _graph.execute(dst.device, dst.shape, [(node, dst)], [src])


def _view(x: Array, shape, strides, offset=None) -> Array:
    return Array._view(x._buf, x._dtype, shape, strides,
                       x._offset if offset is None else offset, x._device)


# -- the functions -------------------------------------------------------------------------

def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    for a in arrays:
        _array(a, "broadcast_arrays")
    if not arrays:
        return ()
    _same_device(arrays, "broadcast_arrays")
    shape = _broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    checked = []
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"broadcast_shapes takes tuples of ints, got {type(s).__name__}")
        dims = tuple(_int(n, "broadcast_shapes: a dimension") for n in s)
        if any(n < 0 for n in dims):
            raise ValueError(f"broadcast_shapes: negative dimension in {dims}")
        checked.append(dims)
    return _broadcast_shapes(*checked)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """A read-only-in-spirit view: broadcast dimensions have stride 0, so writing through
    the result writes the shared element."""
    _array(x, "broadcast_to")
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"broadcast_to: shape must be a tuple of ints, got {type(shape).__name__}")
    shape = tuple(_int(n, "broadcast_to: a dimension") for n in shape)
    ok = len(shape) >= x.ndim and all(n >= 0 for n in shape) and all(
        a == 1 or a == b for a, b in zip(reversed(x.shape), reversed(shape))
    )
    if not ok:
        raise ValueError(
            f"broadcast_to: an array of shape {x.shape} cannot be broadcast to {shape}"
        )
    return _view(x, shape, _tensor.broadcast_strides(x, shape))


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    arrays = _array_sequence(arrays, "concat")
    device = _same_device(arrays, "concat")
    dtype = _result_dtype(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError(
            "concat: zero-dimensional arrays cannot be concatenated; use axis=None or stack"
        )
    if any(a.ndim != ndim for a in arrays):
        raise ValueError(
            f"concat: all arrays must have the same number of dimensions, got "
            f"{[a.ndim for a in arrays]}"
        )
    ax = normalize_axis(axis, ndim, "concat")
    rest = arrays[0].shape[:ax] + arrays[0].shape[ax + 1:]
    for a in arrays:
        if a.shape[:ax] + a.shape[ax + 1:] != rest:
            raise ValueError(
                f"concat: shapes {[a.shape for a in arrays]} differ outside axis {ax}"
            )
    total = sum(a.shape[ax] for a in arrays)
    out_shape = arrays[0].shape[:ax] + (total,) + arrays[0].shape[ax + 1:]
    out = Array._empty(out_shape, dtype, device)
    start = 0
    lead = (slice(None),) * ax
    for a in arrays:
        n = a.shape[ax]
        if n:
            copy_into(out[lead + (slice(start, start + n),)], a)
        start += n
    return out


def expand_dims(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    _array(x, "expand_dims")
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    m = x.ndim + len(axes)
    pos = normalize_axes(tuple(axes), m, "expand_dims")
    shape, strides = list(x.shape), list(x._strides)
    for p in sorted(pos):
        shape.insert(p, 1)
        strides.insert(p, 0)
    return _view(x, shape, strides)


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    _array(x, "flip")
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim, "flip")
    strides = list(x._strides)
    offset = x._offset
    for a in axes:
        n = x.shape[a]
        if n:
            offset += (n - 1) * strides[a]
        strides[a] = -strides[a]
    return _view(x, x.shape, strides, offset)


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...],
             /) -> Array:
    _array(x, "moveaxis")
    src = normalize_axes(source, x.ndim, "moveaxis (source)")
    dst = normalize_axes(destination, x.ndim, "moveaxis (destination)")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} must have the "
            "same number of axes"
        )
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x._permuted(order)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    _array(x, "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {type(axes).__name__}")
    if len(axes) != x.ndim:
        raise ValueError(
            f"permute_dims: axes {tuple(axes)} must name each of the array's {x.ndim} "
            "dimensions once"
        )
    return x._permuted(normalize_axes(tuple(axes), x.ndim, "permute_dims"))


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """An array ``repeats`` is read back to the host once (the result's shape depends on
    it); the gather that follows runs on the device."""
    _array(x, "repeat")
    if axis is None:
        x = reshape(x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim, "repeat")
    size = x.shape[ax]
    if isinstance(repeats, Array):
        if repeats.dtype not in dt.integer_dtypes:
            raise TypeError(f"repeat: repeats must have an integer dtype, got {repeats.dtype.name}")
        if repeats.device != x.device:
            raise ValueError(f"repeat: repeats is on {repeats.device!r}, x on {x.device!r}")
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, size)):
            raise ValueError(
                f"repeat: repeats of shape {repeats.shape} does not broadcast to the "
                f"{size} elements along the axis (allowed: (1,) or ({size},))"
            )
        counts = repeats._host_flat()
        if any(c < 0 for c in counts):
            raise ValueError("repeat: repeats must be non-negative")
        if len(counts) == 1 and size != 1:
            return _repeat_int(x, counts[0], ax)
        return _repeat_counts(x, counts, ax)
    r = _int(repeats, "repeat: repeats")
    if r < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {r}")
    return _repeat_int(x, r, ax)


def _repeat_int(x: Array, r: int, ax: int) -> Array:
    # copy a view with a stride-0 axis of length r after ax, then merge the two axes
    shape = x.shape[:ax + 1] + (r,) + x.shape[ax + 1:]
    strides = x._strides[:ax + 1] + (0,) + x._strides[ax + 1:]
    out = _graph.copy_of(_view(x, shape, strides))
    new_shape = x.shape[:ax] + (x.shape[ax] * r,) + x.shape[ax + 1:]
    return _view(out, new_shape, _tensor.c_strides(new_shape))


def _repeat_counts(x: Array, counts: list[int], ax: int) -> Array:
    from ._indexing import take  # loop: _indexing imports _manipulation

    ends, total = [], 0
    for c in counts:
        total += c
        ends.append(total)
    if total >= 2**31:
        raise ValueError(f"repeat: the result would have {total} elements along the axis")
    # element j of the result comes from the first source position whose end exceeds j
    src = searchsorted(asarray(ends, dtype=dt.int32, device=x.device),
                       arange(total, dtype=dt.int32, device=x.device), side="right")
    return take(x, src, axis=ax)


def _strides_for(shape, strides, new_shape):
    """Strides that view (shape, strides) as new_shape without copying, or None."""
    if math.prod(shape) == 0:
        return _tensor.c_strides(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    res = [0] * len(new_shape)
    i = j = 0
    while j < len(new_shape):
        if new_shape[j] == 1:
            j += 1
            continue
        # the smallest run of old dims and new dims with equal products
        i0, j0 = i, j
        po, pn = old[i][0], new_shape[j]
        i, j = i + 1, j + 1
        while po != pn:
            if po < pn:
                po *= old[i][0]
                i += 1
            else:
                pn *= new_shape[j]
                j += 1
        for k in range(i0, i - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        s = old[i - 1][1]
        for k in range(j - 1, j0 - 1, -1):
            res[k] = s
            s *= new_shape[k]
    return tuple(res)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    _array(x, "reshape")
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"reshape: shape must be a tuple of ints, got {type(shape).__name__}")
    shape = [_int(n, "reshape: a dimension") for n in shape]
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: only one dimension can be -1, got {tuple(shape)}")
    if any(n < -1 for n in shape):
        raise ValueError(f"reshape: negative dimension in {tuple(shape)} (only -1 is allowed)")
    if -1 in shape:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or x.size % known:
            raise ValueError(
                f"reshape: cannot reshape an array of size {x.size} into {tuple(shape)}"
            )
        shape[shape.index(-1)] = x.size // known
    shape = tuple(shape)
    if math.prod(shape) != x.size:
        raise ValueError(f"reshape: cannot reshape an array of size {x.size} into {shape}")
    if copy:
        src = _graph.copy_of(x)
        return _view(src, shape, _tensor.c_strides(shape))
    strides = _strides_for(x.shape, x._strides, shape)
    if strides is None:
        if copy is False:
            raise ValueError(
                f"reshape(copy=False): an array of shape {x.shape} and strides {x._strides} "
                f"cannot be viewed as {shape} without a copy"
            )
        src = _graph.copy_of(x)
        return _view(src, shape, _tensor.c_strides(shape))
    return _view(x, shape, strides)


def roll(x: Array, /, shift: int | tuple[int, ...], *,
         axis: int | tuple[int, ...] | None = None) -> Array:
    _array(x, "roll")
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise ValueError("roll: a tuple shift needs a tuple axis of the same length")
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shift, axis=0), x.shape)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(normalize_axis(a, x.ndim, "roll") for a in axes)
    if isinstance(shift, (tuple, list)):
        if len(shift) != len(axes):
            raise ValueError(
                f"roll: shift {tuple(shift)} and axis {tuple(axes)} must have the same length"
            )
        shifts = tuple(_int(s, "roll: shift") for s in shift)
    else:
        shifts = (_int(shift, "roll: shift"),) * len(axes)
    total = [0] * x.ndim
    for a, s in zip(axes, shifts):
        total[a] += s  # a repeated axis rolls by the sum of its shifts
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size == 0:
        return out
    # along each rolled axis the source splits into two blocks: [0, n-s) goes to [s, n)
    # and [n-s, n) to [0, s); copy every combination of blocks
    pieces = [[(slice(None), slice(None))]] * x.ndim
    for a in range(x.ndim):
        n = x.shape[a]
        s = total[a] % n
        if s:
            pieces[a] = [(slice(0, n - s), slice(s, n)), (slice(n - s, n), slice(0, s))]
    combos = [((), ())]
    for p in pieces:
        combos = [(src + (ps,), dst + (pd,)) for src, dst in combos for ps, pd in p]
    for src, dst in combos:
        copy_into(out[dst], x[src])
    return out


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    _array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"squeeze: axis {a} has size {x.shape[a]}; only axes of size 1 can be removed"
            )
    keep = [a for a in range(x.ndim) if a not in axes]
    return _view(x, [x.shape[a] for a in keep], [x._strides[a] for a in keep])


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    arrays = _array_sequence(arrays, "stack")
    device = _same_device(arrays, "stack")
    dtype = _result_dtype(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(
            f"stack: all arrays must have the same shape, got {[a.shape for a in arrays]}"
        )
    ax = normalize_axis(axis, len(shape) + 1, "stack")
    out = Array._empty(shape[:ax] + (len(arrays),) + shape[ax:], dtype, device)
    lead = (slice(None),) * ax
    for i, a in enumerate(arrays):
        copy_into(out[lead + (i,)], a)
    return out


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    _array(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(
            f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}"
        )
    reps = [_int(r, "tile: a repetition") for r in repetitions]
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative, got {tuple(reps)}")
    nd = max(x.ndim, len(reps))
    reps = [1] * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + x.shape
    strides = (0,) * (nd - x.ndim) + x._strides
    # copy a view of shape (r0, s0, r1, s1, ...) whose r axes have stride 0, then merge pairs
    vshape, vstrides = [], []
    for r, n, s in zip(reps, shape, strides):
        vshape += [r, n]
        vstrides += [0, s]
    out = _graph.copy_of(_view(x, vshape, vstrides))
    new_shape = tuple(r * n for r, n in zip(reps, shape))
    return _view(out, new_shape, _tensor.c_strides(new_shape))


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    _array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: a zero-dimensional array has no axis to split")
    ax = normalize_axis(axis, x.ndim, "unstack")
    lead = (slice(None),) * ax
    return tuple(x[lead + (i,)] for i in range(x.shape[ax]))
