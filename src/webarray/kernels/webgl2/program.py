"""Assembling WebGL2 kernels: a kernel is one or more *draws*, each rendering one output
binding (an R32UI texture holding the buffer's u32 words row-major, see
``src/webarray_js/webgl2.ts``), so that every generator of this registry shares the
shader scaffolding and only writes WGSL-subset functions of the invocation index:

- ``wa_value(i: u32) -> u32``: the word that invocation i writes;
- ``wa_dest(i: u32) -> u32`` (``points`` draws only): the word index it writes to.

An output of a dtype of W > 1 words (int64, uint64, float64, complex64: 2; complex128: 4)
is drawn word by word: ``i`` and ``wa_dest`` count elements, the fragment of word j of
element i calls ``wa_value(i)`` with the global ``wa_part`` = j, and ``wa_value`` returns
``to_word(dtype, value)``, that word of its element (a ``points`` draw is W draws, one per
word). Each word's fragment computes the whole element: twice or four times the
arithmetic of one word, with no texture formats beyond R32UI.

A ``rect`` draw covers the words [first, first + count) of its output (``first`` and
``count`` are GLSL expressions over the uniform words); invocation i writes word
first + i. The backend runs a draw once per layer of its output texture (``wa_layer``).
A ``points`` draw has one point per invocation (the dispatch's count), placed
at ``wa_dest(i)``: strided and scattered outputs (``0xffffffffu``: not drawn). Both functions are translated from
WGSL by the shader front end (``kernels/shader/translate.py``) with the helpers they call. In them ``U[k].x`` ... reads the
uniform words (``uword(k)`` spells word k) and ``ld<b>(k)`` reads word k of binding b.

Every draw's shaders start with the probe's early return (``_PROBED``): with the uniform
``wa_probe`` set, the draw writes that word and nothing else, which the backend checks
once for each large program before using it (``webgl2.ts``, ``probe``).
"""

from __future__ import annotations

import re

from . import glsl_lib
from .. import lanes
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
_GLOBALS = {"U": f"array<vec4<u32>,{UNIFORM_VEC4}>", "wa_part": "u32"}
# the word wa_part of an element's words (GLSL, in every draw's prelude)
_PARTS = ("uint wa_w2(uvec2 v) { return wa_part == 0u ? v.x : v.y; }\n"
          "uint wa_w4(uvec4 v) { return wa_part < 2u ? (wa_part == 0u ? v.x : v.y)"
          " : (wa_part == 2u ? v.z : v.w); }\n")
_PART_SIGS = {"wa_w2": (("vec2<u32>",), "u32"), "wa_w4": (("vec4<u32>",), "u32")}


def load(dtype, binding: int, index: str) -> str:
    """WGSL-subset expression reading element ``index`` (a u32 expression) of a binding."""
    return lanes.load_with(dtype, lambda k: f"ld{binding}({k})", index)


def to_word(dtype, value: str) -> str:
    """The word of a register of dtype that this fragment writes (``wa_part`` of its words)."""
    w = lanes.as_words(dtype, value)
    n = lanes.words(dtype)
    return w if n == 1 else f"wa_w{n}({w})"


def uword(k: int) -> str:
    """WGSL-subset text of uniform word k."""
    if k >= 4 * UNIFORM_VEC4:
        raise ValueError(f"uniform word {k}: a WebGL2 kernel takes at most {4 * UNIFORM_VEC4}")
    return f"U[{k >> 2}].{'xyzw'[k & 3]}"


# The backend's probe of a large program (webgl2.ts, ``probe``): with wa_probe set, a draw
# writes wa_probe, so that a shader the implementation compiled into one that does not run
# shows, where it would otherwise write zeros without an error
_PROBED = "    if (wa_probe != 0u) { wa_o = wa_probe; return; }\n"


def _prelude(reads) -> str:
    lines = ["#version 300 es", "precision highp float;", "precision highp int;",
             "precision highp usampler2DArray;",
             f"uniform highp uvec4 U[{UNIFORM_VEC4}];", "uniform highp uvec2 wa_out;",
             "uniform highp uint wa_layer;", "uniform highp uint wa_probe;", "uint wa_part;"]
    for b in sorted(reads):
        lines.append(f"uniform highp usampler2DArray B{b};")
        lines.append(f"uint ld{b}(uint k) {{ "
                     f"return texelFetch(B{b}, ivec3(int(k & {_MASK}), int((k >> {ROW_SHIFT}u) & {_ROWS}), "
                     f"int(k >> {_WORDS_SHIFT}u)), 0).r; }}")
    return "\n".join(lines) + "\n" + _PARTS


def _functions(reads, wgsl_functions, glsl: str = "", glsl_sigs=None) -> str:
    sigs = dict(glsl_lib.signatures())
    sigs.update(glsl_sigs or {})
    sigs.update(_PART_SIGS)
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
         dest_fn: str | None = None, extra=(), glsl: str = "", glsl_sigs=None,
         words: int = 1) -> str:
    """Source of one draw writing binding ``out`` (W draws for a points draw of ``words``
    W > 1). value_fn / dest_fn / extra: WGSL-subset functions (extra: further functions
    they call, defined first); glsl: GLSL functions placed before them as they are (user
    kernels), whose signatures glsl_sigs gives in WGSL types (name -> (parameter types,
    result type)). first, count: the rect's elements; words: u32 words per element."""
    # the fragment shader computes values; a rect's vertex shader needs only the uniforms,
    # a points draw's the destinations (a shader of the whole float64 library compiles
    # for seconds: once per draw, not twice)
    body = _prelude(reads) + _functions(reads, list(extra) + [value_fn], glsl, glsl_sigs)
    if dest_fn is None:
        if words == 1:
            span, pick = f"    uint first = {first};\n    uint count = {count};\n", "wa_value(word - first)"
        else:
            span = f"    uint first = ({first}) * {words}u;\n    uint count = ({count}) * {words}u;\n"
            pick = f"wa_value((word - first) / {words}u)"
        vertex = _prelude(reads) + (
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
            "void main() {\n" + _PROBED + span +
            f"    uint word = (wa_layer << {_WORDS_SHIFT}u) + (uint(gl_FragCoord.y) << {ROW_SHIFT}u)"
            " + uint(gl_FragCoord.x);\n"
            "    if (word < first || word - first >= count) { discard; }\n"
            + (f"    wa_part = (word - first) % {words}u;\n" if words > 1 else "")
            + f"    wa_o = {pick};\n"
            "}\n")
        return f"//!draw out={out} prim=rect\n{vertex}//!fragment\n{fragment}"
    dests = _prelude(reads) + _functions(reads, list(extra) + [dest_fn], glsl, glsl_sigs)
    return "".join(_points(out, body, dests, part, words) for part in range(words))


def _points(out: int, body: str, dests: str, part: int, words: int) -> str:
    """The points draw of word ``part`` of each element (its place: wa_dest's element):
    body, the values' functions; dests, the destinations'."""
    place = "e" if words == 1 else f"e * {words}u + {part}u"
    vertex = dests + (
        "flat out highp uint wa_i;\n"
        "void main() {\n"
        "    if (wa_probe != 0u) { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 1.0; wa_i = 0u; return; }\n"
        "    uint i = uint(gl_VertexID);\n"
        "    uint e = wa_dest(i);\n"
        f"    uint dst = e == 0xffffffffu ? e : {place};\n"
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
        f"void main() {{\n{_PROBED}    wa_part = {part}u;\n    wa_o = wa_value(wa_i);\n}}\n")
    return f"//!draw out={out} prim=points\n{vertex}//!fragment\n{fragment}"
