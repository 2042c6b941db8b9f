"""WGSL generators for sorting and for searching in sorted keys (rows from a crossover length
or more sort by the radix sort of ``radix.py`` instead, to the same pairs).

Sorting works on (key, index) pairs held in two u32 buffers. A *key* is a u32 whose
unsigned order is the sort order of the values: floats have -0.0 folded onto +0.0 and
every NaN folded onto one NaN that sorts after +inf; signed integers flip their sign bit;
descending order complements the key. Ties are broken by the index, so the network below,
which is not stable by itself, sorts stably.

The network is a bitonic sort in its "flip" form, in which every block of every stage
sorts ascending. Truncated at stage P (a power of two), it sorts each aligned run of P
elements on its own, so a batch of rows padded to P with sentinel pairs (key and index
0xffffffff, after every real pair) sorts in one set of launches:

- ``block_sort``: a workgroup loads BLOCK pairs (building them from the values), runs
  every stage up to min(P, BLOCK) in workgroup memory, and writes them back;
- ``global_steps``: up to MAX_FUSED consecutive compare-exchange steps whose distances
  are BLOCK or more, the elements they connect held in registers;
- ``block_merge``: the steps of one stage whose distances are below BLOCK.

``search`` binary-searches sorted keys (or sorted values, any dtype) for query values
(searchsorted and isin). Every kernel reads and writes elements through lanes.py.

Uniform words are listed at each generator.
"""

from __future__ import annotations

from ..._dtypes import DType
from .. import lanes
from . import radix  # noqa: F401  (Device.kernels.radix: the registry loads sort, radix with it)
from ..specs.sort import SENTINEL, key_function, not_nan

WORKGROUP = 256
PER_THREAD = 4  # compare-exchanges per thread and step of the block kernels
BLOCK = 2 * WORKGROUP * PER_THREAD  # pairs a workgroup sorts in workgroup memory
MAX_FUSED = 4  # global steps one launch of global_steps may do (2**4 elements per thread)
_LESS = """
fn sk_after(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
    return ka > kb || (ka == kb && ia > ib);
}
"""

_ENTRY = ("@compute @workgroup_size({wg})\n"
          "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
          "@builtin(num_workgroups) nwg: vec3<u32>, "
          "@builtin(local_invocation_index) lid: u32) {{\n"
          "    let g = wid.x + wid.y * nwg.x;\n")


def _block_cx(indent: str, partner: str) -> list[str]:
    """Compare-exchange of pair q (< BLOCK/2) in workgroup memory; `partner` computes
    (lo, hi) from q, k and j."""
    lines = []
    for m in range(PER_THREAD):
        lines += [
            f"{indent}{{ let q = lid + {m * WORKGROUP}u;",
            f"{indent}  {partner}",
            f"{indent}  let ka = SK[lo]; let ia = SI[lo]; let kb = SK[hi]; let ib = SI[hi];",
            f"{indent}  if (sk_after(ka, ia, kb, ib)) {{",
            f"{indent}    SK[lo] = kb; SI[lo] = ib; SK[hi] = ka; SI[hi] = ia; }} }}",
        ]
    return lines


_FLIP = "let lo = ((q & ~(h - 1u)) << 1u) | (q & (h - 1u)); let hi = lo ^ (2u * h - 1u);"
_HALF = "let lo = ((q & ~(j - 1u)) << 1u) | (q & (j - 1u)); let hi = lo + j;"


