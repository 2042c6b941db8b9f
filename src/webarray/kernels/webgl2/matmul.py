"""GLSL generator for batched, strided matrix products C = A @ B: the WebGL2 counterpart
of ``kernels/webgpu/matmul.py`` (same bindings and uniform words). One fragment per
element of C computes its dot product over K in order; C is C-contiguous. There is no
register-blocked float32 kernel (no workgroup memory to share tiles in):
``generate_f32`` is the general kernel for float32.
"""

from __future__ import annotations

from ..._dtypes import DType, float32
from ..ops import lane_of
from .. import lanes
from .program import draw

LIMIT = 65535  # batch entries per launch: the executor's max_workgroups_per_dim on WebGL2
MAX_K = 8192  # the most K one draw takes: a fragment loops over K one step at a time


def max_k(dtype: DType) -> int:
    """The deepest K one draw of ``generate(dtype, ...)`` takes."""
    return MAX_K


def fast_applies(m: int, n: int, batch: int) -> bool:
    return False


def generate_f32(vec: bool, batch_ndim: int) -> str:
    """The float32 product: the general kernel (vec4 loads buy nothing from textures)."""
    return generate(float32, batch_ndim)


def _load(dtype: DType, binding: int, index: str) -> str:
    w = f"ld{binding}({index})"
    return {"b": f"({w} != 0u)", "i": f"bitcast<i32>({w})", "u": w,
            "f": f"bitcast<f32>({w})"}[lane_of(dtype)]


def _to_word(dtype, v: str) -> str:
    return {"b": f"select(0u, 1u, {v})", "i": f"bitcast<u32>({v})", "u": v,
            "f": f"bitcast<u32>({v})"}[lane_of(dtype)]


def generate(dtype: DType, batch_ndim: int) -> str:
    if lanes.words(dtype) != 1:
        raise TypeError(f"matmul of {dtype.name} is not supported on WebGL2")
    ty, zero = lanes.wgsl_type(dtype), lanes.literal(dtype, 0)
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
          f"        acc = acc + {_load(dtype, 1, 'u32(ar + i32(k) * sak)')} * "
          f"{_load(dtype, 2, 'u32(bc + i32(k) * sbk)')};",
          "    }",
          f"    return {_to_word(dtype, lanes.wrap(dtype, 'acc'))};", "}"]
    # the batch entries of this launch: all that are left, at most LIMIT
    sizes = " * ".join(f"U[{(10 + 3 * d) >> 2}][{(10 + 3 * d) & 3}]" for d in range(batch_ndim)) or "1u"
    count = f"min({LIMIT}u, ({sizes}) - U[0].w) * U[0].x * U[0].y"
    return draw(3, [1, 2], "\n".join(L) + "\n", first="U[0].w * U[0].x * U[0].y", count=count)
