"""Elementwise functions of the standard (all 67), over the op table.

Each function validates its arguments, applies type promotion and broadcasting, and
hands one op-table node to the graph layer. Python scalars are allowed where 2025.12
allows them and become uniforms of the kernel, never device arrays.
"""

from __future__ import annotations

import builtins
import functools
import math

from . import _dtypes as dt
from ._core import graph as _graph
from ._core.device import DEFAULT_FLOAT
from ._array_object import Array
from .kernels.expr import Apply, Cast, Input, Node, Scalar
from .kernels.ops import TABLE, lane_of

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign", "cos", "cosh",
    "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal",
    "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p",
    "log2", "log10", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
    "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal", "positive",
    "pow", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh",
    "square", "sqrt", "subtract", "tan", "tanh", "trunc",
]


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        size = 1
        for s in shapes:
            if len(s) >= -i:
                n = s[i]
                if n != 1:
                    if size != 1 and n != size:
                        raise ValueError(
                            f"shapes {', '.join(str(tuple(t)) for t in shapes)} cannot be "
                            "broadcast together"
                        )
                    size = n
        out.append(size)
    return tuple(out)


def scalar_dtype_check(value, dtype: dt.DType, what: str) -> None:
    """Raise unless a Python scalar may be combined with an array of dtype (2025.12 rules)."""
    if isinstance(value, bool):
        if dtype is not dt.bool:
            raise TypeError(f"{what}: a Python bool combines only with bool arrays, not {dtype.name}")
    elif isinstance(value, int):
        if dtype is dt.bool:
            raise TypeError(f"{what}: a Python int does not combine with a bool array")
        if dtype.kind in "iu":
            lo, hi = _int_range(dtype)
            if not lo <= value <= hi:
                raise OverflowError(
                    f"{what}: Python int {value} is out of bounds for {dtype.name} "
                    f"(allowed: {lo} to {hi})"
                )
    elif isinstance(value, float):
        if dtype.kind not in "fc":
            raise TypeError(
                f"{what}: a Python float combines only with floating-point arrays, not "
                f"{dtype.name}"
            )
    elif isinstance(value, complex):
        if dtype.kind not in "fc":
            raise TypeError(
                f"{what}: a Python complex combines only with floating-point arrays, not "
                f"{dtype.name}"
            )
    else:
        raise TypeError(f"{what}: expected an array or a Python scalar, got {type(value).__name__}")


def _int_range(dtype: dt.DType) -> tuple[int, int]:
    if dtype.kind == "u":
        return 0, (1 << dtype.bits) - 1
    return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1


def _operands(name: str, args, category: str):
    """Validate operands; return (arrays, compute dtype, device)."""
    arrays = [a for a in args if isinstance(a, Array)]
    if not arrays:
        raise TypeError(f"{name} requires at least one array argument, got only Python scalars")
    device = arrays[0].device
    for a in arrays[1:]:
        if a.device != device:
            raise ValueError(
                f"{name}: arrays are on different devices ({device!r} and {a.device!r}); "
                "move one with to_device"
            )
    compute = arrays[0].dtype
    for a in arrays[1:]:
        compute = dt.promote(compute, a.dtype)
    for a in arrays:
        dt.check_operand(a.dtype, compute, category, name)
        if a.dtype.kind != compute.kind and compute not in device.dtypes:
            raise TypeError(
                f"{name}: {' with '.join(b.dtype.name for b in arrays)} computes in "
                f"{compute.name} (NumPy's promotion between kinds), which {device!r} does "
                "not store; cast an operand with astype"
            )
    for a in args:
        if not isinstance(a, Array):
            if isinstance(a, complex) and not isinstance(a, (bool, int, float)):
                compute = dt.complex_of(compute) if compute.kind == "f" else compute
                if compute not in dt.categories[category]:
                    raise TypeError(
                        f"{name} requires {category} operands; a Python complex makes them "
                        f"{compute.name}"
                    )
            scalar_dtype_check(a, compute, name)
    return arrays, compute


def _integers(args) -> bool:
    """Whether every operand is an integer array or a Python int (no bool)."""
    return all(a._dtype.kind in "iu" if isinstance(a, Array) else type(a) is int for a in args)


