"""The linear-algebra kernels' interface: the sizes compiled into them (panel width,
workgroup sizes, the QR iteration's limit), which generators take a complex flag, and
their uniform words. Shared by ``webgpu/linalg.py``, ``webgpu/linalg_steps.py`` and
``_core/algorithms/linalg.py``, which launches them and owns the rest of the plan (the
largest matrix one workgroup takes, sweep counts, per-launch loop budgets). WebGL2
composes the factorizations of namespace operations instead (``_linalg_composed.py``).
"""

from __future__ import annotations

import array
import struct

# -- one workgroup per matrix (webgpu/linalg.py) ----------------------------------------------

def pack_uniforms(n: int, k: int, zbase: int, start: int = 0, end: int = 0) -> bytes:
    return array.array("I", [n, k, zbase, start, end]).tobytes()


# -- multi-launch steps (webgpu/linalg_steps.py) ------------------------------------------------

T_WG = 64  # threads of the one-workgroup-per-matrix kernels
T_HESS = 256  # the Hessenberg reduction's: its steps are the longest (~6n²/T per thread)
JACOBI_THREADS = 128
# the generators taking cplx; the eig kernels are complex64 only
TYPED = {"chol_panel", "chol_panel_rows", "chol_diag_blocks", "lu_panel", "lu_panel_rows",
         "block_solve_cols", "block_solve_rows", "substitute", "sub_block", "qr_house", "qr_apply", "qr_step", "jacobi_round", "jacobi_blocks"}
NB = 32  # columns per panel (two NB×NB complex64 blocks fill 16 KiB of workgroup memory)
T_PANEL = 256
T_SOLVE = 64  # the block substitutions' threads, a row or column each: small workgroups, more of a GPU
# the most panel rows a thread of lu_panel_rows holds in registers, by complex: NB·rows
# words (twice that for complex) within 128 registers
PANEL_ROWS = {False: 4, True: 2}
JACOBI_GROUP = 8  # rows per block of jacobi_blocks
JACOBI_LANES = 32  # threads per pair of jacobi_blocks
MAX_ITS = 60  # QR sweeps without a deflation before giving up on a matrix (NaN results)


def words(*vals) -> bytes:
    """Uniform words: ints as u32, floats as f32 bits."""
    out = []
    for v in vals:
        out.append(struct.unpack("<I", struct.pack("<f", v))[0] if isinstance(v, float) else v & 0xFFFFFFFF)
    return array.array("I", out).tobytes()
