"""WGSL generators for the factorizations of the linalg extension (float32).

One workgroup of THREADS threads factors one matrix in place, in a C-contiguous storage
buffer of (batch, n, n) words that the caller filled with a copy of the input; the steps
of an elimination are separated by storage and workgroup barriers, and within a step the
threads share the elements with a stride of THREADS. Matrix number = workgroup_id.x + z
base, so batches beyond the per-dimension workgroup limit take several launches. No size
limit: larger n is only slower (n³/THREADS steps per thread).

Uniform words: n, K (right-hand-side columns, LU only), z base; for qr and svd: M, N,
z base; for eigh and svd then the range [start, end) of pair indices p·N + q.
"""

from __future__ import annotations


THREADS = 64

_HEAD = """@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read_write> A: array<{ty}>;
{extra}
@compute @workgroup_size({T})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0];
    let z = wg.x + U[2];
    let a0 = z * n * n;
"""

# Scalar helpers of the LU and Cholesky kernels, per element type: float32 elements are
# f32, complex64 elements vec2<f32> (real, imaginary), read from the same u32 words.
_SCALAR = {
    False: """alias T = f32;
fn mul(a: T, b: T) -> T { return a * b; }
fn div(a: T, b: T) -> T { return a / b; }
fn mag(a: T) -> f32 { return abs(a); }
fn conjg(a: T) -> T { return a; }
fn re(a: T) -> f32 { return a; }
fn abs2(a: T) -> f32 { return a * a; }
fn phase(a: T) -> T { return select(-1.0, 1.0, a >= 0.0); }
fn real_t(x: f32) -> T { return x; }
""",
    True: """alias T = vec2<f32>;
fn mul(a: T, b: T) -> T { return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn div(a: T, b: T) -> T {
    // Smith's division: no overflow from squaring |b|
    if (abs(b.x) >= abs(b.y)) {
        let r = b.y / b.x; let d = b.x + b.y * r;
        return vec2<f32>((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    let r = b.x / b.y; let d = b.x * r + b.y;
    return vec2<f32>((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
fn mag(a: T) -> f32 { return abs(a.x) + abs(a.y); }
fn conjg(a: T) -> T { return vec2<f32>(a.x, -a.y); }
fn re(a: T) -> f32 { return a.x; }
fn abs2(a: T) -> f32 { return dot(a, a); }
fn phase(a: T) -> T { let r = length(a); return select(vec2<f32>(1.0, 0.0), a / r, r > 0.0); }
fn real_t(x: f32) -> T { return vec2<f32>(x, 0.0); }
""",
}


def _sync() -> str:
    return "storageBarrier(); workgroupBarrier();"


def _swap_and_scale(threads: str) -> str:
    """WGSL for step k of an LU once its pivot row p is known (lu here, lu_panel in
    linalg_steps.py): rows k and p of A (n columns) and of B (K columns) swapped, then
    the column below the pivot divided by it. A zero pivot has a zero column below it,
    whose multipliers stay 0 as LAPACK's (0/0 would spread NaN, and the determinant of a
    singular matrix would be NaN)."""
    return f"""        for (var j = t; j < n; j = j + {threads}) {{
            let u = A[a0 + k * n + j]; A[a0 + k * n + j] = A[a0 + p * n + j]; A[a0 + p * n + j] = u;
        }}
        for (var j = t; j < K; j = j + {threads}) {{
            let u = B[b0 + k * K + j]; B[b0 + k * K + j] = B[b0 + p * K + j]; B[b0 + p * K + j] = u;
        }}
        {_sync()}
        let d = A[a0 + k * n + k];
        if (mag(d) > 0.0) {{
            for (var i = k + 1u + t; i < n; i = i + {threads}) {{ A[a0 + i * n + k] = div(A[a0 + i * n + k], d); }}
        }}
        {_sync()}
"""


