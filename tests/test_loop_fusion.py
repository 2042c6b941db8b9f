"""Whole-loop fusion (src/webarray/_core/fold.py): a Python loop over whole arrays becomes
one kernel that loops, with the same values bit for bit as the loop run op by op.

Kernel counts come from ``launch.launches``; values are compared with NumPy float32 (and
int32/uint8 wrapping) and with the same loop run with fusion off, bit for bit, NaN
payloads included.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
import webarray.cupy as cp
from webarray._core import fold, graph

from helpers import launches_during


@pytest.fixture(autouse=True)
def fused(monkeypatch):
    # each test starts with no backoff left from another's chains that did not repeat
    monkeypatch.setattr(fold, "_skip", 0)
    monkeypatch.setattr(fold, "_backoff", 0)
    with xp.fusion.enabled(True):
        yield


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint8) if a.dtype == np.bool_ else a.view(f"u{a.dtype.itemsize}")


def mandelbrot(mod, real, imag, iters):
    """The NumPy-style escape-count loop, for any namespace (NumPy, webarray)."""
    zr = mod.zeros_like(real)
    zi = mod.zeros_like(imag)
    counts = mod.zeros(real.shape, dtype=mod.int32)
    for _ in range(iters):
        zr2 = zr * zr
        zi2 = zi * zi
        alive = zr2 + zi2 <= 4.0
        counts = counts + mod.astype(alive, mod.int32) if mod is xp else counts + alive
        zi, zr = (mod.where(alive, 2.0 * zr * zi + imag, zi),
                  mod.where(alive, zr2 - zi2 + real, zr))
    return counts, zr, zi


def grid(size):
    x = np.linspace(-2.0, 0.6, size, dtype=np.float32)
    y = np.linspace(-1.3, 1.3, size, dtype=np.float32)
    return np.meshgrid(x, y)


@pytest.mark.parametrize("iters", [1, 9, 40, 300])
def test_a_mandelbrot_loop_is_one_kernel_with_numpys_values(iters):
    re, im = grid(24)
    real, imag = xp.asarray(re), xp.asarray(im)
    xp.fusion.flush(real, imag)

    def run():
        return [np.asarray(v) for v in mandelbrot(xp, real, imag, iters)]

    got, n = launches_during(run)
    with np.errstate(all="ignore"):
        want = mandelbrot(np, re, im, iters)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(bits(g), bits(w))
    assert n == 1  # however many iterations: the loop is folded, the state read once
    with xp.fusion.enabled(False):
        eager = [np.asarray(v) for v in mandelbrot(xp, real, imag, iters)]
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(bits(g), bits(e))


def test_a_loop_compiles_once_whatever_its_count():
    # the iterations since the last fold join the loop before it is computed, so the kernel
    # is the same for every count past the first folds
    re, im = grid(16)
    real, imag = xp.asarray(re), xp.asarray(im)
    xp.fusion.flush(real, imag)
    device = real.device
    np.asarray(mandelbrot(xp, real, imag, 90)[0])
    before = len(device._kernels)
    for iters in range(91, 111):
        got = np.asarray(mandelbrot(xp, real, imag, iters)[0])
        np.testing.assert_array_equal(got, mandelbrot(np, re, im, iters)[0])
    assert len(device._kernels) - before <= 1


def test_a_loops_matcher_is_compiled_once_per_structure_and_scalars(monkeypatch):
    """The fold's matcher (Python compiled per loop body) is kept by the body's structure and
    its outside scalars' values: calling the same loop again over other arrays compiles none,
    a loop that differs only in a scalar compiles its own, and each keeps NumPy's values."""
    compiled = []
    real_compile = fold._compile_matcher
    monkeypatch.setattr(fold, "_compile_matcher", lambda body: compiled.append(1) or real_compile(body))
    monkeypatch.setattr(fold, "_MATCHERS", {})

    def run(x, a, b, n=120):
        for _ in range(n):
            x = x * a + b
        return x

    xn = np.linspace(-1, 1, 40, dtype=np.float32)
    for a, b, calls, made in [(0.5, 1.0, 3, 1), (0.25, 1.0, 2, 2)]:
        for k in range(calls):
            got = np.asarray(run(xp.asarray(xn + k), a, b))
            np.testing.assert_array_equal(got, run(xn + np.float32(k), np.float32(a), np.float32(b)))
        assert len(compiled) == made


def test_the_cupy_example_runs_as_one_kernel():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from mandelbrot_numpy_style import mandelbrot as example

    re, im = grid(32)
    real, imag = cp.asarray(re), cp.asarray(im)
    cp.asnumpy(real + imag)
    got, n = launches_during(lambda: cp.asnumpy(example(real, imag, 200)))
    assert n == 1
    np.testing.assert_array_equal(got, example(re, im, 200))


