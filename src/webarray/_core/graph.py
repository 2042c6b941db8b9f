"""The lazy elementwise graph (core layer), and its lowering to kernels.

Elementwise functions describe their result as an expression DAG (kernels/expr.py) over
input arrays and scalars and call ``execute``. With fusion on (the default; see
``webarray.fusion``), a single-output result is not computed there: it becomes a *pending*
array that holds a ``Lazy`` node, and a pending operand of the same shape is inlined into
its consumer's node instead of being read from memory. A pending array is lowered to one
kernel when something needs its buffer (a readback, a non-elementwise consumer, a view),
when its chain grows past ``MAX_DEPTH``, or at an explicit flush. The kernel also writes
every other live pending array whose value is a node of the same DAG (so ``t = a * b;
u = t + 1`` computes ``t`` once even if both are used later), shared subexpressions are
computed once, and the kernel is cached by the DAG's structure, never its values.

Writes into existing buffers keep their meaning: an in-place op on a pending array just
replaces its node; on an array that is its buffer's only view, it rebinds the array to a
pending node that reads the old buffer; any other write first lowers every pending array
of the device, since one of them may read the buffer about to change.

A kernel is run by ``launch.elementwise`` (launch.py), which binds each operand's view,
chooses its access mode (contiguous, strided, vec4) and dispatches the cached kernel of
that structure.

Threads and interrupts: the entry points that read or change pending arrays (``execute``,
``run``, ``materialize``, ``flush``, ``set_fusion``) hold ``guard.LOCK`` and are
``@critical``: a Ctrl-C waits until they return, so a node is never half turned into a
leaf and an array never holds a buffer whose kernel was not recorded.
"""

from __future__ import annotations

import itertools
import math
import os
import weakref

from ..executors import guard, pool
from ..executors.guard import LOCK, critical
from .. import _dtypes as _dt
from ..kernels.expr import Apply, Cast, Index, Input, LoopOut, Node, Scalar
from ..kernels.expr import apply as _apply_node, slot as _slot_node
from ..kernels.expr import APPLIES, SLOTS
from ..kernels import lanes
from . import fold as _fold, launch, lease, storage, tensor
from .launch import MULTI_WORD, elementwise as _launch, issue as _issue, plain_plan as _plain_plan
from .tensor import c_strides, is_contiguous


@critical
def execute(device, shape, outputs, inputs=(), scalars=(), raw_inputs=()):
    """The output arrays of one elementwise kernel: pending when fusion allows it.

    outputs: list of (node, out) where out is None (a new C-contiguous array of ``shape``
    and the node's dtype is made), a record of ``shape`` to write into, or
    ``(array, index_node)`` to scatter into ``array``'s buffer at the word index the node
    computes. inputs: arrays for Input slots, broadcast to ``shape`` (or read raw through
    Gather nodes when their slot is in raw_inputs). scalars: (dtype, value) per Scalar slot.
    """
    shape = tuple(shape)
    if lease.LEASES:  # NumPy's writes into lent copies of what this op writes into come first
        lease.settle(launch=False, buffers=lease.buffers_of(outputs=outputs))
    LOCK.acquire()  # not `with` (half the cost); @critical defers a SIGINT before the try
    try:
        if _fusion and len(outputs) == 1 and not raw_inputs and 0 not in shape:
            node, out = outputs[0]
            if out is None:
                root = _lift_op(node, inputs, scalars, shape) if type(node) in _ONE_OP else None
                if root is None:
                    root = _lift(node, inputs, scalars, shape)
                if root.depth == 1 and (len(inputs) == 1 and inputs[0]._b is not None
                                        or all(a._b is not None for a in inputs)):
                    # every operand is computed: keep the namespace's expression and the
                    # leaves' views, so computing this array alone launches exactly what
                    # eager would
                    root.expr = (node, [_leaf(a).value for a in inputs], scalars)
                return [_pending(device, shape, root)]
            if (not isinstance(out, tuple) and out._shape == shape and node.dtype is out._dtype
                    and _rebindable(out)):
                root = _lift_op(node, inputs, scalars, shape) if type(node) in _ONE_OP else None
                if root is None:
                    root = _lift(node, inputs, scalars, shape)
                return [_rebind(out, root)]
        return _run(device, shape, outputs, inputs, scalars, raw_inputs)
    finally:
        LOCK.release()
        if guard._deferred:  # Pyodide: a Ctrl-C that arrived while the op was recorded
            guard.deliver()


