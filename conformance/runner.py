"""``python -m conformance run --target native|webgpu|webgl2 --suite PATH`` and ``python -m
conformance merge`` (the ``scipy`` and ``sklearn`` commands are in ecosystem.py).

Runs array-api-tests (a local checkout with its ``array-api`` spec submodule) against
webarray, in CPython on the native device or inside Pyodide in headless Chromium on the
browser's WebGPU (the suite travels as one zip through ``python -m webarray.browser``), and
writes a JSON report: every test id with outcome, duration and a short
failure excerpt, plus the library, suite and spec versions, the API version, the device
and adapter, the skipped dtypes and the date. Dtypes the device does not support are
skipped through ARRAY_API_TESTS_SKIP_DTYPES, derived from
``__array_namespace_info__().dtypes()``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
XFAILS = HERE / "xfails.txt"
ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
              "uint64", "float32", "float64", "complex64", "complex128"]

HOW_TO_GET = """\
array-api-tests was not found at {path}.

The suite is not on PyPI and is not vendored here. Get it with its spec submodule:

    git clone https://github.com/data-apis/array-api-tests {path}
    git -C {path} submodule update --init      # brings the 'array-api' spec it pins
    python -m pip install -r {path}/requirements.txt

then run again:

    python -m conformance run --target native --suite {path}
"""


def check_suite(path: Path) -> str | None:
    """None when the checkout is usable, else what is missing."""
    if not (path / "array_api_tests" / "__init__.py").is_file():
        return "no array_api_tests package"
    spec = path / "array-api"
    if not (spec / "src" / "array_api_stubs").is_dir():
        return "the 'array-api' spec submodule is empty (run git submodule update --init)"
    return None


def git_rev(path: Path) -> str | None:
    """The commit of the checkout at ``path``, only when ``path`` is its top: a copy of the
    suite without ``.git`` inside another repository (the project's ``vendor/``) would
    otherwise record *that* repository's HEAD."""
    try:
        top = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != path.resolve():
            return None
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def device_facts(target: str) -> dict:
    """Ask webarray (in a subprocess, on the target's device) what it supports."""
    code = (
        "import json, webarray as xp\n"
        "info = xp.__array_namespace_info__()\n"
        "d = info.default_device()\n"
        "print(json.dumps({'dtypes': list(info.dtypes()), 'adapter': d.executor.adapter_info,"
        " 'backend': d.backend, 'api_version': xp.__array_api_version__}))\n"
    )
    env = dict(os.environ, WEBARRAY_DEVICE=target, XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"webarray could not start on target {target!r}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def label(target: str, supported: list[str]) -> str:
    """The report's name: the target, and "-float64" where the device had float64 (the
    default; WEBARRAY_FLOAT64=0 leaves it out), so both runs of a target keep a report and a
    row of their own."""
    return f"{target}-float64" if "float64" in supported else target


def skip_dtypes(supported: list[str]) -> tuple[list[str], str | None]:
    skip = [d for d in ALL_DTYPES if d not in supported]
    note = None
    if "complex64" in skip and "complex128" in skip:
        note = ("no complex dtype on this device: the suite's dtype_helpers.py computes "
                "max() over its complex dtypes when imported, so the run gives that max() "
                "a default (a one-line rewrite of the suite's copy, in the browser's memory)")
    return skip, note


def read_xfails() -> dict[str, str]:
    out = {}
    for line in XFAILS.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        test_id, _, reason = line.partition("#")
        out[test_id.strip()] = reason.strip()
    return out


_FILE_CATEGORY = {
    "test_array_object": "array object", "test_constants": "constants",
    "test_creation_functions": "creation", "test_data_type_functions": "data type",
    "test_dlpack": "dlpack", "test_fft": "fft", "test_has_names": "names",
    "test_indexing_functions": "indexing", "test_inspection_functions": "inspection",
    "test_linalg": "linalg", "test_manipulation_functions": "manipulation",
    "test_operators_and_elementwise_functions": "elementwise",
    "test_searching_functions": "searching", "test_set_functions": "set",
    "test_signatures": "signatures", "test_sorting_functions": "sorting",
    "test_special_cases": "special cases", "test_statistical_functions": "statistical",
    "test_utility_functions": "utility",
}


def classify(nodeid: str) -> tuple[str, str]:
    """(spec category, function) of a test id, as well as the id allows."""
    file, _, rest = nodeid.partition("::")
    stem = Path(file).stem
    category = _FILE_CATEGORY.get(stem, stem)
    m = re.search(r"\[(?:[^\]]*?)?\b([a-z_0-9]+)\(", rest)
    if m:
        func = m.group(1)
    else:
        name = rest.split("[")[0].split("::")[-1]
        func = re.sub(r"^test_", "", name)
    return category, func


def excerpt(longrepr) -> str:
    if not longrepr:
        return ""
    text = longrepr if isinstance(longrepr, str) else json.dumps(longrepr)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("E ")]
    pick = errors[:6] if errors else lines[-6:]
    return "\n".join(pick)[:600]


def summarise(tests: list[dict]) -> dict:
    totals = Counter(t["outcome"] for t in tests)
    per_cat: dict = defaultdict(Counter)
    per_func: dict = defaultdict(Counter)
    for t in tests:
        per_cat[t["category"]][t["outcome"]] += 1
        per_func[t["function"]][t["outcome"]] += 1
    return {
        "totals": dict(totals),
        "categories": {k: dict(v) for k, v in sorted(per_cat.items())},
        "functions": {k: dict(v) for k, v in sorted(per_func.items())},
    }


def run_native(args, suite: Path, skip: list[str], xfails: dict, raw_json: Path) -> int:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(xfails) + "\n")
        xfail_file = f.name
    env = dict(os.environ)
    env.update(
        ARRAY_API_TESTS_MODULE="webarray",
        ARRAY_API_TESTS_SKIP_DTYPES=",".join(skip),
        WEBARRAY_DEVICE="native",
        XDG_RUNTIME_DIR=env.get("XDG_RUNTIME_DIR", "/tmp"),
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]),
    )
    cmd = [
        sys.executable, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
        "--max-examples", str(args.max_examples), "--xfails-file", xfail_file,
        "--json-report", f"--json-report-file={raw_json}", "--json-report-omit", "collectors",
        "--hypothesis-disable-deadline",
    ]
    if args.k:
        cmd += ["-k", args.k]
    cmd += args.pytest_args
    print("$", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=suite, env=env)


