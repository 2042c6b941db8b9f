"""The volunteer server without a browser: its endpoints over real HTTP (uvicorn in a
thread) on SQLite and PostgreSQL, the trial's client and the digits objective in CPython
(webarray's native device), checkpoints, certificates and study files.

The endpoint tests read the database back through a storage of their own, so that what
they check is what a restarted server would see. Every rejected request is checked to
change nothing: no trial's state, values, attributes or checkpoint files.
"""

from __future__ import annotations

import contextlib
import json
import math
import ssl
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import optuna
import pytest
import uvicorn
from cryptography import x509
from hypothesis import given, settings, strategies as st
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

import webarray as xp
from volunteer_support import EXAMPLE, free_port, postgres, write_study
from webarray.volunteer import checkpoint, spec as spec_module, tls, worker
from webarray.volunteer.app import Assets, create_app
from webarray.volunteer.service import CHECKPOINT, RESUMED, VolunteerStudy
from webarray.volunteer.spec import StudySpec

pytestmark = [
    pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning"),
    pytest.mark.filterwarnings("ignore:Heartbeat of storage is supposed to be used with Study.optimize"),
]

SPACE = {
    "lr": FloatDistribution(1e-3, 1.0, log=True),
    "hidden": IntDistribution(16, 128, log=True),
    "batch_size": CategoricalDistribution([16, 32, 64, 128]),
    "weight_decay": FloatDistribution(1e-6, 1e-2, log=True),
}


@pytest.fixture(scope="module")
def pg_url():
    with postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def storage(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'study.db'}"
    return request.getfixturevalue("pg_url")


def make_study(storage: str, tmp_path: Path, **overrides) -> VolunteerStudy:
    fields = dict(name=f"t-{uuid.uuid4().hex[:8]}", objective="digits_mlp.py", files=["digits.bin"],
                  search_space=SPACE, n_trials=4, pruner=optuna.pruners.NopPruner(),
                  sampler=optuna.samplers.RandomSampler(seed=0), heartbeat_interval=1, grace_period=2,
                  checkpoint_limit=4096)
    fields.update(overrides)
    spec = StudySpec(**fields)
    spec.resolve(EXAMPLE)
    return VolunteerStudy(spec, storage, tmp_path / f"{spec.name}-checkpoints")


@contextlib.contextmanager
def serving(app, **ssl_files):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **ssl_files))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"{'https' if ssl_files else 'http'}://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


@pytest.fixture
def api(storage, tmp_path):
    """(study, client) factory: an HTTP client of a fresh study's server."""
    with contextlib.ExitStack() as stack:
        def start(**overrides):
            study = make_study(storage, tmp_path, **overrides)
            url = stack.enter_context(serving(create_app(study)))
            return study, stack.enter_context(httpx.Client(base_url=url, timeout=30))

        yield start


_readers: dict[str, optuna.storages.RDBStorage] = {}


def snapshot(study: VolunteerStudy):
    """Everything a request could change, read from the database by a storage of our own."""
    url = study.storage.engine.url.render_as_string(hide_password=False)
    if url not in _readers:
        _readers[url] = optuna.storages.RDBStorage(url)
    reader = _readers[url]
    trials = reader.get_all_trials(reader.get_study_id_from_name(study.spec.name))
    return ([(t.number, t.state, t.params, t.values, t.intermediate_values, t.user_attrs, t.system_attrs,
              t.datetime_complete) for t in trials], sorted(p.name for p in study.artifacts.iterdir()))


def lease(client, worker_name="w"):
    r = client.post("/api/lease", json={"worker": worker_name})
    assert r.status_code == 200, r.text
    return r.json()


def put_checkpoint(client, lease_, data: bytes, step: int):
    return client.put(f"/api/trials/{lease_['trial']}/checkpoint", content=data,
                      headers={"X-Trial-Token": lease_["token"], "X-Checkpoint-Step": str(step)})


