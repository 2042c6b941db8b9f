"""RawKernel: a WGSL compute shader of the user's, launched with CuPy's (grid, block, args).

The binding convention is webarray's (``executors/protocol.py``): array arguments are bound,
in order, to ``@group(0) @binding(1..n)`` (declare them ``var<storage, read>`` or
``var<storage, read_write>``, as ``array<f32>``, ``array<i32>``, ``array<u32>``; bool and
8/16-bit integers occupy one 32-bit word per element); scalar arguments are packed, in
order, as 32-bit words into binding 0, ``var<storage, read> <name>: array<u32>`` (ints as
two's complement, floats as their bits: ``bitcast<f32>(P[k])``), which is added when the
source does not declare it. ``grid`` counts workgroups, as CUDA's grid counts blocks;
``block`` must match the shader's ``@workgroup_size``. The entry point is the function
``name`` (renamed ``main`` for the executor). CUDA C source is not translated.
"""

from __future__ import annotations

import re
import struct

from webarray import _graph
from webarray._array_object import Array
from webarray._device import default_device
from webarray.executors.protocol import KernelError

from ._core import scalar_value
from ._params import kernel_error

_WORKGROUP = re.compile(r"@workgroup_size\(\s*([^)]*)\)")
_BINDING0 = re.compile(r"@binding\(\s*0\s*\)")


class RawKernel:
    def __init__(self, code: str, name: str, options=(), backend: str | None = None):
        """options and backend (CuPy's compiler choices) are accepted and have no effect."""
        if "__global__" in code or "extern \"C\"" in code:
            raise NotImplementedError(
                f"RawKernel {name!r}: CUDA C source cannot run here; write the kernel in "
                "WGSL (see docs/cupy.md)")
        if not re.search(rf"\bfn\s+{re.escape(name)}\s*\(", code):
            raise ValueError(f"RawKernel {name!r}: the source has no function {name!r}")
        if name != "main":
            if re.search(r"\bfn\s+main\s*\(", code):
                raise ValueError(f"RawKernel {name!r}: the source also defines 'main', which "
                                 "webarray needs for the entry point")
            code = re.sub(rf"\b{re.escape(name)}\b", "main", code)
        if not _BINDING0.search(code):
            code = "@group(0) @binding(0) var<storage, read> wa_scalars: array<u32>;\n" + code
        self.code = code
        self.name = name
        m = _WORKGROUP.search(code)
        self.workgroup = None
        if m:
            try:
                dims = [int(v.strip().rstrip("iu"), 0) for v in m.group(1).split(",") if v.strip()]
                self.workgroup = tuple(dims + [1] * (3 - len(dims)))
            except ValueError:
                pass  # sizes given by constants: not checked

    def __call__(self, grid, block, args, shared_mem: int = 0, stream=None):
        grid = _dims(grid, "grid")
        block = _dims(block, "block")
        if self.workgroup is not None and block != self.workgroup:
            raise ValueError(f"RawKernel {self.name!r}: block {block} differs from the "
                             f"shader's @workgroup_size{self.workgroup}")
        buffers, words = [], []
        device = None
        for k, a in enumerate(args):
            if isinstance(a, Array):
                if a._offset != 0 or a._strides != _graph.c_strides(a.shape):
                    raise ValueError(f"RawKernel {self.name!r}: argument {k} is a strided or "
                                     "offset view; pass a C-contiguous array of its own "
                                     "(x.copy())")
                if device is None:
                    device = a.device
                elif a.device != device:
                    raise ValueError(f"RawKernel {self.name!r}: arguments on different devices")
                buffers.append(a)
            else:
                v = scalar_value(a)
                if v is None:
                    raise TypeError(f"RawKernel {self.name!r}: argument {k} is a "
                                    f"{type(a).__name__}; pass arrays and scalars")
                words.append(_word(a, v))
        device = device or default_device()
        if device.backend == "webgl2":
            raise NotImplementedError(f"RawKernel {self.name!r}: WGSL compute shaders do not "
                                      "run on WebGL2")
        _graph.flush(device)
        bufs = [a._buf for a in buffers]
        uniforms = struct.pack(f"<{len(words)}I", *words) if words else b"\0\0\0\0"
        try:
            device.launch(("raw", self.code), lambda: self.code, bufs, uniforms, grid)
        except KernelError as e:
            raise kernel_error(self.name, e, "wgsl") from None


def _dims(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise ValueError(f"{what} must be one to three positive sizes, got {v!r}")
    return t + (1,) * (3 - len(t))


def _word(obj, v) -> int:
    name = getattr(getattr(obj, "dtype", None), "name", "")
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) or name.startswith("float"):
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if isinstance(v, int):
        return v & 0xFFFFFFFF
    raise TypeError(f"RawKernel: a {type(v).__name__} scalar has no 32-bit form")
