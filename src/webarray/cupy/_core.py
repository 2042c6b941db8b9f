"""The CuPy-style array and the NumPy rules the layer follows over the strict namespace.

``ndarray`` *is* a ``webarray.Array`` (a subclass with no storage of its own), so any strict
function accepts it; results of strict functions are relabelled as ``ndarray`` when they
come back through this layer (``wrap``). What the subclass changes is the NumPy behaviour:
NumPy 2 promotion (NEP 50: Python scalars are weak), method forms (``.sum()``,
``.astype()``, ``.get()``, ``.reshape(2, 3)``), NumPy's ``.T``, and in-place operators
that cast their result back to the array's dtype.

Dtypes follow the device: the default float is float32 and the default integer int32
(NumPy and CuPy: float64 and int64). Where NumPy would promote to float64 (int32 + float32,
an integer array with a Python float, ``sqrt`` of an integer array) the result here is
float32, and NumPy's float64 data arrives as float32 unless a dtype is given: float64 is on
every device, but in the browser it is software (1-5% of float32's speed), so code gets it
only by asking (``dtype=cp.float64``, ``.astype('d')``). ``docs/cupy.md`` lists these choices.
"""

from __future__ import annotations

import builtins
import math
import sys

try:
    import numpy as NUMPY  # optional: ndarray.dtype is a numpy.dtype where NumPy is present
except ImportError:
    # Pyodide may load NumPy later (a served package, on a script's `import numpy`),
    # after this module came from a memory snapshot: numpy_now() looks again
    NUMPY = None

import webarray as _wa
from webarray import _dtypes as dt
from webarray import _format
from webarray._core import storage as _storage
from webarray._core.tensor import is_contiguous
from webarray._manipulation import reshape as _reshape
from webarray._array_object import Array

from .cuda import Device as _CudaDevice

# -- dtypes ---------------------------------------------------------------------------------

_PY_TYPES = {builtins.bool: dt.bool, builtins.int: dt.int32, builtins.float: dt.float32,
             builtins.complex: dt.complex64}
_ALIASES = {"f4": "float32", "f8": "float64", "i1": "int8", "i2": "int16", "i4": "int32",
            "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
            "c8": "complex64", "c16": "complex128", "b1": "bool", "?": "bool",
            "bool_": "bool", "float": "float32", "int": "int32", "complex": "complex64",
            "single": "float32", "double": "float64", "intc": "int32", "uint": "uint32",
            # NumPy's one-character codes (astype('f'), dtype='i')
            "f": "float32", "d": "float64", "i": "int32", "l": "int64", "q": "int64",
            "I": "uint32", "L": "uint64", "Q": "uint64", "h": "int16", "H": "uint16",
            "b": "int8", "B": "uint8", "F": "complex64", "D": "complex128"}


def as_dtype(spec, what: str = "dtype") -> dt.DType | None:
    """A webarray dtype from what NumPy code passes as a dtype: a webarray or NumPy dtype,
    a NumPy scalar type, a name or type code, or Python's bool, int, float, complex."""
    if spec is None or isinstance(spec, dt.DType):
        return spec
    if spec in _PY_TYPES:
        return _PY_TYPES[spec]
    name = spec if isinstance(spec, str) else getattr(spec, "name", None) or getattr(spec, "__name__", None)
    if isinstance(name, str):
        if len(name) > 1:
            name = name.lstrip("<>=|")
        name = _ALIASES.get(name, name)
        if name in dt.by_name:
            return dt.by_name[name]
    raise TypeError(f"{what}: {spec!r} is not a dtype webarray knows")


