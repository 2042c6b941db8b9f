"""The study behind the HTTP endpoints: leases, heartbeats, reports, tells and checkpoints,
all of it kept by Optuna in its relational storage, so that a restarted server (or a
second one on the same database) carries on where the first stopped.

Optuna does the bookkeeping: ``study.ask`` leases (and pops the re-queued trials first),
``fail_stale_trials`` with ``RetryHeartbeatStaleTrialCallback`` turns a trial whose browser
went silent into a WAITING copy with the same parameters and intermediate values,
``pruner.prune`` answers a report, ``study.tell`` takes the trial number. What this module
adds is what a browser worker needs and Optuna has no notion of:

- a per-trial token, drawn at lease and stored only as a hash (bound to the trial's number,
  so the copy a retry makes of the attributes is no key to the retry), so that a page can
  touch no trial but its own;
- checkpoints in an Optuna artifact store, the latest per trial referenced from a system
  attribute that the retry callback copies into the re-queued trial: the next worker gets
  the parameters *and* the last checkpoint;
- the rule that keeps the study at ``n_trials`` finished trials: a lease is refused while
  the finished and running trials already make up that number (a running one may still
  fail and come back as WAITING, so the answer is "wait", not "done").

Every method validates completely before it writes, so a rejected request (ApiError)
changes nothing. One lock serialises the writes of this process: leases must not
overshoot ``n_trials``, and a tell must not race the stale-trial check.
"""

from __future__ import annotations

import collections
import datetime
import hashlib
import hmac
import io
import json
import logging
import math
import secrets
import threading
import uuid
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.artifacts import FileSystemArtifactStore
from optuna.distributions import distribution_to_json
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback, fail_stale_trials
from optuna.trial import FrozenTrial, TrialState

from .spec import StudySpec

log = logging.getLogger("webarray.volunteer")
# Optuna marks the heartbeat API experimental, and warns that heartbeats are meant for
# Study.optimize: this module is the ask-and-tell use they allow, so each lease needn't say so
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning, module=r"optuna|webarray")
warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used with Study.optimize")

# system attributes of a trial (prefixed: Optuna and its samplers keep their own there)
LEASE = "volunteer:lease"  # {"token": hash, "worker": name, "at": iso time, "released": bool}
CHECKPOINT = "volunteer:checkpoint"  # {"artifact", "trial", "step", "bytes", "sha256"}
RESUMED = "volunteer:resumed_from"  # {"trial", "step"}: the checkpoint this attempt loaded
ERROR = "volunteer:error"  # the objective's traceback, for a trial its worker told FAIL
RETRY_OF = "failed_trial"  # set by RetryHeartbeatStaleTrialCallback

USER_ATTRS_LIMIT = 16 << 10  # bytes of JSON a tell may attach as user attributes
ERROR_LIMIT = 8000  # characters of a traceback kept


