"""GLSL generator for reductions of the rows of a strided view: the WebGL2 counterpart of
``kernels/webgpu/reduction.py``, with the same ``ReduceSpec``, uniform words
(``pack_uniforms``) and output layout, so ``_core/algorithms/reduce.py`` runs the same passes.

Without workgroup memory a chunk is not reduced by a tree of threads: one fragment
reduces one chunk of S·P columns of one row, in order, and writes the chunk's value
(partials, row-major (rows, chunks)) or the result (final pass). Float sums are
compensated (Knuth's TwoSum through the helper library), so a chunk of a few thousand
terms is summed as accurately as the tree sums of WebGPU. The chunk is short
(WORKGROUP here is 64), so long rows take several passes and the fragments stay many.
Arg reductions write values and indices in two draws of the same loop; first index wins
ties and NaN beats numbers, as on WebGPU (the same ``ra_keep``). A user fold (CuPy's
ReductionKernel) calls the user's functions through their GLSL wrappers
(``glsl_outputs``); without an identity the loop starts from the chunk's first element;
its final pass draws once per output of the post-map.
"""

from __future__ import annotations

import re

from ..._dtypes import bool as _BOOL
from ..._dtypes import uint32 as _U32
from ..ops import TABLE, lane_of
from .. import lanes
from ..specs.reduction import (NONE, RA_HELPERS, RA_SQDEV_D, ReduceSpec, better_fn, divided,
                               fold_combine, fold_identity, nonzero, sqdev, sum_start)
from .program import draw, load, to_word

WORKGROUP = 64  # the largest group S: a chunk is at most WORKGROUP * P columns
P = 16
SCAN_P = 1  # columns per point of a scan draw (scan.py's P)
# pack_uniforms (kernels/specs/reduction.py) also writes lane and group shifts for the WGSL
# kernel's workgroup size; the fragments here do not read those words.

_U = "U[(k) >> 2u][(k) & 3u]"


def _word(k: str) -> str:
    """WGSL-subset text reading uniform word k (a u32 expression)."""
    return _U.replace("k", k)


ROWS = """    let M = U[0].x; let N = U[0].y; let C = U[0].z; let S = U[0].w;
    let r = g / C; let c = g % C;"""


def _row_base(first_dim_word: int, ndims_word: int) -> str:
    """WGSL lines: base (i32) of row r from its coordinates over the row dimensions."""
    return (f"    var rem = r;\n"
            f"    for (var d = {_word(f'{ndims_word}u')}; d > 0u; d = d - 1u) {{\n"
            f"        let size = {_word(f'{first_dim_word}u + 2u * d')};\n"
            f"        base = base + i32(rem % size) * bitcast<i32>({_word(f'{first_dim_word + 1}u + 2u * d')});\n"
            f"        rem = rem / size;\n"
            f"    }}\n")


def _mapped(spec: ReduceSpec, raw: str) -> str:
    acc = spec.acc_dtype
    if spec.mapping == "nonzero":
        return lanes.cast(_BOOL, acc, nonzero(spec.in_dtype, raw))
    if spec.mapping == "sqdev":
        return sqdev(acc, lanes.cast(spec.in_dtype, acc, raw), "mean")
    return lanes.cast(spec.in_dtype, acc, raw)