def result_type(*args) -> dt.DType:
    """NumPy 2 promotion over arrays, dtypes and (weak) Python scalars, with float32 and
    complex64 standing for NumPy's float64 and complex128."""
    strong = [a._dtype if isinstance(a, Array) else as_dtype(a) for a in args
              if isinstance(a, Array) or not isinstance(a, (builtins.bool, builtins.int,
                                                            builtins.float, builtins.complex))]
    weak = [a for a in args if isinstance(a, (builtins.bool, builtins.int, builtins.float,
                                              builtins.complex)) and not isinstance(a, Array)]
    if not strong:
        strong = [_PY_TYPES[type(w)] for w in weak]
        weak = []
    out = strong[0]
    for d in strong[1:]:
        out = promote(out, d)
    for w in weak:
        if isinstance(w, builtins.complex) and out.kind != "c":
            out = dt.complex64
        elif isinstance(w, builtins.float) and out.kind in "biu":
            out = dt.float32
        elif isinstance(w, builtins.int) and not isinstance(w, builtins.bool) and out.kind == "b":
            out = dt.int32
    return out


def promote(a: dt.DType, b: dt.DType) -> dt.DType:
    """NumPy's promotion of two dtypes (float64 results become float32 here)."""
    if a is b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.kind in "fc" or b.kind in "fc":
        if a.kind == "c" or b.kind == "c":
            return dt.complex128 if dt.float64 in (a, b) or dt.complex128 in (a, b) else dt.complex64
        return dt.float64 if dt.float64 in (a, b) else dt.float32
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if s.bits > u.bits:
        return s
    if u.bits >= 64:
        return dt.float32  # NumPy: float64
    return {8: dt.int16, 16: dt.int32, 32: dt.int64}[u.bits]


def floating(d: dt.DType) -> dt.DType:
    """The dtype NumPy computes a float function of d in (float32 standing for float64)."""
    return d if d.kind in "fc" else dt.float32


# -- conversion ---------------------------------------------------------------------------

def wrap(a):
    """Relabel a strict result as an ndarray (recursively through tuples and lists)."""
    if isinstance(a, Array):
        if type(a) is not ndarray:
            a.__class__ = ndarray
        return a
    if isinstance(a, tuple):
        return tuple(wrap(x) for x in a)
    if isinstance(a, list):
        return [wrap(x) for x in a]
    return a


def fresh(a: Array) -> "ndarray":
    """An ndarray for a that never relabels the caller's own strict array."""
    if type(a) is ndarray:
        return a
    return wrap(_view_of(a))


def _view_of(a: Array) -> Array:
    return _reshape(a, a.shape)


_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _is_numpy(obj) -> bool:
    return type(obj).__module__ == "numpy"


def scalar_value(obj):
    """A Python scalar for a Python or NumPy scalar, or None."""
    if isinstance(obj, _SCALARS):
        return obj
    if _is_numpy(obj) and hasattr(obj, "dtype") and getattr(obj, "ndim", 1) == 0 and hasattr(obj, "item"):
        return obj.item()
    return None


def to_array(obj, dtype=None) -> Array:
    """An array on the device for an array, NumPy array or (nested) sequence or scalar."""
    if isinstance(obj, Array):
        return obj if dtype is None or obj.dtype is dtype else _wa.astype(obj, dtype)
    if dtype is None and _is_numpy(obj) and hasattr(obj, "dtype"):
        # NumPy's float64 and complex128 data arrive as the device's float32 and complex64
        name = obj.dtype.name
        if name in ("float64", "float16"):
            obj = obj.astype("float32")
        elif name == "complex128":
            obj = obj.astype("complex64")
    return _wa.asarray(obj, dtype=dtype)


def operand(obj, what: str):
    """An Array or a Python scalar for an operand of a NumPy-style function."""
    if isinstance(obj, Array):
        return obj
    v = scalar_value(obj)
    if v is not None:
        return v
    if isinstance(obj, (list, tuple)) or _is_numpy(obj):
        return to_array(obj)
    raise TypeError(f"{what}: unsupported operand type {type(obj).__name__}")


def fit_scalar(v, dtype: dt.DType):
    """A Python scalar of the kind the strict namespace accepts next to an array of dtype."""
    if dtype.kind == "b":
        return builtins.bool(v)
    if dtype.kind in "iu":
        if isinstance(v, builtins.float):
            raise TypeError(f"a Python float does not combine with {dtype.name}")
        return builtins.int(v)
    if dtype.kind == "f":
        return builtins.float(v) if isinstance(v, (builtins.bool,)) else v
    return v


