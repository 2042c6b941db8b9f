"""WGSL generator for one pass of a batched Stockham FFT over complex64 rows.

Rows of length n lie back to back (row b at element b * n). A transform of n = R1 * R2 *
... is one dispatch per radix R (32, 16, 4, 2, 3, 5 or 7, or a prime from 11 to
specs.fft.PRIME_MAX by ``generate_prime``), reading one buffer and writing another;
the Stockham ordering leaves the result in natural order without a bit-reversal pass.
In a pass each thread takes one butterfly of one row: with T = n / R and Ns the product of
the radices of the earlier passes, thread j reads elements j + r * T, multiplies element r
by the twiddle w^(k r) (k = j mod Ns, w = exp(-2 pi i / (Ns R))), applies a length-R DFT
written out with literal constants (32 and 16 as one split into DFTs of 4, 8 = 4·2 and 4), and writes output q at (j div Ns) * Ns * R + k + q * Ns.

Twiddles come from a table of exp(-2 pi i m / n), m < n, computed on the host in float64:
WGSL only bounds sin/cos to an absolute error of 2^-11. A thread reads the entries for
r a power of two and multiplies them for the other r (scattered reads were the cost of a
pass). The inverse transform conjugates the table entries and the DFT constants.
Twiddles that are exactly 1, -1, i or -i (every twiddle of the first butterfly, and the
table's quarter turns) are applied by negating or swapping parts (``ft_twiddle``), as the
DFT constants are: a complex product would make inf · (1 + 0i) = inf + NaN i, so
fft([inf, 0, 0, 0]) was all NaN where NumPy (and exact arithmetic) gives inf.

Uniform words: n, Ns, number of butterflies (rows * T), element offset of the input.
"""

from __future__ import annotations

import math

from ..._dtypes import complex64
from .. import lanes, wgsl_complex  # noqa: F401  (registers wa_cmul)
from ..specs.fft import BIG, BIG_GROUP, RADICES, WORKGROUP
from ..wgsl_lib import helpers_for


def _rotate(v: str, m: int, radix: int, sign: int) -> str:
    """v * exp(sign * 2 pi i m / radix), exact where the constant is 1, -1, i or -i."""
    m %= radix
    if m == 0:
        return v
    if 2 * m == radix:
        return f"(-{v})"
    if 4 * m == radix or 4 * m == 3 * radix:
        # times i: (-y, x); times -i: (y, -x)
        s = sign if 4 * m == radix else -sign
        return f"vec2<f32>(-{v}.y, {v}.x)" if s > 0 else f"vec2<f32>({v}.y, -{v}.x)"
    a = sign * 2.0 * math.pi * m / radix
    return f"wa_cmul({v}, vec2<f32>({math.cos(a)!r}, {math.sin(a)!r}))"


# x times a twiddle w: exact where w is exactly 1, -1, i or -i (table entries at the
# quarter turns, and the first butterfly's 1), where the complex product would turn an
# infinite part times a zero part into NaN: inf · (1 + 0i) = inf + NaN i
TWIDDLE = """fn ft_twiddle(x: vec2<f32>, w: vec2<f32>) -> vec2<f32> {
    if (w.y == 0.0 && abs(w.x) == 1.0) { return select(-x, x, w.x > 0.0); }
    if (w.x == 0.0 && abs(w.y) == 1.0) { return select(vec2<f32>(x.y, -x.x), vec2<f32>(-x.y, x.x), w.y > 0.0); }
    return wa_cmul(x, w);
}
"""


