"""How values of each dtype sit in a device buffer, seen from the host.

Every dtype of 32 bits or less takes one little-endian 32-bit word per element (bool as
0/1, narrow integers sign- or zero-extended); int64 and uint64 take two words (low word
first), float64 its two IEEE words (low first) and complex64 two float32 words (real
first), complex128 four words (its two float64 parts, real first), which is exactly NumPy's
layout of those dtypes. Nothing here needs NumPy; the NumPy fast paths use ``NUMPY_STORAGE``.
"""

from __future__ import annotations

import array as _pyarray

from .. import _dtypes as dt
from ..kernels.lanes import f32_bytes

_TYPECODE = {"b": "I", "i": "i", "u": "I", "f": "f"}
_WIDE = {dt.int64: "q", dt.uint64: "Q", dt.float64: "d", dt.complex64: "f", dt.complex128: "d"}

NUMPY_STORAGE = {"b": "<u4", "i": "<i4", "u": "<u4", "f": "<f4"}
_NUMPY_WIDE = {dt.int64: "<i8", dt.uint64: "<u8", dt.float64: "<f8", dt.complex64: "<c8",
               dt.complex128: "<c16"}


def element_bytes(dtype: dt.DType) -> int:
    return 16 if dtype is dt.complex128 else 8 if dtype in _WIDE else 4


def numpy_storage(dtype: dt.DType) -> str:
    return _NUMPY_WIDE.get(dtype) or NUMPY_STORAGE[dtype.kind]


def decode(raw: bytes, dtype: dt.DType) -> list:
    """Python values (bool, int, float, complex) from stored bytes."""
    code = _WIDE.get(dtype) or _TYPECODE[dtype.kind]
    values = memoryview(raw).cast(code).tolist()
    if dtype.kind == "b":
        return [v != 0 for v in values]
    if dtype.kind == "c":
        return [complex(values[i], values[i + 1]) for i in range(0, len(values), 2)]
    return values


def encode(values, dtype: dt.DType) -> bytes:
    """Stored bytes of Python values already validated for dtype."""
    if dtype.kind == "b":
        return _pyarray.array("I", [1 if v else 0 for v in values]).tobytes()
    if dtype.kind == "c":
        parts = []
        for v in values:
            v = complex(v)
            parts += [v.real, v.imag]
        return encode(parts, dt.float64 if dtype is dt.complex128 else dt.float32)
    if dtype is dt.float64:
        return _pyarray.array("d", [float(v) for v in values]).tobytes()
    if dtype.kind == "f":
        try:
            return _pyarray.array("f", values).tobytes()
        except (OverflowError, TypeError):
            return b"".join(f32_bytes(float(v)) for v in values)
    code = _WIDE.get(dtype) or _TYPECODE[dtype.kind]
    return _pyarray.array(code, [int(v) for v in values]).tobytes()
