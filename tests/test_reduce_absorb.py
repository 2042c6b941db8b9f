"""A reduction of a pending elementwise expression computes it in its first pass
(``algorithms/reduce.py`` ``_absorbed``): ``sum(x * y)`` reads x and y once, in one launch
fewer, with every bit of the result the reduction of the computed product gives (fusion
off: the product stored, then reduced). Random inputs with NaN, ±inf, ±0 and subnormals,
lengths on and off the vec4 path, axes, integer wraparound; views, broadcasts and too many
leaves take the old way (the product computed first) with the same bits."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
from webarray.executors import native

EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-40, 3.4e38, 1.0]


@pytest.fixture(autouse=True)
def _fused(monkeypatch):
    """Fusion on, and every size absorbed (ABSORB_MIN: from 2^16 elements otherwise)."""
    from webarray._core.algorithms import reduce as impl

    monkeypatch.setattr(impl, "ABSORB_MIN", 1)
    was = xp.fusion.is_enabled()
    xp.fusion.set_enabled(True)
    yield
    xp.fusion.set_enabled(was)


class _Dispatches:
    """How many dispatches the native executor records while the block runs."""

    def __enter__(self):
        self.count = 0
        self._orig = native.NativeExecutor.dispatch

        def counting(ex, *args, _orig=self._orig):
            self.count += 1
            return _orig(ex, *args)
        native.NativeExecutor.dispatch = counting
        return self

    def __exit__(self, *exc):
        native.NativeExecutor.dispatch = self._orig


def _bits(a) -> np.ndarray:
    return np.atleast_1d(np.asarray(a)).view(np.uint8)


def _fused_and_eager(f, *arrays):
    """f's result with fusion on (the expression absorbed) and off (computed first), as
    NumPy arrays, and the dispatches each took."""
    out = []
    for fused in (True, False):
        xp.fusion.set_enabled(fused)
        args = [xp.asarray(a) for a in arrays]
        xp.fusion.flush(*args)
        with _Dispatches() as d:
            r = f(*args)
            got = np.asarray(r)
        out.append((got, d.count))
    xp.fusion.set_enabled(True)
    return out


EXPRESSIONS = {
    "sum(x * y)": lambda x, y: xp.sum(x * y),
    "sum(x * 2 + y)": lambda x, y: xp.sum(x * 2.0 + y),
    "max(x - y)": lambda x, y: xp.max(x - y),
    "min(abs(x) + y)": lambda x, y: xp.min(xp.abs(x) + y),
    "prod(x * 1e-3 + 1)": lambda x, y: xp.prod(x * 1e-3 + 1.0),
    "sum(int32(x > y))": lambda x, y: xp.sum(xp.astype(x > y, xp.int32)),
    "sum(x * y, axis=-1)": lambda x, y: xp.sum(x * y, axis=-1),
    "max(x * y, axis=0)": lambda x, y: xp.max(x * y, axis=0),
    "mean(x * y)": lambda x, y: xp.mean(x * y),
    "mean((x - y) ** 2, axis=-1)": lambda x, y: xp.mean((x - y) * (x - y), axis=-1),
}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_pending_expression_reduced_equals_the_computed_one_bit_for_bit(data):
    name = data.draw(st.sampled_from(sorted(EXPRESSIONS)), label="expression")
    n = data.draw(st.sampled_from([1, 3, 4, 17, 64, 257, 4096, 5003]), label="length")
    rows = data.draw(st.sampled_from([1, 3]), label="rows")
    shape = (rows, n) if "axis" in name else (rows * n,)
    elements = st.one_of(st.floats(-1e3, 1e3, width=32), st.sampled_from(EDGES))
    x = data.draw(hnp.arrays(np.float32, shape, elements=elements))
    y = data.draw(hnp.arrays(np.float32, shape, elements=elements))
    (fused, nf), (eager, ne) = _fused_and_eager(EXPRESSIONS[name], x, y)
    np.testing.assert_array_equal(_bits(fused), _bits(eager))
    assert nf < ne  # the expression's launch absorbed


def test_a_sum_of_products_matches_numpy_and_takes_one_launch_fewer():
    rng = np.random.default_rng(5)
    for n in (1, 5, 1000, 1 << 16, 300_001):
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        (fused, nf), (eager, ne) = _fused_and_eager(lambda a, b: xp.sum(a * b), x, y)
        assert nf == ne - 1
        np.testing.assert_array_equal(_bits(fused), _bits(eager))
        ref = float(np.sum(x.astype(np.float64) * y))
        assert abs(float(fused) - ref) <= 1e-5 * float(np.sum(np.abs(x.astype(np.float64) * y)))


def test_a_float64_accumulator_computes_the_expression_first():
    rng = np.random.default_rng(11)
    for n in (1 << 16, (1 << 16) + 1):  # on and off the vec4 path
        x = rng.standard_normal(n).astype(np.float32)
        (fused, nf), (eager, ne) = _fused_and_eager(
            lambda a: xp.sum(a * a, dtype=xp.float64), x)
        assert fused.dtype == np.float64 and fused == eager
        assert abs(float(fused) - float(np.sum(x.astype(np.float64) ** 2))) < 1e-9 * n


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_shapes_axes_and_keepdims(data):
    """0-d to 3-d records, any axes (several at once, negative), keepdims, where and
    comparisons in the expression: the reduction of the computed record, bit for bit."""
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=9))
    ndim = len(shape)
    some = st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim)
    axes = data.draw(st.one_of(st.none(), some.map(tuple))) if ndim else None
    keepdims = data.draw(st.booleans())
    elements = st.one_of(st.floats(-100, 100, width=32), st.sampled_from(EDGES))
    x = data.draw(hnp.arrays(np.float32, shape, elements=elements))
    y = data.draw(hnp.arrays(np.float32, shape, elements=elements))
    op = data.draw(st.sampled_from([xp.sum, xp.max, xp.min, xp.prod]))
    f = data.draw(st.sampled_from([
        lambda a, b: xp.where(a > b, a * b, 2.0 * b - a),
        lambda a, b: xp.maximum(a, b) + xp.abs(b),
        lambda a, b: (a - b) / (xp.abs(b) + 1.0),
    ]))
    (fused, nf), (eager, ne) = _fused_and_eager(lambda a, b: op(f(a, b), axis=axes,
                                                                keepdims=keepdims), x, y)
    assert fused.shape == eager.shape
    np.testing.assert_array_equal(_bits(fused), _bits(eager))


def test_integer_sums_wrap_as_the_computed_ones():
    rng = np.random.default_rng(6)
    a = rng.integers(-128, 128, 5000).astype(np.int8)
    b = rng.integers(-128, 128, 5000).astype(np.int8)
    (fused, nf), (eager, ne) = _fused_and_eager(lambda p, q: xp.sum(p * q, dtype=xp.int8), a, b)
    assert nf < ne and fused == eager == np.sum(a * b, dtype=np.int8)
    u = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    (fused, nf), (eager, ne) = _fused_and_eager(lambda p: xp.sum(p * 3), u)
    assert nf < ne and fused == eager == np.sum(u * np.uint32(3), dtype=np.uint32)


def test_views_broadcasts_and_many_leaves_compute_the_expression_first(monkeypatch):
    from webarray._core.algorithms import reduce as impl

    taken = []
    real = impl._absorbed
    monkeypatch.setattr(impl, "_absorbed", lambda *a: taken.append(real(*a)) or taken[-1])
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = rng.standard_normal(64).astype(np.float32)
    cases = [
        lambda a, b: xp.sum(a[:, ::2] * 2.0),  # a strided leaf
        lambda a, b: xp.sum(a.mT * a),  # a transposed one
        lambda a, b: xp.sum(a * b),  # a broadcast one
        lambda a, b: xp.sum(sum((a + float(k)) * a[k] for k in range(12))),  # 13 leaves
    ]
    for f in cases:
        taken.clear()
        (fused, nf), (eager, ne) = _fused_and_eager(f, x, y)
        np.testing.assert_array_equal(_bits(fused), _bits(eager))
        assert taken == [None]  # asked once (fused), refused: the expression computed first
    taken.clear()
    _fused_and_eager(lambda a, b: xp.sum(a * a), x, y)
    assert len(taken) == 1 and taken[0] is not None  # (and a plain one taken)


def test_small_arrays_are_computed_first_below_the_threshold(monkeypatch):
    from webarray._core.algorithms import reduce as impl

    monkeypatch.setattr(impl, "ABSORB_MIN", 1 << 16)
    rng = np.random.default_rng(8)
    for n, absorbed in ((1 << 16) - 1, False), (1 << 16, True):
        x = rng.standard_normal(n).astype(np.float32)
        (fused, nf), (eager, ne) = _fused_and_eager(lambda a: xp.sum(a * a), x)
        np.testing.assert_array_equal(_bits(fused), _bits(eager))
        assert (nf < ne) is absorbed


def test_a_kept_plan_takes_the_next_calls_views_offsets_and_scalars():
    rng = np.random.default_rng(9)
    base = rng.standard_normal(3000).astype(np.float32)
    whole = xp.asarray(base)
    for k in range(4):  # the same structure over other offsets, buffers and scalars
        a = whole[k * 500:k * 500 + 1000]
        b = xp.asarray(base[:1000] * (k + 1))
        got = float(xp.sum(a * float(k) + b))
        xp.fusion.set_enabled(False)
        want = float(xp.sum(xp.asarray(base[k * 500:k * 500 + 1000]) * float(k) + b))
        xp.fusion.set_enabled(True)
        assert got == want


def test_kept_plans_of_one_layout_and_other_structures_do_not_mix():
    # a repeated absorbed reduction goes straight to the passes kept for its expression's
    # structure (graph.elementwise_structure: ops, dtypes, which leaf is which buffer),
    # checked once: expressions of one shape interleaved, each repeated, must each give
    # the eager result (a key that ignored the order of the leaves, a leaf read twice, an
    # op or a cast would hand one expression another's passes)
    rng = np.random.default_rng(21)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    x, y = xp.asarray(a), xp.asarray(b)
    cases = [lambda u, v: xp.sum(u * v), lambda u, v: xp.sum(u + v), lambda u, v: xp.sum(u - v),
             lambda u, v: xp.sum(v - u), lambda u, v: xp.sum(u * u), lambda u, v: xp.max(u * v),
             lambda u, v: xp.sum(xp.astype(u > v, xp.int32)), lambda u, v: xp.sum(u * 3.0 - v)]
    for _ in range(3):
        for f in cases:
            got = np.asarray(f(x, y))
            xp.fusion.set_enabled(False)
            want = np.asarray(f(x, y))
            xp.fusion.set_enabled(True)
            np.testing.assert_array_equal(_bits(got), _bits(want))


def test_the_pending_array_is_still_computed_where_it_is_read_again():
    x = xp.asarray(np.arange(10, dtype=np.float32))
    y = xp.asarray(np.full(10, 0.5, dtype=np.float32))
    p = x * y
    s = xp.sum(p)
    assert p._b is None  # (the sum read x and y, not p)
    assert float(s) == 22.5
    np.testing.assert_array_equal(np.asarray(p), np.arange(10, dtype=np.float32) * 0.5)
    p[3] = 100.0  # and p is an array like any other
    assert float(xp.sum(p)) == 22.5 - 1.5 + 100.0


def test_threads_reducing_shared_pending_expressions():
    """Threads reduce expressions over shared arrays while others compute and read them."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(10)
    data = [rng.standard_normal(20_000).astype(np.float32) for _ in range(4)]
    xp.fusion.set_enabled(False)
    want = [float(xp.sum(xp.asarray(data[i]) * xp.asarray(data[(i + 1) % 4]) + float(i)))
            for i in range(4)]
    xp.fusion.set_enabled(True)
    arrays = [xp.asarray(d) for d in data]

    def work(i):
        got = []
        for k in range(25):
            p = arrays[i % 4] * arrays[(i + 1) % 4] + float(i % 4)
            if k % 5 == 4:
                np.asarray(p)  # computed by this thread before the sum
            got.append(float(xp.sum(p)))
        return got

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(work, range(6)))
    for i, got in enumerate(results):
        assert got == [want[i % 4]] * 25


def test_expensive_expressions_are_computed_first(monkeypatch):
    """Calls past ABSORB_SIZE characters inlined (exp, sin) are not written into the pass,
    which writes its expression once per element a thread loads."""
    from webarray._core.algorithms import reduce as impl

    taken = []
    real = impl._absorbed
    monkeypatch.setattr(impl, "_absorbed", lambda *a: taken.append(real(*a)) or taken[-1])
    x = np.linspace(-2, 2, 3000, dtype=np.float32)
    for f, absorbed in ((lambda a: xp.sum(xp.exp(a) * a), False),
                        (lambda a: xp.sum(xp.maximum(a, 0.5) * xp.sqrt(xp.abs(a))), True)):
        taken.clear()
        (fused, _), (eager, _) = _fused_and_eager(f, x)
        np.testing.assert_array_equal(_bits(fused), _bits(eager))
        assert (taken[0] is not None) is absorbed
