"""WGSL generator for batched, strided matrix products C = A @ B.

A workgroup of 16x16 threads computes a TILE x TILE block of C, each thread a RxR
sub-block held in named scalar accumulators; A and B go through workgroup-memory tiles
BK deep. The inner product is written out line by line: naga does not keep loops over
private arrays in registers (PERF_NOTES.md), so the generator unrolls instead.

A and B are read through arbitrary strides (transposed views cost nothing) and batch
dimensions are broadcast by stride 0. C is written C-contiguous. Elements are read and
written through lanes.py; int64/uint64 accumulate with the word-pair helpers of
wgsl_int64.py (wrapping modulo 2^64), float64 with the software fused multiply-add of
wgsl_f64.py (one rounding per term, as BLAS's FMA loops), complex64 with the plain complex
product.

Uniform words: M, N, K, z base, A offset, A row stride, A column stride, B offset, B row
stride, B column stride, then per batch dimension (outermost first): size, A stride,
B stride.
"""

from __future__ import annotations

from ..._dtypes import DType
from ..ops import lane_of
from .. import lanes, wgsl_complex, wgsl_f64, wgsl_int64  # noqa: F401  (register their helpers)
# MAX_K: the deepest K one launch of this generator takes, read from the registry by
# _core/algorithms/matmul.py
from ..specs.matmul import BK, MAX_K, MULADD, R, THREADS, TILE  # noqa: F401
from ..wgsl_lib import helpers_for
from . import IN_BOUNDS

# float64's K per launch: its product runs as loops (below), R * R passes per step of K,
# which must stay below llvmpipe's 65,535 loop passes per invocation
MAX_K_F64 = 2048



def _read_uniforms(w, batch_ndim: int, update: bool = False) -> None:
    """The opening of every matmul kernel: sizes, this workgroup's matrix in the batch
    (offsets ao, bo of A and B; cbase of C) and the element strides, as pack_uniforms lays
    them out; with update, C's offset, row stride ldc and matrix stride follow the batch
    words (C is then a view, not C-contiguous)."""
    w("    let M = U[0]; let N = U[1]; let K = U[2];")
    w("    var z = wg.z + U[3];")
    w("    var ao = bitcast<i32>(U[4]); var bo = bitcast<i32>(U[7]);")
    if update:
        at = 10 + 3 * batch_ndim
        w(f"    let cbase = U[{at}] + z * U[{at + 2}]; let ldc = U[{at + 1}];")
    else:
        w("    let cbase = z * M * N; let ldc = N;")
    for d in range(batch_ndim - 1, -1, -1):
        at = 10 + 3 * d
        w(f"    {{ let c = i32(z % U[{at}]); z = z / U[{at}];"
          f" ao = ao + c * bitcast<i32>(U[{at + 1}]); bo = bo + c * bitcast<i32>(U[{at + 2}]); }}")
    w("    let sam = bitcast<i32>(U[5]); let sak = bitcast<i32>(U[6]);")
    w("    let sbk = bitcast<i32>(U[8]); let sbn = bitcast<i32>(U[9]);")


def max_k(dtype: DType) -> int:
    """The deepest K one launch of ``generate(dtype, ...)`` takes."""
    return MAX_K_F64 if lane_of(dtype) == "D" else MAX_K


