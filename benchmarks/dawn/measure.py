"""The browser path's figures, measured from inside Python: the same script runs in Pyodide
under Node on Dawn (benchmarks/dawn/run.mjs) and in CPython on wgpu-native, so the two paths
are measured the same way in the same run.

    node benchmarks/dawn/run.mjs benchmarks/dawn/measure.py [--quick] [--parts host,readback,...]
    PYTHONPATH=src python3 benchmarks/dawn/measure.py [--quick]          # the native path

Parts (each prints a line ``WEBARRAY_DAWN_PART <name> <json>`` as soon as it is done, so a
crash later in the run keeps what came before; the last line, ``WEBARRAY_DAWN_JSON <json>``,
holds them all):

- info: the adapter, the transport, Python's version;
- ping: a request that does no GPU work (the transport's round trip), µs;
- host: issue-only µs per op of ``c = a + b`` (independent, every result kept) and
  ``x = x + b`` (dependent) on 16-element float32 arrays, fused (lazy, the default) and eager
  (``fusion.set_enabled(False)``: one dispatch per op), as benchmarks/host.py times them;
- readback: ``executor.read`` of 64 B (median, 95th percentile, slowest) and 4 MiB, µs;
- upload: ``executor.write`` of 4 MiB (in the executor's ring-sized pieces), ms and GB/s;
- mandelbrot: examples/mandelbrot_numpy_style.py (plain loop, fused by the lazy graph) and its
  ``cupy.fuse`` (webarray.jit) form, ms per call, with the examples' checksum;
- kernel: examples/mandelbrot_kernel.py's ElementwiseKernel in its WGSL form, ms per call;
- matmul: float32 ``A @ A`` at 1024 and 4096 (data made on the device), GFLOP/s, with a
  check of one row against a dot product computed in Python from read-back data;
- fft: complex64 transforms of 2^20 points (one row: two passes of 1024) and of 1024 rows
  of 1024 (one pass of 1024 on a GPU), µs, checked by Parseval's identity; ``--fft-rows k``
  makes each call k such transforms (µs per transform);
- reduce: float32 ``sum`` and ``max`` of 2^24 elements and ``sum(x * y)`` (the product
  computed in the sum's first pass), GB/s of the arrays read, checked against closed forms
  (2^20 with --quick, 2^k with ``--reduce-log2 k``).

A call's time is the larger of the host's issue and the GPU's work: under Pyodide the issue
of an fft or a sum of 2^24 is the larger (~180 µs against native's ~37 on an H200), so
comparing kernels (``--fft-group``, ``--fft-radix32``, ``--reduce-per-thread``,
``--matmul-shape``) under Tint wants ``--fft-rows 16`` and ``--reduce-log2 27`` or so.

Times are medians of rounds that end with a device sync, after a warm-up that compiles the
kernels (benchmarks/_common.py's method).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))

import webarray as xp  # noqa: E402
import webarray.cupy as cp  # noqa: E402
from webarray import fusion  # noqa: E402

PARTS = ("info", "ping", "host", "readback", "upload", "mandelbrot", "kernel", "matmul", "fft",
         "reduce")
now = time.perf_counter
med = statistics.median
dev = xp.__array_namespace_info__().default_device()
ex = dev.executor


def sync():
    fusion.flush()
    dev.synchronize()


def timed(fn, rounds: int, target_s: float = 0.25) -> float:
    """Seconds per call: median of rounds, each of enough calls to last about target_s and
    ending with a sync, after a compiling call and a sizing call."""
    fn()
    sync()
    t0 = now()
    fn()
    sync()
    once = now() - t0
    iters = max(1, min(200, round(target_s / max(once, 1e-6))))
    ts = []
    for _ in range(rounds):
        t0 = now()
        for _ in range(iters):
            fn()
        sync()
        ts.append((now() - t0) / iters)
    return med(ts)


def part_info(cfg):
    import platform

    return {"adapter": dict(ex.adapter_info), "transport": getattr(ex, "transport", "native"),
            "executor": type(ex).__module__, "python": sys.version.split()[0],
            "platform": sys.platform, "machine": platform.machine(),
            "webarray": getattr(xp, "__version__", None)}


def part_ping(cfg):
    if not hasattr(ex, "ping"):
        return {"skipped": "this executor has no ping"}
    for _ in range(50):
        ex.ping()
    n = cfg["pings"]

    def one():
        t = now()
        for _ in range(n):
            ex.ping()
        return (now() - t) / n * 1e6

    return {"ping_us": med(one() for _ in range(cfg["rounds"]))}


def _loop(kind, a, b, count):
    if kind == "independent":
        keep = []
        t0 = now()
        for _ in range(count):
            keep.append(a + b)
        return now() - t0
    x = a
    t0 = now()
    for _ in range(count):
        x = x + b
    return now() - t0


def part_host(cfg):
    out = {}
    count = cfg["ops"]
    for mode, fused in (("fused", True), ("eager", False)):
        fusion.set_enabled(fused)
        try:
            a, b = xp.ones(16, dtype=xp.float32), xp.ones(16, dtype=xp.float32)
            for kind in ("independent", "dependent"):
                _loop(kind, a, b, min(count, 200))
                sync()
                ts = []
                for _ in range(cfg["rounds"]):
                    ts.append(_loop(kind, a, b, count) / count * 1e6)
                    sync()
                out[f"{kind}_{mode}_us"] = med(ts)
                out[f"{kind}_{mode}_rounds_us"] = ts
        finally:
            fusion.set_enabled(True)
    out["count"] = count
    return out


def part_readback(cfg):
    big = 4 << 20
    h = ex.alloc(big)
    try:
        ex.write(h, 0, bytes(big))
        ex.sync() if hasattr(ex, "sync") else None

        def each(nbytes, times):
            ts = []
            for _ in range(times):
                t = now()
                ex.read(h, 0, nbytes)
                ts.append((now() - t) * 1e6)
            return ts

        each(64, 5)
        r = sorted(each(64, cfg["reads"]))
        each(big, 2)
        big_ts = each(big, cfg["big_reads"])
        return {"read64_us": med(r), "read64_p95_us": r[int(0.95 * (len(r) - 1))], "read64_max_us": r[-1],
                "read4MiB_us": med(big_ts), "read4MiB_GBps": big / med(big_ts) / 1e3}
    finally:
        ex.free(h)


def part_upload(cfg):
    n = 4 << 20
    data = bytes(range(256)) * (n // 256)
    h = ex.alloc(n)
    try:
        ts = []
        for _ in range(cfg["big_reads"]):
            t = now()
            ex.write(h, 0, data)
            ex.read(h, 0, 4)  # the write has landed
            ts.append(now() - t)
        ok = ex.read(h, 0, n) == data
        return {"write4MiB_ms": med(ts) * 1e3, "write4MiB_GBps": n / med(ts) / 1e9, "roundtrip_ok": ok}
    finally:
        ex.free(h)


def part_mandelbrot(cfg):
    from mandelbrot_numpy_style import checksum, grid, mandelbrot

    size, iters = cfg["size"], cfg["iters"]
    real, imag = grid(cp, size)
    out = {"size": size, "iters": iters}
    res = {}
    res["c"] = mandelbrot(real, imag, iters)  # a whole call first: every chain compiled
    sync()
    ts = []
    for _ in range(cfg["mandel_rounds"]):
        t = now()
        res["c"] = mandelbrot(real, imag, iters)
        sync()
        ts.append(now() - t)
    out["plain_ms"] = med(ts) * 1e3
    out["plain_rounds_ms"] = [t * 1e3 for t in ts]
    out["plain_checksum"] = checksum(res["c"])
    try:
        traced = cp.fuse(mandelbrot)
        out["jit_ms"] = timed(lambda: res.__setitem__("c", traced(real, imag, iters)), cfg["rounds"]) * 1e3
        out["jit_checksum"] = checksum(res["c"])
    except Exception as e:  # the jit row is extra: keep the rest
        out["jit_error"] = f"{type(e).__name__}: {e}"
    return out


def part_kernel(cfg):
    from mandelbrot_kernel import make_kernel
    from mandelbrot_numpy_style import checksum, grid

    size, iters = cfg["size"], cfg["iters"]
    real, imag = grid(cp, size)
    kern = make_kernel("wgsl")
    res = {}
    t = timed(lambda: res.__setitem__("c", kern(real, imag, iters)), cfg["rounds"])
    return {"size": size, "iters": iters, "wgsl_ms": t * 1e3, "wgsl_checksum": checksum(res["c"])}


def _floats(arr):
    return list(struct.unpack(f"<{arr.size}f", cp.asarray(arr).tobytes()))


def part_matmul(cfg):
    out = {}
    for n in cfg["matmul"]:
        a = xp.reshape(xp.sin(xp.arange(n * n, dtype=xp.float32) * 0.001), (n, n))
        b = xp.reshape(xp.cos(xp.arange(n * n, dtype=xp.float32) * 0.0007), (n, n))
        sync()
        res = {}
        t = timed(lambda: res.__setitem__("c", a @ b), cfg["rounds"], target_s=0.3)
        out[f"{n}_GFLOPs"] = 2 * n**3 / t / 1e9
        out[f"{n}_ms"] = t * 1e3
        # one row of the product against Python's own dot products over read-back data
        i = n // 3
        row = _floats(a[i, :])
        cols = [_floats(b[:, j]) for j in (0, n // 2, n - 1)]
        got = _floats(res["c"][i, :])
        err = 0.0
        for j, col in zip((0, n // 2, n - 1), cols):
            ref = sum(x * y for x, y in zip(row, col))
            err = max(err, abs(got[j] - ref) / max(1.0, abs(ref)))
        out[f"{n}_max_rel_err"] = err
        del a, b, res
    return out


def part_fft(cfg):
    """µs per transform: calls of ``fft_rows`` rows each (more rows make the GPU's time, not
    the host's issue, what a call costs: comparing kernels under a slow interpreter)."""
    out = {}
    k = cfg["fft_rows"]
    for label, shape in (("2^20", (k, 1 << 20)), ("1024x1024", (k * 1024, 1024))):
        n = k << 20
        t = xp.reshape(xp.arange(n, dtype=xp.float32), shape)
        x = xp.astype(xp.sin(t * 0.001) + xp.cos(t * 0.0003), xp.complex64)
        sync()
        res = {"x": x}
        s = timed(lambda res=res: res.__setitem__("y", xp.fft.fft(res["x"])), cfg["rounds"],
                  target_s=0.3)
        out[f"{label}_us"] = s * 1e6 / k
        # Parseval, row by row: sum |X|^2 = m * sum |x|^2 (m the transform's length)
        m = shape[-1]
        lhs = float(xp.sum(xp.abs(res["y"]) ** 2))
        rhs = m * float(xp.sum(xp.abs(x) ** 2))
        out[f"{label}_parseval_rel_err"] = abs(lhs - rhs) / rhs
        del t, x, res
    return out


def part_reduce(cfg):
    n = cfg["reduce"]
    t = xp.arange(n, dtype=xp.int32)
    x = xp.astype(t % 7, xp.float32) - 3.0  # sums exact in float32: partial sums are small
    y = xp.astype(t % 5, xp.float32) * 0.5
    del t
    sync()
    out = {}
    res = {}
    for name, f, nbytes, want in (
            ("sum", lambda: xp.sum(x), 4 * n, None),
            ("max", lambda: xp.max(x), 4 * n, 3.0),
            ("sum_xy", lambda: xp.sum(x * y), 8 * n, None)):
        s = timed(lambda: res.__setitem__(name, f()), cfg["rounds"], target_s=0.3)
        out[f"{name}_GBs"] = nbytes / s / 1e9
        out[f"{name}_value"] = float(res[name])
    # closed forms over whole periods of 7 (x) and 35 (x * y), the rest summed here
    full = n // 35 * 35
    tail = range(full, n)
    out["sum_expected"] = float(sum((i % 7) - 3 for i in range(n - n % 7, n)))
    out["sum_xy_expected"] = float(n // 35 * sum(((i % 7) - 3) * (i % 5) * 0.5 for i in range(35))
                                   + sum(((i % 7) - 3) * (i % 5) * 0.5 for i in tail))
    out["max_expected"] = 3.0
    return out


def variants(args) -> None:
    """Set the kernels' launch shapes a comparison asks for (the same under either compiler:
    each shape is part of its kernel's key, so nothing compiled for another is reused)."""
    if args.matmul_shape:
        from webarray.kernels.webgpu import matmul as mm
        threads, block = args.matmul_shape.split(":")
        shape = (tuple(int(v) for v in threads.split("x")), tuple(int(v) for v in block.split("x")))
        mm.f32_shape = lambda compiler: shape  # (whatever the compiler)
    if args.fft_group:
        from webarray.kernels.specs import fft as kfft
        kfft.BIG_GROUP = args.fft_group
    if args.fft_radix32:
        from webarray.kernels.specs import fft as kfft
        whole = kfft.factor

        def factor(n, wide=False, batch=1):
            out = whole(n, wide, batch)
            return None if out is None else [r for f in out for r in ((32, 32) if f == kfft.BIG else (f,))]
        kfft.factor = factor
    if args.reduce_per_thread:
        from webarray.kernels.webgpu import reduction as rk
        rk.P, rk.P_ADD = (int(v) for v in args.reduce_per_thread.split(":"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds, Mandelbrot 256^2x100")
    p.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ", ".join(PARTS))
    p.add_argument("--size", type=int)
    p.add_argument("--iters", type=int)
    p.add_argument("--matmul", default="1024,4096", help="matmul sizes, comma-separated")
    p.add_argument("--matmul-shape", help="the float32 matmul's threads and each thread's block, "
                   "'16x8:16x8' (columns x rows of threads : rows x columns of outputs; "
                   "default: the generator's), to compare shapes under one compiler")
    p.add_argument("--fft-group", type=int, help="transforms per workgroup of the 1024 pass "
                   "(specs.fft.BIG_GROUP; default 4)")
    p.add_argument("--fft-radix32", action="store_true",
                   help="no 1024 pass: radix-32 passes only (the pass order of a CPU adapter)")
    p.add_argument("--fft-rows", type=int, default=1, help="transforms per fft call (default 1)")
    p.add_argument("--reduce-log2", type=int, help="elements of the reduce part, log2 (default 24; "
                   "20 with --quick)")
    p.add_argument("--reduce-per-thread", help="the WebGPU reduction's elements per thread, "
                   "'P:P_ADD' (any reduction : a sum's most; default 16:64)")
    args = p.parse_args(argv)
    variants(args)
    cfg = ({"rounds": 3, "pings": 200, "ops": 2000, "reads": 30, "big_reads": 3, "mandel_rounds": 1,
            "size": 256, "iters": 100} if args.quick else
           {"rounds": 5, "pings": 2000, "ops": 10000, "reads": 200, "big_reads": 10, "mandel_rounds": 3,
            "size": 1024, "iters": 500})
    cfg["size"] = args.size or cfg["size"]
    cfg["iters"] = args.iters or cfg["iters"]
    cfg["matmul"] = [int(s) for s in args.matmul.split(",") if s]
    cfg["reduce"] = 1 << (args.reduce_log2 or (20 if args.quick else 24))
    cfg["fft_rows"] = args.fft_rows
    results = {"settings": cfg}
    status = 0
    for name in args.parts.split(","):
        t0 = now()
        try:
            r = globals()[f"part_{name}"](cfg)
        except Exception as e:
            traceback.print_exc()
            r = {"error": f"{type(e).__name__}: {e}"}
            status = 1
        r["part_seconds"] = now() - t0
        results[name] = r
        print(f"WEBARRAY_DAWN_PART {name} {json.dumps(r)}", flush=True)
    print("WEBARRAY_DAWN_JSON " + json.dumps(results), flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
