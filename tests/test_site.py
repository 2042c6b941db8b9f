"""The site (site/, built into site/dist) in headless Chromium.

Builds the site when it is older than its inputs, serves it cross-origin isolated
(site/serve.py) and opens every page once through site/tests/drive.mjs: the static pages
must render their data, the playground's example and the Mandelbrot demo must run on
WebGPU and on WebGL2, the Mandelbrot escape counts must match NumPy's and the canvas must
show exactly those counts, and no page may log a console error or fail a request.
Screenshots go to build/site-screenshots/ (git-ignored).

Needs what scripts/setup.sh installs (Chromium, node_modules); WEBARRAY_SKIP_BROWSER=1
skips the module.
"""

from __future__ import annotations

import base64
import fcntl
import importlib.util
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from webarray.browser import assets

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
SHOTS = ROOT / "build" / "site-screenshots"
BACKENDS = ("webgpu", "webgl2")
SIZE, ITERS = 128, 50  # the Mandelbrot run of the test: 128 x 128 pixels, 50 iterations
STATIC_PAGES = ("index", "benchmarks", "conformance", "docs", "api")

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)


def _newest(paths) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def build_site() -> Path:
    """site/dist, rebuilt (npm run build:site) when any of its inputs is newer."""
    assets.node_modules(ROOT)
    lib = assets.js_library(ROOT)
    inputs = [p for p in SITE.rglob("*") if not ({"dist", ".generated"} & set(p.relative_to(SITE).parts))]
    for folder in ("docs", "examples", "benchmarks/results", "conformance/reports", "src/webarray"):
        inputs += [p for p in (ROOT / folder).rglob("*") if "__pycache__" not in p.parts]
    inputs += [lib / "index.js", ROOT / "package.json"]
    index = SITE / "dist" / "index.html"
    (ROOT / "build").mkdir(exist_ok=True)
    with open(ROOT / "build" / ".site-build.lock", "w") as lock:  # one build at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not index.is_file() or index.stat().st_mtime < _newest(inputs):
            r = subprocess.run(["npm", "run", "--silent", "build:site"], cwd=ROOT, capture_output=True,
                               text=True, timeout=600)
            assert r.returncode == 0, f"npm run build:site failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return SITE / "dist"


