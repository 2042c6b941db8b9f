"""The array object: a typed, strided view of a device buffer.

An Array is the core's storage record (buffer, dtype, shape, strides in elements, offset
in elements, device: ``_core/tensor.py``) with the standard's face. Slicing, transposes and
broadcasting make views that share the buffer. Every operator forwards to the namespace
function of the same name, so operator and function share validation and kernels.
"""

from __future__ import annotations

import math

from . import _dtypes as dt
from . import _format
from ._core import graph as _graph
from ._core import lease as _lease
from ._core import storage as _storage
from ._core import tensor as _tensor
from ._core.device import resolve
from ._core.tensor import Tensor


class Array(Tensor):
    """An array of the standard: the storage record (``_core/tensor.py``) with the
    standard's operators, methods and conversions. It adds no state."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "webarray.Array cannot be constructed directly; use webarray.asarray or another "
            "creation function"
        )

    @property
    def T(self) -> "Array":
        if self.ndim != 2:
            raise ValueError(
                f"x.T requires a two-dimensional array, got {self.ndim} dimensions; use "
                "permute_dims or x.mT for stacks of matrices"
            )
        return self._permuted((1, 0))

    @property
    def mT(self) -> "Array":
        if self.ndim < 2:
            raise ValueError(f"x.mT requires at least two dimensions, got {self.ndim}")
        axes = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)
        return self._permuted(axes)

    def _permuted(self, axes) -> "Array":
        return Array._view(
            self._buf, self._dtype, [self._shape[a] for a in axes],
            [self._strides[a] for a in axes], self._offset, self._device,
        )

    # -- host transfer -------------------------------------------------------------------------

    def _contiguous(self) -> "Array":
        if _tensor.is_contiguous(self._shape, self._strides):
            return self
        return _graph.copy_of(self)

    def _raw(self) -> bytes:
        """The stored bytes of the values, flat in C order (see _core/storage.py)."""
        return _graph.host_bytes(self)

    def _host_flat(self) -> list:
        return _storage.decode(self._raw(), self._dtype)

    def _host_nested(self):
        flat = self._host_flat()
        if not self._shape:
            return flat[0]

        def nest(start, dims):
            if len(dims) == 1:
                return flat[start:start + dims[0]]
            step = math.prod(dims[1:])
            return [nest(start + i * step, dims[1:]) for i in range(dims[0])]

        return nest(0, self._shape)

    def _scalar(self):
        if self._shape != ():
            raise TypeError(
                f"only zero-dimensional arrays convert to Python scalars; got shape {self._shape}"
            )
        return self._host_flat()[0]

    def __bool__(self) -> bool:
        return bool(self._scalar())

    def __int__(self) -> int:
        v = self._scalar()
        if isinstance(v, float):
            if math.isnan(v):
                raise ValueError("cannot convert a NaN array to int")
            if math.isinf(v):
                raise OverflowError("cannot convert an infinite array to int")
        return int(v)

    def __float__(self) -> float:
        return float(self._scalar())

    def __complex__(self) -> complex:
        v = self._scalar()
        if isinstance(v, float) and math.isnan(v):
            return complex(math.nan, math.nan)  # the standard's special case: NaN + NaN j
        return complex(v)

    def __index__(self) -> int:
        if self._dtype not in dt.integer_dtypes:
            raise TypeError(
                f"only integer arrays can be used as an index, got {self._dtype.name}"
            )
        return int(self._scalar())

    def __array__(self, dtype=None, copy=None):
        """A NumPy copy of the values. It never shares memory with the array (that lives
        on the GPU), so NumPy's ``copy=False`` raises and ``np.array(x)`` (copy=True) gets
        a copy of its own. The implicit ``np.asarray(x)`` (copy=None) of a C-contiguous x
        in its own dtype gets a lent copy (_core/lease.py): what NumPy writes into it
        reaches x at the next webarray operation, after which it is read-only, as SciPy's
        ``output=`` arrays need, and until then ``np.asarray(x)`` gives that same copy; any
        other implicit copy is read-only, so a library that writes into it raises instead
        of writing into a copy that is then thrown away."""
        import numpy as np

        if copy is False:
            raise ValueError(
                "np.asarray(x, copy=False): a webarray array lives in GPU memory, so NumPy "
                "can only get a copy; use copy=None or copy=True"
            )
        raw = self._raw()
        storage = _storage.numpy_storage(self._dtype)
        own = dtype is None or np.dtype(dtype) == np.dtype(self._dtype.name)
        lent = (not copy and own and self.size > 0
                and _tensor.is_contiguous(self._shape, self._strides))
        width = _storage.element_bytes(self._dtype)
        if lent and _lease.LEASES:  # the open lease of these bytes again, as NumPy would
            same = _lease.reuse(self._buf, self._offset * width, raw, self._shape,
                                self._dtype.name)
            if same is not None:
                return same
        out = np.frombuffer(bytearray(raw) if copy or lent else raw, dtype=storage)
        out = out.astype(self._dtype.name, copy=False).reshape(self._shape)
        if not own:
            out = out.astype(dtype)
        if lent:
            # pending expressions that read x's buffer are computed now, before NumPy can
            # write into it: they were written before those writes (later ones wait for
            # the write-back, lease.settle); part of the readback, so other copies stay lent
            with _lease.reading():
                _graph.compute_readers(self._buf)
            _lease.lend(self._device.executor, self._buf, self._offset * width, raw, out, storage)
        elif not copy:
            out.flags.writeable = False
        return out

    def _shown(self) -> list:
        """The values a printout shows, flat in C order: all of them, or past
        _format.THRESHOLD elements only those at the edges, fetched with one gather and
        one readback."""
        positions = _format.shown_positions(self._shape)
        if self.size == 0:
            return []
        if positions is None:
            return self._host_flat()
        from ._creation import asarray  # Array <-> namespace: the namespace imports Array

        index = []
        for axis, kept in enumerate(positions):
            # positions along this axis, viewed to broadcast against the other axes'
            a = asarray(kept, dtype=dt.int32, device=self._device)
            shape = [1] * self.ndim
            shape[axis] = len(kept)
            strides = [0] * self.ndim
            strides[axis] = 1
            index.append(Array._view(a._buf, a._dtype, shape, strides, 0, a._device))
        return Array.__getitem__(self, tuple(index))._host_flat()

    def __repr__(self) -> str:
        """NumPy's layout of the values (``np.array2string``), named Array, with the
        dtype and device always shown."""
        fields = [f"dtype={self._dtype.name}", f"device={self._device.backend}"]
        return _format.array_repr(self._shown(), self._shape, self._dtype, name="Array",
                                  fields=fields)

    __str__ = __repr__

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a zero-dimensional array")
        return self._shape[0]

    def __iter__(self):
        # not a generator function: iter(x) itself must raise for a 0-d array
        if not self._shape:
            raise TypeError("iteration over a zero-dimensional array")
        return (self[i] for i in range(self._shape[0]))

    # arrays are mutable, and == is elementwise: not hashable (collections.abc.Hashable
    # says so too)
    __hash__ = None  # type: ignore[assignment]

    # -- namespace, device and interchange ----------------------------------------------------

    def __array_namespace__(self, /, *, api_version: str | None = None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
            raise ValueError(
                f"webarray implements array API versions 2021.12 to 2025.12, not {api_version!r}"
            )
        import webarray  # Array <-> namespace: the namespace imports Array

        return webarray

    def to_device(self, device, /, *, stream=None) -> "Array":
        if stream is not None:
            raise ValueError("webarray has no streams; pass stream=None")
        target = resolve(device)
        if target == self._device:
            return self
        from ._creation import asarray  # Array <-> namespace: the namespace imports Array

        return asarray(self._host_nested(), dtype=self._dtype, device=target)

    def __dlpack_device__(self) -> tuple[int, int]:
        from ._dlpack import KDL_WEBGPU  # Array <-> namespace: the namespace imports Array

        return (KDL_WEBGPU, 0)

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        from ._dlpack import export  # Array <-> namespace: the namespace imports Array

        return export(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    # -- indexing ------------------------------------------------------------------------------

    def __getitem__(self, key) -> "Array":
        from ._indexing_impl import getitem  # Array <-> namespace: the namespace imports Array

        return getitem(self, key)

    def __setitem__(self, key, value) -> None:
        from ._indexing_impl import setitem  # Array <-> namespace: the namespace imports Array

        setitem(self, key, value)

    # -- operators -----------------------------------------------------------------------------
    # Each forwards to the elementwise function of the standard's name; the reflected and
    # in-place forms swap the operands or write into self.

    def __matmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        from . import linalg  # Array <-> namespace: the namespace imports Array

        return linalg.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        from . import linalg  # Array <-> namespace: the namespace imports Array

        return linalg.matmul(other, self)

    def __imatmul__(self, other):
        res = self.__matmul__(other)
        if res is NotImplemented:
            return res
        if res.shape != self._shape or res.dtype != self._dtype:
            raise ValueError(
                f"x @= y would change x from {self._shape} {self._dtype.name} to "
                f"{res.shape} {res.dtype.name}; in-place operators keep shape and dtype"
            )
        self[...] = res
        return self


def _binary(name: str):
    fns = None  # (the operator's function, the namespace function), looked up at the first call

    def functions():
        nonlocal fns
        from . import _elementwise as ew  # Array <-> namespace: the namespace imports Array

        fns = (ew.operator(name), ew.direct(name))
        return fns

    def forward(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return (fns or functions())[0](self, other)

    def reflected(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return (fns or functions())[1](other, self)

    def inplace(self, other):
        if not _operand_ok(other):
            return NotImplemented
        from . import _elementwise as ew  # Array <-> namespace: the namespace imports Array

        return ew._inplace(name, self, other)

    return forward, reflected, inplace


def _operand_ok(other) -> bool:
    return isinstance(other, (Array, bool, int, float, complex))


for _op, _fn in [
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
    ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"),
    ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
    ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift"),
]:
    _f, _r, _i = _binary(_fn)
    _f.__name__, _r.__name__, _i.__name__ = f"__{_op}__", f"__r{_op}__", f"__i{_op}__"
    setattr(Array, f"__{_op}__", _f)
    setattr(Array, f"__r{_op}__", _r)
    setattr(Array, f"__i{_op}__", _i)

for _op, _fn in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                 ("gt", "greater"), ("ge", "greater_equal")]:
    _f = _binary(_fn)[0]
    _f.__name__ = f"__{_op}__"
    setattr(Array, f"__{_op}__", _f)


def _unary(name: str):
    def method(self):
        from . import _elementwise as ew  # Array <-> namespace: the namespace imports Array

        return getattr(ew, name)(self)

    return method


for _op, _fn in [("neg", "negative"), ("pos", "positive"), ("abs", "abs"),
                 ("invert", "bitwise_invert")]:
    _m = _unary(_fn)
    _m.__name__ = f"__{_op}__"
    setattr(Array, f"__{_op}__", _m)

del _op, _fn, _f, _r, _i, _m


_tensor.present_as(Array)