@critical
def apply(device, shape, node: Apply | Cast, inputs, scalars):
    """``execute(device, shape, [(node, None)], inputs, scalars)[0]`` for the namespace's
    common case, on its hot path: node applies one op to Input and Scalar slots (each input
    slot read by one argument), or casts an Input (astype), every input has ``shape``, none
    is empty, and the result dtype is one of the device's. With fusion on it only builds the
    pending array: one Lazy node over the inputs' nodes, no memo, no list of views (a one-op
    node over computed arrays finds them in its arguments, ``_expr_views``)."""
    if not _fusion or 0 in shape:
        if 0 not in shape and not lease.LEASES and not device.staged:
            # eager: the launch's common case (launch.plain) without execute's frames
            LOCK.acquire()
            try:
                out = launch.plain(device, shape, [(node, None)], inputs, scalars)
                if out is not None:
                    return out[0]
            finally:
                LOCK.release()
                if guard._deferred:
                    guard.deliver()
        return execute(device, shape, [(node, None)], inputs, scalars)[0]
    if type(node) is Cast:
        kind, xs, op, compute = "cast", (node.arg,), None, None
    else:
        kind, xs, op, compute = "op", node.args, node.op, node.compute
        if compute in _WIDE_FLOATS:
            _wide_op()
    LOCK.acquire()
    try:
        args = []
        depth = 0
        for x in xs:
            if type(x) is Input:
                a = inputs[x.slot]
                n = a._lazy
                if a._b is None:  # depth 2 at least: 1 says every operand is computed
                    e = n.depth + 1 if n.depth else 2
                    if e > depth:
                        depth = e
                else:
                    if n is None:
                        n = _leaf(a)
                    if depth == 0:
                        depth = 1
            else:
                dtype, value = scalars[x.slot]
                n = _SCALARS.get((dtype, type(value), value))
                if n is None:
                    n = _scalar(dtype, value)
                if depth == 0:
                    depth = 1
            args.append(n)
        root = Lazy.__new__(Lazy)
        root.kind, root.dtype, root.args, root.op, root.compute = (
            kind, node.dtype, tuple(args), op, compute)
        root.value = root.owner = root.error = None
        root.depth = depth
        root.seq = next(_SEQ)
        if _fold.made:  # (a loop's continuation, in the order made: fold.recent)
            _recent(root)
        # every operand computed: computing this array alone launches exactly what eager would
        root.expr = (node, None, scalars) if depth == 1 else None
        strides = _C_STRIDES.get(shape)
        if strides is None:
            strides = _strides(shape)
        arr = tensor.pending(root, shape, strides, device)
        root.owner = ref = weakref.ref(arr)
        _PENDING.append(ref)
        if len(_PENDING) > _prune_at:
            _prune()
        if depth > MAX_DEPTH:
            _bound(arr)
        return arr
    finally:
        LOCK.release()
        if guard._deferred:  # Pyodide: a Ctrl-C that arrived while the op was recorded
            guard.deliver()


@critical
def apply_into(device, shape, node: Apply, inputs, scalars, out):
    """``execute(device, shape, [(node, out)], inputs, scalars)[0]`` for ``x op= y`` on its
    hot path: node as for ``apply``, out (inputs[0]) of ``shape`` and the node's dtype. With
    fusion on and out pending or its buffer's only whole view (``_rebindable``), out is
    rebound to the op's new pending node, as ``execute`` does; else ``execute`` runs it."""
    if not _fusion or 0 in shape or lease.LEASES:
        return execute(device, shape, [(node, out)], inputs, scalars)[0]
    LOCK.acquire()
    try:
        if not _rebindable(out):
            return execute(device, shape, [(node, out)], inputs, scalars)[0]
        return _rebind(out, _lift_op(node, inputs, scalars, shape))
    finally:
        LOCK.release()
        if guard._deferred:  # Pyodide: a Ctrl-C that arrived while the op was recorded
            guard.deliver()


@critical
def run(device, shape, outputs, inputs=(), scalars=(), raw_inputs=()):
    """Run one elementwise kernel now (see ``execute``), whatever the fusion setting: the
    path for nodes that cannot be lazy (user kernels) and for writes into existing arrays."""
    with LOCK:
        return _run(device, shape, outputs, inputs, scalars, raw_inputs)


def _run(device, shape, outputs, inputs, scalars, raw_inputs):
    if _PENDING and any(out is not None for _, out in outputs):
        # a write into an existing buffer: no pending array may still be waiting to read it
        flush(device)
    return _launch(device, tuple(shape), outputs, inputs, scalars, raw_inputs)


def bindable(arr, strided: bool = False):
    """arr, or a C-contiguous copy of its elements when a kernel could not bind it as it is:
    it is strided (unless the kernel takes ``strided`` views), or it is part of a buffer
    larger than one binding (the copy is an elementwise kernel, which binds only the range
    the view reads: launch.py). For the kernel families that bind whole buffers (sort, scan,
    matmul, fft, gathers)."""
    if arr._b is None:
        materialize([arr])
    piece = arr._device._piece_bytes
    if arr._buf.nbytes > piece:
        if math.prod(arr._shape) * 4 * lanes.words(arr._dtype) <= piece:
            return copy_of(arr)
        return arr  # too large for one binding even alone: the launch raises BindingTooLarge
    return arr if strided or is_contiguous(arr._shape, arr._strides) else copy_of(arr)


def copy_of(arr, dtype=None):
    """A new C-contiguous array with arr's values (converted to dtype)."""
    key = (arr._dtype, dtype)
    node = _COPIES.get(key)
    if node is None:
        node = _slot_node(Input, 0, arr._dtype)
        if dtype is not None and dtype is not arr._dtype:
            node = Cast(node, dtype)
        _COPIES[key] = node
    if dtype is not None and dtype is not arr._dtype and dtype in arr._device.dtypes:
        return apply(arr._device, arr._shape, node, [arr], ())  # (astype's hot path)
    return execute(arr._device, arr._shape, [(node, None)], [arr])[0]


_COPIES: dict = {}  # copy_of's node per (dtype, target dtype)
_ONE_OP = (Apply, Cast)  # the nodes _lift_op lifts


def table_op(op: str, records, scalars=()):
    """The op of the op table over same-shaped records of one dtype, then scalars ((dtype,
    value)), with a result of that dtype."""
    a = records[0]
    args = [Input(i, b.dtype) for i, b in enumerate(records)]
    args += [Scalar(i, d) for i, (d, _) in enumerate(scalars)]
    node = Apply(op, tuple(args), a.dtype, a.dtype)
    return execute(a.device, a.shape, [(node, None)], list(records), list(scalars))[0]


def host_bytes(t) -> bytes:
    """The stored bytes of t's values, flat in C order (storage.py): one readback."""
    if lease.LEASES:  # written back, but a readback leaves this thread's leases open
        lease.settle(close=False)
        with lease.reading():
            return _host_bytes(t)
    return _host_bytes(t)


def _host_bytes(t) -> bytes:
    src = t if is_contiguous(t._shape, t._strides) else copy_of(t)
    width = storage.element_bytes(t._dtype)
    return t._device.executor.read(src._buf.handle, src._offset * width, t.size * width)


