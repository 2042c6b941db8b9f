"""webarray.cupy in headless Chromium (Pyodide, no NumPy there): the two Mandelbrot examples
through ``python -m webarray.browser run`` must print the checksum of NumPy's image
(computed here, natively, from the same float32 grid). The kernel example runs its WGSL
form on WebGPU and its GLSL form on WebGL2, the NumPy-style one on both; and the GLSL that
the translator makes is also compiled and run on its own in a WebGL2 context of the page's
worker. Slow (each run starts a browser); WEBARRAY_SKIP_BROWSER=1 skips them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import webarray.cupy as cp

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)

SIZE, ITERS = 64, 60


def numpy_checksum() -> int:
    from mandelbrot_numpy_style import checksum, grid, mandelbrot

    real, imag = grid(cp, SIZE)
    counts = mandelbrot(cp.asnumpy(real), cp.asnumpy(imag), ITERS)
    return checksum(counts)


def run(script: Path, *options: str, args=(), timeout=300):
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--timeout",
           str(timeout), "--file", str(EXAMPLES / "mandelbrot_numpy_style.py"), *options,
           "--", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, cwd=ROOT)


def checksum_of(stdout: str) -> int:
    m = re.search(r"checksum=(\d+)", stdout)
    assert m, stdout
    return int(m.group(1))


@pytest.mark.parametrize("script,backend", [
    ("mandelbrot_kernel.py", "webgpu"),
    ("mandelbrot_kernel.py", "webgl2"),
    ("mandelbrot_numpy_style.py", "webgpu"),
    ("mandelbrot_numpy_style.py", "webgl2"),
])
def test_mandelbrot_examples_in_the_browser_match_numpy(script, backend):
    r = run(EXAMPLES / script, "--backend", backend,
            args=["--size", str(SIZE), "--iters", str(ITERS)])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "NumPy is not installed" in r.stdout  # Pyodide here has no NumPy
    if script == "mandelbrot_kernel.py":  # each backend's own body form
        assert f"form={'glsl' if backend == 'webgl2' else 'wgsl'}" in r.stdout
    assert checksum_of(r.stdout) == numpy_checksum()


@pytest.mark.parametrize("backend", ["webgpu", "webgl2"])
def test_cupy_user_guide_in_the_browser(backend):
    # what the user guide teaches, with no NumPy: each section checks itself in Python
    r = run(EXAMPLES / "cupy_user_guide.py", "--backend", backend)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for section in ("basics", "elementwise kernels", "reduction kernels", "fuse"):
        assert f"ok {section}" in r.stdout
    assert "NumPy arrays skipped: NumPy is not installed here" in r.stdout
    assert "all sections passed" in r.stdout


# The GLSL form of the kernel example, translated to GLSL ES 3.00 by webarray.cupy, drawn
# by a fragment shader into an R32I texture in the worker's own WebGL2 context (and the
# `import cupy` opt-in, in Pyodide).
GLSL_RUN = r'''
import sys
import js
from pyodide.ffi import to_js
import webarray.cupy
assert webarray.cupy.install()  # no real CuPy in Pyodide: `import cupy` gives webarray.cupy
import cupy as cp
assert cp is webarray.cupy
from webarray.cupy import _kernel_lang as lang
from mandelbrot_kernel import BODIES
from mandelbrot_numpy_style import checksum, grid

SIZE, ITERS = int(sys.argv[1]), int(sys.argv[2])
in_params, out_params, body = BODIES["glsl"]
fn = lang.UserFunction("mandelbrot_glsl", body,
                       [("re", "f32"), ("im", "f32"), ("max_iter", "i32")],
                       [("count", "i32")], dict(lang.TYPE_NAMES))
functions, sigs = fn.glsl_outputs()
(wrapper,) = sigs
real, imag = grid(cp, SIZE)

gl = js.OffscreenCanvas.new(SIZE, SIZE).getContext("webgl2")
def shader(kind, src):
    s = gl.createShader(kind)
    gl.shaderSource(s, src)
    gl.compileShader(s)
    if not gl.getShaderParameter(s, gl.COMPILE_STATUS):
        raise RuntimeError(gl.getShaderInfoLog(s) + "\n" + src)
    return s
vs = ("#version 300 es\nvoid main() { int v = gl_VertexID;\n"
      "  float x = (v == 1 || v == 4 || v == 5) ? 1.0 : -1.0;\n"
      "  float y = (v == 2 || v == 3 || v == 5) ? 1.0 : -1.0;\n"
      "  gl_Position = vec4(x, y, 0.0, 1.0); }\n")
fs = ("#version 300 es\nprecision highp float;\nprecision highp int;\n"
      "uniform highp uvec4 U[1];\nuniform highp sampler2D RE;\nuniform highp sampler2D IM;\n"
      "uniform int max_iter;\nlayout(location = 0) out highp ivec4 o;\n" + functions +
      "void main() { ivec2 p = ivec2(gl_FragCoord.xy);\n"
      f"  o = ivec4({wrapper}(texelFetch(RE, p, 0).r, texelFetch(IM, p, 0).r, max_iter), 0, 0, 0); }}\n")
prog = gl.createProgram()
gl.attachShader(prog, shader(gl.VERTEX_SHADER, vs))
gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, fs))
gl.linkProgram(prog)
assert gl.getProgramParameter(prog, gl.LINK_STATUS), gl.getProgramInfoLog(prog)

def texture(unit, values):
    t = gl.createTexture()
    gl.activeTexture(gl.TEXTURE0 + unit)
    gl.bindTexture(gl.TEXTURE_2D, t)
    for p in (gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER):
        gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST)
    data = js.Float32Array.new(to_js([v for row in values for v in row]))
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, SIZE, SIZE, 0, gl.RED, gl.FLOAT, data)
    return t
texture(0, real.tolist())
texture(1, imag.tolist())
target = gl.createTexture()
gl.activeTexture(gl.TEXTURE2)
gl.bindTexture(gl.TEXTURE_2D, target)
gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32I, SIZE, SIZE)
fb = gl.createFramebuffer()
gl.bindFramebuffer(gl.FRAMEBUFFER, fb)
gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target, 0)
gl.viewport(0, 0, SIZE, SIZE)
gl.useProgram(prog)
gl.uniform1i(gl.getUniformLocation(prog, "RE"), 0)
gl.uniform1i(gl.getUniformLocation(prog, "IM"), 1)
gl.uniform1i(gl.getUniformLocation(prog, "max_iter"), ITERS)
gl.uniform4uiv(gl.getUniformLocation(prog, "U"), to_js([SIZE * SIZE, 0, 0, 0]))
gl.drawArrays(gl.TRIANGLES, 0, 6)
out = js.Int32Array.new(SIZE * SIZE * 4)
gl.readPixels(0, 0, SIZE, SIZE, gl.RGBA_INTEGER, gl.INT, out)
counts = list(out.to_py())[::4]
image = cp.asarray([counts[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)], dtype=cp.int32)
print(f"glsl checksum={checksum(image)}")
'''


def test_translated_glsl_runs_in_webgl2_and_matches_numpy(tmp_path):
    script = tmp_path / "glsl_run.py"
    script.write_text(GLSL_RUN)
    r = run(script, "--file", str(EXAMPLES / "mandelbrot_kernel.py"),
            args=[str(SIZE), str(ITERS)])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-6000:]
    assert checksum_of(r.stdout) == numpy_checksum()


WEBGL2_KERNELS = r'''
import math
import webarray.cupy as cp

assert cp.__array_namespace_info__ if hasattr(cp, "__array_namespace_info__") else True
x = cp.arange(12, dtype=cp.float32).reshape(3, 4)
# raw reads at computed positions, with the index and sizes CuPy bodies use
shift = cp.ElementwiseKernel("raw T x, int32 n", "T y", "y = x[(i + 1) % n] + _ind.size()", "shift")
got = shift(x.ravel(), 12, size=12).tolist()
assert got == [float((k + 1) % 12 + 12) for k in range(12)], got
# a bool raw parameter and an int one
pick = cp.ElementwiseKernel("raw bool m, raw int32 v", "int32 y", "y = m[i] ? v[i] : -v[i]", "pick")
got = pick(cp.asarray([True, False, True]), cp.asarray([1, 2, 3], dtype=cp.int32), size=3).tolist()
assert got == [1, -2, 3], got
print("ok raw reads")
# C's truncating % and / on negative ints (GLSL leaves % undefined for negative operands)
a = [-7, 7, -7, 7, -1, 0, -2147483647, 5]
b = [3, -3, -3, 3, 5, -4, 10, -1]
rem = cp.ElementwiseKernel("int32 a, int32 b", "int32 r, int32 q", "r = a % b; q = a / b", "rem")
r, q = rem(cp.asarray(a, dtype=cp.int32), cp.asarray(b, dtype=cp.int32))
assert r.tolist() == [int(math.fmod(x, y)) for x, y in zip(a, b)], r.tolist()
assert q.tolist() == [int(x / y) for x, y in zip(a, b)], q.tolist()
print("ok signed remainder")
# reductions: a sum of squares per row, a max without identity, a raw-reading map with _j
ss = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ss")
assert ss(x, axis=1).tolist() == [sum(float(v) ** 2 for v in range(4 * r, 4 * r + 4)) for r in range(3)]
mx = cp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "mx")
assert mx(x, axis=0).tolist() == [8.0, 9.0, 10.0, 11.0]
assert float(mx(x)) == 11.0
cnt = cp.ReductionKernel("T x", "int32 y", "1", "a + b", "y = a + _in_ind.size() * 0", "0", "cnt")
assert cnt(cp.zeros((5, 7), dtype=cp.float32), axis=1).tolist() == [7] * 5
mean = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a / _in_ind.size()", "0", "mean")
assert mean(cp.arange(1000, dtype=cp.float32)).tolist() == 499.5
# the post-map reads outputs passed in (Chainer's logsumexp: y += log(a))
lse = cp.ReductionKernel("T x, T vmax", "T y", "exp(x - vmax)", "a + b", "y += log(a)", "0", "lse")
vmax = cp.amax(x, axis=1, keepdims=True)
lse(x, vmax, vmax, axis=1, keepdims=True)
want = [math.log(sum(math.exp(v) for v in range(4 * r, 4 * r + 4))) for r in range(3)]
assert all(abs(g - w) < 1e-5 * w for g, w in zip(vmax.ravel().tolist(), want)), vmax.tolist()
empty = ss(cp.zeros((2, 0), dtype=cp.float32), axis=1).tolist()
assert empty == [0.0, 0.0], empty
print("ok reductions")
# writing a raw parameter is a scatter, which a fragment shader cannot do
scatter = cp.ElementwiseKernel("T v, raw T out", "T y", "out[i * 2] = v; y = v", "scatter")
try:
    scatter(cp.ones(3, dtype=cp.float32), cp.zeros(6, dtype=cp.float32))
except Exception as e:
    assert "WebGL2" in str(e) and "out" in str(e), e
    print("ok raw write refused:", type(e).__name__)
else:
    raise AssertionError("a raw write ran on WebGL2")
'''


def test_raw_and_reduction_kernels_on_webgl2(tmp_path):
    script = tmp_path / "webgl2_kernels.py"
    script.write_text(WEBGL2_KERNELS)
    r = run(script, "--backend", "webgl2")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for line in ("ok raw reads", "ok signed remainder", "ok reductions", "ok raw write refused"):
        assert line in r.stdout, r.stdout[-4000:]
