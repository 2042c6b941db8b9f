"""``cupyx``: the CuPy extras CuPy code (Chainer among it) imports beside ``cupy``.

``webarray.cupy.install()`` registers this package as ``cupyx``; ``cupyx.scipy.linalg``
and ``cupyx.scipy.special`` come with it.
"""

from __future__ import annotations

import webarray as _wa

from .. import _functions as _f
from .._functions import scatter_add  # noqa: F401  (cupyx.scatter_add)
from . import scipy  # noqa: F401


def rsqrt(x, out=None, dtype=None):
    """1 / sqrt(x), elementwise (computed in ``dtype`` when given, as a ufunc's)."""
    return _f.true_divide(1.0, _f.sqrt(x, dtype=dtype), out=out, dtype=dtype)


def get_runtime_info():
    """What CuPy's runtime report would say: the webarray device."""
    dev = _wa.__array_namespace_info__().default_device()
    return f"webarray.cupy on {dev!r}"


__all__ = ["rsqrt", "scatter_add", "get_runtime_info", "scipy"]