def cholesky(cplx: bool = False) -> str:
    """Lower Cholesky factor (A = L·Lᴴ) by right-looking elimination; the strict upper
    triangle is zeroed. A pivot whose real part is not positive makes that column and
    everything after it NaN."""
    s = _SCALAR[cplx] + _HEAD.format(extra="", T=THREADS, ty="T")
    s += f"""    for (var k = 0u; k < n; k = k + 1u) {{
        let p = re(A[a0 + k * n + k]);
        let nan_bits = 0x7fc00000u;  // a run-time NaN: Tint refuses constant NaNs
        let d = real_t(select(bitcast<f32>(nan_bits), sqrt(p), p > 0.0));
        {_sync()}
        for (var i = k + 1u + t; i < n; i = i + {THREADS}u) {{ A[a0 + i * n + k] = div(A[a0 + i * n + k], d); }}
        {_sync()}
        if (t == 0u) {{ A[a0 + k * n + k] = d; }}
        let m = n - k - 1u;
        for (var e = t; e < m * m; e = e + {THREADS}u) {{
            let i = k + 1u + e / m; let j = k + 1u + e % m;
            if (j <= i) {{ A[a0 + i * n + j] = A[a0 + i * n + j] - mul(A[a0 + i * n + k], conjg(A[a0 + j * n + k])); }}
        }}
        {_sync()}
    }}
    for (var e = t; e < n * n; e = e + {THREADS}u) {{
        if (e % n > e / n) {{ A[a0 + e] = real_t(0.0); }}
    }}
}}
"""
    return s


def lu(cplx: bool = False) -> str:
    """LU with partial pivoting (the largest pivot magnitude of the column, first one on
    ties; |re| + |im| for complex, as LAPACK's icamax), applied to K right-hand-side
    columns B as it goes, then, when K > 0, back substitution so B holds A⁻¹B. A ends as
    L (unit, below) and U (on and above the diagonal); S gets the permutation's parity as
    ±1. A zero pivot leaves its column's multipliers at 0, as LAPACK's: a singular
    matrix gets a zero on U's diagonal (det 0), and its solutions inf/NaN, not an error."""
    extra = ("@group(0) @binding(2) var<storage, read_write> B: array<T>;\n"
             "@group(0) @binding(3) var<storage, read_write> S: array<f32>;\n"
             "var<workgroup> piv: u32;")
    s = _SCALAR[cplx] + _HEAD.format(extra=extra, T=THREADS, ty="T")
    s += f"""    let K = U[1];
    let b0 = z * n * K;
    var sign = 1.0;
    for (var k = 0u; k < n; k = k + 1u) {{
        if (t == 0u) {{
            var best = k; var bv = mag(A[a0 + k * n + k]);
            for (var i = k + 1u; i < n; i = i + 1u) {{
                let v = mag(A[a0 + i * n + k]);
                if (v > bv) {{ best = i; bv = v; }}
            }}
            piv = best;
        }}
        workgroupBarrier();
        let p = piv;
        if (p != k) {{ sign = -sign; }}
{_swap_and_scale(f"{THREADS}u")}        let m = n - k - 1u;
        for (var e = t; e < m * (m + K); e = e + {THREADS}u) {{
            let i = k + 1u + e / (m + K); let c = e % (m + K);
            let l = A[a0 + i * n + k];
            if (c < m) {{
                let j = k + 1u + c;
                A[a0 + i * n + j] = A[a0 + i * n + j] - mul(l, A[a0 + k * n + j]);
            }} else {{
                let j = c - m;
                B[b0 + i * K + j] = B[b0 + i * K + j] - mul(l, B[b0 + k * K + j]);
            }}
        }}
        {_sync()}
    }}
    if (t == 0u) {{ S[z] = sign; }}
    for (var r = 0u; r < select(0u, n, K > 0u); r = r + 1u) {{
        let k = n - 1u - r;
        let d = A[a0 + k * n + k];
        for (var j = t; j < K; j = j + {THREADS}u) {{ B[b0 + k * K + j] = div(B[b0 + k * K + j], d); }}
        {_sync()}
        for (var e = t; e < k * K; e = e + {THREADS}u) {{
            let i = e / K; let j = e % K;
            B[b0 + i * K + j] = B[b0 + i * K + j] - mul(A[a0 + i * n + k], B[b0 + k * K + j]);
        }}
        {_sync()}
    }}
}}
"""
    return s


