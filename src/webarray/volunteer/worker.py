"""The worker's side of a trial: what an objective sees (``Trial``) and the loop that runs
one leased trial and tells its end (``run_trial``). It runs in Pyodide in the page's
Python worker, and in CPython (``python -m webarray.volunteer work URL``, the tests).

Requests are synchronous: in Pyodide a synchronous XMLHttpRequest, which a Web Worker may
make, so that ``trial.report`` can answer ``should_prune`` in the middle of a training
loop without an event loop. Heartbeats are not sent from here (a long GPU step would
starve them): the page's main thread sends them, and the CPython worker a thread.

A request that meets no server (a restart, a dropped connection) is retried with backoff
for ``retry_s``; a 4xx is final and raised as ``ApiError``. A 409 (the trial is no longer
this worker's: it went silent too long and was re-queued) ends the trial as *abandoned*:
nothing is told, the next worker has it.
"""

from __future__ import annotations

import json
import math
import os
import runpy
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from typing import Any, Callable, Mapping

from . import checkpoint

IN_BROWSER = sys.platform == "emscripten"
PROGRESS = "[volunteer] "  # prefix of the progress lines the page reads from stdout
_RETRY_STATUSES = {0, 502, 503, 504}


class TrialPruned(Exception):
    """Raise it from the objective when ``trial.should_prune()`` says so."""


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class TrialAbandoned(Exception):
    """The server no longer holds the trial for this worker (HTTP 409)."""


def _sleep(seconds: float) -> None:
    if IN_BROWSER:
        # time.sleep spins in Pyodide; Atomics.wait blocks the worker without burning a core
        from js import Atomics, Int32Array, SharedArrayBuffer  # only in Pyodide

        Atomics.wait(Int32Array.new(SharedArrayBuffer.new(4)), 0, 0, seconds * 1000)
    else:
        time.sleep(seconds)


def _send(method: str, url: str, body: bytes | None, headers: dict[str, str],
          timeout: float) -> tuple[int, bytes]:
    """One request: (status, body); status 0 when no server answered."""
    if IN_BROWSER:
        from js import XMLHttpRequest  # only in Pyodide
        from pyodide.ffi import JsException, to_js

        xhr = XMLHttpRequest.new()
        xhr.open(method, url, False)
        xhr.responseType = "arraybuffer"
        xhr.timeout = int(timeout * 1000)
        for k, v in headers.items():
            xhr.setRequestHeader(k, v)
        try:
            xhr.send(to_js(body) if body is not None else None)
        except JsException:
            return 0, b""
        return int(xhr.status), (xhr.response.to_bytes() if xhr.response else b"")
    req = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


