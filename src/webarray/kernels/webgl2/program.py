"""Assembling WebGL2 kernels: a kernel is one or more *draws*, each rendering one output
binding (an R32UI texture holding the buffer's u32 words row-major, see
``src/webarray_js/webgl2.ts``), so that every generator of this registry shares the
shader scaffolding and only writes WGSL-subset functions of the invocation index:

- ``wa_value(i: u32) -> u32``: the word that invocation i writes;
- ``wa_dest(i: u32) -> u32`` (``points`` draws only): the word index it writes to.

A ``rect`` draw covers the words [first, first + count) of its output (``first`` and
``count`` are GLSL expressions over the uniform words); invocation i writes word
first + i. The backend runs a draw once per layer of its output texture (``wa_layer``).
A ``points`` draw has one point per invocation (the dispatch's count), placed
at ``wa_dest(i)``: strided and scattered outputs (``0xffffffffu``: not drawn). Both functions are translated from
WGSL by the shader front end (``kernels/shader/translate.py``) with the helpers they call. In them ``U[k].x`` ... reads the
uniform words (``uword(k)`` spells word k) and ``ld<b>(k)`` reads word k of binding b.
"""

from __future__ import annotations

import re

from . import glsl_lib
from ..shader.emit import GLSL_EXTRA
from ..shader.translate import signature, translate_function

UNIFORM_VEC4 = 64  # the JS backend uploads uniform words as uvec4 U[64]
# A buffer is a 2D texture array: rows of 2^ROW_SHIFT words (a buffer of fewer words is one
# shorter row), 2^LAYER_SHIFT rows per layer (fewer in a one-layer buffer), so word k is
# texel (k & mask, (k >> ROW_SHIFT) & row mask, layer k >> (ROW_SHIFT + LAYER_SHIFT)) with
# no division (webgl2.ts: ROW_WORDS, LAYER_ROWS).
ROW_SHIFT = 12
LAYER_SHIFT = 11
_MASK = f"{(1 << ROW_SHIFT) - 1}u"
_ROWS = f"{(1 << LAYER_SHIFT) - 1}u"
_WORDS_SHIFT = ROW_SHIFT + LAYER_SHIFT
_GLOBALS = {"U": f"array<vec4<u32>,{UNIFORM_VEC4}>"}


def uword(k: int) -> str:
    """WGSL-subset text of uniform word k."""
    if k >= 4 * UNIFORM_VEC4:
        raise ValueError(f"uniform word {k}: a WebGL2 kernel takes at most {4 * UNIFORM_VEC4}")
    return f"U[{k >> 2}].{'xyzw'[k & 3]}"


def _prelude(reads) -> str:
    lines = ["#version 300 es", "precision highp float;", "precision highp int;",
             "precision highp usampler2DArray;",
             f"uniform highp uvec4 U[{UNIFORM_VEC4}];", "uniform highp uvec2 wa_out;",
             "uniform highp uint wa_layer;"]
    for b in sorted(reads):
        lines.append(f"uniform highp usampler2DArray B{b};")
        lines.append(f"uint ld{b}(uint k) {{ "
                     f"return texelFetch(B{b}, ivec3(int(k & {_MASK}), int((k >> {ROW_SHIFT}u) & {_ROWS}), "
                     f"int(k >> {_WORDS_SHIFT}u)), 0).r; }}")
    return "\n".join(lines) + "\n"


def _functions(reads, wgsl_functions, glsl: str = "", glsl_sigs=None) -> str:
    sigs = dict(glsl_lib.signatures())
    sigs.update(glsl_sigs or {})
    for b in reads:
        sigs[f"ld{b}"] = (("u32",), "u32")
    for src in wgsl_functions:
        name, params, ret = signature(src)
        sigs[name] = (params, ret)
    lib = glsl_lib.signatures()
    used: set = set()
    out = []
    for src in wgsl_functions:
        _, code, calls = translate_function(src, sigs, _GLOBALS)
        used |= {c for c in calls if c in lib or c in GLSL_EXTRA}
        out.append(code)
    used |= {c for c in re.findall(r"\bwa_\w+", glsl) if c in lib or c in GLSL_EXTRA}
    return glsl_lib.helpers_for(used) + glsl + "".join(out)


def draw(out: int, reads, value_fn: str, *, first: str = "", count: str = "",
         dest_fn: str | None = None, extra=(), glsl: str = "", glsl_sigs=None) -> str:
    """Source of one draw writing binding ``out``. value_fn / dest_fn / extra: WGSL-subset
    functions (extra: further functions they call, defined first); glsl: GLSL functions
    placed before them as they are (user kernels), whose signatures glsl_sigs gives in
    WGSL types (name -> (parameter types, result type))."""
    body = _prelude(reads) + _functions(
        reads, list(extra) + [value_fn] + ([dest_fn] if dest_fn else []), glsl, glsl_sigs)
    if dest_fn is None:
        span = f"    uint first = {first};\n    uint count = {count};\n"
        vertex = body + (
            "void main() {\n" + span +
            # the rows of the range within this draw's layer (none: an empty rectangle)
            f"    int base = int(wa_layer << {LAYER_SHIFT}u);\n"
            f"    int r0 = int(first >> {ROW_SHIFT}u) - base;\n"
            f"    int r1 = int((first + max(count, 1u) - 1u) >> {ROW_SHIFT}u) + 1 - base;\n"
            "    float y0 = float(clamp(r0, 0, int(wa_out.y)));\n"
            "    float y1 = float(clamp(r1, 0, int(wa_out.y)));\n"
            "    int v = gl_VertexID;\n"
            "    float x = (v == 1 || v == 4 || v == 5) ? 1.0 : 0.0;\n"
            "    float y = (v == 2 || v == 3 || v == 5) ? y1 : y0;\n"
            "    gl_Position = vec4(x * 2.0 - 1.0, y / float(wa_out.y) * 2.0 - 1.0, 0.0, 1.0);\n"
            "}\n")
        fragment = body + (
            "layout(location = 0) out highp uint wa_o;\n"
            "void main() {\n" + span +
            f"    uint word = (wa_layer << {_WORDS_SHIFT}u) + (uint(gl_FragCoord.y) << {ROW_SHIFT}u)"
            " + uint(gl_FragCoord.x);\n"
            "    if (word < first || word - first >= count) { discard; }\n"
            "    wa_o = wa_value(word - first);\n"
            "}\n")
        prim = "rect"
    else:
        vertex = body + (
            "flat out highp uint wa_i;\n"
            "void main() {\n"
            "    uint i = uint(gl_VertexID);\n"
            "    uint dst = wa_dest(i);\n"
            # not drawn: nowhere to go, or in another layer than this draw's
            f"    if (dst == 0xffffffffu || (dst >> {_WORDS_SHIFT}u) != wa_layer) {{\n"
            "        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); return;\n    }\n"
            f"    gl_Position = vec4((float(dst & {_MASK}) + 0.5) / float(wa_out.x) * 2.0 - 1.0,\n"
            f"                       (float((dst >> {ROW_SHIFT}u) & {_ROWS}) + 0.5) / float(wa_out.y) * 2.0 - 1.0,"
            " 0.0, 1.0);\n"
            "    gl_PointSize = 1.0;\n"
            "    wa_i = i;\n"
            "}\n")
        fragment = body + (
            "flat in highp uint wa_i;\n"
            "layout(location = 0) out highp uint wa_o;\n"
            "void main() { wa_o = wa_value(wa_i); }\n")
        prim = "points"
    return f"//!draw out={out} prim={prim}\n{vertex}//!fragment\n{fragment}"
