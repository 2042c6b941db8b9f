"""The lean op path (issue #21): an op whose operand kinds were checked before skips the checks,
and must still refuse what the full path refuses and compute what it computes.

``_elementwise._apply`` keeps, per (op, array dtypes, scalar types), the computing dtype and the
node the full path built; a later call with arrays of one shape and one device reuses them.
These tests warm that cache first, then try what only the full path may decide.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from webarray import _elementwise
from webarray._core import graph, launch

from helpers import assert_equal


@pytest.fixture(params=[True, False], ids=["fused", "eager"])
def fusion(request):
    with xp.fusion.enabled(request.param):
        yield request.param


def _warm(name, *args):
    getattr(xp, name)(*args)
    key = (name,) + tuple(a.dtype if isinstance(a, xp.Array) else type(a) for a in args)
    assert key in _elementwise._PLANS, "the plan was not kept: the fast path is not taken"


def test_a_scalar_out_of_range_is_refused_after_a_valid_one(fusion):
    a = xp.asarray([1, 2, 3], dtype=xp.int8)
    _warm("add", a, 1)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        a + 1000
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        xp.add(a, -129)
    assert_equal(a + 127, np.array([1, 2, 3], dtype=np.int8) + np.int8(127))


def test_kinds_never_checked_are_refused_as_before(fusion):
    a = xp.asarray([1, 2, 3], dtype=xp.int32)
    _warm("add", a, 1)
    with pytest.raises(TypeError, match="Python float combines only with floating-point"):
        a + 1.5
    with pytest.raises(TypeError, match="Python bool combines only with bool"):
        a + True
    _warm("subtract", a, a)
    b = xp.asarray([True, False, True])
    with pytest.raises(TypeError):
        xp.subtract(b, b)  # bool is not numeric
    # int32 and float32: NumPy's float64 (the full path, past the kept plan)
    assert_equal(a - xp.asarray([1.0, 2.0, 3.0]), np.asarray(a) - np.float32([1.0, 2.0, 3.0]))


def test_broadcasting_after_the_plan_takes_the_full_path(fusion):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4), dtype=np.float32), rng.standard_normal(4, dtype=np.float32)
    a, b = xp.asarray(x), xp.asarray(y)
    _warm("multiply", a, a)
    assert_equal(a * b, x * y)
    assert_equal(b * a, y * x)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        a * xp.ones(3)


def test_fast_results_equal_the_full_path_bit_for_bit(fusion):
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.standard_normal(60).astype(np.float32),
                             np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45],
                                      dtype=np.float32)])
    a = xp.asarray(values)
    b = xp.asarray(values[::-1].copy())
    for name in ("add", "subtract", "multiply", "divide", "maximum", "atan2", "hypot"):
        first = getattr(xp, name)(a, b)  # the full path (or the plan, if kept already)
        again = getattr(xp, name)(a, b)  # the plan
        assert np.asarray(first).tobytes() == np.asarray(again).tobytes(), name
        with np.errstate(all="ignore"):
            expected = getattr(np, {"atan2": "arctan2"}.get(name, name))(values, values[::-1])
        assert_equal(again, expected, ulps=2 if name in ("atan2", "hypot", "divide") else 0)
    s = a * 2.5
    assert np.asarray(s).tobytes() == (values * np.float32(2.5)).tobytes()


def test_mixed_dtypes_keep_their_casts(fusion):
    a = xp.asarray([-128, 2, 127], dtype=xp.int8)
    b = xp.asarray([-32768, 300, 32767], dtype=xp.int16)
    _warm("add", a, b)
    assert_equal(a + b, np.array([-128, 2, 127], dtype=np.int8) + np.array([-32768, 300, 32767],
                                                                            dtype=np.int16))
    assert (a + b).dtype == xp.int16


def test_pending_operands_are_inlined_and_the_chain_is_bounded():
    with xp.fusion.enabled(True):
        b = xp.ones(16)
        x = xp.zeros(16)
        before = graph.MAX_DEPTH
        for _ in range(3 * before):
            x = x + b
        assert x._b is None and x._lazy.depth <= before
        assert_equal(x, np.full(16, 3 * before, dtype=np.float32))


def test_reflected_scalars_unary_ops_and_three_operands_take_their_plans(fusion):
    values = np.array([-2.5, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan, 3e38], dtype=np.float32)
    a = xp.asarray(values)
    ints = xp.asarray([-128, -1, 0, 127], dtype=xp.int8)
    for _ in range(2):  # the first round keeps the plans, the second uses them
        with np.errstate(all="ignore"):
            assert np.asarray(2.0 - a).tobytes() == (np.float32(2.0) - values).tobytes()
            assert np.asarray(-a).tobytes() == (-values).tobytes()
            assert_equal(xp.sqrt(a), np.sqrt(values))  # NaN's sign is not NumPy's (x86's -NaN)
            assert np.asarray(xp.clip(a, -1.0, 1.0)).tobytes() == np.clip(values, -1, 1).tobytes()
            assert_equal(3 - ints, np.int8(3) - np.array([-128, -1, 0, 127], dtype=np.int8))
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        200 - ints  # the reflected operand's range is checked by the kept plan too
    with pytest.raises(TypeError, match="Python float combines only"):
        1.5 * ints


def test_an_operand_computed_just_before_and_a_pending_fill():
    """depth 1 (every operand computed) lets a result launch as eager would; an operand
    computed first, or one pending with no operands of its own (full), must not pass for
    it."""
    with xp.fusion.enabled(True):
        x = xp.asarray(np.arange(8, dtype=np.float32))
        n = -x
        r = n + x
        assert r._lazy.depth >= 2
        assert_equal(r, np.zeros(8, dtype=np.float32))
        for make in (lambda i: i * x, lambda i: x * i):  # the pending operand second, too
            s = make(xp.arange(8, dtype=xp.float32))
            assert s._lazy.depth >= 2
            assert_equal(s, np.arange(8, dtype=np.float32) ** 2)
            f = xp.full(8, 3.0)  # pending, its node a scalar of depth 0
            s = make(f)
            assert f._b is None and s._lazy.depth >= 2
            assert_equal(s, np.arange(8, dtype=np.float32) * 3)


def test_the_pending_registry_stays_small_as_temporaries_die():
    with xp.fusion.enabled(True):
        gc.collect()
        graph.flush()  # pending arrays that earlier tests left alive (in cycles, tracebacks)
        a = xp.asarray(np.ones(16, dtype=np.float32))
        for _ in range(5000):
            a * 2.0  # a pending result, dropped at once
        assert len(graph._PENDING) < 200
        kept = [a + 1.0 for _ in range(300)]
        live = {id(r()) for r in graph._PENDING
                if r() is not None and r()._b is None and r()._lazy.error is None}
        assert live == {id(k) for k in kept}
        xp.asarray(kept[-1])  # computes the pending arrays of that shape, up to the bindings
        graph.flush()
        assert graph._PENDING == [] and all(k._b is not None for k in kept)
        assert_equal(kept[0], np.full(16, 2, dtype=np.float32))


def test_a_forced_result_with_only_dead_neighbours_is_computed_alone():
    """A forced result whose registry also holds an operand dropped or computed, made before
    it or after it, is the only pending array (graph._alone says so without a prune), and
    once it is computed the registry is empty (graph._settled); two live pending arrays are
    not alone, and both keep NumPy's values."""
    with xp.fusion.enabled(True):
        gc.collect()
        graph.flush()
        x, y = np.arange(16, dtype=np.float32), np.full(16, 0.5, dtype=np.float32)
        a, b = xp.asarray(x), xp.asarray(y)
        r = a * 2.0 + b  # the product: dropped, still registered
        assert len(graph._PENDING) == 2 and graph._alone() and len(graph._PENDING) == 1
        xp.fusion.flush(r)
        assert graph._PENDING == []
        s = a + b
        t = s * 3.0
        del t  # made after s, dropped
        assert len(graph._PENDING) == 2 and graph._alone()
        assert graph._PENDING[0]() is s
        xp.fusion.flush(s)
        assert graph._PENDING == []
        p, q = a - b, a * b
        assert not graph._alone() and len(graph._PENDING) == 2
        xp.fusion.flush(q)
        assert_equal(r, x * np.float32(2) + y)
        assert_equal(s, x + y)
        assert_equal(p, x - y)
        assert_equal(q, x * y)


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "int64", "complex64", "bool"])
def test_the_kept_launch_plan_equals_the_general_launch(dtype, monkeypatch):
    """Eager launches of contiguous views reuse a plan per signature (_core/launch.py plain);
    the same values through strided views take the general path: the bytes must agree, also
    for offsets that rule out vec4, an input read twice, two-word dtypes and scalars."""
    rng = np.random.default_rng(7)
    x = rng.integers(-100, 100, 37).astype(dtype) if dtype != "bool" else rng.random(37) < 0.5
    y = rng.integers(-100, 100, 37).astype(dtype) if dtype != "bool" else rng.random(37) < 0.5
    wide = xp.asarray(np.stack([x, y, x]))  # rows 0 and 2 equal; row 1 is y
    inter = xp.asarray(np.stack([x, y], axis=1))
    op = xp.logical_xor if dtype == "bool" else xp.add
    taken = []
    plain_launch = launch.plain

    def counted(*args):
        out = plain_launch(*args)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(launch, "plain", counted)
    counts = []
    with xp.fusion.enabled(False):
        for _ in range(2):  # the second round runs from the kept plans
            a, b = xp.asarray(x), xp.asarray(y)
            taken.clear()
            plain = [op(a, b), op(a, a), op(wide[0, 1:], wide[1, 1:]), op(wide[2], b)]
            assert taken == [True] * 4
            xs, ys = inter[:, 0], inter[:, 1]  # stride 2: the general path
            strided = [op(xs, ys), op(xs, xs), op(xs[1:], ys[1:]), op(xs, ys)]
            for got, ref in zip(plain, strided):
                assert np.asarray(got).tobytes() == np.asarray(ref).tobytes()
            if dtype not in ("bool",):
                s = a * 3 if dtype != "complex64" else a * (1 + 2j)
                assert np.asarray(s).tobytes() == (x * (3 if dtype != "complex64" else
                                                        np.complex64(1 + 2j))).astype(dtype).tobytes()
            counts.append(len(a.device.plans))
    assert counts[1] == counts[0], "the second round made new plans instead of keeping them"


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "eager"])
def test_float32_scalars_are_rounded_as_numpy_rounds_them_on_the_kept_plan(fused):
    """The kept plan packs a float32 scalar with struct's "f" (round to nearest even); past
    the largest float32 it cannot, and the uniforms are packed again word by word (a value
    that rounds past float32's range is infinity, as NumPy casts it). The same plan serves
    every value: the first launch of each signature warms it."""
    x = np.array([1.0, -2.0, 0.5, 3.0], dtype=np.float32)
    a = xp.asarray(x)
    big = float(np.finfo(np.float32).max)
    values = [2.0, 3, 1e39, -1e39, big, big * (1 + 2.0 ** -25), big * (1 + 2.0 ** -23),
              float("nan"), -0.0, 1e-46, 0.1, 2.0 ** -149 * 0.75, float("inf")]
    with xp.fusion.enabled(fused), np.errstate(all="ignore"):
        for v in values * 2:
            got = np.asarray(a * v + a)
            ref = x * np.float32(v) + x
            assert got.tobytes() == ref.tobytes(), v


