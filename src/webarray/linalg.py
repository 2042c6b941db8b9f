"""The linalg extension. Today it holds the functions shared with the main namespace;
the rest of the extension arrives with its own issue."""

from __future__ import annotations

from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
