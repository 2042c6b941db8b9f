"""The conformance runner's own logic (the suite itself is not available in CI)."""

import subprocess
import sys

from conformance.runner import ALL_DTYPES, BROWSER_ENTRY, classify, excerpt, label, skip_dtypes, summarise


def test_missing_suite_explains_how_to_get_it(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--suite", str(tmp_path / "absent")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2
    assert "git clone https://github.com/data-apis/array-api-tests" in out.stderr
    assert "submodule update --init" in out.stderr


def test_empty_spec_submodule_is_reported(tmp_path):
    (tmp_path / "array_api_tests").mkdir()
    (tmp_path / "array_api_tests" / "__init__.py").write_text("")
    out = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--suite", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2
    assert "spec submodule is empty" in out.stderr


def test_skip_dtypes_follow_the_device():
    skip, note = skip_dtypes(["bool", "int32", "float32", "complex64"])
    assert skip == ["int8", "int16", "int64", "uint8", "uint16", "uint32", "uint64", "float64", "complex128"]
    assert note is None
    skip, note = skip_dtypes(["bool", "float32"])
    assert "complex64" in skip and "complex128" in skip and "no complex dtype" in note


def test_a_float64_run_has_a_report_of_its_own():
    assert label("native", ["float32", "complex64"]) == "native"
    assert label("native", ALL_DTYPES) == "native-float64"
    assert label("webgl2", ["float32", "float64"]) == "webgl2-float64"


def test_browser_entry_is_valid_python():
    src = BROWSER_ENTRY.format(all_dtypes=ALL_DTYPES, max_examples=3, extra=["-k", "abs"])
    compile(src, "conformance_entry.py", "exec")
    # the rewrite of the suite's copy looks for one line ending, written as an escape
    assert 'x[1]\\n)[0]"' in src


def test_classify_and_summarise():
    assert classify("array_api_tests/test_operators_and_elementwise_functions.py::test_add[add(x1, x2)]") == ("elementwise", "add")
    assert classify("array_api_tests/test_creation_functions.py::test_arange") == ("creation", "arange")
    tests = [
        {"outcome": "passed", "category": "creation", "function": "arange"},
        {"outcome": "failed", "category": "creation", "function": "eye"},
    ]
    s = summarise(tests)
    assert s["totals"] == {"passed": 1, "failed": 1}
    assert s["functions"]["eye"] == {"failed": 1}
    assert excerpt("a\nE   boom\nb") == "E   boom"


def test_merge_takes_each_test_from_the_last_part_that_ran_it(tmp_path):
    import json

    def report(date, selection, outcomes, **extra):
        tests = [{"id": f"array_api_tests/test_special_cases.py::test_unary[{k}]", "outcome": v,
                  "duration": 0.1, "category": "special cases", "function": k} for k, v in outcomes.items()]
        r = {"target": "webgpu-float64", "date": date, "device_dtypes": ALL_DTYPES, "max_examples": 10,
             "suite_commit": "abc", "spec_commit": "def", "selection": selection,
             "device": {"backend": "webgpu", "adapter": {"device": "swiftshader"}}, "skipped_dtypes": [],
             "note": None, "summary": summarise(tests), "tests": tests}
        r.update(extra)
        return r

    whole = tmp_path / "whole.json"
    again = tmp_path / "again.json"
    whole.write_text(json.dumps(report("2026-12-01T09:00", None, {"sin": "passed", "asinh": "failed"})))
    again.write_text(json.dumps(report("2026-12-01T10:00", "test_special_cases",
                                       {"asinh": "passed", "acosh": "passed"})))
    out = tmp_path / "merged.json"
    r = subprocess.run([sys.executable, "-m", "conformance", "merge", str(whole), str(again), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    merged = json.loads(out.read_text())
    assert {t["function"]: t["outcome"] for t in merged["tests"]} == {"sin": "passed", "asinh": "passed",
                                                                     "acosh": "passed"}
    assert merged["summary"]["totals"] == {"passed": 3}
    assert [p["selection"] for p in merged["parts"]] == [None, "test_special_cases"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps(report("2026-12-01T11:00", None, {"sin": "passed"}, max_examples=100)))
    r = subprocess.run([sys.executable, "-m", "conformance", "merge", str(whole), str(other), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "max_examples differs" in r.stderr
