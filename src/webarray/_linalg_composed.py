"""The linalg factorizations composed of namespace operations, for a device whose kernel
registry has no linalg kernels (WebGL2: fragment shaders, no workgroups; docs/webgl2.md),
and for float64 and complex128 on every device (the WebGPU kernels are float32 and
complex64; issue #20).

_linalg_impl.py calls these where the WebGPU kernels would run; everything above them
(solve, inv, det, slogdet, eigh through one-sided Jacobi on A + ‖A‖_F·I, svd, pinv,
matrix_rank, the 2- and nuclear norms) is shared. Real (float32, float64) and complex128
matrices, computed in their own dtype; the complex forms conjugate where the real ones
transpose, and their reflections and rotations carry a phase. Each step is a whole-array operation on the batch (a gather, a reduction,
an elementwise update under a mask), so the host waits only where Jacobi decides whether
another sweep is needed; LU, Cholesky and QR cost a few launches per column, Jacobi a few
per round of disjoint rotations.
"""

from __future__ import annotations

from . import _dtypes as dt
from . import _elementwise as ew
from . import _manipulation as mp
from . import _statistical as stat
from . import _utility
from ._array_object import Array
from ._creation import arange, asarray, ones, triu, zeros
from ._data_type import astype
from ._indexing import take, take_along_axis
from ._searching import argmax, where


def _conj(a: Array) -> Array:
    return ew.conj(a) if a.dtype.kind == "c" else a


def _phase(z: Array, keep: Array) -> Array:
    """z/|z| where keep, else 1, divided by parts: a complex quotient by the real |z|
    (Smith's, as NumPy's) takes the reciprocal of a subnormal |z|, which overflows (inf +
    inf j for 1e-310 + 1e-310j). A subnormal z is first scaled by a power of two into the
    normal range (exact), so that |z| is rounded once at full precision and the phase is
    a unit to the last bits (a 44-bit |1e-310 + 1e-310j| left R off by ~40 ulps)."""
    bits = 24 if z.dtype is dt.complex64 else 53
    tiny = 2.0 ** (-126 if bits == 24 else -1022)
    z = where(ew.less(ew.abs(z), tiny), ew.multiply(z, 2.0 ** bits), z)
    den = where(keep, ew.abs(z), 1.0)
    return where(keep, ew.add(ew.divide(ew.real(z), den), ew.multiply(ew.divide(ew.imag(z), den), 1j)),
                 1.0)


def _index(n: int, device, column: bool = False) -> Array:
    """0..n-1 as int32, as a row (n,) or a column (n, 1)."""
    i = arange(n, dtype=dt.int32, device=device)
    return i[:, None] if column else i


def lu(a: Array, b: Array | None):
    """(U, A⁻¹·B, parity) of the matrices a (batch, N, N) by Gaussian elimination
    with partial pivoting (the largest |a_ik|), b (batch, N, K) or None. U is upper triangular (the multipliers
    are not kept: callers read its diagonal); parity is ±1 per matrix. A zero pivot column
    is left as it is (its multipliers are zero, as LAPACK's), so a singular matrix has a
    zero on U's diagonal and its solutions hold inf/NaN."""
    n = a.shape[-1]
    rows = _index(n, a.device, column=True)
    r = _index(n, a.device)
    parity = ones(a.shape[:-2], dtype=a.dtype, device=a.device)
    for k in range(n):
        col = where(ew.less(r, k), -1.0, ew.abs(a[..., :, k]))  # NaN wins argmax: it spreads
        p = argmax(col, axis=-1, keepdims=True)  # (batch, 1)
        perm = where(ew.equal(r, k), p, where(ew.equal(r, p), k, r))  # swap rows k and p
        a = take_along_axis(a, mp.broadcast_to(perm[..., None], a.shape), axis=-2)
        if b is not None:
            b = take_along_axis(b, mp.broadcast_to(perm[..., None], b.shape), axis=-2)
        parity = where(ew.equal(p[..., 0], k), parity, ew.negative(parity))
        pivot = a[..., k:k + 1, k:k + 1]
        below = ew.greater(rows, k)
        f = where(ew.logical_and(below, ew.not_equal(pivot, 0.0)), ew.divide(a[..., :, k:k + 1], pivot), 0.0)
        a = where(below, ew.subtract(a, ew.multiply(f, a[..., k:k + 1, :])), a)
        if b is not None:
            b = where(below, ew.subtract(b, ew.multiply(f, b[..., k:k + 1, :])), b)
    if b is not None:  # back substitution, last row first
        for k in reversed(range(n)):
            xk = ew.divide(b[..., k:k + 1, :], a[..., k:k + 1, k:k + 1])
            above = ew.subtract(b, ew.multiply(a[..., :, k:k + 1], xk))
            b = where(ew.equal(rows, k), xk, where(ew.less(rows, k), above, b))
    return a, b, parity


