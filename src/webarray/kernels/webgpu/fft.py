"""WGSL generator for one pass of a batched Stockham FFT over complex64 or complex128 rows.

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

complex128 (issue #20) runs the same passes with the float64 helpers (lane Z: a ``vec4<u32>``
of the parts' words, ``wgsl_complex128.py``; the device's own 64-bit floats where it has
them), twiddles and DFT constants as float64 words; its passes are radix 2 and the generic
prime pass from 3 (specs.fft.RADICES_Z): SwiftShader inlines every software float64
operation, and a straight-line radix-4 DFT lost Chromium's GPU process while compiling.

Uniform words: n, Ns, number of butterflies (rows * T), element offset of the input.
"""

from __future__ import annotations

import math
import struct

from ..._dtypes import DType, complex64, complex128
from .. import lanes, wgsl_complex, wgsl_complex128  # noqa: F401  (register wa_cmul, wa_z_*)
from ..specs.fft import BIG, RADICES, RADICES_Z, WORKGROUP
from ..wgsl_lib import helpers_for


class _C64:
    """complex64 registers: ``vec2<f32>`` and WGSL's own arithmetic."""

    dtype, reg, twiddle = complex64, "vec2<f32>", "ft_twiddle"
    zero = "vec2<f32>(0.0)"

    @staticmethod
    def const(re: float, im: float) -> str:
        return f"vec2<f32>({re!r}, {im!r})"

    sum = staticmethod(lambda terms: " + ".join(terms))
    add = staticmethod(lambda a, b: f"{a} + {b}")
    sub = staticmethod(lambda a, b: f"{a} - {b}")
    neg = staticmethod(lambda a: f"(-{a})")
    mul = staticmethod(lambda a, b: f"wa_cmul({a}, {b})")
    conj = staticmethod(lambda a: f"({a} * vec2<f32>(1.0, -1.0))")
    # a real part of a register times a complex register
    scale = staticmethod(lambda part, z: f"{part} * {z}")
    re = staticmethod(lambda a: f"{a}.x")
    im = staticmethod(lambda a: f"{a}.y")

    @staticmethod
    def times_i(v: str, s: int) -> str:
        """v times i (s > 0) or -i."""
        return f"vec2<f32>(-{v}.y, {v}.x)" if s > 0 else f"vec2<f32>({v}.y, -{v}.x)"


def _words(x: float) -> str:
    lo, hi = struct.unpack("<II", struct.pack("<d", x))
    return f"{lo:#x}u, {hi:#x}u"


class _Z:
    """complex128 registers: ``vec4<u32>``, the float64 helpers (lane Z)."""

    dtype, reg, twiddle = complex128, "vec4<u32>", "ft_twiddle_z"
    zero = "vec4<u32>(0u)"

    @staticmethod
    def const(re: float, im: float) -> str:
        return f"vec4<u32>({_words(re)}, {_words(im)})"

    @staticmethod
    def sum(terms) -> str:
        out = terms[0]
        for t in terms[1:]:
            out = f"wa_z_add({out}, {t})"
        return out

    add = staticmethod(lambda a, b: f"wa_z_add({a}, {b})")
    sub = staticmethod(lambda a, b: f"wa_z_sub({a}, {b})")
    neg = staticmethod(lambda a: f"wa_z_neg({a})")
    mul = staticmethod(lambda a, b: f"wa_z_mul({a}, {b})")
    conj = staticmethod(lambda a: f"wa_z_conj({a})")
    scale = staticmethod(lambda part, z: f"ft_scale_z({part}, {z})")
    re = staticmethod(lambda a: f"{a}.xy")
    im = staticmethod(lambda a: f"{a}.zw")

    @staticmethod
    def times_i(v: str, s: int) -> str:
        return (f"vec4<u32>(wa_f64_neg({v}.zw), {v}.xy)" if s > 0
                else f"vec4<u32>({v}.zw, wa_f64_neg({v}.xy))")


_ARITH = {complex64: _C64, complex128: _Z}


