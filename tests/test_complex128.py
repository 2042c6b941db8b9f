"""complex128 arrays (issue #20): two software float64 parts (kernels/wgsl_complex128.py) on a
device with float64. Bit for bit against NumPy where the operation is exact (add, subtract,
multiply and square with each product rounded, Smith's divide and NumPy's reciprocal, sign,
conj/real/imag, comparisons, casts), within 2 ulp per part for abs, sqrt, exp and log, and
within half an ulp of NumPy's own error for the other functions; special
values (inf and NaN parts, signed zeros), views, reductions, unique_* and isin, fusion on and
off, and the refusals (no float64, WebGL2, the functions the standard gives only real dtypes).

The first run compiles the software float64 kernels (minutes on lavapipe: exp's alone takes
about 170 s); Mesa's shader cache makes later runs fast."""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import webarray as xp
from test_complex_math import SPECIAL_OPS, check_part, special_cases
from webarray import fusion
from webarray._core.device import _SUPPORTED, Device, default_device
from webarray.kernels.ops import STAGED

inf, nan = math.inf, math.nan
PARTS = [0.0, -0.0, 5e-324, -2.2250738585072014e-308, 1.0, -1.5, 0.1, 3.0, 1e300, -1e-300,
         1.7976931348623157e308, inf, -inf, nan]
EDGE = np.array([complex(a, b) for a in PARTS for b in PARTS])


@pytest.fixture(scope="module")
def dev():
    return Device(default_device().executor, float64=True)


def host(x) -> np.ndarray:
    return np.from_dlpack(x)


def up(a, dev):
    return xp.asarray(np.asarray(a, dtype=np.complex128), device=dev)


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit per part; any NaN matches any NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    g = np.ascontiguousarray(got).reshape(-1).view(np.float64 if got.dtype.kind == "c" else got.dtype)
    w = np.ascontiguousarray(want).reshape(-1).view(g.dtype)
    if g.dtype.kind != "f":
        assert (g == w).all(), (got, want)
        return
    nan_ = np.isnan(w)
    bad = (np.isnan(g) != nan_) | (~nan_ & (g.view(np.uint64) != w.view(np.uint64)))
    rows = bad.reshape(-1, 2).any(1) if got.dtype.kind == "c" else bad
    assert not bad.any(), list(zip(got.reshape(-1)[rows][:5], want.reshape(-1)[rows][:5]))


def ulps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest error per part in units of the last place of NumPy's part (NaN and
    infinities must match exactly)."""
    g = got.reshape(-1).view(np.float64)
    w = want.reshape(-1).view(np.float64)
    special = ~np.isfinite(w) | ~np.isfinite(g)
    same(np.where(special, g, 0.0), np.where(special, w, 0.0))
    fin = ~special
    with np.errstate(over="ignore"):  # the spacing of the largest double is inf
        return float(np.max(np.abs(g[fin] - w[fin]) / np.spacing(np.abs(w[fin])), initial=0.0))


def special_same(got: np.ndarray, want: np.ndarray) -> None:
    """Infinite, NaN and zero parts bit for bit (signs of zeros too), others within 2 ulp."""
    g, w = got.reshape(-1).view(np.float64), want.reshape(-1).view(np.float64)
    exact = ~np.isfinite(w) | (w == 0)
    same(np.where(exact, g, 0.0), np.where(exact, w, 0.0))
    assert ulps(np.where(exact, 1.0, g), np.where(exact, 1.0, w)) <= 2


def plain_mul(a, b):
    """(ac - bd, ad + bc), each product and sum rounded on its own (CPython's complex)."""
    out = np.empty(np.broadcast(a, b).shape, np.complex128)
    out.real = a.real * b.real - a.imag * b.imag
    out.imag = a.real * b.imag + a.imag * b.real
    return out


doubles = st.integers(0, 2 ** 64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0])
part = st.one_of(doubles, st.sampled_from(PARTS), st.floats(-1e6, 1e6))
cvalues = st.lists(st.builds(complex, part, part), min_size=1, max_size=48)


# -- the dtype, storage and refusals ----------------------------------------------------------

def test_listed_only_with_float64(dev):
    assert xp.complex128 in xp.__array_namespace_info__().dtypes(device=dev).values()
    assert xp.complex128 in xp.__array_namespace_info__().dtypes(device=dev, kind="complex floating").values()
    plain = Device(dev.executor, float64=False)
    assert xp.complex128 not in plain.dtypes
    with pytest.raises(TypeError, match="complex128 is not supported on Device"):
        xp.asarray(np.array([1j]), device=plain)
    with pytest.raises(TypeError, match="complex128 is not supported"):
        xp.zeros(2, dtype=xp.complex128, device=plain)


