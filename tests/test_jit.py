"""webarray.jit (issue #21): a function's kernels recorded per argument layout and replayed.

Every replay must equal the untraced function bit for bit (and NumPy where the function is
NumPy's), whatever the fusion setting around it; what cannot be replayed must be refused
at the recording with TraceError, leaving the device working.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core import launch

from helpers import assert_equal

SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38,
                    -3.4e38, 0.5, 2.0, 1e-38], dtype=np.float32)


def _bits(a) -> bytes:
    return np.asarray(a).tobytes()


def mandel(zr, zi, re, im, n):
    count = xp.zeros(zr.shape, dtype=xp.int32)
    for _ in range(n):
        zr, zi = zr * zr - zi * zi + re, 2.0 * zr * zi + im
        count += xp.astype(zr * zr + zi * zi < 4.0, xp.int32)
    return zr, zi, count


def _mandel_numpy(re, im, n):
    zr = np.zeros_like(re)
    zi = np.zeros_like(im)
    count = np.zeros(re.shape, dtype=np.int32)
    with np.errstate(all="ignore"):
        for _ in range(n):
            zr, zi = zr * zr - zi * zi + re, np.float32(2.0) * zr * zi + im
            count += (zr * zr + zi * zi < 4.0).astype(np.int32)
    return zr, zi, count


@pytest.mark.parametrize("fused", [True, False], ids=["fusion-on", "fusion-off"])
def test_a_loop_replays_bit_for_bit_and_matches_numpy(fused):
    y, x = np.mgrid[-1.5:1.5:40j, -2:1:48j]
    re_h, im_h = x.astype(np.float32), y.astype(np.float32)
    step = xp.jit(mandel)
    with xp.fusion.enabled(fused):
        re, im = xp.asarray(re_h), xp.asarray(im_h)
        z = xp.zeros(re.shape)
        first = step(z, z, re, im, 30)  # recorded
        again = step(z, z, re, im, 30)  # replayed
        plain = mandel(z, z, re, im, 30)
    assert step.cache_size() == 1
    want = _mandel_numpy(re_h, im_h, 30)
    for a, b, c, w in zip(first, again, plain, want):
        assert _bits(a) == _bits(b) == _bits(c)
        assert _bits(a) == w.tobytes()


def test_the_replay_issues_only_the_recorded_kernels():
    step = xp.jit(mandel)
    re = xp.asarray(np.linspace(-2, 1, 64, dtype=np.float32))
    z = xp.zeros(re.shape)
    step(z, z, re, re, 40)
    recorded = sum(1 for s in step._cache[next(iter(step._cache))][0].steps if s[0] >= 0)
    xp.fusion.flush()
    before = launch.launches
    step(z, z, re, re, 40)
    assert launch.launches - before == recorded
    assert recorded < 40  # 40 iterations of 5 operations each, fused into chains


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(SPECIAL.tolist()), st.floats(width=32)),
                min_size=1, max_size=40),
       st.sampled_from(["contiguous", "offset", "reversed"]), st.booleans())
def test_special_values_and_views_equal_the_untraced_function(values, view, fused):
    host = np.asarray(values, dtype=np.float32)
    views = {"contiguous": lambda a: a, "offset": lambda a: a[1:] if a.shape[0] > 1 else a,
             "reversed": lambda a: a[::-1]}[view]

    def f(x, y):
        t = x * y - y
        return xp.where(xp.isnan(t), x, t / (xp.abs(y) + 1.0)), xp.sqrt(xp.abs(t)) - x

    g = xp.jit(f)
    with xp.fusion.enabled(fused):
        x = views(xp.asarray(host))
        y = views(xp.asarray(host[::-1].copy()))
        outs = [g(x, y), g(x, y), f(x, y)]
    for k in range(2):
        assert _bits(outs[0][k]) == _bits(outs[1][k]) == _bits(outs[2][k])


def test_a_new_layout_or_static_value_records_again():
    g = xp.jit(lambda x, s: x * s + 1.0)
    a = xp.asarray(np.arange(8, dtype=np.float32))
    assert_equal(g(a, 2.0), np.arange(8, dtype=np.float32) * 2 + 1)
    assert_equal(g(a, 3.0), np.arange(8, dtype=np.float32) * 3 + 1)
    assert_equal(g(a[::2], 2.0), np.arange(0, 8, 2, dtype=np.float32) * 2 + 1)
    assert_equal(g(xp.reshape(a, (2, 4)), 2.0),
                 np.arange(8, dtype=np.float32).reshape(2, 4) * 2 + 1)
    assert g.cache_size() == 4
    assert_equal(g(a, 3.0), np.arange(8, dtype=np.float32) * 3 + 1)
    assert g.cache_size() == 4
    b = xp.asarray(np.full(8, 5, dtype=np.float32))
    assert_equal(g(b, 3.0), np.full(8, 16, dtype=np.float32))  # other data, same layout
    assert g.cache_size() == 4
    g.cache_clear()
    assert g.cache_size() == 0


def test_reductions_matmul_sort_and_uploads_replay():
    def f(a, b):
        c = a @ b
        s = xp.sum(c * c, axis=0)
        k = xp.asarray([1.0, 2.0, 3.0])  # uploaded again at every call
        return xp.sort(s)[:3] * k, xp.cumulative_sum(xp.max(c, axis=1))

    g = xp.jit(f)
    rng = np.random.default_rng(3)
    for _ in range(3):
        ah = rng.standard_normal((17, 9)).astype(np.float32)
        bh = rng.standard_normal((9, 12)).astype(np.float32)
        a, b = xp.asarray(ah), xp.asarray(bh)
        got, plain = g(a, b), f(a, b)
        for u, v in zip(got, plain):
            assert _bits(u) == _bits(v)
    assert g.cache_size() == 1


def test_arguments_updated_in_place_and_closure_arrays_read_at_each_call():
    scale = xp.asarray(np.full(4, 2.0, dtype=np.float32))

    @xp.jit
    def accumulate(total, x):
        total += x * scale
        x[0] = -1.0

    total = xp.zeros(4)
    x = xp.asarray(np.arange(4, dtype=np.float32))
    for _ in range(3):
        assert accumulate(total, x) is None
    # first call: 0,1,2,3 doubled; later calls: x[0] is -1 after the first
    assert_equal(total, np.array([-4.0, 6.0, 12.0, 18.0], dtype=np.float32))
    assert_equal(x, np.array([-1.0, 1.0, 2.0, 3.0], dtype=np.float32))
    scale[...] = 10.0  # the recording reads the closure's buffer as it is now
    accumulate(total, x)
    assert_equal(total, np.array([-14.0, 16.0, 32.0, 48.0], dtype=np.float32))
    assert accumulate.cache_size() == 1


@pytest.mark.parametrize("body, what", [
    (lambda x: x * 2 if xp.any(x > 0) else x, "reads array values back to the host"),
    (lambda x: x * float(x[0]), "reads array values back to the host"),
    (lambda x: xp.nonzero(x > 0)[0], "reads array values back to the host"),
    (lambda x: {"y": x}, "returned dict"),
])
def test_what_cannot_be_replayed_is_refused_and_the_device_keeps_working(body, what):
    g = xp.jit(body)
    x = xp.asarray(np.array([1.0, -2.0, 3.0], dtype=np.float32))
    with pytest.raises(xp.TraceError, match=what):
        g(x)
    assert g.cache_size() == 0
    assert_equal(x * 2.0 + 1.0, np.array([3.0, -3.0, 7.0], dtype=np.float32))
    assert xp.sum(x) == 2.0


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="jit expects a function"):
        xp.jit(3)
    g = xp.jit(lambda x, opts: x + 1.0)
    with pytest.raises(TypeError, match="must be hashable"):
        g(xp.ones(2), {"a": 1})


def test_replays_from_several_threads():
    g = xp.jit(lambda x, y: xp.sqrt(x * x + y * y) - x)
    rng = np.random.default_rng(5)
    hosts = [(rng.standard_normal(1000).astype(np.float32),
              rng.standard_normal(1000).astype(np.float32)) for _ in range(8)]
    g(xp.asarray(hosts[0][0]), xp.asarray(hosts[0][1]))  # recorded once
    errors, results = [], {}

    def work(i):
        try:
            for _ in range(5):
                a, b = hosts[i]
                results[i] = np.asarray(g(xp.asarray(a), xp.asarray(b)))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, (a, b) in enumerate(hosts):
        assert results[i].tobytes() == (np.sqrt(a * a + b * b) - a).tobytes()


def test_cupy_fuse_replays_through_jit():
    import webarray.cupy as cp

    @cp.fuse()
    def body(x, y, s):
        return cp.sqrt(x * x + y * y) * s - cp.minimum(x, y) + 1.0

    a = np.arange(12, dtype=np.float32) - 5
    b = a[::-1].copy()
    x, y = cp.asarray(a), cp.asarray(b)
    first, again = body(x, y, 2.0), body(x, y, 2.0)
    assert isinstance(again, cp.ndarray)
    want = np.sqrt(a * a + b * b) * np.float32(2) - np.minimum(a, b) + np.float32(1)
    assert cp.asnumpy(first).tobytes() == cp.asnumpy(again).tobytes() == want.tobytes()


def test_an_argument_rebound_at_the_recording_is_written_in_place_once_it_has_views():
    @xp.jit
    def bump(t):
        t += 1.0

    t = xp.zeros(4)
    bump(t)  # t is its buffer's only view: the call gives it a new buffer
    bump(t)
    v = t[1:]  # now a view shares t's buffer: the call must write where v sees it
    bump(t)
    assert_equal(t, np.full(4, 3.0, dtype=np.float32))
    assert_equal(v, np.full(3, 3.0, dtype=np.float32))


def test_an_error_in_the_function_leaves_nothing_recorded():
    def bad(x):
        if (x * 2.0).shape == (3,):
            raise ValueError("boom")
        return x

    g = xp.jit(bad)
    x = xp.ones(3)
    with pytest.raises(ValueError, match="boom"):
        g(x)
    assert g.cache_size() == 0
    assert_equal(x + 1.0, np.full(3, 2.0, dtype=np.float32))
