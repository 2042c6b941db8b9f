"""Sort keys, shared by ``webgpu/sort.py`` and ``webgl2/sort.py`` (the key function is
written in the WGSL subset both speak) and by ``_set.py``: every dtype's ascending key as
u32 (or a (major, minor) pair for the two-word dtypes), NaN after +inf, -0.0 with +0.0.
float64's pair is the order-preserving u64 of its IEEE bits (sign set for positive values,
every bit flipped for negative ones), complex128's a vec4 of its parts' pairs (real first);
the sort itself orders float64 through int64 keys of the same order, complex128 by one
stable pass per part (``_core/algorithms/sort.py``); these keys serve searches.
"""

from __future__ import annotations

from ..._dtypes import DType
from .. import lanes
from ..ops import lane_of

SENTINEL = 0xFFFFFFFF
NAN_KEY = 0xFFC00000  # the ascending key of every float NaN
NAN_KEY_D = 0xFFF80000  # the major word of every float64 NaN's key (no other key has it)


def _float_key(v: str) -> str:
    return (
        f"    var b = bitcast<u32>({v});\n"
        "    let a = b & 0x7fffffffu;\n"
        "    if (a == 0u) { b = 0u; }\n"  # -0.0 sorts with +0.0
        "    if (a > 0x7f800000u) { b = 0x7fc00000u; }\n"  # one NaN, after +inf
        "    return select(b | 0x80000000u, ~b, (b >> 31u) == 1u);\n"
    )


# the (major, minor) key of a float64's bits (low word first, as registers hold them)
_D_KEY = (
    "fn sk_dkey(v: vec2<u32>) -> vec2<u32> {\n"
    "    var h = v.y; var l = v.x;\n"
    "    let a = h & 0x7fffffffu;\n"
    "    if ((a | l) == 0u) { h = 0u; }\n"  # -0.0 sorts with +0.0
    # one NaN, after +inf
    f"    if (a > 0x7ff00000u || (a == 0x7ff00000u && l != 0u)) {{ h = {NAN_KEY_D & 0x7fffffff:#x}u; l = 0u; }}\n"
    "    if ((h >> 31u) == 1u) { return vec2<u32>(~h, ~l); }\n"
    "    return vec2<u32>(h | 0x80000000u, l);\n}\n"
)


def key_function(dtype: DType) -> str:
    """``fn sk_key(v) -> u32`` for a register of dtype: the ascending sort key. For the
    two-word dtypes (sorted by _sort_impl in two passes of one word each, and searched
    here) the key is a ``vec2<u32>`` (major, minor) compared lexicographically, through
    ``sk_lt`` and ``sk_eq`` which every dtype defines."""
    ty = lanes.wgsl_type(dtype)
    lane = lane_of(dtype)
    cmp = ("fn sk_lt(a: u32, b: u32) -> bool { return a < b; }\n"
           "fn sk_eq(a: u32, b: u32) -> bool { return a == b; }\n")
    if lane == "Z":  # (real part's pair, imaginary part's pair), lexicographic
        return (_D_KEY + f"fn sk_key(v: {ty}) -> vec4<u32> {{\n"
                "    return vec4<u32>(sk_dkey(v.xy), sk_dkey(v.zw));\n}\n"
                "fn sk_lt(a: vec4<u32>, b: vec4<u32>) -> bool {\n"
                "    if (a.x != b.x) { return a.x < b.x; }\n"
                "    if (a.y != b.y) { return a.y < b.y; }\n"
                "    if (a.z != b.z) { return a.z < b.z; }\n"
                "    return a.w < b.w;\n}\n"
                "fn sk_eq(a: vec4<u32>, b: vec4<u32>) -> bool {\n"
                "    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;\n}\n")
    if lane in "IUcD":
        if lane == "D":
            pre = _D_KEY
            body = "    return sk_dkey(v);\n"
        elif lane == "c":
            pre = f"fn sk_fkey(v: f32) -> u32 {{\n{_float_key('v')}}}\n"
            body = "    return vec2<u32>(sk_fkey(v.x), sk_fkey(v.y));\n"
        else:
            pre = ""
            sign = " ^ 0x80000000u" if lane == "I" else ""
            body = f"    return vec2<u32>(v.y{sign}, v.x);\n"
        return (pre + f"fn sk_key(v: {ty}) -> vec2<u32> {{\n{body}}}\n"
                "fn sk_lt(a: vec2<u32>, b: vec2<u32>) -> bool {\n"
                "    return a.x < b.x || (a.x == b.x && a.y < b.y);\n}\n"
                "fn sk_eq(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }\n")
    if lane == "f":
        body = _float_key("v")
    elif lane == "i":
        body = "    return bitcast<u32>(v) ^ 0x80000000u;\n"
    elif lane == "u":
        body = "    return v;\n"
    else:
        body = "    return select(0u, 1u, v);\n"
    return f"fn sk_key(v: {ty}) -> u32 {{\n{body}}}\n" + cmp


def not_nan(dtype: DType) -> str:
    """WGSL text `` && ...`` that holds when the query key ``kq`` is not a NaN's (a NaN is
    never a member); empty for dtypes without NaN."""
    nan = f"{NAN_KEY:#x}u"
    return {"f": f" && kq != {nan}", "c": f" && kq.x != {nan} && kq.y != {nan}",
            "D": f" && kq.x != {NAN_KEY_D:#x}u",
            "Z": f" && kq.x != {NAN_KEY_D:#x}u && kq.z != {NAN_KEY_D:#x}u"}.get(lane_of(dtype), "")
