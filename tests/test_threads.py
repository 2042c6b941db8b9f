"""Several Python threads on the default device: every result must be the thread's own.

Four threads run a mix of elementwise chains, reductions, sorts, matrix products, setitems
and boolean masks on values that differ per thread, with fusion on and off, for a bounded
time, and check every result against NumPy. Before webarray serialised its commands, 2-6%
of such results came back wrong (another thread's data, wrong shapes, float bits read as
int32).
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

import webarray as xp
from webarray import fusion
from webarray._core import device as _device

THREADS = 4
SECONDS = 1.5  # per fusion setting


def _round(t: int, i: int, rng, shared, shared_np) -> None:
    """One round of thread t's work; raises AssertionError naming what came back wrong."""
    base = t * 1000 + i % 100
    a_np = (rng.integers(-50, 50, 257) + base).astype(np.float32)
    a = xp.asarray(a_np)

    def same(what, got, want, exact=True):
        got = np.asarray(got)
        want = np.asarray(want)
        assert got.shape == want.shape and got.dtype == want.dtype, (t, i, what, got.dtype,
                                                                     got.shape, want.shape)
        if exact:
            assert np.array_equal(got, want), (t, i, what, got[:4], want[:4])
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"{t} {i} {what}")

    same("chain", (a * 2.0 + t) - 1.0, (a_np * np.float32(2) + np.float32(t)) - np.float32(1))
    same("int", xp.asarray(np.full(100, base, np.int32)) + 1, np.full(100, base + 1, np.int32))
    same("sum", xp.sum(a), a_np.sum())  # integers below 2**24: exact
    same("max", xp.max(a * -1.0), (a_np * -1).max())
    same("sort", xp.sort(a), np.sort(a_np))
    m_np = ((rng.integers(-8, 8, (16, 16)) + t) / 4).astype(np.float32)
    m = xp.asarray(m_np)
    same("matmul", m @ m, m_np @ m_np, exact=False)
    b_np = np.arange(64, dtype=np.int32) * (t + 1)
    b = xp.asarray(b_np)
    b[3:10] = base
    b_np[3:10] = base
    b[b > 50 * (t + 1)] = -t
    b_np[b_np > 50 * (t + 1)] = -t
    same("setitem", b, b_np)
    same("mask", a[a > base], a_np[a_np > base])
    same("shared", shared + float(t), shared_np + np.float32(t))


def _run_threads(seconds: float) -> list:
    errors: list = []
    shared_np = np.linspace(-3, 3, 300, dtype=np.float32)
    shared = xp.asarray(shared_np) * 3.0  # pending where fusion is on: every thread reads it
    shared_np = shared_np * np.float32(3)
    start = threading.Barrier(THREADS)

    def work(t: int) -> None:
        rng = np.random.default_rng(t)
        start.wait()
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end and len(errors) < 20:
            try:
                _round(t, i, rng, shared, shared_np)
            except Exception as e:  # every failure is reported, not only the first
                errors.append(repr(e)[:300])
            i += 1

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return errors


@pytest.mark.parametrize("fused", [True, False])
def test_threads_on_the_default_device_each_get_their_own_results(fused):
    before = fusion.is_enabled()
    fusion.set_enabled(fused)
    try:
        _round(0, 0, np.random.default_rng(0), xp.ones(300), np.ones(300, np.float32))  # compile
        errors = _run_threads(SECONDS)
    finally:
        fusion.set_enabled(before)
    assert not errors, f"{len(errors)} wrong results, first: {errors[:3]}"


def test_threads_that_create_the_default_device_share_one(monkeypatch):
    made = []

    def slow_device(executor):
        time.sleep(0.05)  # creating a real device takes a while too
        made.append(SimpleNamespace(lost=None))
        return made[-1]

    monkeypatch.setattr(_device, "_default", None)
    monkeypatch.setattr(_device, "_make_executor", lambda kind: None)
    monkeypatch.setattr(_device, "Device", slow_device)
    got = []
    threads = [threading.Thread(target=lambda: got.append(_device.default_device()))
               for _ in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(made) == 1 and got == made * THREADS
