"""WGSL generator for tree reductions of the rows of a strided view.

The launcher (``_core/algorithms/reduce.py``) describes its input as M rows of N columns: row r
starts at
``offset + Σ c_d·s_d`` over the row dimensions (sizes and strides as uniforms, decomposed
once per thread), column j lies ``j·stride`` further on. A workgroup of 256 threads is cut
into groups of S threads (S a power of two, a uniform); each group reduces one *chunk* of
S·P consecutive columns of one row (P a power of two, in the key):

1. each thread loads P columns (lane, lane + S, ...: coalesced) and combines them pairwise
   in named registers (straight-line code);
2. the S partial values go through a tree in workgroup memory, one uniform-guarded step
   per halving, so a kernel serves every S;
3. lane 0 writes the chunk's value: to the output (final pass) or to a row-major
   (rows, chunks) array of partials that the next pass reduces the same way.

A tree of pairwise combinations keeps float sums at pairwise-summation accuracy. Threads map
to (group, lane) through uniform shifts and masks: in *row* layout a group's lanes are
adjacent threads (coalesced when columns are contiguous); in *column* layout adjacent threads
are adjacent rows (coalesced when rows are contiguous and columns are not, e.g. a sum over
axis 0 of a C-contiguous matrix). A vec4 variant reads four contiguous columns per load.

Every value is read and written through ``lanes``; the combine, the map applied to each
loaded element and the final transform are picked by the spec, which is the kernel's key.
A user fold (combine "user": CuPy's ReductionKernel, ``specs/reduction.py`` ``UserFold``)
calls the user's reduce function as its combine and starts padding from the user's
identity; without one, every value carries a flag of whether it holds an element (as arg
reductions carry an index), and padding never enters the fold. Its final pass calls the
post-map, which writes one element of each output per row.

Uniform words: rows M, columns N (in vec4 loads on the vec4 path), chunks per row C, S,
lane shift, lane mask, group shift, group mask, column-layout flag, input offset, column
stride, fold (consecutive rows that share an output: the flat index of arg reductions
continues across them, and sqdev reads mean[r / fold]), offset of the means, divisor (f32
bits) of the final transform, number of row dimensions, then (size, stride) per row
dimension, outermost first, then a user fold's words (``UserFold``) or, for a float64
transform, the divisor's two float64 words.
"""

from __future__ import annotations

from ..._dtypes import bool as _BOOL
from ..._dtypes import uint32 as _U32
from ..expr import Cast, Input, Scalar, walk
from ..ops import TABLE, lane_of
from .. import lanes
from ..grid import fold
from ..specs.elementwise import apply_expr, hidden, zeros
# WORKGROUP, P and P_ADD: this generator's launch shape, which _core/algorithms/reduce.py
# reads from the registry; combine_expr and identity: scan.py's, imported from here
from ..specs.reduction import (NONE, P, P_ADD, WORKGROUP, ReduceSpec, better_fn,  # noqa: F401
                               cast, combine_expr, divided, end_steps, fold_combine, fold_identity,
                               identity, looped, nonzero, ra_helpers, sqdev, sum_start,
                               tree_steps)

# a reduction's first pass computes a pending elementwise DAG itself (ReduceSpec.expr), so
# that sum(x * y) reads x and y once: _core/algorithms/reduce.py asks the registry's
# generator for this
ABSORBS = True

# -- WGSL pieces ----------------------------------------------------------------------------

# Which (row, column) this thread's group works on. Uniform words 0-8: rows M, row length
# N, columns C, group size S, the lane and group shifts and masks of the workgroup split,
# and whether rows are laid out fastest (reductions over a leading axis read in order).
ROW_LAYOUT = """    let M = U[0]; let N = U[1]; let C = U[2]; let S = U[3];
    let ls = U[4]; let lm = U[5]; let gs = U[6]; let gm = U[7];
    let lane = (lid >> ls) & lm;
    let gl = (lid >> gs) & gm;
    let g = (wid.x + wid.y * nwg.x) * (gm + 1u) + gl;
    let total = M * C;
    let live = g < total;
    let gg = min(g, total - 1u);
    var r = gg / C; var c = gg % C;
    if (U[8] != 0u) { r = gg % M; c = gg / M; }"""