def _nodes(args, compute: dt.DType):
    """Input/Scalar nodes for args, cast to the computing dtype where needed."""
    inputs, scalars, nodes = [], [], []
    for a in args:
        if isinstance(a, Array):
            node: Node = Input(len(inputs), a.dtype)
            inputs.append(a)
            if a.dtype is not compute:
                node = Cast(node, compute)
        else:
            node = Scalar(len(scalars), compute)
            scalars.append((compute, a))
        nodes.append(node)
    return nodes, inputs, scalars


# The checked form of each (op, operand kinds) seen so far: operand kinds are the arrays'
# dtypes and the Python scalars' types, which decide validity, the computing dtype and the
# expression node (hash-consed, so the very node the full path builds). A call whose arrays
# share one shape and one device then skips the checks it has passed before; of a scalar's
# value only what its type does not decide is checked again: a Python int's range, for integer
# computing dtypes (``ints``: that range, else None). ``run`` makes the result: the graph's
# hot path for a node of the op over the operands themselves (no casts), else execute. Subclasses of Array (webarray.cupy's
# ndarray) add no state, so they count as arrays of their dtype.
_PLANS: dict = {}
_SCALARS = (bool, int, float, complex)


def _planned(name: str, args) -> Array | None:
    """The result of a call of three or more operands by its kept plan, or None."""
    key = [name]
    inputs = []
    for a in args:
        if isinstance(a, Array):
            key.append(a._dtype)
            inputs.append(a)
        else:
            key.append(type(a))
    plan = _PLANS.get(tuple(key))
    if plan is None:
        return None
    compute, node, ints, run = plan
    device, shape = inputs[0]._device, inputs[0]._shape
    if compute not in device.dtypes:
        return None
    for a in inputs:
        if a._shape != shape or a._device is not device:
            return None  # broadcasting, or another device: the full path says what to do
    scalars = []
    for a in args:
        if not isinstance(a, Array):
            if ints is not None and type(a) is int and not ints[0] <= a <= ints[1]:
                scalar_dtype_check(a, compute, name)  # raises OverflowError
            scalars.append((compute, a))
    return run(device, shape, node, inputs, scalars)


def _lazy_or_run(device, shape, node, inputs, scalars) -> Array:
    return _graph.execute(device, shape, [(node, None)], inputs, scalars)[0]


def _apply(name: str, *args, out: Array | None = None) -> Array:
    if out is None:  # a kept plan, written out for one and two operands (the operators)
        if len(args) == 2:
            x, y = args
            xa, ya = isinstance(x, Array), isinstance(y, Array)
            plan = _PLANS.get((name, x._dtype if xa else type(x), y._dtype if ya else type(y)))
            if plan is not None:
                compute, node, ints, run = plan
                if xa and ya:
                    device = x._device
                    if (x._shape == y._shape and y._device is device
                            and compute in device.dtypes):
                        return run(device, x._shape, node, [x, y], ())
                else:
                    a, v = (x, y) if xa else (y, x)
                    if ints is not None and type(v) is int and not ints[0] <= v <= ints[1]:
                        scalar_dtype_check(v, compute, name)  # raises OverflowError
                    device = a._device
                    if compute in device.dtypes:
                        return run(device, a._shape, node, [a], [(compute, v)])
        elif len(args) == 1:
            x = args[0]
            plan = _PLANS.get((name, x._dtype)) if isinstance(x, Array) else None
            if plan is not None and plan[0] in x._device.dtypes:
                return plan[3](x._device, x._shape, plan[1], [x], ())
        else:
            result = _planned(name, args)
            if result is not None:
                return result
    op = TABLE[name]
    if op.integers == "float" and _integers(args):
        # the integer operands promote (and range-check their Python ints) first, then each
        # is cast to the default float (kernels/ops.py: OpDef.integers)
        arrays, ints = _operands(name, args, "integer")
        compute = DEFAULT_FLOAT if DEFAULT_FLOAT in arrays[0]._device.dtypes else dt.float32
    else:
        arrays, compute = _operands(name, args, op.inputs)
        ints = compute
    arrays[0].device.check_dtype(compute)
    if lane_of(compute) not in op.wgsl:
        have = sorted(n for n, o in TABLE.items() if lane_of(compute) in o.wgsl)
        raise TypeError(f"{name} is not implemented for {compute.name} yet; for {compute.name} "
                        f"there are: {', '.join(have)}")
    result = {"bool": dt.bool, "real": dt.real_of(compute)}.get(op.result, compute)
    shape = broadcast_shapes(*(a.shape for a in arrays))
    nodes, inputs, scalars = _nodes(args, compute)
    node = Apply(name, tuple(nodes), compute, result)
    if out is not None and shape != out.shape:
        raise ValueError(
            f"the result of {name} has shape {shape}, which does not fit the output {out.shape}"
        )
    if (out is not None and len(args) == 2 and args[0] is out and node.dtype is out._dtype
            and (isinstance(args[1], Array) and args[1]._shape == out._shape
                 or type(args[1]) in _SCALARS)):
        _INPLACE[(name, out._dtype,
                  args[1]._dtype if isinstance(args[1], Array) else type(args[1]))] = (
            node, _int_range(ints) if ints.kind in "iu" else None,
            _graph.apply_into if all(type(x) in (Input, Scalar) for x in node.args)
            else _into)
    if out is None and all(isinstance(a, Array) or type(a) in _SCALARS for a in args):
        _PLANS[(name,) + tuple([a._dtype if isinstance(a, Array) else type(a) for a in args])] = \
            (compute, node, _int_range(ints) if ints.kind in "iu" else None,
             _graph.apply if all(type(x) in (Input, Scalar) for x in node.args)
             else _lazy_or_run)
    return _graph.execute(arrays[0].device, shape, [(node, out)], inputs, scalars)[0]


