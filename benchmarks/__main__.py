"""The whole benchmark suite in one run: one table per benchmark and one JSON record.

    python -m benchmarks                      # every benchmark, every backend found here
    python -m benchmarks --quick              # shorter rounds and smaller sizes
    python -m benchmarks --only fusion,sorting

Runs, in this order, ``host`` (host µs per op: independent, dependent and scalar loops,
webarray fused and eager), ``elementwise`` (bandwidth and per-op overhead), ``fusion``
(single op fused and eager, the 10-op chain, Mandelbrot plain and as a user kernel),
``reductions``, ``sorting``, ``linalg_fft`` (matmul, cholesky/solve/svd, fft) and ``float64``
(the software binary64 lane against float32 and NumPy's float64), each with webarray next
to NumPy on this CPU and, where installed, CuPy and PyTorch on the same GPU. Each script
still writes its own record; the suite record, ``benchmarks/results/suite-<gpu>.json``,
holds all of them with the hardware and versions once.
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
from pathlib import Path

from . import _common as c

SUITE = ["host", "elementwise", "fusion", "reductions", "sorting", "linalg_fft", "float64"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help=f"comma-separated subset of {', '.join(SUITE)}")
    c.add_common_args(p, "suite")
    args = p.parse_args(argv)
    names = SUITE if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    for n in names:
        if n not in SUITE:
            p.error(f"unknown benchmark {n!r}; choose from {', '.join(SUITE)}")

    records = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            c.log(f"\n=== {name} ===")
            out = Path(tmp) / f"{name}.json"
            argv_ = ["--backends", args.backends, "--out", str(out)]
            if args.quick:
                argv_.append("--quick")
            status = importlib.import_module(f"benchmarks.{name}").main(argv_)
            if status:
                c.log(f"{name} exited with status {status}")
                return status
            records[name] = json.loads(out.read_text())
    first = next(iter(records.values()))
    suite = {
        "benchmark": "suite",
        "date": first["date"],
        "hardware": first["hardware"],
        "versions": first["versions"],
        "backends": first["backends"],
        "skipped_backends": first["skipped_backends"],
        "results": {name: {k: v for k, v in rec.items()
                           if k not in ("hardware", "versions")}
                    for name, rec in records.items()},
    }
    path = c.write_json(suite, args.out)
    print(f"\nsuite record written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