# -- the generator ---------------------------------------------------------------------------

def generate(spec: ReduceSpec) -> str:
    acc = spec.acc_dtype
    at = lanes.wgsl_type(acc)
    arg = spec.arg
    flagged = spec.flagged
    user = spec.user
    # a value's second register: its index (arg), whether it holds a value (flagged)
    second = "index" if arg else "flag" if flagged else None
    loads = spec.per_thread // 4 if spec.vec4 else spec.per_thread
    names = spec.bindings()
    bnum = {n: i + 1 for i, n in enumerate(names)}
    L: list[str] = []
    w = L.append
    ident = _identity(spec)

    w(ROW_LAYOUT)
    # the row's first element: decompose r over the row dimensions (innermost last)
    w("    var base = bitcast<i32>(U[9]);")
    w("    var rem = r;")
    w("    for (var d = U[14]; d > 0u; d = d - 1u) {")
    w("        let size = U[13u + 2u * d];")
    w("        base = base + i32(rem % size) * bitcast<i32>(U[14u + 2u * d]);")
    w("        rem = rem / size;")
    w("    }")
    w("    let stride = bitcast<i32>(U[10]);")
    w(f"    let jb = c * S * {loads}u + lane;")
    if spec.expr is not None:  # the absorbed expression's words: after the row dimensions
        w("    let tb = 15u + 2u * U[14];")
    names: dict = {}  # (the absorbed expression's registers, per load)
    if arg and spec.mapping != "pairs":
        # the flat index continues across the folded row dimensions (N counts vec4 loads
        # on the vec4 path)
        w(f"    let flat0 = (r % U[11]) * N * {4 if spec.vec4 else 1}u;")
    if spec.mapping == "sqdev":
        means = f"B{bnum['means']}"
        w(f"    let mean = {lanes.load(acc, means, 'U[12] + r / U[11]')};")

    loop = looped(acc) and not (arg or flagged or spec.vec4)  # specs.reduction.looped
    if loop:
        _looped_loads(w, spec, loads, bnum, ident)
        v, i = "v[0]", None
    else:
        vals = []
        for k in range(loads):
            w(f"    let j{k} = jb + {k}u * S;")
            w(f"    let ok{k} = live && j{k} < N;")
            w(f"    let a{k} = u32(base + i32(min(j{k}, N - 1u)) * stride);")
            i = None
            if spec.vec4:
                if spec.expr is None:
                    w(f"    let q{k} = B{bnum['values']}[a{k}];")
                comps = []
                for ci, comp in enumerate("xyzw"):
                    # a vector's component by index reads like a buffer element
                    e = _mapped(spec, lanes.load(spec.in_dtype, f"q{k}", f"{ci}u")
                                if spec.expr is None else
                                _element(L, spec, bnum, f"(a{k} * 4u + {ci}u)", f"{k}{comp}",
                                         names))
                    w(f"    let e{k}{comp}: {at} = {e};")
                    comps.append((f"e{k}{comp}", f"(flat0 + j{k} * 4u + {ci}u)" if arg else None))
                # the four are elements or padding together (N counts vec4 loads)
                value, i = _pairwise(w, comps, spec, f"c{k}", "index" if arg else None)
            else:
                value = _mapped(spec, lanes.load(spec.in_dtype, f"B{bnum['values']}", f"a{k}")
                                if spec.expr is None else
                                _element(L, spec, bnum, f"a{k}", f"{k}", names))
                if arg:
                    i = (f"B{bnum['indices']}[a{k}]" if spec.mapping == "pairs"
                         else f"(flat0 + j{k})")
            if flagged:
                w(f"    let v{k}: {at} = {value};")
                vals.append((f"v{k}", f"ok{k}"))
                continue
            w(f"    let v{k}: {at} = select({ident}, {value}, ok{k});")
            if arg:
                w(f"    let i{k}: u32 = select({NONE}, {i}, ok{k});")
            vals.append((f"v{k}", f"i{k}" if arg else None))
        v, i = _pairwise(w, vals, spec, "p", second)

    # tree over the S lanes of each group in workgroup memory
    w(f"    var acc: {at} = {v};")
    w("    shv[lid] = acc;")
    if arg:
        w(f"    var acci: u32 = {i};")
        w("    shi[lid] = acci;")
    if flagged:
        w(f"    var accf: bool = {i};")
        w("    shf[lid] = accf;")
    w("    workgroupBarrier();")
    for s in tree_steps(w, loop, WORKGROUP // 2, descending=True):
        w(f"    if (S > {s}) {{")
        w(f"        if (lane < {s}) {{")
        w(f"            let o = lid + ({s} << ls);")
        if arg:
            w("            let ov = shv[o]; let oi = shi[o];")
            w("            let keep = ra_keep(acc, acci, ov, oi);")
            w("            acc = select(ov, acc, keep); acci = select(oi, acci, keep);")
            w("            shv[lid] = acc; shi[lid] = acci;")
        elif flagged:
            w("            let ov = shv[o]; let ovf = shf[o];")
            w(f"            acc = {_either(spec, 'acc', 'accf', 'ov', 'ovf')};")
            w("            accf = accf || ovf;")
            w("            shv[lid] = acc; shf[lid] = accf;")
        else:
            w(f"            acc = {_combine(spec, 'acc', 'shv[o]')};")
            w("            shv[lid] = acc;")
        w("        }")
        w("        workgroupBarrier();")
        w("    }")
    end_steps(w, loop)

    w("    if (live && lane == 0u) {")
    out = f"B{bnum['out']}"
    if spec.final and user is not None:
        _post_map(w, spec, bnum)
    elif spec.final:
        if arg:
            index = cast(_U32, spec.out_dtype, "acci")
            w(f"        {lanes.store(spec.out_dtype, out, 'r', index)}")
        else:
            res = sum_start(spec.combine, acc, "acc")
            if spec.transform != "none" and lane_of(acc) in "DZ":
                # the float64 divisor: two words after the row dimensions
                w("        let ub = 15u + 2u * U[14];")
                w("        let dv = vec2<u32>(U[ub], U[ub + 1u]);")
                res = divided(acc, res, "dv", spec.transform == "div_sqrt")
            elif spec.transform != "none":
                w("        let dv = bitcast<f32>(U[13]);")
                res = f"select({lanes.wgsl_type(acc)}(wa_nan()), acc / dv, dv > 0.0)"
                if spec.transform == "div_sqrt":
                    res = TABLE["sqrt"].wgsl["f"].format(res)
            # wrap even when acc is the output dtype: the tree ran in 32-bit registers
            res = lanes.wrap(spec.out_dtype, cast(acc, spec.out_dtype, res))
            w(f"        {lanes.store(spec.out_dtype, out, 'r', res)}")
    else:
        # partials are row-major (rows, chunks) whatever the layout
        w("        let at = r * C + c;")
        w(f"        {lanes.store(acc, out, 'at', lanes.wrap(acc, 'acc'))}")
        if arg:
            w(f"        B{bnum['out_indices']}[at] = acci;")
    w("    }")

    decls = ["@group(0) @binding(0) var<storage, read> U: array<u32>;"]
    for n, b in bnum.items():
        access = "read_write" if n.startswith("out") or n == "cut" else "read"
        elem = ("vec4<u32>" if (n == "values" and spec.vec4)
                else "atomic<u32>" if n == "cut" else "u32")
        decls.append(f"@group(0) @binding({b}) var<storage, {access}> B{b}: array<{elem}>;")
    decls.append(f"var<workgroup> shv: array<{at}, {WORKGROUP}>;")
    if arg:
        decls.append(f"var<workgroup> shi: array<u32, {WORKGROUP}>;")
    if flagged:
        decls.append(f"var<workgroup> shf: array<bool, {WORKGROUP}>;")
    code = "\n".join(L)
    if spec.expr is not None:
        code = zeros(code, "U[0]") + code  # (U[0]: the row count, never 0xffffffff)
    fns = better_fn(spec.combine, acc) if arg else ""
    if user is not None:  # the post-map only in the final pass, which calls it
        fns += "".join(f.source("wgsl") for f in user.functions()
                       if spec.final or f is not user.post_fn)
    return ("\n".join(decls) + "\n" + ra_helpers(code + fns) + fns
            + f"@compute @workgroup_size({WORKGROUP})\n"
            "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
            "@builtin(num_workgroups) nwg: vec3<u32>, "
            "@builtin(local_invocation_index) lid: u32) {\n" + code + "\n}\n")


def _element(lines: list, spec: ReduceSpec, bnum: dict, at: str, tag: str, names: dict) -> str:
    """The absorbed expression's value (``spec.expr``: a pending array's elementwise DAG) at
    element ``at`` of the reduced layout, for the thread's load ``tag``: its nodes declared
    in lines as the elementwise generator writes them (``apply_expr``), each Input slot
    reading its binding at its offset (the uniforms' tail) plus ``at``, each scalar its
    word after the offsets. A float value is read through zero0, as an op reads a computed
    float, so that no compiler contracts it into the accumulation (``x * y + acc`` into an
    FMA): the sum is the one of the values the elementwise kernel would have stored."""
    for n in walk([spec.expr]):
        key = (n.key, tag)
        if key in names:
            continue
        if isinstance(n, Input):
            e = lanes.load(n.dtype, f"B{bnum[f'in{n.slot}']}", f"U[tb + {n.slot}u] + {at}")
        elif isinstance(n, Scalar):
            e = lanes.scalar_expr(n.dtype, f"tb + {spec.inputs + n.slot}u")
        elif isinstance(n, Cast):
            e = lanes.cast(n.arg.dtype, n.dtype, names[n.arg.key, tag])
        else:
            e = apply_expr(n, lambda a: (a.key, tag), names, lines, prefix="x")
        name = names[key] = f"x{len(names)}"
        lines.append(f"    let {name}: {lanes.wgsl_type(n.dtype)} = {e};")
    value = names[spec.expr.key, tag]
    lane = lane_of(spec.expr.dtype)
    return hidden(lane, value, 0) if lane in "fc" else value


def _call(fn, args: str) -> str:
    """A user function's first output (its WGSL returns a struct)."""
    return f"{fn.name}({args}).o0"


def _identity(spec: ReduceSpec) -> str | None:
    return fold_identity(spec, _call)


def _combine(spec: ReduceSpec, a: str, b: str) -> str:
    return fold_combine(spec, a, b, _call)


def _either(spec: ReduceSpec, a: str, af: str, b: str, bf: str) -> str:
    """Flagged values a and b combined, or the one that holds a value where one does not."""
    return f"select(select({b}, {_combine(spec, a, b)}, {af}), {a}, !{bf})"


def _post_map(w, spec: ReduceSpec, bnum: dict) -> None:
    """The final pass of a user fold: the post-map of row r's value writes its outputs."""
    user = spec.user
    post = user.post_fn
    outs = [n for n in bnum if n.startswith("out")]
    w("        let ub = 15u + 2u * U[14];")  # the fold's words: pack_uniforms' tail
    args = ["acc", "bitcast<i32>(U[ub])", "bitcast<i32>(U[ub + 1u])"]
    args += [lanes.scalar_expr(d, f"ub + {2 + n}u") for n, d in enumerate(user.scalar_dtypes)]
    args = args[:len(post.inputs)]
    if post.readable_outputs:  # the outputs' values as passed in
        args += [lanes.load(d, f"B{bnum[o]}", "r") for o, d in zip(outs, user.out_dtypes)]
    w(f"        let pm = {post.name}({', '.join(args)});")
    for k, (o, d) in enumerate(zip(outs, user.out_dtypes)):
        w(f"        {lanes.store(d, f'B{bnum[o]}', 'r', lanes.wrap(d, f'pm.o{k}'))}")
    if post.checked:
        w(f"        atomicMax(&B{bnum['cut']}[0], pm.o{len(outs)});")


def _looped_loads(w, spec: ReduceSpec, loads: int, bnum: dict, ident: str) -> None:
    """A thread's loads into v[0..loads) and their pairwise combination into v[0], each a loop
    around one call site (``loads`` a power of two: the pairs of ``_pairwise``)."""
    at = lanes.wgsl_type(spec.acc_dtype)
    value = _mapped(spec, lanes.load(spec.in_dtype, f"B{bnum['values']}", "a"))
    w(f"    var v: array<{at}, {loads}>;")
    w(f"    for (var k = 0u; k < {loads}u; k = k + 1u) {{")
    w("        let j = jb + k * S;")
    w("        let a = u32(base + i32(min(j, N - 1u)) * stride);")
    w(f"        v[k] = select({ident}, {value}, live && j < N);")
    w("    }")
    w(f"    for (var h = 1u; h < {loads}u; h = h * 2u) {{")
    w(f"        for (var k = 0u; k + h < {loads}u; k = k + 2u * h) {{")
    w(f"            v[k] = {_combine(spec, 'v[k]', 'v[k + h]')};")
    w("        }")
    w("    }")


def _mapped(spec: ReduceSpec, raw: str) -> str:
    """The loaded element raw (a register of in_dtype) as an accumulator value."""
    acc = spec.acc_dtype
    if spec.mapping == "nonzero":
        return cast(_BOOL, acc, nonzero(spec.in_dtype, raw))
    if spec.mapping == "sqdev":
        return sqdev(acc, cast(spec.in_dtype, acc, raw), "mean")
    return cast(spec.in_dtype, acc, raw)




def _pairwise(w, items, spec: ReduceSpec, prefix: str, second: str | None = None):
    """Combine (value, second) register names pairwise, level by level; return the last.
    second: None, "index" (of arg reductions) or "flag" (whether the value holds one)."""
    at = lanes.wgsl_type(spec.acc_dtype)
    level = 0
    while len(items) > 1:
        nxt = []
        for n in range(0, len(items) - 1, 2):
            (av, ai), (bv, bi) = items[n], items[n + 1]
            name = f"{prefix}{level}_{n // 2}"
            if second == "index":
                w(f"    let {name}k = ra_keep({av}, {ai}, {bv}, {bi});")
                w(f"    let {name}: {at} = select({bv}, {av}, {name}k);")
                w(f"    let {name}i: u32 = select({bi}, {ai}, {name}k);")
                nxt.append((name, f"{name}i"))
            elif second == "flag":
                w(f"    let {name}: {at} = {_either(spec, av, ai, bv, bi)};")
                w(f"    let {name}f = {ai} || {bi};")
                nxt.append((name, f"{name}f"))
            else:
                w(f"    let {name}: {at} = {_combine(spec, av, bv)};")
                nxt.append((name, None))
        if len(items) % 2:
            nxt.append(items[-1])
        items = nxt
        level += 1
    return items[0]


def grid(groups: int, group: int, max_per_dim: int) -> tuple[int, int, int]:
    return fold(-(-groups // (WORKGROUP // group)), max_per_dim)