# x op= other's checked node per (op, x's dtype, other's dtype or Python type), kept by
# _apply's full path for an other of x's shape (or a Python scalar): (node, int range, the
# graph's function that runs it: apply_into where the node reads slots only)
_INPLACE: dict = {}


def _into(device, shape, node, inputs, scalars, out) -> Array:
    return _graph.execute(device, shape, [(node, out)], inputs, scalars)[0]


def _inplace(name: str, x: Array, other) -> Array:
    """x op= other: the result keeps x's dtype and shape, or the operation is refused."""
    if name in ("bitwise_left_shift", "bitwise_right_shift"):
        _check_shift(other, name)
    elif name == "pow":
        fast = _power_fast(x, other)
        if fast is not None:
            _apply(fast, x, out=x)
            return x
    oa = isinstance(other, Array)
    plan = _INPLACE.get((name, x._dtype, other._dtype if oa else type(other)))
    if plan is not None:
        node, ints, run = plan
        if oa:
            if other._shape == x._shape and other._device is x._device:
                run(x._device, x._shape, node, [x, other], (), x)
                return x
        elif ints is None or type(other) is not int or ints[0] <= other <= ints[1]:
            run(x._device, x._shape, node, [x], [(x._dtype, other)], x)
            return x
    op = TABLE[name]
    arrays, compute = _operands(name, (x, other), op.inputs)
    if compute is not x.dtype:
        raise TypeError(
            f"in-place {name} would change x's dtype from {x.dtype.name} to {compute.name}"
        )
    shape = broadcast_shapes(*(a.shape for a in arrays))
    if shape != x.shape:
        raise ValueError(
            f"in-place {name} would change x's shape from {x.shape} to {shape}"
        )
    _apply(name, x, other, out=x)
    return x


# -- the functions ---------------------------------------------------------------------------

def abs(x: Array, /) -> Array:
    return _apply("abs", x)


def acos(x: Array, /) -> Array:
    return _apply("acos", x)


def acosh(x: Array, /) -> Array:
    return _apply("acosh", x)