def _value_fn(spec: ReduceSpec, bnum: dict, want_index: bool, output: int = 0) -> str:
    """wa_value of one fragment: its chunk folded; in the final pass of a user fold, the
    post-map's ``output``-th output of the row's value."""
    acc = spec.acc_dtype
    at = lanes.wgsl_type(acc)
    arg = spec.arg
    user = spec.user
    loads = spec.per_thread // 4 if spec.vec4 else spec.per_thread
    # float32 and float64 sums are compensated (complex ones are not)
    compensated = spec.combine == "add" and lane_of(acc) in "fD"
    wide = lane_of(acc) == "D"
    L = ["fn wa_value(g: u32) -> u32 {", ROWS, "    var base = bitcast<i32>(U[2].y);",
         _row_base(13, 14), "    let stride = bitcast<i32>(U[2].z);",
         f"    let j0 = c * S * {loads}u;", f"    let j1 = min(j0 + S * {loads}u, N);",
         f"    var acc: {at} = {_identity(spec)};"]
    if spec.flagged:  # no identity: the fold starts from the chunk's first element
        L.append("    var have = false;")
    if compensated:
        L.append(f"    var err = {lanes.literal(acc, 0)};")
    if arg:
        L.append(f"    var acci = {NONE};")
        if spec.mapping != "pairs":
            L.append(f"    let flat0 = (r % U[2].w) * N * {4 if spec.vec4 else 1}u;")
    if spec.mapping == "sqdev":
        L.append(f"    let mean = {load(acc, bnum['means'], 'U[3].x + r / U[2].w')};")
    L.append("    for (var j = j0; j < j1; j = j + 1u) {")
    L.append("        let a = u32(base + i32(j) * stride);")
    comps = [(f"a * 4u + {ci}u", f"flat0 + j * 4u + {ci}u") for ci in range(4)] if spec.vec4 \
        else [("a", "flat0 + j")]
    for addr, flat in comps:
        L.append(f"        {{ let x: {at} = {_mapped(spec, load(spec.in_dtype, bnum['values'], addr))};")
        if arg:
            idx = f"ld{bnum['indices']}({addr})" if spec.mapping == "pairs" else flat
            L.append(f"          let xi = {idx};")
            L.append("          if (ra_keep(x, xi, acc, acci)) { acc = x; acci = xi; } }")
        elif compensated and wide:
            L.append("          let s = wa_f64_two_sum(acc, x); acc = s.xy;"
                     " err = wa_f64_add(err, s.zw); }")
        elif compensated:
            L.append("          let s = wa_two_sum(acc, x); acc = s.x; err = err + s.y; }")
        elif spec.flagged:
            L.append(f"          acc = select(x, {_combine(spec, 'acc', 'x')}, have);"
                     " have = true; }")
        else:
            L.append(f"          acc = {_combine(spec, 'acc', 'x')}; }}")
    L.append("    }")
    # an infinite sum makes the error term NaN (inf - inf): it is exact as it is
    if compensated and wide:
        L.append("    if ((acc.y & 0x7ff00000u) != 0x7ff00000u) { acc = wa_f64_add(acc, err); }")
    elif compensated:
        L.append("    if ((bitcast<u32>(acc) & 0x7f800000u) != 0x7f800000u) { acc = acc + err; }")
    if arg:
        if want_index:
            res = lanes.cast(_U32, spec.out_dtype, "acci") if spec.final else "acci"
            L.append(f"    return {to_word(spec.out_dtype if spec.final else _U32, res)};")
        else:
            L.append(f"    return {to_word(acc, lanes.wrap(acc, 'acc'))};")
    elif spec.final and user is not None:
        L += _post_map(spec, bnum, output)
    elif spec.final:
        res = sum_start(spec.combine, acc, "acc")
        if spec.transform != "none" and lane_of(acc) in "DZ":
            # the float64 divisor: two words after the row dimensions
            L.append(f"    let ub = 15u + 2u * {_word('14u')};")
            L.append(f"    let dv = vec2<u32>({_word('ub')}, {_word('ub + 1u')});")
            res = divided(acc, res, "dv", spec.transform == "div_sqrt")
        elif spec.transform != "none":
            L.append("    let dv = bitcast<f32>(U[3].y);")
            res = f"select({at}(wa_nan()), acc / dv, dv > 0.0)"
            if spec.transform == "div_sqrt":
                res = TABLE["sqrt"].wgsl["f"].format(res)
        res = lanes.wrap(spec.out_dtype, lanes.cast(acc, spec.out_dtype, res))
        L.append(f"    return {to_word(spec.out_dtype, res)};")
    else:
        L.append(f"    return {to_word(acc, lanes.wrap(acc, 'acc'))};")
    L.append("}")
    return "\n".join(L) + "\n"


def _call(fn, args: str) -> str:
    """A user function's first output, through its GLSL wrapper (``glsl_outputs``)."""
    return f"{fn.name}_o0({args})"


def _identity(spec: ReduceSpec) -> str:
    """The fold's start: its identity, or any value where a flagged user fold's first
    element replaces it."""
    start = fold_identity(spec, _call)
    return lanes.literal(spec.acc_dtype, 0) if start is None else start


