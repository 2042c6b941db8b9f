"""Run test files each in a fresh pytest process, a few at a time, and sum up (test.sh).

A process of its own keeps what one file leaves behind (lavapipe's memory for float64
kernels, 100-270 MB each, caches, threads) from slowing the next: one process for the whole
suite once grew 20x slower with each file (leases of lent NumPy copies that never ended,
fixed in _core/lease.py; tests/test_linalg_float64.py took 25 minutes after 30 other files
and 66 s alone), and a slowdown of that kind would now show as one slow file, not a slow run.
A file's output is printed when it ends: one line where it passed, all of
it where it failed.

    python scripts/run_tests.py [-j 2] [files...] [-- pytest arguments]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the longest files first (measured cold on two cores), so that the last ones to start are short
FIRST = ("test_webgl2.py", "test_linalg.py", "test_complex128.py", "test_float64_math.py", "test_fft.py",
         "test_array_object.py", "test_radix_sort.py", "test_ecosystem_sklearn.py",
         "test_cupy_numpy_api.py", "test_cupy.py", "test_core_portable.py", "test_site.py",
         "test_wide_dtypes.py", "test_big_sizes.py", "test_float64_lanes.py",
         "test_cupy_kernels.py", "test_browser.py", "test_float64.py", "test_chainer.py",
         "test_volunteer_browser.py", "test_fuzz.py")


def ordered(files: list[Path]) -> list[Path]:
    rank = {name: k for k, name in enumerate(FIRST)}
    return sorted(files, key=lambda p: (rank.get(p.name, len(FIRST)), p.name))


def run_file(path: Path, pytest_args: list[str]) -> tuple[Path, int, float, str]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *pytest_args, str(path)], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")
    return path, proc.returncode, time.monotonic() - start, proc.stdout


def main(argv: list[str]) -> int:
    if "--" in argv:
        k = argv.index("--")
        argv, pytest_args = argv[:k], argv[k + 1:]
    else:
        pytest_args = []
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "2")))
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    files = ordered([p.resolve() for p in args.files] or sorted((ROOT / "tests").glob("test_*.py")))
    start = time.monotonic()
    failed: list[str] = []
    counts: dict[str, int] = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for done in as_completed([pool.submit(run_file, p, pytest_args) for p in files]):
            path, rc, seconds, out = done.result()
            summary = out.strip().splitlines()[-1] if out.strip() else "(no output)"
            for part in summary.strip("= ").split(" in ")[0].split(", "):
                n, _, what = part.partition(" ")
                if n.isdigit():
                    what = {"warning": "warnings", "error": "errors"}.get(what, what)
                    counts[what] = counts.get(what, 0) + int(n)
            # 5: nothing collected (a file whose tests this machine cannot run, all deselected)
            if rc in (0, 5):
                print(f"{seconds:7.1f}s  {path.relative_to(ROOT)}: {summary}", flush=True)
            else:
                failed.append(str(path.relative_to(ROOT)))
                print(f"{seconds:7.1f}s  {path.relative_to(ROOT)}: FAILED (exit {rc})\n{out}", flush=True)
    total = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
    print(f"== {len(files)} files: {total} in {time.monotonic() - start:.0f} s"
          + (f"; failed: {' '.join(failed)}" if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
