"""User kernels of webarray.cupy against NumPy: ElementwiseKernel in its three body forms
(WGSL, GLSL, CuPy's C-like), the translator's WGSL and GLSL text, ReductionKernel,
RawKernel, and the errors a bad kernel gives."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import webarray.cupy as cp
from webarray._core.device import default_device
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
    # GLSL leaves % undefined for negative operands: C's truncating remainder is a helper
    assert "int u_k = wa_imod(int(u_x), 3);" in glsl and "int((u_x < 1.5))" in glsl
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


@contextlib.contextmanager
def _user_folds():
    """The (vec4, final) of each pass of a ReductionKernel's fold launched inside."""
    device = default_device()
    passes, launch = [], device.launch

    def spy(key, *args, **kwargs):
        if key[:2] == ("reduce", "user"):
            passes.append((key[8], key[6]))
        return launch(key, *args, **kwargs)

    device.launch = spy
    try:
        yield passes
    finally:
        del device.launch


@pytest.mark.parametrize("cols,vec4", [(10_000, True), (10_001, False), (4 * 4096 + 4, True)])
def test_reduction_kernel_folds_long_rows_in_passes_of_the_core_reduction(cols, vec4):
    """A ReductionKernel's fold is the core's tree reduction: rows longer than a chunk
    (256 threads x 16 elements) go through partials, four elements a load where the row
    length allows, with an identity and without one (each thread starts from its first
    element: padding must not count, here in a sum, where counting it shows)."""
    a = (np.arange(3 * cols) % 1001 - 500).astype(np.int32).reshape(3, cols)
    s = cp.ReductionKernel("int32 x", "int32 y", "x", "a + b", "y = a", None, "sum_noid")
    with _user_folds() as passes:
        np.testing.assert_array_equal(get(s(cp.asarray(a), axis=1)), a.sum(axis=1))
    assert passes[0] == (vec4, False) and passes[-1][1] and len(passes) >= 2, passes
    mx = cp.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y = a", None, "max_noid")
    np.testing.assert_array_equal(get(mx(cp.asarray(-a), axis=1)), (-a).max(axis=1))
    f = (a / 7).astype(np.float32)
    l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2_id")
    with _user_folds() as passes:
        got = get(l2(cp.asarray(f), axis=1))
    assert passes[0] == (vec4, False) and len(passes) >= 2, passes
    np.testing.assert_allclose(got, np.sqrt((f.astype(np.float64) ** 2).sum(axis=1)), rtol=1e-6)
    # the reduced axis first: the fold reads the mapped rows, so the same passes
    np.testing.assert_array_equal(get(s(cp.asarray(a.T.copy()), axis=0)), a.sum(axis=1))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(0, 9000), st.booleans(), st.data())
def test_reduction_kernel_sums_and_counts_match_numpy_at_any_length(rows, cols, identity, data):
    """Sums and element counts (map 1) with and without identity, over row lengths of one
    and of several passes, odd and multiple of four, and empty rows (identity only)."""
    if cols == 0 and not identity:
        cols = 1
    a = data.draw(hnp.arrays(np.int32, (rows, cols), elements=st.integers(-1000, 1000)))
    ident = "0" if identity else None
    s = cp.ReductionKernel("int32 x", "int32 y, int32 n", "x", "a + b",
                           "y = a; n = _in_ind.size() * 100 + _out_ind.size()", ident, "sum_n")
    y, n = s(cp.asarray(a), axis=1)
    np.testing.assert_array_equal(get(y), a.sum(axis=1))
    np.testing.assert_array_equal(get(n), np.full(rows, cols * 100 + rows))
    cnt = cp.ReductionKernel("int32 x", "int32 c", "1", "a + b", "c = a", ident, "count")
    np.testing.assert_array_equal(get(cnt(cp.asarray(a), axis=1)), np.full(rows, cols))