# -- the endpoints ---------------------------------------------------------------------------------


def test_a_trial_from_lease_to_tell(api):
    study, c = api(pruner=optuna.pruners.ThresholdPruner(lower=0.5))
    a = lease(c)
    assert a["status"] == "trial" and set(a["params"]) == set(SPACE) and a["retry_of"] is None
    assert all(SPACE[k]._contains(SPACE[k].to_internal_repr(v)) for k, v in a["params"].items())
    n, token = a["trial"], a["token"]
    assert c.post(f"/api/trials/{n}/report", json={"token": token, "step": 0, "value": 0.7}).json() == \
        {"should_prune": False, "ignored": False}
    # a step reported again is ignored, as Optuna's Trial.report does; the pruner still answers
    assert c.post(f"/api/trials/{n}/report", json={"token": token, "step": 0, "value": 0.1}).json() == \
        {"should_prune": False, "ignored": True}
    assert c.post(f"/api/trials/{n}/report", json={"token": token, "step": 1, "value": 0.2}).json() == \
        {"should_prune": True, "ignored": False}
    assert put_checkpoint(c, a, b"first", 0).status_code == 200
    assert put_checkpoint(c, a, b"second", 1).status_code == 200
    r = c.get(f"/api/trials/{n}/checkpoint", headers={"X-Trial-Token": token})
    assert r.content == b"second" and r.headers["x-checkpoint-step"] == "1"
    assert len(list(study.artifacts.iterdir())) == 1  # the superseded checkpoint is gone
    hb = c.post(f"/api/trials/{n}/heartbeat", json={"token": token}).json()
    assert hb == {"running": True, "step": 1, "value": 0.2}
    told = c.post(f"/api/trials/{n}/tell", json={"token": token, "state": "pruned", "user_attrs": {"k": [1, "x"]}})
    assert told.json() == {"state": "PRUNED", "value": 0.2}
    b = lease(c)
    c.post(f"/api/trials/{b['trial']}/tell", json={"token": b["token"], "state": "complete", "value": 0.9})
    # a heartbeat that crosses the tell: 409, but not a re-queue (the page must not interrupt)
    late = c.post(f"/api/trials/{b['trial']}/heartbeat", json={"token": b["token"]})
    assert late.status_code == 409 and late.json()["requeued"] is False and late.json()["state"] == "COMPLETE"
    s = c.get("/api/study").json()
    assert s["counts"] == {"PRUNED": 1, "COMPLETE": 1} and s["finished"] == 2
    assert s["best"]["number"] == b["trial"] and s["trials"][n]["user_attrs"] == {"k": [1, "x"]}
    assert s["trials"][n]["intermediate"] == {"0": 0.7, "1": 0.2}


