"""Ctrl-C in the middle of webarray's work: every array is right afterwards, or raises.

Three ways in: (1) each wgpu method that the native executor's flush, submit, write and
read paths call (and the readback's calls into wgpu-native) raises KeyboardInterrupt once
(at its first and at its third call), as an interrupt inside wgpu-py's Python code would;
(2) the same methods send SIGINT to the
process from inside, as a real Ctrl-C at that moment does; (3) real SIGINTs from a timer
thread while the main thread loops over operations and reads. Before the fix the recorded
work of an interrupted submit was lost while the graph counted its arrays as computed
(zeros, or the old contents of a freed array), and a Ctrl-C landing in a wgpu object's
``__del__`` was printed and dropped. Last, a batch that wgpu refuses for good (not an
interrupt) makes its device count as lost rather than leaving its arrays stale.
"""

from __future__ import annotations

import gc
import os
import random
import signal
import threading
import time

import numpy as np
import pytest
from wgpu.backends import wgpu_native as api

import webarray as xp
from webarray import fusion
from webarray._core import device as _device
from webarray.executors import guard
from webarray.executors.native import NativeExecutor
from webarray.executors.protocol import DeviceLost

# the wgpu methods of the native executor's flush/submit/write/read paths
CALLS = [
    (api.GPUDevice, "create_buffer"),  # alloc, and a new uniform arena in a submit
    (api.GPUQueue, "write_buffer"),  # the arena, and write
    (api.GPUDevice, "create_command_encoder"),
    (api.GPUCommandEncoder, "begin_compute_pass"),
    (api.GPUDevice, "create_bind_group"),
    (api.GPUComputePassEncoder, "set_pipeline"),
    (api.GPUComputePassEncoder, "set_bind_group"),
    (api.GPUComputePassEncoder, "dispatch_workgroups"),
    (api.GPUComputePassEncoder, "end"),
    (api.GPUCommandEncoder, "finish"),
    (api.GPUQueue, "submit"),
    # a readback: its copy in the submit, then the map, the waiting polls and the copy out
    # (NativeExecutor's _Readback, through wgpu-native's functions)
    (api.GPUCommandEncoder, "copy_buffer_to_buffer"),
    ("reader", "map"),
    ("reader", "poll"),
    ("reader", "take"),
]


@pytest.fixture(params=[True, False], ids=["fused", "eager"])
def fused(request):
    before = fusion.is_enabled()
    fusion.set_enabled(request.param)
    yield request.param
    fusion.set_enabled(before)


def _statements(made: dict, k: int) -> None:
    """Operations, writes and reads; each result goes into made as (array, NumPy value)
    once its statement has completed (a dict store is not interrupted halfway)."""
    a_np = np.arange(64, dtype=np.float32) + k
    a = xp.asarray(a_np)
    made["a"] = (a, a_np)
    old = xp.full(64, 777.0 + k)
    np.asarray(old)
    del old  # its buffer goes back to the pool; b may get it
    b = a + 1.0
    made["b"] = (b, a_np + 1)
    c = b * 2.0 - a
    made["c"] = (c, (a_np + 1) * 2 - a_np)
    made["s"] = (xp.sum(c), np.sum((a_np + 1) * 2 - a_np))
    d_np = (np.arange(64, dtype=np.int32) * 7 + k) % 31
    d = xp.asarray(d_np)  # a write: the recorded work is submitted first
    made["d"] = (d, d_np)
    made["e"] = (xp.sort(-d), np.sort(-d_np))
    m_np = np.reshape(d_np[:16], (4, 4)).astype(np.float32)
    made["mm"] = (xp.reshape(xp.astype(d[:16], xp.float32), (4, 4)) @ xp.asarray(m_np),
                  m_np @ m_np)
    g = xp.zeros(64, dtype=xp.int32)
    g[2:5] = 9
    g_np = np.zeros(64, np.int32)
    g_np[2:5] = 9
    made["g"] = (g, g_np)
    made["mask"] = (a[a > 40.0 + k], a_np[a_np > 40 + k])
    assert np.array_equal(np.asarray(c), (a_np + 1) * 2 - a_np)
    assert np.array_equal(np.asarray(made["e"][0]), np.sort(-d_np))


def _check(made: dict) -> None:
    for name, (arr, want) in list(made.items()):
        got = np.asarray(arr)
        assert got.shape == want.shape and np.array_equal(got, want), (name, got[:6], want[:6])