def _combine(spec: ReduceSpec, a: str, b: str) -> str:
    return fold_combine(spec, a, b, _call)


def _post_map(spec: ReduceSpec, bnum: dict, output: int) -> list[str]:
    """The final pass of a user fold: the word of the post-map's output ``output``."""
    user = spec.user
    post = user.post_fn
    outs = [n for n in bnum if n.startswith("out")]
    # the fold's words follow the row dimensions (pack_uniforms' tail)
    lines = [f"    let ub = 15u + 2u * {_word('14u')};"]
    args = ["acc", f"bitcast<i32>({_word('ub')})", f"bitcast<i32>({_word('ub + 1u')})"]
    args += [lanes.from_words(d, [_word(f"ub + {2 + n}u")])
             for n, d in enumerate(user.scalar_dtypes)]
    args = args[:len(post.inputs)]
    if post.readable_outputs:  # the outputs' values as passed in (the backend samples a copy)
        args += [load(d, bnum[o], "r") for o, d in zip(outs, user.out_dtypes)]
    d = user.out_dtypes[output]
    value = lanes.wrap(d, f"{post.name}_o{output}({', '.join(args)})")
    return lines + [f"    return {to_word(d, value)};"]


def extra_functions(combine: str, acc) -> list[str]:
    """WGSL-subset helpers the loops call beyond the library: the float min/max by keys,
    float64's squared deviation and, for arg reductions, the rule of which (value, index)
    wins, as WebGPU has them."""
    fns = [f for f in re.split(r"(?m)^(?=fn )", RA_HELPERS + RA_SQDEV_D) if f.strip()]
    if combine in ("argmin", "argmax"):
        fns.append(better_fn(combine, acc))
    return fns


def generate(spec: ReduceSpec) -> str:
    user = spec.user
    dtypes = [spec.in_dtype, spec.acc_dtype, spec.out_dtype]
    if user is not None:
        dtypes += list(user.out_dtypes) + list(user.scalar_dtypes)
    if user is not None:
        for d in dtypes:
            if lanes.words(d) != 1:
                raise TypeError(f"a ReductionKernel of {d.name} is not supported on WebGL2")
    names = spec.bindings()
    bnum = {n: i + 1 for i, n in enumerate(names)}
    # the cut line of a checked post-map is WGSL's alone (GLSL bodies are not checked)
    reads = [bnum[n] for n in names if not n.startswith("out") and n != "cut"]
    count = "U[0].x * U[0].z"  # rows × chunks: one fragment per chunk, row-major
    extra = extra_functions(spec.combine, spec.acc_dtype)
    if user is not None:
        glsl, sigs = _user_functions(spec)
        outs = [n for n in names if n.startswith("out")]
        if spec.final and user.post_fn.readable_outputs:
            reads += [bnum[n] for n in outs]
        targets = outs if spec.final else ["out"]
        return "".join(draw(bnum[n], reads, _value_fn(spec, bnum, False, k), first="0u",
                            count=count, extra=extra, glsl=glsl, glsl_sigs=sigs)
                       for k, n in enumerate(targets))
    out = spec.out_dtype if spec.final else spec.acc_dtype
    src = draw(bnum["out"], reads, _value_fn(spec, bnum, want_index=spec.arg and spec.final),
               first="0u", count=count, extra=extra, words=lanes.words(out))
    if spec.arg and not spec.final:
        src += draw(bnum["out_indices"], reads, _value_fn(spec, bnum, want_index=True),
                    first="0u", count=count, extra=extra)
    return src


def _user_functions(spec: ReduceSpec):
    """GLSL of a user fold's functions (the post-map in the final pass only), with their
    per-output wrappers, and the wrappers' signatures."""
    src, sigs = [], {}
    for fn in spec.user.functions():
        if spec.final or fn is not spec.user.post_fn:
            glsl, s = fn.glsl_outputs()
            src.append(glsl)
            sigs.update(s)
    return "".join(src), sigs


def grid(groups: int, group: int, max_per_dim: int) -> tuple[int, int, int]:
    """Points a draw of this launch may place. Reduction draws cover their outputs as
    rectangles and ignore it; scan draws (scan.py, launched with this grid) place one
    point per column of every chunk (SCAN_P columns a point)."""
    return (groups * group * SCAN_P, 1, 1)