def test_every_backend_stores_it_unless_float64_is_switched_off():
    for backend in ("native", "webgpu", "webgl2"):
        assert xp.complex128 in _SUPPORTED[backend] and xp.float64 in _SUPPORTED[backend]
    off = SimpleNamespace(dtypes=_SUPPORTED["webgl2"][:8], backend="webgl2")
    with pytest.raises(TypeError, match=r"complex128 is not supported .*WEBARRAY_FLOAT64=0"):
        Device.check_dtype(off, xp.complex128)


def test_round_trip_and_views(dev):
    x = up(EDGE, dev)
    assert x.dtype == xp.complex128
    same(host(x), EDGE)
    m = EDGE.reshape(14, 14)
    y = up(m, dev)
    for v, want in [(y[1::3, ::-2], m[1::3, ::-2]), (y.mT, m.T), (y[5], m[5]), (y[2:4, 7:], m[2:4, 7:])]:
        same(host(v), want)
        same(host(xp.negative(v)), -want)  # a launch over the strided view, offset included
    assert complex(x[15]) == EDGE[15] and x[16].__complex__() == EDGE[16]
    assert xp.asarray([1 + 2j, -0.5j], dtype=xp.complex128, device=dev)._host_nested() == [1 + 2j, -0.5j]
    same(host(xp.asarray(np.complex128(3 - 4j), device=dev)), np.asarray(3 - 4j))


def test_creation(dev):
    c = xp.complex128
    same(host(xp.zeros((2, 3), dtype=c, device=dev)), np.zeros((2, 3), np.complex128))
    same(host(xp.ones(3, dtype=c, device=dev)), np.ones(3, np.complex128))
    same(host(xp.full(4, 0.1 - 1e300j, dtype=c, device=dev)), np.full(4, 0.1 - 1e300j))
    assert xp.empty(2, dtype=c, device=dev).shape == (2,)
    same(host(xp.eye(3, dtype=c, device=dev)), np.eye(3, dtype=np.complex128))
    got = host(xp.linspace(0.1, 1 + 2j, 7, dtype=c, device=dev))
    assert ulps(got, np.linspace(0.1, 1 + 2j, 7)) <= 1
    same(host(xp.zeros_like(xp.ones(2, dtype=c, device=dev))), np.zeros(2, np.complex128))


# -- exact arithmetic ------------------------------------------------------------------------

def _pairs():
    a = np.repeat(EDGE, EDGE.size)
    b = np.tile(EDGE, EDGE.size)
    return a, b


def test_add_subtract_multiply_divide_every_edge_pair(dev):
    a, b = _pairs()
    x, y = up(a, dev), up(b, dev)
    with np.errstate(all="ignore"):
        same(host(x + y), a + b)
        same(host(x - y), a - b)
        same(host(x * y), plain_mul(a, b))
        same(host(x / y), a / b)


@settings(max_examples=25, deadline=None)
@given(cvalues, cvalues)
def test_arithmetic_on_drawn_values(dev, p, q):
    n = min(len(p), len(q))
    a, b = np.array(p[:n]), np.array(q[:n])
    x, y = up(a, dev), up(b, dev)
    with np.errstate(all="ignore"):
        same(host(x + y), a + b)
        same(host(x * y), plain_mul(a, b))
        same(host(x / y), a / b)


def test_unary_exact(dev):
    x = up(EDGE, dev)
    with np.errstate(all="ignore"):
        same(host(-x), -EDGE)
        same(host(+x), EDGE)
        same(host(xp.conj(x)), np.conj(EDGE))
        same(host(xp.real(x)), EDGE.real.copy())
        same(host(xp.imag(x)), EDGE.imag.copy())
        same(host(xp.square(x)), plain_mul(EDGE, EDGE))  # NumPy's loop fuses a² - b² (FMA)
        same(host(xp.reciprocal(x)), np.reciprocal(EDGE))
        # NumPy's sign gives (0, ±1) where |z| overflows (1e308 + 1.5e308j); webarray the
        # direction, from the parts scaled by 1/4
        big = np.isinf(np.hypot(EDGE.real, EDGE.imag)) & np.isfinite(EDGE)
        h = np.hypot(EDGE.real / 4, EDGE.imag / 4)
        want = np.where(big, EDGE.real / 4 / h + 1j * 0, np.sign(EDGE))
        want.imag = np.where(big, EDGE.imag / 4 / h, want.imag)
        # a NaN part: NaN + NaN j, the standard's (NumPy's sign(NaN + inf j) is 1j)
        want[np.isnan(EDGE.real) | np.isnan(EDGE.imag)] = complex(nan, nan)
        same(host(xp.sign(x)), want)
        for f in ("isnan", "isinf", "isfinite"):
            same(host(getattr(xp, f)(x)), getattr(np, f)(EDGE))
    r = np.random.default_rng(5)
    z = (r.standard_normal(400) + 1j * r.standard_normal(400)) * np.exp(r.uniform(-700, 700, 400))
    with np.errstate(all="ignore"):
        # z / |z|: |z| is wa_f64_hypot (within 0.71 ulp), NumPy's the C library's
        assert ulps(host(xp.sign(up(z, dev))), np.sign(z)) <= 2
        same(host(xp.reciprocal(up(z, dev))), np.reciprocal(z))
        same(host(xp.square(up(z, dev))), plain_mul(z, z))


