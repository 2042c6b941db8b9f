"""``cupy.cuda`` shims: the device, streams and the runtime calls CuPy code makes.

There is one GPU device per process (the browser's WebGPU or WebGL2 device, or the native
adapter); ``Device()`` and ``Device(0)`` name it. Kernels run in submission order on one
queue, so every stream is the null stream and ``synchronize`` waits for all queued work.
"""

from __future__ import annotations

from webarray._device import default_device


class Device:
    """``cupy.cuda.Device``: id 0 is the default webarray device."""

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
        default_device().synchronize()

    def use(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"<CUDA Device 0 (webarray {default_device()!r})>"


class Stream:
    """Every stream is the device's one queue."""

    null: "Stream"

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False):
        pass

    def synchronize(self) -> None:
        default_device().synchronize()

    def use(self) -> "Stream":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


Stream.null = Stream(null=True)


def get_current_stream() -> Stream:
    return Stream.null


class runtime:
    """The few ``cupy.cuda.runtime`` calls portable code makes."""

    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def deviceSynchronize() -> None:
        default_device().synchronize()

    @staticmethod
    def getDevice() -> int:
        return 0


def is_available() -> bool:
    return True
