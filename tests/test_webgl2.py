"""The WebGL2 backend: the WGSL-to-GLSL translator (plain CPython), and webarray on a real
WebGL2 context (ANGLE on SwiftShader in headless Chromium, WebGPU switched off) checked
against exact expectations and, op by op, bit for bit against the WebGPU backend in the
same browser.

The browser tests need what scripts/setup.sh installs; WEBARRAY_SKIP_BROWSER=1 skips them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from webarray.kernels.ops import TABLE
from webarray.kernels.webgl2 import glsl_lib
from webarray.kernels.shader.translate import (
    TranslationError, translate_expression, translate_function)
from webarray.kernels.wgsl_lib import LIB

ROOT = Path(__file__).resolve().parents[1]
browser = pytest.mark.skipif(os.environ.get("WEBARRAY_SKIP_BROWSER") == "1",
                             reason="WEBARRAY_SKIP_BROWSER=1")


# -- the translator ----------------------------------------------------------------------

def glsl(src: str, env: dict, target=None) -> str:
    return translate_expression(src, env, glsl_lib.signatures(), target)[0]


def test_abstract_literals_take_the_type_of_their_context():
    assert glsl("x + 1", {"x": "u32"}) == "(x + 1u)"
    assert glsl("x * 2", {"x": "f32"}) == "(x * 2.0)"
    assert glsl("1 - x", {"x": "i32"}) == "(1 - x)"
    assert glsl("v * 2", {"v": "vec2<f32>"}) == "(v * 2.0)"
    assert glsl("1.0 / 6.0", {}) == "0.16666666666666666"
    assert glsl("-2147483648", {}, "i32") == "int(0x80000000u)"
    assert glsl("0x1p-3", {}, "f32") == "0.125"


def test_wgsl_builtins_become_their_glsl_equivalents():
    env = {"x": "f32", "u": "u32", "i": "i32", "c": "bool"}
    assert glsl("bitcast<u32>(x)", env) == "floatBitsToUint(x)"
    assert glsl("bitcast<f32>(u)", env) == "uintBitsToFloat(u)"
    assert glsl("bitcast<i32>(u)", env) == "int(u)"
    # select evaluates only the chosen operand in GLSL: guarded divisions stay defined
    assert glsl("select(0u, u / u, u != 0u)", env) == "((u != 0u) ? (u / u) : 0u)"
    assert glsl("round(x)", env) == "roundEven(x)"
    assert glsl("i % i", env) == "wa_imod(i, i)"
    assert glsl("countLeadingZeros(u)", env) == "wa_clz(u)"
    assert glsl("c & c", env) == "(c && c)"


def test_declarations_get_their_inferred_types():
    src = """fn f(a: u32, x: f32) -> vec2<f32> {
        let k = a >> 3u;
        var m = 0;
        var t = array<u32, 2>(1u, 2u);
        var z: f32;
        for (var j = 0u; j < 2u; j++) { m = m + i32(t[j] + k); }
        loop { if (m > 3) { break; } m += 1; }
        return vec2<f32>(x * f32(m), z);
    }"""
    name, out, used = translate_function(src, {})
    assert name == "f" and not used
    for line in ("uint k = (a >> 3u);", "int m = 0;", "uint t[2] = uint[2](1u, 2u);",
                 "float z = 0.0;", "for (uint j = 0u; (j < 2u); j = (j + 1u))", "for (; ; )",
                 "m = (m + 1);", "return vec2((x * float(m)), z);"):
        assert line in out, (line, out)


def test_constructs_outside_the_subset_are_refused():
    with pytest.raises(TranslationError, match="unsupported WGSL function"):
        glsl("textureLoad(x)", {"x": "f32"})
    with pytest.raises(TranslationError, match="unknown name"):
        glsl("y + 1", {})
    with pytest.raises(TranslationError, match="componentwise comparison"):
        glsl("v < v", {"v": "vec2<f32>"})


# helpers only the word-pair dtypes call, which WebGL2 leaves out (ldexp of 64-bit values)
def test_every_helper_of_the_library_translates():
    bad = {}
    for name in LIB:
        try:
            glsl_lib.translated(name)
        except TranslationError as e:
            bad[name] = str(e)
    assert not bad, bad


def test_every_op_of_the_table_has_a_glsl_kernel_for_every_one_word_lane():
    from webarray import _dtypes as dt
    from webarray.kernels.expr import Apply, Input
    from webarray.kernels.ops import lane_of
    from webarray.kernels.webgl2 import elementwise
    from webarray.kernels.specs.elementwise import ElementwiseSpec, Operand

    narrow = [dt.bool, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32, dt.float32]
    count = 0
    for op in TABLE.values():
        for d in narrow:
            if lane_of(d) not in op.wgsl or d not in dt.categories[op.inputs]:
                continue
            res = {"same": d, "bool": dt.bool, "real": d}[op.result]
            node = Apply(op.name, tuple(Input(k, d) for k in range(op.arity)), d, res)
            spec = ElementwiseSpec(tuple((d, Operand(2 + k, strided=k == 1)) for k in range(op.arity)),
                                   (), ((node, Operand(1, strided=False)),),
                                   (True,) + (False,) * op.arity, 2, False)
            src = elementwise.generate(spec)
            assert "//!draw out=1 prim=rect" in src and "wa_value" in src
            count += 1
    assert count > 250


def test_the_stages_of_the_functions_of_several_kernels_generate():
    """The stages of the functions the browser runs in several kernels (ops.STAGED) generate
    for WebGL2, and every draw carries the probe's early return. (complex128 expm1 and pow
    whole wrote zeros or lost the context on WebGL2 over SwiftShader; in stages they run.)"""
    from webarray import _dtypes as dt
    from webarray.kernels.expr import Apply, Input
    from webarray.kernels.ops import STAGE_OPS, STAGED
    from webarray.kernels.webgl2 import elementwise
    from webarray.kernels.specs.elementwise import ElementwiseSpec, Operand

    def spec(op, args, d, res):
        node = Apply(op, tuple(Input(k, a) for k, a in enumerate(args)), d, res)
        return ElementwiseSpec(tuple((a, Operand(2 + k, strided=False)) for k, a in enumerate(args)),
                               (), ((node, Operand(1, strided=False)),),
                               (True,) + (False,) * len(args), 1, False)

    z = dt.complex128
    for (name, lane), stages in STAGED.items():
        d = dt.float64 if lane == "D" else z
        arity = STAGE_OPS[stages[0].fn].arity
        for k, stage in enumerate(stages):
            last = k == len(stages) - 1
            carriers = [z] * len(stage.carriers(k))
            src = elementwise.generate(spec(stage.fn, carriers + [d] * arity, d, d if last else z))
            fragment = src.split("//!fragment\n", 1)[1]
            assert "wa_value" in src and "if (wa_probe != 0u) { wa_o = wa_probe; return; }" in fragment


# -- in the browser ------------------------------------------------------------------------

def run_in_browser(tmp_path, source: str, *options: str, timeout: float = 300):
    script = tmp_path / "script.py"
    script.write_text(source)
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--timeout", str(timeout),
           *options]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, cwd=ROOT)


# Every op of the table on every one-word dtype its category admits, every astype between
# them, on edge values and seeded pseudo-random ones (no subnormals: SwiftShader flushes
# them on both backends, and tests must hold everywhere), printed as result words.
OPS_DUMP = r'''
import json, math, random, struct
import webarray as xp
from webarray import _dtypes as dt
from webarray.kernels.ops import TABLE, lane_of

NARROW = [dt.bool, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32, dt.float32]
rng = random.Random(6)
F = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 100.25, 1e-30, -1e-20, 1e30, 3.0e38, -3.0e38,
     math.inf, -math.inf, math.nan, 1.5707964, 3.1415927, 88.7, -87.5, 0.999, 1e-7, 7.0, 2.0]
F += [rng.choice((-1, 1)) * rng.uniform(0, 4) * 10 ** rng.randint(-8, 8) for _ in range(40)]
RANGES = {"int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2**31, 2**31 - 1),
          "uint8": (0, 255), "uint16": (0, 65535), "uint32": (0, 2**32 - 1)}


def values(d):
    if d is dt.bool:
        return [rng.random() < 0.5 for _ in F]
    if d is dt.float32:
        return list(F)
    lo, hi = RANGES[d.name]
    edge = [lo, hi, 0, 1, 2, 3, 31, 32, 33] + ([-1, -2, -31, -33] if lo < 0 else [7, 8])
    return (edge + [rng.randint(lo, hi) for _ in F] + [rng.randint(-40, 40) % (hi + 1) if lo == 0
            else rng.randint(-40, 40) for _ in F])[:len(F)]


def words(a):
    b = a.dtype
    return [struct.unpack("<I", struct.pack("<f", v))[0] if b is dt.float32 else int(v) & 0xffffffff
            for v in a._host_nested()]


out = {}
special = {"copy", "where", "clip"}
for op in TABLE.values():
    for d in NARROW:
        if lane_of(d) not in op.wgsl or d not in dt.categories[op.inputs] or op.name == "copy":
            continue
        args = [xp.asarray(values(d), dtype=d) for _ in range(op.arity)]
        for k in range(1, op.arity):
            args[k] = xp.roll(args[k], 7 * k)
        if op.name == "where":
            r = xp.where(xp.astype(args[0], xp.bool), args[1], args[2])
        elif hasattr(xp, op.name):
            r = getattr(xp, op.name)(*args)
        else:  # a table op outside the standard (cbrt: webarray.cupy's)
            from webarray._elementwise import _apply

            r = _apply(op.name, *args)
        out[f"{op.name}/{d.name}"] = words(r)
for s in NARROW:
    x = xp.asarray(values(s), dtype=s)
    for d in NARROW:
        if s is dt.float32 and d is not dt.float32 and d is not dt.bool:
            x2 = x[xp.isfinite(x) & (xp.abs(x) < 2.0**31)]  # out-of-range casts are undefined
            if d.name.startswith("uint"):
                x2 = x2[(x2 >= 0) & (x2 < 2.0**32)]
            out[f"astype/{s.name}/{d.name}"] = words(xp.astype(x2, d))
        else:
            out[f"astype/{s.name}/{d.name}"] = words(xp.astype(x, d))
print("DUMP " + json.dumps(out))
'''


def _dump(tmp_path, backend: str, script: str = OPS_DUMP, *options: str, timeout: float = 300):
    """The DUMP line a script prints in the browser on backend, and its whole stdout."""
    r = run_in_browser(tmp_path, script, "--backend", backend, *options, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("DUMP ")][-1]
    return json.loads(line[5:]), r.stdout


@browser
def test_every_op_and_astype_on_webgl2_matches_webgpu_bit_for_bit(tmp_path):
    gl = _dump(tmp_path, "webgl2")[0]
    gpu = _dump(tmp_path, "webgpu")[0]
    assert gl.keys() == gpu.keys() and len(gl) > 300
    differ = {k: [(i, a, b) for i, (a, b) in enumerate(zip(gl[k], gpu[k])) if a != b][:3]
              for k in gl if gl[k] != gpu[k]}
    assert not differ, differ


# The two- and four-word dtypes (int64, uint64, complex64, float64, complex128): every op of
# the table that compiles in seconds on a software GPU, every astype to and from them, printed
# as result words; the reductions, scans, sorting, searching and products checked exactly
# against Python here. The float64 elementary functions (exp, log, sin, pow, ...) are left
# out: their software binary64 shaders take SwiftShader minutes to compile on either backend
# (they are checked natively, tests/test_float64_math.py, both lanes bit for bit).
WIDE_DUMP = r"""
import cmath, json, math, random, struct
import webarray as xp
from webarray import _dtypes as dt
from webarray.kernels.ops import TABLE, lane_of

