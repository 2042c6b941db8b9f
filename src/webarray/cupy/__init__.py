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

from . import _chainer_compat, _util, cuda, fft, lib, linalg, random
from . import _core
from ._util import clear_memo, memoize  # noqa: F401
from ._core import ndarray  # noqa: F401
from ._core import numpy_module as _numpy_module
from ._einsum import einsum  # noqa: F401
from ._elementwise_kernel import ElementwiseKernel  # noqa: F401
from ._functions import *  # noqa: F401,F403
from ._fuse import Fusion, fuse  # noqa: F401
from ._memory import get_default_memory_pool, get_default_pinned_memory_pool  # noqa: F401
from ._raw_kernel import RawKernel  # noqa: F401
from ._reduction_kernel import ReductionKernel  # noqa: F401

_core._install_operators()

# The CuPy release whose interface this follows (Chainer 7 reads the major version).
__version__ = "7.8.0"

# dtypes: NumPy's scalar types where NumPy is present (as CuPy's are, and as ndarray.dtype
# is a numpy.dtype there), else webarray's dtype objects; `x.dtype == cp.float32` holds both
# ways. Without NumPy they are looked up at each use (__getattr__ below), since Pyodide can
# load NumPy after this module was imported (from a memory snapshot, say).
_names = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128")
_ALIASES = {"bool_": "bool", "single": "float32", "double": "float64", "intc": "int32",
            "uintc": "uint32", "float_": "float32", "int_": "int32"}
_ALIASES.update({n: n for n in _names if n != "bool"})


def _dtype_types() -> dict:
    np = _core.numpy_now()
    if np is not None:
        return {n: getattr(np, n + ("_" if n == "bool" else "")) for n in _names}
    return {n: _dt.by_name[n] for n in _names}


def _bind_dtype_names() -> None:
    types = _dtype_types()
    for alias, name in _ALIASES.items():
        globals()[alias] = types[name]


if _core.numpy_now() is not None:
    _bind_dtype_names()  # fixed for good: plain module attributes


def __getattr__(name: str):
    if name in _ALIASES:
        if _core.numpy_now() is not None:  # NumPy arrived: bind once, as natively
            _bind_dtype_names()
        return _dtype_types()[_ALIASES[name]]
    raise AttributeError(f"module 'webarray.cupy' has no attribute {name!r}")


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


def chainer_compat() -> None:
    """Only the compatibility hook that lets Chainer 7.8.1 import on NumPy 2 (see
    ``_chainer_compat``), without taking ``cupy``'s place: for Chainer on NumPy or on a
    real CuPy. ``install()`` applies it too."""
    _chainer_compat.install_hook()


def install(force: bool = False) -> bool:
    """Make ``import cupy`` (and ``cupy.random``, ``cupy.cuda``, ``cupyx``) give this module,
    unless a real CuPy is importable (``force=True`` takes its place even then, e.g. to
    compare the two in separate processes), and let Chainer 7.8.1 import unchanged on
    NumPy 2 (``_chainer_compat``). Returns whether it did. Call it before anything
    imports ``cupy``."""
    import importlib.util

    current = _sys.modules.get("cupy")
    if current is _sys.modules[__name__]:
        return True
    if current is not None:
        return False
    if not force:
        try:
            found = importlib.util.find_spec("cupy") is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return False
    me = _sys.modules[__name__]
    from . import cupyx  # cupyx is imported only when it is being installed as `cupyx`

    _sys.modules["cupy"] = me
    _sys.modules["cupy.random"] = random
    _sys.modules["cupy.cuda"] = cuda
    _sys.modules["cupy.linalg"] = linalg
    _sys.modules["cupy.fft"] = fft
    _sys.modules["cupy.lib"] = lib
    _sys.modules["cupy.lib.stride_tricks"] = lib.stride_tricks
    _sys.modules["cupy._util"] = _sys.modules["cupy.util"] = _util
    _sys.modules["cupyx"] = cupyx
    _sys.modules["cupyx.scipy"] = cupyx.scipy
    _sys.modules["cupyx.scipy.linalg"] = cupyx.scipy.linalg
    _sys.modules["cupyx.scipy.special"] = cupyx.scipy.special
    _chainer_compat.install_hook()
    return True

