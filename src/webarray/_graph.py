"""Layer 2: turns elementwise expressions over arrays into kernel launches.

``execute`` takes expression DAGs (kernels/expr.py) whose Input nodes refer to arrays and
whose Scalar nodes refer to Python values, binds the arrays' buffers, chooses each
operand's access mode (contiguous, strided, vec4), fetches the cached kernel for that
structure and dispatches it. Today every expression is executed when it is built; the
lazy fusion of DESIGN.md will hold the DAG here instead and call the same function later.
"""

from __future__ import annotations

import math

from .kernels.expr import Node
from .kernels.webgpu import elementwise as ew
from .kernels.webgpu import lanes


def c_strides(shape) -> tuple[int, ...]:
    strides = []
    s = 1
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))


def broadcast_strides(arr, shape) -> tuple[int, ...]:
    """Strides of arr viewed with the (broadcast-compatible) shape."""
    lead = len(shape) - arr.ndim
    out = [0] * lead
    for n, s, target in zip(arr._shape, arr._strides, shape[lead:]):
        out.append(0 if n == 1 and target != 1 else s)
    return tuple(out)


def is_contiguous(shape, strides) -> bool:
    expect = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def execute(device, shape, outputs, inputs=(), scalars=(), raw_inputs=()):
    """Run one elementwise kernel and return the output arrays.

    outputs: list of (node, out) where out is None (a new C-contiguous array of ``shape``
    and the node's dtype is made), an Array view of ``shape`` to write into, or
    ``(array, index_node)`` to scatter into ``array``'s buffer at the word index the node
    computes. inputs: arrays for Input slots, broadcast to ``shape`` (or read raw through
    Gather nodes when their slot is in raw_inputs). scalars: (dtype, value) per Scalar slot.
    """
    from ._array_object import Array

    shape = tuple(shape)
    n = math.prod(shape)
    results = []
    for node, out in outputs:
        if out is None:
            out = Array._empty(shape, node.dtype, device)
        results.append(out)
    if n == 0:
        return [r[0] if isinstance(r, tuple) else r for r in results]

    ndim = len(shape)
    bindings: list = []  # Buffer per binding (binding number = index + 1)
    writable: list[bool] = []
    where: dict[int, int] = {}

    def bind(buf, write: bool) -> int:
        b = where.get(id(buf))
        if b is None:
            bindings.append(buf)
            writable.append(write)
            b = where[id(buf)] = len(bindings)
        elif write:
            writable[b - 1] = True
        return b

    out_ops = []
    out_views = []
    for (node, _), out in zip(outputs, results):
        if isinstance(out, tuple):
            arr, index_node = out
            opnd = ew.Operand(bind(arr._buf, True), strided=False, raw=True)
            out_ops.append((node, opnd, index_node))
            out_views.append((0, ()))
        else:
            strides = broadcast_strides(out, shape)
            contiguous = is_contiguous(shape, strides)
            out_ops.append((node, ew.Operand(bind(out._buf, True), strided=not contiguous)))
            out_views.append((out._offset, strides))

    in_ops = []
    in_views = []
    for slot, arr in enumerate(inputs):
        if slot in raw_inputs:
            in_ops.append((arr.dtype, ew.Operand(bind(arr._buf, False), False, raw=True)))
            in_views.append((0, ()))
            continue
        strides = broadcast_strides(arr, shape)
        view = (arr._offset, strides)
        b = where.get(id(arr._buf))
        if b is not None and writable[b - 1] and view not in out_views:
            # reading a buffer this kernel writes, through a different view: read a copy
            arr = copy_of(arr)
            strides = broadcast_strides(arr, shape)
            view = (arr._offset, strides)
        contiguous = is_contiguous(shape, strides)
        in_ops.append((arr.dtype, ew.Operand(bind(arr._buf, False), strided=not contiguous)))
        in_views.append(view)

    vec4 = (
        n % 4 == 0
        and not raw_inputs
        and all(not o[1].strided and not o[1].raw for o in out_ops)
        and all(not o.strided for _, o in in_ops)
        and all(off % 4 == 0 for off, _ in in_views + out_views)
        and all(lanes.words(d) == 1 for d, _ in in_ops)
        and all(lanes.words(o[0].dtype) == 1 for o in out_ops)
    )
    spec = ew.ElementwiseSpec(
        inputs=tuple(in_ops),
        scalars=tuple(d for d, _ in scalars),
        outputs=tuple(out_ops),
        writable=tuple(writable),
        ndim=ndim,
        vec4=vec4,
    )
    uniforms = ew.pack_uniforms(
        spec, n, shape, in_views, out_views, [w for d, v in scalars for w in lanes.scalar_words(d, v)]
    )
    ex = device.executor
    device.launch(("ew", spec.key), lambda: ew.generate(spec), bindings, uniforms,
                  ew.grid_for(n, vec4, ex.max_workgroups_per_dim))
    return [r[0] if isinstance(r, tuple) else r for r in results]


def copy_of(arr, dtype=None):
    """A new C-contiguous array with arr's values (converted to dtype)."""
    from .kernels.expr import Cast, Input

    node: Node = Input(0, arr.dtype)
    if dtype is not None and dtype is not arr.dtype:
        node = Cast(node, dtype)
    return execute(arr.device, arr.shape, [(node, None)], [arr])[0]