def host_values(t) -> list:
    """t's values as Python values (bool, int, float, complex), flat in C order."""
    return storage.decode(host_bytes(t), t._dtype)


# -- the lazy graph ---------------------------------------------------------------------------

MAX_DEPTH = 32  # a longer chain is lowered: keeps kernels and their compile times small
# float64 and complex128 functions that are software on every lane (a log, an exp or a sine
# in double-double: ~20 KB of WGSL with their helpers, inlined by the compiler) are each
# computed in a kernel of their own, from computed arguments (_isolate): such a kernel
# depends only on the function, its dtypes and its operands' layout, so it compiles once
# per process whatever expression the call sits in. Inlined, every new expression around
# an exp paid lavapipe's LLVM ~4 s again, and seven pows in one of SciPy's f_oneway
# kernels ~100 s.
_HEAVY = frozenset({"exp", "expm1", "log", "log1p", "log2", "log10", "pow", "sin", "cos", "tan",
                    "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
                    "atanh", "logaddexp", "hypot"})
_WIDE_FLOATS = frozenset({_dt.float64, _dt.complex128})
# whether an op node computing in one of _WIDE_FLOATS was ever made: until then no DAG can
# hold a heavy node, and computing skips the walk that looks for them (_heavy_nodes)
_wide_made = False
# buffers one fused kernel may bind: the device's storage buffers per shader stage (8 on
# every WebGPU device, often more), less the one that carries the uniforms, and at most 16
MAX_BINDINGS = 16

_fusion = os.environ.get("WEBARRAY_FUSION", "1") != "0"
# weak references to the pending arrays of every device, oldest first; references of arrays
# computed or gone since are dropped in bulk (_prune), not one by one
_PENDING: list[weakref.ref] = []
_prune_at = 64  # _PENDING's length at which the references of computed and dead arrays go
_C_STRIDES: dict = {}  # C-contiguous strides of the shapes seen (a bounded cache)
_SEQ = itertools.count()  # Lazy.seq: nodes in the order they were made (fold.py reads it)
_recent = _fold.recent.append  # op and cast nodes made while a loop may continue (fold.py)
pool.BEFORE_ACQUIRE.append(_fold.forget)  # (no node kept past a buffer allocation)


def _wide_op() -> None:
    global _wide_made
    _wide_made = True


def _track(arr) -> weakref.ref:
    """Register a pending array; the weak reference returned also serves as its node's
    owner link. References are not removed one by one (a callback per array costs more than
    the array): computed and dead arrays' references go when the list has doubled."""
    ref = weakref.ref(arr)
    _PENDING.append(ref)
    if len(_PENDING) > _prune_at:
        _prune()
    return ref


def _prune() -> None:
    global _prune_at
    _PENDING[:] = [r for r in _PENDING if (a := r()) is not None and a._b is None]
    _prune_at = max(64, 2 * len(_PENDING))
    if not _PENDING:  # no pending DAG is left to hold a loop: computing skips fold.extend
        _fold.made = False
        _fold.forget()


def _strides(shape):
    strides = c_strides(shape)
    if len(_C_STRIDES) < 4096:
        _C_STRIDES[shape] = strides
    return strides


class Lazy:
    """A node of a pending expression: kind 'op', 'cast', 'scalar', 'index' or 'leaf', or
    'loop' and 'loopout' (whole-loop fusion, fold.py: a loop's ``value`` is its ``fold.Body``
    and its args its inits then the outside nodes the body reads; a loopout's ``value`` is
    the index of the state it reads, its one arg the loop).

    A leaf reads a view of a computed buffer (``value`` is a ``View``). When the array
    whose value a node is (its ``owner``) gets computed, the node turns into a leaf of the
    new buffer, so other pending expressions that share it read it instead of computing it
    again, and the chain behind it can be freed. ``depth`` bounds the chain; it may
    overestimate once nodes below have turned into leaves.
    """

    __slots__ = ("kind", "dtype", "args", "op", "compute", "value", "depth", "owner", "expr",
                 "error", "seq")

    def __init__(self, kind, dtype, args=(), op=None, compute=None, value=None):
        if lease.LEASES:  # NumPy's writes into this thread's lent copies of what it reads first
            lease.settle(launch=False, buffers=_leaf_buffers(kind, args, value))
        self.seq = next(_SEQ)
        self.expr = None  # a one-op node over computed arrays: the op's own expression
        self.error = None  # why computing it failed (flush leaves it pending)
        self.kind = kind
        self.dtype = dtype
        self.args = args
        self.op = op
        self.compute = compute
        self.value = value
        self.owner = None
        depth = 0
        for a in args:
            if a.depth >= depth:
                depth = a.depth + 1
        self.depth = depth
        if _fold.made and (kind == "op" or kind == "cast"):
            _recent(self)
        if compute in _WIDE_FLOATS:
            _wide_op()

    def realize(self, owner) -> None:
        """Compute owner, the pending record whose value this node is (Tensor._buf)."""
        materialize([owner])


class View:
    """A snapshot of an array's view (what a leaf reads), shaped like a record for binding."""

    # _b and _dtype as a computed record has them (launch.py reads records and views alike)
    __slots__ = ("_buf", "_b", "dtype", "_dtype", "_shape", "_strides", "_offset")

    def __init__(self, buf, dtype, shape, strides, offset):
        self._buf = self._b = buf
        self.dtype = self._dtype = dtype
        self._shape, self._strides, self._offset = shape, strides, offset

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def shape(self):
        return self._shape


def _leaf_buffers(kind, args, value) -> list:
    """The Buffers a new node reads directly: its own (a leaf), or its leaf arguments'."""
    if kind == "leaf":
        return [value._b]
    return [a.value._b for a in args if getattr(a, "kind", None) == "leaf"]


