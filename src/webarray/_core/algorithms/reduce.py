"""Reductions and scans over arrays: views → row descriptions → passes of tree kernels.

Functions here take arrays with already validated arguments (normalised axes, dtypes the
device supports) and return new arrays; the namespace modules (statistical, utility,
searching, and later sorting, set and nonzero) do the validation and the dtype rules.

How an array is reduced: the kept axes (in order) and the reduced axes are described
without copying as *rows*, each a run of equally spaced columns. Size-1 axes are dropped and
neighbours that address memory as one axis are merged; when the reduced axes still do not
form one run, all but the innermost are folded into the rows and a later pass finishes
them. Each pass is one launch of the reduction kernel (``Device.kernels.reduction``): groups
of S threads reduce chunks of S·P columns by a tree, writing either the result or a
row-major (rows, chunks) array of partials, which the next pass reduces as contiguous rows
until one chunk per row is left. S is chosen per pass from the row length: a thread per row
for rows of up to P elements, a whole workgroup per chunk for long rows; a sum's threads load
more columns (up to the generator's P_ADD) while its first pass still has ``_BUSY``
workgroups. The passes of a plain reduction depend only on the layout and the op, so they are
kept per device (``Device.plans``) and a repeated one only allocates partials and dispatches.

Sizes past 32 bits: the kernels count columns, groups and flat indices in 32-bit uniform
words, and argmin/argmax answer in int32, yet a broadcast view of 2**33 elements needs no
memory. So a reduced axis of stride 0 is never read element by element: every element along
it is the same, so min, max, all, any, mean, var, argmin and argmax see one of them, and
sum, prod and count_nonzero combine the reduction of one with itself k times by doubling
(log2(k) elementwise launches: a sum over 2**33 broadcast ones costs what a sum of one
does, and integer results wrap exactly as k additions would). What is left has distinct
elements, so it exceeds MAX_COLUMNS only on devices whose buffers hold more than 2**31
elements; there the reduced extent is cut into pieces (views) that are reduced alone and
combined with the op's combine. argmin/argmax and count_nonzero whose answer does not fit
int32 (MAX_INDEX) raise OverflowError naming it; argmin/argmax over more than MAX_INDEX
distinct elements raise it at once.
"""

from __future__ import annotations

import math
import struct

from ... import _dtypes as dt
from ...kernels.expr import Apply, Input, Scalar, walk
from ...kernels import lanes
from ...kernels.specs import reduction as rspec
from ...kernels.specs import scan as sspec
from ...kernels import uniforms as _uniforms
from .. import graph as _graph
from .. import launch
from .. import storage as _storage
from .. import tensor
from ..tensor import Tensor

__all__ = ["reduce", "argreduce", "mean", "var", "fold", "scan", "normalize_axes",
           "normalize_axis", "REDUCTIONS", "SCANS", "MAX_COLUMNS", "MAX_INDEX"]

# name -> (combine, map of each element, accumulator dtype (None: the output dtype),
#          value of an empty reduction (None: it has none))
REDUCTIONS = {
    "sum": ("add", "cast", None, 0),
    "prod": ("mul", "cast", None, 1),
    "min": ("min", "cast", None, None),
    "max": ("max", "cast", None, None),
    "all": ("min", "nonzero", dt.uint32, True),
    "any": ("max", "nonzero", dt.uint32, False),
    "count_nonzero": ("add", "nonzero", dt.int32, 0),
}
# the elementwise op that combines two partial results of a reduction (by result dtype kind)
_PARTIALS = {"add": "add", "mul": "multiply", "min": "minimum", "max": "maximum"}
_BOOL_PARTIALS = {"min": "logical_and", "max": "logical_or"}
# the most elements one launch reduces per output (the kernel addresses column j of a row
# through i32(j)); longer reduced extents are reduced in pieces
MAX_COLUMNS = 2**31 - 1
# the largest count (count_nonzero) or index (argmin, argmax) of their int32 results
MAX_INDEX = 2**31 - 1
# scan name -> combine
SCANS = {"sum": "add", "prod": "mul", "min": "min", "max": "max"}
_SCAN_IDENTITY = {"add": 0, "mul": 1}

_BUSY = 4096  # workgroups a sum's first pass keeps before its threads take more columns
_COL_GROUP_CAP = 8  # column layout: at most 8 lanes per group, so 32 adjacent rows per warp


class _Rows:
    """M rows of n columns of one buffer: element (r, j) is at offset + Σ c_d·s_d + j·stride,
    c_d the coordinates of r over ``dims`` ((size, stride), outermost first). ``fold``
    consecutive rows belong to the same output (their columns continue one another)."""

    __slots__ = ("buf", "dtype", "offset", "dims", "n", "stride", "fold")

    def __init__(self, buf, dtype, offset, dims, n, stride, fold=1):
        self.buf, self.dtype, self.offset = buf, dtype, offset
        self.dims, self.n, self.stride, self.fold = list(dims), n, stride, fold

    @property
    def count(self) -> int:
        return math.prod(s for s, _ in self.dims)


