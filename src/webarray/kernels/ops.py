"""The op table: one declarative entry per elementwise op.

Each entry gives the op's arity, the dtype category its inputs must belong to (a key of
``_dtypes.categories``), how the result dtype follows from the computing dtype, and one
expression per shader language and *lane*. A lane is how a dtype is held in a shader
register: ``b`` bool, ``i`` i32 (int8/int16/int32), ``u`` u32 (uint8/uint16/uint32), ``f`` f32.
Expressions name their arguments ``{0}``, ``{1}``, ... and may call helpers ``wa_*`` from
the language's helper library; the generators pull in only the helpers a kernel uses.

The standard's special cases (NaN, ±inf, ±0, integer limits) live in the expressions and
helpers, so every generated kernel, fused or not, honours them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int
    inputs: str  # dtype category of the arguments
    result: str  # "same": the computing dtype; "bool"
    wgsl: dict = field(default_factory=dict)  # lane ("b","i","u","f") -> expression


def _lanes(spec: dict) -> dict:
    """Expand shorthand keys: "int" = i and u, "num" = i, u and f, "all" = every lane."""
    out = {}
    groups = {"int": "iu", "num": "iuf", "all": "biuf"}
    for key, expr in spec.items():
        for lane in groups.get(key, key):
            out[lane] = expr
    return out


def _op(name, arity, inputs, result, wgsl) -> OpDef:
    return OpDef(name, arity, inputs, result, _lanes(wgsl))


TABLE: dict[str, OpDef] = {
    op.name: op
    for op in [
        # -- arithmetic -------------------------------------------------------------------
        _op("abs", 1, "numeric", "same", {"i": "abs({0})", "u": "{0}", "f": "abs({0})"}),
        _op("positive", 1, "numeric", "same", {"num": "{0}"}),
        _op("negative", 1, "numeric", "same", {"i": "-{0}", "u": "(0u - {0})", "f": "-{0}"}),
        _op("add", 2, "numeric", "same", {"num": "({0} + {1})"}),
        _op("subtract", 2, "numeric", "same", {"num": "({0} - {1})"}),
        _op("multiply", 2, "numeric", "same", {"num": "({0} * {1})"}),
        _op("divide", 2, "floating-point", "same", {"f": "({0} / {1})"}),
        _op("floor_divide", 2, "real numeric", "same",
            {"i": "wa_floordiv_i({0}, {1})", "u": "select(0u, {0} / {1}, {1} != 0u)",
             "f": "wa_floordiv_f({0}, {1})"}),
        _op("remainder", 2, "real numeric", "same",
            {"i": "wa_rem_i({0}, {1})", "u": "select(0u, {0} % {1}, {1} != 0u)",
             "f": "wa_rem_f({0}, {1})"}),
        _op("pow", 2, "numeric", "same",
            {"i": "wa_pow_i({0}, {1})", "u": "wa_pow_u({0}, {1})", "f": "wa_pow_f({0}, {1})"}),
        _op("square", 1, "numeric", "same", {"num": "({0} * {0})"}),
        _op("sqrt", 1, "floating-point", "same", {"f": "wa_sqrt({0})"}),
        _op("reciprocal", 1, "floating-point", "same", {"f": "(1.0 / {0})"}),
        _op("sign", 1, "numeric", "same",
            {"i": "sign({0})", "u": "select(0u, 1u, {0} > 0u)", "f": "wa_sign_f({0})"}),
        _op("maximum", 2, "real numeric", "same", {"int": "max({0}, {1})", "f": "wa_max_f({0}, {1})"}),
        _op("minimum", 2, "real numeric", "same", {"int": "min({0}, {1})", "f": "wa_min_f({0}, {1})"}),
        _op("clip", 3, "real numeric", "same",
            {"int": "min(max({0}, {1}), {2})", "f": "wa_clip_f({0}, {1}, {2})"}),
        _op("copysign", 2, "real floating-point", "same", {"f": "wa_copysign({0}, {1})"}),
        _op("nextafter", 2, "real floating-point", "same", {"f": "wa_nextafter({0}, {1})"}),
        _op("hypot", 2, "real floating-point", "same", {"f": "wa_hypot({0}, {1})"}),
        _op("logaddexp", 2, "real floating-point", "same", {"f": "wa_logaddexp({0}, {1})"}),
        # -- rounding ---------------------------------------------------------------------
        _op("ceil", 1, "real numeric", "same", {"int": "{0}", "f": "ceil({0})"}),
        _op("floor", 1, "real numeric", "same", {"int": "{0}", "f": "floor({0})"}),
        _op("trunc", 1, "real numeric", "same", {"int": "{0}", "f": "trunc({0})"}),
        _op("round", 1, "numeric", "same", {"int": "{0}", "f": "round({0})"}),
        # -- exponentials and logarithms --------------------------------------------------
        _op("exp", 1, "floating-point", "same", {"f": "wa_exp({0})"}),
        _op("expm1", 1, "floating-point", "same", {"f": "wa_expm1({0})"}),
        _op("log", 1, "floating-point", "same", {"f": "wa_log({0})"}),
        _op("log1p", 1, "floating-point", "same", {"f": "wa_log1p({0})"}),
        _op("log2", 1, "floating-point", "same", {"f": "wa_log2({0})"}),
        _op("log10", 1, "floating-point", "same", {"f": "wa_log10({0})"}),
        # -- trigonometric and hyperbolic -------------------------------------------------
        _op("sin", 1, "floating-point", "same", {"f": "wa_sin({0})"}),
        _op("cos", 1, "floating-point", "same", {"f": "wa_cos({0})"}),
        _op("tan", 1, "floating-point", "same", {"f": "wa_tan({0})"}),
        _op("asin", 1, "floating-point", "same", {"f": "wa_asin({0})"}),
        _op("acos", 1, "floating-point", "same", {"f": "wa_acos({0})"}),
        _op("atan", 1, "floating-point", "same", {"f": "atan({0})"}),
        _op("atan2", 2, "real floating-point", "same", {"f": "wa_atan2({0}, {1})"}),
        _op("sinh", 1, "floating-point", "same", {"f": "wa_sinh({0})"}),
        _op("cosh", 1, "floating-point", "same", {"f": "wa_cosh({0})"}),
        _op("tanh", 1, "floating-point", "same", {"f": "wa_tanh({0})"}),
        _op("asinh", 1, "floating-point", "same", {"f": "wa_asinh({0})"}),
        _op("acosh", 1, "floating-point", "same", {"f": "wa_acosh({0})"}),
        _op("atanh", 1, "floating-point", "same", {"f": "wa_atanh({0})"}),
        # -- complex parts (real dtypes here; complex lanes arrive with complex64) ------------
        _op("conj", 1, "numeric", "same", {"num": "{0}"}),
        _op("real", 1, "numeric", "same", {"num": "{0}"}),
        # -- classification ---------------------------------------------------------------
        _op("isnan", 1, "numeric", "bool", {"int": "false", "f": "wa_isnan({0})"}),
        _op("isinf", 1, "numeric", "bool", {"int": "false", "f": "wa_isinf({0})"}),
        _op("isfinite", 1, "numeric", "bool", {"int": "true", "f": "wa_isfinite({0})"}),
        _op("signbit", 1, "real floating-point", "bool", {"f": "((bitcast<u32>({0}) >> 31u) == 1u)"}),
        # -- comparison (NaN compares unequal and unordered, as IEEE says) ---------------------
        _op("equal", 2, "any", "bool", {"all": "({0} == {1})", "f": "wa_eq({0}, {1})"}),
        _op("not_equal", 2, "any", "bool", {"all": "({0} != {1})", "f": "!wa_eq({0}, {1})"}),
        _op("less", 2, "real numeric", "bool", {"num": "({0} < {1})", "f": "wa_lt({0}, {1})"}),
        _op("less_equal", 2, "real numeric", "bool", {"num": "({0} <= {1})", "f": "wa_le({0}, {1})"}),
        _op("greater", 2, "real numeric", "bool", {"num": "({0} > {1})", "f": "wa_lt({1}, {0})"}),
        _op("greater_equal", 2, "real numeric", "bool", {"num": "({0} >= {1})", "f": "wa_le({1}, {0})"}),
        # -- logical ----------------------------------------------------------------------
        _op("logical_and", 2, "boolean", "bool", {"b": "({0} && {1})"}),
        _op("logical_or", 2, "boolean", "bool", {"b": "({0} || {1})"}),
        _op("logical_xor", 2, "boolean", "bool", {"b": "({0} != {1})"}),
        _op("logical_not", 1, "boolean", "bool", {"b": "!{0}"}),
        # -- bitwise ----------------------------------------------------------------------
        _op("bitwise_and", 2, "integer or boolean", "same", {"b": "({0} && {1})", "int": "({0} & {1})"}),
        _op("bitwise_or", 2, "integer or boolean", "same", {"b": "({0} || {1})", "int": "({0} | {1})"}),
        _op("bitwise_xor", 2, "integer or boolean", "same", {"b": "({0} != {1})", "int": "({0} ^ {1})"}),
        _op("bitwise_invert", 1, "integer or boolean", "same", {"b": "!{0}", "int": "~{0}"}),
        # Shifts by the bit width or more give 0 (or -1 for a negative signed right shift),
        # as NumPy does; the i lane holds small signed types sign-extended, so one rule fits.
        _op("bitwise_left_shift", 2, "integer", "same",
            {"i": "select(0, {0} << u32({1}), u32({1}) < 32u)",
             "u": "select(0u, {0} << {1}, {1} < 32u)"}),
        _op("bitwise_right_shift", 2, "integer", "same",
            {"i": "({0} >> min(u32({1}), 31u))",
             "u": "select(0u, {0} >> {1}, {1} < 32u)"}),
        # -- selection and copies (not functions of the standard on their own) ---------------
        _op("where", 3, "any", "same", {"all": "select({2}, {1}, {0})"}),
        _op("copy", 1, "any", "same", {"all": "{0}"}),
    ]
}


def lane_of(dtype) -> str:
    """The register lane of a dtype on WebGPU (32-bit dtypes and the narrower ones)."""
    return {"b": "b", "i": "i", "u": "u", "f": "f"}[dtype.kind]
