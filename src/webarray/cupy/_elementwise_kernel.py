"""ElementwiseKernel: a user body run once per element, through the built-in machinery.

The body becomes a function (``_kernel_lang``); a call builds the same expression nodes as
a built-in op (``Input`` per array, ``Scalar`` per scalar, ``Index`` for ``i``) around one
``UserCall`` node, and the elementwise generator and ``_graph`` do the rest: broadcasting,
strided and vec4 access, scalars as uniforms, kernel caching by structure. As in CuPy:

- inputs broadcast together; outputs are allocated with the broadcast shape and their
  declared (or deduced) dtype, or passed after the inputs (then they must have that shape
  exactly, and the body may read their current values);
- ``size=n`` gives the number of elements when no argument is an array;
- ``i`` in the body is the element's linear index (int32);
- placeholders (``T x, T y``) take the dtype of the arrays given for them, then of scalars.

An array whose dtype differs from a concrete parameter type is converted when NumPy calls
the conversion safe (int8 to int32); otherwise ``TypeError`` names the parameter.
"""

from __future__ import annotations

import math

from webarray import _dtypes as dt
from webarray._core import graph as _graph, launch
from webarray._core.device import default_device
from webarray._array_object import Array
from webarray._elementwise import broadcast_shapes
from webarray._statistical import max as _max
from webarray.executors.protocol import KernelError
from webarray.kernels.expr import Index, Input, Scalar, UserCall, UserOut

from . import _kernel_lang as lang
from . import _raw_elementwise as raw_elementwise
from ._core import wrap
from ._params import (check_scalar, kernel_error, parse_params, register_of, split_args,
                      safe_cast, scalar_dtype)