WIDE = [dt.int64, dt.uint64, dt.complex64, dt.float64, dt.complex128]
ALL = [dt.bool, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32, dt.float32] + WIDE
HEAVY = {"exp", "expm1", "log", "log1p", "log2", "log10", "pow", "logaddexp", "hypot", "sin",
         "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "cbrt"}
HEAVY_Z = HEAVY | {"sqrt", "abs", "divide", "reciprocal", "sign"}  # hypot and complex division
rng = random.Random(7)
inf, nan = math.inf, math.nan
F64 = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 100.25, 1e-300, -1e-200, 1e300, 1.7e308, -1.7e308,
       inf, -inf, nan, 1.5707963267948966, 709.7, -745.0, 0.999, 1e-7, 7.0, 2.0, 5e-324,
       -2.2250738585072014e-308, 2.0**53 + 2, -(2.0**63), 2.5, -0.5]
F64 += [rng.choice((-1, 1)) * rng.uniform(0, 4) * 10 ** rng.randint(-12, 12) for _ in range(35)]
N = len(F64)
F32 = [v for v in F64 if v == 0 or not math.isfinite(v) or 1e-37 < abs(v) < 3e38]
F32 += [rng.choice((-1, 1)) * rng.uniform(0, 4) * 10 ** rng.randint(-8, 8) for _ in range(N - len(F32))]
I64 = [-2**63, 2**63 - 1, 0, 1, -1, 2, 63, 64, 2**32, -2**32, 2**31, 2**53 + 1, -7, 31, 33]
I64 += [rng.randint(-2**63, 2**63 - 1) for _ in range(N - len(I64) - 16)]
I64 += [rng.randint(-40, 40) for _ in range(16)]


