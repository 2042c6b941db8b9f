"""NumPy-named functions of the CuPy layer, over the strict namespace.

Each function converts its operands (arrays, NumPy arrays, sequences, Python and NumPy
scalars), applies NumPy's promotion (``_core.result_type``), casts operands to the
computing dtype (casts fuse into the kernel), calls the strict function and relabels the
result as ``ndarray``. ``out=`` is honoured by writing the result into ``out``.
"""

from __future__ import annotations

import builtins
import functools
import math

import webarray as _wa
from webarray import _dtypes as dt
from webarray._array_object import Array
from webarray import _elementwise
from webarray._core.tensor import is_contiguous
from webarray._elementwise import _apply
from webarray.kernels.ops import TABLE

from ._core import (as_dtype, cast_to, floating, fresh, ndarray, numpy_dtype, operand,
                    promote, scalar_value, to_array, wrap)
from ._core import result_type as _promoted_dtype

# -- elementwise ------------------------------------------------------------------------------


def _finish(res, out, name: str):
    if out is None:
        return wrap(res)
    if not isinstance(out, Array):
        raise TypeError(f"{name}: out must be an array, got {type(out).__name__}")
    out[...] = res
    return out


def _compute_dtype(name: str, strict: str, args) -> dt.DType:
    d = _promoted_dtype(*args)
    cat = TABLE[strict].inputs if strict in TABLE else "numeric"
    if cat in ("floating-point", "real floating-point"):
        return floating(d)
    return d


# NumPy computes these on bool arrays as logic
_BOOL_AS = {"add": "logical_or", "multiply": "logical_and", "maximum": "logical_or",
            "minimum": "logical_and"}


_PY_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _as_is(kind, compute: dt.DType) -> bool:
    """Whether an operand of this kind (an array dtype, or a Python scalar type) goes to the
    strict function as it is when the op computes in ``compute`` (``cast_to`` would return it
    unchanged)."""
    if isinstance(kind, dt.DType):
        return kind is compute
    return compute.kind in {builtins.bool: "b", builtins.int: "iufc", builtins.float: "fc",
                            builtins.complex: "c"}[kind]


def _ufunc(name: str, strict: str, nin: int):
    # per operand kinds (array dtypes, Python scalar types): the computing dtype and the strict
    # function, which the checks below decide from the kinds alone (as _elementwise's plans)
    plans: dict = {}

    def fn(*args, out=None, dtype=None, **kwargs):
        if out is None and dtype is None and not kwargs:
            if len(args) == 2:  # the operators' case, written out (a third of the layer's cost)
                x, y = args
                xa, ya = isinstance(x, Array), isinstance(y, Array)
                plan = plans.get((x._dtype if xa else type(x), y._dtype if ya else type(y)))
                if plan is not None:
                    compute, call, x_as_is, y_as_is = plan
                    if not x_as_is:
                        x = cast_to(x, compute)
                    if not y_as_is:
                        y = cast_to(y, compute)
                    res = call(x, y)
                    if type(res) is Array:
                        res.__class__ = ndarray
                        return res
                    return wrap(res)
            plan = plans.get(tuple([a._dtype if isinstance(a, Array) else type(a) for a in args]))
            if plan is not None:
                compute, call = plan[:2]
                return wrap(call(*[a if isinstance(a, Array) and a._dtype is compute
                                   else cast_to(a, compute) for a in args]))
        if kwargs:
            raise TypeError(f"{name}: unsupported arguments {sorted(kwargs)}")
        if len(args) != nin:
            raise TypeError(f"{name} takes {nin} array argument{'s' if nin > 1 else ''}, "
                            f"got {len(args)}")
        ops = [operand(a, name) for a in args]
        if not builtins.any(isinstance(a, Array) for a in ops):
            ops[0] = to_array(ops[0])
        compute = as_dtype(dtype) or _compute_dtype(name, strict, ops)
        op = strict
        if strict in ("logical_and", "logical_or", "logical_xor", "logical_not"):
            compute = dt.bool
        elif compute is dt.bool:
            op = _BOOL_AS.get(strict, strict)
            if op in ("less", "less_equal", "greater", "greater_equal"):
                compute = dt.uint8  # False < True, as NumPy orders bools
        ops = [cast_to(a, compute) for a in ops]
        strict_fn = getattr(_wa, op, None)
        if strict_fn is None:  # a table op outside the standard (CuPy's own): applied as is
            strict_fn = functools.partial(_apply, op)
        res = strict_fn(*ops)
        if (dtype is None and builtins.any(isinstance(a, Array) for a in args)
                and builtins.all(isinstance(a, Array) or type(a) in _PY_SCALARS for a in args)):
            kinds = tuple([a._dtype if isinstance(a, Array) else type(a) for a in args])
            if strict_fn is getattr(_elementwise, op, None):
                strict_fn = _elementwise.direct(op)
            plans[kinds] = (compute, strict_fn) + tuple(_as_is(k, compute) for k in kinds)
        return _finish(res, out, name)

    fn.__name__ = name
    fn.__doc__ = f"NumPy's ``{name}`` (computes with the strict ``{strict}``)."
    return fn


# NumPy's ufuncs: every op of the op table under each of its NumPy names (``OpDef.numpy``),
# computed with the strict function of the op's own name; a new table op appears here
# without a line of this module
UFUNCS = {name: _ufunc(name, op.name, op.arity) for op in TABLE.values() for name in op.numpy}
_BINARY = {name: op.name for op in TABLE.values() if op.arity == 2 for name in op.numpy}
globals().update(UFUNCS)

