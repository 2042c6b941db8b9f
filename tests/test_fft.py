"""The fft extension against numpy.fft computed in complex128.

Values are drawn by hypothesis; tolerances are relative to the largest magnitude of the
expected result, since a float32 FFT's error scales with the whole row, not each element.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from helpers import assert_equal

NORMS = ["backward", "ortho", "forward"]
# powers of two (radix 4/2), small factors (mixed radix), primes and others (Bluestein)
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 30, 49, 64, 97, 100, 128, 210, 1009, 1024, 11, 26]
RTOL = 1e-5


def _data(draw, shape, is_complex: bool) -> np.ndarray:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scale = draw(st.sampled_from([1e-3, 1.0, 1e3]))
    a = rng.standard_normal(shape) * scale
    if is_complex:
        a = a + 1j * rng.standard_normal(shape) * scale
        return a.astype(np.complex64)
    return a.astype(np.float32)


def _check(got, expected, dtype):
    expected = np.asarray(expected).astype(dtype)
    big = float(np.max(np.abs(expected))) if expected.size else 0.0
    assert_equal(got, expected, atol=RTOL * max(big, 1e-30))


@st.composite
def one_axis(draw, is_complex=True):
    n = draw(st.sampled_from(LENGTHS))
    ndim = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 3)) for _ in range(ndim)]
    axis = draw(st.integers(-ndim, ndim - 1))
    shape[axis] = n
    a = _data(draw, tuple(shape), is_complex)
    size = draw(st.sampled_from([None, None, "smaller", "larger"]))
    nn = {None: None, "smaller": max(1, n // 2), "larger": n + draw(st.integers(1, 40))}[size]
    norm = draw(st.sampled_from(NORMS))
    return a, nn, axis, norm


def _wa(a: np.ndarray, transpose: bool):
    """a as a webarray array, once as a non-contiguous view of the same values."""
    if not transpose or a.ndim < 2:
        return xp.asarray(a)
    return xp.permute_dims(xp.asarray(np.ascontiguousarray(a.T)), tuple(reversed(range(a.ndim))))


@given(one_axis(), st.booleans())
def test_fft_ifft(case, transpose):
    a, n, axis, norm = case
    x = _wa(a, transpose)
    ref = a.astype(np.complex128)
    _check(xp.fft.fft(x, n=n, axis=axis, norm=norm), np.fft.fft(ref, n, axis, norm), np.complex64)
    _check(xp.fft.ifft(x, n=n, axis=axis, norm=norm), np.fft.ifft(ref, n, axis, norm), np.complex64)


@given(one_axis(is_complex=False))
def test_float32_is_promoted(case):
    a, n, axis, norm = case
    got = xp.fft.fft(xp.asarray(a), n=n, axis=axis, norm=norm)
    _check(got, np.fft.fft(a.astype(np.float64), n, axis, norm), np.complex64)


@pytest.mark.parametrize("n", LENGTHS + [2048, 243, 343, 625, 4099])
def test_lengths_batched(n):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((5, n)) + 1j * rng.standard_normal((5, n))).astype(np.complex64)
    _check(xp.fft.fft(xp.asarray(a)), np.fft.fft(a.astype(np.complex128)), np.complex64)
    back = xp.fft.ifft(xp.fft.fft(xp.asarray(a)))
    _check(back, a, np.complex64)


@given(one_axis(is_complex=False))
def test_rfft_ihfft(case):
    a, n, axis, norm = case
    x = xp.asarray(a)
    ref = a.astype(np.float64)
    _check(xp.fft.rfft(x, n=n, axis=axis, norm=norm), np.fft.rfft(ref, n, axis, norm), np.complex64)
    _check(xp.fft.ihfft(x, n=n, axis=axis, norm=norm), np.fft.ihfft(ref, n, axis, norm),
           np.complex64)


@given(one_axis())
def test_irfft_hfft(case):
    a, n, axis, norm = case
    if n is None and a.shape[axis] == 1:
        n = 3  # the default 2 * (M - 1) would be 0
    x = xp.asarray(a)
    ref = a.astype(np.complex128)
    _check(xp.fft.irfft(x, n=n, axis=axis, norm=norm), np.fft.irfft(ref, n, axis, norm), np.float32)
    _check(xp.fft.hfft(x, n=n, axis=axis, norm=norm), np.fft.hfft(ref, n, axis, norm), np.float32)


@st.composite
def many_axes(draw, is_complex=True):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.sampled_from([1, 2, 3, 4, 5, 7, 8, 13])) for _ in range(ndim))
    a = _data(draw, shape, is_complex)
    axes = draw(st.one_of(st.none(), st.permutations(range(-ndim, 0)).flatmap(
        lambda p: st.integers(1, ndim).map(lambda k: tuple(p[:k])))))
    s = None
    if axes is not None and draw(st.booleans()):
        s = tuple(draw(st.sampled_from([-1, 1, 2, 3, 6, 9])) for _ in axes)
    norm = draw(st.sampled_from(NORMS))
    return a, s, axes, norm


def _np_s(a, s, axes):
    if s is None:
        return None
    return tuple(a.shape[ax] if v == -1 else v for v, ax in zip(s, axes))


@given(many_axes())
def test_fftn_ifftn(case):
    a, s, axes, norm = case
    x, ref, ns = xp.asarray(a), a.astype(np.complex128), _np_s(a, s, axes)
    _check(xp.fft.fftn(x, s=s, axes=axes, norm=norm), np.fft.fftn(ref, ns, axes, norm),
           np.complex64)
    _check(xp.fft.ifftn(x, s=s, axes=axes, norm=norm), np.fft.ifftn(ref, ns, axes, norm),
           np.complex64)


@given(many_axes(is_complex=False))
def test_rfftn(case):
    a, s, axes, norm = case
    ns = _np_s(a, s, axes)
    _check(xp.fft.rfftn(xp.asarray(a), s=s, axes=axes, norm=norm),
           np.fft.rfftn(a.astype(np.float64), ns, axes, norm), np.complex64)


@given(many_axes())
def test_irfftn(case):
    a, s, axes, norm = case
    last = -1 if axes is None else axes[-1]
    if s is None and a.shape[last] == 1:
        return  # the default output length 2 * (M - 1) is 0: an error, tested below
    ns = _np_s(a, s, axes)
    if ns is not None and s[-1] == -1:
        ns = ns[:-1] + (2 * (a.shape[last] - 1),)
        s = s[:-1] + (2 * (a.shape[last] - 1),)
        if s[-1] < 1:
            return
    _check(xp.fft.irfftn(xp.asarray(a), s=s, axes=axes, norm=norm),
           np.fft.irfftn(a.astype(np.complex128), ns, axes, norm), np.float32)


@pytest.mark.parametrize("n", [1, 2, 5, 8, 9])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
def test_fftfreq(n, d):
    assert_equal(xp.fft.fftfreq(n, d=d), np.fft.fftfreq(n, d).astype(np.float32), rtol=1e-6)
    assert_equal(xp.fft.rfftfreq(n, d=d), np.fft.rfftfreq(n, d).astype(np.float32), rtol=1e-6)
    assert xp.fft.fftfreq(n, dtype=xp.float32).dtype == xp.float32


@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_shifts(shape, data):
    a = _data(data.draw, tuple(shape), data.draw(st.booleans()))
    axes = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1),
                               st.permutations(range(len(shape))).map(tuple)))
    x = xp.asarray(a)
    assert_equal(xp.fft.fftshift(x, axes=axes), np.fft.fftshift(a, axes))
    assert_equal(xp.fft.ifftshift(x, axes=axes), np.fft.ifftshift(a, axes))


def test_errors():
    c = xp.asarray(np.ones((2, 4), np.complex64))
    f = xp.asarray(np.ones((2, 4), np.float32))
    i = xp.asarray(np.ones((2, 4), np.int32))
    for fn in (xp.fft.fft, xp.fft.ifft, xp.fft.irfft, xp.fft.hfft, xp.fft.fftn, xp.fft.ifftn,
               xp.fft.irfftn, xp.fft.rfft, xp.fft.ihfft, xp.fft.rfftn, xp.fft.fftshift,
               xp.fft.ifftshift):
        with pytest.raises(TypeError):
            fn(i)
    for fn in (xp.fft.rfft, xp.fft.ihfft, xp.fft.rfftn):
        with pytest.raises(TypeError):
            fn(c)
    for fn in (xp.fft.fft, xp.fft.ifft, xp.fft.rfft, xp.fft.irfft, xp.fft.hfft, xp.fft.ihfft):
        x = c if fn not in (xp.fft.rfft, xp.fft.ihfft) else f
        for n in (0, -3):
            with pytest.raises(ValueError):
                fn(x, n=n)
        with pytest.raises(ValueError):
            fn(x, norm="none")
        with pytest.raises(IndexError):
            fn(x, axis=2)
    with pytest.raises(ValueError):
        xp.fft.fftn(c, s=(4,))  # s without axes
    with pytest.raises(ValueError):
        xp.fft.fftn(c, s=(4, 2), axes=(0,))
    with pytest.raises(ValueError):
        xp.fft.fftn(c, s=(0,), axes=(0,))
    with pytest.raises(ValueError):
        xp.fft.irfft(xp.asarray(np.ones((3, 1), np.complex64)))  # default n = 0
    for fn in (xp.fft.fftfreq, xp.fft.rfftfreq):
        with pytest.raises(ValueError):
            fn(0)
        with pytest.raises(ValueError):
            fn(4, dtype=xp.int32)
        with pytest.raises(TypeError):
            fn(4, d="1")


@settings(max_examples=10)
@given(st.sampled_from([7, 97, 1009, 30, 64]), st.integers(0, 2**32 - 1))
def test_roundtrips(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((2, n)).astype(np.float32)
    x = xp.asarray(a)
    assert_equal(xp.fft.irfft(xp.fft.rfft(x), n=n), a, atol=1e-5 * float(np.abs(a).max()))
    assert_equal(xp.fft.hfft(xp.fft.ihfft(x), n=n), a, atol=1e-5 * float(np.abs(a).max()))


# ---- accuracy against pocketfft's float32 (#22) ----------------------------------------

# powers of two, smooth lengths, primes from 11 to 127 (one generic pass each), products of
# them, and Bluestein's lengths (larger primes). Before #22 every length with a prime from
# 11 on went through Bluestein, at 1.7-2.5x pocketfft's error (465: 2.6e-7 against 1.2e-7)
ACCURACY_LENGTHS = [64, 1024, 65536, 360, 44100, 11, 13, 31, 61, 97, 127, 181, 465, 1001, 2047,
                    5005, 1009, 65521]


@pytest.mark.parametrize("n", ACCURACY_LENGTHS)
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=2, deadline=None)
def test_fft_accuracy_against_pocketfft(n, seed):
    """The relative L2 error against NumPy's float64 transform of the same complex64 data
    within 1.6x of SciPy's pocketfft computing in float32."""
    sfft = pytest.importorskip("scipy.fft")
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((8, n)) + 1j * rng.standard_normal((8, n))).astype(np.complex64)
    for ours, theirs, exact in ((xp.fft.fft, sfft.fft, np.fft.fft),
                                (xp.fft.ifft, sfft.ifft, np.fft.ifft)):
        ref = exact(a.astype(np.complex128))
        err = lambda y: np.linalg.norm(np.asarray(y) - ref) / np.linalg.norm(ref)  # noqa: E731
        assert err(ours(xp.asarray(a))) <= 1.6 * err(theirs(a))


