"""WGSL generators for the factorizations of any size, each spread over many launches
(per block of columns, Householder step, Jacobi round or chunk of QR iterations),
float32 or complex64.

kernels/webgpu/linalg.py factors a matrix of up to 64 a side in one workgroup and one
launch. Beyond that a workgroup would have to loop for too long (lavapipe silently cuts
an invocation short after about 2^15 loop iterations), and one workgroup per matrix
leaves most of a GPU idle. So here:

- cholesky and LU (solve, inv, det, slogdet): blocked right-looking, NB columns at a
  time: a panel launch (one workgroup per matrix factors the diagonal block, or for LU
  the whole panel with the row swaps of partial pivoting, on a GPU with the panel in
  registers), the off-diagonal block by substitution against the block's triangle (a
  thread per column or row, the triangle in workgroup memory: LAPACK's trsm), then the
  trailing submatrix less a product of the tiled matmul (``_core/algorithms/matmul.py``)
  in place; LU's back substitution likewise by blocks.
- qr: per column a Householder launch (one workgroup per matrix forms the reflector)
  and an apply launch (one workgroup per column of A and per row of Q; A is held
  transposed so that both read neighbouring words).
- svd, svdvals, eigh (of the shifted, positive semidefinite matrix) and eigvalsh: one-sided
  Jacobi rotations of column pairs in round-robin order, every pair of a round in its own
  workgroup, one launch per round; columns are kept as rows (the caller passes Aᵀ) so
  rotations read contiguous words.
- dot2: C ± Aᵀ·B with exact products summed in two floats, for the refinement of
  eigh's and svd's float32 factors (``_linalg_impl._refined_eigh``/``_refined_svd``).
- eig and eigvals (complex64 only): Householder reduction to Hessenberg form, then
  single-shift complex QR iterations (Wilkinson shifts, chasing the bulge with Givens
  rotations) towards the Schur form T = Zᴴ·A·Z, one workgroup per matrix and a bounded
  number of steps per launch; eigenvectors by back substitution in T (one thread per
  eigenvector) times Z.

Every kernel takes the matrix number as workgroup_id.z + U[2], so batches beyond the
per-dimension workgroup limit take several launches.
"""

from __future__ import annotations

from ..specs.linalg import (JACOBI_GROUP, JACOBI_LANES, JACOBI_THREADS, MAX_ITS, NB, T_HESS,
                            T_PANEL, T_SOLVE, T_WG)
from .linalg import _SCALAR, _swap_and_scale, _sync

_BIND = "@group(0) @binding({i}) var<storage, read_write> {name}: array<{ty}>;"


def _head(bufs, wg: str) -> str:
    s = "@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
    s += "\n".join(_BIND.format(i=i + 1, name=n, ty=t) for i, (n, t) in enumerate(bufs))
    return s + f"\n@compute @workgroup_size({wg})\n"


# ---- blocked cholesky and LU: panels here, trailing updates by the tiled matmul ---------



def _load_block(dst: str, src: str, threads: int) -> str:
    """WGSL: dst[i * NB + j] = A[src(i, j)] for i, j < b and 0 elsewhere (workgroup memory
    keeps what the last kernel left there: lavapipe does not clear it, and a NaN left past
    b would reach the substitutions through 0 · NaN), the NB x NB square spread over
    ``threads`` threads, each issuing all its loads before its stores (one memory round
    trip, not NB * NB / threads)."""
    per = NB * NB // threads
    at = lambda q: f"t + {q * threads}u"  # noqa: E731
    lines = []
    for q in range(per):
        lines.append(f"    let i{q} = ({at(q)}) / {NB}u; let j{q} = ({at(q)}) % {NB}u; "
                     f"let in{q} = i{q} < b && j{q} < b;")
    for q in range(per):
        lines.append(f"    var v{q} = real_t(0.0); if (in{q}) {{ v{q} = A[{src.format(i=f'i{q}', j=f'j{q}')}]; }}")
    for q in range(per):
        lines.append(f"    {dst}[{at(q)}] = v{q};")
    return "\n".join(lines) + "\n"


