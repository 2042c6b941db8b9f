"""WGSL generator for elementwise expression DAGs.

One thread computes one output element, or on the vec4 path (every operand contiguous and
aligned to four elements) ``VEC4_PER_THREAD`` vec4 words, loads first. On an H100 (Vulkan)
the plain vec4 kernel streams at the card's copy bandwidth, above CuPy's ElementwiseKernel,
at any workgroup size from 64 to 512; more words per thread measured 1-3% slower there
(benchmarks/NOTES-elementwise.md). The grid is folded into two dimensions only as far as
the per-dimension limit needs, since empty workgroups cost time. Every operand is a
buffer view: *contiguous* (element = offset + i) or *strided* (element = offset + Σ c_d·s_d
over the output coordinates, stride 0 for broadcast dimensions, negative strides allowed).
Shapes, strides, offsets and scalar operands travel as uniforms, so a kernel depends only on
the DAG's structure and the operand modes: a loop over differently sized arrays compiles it
once.

A binding is always ``array<u32>`` (``array<vec4<u32>>`` on the vec4 path, which only
one-word dtypes take); ``lanes.py`` says how a dtype's word or word pair is read, written
and converted.

Uniform words, in order: n; the output shape (when anything is strided or the index is
used); per input, its offset and (if strided) its strides; the same per output; then each
scalar operand's word(s); then, when the DAG reads the element index, the index of the
launch's first element (0, unless the launch runs in pieces: ``_split.py``).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..expr import Apply, Cast, Gather, Index, Input, Scalar, UserCall, UserOut, walk
from ..ops import TABLE, lane_of
from . import lanes
from .grid import fold
from . import wgsl_complex, wgsl_int64  # noqa: F401  (register their helpers)
from .wgsl_lib import helpers_for

WORKGROUP = 256  # threads per workgroup
VEC4_PER_THREAD = 1  # vec4 words each thread of a vec4 kernel handles (a tuning knob)
_COMPONENTS = ("x", "y", "z", "w")


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


# -- lanes: reading and writing one-word registers (the vec4 path works word by word) -----

def _from_word(lane: str, w: str) -> str:
    return {"b": f"({w} != 0u)", "i": f"bitcast<i32>({w})", "u": w, "f": f"bitcast<f32>({w})"}[lane]


def _to_word(lane: str, v: str) -> str:
    return {"b": f"select(0u, 1u, {v})", "i": f"bitcast<u32>({v})", "u": v,
            "f": f"bitcast<u32>({v})"}[lane]


cast_expr = lanes.cast


def generate(spec: ElementwiseSpec) -> str:
    nodes = walk(spec.roots)
    body: list[str] = []
    per = VEC4_PER_THREAD if spec.vec4 else 1
    comps = _COMPONENTS if spec.vec4 else ("",)

    shape_at, in_at, out_at, sc_at, base_at = uniform_layout(spec)

    # Thread t of workgroup g handles words g*per*WORKGROUP + t + k*WORKGROUP, k < per, so
    # each of its `per` loads is coalesced across the workgroup.
    body.append(f"    let first = (wid.x + wid.y * nwg.x) * {per * WORKGROUP}u + lid;")
    if per == 1:
        body.append("    let i = first;")
        body.append("    if (i >= n) { return; }")
        at = [("i", "i")]
    else:
        # every thread loads all its words (clamped into range, so all loads issue
        # back to back) and stores only those below n
        at = []
        for k in range(per):
            body.append(f"    let i{k} = first + {k * WORKGROUP}u;")
            body.append(f"    let j{k} = min(i{k}, n - 1u);")
            at.append((f"i{k}", f"j{k}"))

    # coordinates of the output element (strided operands only)
    if spec.uses_shape and spec.ndim > 0 and not spec.vec4:
        body.append("    var rem = i;")
        for d in range(spec.ndim - 1, 0, -1):
            body.append(f"    let c{d} = i32(rem % U[{shape_at + d}]); rem = rem / U[{shape_at + d}];")
        body.append("    let c0 = i32(rem);")

    def index_of(pos: int, opnd: Operand, i: str) -> str:
        if not opnd.strided:
            return f"(U[{pos}] + {i})"
        terms = " + ".join(f"c{d} * bitcast<i32>(U[{pos + 1 + d}])" for d in range(spec.ndim))
        return f"u32(bitcast<i32>(U[{pos}]) + {terms or '0'})"

    loaded: dict = {}
    for k, (_, j) in enumerate(at):
        for n in nodes:
            if (isinstance(n, Input) and (n.slot, k) not in loaded
                    and not spec.inputs[n.slot][1].raw):
                dtype, opnd = spec.inputs[n.slot]
                w = f"w{n.slot}_{k}"
                at_ = index_of(in_at[n.slot], opnd, j)
                if lanes.words(dtype) == 2:
                    body.append(f"    let {w} = {lanes.load(dtype, f'B{opnd.binding}', at_)};")
                else:
                    body.append(f"    let {w} = B{opnd.binding}[{at_}];")
                loaded[n.slot, k] = w

    names: dict = {}
    for k, (i, _) in enumerate(at):
        for c in comps:
            sfx = f".{c}" if c else ""
            for n in nodes:
                lane = lane_of(n.dtype) if n.dtype is not None else None  # None: a UserCall
                if isinstance(n, Input):
                    w = loaded[n.slot, k]
                    e = w if lanes.words(n.dtype) == 2 else _from_word(lane, w + sfx)
                elif isinstance(n, Scalar):
                    e = lanes.scalar_expr(n.dtype, sc_at[n.slot])
                elif isinstance(n, Index):
                    e = (f"i32({i} * 4u + U[{base_at}] + {_COMPONENTS.index(c)}u)" if c
                         else f"i32({i} + U[{base_at}])")
                elif isinstance(n, Gather):
                    opnd = spec.inputs[n.slot][1]
                    e = lanes.load(n.dtype, f"B{opnd.binding}", f"u32({names[n.index.key, k, c]})")
                elif isinstance(n, Cast):
                    e = cast_expr(n.arg.dtype, n.dtype, names[n.arg.key, k, c])
                elif isinstance(n, UserCall):
                    args = ", ".join(names[a.key, k, c] for a in n.args)
                    name = f"v{len(names)}"
                    body.append(f"    let {name} = {n.fn.name}({args});")
                    names[n.key, k, c] = name
                    continue
                elif isinstance(n, UserOut):
                    e = lanes.wrap(n.dtype, f"{names[n.call.key, k, c]}.o{n.index}")
                else:
                    assert isinstance(n, Apply)
                    op = TABLE[n.op]
                    tmpl = op.wgsl[lane_of(n.compute)]
                    args = arg_registers(n.args, lambda a: (a.key, k, c), names, body)
                    e = tmpl.format(*args)
                    if op.result in ("same", "real"):  # abs is "real": abs(int8 -128) wraps
                        e = lanes.wrap(n.dtype, e)
                name = f"v{len(names)}"
                body.append(f"    let {name}: {lanes.wgsl_type(n.dtype)} = {e};")
                names[n.key, k, c] = name

    for k, (i, _) in enumerate(at):
        guard = f"if ({i} < n) " if per > 1 else ""
        for o, (n, opnd, *scatter) in enumerate(spec.outputs):
            lane = lane_of(n.dtype)
            if opnd.raw:
                dst = f"u32({names[scatter[0].key, k, '']})"
                body.append("    " + lanes.store(n.dtype, f"B{opnd.binding}", dst, names[n.key, k, '']))
            elif spec.vec4:
                words = ", ".join(_to_word(lane, names[n.key, k, c]) for c in comps)
                body.append(f"    {guard}{{ B{opnd.binding}[U[{out_at[o]}] + {i}] = vec4<u32>({words}); }}")
            else:
                body.append("    " + lanes.store(n.dtype, f"B{opnd.binding}",
                                                index_of(out_at[o], opnd, i), names[n.key, k, '']))

    elem = "vec4<u32>" if spec.vec4 else "u32"
    decls = ["@group(0) @binding(0) var<storage, read> U: array<u32>;"]
    for b, w in enumerate(spec.writable, start=1):
        access = "read_write" if w else "read"
        decls.append(f"@group(0) @binding({b}) var<storage, {access}> B{b}: array<{elem}>;")
    code = "\n".join(body)
    # user functions (ElementwiseKernel bodies), once each, before the helpers they call
    user = "".join(dict.fromkeys(n.fn.source("wgsl") for n in nodes if isinstance(n, UserCall)))
    return "\n".join(decls) + "\n" + helpers_for(code + user) + user + (
        f"@compute @workgroup_size({WORKGROUP})\n"
        "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
        "@builtin(num_workgroups) nwg: vec3<u32>, "
        "@builtin(local_invocation_index) lid: u32) {\n"
        "    let n = U[0];\n"
        + zeros(code, "n") + code + "\n}\n"
    )


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
_COMPUTED = (Apply, Cast, UserOut)
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


def arg_registers(args, key, names: dict, lines: list) -> list[str]:
    """The registers an op reads its args from: names[key(arg)], or where ``hides`` says so
    its XOR with zero<p>, declared in lines (and entered in names) once per value and p."""
    out = []
    for p, a in enumerate(args):
        v = names[key(a)]
        if hides(a, p):
            h = names.get((key(a), p))
            if h is None:
                h = names[key(a), p] = f"v{len(names)}"
                lines.append(f"    let {h} = {hidden(lane_of(a.dtype), v, p)};")
            v = h
        out.append(v)
    return out


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
        pos += lanes.words(d)
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


def grid_for(n: int, vec4: bool, max_per_dim: int) -> tuple[int, int, int]:
    words = n // 4 if vec4 else n
    per = VEC4_PER_THREAD if vec4 else 1
    return fold(-(-words // (WORKGROUP * per)), max_per_dim)