# the pass calls the replay makes through wgpu-native's own functions, where wgpu-py
# exposes them (NativeExecutor._calls): their place in that tuple
_RAW = {"set_pipeline": 0, "set_bind_group": 1, "dispatch_workgroups": 2}
# the submit's encoder, pass, copy, finish, submit and queue-write calls
# (NativeExecutor._encoding): their field in it
_ENCODING = {"create_command_encoder": "encoder", "begin_compute_pass": "begin", "end": "end",
             "copy_buffer_to_buffer": "copy", "finish": "finish", "submit": "submit",
             "write_buffer": "write"}


def _inject(monkeypatch, cls, name, nth, how, executor=None):
    """Make the nth call of cls.name raise KeyboardInterrupt ("raise") or send SIGINT to
    this process before it runs ("signal"); returns a list that records the firing. A pass
    call the executor makes through wgpu-native's function, and its bind group and buffer
    makers, are injected there (create_buffer: in the maker and in wgpu-py's method, which
    makes the uniform arena, counted together)."""
    raw = executor is not None and executor._calls is not None and name in _RAW
    # bind groups and array buffers are made by the executor's own makers
    # (_bind_group_maker, _buffer_maker) or wgpu-py's; the uniform arena by wgpu-py's
    own = {"create_bind_group": "_create_bind_group",
           "create_buffer": "_create_buffer"}.get(name) if executor is not None else None
    fired = []
    calls = [0]

    def wrapping(original):
        def wrapper(*args, **kwargs):
            calls[0] += 1
            if calls[0] == nth and not fired:
                fired.append(name)
                if how == "raise":
                    raise KeyboardInterrupt
                signal.raise_signal(signal.SIGINT)
            return original(*args, **kwargs)
        return wrapper

    if cls == "reader":  # the executor's readback calls
        monkeypatch.setattr(executor._reader, name, wrapping(getattr(executor._reader, name)))
        return fired
    if executor is not None and name in _ENCODING:  # the submit's calls (both kinds)
        field = _ENCODING[name]
        replaced = executor._encoding._replace(
            **{field: wrapping(getattr(executor._encoding, field))})
        monkeypatch.setattr(executor, "_encoding", replaced)
        return fired
    wrapper = wrapping(executor._calls[_RAW[name]] if raw else getattr(cls, name))
    if own:
        monkeypatch.setattr(executor, own, wrapping(getattr(executor, own)))
        if name == "create_buffer":
            monkeypatch.setattr(cls, name, wrapper)
    elif raw:
        replaced = list(executor._calls)
        replaced[_RAW[name]] = wrapper
        monkeypatch.setattr(executor, "_calls", tuple(replaced))
    else:
        monkeypatch.setattr(cls, name, wrapper)
    return fired


@pytest.mark.parametrize("how", ["raise", "signal"])
def test_an_interrupt_at_any_wgpu_call_leaves_every_array_right(monkeypatch, fused, how):
    _statements({}, 0)  # compile outside the injections
    device = _device.default_device()
    executor = device.executor
    before = {}
    _statements(before, 1)
    for k, (cls, name) in enumerate(CALLS):
        for nth in (1, 3):
            made = dict(before)
            executor._arena_size = 0  # the next submit makes a new arena (create_buffer)
            device.pool.trim()  # and new arrays new buffers
            with monkeypatch.context() as m:
                fired = _inject(m, cls, name, nth, how, executor)
                interrupted = False
                try:
                    _statements(made, 2 + k)
                    if how == "signal":
                        time.sleep(5)  # a deferred SIGINT ends this sleep ~1 ms after it
                except KeyboardInterrupt:
                    interrupted = True
            assert fired, f"{name} was not called {nth} times"
            assert interrupted, (name, nth)
            _check(made)


def test_a_ctrl_c_in_a_wgpu_finalizer_is_raised_after_it(monkeypatch):
    executor = _device.default_device().executor
    original = api.GPUBuffer._release

    released, targets = [], set()

    def release(self):
        released.append(1)
        if id(self) in targets:  # only the test's buffers: each other one would be a Ctrl-C
            targets.discard(id(self))
            signal.raise_signal(signal.SIGINT)  # lands inside GPUBuffer.__del__
        original(self)

    monkeypatch.setattr(api.GPUBuffer, "_release", release)
    # Up to three buffers. Twice, late in the whole suite, the interrupt was lost: gc.collect
    # ran hypothesis's gc callback, the re-sent SIGINT was raised inside it and dropped
    # (the next test covers that). Before the fix every attempt dropped it.
    before = dict(guard.counts)
    raised = 0
    for _ in range(3):
        buf = executor._device.create_buffer(size=16, usage=executor._usage)
        targets.add(id(buf))
        try:
            del buf
            gc.collect()
            time.sleep(2)  # without the fix the interrupt was dropped: nothing ends this sleep
        except KeyboardInterrupt:
            raised += 1
            break
    did = {k: guard.counts[k] - before[k] for k in before}
    assert raised == 1, (f"a Ctrl-C inside a wgpu finalizer was lost three times: releases "
                         f"{len(released)}, handler {signal.getsignal(signal.SIGINT)!r}, "
                         f"guard {did}, threads {threading.active_count()}")