def test_bad_input_is_rejected_and_changes_nothing(api):
    study, c = api()
    a, b, done = lease(c, "a"), lease(c, "b"), lease(c, "c")
    n, t = a["trial"], a["token"]
    c.post(f"/api/trials/{n}/report", json={"token": t, "step": 0, "value": 0.5})
    assert put_checkpoint(c, a, b"ckpt", 0).status_code == 200
    c.post(f"/api/trials/{done['trial']}/tell", json={"token": done["token"], "state": "complete", "value": 1.0})
    m, tm = done["trial"], done["token"]
    nb = b["trial"]  # b has no checkpoint
    js = {"Content-Type": "application/json"}
    tok = {"X-Trial-Token": t}
    cases = [
        # lease
        (422, "POST", "/api/lease", {"content": b"not json", "headers": js}),
        (422, "POST", "/api/lease", {"json": {"worker": 7}}),
        (422, "POST", "/api/lease", {"json": {"worker": "x" * 65}}),
        (422, "POST", "/api/lease", {"json": {"worker": "x", "extra": 1}}),
        (411, "POST", "/api/lease", {"content": iter([b'{"worker": "x"}']), "headers": js}),
        (413, "POST", "/api/lease", {"content": b" " * (65 << 10), "headers": js}),
        # heartbeat
        (404, "POST", "/api/trials/999/heartbeat", {"json": {"token": t}}),
        (404, "POST", "/api/trials/-1/heartbeat", {"json": {"token": t}}),
        (422, "POST", "/api/trials/x/heartbeat", {"json": {"token": t}}),
        (403, "POST", f"/api/trials/{n}/heartbeat", {"json": {"token": "wrong"}}),
        (403, "POST", f"/api/trials/{n}/heartbeat", {"json": {"token": b["token"]}}),
        (422, "POST", f"/api/trials/{n}/heartbeat", {"json": {}}),
        (422, "POST", f"/api/trials/{n}/heartbeat", {"json": {"token": ""}}),
        (409, "POST", f"/api/trials/{m}/heartbeat", {"json": {"token": tm}}),
        # report
        (404, "POST", "/api/trials/999/report", {"json": {"token": t, "step": 1, "value": 0.5}}),
        (403, "POST", f"/api/trials/{n}/report", {"json": {"token": tm, "step": 1, "value": 0.5}}),
        (409, "POST", f"/api/trials/{m}/report", {"json": {"token": tm, "step": 1, "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": -1, "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": "1", "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": 1.5, "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": True, "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": 2**40, "value": 0.5}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": 1, "value": "0.5"}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": 1, "value": None}}),
        (422, "POST", f"/api/trials/{n}/report", {"json": {"token": t, "step": 1}}),
        (422, "POST", f"/api/trials/{n}/report",
         {"content": b'{"token": "%s", "step": 1, "value": NaN}' % t.encode(), "headers": js}),
        (422, "POST", f"/api/trials/{n}/report",
         {"content": b'{"token": "%s", "step": 1, "value": 1e400}' % t.encode(), "headers": js}),
        # tell
        (404, "POST", "/api/trials/999/tell", {"json": {"token": t, "state": "complete", "value": 1.0}}),
        (403, "POST", f"/api/trials/{n}/tell", {"json": {"token": "wrong", "state": "complete", "value": 1.0}}),
        (409, "POST", f"/api/trials/{m}/tell", {"json": {"token": tm, "state": "complete", "value": 1.0}}),
        (409, "POST", f"/api/trials/{m}/tell", {"json": {"token": tm, "state": "fail"}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "done", "value": 1.0}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "complete"}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "pruned", "value": 1.0}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "complete", "value": 1.0,
                                                        "error": "x"}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "complete", "value": [1.0]}}),
        (422, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "complete", "value": 1.0,
                                                        "user_attrs": [1]}}),
        (413, "POST", f"/api/trials/{n}/tell", {"json": {"token": t, "state": "complete", "value": 1.0,
                                                        "user_attrs": {"big": "x" * (20 << 10)}}}),
        (422, "POST", f"/api/trials/{n}/tell",
         {"content": b'{"token": "%s", "state": "complete", "value": Infinity}' % t.encode(), "headers": js}),
        # release
        (404, "POST", "/api/trials/999/release", {"json": {"token": t}}),
        (403, "POST", f"/api/trials/{n}/release", {"json": {"token": tm}}),
        (409, "POST", f"/api/trials/{m}/release", {"json": {"token": tm}}),
        (422, "POST", f"/api/trials/{n}/release", {"json": {"token": 5}}),
        # checkpoints
        (422, "PUT", f"/api/trials/{n}/checkpoint", {"content": b"x"}),
        (403, "PUT", f"/api/trials/{n}/checkpoint", {"content": b"x", "headers": {"X-Trial-Token": "wrong"}}),
        (404, "PUT", "/api/trials/999/checkpoint", {"content": b"x", "headers": tok}),
        (409, "PUT", f"/api/trials/{m}/checkpoint", {"content": b"x", "headers": {"X-Trial-Token": tm}}),
        (413, "PUT", f"/api/trials/{n}/checkpoint", {"content": b"x" * 4097, "headers": tok}),
        (422, "PUT", f"/api/trials/{n}/checkpoint", {"content": b"x",
                                                     "headers": {**tok, "X-Checkpoint-Step": "-1"}}),
        (422, "PUT", f"/api/trials/{n}/checkpoint", {"content": b"x",
                                                     "headers": {**tok, "X-Checkpoint-Step": "one"}}),
        (403, "GET", f"/api/trials/{n}/checkpoint", {"headers": {"X-Trial-Token": b["token"]}}),
        (404, "GET", f"/api/trials/{nb}/checkpoint", {"headers": {"X-Trial-Token": b["token"]}}),
        (404, "GET", "/api/trials/999/checkpoint", {"headers": tok}),
        (409, "GET", f"/api/trials/{m}/checkpoint", {"headers": {"X-Trial-Token": tm}}),
        (422, "GET", f"/api/trials/{n}/checkpoint", {}),
        # files
        (404, "GET", "/study/secret.txt", {}),
        (404, "GET", "/wheels/../../etc/passwd", {}),
    ]
    before = snapshot(study)
    for status, method, path, kwargs in cases:
        r = c.request(method, path, **kwargs)
        assert r.status_code == status, (method, path, kwargs, r.status_code, r.text)
        assert "cross-origin-embedder-policy" in r.headers
        assert snapshot(study) == before, (method, path, kwargs)
    # and the trials still work: the rejected requests cost nothing
    assert c.post(f"/api/trials/{n}/tell", json={"token": t, "state": "complete", "value": 0.5}).status_code == 200


