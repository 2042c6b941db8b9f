"""``python -m webarray.volunteer serve STUDY.py`` runs a study; browsers join by opening its
URL. ``join URL --workers K`` opens K headless Chromium workers on this machine, ``work
URL`` works in this process (webarray's native device) — both for machines without a
screen, tests and benchmarks."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from ..browser import assets
from .pages import HeadlessWorkers

EXIT_SETUP = 3


def serve(ns: argparse.Namespace) -> int:
    # the server's dependencies (the volunteer extra) load for this command only: join and
    # work need webarray alone
    import uvicorn

    from . import spec as spec_module, tls  # (these need the server's dependencies too)
    from .app import Assets, create_app
    from .service import VolunteerStudy

    spec = spec_module.load(ns.study)
    if ns.n_trials is not None:
        spec.n_trials = ns.n_trials
    storage = ns.storage or f"sqlite:///{Path(f'{spec.name}.db').resolve()}"
    artifacts = Path(ns.artifacts or f"{spec.name}-checkpoints")
    try:
        root = assets.repo_root()
        pyodide = Path(ns.pyodide) if ns.pyodide else assets.node_modules(root) / "pyodide"
        page_assets = Assets(webarray_js=assets.js_library(root), pyodide=pyodide,
                             wheels=[assets.webarray_wheel(root)])
    except assets.SetupError as e:
        print(f"webarray.volunteer: {e}", file=sys.stderr)
        return EXIT_SETUP
    certfile, keyfile = ns.certfile, ns.keyfile
    if ns.self_signed:
        hosts = None if _wildcard(ns.host) else ["localhost", ns.host]
        certfile, keyfile = tls.self_signed(Path(ns.self_signed), hosts)
    elif (certfile is None) != (keyfile is None):
        print("webarray.volunteer: --certfile and --keyfile go together", file=sys.stderr)
        return 2
    study = VolunteerStudy(spec, storage, artifacts)
    app = create_app(study, page_assets)
    scheme = "https" if certfile else "http"
    hosts = tls.local_addresses() if _wildcard(ns.host) else [ns.host]
    print(f"study {spec.name!r}: {spec.n_trials} trials, storage {_redact(storage)}, checkpoints in {artifacts}/")
    for h in hosts:
        print(f"  join:      {scheme}://{h}:{ns.port}/\n  dashboard: {scheme}://{h}:{ns.port}/dashboard")
    if scheme == "http" and any(not ipaddress.ip_address(h).is_loopback for h in hosts if tls.is_ip(h)):
        print("  note: other devices need https:// (WebGPU and SharedArrayBuffer want a secure context); "
              "add --self-signed DIR or --certfile/--keyfile", file=sys.stderr)
    sys.stdout.flush()
    uvicorn.run(app, host=ns.host, port=ns.port, ssl_certfile=certfile, ssl_keyfile=keyfile,
                log_level=ns.log_level, timeout_graceful_shutdown=3)
    return 0


def _wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::")


def _redact(url: str) -> str:
    """The storage URL without its password."""
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    return head.rsplit(":", 1)[0] + ":***@" + tail


def join(ns: argparse.Namespace) -> int:
    shown: dict[str, str] = {}

    def show(event: dict) -> None:
        name = event.get("name", "-")
        if event["event"] == "status":
            s = event["status"]
            line = s["phase"] + (f" trial {s['trial']} {s['params']}" if s.get("trial") is not None else "")
            if shown.get(name) != line:
                shown[name] = line
                print(f"{name}: {line}", flush=True)
        elif event["event"] in ("error", "console"):
            print(f"{name}: {event.get('message') or event.get('text')}", file=sys.stderr, flush=True)

    try:
        workers = HeadlessWorkers(ns.url, insecure=ns.insecure, webgpu=ns.backend != "webgl2", on_event=show)
    except assets.SetupError as e:
        print(f"webarray.volunteer: {e}", file=sys.stderr)
        return EXIT_SETUP
    query = f"backend={ns.backend}"
    with workers:
        for i in range(ns.workers):
            workers.open(f"{ns.name}{i}", query)
        try:
            while True:
                time.sleep(1)
                phases = [s["phase"] for s in workers.status.values()]
                if len(phases) == ns.workers and all(p.startswith(("done", "error")) for p in phases):
                    return 0 if all(p.startswith("done") for p in phases) else 1
        except KeyboardInterrupt:
            return 130


def work(ns: argparse.Namespace) -> int:
    # webarray and its CuPy layer (checkpoints) load for this command only: serve is
    # restarted in seconds without them
    from .worker import work as run_work

    folder = ns.folder or tempfile.mkdtemp(prefix="webarray-volunteer-")
    ends = run_work(ns.url, ns.name, folder=os.path.abspath(folder), max_trials=ns.max_trials)
    print(f"{len(ends)} trials run here")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webarray.volunteer", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="run a study: serve the worker page and the API",
                       description="Runs the study of STUDY.py (SPEC = StudySpec(...)) until it is stopped; "
                       "restarting it resumes the study from its storage.")
    p.add_argument("study", help="the study file")
    p.add_argument("--storage", metavar="URL",
                   help="the Optuna storage, a SQLAlchemy URL: sqlite:///FILE (default: NAME.db here) "
                   "or postgresql://USER@HOST:PORT/DB")
    p.add_argument("--artifacts", metavar="DIR", help="where checkpoints go (default: NAME-checkpoints here)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, this machine only; 0.0.0.0 for the network)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--certfile", help="TLS certificate (PEM) to serve https://")
    p.add_argument("--keyfile", help="its private key (PEM)")
    p.add_argument("--self-signed", metavar="DIR",
                   help="serve https:// with a self-signed certificate kept in DIR (made when missing)")
    p.add_argument("--pyodide", metavar="DIR",
                   help="a Pyodide distribution to serve instead of the npm package's (one with "
                   "NumPy, for pyodide_packages)")
    p.add_argument("--n-trials", type=int, help="override the study file's n_trials")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p = sub.add_parser("join", help="open worker pages in headless Chromium on this machine")
    p.add_argument("url", help="the server's URL")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--backend", choices=["webgpu", "webgl2", "auto"], default="auto")
    p.add_argument("--name", default="headless-", help="worker name prefix (default headless-)")
    p.add_argument("--insecure", action="store_true", help="accept a self-signed certificate")
    p = sub.add_parser("work", help="work in this process, on webarray's native device")
    p.add_argument("url", help="the server's URL")
    p.add_argument("--name", default=f"native-{os.getpid()}")
    p.add_argument("--folder", help="where the study's files go (default: a temporary folder)")
    p.add_argument("--max-trials", type=int)
    ns = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    return {"serve": serve, "join": join, "work": work}[ns.command](ns)


if __name__ == "__main__":
    sys.exit(main())
