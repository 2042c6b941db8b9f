"""The site's data, collected from committed files at build time:
``python site/gen_data.py OUT_DIR`` writes into OUT_DIR

- ``data/benchmarks.json``: every ``benchmarks/results/*.json``, each turned into charts
  (series of points) and tables, with its hardware and versions;
- ``data/conformance.json``: every ``conformance/reports/*.json`` as written by
  ``python -m conformance run``, the counts of ``conformance/reports/ecosystem/*.json``
  (``python -m conformance scipy|sklearn``), plus ``site/other-libraries.json`` (published results of
  other libraries, with their sources);
- ``data/api.json``: the API reference (``site/gen_api.py``);
- ``data/chainer.json``: the Chainer page's native figures, ResNet-18 training steps on an
  H100 (``benchmarks/results/chainer_resnet18_h100.json``, by
  ``examples/chainer_resnet18.py``), per backend;
- ``data/build.json``: the webarray version, git revision, date, the wheel's URL, the
  Pyodide packages this build can load (``pyodide_packages``: those whose files are in
  the Pyodide folder; none with the npm package alone, so NumPy is not offered unless a
  package index is configured, see ``pyodide_index``) and ``snapshot_key``, which names
  the Pyodide memory snapshot a page may resume from (site/src/session.ts): it changes
  with Pyodide, the JS library's Python worker and the wheel; ``chainer_wheels``, the
  Chainer page's wheels (below);
- ``wheels/webarray-*.whl``: the webarray wheel the pages install into Pyodide, copied
  from ``dist/wheels`` when it is newer than the package sources, else built with pip;
- ``wheels/`` also gets the pure wheels of Chainer 7.8.1 and of its pure dependencies
  (six, filelock, typing_extensions) that ``scripts/setup.sh`` put in
  ``.pyodide-wheels/chainer/``: the build needs no network. The Chainer page installs them
  into Pyodide; it trains only where the build also serves NumPy and scikit-learn.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import gen_api  # noqa: E402  (a sibling script, not a package)


# -- benchmarks -------------------------------------------------------------------------------


def _series(rows, group_key, x_key, y_key, series_key="backend"):
    """rows grouped by group_key -> {series name -> sorted [x, y] points}."""
    groups: dict = {}
    for r in rows:
        y = y_key(r) if callable(y_key) else r.get(y_key)
        x = x_key(r) if callable(x_key) else r.get(x_key)
        if x is None or y is None:
            continue
        g = group_key(r) if callable(group_key) else r.get(group_key)
        groups.setdefault(g, {}).setdefault(r.get(series_key, "?"), []).append([x, y])
    return {g: [{"name": n, "points": sorted(p)} for n, p in s.items()] for g, s in groups.items()}


def _charts(groups, title, xlabel, ylabel, higher_is_better=True):
    return [
        {"title": title(g), "xlabel": xlabel, "ylabel": ylabel, "xlog": True, "ylog": True,
         "higher_is_better": higher_is_better, "series": s}
        for g, s in groups.items()
    ]


def _table(title, rows, columns=None):
    if not rows:
        return None
    columns = columns or [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
    return {"title": title, "columns": columns, "rows": [[r.get(c) for c in columns] for r in rows]}


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def benchmark_views(record: dict) -> tuple[list, list]:
    """The charts and tables that show one benchmark record."""
    kind = record.get("benchmark")
    charts, tables = [], []
    if kind == "elementwise":
        charts += _charts(_series(record.get("bandwidth", []), "op", "n", "gbps"),
                          lambda op: f"{op}: bandwidth", "elements (float32)", "GB/s")
        tables.append(_table("dispatch overhead (µs per op, 16 elements)", record.get("overhead", []),
                             ["backend", "op", "n", "count", "issue_us", "with_sync_us"]))
    elif kind == "reductions":
        charts += _charts(_series(record.get("results", []), "case", "n", "gbps"),
                          lambda c: f"{c}: bandwidth", "elements", "GB/s")
    elif kind == "sorting":
        rows = record.get("results", [])
        charts += _charts(_series(rows, lambda r: f"{r['op']} ({r.get('dtype', '')})", "n", "melem_per_s"),
                          lambda g: g, "elements", "million elements / s")
    elif kind == "linalg_fft":
        rows = record.get("results", [])
        with_flops = [r for r in rows if r.get("gflops") is not None]
        timed = [r for r in rows if r.get("gflops") is None]
        charts += _charts(_series(with_flops, "case", lambda r: r["shape"][-1], "gflops"),
                          lambda c: f"{c}: GFLOP/s", "n (matrix side)", "GFLOP/s")
        charts += _charts(_series(timed, "case", lambda r: _prod(r["shape"]), lambda r: r["seconds"] * 1e3),
                          lambda c: f"{c}: time", "elements", "ms", higher_is_better=False)
        tables.append(_table("all cases", [{**r, "shape": "×".join(map(str, r["shape"]))} for r in rows],
                             ["case", "shape", "backend", "seconds", "gflops"]))
    elif kind == "elementwise-profile":
        kernels = record.get("kernels", [])
        charts += _charts(_series(kernels, lambda r: "generated kernel variants", "n", "gbps",
                                  series_key="variant"),
                          lambda g: g, "elements", "GB/s")
        tables.append(_table("CUDA references", record.get("cuda", [])))
        tables.append(_table("webarray: issue, flush and wait", record.get("webarray", [])))
    elif kind == "browser":
        results = record.get("results", {})
        metrics = sorted({k for r in results.values() for k, v in r.items() if isinstance(v, (int, float))})
        rows = [{"measure": m, **{cfg: r.get(m) for cfg, r in results.items()}} for m in metrics]
        tables.append(_table("browser transports (medians)", rows, ["measure", *results]))
    else:
        for key, value in record.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                tables.append(_table(key, value))
    return charts, [t for t in tables if t]


# CPU renderers standing in for a GPU: Mesa's llvmpipe/lavapipe/softpipe, SwiftShader, WARP
_EMULATED = ("llvmpipe", "lavapipe", "softpipe", "swiftshader", "warp", "software")
# which kind of record the page opens on, most relevant first: what a reader asks first
_FIRST = ("elementwise", "mandelbrot", "reductions", "linalg_fft", "sorting", "fusion")


def cpu_emulated(hardware: dict) -> bool:
    """Whether the record's GPU is a CPU renderer (its numbers say little about GPUs)."""
    adapter = hardware.get("webgpu_adapter") or {}
    text = " ".join(str(adapter.get(k, "")) for k in ("device", "description", "adapter_type")).lower()
    return "cpu" in str(adapter.get("adapter_type", "")).lower() or any(n in text for n in _EMULATED)


