"""One browser run: build, serve, start Chromium through driver.mjs, pass its status on.

Start-up. Most of a run's start was Pyodide starting Python (10-23 s on the 2-core test
machine; python-worker.ts says more). So the first run makes a memory snapshot after
importing webarray and uploads it into ``dist/snapshots/`` (the server's one writable
route); later runs with the same Pyodide, JS library, wheel and ``--env`` resume from
it. ``--no-snapshot`` starts from scratch.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from . import assets
from .server import StaticServer

EXIT_BROWSER = 3  # the browser side failed: no isolation, page crash, Pyodide or GPU did not start
EXIT_TIMEOUT = 124
_GRACE = 30  # seconds the driver gets beyond the run's timeout before it is killed
_SNAPSHOTS_KEPT = 4  # newest snapshots kept in dist/snapshots (about 30 MiB each)

_PAGE = """<!doctype html>
<meta charset="utf-8">
<title>webarray runner</title>
<script type="module">
const cfg = %(config)s;
const report = (m) => window.__webarrayReport(m);
if (cfg.busyMainMs > 0) {
  // a busy page: the main thread is blocked busyMainMs out of every 2 * busyMainMs
  setInterval(() => {
    const end = performance.now() + cfg.busyMainMs;
    while (performance.now() < end);
  }, 2 * cfg.busyMainMs);
}
try {
  const { startWebarray } = await import("/webarray/index.js");
  const wa = await startWebarray({
    backend: cfg.backend,
    transport: cfg.transport,
    thread: cfg.gpuThread,
    pyodideUrl: "/pyodide/",
    wheelUrl: cfg.wheels,
    env: cfg.env,
    timeoutMs: cfg.startTimeoutMs,
    snapshot: cfg.snapshot ? fetch(cfg.snapshot).then((r) => r.ok ? r.arrayBuffer() : null) : null,
    makeSnapshot: cfg.makeSnapshot,
    stdout: (text) => report({ type: "stdout", text }),
    stderr: (text) => report({ type: "stderr", text }),
    onFatal: (message) => report({ type: "fatal", message }),
  });
  report({ type: "info", text: `Python ready on ${wa.backend} (transport ${wa.transport}, GPU on ` +
           `the ${wa.gpuThread} thread) after ${Math.round(wa.startMs)} ms` +
           (wa.restored ? ", resumed from a snapshot" : wa.snapshot ? ", snapshot made" : "") });
  // the snapshot goes to the server while the script runs; a stale one is dropped
  const saved = wa.snapshot ? fetch(cfg.snapshotUpload, { method: "PUT", body: wa.snapshot })
    : wa.snapshotError ? fetch(cfg.snapshotUpload, { method: "DELETE" }) : null;
  if (wa.snapshotError) report({ type: "info", text: `the snapshot was not used: ${wa.snapshotError}` });
  for (const f of cfg.files) {
    const r = await fetch(f.url);
    if (!r.ok) throw new Error(`fetching ${f.url} failed: HTTP ${r.status}`);
    await wa.writeFile(f.path, new Uint8Array(await r.arrayBuffer()));
  }
  const source = await (await fetch(cfg.script.url)).text();
  const code = await wa.runScript(source, { filename: cfg.script.path, argv: cfg.argv });
  await saved?.catch(() => {});
  report({ type: "exit", code });
} catch (e) {
  report({ type: "fatal", message: String(e && e.message ? e.message : e) });
}
</script>
"""


def run(
    script: str | os.PathLike,
    argv: Sequence[str] = (),
    *,
    backend: str = "auto",
    transport: str = "sab",
    gpu_thread: str = "worker",
    wheels: Sequence[str | os.PathLike] = (),
    files: Sequence[str | os.PathLike] = (),
    timeout: float = 600.0,
    env: dict[str, str] | None = None,
    verbose: bool = False,
    isolation: bool = True,
    busy_main_ms: float = 0,
    webgpu: bool | None = None,
    snapshot: bool = True,
) -> int:
    """Run a script in headless Chromium; its stdout/stderr go to ours. Returns the exit
    status (see ``python -m webarray.browser run --help``). ``busy_main_ms`` keeps the
    page's main thread busy that long out of every twice that long (a page with heavy
    UI work), to measure how the GPU thread's placement copes. ``webgpu=False`` starts
    Chromium without WebGPU (a browser that lacks it); None: without it for the webgl2
    backend only, so that a WebGL2 run cannot touch WebGPU. ``snapshot=False`` neither
    uses nor makes a memory snapshot (module doc)."""
    script = Path(script)
    if not script.is_file():
        print(f"webarray.browser: no such script: {script}", file=sys.stderr)
        return 2
    try:
        root = assets.repo_root()
        node, chromium = assets.node(), assets.chromium()
        node_modules = assets.node_modules(root)
        lib = assets.js_library(root)
        wheel_paths = [assets.webarray_wheel(root)] + [Path(w) for w in wheels]
        for p in wheel_paths + [Path(f) for f in files]:
            if not p.is_file():
                raise assets.SetupError(f"no such file: {p}")
    except assets.SetupError as e:
        print(f"webarray.browser: {e}", file=sys.stderr)
        return EXIT_BROWSER

    with StaticServer(isolation=isolation) as server:
        server.folders["/webarray/"] = lib
        server.folders["/pyodide/"] = node_modules / "pyodide"
        for p in wheel_paths:
            server.files[f"/wheels/{p.name}"] = p.resolve()
        file_entries = []
        for i, f in enumerate(files):
            url = f"/files/{i}/{Path(f).name}"
            server.files[url] = Path(f).resolve()
            file_entries.append({"url": url, "path": Path(f).name})
        server.files[f"/script/{script.name}"] = script.resolve()
        server.pages["/favicon.ico"] = b""
        saved = _snapshot_path(root, node_modules, lib, wheel_paths[0], env or {}) if snapshot else None
        if saved is not None:
            server.uploads["/snapshot.bin"] = saved
            if saved.is_file():
                server.files["/snapshot.bin"] = saved
        config = {
            "backend": backend,
            "transport": transport,
            "gpuThread": gpu_thread,
            "wheels": [f"/wheels/{p.name}" for p in wheel_paths],
            "files": file_entries,
            "script": {"url": f"/script/{script.name}", "path": script.name},
            "argv": list(argv),
            "env": dict(env or {}),
            "startTimeoutMs": int(min(timeout, 300) * 1000),
            "busyMainMs": busy_main_ms,
            "snapshot": "/snapshot.bin" if saved is not None and saved.is_file() else None,
            "makeSnapshot": saved is not None and not saved.is_file(),
            "snapshotUpload": "/snapshot.bin",
        }
        # "</" would end the script element early
        server.pages["/run.html"] = (_PAGE % {"config": json.dumps(config).replace("</", "<\\/")}).encode()
        driver_cfg = {
            "root": str(root),
            "chromium": chromium,
            "url": f"{server.url}/run.html",
            "timeout": timeout,
            "verbose": verbose,
            "webgpu": (backend != "webgl2") if webgpu is None else webgpu,
        }
        driver = Path(__file__).with_name("driver.mjs")
        proc = subprocess.Popen([node, str(driver), json.dumps(driver_cfg)], start_new_session=True)
        try:
            return proc.wait(timeout=timeout + _GRACE)
        except subprocess.TimeoutExpired:
            print(f"webarray.browser: the browser driver did not stop after {timeout:g} s; killing it",
                  file=sys.stderr)
            _stop(proc)
            return EXIT_TIMEOUT
        except KeyboardInterrupt:
            _stop(proc)
            return 130


def _snapshot_path(root: Path, node_modules: Path, lib: Path, wheel: Path, env: dict[str, str]) -> Path:
    """Where the snapshot for this Pyodide, JS library, webarray wheel and environment
    lives (it may not exist yet); older snapshots beyond the newest few are removed."""
    key = hashlib.sha256()
    for part in (node_modules / "pyodide" / "package.json", lib / "python-worker.js", wheel):
        key.update(part.read_bytes())
    key.update(json.dumps(env, sort_keys=True).encode())
    folder = root / "dist" / "snapshots"
    folder.mkdir(parents=True, exist_ok=True)
    old = sorted(folder.glob("*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in old[_SNAPSHOTS_KEPT:]:
        stale.unlink(missing_ok=True)
    return folder / f"{key.hexdigest()[:32]}.bin"


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM lets the driver close Chromium; SIGKILL the driver's group if it does not."""
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
