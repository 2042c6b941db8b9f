"""Benchmark records name what they measured (issue #22): the commit is recorded only when
the benchmarks run from the project's own checkout, or when WEBARRAY_GIT_REVISION names it;
a copy of the project inside another repository records no commit rather than that
repository's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = "import sys; sys.path.insert(0, '.'); from benchmarks._common import git_revision; print(git_revision())"


def _revision(cwd: Path, env=None) -> str:
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_own_checkout_records_its_commit():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    assert _revision(ROOT).split("-")[0] == head


def test_copy_inside_another_repository_records_no_commit(tmp_path):
    outer = tmp_path / "outer"
    (outer / "project").mkdir(parents=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], cwd=outer, check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "outer"], cwd=outer, check=True)
    shutil.copytree(ROOT / "benchmarks", outer / "project" / "benchmarks",
                    ignore=shutil.ignore_patterns("results", "__pycache__"))
    assert _revision(outer / "project") == "None"
    import os

    env = dict(os.environ, WEBARRAY_GIT_REVISION="0123abc")
    assert _revision(outer / "project", env) == "0123abc"


def test_every_record_reads_as_the_site_reads_it():
    """Each record is JSON whose hardware and versions, where given, are mappings: the site's
    data step (site/gen_data.py, run by the build) reads them so, and a record with
    ``"hardware": null`` once stopped the build."""
    import json
    sys.path.insert(0, str(ROOT / "site"))
    try:
        import gen_data
    finally:
        sys.path.remove(str(ROOT / "site"))
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        record = json.loads(path.read_text())
        for key in ("hardware", "versions"):
            assert isinstance(record.get(key, {}), dict), f"{path.name}: {key} is {record[key]!r}"
    data = gen_data.benchmarks()
    assert data["files"] and data["default"]
    assert not [f["file"] for f in data["files"] if "error" in f]


def test_conformance_reports_name_the_suites_commit_not_the_projects(tmp_path):
    """A suite checkout records its own commit; a suite copied without ``.git`` into the
    project's git-ignored ``vendor/`` records none (a report once named the project's HEAD
    as the suite's)."""
    sys.path.insert(0, str(ROOT))
    try:
        from conformance.runner import git_rev
    finally:
        sys.path.remove(str(ROOT))
    outer = tmp_path / "outer"
    (outer / "vendor" / "suite").mkdir(parents=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], cwd=outer, check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "outer"], cwd=outer, check=True)
    assert git_rev(outer / "vendor" / "suite") is None
    subprocess.run(git + ["init", "-q"], cwd=outer / "vendor" / "suite", check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "suite"], cwd=outer / "vendor" / "suite",
                   check=True)
    suite_head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=outer / "vendor" / "suite",
                                capture_output=True, text=True).stdout.strip()
    assert git_rev(outer / "vendor" / "suite") == suite_head
    assert git_rev(outer) != suite_head
