"""A pytest plugin (``-p conformance.pytest_webarray``) that runs SciPy's and scikit-learn's
own array-API tests, as shipped in their wheels, on one array backend, and records each
test's outcome; ``python -m conformance scipy|sklearn`` loads it in a subprocess.

Neither library has a public hook for a new backend: SciPy's conftest knows a fixed list
of libraries, scikit-learn's test helpers yield a fixed list of namespaces. So, for
``CONFORMANCE_BACKEND=webarray``, it patches these test-suite internals in memory (no
installed file is touched) and nothing else:

- SciPy: when ``scipy/conftest.py`` is registered, ``"webarray"`` is added to its
  ``xp_known_backends`` (so ``skip_xp_backends(np_only=True)`` and friends skip webarray as
  they skip every non-NumPy library) and to ``xp_available_backends``, and the ``xp``
  fixture's params become that one webarray param, marked ``array_api_backends`` like the
  others (through a ``parametrize`` mark on each test that uses ``xp``, which pytest
  prefers to a fixture's own params). webarray is not put in ``xp_skip_cpu_only_backends``: ``numpy.asarray`` reads a
  webarray array back, so SciPy's ``cpu_only`` functions run as they do for
  array_api_strict. The reference run (``array_api_strict``) patches nothing: it selects
  the backend through SciPy's own ``SCIPY_ARRAY_API='["array_api_strict"]'``.
- scikit-learn: ``sklearn.utils._array_api.yield_namespaces`` and
  ``yield_namespace_device_dtype_combinations`` (and every already-imported binding of
  them) yield ``("webarray", None, "float64")`` and ``("webarray", None, "float32")``, the
  two dtypes array_api_strict is tested with; ``_array_api_for_tests`` then imports
  ``webarray`` by name as for any library. The reference run patches nothing.

Outcomes (passed, failed, error, skipped, xfailed, xpassed), durations and the first line
of each failure are written as JSON lines to ``CONFORMANCE_RECORD`` as tests finish, so a
run cut short keeps what finished. ``CONFORMANCE_TEST_TIMEOUT`` (seconds) fails a test that
runs longer (SIGALRM: lavapipe compiles some large kernels slowly, and one test must not
hold a module's run). ``CONFORMANCE_MAX_TESTS`` keeps an evenly spaced, deterministic
subset of the collected tests (``--quick``), the same one for either backend.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys

import pytest

BACKEND = os.environ.get("CONFORMANCE_BACKEND", "webarray")
RECORD = os.environ.get("CONFORMANCE_RECORD")
TIMEOUT = float(os.environ.get("CONFORMANCE_TEST_TIMEOUT", "0") or 0)
MAX_TESTS = int(os.environ.get("CONFORMANCE_MAX_TESTS", "0") or 0)
SKLEARN_DTYPES = ("float64", "float32")


# -- scikit-learn: the namespace list, patched when this plugin is imported, before any test
# module binds the helpers by name ------------------------------------------------------------

def _patch_sklearn() -> None:
    try:
        import sklearn.utils._array_api as aa
    except ImportError:
        return
    old_namespaces = aa.yield_namespaces
    old_combinations = aa.yield_namespace_device_dtype_combinations

    def yield_namespaces(include_numpy_namespaces=True):
        yield "webarray"

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        for dtype in SKLEARN_DTYPES:
            yield "webarray", None, dtype

    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("sklearn"):
            for name, old, new in (("yield_namespaces", old_namespaces, yield_namespaces),
                                   ("yield_namespace_device_dtype_combinations", old_combinations,
                                    yield_namespace_device_dtype_combinations)):
                if getattr(mod, name, None) is old:
                    setattr(mod, name, new)


if BACKEND == "webarray" and os.environ.get("CONFORMANCE_SUITE") == "sklearn":
    _patch_sklearn()


# -- SciPy: the backend table of its conftest ------------------------------------------------

def _is_scipy_conftest(plugin) -> bool:
    path = getattr(plugin, "__file__", "") or ""
    return path.replace("\\", "/").endswith("/scipy/conftest.py")


def pytest_plugin_registered(plugin, manager):
    if BACKEND == "webarray" and _is_scipy_conftest(plugin):
        plugin.xp_known_backends.add("webarray")
        plugin.xp_available_backends[:] = [_webarray_param()]


def _webarray_param():
    import webarray  # here, not at the top: the array_api_strict run never imports it

    return pytest.param(webarray, id="webarray", marks=pytest.mark.array_api_backends)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    """Give SciPy's ``xp`` fixture the webarray param: a test's own parametrize mark takes
    precedence over a fixture's params, so pytest then leaves SciPy's list alone."""
    if (BACKEND == "webarray" and "xp" in metafunc.fixturenames
            and metafunc.module.__name__.startswith("scipy.")):
        metafunc.definition.add_marker(pytest.mark.parametrize("xp", [_webarray_param()], indirect=True))


# -- the subset and the time limit -------------------------------------------------------------

def _backend_free(nodeid: str) -> str:
    return re.sub(r"webarray|array_api_strict|None-|CPU_DEVICE-|device1-", "", nodeid)


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected theirs
def pytest_collection_modifyitems(config, items):
    if not MAX_TESTS or len(items) <= MAX_TESTS:
        return
    order = sorted(range(len(items)), key=lambda i: _backend_free(items[i].nodeid))
    step = len(items) / MAX_TESTS
    keep = {order[int(k * step)] for k in range(MAX_TESTS)}
    config.hook.pytest_deselected(items=[it for i, it in enumerate(items) if i not in keep])
    items[:] = [it for i, it in enumerate(items) if i in keep]


class TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TestTimeout(f"the test ran past {TIMEOUT:g} s (CONFORMANCE_TEST_TIMEOUT)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not TIMEOUT or not hasattr(signal, "setitimer"):
        return (yield)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- the record ---------------------------------------------------------------------------------

def _reason(report) -> str:
    """Exception type and first line of a failure, or the reason of a skip or xfail."""
    if hasattr(report, "wasxfail") and (report.skipped or report.passed):
        return str(report.wasxfail)
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (file, line, "Skipped: why")
        return re.sub(r"^Skipped: ", "", str(longrepr[2]))
    crash = getattr(longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(longrepr or "")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        # numpy.testing ("AssertionError:" then "Not equal to tolerance ..."), a kernel that
        # failed to compile ("...failed to compile:" then the compiler's message): the
        # line that says what went wrong comes later
        rest = lines[1:12]
        first += " " + next((ln for ln in rest if "error:" in ln.lower()), rest[0])
    return first[:300]


class Recorder:
    def __init__(self, path: str):
        self.file = open(path, "a", buffering=1)
        self.seen: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        entry = self.seen.setdefault(report.nodeid, {"id": report.nodeid, "outcome": None, "duration": 0.0})
        entry["duration"] += report.duration
        xfail = hasattr(report, "wasxfail")
        if report.when == "call":
            outcome = ("xpassed" if report.passed else "xfailed") if xfail and not report.failed else report.outcome
            entry["outcome"], entry["reason"] = outcome, "" if outcome == "passed" else _reason(report)
        elif report.failed:  # setup or teardown
            entry["outcome"], entry["reason"] = "error", _reason(report)
        elif report.skipped:
            entry["outcome"], entry["reason"] = ("xfailed" if xfail else "skipped"), _reason(report)
        if report.when == "teardown":
            entry["duration"] = round(entry["duration"], 4)
            self.file.write(json.dumps(entry) + "\n")
            del self.seen[report.nodeid]

    def pytest_sessionfinish(self):
        self.file.close()


def pytest_configure(config):
    if RECORD:
        config.pluginmanager.register(Recorder(RECORD), "conformance-recorder")