BROWSER_ENTRY = """
import base64, gzip, json, os, sys, zipfile
zipfile.ZipFile("suite.zip").extractall("suite")
os.chdir("suite")
import webarray as xp
info = xp.__array_namespace_info__()
dev = info.default_device()
ALL = {all_dtypes!r}
supported = list(info.dtypes())
skip = [d for d in ALL if d not in supported]
os.environ["ARRAY_API_TESTS_MODULE"] = "webarray"
os.environ["ARRAY_API_TESTS_SKIP_DTYPES"] = ",".join(skip)
if "complex64" in skip and "complex128" in skip:
    # a device without complex dtypes (WebGL2): the suite takes max() over its complex
    # dtypes when dtype_helpers is imported, which fails on an empty tuple; give it a
    # default in this in-memory copy (a changed suite fails here, loudly)
    helpers = "array_api_tests/dtype_helpers.py"
    src = open(helpers).read()
    old = "for dt in complex_dtypes], key=lambda x: x[1]\\n)[0]"
    assert src.count(old) == 1, "array-api-tests changed: widest_complex_dtype not found"
    with open(helpers, "w") as f:
        f.write(src.replace(old, "for dt in complex_dtypes], key=lambda x: x[1], default=(None, 0)\\n)[0]"))
    import array_api_tests.dtype_helpers as dh
    # its two readers: the complex special cases, skipped below, and test_signatures,
    # which calls each function with the first of (widest float, bool, int64, widest
    # complex) it accepts; without int64 and complex an integer-only method (__lshift__)
    # gets none, so the complex slot names the default integer dtype instead
    dh.widest_complex_dtype = dh.default_int

class NoComplexCases:
    # without a complex dtype, skip what can only run with one, saying why
    WHOLE = {{**{{f"test_{{f}}": "the fft transforms return or take complex arrays"
                 for f in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn",
                           "hfft", "ihfft")}},
             "test_eig": "eig returns complex eigenvalues and eigenvectors",
             "test_eigvals": "eigvals returns complex eigenvalues",
             "test_vecdot_conj": "it checks the conjugation of complex inputs"}}

    def pytest_collection_modifyitems(self, items):
        import pytest
        if "complex64" not in skip:
            return
        for item in items:
            case = getattr(getattr(item, "callspec", None), "params", {{}}).get("case")
            why = self.WHOLE.get(getattr(item, "originalname", item.name))
            if getattr(case, "is_complex", False):
                why = "a complex special case"
            if why:
                item.add_marker(pytest.mark.skip(reason=why + "; the device has no complex dtype"))
print("@@FACTS@@" + json.dumps({{"dtypes": supported, "adapter": dev.executor.adapter_info,
                                "backend": dev.backend, "api_version": xp.__array_api_version__}}))
import pytest
pytest.main(["array_api_tests", "-q", "-p", "no:cacheprovider", "--max-examples", "{max_examples}",
             "--xfails-file", "xfails.txt", "--json-report", "--json-report-file=report.json",
             "--json-report-omit", "collectors", "--hypothesis-disable-deadline"] + {extra!r},
            plugins=[NoComplexCases()])
with open("report.json", "rb") as f:
    print("@@REPORT@@" + base64.b64encode(gzip.compress(f.read())).decode())
"""