def _chol_block(threads: int) -> str:
    """WGSL: the lower Cholesky factor of the b x b block in Ls (NB x NB) into Lo, by
    ``threads`` threads, one barrier a column: per column k, every thread takes the pivot
    d = sqrt(re a_kk) (NaN when not positive), writes its entries of column k divided by
    it (d on the diagonal) to Lo, and updates its entries (i, j), k < j <= i, of Ls by
    (a_ik / d)·conj(a_jk / d), dividing as it reads: column k of Ls is not written in step
    k, so no second barrier is needed between the division and the update (with the
    divided column written back into Ls, two were: 32 -> 64 barriers a block). Threads take
    fixed entries of the NB x NB square (no division by a run-time width per step). The
    same operations in the same order whatever ``threads``: the factor is the same bit for
    bit. Lo's entries above the diagonal are left as they were."""
    update = "".join(
        f"        {{ let e = t + {q * threads}u; let i = e / {NB}u; let j = e % {NB}u;\n"
        f"          if (j > k && j <= i && i < b) {{ Ls[e] = Ls[e] - mul(div(Ls[i * {NB}u + k], d), conjg(div(Ls[j * {NB}u + k], d))); }} }}\n"
        for q in range(NB * NB // threads))
    return f"""    for (var k = 0u; k < b; k = k + 1u) {{
        let p = re(Ls[k * {NB}u + k]);
        let nan_bits = 0x7fc00000u;  // a run-time NaN: Tint refuses constant NaNs
        let d = real_t(select(bitcast<f32>(nan_bits), sqrt(p), p > 0.0));
        for (var i = k + t; i < b; i = i + {threads}u) {{
            Lo[i * {NB}u + k] = select(div(Ls[i * {NB}u + k], d), d, i == k);
        }}
        // the later columns' lower entries (i, j), k < j <= i < b, over the NB x NB square
{update}        workgroupBarrier();
    }}
"""


# the block as loaded (its updates in place) and its factor (``_chol_block``): 16 KiB complex
_FACTOR_MEMORY = f"""var<workgroup> Ls: array<T, {NB * NB}>;
var<workgroup> Lo: array<T, {NB * NB}>;
"""


def _store_block(dst: str, threads: int, guard: str = "i < b && j < b", pad: str = "    ") -> str:
    """WGSL: where ``guard`` holds, the factor's entries (Lo's on and below the diagonal,
    Ls's above it: the block's own, as loaded) to {dst} (a format of e, i, j)."""
    return "".join(
        f"{pad}{{ let e = t + {q * threads}u; let i = e / {NB}u; let j = e % {NB}u;"
        f" if ({guard}) {{ {dst.format(e='e', i='i', j='j')} = select(Ls[e], Lo[e], j <= i); }} }}\n"
        for q in range(NB * NB // threads))


def chol_panel(cplx: bool) -> str:
    """The diagonal block [k0, k0 + b)² of the lower Cholesky factor in place (the
    trailing updates of earlier panels already applied), in one workgroup per matrix and in
    workgroup memory (the block is loaded once and written back once; the per-column chain
    of barriers then waits on workgroup memory, not on global stores). The threads issue
    the block's loads at once. CPU adapters' plan; GPUs take ``chol_panel_rows``."""
    return _SCALAR[cplx] + _FACTOR_MEMORY + _head([("A", "T")], str(T_PANEL)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4];
    let a0 = z * n * n + k0 * n + k0;
{_load_block("Ls", "a0 + {i} * n + {j}", T_PANEL)}    workgroupBarrier();
{_chol_block(T_PANEL)}{_store_block("A[a0 + {i} * n + {j}]", T_PANEL)}
}}
"""


def chol_panel_rows(cplx: bool) -> str:
    """``chol_panel`` and ``block_solve_rows`` in one launch (GPUs: a launch a panel less,
    cholesky 1024 on an H200 ~1.36 -> ~1.0 ms): every workgroup loads the diagonal block
    [k0, k0 + b)², which no one writes in this launch, factors it in its workgroup memory
    (each the same factor, bit for bit; T_PANEL threads, as ``chol_panel``: with T_SOLVE
    the chain of column steps took longer than the launch it saves), and solves its T_SOLVE rows of L21 = A21·L11⁻ᴴ
    against it, in place, with L21ᴴ into W; workgroup 0 writes L11 to D, the matrix's
    diagonal blocks side by side (NB x NB each, ``chol_diag_blocks`` puts them into A at
    the end): writing it into A would race with another workgroup's load. Grid: at least
    one workgroup (the last panel has no rows below)."""
    T = T_PANEL  # threads factoring the block; the first T_SOLVE take a row each
    loads = "".join(f"        var x{j} = select(real_t(0.0), A[min(ar + {j}u, a0 + n * n - 1u)], {j}u < b);\n"
                    for j in range(NB))
    stores = "".join(f"        if ({j}u < b) {{ A[ar + {j}u] = x{j}; W[w0 + {j}u * m + r] = conjg(x{j}); }}\n"
                     for j in range(NB))
    return _SCALAR[cplx] + _FACTOR_MEMORY + _head([("A", "T"), ("W", "T"), ("D", "T")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4];
    let a0 = z * n * n; let m = n - k0 - b;
{_load_block("Ls", "a0 + (k0 + {i}) * n + k0 + {j}", T)}    workgroupBarrier();
{_chol_block(T)}    if (wg.x == 0u) {{
        let d0 = (z * ((n + {NB - 1}u) / {NB}u) + k0 / {NB}u) * {NB * NB}u;
{_store_block("D[d0 + {e}]", T, "true", " " * 8)}    }}
    let r = wg.x * {T_SOLVE}u + t;
    if (t < {T_SOLVE}u && r < m) {{
        let ar = a0 + (k0 + b + r) * n + k0; let w0 = z * b * m;
{loads}{_substitution("conj_rows", tri="Lo")}{stores}    }}
}}
"""


def chol_diag_blocks(cplx: bool) -> str:
    """The diagonal blocks that ``chol_panel_rows`` left in D into A (the entries of each
    block within the matrix: all b x b of them, as ``chol_panel`` writes). Grid: a
    workgroup per block."""
    return _SCALAR[cplx] + _head([("A", "T"), ("D", "T")], str(T_PANEL)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2];
    let k0 = wg.x * {NB}u; let b = min({NB}u, n - k0);
    let a0 = z * n * n + k0 * n + k0;
    let d0 = (z * ((n + {NB - 1}u) / {NB}u) + wg.x) * {NB * NB}u;
""" + "".join(
        f"    {{ let e = t + {q * T_PANEL}u; let i = e / {NB}u; let j = e % {NB}u;"
        f" if (i < b && j < b) {{ A[a0 + i * n + j] = D[d0 + e]; }} }}\n"
        for q in range(NB * NB // T_PANEL)) + "}\n"


def lu_panel(cplx: bool) -> str:
    """Columns [k0, k0 + b) of LU with partial pivoting, rows k0..n−1, in one workgroup
    per matrix: per column the row of the largest |a_ik| (|re| + |im| for complex, the
    first on ties) is swapped with row k across the whole of A and B (so later
    panels and the right-hand sides see the permuted rows), S's parity flipped, the
    column below divided by the pivot and the panel's later columns updated."""
    bufs = [("A", "T"), ("B", "T"), ("S", "f32")]
    return _SCALAR[cplx] + f"""var<workgroup> bv: array<f32, {T_PANEL}>;
var<workgroup> bi: array<u32, {T_PANEL}>;
""" + _head(bufs, str(T_PANEL)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let K = U[1]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4];
    let a0 = z * n * n; let b0 = z * n * K;
    for (var k = k0; k < k0 + b; k = k + 1u) {{
        var v = -1.0; var best = n;
        for (var i = k + t; i < n; i = i + {T_PANEL}u) {{
            let m = mag(A[a0 + i * n + k]);
            if (m > v) {{ v = m; best = i; }}
        }}
        bv[t] = v; bi[t] = best;
        workgroupBarrier();
        for (var h = {T_PANEL // 2}u; h > 0u; h = h / 2u) {{
            if (t < h) {{
                let w = bv[t + h]; let wi = bi[t + h];
                if (w > bv[t] || (w == bv[t] && wi < bi[t])) {{ bv[t] = w; bi[t] = wi; }}
            }}
            workgroupBarrier();
        }}
        let p = select(k, bi[0], bi[0] < n);
        workgroupBarrier();
        if (p != k && t == 0u) {{ S[z] = -S[z]; }}
{_swap_and_scale(f"{T_PANEL}u")}        let w = k0 + b - k - 1u;
        let rows = n - k - 1u;
        for (var e = t; e < rows * w; e = e + {T_PANEL}u) {{
            let i = k + 1u + e / w; let j = k + 1u + e % w;
            A[a0 + i * n + j] = A[a0 + i * n + j] - mul(A[a0 + i * n + k], A[a0 + k * n + j]);
        }}
        {_sync()}
    }}
}}
"""


def _permute_column() -> str:
    """WGSL: column j of A (inA) or of B moved by the slots' permutation (a slot whose dst
    is n stays), its 2·NB loads (from addresses clamped into the buffer) issued before
    any store."""
    def moves(buf: str, at: str, clamp: str) -> str:
        loads = "".join(f"            let v{i} = {buf}[min({at.format(r=f'src[{i}u]')}, {clamp})];\n"
                        for i in range(2 * NB))
        stores = "".join(f"            {{ let d = dst[{i}u]; if (d < n) {{ {buf}[{at.format(r='d')}] = v{i}; }} }}\n"
                         for i in range(2 * NB))
        return loads + stores
    return ("        if (inA) {\n" + moves("A", "a0 + {r} * n + j", "a0 + n * n - 1u")
            + "        } else {\n" + moves("B", "b0 + {r} * K + j", "b0 + n * K - 1u") + "        }\n")


def lu_panel_rows(cplx: bool, rows: int) -> str:
    """lu_panel (above) with the panel in registers: thread t holds the NB entries of the
    panel rows k0 + t + q·T_PANEL, q < rows (rows ≤ PANEL_ROWS), as scalars whose
    indices are all constants (NVIDIA's compiler puts an array indexed at run time in
    local memory), so a column step reads and writes no memory but the pivot row in
    workgroup memory. Per column: the row of the largest magnitude (first on ties) by
    workgroup atomics, the pivot row and row k exchanged through workgroup memory, the
    multipliers and the update of the later columns in registers. The pivots are kept;
    the panel is stored once, then the row swaps reach the columns outside the panel (of
    A, then B's K columns) as one permutation, a thread per column. Same pivots and
    arithmetic, in the same order, as lu_panel: the same factors bit for bit."""
    T = T_PANEL
    rq = range(rows)
    cols = range(NB)
    x = lambda q, j: f"x{q}_{j}"  # noqa: E731
    lines = []
    add = lines.append
    for q in rq:
        add(f"    let r{q} = k0 + t + {q * T}u; let in{q} = r{q} < n; let at{q} = a0 + min(r{q}, n - 1u) * n;")
    # every load unconditional, from an address clamped into the matrix, and chosen after:
    # loads inside branches went out one round trip at a time
    for q in rq:
        for j in cols:
            add(f"    var {x(q, j)} = select(real_t(0.0), A[at{q} + min(k0 + {j}u, n - 1u)], in{q} && {j}u < b);")
    add("    if (t == 0u) { atomicStore(&wmax[0], 0u); atomicStore(&widx[0], n); }")
    add("    workgroupBarrier();")
    add("    var sign = 1.0;  // the swaps' parity, written to S once")
    add("    for (var k = 0u; k < b; k = k + 1u) {")
    add("        let rk = k0 + k;")
    for q in rq:  # column k of each held row
        add(f"        var c{q} = {x(q, 0)};" + "".join(f" c{q} = select(c{q}, {x(q, j)}, k == {j}u);" for j in cols[1:]))
    add("        var v = -1.0; var best = n;")
    for q in rq:
        add(f"        if (in{q} && r{q} >= rk) {{ let m = mag(c{q}); if (m > v) {{ v = m; best = r{q}; }} }}")
    # the largest magnitude by an atomic max of its bits (a non-negative float's bits
    # order as it does; a thread without a candidate has v = -1 and takes no part), then
    # the first row holding it by an atomic min: two barriers where a tree over the
    # threads took log2(T) + 1 (H200, a panel at 512 / 768 of 1024 rows: 223 / 111 µs
    # -> 125 / 85). Two sets of the pair, one per step parity: a step resets the other
    # set, which every thread has read, for the next.
    add("""        let s = k & 1u;
        if (v >= 0.0) { atomicMax(&wmax[s], bitcast<u32>(v)); }
        workgroupBarrier();
        let top = atomicLoad(&wmax[s]);
        if (v >= 0.0 && bitcast<u32>(v) == top) { atomicMin(&widx[s], best); }
        workgroupBarrier();
        let found = atomicLoad(&widx[s]);
        if (t == 0u) { atomicStore(&wmax[1u - s], 0u); atomicStore(&widx[1u - s], n); }
        let p = select(rk, found, found < n);""")
    for q in rq:
        add(f"        if (r{q} == p) {{" + "".join(f" prow[{j}] = {x(q, j)};" for j in cols) + " }")
        add(f"        if (r{q} == rk) {{" + "".join(f" krow[{j}] = {x(q, j)};" for j in cols) + " }")
    add("""        if (t == 0u) { piv[k] = p; }
        if (p != rk) { sign = -sign; }
        workgroupBarrier();
        let d = prow[k];
        let scale = mag(d) > 0.0;""")
    for q in rq:
        add(f"        if (p != rk && r{q} == rk) {{" + "".join(f" {x(q, j)} = prow[{j}];" for j in cols) + " }")
        add(f"        if (p != rk && r{q} == p) {{" + "".join(f" {x(q, j)} = krow[{j}];" for j in cols) + f" c{q} = krow[k]; }}")
        add(f"        if (in{q} && r{q} > rk) {{")
        add(f"            let l = select(c{q}, div(c{q}, d), scale);")
        for j in cols:
            add(f"            {x(q, j)} = select(select({x(q, j)}, {x(q, j)} - mul(l, prow[{j}]), k < {j}u), l, k == {j}u);")
        add("        }")
    add("    }")
    for q in rq:
        for j in cols:
            add(f"    if (in{q} && {j}u < b) {{ A[a0 + r{q} * n + k0 + {j}u] = {x(q, j)}; }}")
    body = "\n".join(lines)
    bufs = [("A", "T"), ("B", "T"), ("S", "f32")]
    return _SCALAR[cplx] + f"""var<workgroup> prow: array<T, {NB}>;
var<workgroup> krow: array<T, {NB}>;
var<workgroup> piv: array<u32, {NB}>;
var<workgroup> dst: array<u32, {2 * NB}>;
var<workgroup> src: array<u32, {2 * NB}>;
var<workgroup> wmax: array<atomic<u32>, 2>;
var<workgroup> widx: array<atomic<u32>, 2>;
""" + _head(bufs, str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let K = U[1]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4];
    let a0 = z * n * n; let b0 = z * n * K;
{body}
    if (t == 0u) {{ S[z] = S[z] * sign; }}
    // the row swaps outside the panel, as one permutation of at most 2b rows: slot i < b
    // is panel row k0 + i, slot b + k the row p_k where that lies below the panel (its
    // first swap only); a slot's source is its row taken back through the swaps, last
    // first. Then each thread moves its own columns: all loads, then all stores.
    let ci = t % {2 * NB}u;
    if (t < {2 * NB}u) {{
        var row = k0 + ci; var on = ci < b;
        if (ci >= {NB}u) {{
            let k = ci - {NB}u;
            row = piv[min(k, {NB - 1}u)];
            on = k < b && row >= k0 + b;
            for (var e = 0u; e < k; e = e + 1u) {{ on = on && piv[e] != row; }}
        }}
        var orig = row;
        for (var e = b; e > 0u; e = e - 1u) {{
            let p = piv[e - 1u]; let rk = k0 + e - 1u;
            if (orig == rk) {{ orig = p; }} else if (orig == p) {{ orig = rk; }}
        }}
        dst[ci] = select(n, row, on && orig != row); src[ci] = orig;
    }}
    workgroupBarrier();
    let outside = n - b + K;
    for (var c = t; c < outside; c = c + {T}u) {{
        let inA = c < n - b;
        let j = select(c - (n - b), select(c + b, c, c < k0), inA);
{_permute_column()}    }}
}}
"""


def _substitution(kind: str, x: str = "x", descending: bool = False, pad: str = "        ",
                  tri: str = "Ls") -> str:
    """WGSL, written out over {x}0..{x}{NB-1} with the block's triangle in Ls (NB x NB):
    kind "unit_lower" x = L⁻¹x, "upper" x = U⁻¹x (a column of the right-hand side),
    "conj_rows" x = x·L⁻ᴴ (a row; L lower): each entry by its row's products subtracted in
    order (for "upper", later columns first where descending, as LAPACK's column sweep),
    then divided by the diagonal, as LAPACK's trsm. Entries at and past b are left as they
    are (zeros, never stored) and never enter an entry before b."""
    lines = []
    at = lambda i, j: f"{tri}[{i * NB + j}]"  # noqa: E731
    if kind == "unit_lower":
        for i in range(1, NB):
            terms = "".join(f" {x}{i} = {x}{i} - mul({at(i, l)}, {x}{l});" for l in range(i))
            lines.append(f"{pad}if ({i}u < b) {{{terms} }}")
    elif kind == "upper":
        for i in reversed(range(NB)):
            later = reversed(range(i + 1, NB)) if descending else range(i + 1, NB)
            terms = "".join(f" {x}{i} = {x}{i} - mul({at(i, l)}, {x}{l});" for l in later)
            lines.append(f"{pad}if ({i}u < b) {{{terms} {x}{i} = div({x}{i}, {at(i, i)}); }}")
    else:
        for j in range(NB):
            terms = "".join(f" {x}{j} = {x}{j} - mul({x}{l}, conjg({at(j, l)}));" for l in range(j))
            lines.append(f"{pad}if ({j}u < b) {{{terms} {x}{j} = div({x}{j}, conjg({at(j, j)})); }}")
    return "\n".join(lines) + "\n"


def block_solve_cols(cplx: bool, upper: bool) -> str:
    """The NB rows [k0, k0 + b) of the columns right of the block times its triangle's
    inverse, by substitution in place (a thread per column, the triangle in workgroup
    memory): unit lower (LU's U12 = L11⁻¹·A12 over A's columns [k0 + b, n), then B1 =
    L11⁻¹·B1 over B's first U[6] columns) or upper (U[6] of B's columns, U11⁻¹·B1, the
    back substitution of a block). Grid: T_SOLVE columns per workgroup."""
    T = T_SOLVE
    ca = "0u" if upper else "n - k0 - b"
    # loads from addresses clamped into the buffers, all issued before the first use
    loads = ("".join(f"        var x{i} = real_t(0.0);\n" for i in range(NB))
             + "        if (c < ca) {\n"
             + "".join(f"            x{i} = A[min(ab + {i}u * n, a0 + n * n - 1u)];\n" for i in range(NB))
             + "        } else {\n"
             + "".join(f"            x{i} = B[min(bb + {i}u * K, b0 + n * K - 1u)];\n" for i in range(NB))
             + "        }\n"
             + "".join(f"        x{i} = select(real_t(0.0), x{i}, {i}u < b);\n" for i in range(NB)))
    stores = "".join(
        f"        if ({i}u < b) {{ if (c < ca) {{ A[ab + {i}u * n] = x{i}; }} else {{ B[bb + {i}u * K] = x{i}; }} }}\n"
        for i in range(NB))
    return _SCALAR[cplx] + f"""var<workgroup> Ls: array<T, {NB * NB}>;
""" + _head([("A", "T"), ("B", "T")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let K = U[1]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4]; let kb = U[5];
    let a0 = z * n * n; let b0 = z * n * K;
{_load_block("Ls", "a0 + (k0 + {i}) * n + k0 + {j}", T)}    workgroupBarrier();
    let ca = {ca};
    let c = wg.x * {T}u + t;
    if (c < ca + kb) {{
        // the column's first entry in A (right of the block) or in B (each kept in range)
        let ab = a0 + k0 * n + min(k0 + b + c, n - 1u);
        let bb = b0 + k0 * K + select(c - ca, 0u, c < ca);
{loads}{_substitution("upper" if upper else "unit_lower")}{stores}    }}
}}
"""


def block_solve_rows(cplx: bool) -> str:
    """Cholesky's L21 = A21·L11⁻ᴴ for the rows [k0 + b, n) of the block's columns, by
    substitution in place (a thread per row, L11 in workgroup memory), and L21ᴴ into W
    (b × m per matrix, m = n − k0 − b), the trailing product's right factor. Grid:
    T_SOLVE rows per workgroup (a thread's NB loads of its row touch a line a lane: small
    workgroups spread them over more of the GPU)."""
    T = T_SOLVE
    loads = "".join(f"        var x{j} = select(real_t(0.0), A[min(ar + {j}u, a0 + n * n - 1u)], {j}u < b);\n"
                    for j in range(NB))
    stores = "".join(f"        if ({j}u < b) {{ A[ar + {j}u] = x{j}; W[w0 + {j}u * m + r] = conjg(x{j}); }}\n"
                     for j in range(NB))
    return _SCALAR[cplx] + f"""var<workgroup> Ls: array<T, {NB * NB}>;
