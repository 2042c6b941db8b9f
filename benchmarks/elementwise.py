"""Elementwise bandwidth and per-op host overhead: webarray against NumPy, CuPy and PyTorch.

    python -m benchmarks.elementwise                 # every size, every backend found here
    python -m benchmarks.elementwise --quick --sizes 20,22

Bandwidth counts the bytes each op must move (inputs read once, the output written once) on
float32 arrays, per op (add, multiply: binary; sqrt, negative: unary; ``a*2+b``: two ops of
the namespace, which webarray fuses into one kernel and CuPy's ElementwiseKernel writes as
one) and size. Every call allocates its result, as user code does. With CuPy on a CUDA GPU
a ``cupy.ElementwiseKernel`` of the same op is timed too: the hand-written reference that
webarray aims at. Host overhead: many ops on 16-element arrays, µs per op for issuing them
alone and with the final sync.

The table goes to stdout, the full record to ``benchmarks/results/elementwise-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from . import _common as c

OPS = {"add": 2, "multiply": 2, "sqrt": 1, "negative": 1, "a*2+b": 2}
# ops that are expressions of the namespace's functions (webarray fuses them into one kernel,
# NumPy and PyTorch run an op at a time, CuPy's ElementwiseKernel writes them as one)
COMPOSED = {"a*2+b": lambda a, b: a * 2.0 + b}
DEFAULT_SIZES = [1 << 20, 1 << 22, 1 << 24, 1 << 26]
CPU_ADAPTER_SIZES = [1 << 20, 1 << 22]  # a software adapter takes minutes at 2^26

_EK = {
    "add": ("float32 a, float32 b", "float32 c", "c = a + b"),
    "multiply": ("float32 a, float32 b", "float32 c", "c = a * b"),
    "sqrt": ("float32 a", "float32 c", "c = sqrt(a)"),
    "negative": ("float32 a", "float32 c", "c = -a"),
    "a*2+b": ("float32 a, float32 b", "float32 c", "c = a * 2.0f + b"),
}


def variants(backend: c.Backend, ops) -> list[tuple[str, dict]]:
    """(column label, {op: function}) for a backend: its plain namespace functions, and for
    CuPy also an ElementwiseKernel per op."""
    out = [(backend.name, {op: COMPOSED.get(op) or getattr(backend.xp, op) for op in ops})]
    if backend.name == "cupy":
        cupy = backend.xp
        out.append(("cupy-ek", {op: cupy.ElementwiseKernel(*_EK[op], "webarray_bench_"
                                                           + op.replace("*", "x").replace("+", "p"))
                                for op in ops}))
    return out


def check(backend: c.Backend, result, expected: np.ndarray) -> float:
    """Largest relative error over the head, middle and tail of the result."""
    n = expected.shape[0]
    k = min(n, 2048)
    err = 0.0
    for lo in (0, (n - k) // 2, n - k):
        got = np.asarray(backend.to_numpy(result[lo:lo + k]), dtype=np.float64)
        ref = expected[lo:lo + k].astype(np.float64)
        err = max(err, float(np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-30))))
    return err


def bandwidth(backends, sizes, ops, rounds, target_s, log) -> list[dict]:
    rows = []
    rng = np.random.default_rng(20261122)
    for n in sizes:
        # positive inputs away from zero, so sqrt is defined and relative errors meaningful
        a = (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
        b = (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
        expected = {"add": a + b, "multiply": a * b, "sqrt": np.sqrt(a), "negative": -a,
                    "a*2+b": a * np.float32(2) + b}
        for be in backends:
            da, db = be.to_device(a), be.to_device(b)
            be.sync()
            for label, fns in variants(be, ops):
                for op in ops:
                    f, arity = fns[op], OPS[op]
                    args = (da, db)[:arity]
                    holder = [None]

                    def step(f=f, args=args, holder=holder):
                        holder[0] = f(*args)
                        be.force(holder[0])

                    step()
                    be.sync()
                    err = check(be, holder[0], expected[op])
                    iters = c.calibrate(step, be.sync, target_s)
                    per_iter = c.time_rounds(step, be.sync, iters, rounds)
                    t = c.median(per_iter)
                    nbytes = (arity + 1) * 4 * n
                    rows.append({"backend": label, "op": op, "n": n, "bytes": nbytes,
                                 "iters": iters, "seconds": t, "rounds": per_iter,
                                 "gbps": nbytes / t / 1e9, "max_rel_err": err})
                    flag = "" if err < 1e-5 else f"  WRONG (max rel err {err:.2e})"
                    log(f"  {label:9s} {op:9s} {c.size_label(n):>5s}: {nbytes / t / 1e9:9.1f} GB/s"
                        f"  ({t * 1e6:.1f} us, {iters} iters){flag}")
                    holder[0] = None
            del da, db
            be.sync()
    return rows


def overhead(backends, n, count, rounds, log) -> list[dict]:
    """µs per add on n-element arrays: issuing `count` adds, and with the final sync."""
    rows = []
    rng = np.random.default_rng(7)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    for be in backends:
        da, db = be.to_device(a), be.to_device(b)
        for label, fns in variants(be, ["add"]):
            f = fns["add"]
            for _ in range(2):  # warm up: kernel compile, pools
                for _ in range(count):
                    r = f(da, db)
                    be.force(r)
                be.sync()
            issue, total = [], []
            for _ in range(rounds):
                be.sync()
                t0 = time.perf_counter()
                for _ in range(count):
                    r = f(da, db)
                    be.force(r)
                t1 = time.perf_counter()
                be.sync()
                t2 = time.perf_counter()
                issue.append((t1 - t0) / count)
                total.append((t2 - t0) / count)
            del r
            row = {"backend": label, "op": "add", "n": n, "count": count,
                   "issue_us": c.median(issue) * 1e6, "with_sync_us": c.median(total) * 1e6,
                   "issue_rounds_us": [x * 1e6 for x in issue],
                   "with_sync_rounds_us": [x * 1e6 for x in total]}
            rows.append(row)
            log(f"  {label:9s} add x{count} on {n} elements: {row['issue_us']:.2f} us/op issued, "
                f"{row['with_sync_us']:.2f} us/op with sync")
    return rows


def report(bw_rows, oh_rows) -> str:
    labels = []
    for r in bw_rows + oh_rows:
        if r["backend"] not in labels:
            labels.append(r["backend"])
    parts = []
    by = {(r["backend"], r["op"], r["n"]): r for r in bw_rows}
    ops = list(dict.fromkeys(r["op"] for r in bw_rows))
    sizes = list(dict.fromkeys(r["n"] for r in bw_rows))
    ratio = "cupy-ek" in labels and "webarray" in labels
    header = ["op", "n"] + [f"{lab} GB/s" for lab in labels]
    if ratio:
        header.append("webarray / cupy-ek")
    rows = []
    for op in ops:
        for n in sizes:
            row = [op, c.size_label(n)]
            for lab in labels:
                r = by.get((lab, op, n))
                row.append("" if r is None else f"{r['gbps']:.1f}"
                           + ("" if r["max_rel_err"] < 1e-5 else " (wrong)"))
            if ratio:
                w, e = by.get(("webarray", op, n)), by.get(("cupy-ek", op, n))
                row.append(f"{100 * w['gbps'] / e['gbps']:.0f}%" if w and e else "")
            rows.append(row)
    parts.append(c.table(header, rows, "Bandwidth (bytes read + written per second, median)"))
    if oh_rows:
        rows = [[r["backend"], f"{r['issue_us']:.2f}", f"{r['with_sync_us']:.2f}"] for r in oh_rows]
        n, count = oh_rows[0]["n"], oh_rows[0]["count"]
        parts.append(c.table(["backend", "issue µs/op", "with sync µs/op"], rows,
                             f"Host overhead: {count} adds of {n}-element float32 arrays"))
    return "\n\n".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.elementwise", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes,
                   help="comma-separated sizes; numbers up to 40 are powers of two "
                        "(default 20,22,24,26; 20,22 on a CPU-only WebGPU adapter)")
    p.add_argument("--ops", default=",".join(OPS), help="comma-separated ops (default: all)")
    c.add_common_args(p, "elementwise")
    p.add_argument("--overhead-count", type=int, default=1000,
                   help="ops per round of the host-overhead test (default 1000)")
    args = p.parse_args(argv)

    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    for o in ops:
        if o not in OPS:
            p.error(f"unknown op {o!r}; choose from {', '.join(OPS)}")
    backends, skipped = c.open_backends(args.backends)
    sizes = args.sizes or (CPU_ADAPTER_SIZES if c.on_cpu_adapter(backends) else DEFAULT_SIZES)
    rounds, target = (3, 0.05) if args.quick else (7, 0.25)
    log = c.log
    log("bandwidth:")
    bw = bandwidth(backends, sizes, ops, rounds, target, log)
    log("host overhead:")
    oh = overhead(backends, 16, args.overhead_count, rounds, log)
    rec = c.record("elementwise", backends, skipped,
                   method={"rounds": rounds, "round_target_s": target, "statistic": "median",
                           "dtype": "float32", "bytes": "inputs read once + output written once",
                           "sync": c.SYNC},
                   bandwidth=bw, overhead=oh)
    return c.finish(rec, args.out, report(bw, oh))


if __name__ == "__main__":
    sys.exit(main())
