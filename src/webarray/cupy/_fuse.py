"""``cupy.fuse``: run a function's elementwise body as one kernel.

The function runs with the lazy graph on (``webarray.fusion``), so its elementwise
operations build one expression DAG, and its outputs are then lowered together: one
kernel per distinct output shape, unless the DAG is too deep or reads too many buffers
for one kernel (``_graph.MAX_DEPTH``, ``MAX_BINDINGS``). Arguments may be arrays or
scalars; Python control flow runs on the host, once per call, as in CuPy's fuse.
"""

from __future__ import annotations

import functools

from webarray import fusion
from webarray._array_object import Array

from ._core import operand, wrap


class Fusion:
    def __init__(self, func, kernel_name: str | None = None):
        self.func = func
        self.name = kernel_name or getattr(func, "__name__", "fused")
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        args = tuple(a if isinstance(a, Array) else operand(a, self.name) for a in args)
        with fusion.enabled(True):
            out = self.func(*args, **kwargs)
            arrays = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                      if isinstance(o, Array)]
            fusion.flush(*arrays)
        return wrap(out)

    def __repr__(self) -> str:
        return f"<Fusion {self.name!r}>"


def fuse(*args, kernel_name: str | None = None):
    """``@fuse`` or ``@fuse(kernel_name=...)``."""
    if len(args) == 1 and callable(args[0]):
        return Fusion(args[0], kernel_name)
    return lambda f: Fusion(f, kernel_name)