@pytest.mark.parametrize("n", [11, 31, 127, 465])
def test_generic_prime_pass_keeps_infinities(n):
    """The generic pass adds its terms without products by exact 1s (as the written-out
    radices): an infinite first element gives inf at every frequency, not NaN."""
    a = np.zeros(n, np.complex64)
    a[0] = np.inf
    got = np.asarray(xp.fft.fft(xp.asarray(a)))
    assert np.all(got.real == np.inf) and not np.any(np.isnan(got))


# ---- the composed transform (a device without fft kernels: WebGL2) ----------------------

@pytest.fixture
def composed_fft(monkeypatch):
    """The native device's registry without fft kernels, as WebGL2's: fft.py composes the
    transforms of namespace operations (radix-2 stages, Bluestein for other lengths)."""
    registry = xp.__array_namespace_info__().default_device().kernels
    monkeypatch.setattr(registry, "fft", None)
    return registry


@pytest.mark.parametrize("n", [1, 2, 4, 8, 64, 1024, 3, 5, 12, 97, 465, 1000])
@pytest.mark.parametrize("inverse", [False, True])
def test_composed_transform_matches_numpy(composed_fft, n, inverse):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))).astype(np.complex64)
    f, g = (xp.fft.ifft, np.fft.ifft) if inverse else (xp.fft.fft, np.fft.fft)
    _check(f(xp.asarray(a)), g(a.astype(np.complex128)), np.complex64)
    r = a.real.copy()
    _check(xp.fft.rfft(xp.asarray(r)), np.fft.rfft(r.astype(np.float64)), np.complex64)
    _check(xp.fft.irfft(xp.asarray(a), n=2 * n), np.fft.irfft(a.astype(np.complex128), n=2 * n),
           np.float32)


