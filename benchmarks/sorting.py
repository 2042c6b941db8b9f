"""Sorting and unique: webarray against NumPy (and CuPy and PyTorch where present).

    python -m benchmarks.sorting                      # sort/argsort 2^20..2^24, unique 2^22
    python -m benchmarks.sorting --quick --sizes 16,18 --unique-sizes 18

Every backend runs its stable sort (webarray's sort is always stable): ``sort`` and
``argsort`` of uniformly random float32 values, and ``unique`` (values only) of int32 values
drawn from a quarter as many distinct values as there are elements. Each call allocates
its result, as user code does. Results are checked against NumPy before timing.

The table goes to stdout, the full record to ``benchmarks/results/sorting-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import _common as c

DEFAULT_SIZES = [1 << 20, 1 << 22, 1 << 24]
DEFAULT_UNIQUE = [1 << 22]
CPU_ADAPTER_SIZES = [1 << 16, 1 << 18]  # a software adapter takes seconds per 2^20 sort
CPU_ADAPTER_UNIQUE = [1 << 18]


def functions(be: c.Backend) -> dict:
    xp = be.xp
    if be.name == "numpy":
        return {"sort": lambda a: np.sort(a, kind="stable"),
                "argsort": lambda a: np.argsort(a, kind="stable"),
                "unique": np.unique}
    if be.name == "webarray":
        return {"sort": xp.sort, "argsort": xp.argsort, "unique": xp.unique_values}
    if be.name == "cupy":
        return {"sort": xp.sort, "argsort": xp.argsort, "unique": xp.unique}
    return {"sort": lambda a: xp.sort(a, stable=True).values,
            "argsort": lambda a: xp.argsort(a, stable=True),
            "unique": xp.unique}


def data(op: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(20261122 + n)
    if op == "unique":
        return rng.integers(0, max(n // 4, 1), size=n, dtype=np.int32)
    return rng.random(n, dtype=np.float32)


def correct(op: str, a: np.ndarray, got: np.ndarray) -> bool:
    if op == "argsort":
        got = got.astype(np.int64)
        return bool(np.array_equal(np.sort(got), np.arange(a.size))
                    and np.array_equal(a[got], np.sort(a)))
    return bool(np.array_equal(got, np.sort(a) if op == "sort" else np.unique(a)))


def run(backends, cases, rounds, target_s, log) -> list[dict]:
    rows = []
    for op, n in cases:
        a = data(op, n)
        for be in backends:
            f = functions(be)[op]
            x = be.to_device(a)
            be.sync()
            holder = [None]

            def step(f=f, x=x, holder=holder):
                holder[0] = f(x)

            step()
            be.sync()
            ok = correct(op, a, np.asarray(be.to_numpy(holder[0])))
            iters = c.calibrate(step, be.sync, target_s, max_iters=1000)
            per_iter = c.time_rounds(step, be.sync, iters, rounds, warmup=1)
            t = c.median(per_iter)
            rows.append({"backend": be.name, "op": op, "n": n, "dtype": str(a.dtype),
                         "iters": iters, "seconds": t, "rounds": per_iter,
                         "melem_per_s": n / t / 1e6, "correct": ok})
            log(f"  {be.name:9s} {op:8s} {c.size_label(n):>5s}: {t * 1e3:9.2f} ms "
                f"({n / t / 1e6:8.1f} Melem/s, {iters} iters)" + ("" if ok else "  WRONG"))
            holder[0] = None
            del x
            be.sync()
    return rows


def report(rows) -> str:
    labels = list(dict.fromkeys(r["backend"] for r in rows))
    by = {(r["backend"], r["op"], r["n"]): r for r in rows}
    cases = list(dict.fromkeys((r["op"], r["n"]) for r in rows))
    header = ["op", "n", "dtype"] + [f"{lab} ms" for lab in labels]
    if "numpy" in labels and "webarray" in labels:
        header.append("numpy / webarray")
    out = []
    for op, n in cases:
        row = [op, c.size_label(n), by[labels[0], op, n]["dtype"]]
        for lab in labels:
            r = by.get((lab, op, n))
            row.append("" if r is None else f"{r['seconds'] * 1e3:.2f}"
                       + ("" if r["correct"] else " (wrong)"))
        if "numpy / webarray" in header:
            w, np_ = by.get(("webarray", op, n)), by.get(("numpy", op, n))
            row.append(f"{np_['seconds'] / w['seconds']:.2f}x" if w and np_ else "")
        out.append(row)
    return c.table(header, out, "Stable sort, argsort and unique (median time per call)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.sorting", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes,
                   help="sort/argsort sizes, comma-separated; numbers up to 40 are powers of "
                        "two (default 20,22,24; 16,18 on a CPU-only WebGPU adapter)")
    p.add_argument("--unique-sizes", type=c.parse_sizes,
                   help="unique sizes (default 22; 18 on a CPU-only WebGPU adapter)")
    c.add_common_args(p, "sorting")
    args = p.parse_args(argv)

    backends, skipped = c.open_backends(args.backends)
    cpu = c.on_cpu_adapter(backends)
    sizes = args.sizes or (CPU_ADAPTER_SIZES if cpu else DEFAULT_SIZES)
    usizes = args.unique_sizes or (CPU_ADAPTER_UNIQUE if cpu else DEFAULT_UNIQUE)
    rounds, target = (3, 0.05) if args.quick else (7, 0.3)
    cases = [(op, n) for op in ("sort", "argsort") for n in sizes] + [("unique", n) for n in usizes]
    rows = run(backends, cases, rounds, target, c.log)
    rec = c.record("sorting", backends, skipped,
                   method={"rounds": rounds, "round_target_s": target, "statistic": "median",
                           "stable": True, "data": "sort/argsort: uniform float32 in [0, 1); "
                           "unique: int32 in [0, n/4)",
                           "sync": c.SYNC},
                   results=rows)
    return c.finish(rec, args.out, report(rows))


if __name__ == "__main__":
    sys.exit(main())