def test_a_loop_over_pending_inputs_reads_them_as_they_are():
    # c and the grid are pending when the loop starts: every iteration reads the same nodes
    # (made before the loop), which the loop reads from outside, once
    zn = np.linspace(-1.5, 0.5, 48, dtype=np.float32)
    base = xp.asarray(zn)

    def run():
        c = base * 0.5 - 0.25
        w = xp.abs(base) + 1.0
        z = xp.zeros_like(c)
        for _ in range(120):
            z = xp.minimum(z * z + c, w)
        return np.asarray(z)

    got, n = launches_during(run)
    c = zn * np.float32(0.5) - np.float32(0.25)
    w = np.abs(zn) + np.float32(1.0)
    z = np.zeros_like(c)
    for _ in range(120):
        z = np.minimum(z * z + c, w)
    np.testing.assert_array_equal(got, z)
    assert n == 1


# -- random loop bodies over edge values ----------------------------------------------------

EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38,
         -3.4028235e38, 1.0, -1.0, 0.5, 2.0, 1e-30]
SCALARS = st.sampled_from([0.0, -0.0, 0.5, -2.0, 3.0, np.inf, -np.inf, np.nan, 1e-40, 1e30])
# ops IEEE 754 rounds correctly, so NumPy's values are exact references. Not copysign: the
# sign of a NaN an op makes (sqrt(-1)) is the platform's (x86's negative, a GPU's positive),
# and copysign carries it into a number; not hypot (within an ulp of NumPy's, not equal)
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "nextafter"]
UNARY = ["negative", "abs", "sqrt", "floor"]

step = st.one_of(
    st.tuples(st.just("bin"), st.sampled_from(BINARY), st.integers(0, 4), st.integers(0, 4)),
    st.tuples(st.just("sc"), st.sampled_from(["add", "multiply", "maximum"]), st.integers(0, 4),
              SCALARS),
    st.tuples(st.just("un"), st.sampled_from(UNARY), st.integers(0, 4), st.just(0)),
    st.tuples(st.just("where"), st.sampled_from(["less", "greater_equal", "equal"]),
              st.integers(0, 4), st.integers(0, 4)),
)


def run_body(mod, state, consts, body, iters):
    """Each step sets state[k % len(state)] from the states and consts (operands 0..4 index
    the states, then the consts, cyclically)."""
    state = list(state)
    for _ in range(iters):
        for k, (kind, op, i, j) in enumerate(body):
            pool = state + consts
            a = pool[i % len(pool)]
            if kind == "bin":
                v = getattr(mod, op)(a, pool[j % len(pool)])
            elif kind == "sc":
                v = getattr(mod, op)(a, mod.asarray(j, dtype=mod.float32)) if mod is np else (
                    a + j if op == "add" else a * j if op == "multiply" else mod.maximum(a, j))
            elif kind == "un":
                v = getattr(mod, op)(a)
            else:
                b = pool[j % len(pool)]
                v = mod.where(getattr(mod, op)(a, b), a, b)
            state[k % len(state)] = v
    return state


