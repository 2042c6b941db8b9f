"""The ecosystem smoke set (array-api-compat, scikit-learn, SciPy on webarray, compared with
NumPy) inside Pyodide on the browser's WebGPU, and the same script natively in CPython so
that it is known to be right before a browser ever runs it.

Pyodide needs its own (WebAssembly) wheels of NumPy, SciPy, scikit-learn and their
dependencies, named in node_modules/pyodide/pyodide-lock.json. The npm package ships none
of them and there is no CDN here, so the in-browser test looks for those files in
.pyodide-wheels/ (or WEBARRAY_PYODIDE_WHEELS) and skips, naming the missing files, when
they are absent. array-api-compat is pure Python and comes from PyPI like the other test
wheels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "node_modules" / "pyodide" / "pyodide-lock.json"
WHEELS = Path(os.environ.get("WEBARRAY_PYODIDE_WHEELS", ROOT / ".pyodide-wheels"))
PACKAGES = ("numpy", "scipy", "scikit-learn")

SMOKE = r'''
import os
os.environ["SCIPY_ARRAY_API"] = "1"  # before SciPy is imported

import numpy as np
import array_api_compat
import scipy.fft, scipy.ndimage, scipy.special, scipy.stats
import sklearn
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import StandardScaler
import webarray as xp

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 5)).astype(np.float32)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int32)
yr = (X @ np.arange(1, 6, dtype=np.float32)).astype(np.float32)
Xw, yw, yrw = xp.asarray(X), xp.asarray(y), xp.asarray(yr)


def host(a):
    assert isinstance(a, xp.Array), type(a)
    return np.from_dlpack(a)


def close(got, want, what, rtol=1e-4, atol=1e-4):
    np.testing.assert_allclose(host(got), want, rtol=rtol, atol=atol, err_msg=what)
    print("ok", what)


assert array_api_compat.array_namespace(Xw) is xp
assert not array_api_compat.is_lazy_array(Xw)
assert array_api_compat.size(Xw) == 200
assert array_api_compat.device(Xw) == Xw.device
np.testing.assert_array_equal(np.from_dlpack(Xw), X)
print("ok compat")

with sklearn.config_context(array_api_dispatch=True):
    close(StandardScaler().fit_transform(Xw), StandardScaler().fit_transform(X), "StandardScaler")
    pca_w, pca = PCA(n_components=3).fit(Xw), PCA(n_components=3).fit(X)
    close(pca_w.explained_variance_, pca.explained_variance_, "PCA")
    close(Ridge().fit(Xw, yrw).predict(Xw), Ridge().fit(X, yr).predict(X), "Ridge")
    close(LinearDiscriminantAnalysis().fit(Xw, yw).predict_proba(Xw),
          LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), "LinearDiscriminantAnalysis")
    assert abs(r2_score(yrw, yrw * 0.9) - r2_score(yr, yr * 0.9)) < 1e-5
    assert abs(accuracy_score(yw, yw) - 1.0) < 1e-7
    print("ok metrics")

close(scipy.special.erf(Xw), scipy.special.erf(X), "special.erf")
close(scipy.stats.skew(Xw), scipy.stats.skew(X), "stats.skew")
close(scipy.stats.zscore(Xw), scipy.stats.zscore(X), "stats.zscore")
close(scipy.fft.rfft(Xw, axis=0), scipy.fft.rfft(X, axis=0), "fft.rfft", atol=1e-3)
close(scipy.ndimage.gaussian_filter(Xw, 1.0), scipy.ndimage.gaussian_filter(X, 1.0),
      "ndimage.gaussian_filter")
print("ecosystem smoke: all passed")
'''


def test_smoke_script_natively():
    """The script the browser runs, here in CPython on the native device."""
    for module in ("array_api_compat", "scipy", "sklearn"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[ecosystem]')")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, "-c", SMOKE], capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "ecosystem smoke: all passed" in r.stdout


def _pyodide_wheels() -> tuple[list[Path], list[str]]:
    """The wheel files Pyodide needs for PACKAGES (with their dependencies), and the
    names of those that are missing."""
    if not LOCK.exists():
        return [], [f"{LOCK} (run scripts/setup.sh)"]
    packages = json.loads(LOCK.read_text())["packages"]
    names, todo = set(), list(PACKAGES)
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.add(name)
        todo.extend(packages[name]["depends"])
    files = [packages[n]["file_name"] for n in sorted(names)]
    found = [WHEELS / f for f in files if (WHEELS / f).exists()]
    missing = [f for f in files if not (WHEELS / f).exists()]
    compat = sorted(WHEELS.glob("array_api_compat-*.whl"))
    if compat:
        found.append(compat[-1])
    else:
        missing.append("array_api_compat-*-py3-none-any.whl")
    return found, missing


@pytest.mark.skipif(os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1")
def test_smoke_in_pyodide_on_webgpu(tmp_path):
    found, missing = _pyodide_wheels()
    if missing:
        pytest.skip(
            f"no Pyodide wheels of NumPy/SciPy/scikit-learn here (the npm pyodide package ships "
            f"none and there is no CDN); put {', '.join(missing)} into {WHEELS} to run this test"
        )
    script = tmp_path / "smoke.py"
    script.write_text(SMOKE)
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--timeout", "600",
           *[a for w in found for a in ("--wheel", str(w))]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=700, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert "ecosystem smoke: all passed" in r.stdout