def _serve_module():
    spec = importlib.util.spec_from_file_location("webarray_site_serve", SITE / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def visits() -> list[dict]:
    out = [{"name": p, "path": f"{p}.html", "timeout": 60} for p in STATIC_PAGES]
    for b in BACKENDS:
        out.append({"name": f"playground-{b}", "path": f"playground.html?backend={b}&example=hello&autorun=1",
                    "timeout": 180})
        out.append({"name": f"mandelbrot-{b}",
                    "path": f"mandelbrot.html?backend={b}&size={SIZE}&iters={ITERS}&repeat=1&autorun=1",
                    "timeout": 300, "palette": ITERS})
    # a long run streams its progress, Stop interrupts it, and the next run reuses the worker
    out.append({"name": "playground-stop", "path": "playground.html?backend=webgpu&example=long_run&autorun=1",
                "timeout": 240, "steps": [
                    {"wait": "document.querySelector('#output').textContent.includes('step  10')"},
                    {"click": "#stop"},
                    {"wait": "window.__siteResult !== undefined"},
                    {"eval": "window.__siteResult = undefined; const s = document.querySelector('#example');"
                             " s.value = 'hello'; s.dispatchEvent(new Event('change'))"},
                    {"click": "#run"},
                ]})
    out.append({"name": "playground-traceback", "path": "playground.html?backend=webgpu&example=errors&autorun=1",
                "timeout": 180})
    return out


@pytest.fixture(scope="module")
def pages() -> dict[str, dict]:
    dist = build_site()
    SHOTS.mkdir(parents=True, exist_ok=True)
    todo = visits()
    for v in todo:
        v["screenshot"] = str(SHOTS / f"{v['name']}.png")
    serve = _serve_module()
    with serve.SiteServer(dist) as server:
        cfg = {"root": str(ROOT), "chromium": assets.chromium(), "base": server.url, "visits": todo}
        r = subprocess.run([assets.node(), str(SITE / "tests" / "drive.mjs"), json.dumps(cfg)],
                           capture_output=True, text=True, timeout=sum(v["timeout"] + 60 for v in todo))
    found = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            found[item["name"]] = item
    assert found, f"the driver reported nothing (status {r.returncode}):\n{r.stderr[-4000:]}"
    return found


def clean(page: dict) -> None:
    """No console error, uncaught exception or failed request on the page."""
    errors = [c for c in page["console"] if c.startswith(("error", "worker error"))]
    assert not errors, errors
    assert not page["pageErrors"], page["pageErrors"]
    assert not page["failedRequests"], page["failedRequests"]


def backend_missing(page: dict, backend: str) -> None:
    """xfail while a backend reports that it is not implemented (WebGL2 until it lands)."""
    text = json.dumps(page.get("result"))
    if "not implemented" in text:
        pytest.xfail(f"{backend} is not implemented yet")


def report_totals() -> dict[str, dict]:
    return {json.loads(p.read_text())["target"]: json.loads(p.read_text())["summary"]["totals"]
            for p in (ROOT / "conformance" / "reports").glob("*.json")}


@pytest.mark.parametrize("name", STATIC_PAGES)
def test_static_page_renders_its_data(pages, name):
    page = pages[name]
    assert page["result"] and page["result"]["state"] == "done", page
    clean(page)
    result = page["result"]
    if name == "conformance":
        assert result["totals"] == report_totals()
        assert result["skipped"] == sum(t.get("skipped", 0) for t in report_totals().values())
    elif name == "api":
        api = json.loads((SITE / "dist" / "data" / "api.json").read_text())
        assert result["items"] == len(api["items"]) > 150
    elif name == "benchmarks":
        # what the site was built from (build_site rebuilt it if a record was newer)
        built = json.loads((SITE / "dist" / "data" / "benchmarks.json").read_text())
        assert result["files"] == sorted(f["file"] for f in built["files"])
        assert set(result["files"]) <= {p.name for p in (ROOT / "benchmarks" / "results").glob("*.json")}
        assert result["charts"] > 10 and result["shown"] > 0
    elif name == "docs":
        assert result["sections"] >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_playground_runs_the_example(pages, backend):
    page = pages[f"playground-{backend}"]
    backend_missing(page, backend)
    result = page["result"]
    assert result and result["state"] == "done", page
    assert result["backend"] == backend
    assert result["status"] == 0, result["stderr"]
    assert "sum of squares 0..9 = 285" in result["stdout"]
    err = float(result["stdout"].split("max |sin^2 + cos^2 - 1| =")[1].split()[0])
    assert err < 1e-5
    clean(page)


def test_playground_shows_the_traceback(pages):
    page = pages["playground-traceback"]
    result = page["result"]
    assert result and result["state"] == "done", page
    assert result["status"] == 1
    assert "Traceback (most recent call last)" in result["stderr"]
    assert "TypeError: sin" in result["stderr"]
    assert "ValueError:" in result["stdout"]
    clean(page)


@pytest.mark.parametrize("backend", BACKENDS)
def test_startup_reports_its_steps(pages, backend):
    page = pages[f"playground-{backend}"]
    backend_missing(page, backend)
    assert page["result"]["stages"] == ["pyodide", "wheels", "device"], page["result"]


def test_playground_long_run_streams_and_stops(pages):
    page = pages["playground-stop"]
    (stopped,) = page["results"]
    assert stopped["state"] == "error" and stopped["stopped"] and stopped["interrupted"], stopped
    assert "step  10: mean" in stopped["stdout"]
    assert "step 1000" not in stopped["stdout"]
    assert "KeyboardInterrupt" in stopped["stderr"]
    again = page["result"]
    assert again["state"] == "done" and again["status"] == 0, again
    assert again["worker"] == stopped["worker"]  # the same Python worker, not a new one
    assert "sum of squares 0..9 = 285" in again["stdout"]
    clean(page)


def mandelbrot_numpy(size: int, max_iter: int) -> np.ndarray:
    """What the page runs, on NumPy: the example's own grid() and loop, given NumPy."""
    spec = importlib.util.spec_from_file_location("mandelbrot_numpy_style", ROOT / "examples" / "mandelbrot_numpy_style.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    real, imag = example.grid(np, size)
    return example.mandelbrot(real, imag, max_iter)


@pytest.mark.parametrize("variant", ["numpy_style", "kernel"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_mandelbrot_matches_numpy(pages, backend, variant):
    page = pages[f"mandelbrot-{backend}"]
    backend_missing(page, backend)
    result = page["result"]
    assert result, page
    got = result["variants"][variant]
    if got["state"] == "missing":
        pytest.xfail(got["error"])
    assert got["state"] == "done", got
    assert result["backend"] == backend
    counts = np.frombuffer(base64.b64decode(got["counts"]), np.int32).reshape(SIZE, SIZE)
    expected = mandelbrot_numpy(SIZE, ITERS)
    # float32 rounding (fused multiply-adds on a GPU) may move a few boundary pixels
    assert np.mean(counts == expected) > 0.99, f"{np.mean(counts == expected):.4f} of the pixels agree"
    assert counts.min() >= 0 and counts.max() == ITERS
    if variant == "kernel":
        assert got["form"] == ("glsl" if backend == "webgl2" else "wgsl")
    # the canvas shows exactly these counts through the page's palette
    pixels = np.frombuffer(base64.b64decode(got["pixels"]), np.uint8).reshape(SIZE, SIZE, 4)
    palette = np.array(page["palette"], np.uint8)
    assert np.array_equal(pixels[..., :3], palette[counts])
    assert (pixels[..., 3] == 255).all()
    clean(page)
