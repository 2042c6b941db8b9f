"""Recording the device work of one call and replaying it over other buffers (``webarray.jit``).

``record`` runs a function once, for real, while the device's executor and buffer pool are
watched: every dispatch and every upload is kept as a *step* (kernel id, bound buffer
handles, uniform bytes, grid; or handle, offset, bytes), every buffer the pool hands out is
noted, and a read of values back to the host stops the run with ``TraceError`` (what a
kernel computes must not steer the Python code that issues kernels). Each handle the steps
bind then has a *role*: an argument's buffer, a buffer made during the call (*new*: its
requested size), or a buffer that existed before and is no argument (*held*: an array the
function reads from its closure or globals; the recording keeps its Buffer alive, so its
values are read as they are at each call).

``replay`` repeats the steps for arguments of the same layout: one fresh buffer from the pool
per new handle, the same kernels, uniforms and grids, the arguments' handles in place of the
recorded ones. A new buffer that was recycled during the call (freed, then handed out again)
has one replacement, so the data flow is the recorded one; results are bit for bit the
function's. The outputs become arrays over their buffers, and an argument that the call
rebound to a new buffer (an in-place op on the only view of a buffer: graph.py) is rebound the
same way. No Python of the function runs on replay and nothing but the steps is issued: the
host cost of a call is one dispatch per recorded kernel.

The caller decides when two calls have "the same layout": the arguments' dtypes, shapes,
strides, offsets, buffer sizes, sharing of buffers and views (``layout``), and every
non-array value the function depends on.
"""

from __future__ import annotations

from ..executors.guard import LOCK, critical
from . import graph, launch, lease, tensor


class TraceError(RuntimeError):
    """A function cannot be recorded: it reads array values on the host while it runs."""


# the kernel id of an upload step, which keeps (_WRITE, (handle,), bytes, offset) where a
# dispatch keeps (kernel, bindings, uniforms, grid)
_WRITE = -1


class _Watch:
    """What one recording has seen: the steps, the buffers handed out, the buffers bound."""

    def __init__(self, executor, pool, what: str):
        self.executor, self.pool, self.what = executor, pool, what
        self.steps: list = []
        self.new: dict = {}  # handle -> requested bytes, for buffers the pool handed out
        self.seen: dict = {}  # handle -> Buffer, every buffer a launch bound (launch.py)

    def hold(self, buffers) -> None:
        for b in buffers:
            self.seen[b.handle] = b


class _Executor:
    """The device's executor while a call is recorded: dispatches and uploads are kept (and
    run), reads refused."""

    def __init__(self, watch: _Watch):
        self._watch = watch
        self._ex = watch.executor
        # the executor itself, for device work that is no part of the call (the float64 probe)
        self.unwatched = watch.executor

    def __getattr__(self, name):
        return getattr(self._ex, name)

    def dispatch(self, kernel, bindings, uniforms, grid) -> None:
        self._ex.dispatch(kernel, bindings, uniforms, grid)
        self._watch.steps.append((kernel, tuple(bindings), bytes(uniforms), tuple(grid)))

    def dispatch_many(self, kernel, bindings, uniforms, grid) -> None:
        for u in uniforms:  # each a step of the recording
            self.dispatch(kernel, bindings, u, grid)

    def write(self, handle, offset, data) -> None:
        self._ex.write(handle, offset, data)
        self._watch.steps.append((_WRITE, (handle,), bytes(data), offset))

    def read(self, handle, offset, nbytes):
        raise TraceError(
            f"{self._watch.what} reads array values back to the host while it is recorded: "
            "Python control flow on array values (if/while on an array, bool(), int(), "
            "float(), .item(), printing), or a function whose result shape depends on values "
            "(nonzero, unique, boolean-mask indexing), cannot be replayed; compute on the "
            "device instead (where, clip, masks as 0/1 arrays), or call the function without "
            "jit")


class _Pool:
    """The device's pool while a call is recorded: the buffers it hands out are noted."""

    def __init__(self, watch: _Watch):
        self._watch = watch
        self._pool = watch.pool

    def __getattr__(self, name):
        return getattr(self._pool, name)

    def acquire(self, nbytes: int, avoid=None):
        buf = self._pool.acquire(nbytes, avoid)
        self._watch.new[buf.handle] = nbytes
        return buf


class Recording:
    """The steps of one call, with the role of every handle they bind (module docstring)."""

    __slots__ = ("device", "steps", "slots", "args", "new", "held", "outputs", "rebinds")

    def __init__(self, device):
        self.device = device
        self.steps: list = []  # (kernel, binding templates, uniforms, grid)
        self.slots = 0  # handles of one replay: arguments, then new buffers, then held ones
        self.args: list = []  # slot of each argument's buffer (-1: an argument sharing one)
        self.new: list = []  # (slot, requested bytes)
        self.held: list = []  # (slot, Buffer)
        self.outputs: list = []  # (slot, dtype, shape, strides, offset)
        self.rebinds: list = []  # (argument index, slot, strides, offset)


