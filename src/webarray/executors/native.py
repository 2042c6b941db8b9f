"""The native executor: the device protocol over wgpu-py (wgpu-native) in CPython.

Dispatches are recorded host-side and replayed into one compute pass per submit, which is
what makes small ops cheap (PERF_NOTES.md: ~5 µs per dispatch in one pass against ~140 µs
with one submit each). Uniforms of a whole batch live in one arena buffer written once per
submit.
"""

from __future__ import annotations

import os
from typing import Sequence

from .protocol import DeviceLost, KernelError

_BATCH_LIMIT = 4096  # dispatches recorded before a submit is forced


def _wgpu():
    try:
        import wgpu
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "the native executor needs the 'wgpu' package: pip install 'webarray[native]'"
        ) from e
    return wgpu


class NativeExecutor:
    backend = "native"

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
            )
        }
        self._device = adapter.request_device_sync(required_limits=wanted)
        self._queue = self._device.queue
        info = adapter.info
        self.adapter_info = {
            "vendor": info.get("vendor", ""),
            "device": info.get("device", ""),
            "description": info.get("description", ""),
            "backend": info.get("backend_type", ""),
            "adapter_type": info.get("adapter_type", ""),
        }
        self.max_buffer_size = int(wanted["max-buffer-size"])
        self.max_binding_size = int(wanted["max-storage-buffer-binding-size"])
        self.max_workgroups_per_dim = int(limits["max-compute-workgroups-per-dimension"])
        self.binding_alignment = int(limits["min-storage-buffer-offset-alignment"])
        self._usage = (
            wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        )
        self._buffers: dict[int, object] = {}
        self._next_handle = 1
        self._pipelines: list[tuple[object, object]] = []
        self._kernel_ids: dict[str, int] = {}
        self._pending: list[tuple] = []
        self._arena = bytearray()
        self._arena_buf = None
        self._arena_size = 0
        self._lost: str | None = None

    # -- buffers -------------------------------------------------------------------------

    def alloc(self, nbytes: int) -> int:
        self._check_alive()
        nbytes = max(16, (nbytes + 15) // 16 * 16)
        if nbytes > self.max_buffer_size:
            raise MemoryError(
                f"cannot allocate {nbytes} bytes on {self.adapter_info['device']}: the "
                f"largest buffer this device allows is {self.max_buffer_size} bytes"
            )
        try:
            buf = self._device.create_buffer(size=nbytes, usage=self._usage)
        except Exception as e:
            raise MemoryError(
                f"allocating {nbytes} bytes failed on {self.adapter_info['device']}: {e}"
            ) from e
        handle = self._next_handle
        self._next_handle += 1
        self._buffers[handle] = buf
        return handle

    def free(self, handle: int) -> None:
        # Pending dispatches keep their own reference to the buffer object, so dropping
        # the handle here never invalidates work that is already recorded.
        buf = self._buffers.pop(handle, None)
        if buf is not None and not self._pending:
            buf.destroy()

    def write(self, handle: int, offset: int, data) -> None:
        self._check_alive()
        if self._pending:
            # queue.write_buffer runs before commands not yet submitted; keep order.
            self.flush()
        self._queue.write_buffer(self._buffers[handle], offset, data)

    def read(self, handle: int, offset: int, nbytes: int) -> bytes:
        self._check_alive()
        self.flush()
        if nbytes == 0:
            return b""
        return bytes(self._queue.read_buffer(self._buffers[handle], offset, nbytes))

    # -- kernels -------------------------------------------------------------------------

    def compile(self, source: str) -> int:
        self._check_alive()
        kid = self._kernel_ids.get(source)
        if kid is not None:
            return kid
        try:
            module = self._device.create_shader_module(code=source)
            pipeline = self._device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}
            )
        except Exception as e:
            numbered = "\n".join(
                f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines())
            )
            raise KernelError(f"WGSL kernel failed to compile:\n{e}\n--- source ---\n{numbered}") from None
        kid = len(self._pipelines)
        self._pipelines.append((pipeline, pipeline.get_bind_group_layout(0)))
        self._kernel_ids[source] = kid
        return kid

    def dispatch(self, kernel: int, bindings: Sequence[int], uniforms: bytes, grid) -> None:
        self._check_alive()
        align = self.binding_alignment
        start = (len(self._arena) + align - 1) // align * align
        self._arena.extend(b"\0" * (start - len(self._arena)))
        self._arena.extend(uniforms or b"\0\0\0\0")
        size = len(self._arena) - start
        bufs = [self._buffers[h] for h in bindings]
        self._pending.append((kernel, bufs, start, size, grid))
        if len(self._pending) >= _BATCH_LIMIT:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        arena, self._arena = self._arena, bytearray()
        wgpu = self._wgpu
        need = (len(arena) + 15) // 16 * 16
        if self._arena_size < need:
            self._arena_size = max(need, 2 * self._arena_size, 1 << 16)
            self._arena_buf = self._device.create_buffer(
                size=self._arena_size,
                usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST,
            )
        arena.extend(b"\0" * (need - len(arena)))
        self._queue.write_buffer(self._arena_buf, 0, arena)
        enc = self._device.create_command_encoder()
        cpass = enc.begin_compute_pass()
        arena_buf = self._arena_buf
        create = self._device.create_bind_group
        for kernel, bufs, start, size, grid in pending:
            pipeline, layout = self._pipelines[kernel]
            entries = [
                {"binding": 0, "resource": {"buffer": arena_buf, "offset": start, "size": (size + 3) // 4 * 4}}
            ]
            for i, b in enumerate(bufs):
                entries.append({"binding": i + 1, "resource": {"buffer": b}})
            cpass.set_pipeline(pipeline)
            cpass.set_bind_group(0, create(layout=layout, entries=entries))
            cpass.dispatch_workgroups(*grid)
        cpass.end()
        self._queue.submit([enc.finish()])

    def buffer_count(self) -> int:
        return len(self._buffers)

    def _check_alive(self) -> None:
        if self._lost is not None:
            raise DeviceLost(f"the native WebGPU device was lost: {self._lost}")
