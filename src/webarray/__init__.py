"""webarray: a strict Python Array API namespace (2025.12) on the GPU, through WebGPU.

    import webarray as xp
    x = xp.linspace(0, 1, 5)
    print(xp.sin(x) ** 2 + xp.cos(x) ** 2)
"""

from __future__ import annotations

__array_api_version__ = "2025.12"

from ._array_object import Array
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._data_type import *  # noqa: F401,F403
from ._data_type import __all__ as _data_type_all
from ._core.device import Device
from ._dtypes import (
    bool, complex64, complex128, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64,
)
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import __all__ as _elementwise_all
from ._info import __array_namespace_info__
from ._linear_algebra import *  # noqa: F401,F403
from ._linear_algebra import __all__ as _linear_algebra_all
from ._manipulation import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._statistical import *  # noqa: F401,F403
from ._searching import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._set import *  # noqa: F401,F403
from ._utility import *  # noqa: F401,F403
from . import _indexing, _manipulation, _searching, _set, _sorting, _statistical, _utility
from . import fft, fusion, linalg, memory
from ._jit import TraceError, jit

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
pi = 3.141592653589793

__all__ = (
    ["__array_api_version__", "__array_namespace_info__", "Array", "Device", "fusion", "memory",
     "jit", "TraceError",
     "e", "inf", "nan", "newaxis", "pi",
     "bool", "complex64", "complex128", "float32", "float64", "int8", "int16", "int32",
     "int64", "uint8", "uint16", "uint32", "uint64"]
    + _creation_all + _data_type_all + _elementwise_all + _linear_algebra_all
    + _manipulation.__all__ + _indexing.__all__ + _statistical.__all__ + _searching.__all__
    + _sorting.__all__ + _set.__all__ + _utility.__all__
)