def qr(cplx: bool = False) -> str:
    """Householder QR of an M×N matrix A in place (A ends as R, zeros below the diagonal
    written exactly) and Q (M×M, the caller fills it with identities) accumulated as
    Q·H_0·H_1·…. Reflection k = I − τ·v·vᴴ maps A[k:, k] to alpha·e_0 with
    alpha = −phase(a_kk)·‖x‖ (no cancellation in v_0 = a_kk − alpha); a zero column is left
    alone. Thread 0 forms v (scaled by the column's largest |element|) in the scratch
    buffer V (M elements per matrix); then a thread per column of A and a thread per row
    of Q applies the reflection."""
    s = _SCALAR[cplx] + f"""@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read_write> A: array<T>;
@group(0) @binding(2) var<storage, read_write> Q: array<T>;
@group(0) @binding(3) var<storage, read_write> V: array<T>;
var<workgroup> tau: f32;
var<workgroup> alpha: T;
@compute @workgroup_size({THREADS})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let M = U[0]; let N = U[1];
    let z = wg.x + U[2];
    let a0 = z * M * N; let q0 = z * M * M; let v0 = z * M;
    let steps = min(M - 1u, N);
    for (var k = 0u; k < steps; k = k + 1u) {{
        if (t == 0u) {{
            var ss = 0.0; var big = 0.0;
            for (var i = k; i < M; i = i + 1u) {{ big = max(big, mag(A[a0 + i * N + k])); }}
            let sc = select(1.0, big, big > 0.0);
            for (var i = k; i < M; i = i + 1u) {{ let u = A[a0 + i * N + k] / sc; ss = ss + abs2(u); V[v0 + i] = u; }}
            let x0 = V[v0 + k];
            let al = -phase(x0) * sqrt(ss);
            V[v0 + k] = x0 - al;
            let vv = ss - abs2(x0) + abs2(x0 - al);
            tau = select(0.0, 2.0 / vv, vv > 0.0);
            alpha = select(x0, al, vv > 0.0) * sc;
        }}
        {_sync()}
        let ta = tau;
        for (var j = k + 1u + t; j < N; j = j + {THREADS}u) {{
            var w = real_t(0.0);
            for (var i = k; i < M; i = i + 1u) {{ w = w + mul(conjg(V[v0 + i]), A[a0 + i * N + j]); }}
            w = w * ta;
            for (var i = k; i < M; i = i + 1u) {{ A[a0 + i * N + j] = A[a0 + i * N + j] - mul(V[v0 + i], w); }}
        }}
        for (var r = t; r < M; r = r + {THREADS}u) {{
            var w = real_t(0.0);
            for (var i = k; i < M; i = i + 1u) {{ w = w + mul(Q[q0 + r * M + i], V[v0 + i]); }}
            w = w * ta;
            for (var i = k; i < M; i = i + 1u) {{ Q[q0 + r * M + i] = Q[q0 + r * M + i] - mul(w, conjg(V[v0 + i])); }}
        }}
        if (t == 0u) {{ A[a0 + k * N + k] = alpha; }}
        for (var i = k + 1u + t; i < M; i = i + {THREADS}u) {{ A[a0 + i * N + k] = real_t(0.0); }}
        {_sync()}
    }}
}}
"""
    return s


# On lavapipe a launch whose invocations loop too long comes back unfinished, with no
# error (seen from about 2^15 loop iterations in one invocation). So every kernel here
# is written for matrices up to MAX_N a side, and a Jacobi sweep is split into launches
# over ranges [start, end) of pair indices p·N + q (both chosen by _core/algorithms/linalg.py).
def _rotation(s: str, tau: str, p: str, q: str, extent: str, at: str) -> str:
    """Rotate lines p and q of one matrix: (x_p, x_q) → (c·x_p − s·x_q, s·x_p + c·x_q) for
    every index e < extent, at(e, line) giving the word address, written in Rutishauser's
    form x_p − s·(x_q + τ·x_p), τ = s/(1 + c): a small rotation changes x by its own small
    amount, where c·x_p would round x_p once more by c's error, every rotation (over the
    sweeps, that made the columns' norms, the singular values, drift by 4e-6 at n = 64)."""
    return f"""for (var e = t; e < {extent}; e = e + {THREADS}u) {{
            let xp = X[{at.format(e="e", l=p)}]; let xq = X[{at.format(e="e", l=q)}];
            X[{at.format(e="e", l=p)}] = xp - {s} * (xq + {tau} * xp); X[{at.format(e="e", l=q)}] = xq + {s} * (xp - {tau} * xq);
        }}"""