@settings(max_examples=25, deadline=None)
@given(states=st.integers(1, 3), body=st.lists(step, min_size=1, max_size=5),
       iters=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_random_loops_fold_to_numpys_values_bit_for_bit(states, body, iters, seed):
    rng = np.random.default_rng(seed)
    size = 37

    def values():
        v = rng.standard_normal(size).astype(np.float32)
        v[rng.integers(0, size, 12)] = rng.choice(np.array(EDGES, np.float32), 12)
        return v

    init = [values() for _ in range(states)]
    consts = [values() for _ in range(2)]
    with np.errstate(all="ignore"):
        want = run_body(np, [np.float32(1) * v for v in init],
                        [v.copy() for v in consts], body, iters)
    arrays = [xp.asarray(v) for v in init]
    cargs = [xp.asarray(v) for v in consts]
    got = [np.asarray(v) for v in run_body(xp, arrays, cargs, body, iters)]
    with xp.fusion.enabled(False):
        eager = [np.asarray(v) for v in run_body(xp, arrays, cargs, body, iters)]
    for g, e, w in zip(got, eager, want):
        # fused loop and eager: the same bits, but for the sign of a NaN (a fused kernel's
        # compiler may give -NaN's sign to NaN: IEEE 754 leaves it open, as NumPy does)
        number = ~np.isnan(e)
        np.testing.assert_array_equal(np.isnan(g), ~number)
        np.testing.assert_array_equal(bits(g)[number], bits(e)[number])
        np.testing.assert_array_equal(g, w)  # NumPy: the same values
        assert (np.signbit(g) == np.signbit(w))[~np.isnan(w)].all()


# -- loops that must not fold, or not entirely -----------------------------------------------

def test_after_chains_that_do_not_repeat_folding_backs_off_then_resumes():
    xn = np.linspace(-1, 1, 50, dtype=np.float32)
    x = xp.asarray(xn)
    attempts = []
    real = fold._fold_dag

    def counting(arr, roots):
        attempts.append(real(arr, roots))
        return attempts[-1]

    fold._fold_dag = counting
    try:
        y = x
        for i in range(40 * 32):  # a scalar that changes: 40 chains cut at the depth bound
            y = y + float(i)
        np.asarray(y)
        assert 0 < len(attempts) <= 10 and not any(attempts)  # 1 + 2 + 4 + 8 + 8 ... skipped
        fold._skip = fold._backoff = 0
        attempts.clear()

        def loop():
            z = x
            for _ in range(300):
                z = z * 0.5 + 0.25
            return np.asarray(z)

        got, n = launches_during(loop)
        assert any(attempts) and n == 1
    finally:
        fold._fold_dag = real


def test_a_loop_whose_scalar_changes_is_computed_not_folded():
    xn = np.linspace(-1, 1, 50, dtype=np.float32)
    x = xp.asarray(xn)

    def run():
        y = x
        for i in range(200):
            y = y * 0.5 + float(i)
        return np.asarray(y)

    got, n = launches_during(run)
    y = xn
    for i in range(200):
        y = y * np.float32(0.5) + np.float32(i)
    np.testing.assert_array_equal(got, y)
    assert n > 1


@pytest.mark.parametrize("change", ["scalar", "op", "operand", "none"])
def test_a_continuation_that_changes_after_the_loop_folded_keeps_its_values(change):
    """The nodes made after a loop are matched against its body a period at a time
    (``Body.matcher``, code written per body): a period that differs in a scalar's value, an
    op or the state it reads ends the match there, and every value stays NumPy's."""
    xn = np.linspace(-2, 2, 40, dtype=np.float32)
    zn = np.linspace(1, 3, 40, dtype=np.float32)
    x, z = xp.asarray(xn), xp.asarray(zn)

    def step(a, b, i, np_side):
        if i >= 150 and change == "scalar":
            return a * 0.5 + b * 0.25, b * 0.75 + 1.0
        if i >= 150 and change == "op":
            return a * 0.5 - b * 0.125, b * 0.75 + 1.0
        if i >= 150 and change == "operand":
            return a * 0.5 + a * 0.125, b * 0.75 + 1.0
        return a * 0.5 + b * 0.125, b * 0.75 + 1.0

    a, b = x, z
    kept = []
    for i in range(300):
        a, b = step(a, b, i, False)
        if i % 37 == 0:
            kept.append(a)
    got = np.asarray(a), np.asarray(b), [np.asarray(k) for k in kept]
    with np.errstate(all="ignore"):
        a, b = xn, zn
        want = []
        for i in range(300):
            f = np.float32
            if i >= 150 and change == "scalar":
                a, b = a * f(0.5) + b * f(0.25), b * f(0.75) + f(1.0)
            elif i >= 150 and change == "op":
                a, b = a * f(0.5) - b * f(0.125), b * f(0.75) + f(1.0)
            elif i >= 150 and change == "operand":
                a, b = a * f(0.5) + a * f(0.125), b * f(0.75) + f(1.0)
            else:
                a, b = a * f(0.5) + b * f(0.125), b * f(0.75) + f(1.0)
            if i % 37 == 0:
                want.append(a)
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], b)
    for g, w in zip(got[2], want):
        np.testing.assert_array_equal(g, w)


def test_every_iteration_the_caller_keeps_keeps_its_value():
    xn = np.linspace(-3, 3, 64, dtype=np.float32)
    x = xp.asarray(xn)
    history, y = [], x
    for _ in range(120):
        y = y * 0.75 + 0.5
        history.append(y)
    want, v = [], xn
    for _ in range(120):
        v = v * np.float32(0.75) + np.float32(0.5)
        want.append(v)
    for g, w in zip(history[::-1], want[::-1]):
        np.testing.assert_array_equal(np.asarray(g), w)