def _merge(dims):
    """Merge neighbouring (size, stride...) entries that address memory as one axis."""
    out: list = []
    for d in dims:
        if d[0] == 1:
            continue
        if out and all(p == q * d[0] for p, q in zip(out[-1][1:], d[1:])):
            out[-1] = (out[-1][0] * d[0],) + tuple(d[1:])
        else:
            out.append(tuple(d))
    return out


def _rows_of(x: Tensor, axes, ordered: bool, pending: bool = False) -> _Rows:
    """Rows over the kept axes of x, columns over ``axes``. Unless ``ordered`` (the flat
    index of the reduced axes matters: argmin/argmax), the reduced axes may be reordered so
    that the innermost run has the smallest stride. ``pending``: x is not computed (its
    layout C-contiguous at offset 0, as it will be; no buffer)."""
    keep = [(n, s) for d, (n, s) in enumerate(zip(x.shape, x._strides)) if d not in axes]
    red = [(x.shape[d], x._strides[d]) for d in sorted(axes)]
    if not ordered:
        red.sort(key=lambda d: -abs(d[1]))
    keep, red = _merge(keep), _merge(red)
    if not red:
        red = [(1, 0)]
    folded = red[:-1]
    return _Rows(None if pending else x._buf, x.dtype, 0 if pending else x._offset,
                 keep + folded, red[-1][0], red[-1][1], math.prod(n for n, _ in folded))