def test_leases_never_overshoot_n_trials(api):
    study, c = api(n_trials=5)
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda i: lease(c, f"w{i}"), range(12)))
    trials = [a for a in answers if a["status"] == "trial"]
    assert len(trials) == 5 and len({a["trial"] for a in trials}) == 5
    assert {a["status"] for a in answers} == {"trial", "wait"}  # they are running, they may come back
    for a in trials:
        c.post(f"/api/trials/{a['trial']}/tell", json={"token": a["token"], "state": "complete", "value": 1.0})
    assert lease(c)["status"] == "done"
    assert len(snapshot(study)[0]) == 5


def test_a_silent_trial_is_requeued_with_its_params_and_checkpoint(api):
    study, c = api()
    a = lease(c, "gone")
    c.post(f"/api/trials/{a['trial']}/report", json={"token": a["token"], "step": 0, "value": 0.25})
    put_checkpoint(c, a, b"epoch 0", 0)
    kept = lease(c, "alive")
    for _ in range(6):  # 3 s: past the grace period of 2 s for the silent one
        time.sleep(0.5)
        assert c.post(f"/api/trials/{kept['trial']}/heartbeat", json={"token": kept["token"]}).status_code == 200
    retry = lease(c, "next")
    assert retry["retry_of"] == a["trial"] and retry["params"] == a["params"]
    assert retry["checkpoint_step"] == 0 and retry["reported_steps"] == [0]
    assert retry["trial"] not in (a["trial"], kept["trial"])
    r = c.get(f"/api/trials/{retry['trial']}/checkpoint", headers={"X-Trial-Token": retry["token"]})
    assert r.content == b"epoch 0"
    # the silent worker comes back: its trial is gone (409: re-queued, so its page stops
    # the run), the retry is not its own (403)
    r = c.post(f"/api/trials/{a['trial']}/heartbeat", json={"token": a["token"]})
    assert r.status_code == 409 and r.json()["requeued"] and r.json()["state"] == "FAIL"
    assert c.post(f"/api/trials/{retry['trial']}/report",
                  json={"token": a["token"], "step": 1, "value": 0.5}).status_code == 403
    s = {t["number"]: t for t in c.get("/api/study").json()["trials"]}
    assert s[a["trial"]]["state"] == "FAIL" and not s[a["trial"]]["released"]
    assert s[kept["trial"]]["state"] == "RUNNING"
    assert s[retry["trial"]]["resumed_from"] == {"trial": a["trial"], "step": 0}
    assert s[retry["trial"]]["intermediate"] == {"0": 0.25}
    # a new checkpoint of the retry leaves the one it resumed from to the failed trial
    put_checkpoint(c, retry, b"epoch 1", 1)
    trials = {t[0]: t for t in snapshot(study)[0]}
    assert trials[a["trial"]][6][CHECKPOINT]["artifact"] in snapshot(study)[1]


