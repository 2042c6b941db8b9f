"""Core behaviour checked without NumPy, so the same file runs in CPython (native device)
and inside Pyodide on the browser's WebGPU (tests/test_browser.py runs it there).

References are Python itself: ``math`` for float32 functions (through exact float32
rounding with ``struct``), exact integer arithmetic with explicit wraparound, and
nested-list indexing for views.
"""

from __future__ import annotations

import gc
import math
import struct
import sys

import pytest
from hypothesis import assume, given, settings, strategies as st

import webarray as xp
from webarray.executors.protocol import KernelError

IN_BROWSER = sys.platform == "emscripten"

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "int32": (-(2**31), 2**31 - 1),
    "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1),
}
TINY = 2.0**-126  # smallest normal float32; WGSL may flush smaller results to zero
BIG = 3.0000000054977558e38  # a float32 near the top of the range


# -- references ------------------------------------------------------------------------

def f32(v: float) -> float:
    """v rounded to float32 (IEEE round to nearest even; overflow gives infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def ulp(v: float) -> float:
    """The spacing of float32 values at |v|."""
    v = abs(f32(v))
    if v < TINY:
        return 2.0**-149
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    return struct.unpack("<f", struct.pack("<I", bits + 1))[0] - v


def wrap(v: int, name: str) -> int:
    """v wrapped into the integer dtype's range, as fixed-width arithmetic does."""
    lo, hi = INT_RANGES[name]
    span = hi - lo + 1
    return (v - lo) % span + lo


def values(x):
    """An array's values as (nested) Python lists, read back in one transfer."""
    assert isinstance(x, xp.Array)
    return x._host_nested()


def flat(v):
    return [e for row in v for e in flat(row)] if isinstance(v, list) else [v]


def same_float(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def index_nested(data, shape, key):
    """Basic indexing (ints, slices) of a nested list, the way the standard defines it."""
    if not isinstance(key, tuple):
        key = (key,)
    if not key:
        return data
    k, rest = key[0], key[1:]
    if isinstance(k, int):
        return index_nested(data[k], shape[1:], rest)
    return [index_nested(row, shape[1:], rest) for row in data[k]]


def nested(flat_values, shape):
    if not shape:
        return flat_values[0]
    step = math.prod(shape[1:])
    return [nested(flat_values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


# -- strategies ------------------------------------------------------------------------

finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False, allow_subnormal=False)
any32 = st.floats(width=32, allow_subnormal=False)


def f32_range(lo: float, hi: float):
    return st.floats(f32(lo), f32(hi), width=32, allow_subnormal=False)


small_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def int_lists(name, min_size=0, max_size=24):
    lo, hi = INT_RANGES[name]
    return st.lists(st.integers(lo, hi), min_size=min_size, max_size=max_size)


@st.composite
def shaped(draw, elements, min_dims=0):
    """(shape, flat values); a nested list shows a zero-length axis only as its last one."""
    shape = draw(st.lists(st.integers(1, 4), min_size=min_dims, max_size=3).map(tuple))
    if shape and not min_dims and draw(st.booleans()):
        shape = shape[:-1] + (0,)
    data = draw(st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)))
    return shape, data


# -- creation --------------------------------------------------------------------------

@given(shaped(st.integers(-(2**31), 2**31 - 1)))
def test_asarray_ints_round_trip(case):
    shape, data = case
    x = xp.asarray(nested(data, shape), dtype=xp.int32)
    assert x.shape == shape and x.dtype == xp.int32
    assert flat(values(x)) == data


@given(shaped(finite32, min_dims=1))
def test_asarray_floats_default_float32(case):
    shape, data = case
    x = xp.asarray(nested(data, shape))
    assert x.dtype == xp.float32 and x.shape == shape
    assert all(same_float(g, w) for g, w in zip(flat(values(x)), data))


@given(st.lists(st.booleans(), max_size=20))
def test_asarray_bools(data):
    x = xp.asarray(data, dtype=xp.bool)
    assert x.dtype == xp.bool
    assert values(x) == data


@pytest.mark.parametrize("name", sorted(INT_RANGES))
def test_asarray_narrow_ints_exact(name):
    lo, hi = INT_RANGES[name]
    data = [lo, lo + 1, -1 if lo else 1, 0, hi - 1, hi]
    assert values(xp.asarray(data, dtype=getattr(xp, name))) == data


def test_asarray_out_of_range_raises():
    with pytest.raises(OverflowError):
        xp.asarray([300], dtype=xp.uint8)
    with pytest.raises(OverflowError):
        xp.asarray([2**31])


