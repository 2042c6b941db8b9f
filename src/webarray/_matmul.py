"""Matrix products on the device: C = A @ B over broadcast batch dimensions.

The namespace (``_linear_algebra.py``, ``linalg.py``) validates shapes and dtypes and
passes views here; this module binds them to a tiled matmul kernel of
``Device.kernels.matmul`` (``kernels/webgpu/matmul.py`` on WebGPU): for float32 products
where the generator's ``fast_applies`` says so, the register-blocked 128×128 one (vec4
loads where rows are 16-byte aligned), otherwise the general 64×64 one, which also takes
every other dtype. A K beyond the generator's MAX_K is cut into chunks whose products
are summed.
"""

from __future__ import annotations

import math

from . import _dtypes as dt
from ._graph import broadcast_strides, execute
from .kernels.expr import Scalar
from .kernels.specs import matmul as mspec


def matmul(a, b, batch_shape, out_dtype):
    """C = A @ B over broadcast batch dimensions; a and b are at least 2-D views already
    cast to out_dtype. Returns a new C-contiguous array of batch_shape + (M, N)."""
    from ._array_object import Array

    m, k = a.shape[-2:]
    n = b.shape[-1]
    device = a.device
    mm = device.kernels.matmul  # this device's generator
    out = Array._empty(tuple(batch_shape) + (m, n), out_dtype, device)
    batch = math.prod(batch_shape)
    if m == 0 or n == 0 or batch == 0:
        return out
    if k == 0:
        return execute(device, out.shape, [(Scalar(0, out_dtype), out)], (), [(out_dtype, 0)])[0]
    if k > mm.MAX_K:
        return _split_k(a, b, batch_shape, out_dtype, mm.MAX_K)
    nb = len(batch_shape)
    a_b = broadcast_strides(a, tuple(batch_shape) + a.shape[-2:])[:nb]
    b_b = broadcast_strides(b, tuple(batch_shape) + b.shape[-2:])[:nb]
    ex = device.executor
    limit = ex.max_workgroups_per_dim
    a_view = (a._offset, a._strides[-2], a._strides[-1])
    b_view = (b._offset, b._strides[-2], b._strides[-1])
    if out_dtype is dt.float32 and mm.fast_applies(m, n, batch):
        # vec4 tiles where every row of A and B starts on a 16-byte boundary
        starts = (a._offset, a._strides[-2], b._offset, b._strides[-2], k, n) + tuple(a_b) + tuple(b_b)
        vec = a._strides[-1] == 1 and b._strides[-1] == 1 and all(v % 4 == 0 for v in starts)
        key = ("matmul_f32", vec, nb)
        source = lambda: mm.generate_f32(vec, nb)  # noqa: E731
        tile = mspec.FAST_TILE
    else:
        key = ("matmul", out_dtype.name, nb)
        source = lambda: mm.generate(out_dtype, nb)  # noqa: E731
        tile = mspec.TILE
    gx, gy = -(-n // tile), -(-m // tile)
    for z0 in range(0, batch, limit):
        uniforms = mspec.pack_uniforms(m, n, k, z0, a_view, b_view, batch_shape, a_b, b_b)
        device.launch(key, source, [a._buf, b._buf, out._buf], uniforms,
                      (gx, gy, min(limit, batch - z0)))
    return out


def _split_k(a, b, batch_shape, out_dtype, chunk: int):
    """A @ B for a K longer than one launch takes (lavapipe cuts long invocations short,
    silently: a (1, 2^20) @ (2^20, 1) product of ones gave 524280): the full chunks of K
    become one more batch dimension, (..., c, M, chunk) @ (..., c, chunk, N), whose
    products are summed over it (a tree sum), plus the product of the remainder."""
    from ._array_object import Array
    from ._elementwise import add
    from ._statistical import sum as total_of

    m, k = a.shape[-2:]
    n = b.shape[-1]
    c, rest = divmod(k, chunk)
    sam, sak = a._strides[-2:]
    sbk, sbn = b._strides[-2:]
    av = Array._view(a._buf, a.dtype, a.shape[:-2] + (c, m, chunk), a._strides[:-2] + (chunk * sak, sam, sak),
                     a._offset, a.device)
    bv = Array._view(b._buf, b.dtype, b.shape[:-2] + (c, chunk, n), b._strides[:-2] + (chunk * sbk, sbk, sbn),
                     b._offset, b.device)
    out = total_of(matmul(av, bv, tuple(batch_shape) + (c,), out_dtype), axis=-3, dtype=out_dtype)
    if rest:
        out = add(out, matmul(a[..., :, c * chunk:], b[..., c * chunk:, :], batch_shape, out_dtype))
    return out
