"""The functions of the linalg extension that the main namespace does not share.

cross, diagonal, outer, trace, vector_norm, matrix_norm and matrix_power are compositions
of namespace functions and views. cholesky, inv, solve, det, slogdet, qr, eigh, eigvalsh,
svd and svdvals launch the one-workgroup-per-matrix kernels of kernels/webgpu/linalg.py
on float32 or complex64 copies of their input; pinv and matrix_rank are built on svd. Everything runs
on the GPU; nothing waits for it, so singular inputs give inf/NaN instead of errors.
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

from . import _dtypes as dt
from . import _graph
from . import _elementwise as ew
from ._data_type import astype
from . import _manipulation as mp
from . import _statistical as stat
from ._array_object import Array
from ._linear_algebra import matmul
from ._searching import where

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matrix_norm",
           "matrix_power", "matrix_rank", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "trace", "vector_norm"]


# the standard's named result tuples
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _array(x, name: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} requires a webarray array, got {type(x).__name__}")
    return x


def _matrices(x, name: str, category: str) -> Array:
    x = _array(x, name)
    dt.check_category(x.dtype, category, name)
    if x.ndim < 2:
        raise ValueError(f"{name} requires an array with at least two dimensions, got shape {x.shape}")
    return x


def _bool(v, what: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{what} must be a bool, got {v!r}")
    return v


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    for x in (_array(x1, "cross"), _array(x2, "cross")):
        dt.check_category(x.dtype, "numeric", "cross")
    axis = operator.index(axis)
    ndim = min(x1.ndim, x2.ndim)
    if not -ndim <= axis <= -1:
        raise ValueError(
            f"cross: axis must be in [-{ndim}, -1] for shapes {x1.shape} and {x2.shape}, got {axis}")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            f"cross: axis {axis} must have size 3 in both arrays, got {x1.shape[axis]} and {x2.shape[axis]}")
    # the other dimensions broadcast through the elementwise products (ValueError if not)
    def part(x, i):
        idx = (Ellipsis, i) + (slice(None),) * (-axis - 1)
        return x[idx]

    a = [part(x1, i) for i in range(3)]
    b = [part(x2, i) for i in range(3)]
    c = [ew.subtract(ew.multiply(a[1], b[2]), ew.multiply(a[2], b[1])),
         ew.subtract(ew.multiply(a[2], b[0]), ew.multiply(a[0], b[2])),
         ew.subtract(ew.multiply(a[0], b[1]), ew.multiply(a[1], b[0]))]
    return mp.stack(c, axis=axis)


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """A view of x's buffer: no copy is made."""
    x = _array(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal requires an array with at least two dimensions, got shape {x.shape}")
    offset = operator.index(offset)
    m, n = x.shape[-2:]
    sm, sn = x._strides[-2:]
    if offset >= 0:
        k = max(0, min(m, n - offset))
        start = offset * sn
    else:
        k = max(0, min(m + offset, n))
        start = -offset * sm
    start = start if k else 0
    return Array._view(x._buf, x.dtype, x.shape[:-2] + (k,), x._strides[:-2] + (sm + sn,),
                       x._offset + start, x.device)


def outer(x1: Array, x2: Array, /) -> Array:
    for x in (_array(x1, "outer"), _array(x2, "outer")):
        dt.check_category(x.dtype, "numeric", "outer")
        if x.ndim != 1:
            raise ValueError(f"outer requires one-dimensional arrays, got shape {x.shape}")
    return ew.multiply(x1[:, None], x2[None, :])


def trace(x: Array, /, *, offset: int = 0, dtype: dt.DType | None = None) -> Array:
    """The dtype rules are those of sum (small integers accumulate in int32/uint32)."""
    x = _matrices(x, "trace", "numeric")
    return stat.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def _abs_real(x: Array) -> Array:
    return ew.abs(x)


def _norm_of_abs(a: Array, axes, keepdims: bool, ord) -> Array:
    """The vector norm of the non-negative real array a over axes."""
    if ord == math.inf:
        return stat.max(a, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return stat.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return stat.sum(astype(ew.not_equal(a, 0.0), a.dtype), axis=axes, keepdims=keepdims)
    if ord == 1:
        return stat.sum(a, axis=axes, keepdims=keepdims)
    if ord == 2:
        return ew.sqrt(stat.sum(ew.multiply(a, a), axis=axes, keepdims=keepdims))
    p = float(ord)
    return ew.pow(stat.sum(ew.pow(a, p), axis=axes, keepdims=keepdims), 1.0 / p)


def _check_ord(ord, name: str) -> None:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)) or math.isnan(ord):
        raise ValueError(f"{name}: ord must be an int, a float or ±inf, got {ord!r}")


