"""Launching the sort and search kernels of ``Device.kernels.sort`` (kernels/webgpu/sort.py,
or its WebGL2 counterpart, whose BLOCK and MAX_FUSED of 1 make every step one launch) and
the radix sort of ``Device.kernels.radix`` (kernels/webgpu/radix.py; WebGPU only).

Rows from the crossover of ``_radix_plan`` on sort by LSD radix sort (``_radix_rows``):
8-bit digits, four passes of histogram, offsets and scatter over unpadded rows (P = n),
stable, so the two-word dtypes are simply eight passes, minor word first. On lavapipe it
overtakes the network at 2^12 elements and is 2.5x faster at 2^18; on an H200 at 2^17,
1.7x faster at 2^20-2^22 (benchmarks/NOTES-sort.md). Shorter rows, and every row on
WebGL2, take the bitonic network:

``sort_rows`` sorts every row of a C-contiguous (rows, n) block of values into (key,
index) pairs, rows padded to a power of two P: one ``block_sort`` launch sorts runs of up
to BLOCK elements in workgroup memory; each later stage 2h (up to P) is the global steps
of distances h down to BLOCK (the first a flip step), up to MAX_FUSED of them per launch,
then one ``block_merge`` for the distances below BLOCK. All
launches of a sort go into the same compute pass; nothing is read back.

On the network, two-word dtypes sort in two stable passes, least significant word first: the second
word (imaginary part of complex64, low word of int64/uint64) and then, gathered in the
order the first pass found, the first one (real part; high word, signed for int64);
complex128 the same way with float64 parts for words, on either path.
Since each pass is stable, the result is the stable lexicographic order. float64 values
are first mapped to int64 keys that order as the values do (``_f64_keys``), which then sort
as int64 does.

Sorting, unique, isin and searchsorted are built from these pieces plus elementwise
kernels (gathers and scatters through _graph.execute); unique's compaction numbers its
groups with the prefix sum of reduce.scan (algorithms/reduce.py).
"""

from __future__ import annotations

from ... import _dtypes as dt
from ...kernels import uniforms
from ...kernels.expr import Apply, Gather, Input, Scalar
from .. import graph as _graph
from .. import launch
from .. import tensor
from ..tensor import Tensor

_U32 = dt.uint32
_I32 = dt.int32
# (major word, minor word) of each two-word dtype: (word, dtype it sorts as)
_WORDS = {"int64": ((1, dt.int32), (0, _U32)), "uint64": ((1, _U32), (0, _U32)),
          "complex64": ((0, dt.float32), (1, dt.float32)),
          "complex128": ((0, dt.float64), (1, dt.float64))}


def _words(*values) -> bytes:
    return uniforms.pack(values, "sort")


def contiguous(x: Tensor) -> Tensor:
    return _graph.bindable(x)


def _check_size(device, words: int, what: str) -> None:
    limit = device.executor.max_binding_size // 4
    if words > limit or words >= 2**32 - 1:
        raise MemoryError(
            f"{what} needs buffers of {words} 32-bit words, more than the {limit} one "
            "binding of this device holds"
        )


def _word(values: Tensor, word: int, dtype) -> Tensor:
    """One word of each element of the contiguous two-word values, as a contiguous array."""
    v = tensor.view(values._buf, dtype, (values.size,), (2,), 2 * values._offset + word,
                    values.device)
    return _graph.copy_of(v)


