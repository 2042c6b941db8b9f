"""The GLSL ES 3.00 kernel registry for WebGL2 (docs/webgl2.md).

Mirrors ``kernels/webgpu/``: each module takes the same specs and uniform layouts as its
WGSL counterpart, so the launch sites reach either through ``Device.kernels``. Where a
WGSL algorithm rests on compute-shader features that WebGL2 lacks (workgroup shared
memory, barriers, writes to arbitrary addresses from one invocation), the module here is
an ``Unsupported`` stand-in that raises ``NotImplementedError`` naming the limitation.
"""

from __future__ import annotations

from . import elementwise, matmul, raw, reduction, scan, sort  # noqa: F401


class Unsupported:
    """A registry entry WebGL2 cannot provide; any use raises NotImplementedError."""

    def __init__(self, what: str, why: str):
        self._what, self._why = what, why

    def __getattr__(self, name: str):
        raise NotImplementedError(f"WebGL2 cannot run {self._what}: {self._why}")


_NO_COMPUTE = ("its kernels need compute-shader workgroups with shared memory, which "
               "WebGL2 (fragment shaders only) lacks")
# no linalg kernels: the factorizations are composed of namespace operations instead
# (_linalg_composed.py), eig and eigvals excepted (their results are complex)
linalg = None
linalg_steps = None
fft = Unsupported("fft", _NO_COMPUTE)
