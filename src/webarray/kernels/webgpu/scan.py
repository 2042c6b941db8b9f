"""WGSL generator for block scans (cumulative sum, product, min, max) along the rows of a
strided view.

Rows and groups are cut as in ``reduction.py``: M rows of L columns, groups of S threads
(a uniform power of two), each group scanning one chunk of S·P consecutive columns of one
row, in row or column layout (P: ``specs.scan.per_thread``, fewer for wider elements, so
that a chunk always takes the same workgroup memory). Within a group:

1. the threads load the chunk coalesced (lane, lane + S, ...) into workgroup memory, then
   each takes P consecutive elements back and scans them in named registers;
2. the S thread totals get an exclusive Blelloch scan (up-sweep, down-sweep) in workgroup
   memory: O(S) work, uniform-guarded steps, so one kernel serves every S;
3. each thread adds its exclusive prefix, and a *carry* when the row has several chunks,
   and the chunk is written back coalesced.

Long rows take three launches (``_core/algorithms/reduce.py``): the reduction kernel computes every
chunk's total with the same chunking, the totals are scanned exclusively (recursively),
and this kernel adds them as carries. Shapes, strides and S are uniforms; the key is the
combine and the dtypes only.

Uniform words: rows, columns, chunks, S, lane shift, lane mask, group shift, group mask,
column layout flag, input offset, input column stride, output offset, output column
stride, output columns, shift (1: output column j+1 holds the scan through column j and
column 0 the identity), workgroup-memory element stride, workgroup-memory group stride,
number of row dimensions, then (size, input stride, output stride) per row dimension,
outermost first.
"""

from __future__ import annotations

from .. import lanes
from ..specs.scan import U_DIMS, ScanSpec, per_thread, shared_size
from ..specs.reduction import end_steps, looped, scan_neutral, tree_steps
from .reduction import ROW_LAYOUT, WORKGROUP, cast, combine_expr, identity, ra_helpers


