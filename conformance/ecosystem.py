"""``python -m conformance scipy|sklearn [--modules a,b] [--backend webarray|array_api_strict|both] [--quick]``.

Runs SciPy's and scikit-learn's own array-API tests, the ones shipped in their installed
wheels, with webarray as the array backend and with array_api_strict (the reference the
two projects test with), one pytest subprocess per (module, backend), and writes one JSON
report per (suite, module, backend) to ``conformance/reports/ecosystem/``: the counts
(passed, failed, error, skipped, xfailed, xpassed), the duration, the versions, the device,
the date, the failures and skips grouped by exception type and first line, and the
outcomes per test function. A table comparing webarray with array_api_strict per module ends the run.

Which tests: in SciPy, those that take the ``xp`` fixture (``-m array_api_backends``, SciPy's
own marker for them) under ``scipy.<module>``; in scikit-learn, the tests parametrized by
``yield_namespace_device_dtype_combinations`` and friends (the test files that use them,
plus ``sklearn/tests/test_common.py`` whose estimator checks do), selected by the backend's
name in the test id, grouped by sub-package (``tests`` is ``sklearn/tests``). Each test has a
time limit (``--test-timeout``), each module one too (``--timeout``); what finished before a
module's limit is kept and the report says it was cut. ``--quick`` keeps an evenly spaced
subset of each module's tests (the same one for both backends).

What it patches, and why: neither library has a public way to add a backend to its test
suite, so ``conformance/pytest_webarray.py`` (loaded with ``-p``) adds webarray in memory to
SciPy's conftest backend table and ``xp`` fixture, and to scikit-learn's namespace
generators (webarray with float64 and float32, the dtypes array_api_strict is tested with);
its docstring lists exactly what. No installed file is changed, and the array_api_strict runs
patch nothing. Both backends run with ``SCIPY_ARRAY_API=1`` (SciPy's reference run with
``SCIPY_ARRAY_API='["array_api_strict"]'``, as its ``-b`` option sets it) and webarray with
``WEBARRAY_DEFAULT_FLOAT=float64`` and ``WEBARRAY_DEFAULT_INT=int64`` (and ``WEBARRAY_FLOAT64=1``,
over a caller's ``0``): float64, on every device, becomes the default real floating dtype, and int64 the default
integer dtype, as NumPy and array_api_strict do and as both libraries' tests expect
(``xp.asarray([0.5])`` is float64 there; with float32 defaults, SciPy's signal tests compare
float32 coefficients at float64 tolerances; scikit-learn's index dtype is
``xp.asarray(0).dtype``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

from .runner import ROOT, device_facts

REPORTS = ROOT / "conformance" / "reports" / "ecosystem"
BACKENDS = ("webarray", "array_api_strict")
SCIPY_MODULES = ("special", "stats", "fft", "signal", "ndimage", "cluster")
# names whose use in a scikit-learn test file means it is parametrized over namespaces
SKLEARN_MARKERS = ("yield_namespace_device_dtype_combinations", "yield_namespaces",
                   "yield_mixed_namespace_input_permutations", "_array_api_for_tests")
QUICK_TESTS = 30
VERSIONED = ("webarray", "scipy", "scikit-learn", "numpy", "array-api-strict", "array-api-compat",
             "pytest", "hypothesis", "wgpu")


def package_dir(name: str) -> Path | None:
    spec = find_spec(name)
    return Path(spec.origin).parent if spec and spec.origin else None


def sklearn_modules() -> dict[str, list[Path]]:
    """Sub-package -> its test files that run on array namespaces, from the installed wheel."""
    root = package_dir("sklearn")
    if root is None:
        return {}
    out: dict[str, list[Path]] = {}
    for path in sorted(root.rglob("tests/test_*.py")):
        text = path.read_text(errors="replace")
        if any(m in text for m in SKLEARN_MARKERS) or path == root / "tests" / "test_common.py":
            out.setdefault(path.relative_to(root).parts[0], []).append(path)
    return out


def missing_tests(suite: str, backends: tuple[str, ...] = BACKENDS) -> str | None:
    """None when the suite's tests (and the backends) are installed, else what is missing."""
    if "array_api_strict" in backends and find_spec("array_api_strict") is None:
        return "array_api_strict is not installed (pip install array-api-strict): it is the reference"
    if suite == "scipy":
        root = package_dir("scipy")
        if root is None or not (root / "conftest.py").is_file() or not (root / "cluster" / "tests").is_dir():
            return "SciPy or its test files are not installed (pip install -e '.[ecosystem]')"
    elif not sklearn_modules():
        return "scikit-learn or its test files are not installed (pip install -e '.[ecosystem]')"
    return None


