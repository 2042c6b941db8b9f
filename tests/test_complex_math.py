"""complex64 math in WGSL (``kernels/wgsl_complex.py``), tested on its own.

Each op's complex lane of the op table runs in a raw kernel (pairs of float32 words in, pairs
or single words out) through the native executor, independent of the rest of webarray, and is
checked against:

- NumPy complex128 rounded to complex64, on random inputs drawn by hypothesis and on a seeded
  sweep of 2 x 10^4 points per range. The error of a point is the larger error of its two
  parts in float32 ULPs of |expected| (the spacing of float32 at the modulus of the expected
  complex value): the usual measure for complex functions, under which a part much smaller
  than the other may carry a larger relative error. ``TOLERANCE`` holds the bound per
  function (measured maxima plus a margin; ``python tests/test_complex_math.py`` prints them).
  NumPy's complex expm1 and log1p are the naive formulas, so their references are computed
  in float64 from cancellation-free formulas instead.
- The special cases the standard lists for complex operands, written out in ``SPECIAL`` line
  by line as the standard gives them (the functions it defines through others, e.g. asin as
  -1j * asinh(1j * x), through the same transformation of the other's table), checked
  exactly: NaN, infinities and zeros with their signs, except where the standard leaves a
  sign unspecified; multiples of π within 1 ULP of the float32 nearest to them.
- Points on and near the branch cuts, with the sign of every part exact.
- The symmetries the standard requires: f(conj(z)) == conj(f(z)) and oddness or evenness,
  bit for bit, on every combination of edge values.

    XDG_RUNTIME_DIR=/tmp python -m pytest tests/test_complex_math.py
    XDG_RUNTIME_DIR=/tmp python tests/test_complex_math.py     # measured max ULP per range
"""

from __future__ import annotations

import itertools
import math
import os

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webarray.executors.native import NativeExecutor
from webarray.kernels.ops import TABLE
from webarray.kernels.wgsl_lib import helpers_for

INF, NAN, PI = math.inf, math.nan, math.pi
FMAX = float(np.finfo(np.float32).max)

REAL_RESULT = {"abs", "real", "imag"}
BOOL_RESULT = {"isnan", "isinf", "isfinite", "equal", "not_equal"}
BINARY = {"add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"}


# -- running expressions on the device ---------------------------------------------------


class Runner:
    """Compiles a WGSL expression over complex arguments into a kernel and runs it."""

    def __init__(self) -> None:
        self.ex = NativeExecutor()

    def source(self, expr: str, nargs: int, kind: str) -> str:
        out = "u32" if kind == "b" else "f32"
        decls = ["@group(0) @binding(0) var<storage, read> params: array<u32>;"]
        decls += [f"@group(0) @binding({k + 1}) var<storage, read> in{k}: array<f32>;"
                  for k in range(nargs)]
        decls.append(f"@group(0) @binding({nargs + 1}) var<storage, read_write> out: array<{out}>;")
        e = expr.format(*(f"vec2<f32>(in{k}[2u * i], in{k}[2u * i + 1u])" for k in range(nargs)))
        store = {
            "c": f"let r = {e};\n    out[2u * i] = r.x;\n    out[2u * i + 1u] = r.y;",
            "f": f"out[i] = {e};",
            "b": f"out[i] = select(0u, 1u, {e});",
        }[kind]
        body = "\n".join(decls) + f"""
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i >= params[0]) {{ return; }}
    {store}
}}
"""
        return helpers_for(body) + body

    def __call__(self, expr: str, kind: str, *args) -> np.ndarray:
        args = [np.ascontiguousarray(a, dtype=np.complex64).ravel() for a in args]
        n = args[0].size
        kernel = self.ex.compile(self.source(expr, len(args), kind))
        handles = []
        for a in args:
            h = self.ex.alloc(a.nbytes)
            self.ex.write(h, 0, a.view(np.float32).tobytes())
            handles.append(h)
        out_words = 2 * n if kind == "c" else n
        out = self.ex.alloc(4 * out_words)
        handles.append(out)
        grid = ((n + 63) // 64, 1, 1)
        self.ex.dispatch(kernel, handles, np.array([n], np.uint32).tobytes(), grid)
        raw = self.ex.read(out, 0, 4 * out_words)
        for h in handles:
            self.ex.free(h)
        if kind == "c":
            return np.frombuffer(raw, np.float32).view(np.complex64).copy()
        if kind == "f":
            return np.frombuffer(raw, np.float32).copy()
        return np.frombuffer(raw, np.uint32).astype(bool)


_RUNNER: Runner | None = None


def runner() -> Runner:
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = Runner()
    return _RUNNER


def kind_of(op: str) -> str:
    return "b" if op in BOOL_RESULT else "f" if op in REAL_RESULT else "c"


def run(op: str, *args) -> np.ndarray:
    if not args[0].size:
        return np.empty(0, {"c": np.complex64, "f": np.float32, "b": bool}[kind_of(op)])
    return runner()(TABLE[op].wgsl["c"], kind_of(op), *args)


def cplx(re, im) -> np.ndarray:
    """complex64 array from parts, keeping signed zeros and NaNs (complex() does not)."""
    re, im = np.broadcast_arrays(np.asarray(re, np.float32), np.asarray(im, np.float32))
    out = np.empty(re.shape, np.complex64)
    out.real, out.imag = re, im
    return out


# -- references --------------------------------------------------------------------------


def _c128(re, im):
    """complex128 from parts (re + 1j * im would lose the sign of a zero im)."""
    out = np.empty(np.shape(re), np.complex128)
    out.real, out.imag = re, im
    return out


def _expm1_ref(z):
    a, b = z.real, z.imag
    return _c128(np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2, np.exp(a) * np.sin(b))


def _log1p_ref(z):
    a, b = z.real, z.imag
    q = (1 + a) ** 2 + b * b
    near = (q > 0.5) & (q < 2)
    re = np.where(near, 0.5 * np.log1p(2 * a + a * a + b * b), np.log(np.hypot(1 + a, b)))
    return _c128(re, np.arctan2(b, 1 + a))


REFERENCE = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "pow": np.power, "positive": np.positive, "negative": np.negative, "square": np.square,
    "reciprocal": lambda z: 1 / z, "abs": np.abs, "sign": np.sign, "round": np.round,
    "sqrt": np.sqrt, "exp": np.exp, "expm1": _expm1_ref, "log": np.log, "log1p": _log1p_ref,
    "log2": np.log2, "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "conj": np.conj, "real": np.real, "imag": np.imag, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "equal": np.equal, "not_equal": np.not_equal,
}


