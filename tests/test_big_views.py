"""Small views of buffers larger than one storage binding: every kernel family binds only
the range a view reads (issue: `a[-1] + a[0]` of a 320 MiB array bound the whole buffer and
failed validation, and the failed submit lost the rest of its batch).

Two ways: the real thing, a buffer above the device's binding limit (lavapipe: 128 MiB);
and small buffers on a device whose piece size is shrunk to 4 KiB, where a recording
executor checks that no dispatch binds more than that of one buffer, for random views
compared with NumPy.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from webarray._core import launch

from helpers import assert_equal


def _device():
    return xp.__array_namespace_info__().default_device()


def _ops():
    """(name, webarray function, NumPy function) over two 1-D float32 views a and b of
    length 8 (views of one big buffer, far apart)."""
    return [
        ("add", lambda a, b: a + b, lambda a, b: a + b),
        ("add_scalar_ends", lambda a, b: a[-1] + b[0], lambda a, b: a[-1] + b[0]),
        ("where", lambda a, b: xp.where(a > b, a, b), lambda a, b: np.where(a > b, a, b)),
        ("sum", lambda a, b: xp.sum(a), lambda a, b: np.sum(a)),
        ("max_axis", lambda a, b: xp.max(xp.reshape(a, (2, 4)), axis=0),
         lambda a, b: np.max(a.reshape(2, 4), axis=0)),
        ("argmax", lambda a, b: xp.argmax(b), lambda a, b: np.argmax(b).astype(np.int32)),
        ("sort", lambda a, b: xp.sort(a), lambda a, b: np.sort(a)),
        ("argsort", lambda a, b: xp.argsort(a, stable=True),
         lambda a, b: np.argsort(a, kind="stable").astype(np.int32)),
        ("unique", lambda a, b: xp.unique_values(a), lambda a, b: np.unique(a)),
        ("searchsorted", lambda a, b: xp.searchsorted(xp.sort(a), b),
         lambda a, b: np.searchsorted(np.sort(a), b).astype(np.int32)),
        ("cumsum", lambda a, b: xp.cumulative_sum(a), lambda a, b: np.cumsum(a)),
        ("matmul", lambda a, b: xp.reshape(a, (2, 4)) @ xp.reshape(b, (4, 2)),
         lambda a, b: a.reshape(2, 4) @ b.reshape(4, 2)),
        ("vecdot", lambda a, b: a @ b, lambda a, b: a @ b),
        ("take", lambda a, b: xp.take(a, xp.asarray([7, 0, 3])), lambda a, b: a[[7, 0, 3]]),
        ("int_index", lambda a, b: b[xp.asarray([1, -1])], lambda a, b: b[[1, -1]]),
        ("mask", lambda a, b: a[a > b], lambda a, b: a[a > b]),
        ("take_along", lambda a, b: xp.take_along_axis(a, xp.asarray([5, 5, 1]), axis=0),
         lambda a, b: a[[5, 5, 1]]),
        ("flip_concat", lambda a, b: xp.concat([xp.flip(a), b]),
         lambda a, b: np.concatenate([a[::-1], b])),
    ]


OPS = _ops()


def _check(name, got, want):
    want = np.asarray(want)
    if name in ("sum", "cumsum", "matmul", "vecdot"):
        assert_equal(got, want, rtol=1e-5, atol=1e-5)
    else:
        assert_equal(got, want)


@pytest.mark.parametrize("name,f,g", OPS, ids=[o[0] for o in OPS])
def test_small_views_of_a_buffer_above_the_binding_limit(big_array, name, f, g):
    x, host = big_array
    n = host.size
    a, b = x[n - 8:], x[:8]
    ha, hb = host[n - 8:], host[:8]
    _check(name, f(a, b), g(ha, hb))


@pytest.fixture(scope="module")
def big_array():
    """A float32 array ~25% above the binding limit (lavapipe: 168 MB), values a mix."""
    limit = _device().executor.max_binding_size
    n = (limit * 5 // 4) // 4 // 8 * 8
    host = (np.arange(n, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0) - 5.0
    x = xp.asarray(host)
    yield x, host
    del x


def test_fft_of_a_small_view_of_a_big_buffer(big_array):
    x, host = big_array
    got = np.asarray(xp.fft.fft(x[-16:]))
    np.testing.assert_allclose(got, np.fft.fft(host[-16:]), rtol=1e-4, atol=1e-4)


def test_the_issue_example_and_the_batch_it_shares():
    # ones() is a fill kernel in the same batch as the add; the add used to fail validation
    # at submit, which lost the fill too (a read gave zeros)
    n = (_device().executor.max_binding_size * 5 // 4) // 4
    a = xp.ones((n,), dtype=xp.float32)
    assert float(a[-1] + a[0]) == 2.0
    assert float(xp.sum(a[-5:])) == 5.0


# -- the same with a shrunk piece size, checking every binding -----------------------------------

PIECE = 4096


@contextmanager
def small_pieces_checked():
    """Pieces of 4 KiB, and a dispatch check that no binding but the uniforms' exceeds them."""
    dev = _device()
    ex = dev.executor
    old = launch.PIECE_BYTES, dev._piece_bytes
    launch.PIECE_BYTES = dev._piece_bytes = PIECE
    real = ex.dispatch
    too_big: list = []

    def checking(kernel, bindings, uniforms, grid):
        for h in bindings:
            size = h[2] if isinstance(h, tuple) else ex._sizes[h]
            if size > PIECE:
                too_big.append(size)
        return real(kernel, bindings, uniforms, grid)

    xp.fusion.flush()
    ex.dispatch = checking
    try:
        yield too_big
    finally:
        del ex.dispatch
        launch.PIECE_BYTES, dev._piece_bytes = old