def test_comparisons(dev):
    a, b = _pairs()
    x, y = up(a, dev), up(b, dev)
    same(host(x == y), a == b)
    same(host(x != y), a != b)
    assert host(up([1 + 2j, 1 - 2j], dev) == 1 + 2j).tolist() == [True, False]
    with pytest.raises(TypeError):
        x < y


def test_where_and_manipulation(dev):
    m = EDGE[:24].reshape(4, 6)
    x = up(m, dev)
    cond = xp.asarray(np.arange(24).reshape(4, 6) % 3 == 0, device=dev)
    same(host(xp.where(cond, x, 2 - 1j)), np.where(np.arange(24).reshape(4, 6) % 3 == 0, m, 2 - 1j))
    same(host(xp.reshape(x, (6, 4))), m.reshape(6, 4))
    same(host(xp.concat([x, x[::-1]], axis=1)), np.concatenate([m, m[::-1]], axis=1))
    same(host(xp.stack([x, x.mT.mT], axis=1)), np.stack([m, m], axis=1))
    same(host(xp.take(x, xp.asarray([3, 0, 3], device=dev), axis=0)), m[[3, 0, 3]])
    same(host(x[xp.asarray(np.arange(24).reshape(4, 6) > 10, device=dev)]), m[np.arange(24).reshape(4, 6) > 10])
    same(host(xp.flip(x, axis=1)), np.flip(m, axis=1))
    same(host(xp.roll(x, 2)), np.roll(m, 2))
    y = up(m, dev)
    y[1, 2:4] = 7 - 0.5j
    m2 = m.copy()
    m2[1, 2:4] = 7 - 0.5j
    same(host(y), m2)


# -- functions within a few ulp ---------------------------------------------------------------

def _moderate(n, seed, lo=-30, hi=30):
    r = np.random.default_rng(seed)
    return (r.standard_normal(n) + 1j * r.standard_normal(n)) * np.exp(r.uniform(lo, hi, n))


def _exact_abs(z: np.ndarray) -> np.ndarray:
    """|z| correctly rounded (from 60 digits): NumPy 2.4's complex abs is 1 ulp off on some
    (|1 - 1.5j|), so it is no reference for a function this library rounds correctly."""
    import decimal

    out = np.abs(z)
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        for i, v in enumerate(z):
            if np.isfinite(v):
                a, b = decimal.Decimal(float(v.real)), decimal.Decimal(float(v.imag))
                out[i] = float((a * a + b * b).sqrt())
    return out


def test_abs(dev):
    z = np.concatenate([EDGE, _moderate(500, 1, -700, 700)])
    got = host(xp.abs(up(z, dev)))
    assert got.dtype == np.float64
    assert ulps(got.astype(np.complex128), _exact_abs(z).astype(np.complex128)) <= 0.5


def test_sqrt(dev):
    z = np.concatenate([_moderate(500, 2, -700, 700), [1e308 + 1e308j, -1e308 + 5e-324j, 5e-324 - 5e-324j,
                                                       -4 + 0j, -4 - 0j, 4 + 0j, complex(-0.0, 2.0)]])
    with np.errstate(all="ignore"):
        assert ulps(host(xp.sqrt(up(z, dev))), np.sqrt(z)) <= 2
        special = np.array([0j, complex(-0.0, -0.0), complex(0, -0.0), complex(inf, nan), complex(-inf, nan),
                            complex(nan, inf), complex(1, inf), complex(1, -inf), complex(-inf, 2), complex(-inf, -2),
                            complex(inf, -2), complex(nan, 1), complex(1, nan), complex(nan, nan)])
        special_same(host(xp.sqrt(up(special, dev))), np.sqrt(special))


def test_exp_and_log(dev):
    z = np.concatenate([_moderate(400, 3, -5, 5), [710 + 1j, 709.5 - 3j, -745 + 1j, 1e-300 + 1e-300j]])
    w = np.concatenate([_moderate(400, 4, -700, 700), [0.6 + 0.8j, 1 + 1e-10j, 0.999 - 0.01j,
                                                       1e308 + 1e308j, 5e-324 + 0j, -1 + 0j, -1 - 0j]])
    with np.errstate(all="ignore"):
        assert ulps(host(xp.exp(up(z, dev))), np.exp(z)) <= 2
        assert ulps(host(xp.log(up(w, dev))), np.log(w)) <= 2
        special = np.array([complex(a, b) for a in (0.0, -0.0, 2.0, -2.0, inf, -inf, nan)
                            for b in (0.0, -0.0, 1.0, -1.0, inf, -inf, nan)])
        special_same(host(xp.exp(up(special, dev))), np.exp(special))
        special_same(host(xp.log(up(special, dev))), np.log(special))


