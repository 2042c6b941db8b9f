"""Elementwise expression nodes: what the graph builds and the generators lower.

A node is immutable and hashable; its ``key`` describes its structure only (op names,
dtypes, input and scalar *slots*), never data or scalar values, so a loop that builds the
same expression every iteration hits the same cached kernel. Keys are hash-consed: a
node's key is a small integer standing for (its own fields, its arguments' keys), so a
fused DAG that reuses a subexpression many times is hashed and compared in constant time
(a nested tuple would be rehashed once per path through the DAG).
"""

from __future__ import annotations

import itertools

from .._dtypes import DType

_KEYS: dict[tuple, int] = {}
_NEXT_KEY = itertools.count()


def intern(structure: tuple) -> int:
    """The key of a node structure: the same integer for equal structures, also when
    threads intern at once (``next`` and ``setdefault`` are atomic; ``len(_KEYS)`` read by
    two threads at once would give two structures one key, so one of them a wrong kernel)."""
    key = _KEYS.get(structure)
    if key is None:
        key = _KEYS.setdefault(structure, next(_NEXT_KEY))
    return key


class Node:
    __slots__ = ("dtype", "key")

    def __eq__(self, other):
        return isinstance(other, Node) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


class Input(Node):
    """The value of input array ``slot`` at the current element."""

    __slots__ = ("slot",)

    def __init__(self, slot: int, dtype: DType):
        self.slot = slot
        self.dtype = dtype
        self.key = intern(("in", slot, dtype.name))


class Scalar(Node):
    """A scalar passed in the dispatch's uniforms (so its value is not in the key)."""

    __slots__ = ("slot",)

    def __init__(self, slot: int, dtype: DType):
        self.slot = slot
        self.dtype = dtype
        self.key = intern(("sc", slot, dtype.name))


class Index(Node):
    """The linear (C-order) index of the output element, as int32."""

    __slots__ = ()

    def __init__(self, dtype: DType):
        self.dtype = dtype
        self.key = intern(("idx", dtype.name))


class Apply(Node):
    """An op of the op table applied to argument nodes.

    ``compute`` is the dtype the op computes in (the promoted input dtype), which picks the
    op's expression; ``dtype`` is the result dtype.
    """

    __slots__ = ("op", "args", "compute")

    def __init__(self, op: str, args: tuple, compute: DType, dtype: DType):
        self.op = op
        self.args = args
        self.compute = compute
        self.dtype = dtype
        self.key = intern(("op", op, compute.name, dtype.name, *[a.key for a in args]))


# the nodes made by apply and slot, by structure (graph.py's lowering looks them up itself)
APPLIES: dict = {}
SLOTS: dict = {}


def slot(cls: type, slot: int, dtype: DType):
    """``Input(slot, dtype)`` or ``Scalar(slot, dtype)`` (cls), made once per structure as
    ``apply`` makes Apply nodes."""
    k = (cls, slot, dtype)
    node = SLOTS.get(k)
    if node is None:
        node = SLOTS.setdefault(k, cls(slot, dtype))
    return node



def apply(op: str, args: tuple, compute: DType, dtype: DType) -> Apply:
    """``Apply(op, args, compute, dtype)``, or the equal node made before (nodes are immutable
    and compared by key, so one object serves every use of a structure): what lowering a
    fused DAG calls once per node."""
    k = (op, compute, dtype, *[a.key for a in args])
    node = APPLIES.get(k)
    if node is None:
        node = APPLIES.setdefault(k, Apply(op, args, compute, dtype))
    return node


class Gather(Node):
    """The element of raw input ``slot`` at the word index given by an int32 node."""

    __slots__ = ("slot", "index")

    def __init__(self, slot: int, index: Node, dtype: DType):
        self.slot = slot
        self.index = index
        self.dtype = dtype
        self.key = intern(("gather", slot, dtype.name, index.key))


class Cast(Node):
    """Conversion of ``arg`` to ``dtype`` with astype semantics."""

    __slots__ = ("arg",)

    def __init__(self, arg: Node, dtype: DType):
        self.arg = arg
        self.dtype = dtype
        self.key = intern(("cast", dtype.name, arg.key))


