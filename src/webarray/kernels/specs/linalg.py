"""The linear-algebra kernels' launch plan: matrix sizes the one-workgroup kernels take,
sweep counts, per-launch loop budgets (lavapipe ends long invocations silently), panel
widths, workgroup sizes and uniform words. Shared by ``webgpu/linalg.py``,
``webgpu/linalg_steps.py`` and ``_linalg_impl.py``, which launches them (WebGL2 composes
the factorizations of namespace operations instead: ``_linalg_composed.py``).
"""

from __future__ import annotations

import array
import struct

# -- one workgroup per matrix (webgpu/linalg.py) ----------------------------------------------

MAX_N = 64
SWEEPS = 12  # convergence is quadratic; 6-9 sweeps are typical for n ≤ 64 in float32
_ITERATIONS = 8192  # loop iterations one invocation may spend per launch, with margin


def pair_chunk(kind: str, m: int) -> int:
    """Pair indices per launch: svd's thread 0 loops over M rows per pair."""
    return max(2, 2 * _ITERATIONS // (m + 4)) if kind == "svd" else 2048


def pack_uniforms(n: int, k: int, zbase: int, start: int = 0, end: int = 0) -> bytes:
    return array.array("I", [n, k, zbase, start, end]).tobytes()


# -- multi-launch steps (webgpu/linalg_steps.py) ------------------------------------------------

T_WG = 64  # threads of the one-workgroup-per-matrix kernels
T_HESS = 256  # the Hessenberg reduction's: its steps are the longest (~6n²/T per thread)
BUDGET = 8192  # loop iterations one invocation may spend per launch (lavapipe), with margin
JACOBI_THREADS = 128
MAX_SWEEPS = 20  # one-sided Jacobi sweeps at most (float32 converges in 6-12 up to n = 1024)
TYPED = {"chol_panel", "lu_panel", "tri_inv", "sub_block", "qr_house", "qr_apply",
         "jacobi_round"}  # the generators taking cplx; the eig kernels are complex64 only
NB = 32  # columns per panel (two NB×NB complex64 blocks fill 16 KiB of workgroup memory)
T_PANEL = 256
MAX_ITS = 60  # QR sweeps without a deflation before giving up on a matrix (NaN results)


def words(*vals) -> bytes:
    """Uniform words: ints as u32, floats as f32 bits."""
    out = []
    for v in vals:
        out.append(struct.unpack("<I", struct.pack("<f", v))[0] if isinstance(v, float) else v & 0xFFFFFFFF)
    return array.array("I", out).tobytes()
