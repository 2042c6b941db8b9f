"""GLSL generators for sorting and searching: the WebGL2 counterpart of
``kernels/webgpu/sort.py``, with the same kernels, bindings and uniform words, so
``_core/algorithms/sort.py`` runs the same bitonic network on both.

Without workgroup memory there is nothing to sort "in a block": BLOCK is 1 and
MAX_FUSED 1, so ``block_sort`` only builds the (key, index) pairs, every compare-exchange
step of every stage is one ``global_steps`` launch (one fragment per element: it finds
its partner, compares the two pairs and keeps its side's winner, reading the pairs as
they were before the launch, which the backend guarantees), and ``block_merge`` has no
steps left to do. Keys and the stable tie-break by index are WebGPU's (``key_function``).
"""

from __future__ import annotations

import re

from ..._dtypes import DType
from .. import lanes
from ..specs.sort import SENTINEL, key_function, not_nan
from .program import draw, load

WORKGROUP = 1  # _sort_impl sizes grids in workgroups of this many: here, elements
BLOCK = 1
MAX_FUSED = 1

_AFTER = """fn sk_after(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
    return ka > kb || (ka == kb && ia > ib);
}
"""


def _fns(src: str) -> list[str]:
    return [f for f in re.split(r"(?m)^(?=fn )", src) if f.strip()]


def _check(dtype: DType) -> None:
    if lanes.words(dtype) != 1:  # _core/algorithms/sort.py sorts them a word at a time
        raise TypeError(f"the sorting network takes one-word keys, not {dtype.name}")


def block_sort(dtype: DType) -> str:
    """Pairs from rows of values (bindings: 1 values, 2 keys, 3 indices; uniforms n, P,
    T, values offset, flip, kmax: as on WebGPU; kmax is 1 here)."""
    _check(dtype)
    head = ("    let n = U[0].x; let P = U[0].y; let off = U[0].w; let flip = U[1].x;\n"
            "    let r = p / P; let i = p - r * P;\n")
    key = ("fn wa_value(p: u32) -> u32 {\n" + head +
           f"    if (i >= n) {{ return {SENTINEL}u; }}\n"
           f"    return sk_key({load(dtype, 1, 'off + r * n + i')}) ^ flip;\n}}\n")
    index = ("fn wa_value(p: u32) -> u32 {\n" + head +
             f"    if (i >= n) {{ return {SENTINEL}u; }}\n"
             "    return r * n + i;\n}\n")
    extra = _fns(key_function(dtype))
    return (draw(2, [1], key, first="0u", count="U[0].z", extra=extra)
            + draw(3, [1], index, first="0u", count="U[0].z", extra=extra))


def global_steps(steps: int, flip: bool) -> str:
    """One compare-exchange step of distance h over all pairs (bindings 1 keys, 2 indices;
    uniforms T / 2, h); with flip, element p of each 2h-block meets element 2h-1-p."""
    if steps != 1:
        raise ValueError("WebGL2 sorting steps one distance per launch (MAX_FUSED = 1)")
    partner = "p ^ (2u * h - 1u)" if flip else "p ^ h"

    def value(binding: int) -> str:
        return ("fn wa_value(p: u32) -> u32 {\n"
                "    let h = U[0].y;\n"
                f"    let q = {partner};\n"
                "    let kp = ld1(p); let ip = ld2(p); let kq = ld1(q); let iq = ld2(q);\n"
                "    let lo = min(p, q);\n"
                # the pair (lo, hi) swaps when lo's element sorts after hi's
                "    let swap = select(sk_after(kq, iq, kp, ip), sk_after(kp, ip, kq, iq), p == lo);\n"
                f"    return select({'kp' if binding == 1 else 'ip'}, "
                f"{'kq' if binding == 1 else 'iq'}, swap);\n}}\n")
    count = "U[0].x * 2u"
    return (draw(1, [1, 2], value(1), first="0u", count=count, extra=[_AFTER])
            + draw(2, [1, 2], value(2), first="0u", count=count, extra=[_AFTER]))


def block_merge() -> str:
    """Nothing is left below distance BLOCK = 1: an empty draw."""
    return draw(1, [], "fn wa_value(p: u32) -> u32 {\n    return 0u;\n}\n",
                first="0u", count="0u")


def search(dtype: DType, sorted_keys: bool, member: bool) -> str:
    """Binary search of each query among m sorted elements (bindings 1 sorted, 2 queries,
    3 output; uniforms m, sorted offset, q, queries offset, right, invert: as on WebGPU)."""
    read = "ld1(so + mid)" if sorted_keys else f"sk_key({load(dtype, 1, 'so + mid')})"
    if member:
        found = f"sk_eq({read}, kq)" + not_nan(dtype)
        result = ("    var found = false;\n"
                  f"    if (lo < m) {{ let mid = lo; found = {found}; }}\n"
                  "    return select(0u, 1u, found != (U[1].y != 0u));\n")
    else:
        result = "    return lo;\n"
    value = ("fn wa_value(t: u32) -> u32 {\n"
             "    let m = U[0].x; let so = U[0].y; let right = U[1].x != 0u;\n"
             f"    let kq = sk_key({load(dtype, 2, 'U[0].w + t')});\n"
             "    var lo = 0u; var hi = m;\n"
             "    loop {\n"
             "        if (lo >= hi) { break; }\n"
             "        let mid = (lo + hi) / 2u;\n"
             f"        let km = {read};\n"
             "        if (sk_lt(km, kq) || (right && sk_eq(km, kq))) { lo = mid + 1u; }\n"
             "        else { hi = mid; }\n"
             "    }\n" + result + "}\n")
    return draw(3, [1, 2], value, first="0u", count="U[0].z", extra=_fns(key_function(dtype)))