def sort_rows(values: Tensor, rows: int, n: int, descending: bool = False):
    """Sort each row of the C-contiguous (rows, n) values (a 1-D or 2-D contiguous array
    with any offset). Returns (keys, indices, P): uint32 arrays of rows * P pairs, row r
    in [r*P, r*P + n), an index being the element's position r*n + i in values; P is n
    (radix sort) or the power of two the network pads rows to. keys is None for the
    two-word dtypes (their order is not one of 32-bit keys) and complex128 (sorted by one
    stable pass per part: float64 sorts, each as its own pairs)."""
    if values.dtype is dt.complex128:
        return _sort_rows_wide(values, rows, n, descending)
    rx = _radix_for(values, rows, n)
    if rx is not None:
        return _radix_rows(rx, values, rows, n, descending)
    if values.dtype is dt.float64:
        return _sort_rows_wide(_f64_keys(values), rows, n, descending)
    if values.dtype.name in _WORDS:
        return _sort_rows_wide(values, rows, n, descending)
    device = values.device
    p = 1 << max(n - 1, 0).bit_length()
    total = rows * p
    _check_size(device, total, "sorting")
    keys = tensor.empty((total,), _U32, device)
    idx = tensor.empty((total,), _U32, device)
    if total == 0:
        return keys, idx, p
    flip = 0xFFFFFFFF if descending else 0
    gen = device.kernels.sort
    block = gen.BLOCK
    launch.kernel(device, ("sort", "block", values.dtype.name), lambda: gen.block_sort(values.dtype),
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
            launch.kernel(device, ("sort", "steps", steps, flip),
                          lambda s=steps, f=flip: gen.global_steps(s, f),
                          [keys, idx], _words(threads, h), -(-threads // gen.WORKGROUP))
            h >>= steps
            flip = False
        launch.kernel(device, ("sort", "merge"), gen.block_merge, [keys, idx], _words(total),
                      -(-total // block))
        k *= 2
    return keys, idx, p


# (row length from which radix sort beats the network, about how many workgroups a radix
# pass has), measured in benchmarks/NOTES-sort.md. A CPU adapter (lavapipe) pays per
# element, so radix wins early; a GPU pays per launch (a radix sort makes 12, ~0.35 ms on
# an H200 up to 2^19; the network fewer below 2^16), so the network stays ahead up to 2^16
# there (session 14; 2^21 before the radix kernels' loops were written out), where more
# blocks fill the chip.
RADIX_CPU = (1 << 12, 1024)
RADIX_GPU = (1 << 17, 4096)
RADIX_MIN = None  # set: radix sort from this row length on every adapter (tests)


def _radix_plan(device) -> tuple[int, int]:
    lo, blocks = RADIX_CPU if device.on_cpu else RADIX_GPU
    return (lo if RADIX_MIN is None else RADIX_MIN), blocks


_ONE_WORD = ("int32", "uint32", "float32")


def sort_values(values: Tensor, rows: int, n: int, descending: bool = False):
    """The sorted values of each row of the C-contiguous (rows, n) values, as a contiguous
    uint32 array of their bits (rows * n), where the radix sort takes the rows and the
    dtype is one word wide: it then moves the values alone (no index, no gather after
    it). None otherwise (sort_rows, then a gather)."""
    rx = _radix_for(values, rows, n)
    if rx is None or values.dtype.name not in _ONE_WORD:
        return None
    return _radix_rows(rx, values, rows, n, descending, carry=True)[1]


def _radix_for(values: Tensor, rows: int, n: int):
    """The radix generators when the radix sort takes these rows (from the crossover of
    ``_radix_plan``, WebGPU only), else None (the network)."""
    rx = getattr(values.device.kernels, "radix", None)
    if rx is None or rows == 0 or n < _radix_plan(values.device)[0]:
        return None
    return rx


def _radix_rows(rx, values: Tensor, rows: int, n: int, descending: bool, carry: bool = False):
    """sort_rows by the LSD radix sort of kernels/webgpu/radix.py: ping-pong between two
    (key, index) buffer pairs, one histogram, offsets and scatter per digit; the two-word
    dtypes sort by the minor word's key and then, stably, by the major word's. carry: the
    values alone, their keys computed at every pass (sort_values; returns (None, their
    sorted bits, n))."""
    device = values.device
    total = rows * n
    _check_size(device, total, "sorting")
    bits = rx.BITS
    if values.dtype is dt.float64:
        values = _f64_keys(values)
    if values.dtype.name in _WORDS:
        (major, major_dt), (minor, minor_dt) = _WORDS[values.dtype.name]
        words = [(_word(values, minor, minor_dt), False), (_word(values, major, major_dt), True)]
    else:
        words = [(values, False)]
    # a block covers a whole number of tiles of one row
    tiles = -(-n // rx.TILE)
    span = rx.TILE * max(1, -(-rows * tiles // _radix_plan(device)[1]))
    blocks = -(-n // span)
    nb = rows * blocks
    _check_size(device, nb << bits, "sorting")
    flip = 0xFFFFFFFF if descending else 0
    chunking = rx.offsets_chunking(blocks)
    # one buffer of counts and one of digit totals serve every pass (the passes run in order)
    h = tensor.empty((nb << bits,), _U32, device)
    t = tensor.empty((rows << bits,), _U32, device)

    def count(src: Tensor, dtype, u: bytes) -> None:
        """A pass's digit counts of src (keys, or values of dtype whose keys are computed),
        then their offsets, into h and t."""
        launch.kernel(device, ("sort", "radix-histogram", bits, dtype and dtype.name),
                      lambda: rx.histogram(bits, dtype), [src, h], u, nb)
        launch.kernel(device, ("sort", "radix-offsets", bits) + chunking,
                      lambda: rx.offsets(bits, *chunking), [h, t], u, rows << bits)

    if carry:  # the values alone, their keys computed at every pass (radix.scatter)
        dtype, v = values.dtype, values
        pair = [tensor.empty((total,), _U32, device) for _ in range(2)]
        for p, shift in enumerate(range(0, 32, bits)):
            out = pair[p % 2]
            u = _words(n, blocks, span, nb, shift, v._offset, flip)
            count(v, dtype, u)
            launch.kernel(device, ("sort", "radix-values", bits, dtype.name),
                          lambda: rx.scatter(bits, dtype, values=True), [v, h, t, out], u, nb)
            v = out
        return None, v, n
    k, i, k2, i2 = (tensor.empty((total,), _U32, device) for _ in range(4))
    for word, gather in words:
        if gather:  # the gathered second word of a two-word dtype: its pairs made first
            launch.kernel(device, ("sort", "radix-keys", word.dtype.name, gather),
                          lambda w=word, g=gather: rx.keys(w.dtype, g), [word, k, i],
                          _words(n, blocks, span, nb, 0, total, word._offset, flip),
                          -(-total // rx.WORKGROUP))
        for shift in range(0, 32, bits):
            # the first pass of a word not gathered reads the values themselves (first:
            # their dtype), every other pass the previous pass's pairs
            first = word.dtype if not gather and shift == 0 else None
            if first is None:
                u, src = _words(n, blocks, span, nb, shift), [k, i]
            else:
                u, src = _words(n, blocks, span, nb, shift, word._offset, flip), [word, word]
            count(src[0], first, u)
            launch.kernel(device, ("sort", "radix-scatter", bits, first and first.name),
                          lambda f=first: rx.scatter(bits, f), src + [h, k2, i2, t], u, nb)
            k, i, k2, i2 = k2, i2, k, i
    return (None if len(words) == 2 else k), i, n


_I64_MAX = 2**63 - 1
_F64_INF_BITS = 0x7FF0000000000000


def _f64_keys(values: Tensor) -> Tensor:
    """int64 keys of the contiguous float64 values, in the order of sort: the IEEE bits s
    read as int64, negative values' magnitude bits flipped (s ^ ((s >> 63) & MAX)), -0.0
    and +0.0 both 0, every NaN the int64 maximum (after +inf's key, 0x7ff0000000000000)."""
    i64 = dt.int64
    s = Input(0, i64)

    def op(name: str, *args) -> Apply:
        return Apply(name, args, i64, i64)

    maxi, zero, shift, inf = (Scalar(k, i64) for k in range(4))
    mag = op("bitwise_and", s, maxi)
    ordered = op("bitwise_xor", s, op("bitwise_and", op("bitwise_right_shift", s, shift), maxi))
    signless = Apply("where", (Apply("equal", (mag, zero), i64, dt.bool), zero, ordered), i64, i64)
    key = Apply("where", (Apply("greater", (mag, inf), i64, dt.bool), maxi, signless), i64, i64)
    bits = tensor.view(values._buf, i64, values.shape, values._strides, values._offset,
                       values.device)
    return _graph.execute(values.device, values.shape, [(key, None)], [bits],
                          [(i64, _I64_MAX), (i64, 0), (i64, 63), (i64, _F64_INF_BITS)])[0]


def _sort_rows_wide(values: Tensor, rows: int, n: int, descending: bool):
    device = values.device
    (major, major_dt), (minor, minor_dt) = _WORDS[values.dtype.name]
    _, first, p = sort_rows(_word(values, minor, minor_dt), rows, n, descending)
    if rows * p == 0:
        return None, first, p
    first = _graph.copy_of(rows_view(first, (rows,), n, p))
    # the major words in the order of the first pass, then sorted stably
    hi = _word(values, major, major_dt)
    node = Gather(1, Apply("add", (Input(0, _I32), Scalar(0, _I32)), _I32, _I32), major_dt)
    hi = _graph.execute(device, (rows, n), [(node, None)], [first, hi], [(_I32, hi._offset)],
                        raw_inputs=(1,))[0]
    _, second, _ = sort_rows(hi, rows, n, descending)
    # compose: the element at position j of the second pass is first[j]
    out = tensor.empty((rows * p,), _U32, device)
    node = Gather(1, Apply("add", (Input(0, _I32), Scalar(0, _I32)), _I32, _I32), _I32)
    _graph.execute(device, (rows, n), [(node, rows_view(out, (rows,), n, p))],
                   [rows_view(second, (rows,), n, p), first], [(_I32, first._offset)],
                   raw_inputs=(1,))
    return None, out, p


def rows_view(a: Tensor, batch_shape, n: int, p: int, dtype=dt.int32) -> Tensor:
    """The first n entries of each padded row of a (rows * p,) pair buffer, seen with shape
    batch_shape + (n,)."""
    strides = tuple(s * p for s in tensor.c_strides(batch_shape)) + (1,)
    return tensor.view(a._buf, dtype, tuple(batch_shape) + (n,), strides, a._offset, a.device)


def read_word(a: Tensor, i: int) -> int:
    """Element i of a 1-D contiguous 32-bit array, read back as an unsigned word."""
    raw = a.device.executor.read(a._buf.handle, (a._offset + i) * 4, 4)
    return int.from_bytes(raw, "little")


def search(sorted_: Tensor, queries: Tensor, *, sorted_keys: bool, member: bool = False,
           right: bool = False, invert: bool = False) -> Tensor:
    """For each value of the contiguous 1-D queries, its insertion point among the m
    sorted entries (int32), or with member whether it is among them (bool). sorted_ holds
    keys (uint32, as sort_rows makes them) or values of queries' dtype, contiguous."""
    device = queries.device
    q = queries.size
    out = tensor.empty(queries.shape, dt.bool if member else dt.int32, device)
    if q == 0:
        return out
    key = ("sort", "search", queries.dtype.name, sorted_keys, member)
    gen = device.kernels.sort
    launch.kernel(device, key, lambda: gen.search(queries.dtype, sorted_keys, member),
                  [sorted_, queries, out],
                  _words(sorted_.size, sorted_._offset, q, queries._offset, int(right), int(invert)),
                  -(-q // gen.WORKGROUP))
    return out
