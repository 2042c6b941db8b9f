"""The radix sort of long rows (kernels/webgpu/radix.py, from the crossover row length on)
against NumPy's stable sort and argsort, and against the bitonic network it replaces
there: the same (key, index) pairs for every dtype, both orders, any row count. Special
values (NaN, ±inf, ±0, integer limits), many ties (stability), sizes around the crossover
and one of a few million; unique, isin and searchsorted on long inputs."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from helpers import DTYPES, assert_equal
from webarray._core import launch
from webarray._core.algorithms import sort as impl
from webarray._core.device import Device, default_device
from webarray.kernels.webgpu import radix

CROSS = impl._radix_plan(xp.__array_namespace_info__().default_device())[0]
WIDE = {"int64": np.int64, "uint64": np.uint64}
NAMES = ["int8", "int16", "int32", "uint8", "uint16", "uint32", "float32", "int64", "uint64"]
FLOAT_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, -3e38]


@contextlib.contextmanager
def radix_from(n: int):
    """Sorts take the radix path from rows of n elements (the network below), whatever
    the adapter."""
    old = impl.RADIX_MIN
    impl.RADIX_MIN = n
    try:
        yield
    finally:
        impl.RADIX_MIN = old


def np_dtype(name: str):
    return WIDE.get(name) or DTYPES[name]


def draw_values(rng, name: str, shape, distinct: int | None = None) -> np.ndarray:
    """Random values of dtype name with its limits and (for floats) special values mixed
    in; with distinct, only that many different values (ties)."""
    dtype = np.dtype(np_dtype(name))
    size = int(np.prod(shape))
    if dtype.kind == "f":
        a = rng.standard_normal(size).astype(dtype) * 100
        special = np.array(FLOAT_SPECIAL, dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
        special = np.array([info.min, info.max, 0, 1, info.max // 2], dtype)
    if distinct is not None:
        a = rng.choice(np.concatenate([special, a[:distinct]]), size)
    else:
        at = rng.random(size) < 0.05
        a[at] = rng.choice(special, int(at.sum()))
    return a.reshape(shape)


def expected_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort in webarray's order (-0.0 equal to +0.0, NaNs equal and
    last); descending keeps equal elements in their original order."""
    _, ranks = np.unique(a, return_inverse=True, equal_nan=True)
    ranks = ranks.reshape(a.shape).astype(np.int64)
    return np.argsort(-ranks if descending else ranks, axis=axis, kind="stable")


def check_sorts(x, a: np.ndarray, axis: int) -> None:
    for descending in (False, True):
        order = expected_argsort(a, axis, descending)
        assert_equal(xp.argsort(x, axis=axis, descending=descending), order.astype(np.int32))
        assert_equal(xp.sort(x, axis=axis, descending=descending),
                     np.take_along_axis(a, order, axis=axis))


def pairs(x, rows: int, n: int, descending: bool):
    keys, idx, p = impl.sort_rows(impl.contiguous(x), rows, n, descending)
    cut = (lambda t: None if t is None
           else np.asarray(xp.Array._view(t._buf, xp.uint32, (rows, n), (p, 1), 0, x.device)))
    return cut(keys), cut(idx)


