"""Whole-loop fusion (core layer): a pending DAG that repeats one block of ops is folded into
a loop, so a Python loop over whole arrays becomes one kernel that keeps its state in
registers, however many iterations it runs.

    for _ in range(500):
        zr2 = zr * zr
        ...
        zi, zr = xp.where(alive, ...), xp.where(alive, ...)

builds the same ops every iteration, each reading the previous iteration's results. The
lazy graph (graph.py) bounds a chain at ``MAX_DEPTH`` by computing it: a kernel every few
iterations that writes the state out and reads it back. Before it does, ``fold`` looks at the
pending nodes of the array's device and shape in the order they were made (``Lazy.seq``)
and describes each by its op, its dtypes and its arguments: another of these nodes by how
many nodes back it was made, anything else (a computed array's leaf, a loop's state) by
identity, a scalar by dtype and value. A loop body of P nodes makes the descriptions periodic
with period P: node t reads what node t - P read, P nodes later. The smallest such P whose
periodic run covers at least two whole periods is folded: a ``loop`` node over the first
period's inputs (its *inits*: what the first period reads from before it), the body once as a
template (``Body``), and an iteration count; the last folded period's nodes that the next
period reads (the loop's *state*) become ``loopout`` nodes of it. A node made before the loop
that every iteration reads (a pending input) is read from outside, like a leaf. A new loop
takes the phase with the fewest states. The nodes made after a loop are checked against its
body node by node (``_extend``, through a check written out as code once per body,
``Body.matcher``): whole periods of it make the same loop with a larger count,
so folding again and again keeps one loop, and ``extend`` does the same before a DAG that
reads a loop's state is computed, so its kernel does not depend on the count. The graph
hands fold every node it makes while a loop may continue (``recent``), so the next fold
finds the continuation without walking the pending DAG (``_continue``).

Nothing else changes: every node keeps its value (a loopout is the value its node had), the
nodes folded away are dropped only when nothing else reads them, and a loop runs exactly the
ops of the unrolled iterations in the same order, so results are the same bit for bit. The
loop's count travels as a uniform: the kernel depends on the body, not on how many iterations
it runs. A loop kernel is bounded by ``MAX_COUNT`` iterations and ``MAX_WORK``
element-iterations (past them the graph computes the loop as it is and folding starts again,
so no single dispatch runs for seconds). After a chain that does not repeat, the next
attempts are skipped, more of them each time (``MAX_BACKOFF``).
"""

from __future__ import annotations

import math
from collections import deque
from operator import attrgetter

from ..kernels.expr import Carry, Cast, Loop
from ..kernels.expr import apply as _apply_node

MAX_NODES = 4096  # pending nodes fold looks at (a larger DAG is not folded)
MAX_PERIOD = 512  # nodes in one loop body
ROTATE = 64  # bodies up to this size are folded at the phase with the fewest states
# one loop kernel runs at most MAX_COUNT iterations and MAX_WORK iterations times elements
# (2^28: about 0.1 s of lavapipe or SwiftShader per simple op of the body)
MAX_COUNT = 1 << 16
MAX_WORK = 1 << 28


class Body:
    """A loop's body and count. ``entries``: per body node (kind, op, compute, dtype, refs),
    where a ref is ("c", k) for state k at the iteration's start, ("o", k) for the loop's
    outside argument k, ("b", j) for body node j. State k is body node ``carried[k]`` at the
    iteration's end. ``outer_keys`` describe the outside arguments (identity or scalar value),
    so two bodies are the same loop when their entries, carried and outer_keys are equal."""

    __slots__ = ("entries", "carried", "outer_keys", "count", "_matcher")

    def __init__(self, entries, carried, outer_keys, count: int, matcher=None):
        self.entries, self.carried, self.outer_keys, self.count = (
            entries, carried, outer_keys, count)
        self._matcher = matcher

    def matcher(self):
        """``match(cont, at, end, state, outers)``: the index in cont of the first period from
        ``at`` on (up to ``end``) that is not an iteration of this body, the first reading
        ``state`` (the loop's state nodes), each next one the state the previous made, all the
        loop's outside nodes. The checks of ``_extend`` written out once per body as Python
        code (one call for all the periods, no loop over the entries and their arguments),
        made at the first use; only integers enter its source, every op name, dtype and key is
        a constant of its namespace."""
        if self._matcher is None:
            # what the source depends on: the entries, carried and the outside scalars' keys
            # (another call of the same loop code gets a new Body over other leaves)
            key = (self.entries, self.carried,
                   tuple(k if k[0] == "s" else None for k in self.outer_keys))
            m = _MATCHERS.get(key)
            if m is None:
                if len(_MATCHERS) >= MAX_MATCHERS:
                    _MATCHERS.clear()
                m = _MATCHERS[key] = _compile_matcher(self)
            self._matcher = m
        return self._matcher

    def same(self, other: "Body") -> bool:
        return (self.entries == other.entries and self.carried == other.carried
                and self.outer_keys == other.outer_keys)

    def lower(self, args: list, count) -> Loop:
        """The expression Loop of this body over lowered args (inits, then outside nodes)
        and the uint32 count node."""
        states = len(self.carried)
        inits, outers = args[:states], args[states:]
        carries = [Carry(k, self.entries[q][3]) for k, q in enumerate(self.carried)]
        body: list = []
        for kind, op, compute, dtype, refs in self.entries:
            xs = tuple(carries[i] if w == "c" else outers[i] if w == "o" else body[i]
                       for w, i in refs)
            body.append(_apply_node(op, xs, compute, dtype) if kind == "op" else Cast(xs[0], dtype))
        return Loop(tuple(inits), tuple(body[q] for q in self.carried), count)


