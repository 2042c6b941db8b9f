#!/usr/bin/env bash
# Set everything up, then run the whole test suite: once with lazy fusion (the default),
# then the CPython tests once more with every op run as its own kernel (WEBARRAY_FUSION=0),
# since results must not depend on fusion. Arguments go to pytest and run the first pass
# only (./test.sh tests/test_elementwise.py -x).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ "$#" -gt 0 ]; then
    exec .venv/bin/python -m pytest -q "$@"
fi
.venv/bin/python -m pytest -q
echo "--- again without fusion (WEBARRAY_FUSION=0), CPython tests ---"
WEBARRAY_FUSION=0 exec .venv/bin/python -m pytest -q \
    --ignore=tests/test_browser.py --ignore=tests/test_site.py --ignore=tests/test_webgl2.py \
    --ignore-glob='tests/test_*_browser.py' --ignore-glob='tests/test_ecosystem_*.py' \
    --ignore-glob='tests/test_volunteer*.py'
