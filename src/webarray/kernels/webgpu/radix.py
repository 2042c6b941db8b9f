"""WGSL generators for the LSD radix sort of (key, index) pairs: the WebGPU sort of long
rows (``_core/algorithms/sort.py`` picks it over the bitonic network of ``sort.py`` from
a crossover row length).

Keys are the u32 keys of ``specs/sort.py`` (descending order complemented), so one stable
sort by key is the order the bitonic network gives with its index tie-break. A pass sorts
stably by one digit of BITS bits, least significant first, in the reduce-then-scan form,
which needs no forward-progress guarantee between workgroups (no look-back, no spinning):

- ``keys``: the pairs for the second word of a two-word dtype (key of that word of element
  I[p], I[p]); the first pass makes its pairs (key of element p, and p) in its histogram
  and scatter, from the values. sort of a one-word dtype moves no pairs: every pass
  reads values, computes their keys and writes the values alone (``scatter``'s
  ``values``): keys fold -0.0 into +0.0 and every NaN into one, and the stable passes
  keep those runs in input order with every bit, as sorting pairs would;
- ``histogram``: every block (a workgroup's run of one row) counts its digits with
  workgroup atomics into H[(row * R + digit) * blocks + block] (R = 2**BITS);
- ``offsets``: one workgroup per (row, digit) scans that digit's counts over the row's
  blocks in place (exclusive), a coalesced chunk at a time through workgroup memory,
  giving every block its first place among the row's pairs of that digit, and writes
  the digit's total to T[row * R + digit];
- ``scatter``: every block first scans its row's R digit totals (in workgroup memory), so
  a digit's run starts at row * n (the output rows are unpadded), plus the row's pairs of
  smaller digits, plus its count in earlier blocks. Then it walks its run in tiles of
  TILE pairs. A tile is sorted stably by the digit in workgroup memory, one 4-bit round at a time: each thread counts the
  digits of its ITEMS consecutive pairs, an exclusive scan of the (digit, thread) counts
  in digit-major order gives each thread its first place per digit, and the pairs move
  there. The counts are two 16-bit halves of a word (digits d and d + 8), so the scan
  runs over 8 * WORKGROUP words: 4 KiB, next to the tile's 8 KiB. Then each pair of the
  sorted tile goes to the block's running offset of its digit plus its place within the
  digit's run in the tile; consecutive pairs land in consecutive words.

No subgroup operations (an optional WebGPU feature) and no array indexed by a per-thread
value outside workgroup memory (it would spill to local memory on GPUs, and costs a
scalar loop per lane on lavapipe): a thread's counts are 4-bit fields of two words. The
generators write a thread's loops over its pairs out, one statement per pair, and issue
a thread's loads before its stores: on an H200 the loops over private arrays kept them in
local memory, and a load-then-store loop waits out a memory round trip per pair
(benchmarks/NOTES-sort.md, session 14: the scatter of 2^24 pairs 0.87 -> 0.34 ms; session
33: the rakes' scans of workgroup memory written out the same way, sort 2^24 1.73 -> 1.36).
BITS = 8 over 4: on lavapipe a 2^20-element pass costs about 100 ms with two rounds and
60 ms with one, so four 8-bit passes beat eight 4-bit ones (about 460 ms against 540),
and on a GPU they move half the bytes.

Uniforms (all kernels): n (row length), blocks per row, span (pairs a block covers, a
multiple of TILE), rows * blocks, digit shift, then for ``keys`` T (rows * n), values
offset and flip (xor-ed into keys: 0 or 0xffffffff).
"""

from __future__ import annotations

from ..._dtypes import DType
from .. import lanes
from ..specs.sort import key_function

WORKGROUP = 128
ITEMS = 8  # consecutive pairs a thread ranks
TILE = WORKGROUP * ITEMS
RAKE = 16  # threads that scan the thread totals (then one thread theirs): few barriers
PAD = True  # one unused word after every 32 in SK, SI and CNT: a thread's run of ITEMS words
# starts in another bank than its neighbours' (stride ITEMS would put 32 / ITEMS threads on one)
BITS = 8  # digit width of a pass: a multiple of 4
_ALL = 0xFFFFFFFF