def _leaf(arr) -> Lazy:
    """The leaf reading arr (computed first if pending). A computed array keeps its leaf in
    ``_lazy``, so using it again costs nothing; a new buffer (rebinding) replaces it."""
    buf = arr._buf
    leaf = arr._lazy
    if leaf is None:
        leaf = arr._lazy = Lazy("leaf", arr._dtype, value=View(buf, arr._dtype, arr._shape,
                                                               arr._strides, arr._offset))
    return leaf


_SCALARS: dict = {}  # the shared scalar nodes, by (dtype, type, value) (_scalar)
_SHARED = (int, float)  # the Python types of the values whose nodes are shared


def _scalar(dtype, value, shared: bool = True) -> Lazy:
    """The node of a scalar operand. Nonzero ints and floats share one node per dtype and
    value (a bounded cache), so the iterations of a loop read the same node and fold.py
    compares them by identity; others get a node of their own (as keys 0.0 and -0.0 are
    equal, and complex numbers' signed zero parts too; bool is not int here). Sharing
    changes no kernel: a lowering gives every reading of a scalar node a slot of its own.
    A shared node is only ever an argument: an array's own node (a fill's root, not
    ``shared``) becomes the leaf of its buffer when the array is computed."""
    n = _SCALARS.get((dtype, type(value), value)) if shared else None
    if n is not None:
        return n
    n = Lazy.__new__(Lazy)  # Lazy("scalar", dtype, (), None, None, value), without its checks
    n.kind, n.dtype, n.args, n.op, n.compute, n.value = "scalar", dtype, (), None, None, value
    n.owner = n.expr = n.error = None
    n.depth = 0
    n.seq = next(_SEQ)
    if shared and type(value) in _SHARED and value:
        if len(_SCALARS) >= 1024:
            _SCALARS.clear()
        _SCALARS[(dtype, type(value), value)] = n
    return n


def _lift(node: Node, inputs, scalars, shape, memo=None) -> Lazy:
    """The Lazy node of one op's expression, with pending operands of the same shape inlined
    (operands of another shape are broadcast: computed first and read as leaves). The root
    is always a new node: a copy's value must not be the node of what it copies, which
    turns into a leaf of the copy's buffer when the copy is computed."""
    if memo is None:
        if isinstance(node, Input):
            return Lazy("cast", node.dtype, (_lift(node, inputs, scalars, shape, {}),))
        if isinstance(node, Scalar):  # (full, a fill: never a shared node, which other
            return _scalar(*scalars[node.slot], shared=False)  # DAGs read as a scalar)
        memo = {}
    r = memo.get(id(node))
    if r is None:
        n = node
        if isinstance(n, Input):
            a = inputs[n.slot]
            r = a._lazy if a._b is None and a._shape == shape else _leaf(a)
        elif isinstance(n, Apply):
            r = Lazy("op", n.dtype, tuple(_lift(x, inputs, scalars, shape, memo) for x in n.args),
                     n.op, n.compute)
        elif isinstance(n, Cast):
            r = Lazy("cast", n.dtype, (_lift(n.arg, inputs, scalars, shape, memo),))
        elif isinstance(n, Scalar):
            r = _scalar(*scalars[n.slot])
        elif isinstance(n, Index):
            r = Lazy("index", n.dtype)
        else:
            raise TypeError(f"{type(n).__name__} nodes are not lazy")
        memo[id(n)] = r
    return r


def _lift_op(node: Apply, inputs, scalars, shape) -> Lazy | None:
    """``_lift`` of one op over input and scalar slots (the namespace's common node), or of a
    cast of an input (astype), without its memo and recursion; None for any other node."""
    if type(node) is Cast:
        x = node.arg
        if type(x) is not Input:
            return None
        a = inputs[x.slot]
        return Lazy("cast", node.dtype,
                    (a._lazy if a._b is None and a._shape == shape else _leaf(a),))
    args = []
    for x in node.args:
        t = type(x)
        if t is Input:
            a = inputs[x.slot]
            args.append(a._lazy if a._b is None and a._shape == shape else _leaf(a))
        elif t is Scalar:
            args.append(_scalar(*scalars[x.slot]))
        else:
            return None
    return Lazy("op", node.dtype, tuple(args), node.op, node.compute)


def _rebind(out, root: Lazy):
    """out (``_rebindable``) holding root, a new node, as its pending value; out."""
    ref = out._lazy.owner if out._b is None else None
    if ref is None or ref() is not out:
        ref = _track(out)
        out._b = None
    out._lazy = root
    root.owner = ref
    if root.depth > MAX_DEPTH:
        _bound(out)
    return out


def _rebindable(out) -> bool:
    """Whether an in-place result may replace out's value lazily: out is pending, or is the
    one and only array over its whole buffer (nothing else can see the buffer change)."""
    buf = out._b
    if buf is None:
        return True
    return (buf.views == 1 and out._offset == 0
            and is_contiguous(out._shape, out._strides))


def _pending(device, shape, root: Lazy):
    if root.dtype not in device.dtypes:
        device.check_dtype(root.dtype)  # raises, saying which dtypes the device has
    strides = _C_STRIDES.get(shape)
    if strides is None:
        strides = _strides(shape)
    arr = tensor.pending(root, shape, strides, device)
    root.owner = _track(arr)
    if root.depth > MAX_DEPTH:
        _bound(arr)
    return arr


