"""What float64 costs: webarray's float64 lanes (software binary64 everywhere, the device's own
64-bit floats where it has them) against its float32 and NumPy's float64.

    python -m benchmarks.float64                  # 2^20 and 2^22 elements (2^20 on a CPU adapter)
    python -m benchmarks.float64 --sizes 24 --quick
    python -m benchmarks.float64 --browser webgpu,webgl2   # and in Chromium (Pyodide)

Per op and size, million elements per second of: ``a * b + c`` (one fused kernel on
webarray), ``a / b`` and ``sqrt(a)``, on float32 and float64 arrays of positive values, and
GFLOP/s of square matrix products,
for webarray (float64 opted in with ``Device(..., float64=True)``, once per lane), NumPy, and CuPy/PyTorch
where present. webarray's float64 results are checked bit for bit against NumPy's (one
rounding per op: the fused ``a * b + c`` rounds the product and the sum, as NumPy does).

With ``--browser``, the same ops (and matmul at the smallest side) also run in headless
Chromium through Pyodide (``python -m webarray.browser run``) on each named backend, with
float64 opted in: the software lane (WebGPU and WebGL2 have no 64-bit floats), checked bit
for bit against Python's own floats on the first elements (Pyodide has no NumPy here),
next to NumPy measured natively in the same run. Without a GPU the browser's adapter is
SwiftShader, a CPU: compare ratios.

The table goes to stdout, the record to ``benchmarks/results/float64-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import _common as c

OPS = {"a*b+c": lambda xp, a, b, d: a * b + d, "a/b": lambda xp, a, b, d: a / b,
       "sqrt(a)": lambda xp, a, b, d: xp.sqrt(a)}
DEFAULT_SIZES = [1 << 20, 1 << 22]


def _variants(be: c.Backend):
    """(dtype, label, to_device) per array kind to measure: float32 and float64 everywhere;
    webarray's float64 on each lane the device has (software always, hardware where the
    adapter offers 64-bit floats to shaders), on devices of the same executor."""
    if be.name != "webarray":
        return [(np.float32, "float32", be.to_device), (np.float64, "float64", be.to_device)]
    from webarray._core.device import Device

    ex = be.xp.__array_namespace_info__().default_device().executor
    out = [(np.float32, "float32", be.to_device)]
    for lane in ("software", "hardware"):
        dev = Device(ex, float64=True, float64_lane="auto" if lane == "hardware" else lane)
        if dev.float64_lane == lane:
            out.append((np.float64, f"float64 {lane}", lambda a, dev=dev: be.xp.asarray(a, device=dev)))
    return out


def measure(backends, sizes, rounds, target_s, log) -> list[dict]:
    rows = []
    rng = np.random.default_rng(64)
    for n in sizes:
        host = {dt: [(rng.random(n) + 0.5).astype(dt) for _ in range(3)]
                for dt in (np.float32, np.float64)}
        for be in backends:
            for dt, label, to_device in _variants(be):
                args = host[dt]
                dev_args = [to_device(a) for a in args]
                be.sync()
                for op, f in OPS.items():
                    holder = [None]

                    def step(f=f, holder=holder, dev_args=dev_args):
                        holder[0] = f(be.xp, *dev_args)
                        be.force(holder[0])

                    step()
                    be.sync()
                    exact = None
                    if be.name == "webarray" and dt is np.float64:
                        want = f(np, *args)
                        got = np.from_dlpack(holder[0])
                        exact = bool((got.view(np.uint64) == want.view(np.uint64)).all())
                    iters = c.calibrate(step, be.sync, target_s)
                    per_iter = c.time_rounds(step, be.sync, iters, rounds)
                    t = c.median(per_iter)
                    rows.append({"backend": be.name, "dtype": label, "op": op, "n": n,
                                 "seconds": t, "rounds": per_iter, "melem_per_s": n / t / 1e6,
                                 "bit_exact_vs_numpy": exact})
                    log(f"  {be.name:9s} {label:16s} {op:8s} {c.size_label(n):>5s}: "
                        f"{n / t / 1e6:10.1f} Melem/s" + ("" if exact is None else
                                                         f"  bit-exact: {exact}"))
                    holder[0] = None
            be.sync()
    return rows


def measure_matmul(backends, sides, rounds, target_s, log) -> list[dict]:
    """GFLOP/s of an n x n matrix product, float32 and float64 (webarray's float64 checked
    against NumPy within BLAS's rounding)."""
    rows = []
    rng = np.random.default_rng(65)
    for n in sides:
        host = {dt: [rng.standard_normal((n, n)).astype(dt) for _ in range(2)]
                for dt in (np.float32, np.float64)}
        for be in backends:
            for dt, label, to_device in _variants(be):
                a, b = host[dt]
                da, db = to_device(a), to_device(b)
                holder = [None]

                def step(holder=holder, da=da, db=db):
                    holder[0] = da @ db
                    be.force(holder[0])

                step()
                be.sync()
                ok = None
                if be.name == "webarray" and dt is np.float64:
                    got = np.from_dlpack(holder[0])
                    bound = 2 * n * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))
                    ok = bool((np.abs(got - a @ b) <= bound).all())
                iters = c.calibrate(step, be.sync, target_s)
                per_iter = c.time_rounds(step, be.sync, iters, rounds)
                t = c.median(per_iter)
                rows.append({"backend": be.name, "dtype": label, "op": "matmul",
                             "n": n, "seconds": t, "rounds": per_iter,
                             "gflops": 2 * n ** 3 / t / 1e9, "within_blas_rounding": ok})
                log(f"  {be.name:9s} {label:16s} matmul {n:5d}: "
                    f"{2 * n ** 3 / t / 1e9:10.1f} GFLOP/s" + ("" if ok is None else f"  ok: {ok}"))
                holder[0] = None
            be.sync()
    return rows