@given(st.sampled_from(NAMES), st.integers(1, 3), st.integers(1, 2500), st.booleans(),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_radix_pairs_equal_the_networks(name, rows, n, descending, ties, seed):
    """For the rows it takes, radix sort returns the network's (key, index) pairs."""
    rng = np.random.default_rng(seed)
    a = draw_values(rng, name, (rows, n), distinct=3 if ties else None)
    x = xp.asarray(a)
    with radix_from(2**40):
        want = pairs(x, rows, n, descending)
    with radix_from(1):
        got = pairs(x, rows, n, descending)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_array_equal(g, w)


@given(st.sampled_from(["float32", "int32", "uint32"]), st.integers(1, 3), st.integers(1, 2500),
       st.integers(0, 5), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_radix_sort_of_values_equals_the_networks_bits(name, rows, n, skip, descending, ties, seed):
    """sort of a one-word dtype on the radix path moves the values alone (keys computed
    at every pass): bit for bit the network's result (values gathered at its stable
    order), -0.0 among +0.0 and NaNs with signs and payloads included, from a view that
    starts past its buffer's first element."""
    rng = np.random.default_rng(seed)
    a = draw_values(rng, name, (rows, n + skip), distinct=6 if ties else None)
    if name == "float32":
        bits = a.view(np.uint32)
        bits[rng.random(a.shape) < 0.1] = 0x80000000
        nan = rng.random(a.shape) < 0.05
        sign = rng.integers(0, 2, size=int(nan.sum()), dtype=np.uint32) << np.uint32(31)
        bits[nan] = sign | 0x7F800000 | rng.integers(1, 1 << 23, size=int(nan.sum()), dtype=np.uint32)
    x = xp.asarray(a)[:, skip:]
    with radix_from(2**40):
        want = np.asarray(xp.sort(x, axis=-1, descending=descending))
    with radix_from(1):
        assert impl.sort_values(impl.contiguous(x), rows, n, descending) is not None
        got = np.asarray(xp.sort(x, axis=-1, descending=descending))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("n", [CROSS - 1, CROSS, CROSS + 1,
                               CROSS + radix.TILE + 3])
def test_sizes_around_the_crossover(n):
    rng = np.random.default_rng(n)
    a = draw_values(rng, "float32", (n,))
    check_sorts(xp.asarray(a), a, 0)


@pytest.mark.parametrize("name", NAMES)
def test_every_dtype_in_long_rows(name):
    rng = np.random.default_rng(len(name))
    n = CROSS + 777
    a = draw_values(rng, name, (n,))
    check_sorts(xp.asarray(a), a, 0)
    t = draw_values(rng, name, (n,), distinct=4)  # ties everywhere: stability
    check_sorts(xp.asarray(t), t, 0)


@pytest.mark.parametrize("shape, axis", [((3, 9000), -1), ((9000, 3), 0), ((2, 5000, 2), 1)])
def test_rows_and_axes(shape, axis):
    rng = np.random.default_rng(sum(shape))
    with radix_from(4096):
        for name, distinct in (("float32", None), ("int32", 5), ("int64", 5)):
            a = draw_values(rng, name, shape, distinct)
            check_sorts(xp.asarray(a), a, axis)


def test_views_are_sorted_as_their_values():
    rng = np.random.default_rng(5)
    a = draw_values(rng, "int16", (2, 3 * CROSS))
    x = xp.asarray(a)[:, ::-3]
    check_sorts(x, a[:, ::-3].copy(), -1)


@pytest.mark.parametrize("blocks", [None, 4096])
def test_a_few_million(blocks, monkeypatch):
    """With 4,096 blocks a pass (the GPU plan) a row of 2,930 tiles has 2,930 blocks: the
    offsets kernel's threads then scan 23 counts each (977 blocks with the CPU plan: 8)."""
    if blocks is not None:
        monkeypatch.setattr(impl, "RADIX_CPU", (impl.RADIX_CPU[0], blocks))
        monkeypatch.setattr(impl, "RADIX_GPU", (impl.RADIX_GPU[0], blocks))
    rng = np.random.default_rng(7)
    n = 3_000_017
    a = rng.random(n, dtype=np.float32)
    a[rng.random(n) < 0.001] = np.nan
    a[:1000] = 0.5  # a run of ties
    x = xp.asarray(a)
    assert_equal(xp.argsort(x), np.argsort(a, kind="stable").astype(np.int32))
    assert_equal(xp.sort(x, descending=True), a[expected_argsort(a, 0, True)])


@pytest.mark.parametrize("name", ["float32", "int32", "uint32"])
@pytest.mark.parametrize("shape, axis", [((2, 5000), 1), ((5000, 3), 0)])
def test_sort_carries_the_values_bit_for_bit(name, shape, axis):
    """Where the radix sort takes the rows of a one-word dtype, sort moves the values
    alone, their keys computed at every pass (no index, no gather after it): the result
    is still exactly the values at argsort's order, -0.0 and +0.0 and NaN payloads
    included."""
    rng = np.random.default_rng(23)
    a = draw_values(rng, name, shape, distinct=40)
    if name == "float32":
        bits = a.view(np.uint32)
        bits[rng.random(shape) < 0.05] = 0x80000000  # -0.0 among the +0.0 draws
        nan = rng.random(shape) < 0.02
        bits[nan] = 0x7FC00000 | rng.integers(1, 1 << 22, size=int(nan.sum()), dtype=np.uint32)
        bits[rng.random(shape) < 0.02] = 0xFFC00123  # a negative NaN with a payload
    x = xp.asarray(a)
    with radix_from(4096):
        assert impl.sort_values(impl.contiguous(xp.moveaxis(x, axis, -1)), a.size // shape[axis],
                                shape[axis]) is not None
        for descending in (False, True):
            order = np.asarray(xp.argsort(x, axis=axis, descending=descending))
            got = np.asarray(xp.sort(x, axis=axis, descending=descending))
            want = np.take_along_axis(a, order.astype(np.int64), axis=axis)
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
            np.testing.assert_array_equal(order, expected_argsort(a, axis, descending))


@pytest.fixture(scope="module")
def dev64():
    return Device(default_device().executor, float64=True)


def test_float64(dev64):
    rng = np.random.default_rng(64)
    n = CROSS + 1001
    a = rng.standard_normal(n) * 1e300
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1.7976931348623157e308]
    at = rng.random(n) < 0.05
    a[at] = rng.choice(special, int(at.sum()))
    check_sorts(xp.asarray(a, device=dev64), a, 0)
    t = rng.choice(np.array(special + [1.0]), n)
    check_sorts(xp.asarray(t, device=dev64), t, 0)


@pytest.mark.parametrize("name", ["bool", "int8", "uint32", "float32", "int64", "uint64"])
def test_unique_isin_searchsorted(name):
    rng = np.random.default_rng(len(name) + 1)
    n = CROSS + 999
    a = (rng.random(n) < 0.3 if name == "bool"
         else draw_values(rng, name, (n,), distinct=300))
    x = xp.asarray(a)
    r = xp.unique_all(x)
    values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                               return_counts=True, equal_nan=False)
    if a.dtype.kind == "f":  # webarray: every NaN is its own value, as the standard says
        keep = ~np.isnan(values)
        nans = np.flatnonzero(np.isnan(a))
        values = np.concatenate([values[keep], a[nans]])
        index = np.concatenate([index[keep], nans])
        counts = np.concatenate([counts[keep], np.ones(nans.size, counts.dtype)])
        inverse = None
    assert_equal(r.values, values)
    assert_equal(r.indices, index.astype(np.int32))
    assert_equal(r.counts, counts.astype(np.int32))
    if inverse is not None:
        assert_equal(r.inverse_indices, inverse.reshape(a.shape).astype(np.int32))
    q = np.concatenate([a[:50], a[-50:]])
    assert_equal(xp.isin(xp.asarray(q), x), np.isin(q, a))
    if name != "bool":
        s = np.sort(a, kind="stable")
        for side in ("left", "right"):
            assert_equal(xp.searchsorted(xp.sort(x), xp.asarray(q), side=side),
                         np.searchsorted(s, q, side=side).astype(np.int32))