def test_a_ctrl_c_in_a_garbage_collector_callback_is_raised_after_it(monkeypatch):
    # hypothesis registers a gc callback (its gc timing); a Ctrl-C that landed there was
    # raised inside it and dropped ("Exception ignored"), late in the whole suite. The
    # handler defers it there (the unraisable hook, the second line of defence, is out of
    # the way here)
    import sys

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)
    fired, armed = [], []

    def callback(phase, info):
        if phase == "start" and armed and not fired:  # not in a collection pytest triggers
            fired.append(1)
            signal.raise_signal(signal.SIGINT)
            for _ in range(1000):  # Python bytecode here: the handler runs inside the callback
                pass

    gc.callbacks.append(callback)
    try:
        with pytest.raises(KeyboardInterrupt):
            armed.append(1)
            gc.collect()
            time.sleep(2)  # without the fix nothing ends this sleep
    finally:
        gc.callbacks.remove(callback)
    assert fired and not dropped


def test_a_ctrl_c_dropped_as_unraisable_is_sent_again(monkeypatch):
    # where no frame says so (another library's weakref callback), the KeyboardInterrupt
    # reaches sys.unraisablehook: webarray's sends it again (pytest wraps each test's hook,
    # so the hook is called directly here)
    import sys

    class Info:
        exc_type, exc_value = KeyboardInterrupt, KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        guard._unraisable(Info())
        time.sleep(2)
    seen = []
    monkeypatch.setattr(guard, "_previous_unraisablehook", seen.append)

    class Other:
        exc_type, exc_value = ValueError, ValueError("x")

    guard._unraisable(Other())  # anything else goes to the hook it replaced
    assert len(seen) == 1 and sys.unraisablehook is not None


def test_real_sigints_leave_no_stale_array_and_none_is_lost(fused):
    _statements({}, 0)
    made: dict = {}
    acked = threading.Event()
    done = threading.Event()
    report = {"sent": 0, "lost": 0}

    def sender():
        rng = random.Random(7)
        end = time.monotonic() + 3.0
        while report["sent"] < 40 and time.monotonic() < end:
            time.sleep(rng.uniform(0.001, 0.02))
            acked.clear()
            report["sent"] += 1
            os.kill(os.getpid(), signal.SIGINT)
            if not acked.wait(2.0):
                report["lost"] += 1
        done.set()

    caught = 0
    errors = []
    thread = threading.Thread(target=sender)
    thread.start()
    k = 0
    while True:
        try:
            if done.is_set():
                break
            k += 1
            _statements(made, k % 50)
        except KeyboardInterrupt:
            caught += 1
            try:
                _check(made)
            except AssertionError as e:
                errors.append(str(e)[:200])
            acked.set()
    thread.join()
    assert not errors, f"{len(errors)} of {caught} interrupts left stale arrays: {errors[:3]}"
    assert report["lost"] == 0 and caught == report["sent"], (report, caught)


def test_a_submit_that_cannot_succeed_loses_the_device_rather_than_leaving_stale_arrays():
    # a kernel bound with one buffer too few: wgpu rejects the bind group at every submit
    bad = ("@group(0) @binding(0) var<storage, read> u: array<u32>;\n"
           "@group(0) @binding(1) var<storage, read_write> a: array<u32>;\n"
           "@group(0) @binding(2) var<storage, read_write> b: array<u32>;\n"
           "@compute @workgroup_size(1) fn main() { a[0] = 1u; b[0] = 2u; }\n")
    saved = _device._default
    dev = _device._default = _device.Device(NativeExecutor())
    try:
        x = xp.asarray(np.arange(4, dtype=np.int32))
        y = x + 1
        fusion.flush(y)
        keep = dev.pool.acquire(16)
        dev.executor.dispatch(dev.executor.compile(bad), [keep.handle], bytes(4), (1, 1, 1))
        for _ in range(2):  # before: an error once, then y read as zeros
            with pytest.raises(DeviceLost):
                np.asarray(y)
        assert dev.lost
        fresh = xp.asarray(np.arange(4, dtype=np.int32)) + 1
        assert fresh.device != dev and np.array_equal(np.asarray(fresh), np.arange(1, 5))
        del x, y, keep
        gc.collect()
    finally:
        _device._default = saved