add = UFUNCS["add"]
subtract = UFUNCS["subtract"]
multiply = UFUNCS["multiply"]
true_divide = UFUNCS["true_divide"]
floor_divide = UFUNCS["floor_divide"]
remainder = UFUNCS["remainder"]
power = UFUNCS["power"]
bitwise_and = UFUNCS["bitwise_and"]
bitwise_or = UFUNCS["bitwise_or"]
bitwise_xor = UFUNCS["bitwise_xor"]
left_shift = UFUNCS["left_shift"]
right_shift = UFUNCS["right_shift"]
equal = UFUNCS["equal"]
not_equal = UFUNCS["not_equal"]
less = UFUNCS["less"]
less_equal = UFUNCS["less_equal"]
greater = UFUNCS["greater"]
greater_equal = UFUNCS["greater_equal"]
isnan = UFUNCS["isnan"]


# x op= other as the strict in-place op, per (op, x's dtype, other's dtype or Python type)
_INPLACE_PLANS: dict = {}


def inplace(fn, x: Array, other):
    """x op= other, NumPy style: the result is cast back to x's dtype under NumPy's
    'same_kind' rule (float into an integer array raises), and written into x."""
    name = fn.__name__
    oa = isinstance(other, Array)
    strict = _INPLACE_PLANS.get((name, x._dtype, other._dtype if oa else type(other)))
    if strict is not None and (not oa or other._shape == x._shape):
        _elementwise._inplace(strict, x, cast_to(other, x._dtype))
        return x
    other = operand(other, fn.__name__)
    if name in _BINARY and isinstance(x, Array) and (
            not isinstance(other, Array) or other._shape == x._shape
            or _fits(other._shape, x._shape)):
        strict = _BINARY[name]
        if x._dtype is dt.bool:  # NumPy's logic on bool arrays: *= is an and
            strict = _BOOL_AS.get(name, strict)
        # an operation whose promotion keeps x's dtype runs as the strict in-place op,
        # which the lazy graph can fuse
        if _compute_dtype(name, strict, [x, other]) is x._dtype:
            _elementwise._inplace(strict, x, cast_to(other, x._dtype))
            if isinstance(other, Array) or type(other) in _PY_SCALARS:
                _INPLACE_PLANS[(name, x._dtype,
                                other._dtype if isinstance(other, Array) else type(other))] = strict
            return x
    res = fn(x, other)
    if res.dtype is not x.dtype:
        if _kind_rank(res.dtype) > _kind_rank(x.dtype):
            raise TypeError(
                f"Cannot cast ufunc '{fn.__name__}' output from {res.dtype.name} to "
                f"{x.dtype.name} with casting rule 'same_kind'")
    x[...] = res if res.dtype is x.dtype else _wa.astype(res, x.dtype)
    return x


def _fits(shape, into) -> bool:
    """Whether an operand of shape broadcasts to into without changing it."""
    try:
        return _elementwise.broadcast_shapes(shape, into) == into
    except ValueError:
        return False


def _kind_rank(d: dt.DType) -> int:
    return "biufc".index(d.kind) if d.kind != "u" else 1


def around(a, decimals: int = 0, out=None):
    a = _array(a, "around")
    if decimals == 0:
        return _finish(_wa.round(a), out, "around")
    if a.dtype.kind in "iu":
        return _finish(_wa.asarray(a, copy=True), out, "around")
    scale = 10.0 ** decimals
    return _finish(_wa.round(a * scale) / scale, out, "around")


round_ = round = around


def modf(x, out1=None, out2=None):
    """(fractional part, integral part), both with x's sign (NumPy's: modf(-3.0) is
    (-0.0, -3.0), modf(inf) is (0.0, inf))."""
    x = _float_input(x, None, "modf")
    whole = _wa.trunc(x)
    frac = _wa.copysign(_wa.where(_wa.isinf(x), _wa.zeros_like(x), x - whole), x)
    return _finish(frac, out1, "modf"), _finish(whole, out2, "modf")


def fmax(x1, x2, out=None):
    a, b = _promoted("fmax", x1, x2)
    return _finish(_wa.where(_wa.isnan(b), a, _wa.where(_wa.isnan(a), b, _wa.maximum(a, b))),
                   out, "fmax")


def fmin(x1, x2, out=None):
    a, b = _promoted("fmin", x1, x2)
    return _finish(_wa.where(_wa.isnan(b), a, _wa.where(_wa.isnan(a), b, _wa.minimum(a, b))),
                   out, "fmin")


def fmod(x1, x2, out=None):
    a, b = _promoted("fmod", x1, x2)
    if a.dtype.kind == "f":
        return _finish(a - _wa.trunc(a / b) * b, out, "fmod")
    r = _wa.remainder(a, b)
    fix = _wa.logical_and(r != 0, (r < 0) != (a < 0))
    return _finish(_wa.where(fix, r - b, r), out, "fmod")


def _promoted(name, x1, x2):
    ops = [operand(x1, name), operand(x2, name)]
    if not builtins.any(isinstance(a, Array) for a in ops):
        ops[0] = to_array(ops[0])
    d = _promoted_dtype(*ops)
    ops = [to_array(a, d) if not isinstance(a, Array) else cast_to(a, d) for a in ops]
    return ops


