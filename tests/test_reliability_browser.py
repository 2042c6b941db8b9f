"""Reliability inside Pyodide on the browser's WebGPU (headless Chromium): 100,000
temporaries, eager and fused, leave memory at baseline; a lost device is reported and the
arrays on it say they are gone (one browser run, ~1.5 min on a 2-core machine); after a
simulated loss new arrays compute on a fresh adapter and device, on both transports.
"""

from __future__ import annotations

import re

import pytest
from test_browser import pytestmark, run_in_browser  # noqa: F401  (same skip rule)

SCRIPT = """
import gc, time
import webarray as xp
from webarray.executors.protocol import DeviceLost

def stats():
    gc.collect()
    return xp.memory.stats()

N = 100_000
for fused in (False, True):
    t0 = time.time()
    with xp.fusion.enabled(fused):
        a = xp.ones(64)
        b = xp.arange(64, dtype=xp.float32)
        xp.fusion.flush(a, b)
        base = stats()
        for i in range(N):
            t = (a + b) * 2.0
            if i % 1000 == 0:
                t = t[::2] - b[::2]
                assert float(xp.sum(t)) == 1056.0
        del t
        after = stats()
    assert after["used_bytes"] == base["used_bytes"], (base, after)
    assert after["device_buffers"] <= base["device_buffers"] + 8, (base, after)
    print("temporaries", "fused" if fused else "eager", N, after["device_buffers"],
          round(time.time() - t0, 1))

dev = xp.__array_namespace_info__().default_device()
x = xp.ones(4)
pending = x * 3.0
try:
    dev.executor.destroy()
except DeviceLost:
    pass
for arr in (x, pending):
    try:
        float(xp.sum(arr))
    except DeviceLost as e:
        print("gone:", e)
    else:
        raise SystemExit("no DeviceLost")
assert dev.lost and "lost" in repr(dev)
print("ok")
"""


def test_temporaries_and_device_loss_in_the_browser(tmp_path):
    r = run_in_browser(tmp_path, SCRIPT, timeout=400)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert len(re.findall(r"^temporaries (eager|fused) 100000", r.stdout, re.M)) == 2
    assert len(re.findall(r"^gone: .*device", r.stdout, re.M)) == 2
    assert r.stdout.rstrip().endswith("ok")


FRESH_DEVICE = """
import array
import webarray as xp
from webarray.executors.protocol import DeviceLost

info = xp.__array_namespace_info__()
first = info.default_device()
assert first.backend == "webgpu", first


def lose_and_recover(dev, round):
    x = xp.arange(4, dtype=xp.float32) + 1.0
    assert x._host_nested() == [1.0, 2.0, 3.0, 4.0]
    pending = x * 3.0
    try:
        dev.executor.simulate_loss()
    except DeviceLost as e:
        print("lost:", e)
    else:
        raise SystemExit("simulate_loss raised no DeviceLost")
    for arr in (x, pending):
        try:
            arr._host_nested()
        except DeviceLost as e:
            print("gone:", e)
        else:
            raise SystemExit("an array of the lost device did not raise DeviceLost")
    assert dev.lost and repr(dev).endswith("(lost)"), repr(dev)
    del x, pending  # their frees must not reach the fresh device's buffers

    # new arrays go to a fresh device and compute right there
    y = xp.arange(6, dtype=xp.float32) * 2.0 + 1.0
    new = info.default_device()
    assert new is not dev and not new.lost and y.device == new, (new, dev)
    assert y._host_nested() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0], y._host_nested()
    assert float(xp.sum(y)) == 36.0
    m = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3))
    assert (m @ xp.matrix_transpose(m))._host_nested() == [[5.0, 14.0], [14.0, 50.0]]
    assert xp.cumulative_sum(xp.asarray([1, 2, 3, 4], dtype=xp.int32))._host_nested() == [1, 3, 6, 10]
    # 16 MiB through the command ring (more than it holds) and back: the transport
    # works as before the loss
    n = 4 << 20
    big = xp.asarray(array.array("f", [1.5]) * n)
    assert float(xp.sum(big)) == 1.5 * n
    assert (big[-3:] * 2.0)._host_nested() == [3.0, 3.0, 3.0]
    # old and new do not mix
    try:
        xp.asarray([1.0], device=dev)
    except (DeviceLost, ValueError) as e:
        print("old device refused:", type(e).__name__)
    print("fresh device", round, "ok")
    return new


second = lose_and_recover(first, 1)
lose_and_recover(second, 2)  # a fresh device can be lost and replaced again
print("ok")
"""


@pytest.mark.parametrize("transport", ["sab", "jspi"])
def test_new_arrays_compute_on_a_fresh_webgpu_device_after_a_loss(tmp_path, transport):
    r = run_in_browser(tmp_path, FRESH_DEVICE, "--backend", "webgpu", "--transport", transport,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert len(re.findall(r"^lost: the WebGPU device was lost", r.stdout, re.M)) == 2
    assert len(re.findall(r"^gone: the webgpu device is gone: ", r.stdout, re.M)) == 4
    assert re.findall(r"^fresh device (\d) ok", r.stdout, re.M) == ["1", "2"]
    assert r.stdout.rstrip().endswith("ok")
