"""webarray in the browser against raw WebGPU in the same page, per transport, and the
WebGL2 backend beside WebGPU.

    python -m benchmarks.browser                  # every configuration below
    python -m benchmarks.browser --quick --configs sab-worker
    python -m benchmarks.browser --repeat 3       # medians of 3 interleaved runs (noisy hosts)
    python -m benchmarks.browser --configs sab-worker,webgl2 --json benchmarks/results/browser-webgl2-swiftshader.json

Each configuration is one run of ``python -m webarray.browser run`` (headless Chromium,
Pyodide in a worker). Inside, the script below measures webarray and, in the same page
and thread, a raw-JS baseline (benchmarks/browser_baseline.js) that replays exactly the
dispatches webarray issued (recorded kernel sources, buffer sizes, uniforms, grids) and
does the same readbacks:

- round trip: a request that does no GPU work (``executor.ping``): the transport alone
  (mean over many);
- per-op: ``c = a + b`` on 16-element float32 arrays, N times then a sync, µs per op
  (issue only, and with the sync), against the baseline's N dispatches in one pass;
- readback: 64 bytes (median, 95th percentile, slowest) and 4 MiB back to Python, against
  copy + mapAsync in JS;
- throughput: ``a + b`` on 2^20 float32 elements, K times then a sync, in GB/s;
- workloads (ms, with the sync; the only part with lazy fusion on, the rest measures
  one dispatch per op): a fused chain ``sin(x)**2 + cos(x)**2``, ``sum``,
  ``cumulative_sum`` on 2^20 float32, ``argsort`` of 2^16, a 256x256 matmul, and
  solve and qr at 64x64, eigvalsh and svdvals at 32x32 (WebGL2 composes those of
  namespace operations).

The ``webgl2`` configuration runs the same script on the WebGL2 backend (Chromium without
WebGPU). The raw-JS baseline replays WebGPU dispatches only, so its rows are empty there;
the table adds the ratio WebGL2 / WebGPU (sab-worker) per measure.

The ``-busy`` configurations keep the page's main thread busy 20 ms out of every 40 ms
(a page with heavy UI work), which is what decides where the GPU thread should live.
Without a GPU the adapter is SwiftShader: compare ratios, not absolute numbers. The table
goes to stdout, the record to ``benchmarks/results/browser-<adapter>.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from . import _common as c

CONFIGS = {
    "sab-worker": ["--transport", "sab", "--gpu-thread", "worker"],
    "sab-main": ["--transport", "sab", "--gpu-thread", "main"],
    "jspi": ["--transport", "jspi"],
    # the page's main thread busy 20 ms out of every 40 ms (heavy UI work)
    "sab-worker-busy": ["--transport", "sab", "--gpu-thread", "worker", "--busy-main", "20"],
    "sab-main-busy": ["--transport", "sab", "--gpu-thread", "main", "--busy-main", "20"],
    # the same page on WebGL2, WebGPU switched off (the fallback backend)
    "webgl2": ["--backend", "webgl2", "--transport", "sab", "--gpu-thread", "worker"],
}
MARK = "WEBARRAY_BENCH_JSON "

SCRIPT = r'''
import json, statistics, sys, time
import js
from pyodide.code import run_js
from pyodide.ffi import run_sync, to_js
import webarray as xp
from webarray import fusion

cfg = json.loads(sys.argv[1])
# the transport measures count one dispatch per op: no lazy fusion there
fusion.set_enabled(False)
ex = xp.__array_namespace_info__().default_device().executor
# the raw-JS baseline replays WebGPU dispatches: only on WebGPU
webgpu = ex.backend == "webgpu"
if webgpu:
    # benchmarks/browser_baseline.js, handed over as text (it is not part of the library)
    load = run_js("(src) => import(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})))")
    baseline_js = run_sync(load(cfg["baseline_js"]))
    base = run_sync(baseline_js.Baseline.create())
now = time.perf_counter
med = statistics.median
out = {"transport": ex.transport, "adapter": dict(ex.adapter_info)}


def recorded(fn):
    """fn's result and the dispatches it issued, as a replay for the baseline."""
    rec = []
    issue = ex.dispatch

    def spy(k, b, u, g):
        rec.append((k, list(b), bytes(u), tuple(g)))
        issue(k, b, u, g)

    ex.dispatch = spy
    try:
        result = fn()
    finally:
        del ex.dispatch
    kernels = sorted({r[0] for r in rec})
    handles = list(dict.fromkeys(h for r in rec for h in r[1]))
    replay = {
        "sources": [ex.kernel_sources[k] for k in kernels],
        "buffers": [ex._sizes[h] for h in handles],
        "dispatches": [
            {"kernel": kernels.index(k), "bindings": [handles.index(h) for h in b],
             "uniforms": list(memoryview(u).cast("I")), "grid": list(g)}
            for k, b, u, g in rec
        ],
    }
    return result, rec, replay