def reference(op: str, *args) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(REFERENCE[op](*(a.astype(np.complex128) for a in args)))


def ulp32(x: np.ndarray) -> np.ndarray:
    """Spacing of float32 numbers in the binade of x >= 0 (float64; subnormal spacing below)."""
    x = np.minimum(np.asarray(x, np.float64), FMAX)
    _, e = np.frexp(x)
    return np.ldexp(1.0, np.maximum(e - 1, -126) - 23)


def ulp_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per point: max over parts of |got - ref| in float32 ULPs of |ref|; inf where a NaN or
    an infinity of the reference is not matched. A float32 infinity counts as ±2^128 and a
    reference beyond it as ±2^128, so that what rounds to infinity may be infinite."""
    got = np.atleast_1d(got)
    ref = np.atleast_1d(ref)
    parts = [(got.real, ref.real), (got.imag, ref.imag)] if np.iscomplexobj(ref) else [(got, ref)]
    with np.errstate(all="ignore"):
        scale = ulp32(np.abs(ref))
        err = np.zeros(ref.shape)
        for g, r in parts:
            g = g.astype(np.float64)
            r = np.asarray(r, np.float64)
            nan_r, nan_g = np.isnan(r), np.isnan(g)
            g = np.where(np.isinf(g), np.copysign(2.0**128, g), g)
            e = np.abs(g - np.clip(r, -2.0**128, 2.0**128)) / scale
            e = np.where(np.isinf(r), np.where(g == np.copysign(2.0**128, r), 0.0, np.inf), e)
            e = np.where(nan_r | nan_g, np.where(nan_r & nan_g, 0.0, np.inf), e)
            err = np.maximum(err, e)
    return err


# -- input ranges --------------------------------------------------------------------------
# A range draws the two parts of each point (and of the second argument of binary ops).


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def _magnitudes(lo_exp, hi_exp):
    """±10^u, u uniform: every binade of the range equally often."""
    return lambda rng, n: rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(lo_exp, hi_exp, n)


def _near_unit_circle(rng, n):
    """Points within 10^-6..10^-1 of |z| = 1, where ln|z| cancels (log, atanh, acos...)."""
    t = rng.uniform(-PI, PI, n)
    r = 1 + rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-6, -1, n)
    return r * np.cos(t), r * np.sin(t)


def _parts(re, im):
    return lambda rng, n: (re(rng, n), im(rng, n))


MODERATE = {
    "unit": _parts(_uniform(-3, 3), _uniform(-3, 3)),
    "moderate": _parts(_magnitudes(-5, 5), _magnitudes(-5, 5)),
}
NEAR_ONE = {"near |z|=1": _near_unit_circle}
WIDE = {"wide": _parts(_magnitudes(-44, 38.5), _magnitudes(-44, 38.5))}
EXP_LIKE = {  # real part drives e^a: up to and past the float32 range
    "unit": _parts(_uniform(-3, 3), _uniform(-3, 3)),
    "moderate": _parts(_uniform(-20, 20), _magnitudes(-5, 3)),
    "overflow": _parts(_uniform(80, 200), _magnitudes(-45, 1)),
    "underflow": _parts(_uniform(-200, -80), _magnitudes(-5, 1)),
}
SWAPPED = {k: (lambda f: lambda rng, n: f(rng, n)[::-1])(f) for k, f in EXP_LIKE.items()}
BASE = _parts(_magnitudes(-2, 2), _magnitudes(-2, 2))
EXPONENT = _parts(_uniform(-6, 6), _uniform(-6, 6))

RANGES = {
    **{op: MODERATE for op in ["add", "subtract", "multiply", "square", "round", "conj", "real",
                               "imag", "positive", "negative"]},
    **{op: {**MODERATE, "huge": _parts(_magnitudes(36, 38.5), _magnitudes(36, 38.5))}
       for op in ["divide", "reciprocal"]},
    **{op: {**MODERATE, **WIDE} for op in ["abs", "sign", "sqrt"]},
    **{op: {**MODERATE, **NEAR_ONE, **WIDE} for op in ["log", "log2", "log10", "acos", "acosh",
                                                       "asin", "asinh", "atan", "atanh"]},
    "log1p": {**MODERATE, "small": _parts(_magnitudes(-30, -1), _magnitudes(-30, -1)),
              "near |1+z|=1": lambda rng, n: (lambda x, y: (x - 1, y))(*_near_unit_circle(rng, n)),
              **WIDE},
    "exp": EXP_LIKE, "sinh": EXP_LIKE, "cosh": EXP_LIKE, "tanh": EXP_LIKE,
    "expm1": {**EXP_LIKE, "small": _parts(_magnitudes(-30, -1), _magnitudes(-30, -1))},
    "sin": SWAPPED, "cos": SWAPPED, "tan": SWAPPED,
    "pow": {"moderate": BASE},
}

# Max error in float32 ULPs of |expected| (see the module docstring), per function: the
# measured maximum over the sweep ranges, rounded up, plus a margin for unseen points.
TOLERANCE = {
    "add": 0.5, "subtract": 0.5, "multiply": 1.5, "divide": 3.0, "square": 1.5,
    "reciprocal": 2.0, "round": 0.0, "conj": 0.0, "real": 0.0, "imag": 0.0, "positive": 0.0,
    "negative": 0.0, "abs": 1.0, "sign": 2.0, "sqrt": 2.0,
    "exp": 1.5, "expm1": 3.5, "log": 1.5, "log1p": 2.5, "log2": 3.0, "log10": 3.0,
    "sin": 2.5, "cos": 2.5, "tan": 4.0, "sinh": 2.5, "cosh": 2.5, "tanh": 4.0,
    "asin": 4.0, "acos": 3.5, "atan": 3.0, "asinh": 4.0, "acosh": 3.5, "atanh": 3.5,
    "pow": 5.0,
}


def draw(op: str, sampler, rng, n: int) -> tuple[np.ndarray, ...]:
    args = [cplx(*sampler(rng, n))]
    if op in BINARY:
        args.append(cplx(*(EXPONENT if op == "pow" else sampler)(rng, n)))
    return tuple(args)


def measure(op: str, args) -> np.ndarray:
    return ulp_errors(run(op, *args), reference(op, *args))


# -- accuracy against NumPy ----------------------------------------------------------------

ACCURACY_OPS = sorted(TOLERANCE)


@pytest.mark.parametrize("op", ACCURACY_OPS)
def test_sweep_against_numpy(op):
    rng = np.random.default_rng(sum(map(ord, op)))
    for name, sampler in RANGES[op].items():
        args = draw(op, sampler, rng, 20000)
        err = measure(op, args)
        worst = int(np.argmax(err))
        assert err[worst] <= TOLERANCE[op], (
            f"{op} on {name}: {err[worst]:.3g} ULP at {[a[worst] for a in args]}: got "
            f"{run(op, *(a[worst:worst + 1] for a in args))[0]}, expected "
            f"{reference(op, *(a[worst:worst + 1] for a in args))[0]}")


def _part(limit: float):
    return st.floats(-limit, limit, width=32)


def _points(op: str):
    if op in ("exp", "expm1", "sinh", "cosh", "tanh"):
        pair = st.tuples(_part(100), _part(1e4))
    elif op in ("sin", "cos", "tan"):
        pair = st.tuples(_part(1e4), _part(100))
    elif op == "pow":
        pair = st.tuples(_part(100), _part(100)).filter(lambda p: p != (0.0, 0.0))
    else:
        pair = st.tuples(_part(1e6), _part(1e6))
    return st.lists(pair, min_size=1, max_size=32)


@pytest.mark.parametrize("op", ACCURACY_OPS)
def test_random_against_numpy(op):
    @given(data=st.data())
    def check(data):
        xs = data.draw(_points(op))
        args = [cplx(*np.array(xs).T)]
        if op in BINARY:
            other = (st.tuples(_part(6), _part(6)) if op == "pow"
                     else st.tuples(_part(1e6), _part(1e6)))
            args.append(cplx(*np.array(data.draw(st.lists(other, min_size=len(xs),
                                                            max_size=len(xs)))).T))
        err = measure(op, args)
        assert err.max() <= TOLERANCE[op], (op, args, run(op, *args), reference(op, *args), err)

    check()


# -- special cases of the standard ---------------------------------------------------------

POS = [float(np.float32(v)) for v in (1e-40, 0.5, 1.0, 2.0, 3.0, 1e30, FMAX)]  # 1e-40: subnormal
SETS = {
    "+0": [0.0], "-0": [-0.0], "±0": [0.0, -0.0], "+inf": [INF], "-inf": [-INF],
    "±inf": [INF, -INF], "NaN": [NAN], "1": [1.0], "-1": [-1.0],
    "pos": POS,                                          # a positive finite number
    "nzfin": POS + [-v for v in POS],                    # a nonzero finite number
    "fin": [0.0, -0.0] + POS + [-v for v in POS],        # a finite number
    "nz": POS + [-v for v in POS] + [INF, -INF],         # not equal to 0 (besides NaN)
    "any": [0.0, -0.0] + POS + [-v for v in POS] + [INF, -INF, NAN],
}
EDGES = SETS["any"]

# An expected part: (value, sign unspecified). "0?" and "inf?" leave the sign open.
_VALUES = {"+0": 0.0, "-0": -0.0, "0?": 0.0, "+inf": INF, "-inf": -INF, "inf?": INF,
           "NaN": NAN, "1": 1.0, "-1": -1.0, "π": PI, "π/2": PI / 2, "π/2?": PI / 2,
           "π/4": PI / 4, "3π/4": 3 * PI / 4}


def _value(token: str) -> tuple[float, bool]:
    return _VALUES[token], token.endswith("?")


def _const(re: str, im: str | None = None):
    parts = (_value(re),) if im is None else (_value(re), _value(im))
    return lambda a, b: parts


def _exact(fn):
    """An expectation computed from the operand, every sign specified."""
    return lambda a, b: tuple((v, False) for v in fn(a, b))


ZERO_CIS = _exact(lambda a, b: (0.0 * math.cos(b), 0.0 * math.sin(b)))          # +0 * cis(b)
INF_CIS = _exact(lambda a, b: (INF * math.cos(b), INF * math.sin(b)))           # +inf * cis(b)
ZERO_CIS_M1 = _exact(lambda a, b: (0.0 * math.cos(b) - 1.0, 0.0 * math.sin(b)))  # ... - 1.0
INF_CIS_M1 = _exact(lambda a, b: (INF * math.cos(b) - 1.0, INF * math.sin(b)))

NN = _const("NaN", "NaN")

# (real part, imaginary part, result) per function, in the standard's order. Where two lines
# of the standard overlap, the earlier one wins (as in C99) and the later one is narrowed.
SPECIAL = {
    "abs": [
        ("±inf", "any", _const("+inf")),
        ("any", "±inf", _const("+inf")),
        ("±0", "fin", _exact(lambda a, b: (abs(b),))),
        ("±0", "NaN", _const("NaN")),
        ("fin", "±0", _exact(lambda a, b: (abs(a),))),
        ("NaN", "±0", _const("NaN")),
        ("NaN", "fin", _const("NaN")),
        ("fin", "NaN", _const("NaN")),
        ("NaN", "NaN", _const("NaN")),
    ],
    "acos": [
        ("±0", "+0", _const("π/2", "-0")),
        ("±0", "NaN", _const("π/2", "NaN")),
        ("fin", "+inf", _const("π/2", "-inf")),
        ("nzfin", "NaN", NN),
        ("-inf", "pos", _const("π", "-inf")),
        ("+inf", "pos", _const("+0", "-inf")),
        ("-inf", "+inf", _const("3π/4", "-inf")),
        ("+inf", "+inf", _const("π/4", "-inf")),
        ("±inf", "NaN", _const("NaN", "inf?")),
        ("NaN", "fin", NN),
        ("NaN", "+inf", _const("NaN", "-inf")),
        ("NaN", "NaN", NN),
    ],
    "acosh": [
        ("±0", "+0", _const("+0", "π/2")),
        ("fin", "+inf", _const("+inf", "π/2")),
        ("nzfin", "NaN", NN),
        ("+0", "NaN", _const("NaN", "π/2?")),
        ("-inf", "pos", _const("+inf", "π")),
        ("+inf", "pos", _const("+inf", "+0")),
        ("-inf", "+inf", _const("+inf", "3π/4")),
        ("+inf", "+inf", _const("+inf", "π/4")),
        ("±inf", "NaN", _const("+inf", "NaN")),
        ("NaN", "fin", NN),
        ("NaN", "+inf", _const("+inf", "NaN")),
        ("NaN", "NaN", NN),
    ],
    "asinh": [
        ("+0", "+0", _const("+0", "+0")),
        ("pos", "+inf", _const("+inf", "π/2")),
        ("fin", "NaN", NN),
        ("+inf", "pos", _const("+inf", "+0")),
        ("+inf", "+inf", _const("+inf", "π/4")),
        ("NaN", "+0", _const("NaN", "+0")),
        ("NaN", "nzfin", NN),
        ("NaN", "+inf", _const("inf?", "NaN")),
        ("NaN", "NaN", NN),
    ],
    "atanh": [
        ("+0", "+0", _const("+0", "+0")),
        ("+0", "NaN", _const("+0", "NaN")),
        ("1", "+0", _const("+inf", "+0")),
        ("pos", "+inf", _const("+0", "π/2")),
        ("nzfin", "NaN", NN),
        ("+inf", "pos", _const("+0", "π/2")),
        ("+inf", "+inf", _const("+0", "π/2")),
        ("+inf", "NaN", _const("+0", "NaN")),
        ("NaN", "fin", NN),
        ("NaN", "+inf", _const("0?", "π/2")),
        ("NaN", "NaN", NN),
    ],
    "cosh": [
        ("+0", "+0", _const("1", "+0")),
        ("+0", "+inf", _const("NaN", "0?")),
        ("+0", "NaN", _const("NaN", "0?")),
        ("nzfin", "+inf", NN),
        ("nzfin", "NaN", NN),
        ("+inf", "+0", _const("+inf", "+0")),
        ("+inf", "nzfin", INF_CIS),
        ("+inf", "+inf", _const("inf?", "NaN")),
        ("+inf", "NaN", _const("+inf", "NaN")),
        ("NaN", "±0", _const("NaN", "0?")),
        ("NaN", "nzfin", NN),
        ("NaN", "NaN", NN),
    ],
    "exp": [
        ("±0", "+0", _const("1", "+0")),
        ("fin", "+inf", NN),
        ("fin", "NaN", NN),
        ("+inf", "+0", _const("+inf", "+0")),
        ("-inf", "fin", ZERO_CIS),
        ("+inf", "nzfin", INF_CIS),
        ("-inf", "+inf", _const("0?", "0?")),
        ("+inf", "+inf", _const("inf?", "NaN")),
        ("-inf", "NaN", _const("0?", "0?")),
        ("+inf", "NaN", _const("inf?", "NaN")),
        ("NaN", "+0", _const("NaN", "+0")),
        ("NaN", "nz", NN),
        ("NaN", "NaN", NN),
    ],
    "expm1": [
        ("±0", "+0", _const("+0", "+0")),  # "0 + 0j", read as +0 like array-api-tests
        ("fin", "+inf", NN),
        ("fin", "NaN", NN),
        ("+inf", "+0", _const("+inf", "+0")),
        ("-inf", "fin", ZERO_CIS_M1),
        ("+inf", "nzfin", INF_CIS_M1),
        ("-inf", "+inf", _const("-1", "0?")),
        ("+inf", "+inf", _const("inf?", "NaN")),
        ("-inf", "NaN", _const("-1", "0?")),
        ("+inf", "NaN", _const("inf?", "NaN")),
        ("NaN", "+0", _const("NaN", "+0")),
        ("NaN", "nz", NN),
        ("NaN", "NaN", NN),
    ],
    "log": [
        ("-0", "+0", _const("-inf", "π")),
        ("+0", "+0", _const("-inf", "+0")),
        ("fin", "+inf", _const("+inf", "π/2")),
        ("fin", "NaN", NN),
        ("-inf", "pos", _const("+inf", "π")),
        ("+inf", "pos", _const("+inf", "+0")),
        ("-inf", "+inf", _const("+inf", "3π/4")),
        ("+inf", "+inf", _const("+inf", "π/4")),
        ("±inf", "NaN", _const("+inf", "NaN")),
        ("NaN", "fin", NN),
        ("NaN", "+inf", _const("+inf", "NaN")),
        ("NaN", "NaN", NN),
    ],
    "log1p": [
        ("-1", "+0", _const("-inf", "+0")),
        ("fin", "+inf", _const("+inf", "π/2")),
        ("fin", "NaN", NN),
        ("-inf", "pos", _const("+inf", "π")),
        ("+inf", "pos", _const("+inf", "+0")),
        ("-inf", "+inf", _const("+inf", "3π/4")),
        ("+inf", "+inf", _const("+inf", "π/4")),
        ("±inf", "NaN", _const("+inf", "NaN")),
        ("NaN", "fin", NN),
        ("NaN", "+inf", _const("+inf", "NaN")),
        ("NaN", "NaN", NN),
    ],
    "sign": [
        ("±0", "±0", _const("+0", "+0")),  # "0 + 0j"
        ("NaN", "any", NN),
        ("any", "NaN", NN),
    ],
    "sinh": [
        ("+0", "+0", _const("+0", "+0")),
        ("+0", "+inf", _const("0?", "NaN")),
        ("+0", "NaN", _const("0?", "NaN")),
        ("pos", "+inf", NN),
        ("pos", "NaN", NN),
        ("+inf", "+0", _const("+inf", "+0")),
        ("+inf", "pos", INF_CIS),
        ("+inf", "+inf", _const("inf?", "NaN")),
        ("+inf", "NaN", _const("inf?", "NaN")),
        ("NaN", "+0", _const("NaN", "+0")),
        ("NaN", "nzfin", NN),
        ("NaN", "NaN", NN),
    ],
    "sqrt": [
        ("±0", "+0", _const("+0", "+0")),
        ("any", "+inf", _const("+inf", "+inf")),
        ("fin", "NaN", NN),
        ("-inf", "pos", _const("+0", "+inf")),
        ("+inf", "pos", _const("+inf", "+0")),
        ("-inf", "NaN", _const("NaN", "inf?")),
        ("+inf", "NaN", _const("+inf", "NaN")),
        ("NaN", "fin", NN),  # "any value": +inf is taken by the second line
        ("NaN", "NaN", NN),
    ],
    "tanh": [
        ("+0", "+0", _const("+0", "+0")),
        ("nzfin", "+inf", NN),
        ("+0", "+inf", _const("+0", "NaN")),
        ("nzfin", "NaN", NN),
        ("+0", "NaN", _const("+0", "NaN")),
        ("+inf", "pos", _const("1", "+0")),
        ("+inf", "+inf", _const("1", "0?")),
        ("+inf", "NaN", _const("1", "0?")),
        ("NaN", "+0", _const("NaN", "+0")),
        ("NaN", "nz", NN),
        ("NaN", "NaN", NN),
    ],
}


def _rotated(cases, times_minus_i: bool):
    """Cases of f(z) = g(1j * z) (times -1j if times_minus_i) from the cases of g: an operand
    (p, q) of g is 1j * (a + bj) = (-b, a)."""
    out = []
    for p_cond, q_cond, expect in cases:
        a_set = SETS[q_cond]
        b_set = [-v for v in SETS[p_cond]]

        def rotated_expect(a, b, expect=expect):
            u, v = expect(-b, a)
            if not times_minus_i:
                return u, v
            return v, (-u[0], u[1])

        out.append((a_set, b_set, rotated_expect))
    return out


def _scaled(cases, factor):
    def scale(part):
        return (part[0] * factor, part[1])

    return [(SETS[a], SETS[b], lambda a, b, e=e: tuple(map(scale, e(a, b)))) for a, b, e in cases]


def special_cases(op: str):
    if op in ("asin", "sin", "tan", "atan", "cos"):
        base = {"asin": "asinh", "sin": "sinh", "tan": "tanh", "atan": "atanh", "cos": "cosh"}[op]
        return _rotated(SPECIAL[base], times_minus_i=op != "cos")
    if op in ("log2", "log10"):
        return _scaled(SPECIAL["log"], 1 / math.log(2 if op == "log2" else 10))
    return [(SETS[a], SETS[b], e) for a, b, e in SPECIAL[op]]


def check_part(got: float, want: float, any_sign: bool) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    if any_sign:
        got, want = abs(got), abs(want)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= ulp32(abs(want))  # a multiple of π: within 1 ULP


SPECIAL_OPS = sorted(set(SPECIAL) | {"asin", "sin", "tan", "atan", "cos", "log2", "log10"})


@pytest.mark.parametrize("op", SPECIAL_OPS)
def test_special_cases(op):
    cases = special_cases(op)
    points = [(a, b, e) for a_set, b_set, e in cases for a in a_set for b in b_set]
    z = cplx([p[0] for p in points], [p[1] for p in points])
    got = run(op, z)
    bad = []
    for (a, b, expect), g in zip(points, got):
        want = expect(a, b)
        parts = (float(g),) if kind_of(op) == "f" else (float(g.real), float(g.imag))
        if not all(check_part(gp, wp, s) for gp, (wp, s) in zip(parts, want)):
            bad.append(f"{op}({a!r}, {b!r}) = {parts}, expected {want}")
    assert not bad, "\n".join(bad[:20])


def _grid():
    re, im = zip(*itertools.product(EDGES, EDGES))
    return cplx(re, im)


def same_bits(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Equal as IEEE values with signed zeros told apart; every NaN equals every NaN."""
    x, y = np.asarray(x), np.asarray(y)
    if np.iscomplexobj(x):
        return same_bits(x.real, y.real) & same_bits(x.imag, y.imag)
    both_nan = np.isnan(x) & np.isnan(y)
    return both_nan | ((x == y) & (np.signbit(x) == np.signbit(y)))


