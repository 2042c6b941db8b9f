"""Lazy elementwise fusion (src/webarray/_core/graph.py): fewer kernels, the same values.

Kernel counts come from ``launch.launches`` (elementwise kernels dispatched so far); values
are compared with NumPy float32. Every test also runs when the suite is run with
``WEBARRAY_FUSION=0``: the counting tests then turn fusion on for themselves.

The special-value tests at the end hold fused kernels to IEEE 754 where a compiler would
rather do algebra: ``t - t``, ``x / x``, ``x == x`` and friends over NaN, ±inf, ±0 and
subnormals must come out of one fused kernel exactly as from one kernel per op and as from
NumPy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray._core import graph as _graph

from helpers import assert_equal, launches_during


@pytest.fixture(autouse=True)
def fused():
    with xp.fusion.enabled(True):
        yield


def rand(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_a_ten_op_chain_is_one_kernel():
    an, bn = rand((64, 33), 1), rand((64, 33), 2)
    a, b = xp.asarray(an), xp.asarray(bn)
    xp.fusion.flush(a, b)

    def chain():
        y = a * 2.0 + b
        y = xp.sin(y) * xp.cos(b) - a / 3.0
        y = xp.where(y > 0, y, -y) + xp.abs(b)
        return np.asarray(y)

    got, n = launches_during(chain)
    assert n == 1
    y = an * np.float32(2.0) + bn
    y = np.sin(y) * np.cos(bn) - an / np.float32(3.0)
    y = np.where(y > 0, y, -y) + np.abs(bn)
    np.testing.assert_allclose(got, y, rtol=2e-6, atol=1e-6)


def test_a_software_function_is_computed_in_a_kernel_of_its_own(monkeypatch):
    # float64's transcendental functions are ~20 KB of WGSL each, inlined per call: each new
    # expression around one took lavapipe seconds to compile. A call is computed alone, from
    # computed arguments, so its kernel is the same whatever surrounds it. Here float32's
    # stand in for them (the same rule, cheap to compile): exps and a sine in one expression,
    # nested and shared, with the other pending arrays a kernel would take along
    from webarray.kernels.expr import Apply, Cast

    monkeypatch.setattr(_graph, "_WIDE_FLOATS", frozenset({xp.float32}))
    kernels = []
    launch = _graph._launch

    def recorded(device, shape, outputs, *rest):
        kernels.append([node for node, _ in outputs])
        return launch(device, shape, outputs, *rest)

    monkeypatch.setattr(_graph, "_launch", recorded)
    an = rand((40, 3), 7)
    a = xp.asarray(an)
    xp.fusion.flush(a)

    def expr(m):
        y, keep = m.sin(a), []
        for k in range(4):
            keep.append(y)
            y = y * 0.5 + m.exp(a * (0.25 * k) + m.exp(y))
        return y, keep

    with xp.fusion.enabled(False):
        want = [np.asarray(z) for z in [expr(xp)[0]] + expr(xp)[1]]
    kernels.clear()
    got, keep = expr(xp)
    got = [np.asarray(z) for z in [got] + keep]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)  # bit for bit the unfused results
    calls = 0
    for outputs in kernels:
        stack, seen, heavy = list(outputs), set(), []
        while stack:
            n = stack.pop()
            if id(n) not in seen:
                seen.add(id(n))
                if isinstance(n, Apply) and n.op in ("exp", "sin"):
                    heavy.append(n)
                stack.extend(n.args if isinstance(n, Apply) else
                             (n.arg,) if isinstance(n, Cast) else ())
        if heavy:  # the call alone: one output, over inputs and scalars only
            assert len(heavy) == 1 and outputs == heavy, outputs
            assert not any(isinstance(x, (Apply, Cast)) for x in heavy[0].args), outputs
        calls += len(heavy)
    assert calls == 9, kernels  # one sine, eight exps, each computed once
    # the same call twice in one expression is computed once, as fused it was
    with xp.fusion.enabled(False):
        want = np.asarray(xp.exp(a * 0.5) * xp.exp(a * 0.5) + 1.0)
    kernels.clear()
    np.testing.assert_array_equal(np.asarray(xp.exp(a * 0.5) * xp.exp(a * 0.5) + 1.0), want)
    assert sum(isinstance(n, Apply) and n.op == "exp" for out in kernels for n in out) == 1, kernels


def test_a_shared_subexpression_is_computed_once_and_written_with_its_consumer():
    an, bn = rand((100,), 3), rand((100,), 4)
    a, b = xp.asarray(an), xp.asarray(bn)
    xp.fusion.flush(a, b)
    t = a * b
    u = t + 1.0
    v = t * 2.0
    _, n = launches_during(lambda: xp.fusion.flush(u))
    # one kernel writes u, t (alive, and a node of u's DAG) and v (pending, same shape)
    assert n == 1
    assert t._b is not None and v._b is not None
    _, n = launches_during(lambda: xp.fusion.flush(t, v))
    assert n == 0
    assert_equal(u, an * bn + np.float32(1))
    assert_equal(v, (an * bn) * np.float32(2))
    assert_equal(t, an * bn)


def test_in_place_updates_of_a_pending_array_stay_lazy():
    an = rand((7, 5), 5)
    a = xp.asarray(an)
    xp.fusion.flush(a)

    def loop():
        x = xp.zeros((7, 5))
        for _ in range(20):
            x += a
        return np.asarray(x)

    got, n = launches_during(loop)
    assert n == 1
    want = np.zeros((7, 5), np.float32)
    for _ in range(20):
        want += an
    np.testing.assert_array_equal(got, want)


def test_in_place_on_the_only_view_of_a_buffer_rebinds_without_changing_readers():
    x = xp.asarray(np.arange(6, dtype=np.float32))
    xp.fusion.flush(x)
    y = x * 10.0  # pending, reads x's buffer
    x += 1.0  # x is its buffer's only view: x gets a new pending value
    assert x._b is None
    assert_equal(y, np.arange(6, dtype=np.float32) * 10)
    assert_equal(x, np.arange(6, dtype=np.float32) + 1)


def test_a_write_through_a_view_is_seen_by_the_base_and_not_by_earlier_results():
    x = xp.asarray(np.arange(8, dtype=np.int32))
    y = x * 3  # pending: reads x before the writes below
    v = x[2:6]
    v += 100  # x has another view: written in place, after y's inputs are safe
    x[0] = -5
    assert_equal(y, np.arange(8, dtype=np.int32) * 3)
    want = np.arange(8, dtype=np.int32)
    want[2:6] += 100
    want[0] = -5
    assert_equal(x, want)
    assert_equal(v, want[2:6])


def test_setitem_on_a_pending_array_and_reads_in_between():
    x = xp.arange(10, dtype=xp.float32) * 2.0
    z = x + 1.0
    x[3] = 100.0
    x[xp.asarray([1, 2])] = -1.0
    want = np.arange(10, dtype=np.float32) * 2
    assert_equal(z, want + 1)
    want[3] = 100
    want[[1, 2]] = -1
    assert_equal(x, want)


def test_long_chains_are_cut_at_the_depth_bound():
    # a step's scalar changes with i, so the chain does not repeat and is not folded into a
    # loop (test_loop_fusion.py): it is computed every MAX_DEPTH ops
    an = rand((50,), 6)
    a = xp.asarray(an)
    xp.fusion.flush(a)

    def chain():
        y = a
        for i in range(10 * _graph.MAX_DEPTH):
            y = y * 0.5 + 0.25 if i % 2 else y - 0.125 * i
        return np.asarray(y)

    got, n = launches_during(chain)
    ops = 10 * _graph.MAX_DEPTH * 3 // 2  # one or two ops per step
    assert ops // (_graph.MAX_DEPTH + 1) <= n <= ops // _graph.MAX_DEPTH + 1
    y = an
    for i in range(10 * _graph.MAX_DEPTH):
        y = y * np.float32(0.5) + np.float32(0.25) if i % 2 else y - np.float32(0.125 * i)
    np.testing.assert_array_equal(got, y)


@pytest.mark.parametrize("limit", [4, 16])
def test_many_inputs_stay_within_the_binding_limit(monkeypatch, limit):
    monkeypatch.setattr(_graph, "MAX_BINDINGS", limit)
    arrays = [rand((31,), 10 + i) for i in range(40)]
    xs = [xp.asarray(a) for a in arrays]
    acc, want = xs[0], arrays[0].copy()
    for x, a in zip(xs[1:], arrays[1:]):
        acc = acc * 0.5 + x
        want = want * np.float32(0.5) + a
    assert_equal(acc, want)
    # and a DAG with many leaves at a small depth: a balanced tree of sums
    level = xs[:16]
    while len(level) > 1:
        level = [level[i] + level[i + 1] for i in range(0, len(level), 2)]
    tree = [a.copy() for a in arrays[:16]]
    while len(tree) > 1:
        tree = [tree[i] + tree[i + 1] for i in range(0, len(tree), 2)]
    assert_equal(level[0], tree[0])


def test_a_pending_operand_that_broadcasts_is_computed_first():
    rn, cn = rand((1, 40), 20), rand((30, 1), 21)
    r = xp.asarray(rn) * 2.0  # pending, shape (1, 40)
    c = xp.asarray(cn) + 1.0  # pending, shape (30, 1)
    grid = r * c  # (30, 40): r and c are computed once each, not per element
    assert_equal(grid, (rn * np.float32(2)) * (cn + np.float32(1)))


def mandelbrot(xp_, re, im, iters):
    zr = xp_.zeros_like(re)
    zi = xp_.zeros_like(re)
    count = xp_.zeros(re.shape, dtype=xp_.int32)
    for _ in range(iters):
        zr, zi = zr * zr - zi * zi + re, 2.0 * zr * zi + im
        count += xp_.astype(zr * zr + zi * zi < 4.0, xp_.int32)
    return count


def test_the_numpy_style_mandelbrot_loop_fuses_and_matches_numpy():
    y, x = np.mgrid[-1.2:1.2:48j, -2.0:0.8:64j]
    re, im = x.astype(np.float32), y.astype(np.float32)
    want = mandelbrot(np, re, im, 60)
    got, n = launches_during(
        lambda: np.asarray(mandelbrot(xp, xp.asarray(re), xp.asarray(im), 60)))
    np.testing.assert_array_equal(got, want)
    assert n <= 60 * 10 // _graph.MAX_DEPTH + 3  # ~10 ops per iteration, not 10 kernels


def test_a_loop_compiles_its_kernel_once():
    a = xp.asarray(rand((16,), 30))
    xp.fusion.flush(a)
    device = a.device

    def step():
        y = (a * 3.0 + 1.0) / (a * a + 2.0)
        xp.fusion.flush(y)

    step()
    step()
    known = len(device._kernels)
    for _ in range(5):
        step()
    assert len(device._kernels) == known


def test_switching_fusion_off_computes_pending_arrays_and_runs_ops_one_by_one():
    a = xp.asarray(rand((9,), 40))
    xp.fusion.flush(a)
    y = a + 1.0
    with xp.fusion.enabled(False):
        assert y._b is not None
        _, n = launches_during(lambda: xp.fusion.flush(a * 2.0 + 1.0))
        assert n == 2
    assert xp.fusion.is_enabled()


def test_a_kernel_that_fails_at_flush_leaves_the_device_working():
    a = xp.asarray(rand((5,), 50))
    with pytest.raises(TypeError):
        xp.bitwise_and(a, a)  # argument errors are raised at the call, not at the flush
    y = a + 1.0
    assert_equal(y, np.asarray(a) + np.float32(1))


UNARY = {"neg": (lambda m, v: -v), "sq": (lambda m, v: v * v),
         "sin": (lambda m, v: m.sin(v)), "abs": (lambda m, v: m.abs(v))}
BINARY = {"add": (lambda m, v, w: v + w), "sub": (lambda m, v, w: v - w),
          "mul": (lambda m, v, w: v * w),
          "max": (lambda m, v, w: m.maximum(v, w)),
          "where": (lambda m, v, w: m.where(v > w, v, w))}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(UNARY) + sorted(BINARY)),
                          st.integers(0, 100), st.integers(0, 100), st.booleans()),
                min_size=1, max_size=40),
       st.integers(1, 20))
def test_random_op_sequences_match_numpy(program, n):
    """Random DAGs over a few arrays: operands picked from everything built so far (so
    subexpressions are shared), sometimes an in-place update, sometimes a read midway."""
    rng = np.random.default_rng(n)
    base = [rng.uniform(-2, 2, n).astype(np.float32) for _ in range(3)]
    ours = [xp.asarray(b) for b in base]
    theirs = [b.copy() for b in base]
    for name, i, j, inplace in program:
        i, j = i % len(ours), j % len(ours)
        if name in UNARY:
            r1, r2 = UNARY[name](xp, ours[i]), UNARY[name](np, theirs[i])
        else:
            r1, r2 = BINARY[name](xp, ours[i], ours[j]), BINARY[name](np, theirs[i], theirs[j])
        r2 = np.clip(r2, -1e6, 1e6).astype(np.float32)  # keep values finite
        r1 = xp.clip(r1, -1e6, 1e6)
        if inplace:
            ours[i][...] = r1
            theirs[i][...] = r2
        else:
            ours.append(r1)
            theirs.append(r2)
        if i == 7:
            np.testing.assert_allclose(np.asarray(ours[-1]), theirs[-1], rtol=1e-5, atol=1e-5)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(o), t, rtol=1e-5, atol=1e-5)


def test_a_copy_is_independent_of_its_source():
    """A copy's node must be its own: computing the copy turns its node into a leaf of the
    copy's buffer, which must not become the source's value (scikit-learn's _logsumexp
    writes into a copy of a transposed view)."""
    t = xp.asarray([[1.0, 5.0], [4.0, 2.0]]).T
    c = xp.asarray(t, copy=True)
    c[0, 0] = -1.0
    assert_equal(t, np.asarray([[1.0, 4.0], [5.0, 2.0]], np.float32))
    assert_equal(c, np.asarray([[-1.0, 4.0], [5.0, 2.0]], np.float32))
    p = xp.asarray([1.0, 2.0]) * 3.0  # pending
    d = xp.astype(p, xp.float32, copy=True)
    e = xp.asarray(p, copy=True)
    d[0] = 100.0
    e += 1.0
    assert_equal(p, np.asarray([3.0, 6.0], np.float32))
    assert_equal(d, np.asarray([100.0, 6.0], np.float32))
    assert_equal(e, np.asarray([4.0, 7.0], np.float32))
    x = xp.asarray([1.0, 2.0]) + 0.0
    y = xp.empty_like(x)
    y[...] = x  # in place: y's value is x's, as a node of its own
    y += 1.0
    assert_equal(x, np.asarray([1.0, 2.0], np.float32))
    assert_equal(y, np.asarray([2.0, 3.0], np.float32))


def test_an_unsupported_dtype_is_refused_at_the_call():
    from webarray._core.device import Device

    off = Device(xp.__array_namespace_info__().default_device().executor, float64=False)
    x = xp.asarray([1.0, 2.0], device=off) * 2.0
    with pytest.raises(TypeError, match="float64"):
        xp.asarray(x, dtype=xp.float64)
    assert_equal(x, np.asarray([2.0, 4.0], np.float32))


def test_a_kernel_error_surfaces_where_its_array_is_needed(monkeypatch):
    """Computing one array also computes other pending arrays of its shape; if their shared
    kernel fails, the target is computed alone, and the failure comes from the array whose
    expression is broken."""
    import dataclasses

    from webarray.executors.protocol import KernelError
    from webarray.kernels import ops
    from webarray.kernels.expr import Apply, Input

    broken = dataclasses.replace(ops.TABLE["negative"], name="broken",
                                 wgsl={"f": "this_is_not_wgsl({0})"})
    monkeypatch.setitem(ops.TABLE, "broken", broken)
    monkeypatch.setitem(ops.KERNEL_OPS, "broken", broken)  # (the generators look ops up there)
    a = xp.asarray(rand((12,), 60))
    xp.fusion.flush(a)
    bad = _graph.execute(a.device, a.shape, [(Apply("broken", (Input(0, a.dtype),), a.dtype,
                                                    a.dtype), None)], [a])[0]
    good = a * 2.0
    assert_equal(good, np.asarray(a) * np.float32(2))
    with pytest.raises(KernelError, match="this_is_not_wgsl"):
        xp.fusion.flush(bad)
    assert_equal(a + 1.0, np.asarray(a) + np.float32(1))  # the device keeps working
    # a flush of everything (as before any in-place write) leaves the broken array pending
    # with its error, which comes back where that array is needed
    x = xp.asarray(rand((12,), 61))
    x[0] = 5.0
    xp.fusion.flush()
    with pytest.raises(KernelError, match="this_is_not_wgsl"):
        xp.fusion.flush(bad)
    del bad


def test_single_ops_over_pending_constants_and_rebound_inputs():
    """The one-op shortcut must read the operands as they were when the op was made."""
    a = xp.asarray(np.arange(4, dtype=np.float32))
    z = xp.zeros(4)  # pending: a scalar node, no buffer
    y = z + a
    assert_equal(y, np.arange(4, dtype=np.float32))
    w = a * 2.0
    a += 1.0  # a is its buffer's only view: rebinds, w still reads the old buffer
    assert_equal(w, np.arange(4, dtype=np.float32) * 2)
    assert_equal(a, np.arange(4, dtype=np.float32) + 1)


# -- IEEE special values through repeated subexpressions ----------------------------------------
# Values whose sums, products and quotients hit every special case: NaN (with the sign bit set,
# and with a payload), ±inf, ±0, subnormals, values that overflow when squared or doubled.
SPECIAL = np.array([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -1e-45,
                    3e38, -3e38, 1.0, -2.5, 0.1, 1.1754944e-38, 3.4028235e38], np.float32)
SPECIAL = np.concatenate([SPECIAL, np.array([0x7FC12345], np.uint32).view(np.float32)])


def _bits(a: np.ndarray) -> np.ndarray:
    """The 32-bit words of a float32 or complex64 array (real part first), or a bool array."""
    a = np.ascontiguousarray(a)
    return a if a.dtype == np.bool_ else a.view(np.uint32)


def assert_same_ieee(got: np.ndarray, want: np.ndarray) -> None:
    """got is NaN exactly where want is, and bit-identical everywhere else, so the signs of
    zeros and infinities and every subnormal count. A NaN's sign and payload are not compared:
    IEEE 754 leaves them open for invalid operations (NumPy on x86 makes -NaN, GPUs +NaN)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
        return
    g = got.view(np.float32) if got.dtype == np.complex64 else got
    w = want.view(np.float32) if want.dtype == np.complex64 else want
    nan = np.isnan(w)
    np.testing.assert_array_equal(np.isnan(g), nan, err_msg="NaN in different places")
    np.testing.assert_array_equal(_bits(g)[~nan], _bits(w)[~nan])


