"""``python -m conformance scipy|sklearn`` (conformance/ecosystem.py) and its pytest plugin
(conformance/pytest_webarray.py): one real run of SciPy's shipped cluster tests on webarray,
and the plugin's pieces on their own."""

import json
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from conformance import ecosystem, pytest_webarray

ROOT = ecosystem.ROOT


def test_scipy_cluster_quick_on_webarray_writes_a_report(tmp_path):
    missing = ecosystem.missing_tests("scipy", ("webarray",))
    if missing:
        pytest.skip(f"SciPy's own tests are needed: {missing}")
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "conformance", "scipy", "--modules", "cluster", "--quick",
         "--backend", "webarray", "--out-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((tmp_path / "scipy-cluster-webarray.json").read_text())
    totals = report["totals"]
    assert set(totals) == {"passed", "failed", "error", "skipped", "xfailed", "xpassed"}
    assert 0 < sum(totals.values()) <= ecosystem.QUICK_TESTS
    assert sum(sum(c.values()) for c in report["by_test"].values()) == sum(totals.values())
    assert totals["passed"] > 0
    # webarray was the backend (SciPy's conftest did not just run NumPy), and only it
    assert report["ids_naming_backend"] == sum(totals.values())
    assert report["device"]["dtypes"] and "float64" in report["device"]["dtypes"]
    assert report["versions"]["scipy"] and report["patched"]
    assert sum(g["count"] for g in report["failure_groups"]) == totals["failed"] + totals["error"]
    assert time.monotonic() - start < 150


def test_unknown_module_is_refused_naming_the_known_ones():
    out = subprocess.run([sys.executable, "-m", "conformance", "scipy", "--modules", "nope"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 2
    assert "nope" in out.stderr and "cluster" in out.stderr


def test_quick_subset_is_the_same_for_both_backends():
    ids = [f"t.py::test_{i}[{p}-{{b}}]" for i in range(40) for p in ("a", "b")]
    kept = {}
    for backend in ("webarray", "array_api_strict"):
        items = [SimpleNamespace(nodeid=i.format(b=backend)) for i in ids]
        config = SimpleNamespace(hook=SimpleNamespace(pytest_deselected=lambda items: None))
        old, pytest_webarray.MAX_TESTS = pytest_webarray.MAX_TESTS, 7
        try:
            pytest_webarray.pytest_collection_modifyitems(config, items)
        finally:
            pytest_webarray.MAX_TESTS = old
        kept[backend] = [pytest_webarray._backend_free(it.nodeid) for it in items]
    assert len(kept["webarray"]) == 7
    assert kept["webarray"] == kept["array_api_strict"]


def test_failures_group_by_exception_and_first_line():
    tests = [
        {"id": "a", "outcome": "failed", "reason": "TypeError: bad 3 of 10 (v12)"},
        {"id": "b", "outcome": "failed", "reason": "TypeError: bad 4 of 11 (v7)"},
        {"id": "c", "outcome": "error", "reason": "ValueError: float64 at 0x7f00"},
        {"id": "d", "outcome": "passed"},
    ]
    g = ecosystem.groups(tests, ("failed", "error"), 5)
    assert g[0] == {"outcome": "failed", "reason": "TypeError: bad # of # (v…)", "count": 2, "examples": ["a", "b"]}
    assert g[1]["reason"] == "ValueError: float64 at 0x_"


def test_reason_reads_the_line_that_says_what_went_wrong():
    crash = SimpleNamespace(message="KernelError: WGSL kernel failed to compile:\nValidation Error\n"
                                    "Caused by:\nShader '' parsing error: the type of `v1` is wrong")
    report = SimpleNamespace(longrepr=SimpleNamespace(reprcrash=crash), skipped=False, passed=False)
    assert pytest_webarray._reason(report) == (
        "KernelError: WGSL kernel failed to compile: Shader '' parsing error: the type of `v1` is wrong")
    skip = SimpleNamespace(longrepr=("f.py", 3, "Skipped: no matplotlib"), skipped=True, passed=False)
    assert pytest_webarray._reason(skip) == "no matplotlib"