BROWSER_SCRIPT = r'''
import json, math, random, statistics, sys, time
import webarray as xp
from webarray import fusion
from webarray._core.device import Device

cfg = json.loads(sys.argv[1])
ex = xp.__array_namespace_info__().default_device().executor
dev = Device(ex, float64=True)
now = time.perf_counter
OPS = {"a*b+c": lambda a, b, c: a * b + c, "a/b": lambda a, b, c: a / b,
       "sqrt(a)": lambda a, b, c: xp.sqrt(a)}
REF = {"a*b+c": lambda a, b, c: a * b + c, "a/b": lambda a, b, c: a / b,
       "sqrt(a)": lambda a, b, c: math.sqrt(a)}
bits = lambda v: v.hex()


def timed(fn):
    fusion.flush(fn())
    ex.sync()
    t = now()
    fusion.flush(fn())
    ex.sync()
    iters = max(1, min(100, round(cfg["target_s"] / max(now() - t, 1e-6))))
    per = []
    for _ in range(cfg["rounds"]):
        t = now()
        for _ in range(iters):
            fusion.flush(fn())
        ex.sync()
        per.append((now() - t) / iters)
    return statistics.median(per), per


rng = random.Random(64)
for n in cfg["sizes"]:
    host = [[rng.random() + 0.5 for _ in range(n)] for _ in range(3)]
    for label, dtype, d in (("float32", xp.float32, None), ("float64 software", xp.float64, dev)):
        args = [xp.asarray(h, dtype=dtype, device=d) for h in host]
        for op, f in OPS.items():
            exact = None
            if dtype is xp.float64:
                k = 2048
                got = f(*[a[:k] for a in args])._host_nested()
                exact = all(bits(g) == bits(REF[op](*v)) for g, v in zip(got, zip(*[h[:k] for h in host])))
            t, per = timed(lambda f=f: f(*args))
            print("F64ROW " + json.dumps({"dtype": label, "op": op, "n": n, "seconds": t, "rounds": per,
                                          "melem_per_s": n / t / 1e6, "bit_exact_vs_numpy": exact}), flush=True)
for m in cfg["sides"]:
    rows = [[rng.gauss(0, 1) for _ in range(m * m)]
            for _ in range(2)]
    for label, dtype, d in (("float32", xp.float32, None), ("float64 software", xp.float64, dev)):
        a, b = (xp.reshape(xp.asarray(r, dtype=dtype, device=d), (m, m)) for r in rows)
        ok = None
        if dtype is xp.float64:  # the first rows within BLAS's rounding bound
            got = (a[:2] @ b)._host_nested()
            A = [rows[0][i * m:(i + 1) * m] for i in range(2)]
            B = [rows[1][j::m] for j in range(m)]
            ok = all(abs(got[i][j] - math.fsum(p * q for p, q in zip(A[i], B[j])))
                     <= 2 * m * 2.0 ** -52 * math.fsum(abs(p * q) for p, q in zip(A[i], B[j]))
                     for i in range(2) for j in range(m))
        t, per = timed(lambda a=a, b=b: a @ b)
        print("F64ROW " + json.dumps({"dtype": label, "op": "matmul", "n": m, "seconds": t, "rounds": per,
                                      "gflops": 2 * m ** 3 / t / 1e9, "within_blas_rounding": ok}), flush=True)
print("adapter " + json.dumps(dict(ex.adapter_info)))
'''


