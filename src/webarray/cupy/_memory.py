"""``get_default_memory_pool()`` and the pinned pool, over webarray's buffer pool."""

from __future__ import annotations

from webarray import memory
from webarray._core.device import default_device


class MemoryPool:
    """CuPy's MemoryPool interface over the default device's size-class buffer pool:
    ``used_bytes`` are held by live arrays, ``total_bytes`` adds the buffers kept for
    reuse, ``free_all_blocks`` gives the kept ones back to the GPU."""

    def used_bytes(self) -> int:
        return memory.stats()["used_bytes"]

    def free_bytes(self) -> int:
        return memory.stats()["pooled_bytes"]

    def total_bytes(self) -> int:
        s = memory.stats()
        return s["used_bytes"] + s["pooled_bytes"]

    def free_all_blocks(self, stream=None) -> None:
        memory.free_pooled()

    def n_free_blocks(self) -> int:
        pool = default_device().pool
        return sum(len(v) for v in getattr(pool, "_free", {}).values())

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if fraction is not None:
            raise NotImplementedError("set_limit(fraction=) needs the device's memory size, "
                                      "which WebGPU does not report; pass size=")
        memory.set_limit(size if size else 1 << 62)

    def get_limit(self) -> int:
        return memory.stats()["limit_bytes"]


class PinnedMemoryPool:
    """Host memory is never pinned here: nothing to count or free."""

    def free_all_blocks(self) -> None:
        pass

    def n_free_blocks(self) -> int:
        return 0


_POOL = MemoryPool()
_PINNED = PinnedMemoryPool()


def get_default_memory_pool() -> MemoryPool:
    return _POOL


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    return _PINNED