def generate(spec: ScanSpec) -> str:
    acc = spec.out_dtype
    P = per_thread(acc)
    at = lanes.wgsl_type(acc)
    ident = identity(spec.combine, acc)  # written as the initial element
    # padding and the first prefix (-0.0 for float64 sums, which keeps -0.0 prefixes)
    neutral = scan_neutral(spec.combine, acc)
    out_b = 3 if spec.carry else 2
    L: list[str] = []
    w = L.append

    def comb(a: str, b: str) -> str:
        return combine_expr(spec.combine, acc, a, b)

    w(ROW_LAYOUT)
    w("    var ib = bitcast<i32>(U[9]);")
    w("    var ob = bitcast<i32>(U[11]);")
    w("    var rem = r;")
    w("    for (var d = U[17]; d > 0u; d = d - 1u) {")
    w(f"        let at = {U_DIMS - 3}u + 3u * d;")
    w("        let cd = i32(rem % U[at]);")
    w("        ib = ib + cd * bitcast<i32>(U[at + 1u]);")
    w("        ob = ob + cd * bitcast<i32>(U[at + 2u]);")
    w("        rem = rem / U[at];")
    w("    }")
    w("    let sa = bitcast<i32>(U[10]); let so = bitcast<i32>(U[12]);")
    w("    let c0 = c * S * " + f"{P}u;")
    w("    let es = U[15]; let sb = gl * U[16];")
    for k in range(P):
        w(f"    let e{k} = lane + {k}u * S;")
        w(f"    let j{k} = c0 + e{k};")
        raw = lanes.load(spec.in_dtype, "B1", f"u32(ib + i32(min(j{k}, N - 1u)) * sa)")
        w(f"    let x{k}: {at} = select({neutral}, {cast(spec.in_dtype, acc, raw)}, "
          f"live && j{k} < N);")
        w(f"    sh[wpad(sb + e{k} * es)] = x{k};")
    w("    workgroupBarrier();")
    w(f"    let own = sb + lane * {P}u * es;")
    loop = looped(acc)  # around one call site (specs.reduction.looped)
    if loop:
        w(f"    var t: array<{at}, {P}>;")
        w("    t[0] = sh[wpad(own)];")
        w(f"    for (var k = 1u; k < {P}u; k = k + 1u) {{")
        w(f"        t[k] = {comb('t[k - 1u]', 'sh[wpad(own + k * es)]')};")
        w("    }")
        w(f"    tsh[lid] = t[{P - 1}];")
    else:
        for k in range(P):
            v = f"sh[wpad(own + {k}u * es)]"
            w(f"    let t{k}: {at} = {v if k == 0 else comb(f't{k - 1}', v)};")
        w(f"    tsh[lid] = t{P - 1};")
    w("    workgroupBarrier();")
    for d in tree_steps(w, loop, WORKGROUP // 2):
        w(f"    if (S > {d}) {{")
        w(f"        if (((lane + 1u) & (2u * {d} - 1u)) == 0u) {{")
        w(f"            tsh[lid] = {comb(f'tsh[lid - ({d} << ls)]', 'tsh[lid]')};")
        w("        }")
        w("        workgroupBarrier();")
        w("    }")
    end_steps(w, loop)
    w(f"    if (lane == S - 1u) {{ tsh[lid] = {neutral}; }}")
    w("    workgroupBarrier();")
    for d in tree_steps(w, loop, WORKGROUP // 2, descending=True):
        w(f"    if (S > {d}) {{")
        w(f"        if (((lane + 1u) & (2u * {d} - 1u)) == 0u) {{")
        w(f"            let o = lid - ({d} << ls);")
        w("            let left = tsh[o];")
        w("            let mine = tsh[lid];")
        w("            tsh[o] = mine;")
        w(f"            tsh[lid] = {comb('mine', 'left')};")
        w("        }")
        w("        workgroupBarrier();")
        w("    }")
    end_steps(w, loop)
    w(f"    var pre: {at} = tsh[lid];")
    if spec.carry and neutral != ident:
        # chunk 0's carry is the initial element, not the neutral one: it has none
        w(f"    if (c > 0u) {{ pre = {comb(lanes.load(acc, 'B2', 'r * C + c'), 'pre')}; }}")
    elif spec.carry:
        w(f"    pre = {comb(lanes.load(acc, 'B2', 'r * C + c'), 'pre')};")
    if loop:
        w(f"    for (var k = 0u; k < {P}u; k = k + 1u) {{")
        w(f"        sh[wpad(own + k * es)] = {comb('pre', 't[k]')};")
        w("    }")
    else:
        for k in range(P):
            w(f"    sh[wpad(own + {k}u * es)] = {comb('pre', f't{k}')};")
    w("    workgroupBarrier();")
    w("    let shift = U[14]; let nout = U[13];")
    for k in range(P):
        w(f"    if (live && j{k} < N && j{k} + shift < nout) {{")
        val = lanes.wrap(acc, f"sh[wpad(sb + e{k} * es)]")
        w(f"        {lanes.store(acc, f'B{out_b}', f'u32(ob + i32(j{k} + shift) * so)', val)}")
        w("    }")
    w("    if (live && shift == 1u && c == 0u && lane == 0u) {")
    w(f"        {lanes.store(acc, f'B{out_b}', 'u32(ob)', ident)}")
    w("    }")

    decls = ["@group(0) @binding(0) var<storage, read> U: array<u32>;",
             "@group(0) @binding(1) var<storage, read> B1: array<u32>;"]
    if spec.carry:
        decls.append("@group(0) @binding(2) var<storage, read> B2: array<u32>;")
    decls.append(f"@group(0) @binding({out_b}) var<storage, read_write> B{out_b}: array<u32>;")
    decls.append(f"var<workgroup> sh: array<{at}, {shared_size(acc)}>;")
    decls.append(f"var<workgroup> tsh: array<{at}, {WORKGROUP}>;")
    decls.append("fn wpad(i: u32) -> u32 { return i + (i >> 5u); }")
    code = "\n".join(L)
    return ("\n".join(decls) + "\n" + ra_helpers(code)
            + f"@compute @workgroup_size({WORKGROUP})\n"
            "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
            "@builtin(num_workgroups) nwg: vec3<u32>, "
            "@builtin(local_invocation_index) lid: u32) {\n" + code + "\n}\n")