def test_float64_on_every_device_and_refused_by_name_where_switched_off():
    from webarray._core.device import Device

    z = xp.zeros(3, dtype=xp.float64)
    assert z.dtype == xp.float64 and values(z + 0.1) == [0.1] * 3
    off = Device(xp.__array_namespace_info__().default_device().executor, float64=False)
    with pytest.raises(TypeError, match=r"float64 is not supported on Device.*WEBARRAY_FLOAT64=0"):
        xp.zeros(3, dtype=xp.float64, device=off)


@given(small_shapes, st.sampled_from(["int32", "uint8", "float32", "bool"]), st.integers(0, 1))
def test_full_zeros_ones(shape, name, v):
    dtype = getattr(xp, name)
    want = {"bool": bool, "float32": float}.get(name, int)
    for x, fill in ((xp.zeros(shape, dtype=dtype), 0), (xp.ones(shape, dtype=dtype), 1),
                    (xp.full(shape, v if name != "bool" else bool(v), dtype=dtype), v)):
        assert x.shape == shape and x.dtype == dtype
        assert flat(values(x)) == [want(fill)] * math.prod(shape) if shape else values(x) == want(fill)


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool))
def test_arange_ints(start, stop, step):
    assert values(xp.arange(start, stop, step)) == list(range(start, stop, step))


@given(st.integers(0, 40), f32_range(-100, 100), f32_range(-100, 100))
def test_linspace_endpoints_and_spacing(num, start, stop):
    x = values(xp.linspace(start, stop, num))
    assert len(x) == num
    if num >= 1:
        assert x[0] == f32(start)
    if num >= 2:
        assert x[-1] == f32(stop)
        step = (stop - start) / (num - 1)
        for i, v in enumerate(x):
            assert abs(v - (start + i * step)) <= 4 * ulp(max(abs(start), abs(stop))) + 1e-30


@given(st.integers(0, 6), st.integers(0, 6), st.integers(-6, 6))
def test_eye(n, m, k):
    want = [[1.0 if j - i == k else 0.0 for j in range(m)] for i in range(n)]
    assert values(xp.eye(n, m, k=k)) == want


# -- elementwise -----------------------------------------------------------------------

FLOAT_FUNCS = {
    # name: (math reference, input strategy, tolerance in float32 ulps of the result)
    "sin": (math.sin, f32_range(-1e4, 1e4), 2),
    "cos": (math.cos, f32_range(-1e4, 1e4), 2),
    "exp": (math.exp, f32_range(-87, 88), 2),
    "log": (math.log, f32_range(TINY, BIG), 2),
    "sqrt": (math.sqrt, f32_range(0, BIG), 1),
    "tanh": (math.tanh, f32_range(-20, 20), 3),
    "atan": (math.atan, f32_range(-1e6, 1e6), 3),
    "expm1": (math.expm1, f32_range(-20, 20), 3),
    "log1p": (math.log1p, f32_range(-0.75, 1e6), 3),
}


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCS))
def test_float_functions_against_math(name):
    ref, elements, tol = FLOAT_FUNCS[name]

    @given(st.lists(elements, min_size=1, max_size=16))
    def check(data):
        got = values(getattr(xp, name)(xp.asarray(data, dtype=xp.float32)))
        for a, g in zip(data, got):
            want = f32(ref(a))
            if abs(want) < TINY:
                assert abs(g) <= TINY, (name, a, g, want)
            else:
                assert abs(g - want) <= tol * ulp(want), (name, a, g, want)

    check()


@pytest.mark.parametrize("op", ["add", "subtract", "multiply"])
@given(data=st.lists(st.tuples(finite32, finite32), min_size=1, max_size=16))
def test_float32_arithmetic_is_correctly_rounded(op, data):
    # a double result of two float32 operands rounded to float32 is the float32 result
    ref = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b}[op]
    a = xp.asarray([p[0] for p in data])
    b = xp.asarray([p[1] for p in data])
    got = values(getattr(xp, op)(a, b))
    for (u, v), g in zip(data, got):
        want = f32(ref(u, v))
        if abs(want) < TINY:
            assert abs(g) <= TINY
        else:
            assert same_float(g, want), (op, u, v, g, want)


@given(st.lists(any32, min_size=1, max_size=16))
def test_float_classification(data):
    x = xp.asarray(data, dtype=xp.float32)
    assert values(xp.isnan(x)) == [math.isnan(v) for v in data]
    assert values(xp.isinf(x)) == [math.isinf(v) for v in data]
    assert values(xp.isfinite(x)) == [math.isfinite(v) for v in data]
    assert values(xp.signbit(x)) == [math.copysign(1, v) < 0 for v in data]