def measure_browser(backend: str, sizes, sides, rounds, target_s, log) -> list[dict]:
    """The rows of BROWSER_SCRIPT, run in Chromium on ``backend`` (webgpu or webgl2)."""
    import json
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    cfg = {"sizes": sizes, "sides": sides, "rounds": rounds, "target_s": target_s}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "float64_browser.py"
        script.write_text(BROWSER_SCRIPT)
        cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--backend", backend,
               "--env", "WEBARRAY_FLOAT64=1", "--timeout", "2400", "--", json.dumps(cfg)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=2500, cwd=c.ROOT,
                           env={**os.environ, "PYTHONPATH": str(c.ROOT / "src")})
    rows, adapter = [], {}
    for line in r.stdout.splitlines():
        if line.startswith("F64ROW "):
            row = {"backend": f"browser {backend}", **json.loads(line[7:])}
            rows.append(row)
            rate = (f"{row['melem_per_s']:10.1f} Melem/s" if "melem_per_s" in row
                    else f"{row['gflops']:10.2f} GFLOP/s")
            log(f"  browser {backend} {row['dtype']:16s} {row['op']:8s} {c.size_label(row['n']):>5s}: {rate}")
        elif line.startswith("adapter "):
            adapter = json.loads(line[8:])
    if r.returncode != 0 or not rows:
        tail = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["?"])[-1]
        log(f"  browser {backend}: failed (status {r.returncode}): {tail[:300]}")
    for row in rows:
        row["adapter"] = adapter.get("description") or adapter.get("device") or adapter.get("vendor")
    return rows


def report(rows) -> str:
    labels = list(dict.fromkeys((r["backend"], r["dtype"]) for r in rows))
    keys = list(dict.fromkeys((r["op"], r["n"]) for r in rows))
    by = {(r["backend"], r["dtype"], r["op"], r["n"]): r.get("melem_per_s", r.get("gflops"))
          for r in rows}
    body = [[op, str(n) if op == "matmul" else c.size_label(n)]
            + [f"{by[(b, d, op, n)]:.4g}" if (b, d, op, n) in by else "-"
                                     for b, d in labels] for op, n in keys]
    return c.table(["op", "n"] + [f"{b} {d}" for b, d in labels], body,
                   "million elements per second; matmul: GFLOP/s (higher is better)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.float64", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes, help="comma-separated sizes (powers of two up to 40)")
    p.add_argument("--matmul", help="comma-separated matrix sides (default 256,1024; 128 on a "
                                    "CPU adapter; 0: none)")
    p.add_argument("--browser", default="", help="comma-separated browser backends to run the "
                   "ops in too (webgpu, webgl2; default: none)")
    c.add_common_args(p, "float64")
    args = p.parse_args(argv)
    backends, skipped = c.open_backends(args.backends)
    sizes = args.sizes or ([1 << 20] if c.on_cpu_adapter(backends) else DEFAULT_SIZES)
    rounds, target = (3, 0.05) if args.quick else (5, 0.2)
    cpu = c.on_cpu_adapter(backends)
    sides = ([int(v) for v in args.matmul.split(",") if int(v) > 0] if args.matmul
             else [128] if cpu else [256, 1024])
    rows = measure(backends, sizes, rounds, target, c.log)
    rows += measure_matmul(backends, sides, rounds, target, c.log)
    for backend in [b.strip() for b in args.browser.split(",") if b.strip()]:
        c.log(f"browser: {backend} ...")
        rows += measure_browser(backend, sizes, sides[:1], rounds, target, c.log)
    rec = c.record("float64", backends, skipped,
                   method={"rounds": rounds, "round_target_s": target, "statistic": "median",
                           "sync": c.SYNC, "values": "uniform in [0.5, 1.5)"},
                   rows=rows)
    return c.finish(rec, args.out, report(rows))


if __name__ == "__main__":
    sys.exit(main())