# pure wheels the suite needs inside Pyodide beyond the test wheels setup.sh downloads
BROWSER_WHEELS = ["ndindex==1.8", "pytest-json-report==1.5.0", "pytest-metadata==3.1.1"]


def _browser_wheels() -> list[Path]:
    base = ROOT / ".pyodide-wheels"
    extra = base / "conformance"
    extra.mkdir(parents=True, exist_ok=True)
    if len(list(extra.glob("*.whl"))) < len(BROWSER_WHEELS):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary=:all:", "--platform", "any", "-d", str(extra),
                        *BROWSER_WHEELS], check=True, timeout=600)
    wheels = sorted(base.glob("*.whl")) + sorted(extra.glob("*.whl"))
    if not any(w.name.startswith("pytest-") or w.name.startswith("pytest_") for w in base.glob("*.whl")):
        raise SystemExit("the Pyodide test wheels are missing: run scripts/setup.sh first")
    return wheels


def _suite_zip(suite: Path, xfails: dict, dest: Path) -> None:
    import zipfile

    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("conftest.py", "reporting.py", "pytest.ini"):
            if (suite / name).is_file():
                z.write(suite / name, name)
        for sub, pattern in (("array_api_tests", "*.py"), ("array-api/src/array_api_stubs", "*.py"),
                             ("array-api/spec", "*.rst")):
            for f in (suite / sub).rglob(pattern):
                z.write(f, str(f.relative_to(suite)))
        z.writestr("xfails.txt", "\n".join(xfails) + "\n")


