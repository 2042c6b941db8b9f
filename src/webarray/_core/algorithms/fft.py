"""The fft's launches: unnormalised complex64 or complex128 transforms of contiguous rows, as
Stockham passes of ``Device.kernels.fft`` (kernels/webgpu/fft.py; WebGL2 has none).

The namespace (``fft.py``) checks arguments, moves the transformed axis last, composes
Bluestein's transform for lengths with other primes and scales; it calls ``rows`` for
every transform of a length whose prime factors are at most kfft.PRIME_MAX (127). Such a
length runs as one pass per radix of its plan (kernels/specs/fft.py: 1024 by workgroups,
then 32, 16, 4, 2, 3, 5, 7, then primes from 11 by the generic pass), one dispatch per
pass over all rows at once, reading the twiddle table of
its length. Tables (this module's twiddles and the namespace's chirps) are kept per
device and key, for the most recent TABLES_KEPT of them.
"""

from __future__ import annotations

import math

from ... import _dtypes as dt
from ...kernels.specs import fft as kfft
from .. import graph as _graph
from .. import storage as _storage
from .. import tensor
from ..tensor import Tensor

__all__ = ["roots", "rows", "scale", "table", "TABLES_KEPT"]

_tables: dict = {}
TABLES_KEPT = 64  # twiddle and chirp tables of the most recent lengths stay on the device


def table(device, key, make) -> Tensor:
    """A constant record (twiddles, chirps), made once per device and key."""
    t = _tables.get((device, key))
    if t is None:
        t = make()
        if len(_tables) >= TABLES_KEPT:  # two threads may evict the same one
            _tables.pop(next(iter(_tables), None), None)
        _tables[(device, key)] = t
    return t


def _constant(values, device, dtype=dt.complex64) -> Tensor:
    """A new 1-D record of dtype holding the Python values."""
    out = tensor.empty((len(values),), dtype, device)
    device.executor.write(out._buf.handle, 0, _storage.encode(values, dtype))
    return out


def roots(device, n: int, dtype) -> Tensor:
    """The twiddle table of length n: exp(-2 pi i m / n) for m < n in dtype (complex64 or
    complex128), rounded once from float64 and exact at the quarter turns; kept per device."""
    return table(device, ("roots", n, dtype), lambda: _constant(kfft.roots(n), device, dtype))


def rows(x: Tensor, inverse: bool) -> Tensor | None:
    """The unnormalised DFT (exp(+2 pi i ...) if inverse) along the last axis of a
    C-contiguous complex64 or complex128 record of any shape (..., n): a new record of the same
    shape, or None where n has a prime factor beyond kfft.PRIME_MAX (and there are rows to
    transform). The passes of a layout are kept per device (``Device.plans``): a repeated
    transform only allocates its outputs (the plan's record maker) and dispatches."""
    shape, dtype, device = x.shape, x.dtype, x.device
    n = shape[-1] if shape else 1
    batch = math.prod(shape) // n if n else 0
    if batch == 0 or n == 1:
        return _graph.copy_of(x)
    sig = ("fft", n, batch, dtype, inverse, x._offset)
    plan = device.plans.get(sig)
    if plan is None:
        passes = _plan(device, n, batch, dtype, inverse, x._offset)
        if passes is None:
            return None
        # the twiddles held by the plan: a table evicted from _tables lives on with it
        plan = (passes, tensor.maker(dtype, device), roots(device, n, dtype)._buf)
        device.keep_plan(sig, plan)
    passes, new, twiddles = plan
    strides = tensor.c_strides(shape)  # (the call's: rows of one signature come in any rank)
    src = x._buf
    for key, make, uniforms, grid in passes:
        out = new(shape, strides)
        device.launch(key, make, [src, twiddles, out._b], uniforms, grid)
        src = out._b
    return out


def _plan(device, n: int, batch: int, dtype, inverse: bool, offset: int) -> tuple | None:
    """The passes of a transform of batch rows of n: (kernel key, its generator, uniforms,
    grid) each, or None where n has a prime factor beyond kfft.PRIME_MAX."""
    # rows of fewer than 16 transforms take the 1024 pass on GPU adapters only: on lavapipe
    # it ran 256 rows of 1024 in 9.2 ms against the radix-32 passes' 7.8
    radices = kfft.factor(n, wide=dtype is dt.complex128, batch=1 if device.on_cpu else batch)
    if radices is None:
        return None
    limit = device.executor.max_workgroups_per_dim
    passes = []
    ns = 1
    for r in radices:
        total = batch * (n // r)
        if r == kfft.BIG:
            g, first, by_rows = kfft.BIG_GROUP, ns == 1, kfft.big_rows(n)
            key, grid = ("fft", r, inverse, dtype, g, first, by_rows), kfft.grid_big(total, limit)
            make = lambda g=g, first=first, by_rows=by_rows: (  # noqa: E731
                device.kernels.fft.generate_big(inverse, g, first, by_rows))
        else:
            key, grid = ("fft", r, inverse, dtype), kfft.grid(total, limit)
            make = lambda r=r: device.kernels.fft.generate(r, inverse, dtype)  # noqa: E731
        passes.append((key, make, kfft.pack_uniforms(n, ns, total, offset), grid))
        offset = 0
        ns *= r
    return tuple(passes)


def scale(x: Tensor, f: float) -> Tensor:
    """The C-contiguous complex x times the real f, part by part as pocketfft scales: the
    complex product with f + 0i would give inf · 0 = NaN parts."""
    part = dt.float64 if x.dtype is dt.complex128 else dt.float32
    shape = x.shape + (2,)
    parts = tensor.view(x._buf, part, shape, tensor.c_strides(shape), 2 * x._offset, x.device)
    y = _graph.copy_of(_graph.table_op("multiply", (parts,), [(part, f)]))
    return tensor.view(y._buf, x.dtype, x.shape, tensor.c_strides(x.shape), 0, x.device)
