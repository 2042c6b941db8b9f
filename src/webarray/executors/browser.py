"""The browser executor: the device protocol from Pyodide to the page's GPU.

Python runs in a Web Worker. Commands are encoded here as binary records (the format of
``src/webarray_js/protocol.ts``; the constants below must match it, which
tests/test_browser.py checks) and handed to the JS side through one of two transports
that the page's ``connectWebarray`` registered as the JS module ``_webarray_bridge``:

- ``sab``: the GPU device lives on another thread; records go into a SharedArrayBuffer
  ring and blocking requests wait in ``Atomics.wait`` for the reply in a shared window.
- ``jspi``: the device lives on this thread; batches are executed by a direct call and
  requests block on the returned promise with ``pyodide.ffi.run_sync``.

Records are collected in a local batch and handed over when a request needs an answer,
at ``flush``, or once the batch is ``_PUSH_BYTES`` long; the GPU side puts the
dispatches of a batch into one compute pass. Handles and kernel ids are chosen here, so
alloc, free, write and dispatch never wait; compile, read, and allocations of at least
``_CHECKED_ALLOC_BYTES`` wait, so shader errors and out-of-memory surface where they
happen. An error of a command that did not wait (a failed small allocation, a rejected
dispatch) is raised by the next command that does.

Every command holds ``guard.LOCK``, and the functions that add to the batch or hand it
over are ``@critical``: a KeyboardInterrupt (Pyodide's interrupt buffer raises it through
the SIGINT handler) never leaves a record half-added, a batch taken but not handed over,
or a request handed over whose reply nobody reads.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Sequence

from .guard import LOCK, critical, deliver
from .protocol import DeviceLost, KernelError, buffer_size

# -- the command format (src/webarray_js/protocol.ts; the numbers: wire.py) -----------------
from .wire import (BRIDGE_MODULE, OP_ALLOC, OP_COMPILE, OP_DESTROY, OP_DISPATCH,  # noqa: E402,F401
                   OP_FLUSH, OP_FREE, OP_INFO, OP_PING, OP_READ, OP_SIMULATE_LOSS, OP_SYNC,
                   OP_WRITE, RECORD_ALIGN, STATUS_DEVICE_LOST, STATUS_INTERNAL, STATUS_KERNEL,
                   STATUS_OK, STATUS_OUT_OF_MEMORY, STATUS_UNSUPPORTED, STATUS_VALIDATION,
                   TRANSPORT_LOST, TRANSPORT_TIMEOUT)

_PUSH_BYTES = 32 << 10  # a local batch this long is handed over without waiting for flush
# Allocations this large wait until the GPU confirms them, so that running out of memory
# raises MemoryError at the allocation (where the pool can trim and retry). The check costs
# a round trip to the GPU process (0.5-12 ms on SwiftShader, growing with the size), so
# smaller allocations do not wait; their failure is raised by the next blocking call.
_CHECKED_ALLOC_BYTES = 64 << 20
# seconds a blocking request may take before the GPU side is declared gone
_TIMEOUT = float(os.environ.get("WEBARRAY_BROWSER_TIMEOUT", "120"))
_START_TIMEOUT = 30.0

_HEADER = struct.Struct("<II")
_DISPATCH = struct.Struct("<8I")
_ZEROS = bytes(RECORD_ALIGN)


def _padded(size: int) -> int:
    return (size + RECORD_ALIGN - 1) & -RECORD_ALIGN


def _record(op: int, words: Sequence[int] = (), payload: bytes | memoryview = b"") -> bytes:
    size = 8 + 4 * len(words) + len(payload)
    padded = _padded(size)
    return b"".join(
        (struct.pack(f"<{2 + len(words)}I", op, padded, *words), payload, _ZEROS[: padded - size])
    )


def _bridge():
    try:
        import _webarray_bridge  # type: ignore[import-not-found]
    except ImportError:
        raise RuntimeError(
            "webarray's browser executor needs the JS module _webarray_bridge: start Python "
            "with startWebarray() from webarray's JS library, or call connectWebarray(pyodide, "
            "connection) in your Pyodide worker (docs/browser.md)"
        ) from None
    return _webarray_bridge


class _Link:
    """One transport to the JS side: a batch is staged into ``bridge.input(n)`` and then
    handed over (``send``) or handed over and answered (``call``)."""

    def __init__(self, bridge):
        self._bridge = bridge
        self.window_bytes = int(bridge.windowBytes)  # the largest reply, so the largest read
        self.max_record = int(bridge.maxRecord)

    def _stage(self, batch: bytearray) -> int:
        self._bridge.input(len(batch)).assign(batch)
        return len(batch)

    def _payload(self) -> bytes:
        view = self._bridge.payload()
        return view.to_bytes() if view.length else b""


class _SharedRing(_Link):
    """The SharedArrayBuffer transport: the GPU on another thread. The JS side copies the
    batch into the ring and, for a request, sleeps in Atomics.wait until the reply."""

    def send(self, batch: bytearray) -> None:
        self._check(self._bridge.send(self._stage(batch), _TIMEOUT * 1000), "handing over commands", _TIMEOUT)

    def call(self, batch: bytearray, seq: int, what: str, timeout: float) -> tuple[int, bytes]:
        status = self._check(self._bridge.request(self._stage(batch), seq, timeout * 1000), what, timeout)
        return status, self._payload()

    @staticmethod
    def _check(status: int, what: str, timeout: float) -> int:
        if status == TRANSPORT_TIMEOUT:
            raise DeviceLost(f"the GPU thread made no progress for {timeout:g} s while {what} (neither took a "
                             "command nor finished a piece of GPU work)")
        if status == TRANSPORT_LOST:
            raise DeviceLost(f"the GPU thread stopped while {what}; see the browser console")
        return status


class _Direct(_Link):
    """The JSPI transport: the GPU on this thread; requests block with run_sync (which has
    no timeout: the page's own timeout bounds a hung device here)."""

    def __init__(self, bridge):
        from pyodide.ffi import can_run_sync, run_sync  # type: ignore[import-not-found]

        super().__init__(bridge)
        self._can_run_sync = can_run_sync
        self._run_sync = run_sync

    def send(self, batch: bytearray) -> None:
        self._bridge.send(self._stage(batch))

    def call(self, batch: bytearray, seq: int, what: str, timeout: float) -> tuple[int, bytes]:
        if not self._can_run_sync():
            raise RuntimeError(
                f"{what} must wait for the GPU, and the JSPI transport can only wait inside code "
                "started with runPythonAsync (or callPromising); use the 'sab' transport otherwise"
            )
        status = int(self._run_sync(self._bridge.request(self._stage(batch))))
        return status, self._payload()


class BrowserExecutor:
    """The device protocol on the page's WebGPU device or WebGL2 context (the JS side's
    ``webgpu.ts`` / ``webgl2.ts``; kernels arrive in the device's shader language)."""

    def __init__(self, kind: str = "webgpu"):
        bridge = _bridge()
        if str(bridge.backend) != kind:
            raise RuntimeError(
                f"the page connected webarray to {bridge.backend}, not {kind}; start it with "
                f"backend '{kind}' or set WEBARRAY_DEVICE={bridge.backend}"
            )
        self.transport = str(bridge.transport)
        self._link = _SharedRing(bridge) if self.transport == "sab" else _Direct(bridge)
        self.backend = kind
        self._batch = bytearray()
        self._freed: list[int] = []
        self._seq = 0
        self._next_handle = 1
        self._sizes: dict[int, int] = {}
        self._kernel_ids: dict[str, int] = {}
        self.kernel_sources: list[str] = []
        self._lost: str | None = None
        self.adapter_info = {"device": kind}
        info = json.loads(self._request(OP_INFO, (), f"starting the {kind} device", timeout=_START_TIMEOUT))
        self.adapter_info = info["adapter_info"]
        self.wgsl_compiler = str(self.adapter_info.get("compiler", "unknown"))
        # above every handle the GPU side has seen: after a loss, frees still coming from
        # the lost executor never reach this one's buffers
        self._next_handle = max(self._next_handle, int(info.get("first_handle", 1)))
        self.max_buffer_size = int(info["max_buffer_size"])
        self.max_binding_size = int(info["max_binding_size"])
        self.max_storage_buffers = int(info.get("max_storage_buffers", 8))
        self.max_workgroups_per_dim = int(info["max_workgroups_per_dim"])
        self.max_workgroup_storage = int(info["max_workgroup_storage"])
        self.binding_alignment = int(info["binding_alignment"])

    # -- buffers -------------------------------------------------------------------------

    @critical
    def alloc(self, nbytes: int) -> int:
        with LOCK:
            self._check_alive()
            nbytes = buffer_size(nbytes, self.max_buffer_size, self.adapter_info["device"])
            handle = self._next_handle
            self._next_handle += 1
            if nbytes >= _CHECKED_ALLOC_BYTES:
                self._request(OP_ALLOC, (handle, nbytes), f"allocating {nbytes} bytes")
            else:
                self._add(_record(OP_ALLOC, (0, handle, nbytes)))
            self._sizes[handle] = nbytes
            return handle

    def free(self, handle: int) -> None:
        # Called from finalizers, possibly in the middle of encoding another record: only
        # note the handle here; the FREE records join the batch when it is handed over.
        if self._sizes.pop(handle, None) is not None:
            self._freed.append(handle)

    def write(self, handle: int, offset: int, data) -> None:
        with LOCK:
            self._check_alive()
            mv = memoryview(data).cast("B")
            if offset % 4 or len(mv) % 4:
                raise ValueError(
                    f"writes must start and end on 4-byte boundaries (offset {offset}, {len(mv)} bytes)"
                )
            chunk = self._link.max_record // 2
            for start in range(0, len(mv), chunk):
                piece = mv[start : start + chunk]
                self._add(_record(OP_WRITE, (handle, offset + start, len(piece)), piece))

    def read(self, handle: int, offset: int, nbytes: int) -> bytes:
        with LOCK:
            self._check_alive()
            if nbytes == 0:
                self.flush()
                return b""
            window = self._link.window_bytes
            pieces = []
            for start in range(0, nbytes, window):
                n = min(window, nbytes - start)
                pieces.append(self._request(OP_READ, (handle, offset + start, n), f"reading {nbytes} bytes"))
        deliver()
        return b"".join(pieces)

    # -- kernels -------------------------------------------------------------------------

    def compile(self, source: str) -> int:
        with LOCK:
            self._check_alive()
            kid = self._kernel_ids.get(source)
            if kid is not None:
                return kid
            kid = len(self.kernel_sources)
            code = source.encode()
            if _padded(20 + len(code)) > self._link.max_record:
                raise ValueError(f"a kernel of {len(code)} bytes does not fit the command ring")
            try:
                self._request(OP_COMPILE, (kid, len(code)), "compiling a kernel", code)
            except KernelError as e:
                numbered = "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))
                lang = "GLSL" if self.backend == "webgl2" else "WGSL"
                raise KernelError(f"{lang} kernel failed to compile:\n{e}\n--- source ---\n{numbered}") from None
            self.kernel_sources.append(source)
            self._kernel_ids[source] = kid
            return kid

    def dispatch(self, kernel: int, bindings: Sequence[int], uniforms: bytes, grid) -> None:
        self._check_alive()
        nb, nu = len(bindings), len(uniforms)
        size = 32 + 4 * nb + nu
        padded = _padded(size)
        self._add(  # one record: _add takes the lock
            b"".join((
                _DISPATCH.pack(OP_DISPATCH, padded, kernel, grid[0], grid[1], grid[2], nb, nu),
                struct.pack(f"<{nb}I", *bindings),
                uniforms,
                _ZEROS[: padded - size],
            ))
        )

    def dispatch_many(self, kernel: int, bindings: Sequence[int], uniforms, grid) -> None:
        for u in uniforms:  # each is one record of the batch anyway
            self.dispatch(kernel, bindings, u, grid)

    @critical
    def flush(self) -> None:
        with LOCK:
            self._check_alive()
            self._batch += _record(OP_FLUSH)
            self._link.send(self._take_batch())

    def buffer_count(self) -> int:
        return len(self._sizes)

    # -- beyond the protocol -------------------------------------------------------------

    def sync(self) -> None:
        """Wait until every command handed over so far has finished on the GPU."""
        self._request(OP_SYNC, (), "waiting for the GPU")

    def ping(self) -> None:
        """A round trip to the GPU side that does no GPU work (measures the transport)."""
        self._request(OP_PING, (), "pinging the GPU thread")

    def destroy(self) -> None:
        """Destroy the GPU device; every later command raises DeviceLost."""
        self._request(OP_DESTROY, (), "destroying the device")

    def simulate_loss(self, restore_after_ms: int = 0) -> None:
        """Testing aid: the browser loses the GPU device now (WebGL2: WEBGL_lose_context,
        restored ``restore_after_ms`` after the loss; WebGPU: ``GPUDevice.destroy()``).
        Raises DeviceLost, as every later command of this device does; then
        ``default_device()`` starts a new device (WebGPU: on a new adapter and device; WebGL2:
        once the context is restored)."""
        self._request(OP_SIMULATE_LOSS, (restore_after_ms,), "simulating a device loss")

    # -- plumbing ------------------------------------------------------------------------

    @critical
    def _add(self, record: bytes) -> None:
        with LOCK:
            self._batch += record
            if len(self._batch) >= _PUSH_BYTES:
                self._link.send(self._take_batch())

    def _take_batch(self) -> bytearray:
        freed, self._freed = self._freed, []
        for h in freed:
            self._batch += _record(OP_FREE, (h,))
        batch, self._batch = self._batch, bytearray()
        return batch

    @critical
    def _request(
        self, op: int, words: Sequence[int], what: str, payload: bytes = b"", timeout: float = _TIMEOUT
    ) -> bytes:
        with LOCK:
            self._check_alive()
            self._seq = self._seq % 0x7FFFFFFF + 1
            seq = self._seq
            self._batch += _record(op, (seq, *words), payload)
            status, reply = self._link.call(self._take_batch(), seq, what, timeout)
        if status != STATUS_OK:
            self._raise(status, reply.decode("utf-8", "replace"), what)
        return reply

    def _raise(self, status: int, message: str, what: str):
        if status == STATUS_KERNEL:
            raise KernelError(message)
        if status == STATUS_OUT_OF_MEMORY:
            raise MemoryError(f"{what} on {self.adapter_info['device']}: {message}")
        if status == STATUS_DEVICE_LOST:
            self._lost = message
            raise DeviceLost(message)
        if status == STATUS_UNSUPPORTED:
            raise RuntimeError(message)
        raise RuntimeError(f"{what} on the {self.backend} device failed: {message}")

    def _check_alive(self) -> None:
        # the GPU side answers every request after a loss with its reason; until one
        # has, commands that need no answer are dropped there
        if self._lost is not None:
            raise DeviceLost(f"the {self.backend} device is gone: {self._lost}")
