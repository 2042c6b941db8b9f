"""Memory lifecycle and failure modes on the native device: temporaries come back to the
pool, allocation failures are clean, a lost device is reported and replaced.

Big arrays and launches in pieces: test_reliability_big.py; hostile input:
test_reliability_input.py; the differential fuzzer: test_fuzz.py; the browser:
test_reliability_browser.py.
"""

import gc

import numpy as np
import pytest

import webarray as xp
from webarray._core import device as _device
from webarray.executors.pool import BufferPool
from webarray.executors.protocol import DeviceLost, KernelError

from helpers import assert_equal

TEMPORARIES = 100_000


def _stats():
    gc.collect()
    return xp.memory.stats()


@pytest.mark.parametrize("fused", [False, True], ids=["eager", "fused"])
def test_100k_temporaries_leave_memory_at_baseline(fused):
    with xp.fusion.enabled(fused):
        a = xp.ones(64)
        b = xp.arange(64, dtype=xp.float32)
        xp.fusion.flush(a, b)  # their own buffers belong to the baseline
        base = _stats()
        made = 0
        for i in range(TEMPORARIES):
            t = (a + b) * 2.0
            made += 2
            if i % 1000 == 0:
                # views, strided operands, a reduction and a readback: pending
                # expressions are computed, so their buffers are made and dropped too
                t = t[::2] - b[::2]
                assert float(xp.sum(t)) == 1056.0
                made += 3
        del t
        after = _stats()
    assert made >= TEMPORARIES
    assert after["used_bytes"] == base["used_bytes"]
    # every temporary went back to the pool and was reused: the device holds at most a
    # handful more buffers than before, not thousands
    assert after["device_buffers"] <= base["device_buffers"] + 8
    xp.memory.free_pooled()
    assert xp.memory.stats()["device_buffers"] <= base["device_buffers"]
    assert_equal((a + b) * 2.0, (np.ones(64, np.float32) + np.arange(64, dtype=np.float32)) * 2)


def test_allocation_past_the_limit_raises_memory_error_and_the_device_keeps_working():
    old = xp.memory.stats()["limit_bytes"]
    used = _stats()["used_bytes"]
    xp.memory.set_limit(used + (1 << 20))
    try:
        with pytest.raises(MemoryError, match=r"cannot allocate 4194304 bytes.*\d+ available"):
            xp.fusion.flush(xp.zeros(1 << 20))  # 4 MiB
        small = xp.ones(16) + 1.0  # still fits
        assert_equal(small, np.full(16, 2.0, np.float32))
    finally:
        xp.memory.set_limit(old)
    big = xp.zeros(1 << 20)
    assert float(xp.sum(big)) == 0.0


def test_array_buffers_from_the_executors_own_maker_are_wgpu_buffers_that_work():
    """The native executor makes array buffers through a reused C descriptor
    (_buffer_maker), wrapped in wgpu-py's GPUBuffer: every wgpu-py call (writes, copies,
    reads, destroy) takes them."""
    import wgpu

    ex = xp.__array_namespace_info__().default_device().executor
    if getattr(ex, "_calls", None) is None:
        pytest.skip("not the native executor, or this wgpu-py exposes no raw calls")
    made = [ex.alloc(n) for n in (4, 1000, 1 << 16)]
    from webarray.executors.native import _SLAB_BYTES, _SLOT_MAX

    for h in made:  # (small ones are slots of a shared slab: test_slabs.py)
        buf = ex._buffers[h]
        assert isinstance(buf, wgpu.GPUBuffer)
        assert buf.size == (ex._sizes[h] if ex.slab_of(h) is None else _SLAB_BYTES + _SLOT_MAX)
        assert buf.usage == int(ex._usage)
    data = (bytes(range(256)) * 4)[:1000]
    ex.write(made[1], 0, data)
    assert ex.read(made[1], 0, 1000) == data
    for h in made:
        ex.free(h)
    assert_equal(xp.ones(3) * 3, np.full(3, 3, np.float32))


def test_a_buffer_larger_than_the_device_allows_raises_memory_error_naming_both_sizes():
    ex = xp.__array_namespace_info__().default_device().executor
    n = ex.max_buffer_size // 4 + 1024
    with pytest.raises(MemoryError, match=rf"cannot allocate {n * 4} bytes.*{ex.max_buffer_size}"):
        xp.fusion.flush(xp.empty(n))
    assert_equal(xp.ones(3) * 3, np.full(3, 3, np.float32))


def test_free_pooled_returns_buffers_to_the_device():
    x = xp.ones(1 << 16)
    xp.fusion.flush(x)
    del x
    before = _stats()
    assert before["pooled_bytes"] > 0
    xp.memory.free_pooled()
    after = xp.memory.stats()
    assert after["pooled_bytes"] == 0
    assert after["device_buffers"] < before["device_buffers"]