def vector_norm(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Array:
    """float32 and complex64 (the result is float32). Sums are tree sums without scaling,
    so, as in NumPy, the 2-norm overflows to inf once the sum of squares exceeds float32
    range. ord=inf/-inf over zero elements raise ValueError, as max/min of nothing do."""
    x = _array(x, "vector_norm")
    dt.check_category(x.dtype, "floating-point", "vector_norm")
    keepdims = _bool(keepdims, "vector_norm: keepdims")
    _check_ord(ord, "vector_norm")
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, tuple):
        axes = tuple(mp.normalize_axis(a, x.ndim, "vector_norm") for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"vector_norm: repeated axis in {axis}")
    else:
        axes = (mp.normalize_axis(axis, x.ndim, "vector_norm"),)
    return _norm_of_abs(_abs_real(x), axes, keepdims, ord)


def matrix_norm(x: Array, /, *, keepdims: bool = False, ord="fro") -> Array:
    """ord 'fro', ±1 and ±inf for float32 and complex64 by reductions; ord ±2 and 'nuc' from
    svdvals, so up to 64×64 (complex64: 32×32) matrices."""
    x = _matrices(x, "matrix_norm", "floating-point")
    keepdims = _bool(keepdims, "matrix_norm: keepdims")
    a = _abs_real(x)
    if isinstance(ord, str):
        if ord == "fro":
            return _norm_of_abs(a, (-2, -1), keepdims, 2)
        if ord == "nuc":
            return _singular_norm(x, stat.sum, keepdims)
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', ±1, ±2 or ±inf, got {ord!r}")
    _check_ord(ord, "matrix_norm")
    if ord in (1, -1):
        sums, pick = stat.sum(a, axis=-2, keepdims=True), -1
    elif ord in (math.inf, -math.inf):
        sums, pick = stat.sum(a, axis=-1, keepdims=True), -2
    elif ord in (2, -2):
        return _singular_norm(x, stat.max if ord > 0 else stat.min, keepdims)
    else:
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', ±1, ±2 or ±inf, got {ord!r}")
    red = stat.max if ord > 0 else stat.min
    out = red(sums, axis=pick, keepdims=True)
    return out if keepdims else out[..., 0, 0]


def _singular_norm(x: Array, red, keepdims: bool) -> Array:
    out = red(svdvals(x), axis=-1)
    return out[..., None, None] if keepdims else out


def matrix_power(x: Array, n: int, /) -> Array:
    """float32 (and the other numeric dtypes for n ≥ 0). n ≥ 0 by repeated squaring
    (⌊log2 n⌋ squarings and popcount(n) − 1 products, each one batched matmul launch);
    n = 0 gives identity matrices of x's dtype; n < 0 is inv(x) to the power -n (float32
    only; singular matrices give inf/NaN)."""
    x = _matrices(x, "matrix_power", "numeric")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power: n must be an int, got {n!r}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_power requires square matrices, got shape {x.shape}")
    if n == 0:
        from ._creation import eye

        e = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return astype(mp.broadcast_to(e, x.shape), x.dtype, copy=True)
    base = inv(x) if n < 0 else x
    n = abs(n)
    result = None
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return astype(x, x.dtype, copy=True) if result is x else result


# ---- factorizations (kernels/webgpu/linalg.py) ---------------------------------------