def cholesky(a: Array) -> Array:
    """The lower factor L (L·Lᴴ = A) of the Hermitian matrices a, one column at a
    time: L[:, k] = A[:, k]/√A[k, k] below the diagonal (the root of the real part), then
    A −= L[:, k]·L[:, k]ᴴ. A non-positive pivot gives NaN (or inf) from there on, as the
    WebGPU kernels do."""
    n = a.shape[-1]
    rows = _index(n, a.device, column=True)
    cols = _index(n, a.device)
    out = zeros(a.shape, dtype=a.dtype, device=a.device)
    for k in range(n):
        root = ew.sqrt(ew.real(a[..., k:k + 1, k:k + 1]) if a.dtype.kind == "c" else a[..., k:k + 1, k:k + 1])
        col = where(ew.less(rows, k), 0.0, ew.divide(a[..., :, k:k + 1], root))
        out = where(ew.equal(cols, k), col, out)
        if k + 1 < n:
            a = ew.subtract(a, ew.multiply(col, _conj(col).mT))
    return out


def qr(a: Array, q: Array):
    """(Q M×M, R M×N) of the matrices a by Householder reflections I − τ·v·vᴴ applied
    to q (identities): the reflection of column k sends it to β·e_k with β =
    −phase(a_kk)·‖x‖ and is skipped (τ = 0) where x is zero below the diagonal. For real
    a that is LAPACK's convention (β = −sign(a_kk)·‖x‖), so R's diagonal matches dgeqrf's;
    for complex a, β keeps a_kk's phase (LAPACK makes it real with a complex τ), as the
    complex64 kernels do. R is exactly upper triangular."""

    m, n = a.shape[-2:]
    rows = _index(m, a.device, column=True)
    for k in range(min(m - 1, n)):
        x = where(ew.less(rows, k), 0.0, a[..., :, k:k + 1])  # (batch, M, 1)
        x0 = a[..., k:k + 1, k:k + 1]
        rest = stat.sum(where(ew.greater(rows, k), _abs2(x), 0.0), axis=-2, keepdims=True)
        norm = ew.sqrt(ew.add(rest, _abs2(x0)))
        if a.dtype.kind == "c":
            m0 = ew.abs(x0)
            beta = ew.multiply(ew.negative(_phase(x0, ew.greater(m0, 0.0))), norm)
        else:
            beta = where(ew.less(x0, 0.0), norm, ew.negative(norm))
        v = where(ew.equal(rows, k), ew.subtract(x0, beta), x)
        vv = stat.sum(_abs2(v), axis=-2, keepdims=True)
        tau = where(ew.equal(rest, 0.0), 0.0, ew.divide(2.0, where(ew.equal(vv, 0.0), 1.0, vv)))
        tv = ew.multiply(tau, v)
        a = ew.subtract(a, ew.multiply(tv, stat.sum(ew.multiply(_conj(v), a), axis=-2, keepdims=True)))
        q = ew.subtract(q, ew.multiply(stat.sum(ew.multiply(q, v.mT), axis=-1, keepdims=True), _conj(tv).mT))
    return q, triu(a)


def _abs2(z: Array) -> Array:
    """|z|², real: z·z̄'s real part for complex z."""
    return ew.real(ew.multiply(z, ew.conj(z))) if z.dtype.kind == "c" else ew.multiply(z, z)


