"""Matrix products on the device: C = A @ B over broadcast batch dimensions.

The namespace (``_linear_algebra.py``, ``linalg.py``) validates shapes and dtypes and
passes records here; this module binds them to a tiled matmul kernel of
``Device.kernels.matmul`` (``kernels/webgpu/matmul.py`` on WebGPU): for float32 products
where the generator's ``fast_applies`` says so, the register-blocked 128×128 one (vec4
loads where rows are 16-byte aligned), otherwise the general 64×64 one, which also takes
every other dtype. A K beyond the generator's MAX_K is cut into chunks whose products
are summed, and so is a deep K of a float32 product too small to keep a GPU busy
(``_busy_chunk``).
"""

from __future__ import annotations

import math

from ... import _dtypes as dt
from ...kernels.expr import Scalar
from ...kernels.specs import matmul as mspec
from .. import tensor
from .. import graph, launch
from ..graph import execute
from ..tensor import broadcast_strides
from .reduce import reduce


def matmul(a, b, batch_shape, out_dtype):
    """C = A @ B over broadcast batch dimensions; a and b are at least 2-D views already
    cast to out_dtype. Returns a new C-contiguous array of batch_shape + (M, N)."""
    device = a.device
    # a product of this layout seen before: its kernel, uniforms and grids, straight to the
    # dispatches (a 1024² product issued in ~20 µs on a 2-core VM, most of it deciding again
    # what the last call decided)
    sig = ("matmul", a._shape, a._strides, a._offset, b._shape, b._strides, b._offset,
           tuple(batch_shape), out_dtype, device.wgsl_compiler)
    plan = device.plans.get(sig)
    if plan is not None:
        shape, strides, new, key, source, launches = plan
        out = new(shape, strides)
        buffers = [a._buf, b._buf, out._buf]
        for uniforms, grid in launches:
            device.launch(key, source, buffers, uniforms, grid)
        return out
    m, k = a.shape[-2:]
    n = b.shape[-1]
    mm = device.kernels.matmul  # this device's generator
    out = tensor.empty(tuple(batch_shape) + (m, n), out_dtype, device)
    batch = math.prod(batch_shape)
    if m == 0 or n == 0 or batch == 0:
        return out
    if k == 0:
        return execute(device, out.shape, [(Scalar(0, out_dtype), out)], (), [(out_dtype, 0)])[0]
    limit = mm.max_k(out_dtype)
    if k > limit:
        return _split_k(a, b, batch_shape, out_dtype, limit)
    chunk = _busy_chunk(device, m, n, k, batch, out_dtype)
    if chunk:
        return _split_k(a, b, batch_shape, out_dtype, chunk)
    nb = len(batch_shape)
    pack, starts = _operands(a, b, batch_shape)
    if out_dtype is dt.float32 and mm.fast_applies(m, n, batch):
        vec = _vec4(a, b, starts)
        shape = mm.f32_shape(device.wgsl_compiler)
        key = ("matmul_f32", vec, nb, shape)
        source = lambda: mm.generate_f32(vec, nb, shape=shape)  # noqa: E731
        tile = mspec.FAST_TILE
    elif out_dtype is dt.float64 and device.float64_fma_fused:
        # the device's own fused multiply-add: the product written out, as float32's
        key = ("matmul", out_dtype.name, nb, "unrolled")
        source = lambda: mm.generate(out_dtype, nb, unrolled=True)  # noqa: E731
        tile = mspec.TILE
    else:
        key = ("matmul", out_dtype.name, nb)
        source = lambda: mm.generate(out_dtype, nb)  # noqa: E731
        tile = mspec.TILE
    gx, gy = -(-n // tile), -(-m // tile)
    launches = launch.batches(device, key, source, (a, b, out), batch, pack, tile=(gx, gy))
    device.keep_plan(sig, (out.shape, out._strides, tensor.maker(out_dtype, device), key, source,
                           launches))
    return out


def _operands(a, b, batch_shape, c=None):
    """The uniforms of a product of a and b over batch_shape (a function of the first
    problem of a dispatch; c: an update's destination view, unit column stride, at most
    one batch dimension), and the words that must be multiples of 4 for vec4 tiles."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    nb = len(batch_shape)
    a_b = broadcast_strides(a, tuple(batch_shape) + a.shape[-2:])[:nb]
    b_b = broadcast_strides(b, tuple(batch_shape) + b.shape[-2:])[:nb]
    a_view = (a._offset, a._strides[-2], a._strides[-1])
    b_view = (b._offset, b._strides[-2], b._strides[-1])
    c_view = None if c is None else (c._offset, c._strides[-2], c._strides[0] if nb else 0)
    starts = (a._offset, a._strides[-2], b._offset, b._strides[-2], k, n) + tuple(a_b) + tuple(b_b)
    return ((lambda z0: mspec.pack_uniforms(m, n, k, z0, a_view, b_view, batch_shape, a_b, b_b, c_view)),
            starts + (c_view or ()))


def _vec4(a, b, starts) -> bool:
    """Whether the float32 kernel loads (and stores) vec4: every row of A, B (and C)
    starts on a 16-byte boundary."""
    return a._strides[-1] == 1 and b._strides[-1] == 1 and all(v % 4 == 0 for v in starts)


def subtract_product(c, a, b) -> bool:
    """c −= a @ b in place, in one launch of the float32 kernel: c a float32 view (unit
    column stride; its matrices one stride apart) of (..., M, N), a and b (..., M, K) and
    (..., K, N) float32 views with c's batch shape. Where that launch does not take them
    (another dtype, a K deep enough to be cut), nothing is done and False comes back: the
    caller subtracts a product itself."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    device = c.device
    mm = device.kernels.matmul
    batch_shape = c.shape[:-2]
    batch = math.prod(batch_shape)
    if (c.dtype is not dt.float32 or a.dtype is not dt.float32 or b.dtype is not dt.float32
            or not hasattr(mm, "f32_shape") or c._strides[-1] != 1 or k == 0
            or k > mm.max_k(dt.float32) or _busy_chunk(device, m, n, k, batch, dt.float32)):
        return False
    if m == 0 or n == 0 or batch == 0:
        return True
    nb = len(batch_shape)
    if nb > 1 or c._buf.nbytes > device._piece_bytes:
        return False
    pack, starts = _operands(a, b, batch_shape, c)
    vec = _vec4(a, b, starts)
    # each distinct buffer bound once (WebGPU refuses a buffer bound writable twice in a
    # dispatch, and a factorization's blocks share one): roles say which binding is which
    bufs = []
    for r in (a, b, c):
        if all(u._buf is not r._buf for u in bufs):
            bufs.append(r)
    roles = tuple(next(i for i, u in enumerate(bufs) if u._buf is r._buf) for r in (a, b, c))
    tile = mspec.FAST_TILE
    shape = mm.f32_shape(device.wgsl_compiler)
    launch.batches(device, ("matmul_f32", vec, nb, "update", roles, shape),
                   lambda: mm.generate_f32(vec, nb, update=roles, shape=shape), tuple(bufs),
                   batch, pack,
                   tile=(-(-n // tile), -(-m // tile)))
    return True


# A GPU runs one workgroup of the float32 kernel per 128x128 tile of C: a 1024x1024 product is
# 64 workgroups, which leaves most of an H100's 132 multiprocessors idle. Where the tiles are
# fewer than BUSY_WORKGROUPS and K is deep, K is cut into chunks (at least MIN_CHUNK deep)
# computed side by side as one more batch dimension, then summed (_split_k). Not on CPU
# adapters, where every workgroup already has a core's worth of work.
BUSY_WORKGROUPS = 256
MIN_CHUNK = 256


def _busy_chunk(device, m: int, n: int, k: int, batch: int, out_dtype) -> int:
    """The K chunk that keeps the device busy, or 0 to run the product as one launch."""
    if out_dtype is not dt.float32 or k < 2 * MIN_CHUNK:
        return 0
    if device.on_cpu:
        return 0
    tiles = -(-m // mspec.FAST_TILE) * -(-n // mspec.FAST_TILE) * batch
    if tiles >= BUSY_WORKGROUPS:
        return 0
    parts = min(k // MIN_CHUNK, -(-BUSY_WORKGROUPS // tiles))
    if parts < 2:
        return 0
    chunk = -(-k // parts)
    return (chunk + 7) // 8 * 8  # a multiple of 8: vec4 rows stay 16-byte aligned


def _split_k(a, b, batch_shape, out_dtype, chunk: int):
    """A @ B for a K longer than one launch takes (lavapipe cuts long invocations short,
    silently: a (1, 2^20) @ (2^20, 1) product of ones gave 524280): the full chunks of K
    become one more batch dimension, (..., c, M, chunk) @ (..., c, chunk, N), whose
    products are summed over it (a tree sum), plus the product of the remainder."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    c, rest = divmod(k, chunk)
    sam, sak = a._strides[-2:]
    sbk, sbn = b._strides[-2:]
    av = tensor.view(a._buf, a.dtype, a.shape[:-2] + (c, m, chunk), a._strides[:-2] + (chunk * sak, sam, sak),
                     a._offset, a.device)
    bv = tensor.view(b._buf, b.dtype, b.shape[:-2] + (c, chunk, n), b._strides[:-2] + (chunk * sbk, sbk, sbn),
                     b._offset, b.device)
    out = reduce(matmul(av, bv, tuple(batch_shape) + (c,), out_dtype), (len(batch_shape),), "sum",
                 out_dtype)
    if rest:
        a_rest = tensor.view(a._buf, a.dtype, a.shape[:-1] + (rest,), a._strides,
                             a._offset + c * chunk * sak, a.device)
        b_rest = tensor.view(b._buf, b.dtype, b.shape[:-2] + (rest, n), b._strides,
                             b._offset + c * chunk * sbk, b.device)
        out = graph.table_op("add", (out, matmul(a_rest, b_rest, batch_shape, out_dtype)))
    return out