@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_integer_loops_wrap_as_numpy(dtype):
    xn = np.arange(-20, 20).astype(dtype)
    x = xp.asarray(xn)

    def run():
        y = x
        for _ in range(150):
            y = y * 3 + 1
        return np.asarray(y)

    got, n = launches_during(run)
    y = xn
    for _ in range(150):
        y = y * np.asarray(3, dtype) + np.asarray(1, dtype)
    np.testing.assert_array_equal(got, y)
    assert n == 1


def test_a_loop_past_max_count_runs_as_several_loops(monkeypatch):
    monkeypatch.setattr(fold, "MAX_COUNT", 25)
    xn = np.linspace(0, 1, 40, dtype=np.float32)
    x = xp.asarray(xn)

    def run():
        y = x
        for _ in range(400):
            y = xp.sqrt(y * y + 0.25) - 0.5
        return np.asarray(y)

    got, n = launches_during(run)
    y = xn
    for _ in range(400):
        y = np.sqrt(y * y + np.float32(0.25)) - np.float32(0.5)
    np.testing.assert_array_equal(got, y)
    assert 400 // 25 // 2 <= n < 400 // 4


def test_loops_in_several_threads_keep_their_own_values():
    errors = []

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            an = rng.standard_normal(300).astype(np.float32)
            a = xp.asarray(an)
            y, w = a, an
            for _ in range(80 + seed):
                y = xp.where(y > 0, y * 0.9, y + 0.01 * seed)
                w = np.where(w > 0, w * np.float32(0.9), w + np.float32(0.01 * seed))
            np.testing.assert_array_equal(np.asarray(y), w)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_complex_loops_fold_with_eagers_bits():
    zn = (np.linspace(-1, 1, 30) + 0.3j).astype(np.complex64)
    c = xp.asarray(zn)

    def run():
        z = xp.zeros_like(c)
        for _ in range(60):
            z = z * z + c
            z = xp.where(xp.abs(z) > 2.0, 2.0 + 0j, z)
        return np.asarray(z)

    got, n = launches_during(run)
    with xp.fusion.enabled(False):
        eager = run()
    np.testing.assert_array_equal(bits(got), bits(eager))
    assert n == 1


def test_jit_records_the_folded_loop():
    re, im = grid(16)
    real, imag = xp.asarray(re), xp.asarray(im)
    step = xp.jit(lambda r, i: mandelbrot(xp, r, i, 50)[0])
    first = np.asarray(step(real, imag))
    again = np.asarray(step(real, imag))
    want = mandelbrot(np, re, im, 50)[0]
    np.testing.assert_array_equal(first, want)
    np.testing.assert_array_equal(again, want)


def test_computing_after_a_loop_looks_only_at_each_arrays_own_dag(monkeypatch):
    # once a loop was folded, each computed array's DAG is checked for its continuation;
    # scanning every pending array of the shape there made a flush of n arrays O(n^2)
    monkeypatch.setattr(fold, "made", True)
    scans = []
    real = graph._same_shape
    monkeypatch.setattr(graph, "_same_shape", lambda arr: scans.append(arr) or real(arr))
    a = xp.asarray(np.arange(16, dtype=np.float32))
    keep = [a + float(i) for i in range(200)]
    xp.fusion.flush(*keep)
    assert not scans
    np.testing.assert_array_equal(np.asarray(keep[-1]), np.arange(16, dtype=np.float32) + 199)


def test_a_loop_kept_pending_from_before_does_not_stop_the_next_from_extending(monkeypatch):
    # a previous call's pending result reads its loop's state; the next call's loop is still
    # extended period by period, not searched for again at every bound (which made the second
    # call of the Mandelbrot benchmark ~70 searches slower than the first)
    re, im = grid(16)
    real, imag = xp.asarray(re), xp.asarray(im)
    xp.fusion.flush(real, imag)
    kept = mandelbrot(xp, real, imag, 200)  # pending: reads the first loop's state
    searched = []
    made = fold._fold
    monkeypatch.setattr(fold, "_fold", lambda *a: searched.append(1) or made(*a))
    again = mandelbrot(xp, real, imag, 200)
    assert len(searched) == 1  # the new loop; its continuations are extensions
    assert all(v._b is None for v in kept)  # (the first call's results were still pending)
    want = mandelbrot(np, re, im, 200)
    for got in (kept, again):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(bits(np.asarray(g)), bits(w))


