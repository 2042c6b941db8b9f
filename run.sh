#!/usr/bin/env bash
# The main job: set everything up on this machine, build the site and serve it.
#
#   ./run.sh [--port P] [--host H] [--https | --cert C --key K]
#                                    the site (playground, Mandelbrot, benchmarks,
#                                    conformance, docs); prints its URL, Ctrl+C stops it.
#                                    From a phone: ./run.sh --host 0.0.0.0 --https
#                                    (README.md, "Site": a secure context is needed)
#   ./run.sh --cli [ARGS]            the command-line demo on this machine's GPU instead
#                                    (CPython only: needs neither Node nor Chromium)
set -euo pipefail
cd "$(dirname "$0")"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ "${1:-}" = "--cli" ]; then
  shift
  scripts/setup.sh --python
  exec .venv/bin/python -m webarray "$@"
fi
scripts/setup.sh
echo "run: building the site (npm run build:site)" >&2
npm run --silent build:site
exec .venv/bin/python site/serve.py "$@"