def test_a_closing_page_releases_its_trial_at_once(api):
    study, c = api(grace_period=600)
    a = lease(c)
    assert c.post(f"/api/trials/{a['trial']}/release", json={"token": a["token"]}).json()["requeued"]
    retry = lease(c)
    assert retry["retry_of"] == a["trial"] and retry["params"] == a["params"]
    assert c.get("/api/study").json()["trials"][a["trial"]]["released"]


def test_a_restarted_server_honours_the_tokens_it_gave(storage, tmp_path):
    first = make_study(storage, tmp_path)
    a = first.lease("w")
    first.report(a["trial"], a["token"], 0, 0.5)
    first.put_checkpoint(a["trial"], a["token"], b"c", 0)
    first.storage.engine.dispose()
    spec = first.spec
    second = VolunteerStudy(spec, storage, first.artifacts)  # a new process would do the same
    assert second.get_checkpoint(a["trial"], a["token"]) == (b"c", 0)
    assert second.tell(a["trial"], a["token"], "complete", 0.75)["state"] == "COMPLETE"
    assert second.summary()["finished"] == 1


def test_objectives_that_keep_failing_stop_the_leases(api):
    study, c = api(max_failures=2, n_trials=10)
    for _ in range(2):
        a = lease(c)
        r = c.post(f"/api/trials/{a['trial']}/tell", json={"token": a["token"], "state": "fail", "error": "boom"})
        assert r.json()["state"] == "FAIL"
    end = lease(c)
    assert end["status"] == "done" and "failed" in end["reason"]
    assert c.get("/api/study").json()["trials"][0]["error"] == "boom"


def test_a_grid_finishes_without_duplicates_when_a_trial_is_retried(storage, tmp_path):
    grid = {"lr": [0.01, 0.1], "hidden": [16, 32], "batch_size": [32], "weight_decay": [1e-4]}
    study = make_study(storage, tmp_path, n_trials=4, sampler=optuna.samplers.GridSampler(grid, seed=0))
    first = study.lease("w")
    study.release(first["trial"], first["token"])
    seen = []
    while (a := study.lease("w"))["status"] == "trial":
        seen.append(tuple(a["params"].values()))
        study.tell(a["trial"], a["token"], "complete", 0.5)
    assert sorted(seen) == sorted((lr, h, 32, 1e-4) for lr in grid["lr"] for h in grid["hidden"])


# -- the worker's side, in CPython ---------------------------------------------------------------


def test_the_digits_objective_runs_in_a_native_worker(tmp_path):
    """python -m webarray.volunteer work: the example objective, its checkpoints and its
    reports through the same endpoints a page uses."""
    path = write_study(tmp_path, name="native", n_trials=2, settings={"epochs": 2, "train_size": 96, "val_size": 64},
                       sampler="RandomSampler(seed=3)")
    spec = spec_module.load(path)
    study = VolunteerStudy(spec, f"sqlite:///{tmp_path / 'n.db'}", tmp_path / "ck")
    with serving(create_app(study)) as url, contextlib.chdir(tmp_path):
        ends = worker.work(url, "native", folder=str(tmp_path / "files"))
    assert [e["state"] for e in ends] == ["COMPLETE", "COMPLETE"]
    for t in study.study.get_trials():
        assert sorted(t.intermediate_values) == [0, 1] and t.value == t.intermediate_values[1]
        assert 0 <= t.value <= 1 and t.user_attrs == {"start_epoch": 0}
        assert t.system_attrs[CHECKPOINT]["step"] == 1 and t.system_attrs[RESUMED] is None


