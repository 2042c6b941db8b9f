"""``cupy.cuda`` shims: the device, streams and the runtime calls CuPy code makes.

There is one GPU device per process (the browser's WebGPU or WebGL2 device, or the native
adapter); ``Device()`` and ``Device(0)`` name it. Kernels run in submission order on one
queue, so every stream is the null stream and ``synchronize`` waits for all queued work.
Work the lazy graph still holds (pending arrays: ``webarray.fusion``) counts as issued, as
every CuPy op is: synchronizing computes it first, so code that times a loop between two
synchronizations (or two events) times its kernels, not only their issuing.
"""

from __future__ import annotations

import time
import types

from webarray._core import graph as _graph
from webarray._core.device import default_device


def _finish() -> None:
    """Compute the default device's pending arrays, then wait for all its queued work."""
    device = default_device()
    _graph.flush(device)
    device.synchronize()


class Device:
    """``cupy.cuda.Device``: id 0 is the default webarray device (``ndarray.device`` gives
    one, as CuPy's does)."""

    def __init__(self, device: int | None = None):
        if device not in (None, 0):
            raise ValueError(f"webarray has one GPU device (id 0), not {device!r}")
        self.id = 0

    @property
    def webarray_device(self):
        return default_device()

    @property
    def backend(self) -> str:
        """'native', 'webgpu' or 'webgl2' (not in CuPy)."""
        return default_device().backend

    def synchronize(self) -> None:
        """Wait until every queued kernel has finished."""
        _finish()

    def use(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return 0

    def __eq__(self, other) -> bool:
        return isinstance(other, Device)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"<CUDA Device 0 (webarray {default_device()!r})>"


class Stream:
    """Every stream is the device's one queue."""

    null: "Stream"

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False):
        pass

    def synchronize(self) -> None:
        _finish()

    def use(self) -> "Stream":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


Stream.null = Stream(null=True)


class Event:
    """``cupy.cuda.Event``: work is in order on one queue, so recording an event marks a
    point on the host clock after all queued work so far (``get_elapsed_time`` between two
    such points is the device time, as CuPy's)."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self._time = None

    def record(self, stream=None) -> None:
        _finish()
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        _finish()

    @property
    def done(self) -> bool:
        return True


def get_elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events."""
    if start._time is None or end._time is None:
        raise RuntimeError("get_elapsed_time: both events must have been recorded")
    return (end._time - start._time) * 1000.0


def get_current_stream() -> Stream:
    return Stream.null


class runtime:
    """The few ``cupy.cuda.runtime`` calls portable code makes."""

    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def deviceSynchronize() -> None:
        _finish()

    @staticmethod
    def getDevice() -> int:
        return 0


def is_available() -> bool:
    return True


# Modules CuPy code imports by name and this device has no use for: ``from cupy.cuda import
# cublas`` must succeed (Chainer imports it at start), their functions are not offered.
cublas = types.ModuleType("cupy.cuda.cublas", "cuBLAS has no counterpart here")
nvtx = types.ModuleType("cupy.cuda.nvtx", "NVTX ranges do nothing here")
nvtx.RangePush = nvtx.RangePop = nvtx.Mark = lambda *a, **k: None
nvtx_enabled = False
