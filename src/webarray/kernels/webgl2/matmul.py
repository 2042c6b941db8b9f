"""GLSL generator for batched, strided matrix products C = A @ B: the WebGL2 counterpart
of ``kernels/webgpu/matmul.py`` (same bindings and uniform words). One fragment per
word of C computes its element's dot product over K in order, each term as the tiled
kernels compute it (``specs.matmul.MULADD``); C is C-contiguous. There is no
register-blocked float32 kernel (no workgroup memory to share tiles in):
``generate_f32`` is the general kernel for float32.
"""

from __future__ import annotations

from ..._dtypes import DType, float32
from ..ops import lane_of
from .. import lanes
from ..specs.matmul import MULADD
from .program import draw, load, to_word

LIMIT = 65535  # batch entries per launch: the executor's max_workgroups_per_dim on WebGL2
MAX_K = 8192  # the most K one draw takes: a fragment loops over K one step at a time
MAX_K_F64 = 2048  # float64's: each step one software fused multiply-add


def max_k(dtype: DType) -> int:
    """The deepest K one draw of ``generate(dtype, ...)`` takes."""
    return MAX_K_F64 if lane_of(dtype) == "D" else MAX_K


def fast_applies(m: int, n: int, batch: int) -> bool:
    return False


def generate_f32(vec: bool, batch_ndim: int) -> str:
    """The float32 product: the general kernel (vec4 loads buy nothing from textures)."""
    return generate(float32, batch_ndim)


def generate(dtype: DType, batch_ndim: int) -> str:
    if lane_of(dtype) == "Z":  # as on WebGPU: complex128 products are composed term by term
        raise TypeError("the matmul kernel has no complex128 lane")
    ty, zero = lanes.wgsl_type(dtype), lanes.literal(dtype, 0)
    muladd = MULADD.get(lane_of(dtype), "{c} + {a} * {b}")
    L = ["fn wa_value(t: u32) -> u32 {",
         "    let M = U[0].x; let N = U[0].y; let K = U[0].z;",
         "    let mn = M * N;",
         "    var z = U[0].w + t / mn;",
         "    let r = (t % mn) / N; let c = t % N;",
         "    var ao = bitcast<i32>(U[1].x); var bo = bitcast<i32>(U[1].w);"]
    for d in range(batch_ndim - 1, -1, -1):
        at = 10 + 3 * d
        u = lambda k: f"U[{k >> 2}].{'xyzw'[k & 3]}"  # noqa: E731
        L.append(f"    {{ let cd = i32(z % {u(at)}); z = z / {u(at)}; "
                 f"ao = ao + cd * bitcast<i32>({u(at + 1)}); bo = bo + cd * bitcast<i32>({u(at + 2)}); }}")
    L += ["    let sam = bitcast<i32>(U[1].y); let sak = bitcast<i32>(U[1].z);",
          "    let sbk = bitcast<i32>(U[2].x); let sbn = bitcast<i32>(U[2].y);",
          "    let ar = ao + i32(r) * sam; let bc = bo + i32(c) * sbn;",
          f"    var acc: {ty} = {zero};",
          "    for (var k = 0u; k < K; k = k + 1u) {",
          f"        let a = {load(dtype, 1, 'u32(ar + i32(k) * sak)')};",
          f"        let b = {load(dtype, 2, 'u32(bc + i32(k) * sbk)')};",
          f"        acc = {muladd.format(c='acc', a='a', b='b')};",
          "    }",
          f"    return {to_word(dtype, lanes.wrap(dtype, 'acc'))};", "}"]
    # the batch entries of this launch: all that are left, at most LIMIT
    sizes = " * ".join(f"U[{(10 + 3 * d) >> 2}][{(10 + 3 * d) & 3}]" for d in range(batch_ndim)) or "1u"
    count = f"min({LIMIT}u, ({sizes}) - U[0].w) * U[0].x * U[0].y"
    return draw(3, [1, 2], "\n".join(L) + "\n", first="U[0].w * U[0].x * U[0].y", count=count,
                words=lanes.words(dtype))
