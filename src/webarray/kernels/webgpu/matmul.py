"""WGSL generator for batched, strided matrix products C = A @ B.

A workgroup of 16x16 threads computes a TILE x TILE block of C, each thread a RxR
sub-block held in named scalar accumulators; A and B go through workgroup-memory tiles
BK deep. The inner product is written out line by line: naga does not keep loops over
private arrays in registers (PERF_NOTES.md), so the generator unrolls instead.

A and B are read through arbitrary strides (transposed views cost nothing) and batch
dimensions are broadcast by stride 0. C is written C-contiguous. Elements are read and
written through lanes.py; int64/uint64 accumulate with the word-pair helpers of
wgsl_int64.py (wrapping modulo 2^64), complex64 with the plain complex product.

Uniform words: M, N, K, z base, A offset, A row stride, A column stride, B offset, B row
stride, B column stride, then per batch dimension (outermost first): size, A stride,
B stride.
"""

from __future__ import annotations

import array

from ..._dtypes import DType
from ..ops import lane_of
from . import lanes, wgsl_complex, wgsl_int64  # noqa: F401  (register their helpers)
from .wgsl_lib import helpers_for

R = 4  # outputs per thread along each axis
THREADS = 16
TILE = THREADS * R
BK = 16

# c + a * b in the accumulator's lane
_MULADD = {"I": "wa_add64({c}, wa_mul64({a}, {b}))", "U": "wa_add64({c}, wa_mul64({a}, {b}))",
           "c": "{c} + vec2<f32>({a}.x * {b}.x - {a}.y * {b}.y, {a}.x * {b}.y + {a}.y * {b}.x)"}


def generate(dtype: DType, batch_ndim: int) -> str:
    ty, zero = lanes.wgsl_type(dtype), lanes.literal(dtype, 0)
    muladd = _MULADD.get(lane_of(dtype), "{c} + {a} * {b}")
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
    w("    let M = U[0]; let N = U[1]; let K = U[2];")
    w("    var z = wg.z + U[3];")
    w("    var ao = bitcast<i32>(U[4]); var bo = bitcast<i32>(U[7]);")
    w("    let cbase = z * M * N;")
    for d in range(batch_ndim - 1, -1, -1):
        at = 10 + 3 * d
        w(f"    {{ let c = i32(z % U[{at}]); z = z / U[{at}];"
          f" ao = ao + c * bitcast<i32>(U[{at + 1}]); bo = bo + c * bitcast<i32>(U[{at + 2}]); }}")
    w("    let sam = bitcast<i32>(U[5]); let sak = bitcast<i32>(U[6]);")
    w("    let sbk = bitcast<i32>(U[8]); let sbn = bitcast<i32>(U[9]);")
    w(f"    let row0 = wg.y * {TILE}u; let col0 = wg.x * {TILE}u;")
    w(f"    let tid = lid.y * {THREADS}u + lid.x;")
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
    for kk in range(BK):
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
            st = lanes.store(dtype, "C", "cbase + r * N + c", lanes.wrap(dtype, f"c{i}{j}"))
            w(f"    {{ let r = row0 + lid.y * {R}u + {i}u; let c = col0 + lid.x * {R}u + {j}u;")
            w(f"      if (r < M && c < N) {{ {st} }} }}")
    w("}")
    code = "\n".join(lines) + "\n"
    return code + helpers_for(code)


def pack_uniforms(m, n, k, zbase, a_view, b_view, batch_shape, a_batch, b_batch) -> bytes:
    """a_view/b_view: (offset, row stride, column stride); *_batch: strides per batch dim."""
    words = [m, n, k, zbase, *a_view, *b_view]
    for size, sa, sb in zip(batch_shape, a_batch, b_batch):
        words += [size, sa, sb]
    return array.array("I", [v & 0xFFFFFFFF for v in words]).tobytes()


def grid(m: int, n: int, batch: int) -> tuple[int, int, int]:
    return (-(-n // TILE), -(-m // TILE), batch)