def clip(a, a_min=None, a_max=None, out=None):
    a = _array(a, "clip")
    lo = scalar_value(a_min) if not isinstance(a_min, Array) else a_min
    hi = scalar_value(a_max) if not isinstance(a_max, Array) else a_max
    d = _promoted_dtype(a, *(v for v in (lo, hi) if v is not None))
    a = cast_to(a, d)
    lo = None if lo is None else cast_to(lo, d)
    hi = None if hi is None else cast_to(hi, d)
    return _finish(_wa.clip(a, lo, hi), out, "clip")


def where(condition, x=None, y=None):
    if (isinstance(condition, Array) and isinstance(x, Array) and isinstance(y, Array)
            and condition._dtype is dt.bool and x._dtype is y._dtype):
        return wrap(_wa.where(condition, x, y))  # nothing to convert or promote
    if x is None and y is None:
        return nonzero(condition)
    c = _array(condition, "where")
    if c.dtype is not dt.bool:
        c = _wa.astype(c, dt.bool)
    ops = [operand(x, "where"), operand(y, "where")]
    if not builtins.any(isinstance(o, Array) for o in ops):
        ops[0] = to_array(ops[0])
    d = _promoted_dtype(*ops)
    ops = [cast_to(o, d) for o in ops]
    return wrap(_wa.where(c, *ops))


def real(a):
    a = _array(a, "real")
    return wrap(_wa.real(a)) if a.dtype.kind == "c" else fresh(a)


def imag(a):
    a = _array(a, "imag")
    return wrap(_wa.imag(a)) if a.dtype.kind == "c" else wrap(_wa.zeros_like(a))


def angle(z):
    z = _array(z, "angle")
    return wrap(_wa.atan2(imag(z), real(cast_to(z, floating(z.dtype)))))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _promoted("isclose", a, b)
    a, b = cast_to(a, floating(a.dtype)), cast_to(b, floating(b.dtype))
    close = _wa.abs(a - b) <= atol + rtol * _wa.abs(b)
    close = _wa.logical_or(close, a == b)
    if equal_nan:
        close = _wa.logical_or(close, _wa.logical_and(_wa.isnan(a), _wa.isnan(b)))
    return wrap(close)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return builtins.bool(_wa.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False) -> bool:
    a1, a2 = to_array(a1), to_array(a2)
    if a1.shape != a2.shape:
        return False
    return builtins.bool(_wa.all(isclose(a1, a2, 0, 0, equal_nan) if equal_nan else equal(a1, a2)))


# -- creation ---------------------------------------------------------------------------------


def _shape(shape) -> tuple:
    if isinstance(shape, (tuple, list)):
        return tuple(builtins.int(s) for s in shape)
    return (builtins.int(shape),)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    a = to_array(obj, as_dtype(dtype))
    if copy and a is obj:
        a = _wa.asarray(a, copy=True)
    if ndmin > a.ndim:
        a = _wa.reshape(a, (1,) * (ndmin - a.ndim) + a.shape)
    return wrap(a) if a is not obj else fresh(a)


def asarray(a, dtype=None, order=None):
    r = to_array(a, as_dtype(dtype))
    return fresh(r) if r is a else wrap(r)


asanyarray = asarray


def ascontiguousarray(a, dtype=None):
    r = to_array(a, as_dtype(dtype))
    if not is_contiguous(r.shape, r._strides):
        r = _wa.asarray(r, copy=True)
    return fresh(r) if r is a else wrap(r)


def empty(shape, dtype=None, order="C"):
    return wrap(_wa.empty(_shape(shape), dtype=as_dtype(dtype) or dt.float32))


def zeros(shape, dtype=None, order="C"):
    return wrap(_wa.zeros(_shape(shape), dtype=as_dtype(dtype) or dt.float32))


def ones(shape, dtype=None, order="C"):
    return wrap(_wa.ones(_shape(shape), dtype=as_dtype(dtype) or dt.float32))


def full(shape, fill_value, dtype=None, order="C"):
    v = scalar_value(fill_value)
    d = as_dtype(dtype) or (_promoted_dtype(v) if v is not None else fill_value.dtype)
    if v is None:
        return wrap(_wa.asarray(_wa.broadcast_to(to_array(fill_value, d), _shape(shape)), copy=True))
    return wrap(_wa.full(_shape(shape), cast_to(v, d), dtype=d))


def _like(name):
    make = getattr(_wa, name[:-len("_like")])

    def fn(a, dtype=None, order="K", subok=None, shape=None):
        a = _array(a, name)
        return wrap(make(a.shape if shape is None else _shape(shape), dtype=as_dtype(dtype) or a.dtype))

    fn.__name__ = name
    return fn


empty_like = _like("empty_like")
zeros_like = _like("zeros_like")
ones_like = _like("ones_like")


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    a = _array(a, "full_like")
    return full(a.shape if shape is None else shape, fill_value, dtype or a.dtype)


