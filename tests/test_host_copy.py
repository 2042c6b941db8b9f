"""Host copies of a device array: writes into one reach the array or raise, never vanish.

A webarray array lives in GPU memory, so every NumPy array made from it is a copy. Code that
writes into what ``np.asarray(x)`` gave it (SciPy's ``output=`` arrays) once wrote into that
copy and lost the values without a word: ``ndimage.correlate(a, k, output=out)`` left ``out``
all zeros. Now ``np.asarray(x)`` of a C-contiguous x in its own dtype is a lent copy
(_core/lease.py): its writes reach x at the next webarray operation (of its thread, or any
launch or readback of another thread), after which it is read-only. The other implicit
copies (``np.asarray`` of a strided view or in another dtype, ``np.from_dlpack(x)``) are
read-only; the copies a caller asks for (``np.array(x)``, ``copy=True``, CuPy's ``get()`` and
``asnumpy``) are writable and their own; ``copy=False`` raises ValueError, as NumPy's
``__array__`` protocol says for a copy that cannot be avoided.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest
import scipy.ndimage as ndi
from hypothesis import given, strategies as st

import webarray as xp
import webarray.cupy as cp
from webarray._core.device import Device, default_device
from webarray._core.tensor import is_contiguous
from helpers import ALL_NAMES, views

# ndimage functions that write into output= (k: the kernel, in the input's namespace)
NDIMAGE_OUTPUT = {
    "correlate": lambda a, k, out: ndi.correlate(a, k, output=out),
    "convolve": lambda a, k, out: ndi.convolve(a, k, output=out),
    "uniform_filter": lambda a, k, out: ndi.uniform_filter(a, 3, output=out),
    "gaussian_filter": lambda a, k, out: ndi.gaussian_filter(a, 1.0, output=out),
    "median_filter": lambda a, k, out: ndi.median_filter(a, 3, output=out),
    "sobel": lambda a, k, out: ndi.sobel(a, output=out),
    "shift": lambda a, k, out: ndi.shift(a, 1.0, output=out),
    "rotate": lambda a, k, out: ndi.rotate(a, 90, reshape=False, output=out),
}
KERNEL = np.array([[0.0, 1.0], [1.0, 0.5]], dtype=np.float32)
IMAGE = np.arange(30, dtype=np.float32).reshape(5, 6) % 7


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("name", sorted(NDIMAGE_OUTPUT))
def test_ndimage_output_is_filled(name, fused):
    call = NDIMAGE_OUTPUT[name]
    want = np.zeros_like(IMAGE)
    call(IMAGE, KERNEL, want)
    assert np.any(want != 0)  # NumPy's output array is filled
    with xp.fusion.enabled(fused):
        a, k = xp.asarray(IMAGE), xp.asarray(KERNEL)
        out = xp.zeros(IMAGE.shape, dtype=xp.float32)
        before = out * 2 + 1  # pending: reads out as it was
        call(a, k, out)
        np.testing.assert_allclose(np.asarray(out + 0), want, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(before), np.ones_like(IMAGE))
        # into a contiguous view of a larger buffer (an offset), and a strided one refused
        big = xp.zeros((3,) + IMAGE.shape, dtype=xp.float32)
        call(a, k, big[1])
        np.testing.assert_allclose(np.asarray(big), [0 * want, want, 0 * want], rtol=1e-6, atol=1e-6)
        with pytest.raises(ValueError, match="read-only"):
            call(a, k, xp.zeros((5, 12), dtype=xp.float32)[:, ::2])
        # without output= the result comes back and is right
        got = call(a, k, None)
        assert isinstance(got, xp.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)



def _wide(name: str):
    """(numpy array, webarray array) of int64 or complex64 values, of up to 2 dimensions."""
    part = st.floats(width=32) if name == "complex64" else st.integers(-2**63, 2**63 - 1)
    value = st.builds(complex, part, part) if name == "complex64" else part
    return st.lists(value, max_size=12).map(
        lambda v: np.array(v, dtype=name).reshape((-1, 2) if len(v) % 2 == 0 else (-1,)))


CASES = st.one_of(
    st.sampled_from(ALL_NAMES).flatmap(views),
    st.sampled_from(["int64", "complex64"]).flatmap(_wide).map(lambda a: (a, xp.asarray(a))),
)


def _assert_refuses_writes(h: np.ndarray):
    assert not h.flags.writeable
    if h.size:
        with pytest.raises(ValueError, match="read-only"):
            h.reshape(-1)[0] = h.reshape(-1)[-1]
        with pytest.raises(ValueError, match="read-only"):
            h += h


@given(CASES)
def test_implicit_host_copies_are_lent_or_read_only(case):
    a, x = case
    for h in (np.asarray(x, dtype=np.complex128), np.from_dlpack(x),
              np.from_dlpack(x, device="cpu")):
        _assert_refuses_writes(h)
    h = np.asarray(x)
    np.testing.assert_array_equal(h, a)
    if x.size == 0 or not is_contiguous(x.shape, x._strides):
        _assert_refuses_writes(h)
    else:  # lent: a write reaches x at the next webarray operation, then it is read-only
        assert h.flags.writeable
        flat = h.reshape(-1)
        flat[0] = flat[-1]
        want = a.copy()
        want.reshape(-1)[0] = want.reshape(-1)[-1]
        np.testing.assert_array_equal(np.asarray(xp.reshape(x, (-1,))).reshape(a.shape), want)
        x == x  # an operation ends the lease
        _assert_refuses_writes(h)
    np.testing.assert_array_equal(np.from_dlpack(x), np.asarray(x))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "float32", "int64", "float64", "complex128"])
def test_lent_copies_of_every_storage(dtype):
    dev = Device(default_device().executor, float64=True)
    a = np.arange(12).reshape(3, 4).astype(dtype)
    x = xp.asarray(a, device=dev)
    h = np.asarray(x)
    h[1] = a[2]
    h[2, 3] = a[0, 1]
    want = a.copy()
    want[1], want[2, 3] = a[2], a[0, 1]
    np.testing.assert_array_equal(np.asarray(xp.asarray(x, copy=True)), want)
    np.testing.assert_array_equal(np.asarray(x), want)


def test_a_lease_stays_open_while_other_arrays_are_read():
    """scikit-learn's chi2_kernel with dispatch off: np.asarray of X, then of Y, then a
    Cython kernel that takes writable views of both (reading Y once closed X's lease)."""
    x = xp.asarray(np.arange(6, dtype=np.float32))
    y = xp.asarray(np.ones(3, dtype=np.float32))
    hx = np.asarray(x)
    hy = np.asarray(y)
    assert float(y[0]) == 1.0
    memoryview(hx)[0] = 9.0  # a writable buffer, as Cython's memoryviews ask
    hy[1] = 5.0
    np.testing.assert_array_equal(np.asarray(x + 0), [9, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(np.asarray(y), [1, 5, 1])
    _assert_refuses_writes(hx)


def test_a_lease_ends_with_its_array():
    """A lent copy does not keep its buffer alive: once the array is gone its lease ends
    at the next operation (nothing can read what NumPy writes into the copy), and the
    buffer goes back to the pool. Leases of dead arrays had accumulated, each launch writing
    every one back, and a long process grew many times slower."""
    import gc

    from webarray._core import lease

    dev = default_device()
    kept = xp.asarray(np.arange(4, dtype=np.float32))
    hk = np.asarray(kept)
    gc.collect()
    before = dev.pool.used_bytes  # (what earlier tests of the process still hold)
    for k in range(50):
        x = xp.asarray(np.full(1000, k, dtype=np.float32))
        np.asarray(x)[0] = -1.0  # lent, written into, then the array dropped
        del x
    gc.collect()
    hk[0] = 7.0
    y = xp.asarray(np.ones(3, dtype=np.float32)) + 1  # a launch settles the leases
    np.asarray(y)
    assert len(lease.LEASES) <= 2, len(lease.LEASES)
    np.testing.assert_array_equal(np.asarray(kept + 0), [7, 1, 2, 3])  # the live one still lent
    assert dev.pool.used_bytes - before < 50 * 4000, (before, dev.pool.used_bytes)


@pytest.mark.parametrize("fused", [True, False])
def test_a_lease_stays_open_while_a_pending_array_is_computed_for_a_readback(fused):
    """SciPy's sosfilt: np.asarray of sos, then of a pending zi (computing it launches a
    kernel, part of that readback), then Cython takes writable views of both. The launch
    wrote sos's copy back but left it lent; the next webarray operation closes it."""
    with xp.fusion.enabled(fused):
        sos = xp.asarray(np.arange(6, dtype=np.float32))
        zi = xp.zeros((3, 2)) + 1.0  # pending where fused
        hs = np.asarray(sos)
        hz = np.asarray(zi)
        memoryview(hs)[0] = 7.0
        memoryview(hz)[0, 0] = 2.0
        np.testing.assert_array_equal(np.asarray(sos * 1), [7, 1, 2, 3, 4, 5])
        np.testing.assert_array_equal(np.asarray(zi)[0], [2, 1])
        _assert_refuses_writes(hs)


@pytest.mark.parametrize("fused", [True, False])
def test_a_lease_stays_open_through_operations_on_other_arrays(fused):
    """SciPy's ndimage lends ``output=``, compares the elements of a size array, then writes
    into the copy: operations that neither read nor write x leave its copy lent; the first
    that reads x, or writes into it, takes NumPy's writes first and closes the lease."""
    with xp.fusion.enabled(fused):
        x = xp.asarray(np.arange(4, dtype=np.float32))
        s = xp.asarray([2.0, 3.0])
        hx = np.asarray(x)
        assert [bool(v > 1) for v in s] == [True, True]
        t = s * 2 + 1
        hx[0] = 8.0
        np.testing.assert_array_equal(np.asarray(t), [5, 7])
        hx[1] = 9.0  # still lent
        y = x + 0  # reads x: NumPy's writes first, then the copy turns read-only
        _assert_refuses_writes(hx)
        np.testing.assert_array_equal(np.asarray(y), [8, 9, 2, 3])
        hx2 = np.asarray(x)
        hx2[2] = 7.0
        x[3] = 6.0  # writes into x: the copy's write lands first, then it closes
        _assert_refuses_writes(hx2)
        np.testing.assert_array_equal(np.asarray(x), [8, 9, 7, 6])


def test_asarray_twice_gives_the_same_copy():
    """np.asarray(x) again, while its lease is open, gives the same NumPy array, as NumPy's
    asarray of an array does: np.may_share_memory(np.asarray(x), x) is then True, so code
    that copies before writing into its input (scikit-learn's check_array(copy=True)) does,
    and SciPy sees x passed as both input and output. A copy of another view of the same
    buffer ends the first lease (two writable copies would undo each other's writes)."""
    x = xp.asarray(np.arange(6, dtype=np.float32))
    h = np.asarray(x)
    h[0] = 7.0
    assert np.asarray(x) is h and np.may_share_memory(h, x)
    np.testing.assert_array_equal(np.asarray(x[:3]), [7, 1, 2])  # another view: h ends
    _assert_refuses_writes(h)
    np.testing.assert_array_equal(np.asarray(x + 0), [7, 1, 2, 3, 4, 5])
    g = np.asarray(x)
    assert g is not h and g.flags.writeable
    x[1] = 9.0  # the array changed on the device: a new copy, the old one read-only
    k = np.asarray(x)
    assert k is not g and k[1] == 9.0 and not g.flags.writeable


@pytest.mark.parametrize("fused", [True, False])
def test_one_array_as_input_and_output(fused):
    """SciPy's minimum_filter(a, shape, output=a): NumPy sees the input and the output
    share memory (one copy), copies the input, and the result reaches a."""
    a = np.array([[3, 2, 5, 1, 4], [7, 6, 9, 3, 5], [5, 8, 3, 7, 1]], dtype=np.int32)
    with xp.fusion.enabled(fused):
        x = xp.asarray(a)
        ndi.minimum_filter(x, (2, 3), output=x)
        np.testing.assert_array_equal(np.asarray(x + 0), ndi.minimum_filter(a, (2, 3)))


def test_a_copy_nothing_wrote_is_not_written_back(monkeypatch):
    x = xp.asarray(np.arange(6, dtype=np.float32))
    writes = []
    ex = x.device.executor
    real = ex.write
    monkeypatch.setattr(ex, "write", lambda *args: (writes.append(args[1:2]), real(*args))[1])
    for _ in range(3):
        assert np.asarray(x).sum() == 15.0
        x = x + 0
    assert writes == []
    h = np.asarray(x)
    h[0] = 100
    assert float(xp.sum(x)) == 115.0 and len(writes) == 1


def test_writes_from_threads_reach_the_array():
    """ndimage with output= in threads (SciPy's TestThreading): each thread fills its row;
    a worker of a pool stays alive, its rows are written back at the reader's readback."""
    out = xp.zeros((4, 1000), dtype=xp.float32)

    def fill(i):
        np.asarray(out[i])[:] = i + 1

    threads = [threading.Thread(target=fill, args=(i,)) for i in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    np.testing.assert_array_equal(np.asarray(out)[:, ::250], np.repeat([[1], [2], [3], [4]], 4, 1))
    out2 = xp.zeros((4, 10), dtype=xp.float32)
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda i: np.asarray(out2[i]).__setitem__(slice(None), i + 5), range(4)))
        np.testing.assert_array_equal(np.asarray(out2)[:, 0], [5, 6, 7, 8])  # workers alive
        np.testing.assert_array_equal(np.asarray(xp.sum(out2, axis=1)), [50, 60, 70, 80])


def test_a_thread_filling_its_copy_keeps_its_lease_while_another_lends():
    """SciPy's TestThreading: four threads each fill a row of one output through
    np.asarray(out[i]), in compiled code that holds a writable view of its copy while it
    runs. Another thread's copy of another row must not end that lease (its writes would
    be lost: rows of zeros, found by SciPy's test_correlate)."""
    out = xp.zeros((2, 8), dtype=xp.float32)
    lent, go = threading.Event(), threading.Event()

    def fill():
        view = memoryview(np.asarray(out[0]))  # as Cython's typed memoryview, held
        lent.set()
        go.wait(10)
        view[:4] = memoryview(np.full(4, 3.0, np.float32))

    t = threading.Thread(target=fill)
    t.start()
    lent.wait(10)
    np.asarray(out[1])[:] = 5.0  # this thread's copy of another row, meanwhile
    go.set()
    t.join()
    np.testing.assert_array_equal(np.asarray(out + 0), [[3, 3, 3, 3, 0, 0, 0, 0], [5] * 8])


@given(CASES)
def test_requested_host_copies_are_writable_and_their_own(case):
    a, x = case
    for h in (np.array(x), np.asarray(x, copy=True), np.array(x, dtype=np.complex128),
              np.from_dlpack(x, copy=True)):
        assert h.flags.writeable
        np.testing.assert_array_equal(h, a.astype(h.dtype))
        if h.size:
            h.reshape(-1)[0] = 1  # the caller's copy: writing it leaves x alone
    np.testing.assert_array_equal(np.asarray(x), a)


def test_no_copy_raises():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="copy"):
        np.asarray(x, copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        np.from_dlpack(x, copy=False)


def test_cupy_copies():
    """CuPy's get() and asnumpy() hand the caller a writable copy (CuPy's contract); the
    implicit np.asarray of an ndarray is lent like the namespace array's."""
    c = cp.asarray([[1.0, 2.0], [3.0, 4.0]])
    for h in (c.get(), cp.asnumpy(c), np.array(c)):
        assert h.flags.writeable
        h[0, 0] = 9.0
    np.testing.assert_array_equal(c.get(), [[1.0, 2.0], [3.0, 4.0]])
    lent = np.asarray(c)
    lent[1, 1] = 5.0
    np.testing.assert_array_equal(c.get(), [[1.0, 2.0], [3.0, 5.0]])
    c[1, 1] = 4.0  # an operation: the lease closes (a readback such as get() leaves it open)
    _assert_refuses_writes(lent)
    target = np.zeros((2, 2), dtype=np.float32)
    assert c.get(out=target) is target
    np.testing.assert_array_equal(target, [[1.0, 2.0], [3.0, 4.0]])
    host = np.array([1.0, 2.0])
    assert cp.asnumpy(host) is host  # a NumPy array passes through, as in CuPy


def test_legacy_dlpack_capsule_read_only_in_numpy():
    """A consumer that asks for no version gets the legacy capsule, which has no flags; NumPy
    makes such an array read-only anyway."""
    x = xp.asarray([1, 2, 3])

    class Legacy:
        def __dlpack__(self, **kwargs):
            return x.__dlpack__(dl_device=(1, 0))

        def __dlpack_device__(self):
            return (1, 0)

    _assert_refuses_writes(np.from_dlpack(Legacy()))
