"""How each dtype is held in WGSL: register type, words per element, reading and writing.

Every WGSL generator (elementwise, reduction, scan, sort, gather, matmul) reads and writes
elements through these functions, so that a dtype stored in two words (int64, uint64,
complex64, arriving with their own issue) is added here once. Buffers are always bound as
``array<u32>``; an element of a two-word dtype occupies words 2i and 2i+1.
"""

from __future__ import annotations

from ..._dtypes import DType
from ..ops import lane_of

_TYPE = {"b": "bool", "i": "i32", "u": "u32", "f": "f32"}
_WRAP = {"int8": "(({0} << 24u) >> 24u)", "int16": "(({0} << 16u) >> 16u)",
         "uint8": "({0} & 0xffu)", "uint16": "({0} & 0xffffu)"}


def wgsl_type(dtype: DType) -> str:
    return _TYPE[lane_of(dtype)]


def words(dtype: DType) -> int:
    """u32 words per stored element."""
    return 1


def load(dtype: DType, buf: str, index: str) -> str:
    """Expression reading element ``index`` (an element index, u32) of binding ``buf``."""
    w = f"{buf}[{index}]"
    return {"b": f"({w} != 0u)", "i": f"bitcast<i32>({w})", "u": w, "f": f"bitcast<f32>({w})"}[lane_of(dtype)]


def store(dtype: DType, buf: str, index: str, value: str) -> str:
    """Statement writing ``value`` (a register of dtype) to element ``index`` of ``buf``."""
    lane = lane_of(dtype)
    word = {"b": f"select(0u, 1u, {value})", "i": f"bitcast<u32>({value})", "u": value,
            "f": f"bitcast<u32>({value})"}[lane]
    return f"{buf}[{index}] = {word};"


def wrap(dtype: DType, expr: str) -> str:
    """Reduce an i32/u32 register to dtype's width (wraparound of the narrow integers)."""
    w = _WRAP.get(dtype.name)
    return w.format(expr) if w else expr


def literal(dtype: DType, value) -> str:
    """A WGSL literal of dtype (value finite; use wa_inf()/wa_nan() helpers otherwise)."""
    lane = lane_of(dtype)
    if lane == "b":
        return "true" if value else "false"
    if lane == "i":
        return f"i32({int(value)})"
    if lane == "u":
        return f"{int(value)}u"
    return f"f32({float(value)!r})"
