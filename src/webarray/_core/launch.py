"""The launch layer: the one place that turns a kernel spec and records into dispatches.

``elementwise`` binds the records of one elementwise kernel (graph.py describes it), makes
a copy where the kernel would read a buffer it writes through another view, chooses each
operand's access (contiguous, strided, vec4), packs the uniforms from the spec
(kernels/specs/elementwise.py), folds the grid and hands the launch to the device.
``kernel`` and ``batches`` do the same for the multi-launch algorithms (algorithms/): a
1-D workgroup count folded into a grid, and a batch of independent problems cut into
dispatches of at most ``max_workgroups_per_dim`` workgroups.

**Pieces.** A WebGPU kernel binds a buffer whole or a range of it, and no binding may exceed the
device's ``maxStorageBufferBindingSize`` (128 MiB by default and on lavapipe, often 2-4 GiB
on discrete GPUs). Every launch reaches ``Device.launch``, which sends it to ``pieces`` when
one of its buffers is larger than ``piece_bytes(executor)`` (the binding limit, capped at ``PIECE_BYTES``). A *planner*
per kernel family reads the launch's uniforms (their layout is documented by each
generator) and returns the same kernel as a sequence of dispatches, each binding only the
byte range its piece touches and with offsets rebased to that range:

- elementwise (``kernels/webgpu/elementwise.py``): the output is cut along one dimension
  into blocks (the outermost dimension whose slab still fits), every operand's footprint
  over a block is bound, its offset rebased; a kernel that reads the element index gets
  the index of the piece's first element. A buffer that a kernel gathers from or scatters
  into (at indices it computes) is bound whole in every piece, so it must fit one binding.
- reductions (``kernels/webgpu/reduction.py``): many rows are cut into blocks of rows (a
  multiple of 8, so the output range stays aligned); one long row is cut into blocks of
  chunks whose partial results land in the matching range of the partials array; rows
  that each span the whole buffer (a reduction over a leading axis) are cut into blocks
  of chunks for all rows at once, each block's partials written to a temporary and copied
  into their columns of the partials array. Not for argmin/argmax (their partial indices
  count from the start of what a launch sees), nor for a one-chunk pass over a view wider
  than a piece.

When no plan exists and a buffer exceeds the binding limit, ``BindingTooLarge`` names the
kernel and the sizes: never a dispatch that would read or write the wrong elements. A
plan exists only where the executor takes binding ranges (``binding_ranges``).

``PIECE_BYTES`` is also the watchdog bound: an elementwise or reduction dispatch touches at
most that many bytes of each operand (docs/reliability.md).
"""

from __future__ import annotations

import math
import struct

from .. import _dtypes as dt
from ..executors.protocol import BindingTooLarge
from ..kernels import expr, lanes
from ..kernels.expr import Apply, Cast, Input, has_loop
from ..kernels.ops import STAGED
from ..kernels.specs import elementwise as ew
from ..kernels.specs import reduction as rk
from ..kernels.grid import fold
from ..kernels.shader.types import inlined_size
from . import lease, tensor
from .tensor import broadcast_strides, is_contiguous

# at most this many bytes of one operand per dispatch (the watchdog bound below) on a GPU;
# CPU adapters (lavapipe, SwiftShader), which stream a few GB/s, keep CPU_PIECE_BYTES.
# Cutting where the binding limit does not ask for it costs a dispatch boundary and a
# planner call per launch: a sum over 2^26 float32 on an H200 took 138-169 µs in two 128 MiB
# pieces, 71-74 in one (PyTorch 68)
PIECE_BYTES = 1 << 30
CPU_PIECE_BYTES = 128 << 20
# while a call is recorded (replay.py): told of the Buffers each launch binds, since the
# executor sees only their handles
recording = None
_MAX_PIECES = 1 << 16
_WIDE = {"int64": 2, "uint64": 2, "float64": 2, "complex64": 2, "complex128": 4}  # words


launches = 0  # elementwise kernels dispatched so far (tests count fusion with it)