def _supported(x, name: str, complex_ok: bool = False, square: bool = False) -> Array:
    """x as matrices of a dtype the kernels take (float32; complex64 where complex_ok),
    square if asked, and within the kernels' size."""
    x = _matrices(x, name, "floating-point")
    allowed = (dt.float32, dt.complex64) if complex_ok else (dt.float32,)
    if x.dtype not in allowed:
        raise TypeError(f"{name}: only {' and '.join(d.name for d in allowed)} are supported on "
                        f"this device, got {x.dtype.name}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} requires square matrices, got shape {x.shape}")
    return _check_size(x, name)


def _check_size(x: Array, name: str) -> Array:
    from .kernels.webgpu.linalg import MAX_N

    if max(x.shape[-2:]) > MAX_N:
        raise ValueError(
            f"{name}: matrices up to {MAX_N}x{MAX_N} are supported on this device (one "
            f"workgroup per matrix), got shape {x.shape}")
    return x


def _work_copy(x: Array, shape, dtype=dt.float32) -> Array:
    """A new C-contiguous array of shape and dtype holding x broadcast to it."""
    return _graph.copy_of(mp.broadcast_to(x, tuple(shape)), dtype)


def _launch(kind: str, bufs, m: int, n: int, k: int = 0, sweeps: int = 0) -> None:
    """Launch kernels/webgpu/linalg.py's kind over the matrices of bufs[0] (m×n, its
    dtype choosing the real or complex kernel), one workgroup each; k is the LU's
    right-hand-side count; with sweeps, that many Jacobi sweeps in chunks of pairs."""
    from .kernels.webgpu import linalg as lk

    a = bufs[0]
    count = math.prod(a.shape[:-2])
    if m == 0 or n == 0 or count == 0:
        return
    device = a.device
    cplx = a.dtype is dt.complex64
    make = getattr(lk, kind)
    key = ("linalg", kind, cplx)
    source = lambda: make(cplx) if cplx else make()  # noqa: E731
    limit = device.executor.max_workgroups_per_dim
    buffers = [b._buf for b in bufs]
    step = lk.pair_chunk(kind, m)
    ranges = [(0, 0)] if not sweeps else \
        [(p, p + step) for _ in range(sweeps) for p in range(0, n * n, step)]
    for start, end in ranges:
        for z0 in range(0, count, limit):
            words = lk.pack_uniforms(m, k if kind == "lu" else n, z0, start, end)
            device.launch(key, source, buffers, words, (min(limit, count - z0), 1, 1))


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """float32 and complex64 (A = L·Lᴴ; only the lower triangle is read, and the imaginary
    parts of the diagonal are ignored). A matrix that is not positive definite does not
    raise (the check would wait for the GPU): its factor holds NaN from the first
    non-positive pivot on."""
    x = _supported(x, "cholesky", complex_ok=True, square=True)
    upper = _bool(upper, "cholesky: upper")
    a = _work_copy(x, x.shape, x.dtype)
    _launch("cholesky", (a,), x.shape[-1], x.shape[-1])
    if not upper:
        return a
    return astype(ew.conj(a).mT if a.dtype.kind == "c" else a.mT, a.dtype, copy=True)


def _lu(x: Array, b: Array | None, batch, dtype=dt.float32):
    """(LU, B after solving, parity) of x broadcast over batch, computed in dtype."""
    n = x.shape[-1]
    a = _work_copy(x, tuple(batch) + (n, n), dtype)
    from ._creation import ones

    s = ones(tuple(batch), dtype=dt.float32, device=x.device)  # parity 1 where n = 0
    if b is None:
        rhs, k = Array._empty((1,), dtype, x.device), 0
    else:
        rhs = _work_copy(b, tuple(batch) + b.shape[-2:], dtype)
        k = b.shape[-1]
    _launch("lu", (a, rhs, s), n, n, k)
    return a, rhs, s


