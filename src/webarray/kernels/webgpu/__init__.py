"""The WGSL kernel registry for WebGPU: one generator module per kernel family
(elementwise, reduction, scan, sort, matmul, linalg, linalg_steps, fft, raw), reached through
``Device.kernels`` (``_core/device.py``); ``kernels/webgl2/`` is its GLSL sibling."""