""" + _head([("A", "T"), ("W", "T")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2]; let k0 = U[3]; let b = U[4];
    let a0 = z * n * n; let m = n - k0 - b;
{_load_block("Ls", "a0 + (k0 + {i}) * n + k0 + {j}", T)}    workgroupBarrier();
    let r = wg.x * {T}u + t;
    if (r < m) {{
        let ar = a0 + (k0 + b + r) * n + k0; let w0 = z * b * m;
{loads}{_substitution("conj_rows")}{stores}    }}
}}
"""


DOT_ROWS = 128  # rows a pass of substitute's products past a block takes (T_PANEL / 8 a load)


def substitute(cplx: bool) -> str:
    """B = U⁻¹·L⁻¹·B for LU's factors in A (L unit lower, U upper; B's rows already
    swapped by the panels), one workgroup per matrix and column of B: forward then back
    substitution by blocks of NB rows. A block's triangle goes to workgroup memory and one
    thread solves it from there, its NB unknowns in registers (a barrier per row cost
    ~0.5 µs on an H200, 1 ms a solve of 1024); the rows past the block (before it, going
    back) then subtract their products with the block's solution, DOT_ROWS rows a pass.
    One launch where the blocked substitution takes five a block: for the few
    right-hand sides of solve."""
    T = T_PANEL
    rows = DOT_ROWS // (2 if cplx else 1)  # complex: parts and Ls within 16 KiB
    unknowns = "".join(f"            var s{i} = select(real_t(0.0), ys[{i}], {i}u < b);\n" for i in range(NB))
    publish = "".join(f"            ys[{i}] = s{i};\n" for i in range(NB))
    fwd = _substitution("unit_lower", "s", pad="            ")
    bwd = _substitution("upper", "s", descending=True, pad="            ")

    def triangle(solve: str) -> str:
        return (_load_block("Ls", "a0 + (k0 + {i}) * n + k0 + {j}", T)
                + "        if (t < b) { ys[t] = B[b0 + (k0 + t) * K + j]; }\n        workgroupBarrier();\n"
                + "        if (t == 0u) {\n" + unknowns + solve + publish + "        }\n        workgroupBarrier();\n"
                + "        if (t < b) { B[b0 + (k0 + t) * K + j] = ys[t]; }\n")

    # rows [lo, hi) less their products with the block's solution ys, DOT_ROWS rows a
    # pass: eight threads a row, each reading 4 neighbouring entries, so that a warp's load
    # touches 4 rows' lines, not 32 (a thread a row: 1 ms of a solve of 1024 on an H200,
    # its loads ~6 GB/s); the eight partial sums then added in order by one thread a row
    lanes = NB // 4

    def dot(lo: str, hi: str) -> str:
        passes = rows // (T // lanes)
        out = [f"        for (var r0 = {lo}; r0 < {hi}; r0 = r0 + {rows}u) {{"]
        for q in range(passes):
            out.append(f"            {{ let ar = a0 + min(r0 + w + {q * (T // lanes)}u, n - 1u) * n + k0 + c4;")
            out.append("              var part = real_t(0.0);")
            for i in range(4):
                out.append(f"              part = part + select(real_t(0.0), mul(A[min(ar + {i}u, last)], ys[min(c4 + {i}u, {NB - 1}u)]), c4 + {i}u < b);")
            out.append(f"              parts[{q * T}u + t] = part; }}")
        out.append("            workgroupBarrier();")
        out.append(f"            if (t < {rows}u && r0 + t < {hi}) {{")
        out.append(f"                let base = (t / {T // lanes}u) * {T}u + (t % {T // lanes}u) * {lanes}u;")
        out.append("                var acc = real_t(0.0);")
        out.extend(f"                acc = acc + parts[base + {c}u];" for c in range(lanes))
        out.append("                let at = b0 + (r0 + t) * K + j; B[at] = B[at] - acc;")
        out.append("            }")
        out.append("            workgroupBarrier();")
        out.append("        }")
        return "\n".join(out) + "\n"

    return _SCALAR[cplx] + f"""var<workgroup> ys: array<T, {NB}>;
var<workgroup> Ls: array<T, {NB * NB}>;
var<workgroup> parts: array<T, {rows * lanes}>;
""" + _head([("A", "T"), ("B", "T")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let K = U[1]; let z = wg.z + U[2]; let j = wg.x;
    let a0 = z * n * n; let b0 = z * n * K; let last = a0 + n * n - 1u;
    let w = t / {lanes}u; let c4 = (t % {lanes}u) * 4u;
    for (var k0 = 0u; k0 < n; k0 = k0 + {NB}u) {{
        let b = min({NB}u, n - k0);
{triangle(fwd)}{dot("k0 + b", "n")}        storageBarrier(); workgroupBarrier();
    }}
    for (var e = (n + {NB - 1}u) / {NB}u; e > 0u; e = e - 1u) {{
        let k0 = (e - 1u) * {NB}u;
        let b = min({NB}u, n - k0);
{triangle(bwd)}{dot("0u", "k0")}        storageBarrier(); workgroupBarrier();
    }}
}}
"""


def sub_block(cplx: bool) -> str:
    """X[r0 + i, c0 + j] −= P[i, j] (U[7] = 0) or = P[i, j] (U[7] = 1) for i < m, j < w
    of each matrix (X's rows ld words apart, its matrices xs words apart; P contiguous):
    a product of the tiled matmul subtracted from, or written over, a block of a
    factorization in place."""
    return _SCALAR[cplx] + _head([("X", "T"), ("P", "T")], "16, 16") + """fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = U[0]; let w = U[1]; let z = wg.z + U[2]; let r0 = U[3]; let c0 = U[4];
    let ld = U[5]; let xs = U[6];
    let i = wg.y * 16u + lid.y; let j = wg.x * 16u + lid.x;
    if (i < m && j < w) {
        let x = z * xs + (r0 + i) * ld + c0 + j;
        let p = P[(z * m + i) * w + j];
        X[x] = select(X[x] - p, p, U[7] != 0u);
    }
}
"""


# ---- accurate products: the refinement of eigh's and svd's factors -----------------

def dot2() -> str:
    """C ± Aᵀ·B for each matrix (A: K×M, B: K×N, C: M×N, float32, all contiguous; U[4] = 1
    subtracts) summed in two floats and rounded once, the rounding's remainder into L
    (C + L is the result to about 2⁻⁴⁰ of the terms' size): the products are exact (each
    factor split by its bits into halves of 12 significant bits, whose products fit a
    float32 exactly), their leading parts summed by Knuth's TwoSum, the cross terms in a
    float of their own. No operation here depends on an FMA or on its absence. TwoSum's
    intermediate sums pass through ``hide``, an OR with U[5] = 0 that no compiler can see
    through: Mesa's NIR, whose float operations are inexact unless SPIR-V says otherwise,
    reassociates s − (t − v) into (s − t) + v and folds (s + p) − s to p, and every
    remainder came out 0. The refinement of eigh's and svd's factors needs its Gram
    matrices and residuals this accurate: float32 products leave them at the level they
    are meant to remove."""
    return """var<workgroup> ah: array<f32, 256>;