# Expressions in which a compiler that treats float algebra as exact (x - x = 0, x / x = 1,
# x == x, (x + y) - x = y, x * 0 = 0, a * b + c = fma(a, b, c)) changes the result.
REAL = {
    "x - x": lambda m, x, y: x - x,
    "x / x": lambda m, x, y: x / x,
    "x * 0": lambda m, x, y: x * 0.0,
    "x + (-x)": lambda m, x, y: x + (-x),
    "(-x) + x": lambda m, x, y: (-x) + x,
    "x == x": lambda m, x, y: x == x,
    "x != x": lambda m, x, y: x != x,
    "x >= x": lambda m, x, y: x >= x,
    "x * x - x * x": lambda m, x, y: x * x - x * x,
    "a = x * x; a - a": lambda m, x, y: (lambda a: a - a)(x * x),
    "x * 2 - 2 * x": lambda m, x, y: x * 2.0 - 2.0 * x,
    "x * y - y * x": lambda m, x, y: x * y - y * x,
    "(x + y) - (y + x)": lambda m, x, y: (x + y) - (y + x),
    "(x + y) - x": lambda m, x, y: (x + y) - x,
    "x - (x - y)": lambda m, x, y: x - (x - y),
    "(x * y) / (x * y)": lambda m, x, y: (x * y) / (x * y),
    "x * y + (-(x * y))": lambda m, x, y: x * y + (-(x * y)),
    "(x - x) * y": lambda m, x, y: (x - x) * y,
    "maximum(x, x) - minimum(x, x)": lambda m, x, y: m.maximum(x, x) - m.minimum(x, x),
    "where(x == x, x - x, x / x)": lambda m, x, y: m.where(x == x, x - x, x / x),
    "where(x < y, x, y) - where(y > x, x, y)":
        lambda m, x, y: m.where(x < y, x, y) - m.where(y > x, x, y),
    "c - c, c = inf everywhere": lambda m, x, y: (lambda c: c - c)(m.full_like(x, math.inf)),
}


