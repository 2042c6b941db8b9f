#!/usr/bin/env bash
# The main job: set everything up, then run webarray's demo on this machine's GPU.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
exec .venv/bin/python -m webarray "$@"
