"""Arrays above the device's storage-binding limit, launches in pieces, dispatch grids.

Two kinds of tests:

- *real* big arrays, a little above the limit the device reports (lavapipe and the WebGPU
  default: 128 MiB), with cheap ops: few, since each moves ~160 MB on the CPU;
- small arrays on a device whose piece size is shrunk to a few KiB, so that the same
  splitting code (``launch.py``) cuts odd shapes, strides, offsets and dtypes into many
  pieces, compared with NumPy on random inputs.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from webarray._core import launch
from webarray.executors.protocol import BindingTooLarge

from helpers import assert_equal


def _device():
    return xp.__array_namespace_info__().default_device()


def _limit() -> int:
    return _device().executor.max_binding_size


def _big_n(itemsize: int = 4) -> int:
    """A length whose buffer is ~25% above the storage-binding limit (a multiple of 8)."""
    return (_limit() * 5 // 4) // itemsize // 8 * 8


@pytest.fixture
def dispatches():
    """Count the dispatches the executor receives."""
    ex = _device().executor
    calls = []
    real = ex.dispatch

    def counting(kernel, bindings, uniforms, grid):
        calls.append((bindings, grid))
        return real(kernel, bindings, uniforms, grid)

    ex.dispatch = counting
    try:
        yield calls
    finally:
        del ex.dispatch


PIECE = 4096


@contextmanager
def small_pieces(nbytes: int = PIECE):
    """Launches binding more than nbytes of a buffer run in pieces of at most nbytes."""
    dev = _device()
    old = launch.PIECE_BYTES, dev._piece_bytes
    launch.PIECE_BYTES = dev._piece_bytes = nbytes
    try:
        yield
    finally:
        launch.PIECE_BYTES, dev._piece_bytes = old


# -- real arrays above the binding limit ---------------------------------------------------------

def test_elementwise_copy_reduction_and_readback_above_the_binding_limit(dispatches):
    n = _big_n()
    assert n * 4 > _limit()
    host = np.arange(n, dtype=np.float32) % 1000.0
    x = xp.asarray(host)  # write
    y = x * 0.5 + 1.0  # elementwise (fused or not)
    got = np.asarray(y)  # readback
    assert got.shape == (n,)
    np.testing.assert_array_equal(got, host * np.float32(0.5) + np.float32(1.0))
    assert max(b[2] for d in dispatches for b in d[0] if isinstance(b, tuple)) <= _limit()
    # a reversed strided view, a copy, a reduction over the whole array and its max
    np.testing.assert_array_equal(np.asarray(y[::-3]), got[::-3])
    c = xp.asarray(y, copy=True)
    assert float(c[n - 1]) == float(got[-1])
    assert float(xp.sum(x[: 1 << 24] * 0.0 + 1.0)) == float(1 << 24)
    s = float(xp.sum(y))
    assert s == pytest.approx(float(got.astype(np.float64).sum()), rel=1e-5)
    assert float(xp.max(y)) == float(got.max())
    assert float(xp.min(x[5:])) == 0.0
    # a small view of the big buffer binds only its own bytes
    np.testing.assert_array_equal(np.asarray(x[n - 9: n - 1] + 1.0), host[n - 9: n - 1] + 1)


def test_arange_and_two_dimensional_views_above_the_binding_limit():
    cols = 8192
    rows = _big_n() // cols
    a = xp.arange(rows * cols, dtype=xp.int32)  # reads the element index, in pieces
    ref = np.arange(rows * cols, dtype=np.int32)
    np.testing.assert_array_equal(np.asarray(a), ref)
    m = xp.reshape(a, (rows, cols))
    refm = ref.reshape(rows, cols)
    t = xp.matrix_transpose(m) - 1  # strided: cut along the outer output dimension
    np.testing.assert_array_equal(np.asarray(t[:, ::97]), (refm.T - 1)[:, ::97])
    row_sums = xp.sum(m, axis=1)  # reductions of blocks of rows
    np.testing.assert_array_equal(np.asarray(row_sums), refm.sum(axis=1, dtype=np.int32))
    # over the outer axis every output reads the whole matrix: blocks of rows of the
    # matrix for all outputs at once, through temporaries
    col_sums = xp.sum(m, axis=0)
    np.testing.assert_array_equal(np.asarray(col_sums), refm.sum(axis=0, dtype=np.int32))
    # argmax over the outer axis does not split: a clear error, not a wrong index
    with pytest.raises(BindingTooLarge, match="storage-binding limit"):
        np.asarray(xp.argmax(m, axis=0))
    row_max = xp.max(m, axis=1)
    np.testing.assert_array_equal(np.asarray(row_max), refm.max(axis=1))
    np.testing.assert_array_equal(np.asarray(xp.argmax(m, axis=1)), refm.argmax(axis=1))


def test_wide_dtype_above_the_binding_limit():
    n = _big_n(8)
    x = xp.arange(n, dtype=xp.int64) * 3
    np.testing.assert_array_equal(np.asarray(x[-5:]), np.arange(n - 5, n, dtype=np.int64) * 3)
    assert int(xp.sum(x[-1000:])) == int((np.arange(n - 1000, n, dtype=np.int64) * 3).sum())


def test_kernels_that_cannot_split_raise_a_clear_error_not_a_wrong_result():
    n = _big_n()
    x = xp.ones(n)
    with pytest.raises(MemoryError, match="binding"):
        np.asarray(xp.sort(x))
    with pytest.raises(MemoryError, match=rf"{_limit()}"):
        np.asarray(xp.cumulative_sum(x))
    with pytest.raises(BindingTooLarge, match="argmin/argmax"):
        int(xp.argmax(x))
    # and the device keeps working
    assert float(xp.sum(x[:1000])) == 1000.0


# -- the same code cut into many small pieces -------------------------------------------------

@st.composite
def _views(draw, dtypes=("float32", "int32", "uint8", "int64", "complex64")):
    name = draw(st.sampled_from(dtypes))
    shape = draw(st.lists(st.integers(1, 40), min_size=1, max_size=3))
    size = int(np.prod(shape))
    if np.dtype(name).kind == "c":
        base = (np.arange(size) % 17 - 8 + 1j * (np.arange(size) % 5)).astype(name)
    else:
        base = (np.arange(size) * 7 % 251).astype(name)
    base = base.reshape(shape)
    # a view: a reversed or stepped slice per axis, maybe a transpose
    key = tuple(slice(None, None, draw(st.sampled_from([1, 1, 2, -1, -3]))) for _ in shape)
    perm = draw(st.permutations(range(len(shape))))
    return name, base, key, perm


@given(_views(), st.booleans())
def test_pieces_of_elementwise_kernels_match_numpy(view, fused):
    name, base, key, perm = view
    with small_pieces(), xp.fusion.enabled(fused):
        x = xp.asarray(base)
        v = xp.permute_dims(x[key], tuple(perm))
        ref = np.transpose(base[key], perm)
        assert_equal(v * 3 + v, ref * 3 + ref)
        assert_equal(xp.flip(v), np.flip(ref))
        idx = xp.arange(int(np.prod(v.shape)), dtype=xp.int32)
        assert_equal(idx, np.arange(int(np.prod(ref.shape)), dtype=np.int32))
        x[key] = x[key] + x[key]  # in place through a view
        want = base.copy()
        want[key] = base[key] + base[key]
        assert_equal(x, want)


@st.composite
def _matrices(draw):
    name = draw(st.sampled_from(["float32", "int32", "int64"]))
    shape = (draw(st.integers(1, 600)), draw(st.integers(1, 1500)))
    base = (np.arange(shape[0] * shape[1]) * 7 % 251 - 100).astype(name).reshape(shape)
    key = (slice(None, None, draw(st.sampled_from([1, -1, 2]))),
           slice(None, None, draw(st.sampled_from([1, 1, -1, 3]))))
    return name, base, key, draw(st.sampled_from([(0, 1), (1, 0)]))


@given(_matrices(), st.data())
def test_pieces_of_reductions_match_numpy(view, data):
    # reduction pieces are whole chunks (up to 4096 columns, 8 chunks of one long row; one
    # chunk of 128 columns for all rows): a 1 MiB piece, arrays of up to 3.6 MB
    with small_pieces(1 << 20):
        _reductions_match(view, data)


def _reductions_match(view, data):
    name, base, key, perm = view
    v = xp.permute_dims(xp.asarray(base)[key], perm)
    ref = np.transpose(base[key], perm)
    axis = data.draw(st.sampled_from([None, 0, 1]))
    assert_equal(xp.sum(v, axis=axis), np.sum(ref, axis=axis, dtype=ref.dtype))
    assert_equal(xp.max(v, axis=axis), np.max(ref, axis=axis))
    if name == "float32":
        got, want = np.asarray(xp.mean(v, axis=axis)), np.mean(ref, axis=axis)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        got, want = np.asarray(xp.var(v, axis=axis)), np.var(ref.astype(np.float64), axis=axis)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    if axis is not None:
        try:
            got = xp.argmin(v, axis=axis)
            np.asarray(got)
        except MemoryError as e:  # one long row: argmin does not split (a clear error)
            assert "argmin/argmax" in str(e)
        else:
            assert_equal(got, np.argmin(ref, axis=axis).astype(np.int32))


def test_a_small_piece_size_cuts_dispatches_and_bounds_their_bytes(dispatches):
    # the watchdog bound: no dispatch binds more than the piece size of one operand
    with small_pieces():
        x = xp.asarray(np.arange(10_000, dtype=np.float32))
        y = np.asarray(xp.sin(x) * 2.0)
    np.testing.assert_allclose(y, np.sin(np.arange(10_000, dtype=np.float32)) * 2, atol=2e-6)
    pieces = [d for d in dispatches if any(isinstance(b, tuple) for b in d[0])]
    assert len(pieces) >= 10
    for bindings, _ in pieces:
        for b in bindings:
            assert b[2] <= PIECE


# -- dispatch grids ----------------------------------------------------------------------------

def test_dispatch_grids_past_the_per_dimension_limit_are_refused_by_the_executor():
    ex = _device().executor
    limit = ex.max_workgroups_per_dim
    with pytest.raises(ValueError, match=rf"{limit + 1}.*{limit} workgroups per dimension"):
        ex.dispatch(0, [], b"\0" * 4, (limit + 1, 1, 1))


def test_more_workgroups_than_one_dimension_holds_are_folded(dispatches):
    limit = _device().executor.max_workgroups_per_dim
    n = (limit + 5) * 256  # one thread per element on the strided path
    host = np.arange(2 * n, dtype=np.float32)
    x = xp.asarray(host)[::2]
    got = np.asarray(x + 1.0)
    np.testing.assert_array_equal(got, host[::2] + 1)
    assert any(g[1] > 1 for _, g in dispatches)