def _group_size(cols: int, loads: int, cap: int) -> int:
    """Threads per group: the smallest power of two whose chunk covers the row, capped."""
    need = max(1, -(-cols // loads))
    return min(cap, 1 << (need - 1).bit_length())


def _colmode(rows: _Rows) -> bool:
    """Adjacent threads take adjacent rows when that is what makes the loads coalesce."""
    return bool(rows.dims) and abs(rows.stride) != 1 and abs(rows.dims[-1][1]) < abs(rows.stride)


def _f32_word(v: float) -> int:
    return struct.unpack("<I", _storage.f32_bytes(v))[0]


def _fill(shape, dtype, value, device) -> Tensor:
    return _graph.execute(device, shape, [(Scalar(0, dtype), None)], (), [(dtype, value)])[0]


def _run(rows: _Rows, combine: str, mapping: str, acc: dt.DType, out: Tensor, *,
         transform: str = "none", divisor: float = 0.0, means: Tensor | None = None,
         chunk_group: int | None = None, user: rspec.UserFold | None = None,
         more: tuple = (), tail: tuple = (), expr: tuple | None = None,
         keep: tuple | None = None) -> Tensor | None:
    """Reduce rows into out (C-contiguous, one element per output row), pass after pass.

    With chunk_group set, run one pass only, with that group size, the scan's chunk length
    and no vec4 loads, and return the (rows, chunks) partials: the chunk totals a long scan
    needs. With user (combine "user"), the final pass also binds ``more`` (the fold's
    further outputs and its cut line) and every pass takes the fold's ``tail`` words.
    With expr ((expression, views, scalars): ``graph.elementwise_dag`` of a pending array
    laid out as rows, which have no buffer), the first pass computes each element from the
    views instead of reading it, and the passes are kept under ``keep`` (``_absorbed``
    replays them with the next call's views, offsets and scalars).
    """
    device = out.device
    arg = combine in ("argmin", "argmax")
    # the passes of a plain reduction depend only on the rows' layout and the op: kept per
    # device, so a repeated reduction only allocates its partials and dispatches
    passes = None
    if expr is not None:
        passes, sig = ([], keep) if keep is not None else (None, None)
    elif user is None and means is None and chunk_group is None and not more and not tail \
            and not arg:
        sig = _plan_key(rows, combine, mapping, acc, out.dtype, transform, divisor)
        plan = device.plans.get(sig)
        if plan is not None:
            _replay(plan, [rows.buf], out, acc, device)
            return None
        passes = []
    ex = device.executor
    rk, sk = device.kernels.reduction, device.kernels.scan  # this device's generators
    indices = None
    while True:
        in_dtype = rows.dtype
        colmode = _colmode(rows)
        vec4 = (
            chunk_group is None and not colmode and mapping != "pairs" and rows.stride == 1
            and lanes.words(in_dtype) == 1
            and rows.n % 4 == 0 and rows.offset % 4 == 0
            and all(s % 4 == 0 for _, s in rows.dims)
        )
        div = 4 if vec4 else 1
        per_thread = sk.per_thread(acc) if chunk_group else rk.P  # the device's kernels' own
        if combine == "add" and chunk_group is None:
            # sums: more columns per thread (up to the generator's P_ADD) while the grid
            # keeps _BUSY workgroups (2^26 on an H200: 1,441-1,730 -> 2,668 GB/s at 64;
            # at 2^24, 64 would leave 1,024 workgroups and lose a quarter)
            top = getattr(rk, "P_ADD", per_thread)
            while per_thread < top and rows.count * rows.n >= _BUSY * rk.WORKGROUP * 2 * per_thread:
                per_thread *= 2
        loads = per_thread // div
        cols = rows.n // div
        group = chunk_group or _group_size(cols, loads, _COL_GROUP_CAP if colmode else rk.WORKGROUP)
        # a row of no elements (a user fold's, with an identity) is one chunk of padding
        chunks = max(1, -(-cols // (group * loads)))
        m = rows.count
        final = chunk_group is None and chunks == 1 and rows.fold == 1
        spec = rspec.ReduceSpec(combine, mapping, in_dtype, acc,
                             out.dtype if final else acc, final,
                             transform if final else "none", vec4, per_thread, user,
                             expr[0] if expr else None)
        bindings = [v._buf for v in expr[1]] if expr else [rows.buf]
        if mapping == "pairs":
            bindings.append(indices._buf)
        if mapping == "sqdev":
            bindings.append(means._buf)
        if final:
            bindings.append(out._buf)
            bindings += [t._buf for t in more]
        else:
            partials = tensor.empty((m * chunks,), acc, device)
            bindings.append(partials._buf)
            if arg:
                part_idx = tensor.empty((m * chunks,), dt.int32, device)
                bindings.append(part_idx._buf)
        if spec.transform != "none" and acc in (dt.float64, dt.complex128):
            # the divisor in float64: f32 bits would round counts past 2**24
            tail = tuple(lanes.scalar_words(dt.float64, divisor))
        words = _expr_words(expr[1], expr[2]) if expr else tail
        uniforms = rspec.pack_uniforms(
            m, cols, chunks, group, colmode, rows.offset // div, rows.stride, rows.fold,
            means._offset if means is not None else 0, _f32_word(divisor),
            [(n, s // div) for n, s in rows.dims], words,
        )
        make = (lambda spec=spec: rk.generate(spec))
        grid = rk.grid(m * chunks, group, ex.max_workgroups_per_dim)
        device.launch(spec.key, make, bindings, uniforms, grid)
        if passes is not None:
            passes.append((spec.key, make, uniforms, grid, None if final else m * chunks))
        if final:
            if passes is not None:
                device.keep_plan(sig, tuple(passes))
            return None
        if chunk_group is not None:
            return partials
        outs = m // rows.fold
        width = rows.fold * chunks
        rows = _Rows(partials._buf, acc, 0, [(outs, width)], width, 1)
        expr = None
        if arg:
            indices = part_idx
            mapping = "pairs"
        else:
            mapping = "cast"
        means = None




def _plan_key(rows: _Rows, combine: str, mapping: str, acc: dt.DType, out_dtype: dt.DType,
              transform: str = "none", divisor: float = 0.0) -> tuple:
    """The key of a plain reduction's kept passes (``Device.plans``): what they depend on."""
    return ("reduce", rows.dtype, rows.offset, tuple(rows.dims), rows.n, rows.stride,
            rows.fold, combine, mapping, acc, out_dtype, transform, divisor)


def _replay(plan, bufs: list, out: Tensor, acc: dt.DType, device, new=None, words=()) -> None:
    """The passes of a kept plan (``_run``) over the buffers its first pass reads (the
    input's; an absorbed expression's views', ``_absorbed``) into out: each pass but the
    last into new partials (made by ``new``, acc's ``tensor.maker``, where given), which the
    next one reads. ``words``: the absorbed expression's offsets and scalars, which end the
    first pass's uniforms instead of the recorded call's."""
    for key, make, uniforms, grid, partials in plan:
        if words:
            uniforms = _with_words(uniforms, words)
            words = ()
        if partials is None:
            device.launch(key, make, bufs + [out._buf], uniforms, grid)
            return
        t = new((partials,), (1,)) if new else tensor.empty((partials,), acc, device)
        device.launch(key, make, bufs + [t._buf], uniforms, grid)
        bufs = [t._buf]


_WORDS: dict = {}  # (a first pass's uniforms, an absorbed expression's words) -> the words in them
_WORDS_KEPT = 4096


def _with_words(uniforms: bytes, words: tuple) -> bytes:
    """A kept first pass's uniforms with its last words, an absorbed expression's offsets
    and scalars, replaced by ``words``; the last few thousand kept (a loop's repeats take
    the same words: packing them again was ~2 µs a call on a 2-core VM)."""
    out = _WORDS.get((uniforms, words))
    if out is None:
        if len(_WORDS) >= _WORDS_KEPT:
            _WORDS.clear()
        out = _WORDS[(uniforms, words)] = (uniforms[:len(uniforms) - 4 * len(words)]
                                           + _uniforms.pack(words, "reduction"))
    return out


def _out_shape(shape, axes, keepdims: bool):
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _unbroadcast(x: Tensor, axes):
    """x with each reduced axis of stride 0 cut to its first entry (a view), and how many
    times each remaining element stands for itself: the product of those axes' lengths."""
    shape = list(x.shape)
    repeats = 1
    for d in axes:
        if x._strides[d] == 0 and shape[d] > 1:
            repeats *= shape[d]
            shape[d] = 1
    if repeats == 1:
        return x, 1
    return tensor.view(x._buf, x.dtype, shape, x._strides, x._offset, x.device), repeats


def _along(x: Tensor, axis: int, start: int, size: int) -> Tensor:
    shape = list(x.shape)
    shape[axis] = size
    return tensor.view(x._buf, x.dtype, shape, x._strides, x._offset + start * x._strides[axis],
                       x.device)


def _pieces(x: Tensor, axes, limit: int):
    """Views of x that together hold it, each with at most ``limit`` elements over the
    reduced axes: the longest reduced axis is cut into blocks (recursively, when the other
    reduced axes alone hold more than limit)."""
    count = math.prod(x.shape[d] for d in axes)
    if count <= limit:
        yield x
        return
    a = max(axes, key=lambda d: x.shape[d])
    n = x.shape[a]
    step = max(1, limit // (count // n))
    for start in range(0, n, step):
        yield from _pieces(_along(x, a, start, min(step, n - start)), axes, limit)


def _partials_op(combine: str, dtype: dt.DType) -> str:
    return _BOOL_PARTIALS[combine] if dtype is dt.bool else _PARTIALS[combine]


def _repeat(a: Tensor, k: int, combine: str) -> Tensor:
    """a combined with itself k times ("add": k·a, "mul": a**k) by doubling: 2·log2(k)
    elementwise launches at most. Integers wrap as k combinations would; a float sum rounds
    once per set bit of k (each doubling is exact)."""
    op = _PARTIALS[combine]
    result = None
    while True:
        if k & 1:
            result = a if result is None else _graph.table_op(op, (result, a))
        k >>= 1
        if not k:
            return result
        a = _graph.table_op(op, (a, a))


def _reduced(x: Tensor, axes, shape, combine: str, mapping: str, acc: dt.DType,
             out_dtype: dt.DType, means: Tensor | None = None) -> Tensor:
    """x reduced over axes into a new array of shape: one tree reduction, or one per piece
    of at most MAX_COLUMNS elements combined elementwise."""
    total = None
    for piece in _pieces(x, axes, MAX_COLUMNS):
        out = tensor.empty(shape, out_dtype, x.device)
        _run(_rows_of(piece, axes, ordered=False), combine, mapping, acc, out, means=means)
        total = out if total is None else _graph.table_op(_partials_op(combine, out_dtype),
                                                      (total, out))
    return total


def fold(x: Tensor, axes, user: rspec.UserFold, outs, tail=(), cut: Tensor | None = None
         ) -> None:
    """x, an array of the fold's accumulator dtype, folded over ``axes`` by a
    ReductionKernel's functions (``UserFold``): its post-map writes the outputs of each
    position of the other axes, in C order, to ``outs`` (C-contiguous; it reads them too
    when it takes them); ``cut`` (one uint32, when the post-map is checked) receives the
    line of a loop that the device cut short. ``tail``: the fold's uniform words
    (``UserFold``). Where axes hold no elements each output position gets the post-map of
    the identity (the caller refuses that to a fold without one)."""
    # outs may be arrays that pending records read: those are computed first
    _graph.flush(x.device)
    more = tuple(outs[1:]) + ((cut,) if cut is not None else ())
    _run(_rows_of(x, axes, ordered=True), "user", "cast", x.dtype, outs[0], user=user,
         more=more, tail=tuple(tail))


def reduce(x: Tensor, axes, op: str, out_dtype: dt.DType, keepdims: bool = False) -> Tensor:
    """Reduce x over ``axes`` (a tuple of distinct non-negative axes) with the reduction
    ``op`` (a key of REDUCTIONS); elements are converted to out_dtype (or the op's
    accumulator) as they are read. Integer sums and products wrap in out_dtype. An empty
    reduction gives the op's identity, or ValueError for min and max. count_nonzero raises
    OverflowError where a count exceeds int32."""
    device = x.device
    if x._b is None:  # pending: its elementwise DAG computed by the first pass, if it can be
        out = _absorbed(x, axes, op, out_dtype, keepdims)
        if out is not None:
            return out
    # a reduction of this layout seen before, in one tree of kept passes: its result's
    # shape and the plan, straight to the dispatches (a sum's host time on an H200 was
    # ~34 µs, most of it finding what the last call found)
    sig = ("reduce-of", op, out_dtype, x._dtype, x._shape, x._strides, x._offset, axes, keepdims)
    seen = device.plans.get(sig)
    if seen is not None:
        shape, strides, acc, run, new_out, new_partials, count = seen
        plan = device.plans.get(run)
        # (a count_nonzero past MAX_INDEX takes the checked path below, whatever was kept)
        if plan is not None and (count <= MAX_INDEX or op != "count_nonzero"):
            out = new_out(shape, strides)
            _replay(plan, [x._buf], out, acc, device, new_partials)
            return out
    combine, mapping, acc, empty = REDUCTIONS[op]
    acc = acc or out_dtype
    axes = tuple(axes)
    shape = _out_shape(x.shape, axes, keepdims)
    if math.prod(shape) == 0:
        return tensor.empty(shape, out_dtype, device)
    count = math.prod(x.shape[d] for d in axes)
    if count == 0:
        if empty is None:
            raise ValueError(
                f"{op} of an empty reduction has no value: the reduced axes {axes} of shape "
                f"{x.shape} hold no elements"
            )
        return _fill(shape, out_dtype, empty, device)
    x, repeats = _unbroadcast(x, axes)
    if op == "count_nonzero" and count > MAX_INDEX:
        return _big_count(x, axes, shape, repeats)
    if repeats == 1 and count <= MAX_COLUMNS and combine not in ("argmin", "argmax"):
        run = _plan_key(_rows_of(x, axes, ordered=False), combine, mapping, acc, out_dtype)
        device.keep_plan(sig, (shape, tensor.c_strides(shape), acc, run,  # _run keeps run's plan
                               tensor.maker(out_dtype, device), tensor.maker(acc, device), count))
    out = _reduced(x, axes, shape, combine, mapping, acc, out_dtype)
    if repeats == 1 or combine in ("min", "max"):  # min, max, all, any: idempotent
        return out
    return _repeat(out, repeats, combine)


# the smallest pending array a reduction absorbs: below it the bytes saved are few, while
# every expression's structure compiles a reduction kernel of its own (the expression
# written out once per element a thread loads) where the array computed first reuses the
# plain reduction kernels. The host time is alike (sum(x * y) of 16 or 4,096 elements
# issued in 27-28 µs either way on a 2-core VM, alternated interpreters)
ABSORB_MIN = 1 << 16
# the most characters an absorbed expression's calls may come to inlined (launch.call_size):
# arithmetic, comparisons, maximum, sqrt (a product 201, a comparison 374, sqrt 620), not
# exp, sin or remainder (2,300-7,700): on lavapipe sum(exp(x) * sin(y) + tanh(x)) of 2^20
# compiled in 2.5 s absorbed against 0.5 and ran 49-60 ms against 38
ABSORB_SIZE = 2000


def _absorbed(x: Tensor, axes, op: str, out_dtype: dt.DType, keepdims: bool,
              transform: str = "none", divisor: float = 0.0) -> Tensor | None:
    """x (pending) reduced by a first pass that computes its elementwise DAG itself, reading
    the DAG's leaves once instead of x written and read back (``sum(x * y)``: one launch
    and one array's traffic fewer), with the passes and values of the reduction of the
    computed x (``transform`` and ``divisor``: a mean's, as ``_divided`` passes them); or
    None where that does not apply (the caller computes x, as before): a
    device whose reduction generator does not absorb (``ABSORBS``), a reduction other
    than a plain sum, product, min or max, a two-word accumulator or result (a float32 sum
    in float64), an x of fewer than ABSORB_MIN elements, a DAG
    ``graph.elementwise_dag`` refuses, or one whose calls come to more than ABSORB_SIZE
    characters inlined (the first pass writes the expression out once per element a thread
    loads: up to 64)."""
    size = math.prod(x.shape)
    if size < ABSORB_MIN or size > MAX_INDEX:  # (first: the small arrays of a loop leave here)
        return None
    device = x.device
    # bindings: the uniforms, the output and the DAG's leaves
    limit = getattr(device.executor, "max_storage_buffers", 8) - 2
    found = _graph.elementwise_structure(x, limit)
    if found is None:
        return None
    structure, views, scalars = found
    # a reduction of this expression's structure and layout seen before: its result's shape
    # and its kept passes, replayed with this call's views, offsets and scalars (what the
    # checks below decided depends on nothing else: sum(x * y) of 2^22 issued in ~35 µs
    # with a lowering and the checks each call on a 2-core VM, against ~11 for sum(x))
    sig = ("absorbed", op, out_dtype, x._shape, tuple(axes), keepdims, transform, divisor,
           structure)
    seen = device.plans.get(sig)
    if seen is not None:
        shape, strides, acc, new_out, new_partials = seen
        plan = device.plans.get((sig, "passes"))
        if plan is not None:
            out = new_out(shape, strides)
            _replay(plan, [v._buf for v in views], out, acc, device, new_partials,
                    words=_expr_words(views, scalars))
            return out
    combine, mapping, acc, _ = REDUCTIONS[op]
    acc = acc or out_dtype
    if (not getattr(device.kernels.reduction, "ABSORBS", False) or mapping != "cast"
            or combine not in ("add", "mul", "min", "max")
            or lanes.words(acc) != 1 or lanes.words(out_dtype) != 1):
        return None  # (a float64 accumulator: its looped loads read one buffer)
    shape = _out_shape(x.shape, axes, keepdims)
    count = math.prod(x.shape[d] for d in axes)
    if math.prod(shape) == 0 or count == 0 or count > MAX_COLUMNS:
        return None
    dag = _graph.elementwise_dag(x, limit)
    if dag is None:
        return None
    expr, dag_views, dag_scalars = dag
    if sum(launch.call_size(device, n) for n in walk([expr]) if type(n) is Apply) > ABSORB_SIZE:
        return None
    # the passes kept where the lowering found the walk's views and scalars, in its order
    # (the first pass's last uniform words are the views' offsets and the scalars' values)
    keep = (len(dag_views) == len(views) and all(u is v for u, v in zip(dag_views, views))
            and dag_scalars == scalars) or None
    if keep:
        device.keep_plan(sig, (shape, tensor.c_strides(shape), acc,
                               tensor.maker(out_dtype, device), tensor.maker(acc, device)))
    out = tensor.empty(shape, out_dtype, device)
    _run(_rows_of(x, axes, ordered=False, pending=True), combine, mapping, acc, out,
         transform=transform, divisor=divisor, expr=dag, keep=keep and (sig, "passes"))
    return out


def _expr_words(views, scalars) -> tuple:
    """An absorbed expression's uniform words after the row dimensions: its views' offsets
    (in elements), then its scalars' words."""
    return tuple(v._offset for v in views) + tuple(
        w for d, value in scalars for w in lanes.scalar_words(d, value))


def _big_count(x: Tensor, axes, shape, repeats: int) -> Tensor:
    """count_nonzero over more than MAX_INDEX elements (each distinct one standing for
    ``repeats``): counted (in int64 where pieces add up), checked against int32 by one
    readback of the largest count, then repeated."""
    distinct = math.prod(x.shape[d] for d in axes)
    wide = dt.int64 if distinct > MAX_COLUMNS else dt.int32
    counts = _reduced(x, axes, shape, "add", "nonzero", wide, wide)
    most = _graph.host_values(reduce(counts, tuple(range(counts.ndim)), "max", wide))[0] * repeats
    if most > MAX_INDEX:
        raise OverflowError(
            f"count_nonzero: {most} nonzero elements do not fit the int32 result (at most "
            f"{MAX_INDEX})"
        )
    if wide is not dt.int32:
        counts = _graph.copy_of(counts, dt.int32)
    return counts if repeats == 1 else _repeat(counts, repeats, "add")


def _index_range_error(op: str, what: str) -> OverflowError:
    return OverflowError(
        f"{op}: {what}, past the int32 index range (at most {MAX_INDEX})"
    )


def argreduce(x: Tensor, axis: int | None, op: str, keepdims: bool = False) -> Tensor:
    """Index (int32) of the first minimum (op "argmin") or maximum ("argmax") along axis,
    or of the flattened array when axis is None. NaN counts as the extreme value: the first
    NaN wins, as in NumPy. Along axes of stride 0 the first element wins; an index past
    int32 raises OverflowError."""
    axes = tuple(range(x.ndim)) if axis is None else (axis,)
    shape = _out_shape(x.shape, axes, keepdims)
    device = x.device
    count = math.prod(x.shape[d] for d in axes)
    if count == 0:
        if math.prod(shape) == 0:
            return tensor.empty(shape, dt.int32, device)
        raise ValueError(
            f"{op} of an empty sequence: the searched axes {axes} of shape {x.shape} hold "
            "no elements"
        )
    if math.prod(shape) == 0:
        return tensor.empty(shape, dt.int32, device)
    y, repeats = _unbroadcast(x, axes)
    if repeats == 1:
        if count > MAX_INDEX:
            raise _index_range_error(op, f"searching {count} distinct elements of shape "
                                         f"{x.shape} needs indices")
        out = tensor.empty(shape, dt.int32, device)
        _run(_rows_of(x, axes, ordered=True), op, "cast", x.dtype, out)
        return out
    # along a stride-0 axis every element is the same, and the first (index 0) wins
    if axis is not None:
        return _fill(shape, dt.int32, 0, device)
    return _flat_in(argreduce(y, None, op, keepdims), y.shape, x.shape, op)


def _flat_in(f: Tensor, y_shape, x_shape, op: str) -> Tensor:
    """The flat index f (an int32 array) of an element of y, which is x with some axes cut
    to length 1, as the flat index of the same coordinates (0 on the cut axes) in x."""
    if math.prod(x_shape) - 1 > MAX_INDEX:  # the answer may not fit: look at it
        flat = f._host_flat()[0]
        coords = []
        for n in reversed(y_shape):
            flat, c = divmod(flat, n)
            coords.append(c)
        index = 0
        for n, c in zip(x_shape, reversed(coords)):
            index = index * n + c
        if index > MAX_INDEX:
            raise _index_range_error(op, f"the answer {index} in the flattened shape "
                                         f"{x_shape} is an index")
        return _fill(f.shape, dt.int32, index, f.device)
    # coordinate d is (f // inner_y[d]) % y_shape[d], weighed by inner_x[d]: all in int32
    i32 = dt.int32
    scalars: list = []

    def sc(v: int) -> Scalar:
        scalars.append((i32, v))
        return Scalar(len(scalars) - 1, i32)

    def op2(name: str, a, b) -> Apply:
        return Apply(name, (a, b), i32, i32)

    node = sc(0)
    inner_y = inner_x = 1
    for n_y, n_x in zip(reversed(y_shape), reversed(x_shape)):
        if n_y > 1:
            c = op2("remainder", op2("floor_divide", Input(0, i32), sc(inner_y)), sc(n_y))
            node = op2("add", node, op2("multiply", c, sc(inner_x)))
        inner_y *= n_y
        inner_x *= n_x
    return _graph.execute(f.device, f.shape, [(node, None)], [f], scalars)[0]


def mean(x: Tensor, axes, keepdims: bool = False) -> Tensor:
    """Arithmetic mean over axes of a floating-point array (complex too): a tree sum
    divided by the count in the last pass. NaN (NaN + NaN j) where the count is zero."""
    axes = tuple(axes)
    shape = _out_shape(x.shape, axes, keepdims)
    count = math.prod(x.shape[d] for d in axes)
    if math.prod(shape) == 0:
        return tensor.empty(shape, x.dtype, x.device)
    if count == 0:
        nan = complex(math.nan, math.nan) if x.dtype.kind == "c" else math.nan
        return _fill(shape, x.dtype, nan, x.device)
    if x._b is None:  # pending: its DAG computed by the sum's first pass, if it can be
        out = _absorbed(x, axes, "sum", x.dtype, keepdims, "div", float(count))
        if out is not None:
            return out
    # the mean of copies is the mean of one
    x, repeats = _unbroadcast(x, axes)
    return _divided(x, axes, shape, "cast", count // repeats)


def _divided(x: Tensor, axes, shape, mapping: str, divisor: float,
             means: Tensor | None = None, sqrt: bool = False) -> Tensor:
    """The sum over axes of the mapped elements divided by divisor (then its square root):
    by the last pass of one tree reduction, or elementwise after the pieces' sums."""
    transform = "div_sqrt" if sqrt else "div"
    if math.prod(x.shape[d] for d in axes) <= MAX_COLUMNS:
        out = tensor.empty(shape, x.dtype, x.device)
        _run(_rows_of(x, axes, ordered=False), "add", mapping, x.dtype, out,
             transform=transform, divisor=float(divisor), means=means)
        return out
    total = _reduced(x, axes, shape, "add", mapping, x.dtype, x.dtype, means)
    out = _graph.table_op("divide", (total,), [(x.dtype, float(divisor))])
    return _graph.table_op("sqrt", (out,)) if sqrt else out


def var(x: Tensor, axes, correction: float = 0.0, keepdims: bool = False,
        sqrt: bool = False) -> Tensor:
    """Variance (standard deviation with sqrt=True) over axes of a float32 or float64
    array, by two passes over x: the mean, then the tree sum of squared deviations from it
    divided by count - correction (NaN where that is not positive)."""
    axes = tuple(axes)
    shape = _out_shape(x.shape, axes, keepdims)
    count = math.prod(x.shape[d] for d in axes)
    if math.prod(shape) == 0:
        return tensor.empty(shape, x.dtype, x.device)
    if count == 0 or count - correction <= 0:
        return _fill(shape, x.dtype, math.nan, x.device)
    # k copies of each element: k·Σ(y - m)² / (count - c) = Σ(y - m)² / ((count - c) / k)
    x, repeats = _unbroadcast(x, axes)
    means = mean(x, axes)
    return _divided(x, axes, shape, "sqdev", (count - correction) / repeats, means, sqrt)


# -- scans -------------------------------------------------------------------------------------

def scan(x: Tensor, axis: int, op: str, out_dtype: dt.DType, exclusive: bool = False,
         include_initial: bool = False) -> Tensor:
    """Cumulative op (a key of SCANS) of x along ``axis`` (non-negative, x at least 1-D),
    elements converted to out_dtype as they are read; integer results wrap in out_dtype.

    exclusive: element j holds the scan of elements before j (the identity first), same
    shape as x. include_initial: the axis grows by one, element 0 is the identity.
    Only "sum" and "prod" have an identity, so only they allow either flag.
    """
    combine = SCANS[op]
    n = x.shape[axis]
    shifted = exclusive or include_initial
    if shifted and combine not in _SCAN_IDENTITY:
        raise ValueError(f"an exclusive {op} scan has no identity to start from")
    n_out = n + 1 if include_initial else n
    shape = x.shape[:axis] + (n_out,) + x.shape[axis + 1:]
    device = x.device
    out = tensor.empty(shape, out_dtype, device)
    if math.prod(shape) == 0:
        return out
    if n == 0:
        return _fill(shape, out_dtype, _SCAN_IDENTITY[combine], device)
    x = _graph.bindable(x, strided=True)
    dims = [(size, si, so)
            for d, (size, si, so) in enumerate(zip(x.shape, x._strides, out._strides))
            if d != axis]
    _scan_rows(x._buf, x.dtype, x._offset, _merge(dims), n, x._strides[axis],
               out, 0, out._strides[axis], n_out, 1 if shifted else 0, combine)
    return out


def _scan_rows(buf, in_dtype, offset, dims, n, stride, out, out_offset, out_stride,
               n_out, shift, combine):
    """Scan rows (dims: (size, input stride, output stride)) of n columns into out."""
    device = out.device
    ex = device.executor
    rk, sk = device.kernels.reduction, device.kernels.scan  # this device's generators
    acc = out.dtype
    colmode = bool(dims) and abs(stride) != 1 and abs(dims[-1][1]) < abs(stride)
    p = sk.per_thread(acc)
    group = _group_size(n, p, _COL_GROUP_CAP if colmode else rk.WORKGROUP)
    chunks = -(-n // (group * p))
    m = math.prod(d[0] for d in dims)
    carry = None
    if chunks > 1:
        rows = _Rows(buf, in_dtype, offset, [(d[0], d[1]) for d in dims], n, stride)
        totals = _run(rows, combine, "cast", acc, out, chunk_group=group)
        carry = tensor.empty((m * chunks,), acc, device)
        _scan_rows(totals._buf, acc, 0, [(m, chunks, chunks)] if m > 1 else [], chunks, 1,
                   carry, 0, 1, chunks, 1, combine)
    spec = sspec.ScanSpec(combine, in_dtype, acc, carry is not None)
    bindings = [buf] + ([carry._buf] if carry is not None else []) + [out._buf]
    uniforms = sspec.pack_uniforms(m, n, chunks, group, colmode, offset, stride,
                                out._offset + out_offset, out_stride, n_out, shift, dims, p)
    device.launch(spec.key, lambda: sk.generate(spec), bindings, uniforms,
                  rk.grid(m * chunks, group, ex.max_workgroups_per_dim))


# -- argument normalisation shared by the namespace functions over axes ------------------------

def normalize_axes(axis, ndim: int, name: str) -> tuple[int, ...]:
    """The non-negative axes of an ``axis`` argument (None: every axis; an int; a tuple of
    ints). TypeError for other types, ValueError for an axis out of range or repeated."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in items:
        out.append(normalize_axis(a, ndim, name, "an int, a tuple of ints or None"))
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: axis {axis!r} repeats an axis; each axis may appear once")
    return tuple(out)


def normalize_axis(axis, ndim: int, name: str, allowed: str = "an int") -> int:
    """A single axis in [-ndim, ndim) as a non-negative int."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"{name}: axis must be {allowed}, got {axis!r}")
    a = axis.__index__()
    if not -ndim <= a < ndim:
        hint = f"allowed: {-ndim} to {ndim - 1}" if ndim else "a 0-d array has no axes"
        raise ValueError(
            f"{name}: axis {a} is out of range for an array of {ndim} dimensions ({hint})"
        )
    return a % ndim