class StopAfterEpoch1(Exception):
    pass


class InterruptedTrial(worker.Trial):
    """A trial whose browser goes away once epoch 1 is checkpointed and reported."""

    def report(self, value, step):
        super().report(value, step)
        if step == 1:
            raise StopAfterEpoch1


def test_the_objective_resumes_from_a_checkpoint(tmp_path):
    """A re-queued trial continues after the checkpoint's epoch with its weights: the
    resumed run reports exactly what an uninterrupted one does."""
    grid = {"lr": [0.3], "hidden": [32], "batch_size": [32], "weight_decay": [1e-4]}
    path = write_study(tmp_path, name="resume", n_trials=1, settings={"epochs": 3, "train_size": 256, "val_size": 128},
                       sampler=f"GridSampler({grid!r})")
    objective = worker.load_objective(str(EXAMPLE / "digits_mlp.py"))
    runs = {}
    for label in ("whole", "interrupted"):
        study = VolunteerStudy(spec_module.load(path), f"sqlite:///{tmp_path / label}.db", tmp_path / f"{label}-ck")
        with serving(create_app(study)) as url, contextlib.chdir(EXAMPLE):
            client = worker.Client(url)
            a = client.post("/api/lease", {"worker": label})
            if label == "interrupted":
                with pytest.raises(StopAfterEpoch1):
                    objective(InterruptedTrial(a, client))
                client.post(f"/api/trials/{a['trial']}/release", {"token": a["token"]})
                a = client.post("/api/lease", {"worker": label})
                assert a["retry_of"] == 0 and a["checkpoint_step"] == 1
            worker.run_trial(a, objective, client)
        t = study.study.get_trials()[-1]
        runs[label] = (t.state, t.intermediate_values, t.user_attrs["start_epoch"])
    assert runs["whole"][0] == runs["interrupted"][0] == TrialState.COMPLETE
    assert runs["interrupted"][2] == 2 and runs["whole"][2] == 0
    assert runs["interrupted"][1] == pytest.approx(runs["whole"][1], abs=1e-6)
    assert runs["whole"][1][2] > 0.5  # it learnt something worth resuming


def test_an_objective_error_is_told_as_fail(api):
    study, c = api()
    a = lease(c)
    client = worker.Client(str(c.base_url))

    def broken(trial):
        trial.report(0.5, 0)
        raise ZeroDivisionError("in epoch 1")

    end = worker.run_trial(a, broken, client)
    assert end["state"] == "FAIL" and "ZeroDivisionError: in epoch 1" in end["error"]
    told = c.post(f"/api/trials/{a['trial']}/heartbeat", json={"token": a["token"]})
    assert told.status_code == 409 and told.json()["requeued"] is False  # its worker told it
    t = c.get("/api/study").json()["trials"][a["trial"]]
    assert t["state"] == "FAIL" and "ZeroDivisionError" in t["error"]
    # a trial that was re-queued meanwhile is abandoned, not told
    b = lease(c)
    c.post(f"/api/trials/{b['trial']}/release", json={"token": b["token"]})
    assert worker.run_trial(b, lambda trial: 1.0, client)["state"] == "abandoned"


def test_suggest_checks_the_study_search_space(api):
    _, c = api()
    trial = worker.Trial(lease(c), worker.Client(str(c.base_url)))
    assert trial.suggest_float("lr", 1e-3, 1.0, log=True) == trial.params["lr"]
    assert trial.suggest_int("hidden", 16, 128, log=True) == trial.params["hidden"]
    assert trial.suggest_categorical("batch_size", [16, 32, 64, 128]) == trial.params["batch_size"]
    with pytest.raises(ValueError, match="declares FloatDistribution"):
        trial.suggest_float("lr", 1e-3, 1.0)
    with pytest.raises(KeyError, match="momentum"):
        trial.suggest_float("momentum", 0.0, 1.0)
    with pytest.raises(ValueError, match="must be finite"):
        trial.report(math.nan, 0)