def _jacobi_t(num: str, den: str) -> str:
    """tan of the Jacobi angle for zeta = num / den, the smaller root (|angle| ≤ π/4);
    den = 0 means nothing to rotate (t = 0)."""
    return f"""let zeta = ({num}) / (2.0 * ({den}));
        let az = abs(zeta);
        let tt = select(1.0 / (az + sqrt(1.0 + az * az)), 0.5 / az, az > 1e15);
        let t_ = select(0.0, select(-tt, tt, zeta >= 0.0), {den} != 0.0);
        let c = 1.0 / sqrt(1.0 + t_ * t_); let s = t_ * c; let ta = s / (1.0 + c);"""


def eigh() -> str:
    """One cyclic Jacobi sweep over a symmetric N×N matrix A (in place, tending to
    diagonal) with the eigenvectors accumulated in V (the caller fills identities and
    launches each sweep as chunks of pairs). Thread 0 first sums the squares; when the off-diagonal part is
    below 1e-7·‖A‖_F the launch returns at once. Each rotation (p, q) reads a_pp, a_qq,
    a_pq, then threads rotate rows p, q of A, then columns p, q of A and V."""
    def rot(buf, lines):
        at = ("a0 + {l} * n + {e}" if lines == "rows" else "a0 + {e} * n + {l}")
        return _rotation("s", "ta", "p", "q", "n", at).replace("X[", f"{buf}[")
    return f"""@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read_write> A: array<f32>;
@group(0) @binding(2) var<storage, read_write> V: array<f32>;
var<workgroup> done: u32;
@compute @workgroup_size({THREADS})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let n = U[0];
    let z = wg.x + U[2];
    let a0 = z * n * n;
    if (t == 0u) {{
        var off = 0.0; var total = 0.0;
        for (var e = 0u; e < n * n; e = e + 1u) {{
            let a2 = A[a0 + e] * A[a0 + e];
            total = total + a2;
            if (e / n != e % n) {{ off = off + a2; }}
        }}
        done = select(0u, 1u, off <= 1e-14 * total);
    }}
    if (workgroupUniformLoad(&done) != 0u) {{ return; }}
    for (var pq = U[3]; pq < min(U[4], n * n); pq = pq + 1u) {{
        let p = pq / n; let q = pq % n;
        if (q > p) {{
        let app = A[a0 + p * n + p]; let aqq = A[a0 + q * n + q]; let apq = A[a0 + p * n + q];
        {_jacobi_t("aqq - app", "apq")}
        {_sync()}
        {rot("A", "rows")}
        {_sync()}
        {rot("A", "cols")}
        {rot("V", "cols")}
        {_sync()}
        }}
    }}
}}
"""


def svd() -> str:
    """One sweep of one-sided (Hestenes) Jacobi over an M×N matrix A with M ≥ N:
    rotations of column pairs (p, q) towards orthogonal columns, accumulated in V (N×N
    identities from the caller, who launches each sweep as chunks of pairs). Thread 0 forms the pair's dot
    products and skips pairs already orthogonal to 1e-7·‖a_p‖‖a_q‖; threads rotate the
    columns of A and V. At the end A's columns are U·diag(S), unsorted."""
    def rot(buf, rows):
        return _rotation("s", "ta", "p", "q", rows, "b0 + {e} * N + {l}").replace("X[", f"{buf}[")
    return f"""@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read_write> A: array<f32>;
@group(0) @binding(2) var<storage, read_write> V: array<f32>;
var<workgroup> cs: vec2<f32>;
@compute @workgroup_size({THREADS})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let M = U[0]; let N = U[1];
    let z = wg.x + U[2];
    let a0 = z * M * N; let v0 = z * N * N;
    for (var pq = U[3]; pq < min(U[4], N * N); pq = pq + 1u) {{
        let p = pq / N; let q = pq % N;
        if (q > p) {{
        if (t == 0u) {{
            var al = 0.0; var be = 0.0; var ga = 0.0;
            for (var i = 0u; i < M; i = i + 1u) {{
                let x = A[a0 + i * N + p]; let y = A[a0 + i * N + q];
                al = al + x * x; be = be + y * y; ga = ga + x * y;
            }}
            let g = select(ga, 0.0, abs(ga) <= 1e-7 * sqrt(al) * sqrt(be));
            {_jacobi_t("be - al", "g")}
            cs = vec2<f32>(s, ta);
        }}
        {_sync()}
        let s = cs.x; let ta = cs.y;
        {{ let b0 = a0; {rot("A", "M")} }}
        {{ let b0 = v0; {rot("V", "N")} }}
        {_sync()}
        }}
    }}
}}
"""