def _bound(arr) -> None:
    """Keep arr's chain within MAX_DEPTH (after correcting depths that leaves below have made
    stale): first by folding what repeats in it into a loop (fold.py), else by computing the
    other pending arrays of its shape, which in a loop are
    the named values its chain runs through (so the loop's state is written by one kernel
    and arr, often a temporary, is not), then if that was not enough by computing arr.
    Once a loop was folded, the fold comes first: a loop's continuation is folded into it
    and gets its depths anew, so the walk that corrects stale depths is needed only when
    that fails."""
    if _fold.made:
        if _fold.fold(arr, _same_shape) and arr._lazy.depth <= MAX_DEPTH:
            return
        deep = _depth(arr._lazy, {}) > MAX_DEPTH
    else:
        deep = _depth(arr._lazy, {}) > MAX_DEPTH and not (_fold.fold(arr, _same_shape)
                                                         and arr._lazy.depth <= MAX_DEPTH)
    if deep:
        for ref in list(_PENDING):
            other = ref()
            if (other is not None and other is not arr and other._b is None
                    and other._lazy.error is None and other._device is arr._device
                    and other._shape == arr._shape):
                _compute(other, exclude=arr)
                break
        if arr._b is None and _depth(arr._lazy, {}) > MAX_DEPTH:
            _compute(arr)


def _same_shape(arr) -> list:
    """The live pending arrays of arr's device and shape (arr among them)."""
    out = []
    for ref in _PENDING:
        other = ref()
        if (other is not None and other._b is None and other._device is arr._device
                and other._shape == arr._shape):
            out.append(other)
    return out


def _depth(n: Lazy, memo: dict) -> int:
    d = memo.get(id(n))
    if d is None:
        d = 0
        for a in n.args:
            e = _depth(a, memo) + 1 if a.args else 1  # leaves and scalars: 0, no call
            if e > d:
                d = e
        memo[id(n)] = n.depth = d
    return d


@critical
def materialize(arrays) -> None:
    """Compute pending arrays, each with the live pending arrays its DAG contains."""
    with LOCK:
        for arr in arrays:
            if arr._b is None:
                if arr._lazy.error is not None:
                    raise arr._lazy.error
                _compute(arr)


def _owner(n: Lazy):
    """The live pending array whose value node n is, if any."""
    ref = n.owner
    if ref is not None:
        arr = ref()
        if arr is not None and arr._lazy is n:
            return arr
    return None


def _scan(root: Lazy, seen: set, new: set | None = None):
    """The buffers, the live pending owners and the number of heavy nodes (_heavy_nodes)
    among the nodes under root not yet in seen (which receives them; or, given ``new``, new
    receives them and seen stays as it is)."""
    bufs, owners, heavy = set(), [], 0
    stack = [root]
    into = seen if new is None else new
    while stack:
        n = stack.pop()
        if id(n) in seen or id(n) in into:
            continue
        into.add(id(n))
        if n.kind == "leaf":
            bufs.add(id(n.value._buf))
            continue
        if n.kind == "op" and n.op in _HEAVY and n.compute in _WIDE_FLOATS:  # (_is_heavy,
            heavy += 1  # written out: every fused kernel's DAG is walked here)
        stack.extend(n.args)
        arr = _owner(n)
        if arr is not None:
            owners.append(arr)
    return bufs, owners, heavy


def _is_heavy(n: Lazy) -> bool:
    """Whether n applies a _HEAVY function in float64 or complex128."""
    return n.kind == "op" and n.op in _HEAVY and n.compute in _WIDE_FLOATS


def _heavy_nodes(root: Lazy) -> list:
    """The distinct nodes of root's DAG (root first, if it is one) for which _is_heavy holds."""
    out, seen, stack = [], set(), [root]
    while stack:
        n = stack.pop()
        if not n.args or id(n) in seen:
            continue
        seen.add(id(n))
        if _is_heavy(n):
            out.append(n)
        stack.extend(n.args)
    return out


def _isolate(target, heavy: list) -> bool:
    """Compute the heavy nodes under target's root, each in a kernel of its own; when the
    root is one of them, compute its arguments too, and say so: its kernel is then to hold
    its call alone."""
    root = target._lazy
    memo: dict = {}
    keys = [_structure(n, memo) for n in heavy]  # (before computing turns nodes into leaves)
    done: dict = {}  # the calls computed here, by what they compute
    for n, key in zip(heavy, keys):
        if n is not root and n.kind == "op":  # (not computed by an earlier one's kernel)
            twin = done.get(key)
            if twin is not None and twin.kind == "leaf" and _owner(n) is None:
                _to_leaf(n, twin.value)  # the same call twice (log(b) * log(b)): once
                continue
            _compute_node(n, target)
            done[key] = n
    if heavy[0] is root:
        _split(target)
        root.args = tuple([_plain_leaf(a, target) for a in root.args])
        return True
    return False


def _structure(n: Lazy, memo: dict):
    """What node n computes, as a hashable key: equal keys, equal values (the fused kernel's
    expression nodes are hash-consed the same way, so a call written twice ran once)."""
    key = memo.get(id(n))
    if key is None:
        if n.kind == "leaf":
            v = n.value
            key = ("leaf", id(v._buf), v._offset, v._strides, v._shape, n.dtype)
        elif n.kind == "scalar":
            key = ("scalar", n.dtype, repr(n.value))  # (repr: -0.0 is not 0.0 here)
        elif n.kind in ("op", "cast"):
            key = (n.kind, n.op, n.compute, n.dtype, tuple(_structure(a, memo) for a in n.args))
        else:  # (an index or a loop: by identity)
            key = ("node", id(n))
        memo[id(n)] = key
    return key


def _plain_leaf(a: Lazy, target) -> Lazy:
    """a, or when a is a leaf of a view that is not C-contiguous over target's shape (strided,
    broadcast), the leaf of a contiguous copy: a heavy call then has one kernel per dtypes."""
    if a.kind != "leaf":
        return a
    v = a.value
    if v._shape == target._shape and is_contiguous(v._shape, v._strides):
        return a
    return _compute_node(Lazy("cast", a.dtype, (a,)), target, alone=True)._lazy