def test_reduction_kernel_narrow_reduce_type_wraps_as_numpy():
    a = (np.arange(3 * 5000) % 251 - 120).astype(np.int8).reshape(3, 5000)
    s8 = cp.ReductionKernel("int8 x", "int8 y", "x", "a + b", "y = a", "0", "sum_int8")
    np.testing.assert_array_equal(get(s8(cp.asarray(a), axis=1)), a.sum(axis=1, dtype=np.int8))


def test_reduction_kernel_empty_rows_post_map_the_identity_and_scalars():
    # the post-map of the identity, with a scalar, the sizes, and outputs read (y += ...)
    k = cp.ReductionKernel("float32 x, float32 c", "float32 y", "x", "a * b",
                           "y += a + c + _in_ind.size() + 10 * _out_ind.size()", "1", "empty")
    y = cp.full(4, 2.0, dtype=cp.float32)
    k(cp.zeros((4, 0), dtype=cp.float32), 0.25, y, axis=1)
    np.testing.assert_array_equal(get(y), np.full(4, 2.0 + 1 + 0.25 + 0 + 40, np.float32))
    fresh = k(cp.zeros((4, 0), dtype=cp.float32), 0.25, axis=1)
    np.testing.assert_array_equal(get(fresh), np.full(4, 1 + 0.25 + 40, np.float32))
    x = np.linspace(0.5, 1.5, 4 * 6, dtype=np.float32).reshape(4, 6)
    np.testing.assert_allclose(get(k(cp.asarray(x), 0.25, axis=1)),
                               x.prod(axis=1) + 0.25 + 6 + 40, rtol=1e-6)


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


# -- loops: run to their end, or raise where the device bounds them -------------------------------
# Mesa's llvmpipe (this CI's device) ends the loops of a shader silently after 65,535 passes
# in all (per 8 threads); user kernels there unroll innermost loops and raise LoopLimitError
# for a loop that was cut (webarray/cupy/_kernel_lang.py). Elsewhere loops are not bounded.

def _bounded() -> bool:
    return lang.loops_bounded(default_device().executor.adapter_info)


def _py_break_continue(n, m):
    s = 0
    for j in range(n):
        if j % 3 == 0:
            continue
        if j >= m:
            break
        s += 1
    return s


def _py_continuing(n, _m):  # the WGSL loop below, in Python
    j = s = 0
    while True:
        if j % 3 != 0:
            s += j
        j += 1
        if j >= n:
            return s


def _py_do(n, _m):
    j = s = 0
    while True:
        s += 1
        j += 3 if j == 2 else 1
        if not j < n:
            return s


def _py_step(n, _m):
    j = s = 0
    while True:
        s += 1
        j += 1 + j % 2
        if j >= n:
            return s


