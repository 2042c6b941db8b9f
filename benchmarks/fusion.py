"""Lazy fusion: single-op overhead, a 10-op chain, and the Mandelbrot loop, plain and as a
hand-written kernel, against NumPy, CuPy and PyTorch.

    python -m benchmarks.fusion                    # every backend found here
    python -m benchmarks.fusion --quick --size 256 --iters 100
    python -m benchmarks.fusion --browser webgpu,webgl2 --size 256   # in headless Chromium

Rows:
- *single op*: µs per ``a + b`` on 16 elements, each result forced (what a loop of
  separate ops costs), webarray with fusion on and off: fusion must not slow single ops.
- *10-op chain*: ``chain()`` below over two float32 arrays of 2^k elements. The floor reads
  both inputs once and writes the output once (12 bytes per element); GB/s is that floor over
  the time, and the ratio compares it with one ``a + b`` (the same 12 bytes per element,
  which streams at the copy bandwidth). Fused, the chain is one kernel and should reach the
  same rate.
- *Mandelbrot*: ``mandelbrot_plain`` (NumPy style: every op a whole-array op) and the same
  recurrence as one user kernel (``ElementwiseKernel``; WGSL in webarray.cupy, CUDA C in
  CuPy), on a size×size grid for ``iters`` iterations. Both count the iterations after which
  |z| < 2, so their images are identical to NumPy's.

With ``--browser`` the same rows run inside Pyodide in headless Chromium (``python -m
webarray.browser run``), once per backend; NumPy stays on the host and checks the image.
The user kernel there is CuPy's C-like form, translated to WGSL or GLSL by webarray.cupy.

The table goes to stdout, the record to ``benchmarks/results/fusion-<gpu>.json`` (with
``--browser``: ``fusion-browser-<adapter>.json``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import _common as c


def chain(xp, a, b):
    """Ten elementwise ops over two inputs."""
    y = a * 1.5 + b
    y = y * y - a
    y = xp.abs(y) * 0.25
    y = xp.sqrt(y + 1.0)
    return y - b * 0.5


def chain_numpy(a, b):
    f = np.float32
    y = a * f(1.5) + b
    y = y * y - a
    y = np.abs(y) * f(0.25)
    y = np.sqrt(y + f(1.0))
    return y - b * f(0.5)


def _as_int(xp, mask):
    if hasattr(xp, "astype"):
        return xp.astype(mask, xp.int32)
    return mask.to(xp.int32) if hasattr(mask, "to") else mask.astype(xp.int32)


def mandelbrot_plain(xp, re, im, iters):
    """Iterations after which |z| < 2 (z ← z² + c from z = 0), in whole-array ops."""
    zr = xp.zeros_like(re)
    zi = xp.zeros_like(re)
    count = xp.zeros_like(re, dtype=xp.int32)
    for _ in range(iters):
        zr, zi = zr * zr - zi * zi + re, 2.0 * zr * zi + im
        count += _as_int(xp, zr * zr + zi * zi < 4.0)
    return count


WGSL_BODY = """var zr = 0.0; var zi = 0.0; var c = 0;
for (var k = 0; k < iters; k++) {
    let t = zr * zr - zi * zi + re;
    zi = 2.0 * zr * zi + im;
    zr = t;
    c += select(0, 1, zr * zr + zi * zi < 4.0);
}
count = c;"""

CUDA_BODY = """float zr = 0.0f, zi = 0.0f; int c = 0;
for (int k = 0; k < iters; k++) {
    float t = zr * zr - zi * zi + re;
    zi = 2.0f * zr * zi + im;
    zr = t;
    c += (zr * zr + zi * zi < 4.0f);
}
count = c;"""


def mandelbrot_kernel(be: c.Backend):
    """A function (re, im, iters) -> counts running one user kernel, or None."""
    if be.name == "cupy":
        k = be.xp.ElementwiseKernel("float32 re, float32 im, int32 iters", "int32 count",
                                    CUDA_BODY, "webarray_bench_mandelbrot")
        return lambda re, im, iters: k(re, im, np.int32(iters))
    if be.name == "webarray":
        try:
            import webarray.cupy as wcp
        except ImportError:
            return None
        k = wcp.ElementwiseKernel("f32 re, f32 im, i32 iters", "i32 count", WGSL_BODY,
                                  "webarray_bench_mandelbrot")
        return lambda re, im, iters: k(re, im, np.int32(iters))
    return None


def grid(size: int):
    y, x = np.mgrid[-1.25:1.25:size * 1j, -2.0:0.5:size * 1j]
    return x.astype(np.float32), y.astype(np.float32)


def variants(be: c.Backend):
    """(label, setup) per way of running a backend: webarray fused and eager."""
    if be.name != "webarray":
        return [(be.name, lambda: None)]
    fusion = be.xp.fusion
    return [("webarray", lambda: fusion.set_enabled(True)),
            ("webarray-eager", lambda: fusion.set_enabled(False))]


def single_op(backends, count, rounds, log) -> list[dict]:
    rows = []
    rng = np.random.default_rng(3)
    a, b = rng.random(16, dtype=np.float32), rng.random(16, dtype=np.float32)
    for be in backends:
        da, db = be.to_device(a), be.to_device(b)
        for label, setup in variants(be):
            setup()
            times = []
            for r in range(rounds + 2):  # two warm-up rounds
                be.sync()
                t0 = time.perf_counter()
                for _ in range(count):
                    out = da + db
                    be.force(out)
                be.sync()
                times.append((time.perf_counter() - t0) / count)
            row = {"backend": label, "us_per_op": c.median(times[2:]) * 1e6}
            rows.append(row)
            log(f"  {label:15s} single add, forced: {row['us_per_op']:.2f} us/op")
    _restore(backends)
    return rows


def chains(backends, sizes, rounds, target, log) -> list[dict]:
    rows = []
    rng = np.random.default_rng(5)
    for n in sizes:
        a = rng.random(n, dtype=np.float32)
        b = rng.random(n, dtype=np.float32)
        want = chain_numpy(a, b)
        for be in backends:
            da, db = be.to_device(a), be.to_device(b)
            for label, setup in variants(be):
                setup()
                xp = be.xp
                holder = [None]
                res = {}
                for name, fn in (("chain", lambda: chain(xp, da, db)), ("add", lambda: da + db)):
                    def step(fn=fn):
                        holder[0] = fn()
                        be.force(holder[0])

                    iters = c.calibrate(step, be.sync, target)
                    t = c.median(c.time_rounds(step, be.sync, iters, rounds))
                    res[name] = t
                got = np.asarray(be.to_numpy(chain(xp, da, db)))
                err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30)))
                gbs = 12 * n / res["chain"] / 1e9
                row = {"backend": label, "n": n, "chain_ms": res["chain"] * 1e3,
                       "add_ms": res["add"] * 1e3, "chain_floor_gbs": gbs,
                       "add_gbs": 12 * n / res["add"] / 1e9,
                       "ratio_to_add": res["add"] / res["chain"], "max_rel_err": err}
                rows.append(row)
                log(f"  {label:15s} 10-op chain 2^{n.bit_length() - 1}: {row['chain_ms']:.3f} ms, "
                    f"{gbs:.1f} GB/s of the floor, {row['ratio_to_add']:.2f} of one add")
            del da, db
            be.sync()
    _restore(backends)
    return rows


def mandelbrots(backends, size, iters, rounds, log) -> list[dict]:
    rows = []
    re, im = grid(size)
    with np.errstate(over="ignore", invalid="ignore"):
        want = mandelbrot_plain(np, re, im, iters)
    for be in backends:
        dre, dim = be.to_device(re), be.to_device(im)
        runs = [(label, setup, lambda: mandelbrot_plain(be.xp, dre, dim, iters))
                for label, setup in variants(be)]
        kernel = mandelbrot_kernel(be)
        if kernel is not None:
            runs.append((f"{be.name}-kernel", lambda: None, lambda: kernel(dre, dim, iters)))
        for label, setup, fn in runs:
            setup()
            times = []
            for r in range(rounds + 1):  # one warm-up run (kernel compiles)
                be.sync()
                t0 = time.perf_counter()
                with np.errstate(over="ignore", invalid="ignore"):
                    out = fn()
                be.force(out)
                be.sync()
                times.append(time.perf_counter() - t0)
            got = np.asarray(be.to_numpy(out))
            mismatches = int(np.count_nonzero(got != want))
            row = {"backend": label, "size": size, "iters": iters,
                   "seconds": c.median(times[1:]), "mismatches": mismatches}
            rows.append(row)
            log(f"  {label:15s} mandelbrot {size}x{size}x{iters}: {row['seconds'] * 1e3:.1f} ms, "
                f"{mismatches} pixels differ from NumPy")
    _restore(backends)
    return rows


def _restore(backends):
    for be in backends:
        if be.name == "webarray":
            be.xp.fusion.set_enabled(True)


def report(single, chain_rows, mandel) -> str:
    out = [c.table(["backend", "µs per forced add (16 elements)"],
                   [[r["backend"], f"{r['us_per_op']:.2f}"] for r in single], "single op")]
    out.append(c.table(
        ["backend", "n", "chain ms", "floor GB/s", "add GB/s", "chain/add"],
        [[r["backend"], c.size_label(r["n"]), f"{r['chain_ms']:.3f}",
          f"{r['chain_floor_gbs']:.1f}", f"{r['add_gbs']:.1f}", f"{r['ratio_to_add']:.2f}"]
         for r in chain_rows], "10-op float32 chain"))
    base = {}
    for r in mandel:
        base.setdefault(r["backend"].split("-")[0], {})[r["backend"]] = r["seconds"]
    rows = []
    for r in mandel:
        fam = base[r["backend"].split("-")[0]]
        k = fam.get(r["backend"].split("-")[0] + "-kernel")
        rows.append([r["backend"], f"{r['size']}x{r['size']}x{r['iters']}",
                     f"{r['seconds'] * 1e3:.1f}", f"{r['seconds'] / k:.2f}" if k else "",
                     str(r["mismatches"])])
    out.append(c.table(["backend", "grid", "ms", "x its kernel", "pixels != NumPy"], rows,
                       "Mandelbrot"))
    return "\n\n".join(out)


# -- the same rows inside the browser ------------------------------------------------------

BROWSER_SCRIPT = r'''
import array, base64, json, sys, time
import webarray as xp
import webarray.cupy as wcp
from webarray._core import graph as _graph, launch

arg = sys.argv[1]
cfg = json.loads(open(arg[1:]).read() if arg.startswith("@") else arg)
exec(cfg["defs"])  # chain() and mandelbrot_plain(), as in benchmarks/fusion.py
n, iters = cfg["size"], cfg["iters"]
dev = xp.__array_namespace_info__().default_device()


def grid(key):
    return xp.reshape(xp.asarray(array.array("f", base64.b64decode(cfg[key]))), (n, n))


def sync():
    xp.fusion.flush()
    dev.synchronize()


def median(v):
    return sorted(v)[len(v) // 2]


def per_op(count):
    a, b = xp.ones(16), xp.ones(16)
    out = {}
    for label, on in (("fused", True), ("eager", False)):
        xp.fusion.set_enabled(on)
        times = []
        for r in range(5):
            sync()
            t0 = time.perf_counter()
            for _ in range(count):
                xp.fusion.flush(a + b)
            sync()
            times.append((time.perf_counter() - t0) / count)
        out[label] = median(times[2:]) * 1e6
    xp.fusion.set_enabled(True)
    return out


def chains(m):
    a = xp.linspace(0.0, 1.0, m)
    b = xp.linspace(1.0, 2.0, m)
    out = {}
    for label, on in (("fused", True), ("eager", False)):
        xp.fusion.set_enabled(on)
        for name, fn in (("chain", lambda: chain(xp, a, b)), ("add", lambda: a + b)):
            times = []
            for r in range(5):
                sync()
                t0 = time.perf_counter()
                xp.fusion.flush(fn())
                sync()
                times.append(time.perf_counter() - t0)
            out[f"{label}_{name}_ms"] = median(times[2:]) * 1e3
    xp.fusion.set_enabled(True)
    return out


re, im = grid("re"), grid("im")
xp.fusion.flush(re, im)
kernel = wcp.ElementwiseKernel("float32 re, float32 im, int32 iters", "int32 count",
                               cfg["c_body"], "webarray_bench_mandelbrot")
runs = {"plain": lambda: mandelbrot_plain(xp, re, im, iters),
        "eager": lambda: mandelbrot_plain(xp, re, im, iters),
        "kernel": lambda: kernel(re, im, iters)}
mandel = {}
for label, fn in runs.items():
    xp.fusion.set_enabled(label != "eager")
    times = []
    for r in range(cfg["rounds"] + 1):
        sync()
        t0 = time.perf_counter()
        out = fn()
        xp.fusion.flush(out)
        sync()
        times.append(time.perf_counter() - t0)
    xp.fusion.set_enabled(True)
    mandel[label] = {"first_s": times[0], "seconds": median(times[1:]),
                     "counts": base64.b64encode(out._raw()).decode()}
print("WEBARRAY_FUSION_JSON " + json.dumps({
    "backend": dev.backend, "adapter": dev.executor.adapter_info,
    "single_op_us": per_op(cfg["count"]), "chain": chains(cfg["chain_n"]), "mandelbrot": mandel}))
'''


def browser(backends_: list[str], size: int, iters: int, chain_n: int, count: int, rounds: int,
            timeout: float, log) -> list[dict]:
    import base64
    import inspect
    import json
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    re, im = grid(size)
    with np.errstate(over="ignore", invalid="ignore"):
        want = mandelbrot_plain(np, re, im, iters)
    defs = inspect.getsource(chain) + "\n" + inspect.getsource(_as_int) + "\n" + \
        inspect.getsource(mandelbrot_plain)
    cfg = {"size": size, "iters": iters, "chain_n": chain_n, "count": count, "rounds": rounds,
           "defs": defs, "c_body": CUDA_BODY,
           "re": base64.b64encode(re.tobytes()).decode(),
           "im": base64.b64encode(im.tobytes()).decode()}
    rows = []
    for backend in backends_:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "fusion_browser.py"
            script.write_text(BROWSER_SCRIPT)
            arg = Path(tmp) / "cfg.json"
            arg.write_text(json.dumps(cfg))
            cmd = [sys.executable, "-m", "webarray.browser", "run", str(script), "--backend",
                   backend, "--file", str(arg), "--timeout", str(timeout), "--",
                   "@" + arg.name]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 120,
                               cwd=c.ROOT, env={**os.environ, "PYTHONPATH": str(c.ROOT / "src")})
        line = next((x for x in r.stdout.splitlines() if x.startswith("WEBARRAY_FUSION_JSON ")),
                    None)
        if line is None:
            raise RuntimeError(f"{backend}: the browser run failed (status {r.returncode}):\n"
                               f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        res = json.loads(line.split(" ", 1)[1])
        for label, m in res["mandelbrot"].items():
            got = np.frombuffer(base64.b64decode(m.pop("counts")), np.int32).reshape(want.shape)
            m["mismatches"] = int(np.count_nonzero(got != want))
        row = {"backend": backend, "adapter": res["adapter"], "size": size, "iters": iters,
               "chain_n": chain_n, **res}
        rows.append(row)
        mb = res["mandelbrot"]
        log(f"  {backend}: single add {res['single_op_us']['fused']:.0f} us fused, "
            f"{res['single_op_us']['eager']:.0f} us eager; chain fused "
            f"{res['chain']['fused_chain_ms']:.2f} ms, eager {res['chain']['eager_chain_ms']:.2f} ms; "
            f"mandelbrot plain {mb['plain']['seconds']:.2f} s, eager {mb['eager']['seconds']:.2f} s, "
            f"kernel {mb['kernel']['seconds']:.2f} s (mismatches "
            f"{mb['plain']['mismatches']}/{mb['eager']['mismatches']}/{mb['kernel']['mismatches']})")
    return rows


def browser_report(rows) -> str:
    out = []
    for r in rows:
        mb, ch = r["mandelbrot"], r["chain"]
        out.append(c.table(
            ["measure", "fused", "eager", "user kernel"],
            [["single add, forced (µs)", f"{r['single_op_us']['fused']:.0f}",
              f"{r['single_op_us']['eager']:.0f}", ""],
             [f"10-op chain 2^{r['chain_n'].bit_length() - 1} (ms)",
              f"{ch['fused_chain_ms']:.2f}", f"{ch['eager_chain_ms']:.2f}", ""],
             [f"one add 2^{r['chain_n'].bit_length() - 1} (ms)", f"{ch['fused_add_ms']:.2f}",
              f"{ch['eager_add_ms']:.2f}", ""],
             [f"Mandelbrot {r['size']}x{r['size']}x{r['iters']} (s)",
              f"{mb['plain']['seconds']:.2f}", f"{mb['eager']['seconds']:.2f}",
              f"{mb['kernel']['seconds']:.2f}"],
             ["  first run, with compiles (s)", f"{mb['plain']['first_s']:.2f}",
              f"{mb['eager']['first_s']:.2f}", f"{mb['kernel']['first_s']:.2f}"],
             ["  x the user kernel", f"{mb['plain']['seconds'] / mb['kernel']['seconds']:.2f}",
              f"{mb['eager']['seconds'] / mb['kernel']['seconds']:.2f}", "1.00"],
             ["  pixels != NumPy", str(mb["plain"]["mismatches"]),
              str(mb["eager"]["mismatches"]), str(mb["kernel"]["mismatches"])]],
            f"browser, {r['backend']} ({r['adapter'].get('device') or r['adapter'].get('renderer', '')})"))
    return "\n\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fusion", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes,
                   help="chain sizes (default 20,24 and 26 on a GPU; 20 on a CPU adapter)")
    p.add_argument("--size", type=int, help="Mandelbrot grid side (default 1024)")
    p.add_argument("--iters", type=int, default=500, help="Mandelbrot iterations (default 500)")
    p.add_argument("--count", type=int, default=500, help="single ops per round (default 500)")
    p.add_argument("--browser", help="run in headless Chromium on these backends instead "
                   "(comma-separated: webgpu, webgl2)")
    p.add_argument("--timeout", type=float, default=900, help="per browser run (s)")
    c.add_common_args(p, "fusion")
    args = p.parse_args(argv)
    if args.browser:
        size = args.size or 256
        rows = browser([b.strip() for b in args.browser.split(",")], size, args.iters,
                       (args.sizes or [1 << 20])[0], min(args.count, 200),
                       1 if args.quick else 3, args.timeout, c.log)
        rec = c.record("fusion-browser", [], {}, method={
            "statistic": "median", "dtype": "float32",
            "where": "Pyodide in headless Chromium (python -m webarray.browser run)"},
            browser=rows)
        rec["hardware"]["webgpu_adapter"] = rows[0]["adapter"]
        return c.finish(rec, args.out, browser_report(rows))

    backends, skipped = c.open_backends(args.backends)
    cpu = c.on_cpu_adapter(backends)
    sizes = args.sizes or ([1 << 20] if cpu else [1 << 20, 1 << 24, 1 << 26])
    size = args.size or (256 if args.quick else 1024)
    rounds, target = (3, 0.05) if args.quick else (5, 0.2)
    log = c.log
    log("single op:")
    single = single_op(backends, args.count, rounds, log)
    log("10-op chain:")
    chain_rows = chains(backends, sizes, rounds, target, log)
    log("mandelbrot:")
    mandel = mandelbrots(backends, size, args.iters, 1 if args.quick else 3, log)
    rec = c.record("fusion", backends, skipped,
                   method={"rounds": rounds, "statistic": "median", "dtype": "float32",
                           "chain_bytes": "12 per element (two inputs read, one output written)",
                           "sync": c.SYNC},
                   single_op=single, chain=chain_rows, mandelbrot=mandel)
    return c.finish(rec, args.out, report(single, chain_rows, mandel))


if __name__ == "__main__":
    raise SystemExit(main())