def test_log1p(dev):
    """Against log(1 + z) in long double (NumPy's own complex log1p loses the real part near
    0: 1.0 relative error on these draws); the special cases as NumPy's."""
    rng = np.random.default_rng(11)
    n = 3000
    z = (rng.standard_normal(n) * 10.0 ** rng.integers(-20, 5, n)
         + 1j * rng.standard_normal(n) * 10.0 ** rng.integers(-20, 5, n))
    z = np.concatenate([z, [-0.5 + 0.5j, -1e-17 + 1e-9j, 1e-320 + 0j, -2 + 1e-300j, 3e-8 - 1e-8j]])
    got = host(xp.log1p(up(z, dev)))
    L = np.longdouble
    a, b = z.real.astype(L), z.imag.astype(L)
    re, im = 0.5 * np.log1p(2 * a + a * a + b * b), np.arctan2(b, 1 + a)
    assert (np.abs(got.real - re) <= 2 * 2.0 ** -52 * np.abs(re) + 1e-320).all()
    assert (np.abs(got.imag - im) <= 2 * 2.0 ** -52 * np.abs(im)).all()
    special = np.array([complex(a, b) for a in (0.0, -0.0, -1.0, 2.0, -2.0, inf, -inf, nan)
                        for b in (0.0, -0.0, 1.0, -1.0, inf, -inf, nan)])
    with np.errstate(all="ignore"):
        special_same(host(xp.log1p(up(special, dev))), np.log1p(special))


def _against_long_double(got: np.ndarray, ref: np.ndarray) -> float:
    """The largest error per part, in ulps of the float64 nearest to ref (a clongdouble
    result: 11 more bits), over the parts finite and nonzero in float64."""
    g = got.reshape(-1).view(np.float64).astype(np.longdouble)
    r = ref.astype(np.clongdouble).reshape(-1).view(np.longdouble)
    fin = np.isfinite(r) & (np.abs(r) < np.longdouble(1.7e308)) & (np.abs(r) > np.longdouble(1e-300))
    assert np.isfinite(g[fin]).all()
    return float(np.max(np.abs(g[fin] - r[fin]) / np.spacing(np.abs(r[fin]).astype(np.float64)), initial=0.0))