class _TightExecutor:
    """An executor whose device holds at most ``capacity`` bytes, like a real GPU that
    reports out-of-memory at allocation."""

    backend = "native"

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.live: dict[int, int] = {}
        self.log: list[str] = []
        self.next = 1

    def alloc(self, nbytes: int) -> int:
        if sum(self.live.values()) + nbytes > self.capacity:
            self.log.append(f"fail {nbytes}")
            raise MemoryError(f"out of device memory allocating {nbytes} bytes")
        h, self.next = self.next, self.next + 1
        self.live[h] = nbytes
        self.log.append(f"alloc {nbytes}")
        return h

    def free(self, handle: int) -> None:
        self.log.append(f"free {self.live.pop(handle)}")

    def buffer_count(self) -> int:
        return len(self.live)


def test_out_of_device_memory_trims_the_pool_and_retries_before_raising():
    ex = _TightExecutor(capacity=10_000)
    pool = BufferPool(ex, limit_bytes=1 << 30)
    held = [pool.acquire(2048) for _ in range(4)]  # 8 KiB on the device
    del held  # back to the pool, still on the device
    assert pool.pooled_bytes == 4 * 2048 and len(ex.live) == 4
    ex.log.clear()
    got = pool.acquire(4096)  # fits only once the pool is given back
    assert ex.log[0] == "fail 4096" and ex.log[-1] == "alloc 4096"
    assert ex.log.count("free 2048") == 4 and pool.pooled_bytes == 0
    with pytest.raises(MemoryError, match=r"cannot allocate 8192 bytes.*4096 bytes in live arrays"):
        pool.acquire(8192)
    assert pool.used_bytes == 4096  # nothing half-counted
    del got
    assert pool.acquire(8192).nbytes == 8192  # and it works again


def test_lost_device_raises_device_lost_and_new_arrays_go_to_a_fresh_device():
    from webarray.executors.native import NativeExecutor

    saved = _device._default
    dev = _device._default = _device.Device(NativeExecutor())
    try:
        x = xp.asarray([1.0, 2.0, 3.0])
        pending = x * 2.0  # maybe a pending expression (fusion on)
        computed = xp.fusion.flush(x + 1.0) or (x + 1.0)
        np.asarray(computed)
        assert x.device == dev and not dev.lost
        dev.executor.simulate_loss()
        with pytest.raises(DeviceLost, match="lost"):
            float(xp.sum(x))
        assert dev.lost and "lost" in repr(dev)
        # every array on it says it is gone, computed or pending
        for arr in (x, computed, pending):
            with pytest.raises(DeviceLost, match="gone"):
                np.asarray(arr)
        with pytest.raises(DeviceLost):
            xp.ones(3, device=dev)
        fresh = xp.ones(3)
        assert fresh.device != dev and not fresh.device.lost
        assert_equal(xp.cumulative_sum(fresh + 1.0), np.array([2, 4, 6], np.float32))
        with pytest.raises((ValueError, DeviceLost)):
            np.asarray(x + fresh)
        del x, pending, computed  # their buffers die with a lost device: no error
        gc.collect()
    finally:
        _device._default = saved


def test_a_malformed_kernel_raises_kernel_error_with_numbered_source_and_the_device_works():
    dev = xp.__array_namespace_info__().default_device()
    bad = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
           "@compute @workgroup_size(64)\nfn main() {\n    let x: u32 = 1.5;\n}\n")
    with pytest.raises(KernelError, match=r"(?s)   4      let x: u32 = 1\.5;"):
        dev.kernel(("test", "bad"), lambda: bad)
    with pytest.raises(KernelError):
        dev.executor.compile("this is not WGSL")
    assert ("test", "bad") not in dev._kernels
    assert_equal(xp.arange(5) * 2, np.arange(5, dtype=np.int32) * 2)


def test_a_kernel_over_the_browsers_workgroup_memory_is_refused_natively_too():
    """wgpu-native compiles a kernel that declares more workgroup memory than the device's
    limit (a browser refuses it): the launch layer counts the bytes as WebGPU does (aliases,
    vectors, atomics, each variable rounded to 16) and raises, and the device keeps working."""
    dev = xp.__array_namespace_info__().default_device()
    limit = dev.executor.max_workgroup_storage
    assert 0 < limit <= 32768
    words = limit // 16  # vec4<u32>s: exactly the limit, then one atomic more
    src = ("alias T = vec4<u32>;\n"
           "@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
           "@group(0) @binding(1) var<storage, read_write> B: array<u32>;\n"
           f"var<workgroup> big: array<T, {words}>;\n{{extra}}"
           "@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) l: u32) {\n"
           "    big[l] = vec4<u32>(l);\n    workgroupBarrier();\n    B[l] = big[63u - l].x + U[0];\n}\n")
    dev.kernel(("test", "at the limit"), lambda: src.replace("{extra}", ""))
    over = src.replace("{extra}", "var<workgroup> one: atomic<u32>;\n")
    with pytest.raises(KernelError, match=f"declares {limit + 16} bytes of workgroup memory, "
                                          f"more than the {limit}"):
        dev.kernel(("test", "over"), lambda: over)
    assert ("test", "over") not in dev._kernels
    assert_equal(xp.arange(5) * 2, np.arange(5, dtype=np.int32) * 2)


