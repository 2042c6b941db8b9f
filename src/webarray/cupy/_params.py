"""Parameter lists of user kernels (``'float32 x, T y, raw T z'``) and argument binding.

A parameter's type is a concrete dtype name in any of the three body forms (``float32``,
``f32``, ``float``) or a placeholder (any other name, such as ``T``) that the arguments
decide. A ``raw`` parameter is the whole array, indexed in the body (``x[j]``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from webarray import _dtypes as dt
from webarray._array_object import Array
from webarray.executors.protocol import KernelError

from ._core import _is_numpy, as_dtype, scalar_value

# concrete type names -> dtype (float64 and double are refused when a kernel is called)
DTYPE_NAMES = {
    "bool": dt.bool, "bool_": dt.bool,
    "int8": dt.int8, "int16": dt.int16, "int32": dt.int32, "int64": dt.int64,
    "uint8": dt.uint8, "uint16": dt.uint16, "uint32": dt.uint32, "uint64": dt.uint64,
    "float32": dt.float32, "float64": dt.float64, "complex64": dt.complex64,
    "complex128": dt.complex128,
    "i32": dt.int32, "u32": dt.uint32, "f32": dt.float32,
    "int": dt.int32, "uint": dt.uint32, "float": dt.float32, "double": dt.float64,
}
REGISTER = {"bool": "bool", "int8": "i32", "int16": "i32", "int32": "i32", "uint8": "u32",
            "uint16": "u32", "uint32": "u32", "float32": "f32"}


class Param(NamedTuple):
    name: str
    type: str  # as written
    dtype: dt.DType | None  # None for a placeholder
    raw: bool


def parse_params(text: str, kernel: str, what: str) -> list[Param]:
    out: list[Param] = []
    text = text.strip()
    if not text:
        return out
    for part in text.split(","):
        words = part.split()
        raw = bool(words) and words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2 or not all(re.fullmatch(r"[A-Za-z_]\w*", w) for w in words):
            raise ValueError(f"kernel {kernel!r}: cannot read the {what} parameter "
                             f"{part.strip()!r}; write 'TYPE NAME' (e.g. 'float32 x')")
        typ, name = words
        out.append(Param(name, typ, DTYPE_NAMES.get(typ), raw))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ValueError(f"kernel {kernel!r}: a parameter name repeats in {text!r}")
    return out


def register_of(dtype: dt.DType, kernel: str, param: str) -> str:
    reg = REGISTER.get(dtype.name)
    if reg is None:
        why = "user kernels take bool, (u)int8/16/32 and float32 registers"
        raise TypeError(f"kernel {kernel!r}: parameter {param!r} is {dtype.name}; {why}")
    return reg


def scalar_dtype(value) -> dt.DType:
    """The dtype a scalar argument gives a placeholder: NumPy scalars keep theirs, Python
    bool/int/float are bool, int32 and float32 (the device's defaults)."""
    if isinstance(value, bool):
        return dt.bool
    if isinstance(value, int):
        return dt.int32
    if isinstance(value, float):
        return dt.float32
    raise TypeError(f"unsupported scalar {value!r}")


def check_scalar(value, dtype: dt.DType, kernel: str, param: str):
    """The Python value a scalar argument passes to a parameter of dtype, or TypeError /
    OverflowError naming the parameter."""
    if isinstance(value, complex):
        raise TypeError(f"kernel {kernel!r}: parameter {param!r} is {dtype.name}, got a complex")
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        if isinstance(value, float):
            if not value.is_integer():
                raise TypeError(f"kernel {kernel!r}: parameter {param!r} is {dtype.name}, "
                                f"got the float {value!r}")
            value = int(value)
        lo, hi = ((0, (1 << dtype.bits) - 1) if dtype.kind == "u"
                  else (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1))
        if not lo <= int(value) <= hi:
            raise OverflowError(f"kernel {kernel!r}: parameter {param!r} is {dtype.name}; "
                                f"{value} is out of its range")
        return int(value)
    return float(value)


def split_args(args, in_params, out_params, kernel: str):
    """A kernel call's arguments: the inputs classified (below) and the outputs given."""
    n_in, n_out = len(in_params), len(out_params)
    if len(args) not in (n_in, n_in + n_out):
        raise TypeError(f"kernel {kernel!r} takes {n_in} inputs (and optionally "
                        f"{n_out} outputs), got {len(args)} arguments")
    return [classify(a, kernel, p.name) for p, a in zip(in_params, args)], list(args[n_in:])


def classify(arg, kernel: str, param: str):
    """('array', Array) or ('scalar', Python value, dtype or None)."""
    if isinstance(arg, Array):
        return ("array", arg, arg._dtype)
    v = scalar_value(arg)
    if v is not None:
        d = None
        if _is_numpy(arg):
            d = as_dtype(arg.dtype)
        return ("scalar", v, d)
    raise TypeError(f"kernel {kernel!r}: parameter {param!r} got a {type(arg).__name__}; "
                    "pass a webarray array or a scalar")


def safe_cast(src: dt.DType, dst: dt.DType) -> bool:
    """NumPy's can_cast(src, dst, 'safe') over the device's dtypes."""
    if src is dst or src.kind == "b":
        return True
    if src.kind in "iu" and dst.kind in "iu":
        if src.kind == dst.kind:
            return dst.bits >= src.bits
        return src.kind == "u" and dst.kind == "i" and dst.bits > src.bits
    if src.kind in "iu" and dst.kind in "fc":
        return src.bits <= (16 if dst in (dt.float32, dt.complex64) else 32)
    return src.kind == "f" and dst.kind == "c" and dst.bits >= 2 * src.bits


def kernel_error(kernel: str, err: KernelError, lang: str) -> KernelError:
    return KernelError(f"kernel {kernel!r}: the generated {lang.upper()} did not compile.\n{err}")
