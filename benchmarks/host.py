"""Host cost per array operation: what Python spends issuing an op, next to its peers.

    python -m benchmarks.host [--count 10000] [--quick] [--backends numpy,webarray,cupy,torch]

Three loops over 16-element float32 arrays, each timed from the first op until the last one
is issued, then one device sync (not timed: the GPU work of 16 elements is not the point):

- *independent*: ``c = a + b`` ``count`` times, every result kept alive;
- *dependent*: ``x = x + b`` ``count`` times (a chain);
- *scalar*: ``c = a * 2.0`` ``count`` times;
- *readback*: ``float(xp.sum(a))`` ``count // 10`` times, each waited for: an op and the
  round trip of its result to Python (what a loop that prints its loss pays every step), the
  GPU's latency included.

webarray runs each loop fused (lazy nodes, the default) and eager (``fusion.set_enabled(
False)``: one dispatch recorded per op); NumPy computes on the CPU; CuPy and PyTorch issue
CUDA launches. The columns' rounds are interleaved; the median of each column's rounds
is reported, in µs per op. Python's cyclic garbage collector is run before each timed loop
and paused during it, as ``timeit`` does (``--gc`` leaves it on): a full collection walks
every object of the process, PyTorch's and CuPy's included, so with it on the rounds of the
independent loop (10,000 results kept) split into fast ones and ones ~4x slower wherever a
full collection falls, for webarray and CuPy alike (an H200 host: webarray 2.6-2.9 or 12.0-12.5
µs, CuPy 8.5-8.9 or 18.4-23.1). Prints a table; writes
``benchmarks/results/host-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

import numpy as np

from . import _common as c

LOOPS = ("independent", "dependent", "scalar", "readback")
READBACK_SHARE = 10  # the readback loop runs count // 10 times (each is a round trip)


def _loop(kind: str, xp, a, b, count: int) -> float:
    """Seconds to issue ``count`` ops of one loop."""
    if kind == "independent":
        keep = []
        t0 = time.perf_counter()
        for _ in range(count):
            keep.append(a + b)
        return time.perf_counter() - t0
    if kind == "dependent":
        x = a
        t0 = time.perf_counter()
        for _ in range(count):
            x = x + b
        return time.perf_counter() - t0
    if kind == "readback":
        t0 = time.perf_counter()
        for _ in range(count):
            float(xp.sum(a))
        return time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(count):
        a * 2.0
    return time.perf_counter() - t0


def measure(backends, count: int, rounds: int, log, pause_gc: bool = True) -> list[dict]:
    """Per loop, the rounds of every column interleaved (round 1 of each, then round 2,
    ...): a lent host's CPU speed drifts within a run (on an H200's host the same loop's
    CPU time went from 36 to 57 ms between two minutes), and a drift during one column's
    rounds alone would read as that column's cost."""
    host = np.ones(16, dtype=np.float32)
    columns = []  # (label, backend, fusion setting or None, a, b)
    for be in backends:
        modes = [("fused", True), ("eager", False)] if be.name == "webarray" else [("", None)]
        a, b = be.to_device(host), be.to_device(host)
        for mode, fused in modes:
            columns.append((be.name + (f" {mode}" if mode else ""), be, fused, a, b))

    def run(column, kind: str, n: int) -> float:
        _, be, fused, a, b = column
        if fused is not None:
            be.xp.fusion.set_enabled(fused)
        paused = pause_gc and gc.isenabled()
        if paused:
            gc.collect()
            gc.disable()
        try:
            t = _loop(kind, be.xp, a, b, n) / n * 1e6
            be.sync()
        finally:
            if paused:
                gc.enable()
            if fused is not None:
                be.xp.fusion.set_enabled(True)
        return t

    rows = []
    for kind in LOOPS:
        n = max(1, count // READBACK_SHARE) if kind == "readback" else count
        for column in columns:
            run(column, kind, min(n, 200))  # warm up: kernels compiled
        times: dict = {column[0]: [] for column in columns}
        for _ in range(rounds):
            for column in columns:
                times[column[0]].append(run(column, kind, n))
        for label, ts in times.items():
            us = c.median(ts)
            log(f"  {label:16s} {kind:12s} {us:8.2f} µs/op")
            rows.append({"backend": label, "loop": kind, "us_per_op": us,
                         "rounds_us": ts, "count": n})
    return rows


def report(rows: list[dict]) -> str:
    labels = list(dict.fromkeys(r["backend"] for r in rows))
    by = {(r["backend"], r["loop"]): r["us_per_op"] for r in rows}
    table = [[lab] + [f"{by[(lab, k)]:.2f}" if (lab, k) in by else "" for k in LOOPS]
             for lab in labels]
    count = rows[0]["count"] if rows else 0
    return c.table(["backend"] + [f"{k} µs/op" for k in LOOPS], table,
                   f"Host cost per op: {count} ops on 16-element float32 arrays, then one "
                   f"sync (readback: {max(1, count // READBACK_SHARE)} sums, each read back)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.host", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=10_000, help="ops per round (default 10000)")
    p.add_argument("--gc", action="store_true",
                   help="leave the cyclic garbage collector on during the timed loops")
    c.add_common_args(p, "host")
    args = p.parse_args(argv)
    backends, skipped = c.open_backends(args.backends)
    rounds = 3 if args.quick else 7
    count = min(args.count, 2000) if args.quick else args.count
    rows = measure(backends, count, rounds, c.log, pause_gc=not args.gc)
    rec = c.record("host", backends, skipped,
                   method={"rounds": rounds, "statistic": "median", "dtype": "float32",
                           "elements": 16,
                           "timed": "issuing the ops (the sync after is not); readback: each "
                                    "op and its read back",
                           "gc": "on" if args.gc else "collected before each timed loop, "
                                                      "paused during it (as timeit)"},
                   host=rows)
    return c.finish(rec, args.out, report(rows))


if __name__ == "__main__":
    sys.exit(main())