@pytest.mark.parametrize("n", [64, 1024, 465, 1009])
def test_composed_transform_accuracy_against_pocketfft(composed_fft, n):
    """Radix-2 stages with exact twiddles keep a direct transform's error: within 2x of
    SciPy's pocketfft in float32 (Bluestein's lengths: within 2.5x)."""
    sfft = pytest.importorskip("scipy.fft")
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((8, n)) + 1j * rng.standard_normal((8, n))).astype(np.complex64)
    ref = np.fft.fft(a.astype(np.complex128))
    err = lambda y: np.linalg.norm(np.asarray(y) - ref) / np.linalg.norm(ref)  # noqa: E731
    assert err(xp.fft.fft(xp.asarray(a))) <= (2.0 if n & (n - 1) == 0 else 2.5) * err(sfft.fft(a))


def test_composed_transform_keeps_infinities_and_nans(composed_fft):
    a = np.zeros(16, np.complex64)
    a[0] = np.inf
    got = np.asarray(xp.fft.fft(xp.asarray(a)))
    assert np.all(got.real == np.inf) and not np.any(np.isnan(got))  # as pocketfft's
    a[3] = np.nan
    assert np.all(np.isnan(np.asarray(xp.fft.fft(xp.asarray(a)))))


def test_a_repeated_transform_replays_its_kept_passes_over_new_data():
    # the passes of a transform are kept per layout (Device.plans, _core/algorithms/fft.py);
    # a repeat only allocates and dispatches them over the new input's buffer, for any
    # leading shape (no reshape) and for contiguous views at an offset
    from webarray._core.device import default_device

    plans = default_device().plans
    rng = np.random.default_rng(11)
    cases = [((1024,), -1, lambda a: a), ((2, 3, 96), -1, lambda a: a),
             ((5, 64), -1, lambda a: a[2:]), ((6, 40), 0, lambda a: a), ((210,), -1, lambda a: a[1:])]
    for shape, axis, cut in cases:
        for inverse in (False, True):
            kept = None
            for _ in range(3):
                a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
                x = cut(xp.asarray(a))
                got = (xp.fft.ifft if inverse else xp.fft.fft)(x, axis=axis)
                expected = (np.fft.ifft if inverse else np.fft.fft)(cut(a).astype(np.complex128), axis=axis)
                _check(got, expected, np.complex64)
                fft_plans = sum(1 for k in plans if k[0] == "fft")
                assert kept is None or fft_plans == kept  # the repeats made no new plan
                kept = fft_plans