def test_cupy_arrays_take_the_kept_plans_too():
    """webarray.cupy's ndarray subclasses Array without state of its own: its operands are
    arrays of their dtype for the plans, and results keep NumPy's semantics there."""
    import webarray.cupy as cp

    a = cp.asarray([1.5, -2.0, 3.25], dtype=cp.float32)
    b = cp.asarray([2.0, 0.5, -1.0], dtype=cp.float32)
    first = a * b
    assert ("multiply", xp.float32, xp.float32) in _elementwise._PLANS
    again = a * b
    assert isinstance(again, cp.ndarray)
    assert again.tolist() == first.tolist() == [3.0, -1.0, -3.25]
    with pytest.raises(ValueError):
        a * cp.ones(2, dtype=cp.float32)  # no broadcast from (3,) and (2,)


def test_a_raw_kernel_writes_its_source_once_per_layout():
    """ElementwiseKernels with raw parameters (Chainer's im2col) keep the source of each
    RawSpec: a repeated call with other values reuses it, a call with another layout (here a
    broadcast input) writes its own, and both compute what NumPy does."""
    import webarray.cupy as cp
    from webarray.cupy import _raw_elementwise

    k = cp.ElementwiseKernel("raw T x, T s, int32 n", "T y", "y = x[(i + 1) % n] * s",
                             "shift_scale")
    a = cp.arange(8, dtype=cp.float32)
    assert k(a, cp.float32(2.0), 8, size=8).tolist() == [2.0 * ((i + 1) % 8) for i in range(8)]
    kept = len(_raw_elementwise._SOURCES)
    assert k(a, cp.float32(3.0), 8, size=8).tolist() == [3.0 * ((i + 1) % 8) for i in range(8)]
    assert len(_raw_elementwise._SOURCES) == kept
    s = cp.asarray([1.0, -1.0] * 4, dtype=cp.float32)  # s as an array: another layout
    assert k(a, s, 8).tolist() == [((i + 1) % 8) * (1.0 if i % 2 == 0 else -1.0) for i in range(8)]
    assert len(_raw_elementwise._SOURCES) == kept + 1