def solve(x1: Array, x2: Array, /) -> Array:
    """float32 and complex64 (promoted together), by LU with partial pivoting. x2 of
    shape (M,) is one right-hand side for every matrix (result (..., M)); otherwise x2 is
    (..., M, K) with batch dimensions broadcast against x1's. Singular systems give
    inf/NaN rather than an error."""
    x1 = _supported(x1, "solve", complex_ok=True, square=True)
    x2 = _array(x2, "solve")
    dt.check_category(x2.dtype, "floating-point", "solve")
    if x2.dtype not in (dt.float32, dt.complex64):
        raise TypeError(f"solve: only float32 and complex64 are supported on this device, got {x2.dtype.name}")
    dtype = dt.promote(x1.dtype, x2.dtype)
    n = x1.shape[-1]
    if x2.ndim == 1:
        if x2.shape[0] != n:
            raise ValueError(f"solve: x2 of shape {x2.shape} does not match matrices of shape {x1.shape}")
        batch = x1.shape[:-2]
        _, out, _ = _lu(x1, x2[:, None], batch, dtype)
        return out[..., 0]
    if x2.shape[-2] != n:
        raise ValueError(f"solve: x2 of shape {x2.shape} does not match matrices of shape {x1.shape}")
    batch = mp.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    _, out, _ = _lu(x1, x2, batch, dtype)
    return out


def inv(x: Array, /) -> Array:
    """float32 and complex64, by LU with partial pivoting against the identity. Singular
    matrices give inf/NaN rather than an error."""
    x = _supported(x, "inv", complex_ok=True, square=True)
    from ._creation import eye

    e = eye(x.shape[-1], dtype=x.dtype, device=x.device)
    _, out, _ = _lu(x, e, x.shape[:-2], x.dtype)
    return out


def slogdet(x: Array, /):
    """float32 and complex64 (sign complex, logabsdet float32), from LU with partial
    pivoting: sign = parity · Π sign(u_ii), logabsdet = Σ log|u_ii|. A singular matrix
    gives (0, -inf), as in NumPy."""
    x = _supported(x, "slogdet", complex_ok=True, square=True)
    lu_, _, s = _lu(x, None, x.shape[:-2], x.dtype)
    d = diagonal(lu_)
    sign = ew.multiply(s, stat.prod(ew.sign(d), axis=-1))
    logabs = stat.sum(ew.log(ew.abs(d)), axis=-1)
    return SlogdetResult(sign, logabs)


def det(x: Array, /) -> Array:
    """float32 and complex64, the product of LU's pivots times the permutation's parity
    (so it overflows to ±inf where the determinant exceeds float32 range)."""
    x = _supported(x, "det", complex_ok=True, square=True)
    lu_, _, s = _lu(x, None, x.shape[:-2], x.dtype)
    return ew.multiply(s, stat.prod(diagonal(lu_), axis=-1))


def qr(x: Array, /, *, mode: str = "reduced"):
    """float32 and complex64, by Householder reflections (kernels/webgpu/linalg.py), up to
    64×64. R's diagonal is -phase(a_kk)·‖column‖ at each step (real negative or positive
    as LAPACK's for float32; complex for complex64, where LAPACK makes it real), so R
    matches NumPy's up to the phases of its rows. Q is formed as M×M and sliced for
    mode='reduced'."""
    from ._creation import eye

    x = _supported(x, "qr", complex_ok=True)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    r = _work_copy(x, x.shape, x.dtype)
    q = astype(mp.broadcast_to(eye(m, dtype=x.dtype, device=x.device), batch + (m, m)),
               x.dtype, copy=True)
    if m > 1:
        scratch = Array._empty(batch + (m,), x.dtype, x.device)
        _launch("qr", (r, q, scratch), m, n)
    k = min(m, n)
    if mode == "reduced" and k < m:
        q = astype(q[..., :k], x.dtype, copy=True)
        r = astype(r[..., :k, :], x.dtype, copy=True)
    return QRResult(q, r)


def _sweeps() -> int:
    from .kernels.webgpu import linalg as lk

    return lk.SWEEPS


def _identities(n: int, batch, device) -> Array:
    from ._creation import eye

    return astype(mp.broadcast_to(eye(n, dtype=dt.float32, device=device), tuple(batch) + (n, n)),
                  dt.float32, copy=True)