def assert_same_bits(got, want, *inputs, what=""):
    ok = same_bits(got, want)
    bad = np.flatnonzero(~ok)[:10]
    assert ok.all(), f"{what}: {(~ok).sum()} mismatches\n" + "\n".join(
        f"  {[x[i] for x in inputs]} -> {got[i]!r}, expected {want[i]!r}" for i in bad)


def test_classification_and_equality():
    z = _grid()
    a, b = z.real, z.imag
    # the standard's rules, line by line
    assert np.array_equal(run("isnan", z), np.isnan(a) | np.isnan(b))
    assert np.array_equal(run("isinf", z), np.isinf(a) | np.isinf(b))
    assert np.array_equal(run("isfinite", z), np.isfinite(a) & np.isfinite(b))
    x, y = (np.repeat(z, z.size), np.tile(z, z.size))
    no_nan = ~(np.isnan(x.real) | np.isnan(x.imag) | np.isnan(y.real) | np.isnan(y.imag))
    eq = no_nan & (x.real == y.real) & (x.imag == y.imag)
    assert np.array_equal(run("equal", x, y), eq)
    assert np.array_equal(run("not_equal", x, y), ~eq)


def _pairs():
    z = _grid()
    return np.repeat(z, z.size), np.tile(z, z.size)


def _f32(v):
    return np.asarray(v, np.float32)


