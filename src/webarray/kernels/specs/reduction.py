"""Reductions' structure (``ReduceSpec``, with ``UserFold`` for the folds of CuPy's
ReductionKernel), uniform words and the pieces of the WGSL subset that both generators
write them with (identity, combine, the float keys of min/max and argmin/argmax): shared
by ``webgpu/reduction.py``, ``webgpu/scan.py``, ``webgl2/reduction.py`` and
``webgl2/scan.py`` and by ``_core/algorithms/reduce.py``, which launches them.
The uniform words are described in ``webgpu/reduction.py``.

float64 (lane D, WebGPU only) combines through the op table's software binary64
(``wa_f64_*``). NumPy's float64 sum starts from +0.0 (a sum of -0.0 alone is +0.0) while
its cumulative sum starts from the first element (-0.0 stays): so a sum's final pass adds
its tree to +0.0 (``sum_start``), and a scan pads and prefixes with -0.0
(``scan_neutral``), the value x for which x + y is y for every y. min/max propagate NaN
through ``wa_f64_min``/``wa_f64_max``; arg reductions compare by ``wa_f64_lt`` with -0.0
equal to +0.0, NaN winning as for float32.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._dtypes import DType
from ..._dtypes import bool as _BOOL
from .. import lanes
from ..expr import Input, walk
from ..ops import TABLE, lane_of
from ..uniforms import UniformOverflow, pack
from ..wgsl_lib import helpers_for

WORKGROUP = 256
# columns each thread loads (P // 4 vec4 loads on the vec4 path): 16 keeps enough loads in
# flight per thread to reach ~2 TB/s on an H100, against ~1.3 TB/s with 8
P = 16
# the most columns a thread of a sum ("add": sum, mean, var, count_nonzero) loads when the
# rows are long enough to keep the grid busy (_core/algorithms/reduce.py); max loses at 64
# (session 8's probe: -25% at 2^24), sums gain
P_ADD = 64
NONE = "0xffffffffu"  # index of a padding element in arg reductions

@dataclass(frozen=True)
class UserFold:
    """A fold of CuPy's ReductionKernel: translated user functions (``cupy/_kernel_lang.py``:
    ``.name``, ``.source(lang)``, ``.glsl_outputs()``, ``.inputs``, ``.checked``,
    ``.readable_outputs``). ``reduce_fn`` (a, b) -> a combines two values of the
    accumulator dtype; ``identity_fn`` () -> a starts each thread's fold, or, when None, a
    thread starts from its first element and values carry a flag of whether they hold
    one; ``post_fn`` (a, _in_ind.size(), _out_ind.size(), scalars..., [outputs]) -> outputs
    [, line of a loop cut short when ``checked``] writes each row's outputs in the final
    pass. Its uniform words follow the row dimensions (``pack_uniforms``' ``tail``):
    _in_ind.size(), _out_ind.size(), then the post-map's scalars (one word each)."""

    reduce_fn: object
    identity_fn: object | None
    post_fn: object
    out_dtypes: tuple
    scalar_dtypes: tuple

    @property
    def key(self):
        return (self.reduce_fn.name, self.identity_fn.name if self.identity_fn else None,
                self.post_fn.name, self.post_fn.readable_outputs, self.post_fn.checked,
                tuple(d.name for d in self.out_dtypes), tuple(d.name for d in self.scalar_dtypes))

    def functions(self) -> list:
        return [f for f in (self.reduce_fn, self.identity_fn, self.post_fn) if f is not None]


@dataclass(frozen=True)
class ReduceSpec:
    combine: str  # add, mul, min, max, argmin, argmax, user (the fold of ``user``)
    # cast: x as acc; nonzero: 1 or 0; sqdev: (x - mean[row])²; pairs: (value, index) read
    # from partials of an arg reduction
    mapping: str
    in_dtype: DType
    acc_dtype: DType
    out_dtype: DType  # for the arg combines of the final pass: the index dtype
    final: bool  # writes the result (transformed) rather than partials
    transform: str = "none"  # none, div, div_sqrt: applied by the final pass
    vec4: bool = False
    per_thread: int = P  # columns each thread loads
    user: UserFold | None = None  # combine "user" only
    # an elementwise expression (kernels/expr.py) whose value at each element is the
    # element (a pending array absorbed into the first pass: its Input slots read
    # bindings in0, in1, ... at their offsets plus the element's index, its scalars follow
    # the offsets in the uniforms' tail)
    expr: object = None

    @property
    def key(self):
        return ("reduce", self.combine, self.mapping, self.in_dtype.name, self.acc_dtype.name,
                self.out_dtype.name, self.final, self.transform, self.vec4, self.per_thread,
                WORKGROUP, self.user.key if self.user else None,
                self.expr.key if self.expr is not None else None)

    @property
    def inputs(self) -> int:
        """How many Input slots the absorbed expression reads (0 without one)."""
        if self.expr is None:
            return 0
        return 1 + max((n.slot for n in walk([self.expr]) if isinstance(n, Input)), default=-1)

    @property
    def arg(self) -> bool:
        return self.combine in ("argmin", "argmax")

    @property
    def flagged(self) -> bool:
        """Values carry a flag (a user fold without identity): padding has no value."""
        return self.user is not None and self.user.identity_fn is None

    def bindings(self) -> list[str]:
        """Names of bindings 1..n in order (binding 0 holds the uniforms). The final pass of
        a user fold writes out, out1, ... (one per output), then cut (the line of a loop
        that the device cut short, when the post-map is checked)."""
        names = [f"in{m}" for m in range(self.inputs)] if self.expr is not None else ["values"]
        if self.mapping == "pairs":
            names.append("indices")
        if self.mapping == "sqdev":
            names.append("means")
        names.append("out")
        if self.arg and not self.final:
            names.append("out_indices")
        if self.user is not None and self.final:
            names += [f"out{k}" for k in range(1, len(self.user.out_dtypes))]
            if self.user.post_fn.checked:
                names.append("cut")
        return names


cast = lanes.cast


def nonzero(dtype: DType, v: str) -> str:
    """A bool register: v != 0 (NaN and ±inf are nonzero, ±0 is zero)."""
    return cast(dtype, _BOOL, v)


def identity(combine: str, dtype: DType) -> str:
    """WGSL expression of the combine's identity in dtype's register type."""
    lane = lane_of(dtype)
    if combine in ("add", "argmin", "argmax"):
        return lanes.literal(dtype, 0)
    if combine == "mul":
        return lanes.literal(dtype, 1)
    high = combine == "min"
    if lane == "f":
        return "wa_inf()" if high else "-wa_inf()"
    if lane == "u":
        return "0xffffffffu" if high else "0u"
    if lane == "i":
        return "2147483647" if high else "bitcast<i32>(0x80000000u)"
    if lane == "I":
        return "vec2<u32>(0xffffffffu, 0x7fffffffu)" if high else "vec2<u32>(0u, 0x80000000u)"
    if lane == "U":
        return "vec2<u32>(0xffffffffu, 0xffffffffu)" if high else "vec2<u32>(0u, 0u)"
    if lane == "D":  # ±inf
        return "vec2<u32>(0u, 0x7ff00000u)" if high else "vec2<u32>(0u, 0xfff00000u)"
    raise TypeError(f"no {combine} identity for {dtype.name}")


def scan_neutral(combine: str, dtype: DType) -> str:
    """What a scan combines its padding and first prefix with: the identity, except -0.0
    for float64 sums (-0.0 + y is y for every y, so a prefix of -0.0 stays -0.0 as in
    NumPy's cumsum; +0.0 + -0.0 is +0.0)."""
    if lane_of(dtype) == "D" and combine == "add":
        return "vec2<u32>(0u, 0x80000000u)"
    return identity(combine, dtype)


def sum_start(combine: str, dtype: DType, v: str) -> str:
    """A reduction's value v as NumPy's would end: a float64 sum starts from +0.0, so
    +0.0 + v (a sum of -0.0 alone is +0.0 whatever the tree did; every other v stays);
    a complex128 sum from +0 + 0j, part by part."""
    if lane_of(dtype) == "D" and combine == "add":
        return f"wa_f64_add(vec2<u32>(0u, 0u), {v})"
    if lane_of(dtype) == "Z" and combine == "add":
        return f"wa_z_add(vec4<u32>(0u), {v})"
    return v


_TABLE_OP = {"add": "add", "mul": "multiply", "min": "minimum", "max": "maximum"}


def fold_identity(spec: ReduceSpec, call) -> str | None:
    """The fold's identity as a register of the accumulator; None for a flagged user fold.
    call(fn, args): the renderer's text calling a user function for its first output."""
    if spec.user is None:
        return identity(spec.combine, spec.acc_dtype)
    fn = spec.user.identity_fn
    return None if fn is None else lanes.wrap(spec.acc_dtype, call(fn, ""))


def fold_combine(spec: ReduceSpec, a: str, b: str, call) -> str:
    """a and b combined by the spec's combine, or by the user's reduce function, wrapped as
    C's assignment to a narrow reduce_type wraps (call: as in ``fold_identity``)."""
    if spec.user is None:
        return combine_expr(spec.combine, spec.acc_dtype, a, b)
    return lanes.wrap(spec.acc_dtype, call(spec.user.reduce_fn, f"{a}, {b}"))


def looped(dtype: DType) -> bool:
    """Whether a reduction's or scan's steps over dtype loop around one call site of the
    combine instead of being written out: float64 and complex128, whose software combines
    are long functions that SwiftShader inlines at every call (straight-line, a float64 sum
    took 15 s to compile, a complex128 sum or scan lost Chromium's GPU process). The loops
    take the same steps in the same order: the same bits."""
    return lane_of(dtype) in "DZ"


def tree_steps(w, loop: bool, top: int, descending: bool = False) -> list[str]:
    """The step sizes 1, 2, 4, ..., top (a power of two; or top down to 1) that a generator
    writes a tree's steps with: their literals (straight-line), or, where ``loop``, the loop
    variable ``d`` after opening its loop (closed by ``end_steps``)."""
    if loop:
        if descending:
            w(f"    for (var d = {top}u; d >= 1u; d = d >> 1u) {{")
        else:
            w(f"    for (var d = 1u; d <= {top}u; d = d << 1u) {{")
        return ["d"]
    sizes = [f"{1 << k}u" for k in range(top.bit_length())]
    return sizes[::-1] if descending else sizes


def end_steps(w, loop: bool) -> None:
    if loop:
        w("    }")


def combine_expr(combine: str, dtype: DType, a: str, b: str) -> str:
    """The op table's expression for the combine, except float min/max: those compare
    integer keys (below), so that no float instruction touches the value."""
    if lane_of(dtype) == "f" and combine in ("min", "max"):
        return f"ra_{combine}_f({a}, {b})"
    return TABLE[_TABLE_OP[combine]].wgsl[lane_of(dtype)].format(a, b)


# Float comparisons by integer keys: the key orders like the value (-0.0 and +0.0 equal)
# and no float instruction runs, so subnormals survive where the device flushes them (an
# NVIDIA H100 compiles select(b, a, a < b) to a flushing float min). NaN is tested by bits.
RA_HELPERS = """fn ra_key(x: f32) -> i32 {
    let b = bitcast<i32>(x);
    return select(b, -(b & 0x7fffffff), b < 0);
}
fn ra_min_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    return select(b, a, ra_key(a) < ra_key(b));
}
fn ra_max_f(a: f32, b: f32) -> f32 {
    if (wa_isnan(a) || wa_isnan(b)) { return wa_nan(); }
    return select(b, a, ra_key(a) > ra_key(b));
}
"""


# (x - mean)² of float64 registers, the difference computed once
RA_SQDEV_D = """fn ra_sqdev_d(x: vec2<u32>, m: vec2<u32>) -> vec2<u32> {
    let d = wa_f64_sub(x, m);
    return wa_f64_mul(d, d);
}
"""


def ra_helpers(code: str) -> str:
    """RA_HELPERS (and RA_SQDEV_D) when code calls any of them, with the wa_* helpers they
    need."""
    extra = ""
    if any(f"{name}(" in code for name in ("ra_key", "ra_min_f", "ra_max_f")):
        extra += RA_HELPERS
    if "ra_sqdev_d(" in code:
        extra += RA_SQDEV_D
    return helpers_for(code + extra) + extra


def sqdev(dtype: DType, x: str, mean: str) -> str:
    """(x - mean)² of two registers of dtype, the sqdev mapping's value."""
    if lane_of(dtype) == "D":
        return f"ra_sqdev_d({x}, {mean})"
    d = f"({x} - {mean})"
    return f"({d} * {d})"


def divided(dtype: DType, acc: str, divisor: str, sqrt: bool) -> str:
    """The final transform of a float64 or complex128 accumulator (div, div_sqrt): acc /
    divisor (its square root), NaN where divisor (a float64 register) is not positive; a
    complex128 one (a mean) divided part by part."""
    if lane_of(dtype) == "Z":
        return (f"select(wa_z_nan(), wa_z_div_real({acc}, {divisor}), "
                f"wa_f64_lt(vec2<u32>(0u, 0u), {divisor}))")
    nan = "vec2<u32>(0u, 0xfff80000u)"  # x86's default NaN, which NumPy's float64 gives
    res = f"select({nan}, wa_f64_div({acc}, {divisor}), wa_f64_lt(vec2<u32>(0u, 0u), {divisor}))"
    return f"wa_f64_sqrt({res})" if sqrt else res


def better_fn(combine: str, dtype: DType) -> str:
    """WGSL fn ra_keep(av, ai, bv, bi) -> bool: does (av, ai) win over (bv, bi)? The first
    occurrence wins ties, NaN beats every number (NumPy's rule), a NONE index always loses."""
    t = lanes.wgsl_type(dtype)
    cmp = ">" if combine == "argmax" else "<"
    body = [f"fn ra_keep(av: {t}, ai: u32, bv: {t}, bi: u32) -> bool {{",
            f"    if (bi == {NONE}) {{ return true; }}",
            f"    if (ai == {NONE}) {{ return false; }}"]
    a, b = "av", "bv"
    if lane_of(dtype) == "f":
        body += ["    let an = wa_isnan(av);",
                 "    let bn = wa_isnan(bv);",
                 "    if (an != bn) { return an; }",
                 "    if (an) { return ai < bi; }"]
        a, b = "ra_key(av)", "ra_key(bv)"
    if lane_of(dtype) in "IUD":
        first, second = ("bv", "av") if combine == "argmax" else ("av", "bv")
        if lane_of(dtype) == "D":
            body += ["    let an = wa_f64_isnan(av);",
                     "    let bn = wa_f64_isnan(bv);",
                     "    if (an != bn) { return an; }",
                     "    if (an || wa_f64_eq(av, bv)) { return ai < bi; }",
                     f"    return wa_f64_lt({first}, {second});", "}"]
            return "\n".join(body) + "\n"
        lt = "wa_lt_i64" if lane_of(dtype) == "I" else "wa_lt_u64"
        body += ["    if (wa_eq64(av, bv)) { return ai < bi; }",
                 f"    return {lt}({first}, {second});", "}"]
        return "\n".join(body) + "\n"
    body += [f"    if ({a} == {b}) {{ return ai < bi; }}", f"    return {a} {cmp} {b};", "}"]
    return "\n".join(body) + "\n"


def pack_uniforms(rows: int, cols: int, chunks: int, group: int, colmode: bool, offset: int,
                  stride: int, fold: int, aux_offset: int, divisor_bits: int,
                  row_dims, tail=()) -> bytes:
    """Uniform words of one pass. row_dims: (size, stride) per row dimension, outermost
    first; group: threads per group S (a power of two up to WORKGROUP); tail: words after
    the row dimensions (a user fold's, ``UserFold``), at 15 + 2 * len(row_dims)."""
    log_s = group.bit_length() - 1
    log_r = (WORKGROUP // group).bit_length() - 1
    if colmode:
        ls, gs = log_r, 0
    else:
        ls, gs = 0, log_s
    words = [rows, cols, chunks, group, ls, group - 1, gs, WORKGROUP // group - 1,
             1 if colmode else 0, offset, stride, fold, aux_offset, divisor_bits, len(row_dims)]
    for size, st in row_dims:
        words += [size, st]
    words += tail
    if rows * chunks >= 1 << 32:
        # the kernel numbers its groups row * chunks + chunk in one u32
        raise UniformOverflow(
            f"reduction kernel: {rows} rows of {chunks} chunks each make {rows * chunks} "
            "groups, more than the 2**32 that one launch numbers"
        )
    return pack(words, "reduction")