FUNCTIONS = ["sinh", "cosh", "tanh", "sin", "cos", "tan", "expm1", "log2", "log10",
             "asinh", "asin", "acosh", "acos", "atanh", "atan"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_within_an_ulp_of_numpys_error(dev, name):
    """Against NumPy's clongdouble result (glibc's long double functions): within 3 ulps and
    no more than half an ulp beyond NumPy's own complex128 error on the same points; the
    special values (infinite, NaN and zero parts, signs included) NumPy's, but for expm1's,
    which are the standard's (test_the_standards_special_cases)."""
    z = np.concatenate([_moderate(600, 21, -3, 3), _moderate(200, 22, -8, 4),
                        [700 + 1j, 709.5 - 3j, 30 + 2j, -25 - 1j, 3e-9 - 2e-9j, 1e3 + 1j, 0.5 + 0j, -2 - 0j]])
    if name in ("sin", "cos", "tan"):
        z = z.imag + 1j * z.real
    if name == "expm1":  # (e^a cos b overflows past 709.8)
        z = z[np.abs(z.real) < 700]
    if name in ("log2", "log10"):
        z = np.concatenate([_moderate(800, 23, -700, 700), [1 + 1e-10j, 0.999 - 0.01j, 5e-324 + 0j]])
    if name[0] == "a":  # near the branch points and cuts, and past 2^28 and 2^30
        z = np.concatenate([_moderate(500, 24, -4, 4), _moderate(200, 27, -40, 40),
                            [1 + 1e-20j, 1 - 0j, -1 + 1e-300j, 2 + 0j, -2 - 0j, 1e-9 + 1e-9j,
                             1e30 + 1j, 3e8 - 2e8j, 0.5 + 1e-17j, 1j, -1.5j]])
    f = getattr(np, name)
    with np.errstate(all="ignore"):
        got = host(getattr(xp, name)(up(z, dev)))
        ref = f(z.astype(np.clongdouble))
        theirs = _against_long_double(f(z), ref)
    ours = _against_long_double(got, ref)
    # (NumPy's expm1 is its formula, which cancels where e^a cos b is near 1: 49 ulps here)
    assert ours <= min(max(3.0, theirs), theirs + 0.5), (ours, theirs)
    special = np.array([complex(a, b) for a in (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 800.0, inf, -inf, nan)
                        for b in (0.0, -0.0, 1.0, -3.0, inf, -inf, nan)])
    # where NumPy's special values are not the standard's (test_the_standards_special_cases):
    if name == "expm1":  # NumPy: e^800 · 0 = NaN, the standard: expm1(a) + 0j
        special = special[np.isfinite(special.real) & np.isfinite(special.imag) & (special.imag != 0)]
    if name in ("tanh", "tan"):  # NumPy: ±1 + (0 · sin 2b)j, the standard: ±1 ± 0j
        special = special[np.isfinite(special.real if name == "tanh" else special.imag)]
    with np.errstate(all="ignore"):
        g, w = host(getattr(xp, name)(up(special, dev))), f(special)
    gv, wv = g.view(np.float64), w.view(np.float64)
    exact = ~np.isfinite(wv) | (wv == 0)
    same(np.where(exact, gv, 0.0), np.where(exact, wv, 0.0))
    assert ulps(np.where(exact, 1.0, gv), np.where(exact, 1.0, wv)) <= 4, (g, w)


@pytest.mark.parametrize("op", SPECIAL_OPS)
def test_the_standards_special_cases(dev, op):
    """The special cases the standard lists for complex operands, from complex64's table
    (tests/test_complex_math.py), where they differ from NumPy's (expm1(+inf + 0j) is
    +inf + 0j, NumPy's inf + NaN j) as where they agree."""
    points = [(a, b, e) for a_set, b_set, e in special_cases(op) for a in a_set for b in b_set]
    z = np.empty(len(points), np.complex128)
    z.real, z.imag = [p[0] for p in points], [p[1] for p in points]
    got = host(getattr(xp, op)(up(z, dev)))
    bad = []
    for (a, b, expect), g in zip(points, got):
        parts = (float(g.real), float(g.imag)) if got.dtype.kind == "c" else (float(g),)
        if not all(check_part(gp, wp, sign) for gp, (wp, sign) in zip(parts, expect(a, b))):
            bad.append(f"{op}({a!r}, {b!r}) = {parts}, expected {expect(a, b)}")
    assert not bad, "\n".join(bad[:20])


def test_pow_as_numpy_computes_it(dev):
    """Real integer exponents below 100 by binary powering, as NumPy; others e^(w ln z) with
    C's complex product, whose error grows with |w ln z| as NumPy's does: against long
    double, the largest error within 10% (+2 ulps) of NumPy's, the median within 0.1 ulp;
    the special values (zero, infinite and NaN bases and exponents) NumPy's bit for bit."""
    z = _moderate(300, 25, -2, 2)
    ints = np.array([2, 3, 1, -1, -2, 5, 7, 99, -37, 100, 0.5, 2.5, 1e-3], dtype=complex)
    w = np.concatenate([_moderate(92, 26, -1, 1), ints.repeat(16)])
    with np.errstate(all="ignore"):
        got = host(xp.pow(up(z, dev), up(w, dev)))
        ref = np.power(z.astype(np.clongdouble), w.astype(np.clongdouble))
        theirs = np.power(z, w)

    def errors(g):
        g, r = g.view(np.float64).astype(np.longdouble), ref.view(np.longdouble)
        fin = np.isfinite(r) & (np.abs(r) > 1e-300) & (np.abs(r) < 1e308)
        return np.abs(g[fin] - r[fin]) / np.spacing(np.abs(r[fin]).astype(np.float64))

    ours, numpys = errors(got), errors(theirs)
    assert ours.max() <= 1.1 * numpys.max() + 2 and np.median(ours) <= np.median(numpys) + 0.1
    small = np.abs(w.real) < 100
    assert ulps(got[(w.imag == 0) & (w.real == np.round(w.real)) & small],
                theirs[(w.imag == 0) & (w.real == np.round(w.real)) & small]) <= 4
    special = np.array([complex(a, b) for a in (0.0, -0.0, 2.0, -2.0, inf, -inf, nan)
                        for b in (0.0, -0.0, 1.0, inf, nan)])
    e = np.array([0, 1, 2, 3, -1, -2, 0.5, 1j, 2 + 0j, complex(0, -0.0)])
    zz, ww = (m.ravel() for m in np.meshgrid(special, e))
    with np.errstate(all="ignore"):
        g, want = host(xp.pow(up(zz, dev), up(ww, dev))), np.power(zz, ww)
    gv, wv = g.view(np.float64), want.view(np.float64)
    exact = ~np.isfinite(wv) | (wv == 0)
    same(np.where(exact, gv, 0.0), np.where(exact, wv, 0.0))
    assert ulps(np.where(exact, 1.0, gv), np.where(exact, 1.0, wv)) <= 4


# -- casts, scalars and promotion -------------------------------------------------------------

def test_casts(dev):
    x = up(EDGE, dev)
    with np.errstate(all="ignore"):
        same(host(xp.astype(x, xp.complex64)), EDGE.astype(np.complex64))
    with np.errstate(over="ignore"):
        c64 = EDGE.astype(np.complex64)
    same(host(xp.astype(xp.asarray(c64, device=dev), xp.complex128)), c64.astype(np.complex128))
    with np.errstate(over="ignore"):  # float32 from the largest double
        f32 = np.array(PARTS, np.float32)
    for src in (np.array(PARTS), f32, np.array([0, -7, 2 ** 31 - 1], np.int32),
                np.array([-(2 ** 63), 2 ** 53 + 1], np.int64), np.array([0, 255], np.uint8),
                np.array([True, False])):
        same(host(xp.astype(xp.asarray(src, device=dev), xp.complex128)), src.astype(np.complex128))
    for real in (xp.float64, xp.float32, xp.int64, xp.bool):  # as complex64: real() first
        with pytest.raises(TypeError, match="take real"):
            xp.astype(x, real)


def test_scalars_and_promotion(dev):
    a = _moderate(20, 6)
    x = up(a, dev)
    same(host(x + (1.5 - 2j)), a + (1.5 - 2j))
    same(host((0.25 + 1e-300j) * x), plain_mul(np.full(20, 0.25 + 1e-300j), a))
    same(host(x / 3), a / 3)
    same(host(2.0 - x), 2.0 - a)
    f64 = xp.asarray(a.real.copy(), device=dev)
    assert (f64 + 1j).dtype == xp.complex128
    same(host(f64 + 1j), a.real + 1j)
    c64 = xp.asarray(a.astype(np.complex64), device=dev)
    assert xp.result_type(c64, f64) == xp.complex128
    same(host(c64 + f64), a.astype(np.complex64).astype(np.complex128) + a.real)
    same(host(x * c64), plain_mul(a, a.astype(np.complex64).astype(np.complex128)))


# -- reductions ---------------------------------------------------------------------------------

def test_sum_prod_mean(dev):
    r = np.random.default_rng(7)
    ints = (r.integers(-1000, 1000, (6, 50)) + 1j * r.integers(-1000, 1000, (6, 50))).astype(np.complex128)
    x = up(ints, dev)
    same(host(xp.sum(x)), np.sum(ints))  # exact: integer-valued parts
    same(host(xp.sum(x, axis=1)), np.sum(ints, axis=1))
    same(host(xp.sum(x[:, ::3], axis=0)), np.sum(ints[:, ::3], axis=0))
    same(host(xp.sum(up([complex(-0.0, -0.0)], dev))), np.sum(np.array([complex(-0.0, -0.0)])))
    same(host(xp.mean(up([1 + 2j, 3 - 1j, 0.5j, -2 + 0j], dev))), np.mean(np.array([1 + 2j, 3 - 1j, 0.5j, -2 + 0j])))
    small = np.array([1 + 1j, 2 - 0.5j, -0.5 + 3j, 1j, 2 + 0j])
    same(host(xp.prod(up(small, dev))), np.prod(small))  # exact: short binary fractions
    z = _moderate(300, 8, -3, 3)
    got = complex(xp.mean(up(z, dev)))
    want = complex(math.fsum(z.real) / 300, math.fsum(z.imag) / 300)
    assert abs(got - want) <= 1e-14 * np.abs(z).sum() / 300
    same(host(xp.sum(up(np.array([complex(inf, 1), complex(-inf, 1)]), dev))), np.array(complex(nan, 2.0)))


def test_cumulative_sum_and_any(dev):
    a = np.array([1 + 2j, -3.5 + 0.25j, complex(-0.0, 5e-324), 0j])
    x = up(a, dev)
    same(host(xp.cumulative_sum(x)), np.cumsum(a))
    b = np.array([1 + 2j, -3.5 + 0.25j, 0.5 - 2j, 2j, -1.5 + 0j])  # exact products, any order
    same(host(xp.cumulative_prod(up(b, dev))), np.cumprod(b))
    same(host(xp.diff(x)), np.diff(a))
    assert bool(xp.any(x)) and not bool(xp.all(x))
    assert host(xp.nonzero(x)[0]).tolist() == [0, 1, 2]


@pytest.mark.parametrize("n", [600, 5000])
def test_long_cumulative_sum_of_several_chunks(dev, n):
    """Rows longer than one chunk (a chunk's totals, their scan, the carries): the scan kernel
    for complex128 fits the workgroup memory that a browser offers (32 KiB; it took 37 before),
    and each prefix is within a float64 scan's bound of the exact one, part by part."""
    rng = np.random.default_rng(n)
    a = rng.random((3, n)) * 100 + 1j * (rng.random((3, n)) - 0.5)
    rows = host(xp.cumulative_sum(up(a, dev), axis=1))
    cols = host(xp.cumulative_sum(up(a.T, dev), axis=0)).T  # column layout: other groups
    for got in (rows, cols):
        assert got.dtype == np.complex128
        for part in (np.real, np.imag):
            exact = np.cumsum(part(a).astype(np.longdouble), axis=1).astype(np.float64)
            bound = 64 * np.finfo(np.float64).eps * np.cumsum(np.abs(part(a)), axis=1)
            assert (np.abs(part(got) - exact) <= bound).all()


# -- fusion on and off --------------------------------------------------------------------------

@pytest.mark.parametrize("fused", [True, False])
def test_fusion_on_and_off(dev, fused):
    a, b = _moderate(64, 9), _moderate(64, 10)
    with fusion.enabled(fused):
        x, y = up(a, dev), up(b, dev)
        got = host(xp.conj(x * y + x) - 0.5j)
        sums = host(xp.sum(x + y))
    want = np.conj(plain_mul(a, b) + a) - 0.5j
    same(got, want)
    assert ulps(sums.reshape(1), np.array([np.sum(a + b)])) <= 64


# -- products, term by term ----------------------------------------------------------------------

def test_matmul_vecdot_tensordot(dev):
    r = np.random.default_rng(11)
    ints = lambda *s: (r.integers(-50, 50, s) + 1j * r.integers(-50, 50, s)).astype(np.complex128)
    a, b = ints(2, 3, 5), ints(5, 4)
    x, y = up(a, dev), up(b, dev)
    same(host(x @ y), a @ b)  # exact: integer-valued parts
    same(host(y.mT @ x.mT), b.T @ a.transpose(0, 2, 1))
    same(host(x[0, 0] @ y), a[0, 0] @ b)
    same(host(x @ y[:, 1]), a @ b[:, 1])
    same(host(xp.vecdot(x, x)), np.sum(np.conj(a) * a, axis=-1))
    same(host(xp.vecdot(x[:, :, :4], y[:4, :3].mT, axis=-1)), np.sum(np.conj(a[:, :, :4]) * b[:4, :3].T, axis=-1))
    same(host(xp.tensordot(x, y, axes=1)), np.tensordot(a, b, axes=1))
    same(host(xp.astype(xp.asarray(a.real.copy(), device=dev), xp.float64) @ y), a.real @ b)
    p, q = _moderate(48, 12, -2, 2).reshape(6, 8), _moderate(40, 13, -2, 2).reshape(8, 5)
    got = host(up(p, dev) @ up(q, dev))
    bound = 16 * np.finfo(np.float64).eps * (np.abs(p) @ np.abs(q))
    assert (np.abs(got - p @ q) <= bound).all()
    with pytest.raises(TypeError, match="complex128 product of .* terms"):
        xp.ones((300, 300), dtype=xp.complex128, device=dev) @ xp.ones((300, 300), dtype=xp.complex128, device=dev)


# -- what complex128 does not have yet says so --------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(cvalues, st.integers(0, 3))
def test_unique_and_isin(dev, values, repeat):
    """unique_* as the standard says (every value with a NaN part its own group, -0.0 with
    +0.0), in NumPy's order (by real part, then imaginary part), and isin as np.isin."""
    v = np.array(values * (repeat + 1), dtype=np.complex128)
    x = up(v, dev)
    u = xp.unique_all(x)
    vals, idx, inv, counts = (host(t) for t in u)
    assert np.array_equal(vals[inv], v, equal_nan=True)  # its group holds its value (±0 alike)
    same(v[idx], vals)
    assert counts.sum() == v.size
    has_nan = np.isnan(vals.real) | np.isnan(vals.imag)
    assert (counts[has_nan] == 1).all() and has_nan.sum() == (np.isnan(v.real) | np.isnan(v.imag)).sum()
    plain = vals[~has_nan]
    assert np.array_equal(plain, np.unique(v[~(np.isnan(v.real) | np.isnan(v.imag))]))
    assert np.array_equal(counts[~has_nan], [np.sum(v == w) for w in plain])
    same(host(xp.unique_values(x)), vals)
    q = np.array(values[::2] + [complex(1.0, 0.5), 0j], dtype=np.complex128)
    assert np.array_equal(host(xp.isin(up(q, dev), x)), np.isin(q, v))
    assert np.array_equal(host(xp.isin(up(q, dev), x, invert=True)), ~np.isin(q, v))


def test_unique_and_isin_past_the_radix_crossover(dev):
    rng = np.random.default_rng(1)
    v = rng.integers(-20, 20, 5000) + 1j * rng.integers(0, 3, 5000) * 0.5  # radix sort's rows
    x = up(v, dev)
    vals, counts = (host(t) for t in xp.unique_counts(x))
    want_vals, want_counts = np.unique(v, return_counts=True)
    assert np.array_equal(vals, want_vals) and np.array_equal(counts, want_counts)
    q = v[:300] + 0.25j * (np.arange(300) % 3)
    assert np.array_equal(host(xp.isin(up(q, dev), x)), np.isin(q, v))


def test_refusals(dev):
    x = up([1 + 2j, 3 - 1j, 0.5j, -2 + 0j], dev)
    with pytest.raises(TypeError, match="floor requires an array with a real numeric data type, got complex128"):
        xp.floor(x)
    with pytest.raises(TypeError, match="complex128"):
        xp.sort(x)
    same(host(x + x), np.array([2 + 4j, 6 - 2j, 1j, -4 + 0j]))  # the device keeps working


@pytest.fixture(scope="module")
def staged():
    """A software-lane device running ops.STAGED's functions in several kernels, as a
    browser does."""
    d = Device(default_device().executor, float64=True, float64_lane="software")
    d.staged = True
    return d


@pytest.mark.parametrize("name", sorted(name for name, lane in STAGED if lane == "Z"))
def test_staged_functions_give_the_whole_functions_bits(dev, staged, name):
    """A browser runs these as two to thirteen kernels with the sine and cosine, the
    exponential, (sinh, cosh), the logarithm, the angle or the roots between them (ops.STAGED,
    launch._staged) on the software lane: the bits of the whole function on the default lane
    (lavapipe's own 64-bit floats, whose kernels the tests above compiled: the software
    lane's whole complex128 functions take minutes to compile there), special values and
    large parts included; pow with exponents of each of its cases (0, integers below 100 by
    binary powering, the rest e^(w ln z))."""
    from webarray._core import launch

    a = _moderate(400, 3)
    z = np.concatenate([EDGE, a, a * 30, a.imag * 25 + 1j * a.real, [710.2 + 3j, -709.8 - 1j, 22.5 + 0.1j]])
    args = (z,)
    if name == "pow":
        w = np.array([0, -0.0, 1, 2, 3, -1, -2, 7, -99, 99, 100, 0.5, 2.5 + 1j, 1j, -3 + 0.5j,
                      complex(np.nan, 0), complex(np.inf, 0), complex(0, np.inf), 1e300])
        w = np.concatenate([w, a[:60] * 3])
        args = (np.repeat(z, len(w))[::7], np.tile(w, len(z))[::7])
    before = launch.launches
    whole = host(getattr(xp, name)(*(up(v, dev) for v in args)))
    one = launch.launches - before
    before = launch.launches
    got = host(getattr(xp, name)(*(up(v, staged) for v in args)))
    assert launch.launches - before == one + len(STAGED[name, "Z"]) - 1  # the first stages
    same(got, whole)


def test_default_complex_follows_the_default_float(tmp_path):
    """WEBARRAY_DEFAULT_FLOAT=float64: Python complex values make complex128 arrays."""
    import os
    import sys

    script = tmp_path / "c128.py"
    script.write_text("import webarray as xp\n"
                      "info = xp.__array_namespace_info__()\n"
                      "assert info.default_dtypes()['complex floating'] == xp.complex128\n"
                      "assert xp.asarray([1j, 2]).dtype == xp.complex128\n"
                      "assert xp.full(2, 1j).dtype == xp.complex128\n"
                      "print('ok')\n")
    env = dict(os.environ, WEBARRAY_DEFAULT_FLOAT="float64")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr


# -- WebGL2: the helpers translate to GLSL ES 3.00 and compile ----------------------------------

def _helpers():
    from webarray.kernels.wgsl_lib import LIB

    return sorted(n for n in LIB if n.startswith("wa_z_"))


def test_every_helper_translates_to_glsl():
    from webarray.kernels.webgl2 import glsl_lib

    assert len(_helpers()) >= 20
    for name in _helpers():
        glsl_lib.translated(name)


@pytest.mark.skipif(shutil.which("glslangValidator") is None, reason="glslangValidator is not installed")
def test_translated_helpers_compile_as_glsl_es_300(tmp_path):
    from webarray.kernels.webgl2 import glsl_lib

    src = ("#version 300 es\nprecision highp float;\nprecision highp int;\n" + glsl_lib.helpers_for(_helpers())
           + "out vec4 o;\nvoid main() { o = vec4(0.0); }\n")
    path = tmp_path / "c128.frag"
    path.write_text(src)
    r = subprocess.run(["glslangValidator", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]