def default_record(files: list[dict]) -> str | None:
    """The record the page opens on: a real GPU, not a baseline, with charts, of the kind
    most readers look for first, the newest of those."""
    def rank(f):
        kind = f["benchmark"]
        return (f["cpu_emulated"], f["baseline"], not f["charts"], _FIRST.index(kind) if kind in _FIRST else len(_FIRST))
    newest_first = sorted((f for f in files if "error" not in f), key=lambda f: f["date"] or "", reverse=True)
    return min(newest_first, key=rank)["file"] if newest_first else None


def benchmarks() -> dict:
    files = []
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            files.append({"file": path.name, "error": f"not valid JSON: {e}"})
            continue
        charts, tables = benchmark_views(record)
        files.append({
            "file": path.name,
            "benchmark": record.get("benchmark", path.stem),
            "date": record.get("date"),
            "hardware": record.get("hardware") or {},
            "versions": record.get("versions", {}),
            "method": record.get("method") or record.get("settings") or {
                k: v for k, v in record.items()
                if k not in ("benchmark", "date") and isinstance(v, (int, float, str))} or None,
            "skipped_backends": record.get("skipped_backends", {}),
            "charts": charts,
            "tables": tables,
            "cpu_emulated": cpu_emulated(record.get("hardware") or {}),
            # a run of the code before a change, kept to compare with
            "baseline": "baseline" in path.stem,
        })
    return {"files": files, "default": default_record(files)}


# -- conformance ------------------------------------------------------------------------------


def conformance() -> dict:
    reports = []
    for path in sorted((ROOT / "conformance" / "reports").glob("*.json")):
        report = json.loads(path.read_text())
        report["file"] = path.name
        reports.append(report)
    others_path = HERE / "other-libraries.json"
    others = json.loads(others_path.read_text()) if others_path.is_file() else None
    xfails_path = ROOT / "conformance" / "xfails.txt"
    # python -m conformance scipy|sklearn: counts and grouped failures, not each test's outcome
    ecosystem = [{**{k: v for k, v in json.loads(p.read_text()).items() if k != "by_test"}, "file": p.name}
                 for p in sorted((ROOT / "conformance" / "reports" / "ecosystem").glob("*.json"))]
    return {"reports": reports, "other_libraries": others, "ecosystem": ecosystem,
            "xfails_file": xfails_path.read_text() if xfails_path.is_file() else ""}


# -- Chainer ----------------------------------------------------------------------------------

CHAINER_RECORD = ROOT / "benchmarks" / "results" / "chainer_resnet18_h100.json"
# the record names no hardware; it was measured on an H100 (its file name says so)
CHAINER_DEVICE = "NVIDIA H100"
CHAINER_WHEELS = ROOT / ".pyodide-wheels" / "chainer"
# the record's backends in the page's order, with what each one is
CHAINER_BACKENDS = {
    "webarray": "webarray.cupy",
    "cupy": "CuPy (CUDA)",
    "numpy": "NumPy (CPU)",
}


