"""Whole-array user kernels (CuPy's ``raw`` parameters): the spec both renderers take.

A raw kernel runs a translated user function (``cupy/_kernel_lang.py``) once per element
``e`` of a shape and stores its results at ``e`` of each output; a raw parameter is a whole
array the body reads (or, on WebGPU, writes) at positions it computes. Binding 0 holds
32-bit words: the element count, the shape, then per broadcast array input its strides in
elements (0 where it has size 1 or lacks the axis), the scalars and each raw parameter's
sizes; every distinct array follows as a binding of its own.

``webgpu/raw.py`` writes it as one compute shader (a thread per element), ``webgl2/raw.py``
as one draw per output (a fragment computes one word of one output). Both render the user
function's call the same way (``call``), differing only in how a uniform word and an
element of a binding are read.
"""

from __future__ import annotations

from typing import NamedTuple


class RawSpec(NamedTuple):
    # the user function: .name, .source("wgsl"), .glsl_outputs() (cupy/_kernel_lang.py)
    fn: object
    ndim: int
    # per argument of fn in order: ("index",), ("array", binding, register, first stride
    # word) or ("scalar", word, register); registers are bool, i32, u32, f32
    args: tuple
    outputs: tuple  # (binding, register) per output of fn
    raws: tuple  # (name, binding, register) per raw parameter
    shape_words: tuple  # (reference in fn's text, word) per size of a raw parameter
    storages: tuple  # WGSL storage element type per binding, from 1
    readable_outputs: bool  # fn also takes its outputs' current values


# a 32-bit word (u32) as each register type and back, in the WGSL subset both renderers speak
FROM_WORD = {"bool": "({} != 0u)", "i32": "bitcast<i32>({})", "u32": "{}", "f32": "bitcast<f32>({})"}
TO_WORD = {"bool": "select(0u, 1u, {})", "i32": "bitcast<u32>({})", "u32": "{}",
           "f32": "bitcast<u32>({})"}


def call(spec: RawSpec, word, element) -> tuple[list[str], list[str]]:
    """The lines that compute each coordinate ``c<k>`` of element ``e``, and the text of
    every argument of the user function's call; ``word(k)`` reads uniform word k (u32),
    ``element(binding, register, index)`` one element of a binding as its register type."""
    coords = []
    if spec.ndim:
        coords.append("    var rest = e;")
        for k in reversed(range(spec.ndim)):
            coords.append(f"    let c{k} = rest % {word(1 + k)}; rest = rest / {word(1 + k)};")
    args = []
    for a in spec.args:
        if a[0] == "index":
            args.append("i32(e)")
        elif a[0] == "array":
            _, b, reg, base = a
            terms = " + ".join(f"c{k} * {word(base + k)}" for k in range(spec.ndim)) or "0u"
            args.append(element(b, reg, terms))
        else:
            _, k, reg = a
            args.append(FROM_WORD[reg].format(word(k)))
    if spec.readable_outputs:
        args += [element(b, reg, "e") for b, reg in spec.outputs]
    return coords, args


def glsl_name(text: str) -> str:
    """GLSL reserves every identifier with two underscores in a row, which CuPy's names
    make (``_ind`` -> ``u__ind``): they are spelled with ``_W5_`` instead."""
    return text.replace("__", "_W5_")