_ENTRY = ("@compute @workgroup_size({wg})\n"
          "fn main(@builtin(workgroup_id) wid: vec3<u32>, "
          "@builtin(num_workgroups) nwg: vec3<u32>, "
          "@builtin(local_invocation_index) lid: u32) {{\n"
          "    let g = wid.x + wid.y * nwg.x;\n")

_BLOCK = ("    let n = U[0]; let B = U[1]; let span = U[2]; let shift = U[4];\n"
          "    if (g >= U[3]) { return; }\n"
          "    let r = g / B; let b = g - r * B;\n"
          "    let start = r * n + b * span; let end = r * n + min(b * span + span, n);\n")


def keys(dtype: DType, gather: bool) -> str:
    """The first pass's pairs: K[p] = key of X[off + i] ^ flip, I[p] = i, where i is p,
    or with gather I[p] (kept). (_core/algorithms/sort.py makes the pairs in the first
    pass's histogram and scatter instead, ``first``, except with gather.)

    Bindings: 1 values (read), 2 keys (write), 3 indices (read-write)."""
    src = "I[p]" if gather else "p"
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read> X: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> K: array<u32>;",
        "@group(0) @binding(3) var<storage, read_write> I: array<u32>;",
        key_function(dtype),
        _ENTRY.format(wg=WORKGROUP),
        f"    let p = g * {WORKGROUP}u + lid;",
        "    if (p >= U[5]) { return; }",
        f"    let i = {src};",
        f"    K[p] = sk_key({lanes.load(dtype, 'X', 'U[6] + i')}) ^ U[7];",
        *([] if gather else ["    I[p] = i;"]),
        "}",
    ]
    return "\n".join(w) + "\n"


def _first_key(dtype: DType, at: str) -> str:
    """The key of element ``at`` of the values X (the first pass reads values, not keys):
    U[5] their offset, U[6] the flip."""
    return f"(sk_key({lanes.load(dtype, 'X', f'U[5] + {at}')}) ^ U[6])"


def histogram(bits: int = BITS, first: DType | None = None) -> str:
    """Digit counts of every block of keys; with ``first`` (the values' dtype), the keys
    of the first pass computed from the values as ``keys`` computes them (no keys pass
    before it; uniforms 5 and 6: the values' offset and the flip). A thread takes ITEMS
    keys WORKGROUP apart at a time (a tile, coalesced), its loads all issued before its
    atomics, written out (a loop of load-then-add waited out a memory round trip per key:
    sort 2^24 on an H200 1.18 -> 1.13 ms, benchmarks/NOTES-sort.md, session 35).

    Bindings: 1 keys or values (read), 2 counts H (write, rows * R * blocks words)."""
    r = 1 << bits

    def key(at: str) -> str:
        return f"K[{at}]" if first is None else _first_key(first, at)

    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        f"@group(0) @binding(1) var<storage, read> {'K' if first is None else 'X'}: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> H: array<u32>;",
        *([] if first is None else [key_function(first)]),
        f"var<workgroup> C: array<atomic<u32>, {r}>;",
        _ENTRY.format(wg=WORKGROUP),
        _BLOCK,
        f"    for (var d = lid; d < {r}u; d = d + {WORKGROUP}u) {{ atomicStore(&C[d], 0u); }}",
        "    workgroupBarrier();",
        f"    for (var p = start + lid; p < end; p = p + {TILE}u) {{",
        # (the last key's index stands in for those past the end: read, not counted)
        *(f"        let p{j} = p + {j * WORKGROUP}u;" for j in range(1, ITEMS)),
        f"        let d0 = ({key('p')} >> shift) & {r - 1}u;",
        *(f"        let d{j} = ({key(f'min(p{j}, end - 1u)')} >> shift) & {r - 1}u;"
          for j in range(1, ITEMS)),
        "        atomicAdd(&C[d0], 1u);",
        *(f"        if (p{j} < end) {{ atomicAdd(&C[d{j}], 1u); }}" for j in range(1, ITEMS)),
        "    }",
        "    workgroupBarrier();",
        f"    for (var d = lid; d < {r}u; d = d + {WORKGROUP}u) {{",
        f"        H[(r * {r}u + d) * B + b] = atomicLoad(&C[d]);",
        "    }",
        "}",
    ]
    return "\n".join(w) + "\n"


