"""CuPy users' NumPy API on webarray.cupy (issue #19): ``cp.linalg``, ``cp.fft``,
``einsum``, ``median``/``quantile``/``percentile``, the split family,
``lib.stride_tricks``, ``ndarray.scatter_add`` and the array methods, each compared with
NumPy on random inputs (float32 tolerances; NumPy computes in float64 where it would)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import webarray.cupy as cp

RNG = np.random.default_rng(19)


def close(got, want, rtol=2e-5, atol=2e-5):
    got = cp.asnumpy(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# -- einsum ------------------------------------------------------------------------------------

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]), ("ij->", [(3, 4)]), ("ij->ji", [(2, 3)]), ("ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("i,i->", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]), ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("iij->ji", [(3, 3, 2)]),
    ("...i->...", [(2, 3, 4)]), ("i,i,i->i", [(4,), (4,), (4,)]), ("ab,ab->a", [(0, 3), (0, 3)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]), ("i...->...", [(3, 2, 2)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM, ids=[s for s, _ in EINSUM])
def test_einsum_matches_numpy(spec, shapes):
    ops = [rand(*s) for s in shapes]
    close(cp.einsum(spec, *[cp.asarray(o) for o in ops]), np.einsum(spec, *ops), 1e-4, 1e-4)


def test_einsum_integers_and_errors():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = cp.einsum("ij,ij->i", cp.asarray(a), cp.asarray(a))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(cp.asnumpy(got), np.einsum("ij,ij->i", a, a))
    for spec, shapes, words in [("ij,jk->iz", [(3, 4), (4, 5)], "'z'"),
                                ("ij", [(3,)], "names 2"),
                                ("...i->i", [(2, 3)], "'...'"),
                                ("ij,jk", [(3, 4)], "2 operand"),
                                ("ij->ii", [(3, 3)], "repeats"),
                                ("ij,jk->ik", [(3, 4), (5, 6)], "sizes")]:
        with pytest.raises(ValueError, match=words):
            cp.einsum(spec, *[cp.ones(s) for s in shapes])
    with pytest.raises(TypeError, match="sublist"):
        cp.einsum(cp.ones(3), [0])


# -- median, quantile, percentile ---------------------------------------------------------------


@given(st.integers(0, 9), st.integers(1, 7), st.sampled_from([None, 0, 1, (0, 1)]),
       st.booleans(), st.booleans())
def test_median_matches_numpy(rows, cols, axis, keepdims, nan):
    a = rand(rows, cols)
    if nan and a.size:
        a[RNG.integers(rows or 1) % max(rows, 1), 0] = np.nan
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "mean of empty slice"
        want = np.median(a, axis=axis, keepdims=keepdims)
    close(cp.median(cp.asarray(a), axis=axis, keepdims=keepdims), want.astype(np.float32))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_and_percentile_match_numpy(method):
    a = rand(6, 9)
    a[2, 3] = np.nan
    for q in (0.0, 0.1, 0.5, 0.75, 1.0, [0.25, 0.5, 0.9]):
        for axis in (None, 0, 1):
            want = np.quantile(a, q, axis=axis, method=method)
            close(cp.quantile(cp.asarray(a), q, axis=axis, method=method), want, 1e-5, 1e-5)
            want = np.percentile(a, np.multiply(q, 100), axis=axis, method=method)
            close(cp.percentile(cp.asarray(a), np.multiply(q, 100).tolist(), axis=axis,
                                method=method), want, 1e-5, 1e-5)
    ints = np.arange(10, dtype=np.int32)
    close(cp.median(cp.asarray(ints)), np.median(ints))
    with pytest.raises(ValueError, match="range"):
        cp.quantile(cp.asarray(a), 1.5)
    with pytest.raises(ValueError, match="method"):
        cp.quantile(cp.asarray(a), 0.5, method="cubic")


# -- split family --------------------------------------------------------------------------------


@pytest.mark.parametrize("fn,args", [
    ("array_split", (3,)), ("array_split", (4, 1)), ("array_split", ([1, 3, 10],)),
    ("array_split", ([-2, 2], 1)), ("split", (2,)), ("split", ([1, 2], 1)),
    ("hsplit", (2,)), ("vsplit", ([1],)), ("array_split", (9,)),
])
def test_split_family_matches_numpy(fn, args):
    a = rand(4, 6)
    got = getattr(cp, fn)(cp.asarray(a), *args)
    want = getattr(np, fn)(a, *args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w, 0, 0)
    b = rand(2, 3, 4)
    for g, w in zip(cp.dsplit(cp.asarray(b), 2), np.dsplit(b, 2)):
        close(g, w, 0, 0)
    with pytest.raises(ValueError, match="equal division"):
        cp.split(cp.asarray(a), 3)
    with pytest.raises(ValueError, match="vsplit"):
        cp.vsplit(cp.ones(3), 1)


def test_split_pieces_are_views():
    a = cp.zeros((4, 3))
    top, _ = cp.split(a, 2)
    top[...] = 1
    assert cp.asnumpy(a).sum() == 6


def test_stacks():
    x, y = rand(3), rand(3)
    close(cp.dstack([cp.asarray(x), cp.asarray(y)]), np.dstack([x, y]), 0, 0)
    close(cp.column_stack([cp.asarray(x), cp.asarray(y)]), np.column_stack([x, y]), 0, 0)


# -- lib.stride_tricks -------------------------------------------------------------------------


def test_as_strided_is_a_view_with_byte_strides():
    base = np.arange(12, dtype=np.float32)
    a = cp.asarray(base)
    w = cp.lib.stride_tricks.as_strided(a, shape=(5, 4), strides=(8, 4))
    close(w, np.lib.stride_tricks.as_strided(base, shape=(5, 4), strides=(8, 4)), 0, 0)
    t = cp.lib.stride_tricks.as_strided(a.reshape(3, 4), shape=(4, 3), strides=(4, 16))
    close(t, base.reshape(3, 4).T, 0, 0)
    # a view: a write through it reaches the original
    col = cp.lib.stride_tricks.as_strided(a, shape=(3,), strides=(16,))
    col[...] = -1
    assert cp.asnumpy(a)[[0, 4, 8]].tolist() == [-1, -1, -1]


def test_as_strided_refuses_what_leaves_the_buffer():
    a = cp.arange(12, dtype=cp.float32)
    with pytest.raises(IndexError, match="reaches elements 0..15"):
        cp.lib.stride_tricks.as_strided(a, shape=(4, 4), strides=(16, 4))
    with pytest.raises(IndexError, match="reaches elements -3..0"):
        cp.lib.stride_tricks.as_strided(a, shape=(4,), strides=(-4,))
    with pytest.raises(ValueError, match="multiples of the item size 4"):
        cp.lib.stride_tricks.as_strided(a, shape=(2,), strides=(6,))
    with pytest.raises(ValueError, match="2 strides"):
        cp.lib.stride_tricks.as_strided(a, shape=(3,), strides=(4, 4))
    # empty views reach nothing
    assert cp.lib.stride_tricks.as_strided(a, shape=(0, 100), strides=(400, 4)).shape == (0, 100)


def test_sliding_window_view_matches_numpy():
    x = rand(5, 7)
    for ws, axis in [(3, 1), ((2, 3), None), (2, 0), ((2, 2), (1, 0))]:
        want = np.lib.stride_tricks.sliding_window_view(x, ws, axis=axis)
        close(cp.lib.stride_tricks.sliding_window_view(cp.asarray(x), ws, axis=axis), want, 0, 0)


# -- linalg ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ord,axis", [(None, None), (None, 1), (1, 0), (np.inf, None),
                                      (-np.inf, 1), (0, 1), (3, 0), ("fro", None),
                                      ("nuc", None), (1, None), (2, None), (-2, None),
                                      (np.inf, (1, 0)), (None, (0, 1))])
def test_norm_matches_numpy(ord, axis):
    a = rand(5, 4)
    want = np.linalg.norm(a.astype(np.float64), ord=ord, axis=axis)
    close(cp.linalg.norm(cp.asarray(a), ord=ord, axis=axis), want, 1e-4, 1e-4)
    close(cp.linalg.norm(cp.asarray(a), ord=ord, axis=axis, keepdims=True),
          np.linalg.norm(a.astype(np.float64), ord=ord, axis=axis, keepdims=True), 1e-4, 1e-4)


def test_norm_of_a_vector_and_a_stack():
    v = rand(7)
    close(cp.linalg.norm(cp.asarray(v)), np.linalg.norm(v), 1e-5)
    close(cp.linalg.norm(cp.asarray(v), 1), np.linalg.norm(v, 1), 1e-5)
    s = rand(2, 3, 4)
    close(cp.linalg.norm(cp.asarray(s)), np.linalg.norm(s), 1e-5)
    close(cp.linalg.norm(cp.asarray(s), axis=(1, 2)), np.linalg.norm(s, axis=(1, 2)), 1e-5)
    with pytest.raises(ValueError, match="ord='fro' needs"):
        cp.linalg.norm(cp.asarray(s), "fro")


def test_linalg_functions_match_numpy():
    a = rand(5, 5) + 5 * np.eye(5, dtype=np.float32)
    spd = a @ a.T
    b = rand(5, 2)
    A, B, S = cp.asarray(a), cp.asarray(b), cp.asarray(spd)
    close(cp.linalg.det(A), np.linalg.det(a), 1e-4, 1e-3)
    sign, logdet = cp.linalg.slogdet(A)
    want = np.linalg.slogdet(a)
    close(sign, want[0]), close(logdet, want[1], 1e-4)
    close(cp.linalg.inv(A), np.linalg.inv(a), 1e-4, 1e-5)
    close(cp.linalg.solve(A, B), np.linalg.solve(a, b), 1e-4, 1e-5)
    close(cp.linalg.solve(A, B[:, 0]), np.linalg.solve(a, b[:, 0]), 1e-4, 1e-5)
    close(cp.linalg.cholesky(S), np.linalg.cholesky(spd), 1e-4, 1e-4)
    close(cp.linalg.pinv(cp.asarray(b)), np.linalg.pinv(b), 1e-4, 1e-4)
    q, r = cp.linalg.qr(A)
    close(q @ r, a, 1e-4, 1e-4)
    close(cp.linalg.qr(A, mode="r"), r, 0, 0)
    u, s, vh = cp.linalg.svd(cp.asarray(b), full_matrices=False)
    close((u * s) @ vh, b, 1e-4, 1e-4)
    close(cp.linalg.svd(cp.asarray(b), compute_uv=False), np.linalg.svd(b, compute_uv=False), 1e-4)
    assert int(cp.linalg.matrix_rank(A)) == 5
    assert int(cp.linalg.matrix_rank(cp.asarray(b @ b.T))) == 2
    assert int(cp.linalg.matrix_rank(cp.asarray(b @ b.T), tol=1e3)) == 0
    close(cp.linalg.matrix_power(A, 3), np.linalg.matrix_power(a, 3), 1e-3, 1e-2)
    close(cp.linalg.matrix_power(A, -1), np.linalg.inv(a), 1e-4, 1e-5)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_only_one_triangle(uplo):
    a = rand(4, 4)
    sym = (a + a.T) / 2
    junk = np.triu(sym, 1) * 0 + np.tril(rand(4, 4), -1) if uplo == "U" else np.triu(rand(4, 4), 1)
    given_ = (np.triu(sym) if uplo == "U" else np.tril(sym)) + junk
    w, v = cp.linalg.eigh(cp.asarray(given_), UPLO=uplo)
    ww, _ = np.linalg.eigh(given_, UPLO=uplo)
    close(w, ww, 1e-4, 1e-4)
    close(cp.linalg.eigvalsh(cp.asarray(given_), UPLO=uplo), ww, 1e-4, 1e-4)
    close((v * w) @ v.T, sym, 1e-4, 1e-4)
    with pytest.raises(ValueError, match="UPLO"):
        cp.linalg.eigh(cp.asarray(sym), UPLO="X")


def test_lstsq_and_tensor_functions_match_numpy():
    a, b = rand(8, 3), rand(8, 2)
    got = cp.linalg.lstsq(cp.asarray(a), cp.asarray(b), rcond=None)
    want = np.linalg.lstsq(a, b, rcond=None)
    close(got[0], want[0], 1e-4, 1e-4)
    close(got[1], want[1], 1e-3, 1e-4)
    assert got[2] == want[2]
    close(got[3], want[3], 1e-4, 1e-4)
    # rank-deficient: no residuals
    d = np.hstack([a[:, :2], a[:, :1]])
    got = cp.linalg.lstsq(cp.asarray(d), cp.asarray(b[:, 0]), rcond=None)
    assert got[2] == 2 and got[1].shape == (0,)
    t = rand(2, 3, 6) + np.eye(6, dtype=np.float32).reshape(2, 3, 6)
    close(cp.linalg.tensorinv(cp.asarray(t), ind=2), np.linalg.tensorinv(t, ind=2), 1e-3, 1e-3)
    m = rand(6, 2, 3) + np.eye(6, dtype=np.float32).reshape(6, 2, 3) * 4
    rhs = rand(6)
    close(cp.linalg.tensorsolve(cp.asarray(m), cp.asarray(rhs)), np.linalg.tensorsolve(m, rhs),
          1e-3, 1e-4)


def test_linalg_errors_name_the_input():
    with pytest.raises(cp.linalg.LinAlgError, match=r"square, got shape \(2, 3\)"):
        cp.linalg.inv(cp.ones((2, 3)))
    with pytest.raises(ValueError, match="mode"):
        cp.linalg.qr(cp.ones((2, 2)), mode="full")
    with pytest.raises(TypeError, match="integer"):
        cp.linalg.matrix_power(cp.ones((2, 2)), 1.5)
    # integer input is computed in float32
    assert cp.linalg.det(cp.asarray([[2, 0], [0, 3]])).dtype == np.float32


# -- fft ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,kw", [
    ("fft", {}), ("ifft", {}), ("fft", {"n": 12, "norm": "ortho"}), ("rfft", {"axis": 0}),
    ("ihfft", {}), ("fft2", {}), ("ifft2", {"norm": "forward"}), ("fftn", {}),
    ("rfft2", {}), ("rfftn", {"s": (4, 6), "axes": (0, 1)}), ("fftn", {"axes": (0,)}),
])
def test_fft_of_real_input_matches_numpy(name, kw):
    x = rand(6, 8)
    want = getattr(np.fft, name)(x, **kw)
    close(getattr(cp.fft, name)(cp.asarray(x), **kw), want, 1e-4, 1e-4)


@pytest.mark.parametrize("name,kw", [("irfft", {}), ("hfft", {"n": 10}), ("irfft2", {}),
                                     ("irfftn", {"s": (6, 8), "axes": (0, 1)}), ("ifftn", {})])
def test_inverse_ffts_match_numpy(name, kw):
    z = (rand(6, 5) + 1j * rand(6, 5)).astype(np.complex64)
    close(getattr(cp.fft, name)(cp.asarray(z), **kw), getattr(np.fft, name)(z, **kw), 1e-4, 1e-4)


def test_fft_helpers_and_errors():
    close(cp.fft.fftfreq(8, d=0.5), np.fft.fftfreq(8, d=0.5), 0, 0)
    close(cp.fft.rfftfreq(9), np.fft.rfftfreq(9), 1e-7, 0)
    x = rand(4, 5)
    close(cp.fft.fftshift(cp.asarray(x)), np.fft.fftshift(x), 0, 0)
    close(cp.fft.ifftshift(cp.asarray(x), axes=1), np.fft.ifftshift(x, axes=1), 0, 0)
    close(cp.fft.fft(cp.asarray([1, 2, 3, 4])), np.fft.fft([1, 2, 3, 4]), 1e-6, 1e-6)
    with pytest.raises(ValueError, match="norm"):
        cp.fft.fft(cp.asarray(x), norm="backwards")
    with pytest.raises(TypeError, match="must be real"):
        cp.fft.rfft(cp.asarray(x.astype(np.complex64)))


# -- methods and scatter_add ---------------------------------------------------------------------


def test_ndarray_methods_and_scatter_add():
    a = rand(3, 4)
    A = cp.asarray(a)
    close(A.take([0, 2], axis=1), a.take([0, 2], axis=1), 0, 0)
    close(A.repeat(2, axis=0), a.repeat(2, axis=0), 0, 0)
    close(A.diagonal(), a.diagonal(), 0, 0)
    close(A.diagonal(1), a.diagonal(1), 0, 0)
    close(cp.diagonal(cp.asarray(rand(2, 3, 3)), 0, 1, 2).shape and
          cp.diagonal(cp.asarray(b := rand(2, 3, 3)), 0, 1, 2), b.diagonal(0, 1, 2), 0, 0)
    close(A.trace(), a.trace(), 1e-6, 1e-6)
    close(A.ptp(axis=0), np.ptp(a, axis=0), 0, 0)
    z = cp.zeros(5, dtype=cp.float32)
    z.scatter_add(cp.asarray([0, 1, 1, 4, 4, 4]), cp.asarray([1, 2, 3, 4, 5, 6], dtype=cp.float32))
    want = np.zeros(5, np.float32)
    np.add.at(want, [0, 1, 1, 4, 4, 4], [1, 2, 3, 4, 5, 6])
    close(z, want, 0, 0)


def test_install_registers_the_submodules():
    import sys

    cp.install()
    for name in ("cupy.linalg", "cupy.fft", "cupy.lib", "cupy.lib.stride_tricks"):
        assert name in sys.modules, name
    import cupy

    assert cupy.linalg.norm is cp.linalg.norm


def test_modf_and_bool_inplace_match_numpy():
    x = np.array([-3.0, -0.5, 0.0, -0.0, 2.75, np.inf, -np.inf, np.nan], dtype=np.float32)
    frac, whole = cp.modf(cp.asarray(x))
    want_frac, want_whole = np.modf(x)
    for got, want in ((frac, want_frac), (whole, want_whole)):
        got = cp.asnumpy(got)
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got).tolist() == np.signbit(want).tolist()
    a, b = np.array([True, False, True]), np.array([True, True, False])
    for op in ("__imul__", "__iadd__"):
        x_ = cp.asarray(a)
        getattr(x_, op)(cp.asarray(b))
        want = a.copy()
        getattr(want, op)(b)
        assert cp.asnumpy(x_).tolist() == want.tolist()


def test_cbrt_a_table_op_outside_the_standard():
    # one op-table entry (and its WGSL helper) gives cp.cbrt and CUDA's cbrt/cbrtf in
    # kernel bodies; the strict namespace does not grow
    import webarray

    assert not hasattr(webarray, "cbrt")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(4000) * 10.0 ** rng.integers(-38, 38, 4000)).astype(np.float32)
    x = np.concatenate([x[np.isfinite(x)], np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1.1754944e-38, 3.4028235e38, 8, -27],
        dtype=np.float32)])
    got = cp.asnumpy(cp.cbrt(cp.asarray(x)))
    want = np.cbrt(x.astype(np.float64)).astype(np.float32)  # correctly rounded
    fin = np.isfinite(want)
    np.testing.assert_array_max_ulp(got[fin], want[fin], maxulp=1)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()
    body = cp.ElementwiseKernel("float32 x", "float32 y, float32 z", "y = cbrtf(x); z = cbrt(x)",
                                "roots")
    y, z = body(cp.asarray(x))
    np.testing.assert_array_equal(cp.asnumpy(y), got)
    np.testing.assert_array_equal(cp.asnumpy(z), got)
    assert cp.cbrt(cp.asarray([8, 27, -64], dtype=cp.int32)).tolist() == [2.0, 3.0, -4.0]
