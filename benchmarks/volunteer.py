"""Trials per minute of a volunteer study with 1, 2 and 4 headless Chromium workers on this
machine (and one native CPython worker for reference).

    python -m benchmarks.volunteer                 # 1, 2, 4 pages; 12 trials each
    python -m benchmarks.volunteer --workers 1,2 --trials 6
    python -m benchmarks.volunteer --repeat 2    # 1, 2, 4, 1, 2, 4: a busy host's spread

Each run is a fresh study on SQLite, served in this process, of the digits objective
(examples/volunteer/digits_mlp.py) over the same grid: six learning rates x two widths,
batches of 32, 3 epochs on 512 images, no pruning, so every run does the same work. The
rate is finished trials over the time from the first lease to the last tell (the pages
already started: Pyodide, webarray and the first kernels); the start of the pages is
reported apart, as is this machine's load, since its cores may be shared. The table goes
to stdout, the record to ``benchmarks/results/volunteer-swiftshader.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import tempfile
import threading
import time
from pathlib import Path

import optuna
import uvicorn

from webarray.browser import assets
from webarray.volunteer import worker
from webarray.volunteer.app import Assets, create_app
from webarray.volunteer.pages import HeadlessWorkers
from webarray.volunteer.service import VolunteerStudy
from webarray.volunteer.spec import StudySpec

from . import _common as c

EXAMPLE = c.ROOT / "examples" / "volunteer"
GRID = {"lr": [0.01, 0.02, 0.05, 0.1, 0.2, 0.5], "hidden": [32, 64], "batch_size": [32], "weight_decay": [1e-4]}
SETTINGS = {"epochs": 3, "train_size": 512, "val_size": 200}


def spec(n_trials: int) -> StudySpec:
    s = StudySpec(
        name="bench",
        objective="digits_mlp.py",
        files=["digits.bin"],
        search_space={
            "lr": optuna.distributions.FloatDistribution(1e-3, 1.0, log=True),
            "hidden": optuna.distributions.IntDistribution(16, 128, log=True),
            "batch_size": optuna.distributions.CategoricalDistribution([16, 32, 64, 128]),
            "weight_decay": optuna.distributions.FloatDistribution(1e-6, 1e-2, log=True),
        },
        n_trials=n_trials,
        sampler=optuna.samplers.GridSampler(GRID, seed=0),
        pruner=optuna.pruners.NopPruner(),
        settings=SETTINGS,
        heartbeat_interval=2,
        grace_period=30,
    )
    s.resolve(EXAMPLE)
    return s


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(study: VolunteerStudy, page_assets: Assets | None):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(study, page_assets), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def rate(study: VolunteerStudy) -> dict:
    trials = study.study.get_trials()
    finished = [t for t in trials if t.state.is_finished()]
    first = min(t.datetime_start for t in trials)
    last = max(t.datetime_complete for t in finished)
    span = (last - first).total_seconds()
    per_trial = [(t.datetime_complete - t.datetime_start).total_seconds() for t in finished]
    return {"trials": len(finished), "span_s": round(span, 1), "trials_per_minute": round(60 * len(finished) / span, 2),
            "trial_s_median": round(c.median(per_trial), 2)}


def run_pages(workers: int, n_trials: int, tmp: Path, page_assets: Assets) -> dict:
    tmp.mkdir(parents=True, exist_ok=True)
    study = VolunteerStudy(spec(n_trials), f"sqlite:///{tmp / f'pages-{workers}.db'}", tmp / f"ck-{workers}")
    load = os.getloadavg()[0]
    with serving(study, page_assets) as url, HeadlessWorkers(url) as pages:
        t0 = time.monotonic()
        for i in range(workers):
            pages.open(f"w{i}")
        names = [f"w{i}" for i in range(workers)]
        first = pages.wait_for(lambda e: e["event"] == "status" and e["status"]["trial"] is not None, 300)
        startup = time.monotonic() - t0
        # this process's CPU from the first lease on: the server (and the harness's
        # reader thread), without serving Pyodide to the starting pages
        cpu0 = time.process_time()
        deadline = time.monotonic() + 1800
        while not all(pages.status.get(n, {}).get("phase", "").startswith(("done", "error")) for n in names):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{workers} pages did not finish {n_trials} trials in 30 minutes")
            time.sleep(0.5)
        backend = pages.status[names[0]]["backend"]
    assert first is not None
    server_cpu = (time.process_time() - cpu0) / n_trials
    return {"workers": workers, "kind": f"page ({backend})", "startup_s": round(startup, 1),
            "load_before": round(load, 2), "server_cpu_ms_per_trial": round(1000 * server_cpu), **rate(study)}


def run_native(n_trials: int, tmp: Path) -> dict:
    study = VolunteerStudy(spec(n_trials), f"sqlite:///{tmp / 'native.db'}", tmp / "ck-native")
    load = os.getloadavg()[0]
    with serving(study, None) as url, contextlib.chdir(tmp):
        t0 = time.monotonic()
        worker.work(url, "native", folder=str(tmp / "native-files"))
        total = time.monotonic() - t0
    return {"workers": 1, "kind": "native (CPython, wgpu)", "startup_s": None, "load_before": round(load, 2),
            "server_cpu_ms_per_trial": None, "total_s": round(total, 1), **rate(study)}


def _cell(v) -> str:
    return "-" if v is None else str(v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.volunteer", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", default="1,2,4", help="page counts to run (default 1,2,4)")
    p.add_argument("--trials", type=int, default=12, help="trials per run (default 12, the grid)")
    p.add_argument("--repeat", type=int, default=1, help="rounds of the page counts, interleaved (noisy hosts)")
    p.add_argument("--no-native", action="store_true", help="skip the native reference run")
    p.add_argument("--json", help="where the record goes (default benchmarks/results/volunteer-swiftshader.json)")
    args = p.parse_args(argv)
    root = assets.repo_root()
    page_assets = Assets(assets.js_library(root), assets.node_modules(root) / "pyodide", [assets.webarray_wheel(root)])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.repeat):
            for k in [int(x) for x in args.workers.split(",")]:
                rows.append({"round": round_, **run_pages(k, args.trials, Path(tmp) / f"r{round_}", page_assets)})
                print(rows[-1], flush=True)
        if not args.no_native:
            rows.append({"round": 0, **run_native(args.trials, Path(tmp))})
            print(rows[-1], flush=True)
    rec = c.record("volunteer", [], {}, method={
        "objective": "examples/volunteer/digits_mlp.py", "grid": GRID, "settings": SETTINGS,
        "rate": "finished trials / (last tell - first lease); the pages' start-up apart",
        "storage": "SQLite", "browser": "headless Chromium, WebGPU on SwiftShader (no GPU here)",
    }, results=rows)
    path = c.write_json(rec, args.json or c.RESULTS / "volunteer-swiftshader.json")
    print(f"{'workers':>7} {'kind':<28} {'startup s':>9} {'trials/min':>10} {'trial s':>8} {'server ms':>9} "
          f"{'load':>5}")
    for r in rows:
        print(f"{r['workers']:>7} {r['kind']:<28} {_cell(r['startup_s']):>9} {r['trials_per_minute']:>10} "
              f"{r['trial_s_median']:>8} {_cell(r['server_cpu_ms_per_trial']):>9} {r['load_before']:>5}")
    print(f"record: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