def prepare(replay):
    if webgpu:
        run_sync(base.prepare(to_js(replay, dict_converter=js.Object.fromEntries)))


def baseline(fn, default=None):
    return fn() if webgpu else default


def rounds(fn, n):
    return [fn() for _ in range(n)]


R = cfg["rounds"]

# -- the transport alone ----------------------------------------------------------------
for _ in range(50):
    ex.ping()
def ping_round(n=cfg["pings"]):
    t = now()
    for _ in range(n):
        ex.ping()
    return (now() - t) / n * 1e6
out["ping_us"] = med(rounds(ping_round, R))

# -- per-op overhead, small arrays ------------------------------------------------------
a, b = xp.ones(16), xp.ones(16)
_, rec, replay = recorded(lambda: a + b)
prepare(replay)
N = cfg["ops"]
def op_round(x=a, y=b, n=N):
    """Seconds to issue n ops x + y, and to issue them and wait for them."""
    ex.sync()
    t = now()
    for _ in range(n):
        z = x + y
    issue = now() - t
    ex.sync()
    return issue, now() - t
def dispatch_round():
    k, bind, u, g = rec[0]
    ex.sync()
    t = now()
    for _ in range(N):
        ex.dispatch(k, bind, u, g)
    ex.sync()
    return (now() - t) / N * 1e6
op_round()
ops = rounds(op_round, R)
out["op_issue_us"] = med(o[0] for o in ops) / N * 1e6
out["op_total_us"] = med(o[1] for o in ops) / N * 1e6
out["dispatch_total_us"] = med(rounds(dispatch_round, R))
def fused(loop):
    """Seconds that loop() says it took with fusion on; what it left pending is computed
    after (not timed)."""
    fusion.set_enabled(True)
    try:
        issue = loop()
        fusion.flush()
        ex.sync()
    finally:
        fusion.set_enabled(False)
    return issue
def lazy_loop(x=a, y=b, n=N):
    """Seconds to issue n ops x + y (lazy nodes, no dispatch per op)."""
    t = now()
    for _ in range(n):
        z = x + y
    return now() - t
def forced_loop(x=a, y=b, n=N):
    """Seconds to issue n x * 2 + y, each computed at once (a flush per result: two lazy ops
    and one kernel, the elementwise benchmark's forced loop)."""
    t = now()
    for _ in range(n):
        z = x * 2.0 + y
        fusion.flush()
    return now() - t
for key, loop in (("op_fused_issue_us", lazy_loop), ("forced_issue_us", forced_loop)):
    fused(loop)
    out[key] = med(rounds(lambda: fused(loop), R)) / N * 1e6
baseline(lambda: run_sync(base.dispatch(N)))
out["baseline_op_us"] = baseline(lambda: med(rounds(lambda: run_sync(base.dispatch(N)) * 1e3 / N, R)))

# -- readback ---------------------------------------------------------------------------
h = rec[0][1][0]
def read_each(nbytes, times):
    ts = []
    for _ in range(times):
        t = now()
        ex.read(h, 0, nbytes)
        ts.append((now() - t) * 1e6)
    return ts
read_each(64, 5)
reads = sorted(read_each(64, cfg["reads"]))
out["read64_us"] = med(reads)
out["read64_p95_us"] = reads[int(0.95 * (len(reads) - 1))]
out["read64_max_us"] = reads[-1]
out["baseline_read64_us"] = baseline(lambda: med(x * 1e3 for x in run_sync(base.read(64, cfg["reads"])).to_py()))