def values(d):
    if d is dt.int64:
        return list(I64)
    if d is dt.uint64:
        return [v % 2**64 for v in I64]
    if d is dt.float64:
        return list(F64)
    if d is dt.float32:
        return list(F32)
    if d is dt.complex64:
        return [complex(a, b) for a, b in zip(F32, F32[7:] + F32[:7])]
    if d is dt.complex128:
        return [complex(a, b) for a, b in zip(F64, F64[11:] + F64[:11])]
    if d is dt.bool:
        return [rng.random() < 0.5 for _ in range(N)]
    lo, hi = (-2**(d.bits - 1), 2**(d.bits - 1) - 1) if d.kind == "i" else (0, 2**d.bits - 1)
    return [lo, hi, 0, 1] + [rng.randint(lo, hi) for _ in range(N - 4)]


def words(a):
    d, out = a.dtype, []
    for v in a._host_nested():
        if d in (dt.float64, dt.complex128, dt.float32, dt.complex64):
            fmt = "d" if d in (dt.float64, dt.complex128) else "f"
            for p in ([v.real, v.imag] if d.kind == "c" else [v]):
                out.append(int.from_bytes(struct.pack("<" + fmt, p), "little"))
        else:
            out.append(int(v) % 2**64)
    return out


out = {}
for op in TABLE.values():
    for d in WIDE:
        if (lane_of(d) not in op.wgsl or d not in dt.categories[op.inputs] or op.name == "copy"
                or (op.name in HEAVY and d is dt.float64)
                or (op.name in HEAVY_Z and d is dt.complex128)):
            continue
        args = [xp.asarray(values(d), dtype=d) for _ in range(op.arity)]
        for k in range(1, op.arity):
            args[k] = xp.roll(args[k], 7 * k)
        if op.name == "where":
            r = xp.where(args[0] != 0, args[1], args[2])
        elif hasattr(xp, op.name):
            r = getattr(xp, op.name)(*args)
        else:
            from webarray._elementwise import _apply
            r = _apply(op.name, *args)
        out[f"{op.name}/{d.name}"] = words(r)
for s in ALL:
    x = xp.asarray(values(s), dtype=s)
    for d in ALL:
        if (s not in WIDE and d not in WIDE) or (s.kind == "c" and d.kind != "c"):
            continue
        y = x
        if s.kind in "fc" and d.kind in "iu":  # out-of-range float to int casts are undefined
            y = x[xp.isfinite(x) & (xp.abs(x) < 2.0**31)]
            y = y[y >= 0] if d.kind == "u" else y
        out[f"astype/{s.name}/{d.name}"] = words(xp.astype(y, d))
print("DUMP " + json.dumps(out), flush=True)
# the rest is checked against Python on both backends


def ok(a, expect):
    got = a._host_nested()
    assert got == expect, (got, expect)


def near(a, expect, tol):
    got = a._host_nested()
    assert abs(got - expect) <= tol * abs(expect), (got, expect)