var<workgroup> al: array<f32, 256>;
var<workgroup> bh: array<f32, 256>;
var<workgroup> bl: array<f32, 256>;
""" + _head([("C", "f32"), ("L", "f32"), ("A", "f32"), ("B", "f32")], "16, 16") + """fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = U[0]; let N = U[1]; let z = wg.z + U[2]; let K = U[3];
    let i0 = wg.y * 16u; let j0 = wg.x * 16u;
    let at = lid.y * 16u + lid.x;
    var s = 0.0; var e = 0.0;
    for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {
        let k = k0 + lid.y;
        var a = 0.0; var b = 0.0;
        if (k < K && i0 + lid.x < M) { a = A[(z * K + k) * M + i0 + lid.x]; }
        if (k < K && j0 + lid.x < N) { b = B[(z * K + k) * N + j0 + lid.x]; }
        let ha = bitcast<f32>(bitcast<u32>(a) & 0xFFFFF000u);
        let hb = bitcast<f32>(bitcast<u32>(b) & 0xFFFFF000u);
        ah[at] = ha; al[at] = a - ha; bh[at] = hb; bl[at] = b - hb;
        workgroupBarrier();
        for (var q = 0u; q < 16u; q = q + 1u) {
            let xh = ah[q * 16u + lid.y]; let xl = al[q * 16u + lid.y];
            let yh = bh[q * 16u + lid.x]; let yl = bl[q * 16u + lid.x];
            let p = xh * yh;
            let t = hide(s + p);
            e = e + two_sum_error(s, p, t) + (xh * yl + xl * yh + xl * yl);
            s = t;
        }
        workgroupBarrier();
    }
    let i = i0 + lid.y; let j = j0 + lid.x;
    if (i < M && j < N) {
        let c = (z * M + i) * N + j;
        let sg = select(1.0, -1.0, U[4] != 0u);
        let p = sg * s; let c0 = C[c];
        let t = hide(c0 + p);
        let lo = hide(two_sum_error(c0, p, t) + sg * e);
        let hi = hide(t + lo);
        C[c] = hi;
        L[c] = lo - hide(hi - t);
    }
}