def _rotate(A, v: str, m: int, radix: int, sign: int) -> str:
    """v * exp(sign * 2 pi i m / radix), exact where the constant is 1, -1, i or -i."""
    m %= radix
    if m == 0:
        return v
    if 2 * m == radix:
        return A.neg(v)
    if 4 * m == radix or 4 * m == 3 * radix:
        return A.times_i(v, sign if 4 * m == radix else -sign)
    a = sign * 2.0 * math.pi * m / radix
    return A.mul(v, A.const(math.cos(a), math.sin(a)))


# x times a twiddle w: exact where w is exactly 1, -1, i or -i (table entries at the
# quarter turns, and the first butterfly's 1), where the complex product would turn an
# infinite part times a zero part into NaN: inf · (1 + 0i) = inf + NaN i
TWIDDLE = """fn ft_twiddle(x: vec2<f32>, w: vec2<f32>) -> vec2<f32> {
    if (w.y == 0.0 && abs(w.x) == 1.0) { return select(-x, x, w.x > 0.0); }
    if (w.x == 0.0 && abs(w.y) == 1.0) { return select(vec2<f32>(x.y, -x.x), vec2<f32>(-x.y, x.x), w.y > 0.0); }
    return wa_cmul(x, w);
}
"""
# the same for complex128, the parts read by their bits (±0 and ±1.0)
TWIDDLE_Z = """fn ft_twiddle_z(x: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    let re0 = w.x == 0u && (w.y & 0x7fffffffu) == 0u;
    let im0 = w.z == 0u && (w.w & 0x7fffffffu) == 0u;
    if (im0 && w.x == 0u && (w.y & 0x7fffffffu) == 0x3ff00000u) {
        return select(x, wa_z_neg(x), (w.y >> 31u) == 1u);
    }
    if (re0 && w.z == 0u && (w.w & 0x7fffffffu) == 0x3ff00000u) {
        return select(vec4<u32>(wa_f64_neg(x.zw), x.xy), vec4<u32>(x.zw, wa_f64_neg(x.xy)), (w.w >> 31u) == 1u);
    }
    return wa_z_mul(x, w);
}
fn ft_scale_z(s: vec2<u32>, z: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(wa_f64_mul(s, z.xy), wa_f64_mul(s, z.zw));
}
"""


def _finish(code: str, A) -> str:
    lib = TWIDDLE if A is _C64 else TWIDDLE_Z
    return code + lib + helpers_for(code + lib)