def _cmul(a, b, c, d):
    """(a + bj)(c + dj) by the plain formula, which wa_cmul computes (NumPy's own complex64
    multiply contracts to FMAs on x86, so (3e38 + 3e38j)**2 has -inf or NaN real part there
    depending on the memory layout)."""
    return a * c - b * d, a * d + b * c


def _complex(re, im):
    return np.stack([re, im], axis=-1).view(np.complex64)[..., 0]


# complex64 expressions: (webarray expression over z, w and the real x, NumPy reference over
# the float32 parts z = a + bj, w = c + dj)
COMPLEX = {
    "z - z": (lambda z, w, x: z - z, lambda a, b, c, d: (a - a, b - b)),
    "z + (-z)": (lambda z, w, x: z + (-z), lambda a, b, c, d: (a + (-a), b + (-b))),
    "z == z": (lambda z, w, x: z == z, lambda a, b, c, d: (a == a) & (b == b)),
    "z != z": (lambda z, w, x: z != z, lambda a, b, c, d: ~((a == a) & (b == b))),
    "t = z * z; t - t": (lambda z, w, x: (lambda t: t - t)(z * z),
                         lambda a, b, c, d: (lambda p, q: (p - p, q - q))(*_cmul(a, b, a, b))),
    "z * w - w * z": (lambda z, w, x: z * w - w * z,
                      lambda a, b, c, d: tuple(u - v for u, v in zip(_cmul(a, b, c, d),
                                                                    _cmul(c, d, a, b)))),
    "complex(x) * w": (lambda z, w, x: xp.astype(x, xp.complex64) * w,
                       lambda a, b, c, d: _cmul(a, np.zeros_like(a), c, d)),
}


