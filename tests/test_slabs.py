"""Small buffers cut from shared slabs on the native device (``executors/native.py``
``_slot``): what an eager op that keeps its result no longer pays (a buffer and a bind group
each), and the two WebGPU rules the slabs must keep: a dispatch may not read and write one
buffer (a slot read from a slab the dispatch writes is read from a copy), and wgpu zeroes a
range it believes unwritten (slabs are written whole when made).
"""

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray.executors import native
from webarray.executors.native import NativeExecutor, _COPY

from helpers import assert_equal, check_switch

ADD_ONE = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
           "@group(0) @binding(1) var<storage, read_write> B: array<u32>;\n"
           "@group(0) @binding(2) var<storage, read> A: array<u32>;\n"
           "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
           "    if (g.x < U[0]) { B[g.x] = A[g.x] + 1u; }\n}\n")


def _words(ex, h, n):
    return list(np.frombuffer(ex.read(h, 0, 4 * n), np.uint32))


def _executor():
    ex = getattr(xp.asarray(0.0).device.executor, "unwatched", None) or \
        xp.asarray(0.0).device.executor
    if not getattr(ex, "sub_allocates", False):
        pytest.skip("the default device does not cut buffers from slabs (WEBARRAY_SLABS=0)")
    return ex


def test_small_buffers_are_slots_of_one_slab_and_kernels_write_each_at_its_offset():
    ex = NativeExecutor()
    kid = ex.compile(ADD_ONE)
    hs = [ex.alloc(256, set()) for _ in range(6)]
    assert len({ex.slab_of(h) for h in hs}) == 1 and ex.slab_of(hs[0]) is not None
    big = ex.alloc(native._SLOT_MAX + 16)
    assert ex.slab_of(big) is None  # its own buffer
    ex.write(hs[0], 0, np.arange(64, dtype=np.uint32).tobytes())
    # each result in a slab the kernel does not read (alloc's avoid)
    out = ex.alloc(256, {ex.slab_of(hs[0])})
    assert ex.slab_of(out) not in (None, ex.slab_of(hs[0]))
    ex.dispatch(kid, [out, hs[0]], np.uint32(64).tobytes(), (1, 1, 1))
    assert _words(ex, out, 64) == list(range(1, 65))
    # a slot past the slab's first: written by a kernel, read back whole (not zeroed)
    ex.dispatch(kid, [hs[5], out], np.uint32(64).tobytes(), (1, 1, 1))
    assert _words(ex, hs[5], 64) == list(range(2, 66))
    assert _words(ex, hs[0], 64) == list(range(64))  # its neighbours untouched


def test_a_slot_read_from_the_slab_a_dispatch_writes_is_read_from_a_copy():
    ex = NativeExecutor()
    kid = ex.compile(ADD_ONE)
    src, dst = ex.alloc(256, set()), ex.alloc(256, set())
    assert ex.slab_of(src) == ex.slab_of(dst)
    ex.write(src, 0, np.arange(64, dtype=np.uint32).tobytes())
    ex.dispatch(kid, [dst, src], np.uint32(64).tobytes(), (1, 1, 1))
    assert [e[0] for e in ex._pending] == [_COPY, kid]  # the copy is recorded first
    assert ex.alias_copies == 1
    # read after a later write to the source: the copy was taken when the kernel ran
    assert _words(ex, dst, 64) == list(range(1, 65))
    ex.dispatch(kid, [src, dst], np.uint32(64).tobytes(), (1, 1, 1))  # and back again
    ex.dispatch_many(kid, [dst, src], [np.uint32(64).tobytes()] * 3, (1, 1, 1))
    assert _words(ex, src, 64) == list(range(2, 66))
    assert _words(ex, dst, 64) == list(range(3, 67))


