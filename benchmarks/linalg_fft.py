"""float32 matmul and complex64 FFT, webarray next to NumPy (and CuPy/PyTorch on a CUDA GPU).

    python -m benchmarks.linalg_fft [--quick] [--backends ...] [--out PATH]

matmul: square n x n at 1024 and 4096 and a batched 64 x (128 x 128), in GFLOP/s (2 n^3
per product). PyTorch runs with TF32 off, so every backend does float32 arithmetic.
fft: one complex64 transform of 2^20 points, in ms. cholesky (of A·Aᵀ + n·I), solve (one
right-hand side) and svd (U, S and Vh) of a float32 n x n matrix at 1024, in ms.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import _common as c

CPU_CASES = [("matmul", (256,)), ("matmul", (512,)), ("batched", (16, 64)), ("fft", (1 << 16,)),
             ("cholesky", (128,)), ("solve", (128,)), ("svd", (96,))]
GPU_CASES = [("matmul", (1024,)), ("matmul", (4096,)), ("batched", (64, 128)), ("fft", (1 << 20,)),
             ("cholesky", (1024,)), ("solve", (1024,)), ("svd", (1024,))]


def _inputs(case, shape, rng):
    if case == "matmul":
        n = shape[0]
        return [rng.standard_normal((n, n), dtype=np.float32) for _ in range(2)]
    if case == "batched":
        b, n = shape
        return [rng.standard_normal((b, n, n), dtype=np.float32) for _ in range(2)]
    n = shape[0]
    if case == "fft":
        return [(rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)]
    a = rng.standard_normal((n, n))
    if case == "cholesky":
        return [(a @ a.T + n * np.eye(n)).astype(np.float32)]
    if case == "solve":
        return [a.astype(np.float32), rng.standard_normal(n).astype(np.float32)]
    return [a.astype(np.float32)]


def _step(be, case, args):
    xp = be.xp
    if case == "fft":
        return lambda: xp.fft.fft(args[0])
    if case in ("cholesky", "svd"):
        f = getattr(xp.linalg, case)
        return lambda: f(args[0])
    if case == "solve":
        return lambda: xp.linalg.solve(args[0], args[1])
    return lambda: xp.matmul(args[0], args[1])


def _work(case, shape) -> float:
    if case == "matmul":
        return 2.0 * shape[0] ** 3
    if case == "batched":
        return 2.0 * shape[0] * shape[1] ** 3
    return 0.0


def run(backends, cases, rounds, target, log):
    rng = np.random.default_rng(0)
    rows = []
    for case, shape in cases:
        host = _inputs(case, shape, rng)
        for be in backends:
            if be.name == "torch":
                be.xp.backends.cuda.matmul.allow_tf32 = False
            args = [be.to_device(a) for a in host]
            step = _step(be, case, args)
            try:
                iters = c.calibrate(step, be.sync, target, max_iters=1000)
                t = c.median(c.time_rounds(step, be.sync, iters, rounds))
            except Exception as e:  # a backend that cannot run a case is reported, not fatal
                log(f"  {case} {shape} {be.name}: {type(e).__name__}: {e}")
                continue
            work = _work(case, shape)
            rows.append({"case": case, "shape": list(shape), "backend": be.name, "seconds": t,
                         "gflops": work / t / 1e9 if work else None})
            log(f"  {case} {shape} {be.name}: {t * 1e3:.3f} ms")
    return rows


def report(rows) -> str:
    names = sorted({r["backend"] for r in rows}, key=["numpy", "webarray", "cupy", "torch"].index)
    keys = []
    for r in rows:
        k = (r["case"], tuple(r["shape"]))
        if k not in keys:
            keys.append(k)
    table = []
    for case, shape in keys:
        line = [case, "x".join(map(str, shape))]
        for n in names:
            r = next((r for r in rows if r["backend"] == n and r["case"] == case and tuple(r["shape"]) == shape), None)
            if r is None:
                line.append("-")
            elif r["gflops"]:
                line.append(f"{r['gflops']:.0f} GFLOP/s")
            else:
                line.append(f"{r['seconds'] * 1e3:.3f} ms")
        table.append(line)
    return c.table(["case", "shape"] + names, table)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.linalg_fft", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_common_args(p, "linalg_fft")
    args = p.parse_args(argv)
    backends, skipped = c.open_backends(args.backends)
    cases = CPU_CASES if c.on_cpu_adapter(backends) else GPU_CASES
    rounds, target = (3, 0.05) if args.quick else (5, 0.25)
    rows = run(backends, cases, rounds, target, c.log)
    rec = c.record("linalg_fft", backends, skipped,
                   method={"rounds": rounds, "round_target_s": target, "statistic": "median",
                           "matmul": "float32, 2 n^3 flops, PyTorch TF32 off",
                           "fft": "complex64, one transform", "sync": c.SYNC},
                   results=rows)
    return c.finish(rec, args.out, report(rows))


if __name__ == "__main__":
    sys.exit(main())