def add(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    return _apply("add", x1, x2)


def asin(x: Array, /) -> Array:
    return _apply("asin", x)


def asinh(x: Array, /) -> Array:
    return _apply("asinh", x)


def atan(x: Array, /) -> Array:
    return _apply("atan", x)


def atan2(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("atan2", x1, x2)


def atanh(x: Array, /) -> Array:
    return _apply("atanh", x)


def bitwise_and(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    return _apply("bitwise_and", x1, x2)


def bitwise_left_shift(x1: Array | int, x2: Array | int, /) -> Array:
    _check_shift(x2, "bitwise_left_shift")
    return _apply("bitwise_left_shift", x1, x2)


def bitwise_invert(x: Array, /) -> Array:
    return _apply("bitwise_invert", x)


def bitwise_or(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    return _apply("bitwise_or", x1, x2)


def bitwise_right_shift(x1: Array | int, x2: Array | int, /) -> Array:
    _check_shift(x2, "bitwise_right_shift")
    return _apply("bitwise_right_shift", x1, x2)


def _check_shift(x2, name: str) -> None:
    # Only a scalar shift can be checked without a device round trip; negative array
    # elements shift by zero bits' worth of nothing (the result is 0, or -1 for a right
    # shift of a negative value).
    if isinstance(x2, int) and not isinstance(x2, bool) and x2 < 0:
        raise ValueError(f"{name} requires a non-negative shift, got {x2}")


def bitwise_xor(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    return _apply("bitwise_xor", x1, x2)


def ceil(x: Array, /) -> Array:
    return _apply("ceil", x)


def clip(
    x: Array,
    /,
    min: Array | int | float | None = None,
    max: Array | int | float | None = None,
) -> Array:
    """Clamp x to [min, max]. The result has x's dtype and the shape x, min and max
    broadcast to; a NaN bound gives NaN. A Python int bound outside an integer dtype's
    range is that end of the range where it changes nothing (max above it, min below it)
    and raises OverflowError otherwise, as in NumPy 2."""
    if not isinstance(x, Array):
        raise TypeError(f"clip requires an array x, got {type(x).__name__}")
    dt.check_category(x.dtype, "real numeric", "clip")
    bounds = []
    for name, b in (("min", min), ("max", max)):
        if b is None:
            b = _limit(x.dtype, name == "max")
        elif isinstance(b, Array):
            dt.check_category(b.dtype, "real numeric", "clip")
            if (b.dtype.kind == "f") != (x.dtype.kind == "f"):
                raise TypeError(
                    f"clip: {name} has dtype {b.dtype.name} and x has {x.dtype.name}; they "
                    "must both be integer or both floating-point"
                )
            if b.device != x.device:
                raise ValueError(f"clip: {name} is on {b.device!r}, x on {x.device!r}")
        elif isinstance(b, (bool, int, float)) and not isinstance(b, bool):
            if x.dtype.kind in "iu":
                if isinstance(b, float):
                    raise TypeError(f"clip: a float {name} does not combine with {x.dtype.name}")
                # as NumPy 2: a bound past the dtype's range on the side where it changes
                # nothing is that end of the range; on the other side no result fits
                lo, hi = _int_range(x.dtype)
                if (name == "max" and b < lo) or (name == "min" and b > hi):
                    raise OverflowError(
                        f"clip: Python int {name}={b} is out of bounds for {x.dtype.name} "
                        f"(allowed: {lo} to {hi}); no {x.dtype.name} value is clipped to it"
                    )
                b = builtins.min(builtins.max(b, lo), hi)
        else:
            raise TypeError(f"clip: {name} must be an array, int or float, got {type(b).__name__}")
        bounds.append(b)
    # maximum(minimum(x, max), min), as the standard puts it: all three broadcast
    shape = broadcast_shapes(x.shape, *(b.shape for b in bounds if isinstance(b, Array)))
    nodes, inputs, scalars = _nodes([x] + bounds, x.dtype)
    node = Apply("clip", tuple(nodes), x.dtype, x.dtype)
    return _graph.execute(x.device, shape, [(node, None)], inputs, scalars)[0]


def _limit(dtype: dt.DType, upper: bool):
    if dtype.kind == "f":
        return math.inf if upper else -math.inf
    return _int_range(dtype)[1 if upper else 0]


def conj(x: Array, /) -> Array:
    return _apply("conj", x)


def copysign(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("copysign", x1, x2)


def cos(x: Array, /) -> Array:
    return _apply("cos", x)


def cosh(x: Array, /) -> Array:
    return _apply("cosh", x)


def divide(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    return _apply("divide", x1, x2)


def equal(x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool, /) -> Array:
    return _apply("equal", x1, x2)


def exp(x: Array, /) -> Array:
    return _apply("exp", x)


def expm1(x: Array, /) -> Array:
    return _apply("expm1", x)


def floor(x: Array, /) -> Array:
    return _apply("floor", x)


def floor_divide(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("floor_divide", x1, x2)


def greater(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("greater", x1, x2)


def greater_equal(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("greater_equal", x1, x2)


def hypot(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("hypot", x1, x2)


def imag(x: Array, /) -> Array:
    return _apply("imag", x)


def isfinite(x: Array, /) -> Array:
    return _apply("isfinite", x)


def isinf(x: Array, /) -> Array:
    return _apply("isinf", x)


def isnan(x: Array, /) -> Array:
    return _apply("isnan", x)


def less(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("less", x1, x2)


def less_equal(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("less_equal", x1, x2)


def log(x: Array, /) -> Array:
    return _apply("log", x)


def log1p(x: Array, /) -> Array:
    return _apply("log1p", x)


def log2(x: Array, /) -> Array:
    return _apply("log2", x)


def log10(x: Array, /) -> Array:
    return _apply("log10", x)


def logaddexp(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("logaddexp", x1, x2)


def logical_and(x1: Array | bool, x2: Array | bool, /) -> Array:
    return _apply("logical_and", x1, x2)


def logical_not(x: Array, /) -> Array:
    return _apply("logical_not", x)


def logical_or(x1: Array | bool, x2: Array | bool, /) -> Array:
    return _apply("logical_or", x1, x2)


def logical_xor(x1: Array | bool, x2: Array | bool, /) -> Array:
    return _apply("logical_xor", x1, x2)


def maximum(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("maximum", x1, x2)


def minimum(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("minimum", x1, x2)


def multiply(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    return _apply("multiply", x1, x2)


def negative(x: Array, /) -> Array:
    return _apply("negative", x)


def nextafter(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("nextafter", x1, x2)


def not_equal(x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool, /) -> Array:
    return _apply("not_equal", x1, x2)


def positive(x: Array, /) -> Array:
    return _apply("positive", x)


def pow(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    return _apply("pow", x1, x2)


def real(x: Array, /) -> Array:
    return _apply("real", x)


def reciprocal(x: Array, /) -> Array:
    return _apply("reciprocal", x)


def remainder(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    return _apply("remainder", x1, x2)


def round(x: Array, /) -> Array:
    return _apply("round", x)


def sign(x: Array, /) -> Array:
    return _apply("sign", x)


def signbit(x: Array, /) -> Array:
    return _apply("signbit", x)


def sin(x: Array, /) -> Array:
    return _apply("sin", x)


def sinh(x: Array, /) -> Array:
    return _apply("sinh", x)


def square(x: Array, /) -> Array:
    return _apply("square", x)


def sqrt(x: Array, /) -> Array:
    return _apply("sqrt", x)


def subtract(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    return _apply("subtract", x1, x2)


def tan(x: Array, /) -> Array:
    return _apply("tan", x)


def tanh(x: Array, /) -> Array:
    return _apply("tanh", x)


def trunc(x: Array, /) -> Array:
    return _apply("trunc", x)


# The functions above that only call ``_apply`` with their own name, as partials of it: the
# operators of Array and webarray.cupy call these, one Python frame fewer a call (a test reads
# the functions' source to keep this set true)
_CHECKED = ("bitwise_left_shift", "bitwise_right_shift", "clip")  # they check first
DIRECT = {name: functools.partial(_apply, name) for name in TABLE
          if name in globals() and name not in _CHECKED}


def direct(name: str):
    """The cheapest callable equal to the namespace function ``name``."""
    return DIRECT.get(name) or globals()[name]


def operator(name: str):
    """The function of the operator ``x <op> other`` for the namespace function ``name``:
    ``direct(name)``, but for pow (_power_operator)."""
    return _power_operator if name == "pow" else direct(name)


# NumPy's operator computes x ** 2, x ** 2.0 and x ** -1 (Python scalars) of a floating
# array as square(x) and reciprocal(x) (numpy/_core/src/multiarray/number.c, its fast scalar
# power; NumPy 2.4 times x ** 2.0 as x ** 2 and x ** -1.0 as x ** 3): the same values where
# pow is correctly rounded, bit for bit NumPy's where it is not, and a far smaller kernel
# (float64's pow in software is a log and an exp in double-double: seven of them in one
# fused kernel of SciPy's f_oneway took lavapipe's LLVM ~100 s to compile). x ** 0.5 stays
# pow: sqrt differs at -0 and -inf, where the standard specifies pow's values.
_POW_FAST = {(int, 2): "square", (float, 2.0): "square", (int, -1): "reciprocal"}


def _power_fast(x: Array, other):
    """square or reciprocal where x ** other is computed by it, else None."""
    if other.__class__ is int or other.__class__ is float:
        fast = _POW_FAST.get((other.__class__, other))
        if fast is not None and x._dtype.kind in "fc":
            return fast
    return None


def _power_operator(x: Array, other) -> Array:
    fast = _power_fast(x, other)
    return _apply(fast, x) if fast is not None else _apply("pow", x, other)