LOOPS = {
    "c_for": ("s = 0; for (int j = 0; j < n; j++) s += 1;", lambda n, m: n),
    "c_while": ("s = 0; int j = 0; while (j < n) { j++; s += 1; }", lambda n, m: n),
    "c_do_continue": ("s = 0; int j = 0;\ndo { s += 1; if (j == 2) { j += 3; continue; } j++; } "
                      "while (j < n);", _py_do),
    "c_nested": ("s = 0; for (int a = 0; a < n; a++) for (int b = 0; b < m; b++) s += 1;",
                 lambda n, m: n * m),
    "c_break_continue": ("s = 0; for (int j = 0; j < n; j++) { if (j % 3 == 0) continue; "
                         "if (j >= m) break; s += 1; }", _py_break_continue),
    "c_inner_break": ("s = 0; for (int a = 0; a < n; a++) { for (int b = 0; ; b++) { "
                      "if (b >= m) break; s += 1; } }", lambda n, m: n * m),
    "c_outer_break_continue": ("s = 0; for (int a = 0; ; a++) { if (a >= n) break; "
                               "if (a % 2 == 1) continue;\n"
                               "int b = 0; while (b < m) { b++; s += 1; } }",
                               lambda n, m: (n + 1) // 2 * m),
    "wgsl_loop_continuing": ("var j = 0; s = 0;\nloop {\n  if j % 3 == 0 { continue; }\n  s += j;\n"
                             "  continuing { j += 1; break if j >= n; }\n}", _py_continuing),
    "wgsl_for_continue": ("s = 0;\nfor (var j = 0; j < n; j++) {\n"
                          "  if j % 2 == 1 { continue; }\n  s += 1;\n}",
                          lambda n, m: (n + 1) // 2),
    "wgsl_continuing_sees_body": ("var j = 0; s = 0; loop { let step = 1 + j % 2; s += 1; "
                                  "continuing { let t = step; j += t; break if j >= n; } }",
                                  _py_step),
    "wgsl_while": ("s = 0; var j = 0; while j < n { j++; s++; }", lambda n, m: n),
}


@contextlib.contextmanager
def _loops_as_written():
    """User kernels made inside emit their loops as written, as on devices without a bound."""
    bounded = lang.loops_bounded
    lang.loops_bounded = lambda info: False
    try:
        yield
    finally:
        lang.loops_bounded = bounded


@pytest.mark.parametrize("checked", [True, False], ids=["device", "as_written"])
@pytest.mark.parametrize("case", list(LOOPS))
@settings(max_examples=8)  # 22 kernels; each example is a launch and a readback
@given(ns=hnp.arrays(np.int32, 8, elements=st.integers(0, 300)),
       ms=hnp.arrays(np.int32, 8, elements=st.integers(0, 12)))
def test_loop_forms_match_python(case, checked, ns, ms):
    body, ref = LOOPS[case]
    params = "i32 n, i32 m" if case.startswith("wgsl") else "int32 n, int32 m"
    kern = cp.ElementwiseKernel(params, "int32 s", body, case)
    with contextlib.nullcontext() if checked else _loops_as_written():
        got = get(kern(cp.asarray(ns), cp.asarray(ms)))
    np.testing.assert_array_equal(got, [ref(int(n), int(m)) for n, m in zip(ns, ms)])


@pytest.mark.parametrize("n", [65534, 65535, 65536, 200000])
def test_long_loop_runs_to_its_count(n):
    """lavapipe cut this loop at 65,535 passes for the first element and gave 1 for the
    others (they shared what was left of the budget): [65534, 1, 1, 1] for n = 65534."""
    kern = cp.ElementwiseKernel("int32 n", "int32 s", "s = 0; for (int j = 0; j < n; j++) s += 1;",
                                "count")
    np.testing.assert_array_equal(get(kern(n, size=4)), [n] * 4)
    counts = np.array([n, 1, n // 2, 0, n - 1], np.int32)
    np.testing.assert_array_equal(get(kern(cp.asarray(counts))), counts)


def test_loop_past_the_device_bound_raises_and_the_device_works():
    kern = cp.ElementwiseKernel("int32 n", "int32 s",
                                "s = 0;\nfor (int j = 0; j < n; j++) { s += 1; }", "too_long")
    if not _bounded():
        np.testing.assert_array_equal(get(kern(3_000_000, size=4)), [3_000_000] * 4)
        return
    with pytest.raises(lang.LoopLimitError, match=r"kernel 'too_long': the loop at line 2 "
                                                  r"of the body .*for \(int j = 0"):
        kern(3_000_000, size=4)
    out = cp.zeros(4, dtype=cp.int32)
    with pytest.raises(lang.LoopLimitError, match="output arrays passed in hold partial"):
        kern(cp.full(4, 3_000_000, dtype=cp.int32), out)
    # a loop that never ends (its exit depends on the data) raises the same, at once
    forever = cp.ElementwiseKernel("i32 x", "i32 s",
                                   "s = x;\nloop {\n  s += 1;\n  if x < 0 { break; }\n}", "forever")
    with pytest.raises(lang.LoopLimitError, match="line 2 of the body"):
        forever(cp.arange(8, dtype=cp.int32))
    # nested loops share the bound: 2000 x 2000 passes is past it
    nested = cp.ElementwiseKernel("int32 n", "int32 s",
                                  "s = 0; for (int a = 0; a < n; a++) {\n"
                                  "  for (int b = 0; b < n; b++) s += 1; }", "nested_long")
    with pytest.raises(lang.LoopLimitError, match="line 1 of the body"):
        nested(2000, size=4)
    np.testing.assert_array_equal(get(nested(300, size=4)), [90000] * 4)
    np.testing.assert_array_equal(get(kern(7, size=3)), [7, 7, 7])
    np.testing.assert_array_equal(get(cp.arange(4) * 2), [0, 2, 4, 6])


def test_loops_on_the_vec4_path_of_a_launch_in_pieces():
    """Above the binding limit a launch runs in pieces and keeps four elements per thread,
    which share the thread's loop budget; results stay exact or raise."""
    from webarray._core import launch

    dev = default_device()
    old = launch.PIECE_BYTES, dev._piece_bytes
    launch.PIECE_BYTES = dev._piece_bytes = 4096
    try:
        kern = cp.ElementwiseKernel("int32 n", "int32 s",
                                    "s = 0; for (int j = 0; j < n; j++) s += 1;", "pieces")
        counts = np.arange(5000, dtype=np.int32) * 20
        np.testing.assert_array_equal(get(kern(cp.asarray(counts))), counts)
        if _bounded():
            with pytest.raises(lang.LoopLimitError):
                kern(cp.full(4096, 200_000, dtype=cp.int32))
    finally:
        launch.PIECE_BYTES, dev._piece_bytes = old


def test_reduction_kernel_long_rows_and_post_map_loops():
    """A row of 2^24 elements: each of the 256 threads folded 65,536 of them in a loop, and
    lavapipe cut it (with the tree's loop after it): a sum of ones gave 131,070."""
    s = cp.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "sum_long")
    assert float(s(cp.ones(1 << 24))) == float(1 << 24)
    m = cp.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y = a", None, "max_long")
    assert int(m(cp.arange((1 << 24) + 5, dtype=cp.int32))) == (1 << 24) + 4
    post = cp.ReductionKernel("int32 x, int32 k", "int32 y", "x", "a + b",
                              "y = 0;\nfor (int j = 0; j < k; j++) y += a;", "0", "post_loop")
    np.testing.assert_array_equal(get(post(cp.ones((2, 5), dtype=cp.int32), 3, axis=1)), [15, 15])
    if _bounded():
        with pytest.raises(lang.LoopLimitError, match="post_loop.*line 2 of the body"):
            post(cp.ones((2, 5), dtype=cp.int32), 10**7, axis=1)
    np.testing.assert_array_equal(get(cp.arange(3) + 1), [1, 2, 3])


RAW_LOOPS = """
@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
/* loops { in /* nested */ comments } are left alone */
@compute @workgroup_size(8)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = P[0] + gid.x;  // loop { while
    let m = P[1];
    var c = 0u; var d = 0u;
BODY
    out[gid.x * 2u] = c; out[gid.x * 2u + 1u] = d;
}
"""

RAW_BODIES = {
    "loop": ("loop { if c >= n { break; } c++; }", lambda n, m: (n, 0)),
    "while": ("while c < n { c++; }", lambda n, m: (n, 0)),
    "while_parens": ("while (c < n) { c++; }", lambda n, m: (n, 0)),
    "for_continue": ("for (var j = 0u; j < n; j++) { if j % 2u == 1u { continue; } c++; }",
                     lambda n, m: ((n + 1) // 2, 0)),
    "continuing": ("var j = 0u; loop { if j % 3u == 0u { continue; } c += j;\n"
                   "  continuing { j++; break if j >= n; } }",
                   lambda n, m: (_py_continuing(n, 0), 0)),
    "nested_switch": ("for (var a = 0u; a < n; a++) { switch a % 3u { case 0u: { c++; break; } "
                      "default: { d++; } } var b = 0u; loop { if b >= m { break; } d++; b++; } }",
                      lambda n, m: ((n + 2) // 3, n - (n + 2) // 3 + n * m)),
}


@pytest.mark.parametrize("case", list(RAW_BODIES))
def test_raw_kernel_loops(case):
    body, ref = RAW_BODIES[case]
    kern = cp.RawKernel(RAW_LOOPS.replace("BODY", body), "count")
    for n, m in ((0, 2), (7, 3), (40, 1)):
        out = cp.zeros(16, dtype=cp.uint32)
        kern((1,), (8,), (out, np.uint32(n), np.uint32(m)))
        np.testing.assert_array_equal(get(out).reshape(8, 2), [ref(n + g, m) for g in range(8)])
    if _bounded():
        with pytest.raises(lang.LoopLimitError, match=r"kernel 'count': the loop at line 10 of "
                                                      r"the source"):
            kern((1,), (8,), (cp.zeros(16, dtype=cp.uint32), np.uint32(100_000), np.uint32(0)))
    np.testing.assert_array_equal(get(cp.arange(3) * 3), [0, 3, 6])


# -- body characters and loop statements the grammar refuses ---------------------------------------

@pytest.mark.parametrize("char", ["@", "#", "\\", '"', "é", "\u0663", "\u00a0"])
def test_body_characters_give_kernel_error_with_name_and_line(char):
    body = f"float t = x;\ny = t {char} 2.0f;\n"
    with pytest.raises(KernelError, match=r"kernel 'odd_char': line 2 of the body: "
                                          r"unexpected character") as info:
        cp.ElementwiseKernel("float32 x", "float32 y", body, "odd_char")
    assert ">   2 | y = t" in str(info.value)
    placeholder = cp.ElementwiseKernel("T x", "T y", "y = x;", "fine")
    np.testing.assert_array_equal(get(placeholder(cp.arange(3))), [0, 1, 2])


def test_loop_statements_out_of_place():
    for body, message in [("y = x; break;", "'break' is not allowed outside a loop"),
                          ("if (x > 0.0) { y = x; }\nbreak;",
                           "line 2 of the body: 'break' is not allowed"),
                          ("loop { y = x; break if y > 0.0; }", "'break if' may only end"),
                          ("loop { continuing { y = x; break; } }",
                           "not allowed in a 'continuing'"),
                          ("loop { continuing { break if x > 0.0; y = x; } }", "must be the last"),
                          ("loop { continuing { break if x > 0.0; } y = x; }",
                           "'continuing' must be the last part")]:
        with pytest.raises(KernelError, match=message):
            cp.ElementwiseKernel("f32 x", "f32 y", body, "misplaced")


def test_translated_loops_as_glsl():
    """GLSL has no continuing: a 'continue' runs it where it stands (LOOPS gave the same
    counts in WebGL2, ANGLE on SwiftShader, run by hand for this change)."""
    types = dict(lang.TYPE_NAMES)
    fn = lang.UserFunction("g", "var j = 0; s = 0; loop { if j % 3 == 0 { continue; } s += j; "
                           "continuing { j += 1; break if j >= n; } }",
                           [("n", "i32")], [("s", "i32")], types)
    glsl = fn.source("glsl")
    assert "for (; ; ) {" in glsl
    assert glsl.count("u_j = (u_j + 1);") == 2 and glsl.count("if ((u_j >= u_n)) { break; }") == 2
    wgsl = fn.source("wgsl")
    assert "continuing {" in wgsl and "break if (u_j >= u_n);" in wgsl
    checked = lang.UserFunction("g", fn.body, fn.inputs, fn.outputs, types, checked=True)
    assert checked.name != fn.name and checked.checked
    assert checked.source("wgsl").count("if (!((u_j % 3i) == 0i))") == 0  # a body, not a test
    assert checked.source("wgsl").count("lim_go") == 1 + 3 * lang.UNROLL
    plain = lang.UserFunction("g", "s = n;", [("n", "i32")], [("s", "i32")], types, checked=True)
    assert not plain.checked and "lim_cut" not in plain.source("wgsl")


# -- RawKernel: bindings checked against the arguments --------------------------------------------

def test_raw_kernel_bindings_are_checked_before_dispatch():
    kern = cp.RawKernel(SAXPY, "saxpy")
    x, y = cp.ones(4), cp.ones(4)
    with pytest.raises(TypeError, match=r"RawKernel 'saxpy' declares 2 array bindings "
                                        r"\(@binding\(1\) var<storage, read> x: array<f32>, "
                                        r"@binding\(2\) var<storage, read_write> y: array<f32>\), "
                                        r"but was called with 1 array \(and 2 scalars\)"):
        kern((1,), (64,), (x, 4, 1.0))
    with pytest.raises(TypeError, match="called with 3 arrays"):
        kern((1,), (64,), (x, y, cp.ones(4), 4, 1.0))
    with pytest.raises(TypeError, match=r"argument 1 \(an array of int32\) is bound to "
                                        r"@binding\(2\) y: array<f32>"):
        kern((1,), (64,), (x, cp.ones(4, dtype=cp.int32), 4, 1.0))
    with pytest.raises(ValueError, match="arguments 0 and 1 are the same buffer"):
        kern((1,), (64,), (y, y, 4, 1.0))
    with pytest.raises(TypeError, match=r"@binding\(1\) x is var<uniform>"):
        cp.RawKernel(SAXPY.replace("var<storage, read> x", "var<uniform> x"), "saxpy")(
            (1,), (64,), (x, y, 4, 1.0))
    with pytest.raises(ValueError, match=r"y is in @group\(1\)"):
        cp.RawKernel(SAXPY.replace("@group(0) @binding(2)", "@group(1) @binding(2)"), "saxpy")
    # the device still works, and so does the kernel with the right arguments
    kern((1,), (64,), (x, y, np.uint32(4), np.float32(2.0)))
    np.testing.assert_array_equal(get(y), [3, 3, 3, 3])
    raw_words = cp.RawKernel(SAXPY.replace("array<f32>;\n@group(0) @binding(2)",
                                           "array<u32>;\n@group(0) @binding(2)")
                             .replace("x[gid.x]", "bitcast<f32>(x[gid.x])"), "saxpy")
    raw_words((1,), (64,), (x, y, np.uint32(4), np.float32(1.0)))  # u32 takes any dtype
    np.testing.assert_array_equal(get(y), [4, 4, 4, 4])


# -- what Chainer's bodies need (tests/test_chainer_kernels.py runs them all) ----------------

def _ulps(got, want):
    """|got - want| in units of the float32 spacing at want (want in float64)."""
    spacing = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / np.maximum(spacing, 2.0 ** -149)


def _edges(*values):
    return np.array(values, np.float32)


SPECIAL = {
    # name: (SciPy's function, inputs, largest error in float32 ULP)
    "erf": ("erf", (-6, 6), 4),
    "erfc": ("erfc", (-6, 12), 4),
    "erfcx": ("erfcx", (-3, 40), 6),
    "erfinv": ("erfinv", (-1, 1), 4),
    "erfcinv": ("erfcinv", (0, 2), 4),
    "normcdf": ("ndtr", (-12, 8), 4),
    "normcdfinv": ("ndtri", (0, 1), 4),
    "lgamma": ("gammaln", (0, 40), 4),
    "digamma": ("psi", (0, 40), 16),
    "log1p": ("log1p", (-1, 10), 1),
    "expm1": ("expm1", (-20, 20), 1),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_match_scipy(name):
    """CUDA's special functions in a body, against SciPy in float64: within a few ULP on
    random inputs (and exponentially spread ones), and SciPy's values at the edges (NaN,
    ±inf, ±0, the ends of the domain, the poles)."""
    special = pytest.importorskip("scipy.special")
    ref, (lo, hi), bound = SPECIAL[name]
    rng = np.random.RandomState(1)
    x = rng.uniform(lo, hi, 4000).astype(np.float32)
    # and spread over many binades (near 0, and near the ends of the inverse functions)
    tiny = np.exp(rng.uniform(-80, 3, 1000)).astype(np.float32)
    x = np.concatenate([x, tiny, hi - tiny, -tiny])
    x = x[(x >= lo) & (x <= hi)]
    if name == "digamma":  # near its root at 1.4616 the error is an absolute one
        x = x[np.abs(x - 1.4616321) > 0.05]
    k = cp.ElementwiseKernel("T x", "T y", f"y = {name}(x)", f"special_{name}")
    got = get(k(cp.asarray(x)))
    want = getattr(special, ref)(x.astype(np.float64))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite].astype(np.float32))
    err = _ulps(got[finite], want[finite])
    assert err.max() <= bound, (x[finite][np.argmax(err)], err.max())
    edges = _edges(np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -3.5, 1e-30,
                   1e30, -1e30, 3e38)
    with np.errstate(all="ignore"):
        want = getattr(special, ref)(edges.astype(np.float64)).astype(np.float32)
    got = get(k(cp.asarray(edges)))
    np.testing.assert_allclose(got, want, rtol=4e-7, atol=0, equal_nan=True,
                               err_msg=str(list(zip(edges, got, want))))


def test_lgamma_and_digamma_of_negative_numbers():
    """The reflection formulas: near their roots on the negative axis the error is an
    absolute one, from log(pi / |sin(pi x)|) - lgamma(1 - x) (and pi cot(pi x))."""
    special = pytest.importorskip("scipy.special")
    x = np.random.RandomState(2).uniform(-30, 0, 4000).astype(np.float32)
    x = x[np.abs(x - np.round(x)) > 1e-3]
    for name, ref in (("lgamma", special.gammaln), ("digamma", special.psi)):
        k = cp.ElementwiseKernel("T x", "T y", f"y = {name}(x)", f"neg_{name}")
        want = ref(x.astype(np.float64))
        got = get(k(cp.asarray(x))).astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6, err_msg=name)


def test_preamble_functions_templates_references_and_defines():
    pre = """
    template <typename T> __device__ T sigmoid(T x) {
        const T half = 0.5;
        return tanh(x * half) * half + half;
    }
    __device__ bool clamp_low(T &p, const int limit, int &k) {
        if (p < -1. || p > limit) {
            return false;
        }
        k = (int)floor(p);
        if (k <= -1) { p = (T) 0.0; }
        return true;
    }
    #define BOTH \\
        T s = sigmoid(x); \\
        int k = 0;
    """
    body = "BOTH;\nT p = x * 4;\nbool ok = clamp_low(p, 3, k);\ny = ok ? s + p : -1.0;\nj = k;"
    k = cp.ElementwiseKernel("T x", "T y, int32 j", body, "pre", preamble=pre)
    x = np.linspace(-1.5, 1.5, 25).astype(np.float32)
    y, j = k(cp.asarray(x))
    s = (np.tanh(x * 0.5) * 0.5 + 0.5).astype(np.float32)
    p = x * 4
    ok = ~((p < -1) | (p > 3))
    kk = np.where(ok, np.floor(p), 0).astype(np.int32)
    p = np.where(ok & (kk <= -1), 0, p)
    np.testing.assert_allclose(get(y), np.where(ok, s + p, -1), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(get(j), kk)
    with pytest.raises(KernelError, match=r"line 1 of the preamble: the preprocessor "
                                          r"directive '#include <x>'"):
        cp.ElementwiseKernel("T x", "T y", "y = x;", "inc", preamble="#include <x>")(
            cp.zeros(2))
    with pytest.raises(KernelError, match="line 2 of the preamble: .*'q'"):
        cp.ElementwiseKernel("T x", "T y", "y = f(x);", "bad",
                             preamble="__device__ T f(T v) {\n return q; }")(cp.zeros(2))


def test_raw_index_arrays_shapes_and_raw_outputs():
    """CuPy's x[ind] with a local array of indices, x.shape()[k], and raw outputs written
    at computed positions (Chainer's select_item, ctc, permutate)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = np.array([3, 0, 2], np.int32)
    k = cp.ElementwiseKernel("S t, raw T x", "T y, raw T z",
                             "int ind[] = {i, t}; y = x[ind] + x.shape()[1];\n"
                             "int back[2] = {i, x.shape()[1] - 1 - t}; z[back] = -y;",
                             "pick")
    z = cp.zeros((3, 4), dtype=cp.float32)
    y, z2 = k(cp.asarray(t), cp.asarray(x), cp.empty(3, dtype=cp.float32), z)
    want = x[np.arange(3), t] + 4
    np.testing.assert_array_equal(get(y), want)
    zz = np.zeros((3, 4), np.float32)
    zz[np.arange(3), 3 - t] = -want
    np.testing.assert_array_equal(get(z), zz)
    assert z2 is z
    with pytest.raises(KernelError, match="has 2 dimensions, indexed with the 3 values"):
        cp.ElementwiseKernel("raw T x", "T y", "int ind[] = {i, 0, 0}; y = x[ind];", "bad")(
            cp.asarray(x), cp.empty(3, dtype=cp.float32))


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
def test_atomic_add_under_contention(dtype):
    """atomicAdd(&acc[k], v) from 5000 threads into 3 slots: integers add natively,
    float32 by compare-and-swap of the word; the old values it returns are distinct
    partial sums."""
    rng = np.random.RandomState(3)
    v = (rng.randint(1, 5, 5000) if dtype != "float32" else rng.uniform(0, 1, 5000)).astype(dtype)
    slot = rng.randint(0, 3, 5000).astype(np.int32)
    k = cp.ElementwiseKernel("T v, int32 s", "T old, raw T acc",
                             "old = atomicAdd(&acc[s], v);", "acc")
    acc = cp.zeros(3, dtype=dtype)
    old, _ = k(cp.asarray(v), cp.asarray(slot), cp.empty(5000, dtype=dtype), acc)
    want = np.zeros(3, np.float64)
    np.add.at(want, slot, v.astype(np.float64))
    if dtype == "float32":
        np.testing.assert_allclose(get(acc), want, rtol=1e-5)
    else:
        np.testing.assert_array_equal(get(acc), want.astype(dtype))
        old = get(old)
        for s in range(3):  # each thread saw a different partial sum of its slot
            assert len(np.unique(old[slot == s])) == np.sum(slot == s)


def test_continue_and_return_outside_loops_end_the_element():
    """CuPy runs the body inside its loop over the elements: 'continue' or 'return;' there
    leaves the outputs as set so far."""
    x = np.linspace(-2, 2, 9).astype(np.float32)
    for stop in ("continue;", "return;"):
        k = cp.ElementwiseKernel("T x", "T y", f"y = 1; if (x < 0) {{ {stop} }} y = x * 2;",
                                 "early")
        np.testing.assert_array_equal(get(k(cp.asarray(x))), np.where(x < 0, 1, x * 2))
    with pytest.raises(KernelError, match="'return' with a value is not allowed"):
        cp.ElementwiseKernel("T x", "T y", "return x;", "bad")(cp.zeros(2))


def test_raw_parameters_in_glsl_read_by_texel_fetch_and_refuse_writes():
    """WebGL2 draws write one output element per fragment: a raw read becomes a call of
    the reader the draw defines (a texelFetch; tests/test_cupy_browser.py runs them), a
    raw write or atomicAdd has no GLSL and the error names WebGL2."""
    fn = lang.UserFunction("g", "y = x[i + 1];", [("i", "i32")], [("y", "f32")],
                           dict(lang.TYPE_NAMES), raws=[("x", "f32")])
    assert "r_x(" in fn.source("glsl") and "r_x[" in fn.source("wgsl")
    w = lang.UserFunction("g2", "x[i] = 1.0f; y = 0;", [("i", "i32")], [("y", "f32")],
                          dict(lang.TYPE_NAMES), raws=[("x", "f32")])
    w.source("wgsl")
    with pytest.raises(KernelError, match=r"writing the raw parameter 'x' has no WebGL2"):
        w.source("glsl")
