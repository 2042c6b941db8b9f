"""Scans' structure (``ScanSpec``) and uniform words, shared by ``webgpu/scan.py`` and
``webgl2/scan.py`` and by ``_core/algorithms/reduce.py``, which launches them (the words are
described
in ``webgpu/scan.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._dtypes import DType
from .. import lanes
from ..uniforms import UniformOverflow, pack
from .reduction import WORKGROUP

U_DIMS = 18
P = 8  # elements per thread for one-word elements: a chunk of WORKGROUP·P fits workgroup memory


def per_thread(dtype: DType) -> int:
    """Elements per thread for a scan accumulating in ``dtype``: P words' worth, so that a
    chunk takes the same workgroup memory whatever the element's size (with the threads'
    totals, 9.25 KiB for one-word elements to 12.25 for complex128, inside the 16 KiB that
    every WebGPU adapter offers; complex128 at P elements needed 37 KiB, which SwiftShader
    refuses)."""
    return P // lanes.words(dtype)


def shared_size(dtype: DType) -> int:
    """Elements of the workgroup array holding one chunk, padded one per 32 so that a thread
    reading its consecutive elements meets no bank conflicts."""
    n = WORKGROUP * per_thread(dtype)
    return n + n // 32


@dataclass(frozen=True)
class ScanSpec:
    combine: str  # add, mul, min, max
    in_dtype: DType
    out_dtype: DType  # also the accumulator
    carry: bool  # a (rows, chunks) array of carries is bound after the input

    @property
    def key(self):
        return ("scan", self.combine, self.in_dtype.name, self.out_dtype.name, self.carry,
                WORKGROUP, per_thread(self.out_dtype))


def pack_uniforms(rows: int, cols: int, chunks: int, group: int, colmode: bool,
                  in_offset: int, in_stride: int, out_offset: int, out_stride: int,
                  out_cols: int, shift: int, row_dims, p: int) -> bytes:
    """row_dims: (size, input stride, output stride) per row dimension, outermost first;
    p: elements per thread."""
    log_s = group.bit_length() - 1
    per_wg = WORKGROUP // group
    log_r = per_wg.bit_length() - 1
    if colmode:
        ls, gs, es, gsh = log_r, 0, per_wg, 1
    else:
        ls, gs, es, gsh = 0, log_s, 1, group * p
    words = [rows, cols, chunks, group, ls, group - 1, gs, per_wg - 1, 1 if colmode else 0,
             in_offset, in_stride, out_offset, out_stride, out_cols, shift, es, gsh,
             len(row_dims)]
    for dims in row_dims:
        words += list(dims)
    if rows * chunks >= 1 << 32:
        # the kernel numbers its groups row * chunks + chunk in one u32
        raise UniformOverflow(
            f"scan kernel: {rows} rows of {chunks} chunks each make {rows * chunks} "
            "groups, more than the 2**32 that one launch numbers"
        )
    return pack(words, "scan")