INT_OPS = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    "maximum": max,
    "minimum": min,
}


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "uint8", "uint16", "uint32"])
@pytest.mark.parametrize("op", sorted(INT_OPS))
@settings(max_examples=15)
@given(data=st.data())
def test_integer_ops_wrap_exactly(name, op, data):
    pairs = data.draw(st.lists(st.tuples(*(st.integers(*INT_RANGES[name]),) * 2), min_size=1, max_size=12))
    dtype = getattr(xp, name)
    a = xp.asarray([p[0] for p in pairs], dtype=dtype)
    b = xp.asarray([p[1] for p in pairs], dtype=dtype)
    got = getattr(xp, op)(a, b)
    assert got.dtype == dtype
    assert values(got) == [wrap(INT_OPS[op](u, v), name) for u, v in pairs]


@pytest.mark.parametrize("name", ["int8", "int32", "uint16", "uint32"])
@given(data=st.data())
def test_floor_divide_and_remainder_follow_python(name, data):
    lo, hi = INT_RANGES[name]
    pairs = data.draw(st.lists(st.tuples(st.integers(lo, hi), st.integers(lo, hi).filter(bool)),
                               min_size=1, max_size=12))
    # the one overflowing quotient, lo // -1, is left to the implementation
    pairs = [(u, v) for u, v in pairs if not (u == lo and v == -1)]
    assume(pairs)
    dtype = getattr(xp, name)
    a = xp.asarray([p[0] for p in pairs], dtype=dtype)
    b = xp.asarray([p[1] for p in pairs], dtype=dtype)
    assert values(xp.floor_divide(a, b)) == [u // v for u, v in pairs]
    assert values(xp.remainder(a, b)) == [u % v for u, v in pairs]


@given(int_lists("int32", min_size=1), st.integers(0, 31))
def test_shifts(data, s):
    x = xp.asarray(data, dtype=xp.int32)
    assert values(x << s) == [wrap(v << s, "int32") for v in data]
    assert values(x >> s) == [v >> s for v in data]


@given(st.lists(st.tuples(finite32, finite32), min_size=1, max_size=16))
def test_comparisons(pairs):
    a = xp.asarray([p[0] for p in pairs])
    b = xp.asarray([p[1] for p in pairs])
    assert values(a < b) == [u < v for u, v in pairs]
    assert values(a == b) == [u == v for u, v in pairs]
    assert values(a >= b) == [u >= v for u, v in pairs]


@given(shaped(st.integers(-1000, 1000), min_dims=2), st.integers(-1000, 1000))
def test_broadcasting_row_and_scalar(case, s):
    shape, data = case
    x = xp.asarray(nested(data, shape))
    row = xp.asarray(nested(data[-shape[-1]:], shape[-1:]))
    got = values(x * row + s)
    rows = nested(data, shape)
    last = data[-shape[-1]:]

    def expect(v):
        if isinstance(v[0], list):
            return [expect(r) for r in v]
        return [a * b + s for a, b in zip(v, last)]

    assert got == expect(rows)


def test_mixing_kinds_promotes_as_numpy():
    # the standard leaves arrays of two kinds to the library: NumPy's promotion
    assert (xp.asarray([1], dtype=xp.int32) + xp.asarray([1.5])).dtype == xp.float64
    assert (xp.asarray([1], dtype=xp.int16) + xp.asarray([1.5])).dtype == xp.float32
    assert (xp.asarray([1, 2], dtype=xp.int8) + 1).dtype == xp.int8
    assert (xp.asarray([1, 2], dtype=xp.uint8) + xp.asarray([1], dtype=xp.int16)).dtype == xp.int16


# -- indexing --------------------------------------------------------------------------

@st.composite
def basic_keys(draw, shape):
    key = []
    for n in shape[: draw(st.integers(0, len(shape)))]:
        if n and draw(st.booleans()):
            key.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = st.none() | st.integers(-3, 3).filter(bool)
            key.append(slice(draw(bound), draw(bound), draw(step)))
    return tuple(key)


@given(st.data())
def test_basic_indexing_matches_nested_lists(data):
    shape, flat_data = data.draw(shaped(st.integers(-99, 99), min_dims=1))
    key = data.draw(basic_keys(shape))
    x = xp.asarray(nested(flat_data, shape), dtype=xp.int32)
    assert values(x[key]) == index_nested(nested(flat_data, shape), shape, key)


@given(st.data())
def test_views_of_views(data):
    shape, flat_data = data.draw(shaped(st.integers(-99, 99), min_dims=2))
    x = xp.asarray(nested(flat_data, shape), dtype=xp.int32)
    k1 = data.draw(basic_keys(shape))
    ref = index_nested(nested(flat_data, shape), shape, k1)
    v = x[k1]
    if v.ndim:
        k2 = data.draw(basic_keys(v.shape))
        assert values(v[k2]) == index_nested(ref, v.shape, k2)
        assert values(v + 1) == (lambda f: f(f, ref))(lambda f, r: [f(f, e) for e in r] if isinstance(r, list) else r + 1)


def test_integer_index_out_of_bounds_raises():
    x = xp.arange(5)
    with pytest.raises(IndexError):
        x[5]
    with pytest.raises(IndexError):
        x[-6]


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=20), st.integers(-50, 50))
def test_boolean_mask(data, t):
    x = xp.asarray(data)
    assert values(x[x > t]) == [v for v in data if v > t]


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=20), st.data())
def test_setitem_slice(data, d):
    n = len(data)
    start = d.draw(st.integers(0, n))
    stop = d.draw(st.integers(start, n))
    x = xp.asarray(data)
    x[start:stop] = 7
    assert values(x) == data[:start] + [7] * (stop - start) + data[stop:]