def _fused_and_eager(fn, view, *arrays):
    """fn over views of the arrays moved to the device, fused and op by op, as a NumPy array:
    the two must agree as assert_same_ieee says. Not in NaN payloads: which operand's NaN
    x + y passes on is the compiler's choice (it may swap the operands of a commutative
    op), so (-x) + x on x = NaN gives +NaN in one kernel and -NaN in another."""
    out = []
    for fuse in (True, False):
        with xp.fusion.enabled(fuse):
            out.append(np.asarray(fn(*(view(xp.asarray(a)) for a in arrays))))
    fused, eager = out
    assert_same_ieee(fused, eager)
    return fused


def _pairs(extra_x, extra_y):
    """Every pair of SPECIAL values, then the drawn values."""
    x = np.concatenate([np.repeat(SPECIAL, SPECIAL.size), np.asarray(extra_x, np.float32)])
    y = np.concatenate([np.tile(SPECIAL, SPECIAL.size), np.asarray(extra_y, np.float32)])
    return x, y


# contiguous and aligned (the vec4 path when the length is a multiple of 4), offset by one
# element, reversed (strided)
VIEWS = [lambda a: a, lambda a: a[1:], lambda a: a[::-1]]
_values = st.one_of(st.sampled_from(SPECIAL.tolist()), st.floats(width=32))
_extra = st.integers(0, 7).flatmap(lambda k: st.tuples(
    st.lists(_values, min_size=k, max_size=k), st.lists(_values, min_size=k, max_size=k)))