def _sorted_by(keys: Array, vals: Array, vecs: Array | None, descending: bool):
    from ._indexing import take_along_axis
    from ._sorting import argsort

    order = argsort(keys, axis=-1, descending=descending, stable=True)
    vals = take_along_axis(vals, order, axis=-1)
    if vecs is not None:
        idx = mp.broadcast_to(mp.expand_dims(order, axis=-2), vecs.shape)
        vecs = take_along_axis(vecs, idx, axis=-1)
    return vals, vecs


def _eigh(x: Array, vectors: bool):
    x = _supported(x, "eigh" if vectors else "eigvalsh", square=True)
    from ._creation import tril

    n = x.shape[-1]
    batch = x.shape[:-2]
    low = tril(x)
    a = _graph.copy_of(ew.add(low, tril(low, k=-1).mT))  # NumPy's UPLO='L'
    v = _identities(n, batch, x.device)
    _launch("eigh", (a, v), n, n, sweeps=_sweeps())
    w = astype(diagonal(a), dt.float32, copy=True)
    return _sorted_by(w, w, v if vectors else None, descending=False)


def eigh(x: Array, /):
    """float32, by cyclic Jacobi rotations (one workgroup per matrix). Only the lower
    triangle is read, as NumPy's default. Eigenvalues ascending, eigenvectors in columns
    with unspecified signs."""
    w, v = _eigh(x, True)
    return EighResult(w, v)


def _real_embedding(x: Array, name: str) -> Array:
    """[[Re x, -Im x], [Im x, Re x]]: a real matrix twice the size whose eigenvalues /
    singular values are x's, each twice."""
    from .kernels.webgpu.linalg import MAX_N

    if 2 * max(x.shape[-2:]) > MAX_N:
        raise ValueError(f"{name}: complex64 matrices up to {MAX_N // 2}x{MAX_N // 2} are "
                         f"supported on this device, got shape {x.shape}")
    re, im = ew.real(x), ew.imag(x)
    return mp.concat([mp.concat([re, ew.negative(im)], axis=-1), mp.concat([im, re], axis=-1)],
                     axis=-2)


def eigvalsh(x: Array, /) -> Array:
    """float32 and complex64 (result float32), ascending; see eigh. A Hermitian complex64
    matrix (lower triangle read; up to 32×32) is solved as its real embedding
    [[Re, −Im], [Im, Re]], whose eigenvalues come in equal pairs."""
    x = _matrices(x, "eigvalsh", "floating-point")
    if x.dtype is dt.complex64:
        from ._creation import tril

        _supported(x, "eigvalsh", complex_ok=True, square=True)
        low = tril(x)
        h = ew.add(tril(low, k=-1), ew.conj(tril(low, k=-1)).mT)
        h = ew.add(h, ew.multiply(astype(ew.real(diagonal(x)), dt.complex64)[..., None],
                                  astype(_identities(x.shape[-1], (), x.device), dt.complex64)))
        return astype(_eigh(_real_embedding(h, "eigvalsh"), False)[0][..., ::2], dt.float32, copy=True)
    return _eigh(x, False)[0]


def _svd(x: Array, name: str, vectors: bool):
    x = _supported(x, name)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    wide = m < n
    a = _graph.copy_of(x.mT if wide else x)
    rows, cols = (n, m) if wide else (m, n)
    v = _identities(cols, batch, x.device)
    _launch("svd", (a, v), rows, cols, sweeps=_sweeps())
    s = ew.sqrt(stat.sum(ew.multiply(a, a), axis=-2))
    if not vectors:
        return _sorted_by(s, s, None, descending=True)[0], None, None
    s_sorted, a = _sorted_by(s, s, a, descending=True)
    _, v = _sorted_by(s, s, v, descending=True)
    u = ew.divide(a, where(ew.equal(s_sorted, 0.0), 1.0, s_sorted)[..., None, :])
    return s_sorted, (v, u) if wide else (u, v), wide


