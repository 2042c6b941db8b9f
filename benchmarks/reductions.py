"""Reduction and scan bandwidth: webarray against NumPy, CuPy and PyTorch in the same run.

    python -m benchmarks.reductions                  # every size, every backend found here
    python -m benchmarks.reductions --quick --sizes 18,20

Cases on float32 arrays of n elements: ``sum`` of a 1-D array (the multi-pass tree), ``max``
of it, ``sum`` along the last axis of an (n/1024, 1024) matrix (a workgroup per row) and
along its first axis (the column layout: adjacent threads on adjacent columns), and
``cumulative_sum`` of a 1-D array (block scan, chunk totals, carries). Bandwidth counts the
bytes each must move: n·4 read, plus n·4 written for the scan. Every result is checked
against a float64 reference (error relative to the sum of magnitudes, recorded) and flagged
past 1e-5, or 1e-3 for the scan: a sequential float32 scan (NumPy's) drifts to ~1e-4 at
2^26 elements.

The table goes to stdout, the full record to ``benchmarks/results/reductions-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import _common as c

# sum_xy: sum(x * y) of two arrays, its bytes the two read once (webarray computes the
# product inside the sum's first pass; CuPy and PyTorch write it out first)
CASES = ["sum", "max", "sum_rows", "sum_cols", "cumulative_sum", "sum_xy"]
DEFAULT_SIZES = [1 << 22, 1 << 24, 1 << 26]
CPU_ADAPTER_SIZES = [1 << 20, 1 << 22]
ROW = 1024  # row length of the 2-D cases
TOLERANCE = {"cumulative_sum": 1e-3}  # others: 1e-5


def functions(backend: c.Backend) -> dict:
    """case -> function of the device array, for one backend."""
    xp = backend.xp
    if backend.name == "torch":
        import torch

        return {"sum": torch.sum, "max": torch.max,
                "sum_rows": lambda a: torch.sum(a, dim=1),
                "sum_cols": lambda a: torch.sum(a, dim=0),
                "cumulative_sum": lambda a: torch.cumsum(a, 0),
                "sum_xy": lambda a, b: torch.sum(a * b)}
    cumsum = getattr(xp, "cumulative_sum", None) or xp.cumsum
    return {"sum": xp.sum, "max": xp.max,
            "sum_rows": lambda a: xp.sum(a, axis=1), "sum_cols": lambda a: xp.sum(a, axis=0),
            "cumulative_sum": cumsum, "sum_xy": lambda a, b: xp.sum(a * b)}


def reshape(backend: c.Backend, a, shape):
    if backend.name == "webarray":
        from webarray._array_object import Array

        # a C-contiguous array viewed with another shape (no copy)
        strides = []
        s = 1
        for n in reversed(shape):
            strides.insert(0, s)
            s *= n
        return Array._view(a._buf, a.dtype, shape, strides, a._offset, a.device)
    return a.reshape(shape)


def relative_error(got: np.ndarray, exact: np.ndarray, scale: np.ndarray) -> float:
    got = np.asarray(got, dtype=np.float64).reshape(exact.shape)
    return float(np.max(np.abs(got - exact) / np.maximum(scale, 1e-30)))


def references(a: np.ndarray, b: np.ndarray) -> dict:
    """(exact float64 result, scale for relative errors, indices to check) per case."""
    a64 = a.astype(np.float64)
    ab = a64 * b.astype(np.float64)
    m = a64.reshape(-1, ROW)
    cs = np.cumsum(a64)
    n = a.shape[0]
    pick = np.unique(np.linspace(0, n - 1, 4096).astype(np.int64))
    return {
        "sum": (np.array(a64.sum()), np.array(np.abs(a64).sum()), None),
        "max": (np.array(a64.max()), np.array(abs(a64.max())), None),
        "sum_rows": (m.sum(axis=1), np.abs(m).sum(axis=1), None),
        "sum_cols": (m.sum(axis=0), np.abs(m).sum(axis=0), None),
        "cumulative_sum": (cs[pick], np.cumsum(np.abs(a64))[pick], pick),
        "sum_xy": (np.array(ab.sum()), np.array(np.abs(ab).sum()), None),
    }


def run(backends, sizes, cases, rounds, target_s, log) -> list[dict]:
    rows = []
    rng = np.random.default_rng(20261122)
    for n in sizes:
        a = (rng.random(n, dtype=np.float32) - np.float32(0.25)).astype(np.float32)
        b = (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
        refs = references(a, b)
        for be in backends:
            fns = functions(be)
            d1 = be.to_device(a)
            d2 = reshape(be, d1, (n // ROW, ROW))
            db = be.to_device(b) if "sum_xy" in cases else None
            be.sync()
            for case in cases:
                f = fns[case]
                args = ((d2,) if case in ("sum_rows", "sum_cols") else
                        (d1, db) if case == "sum_xy" else (d1,))
                holder = [None]

                def step(f=f, args=args, holder=holder):
                    holder[0] = f(*args)

                step()
                be.sync()
                exact, scale, pick = refs[case]
                got = np.asarray(be.to_numpy(holder[0]))
                if pick is not None:
                    got = got[pick]
                err = relative_error(got, exact, scale)
                iters = c.calibrate(step, be.sync, target_s)
                per_iter = c.time_rounds(step, be.sync, iters, rounds)
                t = c.median(per_iter)
                nbytes = 4 * n * (2 if case in ("cumulative_sum", "sum_xy") else 1)
                rows.append({"backend": be.name, "case": case, "n": n, "bytes": nbytes,
                             "iters": iters, "seconds": t, "rounds": per_iter,
                             "gbps": nbytes / t / 1e9, "max_rel_err": err})
                flag = "" if err < TOLERANCE.get(case, 1e-5) else f"  WRONG (rel err {err:.2e})"
                log(f"  {be.name:9s} {case:15s} {c.size_label(n):>5s}: {nbytes / t / 1e9:9.2f} GB/s"
                    f"  ({t * 1e6:.1f} us, {iters} iters, rel err {err:.1e}){flag}")
                holder[0] = None
            del d1, d2, db
            be.sync()
    return rows


def report(rows) -> str:
    labels = list(dict.fromkeys(r["backend"] for r in rows))
    by = {(r["backend"], r["case"], r["n"]): r for r in rows}
    cases = list(dict.fromkeys(r["case"] for r in rows))
    sizes = list(dict.fromkeys(r["n"] for r in rows))
    ref = next((lab for lab in ("cupy", "torch") if lab in labels), None)
    header = ["case", "n"] + [f"{lab} GB/s" for lab in labels]
    if ref and "webarray" in labels:
        header.append(f"webarray / {ref}")
    out = []
    for case in cases:
        for n in sizes:
            row = [case, c.size_label(n)]
            for lab in labels:
                r = by.get((lab, case, n))
                row.append("" if r is None else f"{r['gbps']:.2f}"
                           + ("" if r["max_rel_err"] < TOLERANCE.get(case, 1e-5)
                              else " (wrong)"))
            if len(header) > len(row):
                w, e = by.get(("webarray", case, n)), by.get((ref, case, n))
                row.append(f"{100 * w['gbps'] / e['gbps']:.0f}%" if w and e else "")
            out.append(row)
    return c.table(header, out, "Bandwidth (bytes read + written per second, median)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.reductions", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes,
                   help="comma-separated sizes; numbers up to 40 are powers of two "
                        "(default 22,24,26; 20,22 on a CPU-only WebGPU adapter)")
    p.add_argument("--cases", default=",".join(CASES), help="comma-separated cases (default: all)")
    c.add_common_args(p, "reductions")
    args = p.parse_args(argv)

    cases = [x.strip() for x in args.cases.split(",") if x.strip()]
    for x in cases:
        if x not in CASES:
            p.error(f"unknown case {x!r}; choose from {', '.join(CASES)}")
    backends, skipped = c.open_backends(args.backends)
    sizes = args.sizes or (CPU_ADAPTER_SIZES if c.on_cpu_adapter(backends) else DEFAULT_SIZES)
    for n in sizes:
        if n % ROW:
            p.error(f"sizes must be multiples of {ROW} (the row length of the 2-D cases), got {n}")
    rounds, target = (3, 0.05) if args.quick else (7, 0.25)
    rows = run(backends, sizes, cases, rounds, target, c.log)
    rec = c.record("reductions", backends, skipped,
                   method={"rounds": rounds, "round_target_s": target, "statistic": "median",
                           "dtype": "float32", "row_length": ROW,
                           "bytes": "input read once (+ output written once for the scan)",
                           "sync": c.SYNC},
                   results=rows)
    return c.finish(rec, args.out, report(rows))


if __name__ == "__main__":
    sys.exit(main())