# -- throughput on 2^20 elements --------------------------------------------------------
n = 1 << 20
A, B = xp.ones(n), xp.ones(n)
_, rec, replay = recorded(lambda: A + B)
prepare(replay)
K = cfg["big_ops"]
op_round(A, B, K)
moved = 3 * 4 * n * K
out["add_2p20_GBps"] = moved / med(rounds(lambda: op_round(A, B, K)[1], R)) / 1e9
out["baseline_add_2p20_GBps"] = baseline(lambda: moved / med(rounds(lambda: run_sync(base.dispatch(K)) / 1e3, R)) / 1e9)
h = rec[0][1][1]
read_each(4 * n, 2)
out["read4MiB_us"] = med(read_each(4 * n, cfg["big_reads"]))
out["baseline_read4MiB_us"] = baseline(lambda: med(x * 1e3 for x in run_sync(base.read(4 * n, cfg["big_reads"])).to_py()))
if webgpu:
    base.destroy()

# -- workloads: the same calls on either backend (fused, as by default) ---------------------
fusion.set_enabled(True)
def timed(fn, times=R):
    fusion.flush(fn())
    ex.sync()
    ts = []
    for _ in range(times):
        t = now()
        fusion.flush(fn())
        ex.sync()
        ts.append((now() - t) * 1e3)
    return med(ts)
