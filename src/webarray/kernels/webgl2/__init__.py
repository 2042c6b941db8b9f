"""The GLSL ES 3.00 kernel registry for WebGL2 (docs/webgl2.md).

Mirrors ``kernels/webgpu/``: each module takes the same specs and uniform layouts as its
WGSL counterpart, so the launch sites reach either through ``Device.kernels``. Where a
WGSL algorithm rests on compute-shader features that WebGL2 lacks (workgroup shared
memory, barriers, writes to arbitrary addresses from one invocation), the entry is None and
the caller composes the algorithm of namespace operations instead (linalg, fft).
"""

from __future__ import annotations

from . import elementwise, matmul, raw, reduction, scan, sort  # noqa: F401


# no linalg kernels: the factorizations are composed of namespace operations instead
# (_linalg_composed.py), eig and eigvals excepted (their results are complex)
linalg = None
linalg_steps = None
# no fft kernels: the transforms are composed of namespace operations (fft.py _composed_rows)
fft = None