# -- memory and the device -------------------------------------------------------------

def test_memory_stats_follow_arrays():
    gc.collect()
    xp.memory.free_pooled()
    before = xp.memory.stats()
    a = xp.ones(1 << 16)
    xp.fusion.flush(a)  # a pending array holds no buffer until it is computed
    during = xp.memory.stats()
    assert during["used_bytes"] >= before["used_bytes"] + 4 * (1 << 16)
    assert during["device_buffers"] >= before["device_buffers"] + 1
    del a
    gc.collect()
    after = xp.memory.stats()
    assert after["used_bytes"] == before["used_bytes"]
    xp.memory.free_pooled()
    assert xp.memory.stats()["pooled_bytes"] == 0
    assert xp.memory.stats()["device_buffers"] == before["device_buffers"]


def test_memory_limit_raises_and_device_keeps_working():
    saved = xp.memory.stats()["limit_bytes"]
    try:
        xp.memory.set_limit(xp.memory.stats()["used_bytes"] + (1 << 20))
        with pytest.raises(MemoryError, match="bytes"):
            xp.ones(1 << 22)
    finally:
        xp.memory.set_limit(saved)
    assert values(xp.arange(4) * 2) == [0, 2, 4, 6]


def test_kernel_error_carries_source_and_device_keeps_working():
    ex = xp.__array_namespace_info__().default_device().executor
    with pytest.raises(KernelError, match="not_a_function"):
        ex.compile(
            "@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
            "@compute @workgroup_size(1) fn main() { let a = not_a_function(U[0]); }\n"
        )
    assert values(xp.asarray([1.5]) * 2) == [3.0]


def test_executor_write_read_round_trip():
    ex = xp.__array_namespace_info__().default_device().executor
    h = ex.alloc(64)
    try:
        payload = bytes(range(64))
        ex.write(h, 0, payload)
        ex.write(h, 16, b"\xff" * 8)
        assert ex.read(h, 0, 64) == payload[:16] + b"\xff" * 8 + payload[24:]
        assert ex.read(h, 60, 4) == payload[60:]
        assert ex.read(h, 0, 0) == b""
    finally:
        ex.free(h)


@pytest.mark.skipif(not IN_BROWSER, reason="the shared reply window exists only in the browser")
def test_browser_reads_larger_than_the_window_come_in_pieces():
    ex = xp.__array_namespace_info__().default_device().executor
    x = xp.arange(10_000, dtype=xp.int32)
    saved = ex._link.window_bytes
    ex._link.window_bytes = 4096  # the GPU side copies whatever piece is asked for
    try:
        assert values(x) == list(range(10_000))
    finally:
        ex._link.window_bytes = saved


@pytest.mark.skipif(not IN_BROWSER, reason="browser executor only")
def test_browser_large_allocation_over_the_device_limit():
    ex = xp.__array_namespace_info__().default_device().executor
    with pytest.raises(MemoryError, match="largest buffer"):
        ex.alloc(ex.max_buffer_size + 16)
    assert values(xp.arange(3)) == [0, 1, 2]


@pytest.mark.skipif(not IN_BROWSER, reason="browser executor only")
def test_browser_out_of_device_memory_is_memory_error():
    ex = xp.__array_namespace_info__().default_device().executor
    held = []
    try:
        with pytest.raises(MemoryError, match="out of memory"):
            for _ in range(64):  # 64 buffers of the largest size: more than any device holds
                held.append(ex.alloc(ex.max_buffer_size))
    finally:
        for h in held:
            ex.free(h)
    assert values(xp.arange(3) + 1) == [1, 2, 3]