# reductions, exact where the arithmetic is, over several passes (300,001 elements)
big = [rng.randint(-2**40, 2**40) for _ in range(300_001)]
ok(xp.sum(xp.asarray(big, dtype=xp.int64)), sum(big))
ok(xp.sum(xp.asarray(big, dtype=xp.int64) % 1000, dtype=xp.uint64), sum(v % 1000 for v in big))
f = [rng.uniform(-1, 1) * 10 ** rng.randint(-3, 3) for _ in range(300_001)]
xf = xp.asarray(f, dtype=xp.float64)
near(xp.sum(xf), math.fsum(f), 1e-15 * sum(map(abs, f)) / abs(math.fsum(f)))  # compensated
near(xp.mean(xf), math.fsum(f) / len(f), 1e-13)
ok(xp.sum(xp.full(300_001, 0.1, dtype=xp.float64)), 30000.100000000002)  # fsum's
ok(xp.sum(xp.asarray([-0.0, -0.0], dtype=xp.float64)), 0.0)
ok(xp.max(xf), max(f)); ok(xp.min(xf), min(f)); ok(xp.argmax(xf), f.index(max(f)))
ok(xp.argmin(xp.asarray(big, dtype=xp.int64)), big.index(min(big)))
ok(xp.max(xp.asarray([1.0, nan, 2.0], dtype=xp.float64)) != xp.max(xp.asarray([1.0, nan, 2.0], dtype=xp.float64)), True)
ok(xp.prod(xp.asarray([3, -5, 7, 2**40], dtype=xp.int64)), (3 * -5 * 7 * 2**40))
m = [rng.uniform(-5, 5) for _ in range(1000)]
mean = math.fsum(m) / 1000
near(xp.var(xp.asarray(m, dtype=xp.float64)), math.fsum((v - mean) ** 2 for v in m) / 1000, 1e-14)
z = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(5000)]
zs = xp.sum(xp.asarray(z, dtype=xp.complex128))._host_nested()
assert abs(zs - complex(math.fsum(v.real for v in z), math.fsum(v.imag for v in z))) < 1e-12, zs
ok(xp.sum(xp.asarray([1 + 2j, 3 - 1j], dtype=xp.complex64)), 4 + 1j)
# scans (the shifted output's first element, -0.0 prefixes as NumPy's cumsum)
ok(xp.cumulative_sum(xp.asarray([2**40, 5, -7], dtype=xp.int64), include_initial=True), [0, 2**40, 2**40 + 5, 2**40 - 2])
ok(xp.cumulative_sum(xp.asarray([-0.0, -0.0, 1.5], dtype=xp.float64)), [-0.0, -0.0, 1.5])
c = xp.cumulative_sum(xp.ones(100_000, dtype=xp.int64))
ok(c[xp.asarray([0, 4095, 4096, 99_999])], [1, 4096, 4097, 100_000])
ok(xp.cumulative_prod(xp.asarray([1 + 1j, 1j], dtype=xp.complex128)), [1 + 1j, -1 + 1j])
# sorting and searching (NaN last, -0.0 with +0.0, stable)
s64 = xp.asarray([3.0, -1.0, nan, 0.0, -0.0, 1e300, -inf, 2.0], dtype=xp.float64)
ok(xp.argsort(s64), [6, 1, 3, 4, 7, 0, 5, 2])
r = [rng.randint(-2**62, 2**62) for _ in range(5003)]
ok(xp.sort(xp.asarray(r, dtype=xp.int64)), sorted(r))
ok(xp.argsort(xp.asarray(r, dtype=xp.int64), descending=True)[:3], sorted(range(5003), key=lambda i: -r[i])[:3])
ok(xp.unique_values(xp.asarray([2**40, 1, 2**40, -3], dtype=xp.int64)), [-3, 1, 2**40])
ok(xp.searchsorted(xp.asarray([1.0, 2.0, 2.0, 3.0], dtype=xp.float64), xp.asarray([2.0, 0.0, 9.0], dtype=xp.float64), side="right"), [3, 0, 4])
ok(xp.isin(xp.asarray([1, 2**50, nan], dtype=xp.float64), xp.asarray([2**50, nan], dtype=xp.float64)), [False, True, False])
# products (each float64 term one fused multiply-add, as on WebGPU) and a composed factorization
a = xp.reshape(xp.arange(12, dtype=xp.float64), (3, 4)) / 3
def fma_dot(p, q):
    acc = 0.0
    for u, v in zip(p, q):
        acc = math.fma(u, v, acc)
    return acc


