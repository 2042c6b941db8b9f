"""The native executor: the device protocol over wgpu-py (wgpu-native) in CPython.

Dispatches are recorded host-side and replayed into one compute pass per submit, which is
what makes small ops cheap (PERF_NOTES.md: ~5 µs per dispatch in one pass against ~140 µs
with one submit each). Uniforms of a whole batch live in one arena buffer written once per
submit.

Host time per dispatch is what limits mid-sized ops, so the replay avoids wgpu object
creation: kernels whose bindings are all storage buffers (every generated kernel) get an
explicit layout whose binding 0 takes a dynamic offset into the arena, and their bind
groups are cached by (layout, binding size, buffers) until one of the buffers is freed.
Recorded work is submitted early once it binds ``_SUBMIT_BYTES``, so the GPU runs large ops
while Python records the next ones; that bound also keeps one submit short enough for an OS
GPU watchdog (docs/reliability.md).

Buffers of at most 4 KiB that the pool asks for with ``avoid`` (an elementwise result)
are slots of shared 64 KiB slabs (``_slot``), and kernels of few enough bindings take every
binding at a dynamic offset, so that one bind group serves every slot of the same slabs: an
eager op that keeps its result creates neither a buffer nor a bind group (this VM: ~21 ->
~11 µs per op, the sync included). WebGPU forbids a dispatch to read and write one buffer:
the pool keeps a result out of its inputs' slabs, and a slot that a dispatch still reads
from a slab it writes is read from a copy recorded just before (``_alias_copies``).

A binding may be a range of a buffer, ``(handle, offset, size)``: how arrays above the
device's storage-binding limit are processed in pieces (``_core/launch.py``).

The replay calls wgpu-native's three compute-pass functions (set pipeline, set bind group,
dispatch) directly where wgpu-py exposes them (``_native_calls``): wgpu-py's per-call error
capture and argument lists cost ~2.6 µs a dispatch of the ~4.4 they took. Nothing is lost
by it: wgpu-native reports a pass command's validation error at ``finish``, which still goes
through wgpu-py and raises as before.

Device loss: wgpu-native reports it only as the error of the next call ("Parent device is
lost"); every call that reaches the device turns such an error into ``DeviceLost`` and marks
the executor lost, after which every command raises ``DeviceLost`` at once.

Threads and interrupts (``guard.py``): every command holds ``guard.LOCK``. Recorded work
stays recorded until ``queue.submit`` has taken it: arrays that the graph counts as
computed may still wait for it. A KeyboardInterrupt (or another BaseException) or a
MemoryError in a submit leaves it for the next flush, which encodes it again. Any other
error of a submit (a validation error: a kernel bound wrongly) would come back at every
flush; the executor then counts as lost instead, so those arrays raise ``DeviceLost`` and
new arrays go to a fresh device (the batch used to be dropped, and its arrays read zeros
or the old contents of their buffers). A dispatch that finds the batch full submits it
before recording itself, so an in-place write that raised there did not happen.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections import OrderedDict, namedtuple
from typing import Sequence

from .guard import LOCK, critical, deliver
from .protocol import IN_BOUNDS, DeviceLost, KernelError, buffer_size, is_loss

_ZEROS = bytes(4096)  # padding of the uniform arena to a binding's alignment
_BATCH_LIMIT = 4096  # dispatches recorded before a submit is forced
# Bytes of buffers bound by the recorded dispatches after which they are submitted at once,
# so that the GPU works on large ops while the host records the next ones. Small ops never
# reach it and keep the one-submit-per-sync batching.
# On an H100 a submit costs ~100 µs of host time, so a batch should hold ~1 ms of GPU work.
_SUBMIT_BYTES = 2 << 30
_BIND_GROUP_CACHE = 2048  # cached bind groups (least recently used ones are dropped)
# WGSL bytes of the kernels whose pipelines stay compiled (least recently used ones are
# dropped and compiled again at their next dispatch; WEBARRAY_KERNEL_CACHE overrides). A
# CPU adapter's pipeline is machine code: lavapipe holds 100-270 MB for one software
# float64 kernel of ~25 KB of WGSL, and a test suite that kept every pipeline grew past 16 GB.
_KERNEL_CACHE_CPU = 512 << 10
_KERNEL_CACHE_GPU = 4 << 20
_ARENA_MIN = 1 << 20
# Buffers of at most _SLOT_MAX bytes are cut from shared slabs of _SLAB_BYTES (``_slot``):
# an eager op that keeps its result then creates no buffer and, its bindings taking dynamic
# offsets, no bind group (one group serves every slot of the same slabs); WEBARRAY_SLABS=0
# gives every buffer its own, as before.
_SLOT_MAX = 4096
_SLAB_BYTES = 64 << 10
_OPEN_SLABS = 4  # slabs slots are cut from at once (a result avoids its inputs' slabs)
_ZERO_SLAB = bytes(_SLAB_BYTES + _SLOT_MAX)
_COPY = -1  # the kernel id of a recorded copy (a slot read where its slab is also written)
_BOUND_CACHE = 4096  # dispatches' resolved bindings kept (``dispatch``)
# Readbacks (``read``) go through one kept mappable buffer of up to _STAGING_KEEP bytes
# (larger reads through one of their own), copied into in the submit of the recorded work
# and waited for in the reading thread: a busy poll for _SPIN_S, then naps of up to _NAP_S
# (a long wait stays interruptible and idle). On an H200's host a 4-byte read took 137 µs
# through wgpu-py's read_buffer (a new buffer, a submit of its own, the map waited for by
# wgpu-py's poll thread) and 42 µs so.
_STAGING_KEEP = 16 << 20  # (larger reads: a buffer of their own, ~1 ms of copying at least)
_STAGING_MIN = 64 << 10
_SPIN_S = 0.001
_NAP_S = 0.001

_BINDING = re.compile(r"@group\(\s*(\d+)\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*(<[^>]*>)?")


def storage_bindings(source: str) -> tuple[bool, ...] | None:
    """Per binding 0..n of a kernel, whether it is written (``read_write``); None unless
    binding 0 is read-only storage and every binding is a storage buffer of group 0."""
    found: dict[int, bool] = {}
    for group, binding, space in _BINDING.findall(source):
        parts = [p.strip() for p in (space or "<>")[1:-1].split(",")]
        if group != "0" or parts[0] != "storage" or len(parts) != 2:
            return None
        found[int(binding)] = parts[1] == "read_write"
    if not found or sorted(found) != list(range(len(found))) or found[0]:
        return None
    return tuple(found[i] for i in range(len(found)))


def written_bindings(source: str) -> tuple[bool, ...]:
    """Per binding 1..n of group 0 of a kernel, whether it is a ``read_write`` storage
    buffer (any kernel: where ``storage_bindings`` gives None)."""
    found: dict[int, bool] = {}
    for group, binding, space in _BINDING.findall(source):
        if group == "0" and binding != "0":
            found[int(binding)] = "read_write" in (space or "")
    return tuple(found.get(i, False) for i in range(1, max(found, default=0) + 1))


def _wgpu():
    try:
        import wgpu
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "the native executor needs the 'wgpu' package: pip install 'webarray[native]'"
        ) from e
    return wgpu


def _native_calls():
    """wgpu-native's (set pipeline, set bind group, dispatch) of a compute pass, wgpu-py's
    cffi module, wgpu-py's error-checked create-bind-group and create-buffer calls with
    their classes, then what ``_module`` compiles a kernel without runtime checks with
    (wgpu-native's create-shader-module-trusted, or None where this library lacks it; the
    cffi lib, struct maker, string view and module class), from the library wgpu-py binds;
    None where this wgpu-py does not expose them (the replay then calls wgpu-py's methods)."""
    try:
        from wgpu.backends.wgpu_native import _api  # (wgpu is imported on first use: _wgpu)
        lib = _api.lib
        return (lib.wgpuComputePassEncoderSetPipeline, lib.wgpuComputePassEncoderSetBindGroup,
                lib.wgpuComputePassEncoderDispatchWorkgroups, _api.ffi,
                _api.libf.wgpuDeviceCreateBindGroup, _api.GPUBindGroup,
                _api.libf.wgpuDeviceCreateBuffer, _api.GPUBuffer,
                getattr(_api.libf, "wgpuDeviceCreateShaderModuleTrusted", None), lib,
                _api.new_struct_p, _api.to_c_string_view, _api.GPUShaderModule)
    except (ImportError, AttributeError):  # pragma: no cover - depends on wgpu-py's version
        return None


def _bind_group_maker(device, calls, bindings: int):
    """create(layout, entries) for bind groups of storage buffers and buffer ranges, filling
    one reused C descriptor and calling wgpu-native (through wgpu-py's error-checked
    wrapper) instead of building wgpu-py's structs for each entry: 8-9 µs a bind group
    on this VM's lavapipe host against 60-80 through ``create_bind_group``, which an eager
    op that writes a new buffer pays once. ``bindings``: the most a kernel has (the device's
    storage buffers per stage). None where ``calls`` is None."""
    if calls is None:
        return None
    ffi, raw, wrap = calls[3:6]
    desc = ffi.new("WGPUBindGroupDescriptor *")
    slots = ffi.new(f"WGPUBindGroupEntry[{bindings}]")  # zeroed: no chain, sampler, view
    desc.entries = slots
    dev = device._internal

    def create(layout, entries):
        for i, e in enumerate(entries):
            slot, r = slots[i], e["resource"]
            slot.binding = e["binding"]
            if r.__class__ is dict:  # a range: buffer, offset, size
                b = r["buffer"]
                slot.buffer, slot.offset, slot.size = b._internal, r["offset"], r["size"]
            else:
                slot.buffer, slot.offset, slot.size = r._internal, 0, r.size
        desc.layout = layout._internal
        desc.entryCount = len(entries)
        return wrap("", raw(dev, desc), device)

    return create


def _buffer_maker(device, calls, usage):
    """create(nbytes): a storage buffer of ``usage``, through one reused C descriptor and
    wgpu-native's error-checked call, wrapped in wgpu-py's own buffer class (so every other
    wgpu-py call takes it): 3.9 µs on this VM's lavapipe host against 11.7 through
    ``create_buffer``, which builds its descriptor struct field by field. None where
    ``calls`` is None."""
    if calls is None:
        return None
    ffi, (raw, wrap) = calls[3], calls[6:8]
    desc = ffi.new("WGPUBufferDescriptor *")  # zeroed: no chain, an empty label, not mapped
    desc.usage = int(usage)
    dev, unmapped = device._internal, _wgpu().enums.BufferMapState.unmapped

    def create(nbytes: int):
        desc.size = nbytes
        return wrap("", raw(dev, desc), device, nbytes, desc.usage, unmapped)

    return create


def _pass_calls(cpass, calls):
    """set_pipeline(pipeline), set_group(group, offsets or None) and dispatch(x, y, z) on
    one compute pass, ``offsets`` the dynamic offsets of the group's bindings in order:
    through wgpu-native's own functions (``calls``, ``_native_calls``; cpass is then
    wgpu-native's pass) or, where there are none, wgpu-py's methods."""
    if calls is None:
        return (cpass.set_pipeline,
                lambda group, offsets: cpass.set_bind_group(0, group, offsets or []),
                cpass.dispatch_workgroups)
    set_pipeline, set_group, dispatch, ffi = calls[:4]
    p, null = cpass, ffi.NULL

    def bind(group, offsets):
        if offsets is None:
            set_group(p, 0, group._internal, 0, null)
        else:  # a list: cffi passes it as a temporary array, which wgpu-native copies
            set_group(p, 0, group._internal, len(offsets), offsets)

    return (lambda pipeline: set_pipeline(p, pipeline._internal), bind,
            lambda x, y, z: dispatch(p, x, y, z))


_Encoding = namedtuple("_Encoding", "encoder begin end copy finish submit write abandon")


def _encoding(device, calls):
    """What a submit records and submits with (``_Encoding``): encoder() (a command encoder),
    begin(encoder) (a compute pass), end(pass), copy(encoder, source, offset, target,
    target offset, size), finish(encoder) (its command buffer; the encoder is released),
    submit(command buffer) (released), write(buffer, offset, data) (a queue write), and
    abandon(encoder, pass) for what an interrupted recording leaves (either may be None).
    Through wgpu-py's error-checked calls into wgpu-native with descriptors made once
    (``calls``, ``_native_calls``): on an H200's host wgpu-py's methods, which build their
    descriptors and wrapper objects at every call, took ~55 µs of a readback's ~70 µs
    submit. Without ``calls``, wgpu-py's methods. A validation error of a recorded command
    is reported at finish, as before; finish, submit and write raise their own."""
    queue = device.queue
    if calls is None:
        return _Encoding(
            device.create_command_encoder, lambda enc: enc.begin_compute_pass(),
            lambda cpass: cpass.end(),
            lambda enc, src, offset, dst, dst_offset, size: enc.copy_buffer_to_buffer(
                src, offset, dst, dst_offset, size),
            lambda enc: enc.finish(), lambda cb: queue.submit([cb]), queue.write_buffer,
            lambda enc, cpass: None)
    ffi, lib = calls[3], calls[9]
    from wgpu.backends.wgpu_native import _api  # (imported by _native_calls already)

    libf = _api.libf
    dev, q = device._internal, queue._internal
    # zeroed descriptors: no chain, an empty label, no timestamp writes
    enc_desc = ffi.new("WGPUCommandEncoderDescriptor *")
    pass_desc = ffi.new("WGPUComputePassDescriptor *")
    cb_desc = ffi.new("WGPUCommandBufferDescriptor *")
    cbs = ffi.new("WGPUCommandBuffer[1]")
    create = libf.wgpuDeviceCreateCommandEncoder
    begin_pass = libf.wgpuCommandEncoderBeginComputePass
    end_pass, release_pass = libf.wgpuComputePassEncoderEnd, lib.wgpuComputePassEncoderRelease
    copy_raw = libf.wgpuCommandEncoderCopyBufferToBuffer
    finish_raw, release_enc = libf.wgpuCommandEncoderFinish, lib.wgpuCommandEncoderRelease
    submit_raw, release_cb = libf.wgpuQueueSubmit, lib.wgpuCommandBufferRelease
    write_raw, from_buffer = libf.wgpuQueueWriteBuffer, ffi.from_buffer

    def end(cpass):
        try:
            end_pass(cpass)
        finally:
            release_pass(cpass)

    def copy(enc, src, offset, dst, dst_offset, size):
        copy_raw(enc, src._internal, offset, dst._internal, dst_offset, size)

    def finish(enc):
        try:
            return finish_raw(enc, cb_desc)
        finally:
            release_enc(enc)

    def submit(cb):
        cbs[0] = cb
        try:
            submit_raw(q, 1, cbs)
        finally:
            release_cb(cb)

    def write(buf, offset, data):
        m = memoryview(data)
        write_raw(q, buf._internal, offset, from_buffer(m), m.nbytes)

    def abandon(enc, cpass):
        if cpass is not None:
            release_pass(cpass)
        if enc is not None:
            release_enc(enc)

    return _Encoding(lambda: create(dev, enc_desc), lambda enc: begin_pass(enc, pass_desc), end,
                     copy, finish, submit, write, abandon)


# The readbacks' map callback and what it records (ticket -> status), one for the process:
# a map that an interrupted wait left pending may finish after its executor is gone (at a
# later poll, or as its device is dropped), so the callback must outlive every executor.
_MAPPED: dict = {}
_TICKETS = itertools.count(1)
_CALLBACK: list = []


def _map_callback(ffi):
    if not _CALLBACK:
        @ffi.callback("void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)")
        def mapped(status, message, ticket, _unused):
            _MAPPED[int(ffi.cast("uintptr_t", ticket))] = status

        _CALLBACK.append(mapped)
    return _CALLBACK[0]


class _Readback:
    """The readback's buffer and calls: ``stage(nbytes)`` gives the kept mappable buffer
    (a larger one, or one of its own above _STAGING_KEEP; a new one where the last read's
    wait was interrupted with its map pending), ``map(buf, n)`` asks wgpu-native to map its
    first n bytes and returns the request's ticket, ``poll()`` lets wgpu-native finish
    what it can (without waiting), ``done`` holds the finished tickets' statuses, and
    ``take(buf, nbytes)`` copies out the mapped bytes and unmaps the buffer."""

    def __init__(self, device, calls):
        self._device, self._make = device, device.create_buffer
        ffi, lib = calls[3], calls[9]
        self.ok = lib.WGPUMapAsyncStatus_Success
        self.done = _MAPPED
        info = ffi.new("WGPUBufferMapCallbackInfo *")
        info.mode = lib.WGPUCallbackMode_AllowProcessEvents
        info.callback = _map_callback(ffi)
        self._info, self._ffi = info, ffi
        self._map_async, self._poll = lib.wgpuBufferMapAsync, lib.wgpuDevicePoll
        self._range, self._unmap = lib.wgpuBufferGetMappedRange, lib.wgpuBufferUnmap
        self._read_mode = lib.WGPUMapMode_Read
        self.kept = None  # the kept buffer
        self.busy = 0  # the ticket of a map not yet taken (an interrupted wait's)

    def stage(self, nbytes: int):
        if self.busy:  # the last wait was interrupted: its buffer may still be mapping
            self.drop()
        if nbytes > _STAGING_KEEP:
            return self._new(nbytes)
        if self.kept is None or self.kept.size < nbytes:
            self.kept = self._new(max(_STAGING_MIN, 1 << (nbytes - 1).bit_length()))
        return self.kept

    def drop(self) -> None:
        """Leave the kept buffer (and its map's record, if any) to wgpu-native."""
        _MAPPED.pop(self.busy, None)
        self.kept, self.busy = None, 0

    def _new(self, size: int):
        usage = _wgpu().BufferUsage
        return self._make(size=size, usage=usage.MAP_READ | usage.COPY_DST)

    def map(self, buf, n: int) -> int:
        ticket = self.busy = next(_TICKETS)
        info = self._info
        info.userdata1 = self._ffi.cast("void *", ticket)
        self._map_async(buf._internal, self._read_mode, 0, n, info[0])
        return ticket

    def poll(self) -> None:
        self._poll(self._device._internal, 0, self._ffi.NULL)

    def take(self, buf, nbytes: int) -> bytes:
        data = bytes(self._ffi.buffer(self._range(buf._internal, 0, nbytes), nbytes))
        self._unmap(buf._internal)
        self.busy = 0
        return data


class _Slab:
    """One buffer that small buffers are cut from (``NativeExecutor._slot``): bumped from
    the start, reset once none of its slots is held."""

    __slots__ = ("id", "buf", "top", "live")

    def __init__(self, ident: int, buf):
        self.id, self.buf, self.top, self.live = ident, buf, 0, 0


# the most workgroup memory that Chrome's WebGPU offers (its limit tiers: 16 or 32 KiB)
BROWSER_WORKGROUP_STORAGE = 32768


class NativeExecutor:
    backend = "native"
    binding_ranges = True

    def __init__(self, power_preference: str = "high-performance"):
        os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
        wgpu = _wgpu()
        self._wgpu = wgpu
        adapter = wgpu.gpu.request_adapter_sync(power_preference=power_preference)
        if adapter is None:
            raise RuntimeError(
                "no WebGPU adapter found (for a software adapter on Linux install "
                "mesa-vulkan-drivers)"
            )
        limits = adapter.limits
        wanted = {
            k: limits[k]
            for k in (
                "max-buffer-size",
                "max-storage-buffer-binding-size",
                "max-storage-buffers-per-shader-stage",
                "max-compute-workgroup-storage-size",
                "max-compute-invocations-per-workgroup",
                "max-compute-workgroup-size-x",
                "max-dynamic-storage-buffers-per-pipeline-layout",
            )
        }
        # no more workgroup memory than a browser offers (lavapipe offers 64 KiB, Chrome with
        # SwiftShader 32), so that a kernel that compiles here compiles in the browser too
        wanted["max-compute-workgroup-storage-size"] = min(
            wanted["max-compute-workgroup-storage-size"], BROWSER_WORKGROUP_STORAGE)
        # 64-bit floats (and the 64-bit integers that carry their bits) for the hardware
        # float64 lane (kernels/wgsl_f64_hw.py), where the adapter has them
        f64 = {"shader-f64", "shader-int64"} <= set(adapter.features)
        self.shader_f64 = f64
        self._device = adapter.request_device_sync(
            required_limits=wanted, required_features=["shader-f64", "shader-int64"] if f64 else [])
        self._queue = self._device.queue
        info = adapter.info
        self.adapter_info = {
            "vendor": info.get("vendor", ""),
            "device": info.get("device", ""),
            "description": info.get("description", ""),
            "backend": info.get("backend_type", ""),
            "adapter_type": info.get("adapter_type", ""),
        }
        self.wgsl_compiler = "naga"  # (wgpu-native's)
        self.max_buffer_size = int(wanted["max-buffer-size"])
        self.max_workgroup_storage = int(wanted["max-compute-workgroup-storage-size"])
        self.max_binding_size = int(wanted["max-storage-buffer-binding-size"])
        self.max_storage_buffers = int(wanted["max-storage-buffers-per-shader-stage"])
        self.max_workgroups_per_dim = int(limits["max-compute-workgroups-per-dimension"])
        self.binding_alignment = int(limits["min-storage-buffer-offset-alignment"])
        # kernels of at most this many bindings (the uniforms' included) take every binding
        # at a dynamic offset, so that one bind group serves any slots of the same slabs
        self._dynamic_most = int(wanted["max-dynamic-storage-buffers-per-pipeline-layout"])
        self.sub_allocates = os.environ.get("WEBARRAY_SLABS", "1") != "0"
        self.slot_max = _SLOT_MAX
        self._at: dict[int, tuple] = {}  # a slot's handle -> (its _Slab, byte offset)
        self._slabs: dict[int, _Slab] = {}  # live slabs by id
        self._open: list[_Slab] = []  # the slabs new slots are cut from, oldest first
        self.alias_copies = 0  # slots read from a copy (_alias_copies), for tests and probes
        # (kernel, handles) -> its _bound, but for copies: a dispatch repeated over the same
        # buffers (a loop's recycled ones) resolves them once; emptied when a handle is freed
        self._bounds: dict = {}
        self._calls = _native_calls()
        # readbacks through wgpu-native's map calls, where wgpu-py exposes them (else
        # wgpu-py's read_buffer)
        self._reader = _Readback(self._device, self._calls) if self._calls is not None else None
        self._encoding = _encoding(self._device, self._calls)
        # wgpu-native's compile without runtime checks (``_module``), where wgpu-py exposes
        # it; WEBARRAY_TRUSTED_KERNELS=0 compiles every kernel checked
        calls = self._calls
        self._trusted = (calls[8:] if calls is not None and calls[8] is not None
                         and os.environ.get("WEBARRAY_TRUSTED_KERNELS", "1") != "0" else None)
        self.trusted_modules = 0  # kernels compiled so (for tests and probes)
        self._create_bind_group = (
            _bind_group_maker(self._device, self._calls, self.max_storage_buffers)
            or self._device.create_bind_group)
        self._usage = (
            wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        )
        self._create_buffer = _buffer_maker(self._device, self._calls, self._usage) or (
            lambda nbytes: self._device.create_buffer(size=nbytes, usage=self._usage))
        self._buffers: dict[int, object] = {}
        self._next_handle = 1
        self._sizes: dict[int, int] = {}
        # per kernel id: its source and layout key (None: an automatic layout); compiled
        # ones: (pipeline, bind group layout) in least recently used order, within a budget
        self._sources: list[str] = []
        self._signatures: list = []
        self._kernel_ids: dict[str, int] = {}
        self._pipelines: OrderedDict = OrderedDict()
        self._pipeline_bytes = 0
        on_cpu = "CPU" in self.adapter_info["adapter_type"].upper()
        self.kernel_cache_bytes = int(os.environ.get("WEBARRAY_KERNEL_CACHE") or (
            _KERNEL_CACHE_CPU if on_cpu else _KERNEL_CACHE_GPU))
        self._layouts: dict[tuple, object] = {}
        self._bind_groups: OrderedDict = OrderedDict()
        self._bind_groups_of: dict[int, set] = {}  # buffer handle -> cache keys using it
        self._pending: list[tuple] = []
        self._pending_bytes = 0
        self._pending_count = 0  # dispatches in _pending (an entry of dispatch_many holds many)
        self._arena = bytearray()
        self._arena_slack = 0  # largest dynamic binding of the batch, past its last offset
        # the last dispatch's uniforms (bytes) and their (start, size, window) in the arena:
        # a dispatch with equal uniforms binds the same words (None after the arena resets)
        self._last_uniforms, self._last_at = None, None
        self._arena_buf = None
        self._arena_size = 0
        self.lost: str | None = None

    # -- buffers -------------------------------------------------------------------------

    def alloc(self, nbytes: int, avoid=None) -> int:
        """A buffer's handle. Given ``avoid`` (ids of slabs, ``slab_of``), one of at most
        _SLOT_MAX bytes is a slot of a slab not among them (a kernel may not read and write
        one buffer); otherwise a buffer of its own."""
        with LOCK:
            self._check_alive()
            nbytes = buffer_size(nbytes, self.max_buffer_size, self.adapter_info["device"])
            if avoid is not None and nbytes <= _SLOT_MAX and self.sub_allocates:
                return self._slot(nbytes, avoid)
            buf = self._new_buffer(nbytes)
            handle = self._next_handle
            self._next_handle += 1
            self._buffers[handle] = buf
            self._sizes[handle] = nbytes
            return handle

    def _new_buffer(self, nbytes: int):
        try:
            return self._create_buffer(nbytes)
        except Exception as e:
            self._raise_if_lost(e)
            raise MemoryError(
                f"allocating {nbytes} bytes failed on {self.adapter_info['device']} "
                f"(largest buffer {self.max_buffer_size} bytes): {e}"
            ) from e

    def _slot(self, nbytes: int, avoid) -> int:
        """A handle to the next ``nbytes`` (rounded to the binding alignment) of an open slab
        whose id is not in ``avoid``, opening a new slab where none has room."""
        align = self.binding_alignment
        size = (nbytes + align - 1) // align * align
        for slab in self._open:
            if slab.top + size <= _SLAB_BYTES and slab.id not in avoid:
                break
        else:
            # (a slot is bound as _SLOT_MAX bytes: the slab holds that much past its last)
            slab = _Slab(self._next_handle, self._new_buffer(_SLAB_BYTES + _SLOT_MAX))
            # written once whole: wgpu-native tracks which ranges of a buffer hold data by
            # the bind groups' ranges, not the dynamic offsets, so a slot written by a
            # kernel would read back as zeros (wgpu zeroes a range it counts unwritten)
            self._encoding.write(slab.buf, 0, _ZERO_SLAB)
            self._next_handle += 1
            self._slabs[slab.id] = slab
            self._open.append(slab)
            if len(self._open) > _OPEN_SLABS:
                old = self._open.pop(0)
                if not old.live:
                    self._drop_slab(old)
        offset = slab.top
        slab.top += size
        slab.live += 1
        handle = self._next_handle
        self._next_handle += 1
        self._buffers[handle] = slab.buf
        self._sizes[handle] = size
        self._at[handle] = (slab, offset)
        return handle

    def _drop_slab(self, slab: _Slab) -> None:
        del self._slabs[slab.id]
        for key in self._bind_groups_of.pop(slab.id, ()):
            self._bind_groups.pop(key, None)
        if not self._pending and self.lost is None:
            slab.buf.destroy()

    def slab_of(self, handle: int):
        """The id of the slab a handle's buffer is cut from, or None (its own buffer)."""
        at = self._at.get(handle)
        return None if at is None else at[0].id

    @critical
    def free(self, handle: int) -> None:
        # Pending dispatches keep their own reference to the buffer object, so dropping
        # the handle here never invalidates work that is already recorded (nor work that a
        # failed submit left recorded: _pending is emptied only once a submit succeeded).
        with LOCK:
            buf = self._buffers.pop(handle, None)
            self._sizes.pop(handle, None)
            if self._bounds:
                self._bounds.clear()
            at = self._at.pop(handle, None)
            if at is not None:
                slab = at[0]
                slab.live -= 1
                if not slab.live:
                    if slab in self._open:
                        slab.top = 0  # (its bind groups stay: the same buffer)
                    else:
                        self._drop_slab(slab)
                return
            for key in self._bind_groups_of.pop(handle, ()):
                self._bind_groups.pop(key, None)
            if buf is not None and not self._pending and self.lost is None:
                buf.destroy()

    def write(self, handle: int, offset: int, data) -> None:
        with LOCK:
            self._check_alive()
            # queue.write_buffer runs before commands not yet submitted; keep order.
            self.flush()
            try:
                self._encoding.write(*self._place(handle, offset), data)
            except Exception as e:
                self._raise_if_lost(e)
                raise

    def read(self, handle: int, offset: int, nbytes: int) -> bytes:
        # not critical: once submitted, waiting for the GPU may be interrupted
        with LOCK:
            self._check_alive()
            if nbytes == 0 or self._reader is None:
                self.flush()
                if nbytes == 0:
                    return b""
                return self._read_buffer(handle, offset, nbytes)
            buf, ticket = self._stage_read(handle, offset, nbytes)
            data = self._await_read(buf, ticket, nbytes)
        deliver()
        return data

    def _place(self, handle: int, offset: int):
        """The wgpu buffer that holds handle's bytes, and where byte offset of them lies in
        it (a slot's offset in its slab added)."""
        at = self._at.get(handle)
        return self._buffers[handle], offset if at is None else offset + at[1]

    def _read_buffer(self, handle: int, offset: int, nbytes: int) -> bytes:
        try:
            return bytes(self._queue.read_buffer(*self._place(handle, offset), nbytes))
        except Exception as e:
            self._raise_if_lost(e)
            raise

    @critical
    def _stage_read(self, handle: int, offset: int, nbytes: int):
        """Record a copy of the bytes into the readback buffer after the recorded work,
        submit both, and ask for the buffer's map; returns (buffer, ticket)."""
        source, offset = self._place(handle, offset)
        n = (nbytes + 3) & ~3
        buf = self._reader.stage(n)
        self._pending.append((_COPY, source, offset, buf, n, None))
        try:
            self.flush()
        except BaseException:
            if self._pending and self._pending[-1][3] is buf:  # (a later read copies again)
                self._pending.pop()
            raise
        try:
            return buf, self._reader.map(buf, n)
        except Exception as e:
            self._raise_if_lost(e)
            raise

    def _await_read(self, buf, ticket: int, nbytes: int) -> bytes:
        """Wait for the map (``_Readback``), interruptibly: polls, then naps; the mapped
        bytes."""
        reader = self._reader
        done = reader.done
        if ticket not in done:
            poll, clock = reader.poll, time.perf_counter
            start = clock()
            try:
                poll()
                while ticket not in done:
                    waited = clock() - start
                    if waited > _SPIN_S:
                        time.sleep(min(waited / 8, _NAP_S))
                    poll()
            except Exception as e:
                self._raise_if_lost(e)
                raise
        status = done.pop(ticket)
        if status != reader.ok:
            reader.drop()  # (its buffer is not reused: its state is wgpu-native's)
            error = RuntimeError(f"a readback's buffer could not be mapped (status {status})")
            self._raise_if_lost(error)
            if self._device_lost():
                self._lose(f"a readback's map failed (status {status})")
                raise DeviceLost("the native WebGPU device was lost during a readback") from error
            raise error
        return self._take(buf, nbytes)

    @critical
    def _take(self, buf, nbytes: int) -> bytes:
        return self._reader.take(buf, nbytes)

    def _device_lost(self) -> bool:
        """Whether the device answers no more (a readback's map failed)."""
        try:
            self._device.create_command_encoder().finish()
            return False
        except Exception as e:
            return is_loss(e)

    # -- kernels -------------------------------------------------------------------------

    def compile(self, source: str) -> int:
        with LOCK:
            self._check_alive()
            kid = self._kernel_ids.get(source)
            if kid is not None:
                return kid
            writable = storage_bindings(source)
            kid = len(self._sources)
            self._sources.append(source)
            self._signatures.append(writable)
            try:
                self._pipeline(kid)
            except BaseException:
                self._sources.pop()
                self._signatures.pop()
                raise
            self._kernel_ids[source] = kid
            return kid

    def _pipeline(self, kid: int):
        """(pipeline, bind group layout) of a kernel: compiled now if it never was or was
        dropped from the cache; the least recently used ones go past the budget."""
        entry = self._pipelines.get(kid)
        if entry is not None:
            self._pipelines.move_to_end(kid)
            return entry
        source, writable = self._sources[kid], self._signatures[kid]
        try:
            module = self._module(source)
            stage = {"module": module, "entry_point": "main"}
            if writable is None:
                pipeline = self._device.create_compute_pipeline(layout="auto", compute=stage)
                layout = pipeline.get_bind_group_layout(0)
            else:
                layout = self._layout(writable)
                pipeline = self._device.create_compute_pipeline(
                    layout=self._device.create_pipeline_layout(bind_group_layouts=[layout]),
                    compute=stage,
                )
        except Exception as e:
            self._raise_if_lost(e)
            numbered = "\n".join(
                f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines())
            )
            raise KernelError(f"WGSL kernel failed to compile:\n{e}\n--- source ---\n{numbered}") from None
        entry = self._pipelines[kid] = (pipeline, layout)
        self._pipeline_bytes += len(source)
        while self._pipeline_bytes > self.kernel_cache_bytes and len(self._pipelines) > 1:
            old, _ = self._pipelines.popitem(last=False)
            self._pipeline_bytes -= len(self._sources[old])
        return entry

    def _module(self, source: str):
        """The shader module of a source: without naga's runtime checks (bounds checks on
        every index it cannot prove in range, loop bounding) where the source declares its
        accesses in bounds (``protocol.IN_BOUNDS``) and wgpu-native can compile it so
        (``wgpuDeviceCreateShaderModuleTrusted``); else checked, as WebGPU requires."""
        trusted = self._trusted
        if trusted is None or not source.startswith(IN_BOUNDS):
            return self._device.create_shader_module(code=source)
        create, lib, new_struct_p, string_view, module_class = trusted
        ffi = self._calls[3]
        wgsl = new_struct_p("WGPUShaderSourceWGSL *", code=string_view(source))
        wgsl[0].chain.next = ffi.NULL
        wgsl[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
        desc = new_struct_p("WGPUShaderModuleDescriptor *",
                            nextInChain=ffi.cast("WGPUChainedStruct *", wgsl),
                            label=string_view(""))
        handle = create(self._device._internal, desc, 0)  # WGPUShaderRuntimeChecks_None
        if handle == ffi.NULL:
            raise RuntimeError("shader module creation failed")
        self.trusted_modules += 1
        return module_class("", handle, self._device)

    def compiled_kernels(self) -> int:
        """How many kernels hold a compiled pipeline now (the rest compile again when used)."""
        return len(self._pipelines)

    def _layout(self, writable: tuple[bool, ...]):
        """The bind group layout shared by kernels with this binding signature: the uniforms
        at a dynamic offset, and every other binding too where the device allows that many
        (``_dynamic_most``)."""
        layout = self._layouts.get(writable)
        if layout is None:
            wgpu = self._wgpu
            dynamic = len(writable) <= self._dynamic_most
            entries = [{"binding": 0, "visibility": wgpu.ShaderStage.COMPUTE,
                        "buffer": {"type": "read-only-storage", "has_dynamic_offset": True}}]
            for b, w in enumerate(writable[1:], start=1):
                entries.append({"binding": b, "visibility": wgpu.ShaderStage.COMPUTE,
                                "buffer": {"type": "storage" if w else "read-only-storage",
                                           "has_dynamic_offset": dynamic}})
            layout = self._layouts[writable] = self._device.create_bind_group_layout(
                entries=entries)
        return layout

    def _bound(self, kernel: int, handles):
        """What a dispatch of ``kernel`` over ``handles`` (each an int, or (handle, offset,
        size) for one range of a buffer) binds: (the buffers, their part of the bind group's
        cache key, the bindings' dynamic offsets or None, their bytes, copies to make first,
        and a memo of its bind group for the replay).
        Under a layout of dynamic offsets (``_layout``) a buffer of its own is keyed by its
        handle (bound whole), a slot by its slab's negated id (bound as _SLOT_MAX bytes at the
        dispatch's offset: one group serves every slot of the same slabs), a range of a
        buffer of its own by (handle, offset, size), at that offset in the group. Otherwise
        key items are the handles, a slot's (handle, offset in its slab, size). A slot read
        where its slab is also written (WebGPU forbids one buffer read and written by a
        dispatch) is read from a copy made just before (``_alias_copies``)."""
        buffers, sizes, ats = self._buffers, self._sizes, self._at
        signature = self._signatures[kernel]
        dynamic = signature is not None and len(signature) <= self._dynamic_most
        bufs, key, offsets = [], [], []
        nbytes = 0
        slabs = shared = None  # the slabs of the slots bound; whether one is bound twice
        for h in handles:
            if h.__class__ is int:
                at = ats.get(h)
                bufs.append(buffers[h])
                nbytes += sizes[h]
                if at is None:
                    key.append(h)
                    offsets.append(0)
                    continue
                offsets.append(at[1])
            else:
                at = ats.get(h[0])
                bufs.append(buffers[h[0]])
                nbytes += h[2]
                if at is None:
                    key.append(h)
                    offsets.append(0 if dynamic else h[1])
                    continue
                offsets.append(at[1] + h[1])
            slab = at[0]
            key.append(-slab.id if dynamic else  # (a slot's range: its offset in the slab)
                       (h, at[1], sizes[h]) if h.__class__ is int else (h[0], offsets[-1], h[2]))
            if slabs is None:
                slabs = [slab]
            elif slab in slabs:
                shared = True
            else:
                slabs.append(slab)
        copies = None
        if shared:
            copies = self._alias_copies(kernel, handles, bufs, key, offsets)
        # (the last item: the replay's memo of this binding's group, ``_record``)
        return (bufs, tuple(key), tuple(offsets) if dynamic else None, nbytes, copies, [None])

    def _alias_copies(self, kernel, handles, bufs, key, offsets):
        """Rebind each read-only slot whose slab a binding of the same dispatch writes to a
        copy of the slot; returns the copies to record first, as pending entries (None if
        there are none)."""
        signature = self._signatures[kernel]  # (an explicit layout's says which are written)
        written = signature[1:] if signature else written_bindings(self._sources[kernel])
        slab = [self.slab_of(h if h.__class__ is int else h[0]) for h in handles]
        hot = {slab[i] for i, w in enumerate(written) if w and slab[i] is not None}
        copies = []
        for i, w in enumerate(written):
            if w or slab[i] not in hot:
                continue
            h = handles[i]
            size = self._sizes[h] if h.__class__ is int else h[2]
            copy = self._new_buffer(size)
            copies.append((_COPY, bufs[i], offsets[i], copy, size, None))
            self.alias_copies += 1
            bufs[i], offsets[i] = copy, 0
            key[i] = (-1, 0, size)  # (never cached: see _resources)
        return copies or None

    def _resources(self, bound):
        """The bind group entries' resources of a ``_bound`` dispatch, and the buffer and
        slab ids they name (None for a copy: the group is not kept)."""
        bufs, key = bound[0], bound[1]
        resources, ids = [], []
        for i, k in enumerate(key):
            b = bufs[i]
            if k.__class__ is int:  # a buffer of its own, or (negated id) a slab
                if k < 0:
                    resources.append({"buffer": b, "offset": 0, "size": _SLOT_MAX})
                    ids.append(-k)
                else:
                    resources.append({"buffer": b, "offset": 0, "size": b.size})
                    ids.append(k)
            elif k[0] == -1:  # a copy
                resources.append({"buffer": b, "offset": 0, "size": k[2]})
                ids.append(None)
            else:  # (handle, offset, size): a range of a buffer, or of a slab for a slot
                at = self._at.get(k[0])  # (where the slot is freed by now, the group is not
                resources.append({"buffer": b, "offset": k[1], "size": k[2]})  # kept)
                ids.append(k[0] if at is None else at[0].id)
        return resources, ids

    def _refuse(self, grid):
        raise ValueError(
            f"a dispatch of {tuple(grid)} workgroups exceeds this device's "
            f"{self.max_workgroups_per_dim} workgroups per dimension"
        )

    @critical
    def dispatch(self, kernel: int, bindings: Sequence, uniforms: bytes, grid) -> None:
        LOCK.acquire()  # not `with` (half the cost); @critical defers a SIGINT before the try
        try:
            if self.lost is not None:
                self._check_alive()
            limit = self.max_workgroups_per_dim
            if grid[0] > limit or grid[1] > limit or grid[2] > limit:
                self._refuse(grid)
            if self._pending_count >= _BATCH_LIMIT or self._pending_bytes >= _SUBMIT_BYTES:
                self.flush()
            if uniforms == self._last_uniforms:  # the last dispatch's uniforms: its words
                start, size, window = self._last_at
            else:
                arena = self._arena
                start = len(arena)
                pad = -start % self.binding_alignment
                if pad:
                    arena += _ZEROS[:pad]
                    start += pad
                arena += uniforms or b"\0\0\0\0"
                size = len(arena) - start
                # a dynamic binding has a fixed size per bind group: round it to a power of two
                if size <= 256:
                    window = 256
                else:
                    window = 1 << (size - 1).bit_length()
                if window > self._arena_slack:
                    self._arena_slack = window
                if uniforms.__class__ is bytes:  # (immutable: a caller's bytearray may change)
                    self._last_uniforms, self._last_at = uniforms, (start, size, window)
            handles = tuple(bindings)
            bound = self._bounds.get((kernel, handles))
            if bound is None:
                bound = self._bound(kernel, handles)
                if bound[4]:
                    self._pending += bound[4]
                elif len(self._bounds) < _BOUND_CACHE:
                    self._bounds[(kernel, handles)] = bound
                else:
                    self._bounds.clear()
            self._pending_bytes += bound[3]
            self._pending_count += 1
            self._pending.append((kernel, bound, start, size, window, grid))
        finally:
            LOCK.release()

    @critical
    def dispatch_many(self, kernel: int, bindings: Sequence, uniforms: Sequence[bytes], grid) -> None:
        """One dispatch of ``grid`` per entry of ``uniforms``, in order, all of one kernel
        over the same bindings (a Jacobi sweep's rounds): the checks, the bindings and the
        bind group are resolved once, and each dispatch costs its uniforms' copy into the
        arena here and two calls into wgpu-native at the submit. On an H200's host a sweep of
        511 rounds (n = 512) took 4.5-5.2 ms to record and submit through ``dispatch``, more
        than the GPU's ~3.6 ms, and takes 2.2 ms (the sweep 8.1-8.6 -> 5.8-6.0 ms); at
        n = 1024 the rounds are the GPU's bandwidth (~10 µs each) either way. Submits at the
        same limits as ``dispatch``, so the GPU starts on a long run while the rest is
        recorded."""
        if not uniforms:
            return
        with LOCK:
            if self.lost is not None:
                self._check_alive()
            if self._signatures[kernel] is None:  # an automatic layout: a bind group each
                for u in uniforms:
                    self.dispatch(kernel, bindings, u, grid)
                return
            limit = self.max_workgroups_per_dim
            if grid[0] > limit or grid[1] > limit or grid[2] > limit:
                self._refuse(grid)
            bound = self._bound(kernel, tuple(bindings))
            nbytes = bound[3]
            if bound[4]:  # (the copied slots are read, not written, by every round)
                self._pending += bound[4]
            size = max(len(u) for u in uniforms) or 4
            window = 256 if size <= 256 else 1 << (size - 1).bit_length()
            align = self.binding_alignment
            per = max(1, min(_BATCH_LIMIT, _SUBMIT_BYTES // max(nbytes, 1)))  # dispatches a submit
            for first in range(0, len(uniforms), per):
                if self._pending_count >= _BATCH_LIMIT or self._pending_bytes >= _SUBMIT_BYTES:
                    self.flush()
                arena = self._arena
                starts = []
                for u in uniforms[first:first + per]:
                    start = len(arena)
                    pad = -start % align
                    if pad:
                        arena += _ZEROS[:pad]
                        start += pad
                    arena += u or b"\0\0\0\0"
                    starts.append(start)
                if window > self._arena_slack:
                    self._arena_slack = window
                self._pending_bytes += nbytes * len(starts)
                self._pending_count += len(starts)
                self._pending.append((kernel, bound, tuple(starts), size, window, grid))

    @critical
    def flush(self) -> None:
        with LOCK:
            if not self._pending:
                return
            self._check_alive()
            try:
                self._submit()
            except MemoryError as e:
                self._raise_if_lost(e)
                raise
            except Exception as e:
                self._raise_if_lost(e)
                self._lose(f"recorded kernels could not be submitted: {_summary(e)}")
                raise DeviceLost(f"the native WebGPU device cannot run the recorded kernels "
                                 f"(arrays on it are gone; new arrays go to a fresh device): "
                                 f"{e}") from e
            # only now is the work the queue's: until here a failed submit left it recorded
            self._pending, self._pending_bytes, self._pending_count = [], 0, 0
            self._arena, self._arena_slack = bytearray(), 0
            self._last_uniforms = None

    def _submit(self) -> None:
        wgpu = self._wgpu
        pending, arena = self._pending, self._arena
        need = (len(arena) + 15) // 16 * 16
        if self._arena_size < need + self._arena_slack:
            size = max(need + self._arena_slack, 2 * self._arena_size, _ARENA_MIN)
            self._bind_groups.clear()  # they bind the old arena
            self._bind_groups_of.clear()
            self._arena_buf = self._device.create_buffer(
                size=size, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST)
            self._arena_size = size
        calls = self._encoding
        if need:  # (a batch of copies alone, a readback's, has no uniforms)
            arena.extend(b"\0" * (need - len(arena)))
            calls.write(self._arena_buf, 0, arena)
        enc = calls.encoder()
        try:
            self._record(enc, pending)
        except BaseException:
            calls.abandon(enc, None)
            raise
        calls.submit(calls.finish(enc))  # (each releases what it is given, even when it raises)

    def _record(self, enc, pending) -> None:
        """Record the batch into the command encoder enc (a pass an exception leaves open
        is released)."""
        calls = self._encoding
        begin, end, copy = calls.begin, calls.end, calls.copy
        cpass = None  # begun at the first dispatch after each copy
        arena_buf = self._arena_buf
        create = self._create_bind_group
        cache = self._bind_groups
        live, slabs = self._buffers, self._slabs
        current = None
        signatures = self._signatures
        # what the pass has bound (a dispatch with the same group at the same offsets, its
        # kernel's again with equal uniforms over the same buffers, binds nothing)
        last_group = last_start = last_offsets = None
        try:
            for kernel, bound, start, size, window, grid in pending:
                if kernel == _COPY:  # bound: (source, offset, copy, size), between two passes
                    if cpass is not None:
                        done, cpass = cpass, None
                        end(done)
                    copy(enc, bound, start, size, 0, window)
                    continue
                if cpass is None:
                    cpass = begin(enc)
                    set_pipeline, bind, dispatch = _pass_calls(cpass, self._calls)
                    current = last_group = None
                if kernel != current:  # (a dropped pipeline is compiled again here)
                    pipeline, layout = self._pipeline(kernel)
                    set_pipeline(pipeline)
                    current, last_group = kernel, None
                offsets = bound[2]
                signature = signatures[kernel]
                if signature is None:  # a kernel with an automatic layout: one group each
                    entries = [{"binding": 0, "resource": {
                        "buffer": arena_buf, "offset": start, "size": (size + 3) // 4 * 4}}]
                    for i, r in enumerate(self._resources(bound)[0]):
                        entries.append({"binding": i + 1, "resource": r})
                    bind(create(layout=layout, entries=entries), None)
                    last_group = None
                else:
                    memo = bound[5]  # [(arena, window, group)]: this binding's group last time
                    kept = memo[0]
                    if kept is not None and kept[0] is arena_buf and kept[1] == window:
                        group = kept[2]
                    else:
                        key = (signature, window, bound[1])
                        kept = cache.get(key)
                        if kept is None:
                            resources, ids = self._resources(bound)
                            entries = [{"binding": 0, "resource": {
                                "buffer": arena_buf, "offset": 0, "size": window}}]
                            for i, r in enumerate(resources):
                                entries.append({"binding": i + 1, "resource": r})
                            group = create(layout=layout, entries=entries)
                            if all(i in live or i in slabs for i in ids):
                                # never cache a freed buffer, nor a copy (its id None)
                                self._remember(key, group, ids)
                                memo[0] = (arena_buf, window, group)
                        else:
                            group = kept[0]
                            cache.move_to_end(key)
                            memo[0] = (arena_buf, window, group)
                    if start.__class__ is not int:  # dispatch_many's rounds
                        x, y, z = grid
                        for first in start:
                            bind(group, [first, *offsets] if offsets else [first])
                            dispatch(x, y, z)
                        last_group = None
                        continue
                    if (group is not last_group or start != last_start
                            or offsets is not last_offsets):
                        bind(group, [start, *offsets] if offsets else [start])
                        last_group, last_start, last_offsets = group, start, offsets
                dispatch(grid[0], grid[1], grid[2])
            if cpass is not None:
                done, cpass = cpass, None
                end(done)
        except BaseException:
            calls.abandon(None, cpass)
            raise

    def _remember(self, key, group, ids) -> None:
        cache, using = self._bind_groups, self._bind_groups_of
        cache[key] = (group, ids)
        for i in ids:
            using.setdefault(i, set()).add(key)
        while len(cache) > _BIND_GROUP_CACHE:
            old, (_, old_ids) = cache.popitem(last=False)
            for i in old_ids:
                keys = using.get(i)
                if keys is not None:
                    keys.discard(old)

    def buffer_count(self) -> int:
        return len(self._buffers)

    def simulate_loss(self) -> None:
        """Destroy the wgpu device behind this executor, as a driver reset or a removed GPU
        would; the executor finds out at its next command (for tests)."""
        self._device.destroy()

    def _check_alive(self) -> None:
        if self.lost is not None:
            raise DeviceLost(f"the native WebGPU device is gone ({self.lost}); arrays on it "
                             "cannot be used, new arrays go to a fresh device")

    def _raise_if_lost(self, error: Exception) -> None:
        if is_loss(error):
            self._lose(str(error).strip().splitlines()[-1].strip())
            raise DeviceLost(f"the native WebGPU device was lost: {self.lost}") from error

    def _lose(self, why: str) -> None:
        self.lost = why
        self._pending, self._arena, self._pending_bytes, self._pending_count = [], bytearray(), 0, 0
        self._last_uniforms = None
        self._bind_groups.clear()
        self._bind_groups_of.clear()
        self._bounds.clear()


def _summary(error: Exception) -> str:
    """A wgpu error's message on one line."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return " ".join(lines[:4]) if lines else type(error).__name__