def block_sort(dtype: DType) -> str:
    """Build pairs from rows of values and sort them up to stage kmax.

    Bindings: 1 values (read), 2 keys (write), 3 indices (write). Uniforms: n (row
    length), P (padded row length), T (rows * P), values offset, flip (0 or 0xffffffff,
    xor-ed into keys for descending order), kmax. A pair's index is its element's position
    in the row-major values (row * n + i)."""
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read> X: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> K: array<u32>;",
        "@group(0) @binding(3) var<storage, read_write> I: array<u32>;",
        f"var<workgroup> SK: array<u32, {BLOCK}>;",
        f"var<workgroup> SI: array<u32, {BLOCK}>;",
        key_function(dtype) + _LESS,
        _ENTRY.format(wg=WORKGROUP),
        "    let n = U[0]; let P = U[1]; let T = U[2]; let off = U[3]; let flip = U[4];",
        "    let kmax = U[5];",
        f"    let base = g * {BLOCK}u;",
        f"    for (var e = lid; e < {BLOCK}u; e = e + {WORKGROUP}u) {{",
        "        let p = base + e;",
        f"        var k = {SENTINEL}u; var ix = {SENTINEL}u;",
        "        if (p < T) {",
        "            let r = p / P; let i = p - r * P;",
        "            if (i < n) {",
        "                ix = r * n + i;",
        f"                k = sk_key({lanes.load(dtype, 'X', 'off + ix')}) ^ flip;",
        "            }",
        "        }",
        "        SK[e] = k; SI[e] = ix;",
        "    }",
        "    workgroupBarrier();",
        "    for (var h = 1u; 2u * h <= kmax; h = h * 2u) {",
        *_block_cx("        ", _FLIP),
        "        workgroupBarrier();",
        "        for (var j = h / 2u; j > 0u; j = j / 2u) {",
        *_block_cx("            ", _HALF),
        "            workgroupBarrier();",
        "        }",
        "    }",
        _store_block(),
        "}",
    ]
    return "\n".join(w) + "\n"


def _store_block() -> str:
    return (f"    for (var e = lid; e < {BLOCK}u; e = e + {WORKGROUP}u) {{\n"
            "        let p = base + e;\n"
            "        if (p < T) { K[p] = SK[e]; I[p] = SI[e]; }\n"
            "    }")


def block_merge() -> str:
    """The steps of distance BLOCK/2 .. 1 of a stage, in workgroup memory.

    Bindings: 1 keys, 2 indices (read-write). Uniforms: T."""
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read_write> K: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> I: array<u32>;",
        f"var<workgroup> SK: array<u32, {BLOCK}>;",
        f"var<workgroup> SI: array<u32, {BLOCK}>;",
        _LESS,
        _ENTRY.format(wg=WORKGROUP),
        "    let T = U[0];",
        f"    let base = g * {BLOCK}u;",
        f"    for (var e = lid; e < {BLOCK}u; e = e + {WORKGROUP}u) {{",
        "        let p = base + e;",
        "        if (p < T) { SK[e] = K[p]; SI[e] = I[p]; }",
        f"        else {{ SK[e] = {SENTINEL}u; SI[e] = {SENTINEL}u; }}",
        "    }",
        "    workgroupBarrier();",
        f"    for (var j = {BLOCK // 2}u; j > 0u; j = j / 2u) {{",
        *_block_cx("        ", _HALF),
        "        workgroupBarrier();",
        "    }",
        _store_block(),
        "}",
    ]
    return "\n".join(w) + "\n"


def _progression(lines: list, elems: list[int], steps: int) -> None:
    """Half-cleaner steps over registers of an arithmetic progression of 2**steps elements,
    distances 2**(steps-1) .. 1 in units of the progression's step."""
    for s in range(steps - 1, -1, -1):
        d = 1 << s
        for a in range(len(elems)):
            if not a & d:
                lines.append(_cx_regs(elems[a], elems[a + d]))


def _cx_regs(a: int, b: int) -> str:
    return (f"    {{ let s = sk_after(k{a}, i{a}, k{b}, i{b}); let ka = select(k{a}, k{b}, s); "
            f"let ia = select(i{a}, i{b}, s); k{b} = select(k{b}, k{a}, s); "
            f"i{b} = select(i{b}, i{a}, s); k{a} = ka; i{a} = ia; }}")


