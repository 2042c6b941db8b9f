"""NumPy copies whose writes reach the array: ``np.asarray(x)`` lends its copy.

A webarray array lives in GPU memory, so ``np.asarray(x)`` is always a copy. NumPy code
that writes into the array it gets expects the writes to land in x: SciPy's ndimage
writes its results into ``output=`` that way (with array_api_strict, whose arrays are
NumPy arrays, ``np.asarray`` is a view). So the copy of a C-contiguous x, in x's own
dtype, is lent (``lend``, after the pending expressions that read x's buffer are
computed, so none of them reads what NumPy writes): it is writable, and what NumPy changes in it is
written back into x's buffer (the copy's bytes compared with the bytes read; nothing is
written where nothing changed):

- at the next webarray operation of the thread that made the copy that reads or writes x's
  buffer (a pending node with a leaf over it made, a kernel that binds it launched), which
  then also closes the lease: the copy turns read-only, so a later write into it raises
  instead of being lost. Operations on other arrays leave it lent (SciPy's ndimage compares
  a size array's elements between lending ``output=`` and writing into it);
- at a readback (``np.asarray(y)``, ``float(y)``, and the kernels that compute y for it) by
  any thread, which leaves the lease open: a library may convert its arguments one by one and only
  then write into the first (scikit-learn's Cython kernels take writable views of every
  argument); ``np.asarray(x)`` again gives the same copy (``reuse``), and this thread's
  copy of another view that overlaps it closes it;
- at any kernel launch or readback of another thread (a worker thread that filled the
  copy and handed the array back): written back, but the lease stays open, since its
  thread may write more; it closes at that thread's next webarray operation or when the
  thread has ended.

NumPy views made of the copy keep their own writable flag: what they write after the
lease closed is not seen. This module sits below the graph and the launch layer, which
call ``settle`` when ``LEASES`` is not empty (one list test on their paths otherwise).
"""

from __future__ import annotations

import atexit
import threading
import weakref

LEASES: list = []  # the open leases, oldest first
_LOCK = threading.Lock()
atexit.register(LEASES.clear)  # (the buffers go back to their pools before shutdown)


class _Lease:
    # buffer: a weak reference. Once the arrays over it are gone nothing can read what NumPy
    # writes into the copy, and the lease ends with them: an open lease kept the buffer (and
    # the copy) alive, and every launch compared every open copy with its bytes, so a process
    # that called np.asarray on many arrays grew slower with each (a test file 20x)
    __slots__ = ("executor", "buffer", "offset", "raw", "array", "storage", "thread")

    def write_back(self) -> None:
        buffer = self.buffer()
        if buffer is None:
            return
        data = self.array.astype(self.storage).tobytes()  # (int8, bool: 4-byte words)
        if data != self.raw:
            self.executor.write(buffer.handle, self.offset, data)
            self.raw = data


def lend(executor, buffer, offset: int, raw: bytes, array, storage: str) -> None:
    """Lend array (a writable NumPy array of the values of raw, the bytes at byte offset of
    buffer, which hold them as the NumPy dtype storage)."""
    lease = _Lease()
    lease.executor, lease.buffer, lease.offset, lease.raw = executor, weakref.ref(buffer), offset, raw
    lease.array, lease.storage, lease.thread = array, storage, threading.current_thread()
    with _LOCK:
        LEASES.append(lease)


def reuse(buffer, offset: int, raw: bytes, shape: tuple, dtype: str):
    """The NumPy array of an open lease of exactly these bytes of buffer (byte offset, shape
    and dtype), or None after closing this thread's open leases of copies that overlap them.

    ``np.asarray(x)`` twice gives one array, as NumPy's own ``asarray`` of an array does:
    code that tests ``np.may_share_memory(np.asarray(x), x)`` before writing into the first
    (scikit-learn's ``check_array(copy=True)``), or that passes x as both input and output
    (SciPy's ``minimum_filter(a, ..., output=a)``), sees the sharing and copies. Two
    writable copies of overlapping bytes must not coexist: the write-back of one would
    undo the other's writes. Other threads' leases stay open (a thread may be writing
    into its copy right now, SciPy's TestThreading fills disjoint rows of one array from
    four threads): overlapping writes from two threads race, as they do in NumPy."""
    me = threading.current_thread()
    end = offset + len(raw)
    with _LOCK:
        for x in LEASES:
            if (x.buffer() is buffer and x.offset == offset and x.raw == raw
                    and x.array.shape == shape and x.array.dtype.name == dtype):
                return x.array
        done = [x for x in LEASES if x.buffer() is buffer and x.thread is me
                and x.offset < end and offset < x.offset + len(x.raw)]
        if done:
            LEASES[:] = [x for x in LEASES if x not in done]
    for x in done:
        x.array.flags.writeable = False
        x.write_back()
    return None


def buffers_of(records=(), outputs=()) -> list:
    """The Buffers an elementwise op reads and writes: those of its computed records and
    views (a pending record has none yet: it reads no lent buffer that its expression's
    leaves do not), and of its ``outputs`` as ``graph.execute`` takes them ((node, out)
    with out None, a record, or (array, index node))."""
    outs = [o[0] if isinstance(o, tuple) else o for _, o in outputs if o is not None]
    return [r._b for r in (*records, *outs) if getattr(r, "_b", None) is not None]


class _Reading(threading.local):
    depth = 0


_READING = _Reading()


class reading:
    """``with reading():`` around a readback (``np.asarray(y)``, ``float(y)``): the kernels
    it launches to compute y write the open leases back but close none of them, as the
    readback itself does (SciPy's ``sosfilt`` converts sos, x and a pending zi one by one,
    then hands all three to Cython, which wants every buffer writable)."""

    __slots__ = ()

    def __enter__(self):
        _READING.depth += 1

    def __exit__(self, *exc):
        _READING.depth -= 1


def settle(launch: bool = True, close: bool = True, buffers=None) -> None:
    """Close this thread's leases of ``buffers`` (the Buffers that an operation reads or
    writes; None: every one) unless within ``reading``, and those of threads that ended
    (write back, then read-only), and those whose arrays are gone; at a launch or readback
    (launch), also write back what the open leases changed so far."""
    if close and _READING.depth:
        close = False
    me = threading.current_thread()
    with _LOCK:
        done = []
        for x in LEASES:
            buffer = x.buffer()
            if (buffer is None or not x.thread.is_alive()
                    or (close and x.thread is me
                        and (buffers is None or any(b is buffer for b in buffers)))):
                done.append(x)
        if done:
            LEASES[:] = [x for x in LEASES if x not in done]
        others = list(LEASES) if launch else []
    for x in done:
        x.array.flags.writeable = False
        x.write_back()
    for x in others:
        x.write_back()