def _outside(a):
    """The description of an argument that is not one of the nodes looked at."""
    kind = a.kind
    if kind == "scalar":
        v = a.value
        return ("s", a.dtype, type(v), v if type(v) is int or type(v) is bool else repr(v))
    if kind == "index":
        return ("i", a.dtype)
    return ("x", id(a))  # a leaf, a loop's state: the node itself


_SEQ = attrgetter("seq")
# compiled matchers by their body's structure (Body.matcher): a function that runs its loop
# again (the plain Mandelbrot called once per frame) compiled its matcher at every call,
# ~0.7 ms of a 20 ms call on a 2-core VM
_MATCHERS: dict = {}
MAX_MATCHERS = 256


# after a chain that does not repeat, the next attempts are skipped (1, 2, 4, then 8 of
# them): looking costs ~2 µs a node, a fifth of a long non-repeating chain's host time
MAX_BACKOFF = 8
_skip = 0
_backoff = 0
made = False  # whether a pending DAG may hold a loop (graph then tries extend before computing)
FULL = "full"  # what a fold returns that would make a loop longer than one kernel may run

# The nodes made since the last fold, while one was made (``made``): graph appends each op
# and cast node as it makes it, so the continuation of the last loop (``_last``: the loop,
# its state nodes, shape and device) is at hand in the order made, without the walk of
# the pending DAG and its sort (a third of a fold's cost in the NumPy-style Mandelbrot).
# Only a shortcut: what it does not match is searched for as before. It holds no node
# across a buffer allocation (``forget``, called by the buffer pool before each), so a
# node dropped since, and the buffers its leaves read, is freed before memory is asked for.
RECENT = 1024
recent: deque = deque(maxlen=RECENT)
_last = None


def forget() -> None:
    """Drop the nodes kept since the last fold and the last loop (the next fold walks)."""
    global _last
    recent.clear()
    _last = None


def fold(arr, same_shape) -> bool:
    """Fold the periodic part of the pending DAG of arr's device and shape (the live pending
    arrays ``same_shape(arr)`` gives) into a loop; whether it did (called under graph's
    lock)."""
    global _skip, _backoff
    if _skip:
        _skip -= 1
        return False
    done = _continue(arr)
    if done is None:
        done = _fold_dag(arr, same_shape(arr))
    if done is True:
        _backoff = 0
        return True
    if done is not FULL:  # (a full loop is computed as it is, and folding starts again)
        _skip = _backoff = min(2 * _backoff or 1, MAX_BACKOFF)
    return False


def extend(arr) -> bool:
    """Before arr is computed, if its DAG reads a loop's state: the whole periods of that
    loop's body made since, folded into it (so the kernel, and its compile, do not depend on
    how many iterations ran since the last fold); whether it did. Only arr's own DAG is
    looked at (not every pending array of its shape: a flush of n arrays would be O(n²))."""
    found, loopouts = _pending_nodes([arr])
    if not loopouts or len(found) > MAX_NODES:
        return False
    return _extend(sorted(found, key=_SEQ), loopouts, math.prod(arr._shape)) is True


