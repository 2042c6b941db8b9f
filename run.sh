#!/usr/bin/env bash
# The main job: set everything up on this machine, build the site and serve it.
#
#   ./run.sh [--port P] [--host H]   the site (playground, Mandelbrot, benchmarks,
#                                    conformance, docs); prints its URL, Ctrl+C stops it
#   ./run.sh --cli [ARGS]            the command-line demo on this machine's GPU instead
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ "${1:-}" = "--cli" ]; then
  shift
  exec .venv/bin/python -m webarray "$@"
fi
echo "run: building the site (npm run build:site)" >&2
npm run --silent build:site
exec .venv/bin/python site/serve.py "$@"
