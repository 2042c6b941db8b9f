"""float64 and complex128 eigenvalues of general matrices, computed on the host.

The complex64 ``eig`` runs its Hessenberg and Schur steps as GPU kernels, one workgroup per
matrix (``kernels/webgpu/linalg_steps.py``). Their float64 forms would be software
binary64 in every operation of a sequential sweep: shaders that compile for minutes on
software GPUs and run one thread's worth of work. So in float64, as MAGMA's ``geev`` does
on CUDA, the QR iteration runs on the host: the matrix comes back once, and Python's
double-precision complex arithmetic computes what LAPACK's ``zgeev`` does, in its steps:

- balancing (Parlett and Reinsch): rows and columns scaled by powers of two until their
  off-diagonal norms are within a factor of two, which keeps the eigenvalues of badly
  scaled matrices (polynomial companion matrices, SciPy's ``roots``) accurate;
- Householder reduction to upper Hessenberg form;
- single-shift QR with Wilkinson shifts (and an exceptional shift every tenth iteration
  without deflation), Givens rotations chasing the bulge, deflating where a subdiagonal
  entry is below eps times its neighbours on the diagonal;
- eigenvectors by back substitution in the triangular Schur form (a zero divisor replaced
  by eps times the matrix's norm, as ``ztrevc`` does), transformed back, unbalanced.

Pure Python: about 10 n³ complex operations per matrix (n = 20: ~30 ms on CPython). A
matrix whose iteration has not converged after 30 n² sweeps gets NaN eigenvalues (and
eigenvectors), as the GPU path gives them.
"""

from __future__ import annotations

import cmath

EPS = 2.0 ** -52


def eig(a: list, vectors: bool):
    """Eigenvalues (a list of n complex) and, if asked, eigenvectors (n lists of n complex,
    one per eigenvalue, unit 2-norm, largest component real and positive) of the n×n
    matrix a (a list of row lists of complex, overwritten)."""
    n = len(a)
    scale = _balance(a)
    q = [[complex(i == j) for j in range(n)] for i in range(n)] if vectors else None
    _hessenberg(a, q)
    stalled = not _schur(a, q)
    w = [a[i][i] for i in range(n)]
    if stalled:
        w = [complex(cmath.nan, cmath.nan)] * n
    if not vectors:
        return w, None
    vecs = []
    norm = max((sum(abs(a[i][j]) for j in range(i, n)) for i in range(n)), default=0.0)
    small = max(EPS * norm, 2.0 ** -1022)
    for k in range(n):
        y = [0j] * n
        y[k] = 1 + 0j
        for j in range(k - 1, -1, -1):
            d = a[j][j] - a[k][k]
            if abs(d) < small:
                d = small
            y[j] = -sum(a[j][m] * y[m] for m in range(j + 1, k + 1)) / d
        v = [sum(q[i][m] * y[m] for m in range(k + 1)) * scale[i] for i in range(n)]
        big = max(v, key=abs)
        size = abs(big) * (sum(abs(t / big) ** 2 for t in v) ** 0.5) if big else 1.0
        turn = big.conjugate() / abs(big) / size if big else 1.0
        v = [t * turn for t in v]
        if stalled:
            v = [complex(cmath.nan, cmath.nan)] * n
        vecs.append(v)
    return w, vecs


def _balance(a: list) -> list:
    """Scale a's rows and columns (D⁻¹ a D, D diagonal powers of two) in place; D."""
    n = len(a)
    scale = [1.0] * n
    done = False
    while not done:
        done = True
        for i in range(n):
            c = sum(abs(a[j][i]) for j in range(n) if j != i)
            r = sum(abs(a[i][j]) for j in range(n) if j != i)
            if c == 0 or r == 0:
                continue
            total, f, g = c + r, 1.0, r / 2
            while c < g:
                f, c = f * 2, c * 4
            g = r * 2
            while c >= g:
                f, c = f / 2, c / 4
            if (c + r) / f < 0.95 * total:
                done = False
                scale[i] *= f
                for j in range(n):
                    a[i][j] /= f
                    a[j][i] *= f
    return scale