def run_browser(args, suite: Path, xfails: dict, raw_json: Path) -> tuple[int, dict]:
    """Run the suite inside Pyodide in headless Chromium; returns (status, device facts)."""
    import base64
    import gzip

    tmp = raw_json.parent
    _suite_zip(suite, xfails, tmp / "suite.zip")
    extra = (["-k", args.k] if args.k else []) + list(args.pytest_args)
    entry = tmp / "conformance_entry.py"
    entry.write_text(BROWSER_ENTRY.format(all_dtypes=ALL_DTYPES, max_examples=args.max_examples, extra=extra))
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(entry), "--backend", args.target,
           "--file", str(tmp / "suite.zip"), "--timeout", str(args.timeout)]
    if args.verbose:
        cmd.append("--verbose")
    for w in _browser_wheels():
        cmd += ["--wheel", str(w)]
    print("$", " ".join(cmd[:8]), "...", flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    facts: dict = {}
    for line in proc.stdout:
        if line.startswith("@@FACTS@@"):
            facts = json.loads(line[len("@@FACTS@@"):])
        elif line.startswith("@@REPORT@@"):
            raw_json.write_bytes(gzip.decompress(base64.b64decode(line[len("@@REPORT@@"):].strip())))
        else:
            print(line, end="", flush=True)
    status = proc.wait()
    return status, facts


def run(args) -> int:
    suite = Path(args.suite).resolve()
    missing = check_suite(suite)
    if missing:
        print(f"{missing}\n\n" + HOW_TO_GET.format(path=args.suite), file=sys.stderr)
        return 2
    xfails = read_xfails()
    with tempfile.TemporaryDirectory() as tmp:
        raw_json = Path(tmp) / "raw.json"
        if args.target == "native":
            facts = device_facts(args.target)
            skip, note = skip_dtypes(facts["dtypes"])
            status = run_native(args, suite, skip, xfails, raw_json)
        else:
            status, facts = run_browser(args, suite, xfails, raw_json)
            if not facts:
                print("webarray did not start in the browser", file=sys.stderr)
                return status or 1
            skip, note = skip_dtypes(facts["dtypes"])
        if not raw_json.exists():
            print("the suite produced no report (it failed before running tests)", file=sys.stderr)
            return status or 1
        raw = json.loads(raw_json.read_text())
    tests = []
    for t in raw.get("tests", []):
        duration = sum((t.get(p) or {}).get("duration", 0.0) for p in ("setup", "call", "teardown"))
        longrepr = next((t[p].get("longrepr") for p in ("call", "setup", "teardown")
                         if isinstance(t.get(p), dict) and t[p].get("longrepr")), "")
        category, function = classify(t["nodeid"])
        entry = {"id": t["nodeid"], "outcome": t["outcome"], "duration": round(duration, 4),
                 "category": category, "function": function}
        if t["outcome"] in ("failed", "error", "xfailed"):
            entry["excerpt"] = excerpt(longrepr)
        elif t["outcome"] == "skipped":
            m = re.search(r"Skipped: (.*?)['\"]?\)?$", str(longrepr))
            entry["excerpt"] = m.group(1) if m else excerpt(longrepr)
        tests.append(entry)
    import webarray

    report = {
        "target": label(args.target, facts["dtypes"]),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "webarray_version": getattr(webarray, "__version__", None) or _pkg_version(),
        "api_version": facts["api_version"],
        "suite_commit": git_rev(suite),
        "spec_commit": git_rev(suite / "array-api"),
        "device": {"backend": facts["backend"], "adapter": facts["adapter"]},
        "device_dtypes": facts["dtypes"],
        "skipped_dtypes": skip,
        "note": note,
        "max_examples": args.max_examples,
        "selection": args.k,
        "xfails": xfails,
        "summary": summarise(tests),
        "tests": tests,
    }
    out = Path(args.out or HERE / "reports" / f"{label(args.target, facts['dtypes'])}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print_summary(report, out)
    return 0 if status in (0, 1) and not report["summary"]["totals"].get("failed") else 1


def _pkg_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("webarray")
    except Exception:
        return None


def print_summary(report: dict, path: Path) -> None:
    s = report["summary"]
    print(f"\nconformance on {report['target']} ({report['device']['adapter'].get('device', '')}):")
    print("  " + ", ".join(f"{v} {k}" for k, v in sorted(s["totals"].items())))
    print(f"  skipped dtypes: {', '.join(report['skipped_dtypes']) or 'none'}")
    if report["note"]:
        print(f"  note: {report['note']}")
    width = max((len(c) for c in s["categories"]), default=10)
    for cat, counts in s["categories"].items():
        print(f"  {cat:<{width}}  " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    print(f"report: {path}")


def merge(args) -> int:
    """One report of a target from reports of its parts (``run -k``): a browser run of the
    whole suite with float64 compiles every software float64 function, for tens of seconds
    each on SwiftShader, so it may be run in parts (or a part again after a fix). Each later
    report's outcomes replace an earlier one's for the same test id; the parts must be of
    one target, device dtypes, max_examples and suite commit."""
    parts = [json.loads(Path(p).read_text()) for p in args.reports]
    first = parts[0]
    for r in parts[1:]:
        for key in ("target", "device_dtypes", "max_examples", "suite_commit", "spec_commit"):
            if r.get(key) != first.get(key):
                print(f"merge: {key} differs: {first.get(key)!r} and {r.get(key)!r}", file=sys.stderr)
                return 2
    order: dict = {}
    for r in parts:
        for t in r["tests"]:
            order[t["id"]] = t
    tests = list(order.values())
    report = dict(parts[-1])
    report.update(
        date=max(r["date"] for r in parts),
        selection=None,
        parts=[{"date": r["date"], "selection": r.get("selection"),
                "totals": r["summary"]["totals"]} for r in parts],
        summary=summarise(tests),
        tests=tests,
    )
    out = Path(args.out)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print_summary(report, out)
    return 0 if not report["summary"]["totals"].get("failed") else 1


def add_parser(sub) -> None:
    m = sub.add_parser("merge", help="one report from the reports of a run's parts")
    m.add_argument("reports", nargs="+", help="reports of one target, later ones' outcomes first")
    m.add_argument("--out", required=True, help="where to write the merged report")
    m.set_defaults(func=merge)
    r = sub.add_parser("run", help="run array-api-tests against webarray")
    r.add_argument("--target", choices=["native", "webgpu", "webgl2"], default="native")
    r.add_argument("--suite", default=str(ROOT / "vendor" / "array-api-tests"),
                   help="path of an array-api-tests checkout (default: vendor/array-api-tests)")
    r.add_argument("--max-examples", type=int, default=100,
                   help="hypothesis examples per test; the suite runs a tenth of them for its "
                        "slow 'unvectorized' tests (default 100)")
    r.add_argument("--out", help="where to write the JSON report")
    r.add_argument("-k", help="pytest -k expression to select tests")
    r.add_argument("--timeout", type=float, default=7200.0,
                   help="seconds for a browser run, start-up included (default 7200)")
    r.add_argument("--verbose", action="store_true",
                   help="a browser run also prints the page's console and worker messages")
    r.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    r.set_defaults(func=run)