class ElementwiseKernel:
    """``ElementwiseKernel(in_params, out_params, operation, name='kernel')`` as in CuPy;
    the body may be WGSL, GLSL or CuPy's C-like form (see ``docs/cupy.md``)."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 reduce_dims: bool = True, preamble: str = "", no_return: bool = False,
                 return_tuple: bool = False, loop_prep: str = "", after_loop: str = "",
                 options=()):
        """reduce_dims and options (compiler flags) are accepted and have no effect here;
        ``preamble`` holds CUDA C functions (``__device__``, templates, references) and
        ``#define``s the body uses (``_kernel_lang``)."""
        if loop_prep or after_loop:
            raise NotImplementedError(
                f"kernel {name!r}: loop_prep and after_loop are not supported")
        self.preamble = preamble
        self.name = name
        self.in_params = parse_params(in_params, name, "input")
        self.out_params = parse_params(out_params, name, "output")
        clash = {p.name for p in self.in_params} & {p.name for p in self.out_params}
        if clash:
            raise ValueError(f"kernel {name!r}: {sorted(clash)} is both an input and an output")
        if not self.out_params:
            raise ValueError(f"kernel {name!r}: an ElementwiseKernel needs an output parameter")
        self.operation = operation
        self.no_return = no_return
        self.return_tuple = return_tuple
        self._uses_i = "i" not in {p.name for p in self.in_params + self.out_params} and (
            lang.uses_name(name, operation, "i"))
        # raw parameters (and CuPy's _ind.size()) need the whole-array kernel
        self._sizes = ["_ind__size"] if lang.uses_name(name, operation, "_ind") else []
        self._raw = any(p.raw for p in self.in_params + self.out_params) or bool(self._sizes)
        self._functions: dict = {}
        raw_out = [p.name for p in self.out_params if p.raw]
        # a body with only concrete types is translated now, so errors show at once
        if all(p.dtype is not None for p in self.in_params + self.out_params):
            try:
                regs = {p.name: register_of(p.dtype, name, p.name)
                        for p in self.in_params + self.out_params}
            except TypeError:
                regs = None
            if regs is not None and not raw_out:
                self._function({}, regs, False, False)

    def _function(self, placeholders: dict, regs: dict, readable: bool,
                  checked: bool, raw_ndims=None) -> lang.UserFunction:
        raw_ndims = raw_ndims or {}
        key = (tuple(sorted(placeholders.items())), tuple(regs.items()), readable, checked,
               tuple(sorted(raw_ndims.items())))
        fn = self._functions.get(key)
        if fn is None:
            types = dict(lang.TYPE_NAMES)
            types.update(placeholders)
            inputs = [(p.name, regs[p.name]) for p in self.in_params if not p.raw]
            if self._uses_i:
                inputs.append(("i", "i32"))
            inputs += [(s, "i32") for s in self._sizes]
            outputs = [(p.name, regs[p.name]) for p in self.out_params if not p.raw]
            raws = [(p.name, regs[p.name]) for p in self.in_params + self.out_params if p.raw]
            fn = self._functions[key] = lang.UserFunction(
                self.name, self.operation, inputs, outputs, types, readable, checked, raws,
                self.preamble, raw_ndims)
        return fn

    def __call__(self, *args, size: int | None = None, block_size=None, stream=None):
        ins, outs = split_args(args, self.in_params, self.out_params, self.name)
        for p, o in zip(self.out_params, outs):
            if not isinstance(o, Array):
                raise TypeError(f"kernel {self.name!r}: output {p.name!r} must be an array, "
                                f"got {type(o).__name__}")

        # placeholders: from arrays first (inputs, then given outputs), then scalars
        bound: dict[str, dt.DType] = {}
        for p, c in list(zip(self.in_params, ins)) + [
                (p, ("array", o, o._dtype)) for p, o in zip(self.out_params, outs)]:
            if p.dtype is None and c[0] == "array":
                have = bound.setdefault(p.type, c[2])
                if have is not c[2]:
                    raise TypeError(
                        f"kernel {self.name!r}: parameter {p.name!r} has type {p.type} = "
                        f"{have.name} (from an earlier argument), got {c[2].name}")
        for p, c in zip(self.in_params, ins):
            if p.dtype is None and c[0] == "scalar" and p.type not in bound:
                bound[p.type] = c[2] or scalar_dtype(c[1])

        def dtype_of(p) -> dt.DType:
            if p.dtype is not None:
                return p.dtype
            if p.type not in bound:
                raise TypeError(f"kernel {self.name!r}: cannot tell the type {p.type} of "
                                f"{p.name!r}; pass an array for it, or the outputs")
            return bound[p.type]

        arrays, scalars, nodes = [], [], []
        device = None
        regs = {}
        raws, raw_dtypes, raw_args = {}, {}, []  # the whole-array kernel's raw arrays, inputs
        for p, c in zip(self.in_params, ins):
            d = dtype_of(p)
            regs[p.name] = register_of(d, self.name, p.name)
            if p.raw:
                if c[0] != "array":
                    raise TypeError(f"kernel {self.name!r}: raw parameter {p.name!r} needs an "
                                    "array")
                if c[1]._dtype is not d and not safe_cast(c[1]._dtype, d):
                    raise TypeError(f"kernel {self.name!r}: parameter {p.name!r} is "
                                    f"{d.name}, got an array of {c[1]._dtype.name}")
                raws[p.name] = c[1]
                raw_dtypes[p.name] = d
                device = device or c[1]._device
                continue
            if c[0] == "array":
                a = c[1]
                if a._dtype is not d:
                    if not safe_cast(a._dtype, d):
                        raise TypeError(f"kernel {self.name!r}: parameter {p.name!r} is "
                                        f"{d.name}, got an array of {a._dtype.name}")
                    a = _graph.copy_of(a, d)
                if device is None:
                    device = a._device
                elif a._device != device:
                    raise ValueError(f"kernel {self.name!r}: {p.name!r} is on {a.device!r}, "
                                     f"other arguments on {device!r}")
                nodes.append(Input(len(arrays), d))
                arrays.append(a)
                raw_args.append(("array", a))
            else:
                scalars.append((d, check_scalar(c[1], d, self.name, p.name)))
                nodes.append(Scalar(len(scalars) - 1, d))
                raw_args.append(("scalar", scalars[-1][1]))
        out_dtypes = []
        for k, p in enumerate(self.out_params):
            d = dtype_of(p)
            regs[p.name] = register_of(d, self.name, p.name)
            if outs and outs[k]._dtype is not d:
                raise TypeError(f"kernel {self.name!r}: output {p.name!r} is {d.name}, got "
                                f"an array of {outs[k]._dtype.name}")
            out_dtypes.append(d)

        # raw outputs are whole arrays like raw inputs: bound, not broadcast or stored
        raw_outs = {p.name: o for p, o in zip(self.out_params, outs) if p.raw}
        if self.out_params and any(p.raw for p in self.out_params) and not outs:
            raise TypeError(f"kernel {self.name!r}: the raw outputs "
                            f"{[p.name for p in self.out_params if p.raw]} must be given")
        for name, o in raw_outs.items():
            raws[name] = o
            raw_dtypes[name] = o._dtype
            device = device or o._device
        outs = [o for p, o in zip(self.out_params, outs) if not p.raw]
        out_dtypes = [d for p, d in zip(self.out_params, out_dtypes) if not p.raw]
        in_shapes = [a.shape for a in arrays]
        if size is not None:
            if in_shapes or outs:
                raise ValueError(f"kernel {self.name!r}: size= can be given only when no "
                                 "argument is an array")
            shape = (int(size),)
        elif in_shapes or outs:
            # inputs broadcast to the outputs' shape; outputs are never broadcast
            try:
                shape = broadcast_shapes(*in_shapes, *(o.shape for o in outs))
            except ValueError:
                raise ValueError(f"kernel {self.name!r}: the argument shapes "
                                 f"{in_shapes + [o.shape for o in outs]} do not broadcast "
                                 "together") from None
            for p, o in zip([p for p in self.out_params if not p.raw], outs):
                if o.shape != shape:
                    raise ValueError(f"kernel {self.name!r}: output {p.name!r} has shape "
                                     f"{o.shape}, the arguments broadcast to {shape}")
        else:
            raise ValueError(f"kernel {self.name!r}: no argument is an array; pass size=")
        for o in outs:
            if device is None:
                device = o._device
            elif o._device != device:
                raise ValueError(f"kernel {self.name!r}: an output is on another device")
        if device is None:
            device = default_device()

        readable = bool(outs)
        if self._raw:
            return self._call_raw(device, shape, bound, regs, raws, raw_dtypes, raw_args, outs,
                                  out_dtypes)
        # checked loops are WGSL only: WebGL2 over Mesa's llvmpipe GL would cut loops too
        # (the same limiter), but its generator takes no extra output (docs/cupy.md)
        checked = device.backend != "webgl2" and lang.loops_bounded(device.executor.adapter_info)
        fn = self._function({k: register_of(v, self.name, k) for k, v in bound.items()},
                            regs, readable, checked)
        if self._uses_i:
            nodes.append(Index(dt.int32))
        if readable:
            for o in outs:
                nodes.append(Input(len(arrays), o._dtype))
                arrays.append(o)
        call = UserCall(fn, tuple(nodes))
        targets = [(UserOut(call, k, d), outs[k] if outs else None)
                   for k, d in enumerate(out_dtypes)]
        results = run(device, shape, targets, arrays, scalars, self.name, call)
        if not outs:
            results = [wrap(r) for r in results]
        if self.no_return:
            return None
        if len(results) == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)

    def _call_raw(self, device, shape, bound, regs, raws, dtype_of_raw, args, outs, out_dtypes):
        """The call as one whole-array kernel (``_raw_elementwise``): raw parameters."""
        fn = self._function({k: register_of(v, self.name, k) for k, v in bound.items()},
                            regs, bool(outs), False, {k: a.ndim for k, a in raws.items()})
        n = math.prod(shape)
        if self._uses_i:
            args = args + [("index", None)]
        args += [("scalar", n) for _ in self._sizes]
        targets = [raw_elementwise.contiguous(o) for o in outs] if outs else [
            Array._empty(shape, d, device) for d in out_dtypes]
        bound_raws = {k: raw_elementwise.contiguous(a, dtype_of_raw[k]) for k, a in raws.items()}
        raw_elementwise.launch(fn, self.name, shape, args, bound_raws, targets, device)
        # copies (views, other dtypes) go back: the body may have written them
        for o, t in list(zip(outs, targets)) + [(raws[k], bound_raws[k]) for k in raws]:
            if t is not o:
                o[...] = t
        results = list(outs) if outs else [wrap(t) for t in targets]
        results += [raws[p.name] for p in self.out_params if p.raw]
        if self.no_return:
            return None
        if len(results) == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)


