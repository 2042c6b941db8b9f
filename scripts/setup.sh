#!/usr/bin/env bash
# Installs what webarray's run and test commands need on a fresh Debian machine:
# Mesa's software Vulkan driver (a real WebGPU adapter without a GPU), Chromium (the
# browser tests: WebGPU on SwiftShader), PostgreSQL (the volunteer tests), a virtual
# environment with the package and its test, ecosystem and volunteer dependencies, Chainer,
# the npm packages (vite, TypeScript, playwright-core, Pyodide), the built JS library and
# webarray wheel, the pure-Python wheels that the in-browser tests install into Pyodide,
# and those of Chainer for the site's Chainer page. Safe to run again; quick when
# everything is in place.
# --python: only what CPython on this machine's GPU needs (the driver, the venv): no
# Chromium, no PostgreSQL, no Chainer, no Node (./run.sh --cli).
set -euo pipefail
cd "$(dirname "$0")/.."
python_only=0
[ "${1:-}" = "--python" ] && python_only=1

need_apt=()
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need_apt+=(mesa-vulkan-drivers)
[ "$python_only" = 1 ] || [ -x /usr/bin/chromium ] || need_apt+=(chromium)
# PostgreSQL: the volunteer tests run a study on it too (tests/volunteer_support.py)
[ "$python_only" = 1 ] || compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: please install ${need_apt[*]} (Debian packages) as root" >&2; exit 1; fi
  echo "setup: installing ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.webarray-deps
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing Python dependencies"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test,ecosystem,volunteer]"
  touch "$stamp"
fi
# Chainer 7.8.1 (tests/test_chainer.py): its sdist needs setuptools < 70 and no build isolation
if [ "$python_only" = 0 ] && ! .venv/bin/python -c "import importlib.metadata as m; assert m.version('chainer') == '7.8.1'" 2>/dev/null; then
  echo "setup: installing Chainer 7.8.1"
  .venv/bin/python -m pip install -q "setuptools<70" wheel
  .venv/bin/python -m pip install -q --no-build-isolation chainer==7.8.1
fi

# -- the browser side ----------------------------------------------------------------------
[ "$python_only" = 1 ] && exit 0
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup: Node.js >= 20.19 with npm is needed for the browser build and tests" >&2; exit 1
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "setup: Node.js $(node --version) is too old; vite needs >= 20.19" >&2; exit 1
fi
# npm ci leaves node_modules/.package-lock.json behind: newer than the lock file = up to date
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
# the JS library and the webarray wheel, each only when older than its sources
.venv/bin/python -m webarray.browser build >/dev/null

# Pure-Python wheels that the in-browser tests install into Pyodide (it has no micropip
# here). Pinned, so a run is reproducible; --platform any keeps them pure.
wheel_dir=.pyodide-wheels
pyodide_wheels=(
  pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 packaging==26.3 pygments==2.21.0
  hypothesis==6.155.7 attrs==26.1.0 sortedcontainers==2.4.0
)
missing=()
for spec in "${pyodide_wheels[@]}"; do
  compgen -G "$wheel_dir/${spec%%==*}-${spec##*==}-*.whl" >/dev/null || missing+=("$spec")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: downloading wheels for Pyodide: ${missing[*]}"
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --platform any \
    --python-version 3.14 --implementation py --abi none -d "$wheel_dir" "${missing[@]}"
fi

# Chainer and its pure dependencies for the site's Chainer page (site/gen_data.py copies
# them into the build), apart from the test wheels above. Chainer publishes only an sdist:
# its pure wheel is built from it the way Chainer is installed above.
chainer_dir=$wheel_dir/chainer
if ! compgen -G "$chainer_dir/chainer-7.8.1-*.whl" >/dev/null; then
  echo "setup: building the Chainer 7.8.1 wheel for Pyodide"
  .venv/bin/python -m pip install -q "setuptools<70" wheel
  .venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w "$chainer_dir" chainer==7.8.1
fi
chainer_deps=(six==1.17.0 filelock==4.2.12 typing_extensions==4.16.0)
missing=()
for spec in "${chainer_deps[@]}"; do
  compgen -G "$chainer_dir/${spec%%==*}-${spec##*==}-*.whl" >/dev/null || missing+=("$spec")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: downloading Chainer's wheels for Pyodide: ${missing[*]}"
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --platform any \
    --python-version 3.14 --implementation py --abi none -d "$chainer_dir" "${missing[@]}"
fi