def arange(start, stop=None, step=1, dtype=None):
    d = as_dtype(dtype)
    if d is None:
        vals = [v for v in (start, stop, step) if v is not None]
        d = dt.float32 if builtins.any(isinstance(scalar_value(v), builtins.float) for v in vals) else dt.int32
    return wrap(_wa.arange(start, stop, step, dtype=d))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    d = as_dtype(dtype) or dt.float32
    if d.kind in "iu":  # NumPy computes in floats and truncates
        r = _wa.astype(_wa.linspace(builtins.float(start), builtins.float(stop), num,
                                    dtype=dt.float32, endpoint=endpoint), d)
    else:
        r = _wa.linspace(start, stop, num, dtype=d, endpoint=endpoint)
    if retstep:
        div = (num - 1) if endpoint else num
        return wrap(r), ((stop - start) / div if div > 0 else math.nan)
    return wrap(r)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return wrap(_wa.pow(base, linspace(start, stop, num, endpoint, dtype=dtype)))


def eye(N, M=None, k=0, dtype=None, order="C"):
    return wrap(_wa.eye(N, M, k=k, dtype=as_dtype(dtype) or dt.float32))


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    arrays = [to_array(x) for x in xi]
    if sparse:
        nd = len(arrays)
        out = []
        for k, a in enumerate(arrays):
            shape = [1] * nd
            shape[k] = a.size
            if indexing == "xy" and nd >= 2 and k < 2:
                shape[0], shape[1] = shape[1], shape[0]
            out.append(_wa.reshape(a, tuple(shape)))
        return wrap(out)
    return wrap(list(_wa.meshgrid(*arrays, indexing=indexing)))


def tri(N, M=None, k=0, dtype=None):
    return wrap(_wa.astype(_wa.tril(_wa.ones((N, N if M is None else M), dtype=dt.int32), k=k),
                           as_dtype(dtype) or dt.float32))


def tril(m, k=0):
    return wrap(_wa.tril(_array(m, "tril"), k=k))


def triu(m, k=0):
    return wrap(_wa.triu(_array(m, "triu"), k=k))


def copy(a, order="K"):
    return wrap(_wa.asarray(_array(a, "copy"), copy=True))


# -- manipulation ---------------------------------------------------------------------------


def _array(a, name: str) -> Array:
    if isinstance(a, Array):
        return a
    return to_array(operand(a, name))


def reshape(a, newshape, order="C"):
    return ndarray.reshape(fresh(_array(a, "array")), newshape, order=order)


def ravel(a, order="C"):
    return reshape(a, -1, order)


def transpose(a, axes=None):
    return ndarray.transpose(fresh(_array(a, "array")), axes)


def swapaxes(a, axis1, axis2):
    return ndarray.swapaxes(fresh(_array(a, "array")), axis1, axis2)


def moveaxis(a, source, destination):
    return wrap(_wa.moveaxis(_array(a, "moveaxis"), source, destination))


def rollaxis(a, axis: int, start: int = 0):
    """NumPy's rollaxis: axis moves to stand before position start."""
    a = _array(a, "rollaxis")
    n = a.ndim
    axis = _wa_axis(axis, n, "rollaxis")
    if not -n <= start <= n:
        raise ValueError(f"rollaxis: start {start} is out of bounds for {n} dimensions")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return fresh(a)
    axes = [k for k in range(n) if k != axis]
    axes.insert(start, axis)
    return wrap(_wa.permute_dims(a, tuple(axes)))


def _wa_axis(axis: int, n: int, name: str) -> int:
    if not -n <= axis < n:
        raise ValueError(f"{name}: axis {axis} is out of bounds for {n} dimensions")
    return axis + n if axis < 0 else axis


def squeeze(a, axis=None):
    a = _array(a, "squeeze")
    if axis is None:
        axis = tuple(k for k, n in enumerate(a.shape) if n == 1)
    return wrap(_wa.squeeze(a, axis=axis))


def expand_dims(a, axis):
    return wrap(_wa.expand_dims(_array(a, "expand_dims"), axis=axis))


def _joined(arrays, name):
    arrays = [_array(a, name) for a in arrays]
    d = _promoted_dtype(*arrays)
    return [cast_to(a, d) for a in arrays]


def concatenate(arrays, axis=0, out=None, dtype=None):
    arrays = _joined(arrays, "concatenate")
    if dtype is not None:
        arrays = [cast_to(a, as_dtype(dtype)) for a in arrays]
    return _finish(_wa.concat(arrays, axis=axis), out, "concatenate")


def stack(arrays, axis=0, out=None):
    return _finish(_wa.stack(_joined(arrays, "stack"), axis=axis), out, "stack")


def hstack(tup):
    arrays = _joined(tup, "hstack")
    return wrap(_wa.concat(arrays, axis=0 if arrays[0].ndim == 1 else 1))


def vstack(tup):
    arrays = [a if a.ndim >= 2 else _wa.reshape(a, (1, -1)) for a in _joined(tup, "vstack")]
    return wrap(_wa.concat(arrays, axis=0))


def dstack(tup):
    arrays = _joined(tup, "dstack")
    arrays = [_wa.reshape(a, (1, -1, 1)) if a.ndim == 1 else
              _wa.reshape(a, a.shape + (1,)) if a.ndim == 2 else a
              for a in (_wa.reshape(a, (1, 1, 1)) if a.ndim == 0 else a for a in arrays)]
    return wrap(_wa.concat(arrays, axis=2))


def column_stack(tup):
    arrays = [a if a.ndim >= 2 else _wa.reshape(a, (-1, 1)) for a in _joined(tup, "column_stack")]
    return wrap(_wa.concat(arrays, axis=1))