class ApiError(Exception):
    """A rejected request: the HTTP status and what was wrong. Nothing was changed."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra  # more fields of the JSON answer


def _token_hash(number: int, token: str) -> str:
    return hashlib.sha256(f"{number}:{token}".encode()).hexdigest()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class VolunteerStudy:
    """An Optuna study on ``storage_url`` (SQLite or PostgreSQL, any SQLAlchemy URL) with
    the endpoints' operations. Checkpoints go to ``artifacts`` (a folder)."""

    def __init__(self, spec: StudySpec, storage_url: str, artifacts: str | Path):
        self.spec = spec
        self.retry = RetryHeartbeatStaleTrialCallback(
            max_retry=spec.max_retry, inherit_intermediate_values=True
        )
        engine_kwargs: dict[str, Any] = {}
        if storage_url.startswith("sqlite"):
            # a dashboard reading the same file must not make a write fail at once
            engine_kwargs["connect_args"] = {"timeout": 30}
        self.storage = RDBStorage(
            storage_url,
            engine_kwargs=engine_kwargs,
            heartbeat_interval=spec.heartbeat_interval,
            grace_period=spec.grace_period,
            heartbeat_stale_trial_callback=self.retry,
        )
        self.study = optuna.create_study(
            study_name=spec.name,
            storage=self.storage,
            sampler=spec.sampler,
            pruner=spec.pruner,
            direction=spec.direction,
            load_if_exists=True,
        )
        if self.study.direction.name.lower() != spec.direction:
            raise ValueError(
                f"study {spec.name!r} in this storage was created to {self.study.direction.name.lower()}, "
                f"the study file says {spec.direction}: give the study another name"
            )
        self.study_id = self.storage.get_study_id_from_name(spec.name)
        self.artifacts = Path(artifacts)
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.store = FileSystemArtifactStore(self.artifacts)
        self._lock = threading.Lock()

    # -- the trial a request names ------------------------------------------------------------

    def _trial(self, number: int, token: str) -> tuple[int, FrozenTrial]:
        """The trial's storage id and state, if the token is the one its lease handed out."""
        try:
            trial_id = self.storage.get_trial_id_from_study_id_trial_number(self.study_id, number)
        except KeyError:
            raise ApiError(404, f"study {self.spec.name!r} has no trial {number}") from None
        trial = self.storage.get_trial(trial_id)
        lease = trial.system_attrs.get(LEASE) or {}
        if not hmac.compare_digest(lease.get("token", ""), _token_hash(number, token)):
            raise ApiError(403, f"that token was not issued for trial {number}")
        return trial_id, trial

    def _running(self, number: int, token: str) -> tuple[int, FrozenTrial]:
        trial_id, trial = self._trial(number, token)
        if trial.state != TrialState.RUNNING:
            # requeued: the server failed it (silent, or released), not its worker's tell;
            # a page stops its Python run then, and only then
            raise ApiError(
                409,
                f"trial {number} is {trial.state.name}, no longer running for this worker "
                "(it finished, or it went silent and was re-queued)",
                state=trial.state.name,
                requeued=trial.state == TrialState.FAIL and ERROR not in trial.system_attrs,
            )
        return trial_id, trial

    # -- the operations ------------------------------------------------------------------------

    def lease(self, worker: str) -> dict[str, Any]:
        """A trial for a worker: {"status": "trial", ...}, or "wait" (come back after
        retry_after seconds: running trials may still fail and be re-queued) or "done"."""
        with self._lock:
            fail_stale_trials(self.study)
            trials = self.study.get_trials(deepcopy=False)
            count = collections.Counter(t.state for t in trials)
            finished = count[TrialState.COMPLETE] + count[TrialState.PRUNED]
            failures = sum(1 for t in trials if t.state == TrialState.FAIL and ERROR in t.system_attrs)
            if finished >= self.spec.n_trials:
                return {"status": "done", "reason": f"{finished} of {self.spec.n_trials} trials finished"}
            if failures >= self.spec.max_failures:
                return {"status": "done", "reason": f"{failures} trials failed in their objective; "
                        f"the study stops leasing after {self.spec.max_failures} (StudySpec.max_failures)"}
            if count[TrialState.WAITING] == 0 and finished + count[TrialState.RUNNING] >= self.spec.n_trials:
                return {"status": "wait", "retry_after": self.spec.heartbeat_interval,
                        "reason": f"the last {count[TrialState.RUNNING]} trials are running"}
            trial = self.study.ask(self.spec.search_space)
            trial_id = self.storage.get_trial_id_from_study_id_trial_number(self.study_id, trial.number)
            token = secrets.token_urlsafe(24)
            self.storage.set_trial_system_attr(trial_id, LEASE, {
                "token": _token_hash(trial.number, token), "worker": worker, "at": _now(), "released": False,
            })
            self.storage.set_trial_system_attr(trial_id, RESUMED, None)
            self.storage.record_heartbeat(trial_id)
            frozen = self.storage.get_trial(trial_id)
        checkpoint = frozen.system_attrs.get(CHECKPOINT)
        log.info("trial %d leased to %r: %s", trial.number, worker, frozen.params)
        return {
            "status": "trial",
            "trial": trial.number,
            "token": token,
            "params": frozen.params,
            "distributions": {k: json.loads(distribution_to_json(d)) for k, d in frozen.distributions.items()},
            "retry_of": frozen.system_attrs.get(RETRY_OF),
            "checkpoint_step": checkpoint["step"] if checkpoint else None,
            "reported_steps": sorted(frozen.intermediate_values),
            "settings": self.spec.settings,
            "heartbeat_interval": self.spec.heartbeat_interval,
        }

    def heartbeat(self, number: int, token: str) -> dict[str, Any]:
        with self._lock:
            trial_id, trial = self._running(number, token)
            self.storage.record_heartbeat(trial_id)
        steps = trial.intermediate_values
        last = max(steps) if steps else None
        return {"running": True, "step": last, "value": steps[last] if steps else None}

    def report(self, number: int, token: str, step: int, value: float) -> dict[str, Any]:
        """trial.report and should_prune. A step reported before (by this attempt, or by the
        attempt a retry inherited it from) is ignored, as Optuna's Trial.report does."""
        if not math.isfinite(value):
            raise ApiError(422, f"an intermediate value must be finite, got {value}")
        with self._lock:
            trial_id, trial = self._running(number, token)
            ignored = step in trial.intermediate_values
            if not ignored:
                self.storage.set_trial_intermediate_value(trial_id, step, value)
                trial = self.storage.get_trial(trial_id)
            prune = bool(self.study.pruner.prune(self.study, trial))
        return {"should_prune": prune, "ignored": ignored}

    def tell(self, number: int, token: str, state: str, value: float | None = None,
             user_attrs: dict[str, Any] | None = None, error: str | None = None) -> dict[str, Any]:
        user_attrs = user_attrs or {}
        if state == "complete":
            if value is None or not math.isfinite(value):
                raise ApiError(422, f"a complete trial needs a finite value, got {value}")
        elif state in ("pruned", "fail"):
            if value is not None:
                raise ApiError(422, f"a {state} trial takes no value (got {value})")
        else:
            raise ApiError(422, f"state must be 'complete', 'pruned' or 'fail', got {state!r}")
        if error is not None and state != "fail":
            raise ApiError(422, "only a failed trial carries an error")
        try:
            size = len(json.dumps(user_attrs, allow_nan=False))
        except (TypeError, ValueError) as e:
            raise ApiError(422, f"user_attrs must be plain JSON: {e}") from None
        if size > USER_ATTRS_LIMIT:
            raise ApiError(413, f"user_attrs take {size} bytes as JSON; at most {USER_ATTRS_LIMIT}")
        with self._lock:
            trial_id, _ = self._running(number, token)
            for k, v in user_attrs.items():
                self.storage.set_trial_user_attr(trial_id, k, v)
            if state == "fail":
                self.storage.set_trial_system_attr(trial_id, ERROR, (error or "no error given")[-ERROR_LIMIT:])
            states = {"complete": TrialState.COMPLETE, "pruned": TrialState.PRUNED, "fail": TrialState.FAIL}
            try:
                frozen = self.study.tell(number, value, states[state])
            except RuntimeError as e:
                # GridSampler.after_trial calls study.stop() once the grid is used up, which
                # Optuna allows only inside optimize(); the state is stored before that
                # (tell's finally), and the lease rule ends the study at n_trials anyway
                if "Study.stop" not in str(e):
                    raise
                frozen = self.storage.get_trial(trial_id)
        log.info("trial %d told %s (value %s)", number, frozen.state.name, frozen.value)
        return {"state": frozen.state.name, "value": frozen.value}

    def release(self, number: int, token: str) -> dict[str, Any]:
        """The page is closing mid-trial: fail the trial and re-queue it now, as the
        heartbeat check would after the grace period."""
        with self._lock:
            trial_id, trial = self._running(number, token)
            self.storage.set_trial_system_attr(trial_id, LEASE, {**trial.system_attrs[LEASE], "released": True})
            self.storage.set_trial_state_values(trial_id, TrialState.FAIL)
            self.retry(self.study, self.storage.get_trial(trial_id))
        log.info("trial %d released by its worker; re-queued", number)
        return {"state": "FAIL", "requeued": True}

    def put_checkpoint(self, number: int, token: str, data: bytes, step: int | None) -> dict[str, Any]:
        if len(data) > self.spec.checkpoint_limit:
            raise ApiError(413, f"a checkpoint of {len(data)} bytes is over the study's limit of "
                           f"{self.spec.checkpoint_limit} (StudySpec.checkpoint_limit)")
        if step is not None and step < 0:
            raise ApiError(422, f"a checkpoint's step must be >= 0, got {step}")
        with self._lock:
            trial_id, trial = self._running(number, token)
            # a fresh artifact each time: a write cut short never replaces the last good one
            artifact = f"{self.spec.name}-{number}-{uuid.uuid4().hex}"
            self.store.write(artifact, io.BytesIO(data))
            old = trial.system_attrs.get(CHECKPOINT)
            self.storage.set_trial_system_attr(trial_id, CHECKPOINT, {
                "artifact": artifact, "trial": number, "step": step, "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            })
            if old and old["trial"] == number:  # the trial's own previous one (not a retry's source)
                self._remove(old["artifact"])
        return {"bytes": len(data), "step": step}

    def get_checkpoint(self, number: int, token: str) -> tuple[bytes, int | None]:
        """The latest checkpoint of this trial or of the attempt it retries."""
        with self._lock:
            trial_id, trial = self._running(number, token)
            ck = trial.system_attrs.get(CHECKPOINT)
            if ck is None:
                raise ApiError(404, f"trial {number} has no checkpoint")
            try:
                with self.store.open_reader(ck["artifact"]) as f:
                    data = f.read()
            except optuna.artifacts.exceptions.ArtifactNotFound:
                raise ApiError(404, f"the checkpoint of trial {number} is missing from the artifact store") from None
            if ck["trial"] != number:
                self.storage.set_trial_system_attr(trial_id, RESUMED, {"trial": ck["trial"], "step": ck["step"]})
        return data, ck["step"]

    def _remove(self, artifact: str) -> None:
        try:
            self.store.remove(artifact)
        except optuna.artifacts.exceptions.ArtifactNotFound:
            pass

    # -- what the dashboard and the page show ---------------------------------------------------

    def summary(self) -> dict[str, Any]:
        trials = self.study.get_trials(deepcopy=False)
        count = collections.Counter(t.state.name for t in trials)
        rows = []
        for t in trials:
            lease = t.system_attrs.get(LEASE) or {}
            ck = t.system_attrs.get(CHECKPOINT)
            rows.append({
                "number": t.number,
                "state": t.state.name,
                "params": t.params,
                "value": t.value,
                "intermediate": {str(k): v for k, v in sorted(t.intermediate_values.items())},
                "worker": lease.get("worker"),
                "released": lease.get("released", False),
                "retry_of": t.system_attrs.get(RETRY_OF),
                "resumed_from": t.system_attrs.get(RESUMED),
                "checkpoint": {"trial": ck["trial"], "step": ck["step"], "bytes": ck["bytes"]} if ck else None,
                "error": t.system_attrs.get(ERROR),
                "user_attrs": t.user_attrs,
                "start": t.datetime_start.isoformat() if t.datetime_start else None,
                "complete": t.datetime_complete.isoformat() if t.datetime_complete else None,
            })
        best = None
        if count["COMPLETE"]:
            b = self.study.best_trial
            best = {"number": b.number, "value": b.value, "params": b.params}
        return {
            "study": self.spec.name,
            "direction": self.spec.direction,
            "n_trials": self.spec.n_trials,
            "counts": dict(count),
            "finished": count["COMPLETE"] + count["PRUNED"],
            "best": best,
            "trials": rows,
        }
