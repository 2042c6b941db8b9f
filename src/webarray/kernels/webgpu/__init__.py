"""The WGSL kernel registry for WebGPU: one generator module per kernel family
(elementwise, reduction, scan, sort, matmul, linalg, linalg_steps, fft, raw), reached through
``Device.kernels`` (``_core/device.py``); ``kernels/webgl2/`` is its GLSL sibling."""

# The first line of a generated kernel whose every buffer and workgroup access is in bounds by
# construction (its generator guards or bounds each index and says why): the native executor
# compiles it without the WGSL compiler's runtime checks (executors/protocol.py IN_BOUNDS,
# the same literal; tests/test_linear_algebra.py checks they agree).
IN_BOUNDS = "// webarray: every access in bounds by construction\n"
