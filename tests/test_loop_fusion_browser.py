"""Whole-loop fusion in headless Chromium (Pyodide): loops of int64, complex64 and float32
state fold into loop kernels on WebGPU and on WebGL2 (whose GLSL comes from the shader front
end, wide states as vectors of words), with the values of the same loops run eagerly and,
for int64, of Python's wrapping arithmetic. (The NumPy-style Mandelbrot through the loop
kernel is in test_cupy_browser.py.) Slow (each run starts a browser);
WEBARRAY_SKIP_BROWSER=1 skips them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)

LOOPS = r'''
import webarray as xp
from webarray._core import launch


def int64_loop():
    y = xp.arange(-20, 20, dtype=xp.int64)
    for _ in range(100):
        y = y * 3 + 1
    return y


def c64_loop():
    c = xp.asarray([complex(0.01 * k, 0.3) for k in range(-20, 20)], dtype=xp.complex64)
    cap = xp.asarray([2.0 + 0j] * 40, dtype=xp.complex64)
    z = xp.zeros_like(c)
    for _ in range(60):
        z = z * z + c
        z = xp.where(xp.abs(z) > 2.0, cap, z)
    return z


def f32_loop():
    x = xp.linspace(-1, 1, 40, dtype=xp.float32)
    for _ in range(200):
        x = xp.sqrt(x * x + 0.25) - 0.5
    return x


for name, fn in [("int64", int64_loop), ("complex64", c64_loop), ("float32", f32_loop)]:
    before = launch.launches
    got = fn()._host_flat()
    n = launch.launches - before
    with xp.fusion.enabled(False):
        eager = fn()._host_flat()
    assert got == eager, (name, got[:3], eager[:3])
    if name == "int64":
        want = []
        for v in range(-20, 20):
            for _ in range(100):
                v = (v * 3 + 1) & (2**64 - 1)
            want.append(v - 2**64 if v >= 2**63 else v)
        assert got == want, (got[:3], want[:3])
    print(f"{name} launches={n} same-as-eager")
print("loops-ok")
'''


@pytest.mark.parametrize("backend", ["webgpu", "webgl2"])
def test_loops_fold_in_the_browser_with_eagers_values(tmp_path, backend):
    script = tmp_path / "loops.py"
    script.write_text(LOOPS)
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--backend", backend,
           "--timeout", "400"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=460, cwd=ROOT)
    assert r.returncode == 0 and "loops-ok" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    launches = dict(line.split()[0:2] for line in r.stdout.splitlines()
                    if "launches=" in line)
    # each loop is one kernel or a few (the first iterations before the loop is recognised)
    for name in ("int64", "complex64", "float32"):
        assert int(launches[name].split("=")[1]) <= 2, r.stdout