X = xp.linspace(0, 10, n)
out["chain_2p20_ms"] = timed(lambda: xp.sin(X) ** 2 + xp.cos(X) ** 2)
out["sum_2p20_ms"] = timed(lambda: xp.sum(X))
out["cumsum_2p20_ms"] = timed(lambda: xp.cumulative_sum(X))
S = xp.sin(xp.arange(1 << 16, dtype=xp.float32))
out["argsort_2p16_ms"] = timed(lambda: xp.argsort(S))
M = xp.reshape(xp.linspace(0, 1, 256 * 256), (256, 256))
out["matmul_256_ms"] = timed(lambda: M @ M)
# the linalg factorizations: WebGPU's kernels, WebGL2's compositions (_linalg_composed.py)
A = xp.sin(xp.reshape(xp.arange(64 * 64, dtype=xp.float32), (64, 64))) + 8.0 * xp.eye(64)
out["solve_64_ms"] = timed(lambda: xp.linalg.solve(A, A[:, :1]))
out["qr_64_ms"] = timed(lambda: xp.linalg.qr(A).R)
H = A[:32, :32] + A[:32, :32].mT
out["eigh_32_ms"] = timed(lambda: xp.linalg.eigvalsh(H))
out["svdvals_32_ms"] = timed(lambda: xp.linalg.svdvals(A[:32, :32]))
print("WEBARRAY_BENCH_JSON " + json.dumps(out))
'''

ROWS = [
    # (label, webarray key, baseline key, unit, lower is better)
    ("round trip (ping, no GPU work)", "ping_us", None, "µs"),
    ("a + b, 16 elements: issue only", "op_issue_us", None, "µs/op"),
    ("a + b, 16 elements, fused: issue only", "op_fused_issue_us", None, "µs/op"),
    ("a * 2 + b, 16 elements, fused, each flushed: issue", "forced_issue_us", None, "µs/op"),
    ("a + b, 16 elements: with the sync", "op_total_us", "baseline_op_us", "µs/op"),
    ("executor.dispatch alone, with the sync", "dispatch_total_us", "baseline_op_us", "µs/op"),
    ("readback 64 B", "read64_us", "baseline_read64_us", "µs"),
    ("readback 64 B, 95th percentile", "read64_p95_us", None, "µs"),
    ("readback 64 B, slowest", "read64_max_us", None, "µs"),
    ("readback 4 MiB", "read4MiB_us", "baseline_read4MiB_us", "µs"),
    ("a + b, 2^20 float32", "add_2p20_GBps", "baseline_add_2p20_GBps", "GB/s"),
    ("sin(x)**2 + cos(x)**2, 2^20 float32", "chain_2p20_ms", None, "ms"),
    ("sum, 2^20 float32", "sum_2p20_ms", None, "ms"),
    ("cumulative_sum, 2^20 float32", "cumsum_2p20_ms", None, "ms"),
    ("argsort, 2^16 float32", "argsort_2p16_ms", None, "ms"),
    ("matmul 256x256 float32", "matmul_256_ms", None, "ms"),
    ("linalg.solve 64x64, one right-hand side", "solve_64_ms", None, "ms"),
    ("linalg.qr 64x64", "qr_64_ms", None, "ms"),
    ("linalg.eigvalsh 32x32", "eigh_32_ms", None, "ms"),
    ("linalg.svdvals 32x32", "svdvals_32_ms", None, "ms"),
]


def run_config(name: str, cfg: dict, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench_browser.py"
        script.write_text(SCRIPT)
        baseline = (Path(__file__).parent / "browser_baseline.js").read_text()
        cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), *CONFIGS[name],
               "--timeout", str(timeout), "--", json.dumps({**cfg, "baseline_js": baseline})]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, cwd=c.ROOT,
                           env={**os.environ, "PYTHONPATH": str(c.ROOT / "src")})
    for line in r.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise RuntimeError(f"{name}: the benchmark failed (status {r.returncode}):\n{r.stdout}\n{r.stderr}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per configuration, interleaved; the table shows medians")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--json", help="write the record here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    cfg = ({"rounds": 3, "pings": 200, "ops": 200, "reads": 30, "big_ops": 5, "big_reads": 3}
           if args.quick else
           {"rounds": 5, "pings": 2000, "ops": 1000, "reads": 200, "big_ops": 20, "big_reads": 10})
    names = args.configs.split(",")
    runs: dict[str, list[dict]] = {n: [] for n in names}
    for i in range(args.repeat):
        for name in names:
            print(f"running {name} ({i + 1}/{args.repeat}) ...", file=sys.stderr, flush=True)
            runs[name].append(run_config(name, cfg, args.timeout))
    results = {
        n: {k: (c.median([r[k] for r in rs]) if isinstance(rs[0][k], (int, float))
                and not isinstance(rs[0][k], bool) else rs[0][k])
            for k in rs[0]}
        for n, rs in runs.items()
    }

    fmt = lambda v: "—" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"  # noqa: E731
    ratio = lambda v, b, unit: "—" if v is None or b is None else \
        f"{(v / b if unit != 'GB/s' else b / v):.2f}x"  # noqa: E731
    # the WebGPU configuration the WebGL2 one is compared with: same transport and thread
    ref = "sab-worker" if "sab-worker" in names else None
    rows = []
    for label, key, base_key, unit in ROWS:
        vals = [results[n][key] for n in names]
        rows.append([f"{label} [{unit}]"] + [fmt(v) for v in vals])
        if base_key:
            base = [results[n][base_key] for n in names]
            rows.append(["    raw JS in the same page"] + [fmt(v) for v in base])
            # above 1: webarray is slower than the baseline
            rows.append(["    ratio webarray / raw JS"] +
                        [ratio(v, b, unit) for v, b in zip(vals, base)])
        if ref and "webgl2" in names:
            # above 1: WebGL2 is slower than WebGPU
            rows.append(["    ratio WebGL2 / WebGPU (sab-worker)"] +
                        [ratio(results[n][key], results[ref][key], unit) if n == "webgl2" else ""
                         for n in names])
    adapter = next(iter(results.values()))["adapter"]
    adapters = {n: results[n]["adapter"].get("device") for n in names}
    print(c.table(["measure"] + names, rows,
                  title=f"webarray in headless Chromium on {adapter.get('device')} ({adapter.get('adapter_type')})"))
    rec = {
        "benchmark": "browser",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hardware": {"host": platform.node(), "cpu": c.cpu_name(), "cpu_count": os.cpu_count(),
                     "webgpu_adapter": adapter, "adapters": adapters,
                     "browser": "headless Chromium (Debian package)"},
        "versions": c.versions(),
        "settings": {**cfg, "repeat": args.repeat},
        "results": results,  # medians over the runs
        "runs": runs,
    }
    path = c.write_json(rec, args.json)
    print(f"\nrecord: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