def pytest_command(suite: str, module: str, backend: str) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "-p", "conformance.pytest_webarray", "-p", "no:cacheprovider",
           "-q", "--tb=no", "-rN"]
    if suite == "scipy":
        return cmd + ["--rootdir", str(package_dir("scipy")), "--pyargs", f"scipy.{module}",
                      "-m", "array_api_backends"]
    files = [str(p) for p in sklearn_modules()[module]]
    return cmd + ["--rootdir", str(package_dir("sklearn")), "-k", backend, *files]


def environment(suite: str, backend: str, record: Path, args) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SCIPY_ARRAY_API='["array_api_strict"]' if suite == "scipy" and backend == "array_api_strict" else "1",
        WEBARRAY_FLOAT64="1",
        WEBARRAY_DEFAULT_FLOAT="float64",
        WEBARRAY_DEFAULT_INT="int64",
        WEBARRAY_DEVICE="native",
        XDG_RUNTIME_DIR=env.get("XDG_RUNTIME_DIR", "/tmp"),
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")]),
        CONFORMANCE_SUITE=suite, CONFORMANCE_BACKEND=backend, CONFORMANCE_RECORD=str(record),
        CONFORMANCE_TEST_TIMEOUT=str(args.test_timeout),
        CONFORMANCE_MAX_TESTS=str(QUICK_TESTS if args.quick else 0),
    )
    return env


def normalise(reason: str) -> str:
    """A failure's reason with the numbers and generated names that vary between tests cut."""
    reason = re.sub(r"0x[0-9a-f]+", "0x_", reason)
    reason = re.sub(r"\bv\d+\b", "v…", reason)
    return re.sub(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)?(?!\w)", "#", reason)[:200]


