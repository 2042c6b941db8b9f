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
launch's first element (0, unless the launch runs in pieces: ``_core/launch.py``).
"""

from __future__ import annotations

from ..expr import (Apply, Cast, Gather, Index, Input, Loop, LoopOut, Scalar, UserCall, UserOut,
                    walk)
from ..ops import lane_of
from .. import lanes
from .. import wgsl_complex, wgsl_int64  # noqa: F401  (register their helpers)
from ..specs import elementwise as knobs  # WORKGROUP, VEC4_PER_THREAD: read at each use
from ..specs.elementwise import (ElementwiseSpec, Operand, apply_expr, loop_lines,
                                 uniform_layout, zeros)
from ..grid import fold
from ..wgsl_lib import helpers_for

_COMPONENTS = ("x", "y", "z", "w")


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
    per = knobs.VEC4_PER_THREAD if spec.vec4 else 1
    comps = _COMPONENTS if spec.vec4 else ("",)

    shape_at, in_at, out_at, sc_at, base_at = uniform_layout(spec)

    # Thread t of workgroup g handles words g*per*WORKGROUP + t + k*WORKGROUP, k < per, so
    # each of its `per` loads is coalesced across the workgroup.
    body.append(f"    let first = (wid.x + wid.y * nwg.x) * {per * knobs.WORKGROUP}u + lid;")
    if per == 1:
        body.append("    let i = first;")
        body.append("    if (i >= n) { return; }")
        at = [("i", "i")]
    else:
        # every thread loads all its words (clamped into range, so all loads issue
        # back to back) and stores only those below n
        at = []
        for k in range(per):
            body.append(f"    let i{k} = first + {k * knobs.WORKGROUP}u;")
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
                if lanes.words(dtype) != 1:
                    body.append(f"    let {w} = {lanes.load(dtype, f'B{opnd.binding}', at_)};")
                else:
                    body.append(f"    let {w} = B{opnd.binding}[{at_}];")
                loaded[n.slot, k] = w

    def emit(n, k: int, c: str, i: str, names: dict, body: list) -> None:
        """Declare node n's value (element k of the thread, vec4 component c) in body."""
        sfx = f".{c}" if c else ""
        lane = lane_of(n.dtype) if n.dtype is not None else None  # None: a UserCall, a Loop
        if isinstance(n, Input):
            w = loaded[n.slot, k]
            e = w if lanes.words(n.dtype) != 1 else _from_word(lane, w + sfx)
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
            return
        elif isinstance(n, UserOut):
            e = lanes.wrap(n.dtype, f"{names[n.call.key, k, c]}.o{n.index}")
        elif isinstance(n, Loop):
            loop_lines(n, lambda a: (a.key, k, c), names, body,
                       lambda m, inner, lines: emit(m, k, c, i, inner, lines))
            return
        elif isinstance(n, LoopOut):
            e = f"{names[n.loop.key, k, c]}_{n.index}"
        else:
            assert isinstance(n, Apply)
            e = apply_expr(n, lambda a: (a.key, k, c), names, body)
        name = f"v{len(names)}"
        body.append(f"    let {name}: {lanes.wgsl_type(n.dtype)} = {e};")
        names[n.key, k, c] = name

    names: dict = {}
    for k, (i, _) in enumerate(at):
        for c in comps:
            for n in nodes:
                emit(n, k, c, i, names, body)

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
        f"@compute @workgroup_size({knobs.WORKGROUP})\n"
        "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
        "@builtin(num_workgroups) nwg: vec3<u32>, "
        "@builtin(local_invocation_index) lid: u32) {\n"
        "    let n = U[0];\n"
        + zeros(code, "n") + code + "\n}\n"
    )


def grid_for(n: int, vec4: bool, max_per_dim: int) -> tuple[int, int, int]:
    words = n // 4 if vec4 else n
    per = knobs.VEC4_PER_THREAD if vec4 else 1
    return fold(-(-words // (knobs.WORKGROUP * per)), max_per_dim)