def test_a_loops_continuation_is_read_from_the_nodes_made_since_without_a_walk(monkeypatch):
    """After a loop is folded, the nodes made since are kept in the order made
    (``fold.recent``): each later fold matches them against the body without walking the
    pending DAG (the walk and its sort were a third of a fold's cost)."""
    re, im = grid(16)
    real, imag = xp.asarray(re), xp.asarray(im)
    xp.fusion.flush(real, imag)
    walks = []
    walk = fold._pending_nodes
    monkeypatch.setattr(fold, "_pending_nodes", lambda roots: walks.append(1) or walk(roots))
    got = mandelbrot(xp, real, imag, 300)
    folds = len(walks)
    want = mandelbrot(np, re, im, 300)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(bits(np.asarray(g)), bits(w))
    assert folds <= 2  # the search that made the loop (and a compute's extend), not ~40
    # the same loop with the shortcut off walks at every fold, to the same bits
    walks.clear()
    monkeypatch.setattr(fold, "_continue", lambda arr: None)
    again = mandelbrot(xp, real, imag, 300)
    assert len(walks) > 20
    for g, w in zip(again, want):
        np.testing.assert_array_equal(bits(np.asarray(g)), bits(w))


def test_no_node_kept_since_a_fold_outlives_the_next_buffer_allocation():
    """``fold.recent`` holds nodes that may be dead (a temporary the loop's caller dropped),
    and through their leaves the buffers those read: a buffer allocation forgets them first,
    so no buffer lives longer than it would without the shortcut when memory is asked for."""
    import gc
    import weakref
    y = xp.asarray(np.linspace(0, 1, 64, dtype=np.float32))
    for _ in range(100):
        y = y * 0.5 + 0.25
    assert fold.made and fold._last is not None
    big = xp.asarray(np.ones(64, dtype=np.float32))
    held = weakref.ref(big._buf)
    t = y * big  # a node over the loop's state and big's leaf: kept in fold.recent
    assert any(n is t._lazy for n in fold.recent)
    del t, big
    gc.collect()
    assert held() is not None  # (what the shortcut holds)
    xp.zeros(8)  # any allocation
    assert held() is None and not fold.recent and fold._last is None
    want = np.linspace(0, 1, 64, dtype=np.float32)
    for _ in range(100):
        want = want * np.float32(0.5) + np.float32(0.25)
    np.testing.assert_array_equal(np.asarray(y), want)


def test_a_loop_over_signed_zero_scalars_keeps_each_zeros_sign():
    """Equal nonzero scalars share one node (so a loop's iterations read the same node and
    the matcher compares by identity), 0.0 and -0.0 do not: a body alternating them is a
    period of two, not one, and every result keeps NumPy's sign bits."""
    xn = np.linspace(-2, 2, 32, dtype=np.float32)
    x = xp.asarray(xn)
    y, want = x, xn
    for i in range(200):
        s = -0.0 if i % 2 else 0.0
        y = (y + 1.0) * s
        want = (want + np.float32(1.0)) * np.float32(s)
    np.testing.assert_array_equal(bits(np.asarray(y)), bits(want))
    assert (np.signbit(np.asarray(y)) == np.signbit(want)).all()


@pytest.mark.parametrize("between", ["dropped temporary", "other shape loop", "both"])
def test_loops_interleaved_with_other_work_keep_numpys_bits(between):
    """What is made between a loop's nodes (a temporary over its state that the caller
    drops, the iterations of another loop of another shape) breaks the run of ``recent``
    that a fold matches: the fold then walks the DAG as before, and every value stays
    NumPy's, the other loop's as well."""
    re, im = grid(12)
    real, imag = xp.asarray(re), xp.asarray(im)
    vn = np.linspace(-1, 1, 7, dtype=np.float32)
    v = xp.asarray(vn)
    xp.fusion.flush(real, imag, v)
    zr, zi = xp.zeros_like(real), xp.zeros_like(imag)
    nr, ni = np.zeros_like(re), np.zeros_like(im)
    dropped = 0.0
    for i in range(150):
        zr, zi = zr * zr - zi * zi + real, 2.0 * zr * zi + imag
        with np.errstate(all="ignore"):
            nr, ni = nr * nr - ni * ni + re, np.float32(2.0) * nr * ni + im
        if between in ("dropped temporary", "both"):
            t = zr * 0.5 + 1.0  # over the state; gone at the next iteration
            if i == 149:
                dropped = np.asarray(t)
        if between in ("other shape loop", "both"):
            v = v * 0.75 + 0.125
            vn = vn * np.float32(0.75) + np.float32(0.125)
    np.testing.assert_array_equal(bits(np.asarray(zr)), bits(nr))
    np.testing.assert_array_equal(bits(np.asarray(zi)), bits(ni))
    np.testing.assert_array_equal(bits(np.asarray(v)), bits(vn))
    if between != "other shape loop":
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(bits(dropped), bits(nr * np.float32(0.5) + np.float32(1.0)))
