"""The device protocol: the only interface between webarray and a GPU API.

An executor owns one GPU device and answers six commands. Buffers are untyped bytes named
by integer handles; kernels are shader sources named by the ids ``compile`` returns. Nothing
here knows about dtypes, shapes or promotion: that is the namespace's and the kernel
generators' business.

Binding convention for every kernel: ``@group(0) @binding(0)`` is a read-only storage
buffer of u32 words holding the dispatch's *uniforms* (the executor packs them into one
arena per batch); bindings 1..n are the buffers in ``bindings`` order. A binding is a
handle (the whole buffer) or, where ``binding_ranges`` is true, ``(handle, offset, size)`` in
bytes (offset a multiple of ``binding_alignment``): how arrays larger than
``max_binding_size`` are processed in pieces (``_core/launch.py``).
"""

from __future__ import annotations

from typing import Protocol, Sequence

# A kernel source that begins with this line declares that every buffer and workgroup access
# it makes is in bounds by construction (its generator guards or bounds each index and says
# why): an executor may compile it without the checks the WGSL compiler adds for accesses it
# cannot prove safe (and without its loop bounding); one that cannot ignores the line, a
# WGSL comment. Native: wgpu-native's trusted shader modules (float32 matmul 4096 on an H200
# 35.2 -> 39.9 TFLOP/s, benchmarks/NOTES-kernels-22.md, session 35). The kernel generators
# write the same literal (kernels/webgpu/matmul.py; tests/test_linear_algebra.py checks they agree).
IN_BOUNDS = "// webarray: every access in bounds by construction\n"


class DeviceLost(RuntimeError):
    """The GPU device behind an executor is gone; arrays on it cannot be used."""


class KernelError(RuntimeError):
    """A generated or user kernel failed to compile; the message carries the source."""


class BindingTooLarge(MemoryError):
    """A kernel would bind more bytes of one buffer than the device allows in one binding,
    and it cannot be split into pieces that fit; the message names the sizes. A
    MemoryError, like every "too large for this device" error of webarray."""


def is_loss(error: BaseException) -> bool:
    """Whether a GPU API error says that the device is gone (wgpu-native: "Parent device
    is lost"; browsers: "device was lost" / "Device is lost")."""
    text = str(error).lower()
    return "device is lost" in text or "device was lost" in text or "device lost" in text


class Executor(Protocol):
    #: short backend name: "native", "webgpu", "webgl2"
    backend: str
    #: adapter description (vendor, device, backend API)
    adapter_info: dict
    #: the WGSL compiler that builds its kernels: "naga" (wgpu-native, Firefox, Deno),
    #: "tint" (Dawn: Chromium, dawn.node), "webkit", or "unknown" (WebGL2: none)
    wgsl_compiler: str
    #: the largest buffer, storage binding and workgroups-per-dimension of the device
    max_buffer_size: int
    max_binding_size: int
    max_workgroups_per_dim: int
    #: bytes of workgroup memory one kernel may declare (checked by ``_core/device.py``:
    #: wgpu-native does not); the native executor asks for no more than a browser offers
    max_workgroup_storage: int
    #: alignment (bytes) of a storage buffer binding offset
    binding_alignment: int
    #: whether ``dispatch`` takes ``(handle, offset, size)`` bindings
    binding_ranges: bool
    #: the reason the device was lost, or None while it works
    lost: str | None

    def alloc(self, nbytes: int) -> int:
        """A new buffer of at least nbytes (contents undefined). MemoryError when it cannot.
        An executor with ``sub_allocates`` true also takes ``alloc(nbytes, avoid)``: a buffer
        of at most ``slot_max`` bytes cut from a shared slab whose id (``slab_of(handle)``) is
        not in ``avoid``
        (``executors/native.py``); the pool asks for that only where the caller knows what
        the writing kernel reads."""

    def free(self, handle: int) -> None:
        """Release a buffer; pending dispatches that use it still see it."""

    def write(self, handle: int, offset: int, data: bytes | memoryview) -> None:
        """Copy host bytes into a buffer, ordered after every dispatch issued before."""

    def read(self, handle: int, offset: int, nbytes: int) -> bytes:
        """Block until every issued dispatch has finished and return the bytes."""

    def compile(self, source: str) -> int:
        """Compile a compute shader (entry point ``main``); KernelError on failure. A source
        that begins with ``IN_BOUNDS`` may be compiled without runtime bounds checks."""

    def dispatch(
        self,
        kernel: int,
        bindings: Sequence[int],
        uniforms: bytes,
        grid: tuple[int, int, int],
    ) -> None:
        """Enqueue one dispatch of ``grid`` workgroups (each at most
        ``max_workgroups_per_dim``, else ValueError)."""

    def dispatch_many(
        self,
        kernel: int,
        bindings: Sequence[int],
        uniforms: Sequence[bytes],
        grid: tuple[int, int, int],
    ) -> None:
        """``dispatch`` once per entry of ``uniforms``, in order (the rounds of an
        iteration: one kernel, the same bindings and grid)."""

    def flush(self) -> None:
        """Submit everything enqueued so far (does not wait)."""

    def buffer_count(self) -> int:
        """How many GPU buffers the executor holds (live and pooled)."""


def buffer_size(nbytes: int, max_buffer_size: int, device: str) -> int:
    """The size actually allocated for nbytes (a multiple of 16, at least 16), or
    MemoryError when the device cannot hold a buffer that large."""
    size = max(16, (nbytes + 15) // 16 * 16)
    if size > max_buffer_size:
        raise MemoryError(
            f"cannot allocate {size} bytes on {device}: the largest buffer this device "
            f"allows is {max_buffer_size} bytes"
        )
    return size