def _compute(target, exclude=None, alone: bool = False) -> None:
    """One kernel that writes target, the live pending arrays that are nodes of its DAG, and
    other pending arrays of the same device and shape (but ``exclude``), as far as the
    bindings allow; only target when ``alone``."""
    device, shape = target._device, target._shape
    root = target._lazy
    only = _alone()  # nothing else pending (a forced result): no owners, no candidates
    if root.expr is not None and only and not _is_heavy(root):  # a single op
        if _quick(device, shape, target, root, _bindings(device)):  # (its kept plan)
            _settled()
            return
        node, views, scalars = root.expr
        if views is None:
            views = _expr_views(node, root)
        _finish([target], [root], _launch(device, shape, [(node, None)], views, scalars))
        _settled()
        return
    if _fold.made and not alone:  # whole iterations since the last fold join their loop
        _fold.extend(target)
    if _wide_made and not _WIDE_FLOATS.isdisjoint(device.dtypes):
        heavy = _heavy_nodes(root)
        if heavy and _isolate(target, heavy):
            alone = True
    limit = _bindings(device)
    if only:
        if _quick(device, shape, target, root, limit):
            _settled()
            return
        low = _Lowering()
        expr = low.node(root)
        if len(low.inputs) < limit:  # (views: at least as many as the buffers they bind)
            _finish([target], [root], _launch(device, shape, [(expr, None)], low.inputs,
                                             low.scalars))
            _settled()
            return
    seen: set = set()
    if exclude is not None:
        seen.add(id(exclude._lazy))
    bufs, owners, _ = _scan(target._lazy, seen)
    if len(bufs) + 1 > limit:
        _split(target)
        if target._b is None:
            _compute(target)
        return
    owners = [target] + [o for o in owners if o is not target]
    del owners[1 if alone else max(1, limit - len(bufs)):]
    # other pending arrays of the shape, newest first, while bindings are left: at most
    # _CANDIDATES of them looked at, so computing each of n pending arrays costs O(n) at most
    # (a flush of n is not quadratic in the DAGs' sizes)
    tried = 0
    for ref in [] if alone else reversed(_PENDING):
        if len(bufs) + len(owners) >= limit or tried >= _CANDIDATES:
            break
        other = ref()
        if (other is None or other._b is not None or other._lazy.error is not None
                or other._device is not device
                or other._shape != shape or id(other._lazy) in seen):
            continue
        tried += 1
        new: set = set()
        more_bufs, more_owners, more_heavy = _scan(other._lazy, seen, new)
        more_owners = [other] + [o for o in more_owners if o is not other]
        if (len(bufs | more_bufs) + len(owners) + len(more_owners) <= limit
                and not more_heavy):  # (a heavy call is computed alone)
            bufs |= more_bufs
            owners += more_owners
            seen |= new

    low = _Lowering()
    nodes = [o._lazy for o in owners]
    exprs = [low.node(n) for n in nodes]
    try:
        results = _launch(device, shape, [(e, None) for e in exprs], low.inputs, low.scalars)
    except Exception:
        if len(owners) == 1:
            raise
        # the failure may be another array's: let it surface where that array is needed
        return _compute(target, alone=True)
    _finish(owners, nodes, results)


def _flat_structure(root, shape, contiguous, big: int, aligned: bool):
    """A walk of root's DAG in the lowering's order (``_Lowering``): (the structure as a flat
    key list: each op's name, dtypes and arity, each leaf's slot, binding and dtype, each
    scalar's dtype, a node met again by its index; the launch's offset words (the count's
    slot, then each view's offset); the leaves' views; the scalars (dtype, value); the
    buffers; whether every offset is a multiple of 4 (``aligned`` as given, else False)),
    or None where a leaf is not a C-contiguous view of shape within one binding (``big``
    bytes) or a node is not an op, cast, scalar or leaf. ``_quick`` and
    ``elementwise_structure`` key their kept plans by it; ``_structure`` is another
    thing (a node's value as a key, to merge equal calls)."""
    key = [_QUICK, len(shape)]
    offsets = [0]  # (launch.issue's words: the count's slot, then each input's offset)
    views, scalars, buffers = [], [], []
    bindings, seen = {}, {}
    stack = [root]
    pop = stack.pop
    while stack:
        n = pop()
        kind = n.kind
        if kind == "leaf":
            v = n.value
            buf = v._buf
            b = bindings.get(id(buf))
            if b is None:  # a buffer not read yet, so a view not read yet: the common case
                if v._shape != shape or v._strides != contiguous or buf.nbytes > big:
                    return None  # (a buffer past one binding is bound by ranges: lowered)
                b = bindings[id(buf)] = len(buffers)
                buffers.append(buf)
                slot = len(views)
            else:  # another leaf of a buffer read: the same view's slot, if one is
                slot = _view_slot(views, v)
                if slot < 0:
                    if v._shape != shape or v._strides != contiguous:
                        return None
                    slot = len(views)
            if slot == len(views):
                views.append(v)
                offset = v._offset
                offsets.append(offset)
                if offset & 3 or v._dtype in MULTI_WORD:
                    aligned = False
            key += (_LEAF, slot, n.dtype, b)
        elif kind == "op" or kind == "cast":
            i = id(n)
            again = seen.get(i)
            if again is not None:
                key += (_AGAIN, again)
                continue
            seen[i] = len(seen)
            args = n.args
            if kind == "op":
                key += (n.op, n.compute, n.dtype, len(args))
            else:
                key += (_CAST, n.dtype)
            stack += args[::-1]
        elif kind == "scalar":
            key += (_SCALAR, n.dtype)
            scalars.append((n.dtype, n.value))
        else:  # a loop, its output or an index: the lowering's
            return None
    return key, offsets, views, scalars, buffers, aligned