def generate(dtype: DType, batch_ndim: int, unrolled: bool = False) -> str:
    """The tiled product of dtype. float64's multiply-add is a long function in software (or
    emulated): written once inside loops over the tile rather than unrolled R * R * BK
    times, which takes LLVM minutes to compile; ``unrolled`` (a device whose float64 lane
    has a fused fma of its own) writes it out as every other dtype's, accumulators in
    registers, the same terms in the same order."""
    ty, zero = lanes.wgsl_type(dtype), lanes.literal(dtype, 0)
    looped = lane_of(dtype) == "D" and not unrolled
    muladd = MULADD.get(lane_of(dtype), "{c} + {a} * {b}")
    load_a = lanes.load(dtype, "A", "u32(ao + i32(gm) * sam + i32(gk) * sak)")
    load_b = lanes.load(dtype, "B", "u32(bo + i32(gk) * sbk + i32(gn) * sbn)")
    per_thread = TILE * BK // (THREADS * THREADS)
    lines = []
    w = lines.append
    w("@group(0) @binding(0) var<storage, read> U: array<u32>;")
    w("@group(0) @binding(1) var<storage, read> A: array<u32>;")
    w("@group(0) @binding(2) var<storage, read> B: array<u32>;")
    w("@group(0) @binding(3) var<storage, read_write> C: array<u32>;")
    w(f"var<workgroup> As: array<{ty}, {BK * TILE}>;")
    w(f"var<workgroup> Bs: array<{ty}, {BK * TILE}>;")
    w(f"@compute @workgroup_size({THREADS}, {THREADS})")
    w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {")
    _read_uniforms(w, batch_ndim)
    w(f"    let row0 = wg.y * {TILE}u; let col0 = wg.x * {TILE}u;")
    w(f"    let tid = lid.y * {THREADS}u + lid.x;")
    if looped:
        w(f"    var acc: array<{ty}, {R * R}>;")
        for q in range(R * R):
            w(f"    acc[{q}] = {zero};")
    else:
        for i in range(R):
            for j in range(R):
                w(f"    var c{i}{j}: {ty} = {zero};")
    w("    for (var k0 = 0u; k0 < K; k0 = k0 + " + f"{BK}u) {{")
    for r in range(per_thread):
        w(f"        {{ let e = tid + {r * THREADS * THREADS}u; let m = e / {BK}u; let kk = e % {BK}u;")
        w("          let gm = row0 + m; let gk = k0 + kk;")
        w(f"          var v: {ty} = {zero};")
        w(f"          if (gm < M && gk < K) {{ v = {load_a}; }}")
        w(f"          As[kk * {TILE}u + m] = v; }}")
        w(f"        {{ let e = tid + {r * THREADS * THREADS}u; let kk = e / {TILE}u; let n = e % {TILE}u;")
        w("          let gn = col0 + n; let gk = k0 + kk;")
        w(f"          var v: {ty} = {zero};")
        w(f"          if (gn < N && gk < K) {{ v = {load_b}; }}")
        w(f"          Bs[kk * {TILE}u + n] = v; }}")
    w("        workgroupBarrier();")
    if looped:
        w(f"        for (var kk = 0u; kk < {BK}u; kk = kk + 1u) {{")
        w(f"            for (var q = 0u; q < {R * R}u; q = q + 1u) {{")
        w(f"                let a = As[kk * {TILE}u + lid.y * {R}u + q / {R}u];")
        w(f"                let b = Bs[kk * {TILE}u + lid.x * {R}u + q % {R}u];")
        w(f"                acc[q] = {muladd.format(c='acc[q]', a='a', b='b')};")
        w("            }")
        w("        }")
    for kk in range(0 if looped else BK):
        for i in range(R):
            w(f"        let a{kk}_{i} = As[{kk * TILE}u + lid.y * {R}u + {i}u];")
        for j in range(R):
            w(f"        let b{kk}_{j} = Bs[{kk * TILE}u + lid.x * {R}u + {j}u];")
        for i in range(R):
            for j in range(R):
                acc = muladd.format(c=f"c{i}{j}", a=f"a{kk}_{i}", b=f"b{kk}_{j}")
                w(f"        c{i}{j} = {acc};")
    w("        workgroupBarrier();")
    w("    }")
    for i in range(R):
        for j in range(R):
            acc = f"acc[{i * R + j}]" if looped else f"c{i}{j}"
            st = lanes.store(dtype, "C", "cbase + r * N + c", lanes.wrap(dtype, acc))
            w(f"    {{ let r = row0 + lid.y * {R}u + {i}u; let c = col0 + lid.x * {R}u + {j}u;")
            w(f"      if (r < M && c < N) {{ {st} }} }}")
    w("}")
    code = "\n".join(lines) + "\n"
    return code + helpers_for(code)


def grid(m: int, n: int, batch: int) -> tuple[int, int, int]:
    return (-(-n // TILE), -(-m // TILE), batch)


# ---- float32: 128×128 tiles, 16×8 outputs per thread (PERF_NOTES.md) ---------------------

FAST_BK = 8
# the float32 kernel's shape per WGSL compiler: the workgroup's (columns, rows) of threads
# and each thread's block of C (rows, columns); the tile is 128 × 128 either way. On an
# H200 (session 37, NOTES-kernels-22.md) naga (wgpu-native, Firefox, Deno) ran 4096² at
# 44.6 TFLOP/s with 16 × 8 threads of 16 × 8 where 16 × 16 threads of 8 × 8 ran 39.7;
# Tint (Dawn: Chromium, dawn.node) ran 16 × 16 of 8 × 8 at 39.3-39.7 where 16 × 8 of 16 × 8
# ran 35.1-37.4. Other compilers (WebKit's) take Tint's, the shape measured longest.
F32_SHAPES = {"naga": ((16, 8), (16, 8)), "tint": ((16, 16), (8, 8))}


def f32_shape(compiler: str) -> tuple:
    """``generate_f32``'s shape for a WGSL compiler (the executor's ``wgsl_compiler``)."""
    return F32_SHAPES.get(compiler, F32_SHAPES["tint"])


def generate_f32(vec: bool, batch_ndim: int, update: tuple | None = None,
                 shape: tuple = F32_SHAPES["naga"]) -> str:
    """float32 C = A @ B with a 128×128 block of C per workgroup, BK = 8, in ``shape``
    ((columns, rows) of threads, each thread's (rows, columns) of C: ``F32_SHAPES``); as
    described here, naga's: 16×8 threads, each keeping a 16×8 block in thirty-two named
    vec4 accumulators (rows 32·g + 4·ty..+3 for g < 4, columns 64·h + 4·tx..+3 for h < 2,
    so that neighbouring threads read neighbouring vec4 words of the shared tiles; Tint's
    16×16 threads of 8×8: rows 64·g + 4·ty.., g < 2), and the next tiles are loaded from
    global memory into registers (two vec4 of A and two of B a thread; Tint's one) while
    the current ones are multiplied. vec: A and B have unit column strides and 4-aligned
    offsets and row strides, K and N are multiples of 4, so tiles load and C stores as
    vec4; otherwise any strides, one element at a time. update: C is a view (offset, row
    stride, matrix stride in the uniforms) and the product is subtracted from it in place
    (a factorization's trailing update: C − A·B rounded once after the product, as a
    product subtracted by a second launch); its value gives the binding of A, B and C
    among the distinct buffers bound (a factorization's blocks share one buffer, which
    WebGPU lets a dispatch bind writable only once).

    Every access is in bounds by construction, so the source says so (``IN_BOUNDS``: the
    native executor compiles it without naga's runtime checks, +10-13% at 1024-4096 on an
    H200): each load and store of A, B and C is guarded by the product's bounds (row < M,
    k < K, column < N; the vec4 ones cover 4 columns of K or N, multiples of 4 there) over
    views that lie in their buffers; the tiles' indices stay below 256 by their ranges
    ((ak + c) * 32 + (ar >> 2) + 16 * r with ak + c < 8, ar < 64, r < 2; (bk + 4 * r) * 32
    + (bn >> 2) with bk < 4, r < 2, bn >> 2 < 32; k * 32 + 8 * g + ty with k < 8, g < 4,
    ty < 8; k * 32 + 16 * h + tx with h < 2, tx < 16); the uniforms are read at fixed
    indices (Tint's shape: ar < 128, r < 1, bk < 8, g < 2 and ty < 16)."""
    (wx, wy), (rows, cols) = shape
    threads = wx * wy
    lines = [IN_BOUNDS.rstrip("\n")]
    w = lines.append
    arr = "array<vec4<u32>>" if vec else "array<u32>"
    w("@group(0) @binding(0) var<storage, read> U: array<u32>;")
    roles = update or (0, 1, 2)
    names = [f"X{i}" for i in range(max(roles) + 1)] if update else ["A", "B", "C"]
    A, B, C = (names[r] for r in roles)
    for i, name in enumerate(names):
        access = "read_write" if name == C else "read"
        w(f"@group(0) @binding({i + 1}) var<storage, {access}> {name}: {arr};")
    w("var<workgroup> As: array<vec4<f32>, 256>;")
    w("var<workgroup> Bs: array<vec4<f32>, 256>;")
    w(f"@compute @workgroup_size({wx}, {wy})")
    w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {")
    _read_uniforms(w, batch_ndim, update is not None)
    w("    let row0 = wg.y * 128u; let col0 = wg.x * 128u;")
    w(f"    let tx = lid.x; let ty = lid.y; let tid = ty * {wx}u + tx;")
    # this thread's share of the tiles, twice: A row ar (+ 64), k ak..ak+3; B k bk (+ 4),
    # columns bn..bn+3
    w("    let ar = tid >> 1u; let ak = (tid & 1u) * 4u;")
    w("    let bk = tid >> 5u; let bn = (tid & 31u) * 4u;")
    w("    let gn = col0 + bn;")
    for i in range(rows):
        for h in range(cols // 4):
            w(f"    var c{i}_{h} = vec4<f32>(0.0);")
    share = 256 // threads  # vec4 words of each tile a thread loads

    def loads(k0: str):
        for r in range(share):
            gm, kb = f"(row0 + ar + {64 * r}u)", f"{k0} + bk + {4 * r}u"
            if vec:
                w(f"        {{ let gm = {gm}; let gk = {k0} + ak; pa{r} = vec4<f32>(0.0);")
                w(f"          if (gm < M && gk < K) {{ pa{r} = bitcast<vec4<f32>>({A}[u32(ao + i32(gm) * sam + i32(gk)) >> 2u]); }} }}")
                w(f"        {{ let gk = {kb}; pb{r} = vec4<f32>(0.0);")
                w(f"          if (gn < N && gk < K) {{ pb{r} = bitcast<vec4<f32>>({B}[u32(bo + i32(gk) * sbk + i32(gn)) >> 2u]); }} }}")
                continue
            for c, comp in enumerate("xyzw"):
                w(f"        {{ let gm = {gm}; let gk = {k0} + ak + {c}u; pa{r}.{comp} = 0.0;")
                w(f"          if (gm < M && gk < K) {{ pa{r}.{comp} = bitcast<f32>({A}[u32(ao + i32(gm) * sam + i32(gk) * sak)]); }} }}")
                w(f"        {{ let gk = {kb}; let gc = gn + {c}u; pb{r}.{comp} = 0.0;")
                w(f"          if (gc < N && gk < K) {{ pb{r}.{comp} = bitcast<f32>({B}[u32(bo + i32(gk) * sbk + i32(gc) * sbn)]); }} }}")

    for r in range(share):
        w(f"    var pa{r} = vec4<f32>(0.0); var pb{r} = vec4<f32>(0.0);")
    loads("0u")
    w("    for (var k0 = 0u; k0 < K; k0 = k0 + 8u) {")
    # the prefetched tiles into workgroup memory (A transposed: As[k][row])
    for r in range(share):
        for c, comp in enumerate("xyzw"):
            w(f"        As[(ak + {c}u) * 32u + (ar >> 2u) + {16 * r}u][ar & 3u] = pa{r}.{comp};")
        w(f"        Bs[(bk + {4 * r}u) * 32u + (bn >> 2u)] = pb{r};")
    w("        workgroupBarrier();")
    loads("k0 + 8u")
    for k in range(FAST_BK):
        a = [f"a{g}" for g in range(rows // 4)]
        b = [f"b{h}" for h in range(cols // 4)]
        w("        { " + " ".join(f"let a{g} = As[{k * 32 + wy * g}u + ty];"
                                  for g in range(rows // 4)))
        w("          " + " ".join(f"let b{h} = Bs[{k * 32 + wx * h}u + tx];"
                                  for h in range(cols // 4)))
        for i in range(rows):
            ai = f"vec4<f32>({a[i // 4]}.{'xyzw'[i % 4]})"
            w("          " + " ".join(f"c{i}_{h} = fma({ai}, {b[h]}, c{i}_{h});"
                                      for h in range(cols // 4)))
        w("        }")
    w("        workgroupBarrier();")
    w("    }")
    for i in range(rows):
        r = f"row0 + {4 * wy * (i // 4)}u + ty * 4u + {i % 4}u"
        for h in range(cols // 4):
            col = f"col0 + {4 * wx * h}u + tx * 4u"
            if vec:
                value = f"bitcast<vec4<f32>>({C}[o]) - c{i}_{h}" if update else f"c{i}_{h}"
                w(f"    {{ let r = {r}; let c = {col}; let o = (cbase + r * ldc + c) >> 2u;")
                w(f"      if (r < M && c < N) {{ {C}[o] = bitcast<vec4<u32>>({value}); }} }}")
            else:
                for j, comp in enumerate("xyzw"):
                    value = f"bitcast<f32>({C}[o]) - c{i}_{h}.{comp}" if update else f"c{i}_{h}.{comp}"
                    w(f"    {{ let r = {r}; let c = {col} + {j}u; let o = cbase + r * ldc + c;")
                    w(f"      if (r < M && c < N) {{ {C}[o] = bitcast<u32>({value}); }} }}")
    w("}")
    return "\n".join(lines) + "\n"



def fast_applies(m: int, n: int, batch: int) -> bool:
    """Whether a float32 product takes generate_f32's kernel: always here (on an H100 it
    beat the 64×64 kernel at every size measured, 64×(128×128) batches included)."""
    return True