@pytest.mark.parametrize("chunk", [None, 3])
def test_dispatch_many_runs_every_round_in_order_across_submits(monkeypatch, chunk):
    # a Jacobi sweep's rounds go through dispatch_many: one entry per submit, its uniforms
    # packed into the arena; order matters (each round reads what the last wrote)
    from webarray.executors import native
    from webarray.executors.native import NativeExecutor

    if chunk is not None:  # submits inside the run
        monkeypatch.setattr(native, "_BATCH_LIMIT", chunk)
    ex = NativeExecutor()
    src = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
           "@group(0) @binding(1) var<storage, read_write> B: array<u32>;\n"
           "@compute @workgroup_size(1)\nfn main() {\n    B[0] = B[0] * 3u + U[0];\n}\n")
    kid = ex.compile(src)
    buf = ex.alloc(256)
    ex.write(buf, 0, bytes(4))
    rounds = [k.to_bytes(4, "little") for k in range(1, 11)]
    ex.dispatch(kid, [buf], (5).to_bytes(4, "little"), (1, 1, 1))  # before, in the same batch
    ex.dispatch_many(kid, [buf], rounds, (1, 1, 1))
    ex.dispatch(kid, [buf], (9).to_bytes(4, "little"), (1, 1, 1))
    expect = 0
    for k in [5] + list(range(1, 11)) + [9]:
        expect = (expect * 3 + k) % 2**32
    assert int.from_bytes(ex.read(buf, 0, 4), "little") == expect
    with pytest.raises(ValueError, match="workgroups per dimension"):
        ex.dispatch_many(kid, [buf], rounds, (ex.max_workgroups_per_dim + 1, 1, 1))


def test_pipelines_past_the_kernel_cache_are_dropped_and_compiled_again_when_used():
    """The native executor keeps compiled pipelines within a budget of WGSL bytes (a CPU
    adapter's pipeline is machine code: lavapipe holds 100-270 MB for one software float64
    kernel, and a test suite that kept them all grew past 16 GB). A dropped kernel keeps its
    id and compiles again at its next dispatch, even one recorded before it was dropped."""
    from webarray.executors.native import NativeExecutor

    ex = NativeExecutor()
    srcs = [("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
             "@group(0) @binding(1) var<storage, read_write> B: array<u32>;\n"
             f"@compute @workgroup_size(1)\nfn main() {{\n    B[0] = B[0] * {k + 2}u + U[0];\n}}\n")
            for k in range(6)]
    ex.kernel_cache_bytes = 2 * len(srcs[0]) + 1  # two pipelines at a time
    buf = ex.alloc(256)
    ex.write(buf, 0, bytes(4))
    expect = 0
    kids = []
    for k, src in enumerate(srcs):  # each compile drops the least recently used one
        kids.append(ex.compile(src))
        assert ex.compiled_kernels() <= 2
    assert kids == list(range(6)) and ex.compile(srcs[0]) == 0  # ids outlive pipelines
    for k in [0, 5, 1, 0, 3, 3, 2, 5, 4, 0, 1]:  # recorded now, most dropped by the submit
        ex.dispatch(kids[k], [buf], (k + 1).to_bytes(4, "little"), (1, 1, 1))
        expect = (expect * (k + 2) + k + 1) % 2**32
        ex.compile(srcs[(k + 3) % 6])  # a compile between dispatch and submit drops one
    assert ex.compiled_kernels() <= 2
    assert int.from_bytes(ex.read(buf, 0, 4), "little") == expect
    assert ex.compiled_kernels() <= 2


def test_a_pass_command_the_driver_refuses_raises_at_submit_not_silently():
    # the replay records set_pipeline/set_bind_group/dispatch through wgpu-native's own
    # functions (no wgpu-py error capture per call): their errors must still surface, at the
    # encoder's finish, as the lost batch they make (DeviceLost naming the driver's reason)
    from webarray.executors.native import NativeExecutor

    ex = NativeExecutor()
    assert ex._calls is not None  # the raw path is the one under test
    src = ("@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
           "@group(0) @binding(1) var<storage, read_write> B: array<u32>;\n"
           "@compute @workgroup_size(1)\nfn main() {\n    B[0] = B[0] + U[0];\n}\n")
    kid = ex.compile(src)
    buf = ex.alloc(256)
    ex.dispatch(kid, [buf], (7).to_bytes(4, "little"), (1, 1, 1))
    ex.flush()
    assert int.from_bytes(ex.read(buf, 0, 4), "little") == 7  # the raw path computes
    ex.dispatch(kid, [buf], (1).to_bytes(4, "little"), (1, 1, 1))
    kernel, bound, start, size, window, _ = ex._pending[-1]
    over = ex.max_workgroups_per_dim + 1  # past what dispatch() itself lets through
    ex._pending[-1] = (kernel, bound, start, size, window, (over, 1, 1))
    with pytest.raises(DeviceLost, match=str(ex.max_workgroups_per_dim)):
        ex.flush()