fn hide(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) | U[5]); }

// a + b − t exactly, for t = a + b rounded (Knuth)
fn two_sum_error(a: f32, b: f32, t: f32) -> f32 {
    let v = hide(t - a);
    return hide(a - hide(t - v)) + hide(b - v);
}
"""


# ---- Householder QR -----------------------------------------------------------------

_REDUCE = """fn reduce_{name}(t: u32) {{
    for (var h = {half}u; h > 0u; h = h / 2u) {{
        if (t < h) {{ {name}[t] = {op}; }}
        workgroupBarrier();
    }}
}}
"""


def _column_norm(red: str, row: str, keep: str = "") -> str:
    """WGSL shared by qr_house and qr_step (so both form a reflector with the same bits):
    the tree sums over the f32 workgroup array ``red`` (its reducers by _norm_reducers),
    sc = the largest |element| of AT's line c0 from ``row`` on (1 where all are zero) and
    total = Σ |a_i / sc|² over it; ``keep`` runs for each u = a_i / sc."""
    return f"""    var big = 0.0;
    for (var i = {row} + t; i < M; i = i + {T_WG}u) {{ big = max(big, mag(AT[c0 + i])); }}
    {red}[t] = big;
    workgroupBarrier();
    reduce_{red}(t);
    let sc = select(1.0, {red}[0], {red}[0] > 0.0);
    workgroupBarrier();
    var ss = 0.0;
    for (var i = {row} + t; i < M; i = i + {T_WG}u) {{ let u = AT[c0 + i] / sc; ss = ss + abs2(u);{keep} }}
    {red}[t] = ss;
    workgroupBarrier();
    sum_{red}(t);
    let total = {red}[0];
"""


def _norm_reducers(red: str) -> str:
    """The max and sum tree reductions over ``red`` that _column_norm calls."""
    return (_REDUCE.format(name=red, half=T_WG // 2, op=f"max({red}[t], {red}[t + h])")
            + _REDUCE.format(name=red, half=T_WG // 2, op=f"{red}[t] + {red}[t + h]")
            .replace(f"reduce_{red}", f"sum_{red}"))


def qr_house(cplx: bool) -> str:
    """Step k of an M×N matrix held transposed (AT: N rows of M, row j = column j): the
    reflector I − τ·v·vᴴ that maps column k's part from k on to alpha·e_0
    (alpha = −phase(a_kk)·‖x‖, v scaled by the column's largest |element|) into V and
    Tau; column k becomes (alpha, 0, …)."""
    return _SCALAR[cplx] + f"""var<workgroup> red: array<f32, {T_WG}>;
""" + _norm_reducers("red") + \
        _head([("AT", "T"), ("Q", "T"), ("V", "T"), ("Tau", "f32")], str(T_WG)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let M = U[0]; let N = U[1]; let z = wg.z + U[2]; let k = U[3];
    let c0 = z * M * N + k * M; let v0 = z * M;
{_column_norm("red", "k", " V[v0 + i] = u;")}    {_sync()}
    if (t == 0u) {{
        let x0 = V[v0 + k];
        let al = -phase(x0) * sqrt(total);
        V[v0 + k] = x0 - al;
        let vv = total - abs2(x0) + abs2(x0 - al);
        Tau[z] = select(0.0, 2.0 / vv, vv > 0.0);
        AT[c0 + k] = select(x0, al, vv > 0.0) * sc;
    }}
    for (var i = k + 1u + t; i < M; i = i + {T_WG}u) {{ AT[c0 + i] = real_t(0.0); }}
}}
"""


def qr_apply(cplx: bool) -> str:
    """Step k: each workgroup applies the reflector to one column j > k of A (a row of
    AT) or to one row of Q: the threads share the dot product with v (a tree sum in
    workgroup memory), then the update, both over neighbouring words."""
    return _SCALAR[cplx] + f"""var<workgroup> red: array<T, {T_WG}>;
""" + _head([("AT", "T"), ("Q", "T"), ("V", "T"), ("Tau", "f32")], str(T_WG)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let M = U[0]; let N = U[1]; let z = wg.z + U[2]; let k = U[3];
    let v0 = z * M;
    let cols = N - k - 1u;
    let g = wg.x;
    // the line to reflect: a row of AT (a column of A), or a row of Q
    let isq = g >= cols;
    let r0 = select(z * M * N + (k + 1u + g) * M, z * M * M + (g - cols) * M, isq);
    var w = real_t(0.0);
    if (isq) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{ w = w + mul(Q[r0 + i], V[v0 + i]); }}
    }} else {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{ w = w + mul(conjg(V[v0 + i]), AT[r0 + i]); }}
    }}
    red[t] = w;
    workgroupBarrier();
    for (var h = {T_WG // 2}u; h > 0u; h = h / 2u) {{
        if (t < h) {{ red[t] = red[t] + red[t + h]; }}
        workgroupBarrier();
    }}
    let s = red[0] * Tau[z];
    if (isq) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{ Q[r0 + i] = Q[r0 + i] - mul(s, conjg(V[v0 + i])); }}
    }} else {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{ AT[r0 + i] = AT[r0 + i] - mul(V[v0 + i], s); }}
    }}
}}
"""


def qr_step(cplx: bool) -> str:
    """Step k of the Householder QR of an M×N matrix held transposed (AT: N rows of M, row
    j = column j), one launch: every workgroup forms the reflector I − τ·v·vᴴ that maps
    column k's part from k on to alpha·e_0 (alpha = −phase(a_kk)·‖x‖, v scaled by the
    column's largest |element|) from AT itself, the same bits in each, and workgroup g
    applies it to column g > k of A (g < N) or to row g − N of Q: the threads share the
    dot product with v (a tree sum in workgroup memory), then the update, both over
    neighbouring words. Column k is read by all, so it is written only in the next
    launch: there workgroup k forms column k's reflector again, as the others form
    column k + 1's, and writes column k as (alpha, 0, …); a last launch with U[4] = 1
    writes the last column alone. GPUs take this (QR of 1024² on an H200: 38.5 -> 14.9
    ms); CPU adapters keep qr_house and qr_apply, where forming the reflector in every
    workgroup costs more than a launch (lavapipe, 200²: 0.6 -> 1.9 s). Same bits as those
    two."""
    return _SCALAR[cplx] + f"""var<workgroup> rf: array<f32, {T_WG}>;