def test_the_plain_call_takes_the_kept_passes_and_the_general_path_bit_for_bit(monkeypatch):
    # fft(x) of a computed C-contiguous complex array along its last axis goes straight to
    # the kept passes (fft._plain); it must give the general path's bits, take it where
    # it applies and leave every other call (views, pending arrays, other axes, n, norm,
    # float input, empty axes, bad axes) to the general path and its errors
    from webarray import fft as namespace_fft

    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 96)) + 1j * rng.standard_normal((3, 96))).astype(np.complex64)
    x = xp.asarray(a)
    taken = []
    plain = namespace_fft._plain
    monkeypatch.setattr(namespace_fft, "_plain",
                        lambda *args: taken.append(plain(*args) is not None) or plain(*args))
    fast = np.asarray(xp.fft.fft(x))
    fast_axis = np.asarray(xp.fft.fft(x, axis=1))
    assert taken == [True, True]
    monkeypatch.setattr(namespace_fft, "_plain", lambda *args: None)
    general = np.asarray(xp.fft.fft(x))
    assert np.array_equal(fast, general) and np.array_equal(fast_axis, general)
    monkeypatch.setattr(namespace_fft, "_plain",
                        lambda *args: taken.append(plain(*args) is not None) or plain(*args))
    taken.clear()
    wide = a.astype(np.complex128)
    for got, expected in ((xp.fft.fft(x[:, ::2]), np.fft.fft(wide[:, ::2])),
                          (xp.fft.fft(x * 2), np.fft.fft(wide * 2)),
                          (xp.fft.fft(x, axis=0), np.fft.fft(wide, axis=0)),
                          (xp.fft.fft(xp.real(x)), np.fft.fft(wide.real))):
        _check(got, expected, np.complex64)
    # a strided view, x * 2 (pending where fusion is on), axis 0 of two, float input
    assert taken == [False, not xp.fusion.is_enabled(), False, False]
    with pytest.raises(ValueError, match="no elements"):
        xp.fft.fft(xp.zeros((2, 0), dtype=xp.complex64))
    with pytest.raises(TypeError, match="axis must be an int, got bool"):
        xp.fft.fft(x, axis=True)
    with pytest.raises(IndexError, match="out of bounds"):
        xp.fft.fft(xp.asarray(1 + 0j))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.fft.fft(x, axis=2)


