"""Size-class buffer pool over an executor, and the Buffer object arrays hold.

A Buffer returns to the pool when the last array (view) that holds it dies. Size classes
are four per octave, so a reused buffer wastes at most 25% (a request whose class would
exceed the device's largest buffer gets its own size). When an allocation fails, the pool
is emptied and the allocation retried once before MemoryError, naming the requested and
held sizes, reaches the caller.

Small buffers whose writer says what its kernel reads (``acquire``'s ``avoid``) may be slots
of shared slabs where the executor cuts them (``sub_allocates``, the native one); they are
pooled apart from buffers of their own.

A release runs in a finalizer, in whatever thread drops the last array, possibly wgpu's
polling thread while the main thread holds ``guard.LOCK`` and waits for that thread: it
never waits for the lock. Where another thread holds it, the buffer is left in
``_orphans`` and pooled by the next acquire.
"""

from __future__ import annotations

import os

from .guard import LOCK, critical
from .protocol import Executor

_MIN_CLASS = 256
# called before every allocation, under the lock: layers above drop what they keep only to
# save host time (the lazy graph's recent nodes, _core/fold.py), so it is freed first
BEFORE_ACQUIRE: list = []


def size_class(nbytes: int) -> int:
    if nbytes <= _MIN_CLASS:
        return _MIN_CLASS
    top = 1 << (nbytes - 1).bit_length()  # next power of two
    quarter = top // 8  # four classes between top/2 and top
    return (nbytes + quarter - 1) // quarter * quarter


# size_class of every slot request, by its bytes (grown to the executor's slot_max)
_SLOT_CLASS: list = []


class Buffer:
    """A device buffer owned by one or more arrays; back to the pool on last release."""

    # (__weakref__: a lent NumPy copy (_core/lease.py) must not keep its buffer alive)
    __slots__ = ("pool", "handle", "nbytes", "extent", "views", "slab", "__weakref__")

    def __init__(self, pool: "BufferPool", handle: int, nbytes: int, extent: int, slab=None):
        self.pool = pool
        self.handle = handle
        self.nbytes = nbytes  # the size class held
        self.slab = slab  # the id of the slab it is a slot of, or None (its own buffer)
        # the bytes asked for: what lies past them is stale data from the pool, never a
        # value (cupy's as_strided refuses views that reach it)
        self.extent = extent
        # arrays ever made over this buffer; 1 means its first array is its only one, which
        # lets the graph give that array a new buffer instead of writing in place
        self.views = 0

    def __del__(self):
        pool = self.pool
        if pool is not None:
            self.pool = None
            pool._release(self.handle, self.nbytes, self.slab)


