"""The native executor's submit (``executors/native.py``): recorded dispatches are replayed
into one compute pass. A dispatch whose uniforms equal the last one's binds the same words
of the uniform arena; the replay keeps each binding's bind group (``_bound``'s memo) and
binds nothing where the group and its offsets are those already bound. Each shortcut must
leave every dispatch's result what it was: a caller's reused bytearray of uniforms, repeated
dispatches, other buffers between them, an arena that grows and another kernel between
them."""

from __future__ import annotations

import numpy as np

from webarray.executors.native import NativeExecutor

# out[U[0]] += U[1] (one thread): repeated dispatches add up, so a skipped one shows
ACCUMULATE = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
              "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
              "@compute @workgroup_size(1)\nfn main() { out[U[0]] = out[U[0]] + U[1]; }\n")
# out[U[0]] = U[1] * 1000 + U[2] (a kernel with other uniforms between them)
STORE = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
         "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
         "@compute @workgroup_size(1)\nfn main() { out[U[0]] = U[1] * 1000u + U[2]; }\n")


def _u(*words) -> bytes:
    return np.array(words, np.uint32).tobytes()


def _read(ex, h, n):
    return list(np.frombuffer(ex.read(h, 0, 4 * n), np.uint32))


def _zeros(ex, n):
    h = ex.alloc(4 * n)
    ex.write(h, 0, bytes(4 * n))
    return h


def test_repeated_dispatches_each_run_and_a_reused_bytearray_is_read_anew():
    ex = NativeExecutor()
    acc, store = ex.compile(ACCUMULATE), ex.compile(STORE)
    a, b = _zeros(ex, 8), _zeros(ex, 8)
    for _ in range(5):  # the same kernel, buffer and uniforms: bound once, dispatched five times
        ex.dispatch(acc, [a], _u(0, 3), (1, 1, 1))
    ex.dispatch(acc, [b], _u(0, 3), (1, 1, 1))  # another buffer, equal uniforms
    ex.dispatch(acc, [a], _u(1, 4), (1, 1, 1))  # other uniforms
    ex.dispatch(store, [a], _u(2, 5, 6), (1, 1, 1))  # another kernel
    ex.dispatch(acc, [a], _u(1, 4), (1, 1, 1))  # the first kernel again, its uniforms again
    words = bytearray(_u(3, 7))
    ex.dispatch(acc, [a], words, (1, 1, 1))
    words[4:8] = _u(100)  # a caller that reuses its bytearray
    ex.dispatch(acc, [a], words, (1, 1, 1))
    ex.dispatch(acc, [a], words, (1, 1, 1))
    assert _read(ex, a, 4) == [15, 8, 5006, 7 + 100 + 100]
    assert _read(ex, b, 1) == [3]


def test_a_binding_kept_across_submits_and_a_grown_arena_computes_the_same():
    ex = NativeExecutor()
    acc = ex.compile(ACCUMULATE)
    a, b = _zeros(ex, 4), _zeros(ex, 4)
    ex.dispatch(acc, [a], _u(0, 1), (1, 1, 1))
    ex.flush()  # the binding's group is kept: the next batches take it from the memo
    ex.dispatch(acc, [a], _u(0, 1), (1, 1, 1))
    ex.flush()
    arena = ex._arena_buf
    # a batch of more uniforms than the arena holds: a new arena, new groups
    for i in range(5000):
        ex.dispatch(acc, [b], _u(1, 1, i, i, i, i, i, i) + bytes(224), (1, 1, 1))
    ex.dispatch(acc, [a], _u(0, 1), (1, 1, 1))
    ex.flush()
    assert ex._arena_buf is not arena
    ex.dispatch(acc, [a], _u(0, 1), (1, 1, 1))
    assert _read(ex, a, 1) == [4]
    assert _read(ex, b, 2) == [0, 5000]
