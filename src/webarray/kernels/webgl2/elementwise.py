"""GLSL generator for elementwise expression DAGs: the WebGL2 counterpart of
``kernels/webgpu/elementwise.py``, taking the same ``ElementwiseSpec`` and the same
uniform words (``kernels/specs/elementwise.py``), so ``_graph.execute`` drives both alike.

One draw per output (program.py): a contiguous output is a ``rect`` draw over its words,
a strided or scattered one a ``points`` draw placed at the word each element goes to.
User functions (ElementwiseKernel bodies) come as GLSL from their ``glsl_outputs``, with
one wrapper per output, since each draw computes one output.
Expressions come from the op table's WGSL, written as GLSL by the shader front end
(kernels/shader/translate.py), so every op and special case is the one WebGPU computes. On the vec4 path of the spec (n and offsets
counted in fours) the kernel still works element by element; only the uniforms scale.
An output of a two- or four-word dtype is drawn word by word, each fragment computing
its element (program.py).
"""

from __future__ import annotations

from ..expr import (Apply, Cast, Gather, Index, Input, Loop, LoopOut, Scalar, UserCall, UserOut,
                    walk)
from .. import lanes
from ..specs.elementwise import ElementwiseSpec, apply_expr, loop_lines, uniform_layout, zeros
from .program import draw, load, to_word, uword

USER_CALLS = True  # runs UserCall/UserOut nodes (ElementwiseKernel bodies, their GLSL)


def generate(spec: ElementwiseSpec) -> str:
    shape_at, in_at, out_at, sc_at, base_at = uniform_layout(spec)
    user_glsl, user_sigs = _user_functions(spec)
    scale = " * 4u" if spec.vec4 else ""

    coords = []
    if spec.uses_shape and spec.ndim > 0:
        coords.append("    var rem = i;")
        for d in range(spec.ndim - 1, 0, -1):
            coords.append(f"    let c{d} = i32(rem % {uword(shape_at + d)}); "
                          f"rem = rem / {uword(shape_at + d)};")
        coords.append("    let c0 = i32(rem);")

    def index_of(at: int, opnd) -> str:
        if not opnd.strided:
            return f"({uword(at)}{scale} + i)"
        terms = " + ".join(f"c{d} * bitcast<i32>({uword(at + 1 + d)})" for d in range(spec.ndim))
        return f"u32(bitcast<i32>({uword(at)}) + {terms or '0'})"

    def emit(n, names: dict, lines: list) -> None:
        """Declare node n's value in lines."""
        if isinstance(n, UserCall):
            return  # its outputs call it (UserOut)
        if isinstance(n, UserOut):
            args = ", ".join(names[a.key] for a in n.call.args)
            e = lanes.wrap(n.dtype, f"{n.call.fn.name}_o{n.index}({args})")
        elif isinstance(n, Input):
            dtype, opnd = spec.inputs[n.slot]
            e = load(dtype, opnd.binding, index_of(in_at[n.slot], opnd))
        elif isinstance(n, Scalar):
            at = sc_at[n.slot]
            e = lanes.from_words(n.dtype, [uword(at + j) for j in range(lanes.words(n.dtype))])
        elif isinstance(n, Index):
            e = f"i32(i + {uword(base_at)})"
        elif isinstance(n, Gather):
            opnd = spec.inputs[n.slot][1]
            e = load(n.dtype, opnd.binding, f"u32({names[n.index.key]})")
        elif isinstance(n, Cast):
            e = lanes.cast(n.arg.dtype, n.dtype, names[n.arg.key])
        elif isinstance(n, Loop):
            loop_lines(n, lambda a: a.key, names, lines, emit)
            return
        elif isinstance(n, LoopOut):
            e = f"{names[n.loop.key]}_{n.index}"
        else:
            assert isinstance(n, Apply)
            # as on WebGPU: zero<p> keeps the arithmetic IEEE's, abs(int8 -128) wraps
            e = apply_expr(n, lambda a: a.key, names, lines)
        name = f"v{len(names)}"
        lines.append(f"    let {name}: {lanes.wgsl_type(n.dtype)} = {e};")
        names[n.key] = name

    def body(roots) -> list[str]:
        lines = list(coords)
        names: dict = {}
        for n in walk(roots):
            emit(n, names, lines)
        return [zeros("\n".join(lines), uword(0))] + lines, names

    reads = sorted({o.binding for _, o in spec.inputs})
    draws = []
    for o, (node, opnd, *scatter) in enumerate(spec.outputs):
        lines, names = body([node])
        value = ("fn wa_value(i: u32) -> u32 {\n" + "\n".join(lines) + "\n    return "
                 + to_word(node.dtype, names[node.key]) + ";\n}\n")
        words = lanes.words(node.dtype)
        count = f"{uword(0)}{scale}"
        if opnd.raw or opnd.strided:
            if opnd.raw:
                dl, dn = body([scatter[0]])
                dest = ("fn wa_dest(i: u32) -> u32 {\n" + "\n".join(dl)
                        + f"\n    return u32({dn[scatter[0].key]});\n}}\n")
            else:
                dest = ("fn wa_dest(i: u32) -> u32 {\n" + "\n".join(coords)
                        + f"\n    return {index_of(out_at[o], opnd)};\n}}\n")
            draws.append(draw(opnd.binding, reads, value, dest_fn=dest,
                              glsl=user_glsl, glsl_sigs=user_sigs, words=words))
        else:
            first = f"{uword(out_at[o])}{scale}"
            draws.append(draw(opnd.binding, reads, value, first=first, count=count,
                              glsl=user_glsl, glsl_sigs=user_sigs, words=words))
    return "".join(draws)


def _user_functions(spec: ElementwiseSpec):
    """GLSL of the user functions the DAG calls, with one wrapper per output (each draw
    computes one output), and the wrappers' signatures."""
    src, sigs = [], {}
    for n in walk(spec.roots):
        if isinstance(n, UserCall) and n.fn.name not in {k.rsplit("_o", 1)[0] for k in sigs}:
            glsl, s = n.fn.glsl_outputs()
            src.append(glsl)
            sigs.update(s)
    return "".join(src), sigs


def grid_for(n: int, vec4: bool, max_per_dim: int) -> tuple[int, int, int]:
    """WebGL2 launch geometry: the number of invocations (points drawn), in elements."""
    return (n, 1, 1)
