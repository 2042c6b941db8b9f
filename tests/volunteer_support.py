"""What the volunteer tests and benchmark share: a throwaway PostgreSQL on a loopback port,
a study file for the digits objective, and the server as a process that can be restarted.

PostgreSQL is Debian's (scripts/setup.sh installs it): initdb into a temporary folder,
``pg_ctl start`` on 127.0.0.1, trust authentication. The server refuses to run as root,
so as root its commands run as ``nobody`` through ``runuser``, with the folder handed to
that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "volunteer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin() -> Path:
    found = shutil.which("pg_config")
    if found:
        out = subprocess.run([found, "--bindir"], capture_output=True, text=True).stdout.strip()
        if out and (Path(out) / "pg_ctl").is_file():
            return Path(out)
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not dirs:
        raise RuntimeError("PostgreSQL is not installed (Debian's postgresql); run scripts/setup.sh")
    return Path(dirs[-1])


@contextlib.contextmanager
def postgres():
    """The SQLAlchemy URL of an empty database on a fresh PostgreSQL server."""
    bindir = _pg_bin()
    folder = Path(tempfile.mkdtemp(prefix="webarray-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "nobody")
        as_user = ["runuser", "-u", "nobody", "--"]
    data, port = folder / "data", free_port()

    def run(*cmd: str) -> None:
        r = subprocess.run([*as_user, *cmd], capture_output=True, text=True, timeout=120, cwd=folder)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")

    run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
    opts = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    run(str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(folder / "log"), "-w", "start")
    try:
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "volunteer")
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/volunteer"
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60, cwd=folder)
        shutil.rmtree(folder, ignore_errors=True)


SEARCH_SPACE = """{
        "lr": FloatDistribution(1e-3, 1.0, log=True),
        "hidden": IntDistribution(16, 128, log=True),
        "batch_size": CategoricalDistribution([16, 32, 64, 128]),
        "weight_decay": FloatDistribution(1e-6, 1e-2, log=True),
    }"""


def write_study(folder: Path, *, name: str, n_trials: int, sampler: str = "TPESampler(seed=0)",
                pruner: str = "NopPruner()", settings: dict | None = None,
                heartbeat_interval: int = 1, grace_period: int = 10) -> Path:
    """A study file in folder for the digits objective of examples/volunteer."""
    path = Path(folder) / f"{name}.py"
    path.write_text(f"""
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.pruners import *
from optuna.samplers import *
from webarray.volunteer.spec import StudySpec

SPEC = StudySpec(
    name={name!r},
    objective={str(EXAMPLE / 'digits_mlp.py')!r},
    files=[{str(EXAMPLE / 'digits.bin')!r}],
    search_space={SEARCH_SPACE},
    n_trials={n_trials},
    sampler={sampler},
    pruner={pruner},
    settings={settings or {}!r},
    heartbeat_interval={heartbeat_interval},
    grace_period={grace_period},
)
""")
    return path


class Server:
    """``python -m webarray.volunteer serve`` in a process, on a fixed port so that a
    restart comes back where the pages look for it."""

    def __init__(self, study: Path, storage: str, artifacts: Path, log: Path, extra: tuple[str, ...] = ()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [sys.executable, "-m", "webarray.volunteer", "serve", str(study), "--storage", storage,
                     "--artifacts", str(artifacts), "--port", str(self.port), "--log-level", "warning", *extra]
        self.log = log
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> float:
        """Starts it and waits until it answers; returns the seconds that took."""
        t0 = time.monotonic()
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT, cwd=self.log.parent)
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(self.url + "/api/config", timeout=2):
                    return time.monotonic() - t0
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log.read_text()[-4000:]}")

    def stop(self) -> None:
        """SIGTERM: uvicorn finishes the requests in flight, then exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
