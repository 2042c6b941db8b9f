"""The fft's plan (the radices of a length's passes, the twiddle table), uniform words and
launch geometry: shared by ``webgpu/fft.py`` (the WGSL passes) and
``_core/algorithms/fft.py``, which launches them. WebGL2 has no fft (complex64 and
workgroup memory: ``kernels/webgl2``).
"""

from __future__ import annotations

import math

from ..grid import fold
from ..uniforms import pack

WORKGROUP = 64
# 8 is left out: on an H100 seven passes of 8 and 4 took twice as long as ten of 4, while
# four of 32 took 0.09 ms against 0.10 for five of 16 and 0.15 for ten of 4 (2^20 points)
RADICES = (32, 16, 4, 2, 3, 5, 7)
# complex128's (webgpu/fft.py): radix 2, then every odd prime from 3 by the generic pass
# (loops): SwiftShader inlines every software float64 operation, and a straight-line radix-4
# DFT (some 50 of them) lost Chromium's GPU process at compile time; the hardware lane takes
# the same passes, so the two lanes agree bit for bit
RADICES_Z = (2,)


# Primes 11..PRIME_MAX run as one generic pass (webgpu/fft.py: generate_prime) instead of
# Bluestein's transform, as pocketfft's passg does up to ~100 by its cost model. Measured
# on lavapipe, the pass against Bluestein: faster up to 127 (256 rows: 13 against 35 ms at
# 97, 12 against 16 ms at 127; 64×465 3.7 against 12.9 ms) and more accurate (relative L2
# error 1.3e-7 against 1.8e-7 at 97, 1.6e-7 against 2.1e-7 at 127; pocketfft's float32
# 1.1e-7 and 1.9e-7); at 181, where Bluestein's transforms are 512 long as from 129 on,
# 256 rows took 39 ms against 23. Its loops take (p − 1)²/4 + p − 1 iterations per
# invocation: 4,095 at 127, an eighth of what lavapipe lets an invocation run.
PRIME_MAX = 127


def factor(n: int, wide: bool = False, batch: int = 1) -> list[int] | None:
    """The radices of the passes for length n (1024 by workgroups where n has it and the
    pass has at least 16 transforms: 16 a row, or rows of fewer, ``batch`` of them, that
    make 16 in all (``big_rows``); then 32s: every pass is a full read and write of the
    data; then primes from 11 to PRIME_MAX by the generic pass), or None if n has a larger
    prime. ``wide``: complex128's radices (RADICES_Z, then the primes from 3 by the generic
    pass)."""
    out = []
    full = n
    while (not wide and n % BIG == 0
           and (full >= BIG * 16 or (n == full and batch * (full // BIG) >= 16))):
        out.append(BIG)
        n //= BIG
    for r in (RADICES_Z if wide else RADICES):
        while n % r == 0:
            out.append(r)
            n //= r
    p = 3 if wide else 11
    while n > 1 and p <= PRIME_MAX:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 2
    return out if n == 1 else None
BIG = 1024
# transforms per workgroup of the 1024 pass: neighbouring lanes take neighbouring transforms,
# so they read and write runs of 4 elements (32-byte sectors); workgroup memory holds their
# real (then imaginary) parts, 16 KiB, WebGPU's default limit. 8 (32 KiB) measured no
# faster on an H200 (2^20 points: 39.7-42.3 µs against 36.7-38.8)
BIG_GROUP = 4


def pack_uniforms(n: int, ns: int, butterflies: int, offset: int) -> bytes:
    return pack([n, ns, butterflies, offset], "fft")


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


def big_rows(n: int) -> bool:
    """Whether the 1024 pass of rows of n lays a transform's 32 threads side by side
    (``generate_big``'s ``rows``): where a row holds fewer than 16 transforms, neighbouring
    transforms are rows apart, so the transform's own elements are the neighbours to read."""
    return n < BIG * 16


def grid_big(transforms: int, max_per_dim: int) -> tuple[int, int, int]:
    return fold(-(-transforms // BIG_GROUP), max_per_dim)