def array_split(ary, indices_or_sections, axis=0):
    """Pieces of ary along axis: at the given indices, or into N near-equal sections
    (the first ``len % N`` one longer), as views."""
    a = _array(ary, "array_split")
    axis = _wa_axis(axis, a.ndim, "array_split")
    n = a.shape[axis]
    if isinstance(indices_or_sections, (builtins.int,)) and not isinstance(indices_or_sections, builtins.bool):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError(f"array_split: number of sections must be larger than 0, got {sections}")
        each, extra = divmod(n, sections)
        bounds = [0]
        for k in range(sections):
            bounds.append(bounds[-1] + each + (1 if k < extra else 0))
    else:
        cuts = [builtins.int(i) for i in indices_or_sections]
        bounds = [0] + [builtins.min(builtins.max(c + n if c < 0 else c, 0), n) for c in cuts] + [n]
    pieces = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index = [slice(None)] * a.ndim
        index[axis] = slice(lo, builtins.max(lo, hi))
        pieces.append(wrap(a[tuple(index)]))
    return pieces


def split(ary, indices_or_sections, axis=0):
    """As ``array_split``, but N sections must divide the axis exactly (ValueError)."""
    a = _array(ary, "split")
    if isinstance(indices_or_sections, builtins.int) and not isinstance(indices_or_sections, builtins.bool):
        n = a.shape[_wa_axis(axis, a.ndim, "split")]
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ValueError(f"split: array split does not result in an equal division: axis "
                             f"of length {n} into {indices_or_sections} sections")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    a = _array(ary, "hsplit")
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    a = _array(ary, "vsplit")
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    a = _array(ary, "dsplit")
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


def flip(m, axis=None):
    return wrap(_wa.flip(_array(m, "flip"), axis=axis))


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    return wrap(_wa.roll(_array(a, "roll"), shift, axis=axis))


def tile(A, reps):
    return wrap(_wa.tile(_array(A, "tile"), tuple(reps) if isinstance(reps, (list, tuple)) else (reps,)))


def repeat(a, repeats, axis=None):
    return wrap(_wa.repeat(_array(a, "repeat"), repeats, axis=axis))


def broadcast_to(array, shape):
    return wrap(_wa.broadcast_to(_array(array, "broadcast_to"), _shape(shape)))


def broadcast_arrays(*args):
    return wrap(list(_wa.broadcast_arrays(*(_array(a, "broadcast_arrays") for a in args))))


def atleast_1d(*arys):
    out = []
    for a in arys:
        a = _array(a, "atleast_1d")
        out.append(fresh(a) if a.ndim >= 1 else wrap(_wa.reshape(a, (1,))))
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in arys:
        a = _array(a, "atleast_2d")
        out.append(fresh(a) if a.ndim >= 2 else wrap(_wa.reshape(a, (1,) * (2 - a.ndim) + a.shape)))
    return out[0] if len(out) == 1 else out


def shape(a):
    return _array(a, "shape").shape


def ndim(a):
    return _array(a, "ndim").ndim


def size(a):
    return _array(a, "size").size


# -- reductions -------------------------------------------------------------------------------


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _sum_dtype(a: Array, dtype) -> dt.DType:
    d = as_dtype(dtype)
    if d is not None:
        return d
    if a.dtype.kind in "bi":
        return dt.int64 if dt.int64 in a.device.dtypes else dt.int32
    if a.dtype.kind == "u":
        return dt.uint64 if dt.uint64 in a.device.dtypes else dt.uint32
    return a.dtype


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """NumPy's accumulator: int64 (uint64) for bool and integer input."""
    a = _array(a, "sum")
    d = _sum_dtype(a, dtype)
    src = a if a.dtype.kind != "b" else _wa.astype(a, d)
    return _finish(_wa.sum(src, axis=_axis(axis), dtype=d, keepdims=keepdims), out, "sum")


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _array(a, "prod")
    d = _sum_dtype(a, dtype)
    src = a if a.dtype.kind != "b" else _wa.astype(a, d)
    return _finish(_wa.prod(src, axis=_axis(axis), dtype=d, keepdims=keepdims), out, "prod")


def _float_input(a, dtype, name):
    a = _array(a, name)
    d = as_dtype(dtype) or floating(a.dtype)
    return cast_to(a, d)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _float_input(a, dtype, "mean")
    return _finish(_wa.mean(a, axis=_axis(axis), keepdims=keepdims), out, "mean")


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = _float_input(a, dtype, "var")
    return _finish(_wa.var(a, axis=_axis(axis), correction=ddof, keepdims=keepdims), out, "var")


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = _float_input(a, dtype, "std")
    return _finish(_wa.std(a, axis=_axis(axis), correction=ddof, keepdims=keepdims), out, "std")


_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _order_statistics(a, axis, name):
    """a sorted along axis (moved last; the whole array flattened when axis is None),
    computed in the float dtype NumPy would use, and where each row holds a NaN."""
    a = _float_input(a, None, name)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: complex input is not ordered")
    if axis is None:
        moved = _wa.reshape(a, (-1,))
    else:
        axes = (axis,) if isinstance(axis, builtins.int) else tuple(axis)
        axes = tuple(_wa_axis(ax, a.ndim, name) for ax in axes)
        rest = [k for k in range(a.ndim) if k not in axes]
        moved = _wa.permute_dims(a, tuple(rest + list(axes)))
        moved = _wa.reshape(moved, tuple(a.shape[k] for k in rest)
                            + (math.prod(a.shape[k] for k in axes),))
    rows = _wa.sort(moved, axis=-1)
    has_nan = _wa.isnan(rows[..., -1]) if rows.shape[-1] else None
    return a, rows, has_nan


