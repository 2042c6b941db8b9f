"""One benchmark part, run on an earlier commit and on this checkout, interleaved in one session.

    python -m benchmarks.compare 55a1bdd                       # elementwise, 3 rounds each
    python -m benchmarks.compare 55a1bdd --part host --rounds 5
    python -m benchmarks.compare HEAD~3 -- --sizes 20 --ops add
    python -m benchmarks.compare 4559da1 --part sorting --rounds 2 -- --quick

The earlier commit's ``src/`` is exported with ``git archive`` into a temporary folder and put
first on ``PYTHONPATH``; this checkout's benchmark script runs in both cases, so the same
measurement is taken of two versions of the library. Runs alternate (before, after, before,
...), so drift of the machine (other load, clocks) falls on both alike. Prints the median of
each row's figure per version and writes the record to
``benchmarks/results/<part>-before-after-<gpu>.json`` (``--out`` to change it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from . import _common as c

ROOT = Path(__file__).resolve().parents[1]
# per part: the rows of its record to compare, the keys naming a row, the figure
PARTS = {
    "elementwise": [("bandwidth", ("backend", "op", "n"), "gbps"),
                    ("overhead", ("backend", "op", "n"), "issue_us"),
                    ("overhead", ("backend", "op", "n"), "with_sync_us")],
    "host": [("host", ("backend", "loop"), "us_per_op")],
    "sorting": [("results", ("backend", "op", "n", "dtype"), "seconds")],
    "reductions": [("results", ("backend", "case", "n"), "gbps")],
    "linalg_fft": [("results", ("backend", "case", "shape"), "seconds")],
}


def _run(part: str, src: Path, extra: list[str], out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src) + os.pathsep + str(ROOT))
    cmd = [sys.executable, "-m", f"benchmarks.{part}", "--backends", "webarray",
           "--out", str(out), *extra]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed with PYTHONPATH={src}:\n{r.stderr[-3000:]}")
    return json.loads(out.read_text())


def _key(v):
    """A row's naming value as a key (a shape comes as a list)."""
    return tuple(v) if isinstance(v, list) else v


def _figures(part: str, record: dict) -> dict:
    got = {}
    for table, keys, figure in PARTS[part]:
        for row in record.get(table) or []:
            if figure in row:
                got[(table, figure) + tuple(_key(row.get(k)) for k in keys)] = row[figure]
    return got


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", help="the earlier commit (anything git rev-parse takes)")
    p.add_argument("--part", choices=sorted(PARTS), default="elementwise")
    p.add_argument("--rounds", type=int, default=3, help="runs of each version (default 3)")
    p.add_argument("--out", help="JSON path (default benchmarks/results/<part>-before-after-<gpu>.json)")
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = p.parse_args(argv[:cut]), argv[cut + 1:]  # after --: the part's arguments

    rev = subprocess.run(["git", "rev-parse", "--short", args.before], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.strip()
    runs: dict[str, list] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        old.mkdir()
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        for k in range(args.rounds):
            for name, src in (("before", old / "src"), ("after", ROOT / "src")):
                c.log(f"round {k + 1}/{args.rounds}: {name}")
                runs[name].append(_run(args.part, src, extra, Path(tmp) / f"{name}{k}.json"))

    figures = {name: [_figures(args.part, r) for r in recs] for name, recs in runs.items()}
    rows = []
    for key in figures["after"][0]:
        b = [f[key] for f in figures["before"] if key in f]
        a = [f[key] for f in figures["after"] if key in f]
        if b and a:
            rows.append({"row": list(key), "before": statistics.median(b),
                         "after": statistics.median(a), "before_runs": b, "after_runs": a})
    lines = [f"{'row':<44} {'before':>10} {'after':>10} {'after/before':>13}"]
    for r in rows:
        label = " ".join(str(x) for x in r["row"])
        lines.append(f"{label:<44} {r['before']:>10.3f} {r['after']:>10.3f} "
                     f"{r['after'] / r['before'] if r['before'] else float('nan'):>13.2f}")
    last = runs["after"][-1]
    rec = {"benchmark": f"{args.part}, before ({rev}) and after ({c.git_revision()}), "
                        f"interleaved x{args.rounds} in one session",
           "command": "python -m benchmarks.compare " + " ".join(argv),
           "date": last.get("date"), "hardware": last.get("hardware"),
           "versions": dict(last.get("versions") or {}, before=rev),
           "rows": rows}
    gpu = c.machine_tag(last.get("hardware") or {"host": "unknown"})
    out = Path(args.out) if args.out else c.RESULTS / f"{args.part}-before-after-{gpu}.json"
    out.write_text(json.dumps(rec, indent=1) + "\n")
    print("\n".join(lines))
    print(f"record: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