def groups(tests: list[dict], outcomes: tuple[str, ...], top: int) -> list[dict]:
    by: dict[tuple[str, str], list[str]] = {}
    for t in tests:
        if t["outcome"] in outcomes:
            by.setdefault((t["outcome"], normalise(t.get("reason", ""))), []).append(t["id"])
    ranked = sorted(by.items(), key=lambda kv: -len(kv[1]))[:top]
    return [{"outcome": o, "reason": r, "count": len(ids), "examples": ids[:3]} for (o, r), ids in ranked]


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def run_module(suite: str, module: str, backend: str, args, device: dict | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "record.jsonl"
        record.touch()
        cmd = pytest_command(suite, module, backend) + list(args.pytest_args)
        print(f"\n== {suite}.{module} on {backend}", flush=True)
        start = time.monotonic()
        log = Path(tmp) / "pytest.log"
        with open(log, "w") as out:
            # its own session, so that a module past its time limit ends with its children
            proc = subprocess.Popen(cmd, cwd=tmp, env=environment(suite, backend, record, args),
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                status = proc.wait(timeout=args.timeout)
                cut = False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)
                status, cut = proc.wait(), True
        duration = time.monotonic() - start
        tests = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
        tail = [ln for ln in log.read_text(errors="replace").splitlines()
                if re.search(r"\d+ (passed|failed|skipped|deselected|errors?)\b|no tests ran", ln)][-1:]
    print("  pytest: " + (tail[0] if tail else "(no output)"), flush=True)
    totals = Counter(t["outcome"] for t in tests)
    return {
        "suite": suite, "module": module, "backend": backend,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(duration, 1),
        "returncode": status,
        "cut_at_timeout_s": args.timeout if cut else None,
        "quick": bool(args.quick), "max_tests": QUICK_TESTS if args.quick else None,
        "test_timeout_s": args.test_timeout,
        "command": " ".join(["python", "-m", "conformance", suite, "--modules", module, "--backend", backend]
                            + (["--quick"] if args.quick else [])),
        "pytest": " ".join(Path(c).name if c == sys.executable else c for c in cmd),
        "patched": (None if backend == "array_api_strict" else
                    "in memory, by conformance/pytest_webarray.py: " + (
                        "SciPy's conftest xp_known_backends/xp_available_backends and the xp fixture's params"
                        if suite == "scipy" else
                        "sklearn.utils._array_api.yield_namespaces and yield_namespace_device_dtype_combinations")),
        "versions": versions(),
        "device": device if backend == "webarray" else None,
        "totals": {o: totals.get(o, 0) for o in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")},
        "failure_groups": groups(tests, ("failed", "error"), 20),
        "skip_groups": groups(tests, ("skipped", "xfailed"), 10),
        # every test id names its backend (a check that SciPy's conftest did not run NumPy)
        "ids_naming_backend": sum(backend in t["id"] for t in tests),
        # outcomes per test function, its parametrizations counted (the ids alone would make
        # a signal report over a megabyte)
        "by_test": by_test(tests),
    }


def by_test(tests: list[dict]) -> dict[str, dict[str, int]]:
    out: dict[str, Counter] = {}
    for t in tests:
        out.setdefault(t["id"].split("[")[0], Counter())[t["outcome"]] += 1
    return {k: dict(v) for k, v in sorted(out.items())}


def report_path(suite: str, module: str, backend: str) -> Path:
    return REPORTS / f"{suite}-{module}-{backend}.json"


def print_table(suite: str, modules: list[str]) -> None:
    """webarray against array_api_strict per module, from the stored reports."""
    rows = []
    for module in modules:
        r = {b: json.loads(p.read_text()) for b in BACKENDS if (p := report_path(suite, module, b)).is_file()}
        rows.append((module, r))
    cols = ("passed", "failed", "error", "skipped", "xfailed")
    print(f"\n{suite}: webarray vs array_api_strict (passed/failed/error/skipped/xfailed)")
    print(f"  {'module':<14}{'webarray':>28}{'array_api_strict':>28}{'passed ratio':>14}")
    for module, r in rows:
        cells = []
        for b in BACKENDS:
            t = r[b]["totals"] if b in r else None
            cut = " (cut)" if b in r and r[b]["cut_at_timeout_s"] else ""
            cells.append("/".join(str(t[c]) for c in cols) + cut if t else "–")
        ratio = "–"
        if len(r) == 2 and r["array_api_strict"]["totals"]["passed"]:
            ratio = f"{r['webarray']['totals']['passed'] / r['array_api_strict']['totals']['passed']:.1%}"
        print(f"  {module:<14}{cells[0]:>28}{cells[1]:>28}{ratio:>14}")


def run(args) -> int:
    suite = args.suite
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    known = list(SCIPY_MODULES) if suite == "scipy" else list(sklearn_modules())
    modules = args.modules.split(",") if args.modules else known
    unknown = [m for m in modules if m not in known]
    if unknown and known:  # a wrong name is refused first, whatever else is missing
        print(f"unknown {suite} module(s) {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    missing = missing_tests(suite, backends)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    device = None
    if "webarray" in backends:
        os.environ["WEBARRAY_FLOAT64"] = "1"  # device_facts asks a subprocess with this environment
        device = device_facts("native")
    out_dir = Path(args.out_dir) if args.out_dir else REPORTS
    out_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    for module in modules:
        for backend in backends:
            report = run_module(suite, module, backend, args, device)
            path = out_dir / report_path(suite, module, backend).name
            path.write_text(json.dumps(report, indent=1) + "\n")
            print(f"  {', '.join(f'{v} {k}' for k, v in report['totals'].items() if v)}; report: {path}")
            if not sum(report["totals"].values()):
                status = 1
    if out_dir == REPORTS:
        print_table(suite, modules)
    return status


def add_parsers(sub) -> None:
    for suite, what in (("scipy", f"SciPy modules ({', '.join(SCIPY_MODULES)})"),
                        ("sklearn", "scikit-learn sub-packages (default: every one with array-API tests)")):
        p = sub.add_parser(suite, help=f"run {suite}'s own array-API tests on webarray and array_api_strict")
        p.add_argument("--modules", help=f"comma-separated {what}; default all")
        p.add_argument("--backend", choices=[*BACKENDS, "both"], default="both")
        p.add_argument("--quick", action="store_true",
                       help=f"an evenly spaced subset of at most {QUICK_TESTS} tests per module")
        p.add_argument("--timeout", type=float, default=1800.0,
                       help="seconds for one module on one backend; what finished is kept (default 1800)")
        p.add_argument("--test-timeout", type=float, default=120.0,
                       help="seconds for one test before it fails (default 120)")
        p.add_argument("--out-dir", help="where to write the reports (default conformance/reports/ecosystem)")
        p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
        p.set_defaults(func=run, suite=suite)
