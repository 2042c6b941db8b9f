"""The elementwise kernel's structure, uniform words and launch geometry, shared by every
language's generator (``webgpu/elementwise.py`` writes WGSL, ``webgl2/elementwise.py`` GLSL)
and by the launch sites (``_core/graph.py``, ``_core/launch.py``).

``ElementwiseSpec`` says what a kernel's source depends on; ``uniform_layout`` and
``pack_uniforms`` place n, the output shape, each operand's offset and strides, the scalars
and the first element's index in the uniform words (see ``webgpu/elementwise.py`` for their
meaning); ``WORKGROUP`` and ``VEC4_PER_THREAD`` are the WGSL kernel's launch shape, which
``_core/launch.py`` cuts launches by. ``hides``/``arg_registers``/``zeros`` write, in the
WGSL subset both generators speak, the per-argument zeros that keep fused float arithmetic
IEEE's (below).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..expr import Apply, Carry, Cast, Index, LoopOut, UserOut, walk
from ..expr import Carry as _Carry
from ..lanes import as_words as _as_words, words as _words, wgsl_type as _wgsl_type
from ..lanes import wrap as _wrap
from ..ops import KERNEL_OPS, TABLE, lane_of

WORKGROUP = 256  # threads per workgroup
VEC4_PER_THREAD = 1  # vec4 words each thread of a vec4 kernel handles (a tuning knob)


class Operand(NamedTuple):
    binding: int  # 1-based binding number (0 holds the uniforms)
    strided: bool
    # raw operands are read by Gather nodes, or written at the index a scatter node gives
    raw: bool = False


class ElementwiseSpec:
    """The structure of one elementwise kernel: what its source and uniforms depend on.

    Built once per op on the hot path, so a plain slotted class (treat it as immutable);
    ``key`` is computed on first use, and ``uses_shape`` is remembered per key.
    """

    __slots__ = ("inputs", "scalars", "outputs", "writable", "ndim", "vec4", "_key")

    def __init__(self, inputs: tuple, scalars: tuple, outputs: tuple, writable: tuple,
                 ndim: int, vec4: bool):
        self.inputs = inputs  # (dtype, Operand) per Input slot
        self.scalars = scalars  # dtype per Scalar slot
        # (Node, Operand) per output; a raw output is (Node, Operand, index Node)
        self.outputs = outputs
        self.writable = writable  # per binding 1..n: written by this kernel
        self.ndim = ndim
        self.vec4 = vec4
        self._key = None

    @property
    def key(self):
        key = self._key
        if key is None:
            key = self._key = (
                tuple((d.name, o) for d, o in self.inputs),
                tuple(d.name for d in self.scalars),
                tuple((o[0].key, o[1], o[2].key if o[1].raw else None) for o in self.outputs),
                self.writable,
                self.ndim,
                self.vec4,
                WORKGROUP,
                VEC4_PER_THREAD if self.vec4 else 1,
            )
        return key

    @property
    def uses_shape(self) -> bool:
        key = self.key
        uses = _USES_SHAPE.get(key)
        if uses is None:
            uses = _USES_SHAPE[key] = (
                any(o.strided for _, o in self.inputs)
                or any(o[1].strided for o in self.outputs)
                or self.uses_index)
        return uses

    @property
    def uses_index(self) -> bool:
        key = self.key
        uses = _USES_INDEX.get(key)
        if uses is None:
            uses = _USES_INDEX[key] = any(isinstance(n, Index) for n in walk(self.roots))
        return uses

    @property
    def roots(self) -> list:
        return [o[0] for o in self.outputs] + [o[2] for o in self.outputs if o[1].raw]


_USES_SHAPE: dict = {}
_USES_INDEX: dict = {}



# Float arithmetic in a shader is not IEEE's unless the compiler is told so, and WGSL cannot
# tell it: drivers contract a * b + c into a fused multiply-add and simplify algebra as if it
# were exact (Mesa's NIR: t - t -> 0, t == t -> true, (a + b) - a -> b, 0 * a -> 0; NVIDIA's
# alike), so a fused kernel would differ from the same ops run one by one (and from NumPy),
# NaN and inf included. So an op reads a float or complex argument at position p through an
# XOR of its bits with zero<p> when the argument is computed in the kernel (no contraction or
# algebra across ops, no constant zero of a cast to complex) or when p >= 1 (no two operands
# of an op are values the compiler knows to be equal: x - x, x == x on one load). zero<p> is
# a zero the compiler cannot prove (it depends on n), another one per position. An XOR is one
# integer instruction, a bitcast is free: a*2 + b at 2^22 elements runs as fast as with the
# one XOR per value before (lavapipe, within its noise). wa_keep is not enough: NVIDIA's
# compiler sees through it.
_COMPUTED = (Apply, Cast, UserOut, Carry, LoopOut)
MAX_ARITY = max(op.arity for op in TABLE.values())


def hides(arg, p: int) -> bool:
    """Whether an op reads arg, its argument p, through zero<p>."""
    return (arg.dtype is not None and lane_of(arg.dtype) in "fc"
            and (p > 0 or isinstance(arg, _COMPUTED)))


def hidden(lane: str, v: str, p: int) -> str:
    """WGSL: register v (lane f or c) with its bits XORed with zero<p>."""
    if lane == "c":
        return f"bitcast<vec2<f32>>(bitcast<vec2<u32>>({v}) ^ vec2<u32>(zero{p}))"
    return f"bitcast<f32>(bitcast<u32>({v}) ^ zero{p})"


def arg_registers(args, key, names: dict, lines: list, prefix: str = "v") -> list[str]:
    """The registers an op reads its args from: names[key(arg)], or where ``hides`` says so
    its XOR with zero<p>, declared in lines (and entered in names, as prefix and a number)
    once per value and p."""
    out = []
    for p, a in enumerate(args):
        v = names[key(a)]
        if hides(a, p):
            h = names.get((key(a), p))
            if h is None:
                h = names[key(a), p] = f"{prefix}{len(names)}"
                lines.append(f"    let {h} = {hidden(lane_of(a.dtype), v, p)};")
            v = h
        out.append(v)
    return out


def apply_expr(n, key, names: dict, lines: list, prefix: str = "v") -> str:
    """WGSL of Apply node n's value from its arguments' registers (``arg_registers``:
    through zero<p> where ``hides`` says), wrapped where the op's result wraps (abs of
    int8 -128): as every generator of the op table writes an op."""
    op = KERNEL_OPS[n.op]
    tmpl = op.wgsl.get(lane_of(n.compute))
    if tmpl is None:
        raise TypeError(f"{n.op} has no expression for {n.compute.name}")
    e = tmpl.format(*arg_registers(n.args, key, names, lines, prefix))
    return _wrap(n.dtype, e) if op.result in ("same", "real") else e


def loop_lines(loop, key, names: dict, lines: list, emit) -> None:
    """WGSL (in the subset both generators speak) of a Loop node: its state in variables set
    from the inits, then a ``for`` over its count that computes the inner nodes by
    ``emit(node, names, lines)`` and sets every state at once, leaving early where the state
    has stopped changing (as a hand-written Mandelbrot kernel leaves once a point escapes). names[key(loop)] becomes the
    state variables' prefix (LoopOut k reads ``<prefix>_k``). Names made inside the loop are
    out of scope after it: their numbers stay taken, so no later name repeats one."""
    tag = f"l{len(names)}"
    names[key(loop)] = tag
    for k, init in enumerate(loop.inits):
        lines.append(f"    var {tag}_{k}: {_wgsl_type(init.dtype)} = {names[key(init)]};")
    count = names[key(loop.count)]
    lines.append(f"    for (var {tag}_i = 0u; {tag}_i < {count}; {tag}_i = {tag}_i + 1u) {{")
    inner = dict(names)
    for k, init in enumerate(loop.inits):
        inner[key(_Carry(k, init.dtype))] = f"{tag}_{k}"
    body: list = []
    for n in loop.inner:
        emit(n, inner, body)
    # a root may be another state or an outside value: copy them all before setting any
    same = []
    for k, r in enumerate(loop.roots):
        body.append(f"    let {tag}_n{k}: {_wgsl_type(r.dtype)} = {inner[key(r)]};")
        new, old = _as_words(r.dtype, f"{tag}_n{k}"), _as_words(r.dtype, f"{tag}_{k}")
        n = _words(r.dtype)
        same += ([f"{new} == {old}"] if n == 1 else
                 [f"{new}.{c} == {old}.{c}" for c in "xyzw"[:n]])
    body.append(f"    let {tag}_same = {' && '.join(f'({e})' for e in same)};")
    body += [f"    {tag}_{k} = {tag}_n{k};" for k in range(len(loop.roots))]
    # a state equal to the last one bit for bit is a fixed point of the body (which reads
    # nothing else that changes): every later iteration would give it again
    body.append(f"    if ({tag}_same) {{ break; }}")
    lines += ["    " + line for line in body]
    lines.append("    }")
    for k in inner.keys() - names.keys():
        names[tag, k] = None


def zeros(code: str, n: str) -> str:
    """WGSL declarations of the zero<p> that code reads; n: the element count."""
    return "".join(f"    let zero{p} = select(0u, {p + 1}u, {n} == 0xffffffffu);\n"
                   for p in range(MAX_ARITY) if f"zero{p}" in code)


def uniform_layout(spec: ElementwiseSpec):
    """Where pack_uniforms puts each thing, in words: (shape, [per input], [per output],
    [per scalar], the first element's index, present when the DAG reads the index). Every
    language's generator reads the uniforms through this."""
    pos = 1
    shape_at = pos
    if spec.uses_shape:
        pos += spec.ndim
    in_at = []
    for _, opnd in spec.inputs:
        in_at.append(pos)
        pos += 1 + (spec.ndim if opnd.strided else 0)
    out_at = []
    for _, opnd, *_ in spec.outputs:
        out_at.append(pos)
        pos += 1 + (spec.ndim if opnd.strided else 0)
    sc_at = []
    for d in spec.scalars:
        sc_at.append(pos)
        pos += _words(d)
    return shape_at, in_at, out_at, sc_at, pos


def pack_uniforms(spec: ElementwiseSpec, n: int, shape, in_views, out_views, scalar_words) -> bytes:
    """Uniform words for one dispatch. Views are (offset, strides) in elements."""
    div = 4 if spec.vec4 else 1
    words = [n // div]
    if spec.uses_shape:
        words += shape
    for (_, opnd), (off, strides) in zip(spec.inputs, in_views):
        words.append(off // div)
        if opnd.strided:
            words += strides
    for (_, opnd, *_), (off, strides) in zip(spec.outputs, out_views):
        words.append(off // div)
        if opnd.strided:
            words += strides
    words += scalar_words
    if spec.uses_index:
        words.append(0)
    packer = _PACKERS.get(len(words))
    if packer is None:
        packer = _PACKERS[len(words)] = struct.Struct(f"<{len(words)}I")
    try:
        return packer.pack(*words)
    except struct.error:  # negative strides: their two's complement words
        return packer.pack(*(w & 0xFFFFFFFF for w in words))


_PACKERS: dict[int, struct.Struct] = {}