var<workgroup> red: array<T, {T_WG}>;
""" + _norm_reducers("rf") + _head([("AT", "T"), ("Q", "T")], str(T_WG)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let M = U[0]; let N = U[1]; let z = wg.z + U[2]; let k = U[3];
    let g = wg.x;
    let fin = k >= 1u && g == k - 1u;  // this workgroup writes column k - 1
    let r = select(min(k, N - 1u), k - 1u, fin);  // the column whose reflector it forms
    let c0 = z * M * N + r * M;
{_column_norm("rf", "r")}    let x0 = AT[c0 + r] / sc;
    let al = -phase(x0) * sqrt(total);
    let vr = x0 - al;
    let vv = total - abs2(x0) + abs2(vr);
    let tau = select(0.0, 2.0 / vv, vv > 0.0);
    // the line to reflect: a row of AT (a column of A) after k, or a row of Q
    let isq = g >= N;
    let on = U[4] == 0u && !fin && (isq || g > k);
    let r0 = select(z * M * N + g * M, z * M * M + (g - N) * M, isq);
    var w = real_t(0.0);
    if (on && isq) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{
            w = w + mul(Q[r0 + i], select(AT[c0 + i] / sc, vr, i == k));
        }}
    }} else if (on) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{
            w = w + mul(conjg(select(AT[c0 + i] / sc, vr, i == k)), AT[r0 + i]);
        }}
    }}
    red[t] = w;
    workgroupBarrier();
    for (var h = {T_WG // 2}u; h > 0u; h = h / 2u) {{
        if (t < h) {{ red[t] = red[t] + red[t + h]; }}
        workgroupBarrier();
    }}
    let s = red[0] * tau;
    if (on && isq) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{
            Q[r0 + i] = Q[r0 + i] - mul(s, conjg(select(AT[c0 + i] / sc, vr, i == k)));
        }}
    }} else if (on) {{
        for (var i = k + t; i < M; i = i + {T_WG}u) {{
            AT[r0 + i] = AT[r0 + i] - mul(select(AT[c0 + i] / sc, vr, i == k), s);
        }}
    }}
    if (fin) {{
        if (t == 0u) {{ AT[c0 + r] = select(x0, al, vv > 0.0) * sc; }}
        for (var i = r + 1u + t; i < M; i = i + {T_WG}u) {{ AT[c0 + i] = real_t(0.0); }}
    }}
}}
"""


# ---- one-sided Jacobi -----------------------------------------------------------------

def _gram(cplx: bool, first: str, step: str, pad: str) -> str:
    """WGSL: acc = (‖w_p‖², ‖w_q‖², re γ, im γ) over this thread's entries first, first +
    step, ... of rows p and q of W (γ = w_pᴴ·w_q), its share of a pair's tree sum."""
    return f"""{pad}var acc = vec4<f32>(0.0);
{pad}for (var e = {first}; e < M; e = e + {step}) {{
{pad}    let x = W[w0 + p * M + e]; let y = W[w0 + q * M + e];
{pad}    let xy = mul(conjg(x), y);
{pad}    acc = acc + vec4<f32>(abs2(x), abs2(y), re(xy), {"xy.y" if cplx else "0.0"});
{pad}}}
"""


def _rotate(cplx: bool, first: str, step: str, pad: str) -> str:
    """WGSL: the Jacobi rotation of rows p and q of W and VT from the pair's sums tot
    (al, be, gm as jacobi_round describes), this thread's entries first, first + step, ..."""
    ph = "conjg(vec2<f32>(tot.z, tot.w) / gm)" if cplx else "select(-1.0, 1.0, tot.z >= 0.0)"
    return f"""{pad}let zeta = (be - al) / (2.0 * gm);
{pad}let az = abs(zeta);
{pad}let tt = select(1.0 / (az + sqrt(1.0 + az * az)), 0.5 / az, az > 1e15);
{pad}let tn = select(-tt, tt, zeta >= 0.0);
{pad}let cs = 1.0 / sqrt(1.0 + tn * tn); let sn = tn * cs; let ta = sn / (1.0 + cs);
{pad}let ph = {ph};
{pad}for (var e = {first}; e < M; e = e + {step}) {{
{pad}    let x = W[w0 + p * M + e]; let y = mul(W[w0 + q * M + e], ph);
{pad}    W[w0 + p * M + e] = x - sn * (y + ta * x); W[w0 + q * M + e] = y + sn * (x - ta * y);
{pad}}}
{pad}for (var e = {first}; e < N; e = e + {step}) {{
{pad}    let x = VT[v0 + p * N + e]; let y = mul(VT[v0 + q * N + e], ph);
{pad}    VT[v0 + p * N + e] = x - sn * (y + ta * x); VT[v0 + q * N + e] = y + sn * (x - ta * y);
{pad}}}
"""


_SUMS = """let al = tot.x; let be = tot.y;
    let gm = length(tot.zw);
    let nn = sqrt(al) * sqrt(be);"""


