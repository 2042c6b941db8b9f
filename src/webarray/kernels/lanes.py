"""How each dtype is held in WGSL: register type, words per element, reading and writing.

Every WGSL generator (elementwise, reduction, scan, sort, gather, matmul) reads and writes
elements through these functions. Buffers are always bound as ``array<u32>``; an element
of a two-word dtype occupies words 2i and 2i+1: int64 and uint64 as ``vec2<u32>`` (low word
first, two's complement), float64 as ``vec2<u32>`` holding its IEEE bits (low word first;
its arithmetic is software binary64, ``wgsl_f64.py``), complex64 as ``vec2<f32>`` (real
part first). complex128 takes four words, 4i to 4i+3, as a ``vec4<u32>``: its real part's
float64 bits, then its imaginary part's (``wgsl_complex128.py``).
"""

from __future__ import annotations

import math
import struct

from .._dtypes import DType
from .._dtypes import float32 as _F32
from .._dtypes import float64 as _F64
from .ops import lane_of

_TYPE = {"b": "bool", "i": "i32", "u": "u32", "f": "f32",
         "I": "vec2<u32>", "U": "vec2<u32>", "D": "vec2<u32>", "c": "vec2<f32>",
         "Z": "vec4<u32>"}
_PAIR = "IUDc"  # lanes of two words
_WRAP = {"int8": "(({0} << 24u) >> 24u)", "int16": "(({0} << 16u) >> 16u)",
         "uint8": "({0} & 0xffu)", "uint16": "({0} & 0xffffu)"}


def wgsl_type(dtype: DType) -> str:
    return _TYPE[lane_of(dtype)]


def words(dtype: DType) -> int:
    """u32 words per stored element."""
    lane = lane_of(dtype)
    return 4 if lane == "Z" else 2 if lane in _PAIR else 1


def load(dtype: DType, buf: str, index: str) -> str:
    """Expression reading element ``index`` (an element index, u32) of binding ``buf``."""
    return load_with(dtype, lambda k: f"{buf}[{k}]", index)


def load_with(dtype: DType, read, index: str) -> str:
    """Expression reading element ``index`` of a buffer whose word k reads as ``read(k)``
    (WGSL's ``buf[k]``, WebGL2's ``ld<b>(k)``)."""
    n = words(dtype)
    if n == 1:
        return from_words(dtype, [read(index)])
    at = f"{n}u * ({index})"
    return from_words(dtype, [read(at)] + [read(f"{at} + {j}u") for j in range(1, n)])


def from_words(dtype: DType, ws) -> str:
    """A register of dtype from the expressions of its u32 words, low word first."""
    lane = lane_of(dtype)
    if lane == "Z":
        return f"vec4<u32>({', '.join(ws)})"
    if lane in _PAIR:
        pair = f"vec2<u32>({ws[0]}, {ws[1]})"
        return f"bitcast<vec2<f32>>({pair})" if lane == "c" else pair
    w = ws[0]
    return {"b": f"({w} != 0u)", "i": f"bitcast<i32>({w})", "u": w, "f": f"bitcast<f32>({w})"}[lane]


def as_words(dtype: DType, value: str) -> str:
    """A register of dtype as its u32 word (one-word dtypes) or vector of words."""
    lane = lane_of(dtype)
    if lane == "c":
        return f"bitcast<vec2<u32>>({value})"
    if lane in "IUDZ":
        return value
    return {"b": f"select(0u, 1u, {value})", "i": f"bitcast<u32>({value})", "u": value,
            "f": f"bitcast<u32>({value})"}[lane]


def store(dtype: DType, buf: str, index: str, value: str) -> str:
    """Statement writing ``value`` (a register of dtype) to element ``index`` of ``buf``."""
    n = words(dtype)
    w = as_words(dtype, value)
    if n == 1:
        return f"{buf}[{index}] = {w};"
    at = f"{n}u * ({index})"
    parts = " ".join(f"{buf}[{at}{f' + {j}u' if j else ''}] = st_v.{'xyzw'[j]};" for j in range(n))
    return f"{{ let st_v = {w}; {parts} }}"


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
    if lane in "IUD":
        v = (struct.unpack("<Q", struct.pack("<d", float(value)))[0] if lane == "D"
             else int(value) & 0xFFFFFFFFFFFFFFFF)
        return f"vec2<u32>({v & 0xFFFFFFFF}u, {v >> 32}u)"
    if lane == "c":
        v = complex(value)
        return f"vec2<f32>(f32({v.real!r}), f32({v.imag!r}))"
    if lane == "Z":
        w = scalar_words(dtype, value)
        return f"vec4<u32>({w[0]}u, {w[1]}u, {w[2]}u, {w[3]}u)"
    return f"f32({float(value)!r})"