def _dft(w, names: list[str], sign: int, tag: str) -> list[str]:
    """Emit a straight-line DFT of the registers names (length 2, 3, 4, 5, 7 directly,
    products of those by one decimation-in-time split into sub-DFTs); returns the names
    holding the outputs in order."""
    r = len(names)
    if r in (2, 3, 4, 5, 7):
        outs = []
        for q in range(r):
            terms = " + ".join(_rotate(names[a], a * q, r, sign) for a in range(r))
            w(f"    let {tag}_{q} = {terms};")
            outs.append(f"{tag}_{q}")
        return outs
    r1 = 4 if r % 4 == 0 else 2
    r2 = r // r1
    subs = [_dft(w, names[a::r1], sign, f"{tag}{a}") for a in range(r1)]
    outs = [""] * r
    for k in range(r2):
        tw = []
        for a in range(r1):
            m = (a * k) % r
            v = subs[a][k]
            if m == 0:
                tw.append(v)
            elif (4 * m) % r == 0:
                tw.append(_rotate(v, 4 * m // r, 4, sign))
            else:
                ang = sign * 2.0 * math.pi * m / r
                w(f"    let {tag}t{a}_{k} = wa_cmul({v}, vec2<f32>({math.cos(ang)!r}, {math.sin(ang)!r}));")
                tw.append(f"{tag}t{a}_{k}")
        for q, o in enumerate(_dft(w, tw, sign, f"{tag}k{k}")):
            outs[k + r2 * q] = o
    return outs


def generate(radix: int, inverse: bool) -> str:
    if radix not in RADICES:
        return generate_prime(radix, inverse)
    sign = 1 if inverse else -1
    load_x = lambda i: lanes.load(complex64, "X", i)  # noqa: E731
    lines = []
    w = lines.append
    w("@group(0) @binding(0) var<storage, read> U: array<u32>;")
    w("@group(0) @binding(1) var<storage, read> X: array<u32>;")
    w("@group(0) @binding(2) var<storage, read> W: array<u32>;")
    w("@group(0) @binding(3) var<storage, read_write> Y: array<u32>;")
    w(f"@compute @workgroup_size({WORKGROUP})")
    w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,")
    w("        @builtin(local_invocation_id) lid: vec3<u32>) {")
    w(f"    let g = (wg.y * nw.x + wg.x) * {WORKGROUP}u + lid.x;")
    w("    let n = U[0]; let ns = U[1];")
    w("    if (g >= U[2]) { return; }")
    w(f"    let t = n / {radix}u; let b = g / t; let j = g % t; let k = j % ns;")
    w(f"    let step = n / (ns * {radix}u);")
    w("    let src = U[3] + b * n + j;")
    w(f"    let v0 = {load_x('src')};")
    # twiddles w^(k r): the table entries for r a power of two, products of those for the
    # others (at most log2(R) roundings), so a thread makes log2(R) scattered table reads
    for r in range(1, radix):
        high = 1 << (r.bit_length() - 1)
        if high == r:
            tw = lanes.load(complex64, "W", f"k * {r}u * step")
            w(f"    let w{r} = {tw}{' * vec2<f32>(1.0, -1.0)' if inverse else ''};")
        else:
            w(f"    let w{r} = wa_cmul(w{high}, w{r - high});")
        w(f"    let v{r} = ft_twiddle({load_x(f'src + {r}u * t')}, w{r});")
    outs = _dft(w, [f"v{r}" for r in range(radix)], sign, "d")
    w(f"    let dst = b * n + (j / ns) * ns * {radix}u + k;")
    for q in range(radix):
        w(f"    {lanes.store(complex64, 'Y', f'dst + {q}u * ns', outs[q])}")
    w("}")
    code = "\n".join(lines) + "\n"
    return code + TWIDDLE + helpers_for(code + TWIDDLE)


def generate_prime(p: int, inverse: bool) -> str:
    """One pass of an odd prime radix p beyond 7 (uniforms as generate's), the p-point DFT
    by its definition as pocketfft's generic pass computes it: with x_a the twiddled
    inputs and h = (p − 1)/2, s_a = x_a + x_(p−a) and d_a = x_a − x_(p−a) (a ≤ h),
    X_q = x_0 + Σ_a c_(aq)·s_a ± i·Σ_a s_(aq)·d_a for q and p − q together, (c_m, s_m) = ω^m
    read from the twiddle table at m·n/p: h² real-by-complex products per pair of outputs,
    every constant rounded once from float64. Loops, not straight-line code: h² terms."""
    h = (p - 1) // 2
    conj = " * vec2<f32>(1.0, -1.0)" if inverse else ""
    load_x = lambda i: lanes.load(complex64, "X", i)  # noqa: E731
    tw = lambda i: f"({lanes.load(complex64, 'W', i)}{conj})"  # noqa: E731
    store = lambda i, v: lanes.store(complex64, "Y", i, v)  # noqa: E731
    code = f"""@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<u32>;
@group(0) @binding(2) var<storage, read> W: array<u32>;
@group(0) @binding(3) var<storage, read_write> Y: array<u32>;
@compute @workgroup_size({WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {{
    let g = (wg.y * nw.x + wg.x) * {WORKGROUP}u + lid.x;
    let n = U[0]; let ns = U[1];
    if (g >= U[2]) {{ return; }}
    let t = n / {p}u; let b = g / t; let j = g % t; let k = j % ns;
    let step = n / (ns * {p}u);
    let src = U[3] + b * n + j;
    let dst = b * n + (j / ns) * ns * {p}u + k;
    let x0 = {load_x("src")};
    var sm: array<vec2<f32>, {h}>;
    var df: array<vec2<f32>, {h}>;
    var tot = x0;
    for (var a = 1u; a <= {h}u; a = a + 1u) {{
        let xa = ft_twiddle({load_x("src + a * t")}, {tw("k * a * step")});
        let xb = ft_twiddle({load_x(f"src + ({p}u - a) * t")}, {tw(f"k * ({p}u - a) * step")});
        sm[a - 1u] = xa + xb; df[a - 1u] = xa - xb;
        tot = tot + sm[a - 1u];
    }}
    {store("dst", "tot")}
    for (var q = 1u; q <= {h}u; q = q + 1u) {{
        var re = vec2<f32>(0.0); var im = vec2<f32>(0.0);
        var m = 0u;
        for (var a = 0u; a < {h}u; a = a + 1u) {{
            m = m + q; if (m >= {p}u) {{ m = m - {p}u; }}
            let w = {tw(f"m * t")};
            re = re + w.x * sm[a]; im = im + w.y * df[a];
        }}
        let ii = vec2<f32>(-im.y, im.x);
        {store("dst + q * ns", "x0 + re + ii")}
        {store(f"dst + ({p}u - q) * ns", "x0 + re - ii")}
    }}
}}
"""
    return code + TWIDDLE + helpers_for(code + TWIDDLE)


# ---- radix 1024 = 32 × 32 by workgroups: two passes for 2^20 points ----------------------

def _powers(w, base: str, names: str, count: int, inverse: bool, mul_one: bool) -> None:
    """Emit names{e} = base^e for e < count from table reads of base^(2^i) (index
    expression base.format(p=2^i)) and at most log2(count) products each."""
    conj = " * vec2<f32>(1.0, -1.0)" if inverse else ""
    w(f"    let {names}0 = vec2<f32>(1.0, 0.0);")
    for e in range(1, count):
        high = 1 << (e.bit_length() - 1)
        if high == e:
            w(f"    let {names}{e} = bitcast<vec2<f32>>(W[{base.format(p=e)}]){conj};")
        else:
            w(f"    let {names}{e} = wa_cmul({names}{high}, {names}{e - high});")


def generate_big(inverse: bool) -> str:
    """One Stockham pass of radix 1024 (uniforms as generate's, U[2] counting transforms):
    32 threads per transform, BIG_GROUP transforms per workgroup. Thread b reads elements
    r = 32a + b (a < 32), applies the pass's twiddles, a 32-point DFT over a and the
    twiddle w_1024^(b c); the values cross threads through workgroup memory (real, then
    imaginary parts: 16 KiB; xor-swizzled against bank conflicts), and thread c's 32-point
    DFT over b gives outputs q = c + 32 d."""
    sign = 1 if inverse else -1
    lines = []
    w = lines.append
    w("@group(0) @binding(0) var<storage, read> U: array<u32>;")
    w("@group(0) @binding(1) var<storage, read> X: array<vec2<u32>>;")
    w("@group(0) @binding(2) var<storage, read> W: array<vec2<u32>>;")
    w("@group(0) @binding(3) var<storage, read_write> Y: array<vec2<u32>>;")
    w(f"var<workgroup> S: array<f32, {BIG_GROUP * BIG}>;")
    w(f"@compute @workgroup_size({32 * BIG_GROUP})")
    w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,")
    w("        @builtin(local_invocation_id) lid: vec3<u32>) {")
    w("    let n = U[0]; let ns = U[1];")
    w(f"    let gi = lid.x >> 5u; let t = lid.x & 31u;")
    w(f"    let gj = (wg.y * nw.x + wg.x) * {BIG_GROUP}u + gi;")
    w("    let valid = gj < U[2];")
    w(f"    let T = n / {BIG}u; let row = gj / T; let j = gj % T; let k = j % ns;")
    w(f"    let step = n / (ns * {BIG}u);")
    w("    let src = U[3] + row * n + j;")
    # pass twiddles w_(ns·1024)^(k r), r = 32a + t: W[k t step] · (W[32 k step])^a
    w("    let kt = bitcast<vec2<f32>>(W[k * t * step])" + (" * vec2<f32>(1.0, -1.0);" if inverse else ";"))
    _powers(w, "k * 32u * {p}u * step", "pa", 32, inverse, False)
    for a in range(32):
        w(f"    var v{a} = vec2<f32>(0.0);")
        w(f"    if (valid) {{ v{a} = ft_twiddle(bitcast<vec2<f32>>(X[src + ({32 * a}u + t) * T]), wa_cmul(kt, pa{a})); }}")
    ys = _dft(w, [f"v{a}" for a in range(32)], sign, "y")
    # w_1024^(t c) = w_n^(t c n / 1024)
    _powers(w, "t * {p}u * T", "pc", 32, inverse, False)
    base = f"gi * {BIG}u"
    for part in ("x", "y"):
        for c in range(32):
            val = ys[c] if c == 0 else f"ft_twiddle({ys[c]}, pc{c})"
            w(f"    S[{base} + t * 32u + ({c}u ^ t)] = ({val}).{part};")
        w("    workgroupBarrier();")
        for b in range(32):
            if part == "x":
                w(f"    var z{b} = vec2<f32>(S[{base} + {b * 32}u + (t ^ {b}u)], 0.0);")
            else:
                w(f"    z{b}.y = S[{base} + {b * 32}u + (t ^ {b}u)];")
        w("    workgroupBarrier();")
    outs = _dft(w, [f"z{b}" for b in range(32)], sign, "o")
    w(f"    let dst = row * n + (j / ns) * ns * {BIG}u + k;")
    w("    if (valid) {")
    for d in range(32):
        w(f"        Y[dst + (t + {32 * d}u) * ns] = bitcast<vec2<u32>>({outs[d]});")
    w("    }")
    w("}")
    code = "\n".join(lines) + "\n"
    return code + TWIDDLE + helpers_for(code + TWIDDLE)