def jacobi_round(cplx: bool, threads: int = JACOBI_THREADS) -> str:
    """One round of a sweep: pair number wg.x of round r of the round-robin tournament
    over ne (N rounded up to even) players; an index ≥ N is a bye. W holds the N columns
    being orthogonalised as rows of length M; VT the accumulated rotations as rows. With γ = w_pᴴ·w_q = |γ|·e^{iφ}, w_q·e^{-iφ} and w_p are rotated by the
    real Jacobi angle of (‖w_p‖², ‖w_q‖², |γ|), in Rutishauser's form x − s·(y + τ·x),
    τ = s/(1 + c): the late sweeps' small rotations then change x by their own small
    amount, where c·x − s·y would round x once more by c's error (accumulated over a
    sweep's n − 1 rotations of every row, that made the rows' norms drift by ~1e-5 at
    n = 200). A pair already orthogonal to tol·‖w_p‖‖w_q‖ (U[7]) is left alone; a sweep in
    which no pair was further from orthogonal than stop·‖w_p‖‖w_q‖ (U[6]; flag F) makes
    later sweeps return at once. ``threads`` share a pair (a round's latency, not its
    bandwidth, bounds it: at 1024 a side on an H200 256 threads took svd's sweeps from
    ~13.5 to ~10 µs a round, where below ~500 a side 128 are as fast or faster)."""
    T = threads
    return _SCALAR[cplx] + f"""var<workgroup> red: array<vec4<f32>, {T}>;
var<workgroup> go: u32;
""" + _head([("W", "T"), ("VT", "T"), ("F", "u32")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let N = U[0]; let M = U[1]; let z = wg.z + U[2]; let r = U[3]; let s = U[4]; let S = U[5];
    let ne = U[8];
    let i = wg.x;
    var p = r; var q = ne - 1u;
    if (i > 0u) {{ p = (r + i) % (ne - 1u); q = (r + ne - 1u - i) % (ne - 1u); }}
    if (p > q) {{ let u = p; p = q; q = u; }}
    if (q >= N) {{ return; }}
    if (t == 0u) {{ go = select(1u, F[z * S + s], s > 0u); }}
    if (workgroupUniformLoad(&go) == 0u) {{ return; }}
    let w0 = z * N * M; let v0 = z * N * N;
{_gram(cplx, "t", f"{T}u", "    ")}    red[t] = acc;
    workgroupBarrier();
    for (var h = {T // 2}u; h > 0u; h = h / 2u) {{
        if (t < h) {{ red[t] = red[t] + red[t + h]; }}
        workgroupBarrier();
    }}
    let tot = red[0];
    {_SUMS}
    if (t == 0u && gm > bitcast<f32>(U[6]) * nn) {{ F[z * S + s + 1u] = 1u; }}
    if (!(gm > bitcast<f32>(U[7]) * nn)) {{ return; }}
{_rotate(cplx, "t", f"{T}u", "    ")}}}
"""


def jacobi_blocks(cplx: bool) -> str:
    """jacobi_round's rotations (same test, angle and update) by blocks of JACOBI_GROUP
    rows, so that a launch does many rounds: U[9] = 0, block pair wg.x of block round
    U[3] of the round-robin tournament over U[8] blocks (an index past the rows is a bye)
    rotates every pair of a row of block P with a row of block Q, in JACOBI_GROUP inner
    rounds of disjoint pairs (round j pairs row g of P with row (g + j) mod G of Q), a pair
    on JACOBI_LANES threads; U[9] = 1, block wg.x rotates the pairs within it (G - 1 inner
    rounds). A sweep is the within-block launch and the U[8] - 1 block rounds: every pair
    once, as a sweep of jacobi_round, in ~N / G launches instead of ~N."""
    G, L = JACOBI_GROUP, JACOBI_LANES
    T = G * L
    tree = "".join(f"""        if (l < {h}u) {{ red[t] = red[t] + red[t + {h}u]; }}
        workgroupBarrier();
""" for h in (16, 8, 4, 2, 1))
    return _SCALAR[cplx] + f"""var<workgroup> red: array<vec4<f32>, {T}>;
var<workgroup> go: u32;
""" + _head([("W", "T"), ("VT", "T"), ("F", "u32")], str(T)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let N = U[0]; let M = U[1]; let z = wg.z + U[2]; let R = U[3]; let s = U[4]; let S = U[5];
    let nb = U[8]; let inner = U[9] == 1u;
    var P = wg.x; var Q = wg.x;
    if (!inner) {{
        let i = wg.x;
        P = R; Q = nb - 1u;
        if (i > 0u) {{ P = (R + i) % (nb - 1u); Q = (R + nb - 1u - i) % (nb - 1u); }}
    }}
    if (t == 0u) {{ go = select(1u, F[z * S + s], s > 0u); }}
    if (workgroupUniformLoad(&go) == 0u) {{ return; }}
    let g = t / {L}u; let l = t % {L}u;
    let w0 = z * N * M; let v0 = z * N * N;
    let rounds = select({G}u, {G - 1}u, inner);
    for (var j = 0u; j < rounds; j = j + 1u) {{
        var a = g; var c = (g + j) % {G}u; var live = true;
        if (inner) {{
            live = g < {G // 2}u;
            a = j; c = {G - 1}u;
            if (g > 0u) {{ a = (j + g) % {G - 1}u; c = (j + {G - 1}u - g) % {G - 1}u; }}
        }}
        var p = P * {G}u + a; var q = Q * {G}u + c;
        if (p > q) {{ let u = p; p = q; q = u; }}
        live = live && q < N;
{_gram(cplx, "select(M, l, live)", f"{L}u", "        ")}        red[t] = acc;
        workgroupBarrier();
{tree}        let tot = red[g * {L}u];
        {_SUMS.replace(chr(10) + "    ", chr(10) + "        ")}
        if (live && l == 0u && gm > bitcast<f32>(U[6]) * nn) {{ F[z * S + s + 1u] = 1u; }}
        if (live && gm > bitcast<f32>(U[7]) * nn) {{
{_rotate(cplx, "l", f"{L}u", "            ")}        }}
        storageBarrier(); workgroupBarrier();
    }}
}}
"""


# ---- eig: Hessenberg, shifted QR, eigenvectors (complex64) ------------------------------

_C = _SCALAR[True] + """fn csqrt(a: T) -> T {
    let r = length(a);
    let x = sqrt(max(0.5 * (r + abs(a.x)), 0.0));
    if (x == 0.0) { return vec2<f32>(0.0, 0.0); }
    let y = a.y / (2.0 * x);
    return select(vec2<f32>(abs(y), select(-x, x, a.y >= 0.0)), vec2<f32>(x, y), a.x >= 0.0);
}
"""


def hessenberg() -> str:
    """Steps [U[3], U[4]) of the reduction H ← P·H·P with Householder P (Hermitian, as τ
    is real) zeroing H[k+2:, k], accumulated as Z ← Z·P when U[1] is 1."""
    return _C + """var<workgroup> tau: f32;
var<workgroup> alpha: T;
""" + _head([("H", "T"), ("Z", "T"), ("V", "T")], str(T_HESS)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2];
    let a0 = z * n * n; let v0 = z * n;
    for (var k = U[3]; k < U[4]; k = k + 1u) {{
        if (t == 0u) {{
            var ss = 0.0; var big = 0.0;
            for (var i = k + 1u; i < n; i = i + 1u) {{ big = max(big, mag(H[a0 + i * n + k])); }}
            let sc = select(1.0, big, big > 0.0);
            for (var i = k + 1u; i < n; i = i + 1u) {{ let u = H[a0 + i * n + k] / sc; ss = ss + abs2(u); V[v0 + i] = u; }}
            let x0 = V[v0 + k + 1u];
            let al = -phase(x0) * sqrt(ss);
            V[v0 + k + 1u] = x0 - al;
            let vv = ss - abs2(x0) + abs2(x0 - al);
            tau = select(0.0, 2.0 / vv, vv > 0.0);
            alpha = select(x0, al, vv > 0.0) * sc;
        }}
        {_sync()}
        let ta = tau;
        for (var j = k + 1u + t; j < n; j = j + {T_HESS}u) {{
            var w = real_t(0.0);
            for (var i = k + 1u; i < n; i = i + 1u) {{ w = w + mul(conjg(V[v0 + i]), H[a0 + i * n + j]); }}
            w = w * ta;
            for (var i = k + 1u; i < n; i = i + 1u) {{ H[a0 + i * n + j] = H[a0 + i * n + j] - mul(V[v0 + i], w); }}
        }}
        if (t == 0u) {{ H[a0 + (k + 1u) * n + k] = alpha; }}
        for (var i = k + 2u + t; i < n; i = i + {T_HESS}u) {{ H[a0 + i * n + k] = real_t(0.0); }}
        {_sync()}
        for (var r = t; r < n; r = r + {T_HESS}u) {{
            var w = real_t(0.0);
            for (var i = k + 1u; i < n; i = i + 1u) {{ w = w + mul(H[a0 + r * n + i], V[v0 + i]); }}
            w = w * ta;
            for (var i = k + 1u; i < n; i = i + 1u) {{ H[a0 + r * n + i] = H[a0 + r * n + i] - mul(w, conjg(V[v0 + i])); }}
            if (U[1] != 0u) {{
                var y = real_t(0.0);
                for (var i = k + 1u; i < n; i = i + 1u) {{ y = y + mul(Z[a0 + r * n + i], V[v0 + i]); }}
                y = y * ta;
                for (var i = k + 1u; i < n; i = i + 1u) {{ Z[a0 + r * n + i] = Z[a0 + r * n + i] - mul(y, conjg(V[v0 + i])); }}
            }}
        }}
        {_sync()}
    }}
}}
"""




def schur() -> str:
    """Up to U[3] steps of single-shift complex QR on the Hessenberg H (in place, towards
    upper triangular), rotations accumulated into Z when U[1] is 1. St per matrix: the
    active bottom row + 1 (0 when done), sweeps since the last deflation, failed flag.
    A step deflates (|h_l,l−1| ≤ ε·(|h_l−1,l−1| + |h_ll|) makes it zero) or chases one
    bulge of the Wilkinson shift (an exceptional shift every 10 sweeps) through rows l..ihi."""
    return _C + """var<workgroup> ctl: vec4<u32>;