def _keep(r, a, axis, keepdims):
    if not keepdims:
        return r
    axes = range(a.ndim) if axis is None else (
        (axis,) if isinstance(axis, builtins.int) else axis)
    lead = r.ndim - (a.ndim - len(tuple(axes)))
    for ax in sorted(_wa_axis(x, a.ndim, "keepdims") for x in axes):
        r = _wa.expand_dims(r, axis=lead + ax)
    return r


def _pick(rows, q: float, method: str, name: str):
    n = rows.shape[-1]
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"{name}: quantiles must be in the range [0, 1], got {q}")
    pos = q * (n - 1)
    lo = math.floor(pos)
    hi = builtins.min(lo + 1, n - 1)
    t = pos - lo
    if method == "lower" or (method == "nearest" and (t < 0.5 or (t == 0.5 and lo % 2 == 0))):
        return rows[..., lo]
    if method in ("higher", "nearest"):
        return rows[..., hi if t > 0 else lo]
    a, b = rows[..., lo], rows[..., hi]
    if method == "midpoint":
        t = 0.5 if t > 0 else 0.0
    if not t:
        return a
    # NumPy's lerp: exact at both ends and monotone
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, interpolation=None, _name="quantile"):
    """NumPy's quantile (q in [0, 1]) with the methods linear, lower, higher, nearest and
    midpoint; a row holding NaN gives NaN."""
    method = interpolation or method
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{_name}: method must be one of {_QUANTILE_METHODS}, got {method!r}")
    src, rows, has_nan = _order_statistics(a, axis, _name)
    qs = q.tolist() if isinstance(q, Array) else q
    scalar = not isinstance(qs, (list, tuple))
    picked = []
    for v in ([qs] if scalar else qs):
        if rows.shape[-1] == 0:
            r = _wa.full(rows.shape[:-1], math.nan, dtype=rows.dtype, device=rows.device)
        else:
            r = _pick(rows, builtins.float(v), method, _name)
            r = _wa.where(has_nan, _wa.asarray(math.nan, dtype=r.dtype, device=r.device), r)
        picked.append(_keep(r, src, axis, keepdims))
    res = picked[0] if scalar else _wa.stack(picked, axis=0)
    return _finish(res, out, _name)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, interpolation=None):
    """``quantile`` with q in percent."""
    qs = q.tolist() if isinstance(q, Array) else q
    qs = [v / 100 for v in qs] if isinstance(qs, (list, tuple)) else qs / 100
    return quantile(a, qs, axis, out, overwrite_input, method, keepdims,
                    interpolation=interpolation, _name="percentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value, or the mean of the two middle values, along axis; a row holding
    NaN gives NaN (as NumPy's)."""
    src, rows, has_nan = _order_statistics(a, axis, "median")
    n = rows.shape[-1]
    if n == 0:
        r = _wa.full(rows.shape[:-1], math.nan, dtype=rows.dtype, device=rows.device)
    else:
        mid = n // 2
        r = rows[..., mid] if n % 2 else (rows[..., mid - 1] + rows[..., mid]) / 2
        r = _wa.where(has_nan, _wa.asarray(math.nan, dtype=r.dtype, device=r.device), r)
    return _finish(_keep(r, src, axis, keepdims), out, "median")


def _minmax(name, strict):
    def fn(a, axis=None, out=None, keepdims=False):
        a = _array(a, name)
        src = a if a.dtype.kind != "b" else _wa.astype(a, dt.uint8)
        r = getattr(_wa, strict)(src, axis=_axis(axis), keepdims=keepdims)
        if a.dtype.kind == "b":
            r = _wa.astype(r, dt.bool)
        return _finish(r, out, name)

    fn.__name__ = name
    return fn


amin = min = _minmax("amin", "min")
amax = max = _minmax("amax", "max")


def ptp(a, axis=None, out=None, keepdims=False):
    return _finish(amax(a, axis, None, keepdims) - amin(a, axis, None, keepdims), out, "ptp")


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _finish(_wa.argmin(_array(a, "argmin"), axis=axis, keepdims=keepdims), out, "argmin")


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _finish(_wa.argmax(_array(a, "argmax"), axis=axis, keepdims=keepdims), out, "argmax")


def all(a, axis=None, out=None, keepdims=False):
    return _finish(_wa.all(_array(a, "all"), axis=_axis(axis), keepdims=keepdims), out, "all")


def any(a, axis=None, out=None, keepdims=False):
    return _finish(_wa.any(_array(a, "any"), axis=_axis(axis), keepdims=keepdims), out, "any")


def count_nonzero(a, axis=None, *, keepdims=False):
    return wrap(_wa.count_nonzero(_array(a, "count_nonzero"), axis=_axis(axis), keepdims=keepdims))


def _cumulative(name, strict):
    def fn(a, axis=None, dtype=None, out=None):
        a = _array(a, name)
        if axis is None:
            a = _wa.reshape(a, (-1,))
            axis = 0
        d = _sum_dtype(a, dtype)
        src = a if a.dtype.kind != "b" else _wa.astype(a, d)
        return _finish(getattr(_wa, strict)(src, axis=axis, dtype=d), out, name)

    fn.__name__ = name
    return fn


cumsum = _cumulative("cumsum", "cumulative_sum")
cumprod = _cumulative("cumprod", "cumulative_prod")


def diff(a, n=1, axis=-1):
    return wrap(_wa.diff(_array(a, "diff"), axis=axis, n=n))


# -- linear algebra -------------------------------------------------------------------------


def _matmul_operands(a, b, name):
    a, b = _array(a, name), _array(b, name)
    d = _promoted_dtype(a, b)
    return cast_to(a, d), cast_to(b, d)


def matmul(a, b, out=None):
    a, b = _matmul_operands(a, b, "matmul")
    return _finish(_wa.matmul(a, b), out, "matmul")


def dot(a, b, out=None):
    """NumPy's dot: products for scalars, inner product of vectors, matmul of matrices,
    and the sum over the last axis of a and the second-to-last of b otherwise."""
    if scalar_value(a) is not None or scalar_value(b) is not None:
        return multiply(a, b, out=out)
    a, b = _matmul_operands(a, b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return _finish(a * b, out, "dot")
    if a.ndim <= 2 and b.ndim <= 2:
        return _finish(_wa.matmul(a, b), out, "dot")
    return _finish(_wa.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2])), out, "dot")


