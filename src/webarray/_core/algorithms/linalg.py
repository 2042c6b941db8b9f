"""The linalg extension's launches: the kernels of ``Device.kernels.linalg`` (one workgroup
factors one matrix in one launch, kernels/webgpu/linalg.py) and of
``Device.kernels.linalg_steps`` (the steps of factorizations of any size,
kernels/webgpu/linalg_steps.py), with the part of their plan that is not compiled into
them. WebGL2 has neither: the namespace composes the factorizations there
(``_linalg_composed.py``).

The namespace (``_linalg_impl.py``) checks arguments, makes the C-contiguous working
copies that everything here overwrites in place, and composes the rest of namespace
operations: the blocked Cholesky and LU put ``cholesky_panel``/``lu_panel``,
``block_solve``/``block_solve_rows``, ``substitute`` and ``sub_block`` around tiled
matmuls; svd and eigh beyond MAX_N (and complex ones) call ``jacobi``; eig calls
``hessenberg``, ``schur`` and ``schur_vectors``. The host waits only where an iteration ends: a Jacobi sweep (one small
readback per sweep from the fourth) and the Schur iteration (one per doubling of its step
budget).

On lavapipe a launch whose invocations loop too long comes back unfinished, with no error
(from about 2^15 loop iterations in one invocation): hence MAX_N, the Jacobi sweeps cut
into chunks of pairs, and BUDGET, the loop iterations per invocation that sizes the
chunks of the Hessenberg reduction, the Schur iteration and the back substitution.
"""

from __future__ import annotations

import itertools
import math

from ... import _dtypes as dt
from ...kernels.expr import Scalar
from ...kernels.specs import linalg as plan
from .. import graph as _graph
from .. import launch
from .. import storage as _storage
from .. import tensor
from ..tensor import Tensor
from .reduce import reduce

__all__ = ["MAX_N", "SWEEPS", "MAX_SWEEPS", "BUDGET", "NB", "small", "one_workgroup",
           "cholesky_panel", "cholesky_panel_rows", "cholesky_diagonal", "fused_cholesky",
           "lu_panel", "block_solve", "block_solve_rows", "substitute",
           "sub_block", "dot2", "householder", "jacobi", "hessenberg", "schur", "schur_vectors"]

MAX_N = 64  # the largest side the one-workgroup kernels take
SWEEPS = 12  # theirs: convergence is quadratic; 6-9 sweeps are typical for n ≤ 64 in float32
BUDGET = 8192  # loop iterations one invocation may spend per launch (lavapipe), with margin
# solve's few right-hand sides (at most SUBSTITUTE_K, matrices of at most SUBSTITUTE_N a side:
# a thread loops n / DOT_ROWS times per block, n / NB blocks, within BUDGET) are solved by
# ``substitute`` in one launch after the factorization
SUBSTITUTE_K = 8
SUBSTITUTE_N = 4096
MAX_SWEEPS = 20  # one-sided Jacobi sweeps at most (float32 converges in 6-12 up to n = 1024)
NB = plan.NB  # columns per panel of the blocked factorizations (the kernels' block size)
REGISTER_PANEL = None  # True/False: LU panels in registers (where they fit) on every adapter (tests)
FUSED_CHOLESKY = None  # True/False: Cholesky's panel and L21 in one launch (GPUs' plan) on every adapter (tests)
JACOBI_BLOCKS = None  # True/False: Jacobi by blocks of rows (CPU adapters' plan) on every adapter (tests)
JACOBI_WIDE = 512  # rows from which a Jacobi pair has twice JACOBI_THREADS threads
QR_ONE_LAUNCH = None  # True/False: Householder QR in one launch a column (GPUs' plan) on every adapter (tests)
_SWEEPING = ("eigh", "svd")  # the one-workgroup kernels that run Jacobi sweeps


def small(*sides: int) -> bool:
    """Whether the one-workgroup-per-matrix kernels take matrices of these sides."""
    return max(sides) <= MAX_N


