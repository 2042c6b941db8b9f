"""Start-up figures of docs/site.md: ``python site/tests/measure_startup.py [N]``.

Times, N times each (default 3): the browser runner on a one-line script and on a syntax
error (its first run after a change also makes the snapshot: cold), and the playground
from opening the page until Python is ready, in a fresh browser profile (cold) and after
a first visit in the same profile (warm: the HTTP cache and the snapshot are there). Run
it from the checkout with the test environment (PYTHONPATH=src, the site built); it
prints one JSON object and the load average, which on a shared machine says how far to
trust the numbers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import test_site  # noqa: E402  (the site test's build and server)

READY = "document.querySelector('.status.ready, .status.error')"


def runner(script: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "webarray.browser", "run", str(script)], capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_RUNTIME_DIR": "/tmp"})
    return round(time.perf_counter() - t0, 2)


def playground(base: str, warm: bool) -> float | None:
    """Seconds from opening the playground until Python is ready, in a fresh profile
    (after a first visit in it when warm)."""
    visit = {"name": "measured", "path": "playground.html?backend=webgpu", "timeout": 180, "screenshot": None,
             "steps": [{"wait": READY}, {"eval": "window.__siteResult = {ms: performance.now()}"}]}
    visits = [dict(visit, name="first"), visit] if warm else [visit]
    cfg = {"root": str(ROOT), "chromium": test_site.assets.chromium(), "base": base, "visits": visits}
    r = subprocess.run([test_site.assets.node(), str(ROOT / "site" / "tests" / "drive.mjs"), json.dumps(cfg)],
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        item = json.loads(line)
        if item["name"] == "measured" and item["result"]:
            return round(item["result"]["ms"] / 1000, 2)
    return None


def main(n: int) -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "hello.py").write_text('print("hi")\n')
    (folder / "syntax.py").write_text("def (\n")
    out = {"runner, one line (s)": [runner(folder / "hello.py") for _ in range(n)],
           "runner, syntax error (s)": [runner(folder / "syntax.py") for _ in range(n)]}
    with test_site.serve.SiteServer(test_site.build_site()) as server:
        out["playground ready, cold (s)"] = [playground(server.url, warm=False) for _ in range(n)]
        out["playground ready, warm (s)"] = [playground(server.url, warm=True) for _ in range(n)]
    print(json.dumps(out, indent=1))
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
