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
``_in_ind.size()``, ``_out_ind.size()``) as scalars. On WebGL2 the same function runs in
one draw per output, reading raw parameters by texelFetch at the computed position
(``r_<name>(k)``); a body that writes a raw parameter (a scatter, atomicAdd) raises there,
since a fragment writes only its own pixel.
"""

from __future__ import annotations

import math
import re
import struct

from webarray import _dtypes as dt
from webarray._core import graph as _graph
from webarray._core import tensor as _tensor
from webarray._array_object import Array
from webarray.executors.protocol import KernelError
from webarray.kernels.webgl2.program import draw, uword
from webarray.kernels.wgsl_lib import helpers_for

from ._kernel_lang import glsl_safe
from ._params import kernel_error

WORKGROUP = 64
_MAX_GROUPS = 65535
_STORAGE = {"bool": "i32", "i32": "i32", "u32": "u32", "f32": "f32"}
# a 32-bit word (u32) as each register type and back, in WGSL (the WebGL2 draws' subset)
_FROM_WORD = {"bool": "({} != 0u)", "i32": "bitcast<i32>({})", "u32": "{}", "f32": "bitcast<f32>({})"}
_TO_WORD = {"bool": "select(0u, 1u, {})", "i32": "bitcast<u32>({})", "u32": "{}", "f32": "bitcast<u32>({})"}


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


def _read(reg: str, ref: str) -> str:
    return f"({ref} != 0i)" if reg == "bool" else ref


def _write(reg: str, text: str) -> str:
    return f"select(0i, 1i, {text})" if reg == "bool" else text


def launch(fn, kernel: str, shape: tuple, args: list, raws: dict, outputs: list, device) -> None:
    """Run the user function ``fn`` once per element of ``shape``.

    args: per input of ``fn`` in order, ("array", Array) broadcast to shape, ("scalar",
    value) or ("index", None) for the element's index; raws: name -> C-contiguous Array of
    each raw parameter of ``fn``; outputs: C-contiguous Arrays of ``shape`` (read too when
    ``fn.readable_outputs``)."""
    n = math.prod(shape)
    if n == 0:
        return
    gl = device.backend == "webgl2"
    ndim = len(shape)
    words = [n] + list(shape)
    bindings: list = []  # distinct buffers in binding order
    slot: dict = {}

    def bind(a: Array, reg: str, atomic: bool = False) -> int:
        key = id(a._buf)
        storage = f"atomic<{'u32' if reg == 'f32' else _STORAGE[reg]}>" if atomic else _STORAGE[reg]
        if key not in slot:
            bindings.append((a, storage))
            slot[key] = len(bindings)
        elif bindings[slot[key] - 1][1] != storage:
            raise ValueError(f"kernel {kernel!r}: one array is passed both to a raw parameter "
                             "that atomicAdd writes and to another parameter; pass a copy")
        return slot[key]

    # WGSL reads typed storage arrays b<k>[j] and uniform words P[j]; the WebGL2 draw (in
    # the WGSL subset that program.py translates) reads words ld<k>(j) and uword(j)
    def word(k: int) -> str:
        return uword(k) if gl else f"P[{k}u]"

    def element(b: int, reg: str, index: str) -> str:
        if gl:
            return _FROM_WORD[reg].format(f"ld{b}({index})")
        return _read(reg, f"b{b}[{index}]")

    call_args = []
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
            b = bind(value, reg)
            # the element's position in a broadcast input: strides in elements, 0 where
            # the input has size 1 or lacks the axis
            pad = ndim - value.ndim
            strides = [0] * pad + [s if d != 1 else 0 for s, d in zip(_tensor.c_strides(value.shape), value.shape)]
            base = len(words)
            words += strides
            terms = " + ".join(f"c{k} * {word(base + k)}" for k in range(ndim)) or "0u"
            call_args.append(element(b, reg, terms))
        else:
            k = len(words)
            words.append(_word(value, reg))
            call_args.append(_FROM_WORD[reg].format(word(k)))
    regs = [reg for _, reg in fn.outputs]
    out_bufs = [bind(o, reg) for o, reg in zip(outputs, regs)]
    if fn.readable_outputs:
        call_args += [element(b, reg, "e") for b, reg in zip(out_bufs, regs)]
    # c_k: the element's coordinate along axis k
    coords = []
    if ndim:
        coords.append("    var rest = e;")
        for k in reversed(range(ndim)):
            coords.append(f"    let c{k} = rest % {word(1 + k)}; rest = rest / {word(1 + k)};")
    if gl:
        make = _glsl_kernel(fn, call_args, coords, raw_names, shape_words, out_bufs, regs,
                            bindings)
        grid = (n, 1, 1)
    else:
        make = _wgsl_kernel(fn, call_args, coords, raw_names, shape_words, out_bufs, regs,
                            bindings)
        groups = -(-n // WORKGROUP)
        gx = min(groups, _MAX_GROUPS)
        grid = (gx, -(-groups // gx), 1)
    _graph.flush(device)
    try:
        device.launch(("raw", make), lambda: make, [a._buf for a, _ in bindings],
                      struct.pack(f"<{len(words)}I", *words), grid)
    except KernelError as e:
        raise kernel_error(kernel, e, "glsl" if gl else "wgsl") from None


def _wgsl_kernel(fn, call_args, coords, raw_names, shape_words, out_bufs, regs, bindings) -> str:
    """One compute shader: invocation e computes element e of every output."""
    decls = [f"@group(0) @binding({k + 1}) var<storage, read_write> b{k + 1}: array<{storage}>;"
             for k, (_, storage) in enumerate(bindings)]
    # raw parameters are no function arguments: the body reads r_<name>, a bound array
    src = fn.source("wgsl").replace("U[0] >> 31u", "P[0] >> 31u")
    for ref, k in shape_words.items():
        src = re.sub(rf"\b{ref}\b", f"bitcast<i32>(P[{k}u])", src)
    for name, b in raw_names.items():
        src = src.replace(f"r_{name}[", f"b{b}[")
    stores = "\n".join(f"    b{b}[e] = {_write(reg, f'r.o{k}')};"
                       for k, (b, reg) in enumerate(zip(out_bufs, regs)))
    return "\n".join([
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


def _glsl_kernel(fn, call_args, coords, raw_names, shape_words, out_bufs, regs, bindings) -> str:
    """WebGL2: one draw per output (a fragment computes one word of one output, so the
    function runs once per output); raw parameters are read through ``r_<name>(k)``, a
    texelFetch of their binding, and their sizes are uniform words. Writing a raw
    parameter (a scatter from inside a body) has no counterpart in a fragment shader,
    which writes its own pixel only: the body's translation says so (``_kernel_lang``)."""
    user, sigs = fn.glsl_outputs()
    for ref, k in shape_words.items():
        user = re.sub(rf"\b{glsl_safe(ref)}\b", f"int({uword(k)})", user)
    readers = []
    for name, b in raw_names.items():
        reg = fn.raws[name]
        ret = {"bool": "int", "i32": "int", "u32": "uint", "f32": "float"}[reg]
        conv = {"bool": "int", "i32": "int", "u32": "", "f32": "uintBitsToFloat"}[reg]
        readers.append(glsl_safe(f"{ret} r_{name}(int k) {{ return {conv}(ld{b}(uint(k))); }}\n"))
    reads = list(range(1, len(bindings) + 1))
    draws = []
    for k, (b, reg) in enumerate(zip(out_bufs, regs)):
        value = "\n".join([
            "fn wa_value(e: u32) -> u32 {", *coords,
            f"    let v = {fn.name}_o{k}({', '.join(call_args)});",
            f"    return {_TO_WORD[reg].format('v')};", "}", ""])
        draws.append(draw(b, reads, value, first="0u", count=uword(0),
                          glsl="".join(readers) + user, glsl_sigs=sigs))
    return "".join(draws)