class Client:
    """Requests to the volunteer server at ``base`` (its origin, e.g. http://127.0.0.1:8000)."""

    def __init__(self, base: str, *, retry_s: float = 120.0, timeout: float = 60.0):
        self.base = base.rstrip("/")
        self.retry_s = retry_s
        self.timeout = timeout

    def request(self, method: str, path: str, *, body: bytes | None = None,
                headers: Mapping[str, str] | None = None) -> bytes:
        headers = dict(headers or {})
        deadline = time.monotonic() + self.retry_s
        delay = 0.25
        while True:
            status, data = _send(method, self.base + path, body, headers, self.timeout)
            if status not in _RETRY_STATUSES or time.monotonic() + delay > deadline:
                break
            _sleep(delay)
            delay = min(delay * 2, 5.0)
        if status == 0:
            raise ConnectionError(f"no answer from {self.base} for {self.retry_s:g} s ({method} {path})")
        if status >= 400:
            try:
                detail = json.loads(data)["detail"]
            except (ValueError, KeyError, TypeError):
                detail = data[:500].decode(errors="replace")
            if status == 409:
                raise TrialAbandoned(str(detail))
            raise ApiError(status, str(detail))
        return data

    def post(self, path: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        body = json.dumps(payload, allow_nan=False).encode()
        return json.loads(self.request("POST", path, body=body, headers={"Content-Type": "application/json"}))


def _describe(d: Mapping[str, Any]) -> str:
    attrs = ", ".join(f"{k}={v!r}" for k, v in sorted(d["attributes"].items()))
    return f"{d['name']}({attrs})"


class Trial:
    """A leased trial, for the objective: its parameters (``params``, or the suggest_*
    calls of an Optuna objective, which return the leased values and check that they ask
    for the study's distribution), ``report``/``should_prune``, checkpoints, user
    attributes, and ``settings`` (the study file's JSON for the objective)."""

    def __init__(self, lease: Mapping[str, Any], client: Client):
        self.number: int = lease["trial"]
        self.params: dict[str, Any] = dict(lease["params"])
        self.settings: dict[str, Any] = dict(lease.get("settings") or {})
        self.retry_of: int | None = lease.get("retry_of")
        self.checkpoint_step: int | None = lease.get("checkpoint_step")
        self._distributions = lease["distributions"]
        self._token = lease["token"]
        self._client = client
        self._prune = False
        self.user_attrs: dict[str, Any] = {}

    def _path(self, what: str) -> str:
        return f"/api/trials/{self.number}/{what}"

    # -- parameters ---------------------------------------------------------------------------

    def _suggest(self, name: str, kind: str, attributes: dict[str, Any]) -> Any:
        d = self._distributions.get(name)
        if d is None:
            raise KeyError(f"{name!r} is not in the study's search space ({', '.join(self.params)})")
        if d["name"] != kind or any(d["attributes"].get(k) != v for k, v in attributes.items()):
            asked = _describe({"name": kind, "attributes": attributes})
            raise ValueError(f"the objective asks for {name!r} as {asked}; the study file "
                             f"declares {_describe(d)}")
        return self.params[name]

    def suggest_float(self, name: str, low: float, high: float, *, step: float | None = None,
                      log: bool = False) -> float:
        return self._suggest(name, "FloatDistribution",
                             {"low": low, "high": high, "step": step, "log": log})

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1, log: bool = False) -> int:
        return self._suggest(name, "IntDistribution", {"low": low, "high": high, "step": step, "log": log})

    def suggest_categorical(self, name: str, choices) -> Any:
        return self._suggest(name, "CategoricalDistribution", {"choices": list(choices)})

    # -- progress -----------------------------------------------------------------------------

    def report(self, value: float, step: int) -> None:
        """Optuna's Trial.report; the server's pruner answers should_prune at once."""
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"trial.report: the value at step {step} is {value}; intermediate values must be finite")
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"trial.report: step must be an int >= 0, got {step!r}")
        r = self._client.post(self._path("report"), {"token": self._token, "step": step, "value": value})
        self._prune = r["should_prune"]
        print(PROGRESS + json.dumps({"trial": self.number, "step": step, "value": value,
                                     "prune": self._prune}), flush=True)

    def should_prune(self) -> bool:
        return self._prune

    def set_user_attr(self, key: str, value: Any) -> None:
        """Kept here and stored with the trial's end (plain JSON)."""
        self.user_attrs[key] = value

    # -- checkpoints --------------------------------------------------------------------------

    def save_checkpoint(self, arrays: Mapping[str, Any], *, step: int | None = None, **meta: Any) -> None:
        """Uploads the arrays (name -> webarray array) and ``meta`` (plain JSON) as this
        trial's latest checkpoint; ``step`` is the last step they include."""
        data = checkpoint.dumps(arrays, {"step": step, **meta})
        headers = {"Content-Type": "application/octet-stream", "X-Trial-Token": self._token}
        if step is not None:
            headers["X-Checkpoint-Step"] = str(step)
        self._client.request("PUT", self._path("checkpoint"), body=data, headers=headers)

    def load_checkpoint(self, *, device=None) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(arrays, meta) of the last checkpoint of this trial, or of the attempt it
        resumes (a re-queued trial); None if there is none."""
        if self.checkpoint_step is None and self.retry_of is None:
            return None
        try:
            data = self._client.request("GET", self._path("checkpoint"), headers={"X-Trial-Token": self._token})
        except ApiError as e:
            if e.status == 404:
                return None
            raise
        return checkpoint.loads(data, device=device)


def load_objective(path: str) -> Callable[[Trial], float]:
    objective = runpy.run_path(path, run_name="volunteer_objective").get("objective")
    if not callable(objective):
        raise TypeError(f"{path} must define objective(trial)")
    return objective


def run_trial(lease: Mapping[str, Any], objective: Callable[[Trial], float], client: Client) -> dict[str, Any]:
    """Runs the objective on a leased trial and tells the server how it ended. Returns
    {"state": "COMPLETE" | "PRUNED" | "FAIL" | "abandoned", "value": ..., ...}."""
    trial = Trial(lease, client)
    error = None
    try:
        value = objective(trial)
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"the objective returned {value}")
        end: dict[str, Any] = {"state": "complete", "value": value}
    except TrialPruned:
        end = {"state": "pruned"}
    except (TrialAbandoned, KeyboardInterrupt) as e:
        # KeyboardInterrupt: the page interrupted us, its heartbeat learnt the trial is gone
        return {"state": "abandoned", "trial": trial.number, "reason": str(e) or type(e).__name__}
    except Exception:
        error = traceback.format_exc()
        print(error, file=sys.stderr, flush=True)
        end = {"state": "fail", "error": error}
    try:
        told = client.post(f"/api/trials/{trial.number}/tell",
                           {"token": trial._token, "user_attrs": trial.user_attrs, **end})
    except TrialAbandoned as e:
        return {"state": "abandoned", "trial": trial.number, "reason": str(e)}
    return {"trial": trial.number, **told, **({"error": error} if error else {})}


# -- in the page's Python worker: the page calls these through runPython ----------------------

_page: dict[str, Any] = {}


def page_setup(base: str, objective_path: str) -> None:
    _page["client"] = Client(base)
    _page["objective"] = load_objective(objective_path)


def page_run(lease_json: str) -> dict[str, Any]:
    return run_trial(json.loads(lease_json), _page["objective"], _page["client"])


# -- in CPython: python -m webarray.volunteer work URL ----------------------------------------

def work(base: str, name: str, *, folder: str, max_trials: int | None = None) -> list[dict[str, Any]]:
    """Works for the server at ``base`` in this process (webarray's native device) until the
    study is done or ``max_trials`` trials ran; the study's files go into ``folder``, which
    becomes the working directory. Returns each trial's end. A thread sends the heartbeats."""
    client = Client(base)
    cfg = json.loads(client.request("GET", "/api/config"))
    os.makedirs(folder, exist_ok=True)
    for f in cfg["files"]:
        with open(os.path.join(folder, f["path"]), "wb") as out:
            out.write(client.request("GET", f["url"]))
    os.chdir(folder)
    objective = load_objective(cfg["objective"])
    ends: list[dict[str, Any]] = []
    while max_trials is None or len(ends) < max_trials:
        lease = client.post("/api/lease", {"worker": name})
        if lease["status"] == "done":
            break
        if lease["status"] == "wait":
            _sleep(lease["retry_after"])
            continue
        stop = threading.Event()

        def beat(lease=lease, stop=stop):
            while not stop.wait(lease["heartbeat_interval"]):
                try:
                    client.post(f"/api/trials/{lease['trial']}/heartbeat", {"token": lease["token"]})
                except (TrialAbandoned, ApiError, ConnectionError):
                    return

        thread = threading.Thread(target=beat, daemon=True)
        thread.start()
        try:
            end = run_trial(lease, objective, client)
        finally:
            stop.set()
            thread.join()
        print(f"trial {lease['trial']} {lease['params']}: {end['state']} {end.get('value')}", flush=True)
        ends.append(end)
    return ends