def test_a_worker_waits_through_a_server_restart(tmp_path):
    """A request that meets no server is retried until one answers again."""
    study = make_study(f"sqlite:///{tmp_path / 's.db'}", tmp_path)
    port = free_port()
    app = create_app(study)

    def restart_later():
        time.sleep(1.5)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        return server

    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(restart_later)
        t0 = time.monotonic()
        got = worker.Client(f"http://127.0.0.1:{port}", retry_s=30).post("/api/lease", {"worker": "w"})
        assert got["status"] == "trial" and time.monotonic() - t0 >= 1.5
        pending.result().should_exit = True
    with pytest.raises(ConnectionError, match="no answer"):
        worker.Client(f"http://127.0.0.1:{free_port()}", retry_s=0.5).post("/api/lease", {"worker": "w"})


# -- checkpoints, certificates, study files, pages -----------------------------------------------

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32"]


@settings(max_examples=25)
@given(st.data())
def test_checkpoint_round_trip(data):
    arrays, originals = {}, {}
    for i in range(data.draw(st.integers(0, 4))):
        dtype = data.draw(st.sampled_from(DTYPES))
        shape = tuple(data.draw(st.lists(st.integers(0, 5), max_size=3)))
        info = np.iinfo(dtype) if dtype not in ("bool", "float32") else None
        if dtype == "bool":
            elements = st.booleans()
        elif dtype == "float32":
            elements = st.floats(width=32, allow_nan=False)
        else:
            elements = st.integers(int(info.min), int(info.max))
        values = np.array(data.draw(st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape))),
                          dtype=dtype).reshape(shape)
        originals[f"a{i}"] = values
        arrays[f"a{i}"] = xp.asarray(values)
    meta = {"step": data.draw(st.integers(0, 100)), "note": "ü"}
    back, meta_back = checkpoint.loads(checkpoint.dumps(arrays, meta))
    assert meta_back == meta and set(back) == set(originals)
    for k, v in originals.items():
        assert back[k].dtype == arrays[k].dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(np.asarray(back[k]), v)


def test_checkpoint_rejects_what_it_cannot_hold():
    with pytest.raises(TypeError, match="complex64"):
        checkpoint.dumps({"z": xp.ones(2, dtype=xp.complex64)})
    with pytest.raises(TypeError, match="webarray array"):
        checkpoint.dumps({"l": [1.0]})
    with pytest.raises(TypeError, match="plain JSON"):
        checkpoint.dumps({}, {"x": object()})
    good = checkpoint.dumps({"a": xp.ones(3)})
    with pytest.raises(ValueError, match="magic"):
        checkpoint.loads(b"junk" + good)
    with pytest.raises(ValueError, match="damaged"):
        checkpoint.loads(good[:-4])


def test_self_signed_certificate_serves_https(tmp_path, storage):
    cert, key = tls.self_signed(tmp_path / "tls", ["localhost", "127.0.0.1", "volunteer.example"])
    names = x509.load_pem_x509_certificate(cert.read_bytes()).extensions.get_extension_for_class(
        x509.SubjectAlternativeName).value
    assert set(names.get_values_for_type(x509.DNSName)) == {"localhost", "volunteer.example"}
    assert [str(a) for a in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert (key.stat().st_mode & 0o777) == 0o600
    made = cert.read_bytes()
    assert tls.self_signed(tmp_path / "tls", ["localhost"]) == (cert, key)
    assert cert.read_bytes() == made  # kept: it names localhost and is far from expiry
    study = make_study(storage, tmp_path)
    with serving(create_app(study), ssl_certfile=str(cert), ssl_keyfile=str(key)) as url:
        trusted = ssl.create_default_context(cafile=str(cert))
        r = httpx.get(url + "/api/config", verify=trusted)
        assert r.status_code == 200 and r.headers["cross-origin-opener-policy"] == "same-origin"
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "/api/config")  # not signed by an authority the client trusts