def test_complex64_unique():
    rng = np.random.default_rng(9)
    n = CROSS + 5
    re_, im = rng.integers(-3, 3, (2, n)).astype(np.float32)
    a = (re_ + 1j * im).astype(np.complex64)
    assert_equal(xp.unique_values(xp.asarray(a)), np.unique(a))


def _workgroup_bytes(src: str) -> int:
    return sum(4 * int(m) for m in re.findall(r"var<workgroup> \w+: array<[^,]+, (\d+)>", src))


@pytest.mark.parametrize("rows, blocks", [(3, 5), (2, 200), (1, 300), (1, 600), (2, 1000), (2, 2500)])
def test_offsets_scan_each_digits_counts(rows, blocks):
    """offsets scans each (row, digit)'s counts over the blocks in place (exclusive) and
    writes its total, however the counts are split: one, two, four or eight a thread,
    in one chunk or a loop of chunks whose last is partial (2,500 = 1,024 + 1,024 + 452)."""
    r = 1 << radix.BITS
    h = np.random.default_rng(blocks).integers(0, 5000, (rows, r, blocks), dtype=np.uint32)
    items, looped = radix.offsets_chunking(blocks)
    assert (items, looped) == {5: (1, False), 200: (2, False), 300: (4, False),
                               600: (8, False), 1000: (8, False), 2500: (8, True)}[blocks]
    counts, totals = xp.asarray(h.ravel()), xp.zeros(rows * r, dtype=xp.uint32)
    launch.kernel(counts.device, ("test", "radix-offsets", items, looped),
                  lambda: radix.offsets(radix.BITS, items, looped), [counts, totals],
                  impl._words(0, blocks, 0, rows * blocks, 0), rows * r)
    np.testing.assert_array_equal(np.asarray(counts).reshape(h.shape), np.cumsum(h, axis=2, dtype=np.uint32) - h)
    np.testing.assert_array_equal(np.asarray(totals), h.sum(axis=2, dtype=np.uint32).ravel())


@pytest.mark.parametrize("bits", [4, 8])
def test_kernels_keep_webgpu_default_limits(bits):
    """At most 16 KiB of workgroup memory and 256 invocations a workgroup."""
    for src in (radix.histogram(bits), radix.scatter(bits), radix.keys(xp.float32, False),
                radix.scatter(bits, xp.float32, values=True), radix.offsets(bits),
                radix.offsets(bits, 1, False)):
        assert _workgroup_bytes(src) <= 16384
        size = int(re.search(r"@workgroup_size\((\d+)\)", src).group(1))
        assert size <= 256


def test_four_bit_digits_sort_too():
    rng = np.random.default_rng(4)
    a = draw_values(rng, "int32", (2, 3000), distinct=7)
    old = radix.BITS
    radix.BITS = 4
    try:
        with radix_from(1):
            check_sorts(xp.asarray(a), a, -1)
    finally:
        radix.BITS = old