def cast_to(x, dtype: dt.DType):
    if isinstance(x, Array):
        return x if x._dtype is dtype else _wa.astype(x, dtype)
    return fit_scalar(x, dtype)


def numpy_module():
    try:
        import numpy
    except ImportError:
        raise RuntimeError(
            "this needs NumPy, which is not installed here (in Pyodide, webarray runs "
            "without it); use x.tolist() for the values as Python lists, or x.tobytes() for NumPy's bytes"
        ) from None
    return numpy


# -- what code outside webarray sees ----------------------------------------------------------

def _caller_is_webarray() -> bool:
    """Whether the code reading an attribute (two frames up: past the property) is
    webarray's own. ``ndarray`` is a strict ``Array`` that the strict namespace reads as its
    own (``x.dtype is float32``), while CuPy code expects NumPy's objects there
    (``x.dtype == numpy.float32``, ``numpy.dtype(x.dtype)``, ``isinstance(x.device,
    cupy.cuda.Device)``); the caller's module tells the two apart."""
    return sys._getframe(2).f_globals.get("__name__", "").startswith("webarray")


_NUMPY_DTYPES = {d: NUMPY.dtype(d.name) for d in dt.all_dtypes} if NUMPY is not None else {}


def numpy_now():
    """NumPy, if it is imported by now (else None): imported with this module natively,
    possibly later in Pyodide, where it loads when a script first imports it."""
    global NUMPY, _NUMPY_DTYPES
    if NUMPY is None:
        np = sys.modules.get("numpy")
        if np is None or not hasattr(np, "dtype"):  # absent, or still importing
            return None
        _NUMPY_DTYPES = {d: np.dtype(d.name) for d in dt.all_dtypes}
        NUMPY = np
    return NUMPY


def numpy_dtype(d: dt.DType):
    """NumPy's dtype for d where NumPy is present, else d."""
    if not _NUMPY_DTYPES:
        numpy_now()
    return _NUMPY_DTYPES.get(d, d)


# -- the array ------------------------------------------------------------------------------