def test_the_chainer_study_file_names_what_it_needs(tmp_path, monkeypatch):
    monkeypatch.delenv("CHAINER_WHEELS", raising=False)
    with pytest.raises(FileNotFoundError, match="CHAINER_WHEELS"):
        spec_module.load(EXAMPLE / "chainer_cnn_study.py")
    (tmp_path / "chainer-7.8.1-py3-none-any.whl").write_bytes(b"PK")
    (tmp_path / "filelock-3.0-py3-none-any.whl").write_bytes(b"PK")
    monkeypatch.setenv("CHAINER_WHEELS", str(tmp_path))
    spec = spec_module.load(EXAMPLE / "chainer_cnn_study.py")
    assert spec.pyodide_packages == ["numpy"] and [p.name for p in spec.wheels] == [
        "chainer-7.8.1-py3-none-any.whl", "filelock-3.0-py3-none-any.whl"]
    assert spec.objective == EXAMPLE / "chainer_cnn.py"


def test_study_files_are_checked():
    good = dict(name="s", objective="digits_mlp.py", search_space=SPACE, n_trials=3)
    StudySpec(**good).resolve(EXAMPLE)
    for bad, error in [
        ({"name": "a b"}, ValueError), ({"n_trials": 0}, ValueError), ({"direction": "up"}, ValueError),
        ({"search_space": {}}, ValueError), ({"search_space": {"lr": (0, 1)}}, TypeError),
        ({"heartbeat_interval": 0}, ValueError), ({"heartbeat_interval": 5, "grace_period": 5}, ValueError),
        ({"settings": {"x": math.nan}}, TypeError),
    ]:
        with pytest.raises(error):
            StudySpec(**{**good, **bad})
    with pytest.raises(FileNotFoundError, match="nope.py"):
        StudySpec(**{**good, "objective": "nope.py"}).resolve(EXAMPLE)
    spec = spec_module.load(EXAMPLE / "digits_study.py")
    assert spec.objective == EXAMPLE / "digits_mlp.py" and spec.source == EXAMPLE / "digits_study.py"
    grid = spec_module.load(EXAMPLE / "digits_grid_study.py")
    assert isinstance(grid.sampler, optuna.samplers.GridSampler) and grid.n_trials == 24


def test_the_pages_and_their_files_are_served_isolated(tmp_path, storage):
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "index.js").write_text("export {}")
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "pyodide.asm.wasm").write_bytes(b"\0asm")
    wheel = tmp_path / "webarray-0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    study = make_study(storage, tmp_path)
    with serving(create_app(study, Assets(tmp_path / "js", tmp_path / "py", [wheel]))) as url:
        with httpx.Client(base_url=url) as c:
            for path, kind in [("/", "text/html"), ("/dashboard", "text/html"), ("/static/worker.js", "javascript"),
                               ("/webarray/index.js", "javascript"), ("/pyodide/pyodide.asm.wasm", "application/wasm"),
                               (f"/wheels/{wheel.name}", "application/zip"), ("/study/digits.bin", "")]:
                r = c.get(path)
                assert r.status_code == 200 and kind in r.headers["content-type"], (path, r.headers)
                assert r.headers["cross-origin-embedder-policy"] == "require-corp"
            cfg = c.get("/api/config").json()
            assert cfg["wheels"] == [f"/wheels/{wheel.name}"] and cfg["objective"] == "digits_mlp.py"
            assert {f["path"] for f in cfg["files"]} == {"digits_mlp.py", "digits.bin"}
            for path in ("/webarray/../../etc/passwd", "/pyodide/missing.js", "/study/../digits.bin"):
                assert c.get(path).status_code == 404, path
    assert json.loads(json.dumps(cfg)) == cfg
