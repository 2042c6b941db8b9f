"""The functions of the linalg extension that the main namespace does not share.

cross, diagonal, outer, trace, vector_norm, matrix_norm and matrix_power are compositions
of namespace functions and views. cholesky, inv, solve, det, slogdet, qr, eigh, eigvalsh,
svd and svdvals run the one-workgroup-per-matrix kernels of kernels/webgpu/linalg.py on
float32 or complex64 copies of their input for matrices up to MAX_N (64) a side, and the
multi-launch kernels of kernels/webgpu/linalg_steps.py beyond that (and for complex
eigh/svd); eig and eigvals always use the latter. Their launches, sweeps and loop budgets
are ``_core/algorithms/linalg.py``'s; what is composed around them (blocked Cholesky and
LU around tiled matmuls, sorting, polishing, completing) stays here. pinv and
matrix_rank are built on svd.
Everything runs on the GPU and singular inputs give inf/NaN instead of errors (a matrix
holding NaN or infinity gives all-NaN factors from svd, svdvals, pinv, eigh and eigvalsh,
since Jacobi rotations would leave finite garbage; matrix_rank, whose int32 result cannot
be NaN, raises LinAlgError after one small readback); the host
waits only where an iteration's end is decided: Jacobi sweeps (one small readback per
sweep from the fourth), eig's QR iteration (one per doubling of its step budget) and
svd's check for zero singular values before completing U or V. A device whose kernel
registry has no linalg kernels (WebGL2) runs LU, Cholesky, Householder QR and one-sided
Jacobi composed of namespace operations instead (_linalg_composed.py), and so do float64
and complex128 on every device (issue #20; their eig and eigvals run on the host,
_linalg_host.py); the rest is shared, with float64's ε where a threshold depends on the
precision.
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

from . import _dtypes as dt
from ._core import graph as _graph
from ._core import tensor
from ._core.algorithms import linalg as _linalg
from ._core.algorithms import matmul as _matmul
from . import _linalg_composed as composed
from . import _linalg_host
from . import _elementwise as ew
from ._data_type import astype
from . import _manipulation as mp
from . import _statistical as stat
from . import _utility
from ._array_object import Array
from ._jit import Jit
from ._linear_algebra import matmul
from ._searching import argmax, argmin, where
from ._creation import arange, asarray, eye, ones, ones_like, tril, zeros
from ._indexing import take_along_axis
from ._sorting import argsort

__all__ = ["LinAlgError", "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_norm",
           "matrix_power", "matrix_rank", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "trace", "vector_norm"]


class LinAlgError(ValueError):
    """A linalg function has no answer for its input (as NumPy's numpy.linalg.LinAlgError,
    also a ValueError): matrix_rank of a matrix holding NaN or infinity."""


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
    svdvals."""
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


# ---- factorizations (kernels/webgpu/linalg.py up to 64 a side, linalg_steps.py beyond) ---

def _supported(x, name: str, complex_ok: bool = True, square: bool = False,
               float64_ok: bool = True) -> Array:
    """x as matrices of a dtype computed here (float32; complex64 where complex_ok; float64
    and complex128, composed of namespace operations, where float64_ok), square if asked."""
    x = _matrices(x, name, "floating-point")
    allowed = (dt.float32, dt.complex64) if complex_ok else (dt.float32,)
    if float64_ok:
        allowed += (dt.float64, dt.complex128) if complex_ok else (dt.float64,)
    if x.dtype not in allowed:
        raise TypeError(f"{name}: only {', '.join(d.name for d in allowed)} are supported on "
                        f"this device, got {x.dtype.name}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} requires square matrices, got shape {x.shape}")
    return x


def _eps(dtype) -> float:
    """The machine epsilon of dtype's precision (float64 and complex128: 2^-52, else 2^-23)."""
    return 2.220446049250313e-16 if dtype in (dt.float64, dt.complex128) else 1.1920929e-07


def _work_copy(x: Array, shape, dtype=dt.float32) -> Array:
    """A new C-contiguous array of shape and dtype holding x broadcast to it, computed now,
    in a buffer of its own that the kernels here overwrite in place (a pending copy has a
    graph node of its own, so no other array reads that buffer)."""
    a = _graph.copy_of(mp.broadcast_to(x, tuple(shape)), dtype)
    _graph.materialize([a])
    return a


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """float32 and complex64 (A = L·Lᴴ; only the lower triangle is read, and the imaginary
    parts of the diagonal are ignored). A matrix that is not positive definite does not
    raise (the check would wait for the GPU): its factor holds NaN from the first
    non-positive pivot on."""

    x = _supported(x, "cholesky", square=True)
    upper = _bool(upper, "cholesky: upper")
    n = x.shape[-1]
    a = _work_copy(x, x.shape, x.dtype)
    if composed.available(x.device, x.dtype):
        a = composed.cholesky(_hermitian_lower(a))
    elif _linalg.small(n):
        _linalg.one_workgroup("cholesky", (a,), n, n)
    else:
        a = _kept_cholesky(a)
    if not upper:
        return a
    return astype(ew.conj(a).mT if a.dtype.kind == "c" else a.mT, a.dtype, copy=True)


def _lu(x: Array, b: Array | None, batch, dtype=dt.float32):
    """(LU, B after solving, parity) of x broadcast over batch, computed in dtype."""
    n = x.shape[-1]
    a = _work_copy(x, tuple(batch) + (n, n), dtype)
    if composed.available(x.device, dtype):
        return composed.lu(a, None if b is None else _work_copy(b, tuple(batch) + b.shape[-2:], dtype))

    s = ones(tuple(batch), dtype=dt.float32, device=x.device)  # parity 1 where n = 0
    if b is None:
        rhs, k = Array._empty((1,), dtype, x.device), 0
    else:
        rhs = _work_copy(b, tuple(batch) + b.shape[-2:], dtype)
        k = b.shape[-1]
    if _linalg.small(n):
        _linalg.one_workgroup("lu", (a, rhs, s), n, n, k)
        return a, rhs, s
    _kept_lu(a, rhs, s, k)
    return a, rhs, s


def _block(x: Array, r0: int, c0: int, m: int, w: int) -> Array:
    """The m×w block at (r0, c0) of every matrix of the C-contiguous x, as a view."""
    ld = x.shape[-1]
    return Array._view(x._buf, x.dtype, x.shape[:-2] + (m, w), x._strides[:-2] + (ld, 1),
                       x._offset + r0 * ld + c0, x.device)


def _subtract_product(x: Array, p: Array, q: Array, r0: int, c0: int) -> None:
    """x's block at (r0, c0) less p @ q, in place: one launch where the float32 product
    kernel subtracts as it stores, else a product and a subtraction."""
    dst = _block(x, r0, c0, p.shape[-2], q.shape[-1])
    if _matmul.subtract_product(dst, _graph.bindable(p, strided=True), _graph.bindable(q, strided=True)):
        return
    _linalg.sub_block(x, matmul(p, q), r0, c0)


