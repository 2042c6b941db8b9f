"""``webarray.jit``: a function's kernels recorded once per argument layout, then replayed.

    @webarray.jit
    def step(zr, zi, re, im):
        return zr * zr - zi * zi + re, 2.0 * zr * zi + im

The first call with arguments of a new layout runs the function for real, with fusion on,
and records the kernels it issues (``_core/replay.py``): its elementwise operations fused as
the lazy graph fuses them (a Python loop whose iterations repeat the same ops is folded into
one loop kernel, ``_core/fold.py``; anything else is traced as it runs, lowered in chains up
to ``MAX_DEPTH`` deep, 8 times the untraced bound), everything else
(reductions, matmul, sort, fft, user kernels) as the kernels it launches. A later call with arguments of the same layout issues the
recorded kernels over the new arguments' buffers without running the function's Python: the
same results bit for bit, for one dispatch of host work per kernel instead of the work of
every operation.

**The layout** is what the recording depends on: the array arguments' dtypes, shapes, strides,
offsets, buffer sizes and which of them share a buffer. Every other argument (Python numbers,
strings, tuples, keyword arguments) is *static*: part of the key by value, with the Python
control flow that depends on it; it must be hashable. A new layout or static value records
again; the 64 latest recordings are kept per function (``cache_size()``, ``cache_clear()``).

**What the recording keeps.** Arrays the function reads from its closure or module are read
as they are at each call (the recording holds their buffers; rebinding the name to another
array is not seen). Arrays it makes from host data (``asarray`` of a list) are uploaded again
at each call. An argument that the function updates in place (``x += 1``, ``x[...] = v``) is
updated at each call. Python side effects (printing, appending to a list) happen at the
recording only.

**What cannot be recorded** raises ``TraceError`` at the first call, and nothing is kept:
reading array values on the host while it runs (``if``/``while`` on an array, ``bool``,
``int``, ``float``, ``.item()``, printing values, and functions whose result shape depends on
values: ``nonzero``, ``unique_*``, boolean-mask indexing), results other than arrays, Python
scalars, None and tuples or lists of them, and arrays on more than one device.
"""

from __future__ import annotations

import functools

from ._array_object import Array
from ._core import device as _device
from ._core import graph as _graph
from ._core import replay as _replay
from ._core.replay import TraceError

__all__ = ["jit", "TraceError"]

CACHE_SIZE = 64  # recordings kept per function (each holds the buffers it reads)
# the longest chain of a recorded kernel: 8 times the lazy graph's own bound (graph.MAX_DEPTH,
# which keeps the compile time of every new chain small), since a recording compiles once and
# each chain it cuts writes its state out and reads it back. Mandelbrot 256^2 x 100 on
# lavapipe: 15 kernels, 40 ms per call at 32; 2 kernels, 14 ms at 256
MAX_DEPTH = 256


def jit(fn=None):
    """``@jit`` or ``jit(fn)``: fn recorded per argument layout and replayed (module
    docstring)."""
    if fn is None:
        return jit
    if not callable(fn):
        raise TypeError(f"jit expects a function, got {type(fn).__name__}")
    return Jit(fn)


class Jit:
    def __init__(self, fn):
        self.fn = fn
        self._cache: dict = {}
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<jit {getattr(self.fn, '__qualname__', self.fn)!r}>"

    def cache_size(self) -> int:
        return len(self._cache)

    def cache_clear(self) -> None:
        self._cache.clear()

    def __call__(self, *args, **kwargs):
        arrays = [a for a in args if isinstance(a, Array)]
        arrays += [v for v in kwargs.values() if isinstance(v, Array)]
        if arrays:
            device = arrays[0]._device
            for a in arrays:
                if a._device is not device:
                    raise TraceError(f"{self!r} was given arrays on {device!r} and "
                                     f"{a._device!r}; a call runs on one device")
            _graph.materialize(arrays)
        else:
            device = _device.default_device()
        try:
            key = (device, _replay.layout(arrays),
                   tuple(_static(a) for a in args),
                   tuple(sorted((k, _static(v)) for k, v in kwargs.items())))
            hash(key)
        except TypeError as e:
            raise TypeError(f"{self!r}: every argument but the arrays is part of the cache key "
                            f"and must be hashable ({e})") from None
        entry = self._cache.get(key)
        if entry is not None and _replay.fits(entry[0], arrays):
            rec, shape = entry
            return _rebuild(shape, iter(_replay.replay(rec, arrays)))
        what = f"the function {getattr(self.fn, '__qualname__', self.fn)!r}"

        def run():
            with _fusion_on():
                result = self.fn(*args, **kwargs)
            shape, outputs = _structure(result, what)
            return (result, shape), outputs

        rec, _, (result, shape) = _replay.record(device, arrays, run, what)
        if key not in self._cache and len(self._cache) >= CACHE_SIZE:
            del self._cache[next(iter(self._cache))]  # the oldest recording
        self._cache[key] = (rec, shape)
        return result


def _static(v):
    """An argument's part of the key: an array's place (its layout is keyed apart), or the
    value itself with its type (1 and 1.0 and True are different keys)."""
    if isinstance(v, Array):
        return Array
    return (type(v), v)


class _fusion_on:
    """Fusion on, chains up to MAX_DEPTH (the recording holds the lock: no other thread's
    operations see the deeper bound)."""

    def __enter__(self):
        self.before = _graph.fusion_enabled(), _graph.MAX_DEPTH
        _graph.set_fusion(True)
        _graph.MAX_DEPTH = max(MAX_DEPTH, self.before[1])

    def __exit__(self, *exc):
        _graph.set_fusion(self.before[0])
        _graph.MAX_DEPTH = self.before[1]


def _structure(result, what: str):
    """(shape, arrays): result's structure with its arrays replaced by None, and the arrays."""
    arrays: list = []

    def walk(v, depth):
        if isinstance(v, Array):
            arrays.append(v)
            return None
        if isinstance(v, (tuple, list)) and depth == 0:
            return (type(v), [walk(x, 1) for x in v])
        if v is None or isinstance(v, (bool, int, float, complex, str)):
            return ("value", v)
        raise TraceError(f"{what} returned {type(v).__name__}; a recorded function returns "
                         "arrays, Python scalars, None, or a tuple or list of them")

    return walk(result, 0), arrays


def _rebuild(shape, arrays):
    if shape is None:
        return next(arrays)
    kind, v = shape
    if kind == "value":
        return v
    return kind(_rebuild(x, arrays) for x in v)