def _axis_arg(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


class ndarray(Array):
    """A webarray array with NumPy's methods and operator semantics (see module doc)."""

    __slots__ = ()

    def __new__(cls, shape, dtype=None, memptr=None, strides=None, order="C"):
        """``cupy.ndarray(shape, dtype)``: an uninitialised array (float32 by default)."""
        if memptr is not None or strides is not None or order != "C":
            raise NotImplementedError("ndarray(): memptr, strides and order='F' are not supported")
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        return wrap(_wa.empty(tuple(builtins.int(n) for n in shape),
                              dtype=as_dtype(dtype) or dt.float32))

    def __init__(self, *args, **kwargs):
        pass  # made by __new__ (or relabelled by wrap)

    # -- NumPy attributes ---------------------------------------------------------------
    @property
    def dtype(self):
        """A ``numpy.dtype`` for code outside webarray where NumPy is present (as CuPy's);
        webarray's own dtype object for webarray's code and where NumPy is absent."""
        if _caller_is_webarray():
            return self._dtype
        return numpy_dtype(self._dtype)

    @property
    def device(self):
        """``cupy.cuda.Device`` for code outside webarray (as CuPy's), the strict device
        for webarray's own code."""
        if _caller_is_webarray():
            return self._device
        return _CUDA_DEVICE

    __array_priority__ = 100  # NumPy's binary operators defer to ndarray's (as to CuPy's)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs of device arrays run on the device, as CuPy's do: ``np.sqrt(x)``,
        ``np.ones(2) + x`` and ``np.float32(2) * x`` give device arrays (not host copies
        through ``__array__``); ``reduce`` of add/multiply/maximum/minimum and ``add.at``
        too. Anything else is NotImplemented, which NumPy turns into TypeError."""
        if method == "__call__":
            fn = getattr(_F, ufunc.__name__, None)
            if fn is None:
                return NotImplemented
            return fn(*inputs, **kwargs)
        if method == "reduce" and ufunc.__name__ in _UFUNC_REDUCE:
            a = inputs[0]
            kwargs.setdefault("axis", 0)
            return getattr(_F, _UFUNC_REDUCE[ufunc.__name__])(a, **kwargs)
        if method == "at" and ufunc.__name__ == "add" and not kwargs:
            _F.scatter_add(*inputs)
            return None
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        """NumPy functions of device arrays run as this module's function of the same name
        (as CuPy's); NotImplemented (NumPy's TypeError) where there is none."""
        import webarray.cupy as cp  # the package imports this module first

        fn = getattr(cp, func.__name__, None)
        if fn is None or not callable(fn):
            return NotImplemented
        return fn(*args, **kwargs)

    @property
    def T(self):
        return self.transpose()

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple:
        return tuple(s * self.dtype.itemsize for s in self._strides)

    @property
    def flags(self):
        c = is_contiguous(self.shape, self._strides)
        return {"C_CONTIGUOUS": c, "F_CONTIGUOUS": self.ndim <= 1 and c, "OWNDATA": True}

    @property
    def real(self):
        return wrap(_wa.real(self)) if self.dtype.kind == "c" else self

    @property
    def imag(self):
        if self.dtype.kind == "c":
            return wrap(_wa.imag(self))
        return wrap(_wa.zeros_like(self))

    # -- host transfer --------------------------------------------------------------------
    def get(self, stream=None, order="C", out=None):
        """The values as a new, writable NumPy array, as CuPy's get gives (needs NumPy;
        the implicit ``np.asarray(x)`` gives a read-only copy instead)."""
        np = numpy_module()
        if out is not None:
            out[...] = np.asarray(self)
            return out
        return np.asarray(self, copy=True)

    def set(self, arr, stream=None) -> None:
        self[...] = to_array(arr, self.dtype)

    def tolist(self):
        return self._host_nested()

    def tobytes(self, order="C") -> bytes:
        """The values' bytes as NumPy's tobytes gives them, without NumPy (a page can hand
        them to a canvas or a typed array): C order, or F (the C order of the transpose);
        'A' and 'K' are C here, as every result of this layer is C-contiguous."""
        if order not in ("C", "F", "A", "K"):
            raise ValueError(f"tobytes: order must be 'C', 'F', 'A' or 'K', got {order!r}")
        x = self.transpose() if order == "F" and self.ndim > 1 else self
        raw = Array._raw(x)
        if _storage.element_bytes(self.dtype) == self.dtype.itemsize:
            return raw  # stored as NumPy stores it: float32, (u)int32, (u)int64, complex64
        import array  # narrow integers and bool are stored one per 32-bit word

        code = {"bool": "B", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H"}[self.dtype.name]
        return array.array(code, _storage.decode(raw, self.dtype)).tobytes()

    def item(self, *args):
        """A Python scalar: the only element, element k of the flat array, or a[i, j]."""
        if not args:
            if self.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return Array.__getitem__(self.reshape(-1), 0)._scalar()
        if len(args) == 1:
            return Array.__getitem__(self.reshape(-1), builtins.int(args[0]))._scalar()
        return Array.__getitem__(self, tuple(builtins.int(a) for a in args))._scalar()

    def __repr__(self) -> str:
        """NumPy's repr of the same values and dtype: ``array([1., 2.], dtype=float32)``."""
        return _format.array_repr(self._shown(), self._shape, self._dtype)

    def __str__(self) -> str:
        return _format.array_str(self._shown(), self._shape, self._dtype)

    def __array_namespace__(self, /, *, api_version=None):
        Array.__array_namespace__(self, api_version=api_version)
        return _wa

    # -- shape methods --------------------------------------------------------------------
    def reshape(self, *shape, order="C"):
        if order not in ("C", "A"):
            raise NotImplementedError("webarray.cupy reshapes in C order only")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return wrap(_wa.reshape(self, tuple(builtins.int(s) for s in shape)))

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def flatten(self, order="C"):
        return wrap(_wa.reshape(_wa.asarray(self, copy=True), (-1,)))

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        return wrap(_wa.permute_dims(self, tuple(axes)))

    def swapaxes(self, a: int, b: int):
        axes = list(range(self.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def squeeze(self, axis=None):
        return _F.squeeze(self, axis)

    def copy(self, order="C"):
        return wrap(_wa.asarray(self, copy=True))

    def view(self, dtype=None):
        if dtype is not None and as_dtype(dtype) is not self.dtype:
            raise NotImplementedError("view with another dtype is not supported")
        return wrap(_view_of(self))

    def astype(self, dtype, order="K", casting="unsafe", subok=None, copy=True):
        d = as_dtype(dtype, "astype")
        if d is self.dtype and not copy:
            return self
        return wrap(_wa.astype(self, d, copy=True))

    def reduced_view(self, dtype=None):
        """CuPy's view with merged axes, for raw kernel arguments: the same elements in the
        same C order (raw parameters here read C-contiguous copies of views anyway)."""
        return self

    def fill(self, value) -> None:
        self[...] = value

    # -- reductions and friends ------------------------------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _F.sum(self, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _F.prod(self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _F.mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _F.var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _F.std(self, axis, dtype, out, ddof, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _F.amin(self, axis, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return _F.amax(self, axis, out, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return _F.argmin(self, axis, out, keepdims=keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return _F.argmax(self, axis, out, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return _F.all(self, axis, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return _F.any(self, axis, out, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return _F.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return _F.cumprod(self, axis, dtype, out)

    def clip(self, min=None, max=None, out=None):
        return _F.clip(self, min, max, out)

    def round(self, decimals=0, out=None):
        return _F.around(self, decimals, out)

    def dot(self, b, out=None):
        return _F.dot(self, b, out)

    def nonzero(self):
        return wrap(_wa.nonzero(self))

    def sort(self, axis=-1) -> None:
        self[...] = _wa.sort(self, axis=axis)

    def argsort(self, axis=-1):
        return wrap(_wa.argsort(self, axis=axis))

    def conj(self):
        return wrap(_wa.conj(self))

    conjugate = conj

    # -- indexing -----------------------------------------------------------------------
    def __getitem__(self, key):
        key = _index(key)
        moved = _lead_slices(self, key)
        if moved is None:
            return wrap(Array.__getitem__(self, key))
        view, rest, lead = moved
        r = Array.__getitem__(view, rest)
        k = r.ndim - lead  # the lead axes come last in r: move them back to the front
        return wrap(_wa.permute_dims(r, tuple(range(k, r.ndim)) + tuple(range(k))))

    def __setitem__(self, key, value) -> None:
        if isinstance(value, Array):
            if value.dtype is not self.dtype:
                value = _wa.astype(value, self.dtype)
        else:
            v = scalar_value(value)
            if v is None:
                value = to_array(value, self.dtype)
            else:
                value = _setitem_scalar(v, self.dtype)
        key = _index(key)
        moved = _lead_slices(self, key)
        if moved is None:
            Array.__setitem__(self, key, value)
            return
        view, rest, lead = moved
        if isinstance(value, Array):  # the value in NumPy's result order, then as the view sees it
            seen = Array.__getitem__(view, rest).shape
            k = len(seen) - lead
            value = _wa.broadcast_to(value, seen[k:] + seen[:k])
            value = _wa.permute_dims(value, tuple(range(lead, value.ndim)) + tuple(range(lead)))
        Array.__setitem__(view, rest, value)

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element is "
                             "ambiguous; use a.any() or a.all()")
        return builtins.bool(self.reshape(())._scalar())

    def __float__(self) -> float:
        return builtins.float(self.item())

    def __int__(self) -> int:
        return builtins.int(self.item())

    # -- operators ------------------------------------------------------------------------
    def __matmul__(self, other):
        return _F.matmul(self, other)

    def __rmatmul__(self, other):
        return _F.matmul(other, self)

    def __neg__(self):
        return wrap(_wa.negative(self)) if self.dtype.kind != "b" else wrap(_wa.logical_not(self))

    def __pos__(self):
        return self

    def __abs__(self):
        return wrap(_wa.abs(self))

    def __invert__(self):
        return wrap(_wa.bitwise_invert(self))

    __hash__ = None  # type: ignore[assignment]


_CUDA_DEVICE = _CudaDevice(0)
_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "amax", "minimum": "amin",
                 "logical_and": "all", "logical_or": "any"}