def _pair_chunk(kind: str, m: int) -> int:
    """Pair indices per launch of a sweep: svd's thread 0 loops over M rows per pair."""
    return max(2, 2 * BUDGET // (m + 4)) if kind == "svd" else 2048


def one_workgroup(kind: str, bufs, m: int, n: int, k: int = 0) -> None:
    """Launch kernels/webgpu/linalg.py's kind over the matrices of bufs[0] (m×n, its
    dtype choosing the real or complex kernel), one workgroup each; k is the LU's
    right-hand-side count; eigh and svd run SWEEPS Jacobi sweeps in chunks of pairs."""
    a = bufs[0]
    count = math.prod(a.shape[:-2])
    if m == 0 or n == 0 or count == 0:
        return
    device = a.device
    lk = device.kernels.linalg  # this device's generators
    cplx = a.dtype is dt.complex64
    make = getattr(lk, kind)
    key = ("linalg", kind, cplx)
    source = lambda: make(cplx) if cplx else make()  # noqa: E731
    step = _pair_chunk(kind, m)
    ranges = [(0, 0)] if kind not in _SWEEPING else \
        [(p, p + step) for _ in range(SWEEPS) for p in range(0, n * n, step)]
    for start, end in ranges:
        launch.batches(device, key, source, bufs, count,
                       lambda z0: plan.pack_uniforms(m, k if kind == "lu" else n, z0, start, end))


def _steps(arrays, launches, cplx: bool = True) -> None:
    """Launch kernels of kernels/webgpu/linalg_steps.py over the arrays' buffers, in
    order, for every matrix of arrays[0]: launches yields (kernel name, uniform words,
    (gx, gy)); word 2 is the batch base, filled here as the batch is cut to the
    per-dimension workgroup limit."""
    count = math.prod(arrays[0].shape[:-2])
    if count == 0:
        return
    device = arrays[0].device
    ls = device.kernels.linalg_steps  # this device's generators
    if count > device.executor.max_workgroups_per_dim:
        for name, words, (gx, gy) in launches:
            if gx == 0 or gy == 0:
                continue
            source = _source(ls, name, cplx)
            launch.batches(device, ("linalg_steps", name, cplx), source, arrays, count,
                           lambda z0: plan.words(*words[:2], z0, *words[3:]), tile=(gx, gy))
        return
    # one dispatch per launch: runs of one kernel and grid (a sweep's rounds, a chunk of
    # QR steps) go out together, their uniforms packed once per distinct words and kept
    for (name, grid), run in itertools.groupby(launches, key=lambda s: (s[0], s[2])):
        if grid[0] == 0 or grid[1] == 0:
            continue
        source = _source(ls, name, cplx)
        uniforms = []
        for _, words, _ in run:
            k = (name, words)
            u = _PACKED.get(k)
            if u is None:
                if len(_PACKED) >= _PACKED_KEPT:
                    _PACKED.clear()
                u = _PACKED[k] = plan.words(*words)
            uniforms.append(u)
        launch.repeat(device, ("linalg_steps", name, cplx), source, arrays, uniforms,
                      grid + (count,))


def _source(ls, name, cplx: bool):
    """The source maker of a launch's kernel: name is a generator's name, or a tuple of
    the name and the generator's further arguments (compiled into the kernel)."""
    name, *args = (name,) if isinstance(name, str) else name
    make = getattr(ls, name)
    return (lambda: make(cplx, *args)) if name in plan.TYPED else (lambda: make(*args))


_PACKED: dict = {}  # (kernel, uniform words with batch base 0) -> their bytes
_PACKED_KEPT = 1 << 16


def _tiles(n: int) -> int:
    return -(-n // 16)


def _zeros(shape, dtype, device) -> Tensor:
    out = tensor.empty(shape, dtype, device)
    return _graph.execute(device, shape, [(Scalar(0, dtype), out)], (), [(dtype, 0)])[0]


def _largest(t: Tensor, j: int) -> int:
    """The largest of the words j along the last axis of the C-contiguous uint32 t (one
    readback)."""
    column = tensor.view_of(t, t.shape[:-1], t._strides[:-1], t._offset + j)
    return _graph.host_values(reduce(column, tuple(range(column.ndim)), "max", dt.uint32))[0]


# -- blocked Cholesky and LU: the namespace's matmuls between these steps ----------------------

def cholesky_panel(a: Tensor, k0: int, b: int) -> None:
    """Cholesky of the diagonal block [k0, k0 + b)² of each matrix of the C-contiguous a,
    in place (one workgroup per matrix)."""
    _steps((a,), [("chol_panel", (a.shape[-1], 0, 0, k0, b), (1, 1))], a.dtype is dt.complex64)


def fused_cholesky(device) -> bool:
    """Whether the blocked Cholesky takes ``cholesky_panel_rows`` (GPUs: a launch of ~14 µs
    a panel less on an H200) or ``cholesky_panel`` then ``block_solve_rows`` (CPU adapters,
    where every workgroup factoring the block again would cost what the launch saves)."""
    return not device.on_cpu if FUSED_CHOLESKY is None else FUSED_CHOLESKY


def cholesky_panel_rows(a: Tensor, w: Tensor, d: Tensor, k0: int, b: int) -> None:
    """``cholesky_panel`` and ``block_solve_rows`` in one launch, the diagonal block's
    factor into d (batch, blocks · NB²) instead of a (``cholesky_diagonal`` puts it there)."""
    n = a.shape[-1]
    groups = max(1, -(-(n - k0 - b) // plan.T_SOLVE))
    _steps((a, w, d), [("chol_panel_rows", (n, 0, 0, k0, b), (groups, 1))], a.dtype is dt.complex64)


def cholesky_diagonal(a: Tensor, d: Tensor) -> None:
    """The diagonal blocks that ``cholesky_panel_rows`` left in d into a."""
    n = a.shape[-1]
    _steps((a, d), [("chol_diag_blocks", (n, 0, 0), (-(-n // NB), 1))], a.dtype is dt.complex64)


def lu_panel(a: Tensor, rhs: Tensor, s: Tensor, k: int, k0: int, b: int) -> None:
    """LU with partial pivoting of the columns [k0, k0 + b) of each matrix of a, in place
    (one workgroup per matrix): the row swaps span all of a and the k columns of rhs, and
    their parity multiplies s. On a GPU, where the panel's rows fit the registers of its
    threads (``PANEL_ROWS``), the kernel that holds them there (a panel of 1024 / 512 /
    256 rows on an H200 ~205 / 120 / 80 µs, against 713 / 331 for the one that works in
    memory; on lavapipe ~15% slower than that one)."""
    n = a.shape[-1]
    cplx = a.dtype is dt.complex64
    rows = -(-(n - k0) // plan.T_PANEL)
    on_gpu = not a.device.on_cpu if REGISTER_PANEL is None else REGISTER_PANEL
    held = plan.PANEL_ROWS[cplx] if on_gpu else 0
    kernel = ("lu_panel_rows", rows) if rows <= held else "lu_panel"
    _steps((a, rhs, s), [(kernel, (n, k, 0, k0, b), (1, 1))], cplx)


def block_solve(a: Tensor, rhs: Tensor, k0: int, b: int, kb: int, upper: bool) -> None:
    """The rows [k0, k0 + b) of columns right of a's diagonal block at k0 times the inverse
    of its triangle, by substitution in place: unit lower (LU's U12 = L11⁻¹·A12 over a's
    columns past the block, then the first kb columns of rhs) or upper (the kb columns
    of rhs: a block of the back substitution)."""
    n = a.shape[-1]
    cols = (0 if upper else n - k0 - b) + kb
    _steps((a, rhs), [(("block_solve_cols", upper), (n, rhs.shape[-1], 0, k0, b, kb),
                       (-(-cols // plan.T_SOLVE), 1))], a.dtype is dt.complex64)


def substitute(a: Tensor, rhs: Tensor) -> None:
    """rhs = U⁻¹·L⁻¹·rhs for the LU factors in a (rhs's rows already swapped), in one
    launch: a workgroup per matrix and column of rhs."""
    n, k = a.shape[-1], rhs.shape[-1]
    _steps((a, rhs), [("substitute", (n, k, 0), (k, 1))], a.dtype is dt.complex64)


def block_solve_rows(a: Tensor, w: Tensor, k0: int, b: int) -> None:
    """Cholesky's L21 = A21·L11⁻ᴴ below a's diagonal block at k0, in place, by
    substitution, and L21ᴴ into w (batch, b, n − k0 − b)."""
    n = a.shape[-1]
    _steps((a, w), [("block_solve_rows", (n, 0, 0, k0, b), (-(-(n - k0 - b) // plan.T_SOLVE), 1))],
           a.dtype is dt.complex64)


def sub_block(x: Tensor, p: Tensor, r0: int, c0: int, assign: bool = False) -> None:
    """x's block at (r0, c0) −= p (batch, m, w), or = p if assign, in place."""
    m, w = p.shape[-2:]
    ld = x.shape[-1]
    _steps((x, p), [("sub_block", (m, w, 0, r0, c0, ld, ld * x.shape[-2], int(assign)),
                     (_tiles(w), _tiles(m)))], x.dtype is dt.complex64)


def dot2(at: Tensor, b: Tensor, c: Tensor, lo: Tensor, subtract: bool = False) -> None:
    """c ± atᵀ·b in place for the C-contiguous float32 stacks at (batch, K, M), b (batch, K,
    N) and c (batch, M, N), the products exact and summed in two floats, rounded once;
    lo (like c) gets the rounding's remainder (see kernels/webgpu/linalg_steps.dot2)."""
    m, n = c.shape[-2:]
    _steps((c, lo, at, b), [("dot2", (m, n, 0, at.shape[-2], int(subtract), 0), (_tiles(n), _tiles(m)))],
           False)


# -- QR, Jacobi, eig ------------------------------------------------------------------------

def householder(at: Tensor, q: Tensor) -> None:
    """Householder QR of the matrices held transposed in at (batch, N, M: columns as rows),
    in place, the reflections applied to q (batch, M, M). On a GPU one launch a column
    (``qr_step``: a workgroup per column of A and per row of Q, each forming the column's
    reflector itself), all of one grid, so they go out as one run of dispatches; on a CPU
    adapter two (``qr_house`` forms the reflector once, ``qr_apply`` applies it), the
    same bits."""
    n, m = at.shape[-2:]
    steps = min(m - 1, n)
    if steps <= 0:
        return
    if (not at.device.on_cpu) if QR_ONE_LAUNCH is None else QR_ONE_LAUNCH:
        grid = (n + m, 1)
        launches = [("qr_step", (m, n, 0, k, 0), grid) for k in range(steps)]
        launches.append(("qr_step", (m, n, 0, steps, 1), grid))  # the last column's values
        _steps((at, q), launches, at.dtype is dt.complex64)
        return
    v = tensor.empty(at.shape[:-2] + (m,), at.dtype, at.device)
    tau = tensor.empty(at.shape[:-2] + (1,), dt.float32, at.device)

    def launches():
        for k in range(steps):
            yield "qr_house", (m, n, 0, k), (1, 1)
            yield "qr_apply", (m, n, 0, k), (n - k - 1 + m, 1)

    _steps((at, q, v, tau), launches(), at.dtype is dt.complex64)


def jacobi(w: Tensor, vt: Tensor, max_sweeps: int, tol: float, stop: float) -> None:
    """One-sided Jacobi in place on the rows of w (batch, N, M; N ≥ 2, M ≥ 1) until they
    are orthogonal, the rotations accumulated into the rows of vt (batch, N, N): per
    sweep one launch per round of disjoint pairs (every pair of a round in a workgroup of
    its own), a pair rotated only where |w_p·w_q| > tol·‖w_p‖‖w_q‖. Sweeps run until one
    finds no pair with |w_p·w_q| > stop·‖w_p‖‖w_q‖ (checked on the host after every sweep
    from the fourth on) or for at most max_sweeps."""
    n, m = w.shape[-2:]
    flags = _zeros(w.shape[:-2] + (max_sweeps + 1,), dt.uint32, w.device)
    ne = n + n % 2
    by_blocks = w.device.on_cpu if JACOBI_BLOCKS is None else JACOBI_BLOCKS
    nb = -(-n // plan.JACOBI_GROUP)
    nb += nb % 2
    # a pair's threads: more where the rows are long (WebGPU's guaranteed most is 256)
    kernel = ("jacobi_round", 2 * plan.JACOBI_THREADS if m >= JACOBI_WIDE else plan.JACOBI_THREADS)
    for s in range(max_sweeps):
        if by_blocks and nb >= 4:
            # the pairs within each block, then the block rounds: on a CPU adapter a launch
            # per round costs more than its pair's work (svd 150 on lavapipe 2.1 -> 0.7 s);
            # on an H200 a block's serial inner rounds cost as much as the launches saved
            # (svd 1024 174-194 -> 194-213 ms), so GPUs keep a launch per round
            words = lambda r, inner: (n, m, 0, r, s, max_sweeps + 1, stop, tol, nb, inner)  # noqa: E731
            rounds = [("jacobi_blocks", words(0, 1), (nb, 1))]
            rounds += [("jacobi_blocks", words(r, 0), (nb // 2, 1)) for r in range(nb - 1)]
        else:
            rounds = ((kernel, (n, m, 0, r, s, max_sweeps + 1, stop, tol, ne), (ne // 2, 1))
                      for r in range(ne - 1))
        _steps((w, vt, flags), rounds, w.dtype is dt.complex64)
        if s >= 3 and _largest(flags, s + 1) == 0:
            break


def hessenberg(h: Tensor, z: Tensor, vectors: bool) -> None:
    """Householder reduction of the complex64 matrices h (batch, n, n) to Hessenberg form
    in place, the reflections accumulated into z where vectors, as many columns per
    launch as BUDGET allows."""
    n = h.shape[-1]
    if n <= 2:
        return
    v = tensor.empty(h.shape[:-2] + (n,), dt.complex64, h.device)
    chunk = max(1, BUDGET // (6 * n * -(-n // plan.T_HESS) + 3 * n))
    _steps((h, z, v), (("hessenberg", (n, int(vectors), 0, k, min(k + chunk, n - 2)), (1, 1))
                       for k in range(0, n - 2, chunk)))


def schur(h: Tensor, z: Tensor, vectors: bool) -> Tensor:
    """Single-shift QR of the Hessenberg complex64 matrices h (batch, n, n; n ≥ 1) to the
    Schur form T in place, the rotations accumulated into z where vectors. Steps run in
    launches of as many as BUDGET allows, 4n at first, then doubling until no matrix is
    active (one readback each) or MAX_ITS + 1 per row are spent. Returns the stalled
    flags (batch, 1) of uint32: nonzero for a matrix whose iteration went MAX_ITS sweeps
    without a deflation."""
    n = h.shape[-1]
    batch = h.shape[:-2]
    # per matrix: the end of its active part, sweeps since a deflation, stalled, unused
    st = tensor.empty(batch + (4,), dt.uint32, h.device)
    h.device.executor.write(st._buf.handle, 0,
                            _storage.encode([n, 0, 0, 0] * math.prod(batch), dt.uint32))
    per = -(-n // plan.T_WG)
    per_launch = max(1, BUDGET // (n * (3 * per + 1) + n))
    done, limit = 0, n * (plan.MAX_ITS + 1)
    target = 4 * n
    while True:
        launches = -(-(target - done) // per_launch)
        _steps((h, z, st), (("schur", (n, int(vectors), 0, per_launch), (1, 1))
                            for _ in range(launches)))
        done += launches * per_launch
        if done >= limit or _largest(st, 0) == 0:
            break
        target = min(limit, 2 * done)
    return tensor.view_of(st, batch + (1,), st._strides, st._offset + 2)


def schur_vectors(t: Tensor, x: Tensor) -> None:
    """The eigenvectors of the upper triangular complex64 T (batch, n, n) into the columns
    of x (identities from the caller) by back substitution: one thread per eigenvector,
    as many rows per launch as BUDGET allows."""
    n = t.shape[-1]
    rows = max(1, BUDGET // max(n, 1))
    _steps((t, x), (("trevc", (n, 0, 0, hi, max(0, hi - rows)), (-(-n // 64), 1))
                    for hi in range(n, 0, -rows)))
