"""GLSL for whole-array user kernels (specs/raw.py): one draw per output.

A fragment computes one word of one output, so the user function runs once per output;
raw parameters are read through ``r_<name>(k)``, a texelFetch of their binding, and their
sizes are uniform words. Writing a raw parameter (a scatter from inside a body) has no
counterpart in a fragment shader, which writes its own pixel only: the body's translation
says so (``cupy/_kernel_lang.py``).
"""

from __future__ import annotations

import re

from ..specs.raw import FROM_WORD, TO_WORD, RawSpec, call, glsl_name
from .program import draw, uword

_GLSL_RESULT = {"bool": "int", "i32": "int", "u32": "uint", "f32": "float"}
_GLSL_FROM_WORD = {"bool": "int", "i32": "int", "u32": "", "f32": "uintBitsToFloat"}


def generate(spec: RawSpec) -> str:
    fn = spec.fn
    coords, args = call(spec, uword, lambda b, reg, i: FROM_WORD[reg].format(f"ld{b}({i})"))
    user, sigs = fn.glsl_outputs()
    for ref, k in spec.shape_words:
        user = re.sub(rf"\b{glsl_name(ref)}\b", f"int({uword(k)})", user)
    readers = [glsl_name(f"{_GLSL_RESULT[reg]} r_{name}(int k) "
                         f"{{ return {_GLSL_FROM_WORD[reg]}(ld{b}(uint(k))); }}\n")
               for name, b, reg in spec.raws]
    reads = list(range(1, len(spec.storages) + 1))
    draws = []
    for k, (b, reg) in enumerate(spec.outputs):
        value = "\n".join([
            "fn wa_value(e: u32) -> u32 {", *coords,
            f"    let v = {fn.name}_o{k}({', '.join(args)});",
            f"    return {TO_WORD[reg].format('v')};", "}", ""])
        draws.append(draw(b, reads, value, first="0u", count=uword(0),
                          glsl="".join(readers) + user, glsl_sigs=sigs))
    return "".join(draws)


def grid(n: int, max_per_dim: int) -> tuple[int, int, int]:
    return (n, 1, 1)
