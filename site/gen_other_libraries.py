"""Writes site/other-libraries.json, the conformance dashboard's comparison with other
libraries, from a git checkout of data-apis/array-api-compat:

    python site/gen_other_libraries.py PATH/TO/array-api-compat[.git] [REV]

array-api-compat's CI runs array-api-tests (ARRAY_API_TESTS_VERSION 2025.12, 1000
hypothesis examples) against NumPy, CuPy, PyTorch and Dask through its wrappers, with one
list per library of the tests expected to fail (``<library>-xfails.txt``) and of tests
skipped (``<library>-skips.txt``). Those lists are the best published per-test results;
this script counts their entries (per test module too) at a given commit. Run it again
to refresh; its output is committed so that the site builds offline.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "other-libraries.json"
LIBRARIES = {  # list file stem -> shown name
    "numpy": "NumPy (latest release)",
    "numpy-dev": "NumPy (development)",
    "cupy": "CuPy",
    "torch": "PyTorch",
    "dask": "Dask",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


def entries(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo = Path(argv[0])
    if (repo / ".git").exists():
        repo = repo / ".git"
    rev = argv[1] if len(argv) > 1 else "HEAD"
    commit = git(repo, "rev-parse", rev).strip()
    date = git(repo, "show", "-s", "--format=%cI", commit).strip()
    files = set(git(repo, "ls-tree", "--name-only", commit).split())
    libraries = []
    for stem, name in LIBRARIES.items():
        if f"{stem}-xfails.txt" not in files:
            continue
        xfails = entries(git(repo, "show", f"{commit}:{stem}-xfails.txt"))
        base = stem.split("-")[0]
        skips = entries(git(repo, "show", f"{commit}:{base}-skips.txt")) if f"{base}-skips.txt" in files else []
        by_module: dict[str, int] = {}
        for e in xfails:
            m = re.match(r"array_api_tests/(test_\w+)\.py", e)
            key = m.group(1) if m else "other"
            by_module[key] = by_module.get(key, 0) + 1
        libraries.append({
            "name": name,
            "expected_failures": len(xfails),
            "skipped": len(skips),
            "by_module": dict(sorted(by_module.items())),
            "url": f"https://github.com/data-apis/array-api-compat/blob/{commit}/{stem}-xfails.txt",
            "note": f"entries of {stem}-xfails.txt ({len(skips)} more tests skipped); "
                    "some name a whole test function",
        })
    OUT.write_text(json.dumps({
        "source": f"https://github.com/data-apis/array-api-compat/tree/{commit}",
        "commit": commit,
        "date": date,
        "description": "Tests that array-api-compat's CI expects to fail when it runs array-api-tests "
                       "(API version 2025.12, 1000 examples per test) on each library through its "
                       f"compatibility wrappers, counted from its xfail lists of {date[:10]}.",
        "libraries": libraries,
    }, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