def _hessenberg(a: list, q) -> None:
    """Reduce a to upper Hessenberg form in place by Householder reflections H = I - 2vv*/v*v
    (a ← H a H), accumulated into q (q ← q H) if given."""
    n = len(a)
    for k in range(n - 2):
        v = [a[i][k] for i in range(k + 1, n)]
        alpha = sum(abs(t) ** 2 for t in v) ** 0.5
        if alpha == 0:
            continue
        lead = v[0]
        v[0] += (lead / abs(lead) if lead else 1) * alpha
        vv = sum(abs(t) ** 2 for t in v)
        m = len(v)
        for j in range(n):
            s = 2 * sum(v[i].conjugate() * a[k + 1 + i][j] for i in range(m)) / vv
            for i in range(m):
                a[k + 1 + i][j] -= v[i] * s
        for rows in (a, q) if q is not None else (a,):
            for row in rows:
                s = 2 * sum(row[k + 1 + j] * v[j] for j in range(m)) / vv
                for j in range(m):
                    row[k + 1 + j] -= s * v[j].conjugate()
        for i in range(k + 2, n):
            a[i][k] = 0j


def _givens(x: complex, y: complex):
    """(c, s), c real: [[c, s], [-conj(s), c]] maps (x, y) to (r, 0)."""
    ax = abs(x)
    if y == 0:
        return 1.0, 0j
    if ax == 0:
        return 0.0, (y.conjugate() / abs(y))
    r = (ax * ax + abs(y) ** 2) ** 0.5
    return ax / r, (x / ax) * y.conjugate() / r


def _schur(a: list, q) -> bool:
    """Single-shift QR on the Hessenberg matrix a, in place, to upper triangular form (the
    whole Schur form when q is given, accumulating q; else only the active window);
    whether it converged."""
    n = len(a)
    hi = n - 1
    its = total = 0
    while hi > 0:
        lo = hi
        while lo > 0:
            if abs(a[lo][lo - 1]) <= EPS * (abs(a[lo][lo]) + abs(a[lo - 1][lo - 1])):
                a[lo][lo - 1] = 0j
                break
            lo -= 1
        if lo == hi:
            hi -= 1
            its = 0
            continue
        its += 1
        total += 1
        if total > 30 * n * n:
            return False
        if its % 10 == 0:  # exceptional shift
            mu = a[hi][hi] + abs(a[hi][hi - 1]) * 0.75
        else:
            p, r_, t, s_ = a[hi - 1][hi - 1], a[hi - 1][hi], a[hi][hi - 1], a[hi][hi]
            half = (p + s_) / 2
            root = cmath.sqrt((p - s_) ** 2 / 4 + r_ * t)
            mu1, mu2 = half + root, half - root
            mu = mu1 if abs(mu1 - s_) <= abs(mu2 - s_) else mu2
        first, last = (0, n) if q is not None else (lo, hi + 1)
        x, y = a[lo][lo] - mu, a[lo + 1][lo]
        for k in range(lo, hi):
            if k > lo:
                x, y = a[k][k - 1], a[k + 1][k - 1]
            c, s = _givens(x, y)
            sc = s.conjugate()
            rk, rk1 = a[k], a[k + 1]
            for j in range(max(k - 1, first), last):  # rows k, k + 1
                u, v = rk[j], rk1[j]
                rk[j] = c * u + s * v
                rk1[j] = -sc * u + c * v
            if k > lo:
                a[k + 1][k - 1] = 0j
            for i in range(first, min(k + 3, hi + 1)):  # columns k, k + 1
                row = a[i]
                u, v = row[k], row[k + 1]
                row[k] = c * u + sc * v
                row[k + 1] = -s * u + c * v
            if q is not None:
                for row in q:
                    u, v = row[k], row[k + 1]
                    row[k] = c * u + sc * v
                    row[k + 1] = -s * u + c * v
    return True