def cast(src: DType, dst: DType, v: str) -> str:
    """Convert a register of dtype src to dtype dst with astype semantics.

    Float to bool tests the bits (NaN is nonzero, so True), since a compiler may treat
    ``x != 0.0`` as an ordered comparison. complex to real is refused before this point.
    """
    a, b = lane_of(src), lane_of(dst)
    if a == b and src.bits <= dst.bits:
        return v  # widening within a lane, or the same lane
    if a == "Z" and b not in "bZ":  # complex128 to complex64 by parts, to a real its real part
        if b == "c":
            return (f"vec2<f32>({cast(_F64, _F32, f'({v}).xy')}, "
                    f"{cast(_F64, _F32, f'({v}).zw')})")
        return cast(_F64, dst, f"({v}).xy")
    if b == "Z":
        if a == "c":
            return f"vec4<u32>(wa_f64_from_f32(({v}).x), wa_f64_from_f32(({v}).y))"
        return f"vec4<u32>({cast(src, _F64, v)}, 0u, 0u)"
    if b == "b":
        return {"i": f"({v} != 0)", "u": f"({v} != 0u)",
                "f": f"((bitcast<u32>({v}) & 0x7fffffffu) != 0u)",
                "I": f"(({v}).x != 0u || ({v}).y != 0u)", "U": f"(({v}).x != 0u || ({v}).y != 0u)",
                "D": f"((({v}).x | (({v}).y & 0x7fffffffu)) != 0u)",
                "c": f"(((bitcast<u32>(({v}).x) | bitcast<u32>(({v}).y)) & 0x7fffffffu) != 0u)",
                "Z": f"((({v}).x | (({v}).y & 0x7fffffffu) | ({v}).z | (({v}).w & 0x7fffffffu)) != 0u)"}[a]
    if b == "f":
        return {"b": f"select(0.0, 1.0, {v})", "i": f"f32({v})", "u": f"f32({v})",
                "I": f"wa_i64_to_f32({v})", "U": f"wa_u64_to_f32({v})",
                "D": f"bitcast<f32>(wa_f64_to_f32_bits({v}))", "c": f"({v}).x"}[a]
    if b == "c":
        return f"vec2<f32>({cast(src, _F32, v)}, 0.0)" if a != "c" else v
    if b == "D":
        return {"b": f"select(vec2<u32>(0u, 0u), vec2<u32>(0u, 0x3ff00000u), {v})",
                "i": f"wa_f64_from_i32({v})", "u": f"wa_f64_from_u32({v})",
                "f": f"wa_f64_from_f32({v})", "I": f"wa_f64_from_i64({v})",
                "U": f"wa_f64_from_u64({v})", "D": v}[a]
    if b in "IU":
        return {"b": f"vec2<u32>(select(0u, 1u, {v}), 0u)", "i": f"wa_i64_from_i32({v})",
                "u": f"vec2<u32>({v}, 0u)", "f": f"wa_f32_to_i64({v})",
                "D": f"wa_f64_to_i64({v})" if b == "I" else f"wa_f64_to_u64({v})",
                "I": v, "U": v}[a]
    if b == "i":
        e = {"b": f"select(0, 1, {v})", "u": f"bitcast<i32>({v})", "f": f"i32({v})",
             "I": f"bitcast<i32>(({v}).x)", "U": f"bitcast<i32>(({v}).x)",
             "D": f"wa_f64_to_i32({v})", "i": v}[a]
    else:
        e = {"b": f"select(0u, 1u, {v})", "i": f"bitcast<u32>({v})",
             "f": f"select(u32({v}), bitcast<u32>(i32({v})), {v} < 0.0)",
             "I": f"({v}).x", "U": f"({v}).x", "u": v,
             # NumPy converts float64 to uint8/uint16 through int32
             "D": f"wa_f64_to_u32({v})" if dst.bits == 32 else f"bitcast<u32>(wa_f64_to_i32({v}))"}[a]
    return wrap(dst, e)


def scalar_words(dtype: DType, value) -> list[int]:
    """The uniform words that carry a Python scalar of dtype (already validated)."""
    lane = lane_of(dtype)
    if lane == "b":
        return [1 if value else 0]
    if lane == "f":
        return [struct.unpack("<I", f32_bytes(float(value)))[0]]
    if lane == "c":
        v = complex(value)
        return scalar_words(_F32, v.real) + scalar_words(_F32, v.imag)
    if lane in "IU":
        v = int(value) & 0xFFFFFFFFFFFFFFFF
        return [v & 0xFFFFFFFF, v >> 32]
    if lane == "D":
        return list(struct.unpack("<2I", struct.pack("<d", float(value))))
    if lane == "Z":
        v = complex(value)
        return list(struct.unpack("<4I", struct.pack("<2d", v.real, v.imag)))
    return [int(value) & 0xFFFFFFFF]


def scalar_expr(dtype: DType, at) -> str:
    """Expression reading a scalar of dtype from uniform words at ``at`` (an int, or a
    WGSL u32 expression)."""
    def word(j: int) -> str:
        if isinstance(at, int):
            return f"U[{at + j}]"
        return f"U[{at}]" if j == 0 else f"U[{at} + {j}u]"
    return from_words(dtype, [word(j) for j in range(words(dtype))])


def f32_bytes(v: float) -> bytes:
    """float32 bytes of a Python float, rounding past the largest float32 to infinity."""
    try:
        return struct.pack("<f", v)
    except OverflowError:  # rounds past the largest float32: IEEE gives infinity
        return struct.pack("<f", math.copysign(math.inf, v))