def run(device, shape, targets, arrays, scalars, kernel: str, call: UserCall):
    """Launch one elementwise kernel of the user function ``call`` now (user nodes are not
    lazy). A ``checked`` function (loops on llvmpipe) also writes the line of a loop that
    the device cut short per element, read back here: ``LoopLimitError`` then."""
    if not getattr(device.kernels.elementwise, "USER_CALLS", device.backend != "webgl2"):
        raise NotImplementedError(
            f"kernel {kernel!r}: the {device.backend} elementwise generator does not run "
            "user kernels yet (it needs UserCall/UserOut nodes: UserFunction.glsl_outputs "
            "gives their GLSL)")
    fn = call.fn
    given = any(o is not None for _, o in targets)
    if fn.checked:
        n = math.prod(shape)
        cut = UserOut(call, len(fn.outputs), dt.uint32)
        # Written at each element's index (a raw output), the flags keep the kernel off the
        # vec4 path, where four elements share a thread's loop budget; not when the launch
        # runs in pieces, which raw outputs cannot.
        piece = launch.piece_bytes(device.executor)
        if max([4 * n] + [a._buf.nbytes for a in arrays]
               + [o._buf.nbytes for _, o in targets if o is not None]) <= piece:
            targets = targets + [(cut, (Array._empty((n,), dt.uint32, device), Index(dt.int32)))]
        else:
            targets = targets + [(cut, None)]
    try:
        results = _graph.run(device, shape, targets, arrays, scalars)
    except KernelError as e:
        raise kernel_error(kernel, e, "wgsl") from None
    if fn.checked:
        line = int(_max(results.pop()))
        if line:
            raise lang.loop_limit_error(kernel, fn.body, line, device,
                                        partial="the output arrays passed in" if given else "")
    return results