def _round_robin(ne: int, device, dtype):
    """The partner of every row in each of the ne − 1 rounds of the circle method (row
    ne − 1 stays, the others turn; every pair meets once per sweep, ne/2 disjoint pairs
    per round), and +1/−1 marking each pair's first and second row, as (ne − 1, ne)
    arrays."""
    partner, side = [], []
    for r in range(ne - 1):
        pairs = [(r, ne - 1)] + [((r + i) % (ne - 1), (r - i) % (ne - 1)) for i in range(1, ne // 2)]
        pr, sr = [0] * ne, [0.0] * ne
        for p, q in pairs:
            pr[p], pr[q], sr[p], sr[q] = q, p, 1.0, -1.0
        partner.append(pr)
        side.append(sr)
    return (asarray(partner, dtype=dt.int32, device=device),
            asarray(side, dtype=dtype, device=device))


def jacobi(w: Array, vt: Array, max_sweeps: int, tol: float, stop: float) -> None:
    """One-sided (Hestenes) Jacobi on the rows of w (batch, N, M), in place, the
    rotations applied to the rows of vt (batch, N, N), as kernels/webgpu's rounds do:
    each round rotates ne/2 disjoint row pairs at once (a zero row pads an odd N), a pair
    only where |w_p·w̄_q| > tol·‖w_p‖‖w_q‖; sweeps stop once one finds no pair beyond
    stop·‖w_p‖‖w_q‖ (checked from the fourth on, one small readback each) or after
    max_sweeps. For complex w a pair's rotation carries the phase e^{iφ} of w_p·w̄_q:
    w_p ← c·w_p − s·e^{iφ}·w_q, w_q ← c·w_q + s·e^{−iφ}·w_p (unitary), the real rotation
    of |w_p·w̄_q|."""
    n, m = w.shape[-2:]
    ne = n + n % 2
    complex_ = w.dtype.kind == "c"
    real = dt.real_of(w.dtype)
    partner, side = _round_robin(ne, w.device, real)
    a, v = w, vt
    if ne != n:
        a = mp.concat([a, zeros(w.shape[:-2] + (1, m), dtype=w.dtype, device=w.device)], axis=-2)
        v = mp.concat([v, zeros(vt.shape[:-2] + (1, n), dtype=w.dtype, device=w.device)], axis=-2)
    for s in range(max_sweeps):
        moved = None
        for r in range(ne - 1):
            pt, sd = partner[r], side[r]
            ap = take(a, pt, axis=-2)
            norms = stat.sum(_abs2(a), axis=-1)  # (batch, ne)
            dots = stat.sum(ew.multiply(a, _conj(ap)), axis=-1)
            other = take(norms, pt, axis=-1)
            # ‖w_p‖‖w_q‖ as a product of roots: ‖w_p‖²‖w_q‖² underflows where the rows'
            # scales differ (1e-102 and 1e-82: it was 0, every pair counted as unconverged,
            # and twenty sweeps of rotations at that scale ended in NaN for complex rows);
            # a row whose squared norm underflows (callers scale the largest element to
            # ~1, so it is below ε of the matrix) is left alone
            nn = ew.multiply(ew.sqrt(norms), ew.sqrt(other))
            live = ew.greater(nn, 0.0)
            rotate = ew.logical_and(live, ew.greater(ew.abs(dots), ew.multiply(tol, nn)))
            far = ew.logical_and(live, ew.greater(ew.abs(dots), ew.multiply(stop, nn)))
            if complex_:  # each row's partner turned by its phase (p: e^{iφ}, q: e^{−iφ})
                mag = ew.abs(dots)
                phase = _phase(dots, rotate)[..., None]
                dots = mag
            # ζ = (‖w_q‖² − ‖w_p‖²)/(2 w_p·w_q) seen from the pair's first row on both rows
            zeta = ew.divide(ew.multiply(sd, ew.subtract(other, norms)),
                             ew.multiply(2.0, where(rotate, dots, 1.0)))
            sign = ew.subtract(1.0, ew.multiply(2.0, astype(ew.less(zeta, 0.0), real)))
            t = ew.divide(sign,
                          ew.add(ew.abs(zeta), ew.sqrt(ew.add(1.0, ew.multiply(zeta, zeta)))))
            t = where(rotate, t, 0.0)
            c = ew.divide(1.0, ew.sqrt(ew.add(1.0, ew.multiply(t, t))))
            ct = ew.multiply(ew.multiply(c, t), sd)
            tau = ew.divide(ct, ew.add(1.0, c))[..., None]
            ct = ct[..., None]
            # row p: c·w_p − s·w_q, row q: c·w_q + s·w_p (s = c·t), in Rutishauser's form
            # w − s·(w' + τ·w), τ = s/(1 + c), as the kernels' rounds rotate
            vp = take(v, pt, axis=-2)
            if complex_:
                ap, vp = ew.multiply(phase, ap), ew.multiply(phase, vp)
            a = ew.subtract(a, ew.multiply(ct, ew.add(ap, ew.multiply(tau, a))))
            v = ew.subtract(v, ew.multiply(ct, ew.add(vp, ew.multiply(tau, v))))
            moved = far if moved is None else ew.logical_or(moved, far)
        if s >= 3 and (moved is None or not bool(_utility.any(moved))):
            break
    w[...] = a[..., :n, :]
    vt[...] = v[..., :n, :]


def available(device, dtype=dt.float32) -> bool:
    """Whether the factorizations of dtype are composed here on device: always for float64
    and complex128, and for everything where the device's registry has no linalg kernels."""
    return dtype in (dt.float64, dt.complex128) or device.kernels.linalg is None