def _quick(device, shape, target, root, limit) -> bool:
    """Compute target alone (nothing else pending) by the plan kept for its DAG's structure,
    without a lowering or a signature: say False where that does not apply (the caller
    lowers). A walk of the DAG in the lowering's order (``_Lowering``) gives the structure
    as a flat key (each op's name, dtypes and arity, each leaf's slot, binding and dtype,
    each scalar's dtype, a node met again by its index), the leaves' views and offsets and
    the scalars' values; the key names ``launch.plain``'s plan (``launch.plain_plan``), made by
    a lowering the first time. A loop's forced result (``c = a * 2 + b`` read at each
    iteration) lowered and signed the same DAG again every time: this takes 7-13% off its
    host time on an H200's host (benchmarks/NOTES-host.md, session 32). A single op over
    computed arrays comes here first too: its kept plan costs less than the namespace's
    launch (``plain_plan``'s signature, the views listed again): a forced ``a + b`` 14.0 ->
    12.0 µs on a 2-core VM (session 35)."""
    contiguous = _C_STRIDES.get(shape)
    size = math.prod(shape)
    big = device._piece_bytes
    if device.staged or lease.LEASES or contiguous is None or 8 * size > big:
        return False
    found = _flat_structure(root, shape, contiguous, big,
                            not size & 3 and root.dtype not in MULTI_WORD)
    if found is None:
        return False
    key, offsets, views, scalars, buffers, aligned = found
    if len(views) >= limit:
        return False
    key.append(aligned)
    key = tuple(key)
    plan = device.plans.get(key)
    if plan is None:
        low = _Lowering()
        expr = low.node(root)
        found = _plain_plan(device, shape, [(expr, None)], low.inputs, low.scalars)
        if found is None:
            return False
        plan, vec4, words, bufs = found
        if (vec4 is aligned and words == offsets and bufs == buffers
                and low.scalars == scalars):  # (what the walk found, in the same order)
            device.keep_plan(key, plan)
        _finish([target], [root], _issue(device, shape, plan, vec4, words, bufs,
                                         low.scalars, 1))
        return True
    _finish([target], [root], _issue(device, shape, plan, aligned, offsets, buffers,
                                     scalars, 1))
    return True


def elementwise_structure(target, limit: int):
    """The pending target's DAG as a consumer's kept plan is keyed (``_absorbed``): (the
    flat structure key of ``_flat_structure``, the leaves' views, the scalars), in the order
    ``elementwise_dag`` gives them, without a lowering; or None where a leaf is not a
    C-contiguous view of target's shape within one binding, a node is not an op, cast,
    scalar or leaf, or there are more than ``limit`` views. What else ``elementwise_dag``
    refuses (a multi-word dtype, a heavy call) is a matter of the key's ops and dtypes: a
    consumer that kept a plan under the key has had it checked. Under the graph's lock."""
    with LOCK:
        root = target._lazy
        if target._b is not None or root.kind not in ("op", "cast") or root.error is not None:
            return None
        shape = target._shape
        contiguous = _C_STRIDES.get(shape) or c_strides(shape)
        found = _flat_structure(root, shape, contiguous, target._device._piece_bytes, False)
        if found is None or len(found[2]) > limit:
            return None
        key, _, views, scalars, _, _ = found
        return tuple(key), views, scalars


def elementwise_dag(target, limit: int):
    """The pending target's DAG as one expression for a consumer to compute in its own
    kernel (a reduction's first pass, ``algorithms/reduce.py``): (expression, the leaves'
    views, the scalars) as ``_Lowering`` gives them, where every node is an elementwise op,
    a cast, a scalar or a leaf, every dtype one word, and every leaf a C-contiguous view of
    target's shape (so element e of target reads element e of each leaf, from its offset),
    at most ``limit`` of them; else None (the consumer computes target first, as before).
    Target stays pending: whatever else reads it computes it as before. Under the graph's
    lock: another thread computing a node of the DAG turns it into a leaf meanwhile."""
    with LOCK:
        return _elementwise_dag(target, limit)