@given(start_a=st.integers(0, 3000), start_b=st.integers(0, 3000), step=st.sampled_from([1, -1, 2]),
       op=st.sampled_from(OPS), fused=st.booleans())
def test_views_of_a_buffer_above_the_piece_size_bind_only_their_range(start_a, start_b, step, op,
                                                                      fused):
    name, f, g = op
    host = (np.arange(4096, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0) - 5.0
    x = xp.asarray(host)  # 16 KiB: four pieces
    sl_a = slice(start_a, start_a + 8 * abs(step), step) if step > 0 else \
        slice(start_a + 8, start_a, -1)
    sl_b = slice(4095 - start_b - 8, 4095 - start_b)
    with xp.fusion.enabled(fused), small_pieces_checked() as too_big:
        got = f(x[sl_a], x[sl_b])
        np.asarray(got)  # computed while the pieces are small
    _check(name, got, g(host[sl_a], host[sl_b]))
    assert not too_big, f"{name} bound {too_big} bytes of one buffer, above the {PIECE}-byte piece"


@pytest.mark.parametrize("fused", [True, False])
def test_a_gather_into_an_output_above_the_piece_size_runs_in_pieces(fused):
    """A gather (take, integer-array indexing) reads its source at indices it computes, so
    the source is bound whole in every piece (it fits one binding); its indices, the other
    operands and the output are cut into pieces like any operand (SciPy's bootstrap gathers a
    small sample into resamples larger than a binding)."""
    rng = np.random.default_rng(5)
    src = rng.standard_normal(700).astype(np.float32)  # 2.8 KiB: one piece
    idx = rng.integers(0, 700, size=9000).astype(np.int32)  # 36 KiB: nine pieces
    other = rng.standard_normal(9000).astype(np.float32)
    x, i, y = xp.asarray(src), xp.asarray(idx), xp.asarray(other)
    with xp.fusion.enabled(fused), small_pieces_checked() as too_big:
        taken = xp.take(x, i)
        mixed = x[i] * 2.0 + y
        rows = xp.take(xp.reshape(x, (7, 100)), i[:3000] % 100, axis=1)  # (7, 3000)
        for a in (taken, mixed, rows):
            np.asarray(a)  # computed while the pieces are small
    assert_equal(taken, src[idx])
    assert_equal(mixed, src[idx] * np.float32(2.0) + other)
    assert_equal(rows, np.take(src.reshape(7, 100), idx[:3000] % 100, axis=1))
    assert not too_big, f"bound {too_big} bytes of one buffer, above the {PIECE}-byte piece"