@pytest.mark.parametrize("name", sorted(REAL))
@settings(max_examples=4, deadline=None)
@given(_extra, st.sampled_from(VIEWS))
def test_special_values_survive_repeated_subexpressions(name, extra, view):
    x, y = _pairs(*extra)
    got = _fused_and_eager(lambda a, b: REAL[name](xp, a, b), view, x, y)
    with np.errstate(all="ignore"):
        want = np.asarray(REAL[name](np, view(x), view(y)))
    assert_same_ieee(got, want)


@pytest.mark.parametrize("name", sorted(COMPLEX))
@settings(max_examples=3, deadline=None)
@given(_extra, st.sampled_from(VIEWS))
def test_complex_special_values_survive_repeated_subexpressions(name, extra, view):
    a, b = _pairs(*extra)
    c, d = b[::-1].copy(), a[::-1].copy()
    ours, ref = COMPLEX[name]
    got = _fused_and_eager(ours, view, _complex(a, b), _complex(c, d), a)
    with np.errstate(all="ignore"):
        want = ref(*(view(v) for v in (a, b, c, d)))
    assert_same_ieee(got, want if isinstance(want, np.ndarray) else _complex(*want))


def test_equal_scalars_share_one_node_and_each_reading_its_own_slot():
    """The lazy graph makes one node per nonzero int or float scalar of a dtype (``_scalar``):
    ops over 2.5 read the same node. 0.0 and -0.0, and an int and a float of one value, are
    different nodes; a kernel that reads a shared node twice gets a slot per reading, so
    the values (and the kernel) are those of distinct scalars."""
    xn = np.linspace(-3, 3, 24, dtype=np.float32)
    x = xp.asarray(xn)
    a, b = x * 2.5, x + 2.5
    assert a._lazy.args[1] is b._lazy.args[1]
    z, nz = x * 0.0, x * -0.0
    assert z._lazy.args[1] is not nz._lazy.args[1]
    i, f = xp.asarray(np.arange(24, dtype=np.int32)) + 3, x + 3.0
    assert i._lazy.args[1] is not f._lazy.args[1]
    c = a * 2.5 - b * 2.5  # one DAG reading the shared node at three places
    assert_equal(c, (xn * np.float32(2.5)) * np.float32(2.5) - (xn + np.float32(2.5)) * np.float32(2.5))
    np.testing.assert_array_equal(np.signbit(np.asarray(z)), np.signbit(xn * np.float32(0.0)))
    np.testing.assert_array_equal(np.signbit(np.asarray(nz)), np.signbit(xn * np.float32(-0.0)))
    np.testing.assert_array_equal(np.asarray(i), np.arange(24, dtype=np.int32) + 3)
    # a fill of the same value is an array's own node, not the shared one: computing it
    # (its node turns into the leaf of its buffer) leaves what reads 2.5 reading 2.5
    shared = (x * 2.5)._lazy.args[1]
    for fill in (xp.full((3, 5), 2.5), xp.full(24, 2.5), xp.ones(4) * 0 + 2.5):
        d = x * 2.5
        np.asarray(fill)
        assert_equal(d, xn * np.float32(2.5))
    g = xp.zeros(24)
    d = x * 2.5
    g[...] = 2.5
    np.asarray(g)
    assert shared.kind == "scalar" and shared.value == 2.5
    assert (x * 2.5)._lazy.args[1] is shared
    assert_equal(d, xn * np.float32(2.5))
    assert_equal(x + 2.5, xn + np.float32(2.5))