class BufferPool:
    def __init__(self, executor: Executor, limit_bytes: int | None = None):
        self.executor = executor
        if limit_bytes is None:
            limit_bytes = int(os.environ.get("WEBARRAY_MEMORY_LIMIT", 8 << 30))
        self.limit_bytes = limit_bytes
        self.used_bytes = 0
        self.pooled_bytes = 0
        self._free: dict[int, list[int]] = {}
        # (handle, size, slab) released without the lock
        self._orphans: list[tuple[int, int, object]] = []
        # pooled memory above this fraction of the limit is released instead of kept
        self._pool_cap = limit_bytes // 4
        # the largest slot, in bytes: 0 where the executor cuts none
        self._slot_max = getattr(executor, "slot_max", 0) if getattr(
            executor, "sub_allocates", False) else 0
        if self._slot_max > len(_SLOT_CLASS) - 1:
            _SLOT_CLASS.extend(size_class(n) for n in range(len(_SLOT_CLASS), self._slot_max + 1))

    @critical
    def acquire(self, nbytes: int, avoid=None) -> Buffer:
        """A buffer of at least nbytes. ``avoid``, given by a caller that knows what the
        kernel writing the buffer reads (the elementwise launch, ``_core/launch.py``
        ``issue``): the Buffers it reads, possibly none. Only such a buffer may be a slot of a
        shared slab, where the executor cuts small buffers from slabs (``sub_allocates``),
        and it lies in none of those handles' slabs: WebGPU forbids a dispatch to read and
        write one buffer (the executor would copy what it reads). Slots are pooled apart
        from buffers of their own (``_free`` under the negated size, as (handle, slab id))."""
        LOCK.acquire()  # not `with` (half the cost); @critical defers a SIGINT before the try
        try:
            for f in BEFORE_ACQUIRE:
                f()
            if self._orphans:
                self._adopt()
            if avoid is not None and nbytes <= self._slot_max:  # (0 where there are no slots)
                return self._slot(nbytes, _SLOT_CLASS[nbytes], avoid)
            size = size_class(nbytes)
            largest = getattr(self.executor, "max_buffer_size", size)
            if size > largest:
                # the class would not fit the device, the request itself may
                size = (nbytes + 15) // 16 * 16
                if size > largest:
                    raise MemoryError(
                        f"cannot allocate {nbytes} bytes on the {self.executor.backend} device: "
                        f"the largest buffer it allows is {largest} bytes"
                    )
            free = self._free.get(size)
            if free:
                self.pooled_bytes -= size
                handle = free.pop()
            else:
                handle = self._alloc(nbytes, size, None)
            self.used_bytes += size
            return Buffer(self, handle, size, nbytes)
        finally:
            LOCK.release()

    def _slot(self, nbytes: int, size: int, avoid) -> Buffer:
        """``acquire``'s slot (the lock held): a pooled one of the size class outside the
        slabs of the Buffers in ``avoid`` (the last few pooled looked at), else a new one."""
        free = self._free.get(-size)  # (handle, slab id) pairs
        # the common case first: the last one pooled lies outside those slabs (apart from the
        # loop below, which builds the list of slabs to shun: folded into it, a forced result
        # on a 2-core VM took 0.2-0.3 µs more, session 35)
        if free:
            handle, slab = free[-1]
            for b in avoid:
                if b.slab == slab:
                    break
            else:
                free.pop()
                self.pooled_bytes -= size
                self.used_bytes += size
                return Buffer(self, handle, size, nbytes, slab)
        shun = [b.slab for b in avoid if b.slab is not None]
        handle = None
        if free:
            for i in range(len(free) - 1, max(len(free) - 9, -1), -1):
                if free[i][1] not in shun:
                    handle, slab = free.pop(i)
                    self.pooled_bytes -= size
                    break
        if handle is None:
            handle = self._alloc(nbytes, size, shun)
            slab = self.executor.slab_of(handle)  # (None where the device refused a slot)
        self.used_bytes += size
        return Buffer(self, handle, size, nbytes, slab)

    def _alloc(self, nbytes: int, size: int, shun) -> int:
        """A new buffer's handle from the executor (a slot outside the slabs ``shun``, unless
        None), within the limit: the pool trimmed first where it would pass it, and once
        more, with a retry, where the device is out of memory."""
        if self.used_bytes + self.pooled_bytes + size > self.limit_bytes:
            self.trim()
        if self.used_bytes + size > self.limit_bytes:
            raise MemoryError(
                f"cannot allocate {nbytes} bytes on the {self.executor.backend} device: "
                f"{self.used_bytes} of the {self.limit_bytes}-byte limit are in use "
                f"({self.limit_bytes - self.used_bytes} available; raise it with "
                "webarray.memory.set_limit or WEBARRAY_MEMORY_LIMIT)"
            )
        try:
            return self.executor.alloc(size) if shun is None else self.executor.alloc(size, shun)
        except MemoryError:
            released = self.pooled_bytes
            self.trim()
            try:
                return self.executor.alloc(size)
            except MemoryError as e:
                raise MemoryError(
                    f"cannot allocate {nbytes} bytes on the {self.executor.backend} "
                    f"device, even after giving back {released} pooled bytes; webarray "
                    f"holds {self.used_bytes} bytes in live arrays (the device said: {e})"
                ) from e

    def _release(self, handle: int, size: int, slab=None) -> None:
        if not LOCK.acquire(False):  # never wait in a finalizer (see the module docstring)
            self._orphans.append((handle, size, slab))
            return
        try:
            self.used_bytes -= size
            if self.pooled_bytes + size > self._pool_cap:
                self.executor.free(handle)
            else:
                if slab is None:
                    self._free.setdefault(size, []).append(handle)
                else:
                    self._free.setdefault(-size, []).append((handle, slab))
                self.pooled_bytes += size
        finally:
            LOCK.release()

    def _adopt(self) -> None:
        """Pool the buffers released while another thread held the lock (which this one
        holds now)."""
        while self._orphans:
            self._release(*self._orphans.pop())

    @critical
    def trim(self) -> None:
        """Give every pooled buffer back to the device."""
        with LOCK:
            self._adopt()
            # swapped out first: a finalizer that runs during the frees pools into the new one
            free, self._free, self.pooled_bytes = self._free, {}, 0
            for handles in free.values():
                for h in handles:  # (a slot's entry: (handle, slab id))
                    self.executor.free(h if h.__class__ is int else h[0])
