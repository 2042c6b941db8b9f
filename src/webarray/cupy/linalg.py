"""``cupy.linalg``: NumPy's ``numpy.linalg`` signatures over the strict ``webarray.linalg``.

Integer and bool input is computed in float32 (NumPy: float64; see ``docs/cupy.md``).
Results are ``ndarray``; errors are the strict layer's (``LinAlgError`` for a singular or
non-positive-definite matrix, ValueError/TypeError for shapes and dtypes).
"""

from __future__ import annotations

import webarray as _wa
from webarray.linalg import LinAlgError  # noqa: F401  (numpy.linalg.LinAlgError's place)

from ._core import floating, operand, to_array, wrap

__all__ = ["LinAlgError", "cholesky", "det", "eigh", "eigvalsh", "inv", "lstsq",
           "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve", "svd",
           "tensorinv", "tensorsolve"]


def _float(a, name: str):
    x = a if isinstance(a, _wa.Array) else to_array(operand(a, name))
    d = floating(x.dtype)
    return x if x.dtype is d else _wa.astype(x, d)


def _square(x, name: str):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError(f"{name}: last 2 dimensions of the array must be square, got "
                          f"shape {x.shape}")


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: a vector norm over one axis (or the whole array when
    ``ord`` is None and ``axis`` is None), a matrix norm over two."""
    x = _float(x, "norm")
    if axis is None:
        if ord is None:
            r = _wa.linalg.vector_norm(x, axis=None, keepdims=keepdims)
            return wrap(r)
        if x.ndim == 1:
            axis = (0,)
        elif x.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError(f"norm: ord={ord!r} needs a 1-D or 2-D array or an axis, got "
                             f"{x.ndim} dimensions")
    if isinstance(axis, int):
        axis = (axis,)
    axis = tuple(axis)
    if len(axis) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: ord={ord!r} is a matrix norm; a vector norm takes a "
                             "number")
        return wrap(_wa.linalg.vector_norm(x, axis=axis, keepdims=keepdims,
                                           ord=2 if ord is None else ord))
    if len(axis) != 2:
        raise ValueError(f"norm: axis must be an int or a pair of ints, got {axis!r}")
    n = x.ndim
    a0, a1 = (ax + n if ax < 0 else ax for ax in axis)
    if not (0 <= a0 < n and 0 <= a1 < n) or a0 == a1:
        raise ValueError(f"norm: axis {axis!r} is invalid for {n} dimensions")
    rest = [k for k in range(n) if k not in (a0, a1)]
    moved = _wa.permute_dims(x, tuple(rest + [a0, a1]))
    r = _wa.linalg.matrix_norm(moved, ord="fro" if ord is None else ord)
    if keepdims:
        r = _wa.expand_dims(_wa.expand_dims(r, axis=min(a0, a1)), axis=max(a0, a1))
    return wrap(r)


def det(a):
    x = _float(a, "det")
    _square(x, "det")
    return wrap(_wa.linalg.det(x))


def slogdet(a):
    """``(sign, logabsdet)`` as NumPy's tuple."""
    x = _float(a, "slogdet")
    _square(x, "slogdet")
    r = _wa.linalg.slogdet(x)
    return wrap(r.sign), wrap(r.logabsdet)


def inv(a):
    x = _float(a, "inv")
    _square(x, "inv")
    return wrap(_wa.linalg.inv(x))


def pinv(a, rcond=1e-15):
    """Pseudo-inverse; singular values at or below ``rcond`` times the largest are cut
    (NumPy's meaning of rcond)."""
    return wrap(_wa.linalg.pinv(_float(a, "pinv"), rtol=rcond))


def solve(a, b):
    """``x`` with ``a @ x == b``; as NumPy 2, ``b`` is a vector only when it is 1-D."""
    x1 = _float(a, "solve")
    x2 = _float(b, "solve")
    _square(x1, "solve")
    d = _wa.result_type(x1, x2)
    return wrap(_wa.linalg.solve(_wa.astype(x1, d), _wa.astype(x2, d)))


def cholesky(a):
    """The lower-triangular factor L with ``a = L @ L.conj().T``."""
    x = _float(a, "cholesky")
    _square(x, "cholesky")
    return wrap(_wa.linalg.cholesky(x))