def _dft(A, w, names: list[str], sign: int, tag: str) -> list[str]:
    """Emit a straight-line DFT of the registers names (length 2, 3, 4, 5, 7 directly,
    products of those by one decimation-in-time split into sub-DFTs); returns the names
    holding the outputs in order."""
    r = len(names)
    if r in (2, 3, 4, 5, 7):
        outs = []
        for q in range(r):
            terms = A.sum([_rotate(A, names[a], a * q, r, sign) for a in range(r)])
            w(f"    let {tag}_{q} = {terms};")
            outs.append(f"{tag}_{q}")
        return outs
    r1 = 4 if r % 4 == 0 else 2
    r2 = r // r1
    subs = [_dft(A, w, names[a::r1], sign, f"{tag}{a}") for a in range(r1)]
    outs = [""] * r
    for k in range(r2):
        tw = []
        for a in range(r1):
            m = (a * k) % r
            v = subs[a][k]
            if m == 0:
                tw.append(v)
            elif (4 * m) % r == 0:
                tw.append(_rotate(A, v, 4 * m // r, 4, sign))
            else:
                ang = sign * 2.0 * math.pi * m / r
                w(f"    let {tag}t{a}_{k} = {A.mul(v, A.const(math.cos(ang), math.sin(ang)))};")
                tw.append(f"{tag}t{a}_{k}")
        for q, o in enumerate(_dft(A, w, tw, sign, f"{tag}k{k}")):
            outs[k + r2 * q] = o
    return outs


def generate(radix: int, inverse: bool, dtype: DType = complex64) -> str:
    A = _ARITH[dtype]
    if radix not in (RADICES if A is _C64 else RADICES_Z):
        return generate_prime(radix, inverse, dtype)
    sign = 1 if inverse else -1
    load_x = lambda i: lanes.load(dtype, "X", i)  # noqa: E731
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
            tw = lanes.load(dtype, "W", f"k * {r}u * step")
            w(f"    let w{r} = {A.conj(tw) if inverse else tw};")
        else:
            w(f"    let w{r} = {A.mul(f'w{high}', f'w{r - high}')};")
        w(f"    let v{r} = {A.twiddle}({load_x(f'src + {r}u * t')}, w{r});")
    outs = _dft(A, w, [f"v{r}" for r in range(radix)], sign, "d")
    w(f"    let dst = b * n + (j / ns) * ns * {radix}u + k;")
    for q in range(radix):
        w(f"    {lanes.store(dtype, 'Y', f'dst + {q}u * ns', outs[q])}")
    w("}")
    return _finish("\n".join(lines) + "\n", A)


def generate_prime(p: int, inverse: bool, dtype: DType = complex64) -> str:
    """One pass of an odd prime radix p beyond 7 (from 3 for complex128: specs.fft.RADICES_Z;
    uniforms as generate's), the p-point DFT
    by its definition as pocketfft's generic pass computes it: with x_a the twiddled
    inputs and h = (p − 1)/2, s_a = x_a + x_(p−a) and d_a = x_a − x_(p−a) (a ≤ h),
    X_q = x_0 + Σ_a c_(aq)·s_a ± i·Σ_a s_(aq)·d_a for q and p − q together, (c_m, s_m) = ω^m
    read from the twiddle table at m·n/p: h² real-by-complex products per pair of outputs,
    every constant rounded once from float64. Loops, not straight-line code: h² terms."""
    A = _ARITH[dtype]
    h = (p - 1) // 2
    load_x = lambda i: lanes.load(dtype, "X", i)  # noqa: E731
    tw = lambda i: A.conj(lanes.load(dtype, "W", i)) if inverse else lanes.load(dtype, "W", i)  # noqa: E731
    store = lambda i, v: lanes.store(dtype, "Y", i, v)  # noqa: E731
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
    var sm: array<{A.reg}, {h}>;
    var df: array<{A.reg}, {h}>;
    var tot = x0;
    for (var a = 1u; a <= {h}u; a = a + 1u) {{
        let xa = {A.twiddle}({load_x("src + a * t")}, {tw("k * a * step")});
        let xb = {A.twiddle}({load_x(f"src + ({p}u - a) * t")}, {tw(f"k * ({p}u - a) * step")});
        sm[a - 1u] = {A.add("xa", "xb")}; df[a - 1u] = {A.sub("xa", "xb")};
        tot = {A.add("tot", "sm[a - 1u]")};
    }}
    {store("dst", "tot")}
    for (var q = 1u; q <= {h}u; q = q + 1u) {{
        var re = {A.zero}; var im = {A.zero};
        var m = 0u;
        for (var a = 0u; a < {h}u; a = a + 1u) {{
            m = m + q; if (m >= {p}u) {{ m = m - {p}u; }}
            let w = {tw("m * t")};
            re = {A.add("re", A.scale(A.re("w"), "sm[a]"))}; im = {A.add("im", A.scale(A.im("w"), "df[a]"))};
        }}
        let ii = {A.times_i("im", 1)};
        let xr = {A.add("x0", "re")};
        {store("dst + q * ns", A.add("xr", "ii"))}
        {store(f"dst + ({p}u - q) * ns", A.sub("xr", "ii"))}
    }}
}}
"""
    return _finish(code, A)


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


def generate_big(inverse: bool, group: int, first: bool = False, rows: bool = False) -> str:
    """One Stockham pass of radix 1024 (uniforms as generate's, U[2] counting transforms):
    32 threads per transform, ``group`` transforms per workgroup (specs.fft.BIG_GROUP), lane
    l of the workgroup taking thread l div group of transform l mod group, so that
    neighbouring lanes read and write neighbouring elements (neighbouring transforms lie side
    by side; 20-30% faster on an H200 than a transform's threads side by side). Thread b
    reads elements r = 32a + b (a < 32), applies the pass's twiddles, a 32-point DFT over a
    and the twiddle w_1024^(b c); the values cross threads through workgroup memory (real,
    then imaginary parts: 4 KiB per transform, xor-swizzled by thread and transform against
    bank conflicts), and thread c's 32-point DFT over b gives outputs q = c + 32 d. The
    ``first`` pass (Ns = 1) has no pass twiddles (all are exactly 1, which ``ft_twiddle``
    leaves the values bit for bit), so it reads none. ``rows`` (rows of fewer than 16
    transforms, specs.fft.big_rows): lane l takes thread l mod 32 of transform l div 32
    instead, so that a transform's threads read and write its neighbouring elements (a row of
    1024 is one transform: neighbouring transforms lie a row apart). On an H200 (session 37)
    1024 rows of 1024 took 79-81 µs as two passes of radix 32 and 27-32 as this one pass,
    4096 rows 218-221 against 48, 512 rows of 2048 86-87 against 48."""
    shift = 5 - (group.bit_length() - 1)  # the swizzle of transform gi: gi << shift < 32
    sign = 1 if inverse else -1
    lines = []
    w = lines.append
    w("@group(0) @binding(0) var<storage, read> U: array<u32>;")
    w("@group(0) @binding(1) var<storage, read> X: array<vec2<u32>>;")
    w("@group(0) @binding(2) var<storage, read> W: array<vec2<u32>>;")
    w("@group(0) @binding(3) var<storage, read_write> Y: array<vec2<u32>>;")
    w(f"var<workgroup> S: array<f32, {group * BIG}>;")
    w(f"@compute @workgroup_size({32 * group})")
    w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,")
    w("        @builtin(local_invocation_id) lid: vec3<u32>) {")
    w("    let n = U[0]; let ns = U[1];")
    if rows:
        w(f"    let gi = lid.x / 32u; let t = lid.x % 32u; let g8 = gi << {shift}u;")
    else:
        w(f"    let gi = lid.x % {group}u; let t = lid.x / {group}u; let g8 = gi << {shift}u;")
    w(f"    let gj = (wg.y * nw.x + wg.x) * {group}u + gi;")
    w("    let valid = gj < U[2];")
    w(f"    let T = n / {BIG}u; let row = gj / T; let j = gj % T; let k = j % ns;")
    w(f"    let step = n / (ns * {BIG}u);")
    w("    let src = U[3] + row * n + j;")
    if not first:
        # pass twiddles w_(ns·1024)^(k r), r = 32a + t: W[k t step] · (W[32 k step])^a
        w("    let kt = bitcast<vec2<f32>>(W[k * t * step])" + (" * vec2<f32>(1.0, -1.0);" if inverse else ";"))
        _powers(w, "k * 32u * {p}u * step", "pa", 32, inverse, False)
    for a in range(32):
        w(f"    var v{a} = vec2<f32>(0.0);")
        x = f"bitcast<vec2<f32>>(X[src + ({32 * a}u + t) * T])"
        w(f"    if (valid) {{ v{a} = {x if first else f'ft_twiddle({x}, wa_cmul(kt, pa{a}))'}; }}")
    ys = _dft(_C64, w, [f"v{a}" for a in range(32)], sign, "y")
    # w_1024^(t c) = w_n^(t c n / 1024)
    _powers(w, "t * {p}u * T", "pc", 32, inverse, False)
    base = f"gi * {BIG}u"
    for part in ("x", "y"):
        for c in range(32):
            val = ys[c] if c == 0 else f"ft_twiddle({ys[c]}, pc{c})"
            w(f"    S[{base} + t * 32u + ({c}u ^ t ^ g8)] = ({val}).{part};")
        w("    workgroupBarrier();")
        for b in range(32):
            if part == "x":
                w(f"    var z{b} = vec2<f32>(S[{base} + {b * 32}u + (t ^ {b}u ^ g8)], 0.0);")
            else:
                w(f"    z{b}.y = S[{base} + {b * 32}u + (t ^ {b}u ^ g8)];")
        w("    workgroupBarrier();")
    outs = _dft(_C64, w, [f"z{b}" for b in range(32)], sign, "o")
    w(f"    let dst = row * n + (j / ns) * ns * {BIG}u + k;")
    w("    if (valid) {")
    for d in range(32):
        w(f"        Y[dst + (t + {32 * d}u) * ns] = bitcast<vec2<u32>>({outs[d]});")
    w("    }")
    w("}")
    return _finish("\n".join(lines) + "\n", _C64)