def elementwise(device, shape, outputs, inputs=(), scalars=(), raw_inputs=()):
    """Run one elementwise kernel now and return its output records (the arguments are
    those of ``graph.execute``; inputs are computed records or graph leaves' views)."""
    global launches
    if lease.LEASES:  # NumPy's writes into lent copies first (eager ops make no pending node)
        lease.settle(buffers=lease.buffers_of(inputs, outputs))
    if device.staged:
        outputs, inputs = _staged(device, shape, outputs, inputs, scalars, raw_inputs)
        if device.inline_limit:
            outputs, inputs, apart, size = _fitted(device, shape, outputs, inputs, scalars,
                                                   raw_inputs)
            if apart:  # outputs that fit one kernel each, not together
                return [elementwise(device, shape, [o], inputs, scalars, raw_inputs)[0]
                        for o in outputs]
            if size > CANONICAL_SIZE:
                flat = _canonical(device, shape, outputs, inputs, scalars)
                if flat is not None:
                    return flat
    if not raw_inputs:
        results = plain(device, shape, outputs, inputs, scalars)
        if results is not None:
            return results
    n = math.prod(shape)
    results = []
    for node, out in outputs:
        if out is None:
            out = tensor.empty(shape, node.dtype, device)
        results.append(out)
    if n == 0:
        return [r[0] if isinstance(r, tuple) else r for r in results]

    ndim = len(shape)
    bindings: list = []  # Buffer per binding (binding number = index + 1)
    writable: list[bool] = []
    where: dict[int, int] = {}

    big = device._piece_bytes

    def bind(buf, write: bool, view=None) -> int:
        # A read-only buffer above one binding is bound once per view read from it, so that
        # each binding covers only its view's range (pieces below); a written buffer stays one
        # binding (WebGPU forbids a writable binding aliasing another of the same buffer).
        key = id(buf)
        if view is not None and buf.nbytes > big and key not in where:
            key = (key, view)
        b = where.get(key)
        if b is None:
            bindings.append(buf)
            writable.append(write)
            b = where[key] = len(bindings)
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
            arr = elementwise(device, arr.shape, [(Input(0, arr.dtype), None)], [arr])[0]
            strides = broadcast_strides(arr, shape)
            view = (arr._offset, strides)
        contiguous = is_contiguous(shape, strides)
        in_ops.append((arr.dtype, ew.Operand(bind(arr._buf, False, view), strided=not contiguous)))
        in_views.append(view)

    vec4 = (
        n % 4 == 0
        and not raw_inputs
        and all(not o[1].strided and not o[1].raw for o in out_ops)
        and all(not o.strided for _, o in in_ops)
        and all(off % 4 == 0 for off, _ in in_views + out_views)
        and all(lanes.words(d) == 1 for d, _ in in_ops)
        and all(lanes.words(o[0].dtype) == 1 for o in out_ops)
        and not any(has_loop(o[0]) for o in out_ops)
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
    launches += 1
    device.launch(("ew", spec.key), lambda: device.kernels.elementwise.generate(spec), bindings,
                  uniforms, device.kernels.elementwise.grid_for(n, vec4, ex.max_workgroups_per_dim))
    return [r[0] if isinstance(r, tuple) else r for r in results]


_STAGE_LANES = {dt.float64: "D", dt.complex128: "Z"}


def _staged(device, shape, outputs, inputs, scalars, raw_inputs):
    """(outputs, inputs) with every float64 or complex128 call of ``ops.STAGED`` in the
    outputs' expressions split in its kernels, for a device that runs those functions only
    so (``Device.staged``): each stage but the last is computed now, by a kernel of its own
    over the carriers it reads and this launch's operands, into a complex128 array (the
    double-double or pair it carries), and the call becomes its last stage, which reads
    those arrays as more inputs. The same values bit for bit (ops.STAGED). Every kernel
    binds only the inputs it reads. Calls under other nodes than ops and casts (loops, user
    kernels) stay whole: the backend's probe refuses those it cannot run."""
    original, inputs = inputs, list(inputs)
    done: dict = {}

    def visit(node):
        new = done.get(node.key)
        if new is not None:
            return new
        new = node
        if type(node) is Apply:
            args = tuple(visit(a) for a in node.args)
            stages = STAGED.get((node.op, _STAGE_LANES.get(node.compute)))
            if stages is not None:
                carried = []  # the stages' results so far, as inputs of the later ones
                for k, stage in enumerate(stages[:-1]):
                    part = expr.apply(stage.fn, tuple(carried[j] for j in stage.carriers(k)) + args,
                                      node.compute, dt.complex128)
                    parts, read = _read_only(((part, None),), inputs, raw_inputs)
                    inputs.append(elementwise(device, shape, list(parts), read, scalars, raw_inputs)[0])
                    carried.append(expr.slot(Input, len(inputs) - 1, dt.complex128))
                last = stages[-1]
                new = expr.apply(last.fn, tuple(carried[j] for j in last.carriers(len(carried))) + args,
                                 node.compute, node.dtype)
            elif args != node.args:
                new = expr.apply(node.op, args, node.compute, node.dtype)
        elif type(node) is Cast:
            arg = visit(node.arg)
            if arg is not node.arg:
                new = Cast(arg, node.dtype)
        done[node.key] = new
        return new

    new = [(visit(node), out) for node, out in outputs]
    visit = None  # (a recursive closure is a reference cycle: it held the inputs' buffers
    # until the cyclic collector ran, and the pool grew meanwhile)
    if all(a is b for (a, _), (b, _) in zip(new, outputs)):
        return outputs, original  # no staged call: the launch's own lists, as they came
    return _read_only(new, inputs, raw_inputs)


def _read_only(outputs, inputs, raw_inputs):
    """(outputs, inputs) with only the inputs the outputs' expressions read, renumbered; as
    they are where an expression holds other nodes than ops, casts, inputs and scalars, or
    raw inputs come."""
    nodes = expr.walk([node for node, _ in outputs])
    if raw_inputs or any(type(n) not in _RENUMBERED for n in nodes):
        return outputs, list(inputs)
    slots = sorted({n.slot for n in nodes if type(n) is Input})
    if len(slots) == len(inputs):
        return outputs, list(inputs)
    at = {old: new for new, old in enumerate(slots)}
    done: dict = {}
    for n in nodes:  # arguments before their users
        if type(n) is Input:
            n2 = expr.slot(Input, at[n.slot], n.dtype)
        elif type(n) is Apply:
            n2 = expr.apply(n.op, tuple(done[a.key] for a in n.args), n.compute, n.dtype)
        elif type(n) is Cast:
            n2 = Cast(done[n.arg.key], n.dtype)
        else:
            n2 = n
        done[n.key] = n2
    return [(done[node.key], out) for node, out in outputs], [inputs[k] for k in slots]


_RENUMBERED = frozenset({Apply, Cast, Input, expr.Scalar, expr.Index})

# a fused kernel's calls, with everything they call inlined, at most this share of the
# device's inline limit between two values written out (_fitted): the estimate leaves out
# the kernel's own indexing and loads, and counts a shared argument once per user
FIT_SHARE = 0.6


def _fitted(device, shape, outputs, inputs, scalars, raw_inputs):
    """(outputs, inputs, apart, size) for a device that refuses kernels past an inline limit
    (``Device.inline_limit``: a browser's SwiftShader): where the fused calls of these
    outputs would together exceed it (each call's share measured once, ``call_size``),
    the arguments of a call that would take the calls in one kernel past FIT_SHARE of the
    limit are computed first, each by a kernel of its own, into arrays that the call then
    reads, as eager mode computes every op (the same values bit for bit: each value is
    stored in its own dtype). ``apart``: the outputs fit one kernel each but not together,
    so each goes in a launch of its own. ``size``: the calls' characters in the kernel of
    the outputs returned (0 where it is not estimated). Loops, gathers and user kernels stay
    whole (the refusal names those it cannot send)."""
    nodes = expr.walk([node for node, _ in outputs])
    if raw_inputs or any(type(n) not in _RENUMBERED for n in nodes):
        return outputs, inputs, False, 0
    limit = device.inline_limit * FIT_SHARE
    extra = {n.key: call_size(device, n) for n in nodes if type(n) is Apply}
    total = sum(extra.values())
    if total <= limit:
        return outputs, inputs, False, total
    inputs = list(inputs)
    acc: dict = {}  # inlined characters a node's value takes to compute in the kernel
    done: dict = {}

    def written(key, node):  # node (of the new tree) computed into an array, read back
        parts, read = _read_only(((node, None),), inputs, raw_inputs)
        inputs.append(elementwise(device, shape, list(parts), read, scalars, raw_inputs)[0])
        done[key] = expr.slot(Input, len(inputs) - 1, node.dtype)
        acc[key] = 0

    for n in nodes:  # arguments before their users
        if type(n) is Apply:
            below = sum(acc[a.key] for a in n.args)
            if below + extra[n.key] > limit:
                for a in n.args:
                    if acc[a.key]:
                        written(a.key, done[a.key])
                below = 0
            done[n.key] = expr.apply(n.op, tuple(done[a.key] for a in n.args), n.compute, n.dtype)
            acc[n.key] = below + extra[n.key]
        elif type(n) is Cast:
            done[n.key] = Cast(done[n.arg.key], n.dtype)
            acc[n.key] = acc[n.arg.key]
        else:
            done[n.key] = n
            acc[n.key] = 0
    size = sum({node.key: acc[node.key] for node, _ in outputs}.values())
    new, inputs = _read_only([(done[node.key], out) for node, out in outputs], inputs, raw_inputs)
    return new, inputs, len(new) > 1 and size > limit, size


# a kernel whose calls come to more characters than this (inlined) is launched over
# contiguous 1-D operands on a device with an inline limit (_canonical)
CANONICAL_SIZE = 50_000


def _canonical(device, shape, outputs, inputs, scalars):
    """The results of a launch of large calls (float64 and complex128 functions: more than
    CANONICAL_SIZE characters inlined, as _fitted measures them) on a device with an inline
    limit, whose compiler takes seconds to minutes on each (a browser's SwiftShader), made
    by one kernel per function and dtypes whatever the shapes and layouts: strided and
    broadcast operands are copied contiguous first (small kernels), and the kernel runs
    over them as 1-D arrays of the elements, its new outputs viewed in the launch's shape.
    None where the launch is 1-D and contiguous already or writes into existing arrays."""
    if any(out is not None for _, out in outputs) or 0 in shape:
        return None
    contiguous = [is_contiguous(shape, broadcast_strides(a, shape)) and len(a._shape) == len(shape)
                  for a in inputs]
    if len(shape) == 1 and all(contiguous):
        return None
    n = math.prod(shape)
    flat = []
    for a, ok in zip(inputs, contiguous):
        if not ok:
            a = elementwise(device, shape, [(Input(0, a._dtype), None)], [a])[0]
        flat.append(tensor.view(a._buf, a._dtype, (n,), (1,), a._offset, device))
    results = elementwise(device, (n,), outputs, flat, scalars)
    strides = tensor.c_strides(shape)
    return [tensor.view(r._buf, r._dtype, shape, strides, r._offset, device) for r in results]


_CALL_SIZES: dict = {}


def call_size(device, node) -> int:
    """Characters that one call of an Apply node's function adds to a kernel with its calls
    inlined (``inlined_size``): a one-call kernel of the device's generator against a copy,
    measured once per function, lane and dtypes."""
    key = (device.backend, node.op, node.compute, node.dtype, tuple(a.dtype for a in node.args))
    size = _CALL_SIZES.get(key)
    if size is None:
        args = tuple(expr.slot(Input, k, a.dtype) for k, a in enumerate(node.args))
        call = expr.apply(node.op, args, node.compute, node.dtype)
        size = _CALL_SIZES[key] = max(0, _kernel_size(device, call, args) - _kernel_size(
            device, expr.slot(Input, 0, node.dtype), (expr.slot(Input, 0, node.dtype),)))
    return size


def _kernel_size(device, node, args) -> int:
    spec = ew.ElementwiseSpec(
        inputs=tuple((a.dtype, ew.Operand(k + 2, False)) for k, a in enumerate(args)),
        scalars=(), outputs=((node, ew.Operand(1, False)),),
        writable=(True,) + (False,) * len(args), ndim=1, vec4=False)
    return inlined_size(device.kernels.elementwise.generate(spec))

# the dtypes of more than one word a stored element (lanes.words): a launch reading or
# writing one of them, or an operand at an offset that is not a multiple of 4 elements,
# takes no vec4 path (plain_plan; the graph's kept plans apply the same rule, graph._quick)
MULTI_WORD = frozenset(d for d in dt.all_dtypes if lanes.words(d) != 1)

_C_STRIDES: dict = {}  # C-contiguous strides by shape (a bounded cache)


def plain(device, shape, outputs, inputs, scalars):
    """``elementwise`` for its common case, or None: every output new, every input a
    C-contiguous view of the kernel's shape within one binding. Its spec, key and compiled
    kernel depend only on the nodes, the dtypes, which inputs share a buffer, the scalars'
    dtypes, the rank and vec4, so they are kept per device under that small signature
    (``Device.plans``) and a repeated launch only packs its uniforms. This is the path of
    every eager op (``graph.apply`` calls it directly, the lock held, where no lease or
    staging applies) and of the fused results the graph's quick path does not take, so it is
    written for its host cost (~5 µs on a 2-core VM, the result's buffer and the recorded
    dispatch included)."""
    found = plain_plan(device, shape, outputs, inputs, scalars)
    if found is None:
        return None
    plan, aligned, words, buffers = found
    return issue(device, shape, plan, aligned, words, buffers, scalars, len(outputs))


def plain_plan(device, shape, outputs, inputs, scalars):
    """plain's plan for these operands, or None where plain does not apply: (the plan,
    vec4, the uniform words so far (a slot for the count, then each input's offset), the
    distinct input buffers in binding order)."""
    n = math.prod(shape)
    big = device._piece_bytes
    if n == 0 or 8 * n > big:
        return None
    first = len(outputs) + 1  # outputs take bindings 1..k, the inputs' buffers follow
    sig = []  # the signature: per input (dtype, binding), per output the node's key, ...
    for node, out in outputs:
        if out is not None:
            return None
        sig.append(node.key)
    buffers: list = []
    where: dict = {}
    aligned = not n & 3
    contiguous = _C_STRIDES.get(shape)
    if contiguous is None:
        contiguous = tensor.c_strides(shape)
        if len(_C_STRIDES) < 4096:
            _C_STRIDES[shape] = contiguous
    words = [0]  # the element (or vec4) count, filled in below
    for a in inputs:
        if a._shape != shape or (a._strides != contiguous
                                 and not is_contiguous(shape, a._strides)):
            return None
        buf = a._b
        if buf is None:  # a pending record (a user kernel's input): computed first
            buf = a._buf
        b = where.get(id(buf))
        if b is None:
            if buf.nbytes > big:
                return None
            b = where[id(buf)] = first + len(buffers)
            buffers.append(buf)
        d = a._dtype
        sig.append(d)
        sig.append(b)
        offset = a._offset
        words.append(offset)
        if aligned and (offset & 3 or d in MULTI_WORD):
            aligned = False
    for d, _ in scalars:
        sig.append(d)
    if aligned:
        for node, _ in outputs:
            if node.dtype in MULTI_WORD or has_loop(node):
                aligned = False
                break
    sig.append(len(outputs))
    sig.append(len(scalars))
    sig.append(len(shape))
    sig.append(aligned)
    sig = tuple(sig)
    plan = device.plans.get(sig)
    if plan is None:
        plan = _plan(device, shape, outputs, inputs, scalars, where, aligned)
        device.keep_plan(sig, plan)
    return plan, aligned, words, buffers


def issue(device, shape, plan, aligned, words, buffers, scalars, outputs: int):
    """Launch a plan of ``plain_plan`` (or one kept by the graph's quick path) over new
    output records: words are the count's slot and the inputs' offsets in elements,
    buffers the inputs' distinct buffers in binding order. Returns the outputs."""
    global launches
    uses_shape, uses_index, kid, grid_for, key, make, empties, packer = plan
    n = math.prod(shape)
    if aligned:
        words[0] = n >> 2
        for i in range(1, len(words)):
            words[i] >>= 2
    else:
        words[0] = n
    if uses_shape:
        words[1:1] = shape
    words += [0] * outputs
    for d, v in scalars:  # a float32 scalar goes in as it is: the packer's "f" rounds it
        if d is _F32:
            words.append(v)
        else:
            words += lanes.scalar_words(d, v)
    if uses_index:
        words.append(0)
    try:
        uniforms = packer.pack(*words)
    except (struct.error, OverflowError):  # negative words, or a float past float32's range
        uniforms = _pack_words(words, scalars, uses_index)
    contiguous = _C_STRIDES.get(shape) or tensor.c_strides(shape)
    results, bound, handles = [], [], []
    for new in empties:
        r = new(shape, contiguous, buffers)
        results.append(r)
        bound.append(r._b)
    launches += 1
    grids = device.grids
    grid = grids.get((n, aligned))
    if grid is None:
        grid = grid_for(n, aligned, device.executor.max_workgroups_per_dim)
        if len(grids) < 4096:
            grids[(n, aligned)] = grid
    big = device._piece_bytes
    for b in bound:  # (the inputs' buffers fit one binding: plain_plan and the graph check)
        if b.nbytes > big:  # a pooled output buffer of a larger size class: in pieces
            device.launch(key, make, bound + buffers, uniforms, grid)
            return results
        handles.append(b.handle)
    for b in buffers:
        handles.append(b.handle)
    if recording is not None:
        recording.hold(bound + buffers)
    device.executor.dispatch(kid, handles, uniforms, grid)
    return results


def _plan(device, shape, outputs, inputs, scalars, where, aligned):
    """What ``plain`` keeps per signature: whether the kernel reads the shape and the
    element index, its compiled id, the grid function, its key and source maker (for a launch
    in pieces), a maker of each output record, and the uniforms' packer (u32 words in
    ``uniform_layout``'s order, a float32 scalar as "f")."""
    slots = [(a._dtype, where[id(a._b if a._b is not None else a._buf)]) for a in inputs]
    spec = ew.ElementwiseSpec(
        inputs=tuple((d, ew.Operand(b, strided=False)) for d, b in slots),
        scalars=tuple(d for d, _ in scalars),
        outputs=tuple((node, ew.Operand(k + 1, strided=False))
                      for k, (node, _) in enumerate(outputs)),
        writable=(True,) * len(outputs) + (False,) * len(where),
        ndim=len(shape),
        vec4=aligned,
    )
    if not spec.uses_shape and spec.ndim != 1:  # flat: one kernel for every rank
        spec = ew.ElementwiseSpec(spec.inputs, spec.scalars, spec.outputs, spec.writable, 1,
                                  aligned)
    gen = device.kernels.elementwise
    key, make = ("ew", spec.key), (lambda: gen.generate(spec))
    empties = tuple(tensor.maker(node.dtype, device) for node, _ in outputs)
    _, _, _, scalars_at, end = ew.uniform_layout(spec)
    head = scalars_at[0] if scalars_at else end  # the words before the scalars
    fmt = "I" * head + "".join("f" if d is _F32 else "I" * lanes.words(d) for d, _ in scalars)
    packer = struct.Struct("<" + fmt + "I" * spec.uses_index)
    return (spec.uses_shape, spec.uses_index, device.kernel(key, make), gen.grid_for, key, make,
            empties, packer)


def _pack_words(words, scalars, uses_index) -> bytes:
    """plain's uniforms where its packer refused them: every word as u32 (negative ones as
    their two's complement), the scalars by ``lanes.scalar_words`` (which rounds a float past
    the largest float32 to infinity)."""
    head = len(words) - uses_index - sum(lanes.words(d) for d, _ in scalars)
    out = [w & 0xFFFFFFFF for w in words[:head]]
    for d, v in scalars:
        out += lanes.scalar_words(d, v)
    out += [0] * uses_index
    return struct.pack(f"<{len(out)}I", *out)


_F32 = dt.float32


def kernel(device, key, make_source, records, uniforms: bytes, groups: int) -> None:
    """One kernel over whole records' buffers, ``groups`` workgroups folded into a grid."""
    device.launch(key, make_source, [r._buf for r in records], uniforms,
                  fold(groups, device.executor.max_workgroups_per_dim))


def batches(device, key, make_source, records, count: int, pack, tile=None) -> tuple:
    """One kernel over ``count`` independent problems in dispatches of at most
    ``max_workgroups_per_dim`` problems: one workgroup each along x, or, with ``tile``, a
    (gx, gy) grid of workgroups each, the problems along z. ``pack(first)`` gives the
    uniforms of the dispatch whose first problem is ``first``. Returns the dispatches'
    (uniforms, grid), for a caller that keeps them to replay over other buffers."""
    limit = device.executor.max_workgroups_per_dim
    buffers = [r._buf for r in records]
    launches = []
    for z0 in range(0, count, limit):
        n = min(limit, count - z0)
        launches.append((pack(z0), (n, 1, 1) if tile is None else tile + (n,)))
    for uniforms, grid in launches:
        device.launch(key, make_source, buffers, uniforms, grid)
    return tuple(launches)


def repeat(device, key, make_source, records, uniforms, grid) -> None:
    """One kernel over the same whole records' buffers once per entry of ``uniforms``, in
    order (the rounds of a Jacobi sweep): the kernel, the buffers and the piece check are
    looked up once, the dispatches recorded by one ``dispatch_many``."""
    buffers = [r._buf for r in records]
    if lease.LEASES:
        lease.settle(buffers=buffers)
    limit = device._piece_bytes
    if any(b.nbytes > limit for b in buffers):
        for u in uniforms:
            device.launch(key, make_source, buffers, u, grid)
        return
    if recording is not None:
        recording.hold(buffers)
    kid = device.kernel(key, make_source)
    device.executor.dispatch_many(kid, [b.handle for b in buffers], uniforms, grid)


def piece_bytes(executor) -> int:
    """Buffers larger than this send a launch through ``launch`` below."""
    if not getattr(executor, "binding_ranges", False):
        return executor.max_binding_size
    cpu = "CPU" in executor.adapter_info.get("adapter_type", "").upper()
    return min(executor.max_binding_size, min(PIECE_BYTES, CPU_PIECE_BYTES) if cpu else PIECE_BYTES)


def pieces(device, key, make_source, buffers, uniforms: bytes, grid) -> None:
    if lease.LEASES:
        lease.settle(buffers=buffers)
    ex = device.executor
    if recording is not None:
        recording.hold(buffers)
    cap = piece_bytes(ex)
    planner = _PLANNERS.get(key[0]) if getattr(ex, "binding_ranges", False) else None
    plan = planner(device, key, buffers, uniforms, cap) if planner else f"{key[0]} kernels"
    if isinstance(plan, str):
        big = [b.nbytes for b in buffers if b.nbytes > ex.max_binding_size]
        if big:
            raise BindingTooLarge(
                f"a {key[0]!r} kernel would bind {max(big)} bytes of one buffer, above this "
                f"device's {ex.max_binding_size}-byte storage-binding limit, and it cannot "
                f"run in pieces ({plan}); split the array, or use a device with a larger "
                "maxStorageBufferBindingSize"
            )
        ex.dispatch(device.kernel(key, make_source), [b.handle for b in buffers], uniforms, grid)
        return
    for step in plan:
        if not callable(step):
            for b in step[0]:
                if isinstance(b, tuple) and b[2] > ex.max_binding_size:  # never record what fails
                    raise BindingTooLarge(
                        f"a {key[0]!r} kernel would bind {b[2]} bytes of one buffer in one "
                        f"piece, above this device's {ex.max_binding_size}-byte "
                        "storage-binding limit")
    kid = device.kernel(key, make_source)
    for step in plan:
        if callable(step):  # e.g. copy a piece's partial results into place
            step()
        else:
            ex.dispatch(kid, *step)


# -- helpers ---------------------------------------------------------------------------------

def _words(uniforms: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(uniforms) // 4}I", uniforms))


def _signed(w: int) -> int:
    return w - (1 << 32) if w >= 1 << 31 else w


def _pack(words) -> bytes:
    return struct.pack(f"<{len(words)}I", *(w & 0xFFFFFFFF for w in words))


def _span(dims) -> tuple[int, int]:
    """Lowest and highest element offset of a box of (size, stride) dims from its base."""
    lo = hi = 0
    for n, s in dims:
        if n > 1:
            lo += min(0, (n - 1) * s)
            hi += max(0, (n - 1) * s)
    return lo, hi


def _window(lo: int, hi: int, unit: int, align: int, nbytes: int) -> tuple[int, int]:
    """(offset, size) in bytes of the aligned range holding units lo..hi of a buffer."""
    start = lo * unit // align * align
    end = min(nbytes, (hi + 1) * unit)
    return start, (end - start + 3) // 4 * 4


def _dtype_words(name: str) -> int:
    return _WIDE.get(name, 1)


_STRUCTURES: dict[int, tuple] = {}


def _structure(node_key: int) -> tuple:
    """The structure a hash-consed node key stands for (kernels/expr.py)."""
    found = _STRUCTURES.get(node_key)
    if found is None:
        # a copy: another thread may intern new structures meanwhile
        _STRUCTURES.update((v, k) for k, v in dict(expr._KEYS).items())
        found = _STRUCTURES[node_key]
    return found


def _node_dtype(node_key: int) -> str:
    st = _structure(node_key)
    return st[{"op": 3, "in": 2, "sc": 2, "gather": 2, "idx": 1, "cast": 1, "uout": 2}[st[0]]]



# -- elementwise -----------------------------------------------------------------------------

def _plan_elementwise(device, key, buffers, uniforms: bytes, cap: int):
    ex = device.executor
    spec_key = key[1]
    inputs, _scalars, outputs, _writable, ndim, vec4 = spec_key[:6]
    # a buffer gathered from or scattered into (at indices the kernel computes) is bound
    # whole in every piece; the other operands are cut as usual
    raw = {o.binding for _, o in inputs if o.raw} | {o[1].binding for o in outputs if o[1].raw}
    if any(buffers[b - 1].nbytes > ex.max_binding_size for b in raw):
        return "it gathers or scatters through a buffer above one binding"
    uses_shape = ew._USES_SHAPE.get(spec_key)
    has_index = ew._USES_INDEX.get(spec_key)
    if uses_shape is None or has_index is None:
        return "its uniform layout is unknown"
    words = _words(uniforms)
    n = words[0]
    pos = 1
    shape_words = []
    if uses_shape:
        shape_words = words[1:1 + ndim]
        pos += ndim
    # a vec4 kernel never computes coordinates (its shape words, if any, stay as they are)
    shape = list(shape_words) if uses_shape and not vec4 else [n]
    pad = int(not shape)  # a 0-d launch: one dimension of size 1 that its uniforms lack
    if pad:
        shape = [1]
    operands = []  # (binding, unit bytes, offset, strides) over ``shape``; raw: strides None
    for opnd, dtype in [(o, d) for d, o in inputs] + [(o[1], _node_dtype(o[0])) for o in outputs]:
        off = words[pos]
        pos += 1
        if opnd.raw:
            operands.append((opnd.binding, 4 * _dtype_words(dtype), off, None))
            continue
        if opnd.strided or pad:
            strides = [_signed(w) for w in words[pos:pos + ndim]] + [0] * pad
            pos += ndim if opnd.strided else 0
        else:
            strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
        unit = 16 if vec4 else 4 * _dtype_words(dtype)
        operands.append((opnd.binding, unit, off, strides))
    tail = words[pos:]  # scalar words, then the first element's index if it is read
    if n == 0:
        return "it is empty"
    align = ex.binding_alignment
    # the largest block along dimension d whose footprint fits every operand
    d, k = None, 0
    for dim in range(len(shape)):
        best = shape[dim]
        for _, unit, _off, strides in operands:
            if strides is None:
                continue
            lo, hi = _span([(1, 0)] + [(shape[e], strides[e]) for e in range(dim + 1, len(shape))])
            room = (cap - align) // unit - (hi - lo + 1)
            if room < 0:
                best = 0
                break
            s = abs(strides[dim])
            if s:
                best = min(best, room // s + 1)
        if best >= 1:
            d, k = dim, best
            break
    if d is None:
        return "one element of it exceeds the piece size"
    if d == 0 and k >= shape[0]:
        blocks = [((), 0, shape[0])]  # one piece: only rebase the offsets
    else:
        outer = shape[:d]
        count = math.prod(outer) * -(-shape[d] // k)
        if count > _MAX_PIECES:
            return f"it would take {count} pieces"
        blocks = []
        for flat in range(math.prod(outer)):
            coords = []
            for size in reversed(outer):
                coords.append(flat % size)
                flat //= size
            coords.reverse()
            for b0 in range(0, shape[d], k):
                blocks.append((tuple(coords), b0, min(k, shape[d] - b0)))
    per = ew.VEC4_PER_THREAD if vec4 else 1
    plan = []
    for coords, b0, kb in blocks:
        sub = [1] * d + [kb] + shape[d + 1:]
        count = math.prod(sub)
        bases = []
        ranges: dict[int, list[int]] = {}
        for binding, unit, off, strides in operands:
            if strides is None:  # raw: its words stay, its buffer is bound whole
                bases.append(off)
                continue
            base = off + sum(c * s for c, s in zip(coords, strides)) + b0 * strides[d]
            lo, hi = _span([(n_, s) for n_, s in zip(sub, strides)])
            r = ranges.setdefault(binding, [base + lo, base + hi, unit])
            r[0], r[1] = min(r[0], base + lo), max(r[1], base + hi)
            bases.append(base)
        windows = {}
        for binding, (lo, hi, unit) in ranges.items():
            buf = buffers[binding - 1]
            windows[binding] = _window(lo, hi, unit, align, buf.nbytes)
        for binding in raw:
            windows[binding] = (0, buffers[binding - 1].nbytes)
        new = [count]
        if uses_shape:
            new += shape_words if vec4 else sub[pad:]
        for (binding, unit, _off, strides), (opnd, base) in zip(
                operands, zip([o for _, o in inputs] + [o[1] for o in outputs], bases)):
            new.append(base if opnd.raw else base - windows[binding][0] // unit)
            if opnd.strided:
                new += strides[pad:]
        new += tail
        if has_index:  # the piece is one run of the output's flat (C-order) indices
            first = sum(c * math.prod(shape[e + 1:]) for e, c in enumerate(coords))
            new[-1] = (first + b0 * math.prod(shape[d + 1:])) * (4 if vec4 else 1)
        bindings = [(b.handle,) + windows[i + 1] for i, b in enumerate(buffers)]
        plan.append((bindings, _pack(new), fold(-(-count // (ew.WORKGROUP * per)),
                                                ex.max_workgroups_per_dim)))
    return plan


# -- reductions ------------------------------------------------------------------------------

def _plan_reduction(device, key, buffers, uniforms: bytes, cap: int):
    ex = device.executor
    _, combine, mapping, in_name, acc_name, out_name, final, _t, vec4, per_thread = key[:10]
    arg = combine in ("argmin", "argmax")
    if mapping == "pairs":
        return "it reduces partial results of an arg reduction"
    w = _words(uniforms)
    M, N, C, S = w[0], w[1], w[2], w[3]
    offset, stride, fold_rows, aux = _signed(w[9]), _signed(w[10]), w[11], w[12]
    nd = w[14]
    dims = [(w[15 + 2 * i], _signed(w[16 + 2 * i])) for i in range(nd)]
    unit = 16 if vec4 else 4 * _dtype_words(in_name)
    loads = per_thread // (4 if vec4 else 1)
    align = ex.binding_alignment
    values = buffers[0]
    # every other buffer (means, output, partial indices) is bound whole
    if any(b.nbytes > ex.max_binding_size for b in buffers[1:]):
        return "its output is itself above the limit"
    whole = [(b.handle, 0, b.nbytes) for b in buffers[1:]]
    room = (cap - align) // unit

    def piece(first, row_dims, cols, rows, chunks, out_at, grid_groups, aux_at):
        lo, hi = _span(row_dims + [(cols, stride)])
        start, size = _window(first + lo, first + hi, unit, align, values.nbytes)
        words = list(w)
        words[0], words[1], words[2] = rows, cols, chunks
        words[9] = first - start // unit
        words[12] = aux_at
        words[14] = len(row_dims)
        words[15:] = [x for d in row_dims for x in d]
        bindings = [(values.handle, start, size)]
        for (h, _, nbytes), where in zip(whole, out_at):
            bindings.append((h, where, nbytes - where) if where is not None else (h, 0, nbytes))
        return bindings, _pack(words), fold(-(-grid_groups // (rk.WORKGROUP // S)),
                                             ex.max_workgroups_per_dim)

    lo, hi = _span(dims + [(N, stride)])
    if hi - lo + 1 <= room:  # one piece: bind only the view's footprint
        return [piece(offset, dims, N, M, C, [None] * len(whole), M * C, aux)]
    names = ["values"] + (["means"] if mapping == "sqdev" else []) + ["out"] + (
        ["out_indices"] if arg and not final else [])
    out_bytes = 4 * _dtype_words(out_name if final else acc_name)

    def out_offsets(first_row: int, first_chunk: int = 0):
        at = first_row * (1 if final else C) + first_chunk
        return [None if nm in ("values", "means") else at * (4 if nm == "out_indices" else out_bytes)
                for nm in names[1:]]

    if M == 1:
        if arg:
            return "argmin/argmax over one row longer than the piece size"
        if final:
            return "a one-chunk reduction of a sparse view"
        per_chunk = S * loads * max(1, abs(stride))
        block = (room - S * loads) // per_chunk // 8 * 8
        if block < 8:
            return "its chunks are too far apart"
        plan = []
        for c0 in range(0, C, block):
            nb = min(block, C - c0)
            cols0 = c0 * S * loads
            cols = min(N - cols0, nb * S * loads)
            plan.append(piece(offset + cols0 * stride, [], cols, 1, nb, out_offsets(0, c0), nb, aux))
        return plan
    if fold_rows != 1 or not dims:
        return _column_blocks(device, key, buffers, w, cap) or "its rows continue one another"
    size0, s0 = dims[0]
    inner = dims[1:]
    ilo, ihi = _span(inner + [(N, stride)])
    step = 8 // math.gcd(math.prod(n for n, _ in inner), 8)  # keeps first rows multiples of 8
    k = size0 if not s0 else (room - (ihi - ilo + 1)) // abs(s0) + 1
    k = min(size0, k) // step * step
    if k < 1:
        return (_column_blocks(device, key, buffers, w, cap)
                or "a block of its rows is longer than the piece size")
    inner_rows = math.prod(n for n, _ in inner)
    if -(-size0 // k) > _MAX_PIECES:
        return "it would take too many pieces"
    plan = []
    for k0 in range(0, size0, k):
        kb = min(k, size0 - k0)
        r0 = k0 * inner_rows
        rows = kb * inner_rows
        plan.append(piece(offset + k0 * s0, [(kb, s0)] + inner, N, rows, C,
                          out_offsets(r0), rows * C, aux + r0))
    return plan


_PLANNERS = {"ew": _plan_elementwise, "reduce": _plan_reduction}


def _column_blocks(device, key, buffers, w: list[int], cap: int):
    """Blocks of chunks over all rows of a reduction pass, each into a temporary (M, B)
    partials array copied into columns of the pass's (M, C) partials; None if impossible."""
    ex = device.executor
    _, combine, mapping, in_name, acc_name, _out, final, _t, vec4, per_thread = key[:10]
    if final or combine in ("argmin", "argmax"):
        return None
    M, N, C, S = w[0], w[1], w[2], w[3]
    offset, stride = _signed(w[9]), _signed(w[10])
    dims = [(w[15 + 2 * i], _signed(w[16 + 2 * i])) for i in range(w[14])]
    unit = 16 if vec4 else 4 * _dtype_words(in_name)
    loads = per_thread // (4 if vec4 else 1)
    align = ex.binding_alignment
    room = (cap - align) // unit
    lo, hi = _span(dims)
    width = S * loads  # columns of one chunk
    block = (room - (hi - lo + 1)) // max(1, width * abs(stride))
    if block < 1:
        return None
    acc = getattr(dt, acc_name)
    values, out = buffers[0], buffers[-1]
    means = [(b.handle, 0, b.nbytes) for b in buffers[1:-1]]
    steps: list = []
    for c0 in range(0, C, block):
        nb = min(block, C - c0)
        cols0 = c0 * width
        cols = min(N - cols0, nb * width)
        first = offset + cols0 * stride
        plo, phi = _span(dims + [(cols, stride)])
        start, size = _window(first + plo, first + phi, unit, align, values.nbytes)
        temp = tensor.empty((M, nb), acc, device)
        words = list(w)
        words[1], words[2], words[9] = cols, nb, first - start // unit
        bindings = [(values.handle, start, size)] + means + [temp._buf.handle]
        steps.append((bindings, _pack(words),
                      fold(-(-(M * nb) // (rk.WORKGROUP // S)), ex.max_workgroups_per_dim)))

        def place(temp=temp, c0=c0, nb=nb):
            into = tensor.view(out, acc, (M, nb), (C, 1), c0, device)
            elementwise(device, (M, nb), [(Input(0, acc), into)], [temp])

        steps.append(place)
    return steps