def vdot(a, b):
    a, b = _matmul_operands(a, b, "vdot")
    return wrap(_wa.vecdot(_wa.reshape(a, (-1,)), _wa.reshape(b, (-1,))))


def inner(a, b):
    a, b = _matmul_operands(a, b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return wrap(a * b)
    return wrap(_wa.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1])))


def outer(a, b, out=None):
    a, b = _matmul_operands(a, b, "outer")
    return _finish(_wa.reshape(a, (-1, 1)) * _wa.reshape(b, (1, -1)), out, "outer")


def tensordot(a, b, axes=2):
    a, b = _matmul_operands(a, b, "tensordot")
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        # NumPy takes a pair of ints as well as a pair of sequences
        axes = tuple((x,) if isinstance(x, builtins.int) else tuple(x) for x in axes)
    return wrap(_wa.tensordot(a, b, axes=axes))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of the (axis1, axis2) planes, as the last axis (NumPy's order)."""
    a = _array(a, "diagonal")
    if a.ndim < 2:
        raise ValueError(f"diagonal: the array must have at least 2 dimensions, got {a.ndim}")
    a = _wa.moveaxis(a, (axis1, axis2), (-2, -1))
    return wrap(_wa.linalg.diagonal(a, offset=offset))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


# -- sorting, searching, sets ------------------------------------------------------------------


def sort(a, axis=-1):
    a = _array(a, "sort")
    if axis is None:
        a, axis = _wa.reshape(a, (-1,)), 0
    return wrap(_wa.sort(a, axis=axis))


def argsort(a, axis=-1):
    a = _array(a, "argsort")
    if axis is None:
        a, axis = _wa.reshape(a, (-1,)), 0
    return wrap(_wa.argsort(a, axis=axis))


def nonzero(a):
    a = _array(a, "nonzero")
    return wrap(_wa.nonzero(a))


def flatnonzero(a):
    return nonzero(ravel(a))[0]


def argwhere(a):
    idx = nonzero(a)
    return wrap(_wa.stack(idx, axis=1)) if idx else wrap(_wa.zeros((0, 0), dtype=dt.int32))


def searchsorted(a, v, side="left", sorter=None):
    a = _array(a, "searchsorted")
    v = operand(v, "searchsorted")
    return wrap(_wa.searchsorted(a, cast_to(v, a.dtype), side=side, sorter=sorter))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    a = _wa.reshape(_array(ar, "unique"), (-1,))
    if not (return_index or return_inverse or return_counts):
        return wrap(_wa.sort(_wa.unique_values(a)))
    r = _wa.unique_all(a)
    order = _wa.argsort(r.values)
    out = [wrap(_wa.take(r.values, order))]
    if return_index:
        out.append(wrap(_wa.take(r.indices, order)))
    if return_inverse:
        rank = _wa.argsort(order)
        out.append(wrap(_wa.take(rank, _wa.reshape(r.inverse_indices, (-1,)))))
    if return_counts:
        out.append(wrap(_wa.take(r.counts, order)))
    return tuple(out)


def isin(element, test_elements, invert=False):
    e, t = _matmul_operands(element, _wa.reshape(_array(test_elements, "isin"), (-1,)), "isin")
    return wrap(_wa.isin(e, t, invert=invert))


def take(a, indices, axis=None):
    a = _array(a, "take")
    idx = to_array(indices)
    if axis is None:
        a, axis = _wa.reshape(a, (-1,)), 0
    if idx.ndim == 0:
        return wrap(_wa.take(a, _wa.reshape(idx, (1,)), axis=axis)[(slice(None),) * axis + (0,)])
    if idx.ndim > 1:
        flat = _wa.take(a, _wa.reshape(idx, (-1,)), axis=axis)
        shape = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
        return wrap(_wa.reshape(flat, shape))
    return wrap(_wa.take(a, idx, axis=axis))


def take_along_axis(a, indices, axis):
    """NumPy's take_along_axis: out[..., i, ...] = a[..., indices[..., i, ...], ...]."""
    a = _array(a, "take_along_axis")
    idx = to_array(indices)
    if axis is None:
        a, axis = _wa.reshape(a, (-1,)), 0
    if idx.ndim != a.ndim:
        raise ValueError(f"take_along_axis: indices have {idx.ndim} dimensions, the array {a.ndim}")
    axis = _wa_axis(axis, a.ndim, "take_along_axis")
    shape = tuple(builtins.max(p, q) if k != axis else q
                  for k, (p, q) in enumerate(zip(a.shape, idx.shape)))
    a = _wa.broadcast_to(a, shape[:axis] + (a.shape[axis],) + shape[axis + 1:])
    idx = _wa.broadcast_to(idx, shape)
    if idx.dtype.kind == "u" or idx.dtype.bits != 32:
        idx = _wa.astype(idx, dt.int32 if idx.dtype.bits <= 32 else dt.int64)
    idx = _wa.where(idx < 0, idx + a.shape[axis], idx)
    return wrap(_wa.take_along_axis(a, idx, axis=axis))


def copyto(dst, src, casting="same_kind", where=None) -> None:
    """NumPy's copyto: src (broadcast) into dst, where ``where`` holds."""
    if where is None:
        dst[...] = src
        return
    src = operand(src, "copyto")
    dst[...] = _wa.where(to_array(where, dt.bool), cast_to(src, dst.dtype), dst)


def bincount(x, weights=None, minlength=0):
    x = _array(x, "bincount")
    n = builtins.max(builtins.int(_wa.max(x)) + 1 if x.size else 0, minlength)
    bins = _wa.arange(n, dtype=x.dtype)
    hits = _wa.reshape(x, (-1, 1)) == _wa.reshape(bins, (1, -1))
    if weights is None:
        return wrap(_wa.sum(_wa.astype(hits, dt.int64 if dt.int64 in x.device.dtypes else dt.int32), axis=0))
    w = _wa.reshape(cast_to(_array(weights, "bincount"), dt.float32), (-1, 1))
    return wrap(_wa.sum(_wa.where(hits, w, 0.0), axis=0))


def scatter_add(a, slices, value) -> None:
    """``a[slices] += value`` where every repeated position accumulates (NumPy's
    ``np.add.at``): the positions ``slices`` selects are numbered, and the values summed
    per position."""
    positions = _wa.reshape(_wa.arange(a.size, dtype=_wa.int32), a.shape)
    picked = wrap(positions)[slices]
    vals = _wa.broadcast_to(to_array(value, a.dtype), picked.shape)
    sums = bincount(_wa.reshape(picked, (-1,)), weights=_wa.reshape(vals, (-1,)), minlength=a.size)
    a += _wa.reshape(_wa.astype(sums, a.dtype), a.shape)


# -- dtypes ---------------------------------------------------------------------------------


def can_cast(from_, to, casting="safe") -> bool:
    f = from_.dtype if isinstance(from_, Array) else as_dtype(from_)
    t = as_dtype(to)
    if casting == "unsafe":
        return True
    if casting == "same_kind":
        return _kind_rank(f) <= _kind_rank(t)
    return promote_types(f, t) is t


def promote_types(a, b):
    return numpy_dtype(promote(as_dtype(a), as_dtype(b)))


def result_type(*arrays_and_dtypes):
    """NumPy 2's result_type (float32 standing for float64)."""
    return numpy_dtype(_promoted_dtype(*(
        a if isinstance(a, Array) or scalar_value(a) is not None else as_dtype(a)
        for a in arrays_and_dtypes)))


def dtype(spec):
    """NumPy's dtype where NumPy is present (as CuPy's), else webarray's."""
    return numpy_dtype(as_dtype(spec))


def finfo(t):
    return _wa.finfo(as_dtype(t) if not isinstance(t, Array) else t)


def iinfo(t):
    return _wa.iinfo(as_dtype(t) if not isinstance(t, Array) else t)


def isscalar(x) -> bool:
    return scalar_value(x) is not None


__all__ = sorted(UFUNCS) + [
    "around", "round_", "round", "modf", "fmax", "fmin", "fmod", "clip", "where", "real",
    "imag", "angle", "isclose", "allclose", "array_equal", "array", "asarray", "asanyarray",
    "ascontiguousarray", "empty", "zeros", "ones", "full", "empty_like", "zeros_like",
    "ones_like", "full_like", "arange", "linspace", "logspace", "eye", "identity", "meshgrid",
    "tri", "tril", "triu", "copy", "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis",
    "squeeze", "expand_dims", "concatenate", "stack", "hstack", "vstack", "dstack",
    "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit", "flip", "fliplr",
    "flipud", "roll", "tile", "repeat", "broadcast_to", "broadcast_arrays", "atleast_1d",
    "atleast_2d", "shape", "ndim", "size", "sum", "prod", "mean", "var", "std", "amin", "min",
    "amax", "max", "median", "quantile", "percentile", "ptp", "argmin", "argmax", "all", "any", "count_nonzero", "cumsum",
    "cumprod", "diff", "matmul", "dot", "vdot", "inner", "outer", "tensordot", "diagonal", "trace",
    "sort", "argsort", "nonzero", "flatnonzero", "argwhere", "searchsorted", "unique", "isin",
    "take", "take_along_axis", "copyto", "bincount", "scatter_add", "can_cast", "promote_types", "result_type", "dtype", "finfo", "iinfo",
    "isscalar",
]
