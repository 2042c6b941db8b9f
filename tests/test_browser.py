"""webarray in headless Chromium: the portable tests inside Pyodide on WebGPU and on
WebGL2 (with WebGPU switched off), and the runner's failure modes. Each test starts ``python -m webarray.browser run`` (a browser,
Pyodide and a GPU device), so these are the slow tests of the suite.

They need what scripts/setup.sh installs (Chromium, node_modules, the Pyodide test
wheels) and fail without it; WEBARRAY_SKIP_BROWSER=1 skips them on a machine without a
browser.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
WHEELS = ROOT / ".pyodide-wheels"
RUN_TIMEOUT = 300  # seconds: one browser run, start-up included

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)


def run_in_browser(tmp_path, source: str, *options: str, timeout: float = RUN_TIMEOUT):
    script = tmp_path / "script.py"
    script.write_text(source)
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--timeout", str(timeout), *options]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, cwd=ROOT)


def test_wheels_for_pyodide_are_downloaded():
    names = {p.name.split("-")[0].lower() for p in WHEELS.glob("*.whl")}
    missing = {"pytest", "pluggy", "iniconfig", "packaging", "pygments", "hypothesis", "attrs",
               "sortedcontainers"} - names
    assert not missing, f"run scripts/setup.sh: {sorted(missing)} missing in {WHEELS}"


PYTEST_IN_PYODIDE = """
import sys
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "test_core_portable.py"]))
"""


@pytest.mark.parametrize("backend, transport",
                         [("webgpu", "sab"), ("webgpu", "jspi"), ("webgl2", "sab")])
def test_portable_tests_pass_in_pyodide(tmp_path, backend, transport):
    wheels = [a for w in sorted(WHEELS.glob("*.whl")) for a in ("--wheel", str(w))]
    files = ["--file", str(TESTS / "conftest.py"), "--file", str(TESTS / "test_core_portable.py")]
    r = run_in_browser(tmp_path, PYTEST_IN_PYODIDE, "--backend", backend, "--transport", transport,
                       *wheels, *files)
    summary = r.stdout.strip().splitlines()[-1:] or [""]
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert re.search(r"\d+ passed", summary[0]), summary
    assert "failed" not in summary[0] and "error" not in summary[0]


SMOKE = """
import sys
import webarray as xp
dev = xp.__array_namespace_info__().default_device()
assert sys.platform == "emscripten"
assert dev.backend == "webgpu", dev
x = xp.arange(1 << 16, dtype=xp.float32)
y = xp.sqrt(x) * 2.0 + 1.0
assert float(y[9]) == 7.0
assert int(xp.asarray([100], dtype=xp.int8)[0] * 2) == -56
print("transport", dev.executor.transport)
# Chromium's WebGPU compiles WGSL with Tint: the float32 matmul takes Tint's shape
assert dev.wgsl_compiler == "tint", dev.wgsl_compiler
a = xp.reshape(xp.arange(130 * 70, dtype=xp.float32) % 3.0, (130, 70))  # (sums exact)
assert float(xp.sum(a @ a.mT)) == float(xp.sum(xp.sum(a, axis=0) ** 2))
"""


def test_gpu_on_the_main_thread(tmp_path):
    r = run_in_browser(tmp_path, SMOKE, "--gpu-thread", "main")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "transport sab" in r.stdout


def test_output_is_streamed_in_order_and_exit_status_passed_on(tmp_path):
    source = (
        "import os, sys\n"
        "print(sys.argv[1:], os.environ['WA_TEST'])\n"
        "for i in range(3):\n"
        "    print('line', i)\n"
        "print('to stderr', file=sys.stderr)\n"
        "print('no newline', end='')\n"
        "sys.exit(7)\n"
    )
    r = run_in_browser(tmp_path, source, "--env", "WA_TEST=42", "--", "-x", "two words")
    assert r.returncode == 7, r.stderr
    assert r.stdout == "['-x', 'two words'] 42\nline 0\nline 1\nline 2\nno newline"
    assert "to stderr" in r.stderr


def test_shader_error_ends_the_script_with_a_traceback(tmp_path):
    source = (
        "import webarray as xp\n"
        "def compile_bad():\n"
        "    ex = xp.__array_namespace_info__().default_device().executor\n"
        "    ex.compile('@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }')\n"
        "\n"
        "compile_bad()\n"
    )
    r = run_in_browser(tmp_path, source)
    assert r.returncode == 1
    assert "Traceback" in r.stderr and "webarray.executors.protocol.KernelError" in r.stderr
    # the traceback starts in the script, and the numbered source comes along
    assert 'script.py", line 6' in r.stderr and 'script.py", line 4' in r.stderr
    assert "runpy" not in r.stderr
    assert "let x: u32 = 1.5" in r.stderr


def test_lost_device_raises_device_lost(tmp_path):
    source = (
        "import webarray as xp\n"
        "x = xp.ones(4)\n"
        "xp.__array_namespace_info__().default_device().executor.destroy()\n"
        "print(x + 1)\n"
    )
    r = run_in_browser(tmp_path, source)
    assert r.returncode == 1
    assert "webarray.executors.protocol.DeviceLost" in r.stderr
    assert "destroyed" in r.stderr


def test_timeout_ends_a_hung_script(tmp_path):
    r = run_in_browser(tmp_path, "while True:\n    pass\n", timeout=20)
    assert r.returncode == 124
    assert "timed out after 20" in r.stderr


def test_missing_cross_origin_isolation_is_explained(tmp_path):
    r = run_in_browser(tmp_path, "print('unreachable')\n", "--no-isolation")
    assert r.returncode == 3
    assert "Cross-Origin-Opener-Policy: same-origin" in r.stderr
    assert "Cross-Origin-Embedder-Policy: require-corp" in r.stderr
    assert "unreachable" not in r.stdout


def test_jspi_needs_no_cross_origin_isolation(tmp_path):
    r = run_in_browser(tmp_path, SMOKE, "--transport", "jspi", "--no-isolation")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "transport jspi" in r.stdout


def test_a_backend_that_cannot_start_is_explained(tmp_path):
    # without WebGPU in the browser, asking for it fails at start-up with the reason
    r = run_in_browser(tmp_path, "print('unreachable')\n", "--backend", "webgpu", "--no-webgpu")
    assert r.returncode in (1, 3), r.stdout + r.stderr
    assert "WebGPU" in r.stderr and "unreachable" not in r.stdout


def test_missing_script_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "webarray.browser", "run", str(tmp_path / "nope.py")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no such script" in r.stderr


def test_protocol_constants_are_generated_from_one_source():
    # the numbers are written in executors/wire.py; wire.ts is its generated TypeScript
    from webarray.executors import browser, wire

    ts = (ROOT / "src" / "webarray_js" / "wire.ts").read_text()
    assert ts == wire.typescript(), ("src/webarray_js/wire.ts is out of date: run "
                                     "python -m webarray.executors.wire > src/webarray_js/wire.ts")
    pattern = r"^export const ((?:OP|STATUS|TRANSPORT|CTRL)_[A-Z_]+|RECORD_ALIGN) = (-?\d+);"
    consts = dict(re.findall(pattern, ts, re.M))
    assert len(consts) > 25
    for name, value in consts.items():
        assert getattr(wire, name) == int(value), name
    assert f'BRIDGE_MODULE = "{wire.BRIDGE_MODULE}"' in ts
    # the executor encodes with the same objects
    assert browser.OP_DISPATCH is wire.OP_DISPATCH and browser.RECORD_ALIGN == wire.RECORD_ALIGN
    # and no TypeScript file defines a protocol number of its own
    for f in (ROOT / "src" / "webarray_js").glob("*.ts"):
        if f.name != "wire.ts":
            assert not re.search(r"^export const ((OP|STATUS|TRANSPORT|CTRL)_|RECORD_ALIGN|"
                                 r"BRIDGE_MODULE)", f.read_text(), re.M), f.name


LINALG_AND_FFT = r'''
import math, random
import webarray as xp

assert xp.__array_namespace_info__().default_device().backend == "webgpu"
random.seed(3)


def worst(z):
    return float(xp.max(xp.abs(z))) if z.size else 0.0


def matrix(m, n, dtype=xp.float32, shift=0.0):
    re = [[random.gauss(0, 1) + (shift if i == j else 0.0) for j in range(n)] for i in range(m)]
    a = xp.asarray(re, dtype=xp.float32)
    if dtype == xp.complex64:
        im = xp.asarray([[random.gauss(0, 1) for _ in range(n)] for _ in range(m)], dtype=xp.float32)
        a = a + 1j * im
    return a


def herm(a):
    return xp.conj(a).mT if a.dtype == xp.complex64 else a.mT


# every kernel family of the linalg extension, below and above the 64-side limit of the
# one-workgroup kernels, real and complex: Tint compiles what naga does not judge. Past
# that limit, both plans: the adapter's own and, forced, the LU panel in registers and
# the QR step in one launch (a GPU's) with Jacobi by blocks of rows (a CPU's)
from webarray._core.algorithms import linalg as plan

for dtype, n, gpu in ((xp.float32, 3, None), (xp.complex64, 3, None), (xp.float32, 70, None),
                      (xp.complex64, 70, None), (xp.float32, 70, True), (xp.complex64, 70, True)):
    plan.REGISTER_PANEL = plan.JACOBI_BLOCKS = plan.QR_ONE_LAUNCH = plan.FUSED_CHOLESKY = gpu
    tol = 2e-3
    eye = xp.eye(n, dtype=dtype)
    a = matrix(n, n, dtype, shift=n)
    spd = a @ herm(a)
    c = xp.linalg.cholesky(spd)
    assert worst(c @ herm(c) - spd) <= tol * worst(spd), ("cholesky", dtype, n)
    assert worst(a @ xp.linalg.inv(a) - eye) <= tol, ("inv", dtype, n)
    b = matrix(n, 2, dtype)
    assert worst(a @ xp.linalg.solve(a, b) - b) <= tol * (1 + worst(b)), ("solve", dtype, n)
    s = xp.linalg.slogdet(a)
    d = xp.linalg.det(a[:3, :3])
    assert math.isfinite(float(s.logabsdet)) and d.shape == (), ("slogdet", dtype, n)
    q, r = xp.linalg.qr(matrix(n + 2, n, dtype))
    assert worst(herm(q) @ q - eye) <= tol, ("qr", dtype, n)
    w, v = xp.linalg.eigh(spd)
    assert worst(spd @ v - v * w) <= tol * worst(spd), ("eigh", dtype, n)
    g = matrix(n, n + 1, dtype)
    u, sv, vh = xp.linalg.svd(g, full_matrices=False)
    assert worst((u * sv) @ vh - g) <= tol * worst(g), ("svd", dtype, n)
    assert int(xp.linalg.matrix_rank(g)) == n and xp.linalg.pinv(g).shape == (n + 1, n)
    ev, vec = xp.linalg.eig(a)
    ac = a if dtype == xp.complex64 else a + 0j
    assert worst(ac @ vec - vec * ev) <= tol * worst(a) * n, ("eig", dtype, n)
    assert xp.linalg.eigvals(a).shape == (n,)
    print("linalg", dtype, n, gpu, "ok")

# rows of JACOBI_WIDE elements: Jacobi rounds with twice the threads a pair (a GPU's plan)
plan.JACOBI_BLOCKS = False
for dtype in (xp.float32, xp.complex64):
    g = matrix(plan.JACOBI_WIDE + 8, 3, dtype)
    u, sv, vh = xp.linalg.svd(g, full_matrices=False)
    assert worst((u * sv) @ vh - g) <= 2e-3 * worst(g), ("svd of long rows", dtype)
plan.JACOBI_BLOCKS = plan.REGISTER_PANEL = plan.QR_ONE_LAUNCH = plan.FUSED_CHOLESKY = None

# the refinement's accurate products keep their remainders under Tint and SwiftShader
# (1 + 2^-30 as hi + lo; a compiler that reassociates TwoSum leaves lo = 0)
from webarray import _linalg_impl as impl
held = [impl._work_copy(z, z.shape) for z in (xp.ones((1, 2, 1)), xp.asarray([[[2.0 ** -30], [1.0]]]),
                                               xp.zeros((1, 1, 1)), xp.zeros((1, 1, 1)))]
plan.dot2(*held)
assert (float(held[2][0, 0, 0]), float(held[3][0, 0, 0])) == (1.0, 2.0 ** -30), "dot2"

# every fft function, a power of two and not
for n in (8, 12, 97):
    x = matrix(2, n)
    for f, inv in (("fft", "ifft"), ("fftn", "ifftn")):
        y = getattr(xp.fft, inv)(getattr(xp.fft, f)(x))
        assert worst(y - x) <= 1e-4, (f, n)
    assert worst(xp.fft.irfft(xp.fft.rfft(x), n=n) - x) <= 1e-4, ("rfft", n)
    assert worst(xp.fft.irfftn(xp.fft.rfftn(x), s=(2, n), axes=(0, 1)) - x) <= 1e-4, ("rfftn", n)
    assert worst(xp.fft.hfft(xp.fft.ihfft(x), n=n) - x) <= 1e-4, ("hfft", n)
    assert xp.fft.fftshift(xp.fft.fftfreq(n)).shape == (n,) and xp.fft.rfftfreq(n).shape == (n // 2 + 1,)
print("LINALG AND FFT OK")
'''


def test_every_linalg_and_fft_kernel_runs_on_browser_webgpu(tmp_path):
    r = run_in_browser(tmp_path, LINALG_AND_FFT, "--backend", "webgpu", timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert "LINALG AND FFT OK" in r.stdout