def _pending_nodes(roots):
    """The op and cast nodes under roots (a set) and the loopout nodes they read ({id:
    node}). Nodes hash by identity."""
    found: set = set()
    loopouts: dict = {}
    stack = [r._lazy for r in roots]
    pop, push, add = stack.pop, stack.extend, found.add
    while stack:
        n = pop()
        if n in found:
            continue
        kind = n.kind
        if kind == "op" or kind == "cast":
            add(n)
            push(n.args)
        elif kind == "loopout":
            loopouts[id(n)] = n
        if len(found) > MAX_NODES:
            break
    return found, loopouts


def _continue(arr):
    """``_extend`` of the last loop over the nodes made since it (``recent``), when arr is of
    its shape and device and its state is still pending; None where that does not apply."""
    if _last is None or not recent:
        return None
    loop, state, shape, device = _last
    if (arr._shape != shape or arr._device is not device or len(recent) == RECENT
            or any(n.kind != "loopout" or n.args[0] is not loop for n in state)):
        return None
    return _periods(loop, state, list(recent), math.prod(shape), arr)


def _extend(nodes, loopouts: dict, size: int, arr=None):
    """The nodes (in the order made) after the state of one loop, as many whole periods of
    its body as they are, folded into a longer loop: True if any were, FULL if the loop
    would run too long for one kernel, None if they are not that loop's continuation (the
    general search may still find a loop)."""
    states: dict = {}  # per loop, its loopouts
    for n in loopouts.values():
        states.setdefault(id(n.args[0]), []).append(n)
    # the loop whose state was made last: what is made after it may continue it (an older
    # loop's state is read by arrays kept from before, such as a previous call's result)
    last = max(states.values(), key=lambda outs: max(n.seq for n in outs))
    loop = last[0].args[0]
    carried = loop.value.carried
    outs = {n.value: n for n in last}
    if len(outs) != len(carried) or len(last) != len(carried):
        return None
    after = max(n.seq for n in outs.values())
    cont = [n for n in nodes if n.seq > after]
    state = [outs[k] for k in range(len(carried))]  # what the first period reads as its state
    return _periods(loop, state, cont, size, arr)


def _periods(loop, state: list, cont: list, size: int, arr):
    """The whole periods of loop's body at the start of cont (the nodes made after its
    state, in order) folded into a longer loop: True if any were, FULL if the loop would
    run too long for one kernel, None if there are none."""
    body = loop.value
    period, carried = len(body.entries), body.carried
    outers = loop.args[len(carried):]
    periods = body.matcher()(cont, 0, len(cont) - period, state, outers) // period
    if not periods:
        return None
    count = body.count + periods
    if count * size > MAX_WORK or count > MAX_COUNT:
        return FULL
    longer = type(loop)("loop", None, loop.args,
                        value=Body(body.entries, carried, body.outer_keys, count, body._matcher))
    _retarget(longer, cont, (periods - 1) * period, carried, arr)
    return True


def _compile_matcher(body: Body):
    """The function ``Body.matcher`` describes, for this body."""
    period, carried = len(body.entries), body.carried
    consts: dict = {"_scalar_is": _scalar_is}
    lines = ["def match(cont, at, end, state, outers):", "    o = outers"]
    if carried:
        lines.append("    " + ", ".join(f"s{k}" for k in range(len(carried))) + ", = state")
    lines.append("    while at <= end:")
    for p, (kind, op, compute, dtype, refs) in enumerate(body.entries):
        consts[f"K{p}"], consts[f"P{p}"], consts[f"C{p}"], consts[f"D{p}"] = (
            kind, op, compute, dtype)
        # body node p of this period is b<p>; its arguments are compared as one tuple (by
        # identity: nodes define no __eq__), an outside scalar's also by value (_scalar_is)
        lines.append(f"        n = b{p} = cont[at + {p}]" if p else "        n = b0 = cont[at]")
        lines.append(f"        if (n.op != P{p} or n.compute is not C{p} or n.dtype is not D{p}"
                     f" or n.kind != K{p}):")
        lines.append("            break")
        wants = [f"b{i}" if w == "b" else f"s{i}" if w == "c" else f"o[{i}]" for w, i in refs]
        lines.append("        a = n.args")
        lines.append(f"        if a != ({', '.join(wants)},):")
        scalars = [(j, i) for j, (w, i) in enumerate(refs)
                   if w == "o" and body.outer_keys[i][0] == "s"]
        if not scalars:
            lines.append("            break")
            continue
        # the tuple differs: equal only if its other arguments are the same nodes and each
        # outside scalar's argument is of that value
        lines.append(f"            if len(a) != {len(refs)}:")
        lines.append("                break")
        for j, want in enumerate(wants):
            i = refs[j][1]
            if (j, i) in scalars:
                consts[f"Q{i}"] = body.outer_keys[i]
                lines.append(f"            if a[{j}] is not {want} and not _scalar_is(a[{j}], Q{i}):")
            else:
                lines.append(f"            if a[{j}] is not {want}:")
            lines.append("                break")
    # a whole period matched: its state nodes are what the next one reads
    for k, q in enumerate(carried):
        lines.append(f"        s{k} = b{q}")
    lines.append(f"        at += {period}")
    lines.append("    return at")
    exec(compile("\n".join(lines), "<webarray fold matcher>", "exec"), consts)
    return consts["match"]