def _elementwise_dag(target, limit: int):
    root = target._lazy
    if target._b is not None or root.kind not in ("op", "cast") or root.error is not None:
        return None
    shape, contiguous = target._shape, c_strides(target._shape)
    seen, stack = set(), [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.dtype in MULTI_WORD:
            return None
        kind = n.kind
        if kind == "leaf":
            v = n.value
            if v._shape != shape or v._strides != contiguous or v._dtype in MULTI_WORD:
                return None
        elif kind in ("op", "cast"):
            if _is_heavy(n):
                return None
            stack += n.args
        elif kind != "scalar":  # a loop, its output, an index: computed first
            return None
    low = _Lowering()
    expr = low.node(root)
    if len(low.inputs) > limit or any(v._buf.nbytes > target._device._piece_bytes
                                      for v in low.inputs):
        return None  # (a buffer past one binding is bound by ranges)
    return expr, low.inputs, low.scalars


def _view_slot(views: list, v) -> int:
    """The slot of the view among views equal to v (buffer, offset, strides, shape), or -1."""
    for i, u in enumerate(views):
        if (u._buf is v._buf and u._offset == v._offset and u._strides == v._strides
                and u._shape == v._shape):
            return i
    return -1


# _quick's key: its first item, and the tokens that begin a cast, a leaf, a scalar and a
# node met again (an op's token is its name); objects of their own, equal to nothing else
_QUICK, _CAST, _LEAF, _SCALAR, _AGAIN = (object() for _ in range(5))


def _settled() -> None:
    """After the only pending array was computed: its reference goes, so the next forced
    result's ``_alone`` answers without a prune, and the fold's kept nodes go as ``_prune``
    lets them go when nothing is pending."""
    _PENDING.clear()
    if _fold.made:
        _fold.made = False
        _fold.forget()


def _alone() -> bool:
    """Whether only one array is pending (pruning the references that hide it, if any).
    Past _ALONE_SCAN references it says no without looking: asked at every compute, a scan
    of all of them would make a flush of n pending arrays O(n²)."""
    n = len(_PENDING)
    if n == 1:
        return True
    if n == 2:  # (a forced result's operand made just before it: dropped or computed by now)
        for i in (0, 1):
            a = _PENDING[i]()
            if a is None or a._b is not None:
                del _PENDING[i]
                return True
        return False
    if n > _ALONE_SCAN:
        return False
    _prune()
    return len(_PENDING) == 1


_ALONE_SCAN = 32


def _expr_views(node: Apply, root: Lazy) -> list:
    """The views a one-op node built by ``apply`` reads: its arguments' leaves, by slot."""
    xs = (node.arg,) if type(node) is Cast else node.args
    views = {x.slot: a.value for x, a in zip(xs, root.args) if type(x) is Input}
    return [views[i] for i in range(len(views))]


def _finish(owners, nodes, results) -> None:
    """Hand each computed array its buffer; its node becomes the leaf that reads it, through
    the launch's own record of the result (C-contiguous at offset 0 over arr's shape and dtype,
    as arr is: a view of the buffer that is not arr, so the leaf does not keep arr alive)."""
    for arr, node, res in zip(owners, nodes, results):
        arr._b = res._b
        _to_leaf(node, res)
        arr._lazy = node


def _to_leaf(node: Lazy, view) -> None:
    """Turn a computed node into the leaf that reads its value."""
    node.kind, node.value, node.args, node.depth, node.owner, node.expr = (
        "leaf", view, (), 0, None, None)


class _Lowering:
    """Turns Lazy nodes into the slotted expression nodes a kernel is generated from: leaves
    become input slots (one per distinct view), scalars become uniform slots."""

    def __init__(self):
        self.inputs: list = []
        self.scalars: list = []
        self._slots: dict = {}
        self._memo: dict = {}

    def node(self, n: Lazy) -> Node:
        e = self._memo.get(id(n))
        if e is None:
            kind = n.kind
            if kind == "op":
                args = n.args
                if len(args) == 2:  # expr.apply written out: one lookup of a made node
                    x, y = self.node(args[0]), self.node(args[1])
                    e = APPLIES.get((n.op, n.compute, n.dtype, x.key, y.key))
                    if e is None:
                        e = _apply_node(n.op, (x, y), n.compute, n.dtype)
                else:
                    e = _apply_node(n.op, tuple([self.node(a) for a in args]), n.compute,
                                    n.dtype)
            elif kind == "leaf":
                v = n.value
                where = (id(v._buf), v._offset, v._strides, v._shape)
                slot = self._slots.get(where)
                if slot is None:
                    slot = self._slots[where] = len(self.inputs)
                    self.inputs.append(v)
                e = SLOTS.get((Input, slot, n.dtype)) or _slot_node(Input, slot, n.dtype)
            elif kind == "cast":
                e = Cast(self.node(n.args[0]), n.dtype)
            elif kind == "scalar":  # (a slot per reading: not memoised, see _scalar)
                scalars = self.scalars
                e = (SLOTS.get((Scalar, len(scalars), n.dtype))
                     or _slot_node(Scalar, len(scalars), n.dtype))
                scalars.append((n.dtype, n.value))
                return e
            elif kind == "loopout":
                e = LoopOut(self.node(n.args[0]), n.value, n.dtype)
            elif kind == "loop":
                body = n.value
                count = _slot_node(Scalar, len(self.scalars), _dt.uint32)
                self.scalars.append((_dt.uint32, body.count))
                e = body.lower([self.node(a) for a in n.args], count)
            else:
                e = Index(n.dtype)
            self._memo[id(n)] = e
        return e


_CANDIDATES = 64  # other pending arrays _compute looks at for a kernel's spare bindings


def _bindings(device) -> int:
    return min(MAX_BINDINGS, getattr(device.executor, "max_storage_buffers", 8) - 1)


def _split(target) -> None:
    """Compute the arguments of target's node on their own: each reads fewer buffers."""
    args = target._lazy.args
    if len(args) == 1 and args[0].kind == "loop":  # a loop's state: split the loop's own
        args = args[0].args
    for a in args:
        if a.kind != "leaf" and a.args:
            _compute_node(a, target)


def _compute_node(n: Lazy, target, alone: bool = False):
    """Compute node n of target's DAG (of target's shape) through the array whose value it
    is, or a short-lived one for an unnamed subexpression; that array."""
    arr = _owner(n)
    if arr is None:
        arr = tensor.pending(n, target._shape, target._strides, target._device)
        n.owner = _track(arr)
    _compute(arr, alone=alone)
    return arr


def flush(device=None) -> None:
    """Compute every pending array (of one device, or of all). An array whose kernel fails
    to build is left pending with its error, raised again where the array itself is
    needed, so it cannot break an unrelated operation that flushes; running out of memory
    is raised at once (it may pass, and a write may be waiting for this flush)."""
    _compute_pending(lambda arr: device is None or arr._device == device)


def compute_readers(buf) -> None:
    """Compute every pending array whose expression reads buf, as flush does: before
    something outside the graph writes into buf (a lent host copy, lease.py)."""
    _compute_pending(lambda arr: _reads(arr._lazy, buf))


def _reads(node: Lazy, buf) -> bool:
    """Whether the expression of node has a leaf over buf."""
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.kind == "leaf":
            if n.value._b is buf:
                return True
        else:
            stack.extend(n.args)
    return False


@critical
def _compute_pending(chosen) -> None:
    with LOCK:
        for ref in list(_PENDING):
            arr = ref()
            if (arr is not None and arr._b is None and arr._lazy.error is None
                    and chosen(arr)):
                try:
                    _compute(arr)
                except MemoryError:
                    raise
                except Exception as e:
                    if arr._b is None:
                        arr._lazy.error = e
        _prune()


@critical
def set_fusion(flag: bool) -> None:
    global _fusion
    with LOCK:
        if not flag:
            flush()
        _fusion = bool(flag)


def fusion_enabled() -> bool:
    return _fusion