def _blocked_cholesky(a: Array) -> None:
    """Right-looking blocked Cholesky of the C-contiguous a in place (lower triangle; the
    upper one is left with garbage): per NB columns the diagonal block, L21 = A21·L11⁻ᴴ by
    substitution (with L21ᴴ written beside it), then the trailing matrix less L21·L21ᴴ by
    the tiled matmul. On GPUs the first two are one launch (``cholesky_panel_rows``: each
    workgroup factors the block for itself), the blocks kept aside and put into a at the
    end: two launches a panel; on CPU adapters three."""
    n = a.shape[-1]
    nb = _linalg.NB
    fused = _linalg.fused_cholesky(a.device)
    if fused:
        d = Array._empty(a.shape[:-2] + (-(-n // nb) * nb * nb,), a.dtype, a.device)
    for k0 in range(0, n, nb):
        b = min(nb, n - k0)
        k1 = k0 + b
        # L21ᴴ, contiguous, as the product's right factor (its vec4 loads: cholesky 1024
        # on an H200 5.2-5.6 ms with the transposed view, 4.3-4.7 with a copy)
        l21h = Array._empty(a.shape[:-2] + (b, max(1, n - k1)), a.dtype, a.device)
        if fused:
            _linalg.cholesky_panel_rows(a, l21h, d, k0, b)
        else:
            _linalg.cholesky_panel(a, k0, b)
            if k1 < n:
                _linalg.block_solve_rows(a, l21h, k0, b)
        if k1 == n:
            break
        _subtract_product(a, _block(a, k1, k0, n - k1, b), l21h, k1, k1)
    if fused:
        _linalg.cholesky_diagonal(a, d)


def _cholesky_factor(a: Array) -> Array:
    _blocked_cholesky(a)
    return tril(a)


# The blocked factorizations issue ~8 launches per panel of NB columns, all fixed by the
# matrices' layout (no value is read back): they are recorded once per layout and replayed
# (webarray.jit's machinery, _core/replay.py), so a repeated factorization costs one dispatch
# of host work per kernel instead of the Python of every step (cholesky at 1024 on an H200:
# 16 ms of which nearly all was host work, ~40 µs per launch).
_kept_cholesky = Jit(_cholesky_factor)


def _blocked_lu(a: Array, rhs: Array, s: Array, k: int) -> None:
    """Right-looking blocked LU with partial pivoting of a in place, applied to the k
    columns of rhs, then (k > 0) blocked back substitution, so rhs ends as a⁻¹·rhs.
    Per NB columns: the panel in one launch (its row swaps span all of a and rhs), then
    U12 = L11⁻¹·A12 and B1 = L11⁻¹·B1 by substitution in one launch, and the trailing
    A22 −= L21·U12, B2 −= L21·B1 by the tiled matmul. Back substitution per block from
    the last: X1 = U11⁻¹·B1 by substitution, then B0 −= U01·X1. A few right-hand sides
    (solve's) skip all that: they go through the factors at the end, in one launch."""
    n = a.shape[-1]
    nb = _linalg.NB
    # a few right-hand sides go through the factors after it, in one launch
    later = 0 < k <= _linalg.SUBSTITUTE_K and n <= _linalg.SUBSTITUTE_N
    kb = 0 if later else k
    for k0 in range(0, n, nb):
        b = min(nb, n - k0)
        k1 = k0 + b
        right = n - k1
        _linalg.lu_panel(a, rhs, s, k, k0, b)
        if right + kb == 0:
            break
        _linalg.block_solve(a, rhs, k0, b, kb, upper=False)
        if right:
            l21 = _block(a, k1, k0, right, b)
            _subtract_product(a, l21, _block(a, k0, k1, b, right), k1, k1)
            if kb:
                _subtract_product(rhs, l21, _block(rhs, k0, 0, b, k), k1, 0)
    if later:
        _linalg.substitute(a, rhs)
    if kb:
        _back_substitution(a, rhs)


def _back_substitution(a: Array, rhs: Array) -> None:
    """rhs = U⁻¹·rhs in place for the upper triangle U of a (its diagonal included), by
    blocks of NB rows from the last: X1 = U11⁻¹·B1 by substitution, then B0 −= U01·X1."""
    n, k = a.shape[-1], rhs.shape[-1]
    nb = _linalg.NB
    for k0 in reversed(range(0, n, nb)):
        b = min(nb, n - k0)
        _linalg.block_solve(a, rhs, k0, b, k, upper=True)
        if k0:
            _subtract_product(rhs, _block(a, 0, k0, k0, b), _block(rhs, k0, 0, b, k), 0, 0)


_kept_lu = Jit(_blocked_lu)  # as _kept_cholesky (above)
_kept_back_substitution = Jit(_back_substitution)


def solve(x1: Array, x2: Array, /) -> Array:
    """float32 and complex64 (promoted together), by LU with partial pivoting. x2 of
    shape (M,) is one right-hand side for every matrix (result (..., M)); otherwise x2 is
    (..., M, K) with batch dimensions broadcast against x1's. Singular systems give
    inf/NaN rather than an error."""
    x1 = _supported(x1, "solve", square=True)
    x2 = _array(x2, "solve")
    dt.check_category(x2.dtype, "floating-point", "solve")
    if x2.dtype not in (dt.float32, dt.complex64, dt.float64, dt.complex128):
        raise TypeError(f"solve: only float32, complex64, float64, complex128 are supported on "
                        f"this device, got {x2.dtype.name}")
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
    x = _supported(x, "inv", square=True)

    e = eye(x.shape[-1], dtype=x.dtype, device=x.device)
    _, out, _ = _lu(x, e, x.shape[:-2], x.dtype)
    return out


def slogdet(x: Array, /):
    """float32 and complex64 (sign complex, logabsdet float32), from LU with partial
    pivoting: sign = parity · Π sign(u_ii), logabsdet = Σ log|u_ii|. A singular matrix
    gives (0, -inf), as in NumPy."""
    x = _supported(x, "slogdet", square=True)
    lu_, _, s = _lu(x, None, x.shape[:-2], x.dtype)
    d = diagonal(lu_)
    sign = ew.multiply(s, stat.prod(ew.sign(d), axis=-1))
    logabs = stat.sum(ew.log(ew.abs(d)), axis=-1)
    return SlogdetResult(sign, logabs)


def det(x: Array, /) -> Array:
    """float32 and complex64, the product of LU's pivots times the permutation's parity
    (so it overflows to ±inf where the determinant exceeds float32 range)."""
    x = _supported(x, "det", square=True)
    lu_, _, s = _lu(x, None, x.shape[:-2], x.dtype)
    d = diagonal(lu_)
    det_ = ew.multiply(s, stat.prod(d, axis=-1))
    # a zero pivot makes it 0 even where the other pivots' product overflows (0 · inf)
    return where(_utility.any(ew.equal(d, 0.0), axis=-1), 0.0, det_)


def _identities(n: int, batch, device, dtype=dt.float32) -> Array:
    return _work_copy(eye(n, dtype=dtype, device=device), tuple(batch) + (n, n), dtype)


def qr(x: Array, /, *, mode: str = "reduced"):
    """float32 and complex64, by Householder reflections. R's diagonal is
    -phase(a_kk)·‖column‖ at each step (real negative or positive as LAPACK's for float32;
    complex for complex64, where LAPACK makes it real), so R matches NumPy's up to the
    phases of its rows. Q is formed as M×M and sliced for mode='reduced'."""
    x = _supported(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    q = _identities(m, batch, x.device, x.dtype)
    if m <= 1 or n == 0:
        r = _work_copy(x, x.shape, x.dtype)
    elif composed.available(x.device, x.dtype):
        # scaled by a power of two first: the column norms square the entries, which
        # overflow beyond ~1e154 in float64 (R was NaN) and underflow below ~1e-154 (a
        # column's reflection was skipped, so Q·R lost its entries below the diagonal)
        a, scale = _scaled(x)
        q, r = composed.qr(_work_copy(a, x.shape, x.dtype), q)
        if scale is not None:
            r = ew.divide(r, astype(scale, x.dtype))
    elif _linalg.small(m, n):
        r = _work_copy(x, x.shape, x.dtype)
        scratch = Array._empty(batch + (m,), x.dtype, x.device)
        _linalg.one_workgroup("qr", (r, q, scratch), m, n)
    else:
        at = _work_copy(x.mT, batch + (n, m), x.dtype)  # columns as rows
        _linalg.householder(at, q)
        r = astype(at.mT, x.dtype, copy=True)
    k = min(m, n)
    if mode == "reduced" and k < m:
        q = astype(q[..., :k], x.dtype, copy=True)
        r = astype(r[..., :k, :], x.dtype, copy=True)
    return QRResult(q, r)


def _sorted_by(keys: Array, vals: Array, vecs: Array | None, descending: bool, axis: int = -1):
    """vals sorted by keys along the last axis; vecs' columns (axis=-1) or rows (axis=-2)
    in the same order."""

    order = argsort(keys, axis=-1, descending=descending, stable=True)
    vals = take_along_axis(vals, order, axis=-1)
    if vecs is not None:
        idx = mp.expand_dims(order, axis=-2 if axis == -1 else -1)
        vecs = take_along_axis(vecs, mp.broadcast_to(idx, vecs.shape), axis=axis)
    return vals, vecs


def _jacobi(w: Array, vt: Array) -> None:
    """One-sided Jacobi in place on the rows of w (batch, N, M) until they are orthogonal,
    the rotations accumulated into the rows of vt (batch, N, N), by the kernels' rounds
    or, without them, composed of namespace operations.

    A pair is rotated when its cosine |w_p·w_q|/(‖w_p‖‖w_q‖) exceeds ε (float32's, the
    level at which the computed cosine of orthogonal rows is noise), and sweeps run until
    one finds no cosine above 2ε·√max(M, 16) (checked on the host after every sweep from
    the fourth on, one small readback each) or for at most MAX_SWEEPS. The rotations' own
    threshold used to be that stopping one: the pairs left between them went into U·S
    (through the Cholesky QR of x·V/s) as a reconstruction error of the same size, 3.7e-6
    at 200×50; rotating them too costs no sweep (convergence is quadratic: the last sweep
    takes them to noise), where stopping only after a sweep that rotates nothing took 1-3
    sweeps more than before (measured at 100 to 300 a side)."""

    n, m = w.shape[-2:]
    if n < 2 or m == 0 or math.prod(w.shape[:-2]) == 0:
        return
    eps = _eps(w.dtype)
    run = composed.jacobi if composed.available(w.device, w.dtype) else _linalg.jacobi
    run(w, vt, _linalg.MAX_SWEEPS, eps, 2.0 * eps * math.sqrt(max(m, 16)))


def _hermitian_lower(x: Array) -> Array:
    """The Hermitian matrix of x's lower triangle (the real part of its diagonal)."""

    low = tril(x, k=-1)
    h = ew.add(low, ew.conj(low).mT if x.dtype.kind == "c" else low.mT)
    d = ew.real(diagonal(x)) if x.dtype.kind == "c" else diagonal(x)
    e = _identities(x.shape[-1], (), x.device, x.dtype)
    return ew.add(h, ew.multiply(astype(d, x.dtype)[..., None], e))


def _scaled(x: Array):
    """(x times a power of two that brings its largest |element| near 1, that factor as a
    (..., 1, 1) array of x's real dtype): the Jacobi methods sum squares, which overflow
    float32 beyond |x| ~ 1e18 and underflow below ~1e-19 (float64: 1e153, 1e-154)."""
    if x.size == 0:
        return x, None

    big = stat.max(ew.abs(x), axis=(-2, -1), keepdims=True)
    ok = ew.logical_and(ew.greater(big, 0.0), ew.isfinite(big))  # else leave x as it is
    scale = where(ok, _inverse_power_of_two(big), ones_like(big))
    return ew.multiply(x, astype(scale, x.dtype)), scale


def _inverse_power_of_two(big: Array) -> Array:
    """2^-k for each positive finite element of big (float32 or float64), where 2^k is its
    leading power of two, k clipped to ±126 (float32) or ±1000 (float64): from the
    exponent bits by integer operations (log2 and pow of float64 are large software
    functions, and WebGL2 compiles such a shader for many seconds)."""
    wide = big.dtype is dt.float64
    ity, mant, bias, lim = (dt.int64, 52, 1023, 1000) if wide else (dt.int32, 23, 127, 126)
    bits = _bits_as(big, ity)
    k = ew.clip(ew.subtract(ew.bitwise_and(ew.bitwise_right_shift(bits, mant), 2 * bias + 1), bias),
                -lim, lim)
    return _bits_as(ew.bitwise_left_shift(ew.subtract(bias, k), mant), big.dtype)


def _bits_as(a: Array, dtype) -> Array:
    """The elements of a (a 32- or 64-bit dtype) read as dtype's of the same width."""
    if not tensor.is_contiguous(a.shape, a._strides):
        a = _graph.copy_of(a)
    return tensor.view(a._buf, dtype, a.shape, a._strides, a._offset, a.device)


def _nonfinite(x: Array) -> Array:
    """Per matrix of the stack: does it hold NaN or ±infinity?"""
    return _utility.any(ew.logical_not(ew.isfinite(x)), axis=(-2, -1))


def _nan_where(bad: Array, *arrays):
    """Each array (a stack of vectors or of matrices) NaN in the matrices where bad."""
    return tuple(None if a is None else
                 where(bad[(...,) + (None,) * (a.ndim - bad.ndim)], math.nan, a)
                 for a in arrays)


def _eigh(x: Array, vectors: bool, name: str):
    x = _supported(x, name, square=True)
    bad = _nonfinite(tril(x))  # only the lower triangle is read
    x, scale = _scaled(x)
    vals, vecs = _eigh_scaled(x, vectors)
    return _nan_where(bad, vals if scale is None else ew.divide(vals, scale[..., 0]), vecs)


def _eigh_scaled(x: Array, vectors: bool):
    n = x.shape[-1]
    batch = x.shape[:-2]
    herm = _hermitian_lower(x)  # NumPy's UPLO='L'
    h = _work_copy(herm, x.shape, x.dtype)
    if x.dtype is dt.float32 and _linalg.small(n) and not composed.available(x.device):
        v = _identities(n, batch, x.device)
        _linalg.one_workgroup("eigh", (h, v), n, n)
        if _refinable(x):
            w, v = _refined_eigh(herm, v)
        else:
            w = astype(diagonal(h), dt.float32, copy=True)
        return _sorted_by(w, w, v if vectors else None, descending=False)
    # one-sided Jacobi on h + σ·I, σ = ‖h‖_F: positive semidefinite, so its right singular
    # vectors are h's eigenvectors and its singular values are h's eigenvalues plus σ
    sigma = _norm_of_abs(ew.abs(h), (-2, -1), True, 2)
    b = ew.add(h, ew.multiply(astype(sigma, x.dtype), _identities(n, (), x.device, x.dtype)))
    wrows = _work_copy(b.mT, b.shape, x.dtype)
    vt = _identities(n, batch, x.device, x.dtype)
    _jacobi(wrows, vt)
    # Rayleigh quotients vᴴ·h·v: errors of second order in those of v, where the
    # rotated columns' norms carry drift and rounding of order ε·σ
    v = _polish(vt.mT)
    if _refinable(x):
        w, v = _refined_eigh(herm, v)
    else:
        hv = ew.multiply(ew.conj(v) if x.dtype.kind == "c" else v, matmul(h, v))
        w = stat.sum(ew.real(hv) if x.dtype.kind == "c" else hv, axis=-2)
    vals, v = _sorted_by(w, w, v if vectors else None, descending=False)
    return vals, (astype(v, x.dtype, copy=True) if vectors else None)


# -- refinement of eigh's and svd's float32 factors ------------------------------------------
#
# Jacobi's factors carry more rounding than LAPACK's: its vectors accumulate every
# rotation, and the one-sided method measures orthogonality by float32 dot products of
# rows whose norms the shift makes large. eigh's residual ‖A·V − V·Λ‖/‖A‖ was 8-400x
# NumPy's, svd's reconstruction 2-3x. Ogita and Aishima's refinement (for eigh, 2018;
# their SVD variant, 2020) corrects both to first order from a few Gram matrices and
# residuals, which must be computed more accurately than float32 products do (with
# float32 products the refined vectors stall at 5-30x NumPy's error): ``_accurate``
# computes them with exact products summed in two floats (``_linalg.dot2``). A correction
# is applied only where the first-order step is valid: pairs whose eigenvalue (singular
# value) gap exceeds the current error estimate δ and whose correction is at most
# _FIRST_ORDER (its square, the term dropped, then stays at rounding level); the other
# pairs are only made orthogonal (E = R/2).

_FIRST_ORDER = 2.0 ** -12
_EIGH_STEPS = 2  # each squares the error; from Jacobi's, two reach NumPy's (tests measure)


def _refinable(x: Array) -> bool:
    """Whether eigh's and svd's factors of x are refined: float32 where the device has the
    linalg kernels (dot2); complex64 and WebGL2's composed factorizations are not."""
    return x.dtype is dt.float32 and not composed.available(x.device, x.dtype)


def _accurate(at: Array, b: Array, c: Array | None = None, subtract: bool = False):
    """(hi, lo) with hi + lo = c ± atᵀ·b for stacks at (..., K, M), b (..., K, N), c
    (..., M, N; zero if None) of one batch shape, to about 2⁻⁴⁰ of the terms' size."""
    batch = at.shape[:-2]
    m, n = at.shape[-1], b.shape[-1]
    out = _work_copy(zeros((m, n), dtype=dt.float32, device=at.device) if c is None else c,
                     batch + (m, n))
    lo = tensor.empty(batch + (m, n), dt.float32, at.device)
    # two copies even when at is b: Dawn refuses a buffer bound writable twice in a dispatch
    _linalg.dot2(_work_copy(at, at.shape), _work_copy(b, b.shape), out, lo, subtract)
    return out, lo


def _frobenius(a: Array) -> Array:
    """‖a‖_F of each matrix of the stack, as (..., 1, 1)."""
    return ew.sqrt(stat.sum(ew.multiply(a, a), axis=(-2, -1), keepdims=True))


def _off_diagonal(a: Array, e: Array) -> Array:
    return ew.multiply(a, ew.subtract(1.0, e))


def _refined_eigh(h: Array, v: Array):
    """(eigenvalues, eigenvectors) of the symmetric float32 h refined from the approximate
    eigenvectors v (columns) by _EIGH_STEPS of Ogita and Aishima's iteration: with R =
    I − VᵀV and S = Vᵀ·h·V, λ_i = s_ii / (1 − r_ii) and V += V·E, where e_ij = (s_ij +
    λ_j·r_ij) / (λ_j − λ_i) for well separated pairs and r_ij/2 otherwise. R and S come
    from float32 products in the first step (their errors are far below Jacobi's) and
    accurate ones in the last. The eigenvalues are the last step's λ (second-order
    accurate in its vectors)."""
    n = h.shape[-1]
    e = eye(n, dtype=h.dtype, device=h.device)
    hf = _frobenius(h)
    for k in range(_EIGH_STEPS):
        if k < _EIGH_STEPS - 1:
            r = ew.subtract(e, matmul(v.mT, v))
            s = matmul(v.mT, matmul(h, v))
        else:
            r, _ = _accurate(v, v, e, subtract=True)
            yh, yl = _accurate(h, v)  # h·v (h symmetric)
            s, _ = _accurate(v, yh, matmul(v.mT, yl))
        s = ew.multiply(ew.add(s, s.mT), 0.5)
        lam = ew.divide(diagonal(s), ew.subtract(1.0, diagonal(r)))
        gap = ew.subtract(lam[..., None, :], lam[..., :, None])
        num = ew.add(s, ew.multiply(lam[..., None, :], r))
        delta = ew.multiply(2.0, ew.add(_frobenius(_off_diagonal(s, e)), ew.multiply(hf, _frobenius(r))))
        far = ew.logical_and(ew.greater(ew.abs(gap), delta),
                             ew.less_equal(ew.abs(num), ew.multiply(_FIRST_ORDER, ew.abs(gap))))
        correction = where(far, ew.divide(num, where(far, gap, 1.0)), ew.multiply(r, 0.5))
        v = ew.add(v, matmul(v, correction))
    return lam, v


def _refined_svd(a: Array, u: Array, s: Array, v: Array):
    """(U, S, V) of the tall float32 a (M ≥ N) refined from an approximate (u, s, v) by
    one step of Ogita and Aishima's SVD iteration: with R = I − UᵀU, Q = I − VᵀV and
    T = Uᵀ·a·V (accurate), σ_i = t_ii / (1 − (r_ii + q_ii)/2), U += U·F + (a·V − U·(I + R)·T)·Σ⁻¹
    (the part of a·V outside U's columns) and V += V·G, where for well separated pairs
    f_ij = (σ_j·α + σ_i·β) / (σ_j² − σ_i²), g_ij = (σ_i·α + σ_j·β) / (σ_j² − σ_i²) with
    α = t_ij + σ_j·r_ij, β = t_ji + σ_j·q_ij, and r_ij/2, q_ij/2 otherwise. Singular
    values at rounding level (s ≤ s_max·max(M, N)·ε) are left as they are, their columns
    of U untouched (svd completes them by a QR)."""
    m, n = a.shape[-2:]
    e = eye(n, dtype=a.dtype, device=a.device)
    ok = ew.greater(s, ew.multiply(s[..., :1], max(m, n) * _eps(a.dtype)))
    r, _ = _accurate(u, u, e, subtract=True)
    q, _ = _accurate(v, v, e, subtract=True)
    yh, yl = _accurate(a.mT, v)  # a·v
    t, tl = _accurate(u, yh, matmul(u.mT, yl))
    sig = ew.divide(diagonal(t), ew.subtract(1.0, ew.multiply(ew.add(diagonal(r), diagonal(q)), 0.5)))
    sig = where(ok, sig, s)
    si, sj = sig[..., :, None], sig[..., None, :]
    alpha = ew.add(t, ew.multiply(r, sj))
    beta = ew.add(t.mT, ew.multiply(q, sj))
    den = ew.subtract(ew.multiply(sj, sj), ew.multiply(si, si))
    den1 = where(ew.equal(den, 0.0), 1.0, den)
    f = ew.divide(ew.add(ew.multiply(sj, alpha), ew.multiply(si, beta)), den1)
    g = ew.divide(ew.add(ew.multiply(si, alpha), ew.multiply(sj, beta)), den1)
    delta = ew.multiply(2.0, ew.add(_frobenius(_off_diagonal(t, e)),
                                    ew.multiply(_frobenius(a), ew.add(_frobenius(r), _frobenius(q)))))
    both = ew.logical_and(ok[..., :, None], ok[..., None, :])
    far = ew.logical_and(ew.logical_and(both, ew.greater(ew.abs(ew.subtract(sj, si)), delta)),
                         ew.logical_and(ew.less_equal(ew.abs(f), _FIRST_ORDER),
                                        ew.less_equal(ew.abs(g), _FIRST_ORDER)))
    f = where(far, f, where(both, ew.multiply(r, 0.5), 0.0))
    g = where(far, g, ew.multiply(q, 0.5))
    # a·V − U·(T + R·T): a·V's part outside U's columns, with T in two floats
    w, _ = _accurate(mp.concat([u.mT, u.mT], axis=-2),
                     mp.concat([t, ew.add(tl, matmul(r, t))], axis=-2), yh, subtract=True)
    w = ew.add(w, yl)
    outside = where(ok[..., None, :], ew.divide(w, where(ok, sig, 1.0)[..., None, :]), 0.0)
    u = ew.add(ew.add(u, matmul(u, f)), outside)
    v = ew.add(v, matmul(v, g))
    # refined values may trade places: one order for S, U's and V's columns
    s, uv = _sorted_by(sig, sig, mp.concat([u, v], axis=-2), descending=True)
    return uv[..., :m, :], s, uv[..., m:, :]


def eigh(x: Array, /):
    """float32 and complex64. Only the lower triangle is read, as NumPy's default.
    Eigenvalues ascending (float32), eigenvectors in columns with unspecified signs
    (phases). Real matrices up to 64 a side by cyclic two-sided Jacobi rotations in one
    workgroup; larger and complex ones by one-sided Jacobi on A + ‖A‖_F·I (absolute
    eigenvalue errors of order ε·‖A‖_F); float32 results then refined (_refined_eigh) to
    NumPy's accuracy up to 64 a side, 4-40x its residual beyond."""
    w, v = _eigh(x, True, "eigh")
    return EighResult(w, v)


def eigvalsh(x: Array, /) -> Array:
    """float32 and complex64 (result float32), ascending; see eigh."""
    return _eigh(x, False, "eigvalsh")[0]


# the columns from which a float32 svd runs its Jacobi rounds on Rᵀ of a QR of the matrix
# (NOTES-kernels-22, session 30)
QR_FIRST = 128


def _svd_jacobi(x: Array, vectors: bool, precondition: bool = True):
    """(S descending, U, Vh, swapped) of x by one-sided Jacobi on the columns of x (of xᴴ
    when M < N), by the kernels' rounds or composed; see _svd_of. From QR_FIRST columns
    on (float32 with the linalg kernels), on the columns of Rᵀ of a QR instead (Drmač and
    Veselić's preconditioning: Rᵀ's columns start nearer orthogonal, so fewer sweeps; a
    NumPy simulation counted a quarter to a third fewer), and then ``swapped`` says so:
    the tall factor's left columns (U, of V when M < N) are the orthonormal ones, from the
    rotations, and its right ones are zero where S is, not the left."""
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    wide = m < n
    cols = m if wide else n
    cj = ew.conj if x.dtype.kind == "c" else (lambda z: z)
    tall = cj(x).mT if wide else x  # tall = U·S·Vᴴ
    if precondition and cols >= QR_FIRST and _refinable(x):
        return _svd_of_r(tall, wide, vectors)
    wrows = _work_copy(tall.mT, batch + (cols, tall.shape[-2]), x.dtype)  # its columns as rows
    vt = _identities(cols, batch, x.device, x.dtype)
    _jacobi(wrows, vt)
    return _svd_of(x, tall, vt.mT, vectors) + (False,)


def _svd_of_r(tall: Array, wide: bool, vectors: bool):
    """_svd_jacobi's (S, U, Vh, True) of x (tall, or tallᵀ when wide; real) through
    tall = Q·R: Rᵀ = Ub·S·Vbᵀ by one-sided Jacobi on Rᵀ's columns, so tall = (Q·Vb)·S·Ubᵀ."""
    q, r = qr(tall)
    s, ub, vhb, _ = _svd_jacobi(r.mT, vectors, precondition=False)
    if not vectors:
        return s, None, None, True
    if wide:  # x = tallᵀ = Ub·S·(Q·Vb)ᵀ
        return s, ub, matmul(vhb, q.mT), True
    return s, matmul(q, vhb.mT), ub.mT, True


def _svd_of(x: Array, tall: Array, v: Array, vectors: bool):
    """(S descending, U, Vh) of x from the accumulated rotations v of one-sided Jacobi on
    the columns of tall (x, or xᴴ when M < N); U has zero columns where S is zero. The
    rotated columns themselves are not used: their norms drift with the rotations'
    rounding (S was 4.8e-6 of the largest off at 64×64 from them, 1.2e-7 from tall·V), so
    S and U come from tall·V with V polished orthonormal."""
    wide = x.shape[-2] < x.shape[-1]
    cj = ew.conj if x.dtype.kind == "c" else (lambda z: z)
    v = _polish(v)
    us = matmul(tall, v)
    a = ew.abs(us)
    s = ew.sqrt(stat.sum(ew.multiply(a, a), axis=-2))
    if not vectors:
        return _sorted_by(s, s, None, descending=True)[0], None, None
    rows = us.shape[-2]  # one order for S, a·V's and V's columns
    s_sorted, usv = _sorted_by(s, s, mp.concat([us, v], axis=-2), descending=True)
    us, v = usv[..., :rows, :], usv[..., rows:, :]
    u = ew.divide(us, astype(where(ew.equal(s_sorted, 0.0), 1.0, s_sorted), x.dtype)[..., None, :])
    if wide:  # x = V·S·Uᴴ in the factors of xᴴ
        return s_sorted, v, cj(u).mT
    return s_sorted, u, cj(v).mT


def _svd(x: Array, name: str, vectors: bool):
    """(S, U, Vh): U (M×K) with zero columns where S is zero, Vh (K×N) orthonormal rows."""
    s, u, vh, _, finish, _ = _svd_parts(x, name, vectors)
    return finish(s, u, vh)


def _svd_parts(x: Array, name: str, vectors: bool):
    """(S, U, Vh of x scaled by a power of two (_scaled), that scaled x, finish, swapped):
    finish(s, u, vh) scales S back and makes the factors of matrices holding NaN or ±inf
    NaN; swapped as _svd_jacobi's (the factor with zero columns where S is zero is Vᴴ's
    side of the tall matrix, not U's)."""
    x = _supported(x, name)
    bad = _nonfinite(x)
    x, scale = _scaled(x)
    s, u, vh, swapped = _svd_scaled(x, vectors)

    def finish(s, u, vh):
        return _nan_where(bad, s if scale is None else ew.divide(s, scale[..., 0]), u, vh)

    return s, u, vh, x, finish, swapped


def _svd_scaled(x: Array, vectors: bool):
    m, n = x.shape[-2:]
    if x.dtype is dt.complex64 or not _linalg.small(m, n) or composed.available(x.device, x.dtype):
        return _svd_jacobi(x, vectors)
    batch = x.shape[:-2]
    wide = m < n
    tall = x.mT if wide else x
    rows, cols = tall.shape[-2:]
    a = _work_copy(tall, batch + (rows, cols))
    v = _identities(cols, batch, x.device)
    _linalg.one_workgroup("svd", (a, v), rows, cols)
    return _svd_of(x, tall, v, vectors) + (False,)


def svd(x: Array, /, *, full_matrices: bool = True):
    """float32 and complex64, by one-sided (Hestenes) Jacobi rotations of the columns (of
    xᴴ when M < N): one workgroup per real matrix up to 64 a side, one workgroup per
    column pair and one launch per round beyond that and for complex64. Singular values
    descending; singular vectors have unspecified signs (phases). Columns of U (of V when
    M < N) for zero singular values, and with full_matrices the extra columns, come from
    a complete QR, so the factors are unitary. float32 factors are refined (_refined_svd)
    to NumPy's accuracy."""
    full_matrices = _bool(full_matrices, "svd: full_matrices")
    s, u, vh, scaled, finish, swapped = _svd_parts(x, "svd", True)
    m, n = x.shape[-2:]
    # columns a·v/s for s at rounding level (relative to the largest) are noise, not
    # vectors: those need a QR to complete them; one small readback tells
    tiny = ew.less_equal(s, ew.multiply(s[..., :1], max(m, n) * _eps(x.dtype))) if s.size else s
    complete = (full_matrices and m != n) or not s.size or \
        int(stat.sum(astype(tiny, dt.int32))) > 0
    # the square factor accumulates rounding over every rotation (one symmetric polishing
    # step), the columns a·v/s carry errors of order ε·‖a‖/s (Cholesky QR, which like
    # Gram-Schmidt leaves the columns of large s alone), and missing ones need a QR
    if _refinable(x) and s.size:
        # the tall factors (of xᵀ when M < N) made orthonormal as below, then refined
        # (which needs them nearly orthonormal: a column a·v/s of small s can be 1e-2
        # off), then completed
        wide = m < n
        tu, tv = (vh.mT, u) if wide else (u, vh.mT)
        if swapped:  # (a QR first: tv has the columns a·u/s)
            tv = _complete(tv, False) if complete else _cholesky_qr(tv)
        else:
            tu = _complete(tu, False) if complete else _cholesky_qr(tu)
        tu, s, tv = _refined_svd(scaled.mT if wide else scaled, tu, s, tv)
        if complete and full_matrices and m != n:
            tu = _complete(tu, True)
        u, vh = (tv, tu.mT) if wide else (tu, tv.mT)
    elif m >= n:
        vh = _polish(vh.mT).mT
        u = _complete(u, full_matrices) if complete else _cholesky_qr(u)
    else:
        u = _polish(u)
        cj = ew.conj if x.dtype.kind == "c" else (lambda z: z)
        v = cj(vh).mT
        vh = cj(_complete(v, full_matrices) if complete else _cholesky_qr(v)).mT
    s, u, vh = finish(s, u, vh)
    return SVDResult(astype(u, x.dtype, copy=True), s, astype(vh, x.dtype, copy=True))


def _polish(u: Array) -> Array:
    """One Newton–Schulz step u·(3I − uᴴu)/2 towards the nearest matrix with orthonormal
    columns: the columns a·v/s of one-sided Jacobi carry errors of order ε/s relative to
    the smallest singular values, and one step squares them away."""
    uh = ew.conj(u).mT if u.dtype.kind == "c" else u.mT
    return ew.subtract(ew.multiply(u, 1.5), ew.multiply(matmul(u, matmul(uh, u)), 0.5))


def _cholesky_qr(u: Array) -> Array:
    """u·R⁻¹ with Rᴴ·R = uᴴu: orthonormal columns from nearly orthonormal ones, column j
    corrected only by columns 0..j, as Gram-Schmidt would (one Gram matrix, one Cholesky,
    one inverse and one product, all on the device)."""
    uh = ew.conj(u).mT if u.dtype.kind == "c" else u.mT
    r = cholesky(matmul(uh, u), upper=True)
    return matmul(u, _upper_inverse(r))


def _upper_inverse(r: Array) -> Array:
    """R⁻¹ of the upper-triangular R (..., N, N; float32 or complex64) by blocked back
    substitution against the identity: LU's second half alone (``inv``'s LU with its
    panels took 7.8 ms at 1024 on an H200). One workgroup a matrix up to MAX_N a side
    (``inv``)."""
    n = r.shape[-1]
    if _linalg.small(n) or composed.available(r.device, r.dtype):
        return inv(r)
    batch = r.shape[:-2]
    a = _work_copy(r, batch + (n, n), r.dtype)
    rhs = _identities(n, batch, r.device, r.dtype)
    _kept_back_substitution(a, rhs)
    return rhs


def _complete(u: Array, full: bool) -> Array:
    """Orthonormal columns from u's (M×K, orthonormal where nonzero): Q of a complete QR,
    its first K columns turned to u's phases; all M columns if full, else K."""
    m, k = u.shape[-2:]
    if k == 0:
        return _identities(m, u.shape[:-2], u.device, u.dtype) if full else u
    q, r = qr(u, mode="complete")
    d = diagonal(r)
    if u.dtype.kind == "c":
        mag = ew.abs(d)
        sgn = ew.divide(d, astype(where(ew.equal(mag, 0.0), 1.0, mag), u.dtype))
        sgn = where(ew.equal(mag, 0.0), astype(ew.add(mag, 1.0), u.dtype), sgn)
    else:
        sgn = ew.subtract(1.0, ew.multiply(2.0, astype(ew.less(d, 0.0), u.dtype)))
    first = ew.multiply(q[..., :k], sgn[..., None, :])
    if not full or k == m:
        return first
    return mp.concat([first, q[..., k:]], axis=-1)


def svdvals(x: Array, /) -> Array:
    """float32 and complex64 (result float32), descending; see svd. float32 values come
    from svd's refined factors: Jacobi's own are right to ε·s_max, not to ε·s (the
    smallest of a 2.4e4-conditioned 4×4 was 7e-5 off, LAPACK's exact)."""
    x = _supported(x, "svdvals")
    if _refinable(x) and x.size:
        return svd(x, full_matrices=False)[1]
    return _svd(x, "svdvals", False)[0]


def _rtol(x: Array, rtol, name: str):
    """The relative cutoff of pinv and matrix_rank: a float, or an array broadcast against
    the batch; None is max(M, N)·eps of x's precision, as the standard suggests."""
    if rtol is None:
        return max(x.shape[-2:]) * _eps(x.dtype)
    if isinstance(rtol, Array):
        dt.check_category(rtol.dtype, "real floating-point", name)
        return rtol[..., None]
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{name}: rtol must be a float, an array or None, got {rtol!r}")
    return float(rtol)


def matrix_rank(x: Array, /, *, rtol=None) -> Array:
    """float32 and complex64: the number of singular values above rtol · the largest
    (int32, the default integer dtype of this device). LinAlgError (a ValueError) where
    x holds NaN or infinity."""
    x = _supported(x, "matrix_rank")
    cut = _rtol(x, rtol, "matrix_rank")
    if x.size and bool(_utility.any(ew.logical_not(ew.isfinite(x)))):
        raise LinAlgError(
            "matrix_rank: x holds NaN or infinity, so its singular values and rank are "
            "undefined"
        )
    s = svdvals(x)
    if s.shape[-1] == 0:
        return stat.sum(astype(s, dt.int32), axis=-1)
    limit = ew.multiply(cut, s[..., :1])
    return stat.sum(astype(ew.greater(s, limit), dt.int32), axis=-1)


def pinv(x: Array, /, *, rtol=None) -> Array:
    """float32 and complex64, V·diag(1/s)·Uᴴ from the thin svd (refined as svd's: a small
    singular value off by its rounding is off by the condition number in 1/s), singular
    values at or below rtol · the largest taken as zero."""
    x = _supported(x, "pinv")
    cut = _rtol(x, rtol, "pinv")
    if _refinable(x):
        u, s, vh = svd(x, full_matrices=False)
    else:
        s, u, vh = _svd(x, "pinv", True)
    if s.shape[-1] == 0:
        return zeros(x.shape[:-2] + x.shape[-2:][::-1], dtype=x.dtype, device=x.device)
    keep = ew.greater(s, ew.multiply(cut, s[..., :1]))
    inv_s = where(keep, ew.divide(1.0, where(keep, s, ew.add(s, 1.0))), ew.multiply(s, 0.0))
    cj = ew.conj if x.dtype.kind == "c" else (lambda z: z)
    return matmul(ew.multiply(cj(vh).mT, astype(inv_s, x.dtype)[..., None, :]), cj(u).mT)


# ---- eig and eigvals (kernels/webgpu/linalg_steps.py, complex64) -----------------------

def _eig(x: Array, vectors: bool, name: str):
    """Eigenvalues (and eigenvectors) of general square matrices, in complex64: Hessenberg
    reduction, shifted QR to the Schur form, then back substitution. A matrix whose QR
    iteration stalls gets NaN eigenvalues (NumPy raises LinAlgError)."""

    if _matrices(x, name, "floating-point").dtype in (dt.float64, dt.complex128):
        return _eig_host(x, vectors, name)
    x = _supported(x, name, square=True, float64_ok=False)
    if x.device.kernels.linalg is None:
        # WebGL2: the Hessenberg and Schur steps are compute-shader kernels (workgroup
        # memory and barriers), which it lacks; the host's QR iteration instead
        return _eig_host(x, vectors, name, dt.complex64)
    n = x.shape[-1]
    batch = x.shape[:-2]
    count = math.prod(batch)
    c64 = dt.complex64
    h = _work_copy(x, x.shape, c64)
    z = _identities(n, batch, x.device, c64) if vectors else Array._empty((1,), c64, x.device)
    if n == 0 or count == 0:
        w = Array._empty(batch + (n,), c64, x.device)
        return w, (h if vectors else None)
    _linalg.hessenberg(h, z, vectors)
    stalled = _linalg.schur(h, z, vectors)
    w = astype(diagonal(h), c64, copy=True)
    w = where(ew.not_equal(stalled, 0), astype(ew.multiply(ew.abs(w), math.nan), c64), w)
    real_input = x.dtype.kind != "c"
    if real_input:
        w, as_pairs = _real_pairs(w)
    if not vectors:
        return w, None
    xv = _identities(n, batch, x.device, c64)
    _linalg.schur_vectors(h, xv)
    vec = matmul(z, xv)
    a = ew.abs(vec)
    vec = ew.divide(vec, astype(ew.sqrt(stat.sum(ew.multiply(a, a), axis=-2, keepdims=True)), c64))
    # the largest component of each vector real and positive, as LAPACK's zgeev

    big = take_along_axis(vec, argmax(ew.abs(vec), axis=-2, keepdims=True), axis=-2)
    mag = ew.abs(big)
    ph = ew.divide(ew.conj(big), astype(where(ew.equal(mag, 0.0), 1.0, mag), c64))
    vec = ew.multiply(vec, ph)
    if real_input:
        vec = as_pairs(vec)
    return w, vec


def _eig_host(x: Array, vectors: bool, name: str, dtype=dt.complex128):
    """_eig for float64 and complex128 (and float32 and complex64 on a device without
    linalg kernels, WebGL2: dtype complex64): one readback, the QR iteration on the host
    (_linalg_host) in double precision, results in dtype."""
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name} requires square matrices, got shape {x.shape}")
    n = x.shape[-1]
    batch = x.shape[:-2]
    values = _graph.host_values(x) if x.size else []
    ws, vs = [], []
    for b in range(math.prod(batch)):
        flat = values[b * n * n:(b + 1) * n * n]
        w, v = _linalg_host.eig([[complex(t) for t in flat[i * n:(i + 1) * n]]
                                 for i in range(n)], vectors)
        ws += w
        if vectors:  # columns: element (i, k) is vector k's component i
            vs += [v[k][i] for i in range(n) for k in range(n)]
    w = asarray(ws, dtype=dtype, device=x.device) if ws else Array._empty((0,), dtype, x.device)
    w = mp.reshape(w, batch + (n,))
    vec = None
    if vectors:
        vec = asarray(vs, dtype=dtype, device=x.device) if vs else Array._empty((0,), dtype, x.device)
        vec = mp.reshape(vec, batch + (n, n))
    if x.dtype.kind != "c" and n:
        w, as_pairs = _real_pairs(w)
        if vectors:
            vec = as_pairs(vec)
    return w, vec


def _conjugate_partners(w: Array):
    """For the eigenvalues w (..., n) of real matrices, found in complex arithmetic: each
    one's partner (the index j != i whose conjugate lies nearest), whether it is real (its
    own conjugate is at least as near as any other's) and whether it is one of a mutual
    pair of partners (and not real). LAPACK's real Schur form gives real eigenvalues with
    no imaginary part and complex ones as exact conjugate pairs; SciPy relies on both."""
    n = w.shape[-1]
    d = ew.abs(ew.subtract(w[..., :, None], ew.conj(w)[..., None, :]))
    own = eye(n, dtype=dt.bool, device=w.device)
    d = where(own, math.inf, d)
    partner = argmin(d, axis=-1)
    alone = ew.less_equal(ew.multiply(ew.abs(ew.imag(w)), 2.0), stat.min(d, axis=-1))
    idx = mp.broadcast_to(arange(n, dtype=partner.dtype, device=w.device), partner.shape)
    mutual = ew.equal(take_along_axis(partner, partner, axis=-1), idx)
    paired = ew.logical_and(mutual, ew.logical_not(
        ew.logical_or(alone, take_along_axis(alone, partner, axis=-1))))
    return partner, alone, paired


def _real_pairs(w: Array):
    """The eigenvalues w (..., n) of real matrices as LAPACK gives them (real ones real,
    complex ones as exact conjugate pairs in its order), and the function that does the
    same to their eigenvectors (in columns)."""
    partner, alone, paired = _conjugate_partners(w)
    w = _conjugate_pairs(w, partner, alone, paired, axis=-1)
    flip = _conjugated_in_lapack_order(w, partner, paired)

    def as_pairs(vec: Array) -> Array:
        vec = _conjugate_pairs(vec, partner[..., None, :], alone[..., None, :],
                               paired[..., None, :], axis=-1)
        return where(flip[..., None, :], ew.conj(vec), vec)

    return where(flip, ew.conj(w), w), as_pairs


def _conjugated_in_lapack_order(w: Array, partner: Array, paired: Array) -> Array:
    """Where a member of a mutual pair of exact conjugates is to be conjugated (and so its
    eigenvector) to list the pair as LAPACK's real Schur form does: the member with the
    positive imaginary part at the lower index (SciPy compares roots in that order).
    Conjugating both members of a pair swaps them."""
    idx = mp.broadcast_to(arange(w.shape[-1], dtype=partner.dtype, device=w.device), partner.shape)
    return ew.logical_and(paired, ew.equal(ew.less(idx, partner), ew.less(ew.imag(w), 0.0)))


def _conjugate_pairs(v: Array, partner: Array, alone: Array, paired: Array, axis: int):
    """v (eigenvalues, or eigenvectors in columns) with those of a real eigenvalue made
    real and those of a mutual pair replaced by (v_i + conj(v_partner)) / 2: the same sum
    in either order, so the pair's two results are exact conjugates."""
    other = take_along_axis(v, mp.broadcast_to(partner, v.shape), axis=axis)
    both = ew.multiply(ew.add(v, ew.conj(other)), 0.5)
    real = astype(ew.real(v), v.dtype)
    return where(alone, real, where(paired, both, v))


EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def eig(x: Array, /):
    """float32 and complex64 → complex64 eigenvalues (in no particular order, as NumPy)
    and eigenvectors in columns, each of unit norm with its largest component real.
    Complex Householder reduction to Hessenberg form and single-shift QR (Wilkinson
    shifts) to the Schur form on the GPU, one workgroup per matrix; eigenvectors by back
    substitution in the Schur form. For a real matrix, as LAPACK's real Schur form gives
    them, real eigenvalues have no imaginary part and complex ones (and their vectors)
    come in exact conjugate pairs (each pair's two results averaged, _conjugate_partners).
    Eigenvectors of (nearly) repeated eigenvalues of defective matrices are as
    ill-determined as in LAPACK."""
    w, v = _eig(x, True, "eig")
    return EigResult(w, v)


def eigvals(x: Array, /) -> Array:
    """float32 and complex64 → complex64, in no particular order; see eig."""
    return _eig(x, False, "eigvals")[0]