def test_where_keeps_a_plan_and_refuses_as_before(fusion):
    c = xp.asarray([True, False, True, False])
    x = xp.asarray([1.0, -0.0, np.nan, np.inf], dtype=xp.float32)
    y = xp.asarray([-1.0, 0.0, 2.0, -np.inf], dtype=xp.float32)
    i = xp.asarray([1, 2, 3, 4], dtype=xp.int8)
    for _ in range(2):  # the first call keeps the plan, the second takes it
        assert np.asarray(xp.where(c, x, y)).tobytes() == np.where(
            [True, False, True, False], np.asarray(x), np.asarray(y)).tobytes()
        assert_equal(xp.where(c, x, 5.0), np.array([1.0, 5.0, np.nan, 5.0], dtype=np.float32))
        assert_equal(xp.where(c, -7, i), np.array([-7, 2, -7, 4], dtype=np.int8))
    assert ("where" not in _elementwise._PLANS) and len(xp._searching._WHERE_PLANS) >= 3
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        xp.where(c, 300, i)
    with pytest.raises(TypeError):
        xp.where(c, 1.5, i)
    with pytest.raises(TypeError, match="condition must have dtype bool"):
        xp.where(i, x, y)
    assert_equal(xp.where(c[:2], x[:2], xp.reshape(y, (2, 2))),
                 np.where([True, False], np.float32([1.0, -0.0]), np.asarray(y).reshape(2, 2)))