def qr(a, mode="reduced"):
    """NumPy's modes: 'reduced' and 'complete' give ``(q, r)``, 'r' gives ``r`` alone."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    x = _float(a, "qr")
    r = _wa.linalg.qr(x, mode="reduced" if mode == "r" else mode)
    if mode == "r":
        return wrap(r.R)
    return wrap(r.Q), wrap(r.R)


def svd(a, full_matrices=True, compute_uv=True):
    """``(u, s, vh)``, or ``s`` alone with ``compute_uv=False``."""
    x = _float(a, "svd")
    if not compute_uv:
        return wrap(_wa.linalg.svdvals(x))
    r = _wa.linalg.svd(x, full_matrices=full_matrices)
    return wrap(r.U), wrap(r.S), wrap(r.Vh)


def _hermitian_from(x, uplo: str, name: str):
    """The Hermitian matrix that the ``uplo`` triangle of x describes (NumPy reads only
    that triangle)."""
    if uplo not in ("L", "U"):
        raise ValueError(f"{name}: UPLO must be 'L' or 'U', got {uplo!r}")
    _square(x, name)
    strict = _wa.tril(x, k=-1) if uplo == "L" else _wa.triu(x, k=1)
    diag = x - _wa.tril(x, k=-1) - _wa.triu(x, k=1)
    if x.dtype.kind == "c":
        # the diagonal of a Hermitian matrix is real: its imaginary part is not read
        return strict + _wa.conj(_wa.matrix_transpose(strict)) + _wa.astype(_wa.real(diag), x.dtype)
    return strict + _wa.matrix_transpose(strict) + diag


def eigh(a, UPLO="L"):
    """``(w, v)``: eigenvalues in ascending order and eigenvectors, of the Hermitian
    matrix read from the ``UPLO`` triangle of a."""
    x = _hermitian_from(_float(a, "eigh"), UPLO, "eigh")
    r = _wa.linalg.eigh(x)
    return wrap(r.eigenvalues), wrap(r.eigenvectors)


def eigvalsh(a, UPLO="L"):
    x = _hermitian_from(_float(a, "eigvalsh"), UPLO, "eigvalsh")
    return wrap(_wa.linalg.eigvalsh(x))


def matrix_rank(A, tol=None, hermitian=False):
    """The number of singular values above ``tol`` (absolute, as NumPy), by default
    ``S.max() * max(M, N) * eps``."""
    x = _float(A, "matrix_rank")
    if x.ndim < 2:
        return wrap(_wa.astype(_wa.any(x != 0), _wa.int64 if _wa.int64 in x.device.dtypes
                                         else _wa.int32))
    if tol is None:
        return wrap(_wa.linalg.matrix_rank(x))
    s = _wa.linalg.svdvals(x)
    return wrap(_wa.sum(_wa.astype(s > tol, _wa.int32), axis=-1))


def matrix_power(a, n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power: exponent must be an integer, got {n!r}")
    x = a if isinstance(a, _wa.Array) else to_array(operand(a, "matrix_power"))
    if n < 0:
        x = _float(x, "matrix_power")
    _square(x, "matrix_power")
    return wrap(_wa.linalg.matrix_power(x, n))


def lstsq(a, b, rcond=None):
    """NumPy's least squares: ``(x, residuals, rank, s)``. ``rcond`` (default
    ``eps * max(M, N)``) cuts small singular values relative to the largest; residuals are
    the squared 2-norms of ``b - a @ x`` per column when ``a`` has full column rank and
    more rows than columns, else an empty array."""
    x1 = _float(a, "lstsq")
    x2 = _float(b, "lstsq")
    if x1.ndim != 2:
        raise LinAlgError(f"lstsq: a must be 2-dimensional, got shape {x1.shape}")
    if x2.ndim not in (1, 2) or x2.shape[0] != x1.shape[0]:
        raise LinAlgError(f"lstsq: b must have {x1.shape[0]} rows (1-D or 2-D), got shape "
                          f"{x2.shape}")
    m, n = x1.shape
    eps = _wa.finfo(x1.dtype).eps
    cut = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    s = _wa.linalg.svdvals(x1)
    sol = _wa.linalg.pinv(x1, rtol=cut) @ x2
    top = float(s[0]) if s.shape[0] else 0.0
    rank = int(_wa.sum(_wa.astype(s > cut * top, _wa.int32))) if s.shape[0] else 0
    if rank == n and m > n:
        r = x2 - x1 @ sol
        res = _wa.sum(_wa.real(r * _wa.conj(r)) if r.dtype.kind == "c" else r * r, axis=0)
        if x2.ndim == 1:
            res = _wa.reshape(res, (1,))
    else:
        res = _wa.zeros((0,), dtype=s.dtype, device=x1.device)
    return wrap(sol), wrap(res), rank, wrap(s)


def tensorinv(a, ind=2):
    """The inverse of a as an operator on its first ``ind`` axes (NumPy's tensorinv)."""
    x = _float(a, "tensorinv")
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be positive, got {ind}")
    out_shape = x.shape[ind:] + x.shape[:ind]
    rows = 1
    for k in x.shape[:ind]:
        rows *= k
    cols = x.size // rows if rows else 0
    if rows != cols:
        raise LinAlgError(f"tensorinv: the first {ind} axes of shape {x.shape} hold {rows} "
                          f"elements, the rest {cols}: they must be equal")
    return wrap(_wa.reshape(_wa.linalg.inv(_wa.reshape(x, (rows, cols))), out_shape))


def tensorsolve(a, b, axes=None):
    """x with ``tensordot(a, x, x.ndim) == b`` (NumPy's tensorsolve)."""
    x1 = _float(a, "tensorsolve")
    x2 = _float(b, "tensorsolve")
    if axes is not None:
        order = [k for k in range(x1.ndim) if k not in axes] + list(axes)
        x1 = _wa.permute_dims(x1, tuple(order))
    sol_shape = x1.shape[x2.ndim:]
    rows = x2.size
    cols = 1
    for k in sol_shape:
        cols *= k
    if rows != cols:
        raise LinAlgError(f"tensorsolve: a of shape {x1.shape} is not square over b's "
                          f"{x2.shape}")
    r = _wa.linalg.solve(_wa.reshape(x1, (rows, cols)), _wa.reshape(x2, (rows,)))
    return wrap(_wa.reshape(r, sol_shape))
