"""What a study file (``STUDY.py``) declares: the search space, the objective that runs in
the browser, the sampler and pruner, and how long a silent browser keeps its trial.

A study file is ordinary Python run on the server; it assigns ``SPEC = StudySpec(...)``.
The objective is a separate file because it runs elsewhere: its source is served to each
worker page and executed in Pyodide, where only webarray (and what ``wheels`` or
``pyodide_packages`` add) is importable. Relative paths are relative to the study file.
"""

from __future__ import annotations

import dataclasses
import json
import runpy
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import BaseDistribution

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


@dataclasses.dataclass
class StudySpec:
    """A volunteer study. ``n_trials`` counts finished trials (COMPLETE or PRUNED): failed
    ones are retried or replaced, so the study ends with exactly that many."""

    name: str
    objective: str | Path
    search_space: dict[str, BaseDistribution]
    n_trials: int
    direction: str = "maximize"
    sampler: optuna.samplers.BaseSampler | None = None  # None: TPE
    pruner: optuna.pruners.BasePruner | None = None  # None: successive halving
    files: list[str | Path] = dataclasses.field(default_factory=list)
    # JSON handed to the objective as trial.settings (epochs, data size...)
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    # seconds between a page's heartbeats, and how long a silent trial stays RUNNING
    # before it is failed and re-queued (None: 3 heartbeats)
    heartbeat_interval: int = 10
    grace_period: int | None = None
    max_retry: int | None = 3  # re-queues of one trial whose browser went away
    # workers' failed trials (exceptions in the objective) after which no new trial is
    # leased (None: n_trials): an objective that always raises must not loop forever
    max_failures: int | None = None
    checkpoint_limit: int = 32 << 20  # bytes of one uploaded checkpoint
    wheels: list[str | Path] = dataclasses.field(default_factory=list)  # more pure wheels
    pyodide_packages: list[str] = dataclasses.field(default_factory=list)  # e.g. ["numpy"]
    source: Path | None = None  # the study file; set by load()

    def __post_init__(self) -> None:
        if not self.name or not set(self.name) <= _NAME_CHARS:
            raise ValueError(f"StudySpec.name must be letters, digits, '-', '_' or '.', got {self.name!r}")
        if not isinstance(self.n_trials, int) or self.n_trials < 1:
            raise ValueError(f"StudySpec.n_trials must be a positive int, got {self.n_trials!r}")
        if self.direction not in ("maximize", "minimize"):
            raise ValueError(f"StudySpec.direction must be 'maximize' or 'minimize', got {self.direction!r}")
        if not self.search_space:
            raise ValueError("StudySpec.search_space is empty; give each parameter an Optuna distribution")
        for k, d in self.search_space.items():
            if not isinstance(d, BaseDistribution):
                raise TypeError(
                    f"StudySpec.search_space[{k!r}] must be an optuna.distributions distribution, "
                    f"got {type(d).__name__}"
                )
        if not isinstance(self.heartbeat_interval, int) or self.heartbeat_interval < 1:
            raise ValueError(
                f"StudySpec.heartbeat_interval must be a positive int (seconds), got {self.heartbeat_interval!r}"
            )
        if self.grace_period is None:
            self.grace_period = 3 * self.heartbeat_interval
        if not isinstance(self.grace_period, int) or self.grace_period <= self.heartbeat_interval:
            raise ValueError(
                f"StudySpec.grace_period must be an int above heartbeat_interval "
                f"({self.heartbeat_interval} s), got {self.grace_period!r}"
            )
        if self.max_failures is None:
            self.max_failures = self.n_trials
        try:
            json.dumps(self.settings, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"StudySpec.settings must be plain JSON: {e}") from None
        self.sampler = self.sampler or optuna.samplers.TPESampler()
        self.pruner = self.pruner or optuna.pruners.SuccessiveHalvingPruner()

    def resolve(self, base: Path) -> None:
        """Makes the paths absolute (relative to base) and checks that they exist."""
        self.objective = _existing(base, self.objective, "objective")
        self.files = [_existing(base, f, "files") for f in self.files]
        self.wheels = [_existing(base, w, "wheels") for w in self.wheels]
        names = [Path(f).name for f in self.files]
        if len(set(names)) != len(names) or Path(self.objective).name in names:
            raise ValueError(f"StudySpec: the objective and files need distinct file names, got {names}")


def _existing(base: Path, p: str | Path, what: str) -> Path:
    path = (base / p).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"StudySpec.{what}: no such file: {path}")
    return path


def load(path: str | Path) -> StudySpec:
    """The ``SPEC`` of a study file, its paths resolved."""
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no such study file: {path}")
    spec = runpy.run_path(str(path), run_name="volunteer_study").get("SPEC")
    if not isinstance(spec, StudySpec):
        raise TypeError(f"{path} must assign SPEC = StudySpec(...), got {type(spec).__name__}")
    spec.resolve(path.parent)
    spec.source = path
    return spec
