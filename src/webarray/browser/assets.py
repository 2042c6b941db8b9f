"""What a browser run needs from the checkout, built when missing or stale: the JS library
(``npm run build`` into dist/webarray_js), the webarray wheel (``pip wheel`` into
dist/wheels), Pyodide and playwright-core (node_modules), Node and Chromium."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BUILD_TIMEOUT = 300  # seconds for one npm or pip build
_SETUP_HINT = "run scripts/setup.sh (it installs Chromium, the npm packages and the test wheels)"


class SetupError(RuntimeError):
    """Something the runner needs is missing; the message says what to do."""


def repo_root() -> Path:
    """The checkout that holds this package (src/webarray/browser -> the repository)."""
    env = os.environ.get("WEBARRAY_ROOT")
    candidates = [Path(env)] if env else []
    candidates += list(Path(__file__).resolve().parents)
    for p in candidates:
        if (p / "package.json").is_file() and (p / "src" / "webarray_js").is_dir():
            return p
    raise SetupError(
        "the browser runner works from a checkout of webarray (it needs package.json and "
        "src/webarray_js); install webarray with 'pip install -e .' or set WEBARRAY_ROOT"
    )


def _newest(paths) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SetupError(f"{what} took longer than {BUILD_TIMEOUT} s: {' '.join(cmd)}") from None
    except FileNotFoundError:
        raise SetupError(f"{what} needs {cmd[0]!r}, which is not installed; {_SETUP_HINT}") from None
    if r.returncode != 0:
        raise SetupError(f"{what} failed ({' '.join(cmd)}):\n{r.stdout}{r.stderr}")


@contextlib.contextmanager
def _build_lock(root: Path):
    """Serialises builds of concurrent runs (they share dist/)."""
    (root / "dist").mkdir(exist_ok=True)
    with open(root / "dist" / ".build.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def node() -> str:
    exe = shutil.which("node")
    if exe is None:
        raise SetupError(f"Node.js is not installed (the runner drives Chromium from Node); {_SETUP_HINT}")
    return exe


def chromium() -> str:
    exe = os.environ.get("WEBARRAY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(exe).is_file():
        raise SetupError(f"Chromium is not installed (looked for {exe}); {_SETUP_HINT}")
    return exe


def node_modules(root: Path) -> Path:
    nm = root / "node_modules"
    for pkg in ("playwright-core", "pyodide", "vite"):
        if not (nm / pkg / "package.json").is_file():
            raise SetupError(f"the npm package {pkg} is missing from {nm}; {_SETUP_HINT}")
    return nm


def js_library(root: Path) -> Path:
    """dist/webarray_js, rebuilt when a source or build file is newer than its output."""
    out = root / "dist" / "webarray_js"
    sources = list((root / "src" / "webarray_js").glob("*.ts"))
    sources += [root / "package.json", root / "vite.config.ts", root / "tsconfig.json"]
    entries = [out / f"{name}.js" for name in ("index", "worker", "gpu-worker", "python-worker")]

    def fresh() -> bool:
        return all(e.is_file() for e in entries) and min(e.stat().st_mtime for e in entries) >= _newest(sources)

    if not fresh():
        with _build_lock(root):
            if not fresh():
                node_modules(root)
                _run(["npm", "run", "--silent", "build"], root, "building the JS library")
    return out


def webarray_wheel(root: Path) -> Path:
    """The pure-Python webarray wheel in dist/wheels, rebuilt when the package changed."""
    out = root / "dist" / "wheels"
    sources = [p for p in (root / "src" / "webarray").rglob("*") if "__pycache__" not in p.parts]
    sources.append(root / "pyproject.toml")

    def fresh() -> Path | None:
        wheels = sorted(out.glob("webarray-*.whl"))
        if len(wheels) == 1 and wheels[0].stat().st_mtime >= _newest(sources):
            return wheels[0]
        return None

    wheel = fresh()
    if wheel is not None:
        return wheel
    with _build_lock(root):
        return fresh() or _build_wheel(root, out)


def _build_wheel(root: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(root), "-w", tmp],
             root, "building the webarray wheel")
        built = sorted(Path(tmp).glob("webarray-*.whl"))
        if len(built) != 1:
            raise SetupError(f"pip wheel produced {[p.name for p in built]}, expected one webarray wheel")
        for old in out.glob("webarray-*.whl"):
            old.unlink()
        target = out / built[0].name
        os.replace(built[0], target)
    return target