def test_add_subtract_are_componentwise():
    x, y = _pairs()
    with np.errstate(all="ignore"):
        assert_same_bits(run("add", x, y), cplx(_f32(x.real) + y.real, _f32(x.imag) + y.imag),
                         x, y, what="add")
        assert_same_bits(run("subtract", x, y), cplx(_f32(x.real) - y.real, _f32(x.imag) - y.imag),
                         x, y, what="subtract")


def _plain_product(x, y):
    a, b, c, d = (_f32(v) for v in (x.real, x.imag, y.real, y.imag))
    return cplx(a * c - b * d, a * d + b * c)


def _scaled_divisor(c, d):
    """(c, d) 2^-e with the larger part in [1, 2), and e (0 for a zero or non-finite divisor)."""
    m = np.maximum(np.abs(c), np.abs(d))
    ok = np.isfinite(c) & np.isfinite(d) & (m > 0)
    e = np.where(ok, np.frexp(np.where(ok, m, 1))[1] - 1, 0)
    return np.ldexp(c, -e).astype(np.float32), np.ldexp(d, -e).astype(np.float32), e, ok


def _smith(x, y, dividend_one=False):
    """Smith's algorithm in float32 as wa_cdiv computes x / y (or wa_creciprocal 1 / y, x
    unused): the divisor scaled into [1, 2), a dividend above 2^125 halved, one below 2^-100
    scaled up by up to 2^64 of the divisor's scale, quotients divided, scaled back."""
    c0, d0 = _f32(y.real), _f32(y.imag)
    a, b = (np.ones_like(c0), np.zeros_like(c0)) if dividend_one else (_f32(x.real), _f32(x.imag))
    c, d, e, ok = _scaled_divisor(c0, d0)
    m = np.maximum(np.abs(a), np.abs(b))
    big = ok & (m > 2.0**125) & (not dividend_one)
    a, b = (np.where(big, v * np.float32(0.5), v) for v in (a, b))
    k = -e + big
    up = np.where(ok & ~big & (k > 0) & (m < 2.0**-100) & (not dividend_one), np.minimum(k, 64), 0)
    a, b = (np.ldexp(v, up).astype(np.float32) for v in (a, b))
    k = k - up
    big_c = np.abs(c) >= np.abs(d)
    r = np.where(big_c, d / c, c / d)
    den = np.where(big_c, c + d * r, c * r + d)
    if dividend_one:  # written out: 1 / den and -r / den, as conj(z) / |z|^2
        re = np.where(big_c, 1 / den, r / den)
        im = np.where(big_c, -r / den, -1 / den)
    else:
        re = np.where(big_c, (a + b * r) / den, (a * r + b) / den)
        im = np.where(big_c, (b - a * r) / den, (b * r - a) / den)
    re, im = np.ldexp(re, k).astype(np.float32), np.ldexp(im, k).astype(np.float32)
    zero = (c0 == 0) & (d0 == 0)
    if dividend_one:
        return cplx(np.where(zero, INF, re), np.where(zero, NAN, im))
    return cplx(np.where(zero, a / np.abs(c0), re), np.where(zero, b / np.abs(c0), im))