def _setitem_scalar(v, dtype: dt.DType):
    if dtype.kind == "b":
        return builtins.bool(v)
    if dtype.kind in "iu":
        if isinstance(v, builtins.float) and not math.isfinite(v):
            raise ValueError(f"cannot store {v} in an {dtype.name} array")
        return builtins.int(v)
    if dtype.kind == "f" and isinstance(v, builtins.complex):
        raise TypeError(f"cannot store a complex value in a {dtype.name} array")
    return builtins.float(v) if dtype.kind == "f" else v


def _lead_slices(x: Array, key):
    """For ``x[:, :, idx, ...]`` (full slices, then integer arrays), which the strict
    namespace does not index: (x viewed with those leading axes last, the rest of the key,
    how many axes moved), or None for any other key."""
    if not isinstance(key, tuple):
        return None
    lead = 0
    while lead < len(key) and isinstance(key[lead], slice) and key[lead] == slice(None):
        lead += 1
    rest = key[lead:]
    if not lead or not any(isinstance(k, Array) and k.dtype.kind in "iu" for k in rest):
        return None
    axes = tuple(range(lead, x.ndim)) + tuple(range(lead))
    return _wa.permute_dims(x, axes), rest, lead


def _index(key):
    """NumPy index forms the strict namespace spells differently: lists of ints or bools
    become arrays, and arrays of other integer dtypes are fine as they are."""
    if isinstance(key, list):
        return to_array(key)
    if isinstance(key, tuple):
        return tuple(to_array(k) if isinstance(k, list) else k for k in key)
    if _is_numpy(key) and hasattr(key, "dtype") and getattr(key, "ndim", 0) > 0:
        return to_array(key)
    return key


