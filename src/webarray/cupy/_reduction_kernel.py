"""ReductionKernel: map each element, reduce along axes with a user expression, post-map.

``ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
name, reduce_type)`` as in CuPy. Expressions use the kernel language of
``_kernel_lang`` (any of the three forms); ``reduce_expr`` combines ``a`` and ``b``,
``post_map_expr`` assigns the outputs from ``a`` and may use ``_in_ind.size()`` (elements
reduced per output) and ``_out_ind.size()`` (number of outputs). ``reduce_type``
defaults to the first output's type.

How it runs: the map is an ElementwiseKernel-style user node over the inputs, broadcast
together and viewed with the reduced axes last, which writes a contiguous (M, N) array;
then the core's reduction (``_core/algorithms/reduce.py``: ``fold``) folds its rows with
the registry's reduction generator, the one of sum and max, from a ``ReduceSpec`` whose
combine is the user's (``UserFold``): chunks of each row by a tree (so ``reduce_expr``
must be associative and commutative, as in CuPy), four elements a load where the row
length allows, partials between passes for long rows, and the final pass applies the
post-map. Without an identity each thread starts from its first element (values carry a
flag of whether they hold one). WebGL2 runs the same passes with its generator, one
fragment per chunk.

No loop reads a row: a thread loads its 16 elements in straight-line code, and long rows
take more passes, so Mesa's llvmpipe, which ends the loops of a shader silently after
65,535 passes in all (``_kernel_lang``), cuts no row short (one loop per element cut rows
of 2^24 elements: a sum of 2^24 ones gave 131,070). On such a device a post-map body with
loops is checked (``_kernel_lang``): the final pass records the line of a loop cut short in
one more buffer, and the call raises ``LoopLimitError``.
"""

from __future__ import annotations

import math
import re

from webarray import _dtypes as dt
from webarray._core import tensor as _tensor
from webarray._core.algorithms import reduce as _reduce
from webarray._array_object import Array
from webarray._elementwise import broadcast_shapes
from webarray._creation import zeros
from webarray._manipulation import broadcast_to, permute_dims, reshape
from webarray.executors.protocol import KernelError
from webarray.kernels.expr import Input, Scalar, UserCall, UserOut
from webarray.kernels import lanes
from webarray.kernels.specs.reduction import UserFold

from . import _kernel_lang as lang
from ._core import wrap
from ._elementwise_kernel import ElementwiseKernel, run
from ._params import (DTYPE_NAMES, check_scalar, kernel_error, parse_params, split_args,
                      register_of, scalar_dtype)

_LANG = {"webgpu": "wgsl", "webgl2": "glsl"}  # the language a device's kernels are in
_SIZES = re.compile(r"_(in|out)_ind\s*\.\s*size\s*\(\s*\)")