class UserCall(Node):
    """A call of a user function (an ElementwiseKernel body) on argument nodes.

    Its value is the record of the function's outputs, read through UserOut nodes, so a
    body with several outputs runs once per element. ``fn`` names the function uniquely
    (``fn.name``, which depends on its source) and gives its source per shader language
    (``fn.source("wgsl")``, ``fn.source("glsl")``); the function takes the argument
    registers in order and returns a struct with one field ``o<k>`` per output.
    """

    __slots__ = ("fn", "args")

    def __init__(self, fn, args: tuple):
        self.fn = fn
        self.args = tuple(args)
        self.dtype = None
        self.key = intern(("call", fn.name) + tuple(a.key for a in self.args))


class UserOut(Node):
    """Output ``index`` of a UserCall, as a register of ``dtype``."""

    __slots__ = ("call", "index")

    def __init__(self, call: UserCall, index: int, dtype: DType):
        self.call = call
        self.index = index
        self.dtype = dtype
        self.key = intern(("uout", index, dtype.name, call.key))


class Carry(Node):
    """Inside a Loop's body: the value of its state ``slot`` at the start of an iteration."""

    __slots__ = ("slot",)

    def __init__(self, slot: int, dtype: DType):
        self.slot = slot
        self.dtype = dtype
        self.key = intern(("carry", slot, dtype.name))


class Loop(Node):
    """A loop of ``count`` iterations (a uint32 Scalar node) over a state of values: state k
    starts as ``inits[k]`` and each iteration sets every state k at once to ``roots[k]``, a
    node over ``Carry(k)`` nodes and nodes outside the loop. Its value is the record of the
    final states, read through LoopOut nodes (whole-loop fusion, ``_core/fold.py``).

    ``inner`` lists the body's nodes that read a Carry, arguments first (what each iteration
    computes); ``deps`` the nodes outside the loop they read, which a kernel computes once
    before it."""

    __slots__ = ("inits", "roots", "count", "inner", "deps")

    def __init__(self, inits: tuple, roots: tuple, count: Node):
        self.inits = tuple(inits)
        self.roots = tuple(roots)
        self.count = count
        self.dtype = None
        self.key = intern(("loop", count.key, *[n.key for n in self.inits], None,
                           *[n.key for n in self.roots]))
        inner: dict = {}
        deps: dict = {}

        def visit(n: Node) -> bool:  # whether n reads a Carry (an inner node)
            if n.key in inner:
                return True
            if n.key in deps:
                return False
            if isinstance(n, Carry):
                return True
            args = n.args if isinstance(n, Apply) else (n.arg,) if isinstance(n, Cast) else ()
            reads = [visit(a) for a in args]
            if any(reads):
                inner[n.key] = n
                return True
            deps[n.key] = n
            return False

        for r in self.roots:
            visit(r)
        self.inner = list(inner.values())
        self.deps = [n for n in deps.values()]


class LoopOut(Node):
    """State ``index`` of a Loop after its last iteration."""

    __slots__ = ("loop", "index")

    def __init__(self, loop: Loop, index: int, dtype: DType):
        self.loop = loop
        self.index = index
        self.dtype = dtype
        self.key = intern(("lout", index, dtype.name, loop.key))


def walk(roots) -> list[Node]:
    """Distinct nodes reachable from roots, arguments before their users. A Loop comes after
    its inits, its count and the outside nodes its body reads; its inner nodes are not
    listed (``Loop.inner``)."""
    seen: dict = {}
    order: list[Node] = []

    def visit(n: Node):
        if n.key in seen:
            return
        seen[n.key] = True
        if isinstance(n, (Apply, UserCall)):
            for a in n.args:
                visit(a)
        elif isinstance(n, UserOut):
            visit(n.call)
        elif isinstance(n, Cast):
            visit(n.arg)
        elif isinstance(n, Gather):
            visit(n.index)
        elif isinstance(n, LoopOut):
            visit(n.loop)
        elif isinstance(n, Loop):
            for a in (*n.inits, n.count, *n.deps):
                visit(a)
        order.append(n)

    for r in roots:
        visit(r)
    return order


_HAS_LOOP: dict = {}


def has_loop(node: Node) -> bool:
    """Whether a Loop is under node: its kernel computes rather than streams, so it runs one
    element per thread (no vec4 path, which would run the loop four times per thread)."""
    r = _HAS_LOOP.get(node.key)
    if r is None:
        r = any(isinstance(n, Loop) for n in walk([node]))
        if len(_HAS_LOOP) < 65536:
            _HAS_LOOP[node.key] = r
    return r