def test_freed_slots_reset_their_slab_and_an_empty_closed_slab_is_dropped():
    ex = NativeExecutor()
    first = [ex.alloc(4096, set()) for _ in range(native._SLAB_BYTES // 4096)]
    slab = ex.slab_of(first[0])
    for h in first:
        ex.free(h)
    assert ex._slabs[slab].top == 0  # still open: reused from its start
    again = ex.alloc(4096, set())
    assert ex.slab_of(again) == slab
    held = [again] + [ex.alloc(4096, set()) for _ in range(native._SLAB_BYTES // 4096 - 1)]
    # fill enough more slabs that the first is no longer open, then free its slots
    more = [ex.alloc(4096, set()) for _ in range(native._OPEN_SLABS * native._SLAB_BYTES // 4096)]
    assert slab not in [s.id for s in ex._open]
    for h in held:
        ex.free(h)
    assert slab not in ex._slabs
    assert all(ex.slab_of(h) is not None for h in more)


@pytest.mark.parametrize("fused", [False, True], ids=["eager", "fused"])
def test_kept_small_results_share_slabs_and_bind_groups(fused):
    ex = _executor()
    a = xp.asarray(np.arange(16, dtype=np.float32))
    b = xp.asarray(np.full(16, 0.5, np.float32))
    with xp.fusion.enabled(fused):
        xp.fusion.flush(a, b)
        groups, slabs = len(ex._bind_groups), len(ex._slabs)
        kept = []
        for _ in range(600):
            c = a + b
            xp.fusion.flush(c)  # a launch per result in both modes
            kept.append(c)
        ex.flush()
        # 600 results of 256 bytes: a few 64 KiB slabs and a few bind groups, not 600 each
        assert len(ex._slabs) - slabs <= 6
        assert len(ex._bind_groups) - groups <= 12
        for c in kept[::97]:
            assert_equal(c, np.arange(16, dtype=np.float32) + 0.5)


DTYPES = ["bool", "int8", "uint16", "int32", "uint32", "int64", "float32", "float64",
          "complex64", "complex128"]


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(DTYPES), n=st.integers(1, 600), fused=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_in_place_ops_between_arrays_of_one_slab_equal_numpy(name, n, fused, seed):
    # small arrays made one after another lie in the same slabs; in-place writes read
    # others of the same slab (the copy) and the slot limit falls inside n's range
    rng = np.random.default_rng(seed)
    dtype = np.dtype(name)
    if dtype.kind == "b":
        make = lambda: rng.integers(0, 2, n).astype(bool)  # noqa: E731
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        make = lambda: rng.integers(max(info.min, -50), min(info.max, 50), n).astype(dtype)  # noqa: E731
    else:
        make = lambda: (rng.standard_normal(n) + (1j * rng.standard_normal(n) if dtype.kind == "c" else 0)).astype(dtype)  # noqa: E731
    xs = [make() for _ in range(3)]
    with xp.fusion.enabled(fused):
        ws = [xp.asarray(x) for x in xs]
        ws = [w + w * 0 if dtype.kind != "b" else w | w for w in ws]  # results of kernels
        want = [x.copy() for x in xs]
        if dtype.kind == "b":
            ws[0] |= ws[1]
            want[0] |= want[1]
            ws[2] = ws[0] ^ ws[1]
            want[2] = want[0] ^ want[1]
        else:
            ws[0] += ws[1]
            want[0] += want[1]
            ws[1][1:] = ws[2][:-1]
            want[1][1:] = want[2][:-1]
            ws[2] = ws[0] + ws[1] - ws[2]
            want[2] = want[0] + want[1] - want[2]
        for w, x in zip(ws, want):
            assert_equal(w, x)


def test_eager_ops_from_several_threads_equal_numpy():
    base = np.arange(32, dtype=np.float32)
    errors = []

    def work(k):
        try:
            with xp.fusion.enabled(False):
                a = xp.asarray(base + k)
                kept = [a]
                for i in range(200):
                    kept.append(kept[-1] * 1.0 + 1.0)
                for i in (0, 57, 200):
                    np.testing.assert_array_equal(np.asarray(kept[i]), base + k + i)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_webarray_slabs_0_gives_every_buffer_its_own(tmp_path):
    check_switch(tmp_path, "WEBARRAY_SLABS", "0",
                 "import webarray as xp\n"
                 "a = xp.ones(16) + 1.0\n"
                 "ex = a.device.executor\n"
                 "print('own', ex.sub_allocates, ex.slab_of(a._buf.handle), float(a[3]))\n",
                 "own False None 2.0")


@pytest.mark.parametrize("fused", [False, True], ids=["eager", "fused"])
@pytest.mark.parametrize("n", [16, 1024, 1025, 1 << 15])
def test_results_dropped_in_a_loop_reuse_their_buffers(fused, n):
    # slots (n <= 1024 float32) and buffers of their own alike come back from the pool: a
    # loop of forced results allocates nothing new after its first rounds (a result of a
    # launch that names its reads must not look for a slot above the largest one)
    ex = _executor()
    a = xp.asarray(np.arange(n, dtype=np.float32))
    b = xp.asarray(np.ones(n, np.float32))
    with xp.fusion.enabled(fused):
        for _ in range(3):
            r = a * 2.0 + b
            xp.fusion.flush(r)
        made = ex._next_handle
        for _ in range(200):
            r = a * 2.0 + b
            xp.fusion.flush(r)
        assert ex._next_handle - made <= 2
        assert (ex.slab_of(r._buf.handle) is not None) == (4 * n <= native._SLOT_MAX)
        assert_equal(r, np.arange(n, dtype=np.float32) * 2 + 1)


# binding 2 declared without an access mode: not the explicit layout's form (an automatic one)
ADD_ONE_AUTO = ADD_ONE.replace("var<storage, read> A", "var<storage> A")


@pytest.mark.parametrize("layout", ["dynamic", "ranges", "automatic"])
def test_slots_bind_under_every_layout(layout):
    # every binding at a dynamic offset (the default); the explicit layout with the uniforms'
    # alone dynamic (a kernel of more bindings than the device's dynamic limit: slots bound
    # as ranges); an automatic layout (a bind group each dispatch): the same results, the
    # copy included
    ex = NativeExecutor()
    if layout == "ranges":
        ex._dynamic_most = 1
    kid = ex.compile(ADD_ONE_AUTO if layout == "automatic" else ADD_ONE)
    assert (ex._signatures[kid] is None) == (layout == "automatic")
    a, b, c = (ex.alloc(256, set()) for _ in range(3))
    assert len({ex.slab_of(h) for h in (a, b, c)}) == 1
    ex.write(a, 0, np.arange(64, dtype=np.uint32).tobytes())
    n = np.uint32(64).tobytes()
    for _ in range(2):  # the second time through kept bind groups, where they are kept
        ex.dispatch(kid, [b, a], n, (1, 1, 1))  # a copy of a: b's slab is a's
        ex.dispatch(kid, [c, b], n, (1, 1, 1))
        ex.dispatch_many(kid, [a, c], [n, n], (1, 1, 1))
    assert _words(ex, a, 64) == list(range(6, 70))
    assert _words(ex, b, 64) == list(range(4, 68))
    assert _words(ex, c, 64) == list(range(5, 69))