def test_astype_is_a_lazy_cast_over_pending_and_computed_arrays():
    """astype takes the graph's one-op path (``graph.apply``): a pending cast node that fuses
    with its producer and consumer, and of a computed array alone, one kernel of exactly
    what eager runs."""
    xn = np.linspace(-3, 3, 40, dtype=np.float32)
    x = xp.asarray(xn)
    xp.fusion.flush(x)
    c = xp.astype(x, xp.int32)
    assert c._b is None and c._lazy.kind == "cast"
    got, n = launches_during(lambda: np.asarray(c))
    assert n == 1
    np.testing.assert_array_equal(got, xn.astype(np.int32))
    y = xp.astype(xp.astype(x * 2.0, xp.int16) + 1, xp.float32)
    got, n = launches_during(lambda: np.asarray(y))
    assert n == 1
    np.testing.assert_array_equal(got, ((xn * np.float32(2.0)).astype(np.int16) + 1).astype(np.float32))
    e = xp.astype(xp.asarray(np.zeros((0, 3), dtype=np.float32)), xp.int32)
    assert e.shape == (0, 3) and e.dtype == xp.int32


def test_repeated_in_place_ops_keep_each_writes_meaning():
    """``x op= y`` from its second call on takes the kept plan (``graph.apply_into``): a
    pending x or the only view of its buffer is rebound to a new node (earlier readers keep
    the old values), an x whose buffer another view shares is written in place (the view
    sees it), and a Python int out of x's range still raises. (No readback before the
    writes: a NumPy copy lent by one sends the writes through ``execute``.)"""
    from webarray._core import lease
    for _ in range(2):  # the first round makes the plans, the second runs them
        lease.settle()  # (the last round's readbacks' copies: closed)
        x = xp.asarray(np.arange(8, dtype=np.int32))
        xp.fusion.flush(x)
        y = x * 3  # reads x's buffer before the writes below
        assert not lease.LEASES
        x += 1  # the only view: rebound
        assert x._b is None
        x += xp.asarray(np.full(8, 10, dtype=np.int32))
        xp.fusion.flush(x)
        v = x[2:6]  # now x's buffer has two views
        x += 1  # written in place: v sees it
        assert x._b is not None
        v += 100
        want = np.arange(8, dtype=np.int32) + 12
        want[2:6] += 100
        assert_equal(y, np.arange(8, dtype=np.int32) * 3)
        assert_equal(x, want)
        assert_equal(v, want[2:6])
        with pytest.raises(OverflowError):
            x += 2 ** 40
        assert_equal(x, want)
        f = xp.asarray(np.linspace(0, 1, 5, dtype=np.float32))
        f *= 2.5
        f -= xp.asarray(np.full(5, 0.5, dtype=np.float32))
        assert_equal(f, np.linspace(0, 1, 5, dtype=np.float32) * np.float32(2.5) - np.float32(0.5))