var<workgroup> gv: vec4<f32>;
fn givens(f: T, g: T) -> vec4<f32> {{
    // c real, s complex: [c s; -conj(s) c]·[f; g] = [r; 0]
    let nf = length(f); let ng = length(g);
    if (ng == 0.0) {{ return vec4<f32>(1.0, 0.0, 0.0, 0.0); }}
    if (nf == 0.0) {{ let s = conjg(g) / ng; return vec4<f32>(0.0, s.x, s.y, 0.0); }}
    let nr = sqrt(nf * nf + ng * ng);
    let s = mul(f / nf, conjg(g)) / nr;
    return vec4<f32>(nf / nr, s.x, s.y, 0.0);
}}
""" + _head([("H", "T"), ("Z", "T"), ("St", "u32")], str(T_WG)) + f"""fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0]; let z = wg.z + U[2];
    let a0 = z * n * n; let st = z * 4u;
    for (var step = 0u; step < U[3]; step = step + 1u) {{
        if (t == 0u) {{
            var top = St[st]; var its = St[st + 1u];
            var mode = 0u; var l = 0u;
            if (top <= 1u) {{ mode = 2u; St[st] = 0u; }} else {{
                let ihi = top - 1u;
                l = ihi;
                loop {{
                    if (l == 0u) {{ break; }}
                    let h = mag(H[a0 + l * n + l - 1u]);
                    let s = mag(H[a0 + (l - 1u) * n + l - 1u]) + mag(H[a0 + l * n + l]);
                    if (h <= 1.1920929e-07 * s || h < 1e-35) {{ H[a0 + l * n + l - 1u] = real_t(0.0); break; }}
                    l = l - 1u;
                }}
                if (l == ihi) {{
                    St[st] = ihi; St[st + 1u] = 0u;
                }} else if (its >= {MAX_ITS}u) {{
                    St[st] = 0u; St[st + 2u] = 1u; mode = 2u;
                }} else {{
                    its = its + 1u; St[st + 1u] = its;
                    let a = H[a0 + (ihi - 1u) * n + ihi - 1u]; let b = H[a0 + (ihi - 1u) * n + ihi];
                    let c = H[a0 + ihi * n + ihi - 1u]; let d = H[a0 + ihi * n + ihi];
                    var mu: T;
                    if (its % 10u == 0u) {{
                        mu = d + real_t(0.75 * mag(c));
                    }} else {{
                        let hd = 0.5 * (a - d);
                        let r = csqrt(mul(hd, hd) + mul(b, c));
                        let m1 = d + hd + r; let m2 = d + hd - r;  // the eigenvalues of the 2×2
                        mu = select(m2, m1, length(m1 - d) <= length(m2 - d));
                    }}
                    gv = givens(H[a0 + l * n + l] - mu, H[a0 + (l + 1u) * n + l]);
                    mode = 1u;
                }}
            }}
            ctl = vec4<u32>(mode, l, top - 1u, 0u);
        }}
        let cc = workgroupUniformLoad(&ctl);
        if (cc.x == 2u) {{ break; }}
        if (cc.x == 1u) {{
            let l = cc.y; let ihi = cc.z;
            for (var k = l; k < ihi; k = k + 1u) {{
                if (k > l && t == 0u) {{
                    gv = givens(H[a0 + k * n + k - 1u], H[a0 + (k + 1u) * n + k - 1u]);
                }}
                {_sync()}
                let c = gv.x; let s = vec2<f32>(gv.y, gv.z);
                let j0 = select(k - 1u, k, k == l);
                for (var j = j0 + t; j < n; j = j + {T_WG}u) {{
                    let x = H[a0 + k * n + j]; let y = H[a0 + (k + 1u) * n + j];
                    H[a0 + k * n + j] = c * x + mul(s, y);
                    H[a0 + (k + 1u) * n + j] = select(c * y - mul(conjg(s), x), real_t(0.0), j + 1u == k);
                }}
                {_sync()}
                let i1 = min(k + 2u, ihi);
                for (var i = t; i <= i1; i = i + {T_WG}u) {{
                    let x = H[a0 + i * n + k]; let y = H[a0 + i * n + k + 1u];
                    H[a0 + i * n + k] = c * x + mul(conjg(s), y);
                    H[a0 + i * n + k + 1u] = c * y - mul(s, x);
                }}
                if (U[1] != 0u) {{
                    for (var i = t; i < n; i = i + {T_WG}u) {{
                        let x = Z[a0 + i * n + k]; let y = Z[a0 + i * n + k + 1u];
                        Z[a0 + i * n + k] = c * x + mul(conjg(s), y);
                        Z[a0 + i * n + k + 1u] = c * y - mul(s, x);
                    }}
                }}
                {_sync()}
            }}
        }}
        {_sync()}
    }}
}}
"""


def trevc() -> str:
    """Rows [U[4], U[3]) (taken from the highest down) of the eigenvectors of the upper
    triangular T: thread j solves (T − t_jj·I)·x = 0 with x_j = 1 (X holds identities from
    the caller) by x_i = −Σ_{{i<k≤j}} t_ik·x_k / (t_ii − t_jj), a denominator below
    ε·|t_jj| (or 1e-30) replaced by that bound, as LAPACK's ztrevc."""
    return _C + _head([("H", "T"), ("X", "T")], "64") + """fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let n = U[0]; let z = wg.z + U[2];
    let j = wg.x * 64u + t;
    if (j >= n) { return; }
    let a0 = z * n * n;
    let lam = H[a0 + j * n + j];
    let smin = max(1.1920929e-07 * mag(lam), 1e-30);
    for (var ii = U[3]; ii > U[4]; ii = ii - 1u) {
        let i = ii - 1u;
        if (i < j) {
            var acc = real_t(0.0);
            for (var k = i + 1u; k <= j; k = k + 1u) { acc = acc + mul(H[a0 + i * n + k], X[a0 + k * n + j]); }
            var d = H[a0 + i * n + i] - lam;
            if (mag(d) < smin) { d = real_t(smin); }
            X[a0 + i * n + j] = -div(acc, d);
        }
    }
}
"""
