"""GLSL generator for block scans along the rows of a strided view: the WebGL2 counterpart
of ``kernels/webgpu/scan.py`` (same ``ScanSpec``, uniform words and chunking, so
``_core/algorithms/reduce.py`` drives both alike: chunk totals by the reduction kernel, their
exclusive
scan, then this kernel with the carries).

One point per column of every chunk (the launch's grid, ``reduction.grid``): the point of
row r, column j sits at the output element j (+1 for the exclusive/include-initial
shift) and combines the row's carry for its chunk with the chunk's elements up to j, in
order. That is O(S·P) work per element, so P is small here. A second draw writes the
identity into column 0 of every row when the output is shifted.
"""

from __future__ import annotations

from .. import lanes
from ..specs.scan import ScanSpec
from ..specs.reduction import combine_expr, identity, scan_neutral
from .reduction import SCAN_P, extra_functions
from .program import draw, load, to_word

P = SCAN_P


def per_thread(dtype) -> int:
    """Columns per point, whatever the dtype (the driver's counterpart of webgpu/scan.py's)."""
    return P

_W = "U[(k) >> 2u][(k) & 3u]"


def _word(k: str) -> str:
    return _W.replace("k", k)


def _bases() -> str:
    return ("    var ib = bitcast<i32>(U[2].y);\n"
            "    var ob = bitcast<i32>(U[2].w);\n"
            "    var rem = r;\n"
            f"    for (var d = U[4].y; d > 0u; d = d - 1u) {{\n"
            "        let at = 15u + 3u * d;\n"
            f"        let cd = i32(rem % {_word('at')});\n"
            f"        ib = ib + cd * bitcast<i32>({_word('at + 1u')});\n"
            f"        ob = ob + cd * bitcast<i32>({_word('at + 2u')});\n"
            f"        rem = rem / {_word('at')};\n"
            "    }\n")


def generate(spec: ScanSpec) -> str:
    acc = spec.out_dtype
    at = lanes.wgsl_type(acc)
    neutral = scan_neutral(spec.combine, acc)  # the start (-0.0 for float64 sums)
    out_b = 3 if spec.carry else 2
    reads = [1, 2] if spec.carry else [1]
    head = ("    let M = U[0].x; let N = U[0].y; let C = U[0].z; let S = U[0].w;\n"
            f"    let per = C * S * {P}u;\n")
    # point t: row r = t / per, column j = t % per; outside [0, N) it is not drawn
    dest = ("fn wa_dest(t: u32) -> u32 {\n" + head +
            "    let r = t / per; let j = t % per;\n"
            "    let shift = U[3].z; let nout = U[3].y;\n"
            "    if (r >= M || j >= N || j + shift >= nout) { return 0xffffffffu; }\n"
            + _bases() +
            "    return u32(ob + i32(j + shift) * bitcast<i32>(U[3].x));\n}\n")
    comb = combine_expr(spec.combine, acc, "acc", "x")
    carry = ""
    if spec.carry:  # chunk 0's carry is the initial element; where that is not the start, none
        guard = "if (c > 0u) " if neutral != identity(spec.combine, acc) else ""
        carry = f"    {guard}{{ acc = {load(acc, 2, 'r * C + c')}; }}\n"
    value = ("fn wa_value(t: u32) -> u32 {\n" + head +
             "    let r = t / per; let j = t % per;\n" + _bases() +
             "    let sa = bitcast<i32>(U[2].z);\n"
             f"    let c = j / (S * {P}u);\n"
             f"    var acc: {at} = {neutral};\n"
             + carry +
             f"    for (var k = c * S * {P}u; k <= j; k = k + 1u) {{\n"
             f"        let x: {at} = {lanes.cast(spec.in_dtype, acc, load(spec.in_dtype, 1, 'u32(ib + i32(k) * sa)'))};\n"
             f"        acc = {comb};\n"
             "    }\n"
             f"    return {to_word(acc, lanes.wrap(acc, 'acc'))};\n}}\n")
    words = lanes.words(acc)
    src = draw(out_b, reads, value, dest_fn=dest, extra=extra_functions(spec.combine, acc),
               words=words)
    # column 0 of each row holds the identity when the output is shifted
    ident_value = (f"fn wa_value(t: u32) -> u32 {{\n"
                   f"    return {to_word(acc, identity(spec.combine, acc))};\n}}\n")
    ident_dest = ("fn wa_dest(t: u32) -> u32 {\n" + head +
                  "    let r = t;\n"
                  "    if (r >= M || U[3].z == 0u) { return 0xffffffffu; }\n" + _bases() +
                  "    return u32(ob);\n}\n")
    src += draw(out_b, reads, ident_value, dest_fn=ident_dest, words=words)
    return src
