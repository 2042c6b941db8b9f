"""Readbacks on the native executor (``NativeExecutor.read``, ``_Readback``): the bytes are
copied into a kept mappable buffer in the same submit as the work before them, mapped, and
waited for in the reading thread. Every size, dtype and place reads NumPy's values; a read
larger than the kept buffer takes one of its own; an interrupted wait leaves the next read
right; a long wait naps instead of spinning."""

from __future__ import annotations

import numpy as np
import pytest

import webarray as xp
from webarray._core import device as _device
from webarray.executors import native


def _executor():
    ex = _device.default_device().executor
    if getattr(ex, "_reader", None) is None:
        pytest.skip("this wgpu-py does not expose wgpu-native's map calls")
    return ex


@pytest.fixture(params=[True, False], ids=["fused", "eager"])
def fusion(request):
    with xp.fusion.enabled(request.param):
        yield request.param


def _same(x, want):
    got = np.asarray(x)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")


def _values(n, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype in ("int8", "uint16"):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    values = (rng.standard_normal(n) * 50).astype(np.float32)
    if dtype == "complex64":
        return (values + 1j * rng.standard_normal(n).astype(np.float32)).astype(np.complex64)
    return values


@pytest.mark.parametrize("n", [0, 1, 3, 16, 1000, 20_000, 300_000])
@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "bool", "complex64"])
def test_reads_of_every_size_and_dtype_equal_numpy(fusion, n, dtype):
    _executor()
    want = _values(n, dtype, n)
    a = xp.asarray(want)
    _same(a, want)
    if dtype == "bool":
        _same(xp.logical_not(a), ~want)  # pending work, then its read: one submit
    else:
        _same(a + a, want + want)
    if n > 4:
        _same(a[3:], want[3:])  # a view at an offset
        _same(a[1::3], want[1::3])
        _same(a[n // 2], want[n // 2])  # 0-d


def test_reads_past_the_kept_buffer_take_their_own(monkeypatch):
    ex = _executor()
    monkeypatch.setattr(native, "_STAGING_KEEP", 4096)
    monkeypatch.setattr(native, "_STAGING_MIN", 256)
    ex._reader.kept = None
    small = np.arange(50, dtype=np.float32)
    big = np.arange(5000, dtype=np.float32) * 0.5
    _same(xp.asarray(small), small)
    kept = ex._reader.kept
    assert kept is not None and kept.size == 256
    _same(xp.asarray(big), big)  # 20,000 bytes: a buffer of its own
    assert ex._reader.kept is kept
    mid = np.arange(700, dtype=np.float32)  # 2,800 bytes: the kept buffer grows
    _same(xp.asarray(mid), mid)
    assert ex._reader.kept.size == 4096
    ex._reader.kept = None


def test_a_result_and_its_readback_are_one_submit(monkeypatch):
    ex = _executor()
    a = xp.asarray(np.arange(1000, dtype=np.float32))
    float(xp.sum(a))  # compiled
    submits = []
    submit = ex._encoding.submit
    monkeypatch.setattr(ex, "_encoding", ex._encoding._replace(
        submit=lambda cb: (submits.append(1), submit(cb))))
    with xp.fusion.enabled(True):
        assert float(xp.sum(a * 2.0)) == float(np.sum(np.arange(1000, dtype=np.float32) * 2))
    assert submits == [1]  # before: the work's submit, then read_buffer's own


def test_an_interrupted_wait_leaves_the_next_reads_right(monkeypatch):
    ex = _executor()
    reader = ex._reader
    a = xp.asarray(np.arange(64, dtype=np.float32))
    original = reader.poll
    calls = [0]

    def poll():
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return original()

    monkeypatch.setattr(reader, "poll", poll)
    with pytest.raises(KeyboardInterrupt):
        np.asarray(a + 1.0)
    assert reader.busy  # the map the wait left: its buffer is not used again
    left = reader.kept
    for k in range(3):
        _same(a * float(k), np.arange(64, dtype=np.float32) * np.float32(k))
    assert reader.kept is not left and not reader.busy


def test_a_long_wait_naps_instead_of_spinning(monkeypatch):
    ex = _executor()
    naps = []
    original = native.time.sleep
    monkeypatch.setattr(native.time, "sleep", lambda s: (naps.append(s), original(s)))
    m = np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32)
    a = xp.asarray(m)
    ex.flush()
    b = a
    for _ in range(40):  # ~tens of ms of a CPU adapter's work, or a few ms of a GPU's
        b = b @ a * 0.0625
    got = np.asarray(b[0, :4])
    want = m
    for _ in range(40):
        want = want @ m * np.float32(0.0625)
    np.testing.assert_allclose(got, want[0, :4], rtol=1e-3, atol=1e-30)
    if "CPU" in ex.adapter_info["adapter_type"].upper():
        assert naps and max(naps) <= native._NAP_S


def test_a_device_lost_while_a_readback_waits_raises_device_lost():
    from webarray.executors.native import NativeExecutor
    from webarray.executors.protocol import DeviceLost

    saved = _device._default
    dev = _device._default = _device.Device(NativeExecutor())
    try:
        reader = dev.executor._reader
        if reader is None:
            pytest.skip("this wgpu-py does not expose wgpu-native's map calls")
        x = xp.asarray(np.arange(8, dtype=np.float32))
        assert float(xp.sum(x)) == 28.0
        mapping = reader.map

        def map_then_lose(buf, n):  # the copy is submitted; the device goes before the map
            dev.executor.simulate_loss()
            return mapping(buf, n)

        reader.map = map_then_lose
        with pytest.raises(DeviceLost, match="lost"):
            float(xp.sum(x * 2.0))
        del reader.map
        assert dev.lost
        fresh = xp.asarray([1.0, 2.0])  # a fresh device reads as before
        assert fresh.device != dev and float(xp.sum(fresh)) == 3.0
        del x
    finally:
        _device._default = saved