def test_tiny_dividends():
    """A dividend in or near the subnormal range over a small divisor: Smith's quotients were
    divided as subnormals before the divisor's scale came back, (1e-45j) / (1e-5j) gave
    1.84e-40 for 1.40e-40 (found by test_random_against_numpy)."""
    parts = np.float32([0.0, 2.0**-149, 3 * 2.0**-149, 1e-44, 2.0**-127, 1e-38, 2.0**-101])
    x = cplx(*np.array([(p, q) for p in parts for q in parts[::-1]]).T)
    for d in (1e-5, 3e-12, 2.0**-70, 1e-30, 0.75):
        for y in (cplx([0.0], [d]), cplx([d], [0.0]), cplx([d], [d / 3])):
            y = np.broadcast_to(y, x.shape).copy()
            err = measure("divide", (x, y))
            assert err.max() <= TOLERANCE["divide"], (d, x[err.argmax()], y[0], err.max())


def test_multiply_divide_square_reciprocal_on_edges():
    """Implementation-defined beyond the all-NaN case: the plain product and Smith's quotient
    (as NumPy), which the standard allows, exactly."""
    x, y = _pairs()
    with np.errstate(all="ignore"):
        assert_same_bits(run("multiply", x, y), _plain_product(x, y), x, y, what="multiply")
        assert_same_bits(run("divide", x, y), _smith(x, y), x, y, what="divide")
        z = _grid()
        assert_same_bits(run("square", z), _plain_product(z, z), z, what="square")
        assert_same_bits(run("reciprocal", z), _smith(None, z, dividend_one=True), z,
                         what="reciprocal")
    all_nan = cplx([NAN], [NAN])
    for op in ("multiply", "divide"):
        assert np.isnan(run(op, all_nan, all_nan).view(np.float32)).all()


