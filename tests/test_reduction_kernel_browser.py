"""CuPy's ReductionKernel in headless Chromium (Pyodide, no NumPy there) on WebGPU and on
WebGL2, against NumPy computed here: both backends fold through their registry's one
reduction generator (``kernels/webgpu/reduction.py``, ``kernels/webgl2/reduction.py``),
so rows longer than a chunk go through partials, four elements a load where the row
length allows, with and without identity. Slow (each run starts a browser);
WEBARRAY_SKIP_BROWSER=1 skips it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)

# (rows, cols): one chunk; several passes (WebGL2's chunk is 1,024 elements, WebGPU's
# 4,096), a multiple of four (vec4 loads) and odd; an empty reduced axis
SHAPES = [(3, 7), (2, 5000), (3, 5003), (2, 9000), (4, 0)]

SCRIPT = r'''
import json
import webarray.cupy as cp

SHAPES = %s

def data(rows, cols):
    n = cp.arange(rows * cols, dtype=cp.int32)
    return ((n * 7919) %% 1001 - 500).reshape(rows, cols)

sum_id = cp.ReductionKernel("int32 x", "int32 y", "x", "a + b", "y = a", "0", "sum_id")
sum_noid = cp.ReductionKernel("int32 x", "int32 y", "x", "a + b", "y = a", None, "sum_noid")
max_noid = cp.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y = a", None, "max_noid")
# two outputs, a scalar, the sizes
two = cp.ReductionKernel("int32 x, int32 k", "int32 s, int32 n", "x * k", "a + b",
                         "s = a; n = _in_ind.size() * 10 + _out_ind.size()", "0", "two")
l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")
# the post-map reads the output passed in
acc = cp.ReductionKernel("int32 x", "int32 y", "x", "max(a, b)", "y += a", "-1000000", "acc")
out = {}
for rows, cols in SHAPES:
    x = data(rows, cols)
    r = {"sum_id": sum_id(x, axis=1).tolist()}
    if cols:
        r["sum_noid"] = sum_noid(x, axis=1).tolist()
        r["max_noid"] = max_noid(x, axis=1).tolist()
        r["max_neg"] = max_noid(x - 1000, axis=1).tolist()  # a start from 0 would show
        r["sum_axis0"] = sum_noid(x, axis=0).tolist()
    s, n = two(x, 3, axis=1)
    r["two"] = [s.tolist(), n.tolist()]
    r["l2"] = l2(x.astype(cp.float32) / 7, axis=1).tolist()
    y = cp.full(rows, 5, dtype=cp.int32)
    acc(x, y, axis=1)
    r["acc"] = y.tolist()
    out[f"{rows}x{cols}"] = r
print("RESULTS " + json.dumps(out))
'''


def numpy_results() -> dict:
    out = {}
    for rows, cols in SHAPES:
        n = np.arange(rows * cols, dtype=np.int64)
        x = ((n * 7919) % 1001 - 500).astype(np.int32).reshape(rows, cols)
        r = {"sum_id": x.sum(axis=1)}
        if cols:
            r["sum_noid"] = x.sum(axis=1)
            r["max_noid"] = x.max(axis=1)
            r["max_neg"] = (x - 1000).max(axis=1)
            r["sum_axis0"] = x.sum(axis=0)
        r["two"] = [(x * 3).sum(axis=1), np.full(rows, cols * 10 + rows)]
        f = x.astype(np.float32) / np.float32(7)
        r["l2"] = np.sqrt((f.astype(np.float64) ** 2).sum(axis=1))
        r["acc"] = 5 + (x.max(axis=1) if cols else np.full(rows, -1000000))
        out[f"{rows}x{cols}"] = r
    return out


@pytest.mark.parametrize("backend", ["webgpu", "webgl2"])
def test_reduction_kernels_in_the_browser_match_numpy(backend, tmp_path):
    script = tmp_path / "reduction_kernels.py"
    script.write_text(SCRIPT % json.dumps(SHAPES))
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--timeout", "300",
           "--backend", backend]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=360, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    line = next((s for s in r.stdout.splitlines() if s.startswith("RESULTS ")), None)
    assert line, r.stdout[-4000:]
    got = json.loads(line[len("RESULTS "):])
    for shape, want in numpy_results().items():
        for name, w in want.items():
            g = got[shape][name]
            if name == "l2":
                np.testing.assert_allclose(g, w, rtol=2e-6, err_msg=f"{backend} {shape} {name}")
            else:
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w),
                                              err_msg=f"{backend} {shape} {name}")
