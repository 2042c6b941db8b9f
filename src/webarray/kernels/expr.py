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


_APPLIES: dict = {}
_SLOTS: dict = {}


def slot(cls: type, slot: int, dtype: DType):
    """``Input(slot, dtype)`` or ``Scalar(slot, dtype)`` (cls), made once per structure as
    ``apply`` makes Apply nodes."""
    k = (cls, slot, dtype)
    node = _SLOTS.get(k)
    if node is None:
        node = _SLOTS.setdefault(k, cls(slot, dtype))
    return node



def apply(op: str, args: tuple, compute: DType, dtype: DType) -> Apply:
    """``Apply(op, args, compute, dtype)``, or the equal node made before (nodes are immutable
    and compared by key, so one object serves every use of a structure): what lowering a
    fused DAG calls once per node."""
    k = (op, compute, dtype, *[a.key for a in args])
    node = _APPLIES.get(k)
    if node is None:
        node = _APPLIES.setdefault(k, Apply(op, args, compute, dtype))
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


def walk(roots) -> list[Node]:
    """Distinct nodes reachable from roots, arguments before their users."""
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
        order.append(n)

    for r in roots:
        visit(r)
    return order