def _w(i: str) -> str:
    """Index i of a padded workgroup array (PAD)."""
    return f"({i}) + (({i}) >> 5u)" if PAD else i


def _padded(words: int) -> int:
    return words + (words >> 5 if PAD else 0)


def _rake(a: str, count: int, indent: str = "    ") -> list[str]:
    """Exclusive sum scan of the workgroup array a[0..count) (count a multiple of RAKE):
    RAKE threads scan count / RAKE each, then one thread their totals into TT (TT[RAKE]:
    the whole sum); a[j] + TT[j / (count / RAKE)] is then the scan of element j. Every
    thread must reach it (barriers). Written out, each thread's loads issued before its
    stores: as loops of load-then-store, a chain of workgroup-memory round trips (1 + 16
    of them in the one thread) that every round of the scatter waited out."""
    per = count // RAKE
    w = [
        "workgroupBarrier();",
        f"if (lid < {RAKE}u) {{",
        f"    let q = lid * {per}u;",
        *(f"    let x{j} = {a}[q + {j}u];" for j in range(per)),
        "    var acc = 0u;",
        *(f"    {a}[q + {j}u] = acc; acc = acc + x{j};" for j in range(per)),
        "    TT[lid] = acc;",
        "}",
        "workgroupBarrier();",
        "if (lid == 0u) {",
        *(f"    let t{j} = TT[{j}u];" for j in range(RAKE)),
        "    var acc = 0u;",
        *(f"    TT[{j}u] = acc; acc = acc + t{j};" for j in range(RAKE)),
        f"    TT[{RAKE}u] = acc;",
        "}",
        "workgroupBarrier();",
    ]
    return [indent + line for line in w]


