#!/usr/bin/env bash
# Set everything up, then run the whole test suite: once with lazy fusion (the default),
# then the tests whose results come from fused elementwise chains once more with every op
# run as its own kernel (WEBARRAY_FUSION=0), since results must not depend on fusion.
# Arguments go to pytest and run the first pass only (./test.sh tests/test_elementwise.py -x).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# lavapipe (Mesa's CPU Vulkan driver, the CPython tests' adapter) compiles each kernel with
# LLVM, and on a cold shader cache (every CI machine) that is most of the suite's time: a
# complex128 function's kernel takes 20-40 s. Without LLVM's optimisation passes it takes half
# (3 complex128 tests, cold: 122 -> 65 s; the seven float64/complex128 files: 9 min on two
# workers, bit-exact lane checks included); arithmetic is IEEE either way. GALLIVM_PERF=
# (empty) compiles as a user's machine does.
export GALLIVM_PERF="${GALLIVM_PERF-nopt}"
if [ "$#" -gt 0 ]; then
    exec .venv/bin/python -m pytest -q "$@"
fi
# each test file in a process of its own, two at a time (scripts/run_tests.py says why),
# then the tests whose results come from fused elementwise chains again with every op its
# own kernel
.venv/bin/python scripts/run_tests.py
echo "--- again without fusion (WEBARRAY_FUSION=0): the tests whose results come from fused elementwise chains ---"
WEBARRAY_FUSION=0 exec .venv/bin/python scripts/run_tests.py \
    tests/test_elementwise.py tests/test_fusion.py tests/test_loop_fusion.py tests/test_fuzz.py \
    tests/test_statistical.py tests/test_searching_reductions.py tests/test_manipulation.py \
    tests/test_indexing.py tests/test_creation.py tests/test_complex_math.py \
    tests/test_int64_math.py tests/test_threads.py tests/test_interrupts.py tests/test_jit.py \
    tests/test_reliability.py tests/test_big_views.py tests/test_cupy_kernels.py \
    tests/test_chainer.py
