"""User kernels of webarray.cupy against NumPy: ElementwiseKernel in its three body forms
(WGSL, GLSL, CuPy's C-like), the translator's WGSL and GLSL text, ReductionKernel,
RawKernel, and the errors a bad kernel gives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import webarray.cupy as cp
from webarray.cupy import _kernel_lang as lang
from webarray.executors.protocol import KernelError

floats = st.floats(-50, 50, width=32)


def farrays(shape):
    return hnp.arrays(np.float32, shape, elements=floats)


def get(x):
    return cp.asnumpy(x)


# -- ElementwiseKernel ---------------------------------------------------------------------------

FORMS = {
    "c": ("float32 x, float32 y, int32 k", "float32 z, int32 sgn",
          "float t = x * y - 2.5f;\n"
          "z = t > 0 ? sqrtf(t) + (float)k : fabs(t) / (1 + k * k);\n"
          "sgn = (x < y) - (x > y);"),
    "wgsl": ("f32 x, f32 y, i32 k", "f32 z, i32 sgn",
             "let t = x * y - 2.5;\n"
             "if t > 0.0 { z = sqrt(t) + f32(k); } else { z = abs(t) / f32(1 + k * k); }\n"
             "sgn = select(0, 1, x < y) - select(0, 1, x > y);"),
    "glsl": ("float x, float y, int k", "float z, int sgn",
             "float t = x * y - 2.5;\n"
             "z = t > 0.0 ? sqrt(t) + float(k) : abs(t) / float(1 + k * k);\n"
             "sgn = int(x < y) - int(x > y);"),
}


def reference(x, y, k):
    t = x * y - np.float32(2.5)
    with np.errstate(invalid="ignore"):
        z = np.where(t > 0, np.sqrt(np.maximum(t, 0)) + np.float32(k),
                     np.abs(t) / np.float32(1 + k * k)).astype(np.float32)
    sgn = (x < y).astype(np.int32) - (x > y).astype(np.int32)
    return z, sgn


@pytest.mark.parametrize("form", list(FORMS))
@given(data=st.data())
def test_elementwise_kernel_forms_match_numpy(form, data):
    a = data.draw(farrays(hnp.array_shapes(min_dims=1, max_dims=3, max_side=6)))
    b = data.draw(farrays(a.shape[-1:]))  # broadcast against a
    k = data.draw(st.integers(-4, 4))
    kern = cp.ElementwiseKernel(*FORMS[form], name=f"forms_{form}")
    z, sgn = kern(cp.asarray(a), cp.asarray(b), k)
    wz, wsgn = reference(a, b, k)
    assert z.shape == wz.shape and z.dtype == cp.float32 and sgn.dtype == cp.int32
    np.testing.assert_allclose(get(z), wz, rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(get(sgn), wsgn)


@given(hnp.arrays(np.int16, hnp.array_shapes(min_dims=1, max_dims=2, max_side=8)),
       st.integers(-300, 300))
def test_placeholder_types_scalars_and_narrow_wraparound(a, s):
    kern = cp.ElementwiseKernel("T x, T s", "T y", "y = x * s + (T)3;", "affine")
    got = kern(cp.asarray(a), s)
    assert got.dtype == cp.int16
    want = (a.astype(np.int64) * s + 3).astype(np.int16)  # int16 wraps like NumPy's
    np.testing.assert_array_equal(get(got), want)


def test_outputs_given_are_read_and_written_and_index_i():
    acc = cp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    kern = cp.ElementwiseKernel("float32 x", "float32 y", "y += x * i;", "accumulate")
    x = cp.ones(3)
    out = kern(x, acc)
    assert out is acc
    np.testing.assert_array_equal(get(acc), np.arange(6).reshape(2, 3) * 2.0)


def test_size_and_no_inputs():
    iota = cp.ElementwiseKernel("", "int32 y", "y = i * i;", "squares")
    np.testing.assert_array_equal(get(iota(size=7)), np.arange(7) ** 2)
    fill = cp.ElementwiseKernel("float32 v", "float32 y", "y = v;", "fill")
    np.testing.assert_array_equal(get(fill(2.5, size=3)), [2.5, 2.5, 2.5])
    with pytest.raises(ValueError, match="size"):
        fill(2.5)
    with pytest.raises(ValueError, match="size"):
        fill(cp.ones(3), size=3)


def test_control_flow_and_math_calls():
    body = """
        int n = 0;
        unsigned int bits = uint32(x * 8.0f) & 0xFFu;
        while (bits != 0u) { n += bits & 1u; bits >>= 1; }
        double h = hypot(x, 2.0);
        int k = 0;
        do { k++; if (k == 3) continue; } while (k < 5);
        y = n + k;
        z = isnan(x) ? -1.0f : fmaxf(atan2(x, 1.0f), expf(-h)) + log10(100.0f);
    """
    kern = cp.ElementwiseKernel("float32 x", "int32 y, float32 z", body, "flow")
    a = np.array([0.0, 0.25, 1.0, 7.9, np.nan], dtype=np.float32)
    y, z = kern(cp.asarray(a))
    bits = (np.nan_to_num(a) * 8).astype(np.uint32) & 0xFF
    np.testing.assert_array_equal(get(y), [bin(int(v)).count("1") + 5 for v in bits])
    h = np.hypot(a, 2.0).astype(np.float32)
    want = np.where(np.isnan(a), -1.0, np.maximum(np.arctan2(a, 1.0), np.exp(-h)) + 2.0)
    np.testing.assert_allclose(get(z), want.astype(np.float32), rtol=3e-6)


def test_products_are_not_fused_into_fma():
    rng = np.random.default_rng(2)
    x, y, w = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
    kern = cp.ElementwiseKernel("float32 x, float32 y, float32 w", "float32 z",
                                "float s = 0.0f; for (int j = 0; j < 4; j++) { s = x * y + s * w; } z = s;",
                                "muladd_loop")
    s = np.zeros_like(x)
    for _ in range(4):
        s = x * y + s * w
    np.testing.assert_array_equal(get(kern(cp.asarray(x), cp.asarray(y), cp.asarray(w))), s)


# -- translation as text -----------------------------------------------------------------------

def test_translator_text_for_both_languages():
    types = dict(lang.TYPE_NAMES)
    fn = lang.UserFunction("t", "y = x > 0 ? x * 2 : -x;\nint k = (int)x % 3;\nc = k + (x < 1.5f);",
                           [("x", "f32")], [("y", "f32"), ("c", "i32")], types)
    wgsl, glsl = fn.source("wgsl"), fn.source("glsl")
    assert f"fn {fn.name}(u_x: f32) -> {fn.name}_out" in wgsl
    assert "var u_k: i32 = (i32(u_x) % 3i);" in wgsl
    assert "i32((u_x < 1.5))" in wgsl
    assert f"{fn.name}_out {fn.name}(float u_x)" in glsl
    assert f"((u_x > 0.0) ? {fn.name}_x(u_x * 2.0) : (-u_x))" in glsl
    # products are kept apart from additions in both languages (no fma contraction)
    assert f"select((-u_x), {fn.name}_x(u_x * 2.0), (u_x > 0.0))" in wgsl
    assert "int u_k = (int(u_x) % 3);" in glsl and "int((u_x < 1.5))" in glsl
    assert "u_y" in glsl and "select" not in glsl and "bitcast<" not in glsl
    # a WGSL body becomes GLSL and the other way round
    w = lang.UserFunction("w", "var a = 0u; loop { if a >= 3u { break; } a++; }\nb = bitcast<f32>(a);",
                          [], [("b", "f32")], types)
    g = w.source("glsl")
    assert "for (; ; ) {" in g and "uint u_a = 0u;" in g and "uintBitsToFloat(u_a)" in g
    assert "u_a = (u_a + 1u);" in g


def test_c_conversions_are_spelled_out():
    types = dict(lang.TYPE_NAMES)
    fn = lang.UserFunction("c", "unsigned int u = k; float f = u + k; y = f / 2;",
                           [("k", "i32")], [("y", "f32")], types)
    src = fn.source("glsl")
    assert "uint u_u = uint(u_k);" in src
    assert "float u_f = float((u_u + uint(u_k)));" in src
    # float results are kept as rounded through the kernel's <name>_x (no contraction)
    assert f"u_y = {fn.name}_x(u_f / 2.0);" in src


# -- errors ------------------------------------------------------------------------------------

def test_compile_error_shows_generated_source_and_compiler_line():
    kern = cp.ElementwiseKernel("float32 x", "float32 y", "y = frobnicate(x) + 1.0f;", "bad_call")
    with pytest.raises(KernelError) as info:
        kern(cp.ones(4))
    text = str(info.value)
    assert "bad_call" in text and "did not compile" in text
    assert "frobnicate" in text  # the compiler names it
    assert "_x(frobnicate(u_x) + 1.0);" in text  # the generated source, numbered
    assert "--- source ---" in text and ":" in text


def test_body_syntax_error_names_the_line():
    with pytest.raises(KernelError, match=r"line 2 of the body: expected a value") as info:
        cp.ElementwiseKernel("float32 x", "float32 y", "float t = x;\ny = t * ;\n", "bad_syntax")
    assert ">   2 | y = t * ;" in str(info.value)
    with pytest.raises(KernelError, match="unknown name 'q'"):
        cp.ElementwiseKernel("float32 x", "float32 y", "y = q;", "bad_name")
    with pytest.raises(KernelError, match="cannot be assigned"):
        cp.ElementwiseKernel("f32 x", "f32 y", "let t = x; t = 2.0; y = t;", "bad_let")


def test_parameter_type_mismatch_names_the_parameter():
    kern = cp.ElementwiseKernel("float32 x, int32 n", "float32 y", "y = x * n;", "typed")
    with pytest.raises(TypeError, match="parameter 'x' is float32, got an array of int32"):
        kern(cp.arange(3), 2)
    with pytest.raises(TypeError, match="parameter 'n' is int32, got the float 2.5"):
        kern(cp.ones(3), 2.5)
    with pytest.raises(TypeError, match="output 'y' is float32, got an array of int32"):
        kern(cp.ones(3), 2, cp.zeros(3, dtype=cp.int32))
    np.testing.assert_array_equal(get(kern(cp.asarray([1, 2], dtype=cp.int8).astype(cp.float32), 3)),
                                  [3, 6])
    generic = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "generic")
    with pytest.raises(TypeError, match="parameter 'y' has type T = float32"):
        generic(cp.ones(2), cp.arange(2))
    with pytest.raises(TypeError, match="takes 2 inputs"):
        generic(cp.ones(2))
    with pytest.raises(TypeError, match="parameter 'x' is float64"):
        cp.ElementwiseKernel("float64 x", "float64 y", "y = x;", "f64")(cp.ones(2))
    with pytest.raises(ValueError, match="do not broadcast"):
        generic(cp.ones(3), cp.ones(3), cp.zeros(4))
    with pytest.raises(ValueError, match="output 'z' has shape"):
        generic(cp.ones((2, 3)), cp.ones(3), cp.zeros(3))


# -- ReductionKernel ------------------------------------------------------------------------------

@given(farrays(hnp.array_shapes(min_dims=1, max_dims=3, max_side=7)), st.data())
def test_reduction_kernel_l2_norm_matches_numpy(a, data):
    axis = data.draw(st.one_of(st.none(), st.integers(0, a.ndim - 1)))
    keepdims = data.draw(st.booleans())
    l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    got = l2(cp.asarray(a), axis=axis, keepdims=keepdims)
    want = np.sqrt((a.astype(np.float64) ** 2).sum(axis=axis, keepdims=keepdims))
    assert got.shape == want.shape and got.dtype == cp.float32
    np.testing.assert_allclose(get(got), want, rtol=1e-5, atol=1e-6)


@given(hnp.arrays(np.int32, st.tuples(st.integers(1, 5), st.integers(1, 600)),
                  elements=st.integers(-10**6, 10**6)))
def test_reduction_kernel_max_without_identity_and_mean(a):
    amax = cp.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y = a", None, "imax")
    np.testing.assert_array_equal(get(amax(cp.asarray(a), axis=1)), a.max(axis=1))
    mean = cp.ReductionKernel("int32 x", "float32 m", "x", "a + b",
                              "m = a / _in_ind.size()", "0", "imean", reduce_type="float32")
    np.testing.assert_allclose(get(mean(cp.asarray(a), axis=0)), a.mean(axis=0), rtol=1e-5, atol=1e-3)
    cnt = cp.ReductionKernel("int32 x, int32 t", "int32 n", "x > t ? 1 : 0", "a + b",
                             "n = a", "0", "count_above")
    np.testing.assert_array_equal(get(cnt(cp.asarray(a), 0)), (a > 0).sum())


def test_reduction_kernel_empty_axes():
    s = cp.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "sum0")
    np.testing.assert_array_equal(get(s(cp.zeros((3, 0)), axis=1)), [0, 0, 0])
    m = cp.ReductionKernel("float32 x", "float32 y", "x", "max(a, b)", "y = a", None, "max0")
    with pytest.raises(ValueError, match="no identity"):
        m(cp.zeros((3, 0)), axis=1)


# -- RawKernel ----------------------------------------------------------------------------------

SAXPY = """
@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = P[0];
    let a = bitcast<f32>(P[1]);
    if (gid.x < n) { y[gid.x] = a * x[gid.x] + y[gid.x]; }
}
"""


@given(farrays(st.integers(1, 300).map(lambda n: (n,))), floats)
def test_raw_kernel_saxpy(a, s):
    kern = cp.RawKernel(SAXPY, "saxpy")
    x = cp.asarray(a)
    y = cp.ones(a.size)
    n = a.size
    kern(((n + 63) // 64,), (64,), (x, y, np.uint32(n), np.float32(s)))
    np.testing.assert_allclose(get(y), np.float32(s) * a + 1, rtol=1e-6, atol=1e-5)


def test_raw_kernel_errors():
    kern = cp.RawKernel(SAXPY, "saxpy")
    with pytest.raises(ValueError, match="workgroup_size"):
        kern((1,), (32,), (cp.ones(4), cp.ones(4), 4, 1.0))
    with pytest.raises(ValueError, match="strided"):
        kern((1,), (64,), (cp.ones(8)[::2], cp.ones(4), 4, 1.0))
    with pytest.raises(NotImplementedError, match="WGSL"):
        cp.RawKernel('extern "C" __global__ void f(float* x) {}', "f")
    bad = cp.RawKernel(SAXPY.replace("a * x[gid.x]", "a * x[gid.x] * undefined_thing"), "saxpy")
    with pytest.raises(KernelError, match="undefined_thing"):
        bad((1,), (64,), (cp.ones(4), cp.ones(4), 4, 1.0))


# -- random C-like expressions: precedence, C's conversions, exact float32 rounding ---------------

_PREC = {"*": 10, "+": 9, "-": 9, "<": 6, ">": 6, "<=": 6, "==": 5}


@st.composite
def c_expressions(draw, depth=0):
    """(text, evaluate(x, y, k) -> NumPy array, type 'f' or 'i', precedence)."""
    leaf = depth >= 3 or draw(st.booleans()) and depth > 0
    if leaf:
        kind = draw(st.sampled_from(["x", "y", "k", "int", "float"]))
        if kind in ("x", "y"):
            return kind, (lambda x, y, k, n=kind: x if n == "x" else y), "f", 20
        if kind == "k":
            return "k", (lambda x, y, k: k), "i", 20
        if kind == "int":
            v = draw(st.integers(0, 9))
            return str(v), (lambda x, y, k, v=v: np.int32(v)), "i", 20
        v = draw(st.integers(-40, 40)) / 4
        text = f"{v}f" if v >= 0 else f"({v}f)"
        return text, (lambda x, y, k, v=v: np.float32(v)), "f", 20
    form = draw(st.sampled_from(["bin", "bin", "bin", "neg", "cond", "call"]))
    a = draw(c_expressions(depth + 1))
    b = draw(c_expressions(depth + 1))

    def conv(e, t):  # C's conversion of an operand to the common type
        return (lambda x, y, k: np.float32(e[1](x, y, k))) if t == "f" and e[2] == "i" else e[1]

    def paren(e, need: bool) -> str:
        return f"({e[0]})" if need else e[0]

    if form == "neg":
        return f"-{paren(a, a[3] < 20)}", (lambda x, y, k: -a[1](x, y, k)), a[2], 12
    if form == "call":
        fn = draw(st.sampled_from(["fminf", "fmaxf", "fabsf"]))
        fa, fb = conv(a, "f"), conv(b, "f")
        if fn == "fabsf":
            return f"fabsf({a[0]})", (lambda x, y, k: np.abs(fa(x, y, k))), "f", 20
        npf = np.minimum if fn == "fminf" else np.maximum
        return f"{fn}({a[0]}, {b[0]})", (lambda x, y, k: npf(fa(x, y, k), fb(x, y, k))), "f", 20
    t = "f" if "f" in (a[2], b[2]) else "i"
    fa, fb = conv(a, t), conv(b, t)
    if form == "cond":
        op = draw(st.sampled_from(["<", ">", "<=", "=="]))
        c1, c2 = draw(c_expressions(depth + 1)), draw(c_expressions(depth + 1))
        ct = "f" if "f" in (c1[2], c2[2]) else "i"
        g1, g2 = conv(c1, ct), conv(c2, ct)
        cmp = {"<": np.less, ">": np.greater, "<=": np.less_equal, "==": np.equal}[op]
        text = (f"({paren(c1, c1[3] <= _PREC[op])} {op} {paren(c2, c2[3] <= _PREC[op])}) ? "
                f"{paren(a, a[3] < 20)} : {paren(b, b[3] < 20)}")
        return text, (lambda x, y, k: np.where(cmp(g1(x, y, k), g2(x, y, k)), fa(x, y, k),
                                               fb(x, y, k))), t, 1
    op = draw(st.sampled_from(["+", "-", "*"]))
    p = _PREC[op]
    npf = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
    text = f"{paren(a, a[3] < p)} {op} {paren(b, b[3] <= p)}"
    return text, (lambda x, y, k: npf(fa(x, y, k), fb(x, y, k))), t, p


@given(c_expressions(), st.data())
def test_random_c_expressions_match_numpy_float32_exactly(expr, data):
    text, evaluate, t, _ = expr
    x = data.draw(farrays((16,)))
    y = data.draw(farrays((16,)))
    k = data.draw(hnp.arrays(np.int32, (16,), elements=st.integers(-1000, 1000)))
    out = "float32 z" if t == "f" else "int32 z"
    kern = cp.ElementwiseKernel("float32 x, float32 y, int32 k", out, f"z = {text};", "rand_expr")
    with np.errstate(all="ignore"):
        want = np.asarray(evaluate(x, y, k)) + np.zeros(16, np.float32 if t == "f" else np.int32)
    got = get(kern(cp.asarray(x), cp.asarray(y), cp.asarray(k)))
    np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=text)
