"""``python -m webarray.browser run SCRIPT.py [options] [-- script arguments]``."""

from __future__ import annotations

import argparse
import sys

from . import assets
from .runner import EXIT_BROWSER, run


def build() -> int:
    try:
        root = assets.repo_root()
        print(f"JS library: {assets.js_library(root)}")
        print(f"wheel: {assets.webarray_wheel(root)}")
    except assets.SetupError as e:
        print(f"webarray.browser: {e}", file=sys.stderr)
        return EXIT_BROWSER
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m webarray.browser",
        description="Run a Python script with webarray in headless Chromium (Pyodide, WebGPU).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "build",
        help="build the JS library (npm run build) and the webarray wheel when they are stale",
    )
    p = sub.add_parser(
        "run",
        help="run a script in the browser and exit with its status",
        description="Exit status: the script's; 1 for an uncaught exception (traceback on "
        "stderr); 3 when the browser side failed (page crash, no cross-origin isolation, "
        "Pyodide or the GPU would not start); 124 on timeout.",
    )
    p.add_argument("script", help="the Python file to run as __main__")
    p.add_argument("args", nargs="*", help="arguments for the script (after --)")
    p.add_argument("--backend", choices=["webgpu", "webgl2", "auto"], default="auto",
                   help="the GPU API (default: auto, WebGPU where the browser has an adapter, "
                   "else WebGL2); with webgl2, Chromium runs without WebGPU")
    p.add_argument("--no-webgpu", action="store_true",
                   help="start Chromium without WebGPU, like a browser that lacks it "
                   "(--backend auto then picks WebGL2)")
    p.add_argument("--transport", choices=["sab", "jspi", "auto"], default="sab",
                   help="sab: SharedArrayBuffer ring to a GPU thread; jspi: device on the "
                   "Python thread, blocking with run_sync (default: sab)")
    p.add_argument("--gpu-thread", choices=["worker", "main"], default="worker",
                   help="where the GPU device lives with the sab transport (default: worker)")
    p.add_argument("--wheel", action="append", default=[], metavar="PATH",
                   help="a further pure-Python wheel to install (repeatable)")
    p.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="a file to put next to the script in the working directory (repeatable)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="seconds for the whole run, start-up included (default: 600)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="an environment variable for the script (repeatable)")
    p.add_argument("--busy-main", type=float, default=0, metavar="MS",
                   help="keep the page's main thread busy MS out of every 2*MS milliseconds "
                   "(simulates a page with heavy UI work; for benchmarks)")
    p.add_argument("--no-snapshot", action="store_true",
                   help="start Python from scratch: neither resume from nor make the memory "
                   "snapshot of dist/snapshots (the first run makes one; later runs start in "
                   "about a second instead of ten or more)")
    p.add_argument("--verbose", action="store_true", help="print the browser's console and progress")
    p.add_argument("--no-isolation", action="store_true", help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else list(argv)
    # everything after the first "--" belongs to the script, options included
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    ns = parser.parse_args(argv[: len(argv) - len(extra) - (1 if extra or "--" in argv else 0)])
    if ns.command == "build":
        return build()
    env = {}
    for item in ns.env:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--env wants NAME=VALUE, got {item!r}")
        env[name] = value
    return run(
        ns.script, ns.args + extra, backend=ns.backend, transport=ns.transport, gpu_thread=ns.gpu_thread,
        wheels=ns.wheel, files=ns.file, timeout=ns.timeout, env=env, verbose=ns.verbose,
        isolation=not ns.no_isolation, busy_main_ms=ns.busy_main,
        webgpu=False if ns.no_webgpu else None, snapshot=not ns.no_snapshot,
    )


if __name__ == "__main__":
    sys.exit(main())
