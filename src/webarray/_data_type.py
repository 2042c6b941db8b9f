"""Data type functions of the standard: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

from dataclasses import dataclass

from . import _dtypes as dt
from ._core import graph as _graph
from ._array_object import Array
from ._elementwise import scalar_dtype_check

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def astype(x: Array, dtype: dt.DType, /, *, copy: bool = True, device=None) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"astype requires an array, got {type(x).__name__}")
    if not isinstance(dtype, dt.DType):
        raise TypeError(f"astype requires a webarray dtype, got {dtype!r}")
    if device is not None:
        x = x.to_device(device)
    src = x._dtype  # (not the dtype property: a CuPy array's inspects its caller)
    if dtype is src and not copy:
        return x
    if dtype not in x._device.dtypes:
        x._device.check_dtype(dtype)  # raises, saying which dtypes the device has
    if src.kind == "c" and dtype.kind != "c":
        raise TypeError(f"astype cannot convert complex {src.name} to {dtype.name}; take real() first")
    return _graph.copy_of(x, dtype)


def _as_dtype(v, what: str) -> dt.DType:
    if isinstance(v, Array):
        return v.dtype
    if isinstance(v, dt.DType):
        return v
    raise TypeError(f"{what} requires a webarray dtype or array, got {v!r}")


def can_cast(from_: dt.DType | Array, to: dt.DType, /) -> bool:
    """For a dtype, the standard's full promotion graph; for an array, the graph of its
    device: a dtype the device cannot store is never a cast target."""
    src = _as_dtype(from_, "can_cast")
    if not isinstance(to, dt.DType):
        raise TypeError(f"can_cast requires a webarray dtype as 'to', got {to!r}")
    if isinstance(from_, Array) and to not in from_.device.dtypes:
        return False
    return dt.promotion_table.get((src, to)) is to


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: dt.DType


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: dt.DType


_FINFO = {
    dt.float32: (32, 2.0 ** -23, (2 - 2.0 ** -23) * 2.0 ** 127, 2.0 ** -126),
    dt.float64: (64, 2.0 ** -52, 1.7976931348623157e308, 2.0 ** -1022),
}


def finfo(type: dt.DType | Array, /) -> finfo_object:
    d = _as_dtype(type, "finfo")
    real = dt.real_of(d)
    if real not in _FINFO:
        raise TypeError(f"finfo requires a floating-point dtype, got {d.name}")
    bits, eps, mx, tiny = _FINFO[real]
    return finfo_object(bits, eps, mx, -mx, tiny, real)


def iinfo(type: dt.DType | Array, /) -> iinfo_object:
    d = _as_dtype(type, "iinfo")
    if d not in dt.integer_dtypes:
        raise TypeError(f"iinfo requires an integer dtype, got {d.name}")
    if d.kind == "u":
        return iinfo_object(d.bits, (1 << d.bits) - 1, 0, d)
    return iinfo_object(d.bits, (1 << (d.bits - 1)) - 1, -(1 << (d.bits - 1)), d)


def isdtype(dtype: dt.DType, kind) -> bool:
    if not isinstance(dtype, dt.DType):
        raise TypeError(f"isdtype requires a webarray dtype, got {dtype!r}")
    if isinstance(kind, tuple):
        return any(_is_kind(dtype, k) for k in kind)
    return _is_kind(dtype, kind)


def _is_kind(dtype: dt.DType, kind) -> bool:
    if isinstance(kind, dt.DType):
        return dtype is kind
    if isinstance(kind, str):
        if kind not in dt.kinds:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; allowed: {', '.join(repr(k) for k in dt.kinds)}"
            )
        return dtype in dt.kinds[kind]
    raise TypeError(
        f"isdtype: kind must be a dtype, a kind name or a tuple of them, got {kind!r}"
    )


def result_type(*arrays_and_dtypes) -> dt.DType:
    """With an array among the arguments, the promotion graph of the arrays' device applies:
    a result the device cannot store (int32 with uint32 gives int64) raises TypeError."""
    dtypes = []
    scalars = []
    devices = []
    for a in arrays_and_dtypes:
        if isinstance(a, (bool, int, float, complex)):
            scalars.append(a)
        else:
            dtypes.append(_as_dtype(a, "result_type"))
            if isinstance(a, Array) and a.device not in devices:
                devices.append(a.device)
    if not dtypes:
        raise ValueError("result_type requires at least one array or dtype")
    if len(devices) > 1:
        raise ValueError(f"result_type: arrays are on different devices {devices}")
    res = dt.promote_all(dtypes)

    for s in scalars:
        if isinstance(s, complex) and not isinstance(s, (bool, int, float)) and res.kind == "f":
            res = dt.complex_of(res)
        scalar_dtype_check(s, res, "result_type")
    if devices:
        devices[0].check_dtype(res)
    return res
