"""Set functions of the standard: unique_all, unique_counts, unique_inverse, unique_values
and isin, on the GPU.

unique_*: the flattened values are sorted stably into (key, index) pairs (_sort_impl); a
pair starts a new group when its key differs from the previous one (every NaN starts its
own group, -0.0 and +0.0 share one); an inclusive scan of those flags numbers the groups;
the number of groups is the one value read back (it is the result's shape); one scatter
kernel then writes values, first indices, group starts and inverse indices, and a last
kernel turns starts into counts. Unique values come out in ascending order (NaNs last),
each value as it first occurs in x (so -0.0 when -0.0 comes before +0.0). The two-word
dtypes have no 32-bit keys: their pairs start a group where the sorted value is
``not_equal`` to the previous one (complex64 and complex128 sorted by real part, then
imaginary part; a value with a NaN part is unequal to everything, so it is its own
group).

isin sorts x2 into keys (values, for the two-word dtypes) and binary-searches each
element of x1 among them.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _dtypes as dt
from ._core import graph as _graph
from ._core.algorithms import reduce as _reduce
from ._core.algorithms import sort as impl
from ._array_object import Array
from ._manipulation import _array, reshape
from .kernels.expr import Apply, Gather, Index, Input, Node, Scalar
from .kernels.specs.sort import NAN_KEY
from ._creation import as_index, asarray, full

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

_I32 = dt.int32
_U32 = dt.uint32


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _op(name: str, *args: Node, compute=_I32, dtype=_I32) -> Node:
    return Apply(name, args, compute, dtype)


def _unique(x: Array, what: str, *, indices=False, inverse=False, counts=False) -> dict:
    _array(x, what)
    device = x.device
    n = x.size
    flat = impl.contiguous(reshape(x, (-1,)))
    if n == 0:
        empty = Array._empty((0,), _I32, device)
        return {"values": Array._empty((0,), x.dtype, device), "indices": empty,
                "inverse": Array._empty(x.shape, _I32, device), "counts": empty}
    keys, idx, _ = impl.sort_rows(flat, 1, n)
    i = Array._view(idx._buf, _I32, (n,), (1,), 0, device)
    if keys is None:
        k = _sorted_values(flat, i)
        kt = x.dtype
    else:
        k = Array._view(keys._buf, _U32, (n,), (1,), 0, device)
        kt = _U32

    # flag: this sorted pair starts a group (slots: 0 keys, 1 keys read raw)
    scalars = [(_I32, 1), (_I32, 0)]
    prev = Gather(1, _op("maximum", _op("subtract", Index(_I32), Scalar(0, _I32)),
                         Scalar(1, _I32)), kt)
    key = Input(0, kt)
    flag = _op("logical_or", _op("equal", Index(_I32), Scalar(1, _I32), dtype=dt.bool),
               _op("not_equal", key, prev, compute=kt, dtype=dt.bool),
               compute=dt.bool, dtype=dt.bool)
    if x.dtype.kind == "f" and keys is not None:  # NaN keys of one word (float32)
        scalars.append((_U32, NAN_KEY))
        flag = _op("logical_or", flag,
                   _op("equal", key, Scalar(2, _U32), compute=_U32, dtype=dt.bool),
                   compute=dt.bool, dtype=dt.bool)
    flags = _graph.execute(device, (n,), [(flag, None)], [k, k], scalars,
                           raw_inputs=(1,))[0]
    scan = _reduce.scan(flags, 0, "sum", _I32)
    groups = impl.read_word(scan, n - 1)

    # one slot past the groups takes the writes of pairs that start no group
    size = (groups + 1,)
    inputs = [flags, scan, i, flat]
    scalars = [(_I32, groups), (_I32, 1), (_I32, flat._offset)]
    group: Node = _op("subtract", Input(1, _I32), Scalar(1, _I32))
    dst = _op("where", Input(0, dt.bool), group, Scalar(0, _I32))
    src = Input(2, _I32)
    outputs = [(Gather(3, _op("add", src, Scalar(2, _I32)), x.dtype),
                (Array._empty(size, x.dtype, device), dst))]
    if indices:
        outputs.append((src, (Array._empty(size, _I32, device), dst)))
    if counts:
        outputs.append((Index(_I32), (Array._empty(size, _I32, device), dst)))
    if inverse:
        outputs.append((group, (Array._empty((n,), _I32, device), src)))
    res = _graph.execute(device, (n,), outputs, inputs, scalars, raw_inputs=(3,))
    out = {"values": res.pop(0)[:groups]}
    if indices:
        out["indices"] = res.pop(0)[:groups]
    if counts:
        starts = res.pop(0)
        # count = next group's start (n after the last group) - this group's start
        nxt = _op("add", Index(_I32), Scalar(0, _I32))
        node = _op("subtract",
                   _op("where", _op("less", nxt, Scalar(1, _I32), dtype=dt.bool),
                       Gather(1, nxt, _I32), Scalar(2, _I32)),
                   Input(0, _I32))
        out["counts"] = _graph.execute(device, (groups,), [(node, None)], [starts[:groups], starts],
                                       [(_I32, 1), (_I32, groups), (_I32, n)],
                                       raw_inputs=(1,))[0]
    if inverse:
        out["inverse"] = reshape(res.pop(0), x.shape)
    return out


def _sorted_values(flat: Array, idx: Array) -> Array:
    """The contiguous 1-D flat's values in the order of the sorted indices idx."""
    node = Gather(1, _op("add", Input(0, _I32), Scalar(0, _I32)), flat.dtype)
    return _graph.execute(flat.device, idx.shape, [(node, None)], [idx, flat],
                          [(_I32, flat._offset)], raw_inputs=(1,))[0]


