"""WGSL generator for one pass of a batched Stockham FFT over complex64 rows.

Rows of length n lie back to back (row b at element b * n). A transform of n = R1 * R2 *
... is one dispatch per radix R (2, 3, 4, 5 or 7), reading one buffer and writing another;
the Stockham ordering leaves the result in natural order without a bit-reversal pass.
In a pass each thread takes one butterfly of one row: with T = n / R and Ns the product of
the radices of the earlier passes, thread j reads elements j + r * T, multiplies element r
by the twiddle w^(k r) (k = j mod Ns, w = exp(-2 pi i / (Ns R))), applies a length-R DFT
written out with literal constants, and writes output q at (j div Ns) * Ns * R + k + q * Ns.

Twiddles come from a table of exp(-2 pi i m / n), m < n, computed on the host in float64:
WGSL only bounds sin/cos to an absolute error of 2^-11. The inverse transform conjugates
the table entries and the DFT constants.

Uniform words: n, Ns, number of butterflies (rows * T), element offset of the input.
"""

from __future__ import annotations

import array
import math

from ..._dtypes import complex64
from . import lanes, wgsl_complex  # noqa: F401  (registers wa_cmul)
from .grid import fold
from .wgsl_lib import helpers_for

WORKGROUP = 64
RADICES = (4, 2, 3, 5, 7)


def factor(n: int) -> list[int] | None:
    """The radices of the passes for length n (4s first), or None if n has another prime."""
    out = []
    for r in RADICES:
        while n % r == 0:
            out.append(r)
            n //= r
    return out if n == 1 else None


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


def generate(radix: int, inverse: bool) -> str:
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
    for r in range(1, radix):
        tw = lanes.load(complex64, "W", f"k * {r}u * step")
        if inverse:
            w(f"    let w{r} = {tw} * vec2<f32>(1.0, -1.0);")
        else:
            w(f"    let w{r} = {tw};")
        w(f"    let v{r} = wa_cmul({load_x(f'src + {r}u * t')}, w{r});")
    w(f"    let dst = b * n + (j / ns) * ns * {radix}u + k;")
    for q in range(radix):
        terms = " + ".join(_rotate(f"v{r}", r * q, radix, sign) for r in range(radix))
        w(f"    {lanes.store(complex64, 'Y', f'dst + {q}u * ns', terms)}")
    w("}")
    code = "\n".join(lines) + "\n"
    return code + helpers_for(code)


def pack_uniforms(n: int, ns: int, butterflies: int, offset: int) -> bytes:
    return array.array("I", [n, ns, butterflies, offset]).tobytes()


def grid(butterflies: int, max_per_dim: int) -> tuple[int, int, int]:
    return fold(-(-butterflies // WORKGROUP), max_per_dim)


def roots(n: int) -> list[complex]:
    """exp(-2 pi i m / n) for m < n, in float64 (exact at the quarter turns)."""
    out = []
    for m in range(n):
        q, r = divmod(4 * m, n)
        if r == 0:
            out.append((1, -1j, -1, 1j)[q])
        else:
            a = -2.0 * math.pi * m / n
            out.append(complex(math.cos(a), math.sin(a)))
    return out
