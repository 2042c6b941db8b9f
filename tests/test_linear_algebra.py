"""matmul (and @), matrix_transpose, tensordot and vecdot against NumPy."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import NUMERIC_NAMES, arrays, assert_equal, views

# values small enough that float32 sums stay well inside tolerance and ints exercise wrap
SMALL = {"float32": st.floats(-4, 4, width=32)}


def _elements(name):
    from helpers import elements

    return SMALL[name] if name in SMALL else elements(name, edges=False)


@st.composite
def matmul_case(draw):
    name = draw(st.sampled_from(NUMERIC_NAMES))
    m, k, n = (draw(st.integers(1, 70)) for _ in range(3))
    batch = draw(st.sampled_from([(), (2,), (3, 1), (1, 2)]))
    batch_b = draw(st.sampled_from([(), batch[-1:], batch]))
    shape_a = batch + (m, k)
    shape_b = batch_b + (k, n)
    if draw(st.booleans()):
        shape_a = (k,)
    elif draw(st.booleans()):
        shape_b = (k,)
    a = draw(views(name, shape_a, elements_strategy=_elements(name)))
    b = draw(views(name, shape_b, elements_strategy=_elements(name)))
    return name, a, b


@given(matmul_case())
def test_matmul_matches_numpy(case):
    name, (a, x), (b, y) = case
    expected = np.matmul(a, b)
    tol = dict(rtol=1e-5, atol=1e-4) if name == "float32" else {}
    assert_equal(x @ y, expected, **tol)
    assert_equal(xp.matmul(x, y), expected, **tol)


@given(matmul_case(), st.sampled_from([1, 7, 16]))
def test_matmul_cuts_a_long_k_into_chunks(case, chunk):
    # as for a K beyond one launch's MAX_K: chunks as a batch dimension, summed, and the rest
    from webarray.kernels.webgpu import matmul as mm

    name, (a, x), (b, y) = case
    expected = np.matmul(a, b)
    tol = dict(rtol=1e-5, atol=1e-4) if name == "float32" else {}
    with pytest.MonkeyPatch.context() as p:
        p.setattr(mm, "MAX_K", chunk)
        assert_equal(x @ y, expected, **tol)


def test_matmul_longer_k_than_one_launch_takes():
    # lavapipe cut the K loop of one invocation short, silently (524280 for this 2^20)
    from webarray.kernels.webgpu import matmul as mm

    for k in (1 << 20, 2 * mm.MAX_K + 3):
        assert float((xp.ones((1, k)) @ xp.ones((k, 1)))[0, 0]) == k
    a = np.arange(3 * (mm.MAX_K + 5), dtype=np.int32).reshape(3, -1) % 7
    assert_equal(xp.asarray(a) @ xp.asarray(a.T), a @ a.T)


@given(st.sampled_from(["int8", "uint8", "int16", "float32"]), st.data())
def test_matmul_promotes_mixed_dtypes(name, data):
    a = data.draw(arrays(name, (3, 4), elements_strategy=_elements(name)))
    b = data.draw(arrays("int16" if name != "float32" else "float32", (4, 2),
                         elements_strategy=_elements("int16" if name != "float32" else "float32")))
    assert_equal(xp.asarray(a) @ xp.asarray(b), a @ b, rtol=1e-5, atol=1e-4)


def test_matmul_transposed_views_and_empty():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 30)).astype(np.float32)
    x = xp.asarray(a)
    assert_equal(x.T @ x, a.T @ a, rtol=1e-5, atol=1e-4)
    assert_equal(x[::-2] @ x[::3].T, a[::-2] @ a[::3].T, rtol=1e-5, atol=1e-4)
    z = np.zeros((0, 30), np.float32)
    assert_equal(xp.asarray(z) @ x.T, z @ a.T)
    k0 = np.zeros((3, 0), np.float32)
    assert_equal(xp.asarray(k0) @ xp.asarray(np.zeros((0, 4), np.float32)), np.zeros((3, 4), np.float32))


def test_a_repeated_product_replays_its_kept_plan_over_new_data():
    # a product's kernel, uniforms and grids are kept per layout (Device.plans) and replayed
    # over the next call's buffers: new data, views at other offsets (another layout: a
    # plan of its own), transposed views, a batch, int32 and float32, 1-D operands; each
    # repeat matches NumPy and makes no new plan
    from webarray._core.device import default_device

    plans = default_device().plans
    rng = np.random.default_rng(3)
    cases = [((70, 33), (33, 50), np.float32, lambda a: a),
             ((2, 40, 64), (64, 24), np.float32, lambda a: a),
             ((9, 40), (40, 7), np.float32, lambda a: a[1:]),
             ((9, 40), (40, 7), np.float32, lambda a: a[:8]),  # (a[1:]'s layout at offset 0)
             ((40, 9), (40, 9), np.float32, lambda a: a.mT),
             ((12, 5), (5, 6), np.int32, lambda a: a),
             ((33,), (33, 4), np.float32, lambda a: a)]
    kept = None
    for _ in range(3):  # the cases interleaved: plans of like layouts side by side
        for sa, sb, dtype, cut in cases:
            a = rng.integers(-9, 9, sa).astype(dtype)
            b = rng.integers(-9, 9, sb).astype(dtype)
            x = cut(xp.asarray(a))
            got = np.asarray(x @ xp.asarray(b))
            want = np.asarray(cut(xp.asarray(a))).astype(np.float64) @ b
            np.testing.assert_array_equal(got, want.astype(dtype))
        now = sum(1 for k in plans if k[0] == "matmul")
        assert kept is None or now == kept
        kept = now


def test_matmul_errors():
    x = xp.ones((3, 4))
    with pytest.raises(ValueError, match="not aligned"):
        x @ xp.ones((3, 4))
    with pytest.raises(ValueError, match="0-d"):
        xp.matmul(xp.asarray(1.0), x)
    with pytest.raises(TypeError, match="bool"):
        xp.matmul(xp.ones((2, 2), dtype=xp.bool), xp.ones((2, 2), dtype=xp.bool))
    # NumPy's int32 with float32: float64
    assert_equal(xp.matmul(xp.ones((2, 2), dtype=xp.int32), xp.ones((2, 2))), np.full((2, 2), 2.0))
    # int8 with float32 is float32, as NumPy's promotion between kinds
    i8 = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert_equal(xp.matmul(xp.asarray(i8), xp.ones((3, 2))), i8 @ np.ones((3, 2), np.float32))
    assert x.__matmul__(3) is NotImplemented
    # the device keeps working
    assert_equal(x @ xp.ones((4, 1)), np.full((3, 1), 4, np.float32))


@given(st.data())
def test_tensordot_matches_numpy(data):
    name = data.draw(st.sampled_from(["int32", "float32"]))
    a = data.draw(arrays(name, (3, 4, 5), elements_strategy=_elements(name)))
    b = data.draw(arrays(name, (4, 5, 2), elements_strategy=_elements(name)))
    tol = dict(rtol=1e-5, atol=1e-4)
    assert_equal(xp.tensordot(xp.asarray(a), xp.asarray(b), axes=2), np.tensordot(a, b, axes=2), **tol)
    assert_equal(xp.tensordot(xp.asarray(a), xp.asarray(b), axes=([1], [0])), np.tensordot(a, b, axes=([1], [0])), **tol)
    assert_equal(xp.tensordot(xp.asarray(a), xp.asarray(b), axes=0), np.tensordot(a, b, axes=0), **tol)


@given(st.data())
def test_vecdot_matches_numpy(data):
    name = data.draw(st.sampled_from(["int16", "float32"]))
    a = data.draw(arrays(name, (2, 3, 5), elements_strategy=_elements(name)))
    b = data.draw(arrays(name, (3, 5), elements_strategy=_elements(name)))
    axis = data.draw(st.sampled_from([-1, -2]))
    expected = np.sum(a * b, axis=axis, dtype=a.dtype)
    assert_equal(xp.vecdot(xp.asarray(a), xp.asarray(b), axis=axis), expected, rtol=1e-5, atol=1e-4)


def test_matrix_transpose():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert_equal(xp.matrix_transpose(xp.asarray(a)), np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError):
        xp.matrix_transpose(xp.asarray([1, 2]))


@given(st.sampled_from([1, 4, 64, 127, 128, 129, 200]), st.sampled_from([4, 8, 12, 36, 3, 17]),
       st.sampled_from([4, 128, 132, 260, 5]), st.sampled_from([(), (2,), (2, 1)]),
       st.sampled_from(["plain", "aT", "bT", "offset"]), st.integers(0, 2**32 - 1))
def test_matmul_float32_tiles(m, k, n, batch, layout, seed):
    """The 128×128 float32 kernel across block edges: vec4 loads (aligned rows, K and N
    multiples of 4) and element loads (transposed or offset views, other shapes)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    if layout == "aT":
        x = xp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
    else:
        x = xp.asarray(a)
    y = xp.asarray(np.ascontiguousarray(b.T)).mT if layout == "bT" else xp.asarray(b)
    if layout == "offset":
        full = np.concatenate([np.zeros((4, n), np.float32), b])
        y = xp.asarray(full)[4:]
    expected = (a.astype(np.float64) @ b).astype(np.float32)
    assert_equal(x @ y, expected, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize("m, k, n, batch", [(256, 1024, 256, ()), (100, 700, 36, (2,)),
                                             (64, 1030, 128, ()), (1, 2048, 1, ())])
def test_matmul_split_k_keeps_a_gpu_busy(m, k, n, batch, monkeypatch):
    """On a GPU adapter a deep K of a product with few 128x128 tiles is cut into chunks computed
    side by side and summed; forced here on the CPU adapter."""
    from webarray._core.algorithms import matmul as impl

    dev = xp.asarray(0.0).device
    monkeypatch.setattr(dev, "on_cpu", False)
    monkeypatch.setattr(impl, "MIN_CHUNK", 64)
    assert impl._busy_chunk(dev, m, n, k, max(1, int(np.prod(batch))), xp.float32) > 0
    rng = np.random.default_rng(k)
    a = rng.standard_normal(batch + (m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    expected = (a.astype(np.float64) @ b).astype(np.float32)
    assert_equal(xp.asarray(a) @ xp.asarray(b), expected, rtol=1e-5, atol=1e-5 * k)
    assert_equal(xp.asarray(a) @ xp.asarray(np.ascontiguousarray(b.T)).mT, expected,
                 rtol=1e-5, atol=1e-5 * k)
    assert impl._busy_chunk(dev, 4096, 4096, 4096, 1, xp.float32) == 0  # enough tiles
    assert impl._busy_chunk(dev, m, n, k, 1, xp.int32) == 0


@pytest.mark.parametrize("compiler", ["naga", "tint", "webkit"])
@pytest.mark.parametrize("layout", ["plain", "aT", "offset"])
def test_float32_products_compiled_without_runtime_checks_keep_every_bit(layout, compiler,
                                                                        monkeypatch):
    """The float32 matmul kernels declare every access in bounds (their first line, the
    protocol's IN_BOUNDS): the native executor compiles them without the WGSL compiler's
    runtime checks, and their products (partial tiles, vec4 and element loads, a batch, the
    factorizations' in-place update) are the checked kernels' bit for bit, in the shape
    each WGSL compiler takes (the device's ``wgsl_compiler``, forced here), and NumPy's."""
    from webarray._core import graph
    from webarray._core.algorithms import matmul as amm
    from webarray.executors import protocol
    from webarray.kernels import webgpu
    from webarray.kernels.webgpu import matmul as mm

    assert webgpu.IN_BOUNDS == protocol.IN_BOUNDS
    assert mm.generate_f32(True, 0).startswith(protocol.IN_BOUNDS)
    device = xp.asarray(1.0).device
    ex = device.executor
    if getattr(ex, "_trusted", None) is None:
        pytest.skip("this executor compiles every kernel checked")
    assert device.wgsl_compiler == "naga"  # (wgpu-native's)
    monkeypatch.setattr(device, "wgsl_compiler", compiler)
    shape = mm.f32_shape(compiler)
    assert shape == mm.F32_SHAPES["naga" if compiler == "naga" else "tint"]
    rng = np.random.default_rng(7)
    cases = [((130, 64), (64, 260)), ((2, 37, 12), (12, 45)), ((1, 17), (17, 5)),
             ((128, 8), (8, 128))]
    data = [(rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32))
            for sa, sb in cases]
    c0 = rng.standard_normal((96, 96)).astype(np.float32)
    p, q = (rng.standard_normal(s).astype(np.float32) for s in ((64, 32), (32, 64)))

    def products():
        out = []
        for a, b in data:
            if layout == "aT":
                x = xp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
            elif layout == "offset":
                x = xp.asarray(np.concatenate([np.zeros((1,) + a.shape[1:], np.float32), a]))[1:]
            else:
                x = xp.asarray(a)
            out.append(np.asarray(x @ xp.asarray(b)))
        c = xp.asarray(c0)
        block = c[32:, 16:80]
        assert amm.subtract_product(block, graph.bindable(xp.asarray(p), strided=True),
                                    graph.bindable(xp.asarray(q), strided=True))
        out.append(np.asarray(c))
        return out

    monkeypatch.setattr(device, "_kernels", {})  # (this test's kernels alone)
    trusted = products()
    assert ex.trusted_modules > 0
    keys = [k for k in device._kernels if k[0] == "matmul_f32"]
    assert len(keys) >= 3 and all(k[-1] == shape for k in keys)  # (products and the update)
    made = ex.trusted_modules
    real = mm.generate_f32
    monkeypatch.setattr(mm, "generate_f32", lambda *a, **k: real(*a, **k)[len(protocol.IN_BOUNDS):])
    monkeypatch.setattr(device, "_kernels", {})  # (the same keys compiled again, checked)
    checked = products()
    assert ex.trusted_modules == made
    for t, c in zip(trusted, checked):
        np.testing.assert_array_equal(t, c)
    for (a, b), c in zip(data, checked):
        np.testing.assert_allclose(c, (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-5 * b.shape[0])
    ref = c0.copy()
    ref[32:, 16:80] -= p @ q
    np.testing.assert_allclose(checked[-1], ref, rtol=1e-5, atol=1e-4)