@pytest.mark.parametrize("group", [4, 8])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("shape", [(16, 1024), (17, 1024), (8, 2048), (3, 15360), (2, 3, 4096)])
def test_rows_of_few_transforms_take_the_1024_pass_by_rows_on_a_gpu(monkeypatch, shape,
                                                                     inverse, group):
    # rows of n = 1024 * T (T < 16) whose batch makes 16 transforms or more take one pass of
    # 1024 on a GPU adapter, a transform's 32 threads side by side (generate_big's rows);
    # forced here on the CPU adapter, whose plans keep the radix-32 passes; 17 rows leave a
    # last workgroup part-empty, 15360 = 1024 * 15 adds passes of 3 and 5 after it
    from webarray._core.device import default_device
    from webarray.kernels.specs import fft as kfft

    dev = default_device()
    batch = int(np.prod(shape[:-1]))
    assert kfft.factor(shape[-1], batch=batch)[0] == kfft.BIG
    assert kfft.factor(shape[-1])[0] != kfft.BIG and kfft.big_rows(shape[-1])
    monkeypatch.setattr(dev, "on_cpu", False)
    monkeypatch.setattr(kfft, "BIG_GROUP", group)
    for k in [k for k in dev.plans if k[0] == "fft"]:
        del dev.plans[k]  # plans made on the CPU adapter's rule or with the other group go
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    got = (xp.fft.ifft if inverse else xp.fft.fft)(xp.asarray(a))
    expected = (np.fft.ifft if inverse else np.fft.fft)(a.astype(np.complex128))
    _check(got, expected, np.complex64)
    made = [k for k in dev.plans if k[0] == "fft"]
    assert made and all(any(p[0][1] == kfft.BIG and p[0][-1] for p in dev.plans[k][0])
                        for k in made)  # (the key's last item: by rows)
    for k in made:
        del dev.plans[k]  # (the plans of the forced rule go with it)


@pytest.mark.parametrize("group", [4, 8])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("shape", [(17408,), (3, 16384), (2, 1 << 20)])
def test_lengths_with_a_pass_of_1024_by_workgroups_match_numpy(monkeypatch, shape, inverse, group):
    # n with 1024 as a factor and at least 16 transforms per row takes the workgroup pass
    # (webgpu/fft.py generate_big), whose lane and swizzle arithmetic depend on the number
    # of transforms per workgroup (4; 8 checked too); 17408 = 1024 * 17 leaves a last
    # workgroup part-empty
    from webarray._core.device import default_device
    from webarray.kernels.specs import fft as kfft

    assert kfft.factor(shape[-1])[0] == kfft.BIG
    plans = default_device().plans
    for k in [k for k in plans if k[0] == "fft"]:
        del plans[k]  # plans made with the other group go
    monkeypatch.setattr(kfft, "BIG_GROUP", group)
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    got = (xp.fft.ifft if inverse else xp.fft.fft)(xp.asarray(a))
    expected = (np.fft.ifft if inverse else np.fft.fft)(a.astype(np.complex128))
    _check(got, expected, np.complex64)
