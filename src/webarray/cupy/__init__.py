"""webarray.cupy: CuPy's interface over webarray, so CuPy code runs on the browser's GPU.

    import webarray.cupy as cp
    x = cp.linspace(0, 1, 1000)
    y = cp.sin(x).sum()

Arrays are ``cp.ndarray`` (a ``webarray.Array`` with NumPy's methods and promotion rules);
functions carry NumPy's names and semantics, built on the strict namespace, which stays
strict. ``install()`` makes ``import cupy`` give this module where no real CuPy is
installed. Dtype defaults follow the device (float32, int32) and float64 is refused
with TypeError: see ``docs/cupy.md``.
"""

from __future__ import annotations

import sys as _sys

import webarray as _wa
from webarray import _dtypes as _dt

from . import cuda, random
from . import _core
from ._core import ndarray  # noqa: F401
from ._core import numpy_module as _numpy_module
from ._elementwise_kernel import ElementwiseKernel  # noqa: F401
from ._functions import *  # noqa: F401,F403
from ._fuse import Fusion, fuse  # noqa: F401
from ._memory import get_default_memory_pool, get_default_pinned_memory_pool  # noqa: F401
from ._raw_kernel import RawKernel  # noqa: F401
from ._reduction_kernel import ReductionKernel  # noqa: F401

_core._install_operators()

# dtypes: webarray's dtype objects (array.dtype is one of them, so `x.dtype == cp.float32`)
bool_ = _dt.bool
int8, int16, int32, int64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
uint8, uint16, uint32, uint64 = _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64
float32, float64 = _dt.float32, _dt.float64
complex64, complex128 = _dt.complex64, _dt.complex128
single, double = float32, float64
intc, uintc = int32, uint32
float_ = float32
int_ = int32

pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A NumPy copy of a (device arrays are read back; other objects go through
    ``numpy.asarray``). Needs NumPy: without it (Pyodide here) RuntimeError says to use
    ``a.tolist()`` or ``a.tobytes()``."""
    np = _numpy_module()
    # a device array's copy is the caller's to write (np.asarray alone gives it read-only)
    res = np.asarray(a, copy=True) if isinstance(a, _wa.Array) else np.asarray(a)
    if out is not None:
        out[...] = res
        return out
    return res


def get_array_module(*args):
    """This module if any argument is a webarray array, else NumPy (as CuPy does)."""
    for a in args:
        if isinstance(a, _wa.Array):
            return _sys.modules[__name__]
    return _numpy_module()


def is_available() -> bool:
    return True


def show_config() -> None:
    dev = _wa.__array_namespace_info__().default_device()
    print(f"webarray.cupy on {dev!r}: {dict(dev.executor.adapter_info)}")


def install() -> bool:
    """Make ``import cupy`` (and ``cupy.random``, ``cupy.cuda``) give this module, unless a
    real CuPy is importable. Returns whether it did."""
    import importlib.util

    current = _sys.modules.get("cupy")
    if current is _sys.modules[__name__]:
        return True
    if current is not None:
        return False
    try:
        found = importlib.util.find_spec("cupy") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return False
    me = _sys.modules[__name__]
    _sys.modules["cupy"] = me
    _sys.modules["cupy.random"] = random
    _sys.modules["cupy.cuda"] = cuda
    return True

