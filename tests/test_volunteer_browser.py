"""A volunteer study run by headless Chromium worker pages, on SQLite and on PostgreSQL.

The server (``python -m webarray.volunteer serve``) holds a grid of 8 trials of the digits
objective; three worker pages join. One page is closed in the middle of a trial without
a release beacon (as when a browser crashes) and the server is restarted once. The study
must still end with each of the 8 grid points finished exactly once (COMPLETE, or PRUNED
where the pruner's threshold says so), the closed page's trial failed by the heartbeat
check and re-run by another page with the same parameters from its checkpoint, and the
database consistent (see ``check_database``). A second test has pages leave on purpose
(the Stop button, a tab closed with its release beacon) and a late page finish for them.

The Chainer-in-the-browser variant of the study needs NumPy in Pyodide and is skipped
with that reason while Pyodide's package index is not available (see docs/volunteer.md).

Needs what scripts/setup.sh installs (Chromium, node_modules, PostgreSQL);
WEBARRAY_SKIP_BROWSER=1 skips the module.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
import urllib.request
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from volunteer_support import EXAMPLE, Server, postgres, write_study
from webarray.browser import assets
from webarray.volunteer import service
from webarray.volunteer.pages import HeadlessWorkers

pytestmark = pytest.mark.skipif(
    os.environ.get("WEBARRAY_SKIP_BROWSER") == "1", reason="WEBARRAY_SKIP_BROWSER=1"
)

GRID = {"lr": [0.001, 0.3], "hidden": [16, 64], "batch_size": [32, 64], "weight_decay": [1e-4]}
N_TRIALS = 8  # the grid's size
SETTINGS = {"epochs": 5, "train_size": 1024, "val_size": 200}
PRUNE_BELOW = 0.4  # from epoch 3 on; lr 0.3 is above 0.8 there, lr 0.001 with batches of 64 near 0.15
DEADLINE = 170  # seconds for one backend's run, start-up of the pages included


@contextlib.contextmanager
def storage_url(kind: str, tmp_path: Path):
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'study.db'}"
    else:
        with postgres() as url:
            yield url


def summary(server: Server) -> dict:
    with urllib.request.urlopen(server.url + "/api/study", timeout=10) as r:
        return json.load(r)


def wait(predicate, timeout: float, what: str, poll: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def check_database(url: str, name: str, artifacts: Path) -> list:
    """Reads the study back through Optuna and checks that it is whole; returns its trials."""
    trials = optuna.load_study(study_name=name, storage=url).get_trials(deepcopy=False)
    assert [t.number for t in trials] == list(range(len(trials))), "trial numbers must run 0..n-1"
    states = [t.state for t in trials]
    assert TrialState.RUNNING not in states and TrialState.WAITING not in states, states
    finished = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    assert len(finished) == N_TRIALS
    # each grid point exactly once among the finished trials: nothing lost, nothing doubled
    points = sorted((t.params["lr"], t.params["hidden"], t.params["batch_size"]) for t in finished)
    expected = sorted((a, b, c) for a in GRID["lr"] for b in GRID["hidden"] for c in GRID["batch_size"])
    assert points == expected
    # the pruner's verdicts: below the threshold from epoch 3 on is pruned, at once
    assert {t.state for t in finished} == {TrialState.COMPLETE, TrialState.PRUNED}
    for t in trials:
        assert t.datetime_complete is not None
        steps = t.intermediate_values
        late = [v for s, v in steps.items() if s >= 2]
        if t.state == TrialState.COMPLETE:
            assert math.isfinite(t.value) and t.value == steps[SETTINGS["epochs"] - 1]
            assert sorted(steps) == list(range(SETTINGS["epochs"])) and min(late) >= PRUNE_BELOW
        elif t.state == TrialState.PRUNED:
            assert sorted(steps) == list(range(max(steps) + 1)) and late[-1] < PRUNE_BELOW
            assert all(v >= PRUNE_BELOW for v in late[:-1])
        else:  # FAIL: only browsers that went away, each re-queued exactly once
            assert service.ERROR not in t.system_attrs, t.system_attrs[service.ERROR]
            retries = [r for r in trials if r.system_attrs.get("retry_history", [])[-1:] == [t.number]]
            assert len(retries) == 1 and retries[0].params == t.params
    # every checkpoint that a trial references exists; none is left unreferenced
    referenced = {t.system_attrs[service.CHECKPOINT]["artifact"] for t in trials if service.CHECKPOINT in t.system_attrs}
    assert referenced == {p.name for p in artifacts.iterdir()}
    return trials


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_study_survives_a_closed_page_and_a_server_restart(backend, tmp_path):
    assets.js_library(assets.repo_root())
    assets.webarray_wheel(assets.repo_root())
    t0 = time.monotonic()
    study = write_study(
        tmp_path, name="reliability", n_trials=N_TRIALS, settings=SETTINGS,
        sampler=f"GridSampler({GRID!r}, seed=0)",
        pruner=f"ThresholdPruner(lower={PRUNE_BELOW}, n_warmup_steps=2)",
        heartbeat_interval=1, grace_period=10,
    )
    artifacts = tmp_path / "checkpoints"
    with storage_url(backend, tmp_path) as url:
        server = Server(study, url, artifacts, tmp_path / "server.log")
        server.start()
        try:
            with HeadlessWorkers(server.url) as pages:
                pages.open("w0", "release=0")  # closes like a crashed browser: no beacon
                pages.open("w1")
                pages.open("w2")
                # w0 has checkpointed and reported its first epoch: close it mid-trial
                left = DEADLINE - (time.monotonic() - t0)
                event = pages.wait_for(lambda e: e["event"] == "status" and e["name"] == "w0"
                                       and e["status"]["step"] is not None, left)
                assert event is not None, f"w0 never reported an epoch: {pages.events[-20:]}"
                killed = event["status"]["trial"]
                t_close = time.monotonic() - t0
                pages.close("w0")
                assert pages.wait_for(lambda e: e["event"] == "closed", 30)
                wait(lambda: summary(server)["finished"] >= 3, DEADLINE - (time.monotonic() - t0),
                     "3 finished trials")
                t_restart = time.monotonic() - t0
                server.stop()
                restart_s = server.start()
                wait(lambda: all(pages.status[w]["phase"].startswith("done") for w in ("w1", "w2")),
                     DEADLINE - (time.monotonic() - t0), "the study to finish")
                errors = [e for e in pages.events if e["event"] == "error"]
                assert not errors, "\n".join(f"{e.get('name')}: {e['message']}" for e in errors)
                for w in ("w1", "w2"):
                    ends = [r["state"] for r in pages.status[w]["results"]]
                    assert set(ends) <= {"COMPLETE", "PRUNED"}, (w, pages.status[w]["results"])
            final = summary(server)
        finally:
            server.stop()
        trials = check_database(url, "reliability", artifacts)

    # the closed page's trial: failed by the heartbeat check (no beacon), re-run elsewhere
    # with its parameters, starting after the epoch of its last checkpoint
    lost = trials[killed]
    assert lost.state == TrialState.FAIL and lost.system_attrs[service.LEASE]["worker"] == "w0"
    assert not lost.system_attrs[service.LEASE]["released"]
    (rerun,) = [t for t in trials if t.system_attrs.get("failed_trial") == killed]
    assert rerun.params == lost.params and rerun.system_attrs[service.LEASE]["worker"] in ("w1", "w2")
    resumed = rerun.system_attrs[service.RESUMED]
    assert resumed["trial"] == killed and resumed["step"] >= 0
    assert rerun.user_attrs["start_epoch"] == resumed["step"] + 1
    assert set(lost.intermediate_values.items()) <= set(rerun.intermediate_values.items())
    assert final["finished"] == N_TRIALS
    print(f"{backend}: {time.monotonic() - t0:.0f} s in all, w0 closed at {t_close:.0f} s, server "
          f"restarted at {t_restart:.0f} s (took {restart_s:.1f} s), "
          f"trial {killed} re-run as {rerun.number} from epoch {resumed['step'] + 1}")


def test_pages_that_leave_hand_their_trials_back(tmp_path):
    """A page whose volunteer presses "Stop volunteering", and a tab closed with its release
    beacon, give their trials back at once (the grace period is a minute); a page that
    joins later resumes both from their checkpoints and finishes the study."""
    t0 = time.monotonic()
    study = write_study(tmp_path, name="leaving", n_trials=3, settings=SETTINGS, sampler="RandomSampler(seed=2)",
                        heartbeat_interval=1, grace_period=60)
    server = Server(study, f"sqlite:///{tmp_path / 'l.db'}", tmp_path / "ck", tmp_path / "server.log")
    server.start()
    left = {}
    try:
        with HeadlessWorkers(server.url) as pages:
            pages.open("w0")
            pages.open("w1")
            for name in ("w0", "w1"):
                event = pages.wait_for(lambda e: e["event"] == "status" and e["name"] == name
                                       and e["status"]["step"] is not None, DEADLINE)
                assert event is not None, f"{name} never reported an epoch: {pages.events[-20:]}"
                left[name] = event["status"]["trial"]
                if name == "w0":
                    pages.click("w0", "#leave")
                else:
                    pages.close("w1")
            wait(lambda: pages.status["w0"]["phase"] == "stopped", 30, "w0 to stop")
            pages.open("w2")
            wait(lambda: pages.status.get("w2", {}).get("phase", "").startswith("done"),
                 DEADLINE - (time.monotonic() - t0), "w2 to finish the study")
            assert not [e for e in pages.events if e["event"] == "error"]
        final = summary(server)
    finally:
        server.stop()
    assert final["finished"] == 3
    trials = {t["number"]: t for t in final["trials"]}
    for name, number in left.items():
        gone = trials[number]  # "released": failed by the release endpoint, not by the heartbeat check
        assert gone["state"] == "FAIL" and gone["released"] and gone["worker"] == name
        (rerun,) = [t for t in trials.values() if t["retry_of"] == number]
        assert rerun["state"] in ("COMPLETE", "PRUNED") and rerun["worker"] == "w2"
        assert rerun["params"] == gone["params"] and rerun["resumed_from"]["trial"] == number
        assert rerun["user_attrs"]["start_epoch"] == rerun["resumed_from"]["step"] + 1


def test_chainer_study_in_the_browser(tmp_path):
    """The same search with the Chainer CNN (examples/volunteer/chainer_cnn_study.py): two
    trials in one page. It needs NumPy in Pyodide (a distribution with packages, named by
    WEBARRAY_PYODIDE_INDEX) and Chainer's wheels (CHAINER_WHEELS)."""
    index = Path(os.environ.get("WEBARRAY_PYODIDE_INDEX") or assets.node_modules(assets.repo_root()) / "pyodide")
    numpy = json.loads((index / "pyodide-lock.json").read_text())["packages"].get("numpy", {}).get("file_name")
    if numpy is None or not (index / numpy).is_file():
        pytest.skip("Pyodide has no NumPy here: the npm package ships no packages and no package index is "
                    "reachable (set WEBARRAY_PYODIDE_INDEX to a full Pyodide distribution)")
    wheels = os.environ.get("CHAINER_WHEELS")
    if not wheels or not list(Path(wheels).glob("chainer-*.whl")):
        pytest.skip("no Chainer wheel: set CHAINER_WHEELS to a folder with Chainer's wheels")
    study = tmp_path / "chainer_study.py"
    study.write_text(f"""
import runpy
SPEC = runpy.run_path({str(EXAMPLE / 'chainer_cnn_study.py')!r})["SPEC"]
SPEC.objective = {str(EXAMPLE / 'chainer_cnn.py')!r}
SPEC.files = [{str(EXAMPLE / 'digits.bin')!r}]
SPEC.n_trials = 2
SPEC.settings = {{"epochs": 2, "train_size": 256}}
""")
    server = Server(study, f"sqlite:///{tmp_path / 'c.db'}", tmp_path / "ck", tmp_path / "server.log",
                    extra=("--pyodide", str(index)))
    server.start()
    try:
        with HeadlessWorkers(server.url) as pages:
            pages.open("w0")
            wait(lambda: pages.status.get("w0", {}).get("phase", "").startswith(("done", "error")), 300,
                 "the Chainer study")
            assert pages.status["w0"]["phase"].startswith("done"), pages.status["w0"]
        assert summary(server)["finished"] == 2
    finally:
        server.stop()
