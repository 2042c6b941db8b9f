"""The storage record: what an array is below the namespace.

A ``Tensor`` is (buffer, dtype, shape, strides in elements, offset in elements, device), or,
while it is pending, a lazy node of the graph (graph.py) that computes it, C-contiguous at
offset 0. Slices, transposes and broadcasts are records that share the buffer; the buffer
goes back to its device's pool when the last record over it dies (executors/pool.py).

The namespace's ``Array`` (``_array_object.py``) is this record with the standard's face:
operators, methods, conversions; it adds no state. The core makes every record through
the class the namespace registers with ``present_as`` (the way PyTorch's C core is handed
its Python ``Tensor`` class), so results reach users as Arrays while nothing here imports
the namespace. Until a class is registered (the core used on its own), records are Tensors.
"""

from __future__ import annotations

import math

from . import storage


class Tensor:
    # _b is the buffer, or None while the record is pending: then _lazy is the graph node
    # that computes it. A computed record may keep the graph's leaf node reading it in _lazy.
    __slots__ = ("_b", "_lazy", "_dtype", "_shape", "_strides", "_offset", "_device",
                 "__weakref__")

    @classmethod
    def _view(cls, buf, dtype, shape, strides, offset, device):
        self = object.__new__(cls)
        self._b = buf
        self._lazy = None
        buf.views += 1
        self._dtype = dtype
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._offset = offset
        self._device = device
        return self

    @classmethod
    def _pending(cls, node, shape, strides, device):
        self = object.__new__(cls)
        self._b = None
        self._lazy = node
        self._dtype = node.dtype
        self._shape = shape
        self._strides = strides
        self._offset = 0
        self._device = device
        return self

    @classmethod
    def _empty(cls, shape, dtype, device):
        device.check_dtype(dtype)
        n = math.prod(shape)
        buf = device.pool.acquire(max(n, 1) * storage.element_bytes(dtype))
        return cls._view(buf, dtype, shape, c_strides(shape), 0, device)

    @property
    def _buf(self):
        """The buffer, computing the record first if it is pending (its node knows how)."""
        buf = self._b
        if buf is None:
            self._lazy.realize(self)
            buf = self._b
        return buf

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)


_face: type = Tensor


def present_as(cls: type) -> None:
    """Make every record the core creates from now on an instance of cls, a subclass of
    Tensor that adds no slots (the namespace's Array)."""
    global _face
    if not issubclass(cls, Tensor) or cls.__dict__.get("__slots__", None) != ():
        raise TypeError(f"{cls.__name__} must subclass Tensor with __slots__ = ()")
    _face = cls
    global pending
    pending = cls._pending  # the graph's hot path: one call, not two


def view(buf, dtype, shape, strides, offset, device) -> Tensor:
    """A record over a range of buf (its ``views`` count goes up by one)."""
    return _face._view(buf, dtype, shape, strides, offset, device)


def pending(node, shape, strides, device) -> Tensor:
    """A record whose value graph node ``node`` will compute (``present_as`` rebinds this
    name to the class's own constructor)."""
    return _face._pending(node, shape, strides, device)


def empty(shape, dtype, device) -> Tensor:
    """A C-contiguous record over a fresh buffer of the device's pool (values undefined)."""
    return _face._empty(shape, dtype, device)


def maker(dtype, device):
    """``empty`` for one dtype and device on a launch's hot path: a function of (shape,
    its C-contiguous strides, the Buffers its kernel reads (``BufferPool.acquire``)) that
    makes the record (the dtype is the device's, checked once
    here). The pool is looked up at each call: a jit recording swaps it (replay.py)."""
    device.check_dtype(dtype)
    size = storage.element_bytes(dtype)

    def new(shape, strides, avoid=None):
        n = 1
        for d in shape:
            n *= d
        self = object.__new__(_face)
        self._b = buf = device.pool.acquire(n * size if n else size, avoid)
        self._lazy = None
        buf.views = 1
        self._dtype = dtype
        self._shape = shape
        self._strides = strides
        self._offset = 0
        self._device = device
        return self

    return new


def view_of(t: Tensor, shape, strides, offset) -> Tensor:
    """Another view of t's buffer."""
    return _face._view(t._buf, t._dtype, shape, strides, offset, t._device)


# -- stride math (strides and offsets count elements) ----------------------------------------

def c_strides(shape) -> tuple[int, ...]:
    strides = []
    s = 1
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))


def broadcast_strides(t, shape) -> tuple[int, ...]:
    """Strides of t viewed with the (broadcast-compatible) shape."""
    lead = len(shape) - len(t._shape)
    out = [0] * lead
    for n, s, target in zip(t._shape, t._strides, shape[lead:]):
        out.append(0 if n == 1 and target != 1 else s)
    return tuple(out)


def is_contiguous(shape, strides) -> bool:
    expect = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True