class ReductionKernel:
    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity, name: str = "reduce_kernel",
                 reduce_type: str | None = None, reduce_dims: bool = True, preamble: str = "",
                 options=()):
        if preamble:
            raise NotImplementedError(f"kernel {name!r}: preamble is not supported")
        self.name = name
        self.in_params = parse_params(in_params, name, "input")
        self.out_params = parse_params(out_params, name, "output")
        if not self.out_params:
            raise ValueError(f"kernel {name!r}: a ReductionKernel needs an output parameter")
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self._post_map = _SIZES.sub(lambda m: f"_{m.group(1)}_size", post_map_expr)
        self.identity = None if identity is None else str(identity)
        self.reduce_type = reduce_type or self.out_params[0].type
        self._cache: dict = {}

    def __call__(self, *args, axis=None, keepdims: bool = False, stream=None):
        ins, outs = split_args(args, self.in_params, self.out_params, self.name)
        bound: dict[str, dt.DType] = {}
        for p, c in zip(self.in_params, ins):
            if p.dtype is None and c[0] == "array":
                have = bound.setdefault(p.type, c[2])
                if have is not c[2]:
                    raise TypeError(f"kernel {self.name!r}: parameter {p.name!r} has type "
                                    f"{p.type} = {have.name}, got {c[2].name}")
        for p, o in zip(self.out_params, outs):
            if p.dtype is None:
                bound.setdefault(p.type, o.dtype)
        for p, c in zip(self.in_params, ins):
            if p.dtype is None and c[0] == "scalar" and p.type not in bound:
                bound[p.type] = c[2] or scalar_dtype(c[1])

        def resolve(typ: str, what: str) -> dt.DType:
            d = DTYPE_NAMES.get(typ) or bound.get(typ)
            if d is None:
                raise TypeError(f"kernel {self.name!r}: cannot tell the type {typ} of {what}")
            return d

        arrays, scalars, regs = [], [], {}
        for p, c in zip(self.in_params, ins):
            d = resolve(p.type, repr(p.name))
            regs[p.name] = register_of(d, self.name, p.name)
            if c[0] == "array" and p.raw:
                continue
            if c[0] == "array":
                a = c[1]
                if a.dtype is not d:
                    raise TypeError(f"kernel {self.name!r}: parameter {p.name!r} is {d.name}, "
                                    f"got an array of {a.dtype.name}")
                arrays.append((p, a))
            else:
                scalars.append((p, d, check_scalar(c[1], d, self.name, p.name)))
        red = resolve(self.reduce_type, "the reduction")
        red_reg = register_of(red, self.name, "reduce_type")
        out_dtypes = [resolve(p.type, repr(p.name)) for p in self.out_params]
        for p, d in zip(self.out_params, out_dtypes):
            regs[p.name] = register_of(d, self.name, p.name)
        if not arrays:
            raise ValueError(f"kernel {self.name!r}: a reduction needs an array argument")
        if any(p.raw for p in self.in_params):
            return self._call_raw(args, ins, outs, arrays, red, axis, keepdims, out_dtypes)
        device = arrays[0][1].device

        shape = broadcast_shapes(*(a.shape for _, a in arrays))
        axes = _reduce.normalize_axes(tuple(axis) if isinstance(axis, list) else axis,
                                      len(shape), self.name)
        keep = [d for d in range(len(shape)) if d not in axes]
        order = keep + sorted(axes)
        rows = math.prod(shape[d] for d in keep)
        cols = math.prod(shape[d] for d in axes)
        out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keepdims \
            else tuple(shape[d] for d in keep)
        for p, o in zip(self.out_params, outs):
            if not isinstance(o, Array) or o.shape != out_shape:
                raise ValueError(f"kernel {self.name!r}: output {p.name!r} must be an array "
                                 f"of shape {out_shape}")
        if cols == 0 and self.identity is None:
            raise ValueError(f"kernel {self.name!r}: the reduced axes hold no elements and "
                             "the kernel has no identity")

        types = dict(lang.TYPE_NAMES)
        types.update({k: register_of(v, self.name, k) for k, v in bound.items()})
        scalar_names = tuple(p.name for p, _, _ in scalars)
        checked = lang.loops_bounded(device.executor.adapter_info)
        # outputs passed in are also read (CuPy: ``y += log(a)`` adds to y's values)
        readable = bool(outs)
        key = (tuple(sorted(types.items())), tuple(regs.items()), red_reg, scalar_names, checked,
               readable)
        fns = self._cache.get(key)
        if fns is None:
            fns = self._cache[key] = self._functions(types, regs, red_reg, scalar_names, checked,
                                                     readable)
        map_fn, reduce_fn, post_fn, identity_fn = fns

        # map: inputs broadcast to shape, reduced axes last -> contiguous (rows, cols)
        array_of = {p.name: a for p, a in arrays}
        scalar_of = {p.name: (d, v) for p, d, v in scalars}
        inputs, scalar_list, args = [], [], []
        for p in self.in_params:
            if p.name in array_of:
                a = array_of[p.name]
                args.append(Input(len(inputs), a.dtype))
                inputs.append(permute_dims(broadcast_to(a, shape), tuple(order)))
            else:
                scalar_list.append(scalar_of[p.name])
                args.append(Scalar(len(scalar_list) - 1, scalar_list[-1][0]))
        mapped_shape = tuple(shape[d] for d in order)
        call = UserCall(map_fn, tuple(args))
        mapped = run(device, mapped_shape, [(UserOut(call, 0, red), None)], inputs, scalar_list,
                      self.name, call)[0]

        results = outs or [Array._empty(out_shape, d, device) for d in out_dtypes]
        if rows == 0:
            return self._ret(results, outs)
        for r in results:
            if r._offset != 0 or r._strides != _tensor.c_strides(r.shape):
                raise ValueError(f"kernel {self.name!r}: outputs must be C-contiguous arrays")
        tail = [cols, rows]  # _in_ind.size() and _out_ind.size()
        for _, d, v in scalars:
            tail += lanes.scalar_words(d, v)
        user = UserFold(reduce_fn, identity_fn, post_fn, tuple(out_dtypes),
                        tuple(d for _, d, _ in scalars))
        cut = zeros(1, dtype=dt.uint32, device=device) if post_fn.checked else None
        try:
            _reduce.fold(mapped, tuple(range(len(keep), len(shape))), user, results, tail,
                         cut)
        except KernelError as e:
            raise kernel_error(self.name, e, _LANG.get(device.backend, "wgsl")) from None
        line = int(cut[0]) if cut is not None else 0
        if line:
            raise lang.loop_limit_error(self.name, post_fn.body, line, device,
                                        partial="the output arrays passed in" if outs else "")
        return self._ret(results, outs)

    def _call_raw(self, args, ins, outs, arrays, red, axis, keepdims, out_dtypes):
        """With raw parameters, in three launches: the map as a whole-array elementwise
        kernel (``_raw_elementwise``, which also gives CuPy's ``_j``: the element's index
        with the reduced axes first), the reduction of the mapped (rows, cols) array, and
        the post-map as another such kernel (it may read raw parameters too)."""
        n_in = len(self.in_params)
        plain = [(p, a) for p, a in arrays]
        shape = broadcast_shapes(*(a.shape for _, a in plain)) if plain else ()
        axes = _reduce.normalize_axes(tuple(axis) if isinstance(axis, list) else axis,
                                      len(shape), self.name)
        keep = [d for d in range(len(shape)) if d not in axes]
        order = tuple(keep + sorted(axes))
        rows = math.prod(shape[d] for d in keep)
        cols = math.prod(shape[d] for d in axes)
        out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keepdims \
            else tuple(shape[d] for d in keep)
        scalar_names = tuple(p.name for p, a in zip(self.in_params, args[:n_in])
                             if not isinstance(a, Array))
        kernels = self._cache.get(("raw", red, scalar_names))
        if kernels is None:
            kernels = self._cache[("raw", red, scalar_names)] = self._raw_kernels(red, scalar_names)
        map_k, red_k, post_k = kernels
        device = next(a.device for a in args[:n_in] if isinstance(a, Array))
        map_args = []
        for p, a in zip(self.in_params, args[:n_in]):
            if isinstance(a, Array) and not p.raw:
                a = reshape(permute_dims(broadcast_to(a, shape), order), (rows, cols))
            map_args.append(a)
        mapped = Array._empty((rows, cols), red, device)
        map_k(*map_args, rows, cols, cols, rows, mapped)
        reduced = red_k(mapped, axis=1)
        reduced = wrap(reduced).reshape(out_shape) if out_shape != reduced.shape else reduced
        post_args = [reduced] + [a for p, a in zip(self.in_params, args[:n_in])
                                 if p.raw or p.name in scalar_names] + [cols, rows]
        # the outputs, made here when not given: their generic types are bound by the
        # inputs, which the post-map kernel does not see
        results = list(outs) or [zeros(out_shape, dtype=d, device=device) for d in out_dtypes]
        post_k(*post_args, *results)
        return self._ret(results, outs)

    def _raw_kernels(self, red: dt.DType, scalar_names: tuple):
        """The three kernels of ``_call_raw`` (made once per reduce dtype)."""
        def params(ps):
            return ", ".join(("raw " if p.raw else "") + f"{p.type} {p.name}" for p in ps)

        sizes = "int32 _rows, int32 _cols, int32 _in_size, int32 _out_size"
        map_body = (f"int _j = (i % _cols) * _rows + i / _cols;\n"
                    f"_mapped = ({_SIZES.sub(lambda m: f'_{m.group(1)}_size', self.map_expr)});")
        map_k = ElementwiseKernel(params(self.in_params) + ", " + sizes, f"{red.name} _mapped",
                                  map_body, self.name)
        red_k = ReductionKernel(f"{red.name} _x", f"{red.name} _y", "_x", self.reduce_expr,
                                "_y = a", self.identity, self.name)
        post_in = [f"{red.name} a"] + [("raw " if p.raw else "") + f"{p.type} {p.name}"
                                       for p in self.in_params if p.raw or p.name in scalar_names]
        post_k = ElementwiseKernel(", ".join(post_in + ["int32 _in_size", "int32 _out_size"]),
                                   params(self.out_params), self._post_map, self.name)
        return map_k, red_k, post_k

    def _ret(self, results, outs):
        if not outs:
            results = [wrap(r) for r in results]
        return results[0] if len(results) == 1 else tuple(results)

    def _functions(self, types, regs, red_reg, scalar_names, checked: bool, readable: bool):
        inputs = [(p.name, regs[p.name]) for p in self.in_params]
        map_fn = lang.expression_function(self.name, "_m", self.map_expr, inputs, red_reg, types)
        reduce_fn = lang.expression_function(self.name, "_r", self.reduce_expr,
                                             [("a", red_reg), ("b", red_reg)], red_reg, types)
        # the post-map sees the reduced value, the two sizes and the scalar parameters
        post_inputs = [("a", red_reg), ("_in_size", "i32"), ("_out_size", "i32")]
        post_inputs += [(n, regs[n]) for n in scalar_names]
        post_fn = lang.UserFunction(self.name, self._post_map, post_inputs,
                                    [(p.name, regs[p.name]) for p in self.out_params], types,
                                    readable_outputs=readable, checked=checked)
        identity_fn = None
        if self.identity is not None:
            identity_fn = lang.expression_function(self.name, "_id", self.identity, [], red_reg,
                                                   types)
        return map_fn, reduce_fn, post_fn, identity_fn