def test_sign_of_infinities():
    """Implementation-defined (complex division by an infinite modulus): the direction, as
    NumPy, and NaN + NaN j where both parts are infinite."""
    z = cplx([INF, -INF, 2.0, -2.0, INF, INF, -INF, 0.0],
             [1.0, -1.0, INF, -INF, INF, -0.0, 0.0, -INF])
    want = cplx([1, -1, 0, -0.0, NAN, 1, -1, 0], [0, -0.0, 1, -1, NAN, -0.0, 0, -1])
    assert_same_bits(run("sign", z), want, z, what="sign")


def test_pow_special_cases():
    """pow(x, 0) = 1 for every x; pow(x, n) for finite x and n in {1, 2, 3} multiplies;
    otherwise, for a non-finite operand or a zero base, exp(y * log(x)) as the standard says
    (exp, log and multiply are tested on their own)."""
    x, y = _pairs()
    got = run("pow", x, y)
    zero_exp = (y.real == 0) & (y.imag == 0)
    assert_same_bits(got[zero_exp], np.broadcast_to(cplx(1.0, 0.0), (zero_exp.sum(),)),
                     x[zero_exp], y[zero_exp], what="pow(x, 0)")
    literal = runner()("wa_cexp(wa_cmul({1}, wa_clog({0})))", "c", x, y)
    finite_x = np.isfinite(x.real) & np.isfinite(x.imag)
    finite_y = np.isfinite(y.real) & np.isfinite(y.imag)
    small_int = finite_x & (y.imag == 0) & np.isin(y.real, [1.0, 2.0, 3.0])
    rest = ~zero_exp & ~small_int & ~(finite_x & finite_y & (x != 0))
    assert_same_bits(got[rest], literal[rest], x[rest], y[rest], what="pow = exp(y log x)")
    # small integer exponents multiply, as square does
    z = _grid()
    finite = np.isfinite(z.real) & np.isfinite(z.imag)
    with np.errstate(all="ignore"):
        squares = _plain_product(z, z)
        cubes = _plain_product(squares, z)
    for n, want in [(1, z), (2, squares), (3, cubes)]:
        assert_same_bits(run("pow", z, cplx(np.full(z.size, n), 0.0))[finite], want[finite],
                         z[finite], what=f"pow(z, {n})")


