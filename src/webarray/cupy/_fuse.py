"""``cupy.fuse``: run a function's elementwise body as one kernel, recorded once.

A fused function is ``webarray.jit`` of the body (``_jit.py``): the first call with
arguments of a new layout (and new scalar values: they are static) runs the body with the
lazy graph on (``webarray.fusion``), so its elementwise operations build one expression DAG
whose outputs are lowered together, one kernel per distinct output shape unless the DAG is
too deep or reads too many buffers for one kernel (``_graph.MAX_DEPTH``, ``MAX_BINDINGS``),
and records those kernels; later calls replay them without running the body's Python. As in
CuPy's fuse, Python control flow runs on the host when the body is traced, and a body that
reads array values on the host is refused (``webarray.TraceError``).
"""

from __future__ import annotations

import functools

from webarray._array_object import Array
from webarray._jit import Jit

from ._core import operand, wrap


class Fusion:
    def __init__(self, func, kernel_name: str | None = None):
        self.func = func
        self.name = kernel_name or getattr(func, "__name__", "fused")
        self._jit = Jit(func)
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        args = tuple(a if isinstance(a, Array) else operand(a, self.name) for a in args)
        return wrap(self._jit(*args, **kwargs))

    def __repr__(self) -> str:
        return f"<Fusion {self.name!r}>"


def fuse(*args, kernel_name: str | None = None):
    """``@fuse`` or ``@fuse(kernel_name=...)``."""
    if len(args) == 1 and callable(args[0]):
        return Fusion(args[0], kernel_name)
    return lambda f: Fusion(f, kernel_name)
