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