ok(a @ xp.matrix_transpose(a), [[fma_dot(p, q) for q in a._host_nested()] for p in a._host_nested()])
ok(xp.asarray([[2**40, 3]], dtype=xp.int64) @ xp.asarray([[5], [7]], dtype=xp.int64), [[5 * 2**40 + 21]])
ok(xp.asarray([[1 + 2j, 3 - 1j]], dtype=xp.complex64) @ xp.asarray([[1j], [2]], dtype=xp.complex64), [[(4 - 1j)]])
sq = xp.asarray([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]], dtype=xp.float64)
near(xp.linalg.det(sq), 44.6, 1e-15)
# complex128 transforms (WebGPU: radix-2 and generic passes in software float64)
ok(xp.fft.fft(xp.asarray([1, 2j, -1, 0.5], dtype=xp.complex128)), [0.5 + 2j, 4 + 0.5j, -0.5 - 2j, -0.5j])
v6 = [complex(k, 1 - k / 3) for k in range(6)]
f6 = xp.fft.fft(xp.asarray(v6, dtype=xp.complex128))._host_nested()
dft = [sum(v * cmath.exp(-2j * math.pi * j * q / 6) for j, v in enumerate(v6)) for q in range(6)]
assert max(abs(a - b) for a, b in zip(f6, dft)) < 1e-14 * 20, (f6, dft)
print("WIDE OK")
"""


def _wide_dump(tmp_path, backend: str) -> dict:
    dump, out = _dump(tmp_path, backend, WIDE_DUMP, "--env", "WEBARRAY_FLOAT64=1", timeout=900)
    assert "WIDE OK" in out
    return dump


@browser
def test_two_and_four_word_dtypes_on_webgl2_match_webgpu_bit_for_bit(tmp_path):
    """int64, uint64, complex64, float64 and complex128 on WebGL2: each element's words are
    drawn one fragment per word (kernels/webgl2/program.py), each computing its element.
    Elementwise ops and casts bit for bit against WebGPU in the same browser; reductions,
    scans, sorting, searching, products and a factorization exactly against Python on each
    (WebGPU over SwiftShader lost its device on the complex128 sum until the float64 and
    complex128 reductions and scans looped around one call site of their combine)."""
    gl = _wide_dump(tmp_path, "webgl2")
    gpu = _wide_dump(tmp_path, "webgpu")
    assert gl.keys() == gpu.keys() and len(gl) > 150
    differ = {k: [(i, a, b) for i, (a, b) in enumerate(zip(gl[k], gpu[k])) if a != b][:3]
              for k in gl if gl[k] != gpu[k]}
    assert not differ, differ


CATEGORIES = r'''
import math, sys
import webarray as xp
from webarray.executors.protocol import DeviceLost

info = xp.__array_namespace_info__()
dev = info.default_device()
assert dev.backend == "webgl2", dev
assert [d for d in info.dtypes()] == ["bool", "int8", "int16", "int32", "uint8", "uint16",
                                      "uint32", "float32", "int64", "uint64", "complex64",
                                      "float64", "complex128"], info.dtypes()
assert info.devices() == (dev,)


def ok(a, expect):
    got = a._host_nested()
    assert got == expect, (got, expect)


# reductions over every layout the launcher makes: rows, columns, folded axes, several passes
x = xp.reshape(xp.arange(24, dtype=xp.float32), (2, 3, 4))
ok(xp.sum(x), 276.0)
ok(xp.sum(x, axis=(0, 2)), [60.0, 92.0, 124.0])
ok(xp.sum(x, axis=0), [[12.0, 14.0, 16.0, 18.0], [20.0, 22.0, 24.0, 26.0], [28.0, 30.0, 32.0, 34.0]])
ok(xp.prod(xp.asarray([1, 2, 3, 4, 5], dtype=xp.int8)), 120)
ok(xp.max(x, axis=1), [[8.0, 9.0, 10.0, 11.0], [20.0, 21.0, 22.0, 23.0]])
assert math.isnan(xp.min(xp.asarray([3.0, -0.0, float("nan"), 1.0]))._host_nested())
ok(xp.argmax(xp.asarray([1.0, 5.0, 5.0, -1.0])), 1)
ok(xp.argmin(x, axis=2), [[0, 0, 0], [0, 0, 0]])
ok(xp.argmax(xp.asarray([2.0, float("nan"), 7.0, float("nan")])), 1)
ok(xp.all(x >= 0, axis=0)[0], [True] * 4)
ok(xp.any(x > 22.5), True)
ok(xp.count_nonzero(x), 23)
ok(xp.mean(x, axis=-1), [[1.5, 5.5, 9.5], [13.5, 17.5, 21.5]])
ok(xp.var(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1), 1.6666666269302368)
ok(xp.std(xp.asarray([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])), 2.0)
n = 300_001  # several passes; integers are exact whatever the order
ok(xp.sum(xp.ones(n, dtype=xp.int32)), n)
i = xp.arange(n)
ok(xp.argmax(xp.where(i == 123_456, 5000, i % 1000)), 123_456)
big = xp.sum(xp.full(n, 0.1, dtype=xp.float32))
assert abs(big._host_nested() - n * 0.10000000149011612) < 1e-3, big  # compensated sums
ok(xp.sum(xp.ones((700, 3), dtype=xp.uint8), axis=0, dtype=xp.uint8), [700 % 256] * 3)
# an infinite sum stays infinite (the compensation's error term is inf - inf there)
inf = float("inf")
ok(xp.sum(xp.asarray([inf, 0.0, 0.0])), inf)
ok(xp.sum(xp.asarray([3e38, 3e38, 1.0])), inf)
ok(xp.sum(xp.asarray([[-inf], [2.0], [0.5]]), axis=0), [-inf])
ok(xp.mean(xp.where(xp.arange(5000) == 4321, inf, xp.ones(5000))), inf)
assert math.isnan(xp.sum(xp.asarray([inf, -inf, 1.0]))._host_nested())

# scans
ok(xp.cumulative_sum(xp.arange(6)), [0, 1, 3, 6, 10, 15])
ok(xp.cumulative_sum(xp.arange(4), include_initial=True), [0, 0, 1, 3, 6])
ok(xp.cumulative_prod(xp.asarray([[1, 2], [3, 4]]), axis=0), [[1, 2], [3, 8]])
ok(xp.cumulative_sum(xp.reshape(xp.arange(6), (2, 3)), axis=1), [[0, 1, 3], [3, 7, 12]])
c = xp.cumulative_sum(xp.ones(100_000, dtype=xp.int32))
ok(c[xp.asarray([0, 4095, 4096, 99_999])], [1, 4096, 4097, 100_000])

# sorting and searching (stable, NaN last, -0.0 with +0.0)
v = xp.asarray([3.0, -1.0, 2.0, float("nan"), 0.0, -0.0, 5.0, 2.0])
ok(xp.argsort(v), [1, 4, 5, 2, 7, 0, 6, 3])
ok(xp.argsort(v, descending=True), [3, 6, 0, 2, 7, 4, 5, 1])
ok(xp.sort(xp.asarray([[5, 1, 4], [2, 8, 0]], dtype=xp.int16), axis=0), [[2, 1, 0], [5, 8, 4]])
r = xp.asarray([(i * 7919) % 5003 for i in range(5003)], dtype=xp.int32)
ok(xp.sort(r)[:5], [0, 1, 2, 3, 4])
ok(xp.unique_values(xp.asarray([3, 1, 3, 2, 1], dtype=xp.uint8)), [1, 2, 3])
u = xp.unique_all(xp.asarray([3, 1, 3, 2, 1]))
ok(u.values, [1, 2, 3]); ok(u.counts, [2, 1, 2]); ok(u.inverse_indices, [2, 0, 2, 1, 0])
ok(xp.searchsorted(xp.asarray([1.0, 2.0, 2.0, 3.0]), xp.asarray([2.0, 0.0, 9.0]), side="right"), [3, 0, 4])
ok(xp.isin(xp.asarray([1, 5, 2]), xp.asarray([2, 3, 1])), [True, False, True])
ok(xp.nonzero(xp.asarray([0, 1, 0, 2]))[0], [1, 3])

# matmul and the linalg functions built on matmul and reductions
a = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3))
b = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4))
ok(a @ b, [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]])
ok(xp.matrix_transpose(a) @ a, [[9.0, 12.0, 15.0], [12.0, 17.0, 22.0], [15.0, 22.0, 29.0]])
ok(xp.ones((3, 2, 2), dtype=xp.int8) @ xp.full((2, 2), 100, dtype=xp.int8), [[[-56, -56]] * 2] * 3)
ok(xp.vecdot(a, a), [5.0, 50.0])
ok((xp.ones((1, 40000)) @ xp.ones((40000, 1)))[0, 0], 40000.0)  # K in draws of MAX_K
ok(xp.linalg.matrix_power(xp.asarray([[1, 1], [1, 0]]), 10), [[89, 55], [55, 34]])
ok(xp.linalg.trace(xp.eye(3)), 3.0)
ok(xp.linalg.vector_norm(xp.asarray([3.0, 4.0])), 5.0)
ok(xp.linalg.cross(xp.asarray([1.0, 0.0, 0.0]), xp.asarray([0.0, 1.0, 0.0])), [0.0, 0.0, 1.0])

# the factorizations, composed of namespace operations (_linalg_composed.py)
def close(a, expect, tol=1e-5):
    got = a._host_nested()
    flat = lambda v: [w for u in v for w in flat(u)] if isinstance(v, list) else [v]
    g, e = flat(got), flat(expect)
    assert len(g) == len(e) and all(abs(p - q) <= tol * (1 + abs(q)) for p, q in zip(g, e)), (got, expect)


s = xp.asarray([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]])
eye3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
close(xp.linalg.det(s), 44.6)
close(xp.linalg.slogdet(s).logabsdet, math.log(44.6))
close(xp.linalg.solve(s, xp.asarray([9.8, 15.0, 11.6])), [1.0, 2.0, 3.0])
close(xp.linalg.inv(s) @ s, eye3)
c = xp.linalg.cholesky(s)
close(c @ xp.matrix_transpose(c), s._host_nested())
ok(c[0, 1:], [0.0, 0.0])
close(xp.linalg.eigvalsh(s), [2.372468984808981, 2.7225082073229028, 6.905022807868114])
w, v = xp.linalg.eigh(s)
close(s @ v - v * w, [[0.0] * 3] * 3, 1e-4)
b = xp.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
q, r = xp.linalg.qr(b)
close(q @ r, b._host_nested())
close(xp.matrix_transpose(q) @ q, [[1.0, 0.0], [0.0, 1.0]])
close(xp.linalg.svdvals(b), [9.525518091565107, 0.514300580658644])
u, sv, vh = xp.linalg.svd(b, full_matrices=False)
close((u * sv) @ vh, b._host_nested())
close(xp.linalg.matrix_norm(b, ord="nuc"), 10.03981867222375)
close(xp.linalg.pinv(b), [[-4 / 3, -1 / 3, 2 / 3], [13 / 12, 1 / 3, -5 / 12]], 1e-4)
ok(xp.linalg.matrix_rank(xp.asarray([[1.0, 2.0], [2.0, 4.0]])), 1)
ok(xp.linalg.det(xp.asarray([[1.0, 2.0], [2.0, 4.0]])) == 0.0, True)

# a buffer larger than one texture layer (8M words): addressing, draws and reads span layers
n = (1 << 23) + 5000
y = xp.arange(n, dtype=xp.int32) * 2 + 1
ok(y[(1 << 23) - 3:(1 << 23) + 3], [2 * k + 1 for k in range((1 << 23) - 3, (1 << 23) + 3)])
y[::3] = -1  # a strided write: points in both layers
ok(y[xp.asarray([(1 << 23) - 1, 1 << 23, (1 << 23) + 1, n - 1])],
   [-1 if k % 3 == 0 else 2 * k + 1 for k in ((1 << 23) - 1, 1 << 23, (1 << 23) + 1, n - 1)])
ok(xp.argmax(y), n - 1 if (n - 1) % 3 else n - 2)
ok(xp.cumulative_sum(xp.ones(n, dtype=xp.int32))[-1], n)

# fft, composed of namespace operations (no fft kernels here): radix-2 stages for 8 and
# 16, Bluestein's transform for 5; against a direct DFT in Python
import cmath
def dft(v, sign=-1):
    n = len(v)
    return [sum(v[j] * cmath.exp(sign * 2j * cmath.pi * j * k / n) for j in range(n))
            for k in range(n)]
for n in (8, 16, 5):
    v = [complex(k % 3 - 1, (k * 7) % 5 - 2) for k in range(n)]
    close(xp.fft.fft(xp.asarray(v, dtype=xp.complex64)), dft(v), 1e-5 * n)
    close(xp.fft.ifft(xp.asarray(v, dtype=xp.complex64)), [w / n for w in dft(v, 1)], 1e-5 * n)
close(xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0])), [10, -2 + 2j, -2])

# eig and eigvals: the host's QR iteration (no compute shaders here), complex64 results;
# a rotation by 90 degrees scaled by 2 has eigenvalues +-2i (a conjugate pair, +2i first
# as LAPACK lists it), an upper triangular matrix its diagonal
w = xp.linalg.eigvals(xp.asarray([[0.0, -2.0], [2.0, 0.0]]))
assert w.dtype == xp.complex64 and w._host_nested() == [2j, -2j], w._host_nested()
w, v = xp.linalg.eig(xp.asarray([[1.0, 5.0], [0.0, 3.0]]))
assert sorted(w._host_nested(), key=lambda z: z.real) == [1, 3], w._host_nested()
av = xp.linalg.matmul(xp.asarray([[1.0, 5.0], [0.0, 3.0]], dtype=xp.complex64), v)
close(av, (v * w[None, :])._host_nested(), 1e-5)

# a lost context raises DeviceLost; once restored, a new device takes new arrays
x = xp.arange(4) + 1
ok(x, [1, 2, 3, 4])
for lose in (lambda: dev.executor.simulate_loss(200), lambda: x._host_nested()):
    try:
        lose()
    except DeviceLost as e:
        assert "WebGL2 context was lost" in str(e), e
    else:
        raise AssertionError("no DeviceLost")
import time
for _ in range(50):
    time.sleep(0.1)
    try:
        y = xp.arange(3) * 2
        ok(y, [0, 2, 4])
        break
    except DeviceLost:
        continue
assert info.default_device() is not dev and xp.sum(y)._host_nested() == 6
print("CATEGORIES OK")
'''


@browser
def test_every_category_on_webgl2_with_exact_results_and_named_limits(tmp_path):
    r = run_in_browser(tmp_path, CATEGORIES, "--backend", "webgl2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert "CATEGORIES OK" in r.stdout


@browser
def test_auto_picks_webgl2_where_the_browser_has_no_webgpu(tmp_path):
    source = ("import webarray as xp\n"
              "d = xp.__array_namespace_info__().default_device()\n"
              "print(d.backend, (xp.asarray([1, 2]) * 3)._host_nested())\n")
    r = run_in_browser(tmp_path, source, "--backend", "auto", "--no-webgpu")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "webgl2 [3, 6]"


# float64 sin, cos and tan on WebGL2 (software binary64 in a fragment shader), printed as
# result bits and compared with the native device's (bit for bit the software lane's)
F64_TRIG_VALUES = [0.0, -0.0, 1e-300, 2.0**-28, -0.5, 0.7853981633974483, 1.0, 1.5707963267948966,
                   -3.0, 100.25, 1e6, -2.5e20, 1e300, 1.7e308, float("inf"), float("nan"), 5e-324]


def _f64_bits(values) -> list:
    import struct
    return [struct.unpack("<Q", struct.pack("<d", v))[0] for v in values]


@browser
def test_float64_sin_cos_tan_on_webgl2_match_the_native_device_bit_for_bit(tmp_path):
    import webarray as xp
    source = ("import struct\nimport webarray as xp\ninf, nan = float('inf'), float('nan')\n"
              f"x = xp.asarray({F64_TRIG_VALUES!r}, dtype=xp.float64)\n"
              "for f in ('sin', 'cos', 'tan'):\n"
              "    y = getattr(xp, f)(x)\n"
              "    print(f, [struct.unpack('<Q', struct.pack('<d', float(y[i])))[0] for i in range(y.shape[0])])\n")
    r = run_in_browser(tmp_path, source, "--backend", "webgl2", timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in r.stdout.splitlines()
           if line.split(" ", 1)[0] in ("sin", "cos", "tan")}
    x = xp.asarray(F64_TRIG_VALUES, dtype=xp.float64)
    for f in ("sin", "cos", "tan"):
        want = _f64_bits(float(v) for v in getattr(xp, f)(x))
        assert got[f] == want, f


# the float64 functions WebGL2 runs in several kernels (ops.STAGED: SwiftShader does not run
# their shaders whole), over their special cases and ranges; binary ones against the values
# reversed
F64_STAGED_VALUES = [0.0, -0.0, 1e-300, 2.0**-28, -0.5, 0.3, 0.125, 1.0, -1.0, 0.9999, 3.0, -20.5,
                     24.99, 25.5, -300.0, 709.9, 710.6, 1e300, float("inf"), float("-inf"),
                     float("nan"), 5e-324]


@browser
def test_float64_functions_of_several_kernels_on_webgl2_match_the_native_device_bit_for_bit(tmp_path):
    import webarray as xp
    from webarray.kernels.ops import STAGED
    # (sin, cos and tan: the test above; cosh, acosh, asin and atan have the shapes of sinh,
    # asinh, acos and atan2's stages, and the same code natively: left out for time)
    names = sorted(name for name, lane in STAGED if lane == "D"
                   and name not in ("sin", "cos", "tan", "cosh", "acosh", "asin", "atan"))
    source = ("import struct\nimport webarray as xp\ninf, nan = float('inf'), float('nan')\n"
              f"x = xp.asarray({F64_STAGED_VALUES!r}, dtype=xp.float64)\n"
              "y = xp.flip(x)\n"
              f"for f in {names!r}:\n"
              "    r = getattr(xp, f)(x, y) if f in ('atan2', 'pow', 'logaddexp') else getattr(xp, f)(x)\n"
              "    print(f, [struct.unpack('<Q', struct.pack('<d', v))[0] for v in r._host_nested()])\n")
    r = run_in_browser(tmp_path, source, "--backend", "webgl2", timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in r.stdout.splitlines()
           if line.split(" ", 1)[0] in names}
    x = xp.asarray(F64_STAGED_VALUES, dtype=xp.float64)
    y = xp.flip(x)
    for f in names:
        want = getattr(xp, f)(x, y) if f in ("atan2", "pow", "logaddexp") else getattr(xp, f)(x)
        assert got[f] == _f64_bits(float(v) for v in want), f


# complex128 exp (four kernels), expm1 (seven) and log (six) on WebGL2, over special values
# and large parts, printed as the bits of both parts and compared with the native device's;
# a kernel above the device's inline limit (lowered here: every function's stages are below
# it) is refused before compiling, and the device goes on
C128_STAGED_VALUES = [complex(a, b) for a in (0.0, -0.0, 0.5, -1.5, 3.0, 709.9, float("inf"), float("nan"))
                      for b in (0.0, -0.0, 0.25, -2.0, 100.0, 1e300, float("inf"))]


@browser
def test_complex128_exp_expm1_and_log_on_webgl2_match_the_native_device_bit_for_bit(tmp_path):
    import struct

    import webarray as xp
    z = C128_STAGED_VALUES
    source = ("import struct\nimport webarray as xp\n"
              "inf, nan = float('inf'), float('nan')\n"
              f"z = xp.asarray([complex(a, b) for a, b in {[(v.real, v.imag) for v in z]!r}], dtype=xp.complex128)\n"
              "bits = lambda r: [struct.unpack('<Q', struct.pack('<d', p))[0] for v in r._host_nested() for p in (v.real, v.imag)]\n"
              "print('exp', bits(xp.exp(z)))\n"
              "print('expm1', bits(xp.expm1(z)))\n"
              "print('log', bits(xp.log(z)))\n"
              "dev = xp.__array_namespace_info__().default_device()\n"
              "dev.inline_limit = 300000\n"
              "try:\n    xp.sin(z)._host_nested()\n    print('sin ran')\n"
              "except NotImplementedError as e:\n    print('sin refused', 'characters of GLSL' in str(e))\n"
              "print('after', (z[:2] * 2)._host_nested())\n")
    r = run_in_browser(tmp_path, source, "--backend", "webgl2", timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in r.stdout.splitlines()
           if line.split(" ", 1)[0] in ("exp", "expm1", "log")}
    zz = xp.asarray(z, dtype=xp.complex128)
    for f, want in (("exp", xp.exp(zz)), ("expm1", xp.expm1(zz)), ("log", xp.log(zz))):
        want = [struct.unpack("<Q", struct.pack("<d", p))[0] for v in want._host_nested() for p in (v.real, v.imag)]
        # any NaN matches any NaN
        nan = [(b >> 52) & 0x7ff == 0x7ff and b & (2 ** 52 - 1) != 0 for b in want]
        assert [g if not n else None for g, n in zip(got[f], nan)] == [v if not n else None for v, n in zip(want, nan)], f
        assert all((g >> 52) & 0x7ff == 0x7ff and g & (2 ** 52 - 1) for g, n in zip(got[f], nan) if n), f
    assert "sin refused True" in r.stdout and "after [0j, 0j]" in r.stdout  # (0 - 0j) 2 = 0 + 0j


@browser
def test_a_shader_that_does_not_run_as_written_is_refused_and_the_device_goes_on(tmp_path):
    """The probe (webgl2.ts): a large program is drawn once with wa_probe set before use;
    this one ignores it (as SwiftShader's compile of float64 sin once did, writing zeros)."""
    pad = "// " + "x" * 100 + "\n"
    source = ("import webarray as xp\n"
              "from webarray.executors.protocol import KernelError\n"
              "ex = xp.__array_namespace_info__().default_device().executor\n"
              "src = ('//!draw out=1 prim=rect\\n#version 300 es\\nvoid main() { gl_Position = vec4(0.0); }\\n'\n"
              "       '//!fragment\\n#version 300 es\\nprecision highp int;\\nuniform highp uint wa_probe;\\n'\n"
              f"       + {pad!r} * 50 +\n"
              "       'layout(location = 0) out highp uint wa_o;\\n'\n"
              "       'void main() { wa_o = wa_probe == 1u ? 1u : 0u; }\\n')\n"
              "try:\n"
              "    ex.compile(src)\n"
              "except KernelError as e:\n"
              "    print('REFUSED', e)\n"
              "print('AFTER', (xp.asarray([1, 2]) * 3)._host_nested())\n")
    r = run_in_browser(tmp_path, source, "--backend", "webgl2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert "REFUSED" in r.stdout and "does not run as written" in r.stdout
    assert "probe draw gave 0x0" in r.stdout
    assert "AFTER [3, 6]" in r.stdout


@browser
def test_glsl_compile_errors_are_kernel_errors_with_the_numbered_source(tmp_path):
    source = ("import webarray as xp\n"
              "ex = xp.__array_namespace_info__().default_device().executor\n"
              "ex.compile('//!draw out=1 prim=rect\\n#version 300 es\\nvoid main() { bad; }\\n"
              "//!fragment\\n#version 300 es\\nvoid main() {}\\n')\n")
    r = run_in_browser(tmp_path, source, "--backend", "webgl2")
    assert r.returncode == 1
    assert "webarray.executors.protocol.KernelError" in r.stderr
    assert "GLSL" in r.stderr and re.search(r"\d+\s+void main\(\) \{ bad; \}", r.stderr)
