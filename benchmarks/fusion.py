"""Lazy fusion: single-op overhead, a 10-op chain, and the Mandelbrot loop, plain and as a
hand-written kernel, against NumPy, CuPy and PyTorch.

    python -m benchmarks.fusion                    # every backend found here
    python -m benchmarks.fusion --quick --size 256 --iters 100

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

The table goes to stdout, the record to ``benchmarks/results/fusion-<gpu>.json``.
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fusion", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes,
                   help="chain sizes (default 20,24 and 26 on a GPU; 20 on a CPU adapter)")
    p.add_argument("--size", type=int, help="Mandelbrot grid side (default 1024)")
    p.add_argument("--iters", type=int, default=500, help="Mandelbrot iterations (default 500)")
    p.add_argument("--count", type=int, default=500, help="single ops per round (default 500)")
    c.add_common_args(p, "fusion")
    args = p.parse_args(argv)

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
