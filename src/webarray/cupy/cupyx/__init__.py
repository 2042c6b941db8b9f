"""``cupyx``: the CuPy extras CuPy code (Chainer among it) imports beside ``cupy``.

``webarray.cupy.install()`` registers this package as ``cupyx``; ``cupyx.scipy.linalg``
and ``cupyx.scipy.special`` come with it.
"""

from __future__ import annotations

import webarray as _wa

from .. import _functions as _f
from .._core import to_array as _to_array
from .._core import wrap as _wrap
from . import scipy  # noqa: F401


def rsqrt(x, out=None, dtype=None):
    """1 / sqrt(x), elementwise (computed in ``dtype`` when given, as a ufunc's)."""
    return _f.true_divide(1.0, _f.sqrt(x, dtype=dtype), out=out, dtype=dtype)


def scatter_add(a, slices, value) -> None:
    """``a[slices] += value`` where every repeated position accumulates (NumPy's
    ``np.add.at``): the positions ``slices`` selects are numbered, and the values summed
    per position."""
    positions = _wa.reshape(_wa.arange(a.size, dtype=_wa.int32), a.shape)
    picked = _wrap(positions)[slices]
    vals = _wa.broadcast_to(_to_array(value, a.dtype), picked.shape)
    sums = _f.bincount(_wa.reshape(picked, (-1,)), weights=_wa.reshape(vals, (-1,)), minlength=a.size)
    a += _wa.reshape(_wa.astype(sums, a.dtype), a.shape)


def get_runtime_info():
    """What CuPy's runtime report would say: the webarray device."""
    dev = _wa.__array_namespace_info__().default_device()
    return f"webarray.cupy on {dev!r}"


__all__ = ["rsqrt", "scatter_add", "get_runtime_info", "scipy"]