def unique_all(x: Array, /) -> UniqueAllResult:
    r = _unique(x, "unique_all", indices=True, inverse=True, counts=True)
    return UniqueAllResult(r["values"], as_index(r["indices"]), as_index(r["inverse"]),
                           as_index(r["counts"]))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    r = _unique(x, "unique_counts", counts=True)
    return UniqueCountsResult(r["values"], as_index(r["counts"]))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    r = _unique(x, "unique_inverse", inverse=True)
    return UniqueInverseResult(r["values"], as_index(r["inverse"]))


def unique_values(x: Array, /) -> Array:
    return _unique(x, "unique_values")["values"]


def _int_scalar(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what}: expected an array or a Python int, got {type(v).__name__}")
    return v


def _scalar_array(v: int, like: Array):
    """v as a 0-d array of like's dtype, or None when no element of that dtype equals v."""

    if like.dtype is dt.bool:
        raise TypeError("isin: a Python int does not compare with a bool array")
    if like.dtype.kind in "iu":
        lo, hi = ((0, (1 << like.dtype.bits) - 1) if like.dtype.kind == "u"
                  else (-(1 << (like.dtype.bits - 1)), (1 << (like.dtype.bits - 1)) - 1))
        if not lo <= v <= hi:
            return None
        return asarray(v, dtype=like.dtype, device=like.device)
    return asarray(float(v), dtype=like.dtype, device=like.device)


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """Arrays of different dtypes are compared in their promoted dtype (TypeError where the
    standard defines none, or where it is not supported on the device, e.g. int32 with
    uint32 promotes to int64)."""

    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, got {type(invert).__name__}")
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError("isin: at least one of x1 and x2 must be an array")
    if not isinstance(x1, Array):
        x1 = _scalar_array(_int_scalar(x1, "isin"), x2)
        if x1 is None:
            return full((), invert, dtype=dt.bool, device=x2.device)
    if not isinstance(x2, Array):
        x2 = _scalar_array(_int_scalar(x2, "isin"), x1)
        if x2 is None:
            return full(x1.shape, invert, dtype=dt.bool, device=x1.device)
    if x1.device != x2.device:
        raise ValueError(f"isin: x1 is on {x1.device!r}, x2 on {x2.device!r}")
    dtype = dt.promote(x1.dtype, x2.dtype)
    x1.device.check_dtype(dtype)
    shape = x1.shape
    if x2.size == 0:
        return full(shape, invert, dtype=dt.bool, device=x1.device)
    a = _graph.copy_of(x1, dtype) if x1.dtype is not dtype else x1
    b = _graph.copy_of(x2, dtype) if x2.dtype is not dtype else x2
    b = impl.contiguous(reshape(b, (-1,)))
    keys, idx, _ = impl.sort_rows(b, 1, b.size)
    q = impl.contiguous(reshape(a, (-1,)))
    if keys is None:
        s = _sorted_values(b, Array._view(idx._buf, _I32, (b.size,), (1,), 0, b.device))
        found = impl.search(s, q, sorted_keys=False, member=True, invert=invert)
    else:
        k = Array._view(keys._buf, _U32, (b.size,), (1,), 0, b.device)
        found = impl.search(k, q, sorted_keys=True, member=True, invert=invert)
    return reshape(found, shape)