_PLAIN_OPERANDS = (builtins.int, builtins.float, builtins.bool)  # compared as they are

# The NumPy-named functions (``_functions``), which ``ndarray``'s methods and operators
# forward to. ``_functions`` imports this module, so it is handed over once both are
# loaded (``_install_operators``, called by the package) instead of imported here.
_F = None


def _install_operators() -> None:
    global _F
    from . import _functions as f  # the one import back up: see _F

    _F = f

    pairs = [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
             ("truediv", "true_divide"), ("floordiv", "floor_divide"), ("mod", "remainder"),
             ("pow", "power"), ("and", "bitwise_and"), ("or", "bitwise_or"),
             ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift")]
    for op, name in pairs:
        fn = getattr(f, name)

        def reflected(self, other, fn=fn):
            return fn(other, self)

        def inplace(self, other, fn=fn):
            return f.inplace(fn, self, other)

        reflected.__name__, inplace.__name__ = f"__r{op}__", f"__i{op}__"
        setattr(ndarray, f"__{op}__", fn)  # fn(self, other) as it is: no frame in between
        setattr(ndarray, f"__r{op}__", reflected)
        setattr(ndarray, f"__i{op}__", inplace)
    for op, name in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                     ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")]:
        fn = getattr(f, name)

        def compare(self, other, fn=fn):
            if (type(other) not in _PLAIN_OPERANDS and not isinstance(other, Array)
                    and scalar_value(other) is None and not isinstance(other, (list, tuple))
                    and not _is_numpy(other)):
                return NotImplemented
            return fn(self, other)

        compare.__name__ = f"__{op}__"
        setattr(ndarray, f"__{op}__", compare)
    # NumPy methods that are the module functions with the array first
    for name in ("take", "repeat", "diagonal", "trace", "ptp", "searchsorted", "nonzero"):
        if name == "nonzero" or not hasattr(f, name):
            continue

        def method(self, *args, fn=getattr(f, name), **kwargs):
            return fn(self, *args, **kwargs)

        method.__name__ = name
        setattr(ndarray, name, method)

    def scatter_add(self, slices, values) -> None:
        """CuPy's ``a.scatter_add(slices, values)``: ``cupyx.scatter_add(a, slices, values)``."""
        f.scatter_add(self, slices, values)

    ndarray.scatter_add = scatter_add