def global_steps(steps: int, flip: bool) -> str:
    """``steps`` consecutive compare-exchange steps over all pairs, distances h, h/2, ...,
    h / 2**(steps-1) (the last one BLOCK or more): each thread holds the 2**steps elements
    those steps connect in registers. With flip, the first step is the flip step of stage
    2h (element p of each 2h-block meets element 2h-1-p) instead of a half-cleaner.

    Bindings: 1 keys, 2 indices (read-write). Uniforms: T / 2**steps, h."""
    n = 1 << steps
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read_write> K: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> I: array<u32>;",
        _LESS,
        _ENTRY.format(wg=WORKGROUP),
        f"    let q = g * {WORKGROUP}u + lid;",
        "    if (q >= U[0]) { return; }",
        "    let h = U[1];",
        f"    let u = h >> {steps - 1}u;",
        # the lowest element: q with `steps` zero bits inserted at the bit of u
        f"    let lo = ((q & ~(u - 1u)) << {steps}u) | (q & (u - 1u));",
    ]
    if flip:
        # first half: lo + k*u; second half, ascending: its mirror image, also step u
        half = n // 2
        w.append("    let hi = (lo ^ (2u * h - 1u)) - " + f"{half - 1}u * u;")
        addr = [f"lo + {k}u * u" for k in range(half)] + [f"hi + {k}u * u" for k in range(half)]
    else:
        addr = [f"lo + {k}u * u" for k in range(n)]
    for k, a in enumerate(addr):
        w.append(f"    let p{k} = {a}; var k{k} = K[p{k}]; var i{k} = I[p{k}];")
    if flip:
        half = n // 2
        for k in range(half):
            w.append(_cx_regs(k, n - 1 - k))
        _progression(w, list(range(half)), steps - 1)
        _progression(w, list(range(half, n)), steps - 1)
    else:
        _progression(w, list(range(n)), steps)
    for k in range(n):
        w.append(f"    K[p{k}] = k{k}; I[p{k}] = i{k};")
    w.append("}")
    return "\n".join(w) + "\n"


def search(dtype: DType, sorted_keys: bool, member: bool) -> str:
    """Binary search of each query value among m sorted elements.

    Bindings: 1 sorted (keys if sorted_keys, else values of dtype), 2 queries (values of
    dtype, contiguous), 3 output. Uniforms: m, sorted offset, q (query count), queries
    offset, right (1: first position whose key exceeds the query's; 0: first whose key is
    not below it), invert. With member, the output is a bool (found, xor invert) instead of
    the position; a NaN query is never found."""
    read = "S[so + mid]" if sorted_keys else f"sk_key({lanes.load(dtype, 'S', 'so + mid')})"
    if member:
        nan_check = not_nan(dtype)
        result = [
            "    var found = false;",
            "    if (lo < m) {",
            f"        let mid = lo; found = sk_eq({read}, kq){nan_check};",
            "    }",
            "    O[t] = select(0u, 1u, found != (U[5] != 0u));",
        ]
    else:
        result = ["    O[t] = lo;"]
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read> S: array<u32>;",
        "@group(0) @binding(2) var<storage, read> Q: array<u32>;",
        "@group(0) @binding(3) var<storage, read_write> O: array<u32>;",
        key_function(dtype),
        _ENTRY.format(wg=WORKGROUP),
        f"    let t = g * {WORKGROUP}u + lid;",
        "    if (t >= U[2]) { return; }",
        "    let m = U[0]; let so = U[1]; let right = U[4] != 0u;",
        f"    let kq = sk_key({lanes.load(dtype, 'Q', 'U[3] + t')});",
        "    var lo = 0u; var hi = m;",
        "    loop {",
        "        if (lo >= hi) { break; }",
        "        let mid = (lo + hi) / 2u;",
        f"        let km = {read};",
        "        if (sk_lt(km, kq) || (right && sk_eq(km, kq))) { lo = mid + 1u; }",
        "        else { hi = mid; }",
        "    }",
        *result,
        "}",
    ]
    return "\n".join(w) + "\n"