def test_in_place_ops_keep_a_plan_and_refuse_as_before(fusion):
    x = xp.asarray(np.array([1, 2, 3, 4], dtype=np.int8))
    y = xp.asarray(np.array([10, 20, 30, 40], dtype=np.int8))
    want = np.array([1, 2, 3, 4], dtype=np.int8)
    for _ in range(3):  # the first call keeps the plan, the others take it
        x += y
        x -= 3
        want = want + np.int8([10, 20, 30, 40]) - np.int8(3)
    assert_equal(x, want)
    assert ("add", xp.int8, xp.int8) in _elementwise._INPLACE
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        x += 1000
    with pytest.raises(TypeError):
        x += 1.5
    with pytest.raises(ValueError, match="would change x's shape"):
        x += xp.ones((2, 4), dtype=xp.int8)
    with pytest.raises(TypeError, match="would change x's dtype"):
        x += xp.ones(4, dtype=xp.int16)
    assert_equal(x, want)
    v = x[1:]  # a view: the in-place op writes where the view sees it
    x += y
    assert_equal(v, (want + np.int8([10, 20, 30, 40]))[1:])


def test_computing_one_of_many_pending_arrays_looks_at_a_bounded_number(monkeypatch):
    """A readback with thousands of results pending scans at most _CANDIDATES of them for
    spare bindings (it scanned them all: 0.33 s for one read with 1,000 pending); every
    value stays right."""
    calls = []
    scan = graph._scan
    monkeypatch.setattr(graph, "_scan", lambda *a: calls.append(1) or scan(*a))
    with xp.fusion.enabled(True):
        a = xp.asarray(np.arange(16, dtype=np.float32))
        keep = [a * float(i) + 1.0 for i in range(600)]
        calls.clear()
        assert_equal(keep[-1], np.arange(16, dtype=np.float32) * 599 + 1)
        assert len(calls) <= graph._CANDIDATES + 1
        xp.fusion.flush()
        for i in (0, 1, 300, 598):
            assert_equal(keep[i], np.arange(16, dtype=np.float32) * i + 1)


