"""Matrix products on the device: C = A @ B over broadcast batch dimensions.

The namespace (``_linear_algebra.py``, ``linalg.py``) validates shapes and dtypes and
passes views here; this module binds them to the tiled matmul kernel
(``kernels/webgpu/matmul.py``).
"""

from __future__ import annotations

import math

from ._graph import broadcast_strides, execute
from .kernels.expr import Scalar


def matmul(a, b, batch_shape, out_dtype):
    """C = A @ B over broadcast batch dimensions; a and b are at least 2-D views already
    cast to out_dtype. Returns a new C-contiguous array of batch_shape + (M, N)."""
    from ._array_object import Array
    from .kernels.webgpu import matmul as mm

    m, k = a.shape[-2:]
    n = b.shape[-1]
    device = a.device
    out = Array._empty(tuple(batch_shape) + (m, n), out_dtype, device)
    batch = math.prod(batch_shape)
    if m == 0 or n == 0 or batch == 0:
        return out
    if k == 0:
        return execute(device, out.shape, [(Scalar(0, out_dtype), out)], (), [(out_dtype, 0)])[0]
    nb = len(batch_shape)
    a_b = broadcast_strides(a, tuple(batch_shape) + a.shape[-2:])[:nb]
    b_b = broadcast_strides(b, tuple(batch_shape) + b.shape[-2:])[:nb]
    ex = device.executor
    limit = ex.max_workgroups_per_dim
    for z0 in range(0, batch, limit):
        gx, gy, _ = mm.grid(m, n, 1)
        uniforms = mm.pack_uniforms(
            m, n, k, z0, (a._offset, a._strides[-2], a._strides[-1]),
            (b._offset, b._strides[-2], b._strides[-1]), batch_shape, a_b, b_b,
        )
        device.launch(("matmul", out_dtype.name, nb), lambda: mm.generate(out_dtype, nb),
                      [a._buf, b._buf, out._buf], uniforms, (gx, gy, min(limit, batch - z0)))
    return out
