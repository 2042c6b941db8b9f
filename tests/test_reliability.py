"""Memory lifecycle: temporaries come back to the pool, allocation failures are clean."""

import gc

import numpy as np
import pytest

import webarray as xp
from helpers import assert_equal


def _stats():
    gc.collect()
    return xp.memory.stats()


def test_100k_temporaries_leave_memory_at_baseline():
    a = xp.ones(64)
    b = xp.arange(64, dtype=xp.float32)
    xp.fusion.flush(a, b)  # their own buffers belong to the baseline
    base = _stats()
    for i in range(100_000):
        t = (a + b) * 2.0
        if i % 10_000 == 0:
            t = t[::2] - b[::2]  # views and strided operands too
    del t
    after = _stats()
    assert after["used_bytes"] == base["used_bytes"]
    # every temporary went back to the pool and was reused: the device holds at most a
    # handful more buffers than before, not thousands
    assert after["device_buffers"] <= base["device_buffers"] + 8
    assert_equal((a + b) * 2.0, (np.ones(64, np.float32) + np.arange(64, dtype=np.float32)) * 2)


def test_allocation_past_the_limit_raises_memory_error_and_the_device_keeps_working():
    old = xp.memory.stats()["limit_bytes"]
    used = _stats()["used_bytes"]
    xp.memory.set_limit(used + (1 << 20))
    try:
        with pytest.raises(MemoryError, match=r"cannot allocate \d+ bytes.*limit"):
            xp.zeros(1 << 20)  # 4 MiB
        small = xp.ones(16) + 1.0  # still fits
        assert_equal(small, np.full(16, 2.0, np.float32))
    finally:
        xp.memory.set_limit(old)
    big = xp.zeros(1 << 20)
    assert float(xp.sum(big)) == 0.0


def test_free_pooled_returns_buffers_to_the_device():
    x = xp.ones(1 << 16)
    del x
    before = _stats()
    assert before["pooled_bytes"] > 0
    xp.memory.free_pooled()
    after = xp.memory.stats()
    assert after["pooled_bytes"] == 0
    assert after["device_buffers"] < before["device_buffers"]
