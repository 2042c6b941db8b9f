"""linalg in float64 (issue #20), composed of namespace operations (_linalg_composed.py) in the
device's float64 lane, against NumPy's LAPACK.

Bounds are LAPACK's own: a backward error of a small multiple of n·eps·‖A‖ for the
factorizations (‖LLᵀ − A‖, ‖QR − A‖, ‖USVᵀ − A‖), forward errors scaled by the condition
number for solve and inv, singular values and eigenvalues within n·eps·‖A‖ of NumPy's.
eig and eigvals in float64 and complex128 run their QR iteration on the host (_linalg_host.py):
eigenvalues within n·eps·‖A‖ of NumPy's, residuals ‖AV − VΛ‖ of LAPACK's size. The other
factorizations take complex128 through the same composed routines (conjugating where the real
ones transpose; reflections and rotations with a phase), to the same bounds.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core.device import Device, default_device

EPS = np.finfo(np.float64).eps


@pytest.fixture(scope="module")
def dev():
    return Device(default_device().executor, float64=True)


def up(a, dev):
    return xp.asarray(np.asarray(a, np.float64), device=dev)


def host(x):
    return np.from_dlpack(x)


def _norm(a):
    return max(float(np.abs(a).max()), 1e-300)


def _mats(seed: int, n: int, batch=(2,)):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (n, n))
    return a, a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("n", [1, 3, 8, 12])
def test_factorizations_reconstruct(dev, n):
    a, spd = _mats(n, n)
    tol = 8 * n * EPS
    l = host(xp.linalg.cholesky(up(spd, dev)))
    assert l.dtype == np.float64 and np.allclose(np.triu(l, 1), 0)
    assert _norm(l @ np.swapaxes(l, -1, -2) - spd) <= tol * _norm(spd)
    u = host(xp.linalg.cholesky(up(spd, dev), upper=True))
    assert np.array_equal(u, np.swapaxes(l, -1, -2))
    q, r = (host(v) for v in xp.linalg.qr(up(a, dev)))
    assert _norm(q @ r - a) <= tol * _norm(a) and np.allclose(np.tril(r, -1), 0)
    assert _norm(np.swapaxes(q, -1, -2) @ q - np.eye(n)) <= tol
    u, s, vh = (host(v) for v in xp.linalg.svd(up(a, dev)))
    assert _norm((u * s[..., None, :]) @ vh - a) <= tol * _norm(a)
    assert _norm(s - np.linalg.svd(a, compute_uv=False)) <= tol * _norm(s)
    assert (np.diff(s, axis=-1) <= 0).all()
    w, v = (host(t) for t in xp.linalg.eigh(up(spd, dev)))
    assert _norm(w - np.linalg.eigvalsh(spd)) <= tol * _norm(w)
    assert _norm(spd @ v - v * w[..., None, :]) <= tol * _norm(spd)


@pytest.mark.parametrize("n", [1, 4, 10])
def test_solve_inv_det(dev, n):
    a, _ = _mats(100 + n, n)
    b = np.random.default_rng(n).standard_normal((2, n, 3))
    cond = np.linalg.cond(a).max()
    tol = 16 * n * EPS * cond
    x = host(xp.linalg.solve(up(a, dev), up(b, dev)))
    assert x.dtype == np.float64 and _norm(x - np.linalg.solve(a, b)) <= tol * _norm(x)
    x1 = host(xp.linalg.solve(up(a, dev), up(b[0, :, 0], dev)))  # one right-hand side for all
    assert _norm(x1 - np.linalg.solve(a, b[0, :, 0][None, :, None])[..., 0]) <= tol * _norm(x1)
    ai = host(xp.linalg.inv(up(a, dev)))
    assert _norm(ai - np.linalg.inv(a)) <= tol * _norm(ai)
    d = host(xp.linalg.det(up(a, dev)))
    assert np.allclose(d, np.linalg.det(a), rtol=tol, atol=0)
    sign, logabs = (host(v) for v in xp.linalg.slogdet(up(a, dev)))
    ns, nl = np.linalg.slogdet(a)
    assert np.array_equal(sign, ns) and np.allclose(logabs, nl, rtol=0, atol=tol)
    p = host(xp.linalg.pinv(up(a, dev)))
    assert _norm(p - np.linalg.pinv(a)) <= tol * _norm(p)
    m = host(xp.linalg.matrix_power(up(a, dev), -2))
    assert _norm(m - np.linalg.matrix_power(a, -2)) <= 4 * tol * _norm(m)


def test_rank_norms_and_rectangles(dev):
    rng = np.random.default_rng(7)
    low = rng.standard_normal((3, 9, 4)) @ rng.standard_normal((3, 4, 7))  # rank 4
    assert host(xp.linalg.matrix_rank(up(low, dev))).tolist() == [4, 4, 4]
    for ord in (2, -2, "nuc", "fro", 1, np.inf):
        got = host(xp.linalg.matrix_norm(up(low, dev), ord=ord))
        big = np.linalg.norm(low, ord=2, axis=(-2, -1)).max()  # -2: the smallest is noise
        assert np.allclose(got, np.linalg.norm(low, ord=ord, axis=(-2, -1)), rtol=64 * EPS * 9,
                           atol=64 * EPS * 9 * big)
    for m, n in ((9, 4), (4, 9)):
        x = rng.standard_normal((m, n))
        u, s, vh = (host(v) for v in xp.linalg.svd(up(x, dev), full_matrices=True))
        assert u.shape == (m, m) and vh.shape == (n, n)
        k = min(m, n)
        assert _norm((u[:, :k] * s) @ vh[:k] - x) <= 64 * EPS * _norm(x)
        assert _norm(u.T @ u - np.eye(m)) <= 64 * EPS and _norm(vh @ vh.T - np.eye(n)) <= 64 * EPS
        q, r = (host(v) for v in xp.linalg.qr(up(x, dev), mode="complete"))
        assert q.shape == (m, m) and _norm(q @ r - x) <= 64 * EPS * _norm(x)


def test_special_matrices(dev):
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert host(xp.linalg.det(up(sing, dev))) == 0.0
    assert not np.isfinite(host(xp.linalg.solve(up(sing, dev), up([[1.0], [1.0]], dev)))).all()
    bad = np.array([[np.nan, 1.0], [1.0, 2.0]])
    assert np.isnan(host(xp.linalg.svdvals(up(bad, dev)))).all()
    assert np.isnan(host(xp.linalg.eigvalsh(up(bad, dev)))).all()
    huge = np.diag([1e200, 3e199])
    assert np.allclose(host(xp.linalg.svdvals(up(huge, dev))), [1e200, 3e199], rtol=8 * EPS)
    tiny = np.diag([1e-200, 3e-201])
    assert np.allclose(host(xp.linalg.eigvalsh(up(tiny, dev))), [3e-201, 1e-200], rtol=8 * EPS)
    e = host(xp.linalg.inv(up(np.zeros((0, 3, 3)), dev)))
    assert e.shape == (0, 3, 3) and e.dtype == np.float64
    # QR squares the entries for its norms: past 1e154 they overflowed (R was NaN), below
    # 1e-154 they underflowed (a reflection skipped: Q·R lost the entries below R's diagonal)
    for a in (np.array([[3e200], [1e200]]), np.array([[1e300, 1.0], [1e300, 2.0]]),
              np.array([[1e-170, 2e-170], [3e-170, 1e-171]]), np.array([[9.5e153j], [0j]]),
              # a subnormal diagonal entry: its phase by a complex quotient was inf + inf j
              # (R NaN), from a 44-bit |x0| ~40 ulps off
              np.array([[1e-310 + 1e-310j, 1], [1, 1]]), np.array([[3e-320j, 2], [1, 1j]])):
        q, r = (host(v) for v in xp.linalg.qr(xp.asarray(a, device=dev)))
        assert np.isfinite(r).all() and _norm(q @ r - a) <= 8 * EPS * _norm(a), (a, q, r)
        assert _norm(np.abs(r) - np.abs(np.linalg.qr(a)[1])) <= 8 * EPS * _norm(a)
    # rows of very different scales (array-api-tests' draw): ‖w_p‖²‖w_q‖² underflowed, so
    # Jacobi rotated for twenty sweeps and a complex quotient by a subnormal gave NaN
    a = np.zeros((5, 4))
    a[3, 1], a[3, 2], a[4, 3] = -5.31346517e16, -2.27147694e36, 1.00869136e118
    for m in (a, a * 1j, a * (0.6 - 0.8j)):
        s = host(xp.linalg.svdvals(xp.asarray(m, device=dev)))
        assert np.isfinite(s).all() and _norm(s - np.linalg.svd(m, compute_uv=False)) <= 8 * EPS * _norm(s)
    assert host(xp.linalg.inv(up(np.eye(2) * 2, dev))).tolist() == [[0.5, 0.0], [0.0, 0.5]]


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1), st.sampled_from([1e-100, 1.0, 1e100]))
def test_hypothesis_solve_and_svd(n, seed, scale):
    dev = Device(default_device().executor, float64=True)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)) * scale + n * scale * np.eye(n)
    b = rng.standard_normal((n, 2)) * scale
    x = host(xp.linalg.solve(up(a, dev), up(b, dev)))
    assert _norm(a @ x - b) <= 32 * n * EPS * _norm(a) * _norm(x)
    s = host(xp.linalg.svdvals(up(a, dev)))
    assert _norm(s - np.linalg.svd(a, compute_uv=False)) <= 16 * n * EPS * _norm(s)


def _cmats(seed: int, shape):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _ch(a):
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("n", [1, 3, 8])
def test_complex128_factorizations(dev, n):
    a = _cmats(n, (2, n, n))
    b = _cmats(n + 1, (2, n, 2))
    hpd = a @ _ch(a) + n * np.eye(n)
    tol = 16 * n * EPS
    c = lambda v: xp.asarray(v, device=dev)
    l = host(xp.linalg.cholesky(c(hpd)))
    assert l.dtype == np.complex128 and np.allclose(np.triu(l, 1), 0)
    assert _norm(l @ _ch(l) - hpd) <= tol * _norm(hpd)
    assert _norm(l - np.linalg.cholesky(hpd)) <= tol * _norm(l)  # real positive diagonal: unique
    assert np.array_equal(host(xp.linalg.cholesky(c(hpd), upper=True)), _ch(l))
    x = host(xp.linalg.solve(c(a), c(b)))
    assert x.dtype == np.complex128 and _norm(a @ x - b) <= 32 * n * EPS * _norm(a) * _norm(x)
    ai = host(xp.linalg.inv(c(a)))
    assert _norm(a @ ai - np.eye(n)) <= 32 * n * EPS * _norm(a) * _norm(ai)
    d = host(xp.linalg.det(c(a)))
    assert d.dtype == np.complex128 and _norm(d - np.linalg.det(a)) <= tol * np.linalg.cond(a).max() * _norm(d)
    sign, logabs = (host(v) for v in xp.linalg.slogdet(c(a)))
    want_s, want_l = np.linalg.slogdet(a)
    assert sign.dtype == np.complex128 and logabs.dtype == np.float64
    assert _norm(sign - want_s) <= tol * np.linalg.cond(a).max() and _norm(logabs - want_l) <= tol * _norm(want_l)
    w, v = (host(t) for t in xp.linalg.eigh(c(hpd)))
    assert w.dtype == np.float64 and v.dtype == np.complex128
    assert _norm(w - np.linalg.eigvalsh(hpd)) <= tol * _norm(hpd)
    assert _norm(hpd @ v - v * w[..., None, :]) <= tol * _norm(hpd)
    assert _norm(_ch(v) @ v - np.eye(n)) <= tol
    assert np.array_equal(host(xp.linalg.eigvalsh(c(hpd))), w)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (1, 1)])
def test_complex128_qr_svd_pinv_rank(dev, shape):
    a = _cmats(sum(shape), shape)
    m, n = shape[-2:]
    tol = 16 * max(m, n) * EPS
    for mode in ("reduced", "complete"):
        q, r = (host(v) for v in xp.linalg.qr(xp.asarray(a, device=dev), mode=mode))
        assert q.dtype == r.dtype == np.complex128 and np.array_equal(np.tril(r, -1), 0 * r)
        assert _norm(q @ r - a) <= tol * _norm(a) and _norm(_ch(q) @ q - np.eye(q.shape[-1])) <= tol
    for full in (False, True):
        u, s, vh = (host(v) for v in xp.linalg.svd(xp.asarray(a, device=dev), full_matrices=full))
        k = min(m, n)
        assert s.dtype == np.float64 and u.dtype == vh.dtype == np.complex128
        assert _norm(s - np.linalg.svd(a, compute_uv=False)) <= tol * _norm(s)
        assert _norm((u[..., :k] * s[..., None, :]) @ vh[..., :k, :] - a) <= tol * _norm(a)
        assert _norm(_ch(u) @ u - np.eye(u.shape[-1])) <= tol and _norm(vh @ _ch(vh) - np.eye(vh.shape[-2])) <= tol
    p = host(xp.linalg.pinv(xp.asarray(a, device=dev)))
    assert _norm(p - np.linalg.pinv(a)) <= 4 * tol * _norm(p)
    assert host(xp.linalg.matrix_rank(xp.asarray(a, device=dev))).tolist() == np.linalg.matrix_rank(a).tolist()
    low = a[..., :, :1] @ _ch(a[..., :, :1])  # rank one
    assert np.all(host(xp.linalg.matrix_rank(xp.asarray(low, device=dev))) == 1)
    assert np.allclose(host(xp.linalg.matrix_norm(xp.asarray(a, device=dev), ord=2)),
                       np.linalg.norm(a, 2, axis=(-2, -1)), rtol=tol, atol=0)


def test_complex128_singular_and_nonfinite(dev):
    sing = np.array([[1 + 1j, 2 + 2j], [2 - 1j, 3 + 1j]])
    sing[1] = sing[0] * (2 - 1j)
    c = lambda v: xp.asarray(v, device=dev)
    assert abs(host(xp.linalg.det(c(sing)))) <= 8 * EPS * _norm(sing) ** 2
    bad = np.array([[np.nan, 1j], [-1j, 2.0]])
    assert np.isnan(host(xp.linalg.svdvals(c(bad)))).all()
    assert np.isnan(host(xp.linalg.eigvalsh(c(bad)))).all()
    not_pd = np.array([[-1.0 + 0j, 0], [0, 1]])
    assert np.isnan(host(xp.linalg.cholesky(c(not_pd)))[0, 0].real)
    e = host(xp.linalg.inv(c(np.zeros((0, 3, 3), np.complex128))))
    assert e.shape == (0, 3, 3) and e.dtype == np.complex128


@pytest.mark.parametrize("kind", ["real", "complex", "companion", "normal"])
@pytest.mark.parametrize("n", [1, 2, 7, 24])
def test_eig_and_eigvals(dev, kind, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, n, n))
    if kind == "complex":
        a = a + 1j * rng.standard_normal((2, n, n))
    if kind == "companion":  # roots of a polynomial, badly scaled: balancing's case
        a = np.zeros((2, n, n))
        a[:, 0] = rng.standard_normal((2, n)) * 10.0 ** rng.integers(-6, 6, (2, n))
        a[:, 1:, :-1] += np.eye(n - 1)
    if kind == "normal":  # rotations and reflections: eigenvalues on the unit circle
        a = np.linalg.qr(a)[0]
    x = xp.asarray(a, device=dev)
    w, v = (host(t) for t in xp.linalg.eig(x))
    assert w.dtype == v.dtype == np.complex128 and w.shape == (2, n) and v.shape == (2, n, n)
    np.testing.assert_array_equal(host(xp.linalg.eigvals(x)), w)
    norm = np.abs(a).max(axis=(-2, -1))[:, None]
    resid = np.abs(a @ v - v * w[:, None, :]).max(axis=-2)
    assert (resid <= 16 * n * EPS * norm).all(), resid.max()
    assert np.allclose(np.linalg.norm(v, axis=-2), 1, atol=1e-14)
    big = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[:, None, :], axis=-2)
    assert (np.abs(big.imag) <= 1e-15).all() and (big.real > 0).all()
    for got, want in zip(w, np.linalg.eigvals(a)):
        # each of NumPy's eigenvalues has one of ours within its conditioning's reach
        d = np.abs(got[:, None] - want[None, :])
        tol = 1e-9 if kind == "companion" else 64 * n * EPS
        assert (d.min(axis=0) <= tol * max(np.abs(want).max(), 1)).all(), d.min(axis=0)
    if kind != "complex":  # a real matrix's: real ones real, complex ones exact conjugates
        for ws in w:
            assert np.array_equal(np.sort_complex(ws), np.sort_complex(ws.conj()))


def test_eig_edges(dev):
    assert host(xp.linalg.eigvals(up(np.zeros((3, 0, 0)), dev))).shape == (3, 0)
    w = host(xp.linalg.eigvals(up(np.diag([1e-200, 3.0, -1e200]), dev)))
    assert sorted(w.real.tolist()) == [-1e200, 1e-200, 3.0] and not w.imag.any()
    assert np.isnan(host(xp.linalg.eigvals(up([[1.0, np.nan], [2.0, 3.0]], dev)))).all()
    with pytest.raises(ValueError, match="square"):
        xp.linalg.eig(up(np.ones((2, 3)), dev))
    with pytest.raises(TypeError):
        xp.linalg.eigvals(xp.asarray([[1, 2], [3, 4]], device=dev))


def test_float32_stays_float32_where_float64_is_the_default(tmp_path):
    """WEBARRAY_DEFAULT_FLOAT=float64 (SciPy's and scikit-learn's setting): float32 input
    gives float32 (complex64) results in every linalg function and the fft, at both sizes
    (one workgroup up to 64, the stepped kernels and refinements above). eigh's refinement
    once made its identity in the default dtype and returned float64 eigenvectors."""
    import os
    import subprocess
    import sys

    script = tmp_path / "f32.py"
    script.write_text(
        "import numpy as np, webarray as xp\n"
        "la = xp.linalg\n"
        "for n in (4, 70):\n"
        "    a = np.random.default_rng(n).standard_normal((n, n)).astype(np.float32)\n"
        "    x = xp.asarray(a @ a.T + n * np.eye(n, dtype=np.float32))\n"
        "    outs = [la.cholesky(x), la.det(x), *la.eigh(x), la.eigvalsh(x), la.inv(x), *la.qr(x),\n"
        "            *la.slogdet(x), la.solve(x, x[:, :2]), *la.svd(x), la.svdvals(x), la.pinv(x),\n"
        "            la.matrix_norm(x), la.vector_norm(x), la.matrix_power(x, 3), la.trace(x),\n"
        "            xp.fft.irfft(xp.fft.rfft(x))]\n"
        "    bad = [str(o.dtype) for o in outs if o.dtype != xp.float32]\n"
        "    assert not bad, (n, bad)\n"
        "    assert all(o.dtype == xp.complex64 for o in (*la.eig(x[:8, :8]), la.eigvals(x[:8, :8]), xp.fft.fft(x)))\n"
        "print('ok')\n")
    env = dict(os.environ, WEBARRAY_DEFAULT_FLOAT="float64", WEBARRAY_FLOAT64="1")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