def test_the_direct_partials_are_the_functions_that_only_apply_their_op():
    """Operators call ``_elementwise.DIRECT[name]`` (``partial(_apply, name)``) in place of the
    namespace function: only right where the function's whole body is ``return _apply(name,
    <its parameters in order>)``. A function that checks anything first must not be there."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(_elementwise))
    simple = set()
    for f in tree.body:
        if not isinstance(f, ast.FunctionDef):
            continue
        body = [s for s in f.body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if (len(body) == 1 and isinstance(body[0], ast.Return)
                and isinstance(body[0].value, ast.Call)
                and getattr(body[0].value.func, "id", None) == "_apply"
                and not body[0].value.keywords
                and [ast.literal_eval(body[0].value.args[0])]
                + [getattr(a, "id", None) for a in body[0].value.args[1:]]
                == [f.name] + [a.arg for a in f.args.posonlyargs + f.args.args]):
            simple.add(f.name)
    assert set(_elementwise.DIRECT) <= simple, set(_elementwise.DIRECT) - simple
    assert len(_elementwise.DIRECT) >= 60
    for name, partial in _elementwise.DIRECT.items():
        assert partial.func is _elementwise._apply and partial.args == (name,)


class _CountedLowering(graph._Lowering):
    made = 0

    def __init__(self):
        type(self).made += 1
        super().__init__()


def test_a_forced_dags_structure_keeps_its_plan_and_numpys_bits(monkeypatch):
    """A forced result with nothing else pending takes the plan kept for its DAG's structure
    (graph._quick): the second round of the same structures, over other arrays and other
    scalars, lowers nothing and keeps NumPy's bits (a NaN's sign and payload aside). The
    structures differ only in which leaves repeat (a*2+b, a*2+a), which views share a
    buffer, where the views start (vec4 or not), shared subexpressions (and which one is
    read again), a cast and the scalars' values (-0.0, NaN, inf)."""
    monkeypatch.setattr(graph, "_Lowering", _CountedLowering)
    rng = np.random.default_rng(3)

    def cases(s):
        base = rng.standard_normal(64).astype(np.float32)
        x = rng.standard_normal(16).astype(np.float32)
        y = rng.standard_normal(16).astype(np.float32)
        B, a, b = xp.asarray(base), xp.asarray(x), xp.asarray(y)
        u, v, w = base[0:16], base[16:32], base[1:17]
        with np.errstate(all="ignore"):
            t = x * y
            yield (lambda: a * s + b), x * np.float32(s) + y
            yield (lambda: a * s + a), x * np.float32(s) + x
            yield (lambda: (a + b) * (a - b)), (x + y) * (x - y)
            yield (lambda: B[0:16] * s + B[16:32]), u * np.float32(s) + v  # one buffer
            yield (lambda: B[0:16] * s + B[1:17]), u * np.float32(s) + w  # offsets 0 and 1
            yield (lambda: B[4:20] - B[36:52] * s), base[4:20] - base[36:52] * np.float32(s)

            def shared():
                p = a * b  # dropped: one node read twice
                return p + p * s
            yield shared, t + t * np.float32(s)

            def again(which):
                p, q = a * b, a - b  # dropped: each read twice, which one again differs
                return (p + q) * (p if which else q)
            d = x - y
            yield (lambda: again(True)), (t + d) * t
            yield (lambda: again(False)), (t + d) * d

            def cast():
                i = xp.astype(a * 100, xp.int32)
                return i * 3 + i
            i = (x * np.float32(100)).astype(np.int32)
            yield cast, i * 3 + i

    for round_, s in enumerate([2.5, -0.0, float("nan"), float("inf")]):
        made = _CountedLowering.made
        for make, ref in cases(s):
            with xp.fusion.enabled(True):
                got = make()
                assert graph._PENDING and got._b is None
                assert_equal(got, ref)  # (bits, but a NaN's sign and payload)
        if round_:
            assert _CountedLowering.made == made, (
                f"round {round_} lowered {_CountedLowering.made - made} DAGs whose "
                "structure was computed before")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_forced_dags_equal_numpy_through_the_kept_plans(data):
    """Random small expressions over a few views (some of one buffer, some repeated) and
    scalars with edge values, each computed twice with other values: the second takes the
    kept plan (graph._quick) and both keep NumPy's float32 values and eager's, bit for bit
    (zeros' signs and subnormals included; a NaN's sign and payload are not compared, as in
    test_fusion: IEEE 754 leaves them open, and compilers may swap the operands of a sum
    of two NaNs)."""
    base = np.random.default_rng(data.draw(st.integers(0, 2**16))).standard_normal(80)
    base = base.astype(np.float32)
    base[::7] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -3.0, 65504.0, 2.0, -1.0, 5.0,
                 0.5][: len(base[::7])]
    starts = data.draw(st.lists(st.sampled_from([0, 1, 4, 16, 17, 32, 48, 60]), min_size=1,
                                max_size=4))
    scalars = st.sampled_from([2.0, -0.0, 0.0, 0.5, float("nan"), float("inf"), -3.25, 1e30])
    ops = ["add", "subtract", "multiply", "maximum", "minimum"]

    def tree(depth):
        if depth == 0 or data.draw(st.booleans()):
            if data.draw(st.integers(0, 3)) == 0:
                return ("scalar", data.draw(scalars))
            return ("leaf", data.draw(st.sampled_from(starts)))
        return (data.draw(st.sampled_from(ops)), tree(depth - 1), tree(depth - 1))

    expr = (data.draw(st.sampled_from(ops)), tree(2), tree(2))

    def run(e, B, np_base):
        if e[0] == "leaf":
            return B[e[1]:e[1] + 16], np_base[e[1]:e[1] + 16]
        if e[0] == "scalar":
            return e[1], e[1]
        (x, nx), (y, ny) = run(e[1], B, np_base), run(e[2], B, np_base)
        if not isinstance(x, xp.Array) and not isinstance(y, xp.Array):
            x, nx = xp.asarray(np.float32(nx)), np.float32(nx)  # a 0-d array: broadcast
            x, nx = xp.broadcast_to(x, (16,)), np.broadcast_to(nx, (16,))
        with np.errstate(all="ignore"):
            return getattr(xp, e[0])(x, y), getattr(np, e[0])(nx, ny)

    for k in range(2):
        np_base = base if k == 0 else base[::-1].copy()
        with xp.fusion.enabled(False):
            eager, _ = run(expr, xp.asarray(np_base), np_base)
        with xp.fusion.enabled(True):
            got, ref = run(expr, xp.asarray(np_base), np_base)
        assert_equal(got, np.asarray(ref, dtype=np.float32))
        assert_equal(got, np.asarray(eager))  # (bits: zeros' signs count, NaNs' do not)