def offsets_chunking(blocks: int) -> tuple[int, bool]:
    """``offsets``' (items, looped) for rows of this many blocks: enough counts a thread
    for one chunk where the blocks are few (on lavapipe, where they are, eight a thread
    over 64 blocks took five times as long as one), at most ITEMS, and a loop of chunks
    only where one does not hold them."""
    need = -(-blocks // WORKGROUP)
    items = min(ITEMS, 1 << max(need - 1, 0).bit_length())
    return items, blocks > items * WORKGROUP


def offsets(bits: int = BITS, items: int = ITEMS, looped: bool = True) -> str:
    """Every (row, digit)'s counts over the row's blocks, scanned in place (exclusive),
    and their total. One workgroup per (row, digit): rows * R of them. The counts go
    through workgroup memory WORKGROUP * items at a time: read and written back
    coalesced, each thread scanning ``items`` consecutive ones, then a rake over the
    thread totals (each thread's run of B / WORKGROUP counts scanned in global memory, a
    load-then-store per count, took 0.05 ms a pass on an H200). Without ``looped``, B is
    at most one chunk.

    Bindings: 1 counts H (read-write), 2 totals T (write, rows * R words)."""
    r = 1 << bits
    per = WORKGROUP // RAKE
    chunk = WORKGROUP * items
    at = lambda i: f"c0 + lid + {i * WORKGROUP}u"  # noqa: E731
    mine = lambda j: _w(f"lid * {items}u + {j}u")  # noqa: E731
    staged = items > 1  # one count a thread needs no exchange through CH
    if staged:
        take = [*(f"        CH[{_w(f'lid + {i * WORKGROUP}u')}] = x{i};" for i in range(items)),
                "        workgroupBarrier();",
                *(f"        let y{j} = CH[{mine(j)}];" for j in range(items))]
        give = [*(f"        CH[{mine(j)}] = acc; acc = acc + y{j};" for j in range(items)),
                "        workgroupBarrier();",
                *(f"        if (live && {at(i)} < B) {{ H[base + {at(i)}] = CH[{_w(f'lid + {i * WORKGROUP}u')}]; }}"
                  for i in range(items)),
                "        workgroupBarrier();"]
    else:
        take = ["        let y0 = x0;"]
        give = [f"        if (live && {at(0)} < B) {{ H[base + {at(0)}] = acc; }}"]
    return "\n".join([
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        "@group(0) @binding(1) var<storage, read_write> H: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> T: array<u32>;",
        *([f"var<workgroup> CH: array<u32, {_padded(chunk)}>;"] if staged else []),
        f"var<workgroup> TS: array<u32, {WORKGROUP}>;",
        f"var<workgroup> TT: array<u32, {RAKE + 1}>;",
        _ENTRY.format(wg=WORKGROUP),
        "    let B = U[1];",
        f"    let groups = (U[3] / B) * {r}u;",  # rows * R; the rest only join barriers
        "    let live = g < groups;",
        "    let base = min(g, groups - 1u) * B;",
        "    var carry = 0u;",
        # (one chunk: no loop around the barriers, which cost lavapipe twice the time)
        (f"    for (var c0 = 0u; c0 < B; c0 = c0 + {chunk}u) {{" if looped else
         "    { let c0 = 0u;"),
        *(f"        let x{i} = select(0u, H[base + min({at(i)}, B - 1u)], {at(i)} < B);"
          for i in range(items)),
        *take,
        "        TS[lid] = " + " + ".join(f"y{j}" for j in range(items)) + ";",
        *_rake("TS", WORKGROUP, "        "),
        f"        var acc = carry + TS[lid] + TT[lid / {per}u];",
        f"        carry = carry + TT[{RAKE}u];",
        *give,
        "    }",
        "    if (live && lid == 0u) { T[g] = carry; }",
        "}",
    ]) + "\n"


def _pick(d: str) -> str:
    """c<d>, for d in 0..7, as a tree of selects (no indexing by a per-thread value)."""
    level = [f"c{j}" for j in range(8)]
    bit = 1
    while len(level) > 1:
        level = [f"select({level[j]}, {level[j + 1]}, ({d} & {bit}u) != 0u)"
                 for j in range(0, len(level), 2)]
        bit *= 2
    return level[0]


def _round(s: int, key=None) -> list[str]:
    """One stable 4-bit counting round over the tile in SK/SI: bits shift + s .. + 3.
    With ``key`` (a function of a value's expression), the tile is SI's values alone and
    their keys are computed from them; the places past the tile's valid entries, which
    stay last, get the largest digit by their place.

    A thread's digit counts are 4-bit fields of two words, lo (digits 0-7) and hi
    (8-15), and its places are picked by selects: no array is indexed by a digit. The
    loops are written out (a thread's pairs in k<i>, v<i>, its count words in w<j>): as
    loops over private arrays the two rounds took 0.33 ms of a 2^24-pair scatter on an
    H200, written out 0.17."""
    per = WORKGROUP // RAKE
    w = ["    {", "        var lo = 0u; var hi = 0u;"]
    for i in range(ITEMS):
        v = f"SI[{_w(f'lid * {ITEMS}u + {i}u')}]"
        w.append(f"        let v{i} = {v}; let k{i} = {key(f'v{i}')};" if key else
                 f"        let k{i} = SK[{_w(f'lid * {ITEMS}u + {i}u')}]; let v{i} = {v};")
    for i in range(ITEMS):
        d = f"(k{i} >> (shift + {s}u)) & 15u"
        if key:
            d = f"select({d}, 15u, lid * {ITEMS}u + {i}u >= valid)"
        w.append(f"        let d{i} = {d}; "
                 f"let f{i} = (d{i} & 7u) * 4u; let g{i} = d{i} >= 8u;")
        w.append(f"        lo = lo + select(1u << f{i}, 0u, g{i}); hi = hi + select(0u, 1u << f{i}, g{i});")
    # word j: this thread's count of digit j (low half) and of digit j + 8; then the
    # exclusive scan of the 8 * WORKGROUP words in order, 8 per thread first
    for j in range(8):
        w.append(f"        CNT[{_w(f'{j * WORKGROUP}u + lid')}] = "
                 f"((lo >> {4 * j}u) & 15u) | (((hi >> {4 * j}u) & 15u) << 16u);")
    w.append("        workgroupBarrier();")
    for j in range(8):
        w.append(f"        let w{j} = CNT[{_w(f'lid * 8u + {j}u')}];")
    w.append("        TS[lid] = " + " + ".join(f"w{j}" for j in range(8)) + ";")
    w += _rake("TS", WORKGROUP, "        ")
    w.append(f"        var run = TS[lid] + TT[lid / {per}u];")
    w.append(f"        let low = TT[{RAKE}u] & 0xffffu;")  # pairs with digits below 8
    for j in range(8):
        w.append(f"        CNT[{_w(f'lid * 8u + {j}u')}] = run; run = run + w{j};")
    w.append("        workgroupBarrier();")
    w += [f"        let c{j} = CNT[{_w(f'{j * WORKGROUP}u + lid')}];" for j in range(8)]
    w.append("        lo = 0u; hi = 0u;")
    for i in range(ITEMS):
        store_k = "" if key else f"SK[{_w('at')}] = k{i}; "
        w.append(f"        {{ let x = {_pick(f'd{i}')}; "
                 f"let at = select(x & 0xffffu, (x >> 16u) + low, g{i}) + ((select(lo, hi, g{i}) >> f{i}) & 15u); "
                 f"lo = lo + select(1u << f{i}, 0u, g{i}); hi = hi + select(0u, 1u << f{i}, g{i}); "
                 f"{store_k}SI[{_w('at')}] = v{i}; }}")
    w += ["        workgroupBarrier();", "    }"]
    return w



def scatter(bits: int = BITS, first: DType | None = None, values: bool = False) -> str:
    """One pass: every block's pairs, tile by tile, to their places in the output. With
    ``first`` (the values' dtype), the first pass's pairs made from the values as ``keys``
    makes them (keys computed, the index the position; uniforms 5 and 6 as
    ``histogram``'s), binding 1 the values, 2 unused.

    Bindings: 1 keys, 2 indices (read), 3 H as ``offsets`` left it, 4 keys, 5 indices
    (write), 6 the digit totals T (read).

    With ``values`` (and ``first``, a one-word dtype), a pass of the sort of the values by
    themselves (``sort_values``): it reads values (from U[5]), computes their keys as the
    first pass does, and writes the values alone, at every pass (the keys are computed
    again from them, so -0.0 and NaNs keep their bits and input order: the sort moves
    half the bytes of one that carries a payload). Bindings: 1 values (read), 2 H, 3 T
    (read), 4 values (write). Its tile is the values alone (SI; no SK), their keys
    computed where a round or the tail needs them: on an H200 the scatter's time follows
    its workgroup memory (4 KiB more took it from 0.26 to 0.32 ms: fewer workgroups an
    SM), and the keys cost a few instructions."""
    r = 1 << bits
    at = lambda i: f"t0 + min(lid + {i * WORKGROUP}u, valid - 1u)"  # noqa: E731
    if values:  # the tile holds values (SI); a key is computed from one where it is needed
        key = lambda v: f"(sk_key({lanes.from_words(first, [v])}) ^ U[6])"  # noqa: E731
        tile, load_i = "SI", (lambda i: f"X[U[5] + {at(i)}]")
        # (binding, name, written), in the order they are declared
        bindings = [(1, "X", False), (2, "S", False), (3, "T", False), (4, "IO", True)]
    else:
        key, tile = None, "SK"
        if first is None:
            load_k, load_i = (lambda i: f"KI[{at(i)}]"), (lambda i: f"II[{at(i)}]")
        else:
            load_k, load_i = (lambda i: _first_key(first, at(i))), at
        bindings = [(1, "KI" if first is None else "X", False), (2, "II", False),
                    (3, "S", False), (6, "T", False), (4, "KO", True), (5, "IO", True)]
    # the digit of a key, or of the key of a value
    digit = lambda e: f"({key(e) if key else e} >> shift) & {r - 1}u"  # noqa: E731
    dig = f"({digit(tile + '[' + _w('{0}') + ']')})"  # of the tile's entry {0}
    w = [
        "@group(0) @binding(0) var<storage, read> U: array<u32>;",
        *(f"@group(0) @binding({j}) var<storage, {'read_write' if written else 'read'}> {name}: array<u32>;"
          for j, name, written in bindings),
        *([] if first is None else [key_function(first)]),
        *([] if values else [f"var<workgroup> SK: array<u32, {_padded(TILE)}>;"]),
        f"var<workgroup> SI: array<u32, {_padded(TILE)}>;",
        # the rounds' counts; after them, where each digit's run starts in the tile
        f"var<workgroup> CNT: array<u32, {_padded(max(8 * WORKGROUP, r))}>;",
        f"var<workgroup> TS: array<u32, {WORKGROUP}>;",
        f"var<workgroup> TT: array<u32, {RAKE + 1}>;",
        f"var<workgroup> OFF: array<u32, {r}>;",
        _ENTRY.format(wg=WORKGROUP),
        _BLOCK,
        # (the block's counts and the row's totals read at once: one memory round trip)
        *(f"    let hs{i} = S[(r * {r}u + min(lid + {i * WORKGROUP}u, {r - 1}u)) * B + b]; "
          f"let ht{i} = T[r * {r}u + min(lid + {i * WORKGROUP}u, {r - 1}u)];" for i in range(-(-r // WORKGROUP))),
        *(f"    if (lid + {i * WORKGROUP}u < {r}u) {{ CNT[lid + {i * WORKGROUP}u] = ht{i}; }}"
          for i in range(-(-r // WORKGROUP))),
        *_rake("CNT", r),
        *(f"    if (lid + {i * WORKGROUP}u < {r}u) {{ let d = lid + {i * WORKGROUP}u; "
          f"OFF[d] = hs{i} + r * n + CNT[d] + TT[d / {r // RAKE}u]; }}" for i in range(-(-r // WORKGROUP))),
        f"    for (var t0 = start; t0 < end; t0 = t0 + {TILE}u) {{",
        f"    let valid = min({TILE}u, end - t0);",
        # pairs past the run get the largest digit in every round: they stay last
        # all of a thread's loads, then its stores: one memory round trip a tile, not ITEMS
        # (a loop of load-then-store per pair took the scatter of 2^24 pairs on an H200
        # from 0.55 to 0.67 ms)
        *(f"    let b{i} = {load_i(i)};" + ("" if values else f" let a{i} = {load_k(i)};")
          for i in range(ITEMS)),
        *(("    " if values else
           f"    SK[{_w(f'lid + {i * WORKGROUP}u')}] = select({_ALL}u, a{i}, lid + {i * WORKGROUP}u < valid); ")
          + f"SI[{_w(f'lid + {i * WORKGROUP}u')}] = b{i};" for i in range(ITEMS)),
        "    workgroupBarrier();",
    ]
    for s in range(0, bits, 4):
        w += _round(s, key)
    w += [
        # the sorted tile out, its pairs j = lid + i * WORKGROUP: where each digit's run
        # starts in the tile (CNT), each pair to its run's place in the output, then each
        # digit's offset moved past its run
        "    {",
        *(f"        let j{i} = lid + {i * WORKGROUP}u; let e{i} = {tile}[{_w(f'j{i}')}]; "
          f"let d{i} = {digit(f'e{i}')};" for i in range(ITEMS)),
        *(f"        if (j{i} < valid && (j{i} == 0u || {dig.format(f'j{i} - 1u')} != d{i})) "
          f"{{ CNT[d{i}] = j{i}; }}" for i in range(ITEMS)),
        "        workgroupBarrier();",
        *(f"        if (j{i} < valid) {{ let at = OFF[d{i}] + j{i} - CNT[d{i}]; "
          + (f"IO[at] = e{i}; }}" if values else f"KO[at] = e{i}; IO[at] = SI[{_w(f'j{i}')}]; }}")
          for i in range(ITEMS)),
        "        workgroupBarrier();",
        *(f"        if (j{i} < valid && (j{i} + 1u == valid || {dig.format(f'j{i} + 1u')} != d{i})) "
          f"{{ OFF[d{i}] = OFF[d{i}] + j{i} + 1u - CNT[d{i}]; }}" for i in range(ITEMS)),
        "        workgroupBarrier();",
        "    }",
        "    }",
        "}",
    ]
    return "\n".join(w) + "\n"
