"""``x[key]`` and ``x[key] = value``.

Integers, slices (any step), ``...`` and ``None`` make views. Integer arrays (2024.12
rules: integers and integer arrays broadcast together, trailing dimensions kept) and
boolean masks gather through one kernel that reads the source buffer at computed element
indices; assignment through them scatters the same way. A mask's positions are found on
the host after one readback of the mask, since the result's shape depends on them.

Deviations and choices where the standard leaves behaviour open: indices may cover fewer
axes than the array has (the rest are taken whole, as in NumPy); a list of integers (or of
bools) indexes like the equivalent array, and its bounds are checked on the host; out of
bounds entries of a device index array are clamped into the axis rather than checked,
which would need a readback; integer arrays combine with integers and trailing full
slices only; a boolean array may be followed by ``...`` or full slices only.
"""

from __future__ import annotations

import math
import operator
import reprlib

from . import _dtypes as dt
from ._core import graph as _graph
from ._array_object import Array
from .kernels.expr import Apply, Cast, Gather, Index, Input, Node, Scalar
from ._creation import asarray
from ._elementwise import broadcast_shapes, scalar_dtype_check

_I32 = dt.int32


def _normalize(x: Array, key) -> tuple[tuple, dict]:
    """The key as a tuple of ints, slices, None, ..., Python bools and index arrays, and
    the (lowest, highest) value of each index array that came from a host list."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    host_ranges: dict = {}
    for k in key:
        bounds = None
        if isinstance(k, list):
            k, bounds = _from_list(x, k)
        elif _host_array(k):
            k, bounds = _from_host(x, k)
        if bounds is not None:
            host_ranges[id(k)] = bounds
        if isinstance(k, Array):
            if k.device != x.device:
                raise ValueError(f"index array is on {k.device!r}, the array on {x.device!r}")
            if k.dtype in dt.integer_dtypes and k.ndim == 0:
                k = int(k)
            elif k.dtype not in dt.integer_dtypes and k.dtype is not dt.bool:
                raise IndexError(
                    f"arrays used as indices must be integer or boolean, got a {k.dtype.name} "
                    f"array of shape {k.shape}"
                )
        elif isinstance(k, bool):
            pass
        elif k is None or k is Ellipsis or isinstance(k, slice):
            if isinstance(k, slice):
                for part in (k.start, k.stop, k.step):
                    if part is not None and not _is_int(part):
                        raise IndexError(
                            f"slice bounds must be integers or None, got {type(part).__name__} "
                            f"{_short(part)} in {_short(k)}"
                        )
        else:
            try:
                k = operator.index(k)
            except TypeError:
                raise IndexError(
                    f"only integers, slices, ..., None and integer or boolean arrays are valid "
                    f"indices; got {type(k).__name__} {_short(k)}"
                ) from None
        out.append(k)
    if sum(k is Ellipsis for k in out) > 1:
        raise IndexError(
            f"an index can only have a single ellipsis ('...'), got {sum(k is Ellipsis for k in out)}"
        )
    return tuple(out), host_ranges


def _host_array(k) -> bool:
    """Whether k is a host array of one dimension or more (a NumPy array, or anything with
    NumPy's array interface and a dtype): used as an index, it is read as NumPy and CuPy
    read it (its 0-d form is an integer, through ``__index__``)."""
    return (not isinstance(k, Array) and hasattr(k, "__array_interface__")
            and getattr(k, "ndim", 0) > 0 and hasattr(k, "dtype"))


def _from_host(x: Array, k):
    """A host array index as a device array: a boolean one as a mask, an integer one as
    int32 (int64 past int32's range) with its lowest and highest value, as ``_from_list``."""
    kind = getattr(k.dtype, "kind", "")
    if kind == "b":
        return asarray(k, device=x.device), None
    if kind not in ("i", "u"):
        raise IndexError(
            f"arrays used as indices must be integer or boolean, got a {type(k).__name__} of "
            f"dtype {k.dtype} and shape {tuple(k.shape)}"
        )
    lo, hi = (int(k.min()), int(k.max())) if k.size else (0, 0)
    if lo < -(1 << 63) or hi >= 1 << 63:
        bad = lo if lo < -(1 << 63) else hi
        raise IndexError(f"index {bad} in the index array is out of bounds for any axis")
    name = "int32" if -(1 << 31) <= lo and hi < 1 << 31 else "int64"
    return asarray(k.astype(name), device=x.device), (lo, hi)


def _from_list(x: Array, k: list):
    """A list index as a device array, as NumPy reads it: only bools make a boolean mask,
    only integers an int32 index array (int64 past int32's range). Returns the array and,
    for integers, the lowest and highest value (checked against the axis once it is known)."""

    leaves: list = []

    def ints(v):
        if isinstance(v, (list, tuple)):
            return [ints(e) for e in v]
        leaves.append(v)
        return v if isinstance(v, bool) or not _is_int(v) else operator.index(v)

    nested = ints(k)
    if leaves and all(isinstance(v, bool) for v in leaves):
        return asarray(nested, dtype=dt.bool, device=x.device), None
    for v in leaves:
        if isinstance(v, bool) or not _is_int(v):
            raise IndexError(
                "a list used as an index must hold only integers or only booleans; got "
                f"{type(v).__name__} {_short(v)} in {_short(k)}"
            )
    values = [operator.index(v) for v in leaves]
    lo, hi = min(values, default=0), max(values, default=0)
    # past int32 only a broadcast axis (stride 0, no memory) can be that long; the axis
    # checks the bounds once it is known
    dtype = _I32 if -(1 << 31) <= lo and hi < 1 << 31 else dt.int64
    if lo < -(1 << 63) or hi >= 1 << 63:
        bad = lo if lo < -(1 << 63) else hi
        raise IndexError(f"index {bad} in {_short(k)} is out of bounds for any axis")
    try:
        arr = asarray(nested, dtype=dtype, device=x.device)
    except ValueError as e:  # ragged
        raise IndexError(f"a list used as an index must be rectangular: {e}") from None
    return arr, (lo, hi) if values else None


def _check_host_ranges(x: Array, key: tuple, host_ranges: dict) -> None:
    """Bounds of index arrays made from lists, known on the host without a readback."""
    axis = 0
    for k in key:
        bounds = host_ranges.get(id(k)) if isinstance(k, Array) else None
        if bounds is not None:
            n = x.shape[axis]
            for v in bounds:
                if not -n <= v < n:
                    raise IndexError(f"index {v} is out of bounds for axis {axis} with size {n}")
        axis += _consumed(k)


def _short(v) -> str:
    return reprlib.repr(v)


def _is_int(v) -> bool:
    if isinstance(v, bool):
        return False
    try:
        operator.index(v)
        return True
    except TypeError:
        return False


def _consumed(k) -> int:
    if k is None or k is Ellipsis or isinstance(k, bool):
        return 0
    if isinstance(k, Array) and k.dtype is dt.bool:
        return k.ndim
    return 1


def _expand_ellipsis(x: Array, key: tuple) -> tuple:
    used = sum(_consumed(k) for k in key)
    if used > x.ndim:
        raise IndexError(
            f"too many indices: the index uses {used} dimension{'s' * (used != 1)}, the "
            f"array has {x.ndim}"
        )
    if Ellipsis in key:
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        fill = (slice(None),) * (x.ndim - used)
        return key[:i] + fill + key[i + 1:]
    return key + (slice(None),) * (x.ndim - used)


def _basic(x: Array, key: tuple) -> Array:
    """Apply ints, slices and None; key has no arrays and is expanded."""
    shape, strides, offset = [], [], x._offset
    axis = 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        if isinstance(k, bool):
            shape.append(1 if k else 0)
            strides.append(0)
            continue
        n, s = x._shape[axis], x._strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            shape.append(length)
            strides.append(s * step)
        else:
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            offset += (k % n) * s
        axis += 1
    return Array._view(x._buf, x._dtype, shape, strides, offset, x._device)


def _advanced_parts(x: Array, key: tuple):
    """For keys with integer arrays or a mask: (index arrays per leading axis, rest axes)."""

    if any(isinstance(k, Array) and k.dtype is dt.bool for k in key):
        if not (isinstance(key[0], Array) and key[0].dtype is dt.bool
                and all(isinstance(k, slice) and k == slice(None) for k in key[1:])):
            raise IndexError(
                "a boolean array index must be the only index, optionally after and before "
                "'...' or full slices (x[mask], x[..., mask], x[:, mask, :]); combining it with "
                "other indices is not supported"
            )
        mask = key[0]
        lead = x.shape[:mask.ndim]
        # the standard lets a mask dimension be 0 where the array's is not: nothing is picked
        if mask.ndim > x.ndim or any(m not in (n, 0) for m, n in zip(mask.shape, lead)):
            raise IndexError(
                f"boolean index of shape {mask.shape} does not match the indexed array's "
                f"leading dimensions {lead} (each must equal the array's or be 0)"
            )
        flat = mask._host_flat()
        hits = [i for i, v in enumerate(flat) if v]
        coords = [[] for _ in range(mask.ndim)]
        for h in hits:
            for d in range(mask.ndim - 1, -1, -1):
                coords[d].append(h % mask.shape[d])
                h //= mask.shape[d]
        arrays = [asarray(c, dtype=_I32, device=x.device) for c in coords]
        return arrays, (len(hits),), mask.ndim
    n_adv = len(key)
    while n_adv and isinstance(key[n_adv - 1], slice) and key[n_adv - 1] == slice(None):
        n_adv -= 1
    for k in key[:n_adv]:
        if not (isinstance(k, (int, Array)) and not isinstance(k, bool)):
            raise IndexError(
                "integer array indices must be adjacent, combined only with integers and "
                "with full slices or '...' around them (x[i, j], x[..., i], x[:, i, :]); "
                f"got {k!r}"
            )
    parts = [k for k in key[:n_adv]]
    arrays = []
    for axis, k in enumerate(parts):
        if isinstance(k, int):
            n = x.shape[axis]
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            k = asarray(k, dtype=_I32, device=x.device)
        arrays.append(k)
    s2 = broadcast_shapes(*(a.shape for a in arrays))
    return arrays, s2, n_adv


def _flat_index(x: Array, arrays, s2, n_adv):
    """Index node giving the source element of each output element, and its inputs."""
    rest = x.shape[n_adv:]
    out_shape = tuple(s2) + tuple(rest)
    inputs = []
    scalars = []

    def sc(v) -> Node:
        scalars.append((_I32, v))
        return Scalar(len(scalars) - 1, _I32)

    def op(name, *args, dtype=_I32) -> Node:
        return Apply(name, args, _I32, dtype)

    total: Node = sc(x._offset)
    for axis, a in enumerate(arrays):
        if x._strides[axis] == 0:
            # every index reads the same element (and the axis may be longer than int32)
            continue
        # view the index array with the rest axes appended (stride 0) to match out_shape
        lead = len(s2) - a.ndim
        shape = (1,) * lead + a.shape + (1,) * len(rest)
        strides = (0,) * lead + a._strides + (0,) * len(rest)
        view = Array._view(a._buf, a._dtype, shape, strides, a._offset, a._device)
        inputs.append(view)
        u: Node = Input(len(inputs) - 1, a.dtype)
        if a.dtype is not _I32:
            u = Cast(u, _I32)
        n = x.shape[axis]
        u = op("where", op("less", u, sc(0), dtype=dt.bool), op("add", u, sc(n)), u)
        u = op("clip", u, sc(0), sc(max(n - 1, 0)))  # out of bounds is unspecified: stay inside
        total = op("add", total, op("multiply", u, sc(x._strides[axis])))
    if rest:
        lin = op("remainder", Index(_I32), sc(math.prod(rest) or 1))
        for d in range(len(rest) - 1, -1, -1):
            c = op("remainder", lin, sc(rest[d] or 1)) if d else lin
            total = op("add", total, op("multiply", c, sc(x._strides[n_adv + d])))
            if d:
                lin = op("floor_divide", lin, sc(rest[d] or 1))
    return total, inputs, scalars, out_shape


def _prepare(x: Array, key) -> tuple:
    key, host_ranges = _normalize(x, key)
    key = _expand_ellipsis(x, key)
    if host_ranges:
        _check_host_ranges(x, key, host_ranges)
    return key


def _inner_mask(x: Array, key: tuple):
    """(j, mask) for a key of full slices, then a boolean mask, then full slices, with j >= 1
    slices before the mask (``x[..., mask]``, ``x[:, mask]``): NumPy's selection along the
    mask's axes j ... j + mask.ndim - 1, its hits in their place. None for any other key."""
    at = [i for i, k in enumerate(key) if not (isinstance(k, slice) and k == slice(None))]
    if len(at) != 1 or at[0] == 0:
        return None
    j = at[0]
    mask = key[j]
    if not (isinstance(mask, Array) and mask.dtype is dt.bool):
        return None
    axes = x.shape[j:j + mask.ndim]
    if mask.ndim > x.ndim - j or any(m not in (n, 0) for m, n in zip(mask.shape, axes)):
        raise IndexError(
            f"boolean index of shape {mask.shape} does not match the indexed array's "
            f"dimensions {axes} at axes {j}..{j + mask.ndim - 1} (each must equal the array's "
            "or be 0)")
    return j, mask


def _inner_arrays(key: tuple):
    """(j, m) when key is j >= 1 full slices, then m integers and integer arrays (one array
    at least), then full slices only: NumPy's x[..., i] and x[:, i, :], whose result has the
    indices' broadcast shape in place of axes j ... j + m - 1; else None."""
    full = [isinstance(k, slice) and k == slice(None) for k in key]
    if not full or not full[0]:
        return None
    j = full.index(False) if False in full else len(key)
    m = 0
    while j + m < len(key) and not full[j + m]:
        k = key[j + m]
        if not (isinstance(k, Array) and k.dtype is not dt.bool
                or isinstance(k, int) and not isinstance(k, bool)):
            return None
        m += 1
    if not any(isinstance(k, Array) for k in key[j:j + m]) or not all(full[j + m:]):
        return None
    return j, m


def _value_first(value, rank: int, j: int, k: int):
    """A value assigned to a selection of ``rank`` axes whose axes j ... j + k - 1 are the
    index's, as the view with the indexed axes first takes it: an array reaching those axes
    padded to ``rank`` (broadcasting) with them moved to the front; else value itself."""
    if not isinstance(value, Array) or value.ndim <= rank - j - k:
        return value
    if value.ndim > rank:
        raise ValueError(f"cannot assign an array of shape {value.shape} to a selection of "
                         f"{rank} dimensions")
    value = Array._view(value._buf, value._dtype, (1,) * (rank - value.ndim) + value.shape,
                        (0,) * (rank - value.ndim) + value._strides, value._offset, value._device)
    return _permuted(value, _mask_first(rank, j, k))


def _permuted(x: Array, order) -> Array:
    """A view of x with its axes in ``order``."""
    return Array._view(x._buf, x._dtype, tuple(x._shape[i] for i in order),
                       tuple(x._strides[i] for i in order), x._offset, x._device)


def _mask_first(ndim: int, j: int, k: int) -> list:
    """The axis order that brings axes j ... j + k - 1 of ndim to the front."""
    return list(range(j, j + k)) + list(range(j)) + list(range(j + k, ndim))


def getitem(x: Array, key) -> Array:
    key = _prepare(x, key)
    if not any(isinstance(k, Array) for k in key):
        return _basic(x, key)
    inner = _inner_mask(x, key)
    if inner is not None:  # the mask's axes first, selected, the hits' axis put back at j
        j, mask = inner
        picked = getitem(_permuted(x, _mask_first(x.ndim, j, mask.ndim)), (mask,))
        return _permuted(picked, list(range(1, j + 1)) + [0] + list(range(j + 1, picked.ndim)))
    inner = _inner_arrays(key)
    if inner is not None:  # the indexed axes first, then the indices' axes put back at j
        j, m = inner
        picked = getitem(_permuted(x, _mask_first(x.ndim, j, m)), key[j:j + m])
        k = picked.ndim - x.ndim + m  # the indices' broadcast rank
        return _permuted(picked, list(range(k, k + j)) + list(range(k))
                         + list(range(k + j, picked.ndim)))
    x = _graph.bindable(x, strided=True)
    arrays, s2, n_adv = _advanced_parts(x, key)
    index, inputs, scalars, out_shape = _flat_index(x, arrays, s2, n_adv)
    inputs.append(x)
    node = Gather(len(inputs) - 1, index, x.dtype)
    return _graph.execute(x.device, out_shape, [(node, None)], inputs, scalars,
                          raw_inputs=(len(inputs) - 1,))[0]


def _value_node(x: Array, value, slot: int, scalars: list, what: str):
    """Node for an assigned value, converted to x's dtype, and the array it reads (if any)."""

    if isinstance(value, Array):
        if value.device != x.device:
            raise ValueError(f"{what}: value is on {value.device!r}, the array on {x.device!r}")
        if dt.promotion_table.get((x.dtype, value.dtype)) is not x.dtype:
            raise TypeError(
                f"{what}: cannot assign {value.dtype.name} values into a {x.dtype.name} array "
                "without changing its dtype"
            )
        node: Node = Input(slot, value.dtype)
        return (Cast(node, x.dtype) if value.dtype is not x.dtype else node), value
    scalar_dtype_check(value, x.dtype, what)
    scalars.append((x.dtype, value))
    return Scalar(len(scalars) - 1, x.dtype), None


def setitem(x: Array, key, value) -> None:
    key = _prepare(x, key)
    if not any(isinstance(k, Array) for k in key):
        view = _basic(x, key)
        scalars: list = []
        node, src = _value_node(x, value, 0, scalars, "x[key] = value")
        inputs = [src] if src is not None else []
        if src is not None and broadcast_shapes(view.shape, src.shape) != view.shape:
            raise ValueError(f"cannot assign an array of shape {src.shape} to a selection of shape {view.shape}")
        _graph.execute(x.device, view.shape, [(node, view)], inputs, scalars)
        return
    inner = _inner_mask(x, key)
    if inner is not None:  # as getitem: through a view with the mask's axes first
        j, mask = inner
        value = _value_first(value, x.ndim - mask.ndim + 1, j, 1)  # (the hits' axis at j)
        setitem(_permuted(x, _mask_first(x.ndim, j, mask.ndim)), (mask,), value)
        return
    inner = _inner_arrays(key)
    if inner is not None:  # as getitem: through a view with the indexed axes first
        j, m = inner
        k = len(broadcast_shapes(*(a.shape for a in key[j:j + m] if isinstance(a, Array))))
        value = _value_first(value, x.ndim - m + k, j, k)
        setitem(_permuted(x, _mask_first(x.ndim, j, m)), key[j:j + m], value)
        return
    arrays, s2, n_adv = _advanced_parts(x, key)
    index, inputs, scalars, out_shape = _flat_index(x, arrays, s2, n_adv)
    node, src = _value_node(x, value, len(inputs), scalars, "x[key] = value")
    if src is not None:
        if broadcast_shapes(out_shape, src.shape) != out_shape:
            raise ValueError(f"cannot assign an array of shape {src.shape} to a selection of shape {out_shape}")
        if src._buf is x._buf:
            src = _graph.copy_of(src)
        inputs.append(src)
    _graph.execute(x.device, out_shape, [(node, (x, index))], inputs, scalars)