def layout(arrays) -> tuple:
    """What a recording depends on in its array arguments (computed records); ``fits`` checks
    the rest."""
    first: dict = {}
    key = []
    for i, a in enumerate(arrays):
        buf = a._b
        key.append((a._dtype, a._shape, a._strides, a._offset, buf.nbytes,
                    first.setdefault(id(buf), i)))
    return tuple(key)


def record(device, arrays, run, what: str):
    """(Recording, the outputs' records, run's result): run() executed once with device's
    work recorded. arrays: the computed argument records, on ``device``. run returns its
    result and the list of records in it, which are computed before the recording ends."""
    graph.flush()  # nothing from before the call may be computed inside it
    watch = _Watch(device.executor, device.pool, what)
    before = [a._b for a in arrays]
    with LOCK:  # other threads' work would be recorded as this call's
        device.executor, device.pool = _Executor(watch), _Pool(watch)
        launch.recording = watch
        try:
            result, outputs = run()
            graph.materialize(outputs)
            graph.flush(device)
        finally:
            device.executor, device.pool = watch.executor, watch.pool
            launch.recording = None
    for o in outputs:
        if o._device is not device:
            raise TraceError(f"{what} returned an array on {o._device!r}; its arguments are "
                             f"on {device!r} (one device per call)")
    return _roles(device, watch, arrays, before, outputs), outputs, result


def _roles(device, watch: _Watch, arrays, before, outputs) -> Recording:
    rec = Recording(device)
    slots: dict = {}
    for i, buf in enumerate(before):
        if buf.handle in slots:
            rec.args.append(-1)
        else:
            slots[buf.handle] = len(slots)
            rec.args.append(slots[buf.handle])
    for h, nbytes in watch.new.items():
        if h not in slots:
            slots[h] = len(slots)
            rec.new.append((slots[h], nbytes))

    def slot(h: int) -> int:
        s = slots.get(h)
        if s is None:  # a buffer from before the call that no argument holds
            buf = watch.seen.get(h)
            if buf is None:
                raise TraceError(f"{watch.what} wrote into an array it did not make and was "
                                 "not given; pass that array as an argument")
            s = slots[h] = len(slots)
            rec.held.append((s, buf))
        return s

    for kernel, bindings, uniforms, grid in watch.steps:
        binds = tuple(slot(b) if b.__class__ is int else (slot(b[0]), b[1], b[2])
                      for b in bindings)
        rec.steps.append((kernel, binds, uniforms, grid))
    for o in outputs:
        rec.outputs.append((slot(o._b.handle), o._dtype, o._shape, o._strides, o._offset))
    for i, (a, buf) in enumerate(zip(arrays, before)):
        if a._b is not buf:  # the call rebound the argument to a buffer it made
            rec.rebinds.append((i, slot(a._b.handle), a._strides, a._offset))
    for s, b in rec.held:
        b.views += 1  # never the only view: nothing may rebind it in place
    rec.slots = len(slots)
    return rec


def fits(rec: Recording, arrays) -> bool:
    """Whether rec may replay over arrays of its layout: an argument the call rebound to a new
    buffer (graph.py does that to the only view of a buffer) must again be its buffer's only
    view, or the call would write in place where other views see it."""
    return all(arrays[i]._b.views == 1 for i, _, _, _ in rec.rebinds)


@critical
def replay(rec: Recording, arrays) -> list:
    """The outputs of rec's call for argument records of the same layout (computed)."""
    device = rec.device
    if lease.LEASES:
        lease.settle(buffers=lease.buffers_of(arrays) + [b for _, b in rec.held])
    with LOCK:
        handles = [0] * rec.slots
        buffers: list = [None] * rec.slots
        for a, s in zip(arrays, rec.args):
            if s >= 0:
                buffers[s] = a._b
                handles[s] = a._b.handle
        for s, nbytes in rec.new:
            buf = buffers[s] = device.pool.acquire(nbytes)
            handles[s] = buf.handle
        for s, buf in rec.held:
            buffers[s] = buf
            handles[s] = buf.handle
        ex = device.executor
        for kernel, binds, uniforms, grid in rec.steps:
            if kernel == _WRITE:
                ex.write(handles[binds[0]], grid, uniforms)
            else:
                launch.launches += 1
                ex.dispatch(kernel, [handles[b] if b.__class__ is int else
                                     (handles[b[0]], b[1], b[2]) for b in binds],
                            uniforms, grid)
        out = [tensor.view(buffers[s], dtype, shape, strides, offset, device)
               for s, dtype, shape, strides, offset in rec.outputs]
        for i, s, strides, offset in rec.rebinds:
            a, buf = arrays[i], buffers[s]
            buf.views += 1
            a._b, a._lazy, a._strides, a._offset = buf, None, strides, offset
        return out