def test_parts_and_rounding_on_edges():
    z = _grid()
    a, b = _f32(z.real), _f32(z.imag)
    assert_same_bits(run("conj", z), cplx(a, -b), z, what="conj")
    assert_same_bits(run("negative", z), cplx(-a, -b), z, what="negative")
    assert_same_bits(run("positive", z), z, z, what="positive")
    assert_same_bits(run("real", z), a, z, what="real")
    assert_same_bits(run("imag", z), b, z, what="imag")
    assert_same_bits(run("round", z), cplx(np.round(a), np.round(b)), z, what="round")
    # halves go to the even neighbour
    h = cplx([0.5, 1.5, 2.5, -0.5, -2.5, 8388607.5, -0.4], [-1.5, 3.5, -4.5, 0.4, 1e30, 0.5, 2.5])
    assert_same_bits(run("round", h), cplx(np.round(h.real), np.round(h.imag)), h, what="round")


# -- symmetries ----------------------------------------------------------------------------

ODD = ["asinh", "atanh", "sinh", "tanh", "asin", "atan", "sin", "tan"]
EVEN = ["cosh", "cos"]
# the functions whose conj symmetry the standard requires, and those it defines through them
# (and reciprocal, which keeps the zero signs of conj(z) / |z|^2)
CONJ_SYMMETRIC = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                  "expm1", "log", "log10", "log1p", "log2", "sin", "sinh", "sqrt", "tan", "tanh",
                  "reciprocal"]


