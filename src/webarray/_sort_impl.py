"""Launching the sort and search kernels of kernels/webgpu/sort.py.

``sort_rows`` sorts every row of a C-contiguous (rows, n) block of values into (key,
index) pairs, rows padded to a power of two P: one ``block_sort`` launch sorts runs of up
to BLOCK elements in workgroup memory; each later stage 2h (up to P) is the global steps
of distances h down to BLOCK (the first a flip step), up to MAX_FUSED of them per launch,
then one ``block_merge`` for the distances below BLOCK. All
launches of a sort go into the same compute pass; nothing is read back.

Sorting, unique, isin and searchsorted are built from these pieces plus elementwise
kernels (gathers and scatters through _graph.execute); unique's compaction numbers its
groups with the prefix sum of _reduce.scan.
"""

from __future__ import annotations

import array

from . import _dtypes as dt
from . import _graph
from ._array_object import Array
from .kernels.webgpu import sort as gen

_U32 = dt.uint32


def _words(*values) -> bytes:
    return array.array("I", [v & 0xFFFFFFFF for v in values]).tobytes()


def _grid(groups: int, device) -> tuple[int, int, int]:
    limit = device.executor.max_workgroups_per_dim
    groups = max(groups, 1)
    gy = -(-groups // limit)
    return (-(-groups // gy), gy, 1)


def _launch(device, key, make, arrays, uniforms: bytes, groups: int) -> None:
    kid = device.kernel(("sort",) + key, make)
    device.executor.dispatch(kid, [a._buf.handle for a in arrays], uniforms,
                             _grid(groups, device))


def contiguous(x: Array) -> Array:
    return x if _graph.is_contiguous(x.shape, x._strides) else _graph.copy_of(x)


def _check_size(device, words: int, what: str) -> None:
    limit = device.executor.max_binding_size // 4
    if words > limit or words >= 2**32 - 1:
        raise MemoryError(
            f"{what} needs buffers of {words} 32-bit words, more than the {limit} one "
            "binding of this device holds"
        )


def sort_rows(values: Array, rows: int, n: int, descending: bool = False):
    """Sort each row of the C-contiguous (rows, n) values (a 1-D or 2-D contiguous array
    with any offset). Returns (keys, indices, P): uint32 arrays of rows * P pairs, row r
    in [r*P, r*P + n), an index being the element's position r*n + i in values."""
    device = values.device
    p = 1 << max(n - 1, 0).bit_length()
    total = rows * p
    _check_size(device, total, "sorting")
    keys = Array._empty((total,), _U32, device)
    idx = Array._empty((total,), _U32, device)
    if total == 0:
        return keys, idx, p
    flip = 0xFFFFFFFF if descending else 0
    block = gen.BLOCK
    _launch(device, ("block", values.dtype.name), lambda: gen.block_sort(values.dtype),
            [values, keys, idx],
            _words(n, p, total, values._offset, flip, min(p, block)), -(-total // block))
    k = 2 * block
    while k <= p:
        # global steps of distances k/2 down to BLOCK, up to MAX_FUSED per launch, the
        # first launch starting with the stage's flip step
        h, flip = k // 2, True
        while h >= block:
            steps = min(gen.MAX_FUSED, (h // block).bit_length())
            threads = total >> steps
            _launch(device, ("steps", steps, flip),
                    lambda s=steps, f=flip: gen.global_steps(s, f),
                    [keys, idx], _words(threads, h), -(-threads // gen.WORKGROUP))
            h >>= steps
            flip = False
        _launch(device, ("merge",), gen.block_merge, [keys, idx], _words(total),
                -(-total // block))
        k *= 2
    return keys, idx, p


def rows_view(a: Array, batch_shape, n: int, p: int, dtype=dt.int32) -> Array:
    """The first n entries of each padded row of a (rows * p,) pair buffer, seen with shape
    batch_shape + (n,)."""
    strides = tuple(s * p for s in _graph.c_strides(batch_shape)) + (1,)
    return Array._view(a._buf, dtype, tuple(batch_shape) + (n,), strides, a._offset, a.device)


def read_word(a: Array, i: int) -> int:
    """Element i of a 1-D contiguous 32-bit array, read back as an unsigned word."""
    raw = a.device.executor.read(a._buf.handle, (a._offset + i) * 4, 4)
    return int.from_bytes(raw, "little")


def search(sorted_: Array, queries: Array, *, sorted_keys: bool, member: bool = False,
           right: bool = False, invert: bool = False) -> Array:
    """For each value of the contiguous 1-D queries, its insertion point among the m
    sorted entries (int32), or with member whether it is among them (bool). sorted_ holds
    keys (uint32, as sort_rows makes them) or values of queries' dtype, contiguous."""
    device = queries.device
    q = queries.size
    out = Array._empty(queries.shape, dt.bool if member else dt.int32, device)
    if q == 0:
        return out
    key = ("search", queries.dtype.name, sorted_keys, member)
    _launch(device, key, lambda: gen.search(queries.dtype, sorted_keys, member),
            [sorted_, queries, out],
            _words(sorted_.size, sorted_._offset, q, queries._offset, int(right), int(invert)),
            -(-q // gen.WORKGROUP))
    return out
