"""Elementwise user kernels that index whole arrays: CuPy's ``raw`` parameters.

A ``raw T x`` parameter is the whole array, read (or written) at computed positions
(``x[j]``), which no node of the elementwise expression graph can express: the graph's
generator hands a body one element of each array. Such kernels (Chainer's im2col, pooling
and losses are) are written out here as one complete WGSL compute shader instead, and run
as a RawKernel runs (``device.launch``): binding 0 holds 32-bit words (the element count,
the broadcast shape and each array input's strides in elements, then the scalars), each
distinct array follows (raw parameters as ``r_<name>``, other inputs and the outputs by
position). Arrays are bound whole, so views are first copied to C-contiguous arrays of
their own; CuPy's raw indexing counts positions in that C order too.

The body is the same translated function as everywhere (``_kernel_lang``), given
``i`` (the element's index) and the index sizes CuPy bodies ask for (``_ind.size()``,
``_in_ind.size()``, ``_out_ind.size()``) as scalars. WebGL2 has no storage arrays to index
at computed positions in its draws here, so such kernels raise NotImplementedError there.
"""

from __future__ import annotations

import math
import re
import struct

from webarray import _dtypes as dt
from webarray import _graph
from webarray._array_object import Array
from webarray.executors.protocol import KernelError
from webarray.kernels.webgpu.wgsl_lib import helpers_for

from ._params import kernel_error

WORKGROUP = 64
_MAX_GROUPS = 65535
_STORAGE = {"bool": "i32", "i32": "i32", "u32": "u32", "f32": "f32"}


def contiguous(a: Array, dtype: dt.DType | None = None) -> Array:
    """a itself (computed) when it is C-contiguous, unshifted and of dtype; else a copy
    that is."""
    if (dtype is None or a.dtype is dtype) and a._offset == 0 and \
            a._strides == _graph.c_strides(a.shape):
        if a._lazy is not None:
            _graph.flush(a.device)
        return a
    return _graph.copy_of(a, dtype)


def _word(value, reg: str) -> int:
    if reg == "f32":
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
    return int(value) & 0xFFFFFFFF


def _read(reg: str, ref: str) -> str:
    return f"({ref} != 0i)" if reg == "bool" else ref


def _write(reg: str, text: str) -> str:
    return f"select(0i, 1i, {text})" if reg == "bool" else text


def launch(fn, kernel: str, shape: tuple, args: list, raws: dict, outputs: list, device) -> None:
    """Run the user function ``fn`` once per element of ``shape``.

    args: per input of ``fn`` in order, ("array", Array) broadcast to shape, ("scalar",
    value) or ("index", None) for the element's index; raws: name -> C-contiguous Array of each raw parameter of ``fn``; outputs:
    C-contiguous Arrays of ``shape`` (read too when ``fn.readable_outputs``)."""
    if device.backend == "webgl2":
        raise NotImplementedError(
            f"kernel {kernel!r}: raw parameters need WGSL storage arrays; they do not run on "
            "WebGL2")
    n = math.prod(shape)
    if n == 0:
        return
    ndim = len(shape)
    words = [n] + list(shape)
    bindings: list = []  # distinct buffers in binding order
    slot: dict = {}

    def bind(a: Array, reg: str, atomic: bool = False) -> str:
        key = id(a._buf)
        storage = f"atomic<{'u32' if reg == 'f32' else _STORAGE[reg]}>" if atomic else _STORAGE[reg]
        if key not in slot:
            bindings.append((a, storage))
            slot[key] = f"b{len(bindings)}"
        elif bindings[int(slot[key][1:]) - 1][1] != storage:
            raise ValueError(f"kernel {kernel!r}: one array is passed both to a raw parameter "
                             "that atomicAdd writes and to another parameter; pass a copy")
        return slot[key]

    decls, call_args = [], []
    raw_names = {name: bind(a, fn.raws[name], name in fn.atomic) for name, a in raws.items()}
    # each raw parameter's sizes (x.shape()[k], x[ind]) as words
    shape_words = {}
    for name, a in raws.items():
        for k, d in enumerate(a.shape):
            shape_words[f"r_{name}__shape{k}"] = len(words)
            words.append(d)
    for (name, reg), (kind, value) in zip(fn.inputs, args):
        if kind == "index":
            call_args.append("i32(e)")
        elif kind == "array":
            value = contiguous(value)
            buf = bind(value, reg)
            # the element's position in a broadcast input: strides in elements, 0 where
            # the input has size 1 or lacks the axis
            pad = ndim - value.ndim
            strides = [0] * pad + [s if d != 1 else 0 for s, d in zip(_graph.c_strides(value.shape), value.shape)]
            base = len(words)
            words += strides
            terms = " + ".join(f"c{k} * P[{base + k}u]" for k in range(ndim)) or "0u"
            call_args.append(_read(reg, f"{buf}[{terms}]"))
        else:
            k = len(words)
            words.append(_word(value, reg))
            text = {"f32": f"bitcast<f32>(P[{k}u])", "i32": f"bitcast<i32>(P[{k}u])",
                    "u32": f"P[{k}u]", "bool": f"(P[{k}u] != 0u)"}[reg]
            call_args.append(text)
    regs = [reg for _, reg in fn.outputs]
    out_bufs = [bind(o, reg) for o, reg in zip(outputs, regs)]
    if fn.readable_outputs:
        call_args += [_read(reg, f"{b}[e]") for b, reg in zip(out_bufs, regs)]
    for k, (a, storage) in enumerate(bindings):
        decls.append(f"@group(0) @binding({k + 1}) var<storage, read_write> b{k + 1}: array<{storage}>;")
    # raw parameters are no function arguments: the body reads r_<name>, a bound array
    src = fn.source("wgsl").replace("U[0] >> 31u", "P[0] >> 31u")
    for ref, k in shape_words.items():
        src = re.sub(rf"\b{ref}\b", f"bitcast<i32>(P[{k}u])", src)
    for name, buf in raw_names.items():
        src = src.replace(f"r_{name}[", f"{buf}[")
    # c_k: the element's coordinate along axis k
    coords = []
    if ndim:
        coords.append("    var rest = e;")
        for k in reversed(range(ndim)):
            coords.append(f"    let c{k} = rest % P[{1 + k}u]; rest = rest / P[{1 + k}u];")
    stores = "\n".join(f"    {b}[e] = {_write(reg, f'r.o{k}')};"
                       for k, (b, reg) in enumerate(zip(out_bufs, regs)))
    code = "\n".join([
        "@group(0) @binding(0) var<storage, read> P: array<u32>;",
        *decls, helpers_for(src) + src,
        f"@compute @workgroup_size({WORKGROUP})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
        "@builtin(num_workgroups) nw: vec3<u32>) {",
        f"    let e = gid.x + gid.y * nw.x * {WORKGROUP}u;",
        "    if (e >= P[0]) { return; }",
        *coords,
        f"    let r = {fn.name}({', '.join(call_args)});",
        stores,
        "}",
    ])
    groups = -(-n // WORKGROUP)
    gx = min(groups, _MAX_GROUPS)
    grid = (gx, -(-groups // gx), 1)
    _graph.flush(device)
    try:
        device.launch(("raw", code), lambda: code, [a._buf for a, _ in bindings],
                      struct.pack(f"<{len(words)}I", *words), grid)
    except KernelError as e:
        raise kernel_error(kernel, e, "wgsl") from None
