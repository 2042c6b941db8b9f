"""The linalg extension: the functions shared with the main namespace
(``_linear_algebra.py``) and those of the extension alone (``_linalg_impl.py``).
``LinAlgError`` (a ValueError, as NumPy's) is not the standard's and not in ``__all__``.
"""

from __future__ import annotations

from ._linalg_impl import (LinAlgError, cholesky, cross, det, diagonal, eig, eigh, eigvals, eigvalsh, inv, matrix_norm,
                           matrix_power, matrix_rank, outer, pinv, qr, slogdet, solve, svd,
                           svdvals, trace, vector_norm)
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm"]
