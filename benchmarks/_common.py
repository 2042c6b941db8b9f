"""Shared pieces of the benchmark scripts: backends, timing, facts about the machine, the
printed table and the JSON record under ``benchmarks/results/``.

Timing method (every script): warm up, then time rounds of N iterations, each round ending
with a device sync, and report the median round's time per iteration. webarray syncs through
``Device.synchronize`` (a blocking read) after computing every pending (lazily fused)
array, CuPy and PyTorch through their device sync. A loop that times single ops forces each
result (``Backend.force``), or webarray would fuse the loop away.
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


# -- backends ---------------------------------------------------------------------------------


@dataclass
class Backend:
    """One array library on one device, as a benchmark sees it."""

    name: str
    xp: Any  # the namespace whose add, multiply, sqrt, negative... the benchmark calls
    to_device: Callable  # NumPy array -> array of this backend
    to_numpy: Callable  # array of this backend -> NumPy array
    sync: Callable[[], None]  # returns once every queued operation has finished
    device: str = ""
    extra: dict = field(default_factory=dict)
    # makes a result be computed now: webarray fuses elementwise ops lazily, and a result
    # that is dropped unread is never computed, so a loop timing one op forces each result
    force: Callable[[Any], None] = lambda x: None


def _numpy_backend() -> Backend:
    import numpy as np

    return Backend("numpy", np, lambda a: a.copy(), lambda a: a, lambda: None,
                   device=cpu_name())


def _webarray_backend() -> Backend:
    import numpy as np

    import webarray as xp

    dev = xp.__array_namespace_info__().default_device()
    info = dev.executor.adapter_info

    def sync():
        xp.fusion.flush()
        dev.synchronize()

    return Backend("webarray", xp, xp.asarray, np.asarray, sync,
                   device=f"{info.get('device', '')} ({info.get('backend', '')})",
                   force=xp.fusion.flush)


def _cupy_backend() -> Backend:
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("CuPy sees no CUDA device")
    dev = cupy.cuda.Device()
    name = cupy.cuda.runtime.getDeviceProperties(dev.id)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return Backend("cupy", cupy, cupy.asarray, cupy.asnumpy, dev.synchronize, device=name)


def _torch_backend() -> Backend:
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("PyTorch sees no CUDA device")
    return Backend("torch", torch, lambda a: torch.from_numpy(a).cuda(),
                   lambda t: t.cpu().numpy(), torch.cuda.synchronize,
                   device=torch.cuda.get_device_name())


_MAKERS = {"numpy": _numpy_backend, "webarray": _webarray_backend,
           "cupy": _cupy_backend, "torch": _torch_backend}


def load_backends(names) -> tuple[list[Backend], dict[str, str]]:
    """The backends that load here, and why each of the others did not."""
    loaded, skipped = [], {}
    for n in names:
        try:
            loaded.append(_MAKERS[n]())
        except Exception as e:  # a missing library or device only skips that backend
            skipped[n] = f"{type(e).__name__}: {e}"
    return loaded, skipped


# -- timing -----------------------------------------------------------------------------------


def time_rounds(step: Callable[[], None], sync: Callable[[], None], iters: int,
                rounds: int, warmup: int = 2) -> list[float]:
    """Seconds per iteration of each round of ``iters`` steps ending with a sync."""
    for _ in range(warmup):
        step()
    sync()
    out = []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            step()
        sync()
        out.append((time.perf_counter() - t0) / iters)
    return out


# A GPU raises its clocks only under sustained work: timed straight after a pause, the first
# case of a run measured its idle clocks (an H200 summed 2^26 float32 at 1,553 GB/s first in
# a run and at 3,700 after 0.3 s of work). So calibrate keeps the device busy this long.
WARM_S = 0.3


def calibrate(step: Callable[[], None], sync: Callable[[], None], target_s: float,
              max_iters: int = 10_000, warm_s: float = WARM_S) -> int:
    """How many iterations make a round of about target_s (after one warm-up step), having
    run the step for at least warm_s in all."""
    start = time.perf_counter()
    step()
    sync()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        sync()
        dt = time.perf_counter() - t0
        if dt >= target_s / 4 or n >= max_iters:
            iters = max(1, min(max_iters, round(n * target_s / max(dt, 1e-9))))
            break
        n *= 4
    while time.perf_counter() - start < warm_s:
        for _ in range(n):
            step()
        sync()
    return iters


def median(xs) -> float:
    return statistics.median(xs)


# -- facts about the machine ------------------------------------------------------------------


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str | None:
    try:
        mod = importlib.import_module(module)
    except Exception:
        return None
    return getattr(mod, "__version__", None) or "?"


def webarray_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("webarray")
    except Exception:
        pass
    try:
        text = (ROOT / "pyproject.toml").read_text()
        m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
        return m.group(1) if m else None
    except OSError:
        return None


def git_revision() -> str | None:
    """The project's commit (``-dirty`` with uncommitted changes), only when ROOT is the
    top of its own git checkout: a copy of the project without ``.git`` inside another
    repository (as on a lent GPU machine) would otherwise record *that* repository's
    HEAD. ``WEBARRAY_GIT_REVISION`` names it where there is no checkout."""
    given = os.environ.get("WEBARRAY_GIT_REVISION")
    if given:
        return given
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT,
                             capture_output=True, text=True, timeout=5)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != Path(ROOT).resolve():
            return None
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, timeout=5)
    except Exception:
        return None
    if rev.returncode != 0:
        return None
    return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def versions() -> dict:
    return {
        "python": platform.python_version(),
        "webarray": webarray_version(),
        "webarray_git": git_revision(),
        "wgpu": _version("wgpu"),
        "numpy": _version("numpy"),
        "cupy": _version("cupy"),
        "torch": _version("torch"),
    }


def hardware(backends: list[Backend]) -> dict:
    hw: dict = {"host": platform.node(), "cpu": cpu_name(), "cpu_count": os.cpu_count(),
                "platform": platform.platform()}
    for b in backends:
        if b.name == "webarray":
            hw["webgpu_adapter"] = dict(
                b.xp.__array_namespace_info__().default_device().executor.adapter_info)
        elif b.name in ("cupy", "torch"):
            hw.setdefault("cuda_device", b.device)
    return hw


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"


def machine_tag(hw: dict) -> str:
    """Names a result file: the CUDA GPU when there is one, else the WebGPU adapter, else
    the host."""
    if hw.get("cuda_device"):
        return slug(hw["cuda_device"])
    adapter = hw.get("webgpu_adapter", {}).get("device")
    if adapter:
        return slug(adapter.split("(")[0])
    return slug(hw["host"])


def record(benchmark: str, backends: list[Backend], skipped: dict, **body) -> dict:
    hw = hardware(backends)
    return {
        "benchmark": benchmark,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hardware": hw,
        "versions": versions(),
        "backends": {b.name: b.device for b in backends},
        "skipped_backends": skipped,
        **body,
    }


def write_json(rec: dict, path: str | os.PathLike | None = None) -> Path:
    if path is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"{rec['benchmark']}-{machine_tag(rec['hardware'])}.json"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=1) + "\n")
    return path


# -- output -----------------------------------------------------------------------------------


def table(header: list[str], rows: list[list], title: str | None = None) -> str:
    """A plain-text (Markdown-compatible) table; numbers are formatted by the caller."""
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(r):
        return "| " + " | ".join(c.rjust(w) if i else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(r, widths))) + " |"

    out = [] if title is None else [title, ""]
    out.append(line(cells[0]))
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def size_label(n: int) -> str:
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e else str(n)


def parse_sizes(text: str) -> list[int]:
    """'20,22' or '1048576,4194304': numbers up to 40 are powers of two."""
    out = []
    for part in text.split(","):
        v = int(part.strip())
        out.append(1 << v if v <= 40 else v)
    return out


# -- the command line every benchmark script shares --------------------------------------------

SYNC = {"webarray": "fusion.flush + Device.synchronize (blocking 4-byte read)",
        "cupy": "Device.synchronize", "torch": "cuda.synchronize"}


def add_common_args(p, name: str) -> None:
    """--quick, --backends and --out, as every benchmark script takes them."""
    p.add_argument("--quick", action="store_true", help="fewer and shorter rounds")
    p.add_argument("--backends", default="numpy,webarray,cupy,torch",
                   help="comma-separated: numpy, webarray, cupy, torch (missing ones are skipped)")
    p.add_argument("--out", help=f"JSON path (default benchmarks/results/{name}-<gpu>.json)")


def log(msg: str) -> None:
    print(msg, flush=True)


def open_backends(spec: str) -> tuple[list[Backend], dict[str, str]]:
    """Load the comma-separated backends, saying which are skipped and on what each runs."""
    backends, skipped = load_backends([b.strip() for b in spec.split(",")])
    for name, why in skipped.items():
        print(f"skipping {name}: {why}", file=sys.stderr)
    for be in backends:
        log(f"{be.name}: {be.device}")
    return backends, skipped


def on_cpu_adapter(backends: list[Backend]) -> bool:
    """Whether webarray runs on a CPU WebGPU adapter (lavapipe), where sizes stay small."""
    for be in backends:
        if be.name == "webarray":
            info = be.xp.__array_namespace_info__().default_device().executor.adapter_info
            return info.get("adapter_type", "").upper() == "CPU"
    return False


def finish(rec: dict, out, text: str) -> int:
    """Write the JSON record, print the table and where the record went."""
    path = write_json(rec, out)
    print()
    print(text)
    print(f"\nwritten {path}")
    return 0