def _scalar_is(a, key) -> bool:
    """Whether argument a is a scalar node of the value an outside scalar ``key`` describes."""
    return a.kind == "scalar" and _outside(a) == key


def _retarget(loop, nodes, last: int, carried, arr) -> None:
    """The state nodes of the period at ``last`` become loop's loopouts; the nodes after that
    period get their depth anew, and are what the next fold of arr's shape and device
    continues from (``recent``, ``_last``; with no arr, as before a compute, nothing is)."""
    global _last
    state = []
    for k, q in enumerate(carried):
        n = nodes[last + q]
        n.kind, n.args, n.value, n.op, n.compute, n.expr = "loopout", (loop,), k, None, None, None
        n.depth = loop.depth + 1
        state.append(n)
    tail = nodes[last + len(loop.value.entries):]
    for n in tail:
        depth = 0
        for a in n.args:
            e = a.depth + 1 if a.args else 1
            if e > depth:
                depth = e
        n.depth = depth
    recent.clear()
    if arr is None:
        _last = None
        return
    recent.extend(tail)
    _last = (loop, state, arr._shape, arr._device)


def _fold_dag(arr, roots) -> bool:
    found, loopouts = _pending_nodes(roots)
    if not 2 <= len(found) <= MAX_NODES:
        return False
    nodes = sorted(found, key=_SEQ)
    size = math.prod(arr._shape)
    if loopouts:  # the continuation of a loop: checked against its body, not searched for
        done = _extend(nodes, loopouts, size, arr)
        if done is not None:
            return done
    rank = {id(n): i for i, n in enumerate(nodes)}
    # a node's description: kind, op, compute and dtype, then per argument how many nodes
    # back it was made (an int) or, for anything else, _outside's description
    desc = []
    for t, n in enumerate(nodes):
        d = [n.kind, n.op, n.compute, n.dtype]
        for a in n.args:
            r = rank.get(id(a))
            d.append(t - r if r is not None else _outside(a))
        desc.append(tuple(d))
    count_n = len(nodes)

    for period in range(1, min(MAX_PERIOD, count_n // 2) + 1):
        t = count_n - 1
        while t >= period and (desc[t] == desc[t - period]
                               or _alike(desc[t], desc[t - period], period)):
            t -= 1
        s = t + 1  # node u is made as node u - period was, for every u >= s
        if count_n - s < period:
            continue
        for start in range(max(0, s - 2 * period), s - period + 1):
            refs = _refs(nodes, desc, start, period)
            inits = _inits(nodes, desc, rank, start, refs)
            if inits is not None:
                break
        else:
            continue
        if period <= ROTATE and not _continues(inits):
            # a new loop: the phase with the fewest states (registers, and words compared
            # for the fixed point), the Python loop's own boundary (Mandelbrot: zr, zi and
            # counts, not also zr², zi² and the escape mask of a mid-iteration boundary)
            for later in range(start + 1, min(start + period, count_n - 2 * period + 1)):
                other_refs = _refs(nodes, desc, later, period)
                other = _inits(nodes, desc, rank, later, other_refs)
                if other is not None and len(other) < len(inits):
                    start, refs, inits = later, other_refs, other
        periods = (count_n - start) // period
        if not _repeats(nodes, desc, rank, start, periods, refs):
            continue
        return _fold(nodes, start, refs, inits, periods, size, arr)
    return False


def _alike(a: tuple, b: tuple, period: int) -> bool:
    """Whether two nodes a period apart may be made alike: the same op, and per argument the
    same distance back or the same node (one made before the loop, which every iteration
    reads). A hint for finding the period; ``_inits`` and ``_repeats`` decide."""
    if len(a) != len(b) or a[:4] != b[:4]:
        return False
    for x, y in zip(a[4:], b[4:]):
        if x != y and not (type(x) is int and type(y) is int and x == y + period):
            return False
    return True


def _refs(nodes, desc, start, period) -> list:
    """Per node of the period after start (the template), per argument: ("b", j) body node j,
    ("c", q) the state at position q of the previous period, or ("o", key, node) a node from
    outside the loop (made before it, a leaf, a scalar: key says which)."""
    base = start + period
    rows = []
    for p in range(period):
        want, n = desc[base + p], nodes[base + p]
        row = []
        for j in range(4, len(want)):
            w = want[j]
            if type(w) is int:
                target = base + p - w
                if target >= base:
                    row.append(("b", target - base))
                elif target >= start:
                    row.append(("c", target - start))
                else:
                    row.append(("o", ("x", id(nodes[target])), nodes[target]))
            else:
                row.append(("o", w, n.args[j - 4]))
        rows.append(row)
    return rows


def _continues(inits: dict) -> bool:
    """Whether the inits are the states of one loop, in order (a fold that may merge)."""
    nodes = [inits[q] for q in sorted(inits)]
    loop = nodes[0].args[0] if nodes[0].kind == "loopout" else None
    return loop is not None and all(a.kind == "loopout" and a.args[0] is loop and a.value == k
                                    for k, a in enumerate(nodes))


def _inits(nodes, desc, rank, start, refs):
    """{position: node}: what the period at ``start`` reads for the state at each position of
    the previous period, if it computes the template (refs) from those (made before it); else
    None."""
    inits: dict = {}
    return inits if _computes(nodes, desc, rank, start, start, refs, inits) else None


def _computes(nodes, desc, rank, at, start, refs, inits) -> bool:
    """Whether the period at ``at`` computes the template (refs, the period after ``start``)
    from the previous period; or, given ``inits`` (filled), from the nodes it reads for the
    state, each made before ``start``."""
    period = len(refs)
    for p, row in enumerate(refs):
        have, want = desc[at + p], desc[start + period + p]
        if have[:4] != want[:4] or len(have) != len(want):
            return False
        args = nodes[at + p].args
        for j, ref in enumerate(row):
            if inits is not None and ref[0] == "c":
                a = args[j]
                if rank.get(id(a), -1) >= start or inits.setdefault(ref[1], a) is not a:
                    return False
            elif not _same_arg(ref, p, have[j + 4], args[j], period):
                return False
    return True


def _same_arg(ref, p: int, have, arg, period: int) -> bool:
    """Whether an argument (its description ``have``, the node ``arg``) of the node at
    position p of a period is what ref says, given the previous period."""
    kind = ref[0]
    if kind == "b":
        return have == p - ref[1]
    if kind == "c":
        return have == p - ref[1] + period
    return arg is ref[2] if ref[1][0] == "x" else have == ref[1]


def _repeats(nodes, desc, rank, start, periods, refs) -> bool:
    """Whether every period after the template computes it from the previous period."""
    return all(_computes(nodes, desc, rank, start + k * len(refs), start, refs, None)
               for k in range(2, periods))


def _fold(nodes, start, refs, inits, periods, size, arr) -> bool:
    period = len(refs)
    carried = tuple(sorted(inits))
    index = {q: k for k, q in enumerate(carried)}
    outers: list = []
    outer_keys: list = []
    entries = []
    for p, row in enumerate(refs):
        n = nodes[start + period + p]
        out = []
        for ref in row:
            if ref[0] == "b":
                out.append(ref)
            elif ref[0] == "c":
                out.append(("c", index[ref[1]]))
            else:
                if ref[1] not in outer_keys:
                    outer_keys.append(ref[1])
                    outers.append(ref[2])
                out.append(("o", outer_keys.index(ref[1])))
        entries.append((n.kind, n.op, n.compute, n.dtype, tuple(out)))
    init_nodes = [inits[q] for q in carried]
    if any(a.dtype is not entries[q][3] for a, q in zip(init_nodes, carried)):
        return False
    body = Body(tuple(entries), carried, tuple(outer_keys), periods)
    args = tuple(init_nodes) + tuple(outers)
    # the inits are the state of a loop of this body: that loop, run for longer
    prev = init_nodes[0].args[0] if _continues(inits) else None
    if prev is not None and prev.value.same(body):
        body.count += prev.value.count
        args = prev.args
    if body.count * size > MAX_WORK or body.count > MAX_COUNT:
        return FULL
    global made
    made = True
    loop = type(nodes[0])("loop", None, args, value=body)  # a graph.Lazy, as the nodes folded
    _retarget(loop, nodes, start + (periods - 1) * period, carried, arr)
    return True