def svd(x: Array, /, *, full_matrices: bool = True):
    """float32, by one-sided Jacobi (Hestenes) rotations of the columns (of xᵀ when
    M < N), one workgroup per matrix. Singular values descending; singular vectors have
    unspecified signs. Columns of U for zero singular values, and with full_matrices the
    M − K extra columns, come from a complete QR of the thin U, so U is orthogonal."""
    full_matrices = _bool(full_matrices, "svd: full_matrices")
    s, (u, v), _ = _svd(x, "svd", True)
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices or k:
        u = _complete(u, full_matrices)
        v = _complete(v, full_matrices)
    return SVDResult(u, s, astype(v.mT, dt.float32, copy=True))


def _complete(u: Array, full: bool) -> Array:
    """Orthonormal columns from u's (M×K, orthonormal where nonzero): Q of a complete QR,
    its first K columns turned to u's signs; all M columns if full, else K."""
    m, k = u.shape[-2:]
    if k == 0:
        return _identities(m, u.shape[:-2], u.device) if full else u
    q, r = qr(u, mode="complete")
    sgn = ew.subtract(1.0, ew.multiply(2.0, astype(ew.less(diagonal(r), 0.0), dt.float32)))
    first = ew.multiply(q[..., :k], sgn[..., None, :])
    if not full or k == m:
        return first
    return mp.concat([first, q[..., k:]], axis=-1)


def svdvals(x: Array, /) -> Array:
    """float32 and complex64 (result float32), descending; see svd. complex64 matrices
    (up to 32 a side) go through their real embedding [[Re, −Im], [Im, Re]], whose
    singular values come in equal pairs."""
    x = _matrices(x, "svdvals", "floating-point")
    if x.dtype is dt.complex64:
        s = _svd(_real_embedding(x, "svdvals"), "svdvals", False)[0]
        return astype(s[..., ::2], dt.float32, copy=True)
    return _svd(x, "svdvals", False)[0]


def _rtol(x: Array, rtol, name: str):
    """The relative cutoff of pinv and matrix_rank: a float, or an array broadcast against
    the batch; None is max(M, N)·eps(float32), as the standard suggests."""
    if rtol is None:
        return max(x.shape[-2:]) * 1.1920929e-07
    if isinstance(rtol, Array):
        dt.check_category(rtol.dtype, "real floating-point", name)
        return rtol[..., None]
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{name}: rtol must be a float, an array or None, got {rtol!r}")
    return float(rtol)


def matrix_rank(x: Array, /, *, rtol=None) -> Array:
    """float32 and complex64 (up to 32 a side): the number of singular values above rtol ·
    the largest (int32, the default integer dtype of this device)."""
    x = _supported(x, "matrix_rank", complex_ok=True)
    cut = _rtol(x, rtol, "matrix_rank")
    s = svdvals(x)
    if s.shape[-1] == 0:
        return stat.sum(astype(s, dt.int32), axis=-1)
    limit = ew.multiply(cut, s[..., :1])
    return stat.sum(astype(ew.greater(s, limit), dt.int32), axis=-1)


def pinv(x: Array, /, *, rtol=None) -> Array:
    """float32, V·diag(1/s)·Uᵀ from svd(full_matrices=False), singular values at or below
    rtol · the largest taken as zero."""
    x = _supported(x, "pinv")
    cut = _rtol(x, rtol, "pinv")
    u, s, vh = svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return astype(mp.broadcast_to(_zero_like_t(x), x.shape[:-2] + x.shape[-2:][::-1]),
                      dt.float32, copy=True)
    keep = ew.greater(s, ew.multiply(cut, s[..., :1]))
    inv_s = where(keep, ew.divide(1.0, where(keep, s, ew.add(s, 1.0))), ew.multiply(s, 0.0))
    return matmul(ew.multiply(vh.mT, inv_s[..., None, :]), u.mT)


def _zero_like_t(x: Array) -> Array:
    from ._creation import zeros

    return zeros(x.shape[-2:][::-1], dtype=dt.float32, device=x.device)