def chainer() -> dict:
    """The Chainer page's native figures: seconds per ResNet-18 step on each backend."""
    try:
        record = json.loads(CHAINER_RECORD.read_text())
    except (OSError, json.JSONDecodeError) as e:
        return {"error": f"{CHAINER_RECORD.relative_to(ROOT)}: {e}"}
    results = record.get("results", {})
    rows = [{"backend": name, "label": label,
             "ms_per_step": results[name]["seconds_per_step"] * 1e3,
             "launches_per_step": results[name].get("launches_per_step"),
             "speedup_vs_numpy": results[name].get("speedup_vs_numpy"),
             "largest_loss_difference": results[name].get("largest_loss_difference")}
            for name, label in CHAINER_BACKENDS.items() if name in results]
    return {"file": str(CHAINER_RECORD.relative_to(ROOT)), "device": CHAINER_DEVICE,
            **{k: record.get(k) for k in ("steps", "batch", "width")}, "backends": rows}


def chainer_wheels(out_dir: Path) -> list[str]:
    """Copies the Chainer page's wheels into out_dir/wheels; their URLs, Chainer's first."""
    urls = []
    for whl in sorted(CHAINER_WHEELS.glob("*.whl"), key=lambda w: (not w.name.startswith("chainer-"), w.name)):
        shutil.copy2(whl, out_dir / "wheels" / whl.name)
        urls.append(f"wheels/{whl.name}")
    return urls


# -- the wheel and build facts ----------------------------------------------------------------


def _newest(paths) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def wheel(out_dir: Path) -> Path:
    """dist/wheels' webarray wheel when it is fresh, else a new one from pip."""
    sources = [p for p in (ROOT / "src" / "webarray").rglob("*") if "__pycache__" not in p.parts]
    sources.append(ROOT / "pyproject.toml")
    target_dir = out_dir / "wheels"
    shutil.rmtree(target_dir, ignore_errors=True)
    target_dir.mkdir(parents=True)
    built = sorted((ROOT / "dist" / "wheels").glob("webarray-*.whl"))
    if len(built) == 1 and built[0].stat().st_mtime >= _newest(sources):
        shutil.copy2(built[0], target_dir / built[0].name)
        return target_dir / built[0].name
    # from a copy of the package: setuptools builds in the tree's build/, which a wheel
    # build of the browser runner may be using at the same moment
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT / "src" / "webarray", tree / "src" / "webarray",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, tree / name)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(tree), "-w", tmp],
                       check=True, cwd=tmp)
        (whl,) = Path(tmp).glob("webarray-*.whl")
        shutil.copy2(whl, target_dir / whl.name)
        return target_dir / whl.name


def pyodide_index() -> Path:
    """The folder with pyodide-lock.json and the package files the site serves at pyodide/:
    WEBARRAY_PYODIDE_INDEX (e.g. a full Pyodide distribution) or the npm package."""
    configured = os.environ.get("WEBARRAY_PYODIDE_INDEX")
    return Path(configured) if configured else ROOT / "node_modules" / "pyodide"


def pyodide_packages(index: Path) -> list[str]:
    """Packages of the lock file whose files, and whose dependencies' files, are present."""
    try:
        packages = json.loads((index / "pyodide-lock.json").read_text())["packages"]
    except (OSError, KeyError, json.JSONDecodeError):
        return []
    present = {n for n, p in packages.items() if (index / p.get("file_name", "")).is_file()}

    def loadable(name, seen=()):
        return name in present and all(d in seen or loadable(d, (*seen, name))
                                       for d in packages[name].get("depends", []))

    return sorted(n for n in present if loadable(n))


def snapshot_key(whl: Path) -> str:
    """What a memory snapshot depends on, hashed: Pyodide, the JS library's Python worker
    (it makes and resumes snapshots) and the webarray wheel."""
    key = hashlib.sha256()
    for part in (pyodide_index() / "package.json", ROOT / "node_modules" / "pyodide" / "package.json",
                 ROOT / "dist" / "webarray_js" / "python-worker.js", whl):
        if part.is_file():
            key.update(part.read_bytes())
    return key.hexdigest()[:32]


def git_revision() -> str | None:
    """The project's commit, only from its own checkout (not from a repository that a
    copy of the project sits in); WEBARRAY_GIT_REVISION names it elsewhere."""
    if os.environ.get("WEBARRAY_GIT_REVISION"):
        return os.environ["WEBARRAY_GIT_REVISION"]
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True,
                             text=True, timeout=20)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT.resolve():
            return None
        r = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True,
                           text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() or None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python site/gen_data.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    whl = wheel(out)
    try:
        api = gen_api.generate()
    except Exception as e:  # the page shows it; the rest of the site still builds
        api = {"error": f"generating the API reference failed: {type(e).__name__}: {e}"}
    facts = {
        "webarray_version": whl.name.split("-")[1],
        "api_version": api.get("api_version"),
        "git": git_revision(),
        "built": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wheel": f"wheels/{whl.name}",
        "pyodide_packages": pyodide_packages(pyodide_index()),
        "snapshot_key": snapshot_key(whl),
        "chainer_wheels": chainer_wheels(out),
    }
    for name, value in (("build", facts), ("benchmarks", benchmarks()), ("conformance", conformance()),
                        ("api", api), ("chainer", chainer())):
        (data / f"{name}.json").write_text(json.dumps(value, default=str, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
