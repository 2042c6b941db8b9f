"""Elementwise user kernels that index whole arrays: CuPy's ``raw`` parameters.

A ``raw T x`` parameter is the whole array, read (or written) at computed positions
(``x[j]``), which no node of the elementwise expression graph can express: the graph's
generator hands a body one element of each array. Such kernels (Chainer's im2col, pooling
and losses are) are described here as a ``RawSpec`` (``kernels/specs/raw.py``: binding 0
holds 32-bit words, the element count, the broadcast shape and each array input's strides
in elements, then the scalars; each distinct array follows, raw parameters as
``r_<name>``, other inputs and the outputs by position), which the device's registry
renders (``kernels/webgpu/raw.py``: one compute shader; ``kernels/webgl2/raw.py``: one
draw per output), and run as a RawKernel runs (``device.launch``). Arrays are bound whole, so views are first copied to C-contiguous arrays of
their own; CuPy's raw indexing counts positions in that C order too.

The body is the same translated function as everywhere (``_kernel_lang``), given
``i`` (the element's index) and the index sizes CuPy bodies ask for (``_ind.size()``,
``_in_ind.size()``, ``_out_ind.size()``) as scalars. On WebGL2 a body that writes a raw
parameter (a scatter, atomicAdd) raises, since a fragment writes only its own pixel.
"""

from __future__ import annotations

import math
import struct

from webarray import _dtypes as dt
from webarray._core import graph as _graph
from webarray._core import tensor as _tensor
from webarray._array_object import Array
from webarray.executors.protocol import KernelError
from webarray.kernels.specs.raw import RawSpec

from ._params import kernel_error

# kernel sources by (registry, RawSpec): the spec holds the user function and the layout of
# the words, never their values
_SOURCES: dict = {}
_SOURCES_KEPT = 512

# the WGSL storage element type each register type is bound as
_STORAGE = {"bool": "i32", "i32": "i32", "u32": "u32", "f32": "f32"}


def contiguous(a: Array, dtype: dt.DType | None = None) -> Array:
    """a itself (computed) when it is C-contiguous, unshifted and of dtype; else a copy
    that is."""
    if (dtype is None or a.dtype is dtype) and a._offset == 0 and \
            a._strides == _tensor.c_strides(a.shape):
        if a._lazy is not None:
            _graph.flush(a.device)
        return a
    return _graph.copy_of(a, dtype)


def _word(value, reg: str) -> int:
    if reg == "f32":
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
    return int(value) & 0xFFFFFFFF


def launch(fn, kernel: str, shape: tuple, args: list, raws: dict, outputs: list, device) -> None:
    """Run the user function ``fn`` once per element of ``shape``.

    args: per input of ``fn`` in order, ("array", Array) broadcast to shape, ("scalar",
    value) or ("index", None) for the element's index; raws: name -> C-contiguous Array of
    each raw parameter of ``fn``; outputs: C-contiguous Arrays of ``shape`` (read too when
    ``fn.readable_outputs``)."""
    n = math.prod(shape)
    if n == 0:
        return
    ndim = len(shape)
    words = [n] + list(shape)
    bindings: list = []  # distinct arrays in binding order
    storages: list = []
    slot: dict = {}

    def bind(a: Array, reg: str, atomic: bool = False) -> int:
        key = id(a._buf)
        storage = f"atomic<{'u32' if reg == 'f32' else _STORAGE[reg]}>" if atomic else _STORAGE[reg]
        if key not in slot:
            bindings.append(a)
            storages.append(storage)
            slot[key] = len(bindings)
        elif storages[slot[key] - 1] != storage:
            raise ValueError(f"kernel {kernel!r}: one array is passed both to a raw parameter "
                             "that atomicAdd writes and to another parameter; pass a copy")
        return slot[key]

    raw_specs = tuple((name, bind(a, fn.raws[name], name in fn.atomic), fn.raws[name])
                      for name, a in raws.items())
    # each raw parameter's sizes (x.shape()[k], x[ind]) as words
    shape_words = []
    for name, a in raws.items():
        for k, d in enumerate(a.shape):
            shape_words.append((f"r_{name}__shape{k}", len(words)))
            words.append(d)
    arg_specs = []
    for (name, reg), (kind, value) in zip(fn.inputs, args):
        if kind == "index":
            arg_specs.append(("index",))
        elif kind == "array":
            value = contiguous(value)
            b = bind(value, reg)
            # the element's position in a broadcast input: strides in elements, 0 where
            # the input has size 1 or lacks the axis
            pad = ndim - value.ndim
            arg_specs.append(("array", b, reg, len(words)))
            words += [0] * pad + [s if d != 1 else 0
                                  for s, d in zip(_tensor.c_strides(value.shape), value.shape)]
        else:
            arg_specs.append(("scalar", len(words), reg))
            words.append(_word(value, reg))
    regs = [reg for _, reg in fn.outputs]
    out_specs = tuple((bind(o, reg), reg) for o, reg in zip(outputs, regs))
    spec = RawSpec(fn, ndim, tuple(arg_specs), out_specs, raw_specs, tuple(shape_words),
                   tuple(storages), fn.readable_outputs)
    gen = device.kernels.raw
    make = _SOURCES.get((gen, spec))
    if make is None:  # the source of a spec is written once (a repeated call only packs words)
        make = gen.generate(spec)
        if len(_SOURCES) >= _SOURCES_KEPT:
            _SOURCES.pop(next(iter(_SOURCES), None), None)
        _SOURCES[(gen, spec)] = make
    _graph.flush(device)
    try:
        device.launch(("raw", make), lambda: make, [a._buf for a in bindings],
                      struct.pack(f"<{len(words)}I", *words),
                      gen.grid(n, device.executor.max_workgroups_per_dim))
    except KernelError as e:
        raise kernel_error(kernel, e, "glsl" if device.backend == "webgl2" else "wgsl") from None