def _symmetry_points():
    rng = np.random.default_rng(7)
    r = cplx(_magnitudes(-3, 3)(rng, 256), _magnitudes(-3, 3)(rng, 256))
    return np.concatenate([_grid(), r])


@pytest.mark.parametrize("op", CONJ_SYMMETRIC)
def test_conj_symmetry(op):
    z = _symmetry_points()
    assert_same_bits(run(op, np.conj(z)), np.conj(run(op, z)), z, what=f"{op}(conj(z))")


@pytest.mark.parametrize("op", ODD + EVEN)
def test_odd_even(op):
    z = _symmetry_points()
    want = run(op, z)
    assert_same_bits(run(op, -z), -want if op in ODD else want, z, what=f"{op}(-z)")


# -- branch cuts ---------------------------------------------------------------------------

_ALONG = [1.5, 2.0, 10.0, 1e4, 1e20]
_OFF = [0.0, -0.0, 1e-30, -1e-30, 1e-6, -1e-6]
CUTS = {  # points on each cut; the test adds the offsets _OFF across it
    "sqrt": ("real", [-1e30, -5.0, -1.0, -1e-3, -1e-30]),
    "log": ("real", [-1e30, -5.0, -1.0, -1e-3, -1e-30]),
    "log2": ("real", [-1e30, -5.0, -1.0, -1e-3]),
    "log10": ("real", [-1e30, -5.0, -1.0, -1e-3]),
    "log1p": ("real", [-1e30, -6.0, -2.0, -1.5, -1.001, -1.0]),
    "asin": ("real", [s * v for s in (1, -1) for v in _ALONG]),
    "acos": ("real", [s * v for s in (1, -1) for v in _ALONG]),
    "atanh": ("real", [s * v for s in (1, -1) for v in _ALONG]),
    "acosh": ("real", [0.5, 0.0, -0.5, -1.0, -2.0, -1e5]),
    "asinh": ("imag", [s * v for s in (1, -1) for v in _ALONG]),
    "atan": ("imag", [s * v for s in (1, -1) for v in _ALONG]),
}


@pytest.mark.parametrize("op", sorted(CUTS))
def test_branch_cuts(op):
    axis, along = CUTS[op]
    on, off = zip(*itertools.product(along, _OFF))
    z = cplx(on, off) if axis == "real" else cplx(off, on)
    got, ref = run(op, z), reference(op, z)
    err = ulp_errors(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= TOLERANCE[op], (op, z[worst], got[worst], ref[worst])
    # every part on the side the sign of the zero (or tiny offset) picks, zeros included
    for g, r in ((got.real, ref.real), (got.imag, ref.imag)):
        assert (np.signbit(g) == np.signbit(r)).all(), (op, z, g, r)


# -- measured errors -----------------------------------------------------------------------


def main() -> None:
    print("| function | range | max ULP of |expected| | tolerance |")
    print("|---|---|---:|---:|")
    for op in ACCURACY_OPS:
        rng = np.random.default_rng(sum(map(ord, op)))
        for name, sampler in RANGES[op].items():
            err = measure(op, draw(op, sampler, rng, 20000))
            print(f"| {op} | {name} | {err.max():.2f} | {TOLERANCE[op]} |")


if __name__ == "__main__":
    main()
