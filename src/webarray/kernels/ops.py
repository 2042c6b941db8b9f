"""The op table: one declarative entry per elementwise op.

Each entry gives the op's arity, the dtype category its inputs must belong to (a key of
``_dtypes.categories``), how the result dtype follows from the computing dtype, and one
expression per shader language and *lane*. A lane is how a dtype is held in a shader
register: ``b`` bool, ``i`` i32 (int8/int16/int32), ``u`` u32 (uint8/uint16/uint32), ``f`` f32,
``I`` int64 and ``U`` uint64 (``vec2<u32>``, low word first), ``D`` float64 (``vec2<u32>``
holding its IEEE bits, computed in software: ``wgsl_f64.py``), ``c`` complex64 (``vec2<f32>``),
``Z`` complex128 (``vec4<u32>``: two float64 parts, real first: ``wgsl_complex128.py``).
Expressions name their arguments ``{0}``, ``{1}``, ... and may call helpers ``wa_*`` from
the language's helper library; the generators pull in only the helpers a kernel uses.

The standard's special cases (NaN, ±inf, ±0, integer limits) live in the expressions and
helpers, so every generated kernel, fused or not, honours them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .wgsl_lib import Stage
from . import wgsl_complex, wgsl_complex128, wgsl_f64, wgsl_f64_math, wgsl_int64  # noqa: F401 (define the wide lanes' helpers)


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int
    inputs: str  # dtype category of the arguments
    result: str  # "same": the computing dtype; "bool"; "real": its real dtype (abs of complex)
    wgsl: dict = field(default_factory=dict)  # lane ("b","i","u","f","I","U","c") -> expression
    # the op's NumPy/CuPy ufunc names (webarray.cupy offers it under each); () for ops that
    # are no ufunc there (clip, where, real, ... have NumPy signatures of their own)
    numpy: tuple = ()
    # names of CUDA math calls that compute this op's float lane in the C-like bodies of
    # CuPy kernels (webarray.cupy._kernel_lang takes them from here)
    c: tuple = ()
    # "float": operands that are all integers (arrays or Python ints) compute in the default
    # float, as NumPy, CuPy and PyTorch divide them (the standard leaves it to the library);
    # "": they compute in the dtype the op's input category allows, or raise
    integers: str = ""


def _lanes(spec: dict) -> dict:
    """Expand shorthand keys: "int" = i and u, "num" = i, u and f, "all" = b, i, u and f,
    "wide" = I and U (int64 and uint64), "any" = every lane."""
    out = {}
    groups = {"int": "iu", "num": "iuf", "all": "biuf", "wide": "IU", "any": "biufIUc"}
    for key, expr in spec.items():
        for lane in groups.get(key, key):
            out[lane] = expr
    return out


def _op(name, arity, inputs, result, wgsl, numpy=None, c=(), integers="") -> OpDef:
    return OpDef(name, arity, inputs, result, _lanes(wgsl), (name,) if numpy is None else numpy,
                 c, integers)


TABLE: dict[str, OpDef] = {
    op.name: op
    for op in [
        # -- arithmetic -------------------------------------------------------------------
        _op("abs", 1, "numeric", "real", {"i": "abs({0})", "u": "{0}", "f": "abs({0})",
                                          "I": "wa_abs_i64({0})", "U": "{0}", "c": "wa_cabs({0})",
                                          "D": "wa_f64_abs({0})", "Z": "wa_z_abs({0})"},
            numpy=("abs", "absolute", "fabs")),
        _op("positive", 1, "numeric", "same", {"num": "{0}", "wide": "{0}", "c": "{0}",
                                               "D": "{0}", "Z": "{0}"}),
        _op("negative", 1, "numeric", "same", {"i": "-{0}", "u": "(0u - {0})", "f": "-{0}",
                                               "wide": "wa_neg64({0})", "c": "(-{0})",
                                               "D": "wa_f64_neg({0})", "Z": "wa_z_neg({0})"}),
        _op("add", 2, "numeric", "same", {"num": "({0} + {1})", "wide": "wa_add64({0}, {1})",
                                          "c": "wa_cadd({0}, {1})",
                                          "D": "wa_f64_add({0}, {1})",
                                          "Z": "wa_z_add({0}, {1})"}),
        _op("subtract", 2, "numeric", "same", {"num": "({0} - {1})", "wide": "wa_sub64({0}, {1})",
                                               "c": "wa_csub({0}, {1})",
                                               "D": "wa_f64_sub({0}, {1})",
                                               "Z": "wa_z_sub({0}, {1})"}),
        _op("multiply", 2, "numeric", "same", {"num": "({0} * {1})", "wide": "wa_mul64({0}, {1})",
                                               "c": "wa_cmul({0}, {1})",
                                               "D": "wa_f64_mul({0}, {1})",
                                               "Z": "wa_z_mul({0}, {1})"}),
        _op("divide", 2, "floating-point", "same", {"f": "({0} / {1})", "c": "wa_cdiv({0}, {1})",
                                                    "D": "wa_f64_div({0}, {1})",
                                                    "Z": "wa_z_div({0}, {1})"},
            numpy=("divide", "true_divide"), integers="float"),
        _op("floor_divide", 2, "real numeric", "same",
            {"i": "wa_floordiv_i({0}, {1})", "u": "select(0u, {0} / {1}, {1} != 0u)",
             "f": "wa_floordiv_f({0}, {1})", "I": "wa_floordiv_i64({0}, {1})",
             "U": "wa_div_u64({0}, {1})",
             "D": "wa_f64_floordiv({0}, {1})"}),
        _op("remainder", 2, "real numeric", "same",
            {"i": "wa_rem_i({0}, {1})", "u": "select(0u, {0} % {1}, {1} != 0u)",
             "f": "wa_rem_f({0}, {1})", "I": "wa_rem_i64({0}, {1})", "U": "wa_rem_u64({0}, {1})",
             "D": "wa_f64_rem({0}, {1})"},
            numpy=("remainder", "mod")),
        _op("pow", 2, "numeric", "same",
            {"i": "wa_pow_i({0}, {1})", "u": "wa_pow_u({0}, {1})", "f": "wa_pow_f({0}, {1})",
             "I": "wa_pow_i64({0}, {1})", "U": "wa_pow_u64({0}, {1})", "c": "wa_cpow({0}, {1})",
             "D": "wa_f64_pow({0}, {1})", "Z": "wa_z_pow({0}, {1})"},
            numpy=("pow", "power")),
        _op("square", 1, "numeric", "same", {"num": "({0} * {0})", "wide": "wa_mul64({0}, {0})",
                                             "c": "wa_csquare({0})",
                                             "D": "wa_f64_mul({0}, {0})",
                                             "Z": "wa_z_square({0})"}),
        _op("sqrt", 1, "floating-point", "same", {"f": "wa_sqrt({0})", "c": "wa_csqrt({0})",
                                                  "D": "wa_f64_sqrt({0})", "Z": "wa_z_sqrt({0})"}),
        # not in the standard (no webarray.cbrt): NumPy's, CuPy's and CUDA's cube root
        _op("cbrt", 1, "real floating-point", "same", {"f": "wa_cbrt({0})",
                                                       "D": "wa_f64_cbrt({0})"},
            c=("cbrt", "cbrtf")),
        _op("reciprocal", 1, "floating-point", "same", {"f": "(1.0 / {0})",
                                                        "c": "wa_creciprocal({0})",
                                                        "D": "wa_f64_div(vec2<u32>(0u, 0x3ff00000u), {0})",
                                                        "Z": "wa_z_reciprocal({0})"}),
        _op("sign", 1, "numeric", "same",
            {"i": "sign({0})", "u": "select(0u, 1u, {0} > 0u)", "f": "wa_sign_f({0})",
             "I": "wa_sign_i64({0})", "U": "wa_sign_u64({0})", "c": "wa_csign({0})",
             "D": "select(select(vec2<u32>(0u, ({0}.y & 0x80000000u) | 0x3ff00000u), "
                   "vec2<u32>(0u, 0u), wa_f64_eq({0}, vec2<u32>(0u, 0u))), {0}, wa_f64_isnan({0}))",
             "Z": "wa_z_sign({0})"}),
        _op("maximum", 2, "real numeric", "same", {"int": "max({0}, {1})",
                                                   "f": "wa_max_f({0}, {1})",
                                                   "I": "wa_max_i64({0}, {1})",
                                                   "U": "wa_max_u64({0}, {1})",
                                                   "D": "wa_f64_max({0}, {1})"}),
        _op("minimum", 2, "real numeric", "same", {"int": "min({0}, {1})",
                                                   "f": "wa_min_f({0}, {1})",
                                                   "I": "wa_min_i64({0}, {1})",
                                                   "U": "wa_min_u64({0}, {1})",
                                                   "D": "wa_f64_min({0}, {1})"}),
        _op("clip", 3, "real numeric", "same",
            {"int": "min(max({0}, {1}), {2})", "f": "wa_clip_f({0}, {1}, {2})",
             "I": "wa_min_i64(wa_max_i64({0}, {1}), {2})",
             "U": "wa_min_u64(wa_max_u64({0}, {1}), {2})",
             "D": "wa_f64_min(wa_f64_max({0}, {1}), {2})"}, numpy=()),
        _op("copysign", 2, "real floating-point", "same", {"f": "wa_copysign({0}, {1})",
                                                           "D": "wa_f64_copysign({0}, {1})"}),
        _op("nextafter", 2, "real floating-point", "same", {"f": "wa_nextafter({0}, {1})",
                                                               "D": "wa_f64_nextafter({0}, {1})"}),
        _op("hypot", 2, "real floating-point", "same", {"f": "wa_hypot({0}, {1})",
                                                               "D": "wa_f64_hypot({0}, {1})"}),
        _op("logaddexp", 2, "real floating-point", "same", {"f": "wa_logaddexp({0}, {1})",
                                                               "D": "wa_f64_logaddexp({0}, {1})"}),
        # -- rounding ---------------------------------------------------------------------
        _op("ceil", 1, "real numeric", "same", {"int": "{0}", "f": "ceil({0})", "wide": "{0}",
                                                "D": "wa_f64_ceil({0})"}),
        _op("floor", 1, "real numeric", "same", {"int": "{0}", "f": "floor({0})", "wide": "{0}",
                                                 "D": "wa_f64_floor({0})"}),
        _op("trunc", 1, "real numeric", "same", {"int": "{0}", "f": "trunc({0})", "wide": "{0}",
                                                 "D": "wa_f64_trunc({0})"},
            numpy=("trunc", "fix")),
        _op("round", 1, "numeric", "same", {"int": "{0}", "f": "round({0})", "wide": "{0}",
                                            "c": "wa_cround({0})",
                                            "D": "wa_f64_round({0})", "Z": "wa_z_round({0})"},
            numpy=("rint",)),
        # -- exponentials and logarithms --------------------------------------------------
        _op("exp", 1, "floating-point", "same", {"f": "wa_exp({0})", "c": "wa_cexp({0})",
                                                "D": "wa_f64_exp({0})", "Z": "wa_z_exp({0})"}),
        _op("expm1", 1, "floating-point", "same", {"f": "wa_expm1({0})", "c": "wa_cexpm1({0})",
                                                "D": "wa_f64_expm1({0})", "Z": "wa_z_expm1({0})"}),
        _op("log", 1, "floating-point", "same", {"f": "wa_log({0})", "c": "wa_clog({0})",
                                                "D": "wa_f64_log({0})", "Z": "wa_z_log({0})"}),
        _op("log1p", 1, "floating-point", "same", {"f": "wa_log1p({0})", "c": "wa_clog1p({0})",
                                                "D": "wa_f64_log1p({0})", "Z": "wa_z_log1p({0})"}),
        _op("log2", 1, "floating-point", "same", {"f": "wa_log2({0})", "c": "wa_clog2({0})",
                                                "D": "wa_f64_log2({0})", "Z": "wa_z_log2({0})"}),
        _op("log10", 1, "floating-point", "same", {"f": "wa_log10({0})", "c": "wa_clog10({0})",
                                                "D": "wa_f64_log10({0})", "Z": "wa_z_log10({0})"}),
        # -- trigonometric and hyperbolic -------------------------------------------------
        _op("sin", 1, "floating-point", "same", {"f": "wa_sin({0})", "c": "wa_csin({0})",
                                                 "D": "wa_f64_sin({0})", "Z": "wa_z_sin({0})"}),
        _op("cos", 1, "floating-point", "same", {"f": "wa_cos({0})", "c": "wa_ccos({0})",
                                                 "D": "wa_f64_cos({0})", "Z": "wa_z_cos({0})"}),
        _op("tan", 1, "floating-point", "same", {"f": "wa_tan({0})", "c": "wa_ctan({0})",
                                                 "D": "wa_f64_tan({0})", "Z": "wa_z_tan({0})"}),
        _op("asin", 1, "floating-point", "same", {"f": "wa_asin({0})", "c": "wa_casin({0})",
                                                  "D": "wa_f64_asin({0})", "Z": "wa_z_asin({0})"},
            numpy=("asin", "arcsin")),
        _op("acos", 1, "floating-point", "same", {"f": "wa_acos({0})", "c": "wa_cacos({0})",
                                                  "D": "wa_f64_acos({0})", "Z": "wa_z_acos({0})"},
            numpy=("acos", "arccos")),
        _op("atan", 1, "floating-point", "same", {"f": "wa_atan({0})", "c": "wa_catan({0})",
                                                  "D": "wa_f64_atan({0})", "Z": "wa_z_atan({0})"},
            numpy=("atan", "arctan")),
        _op("atan2", 2, "real floating-point", "same", {"f": "wa_atan2({0}, {1})",
                                                          "D": "wa_f64_atan2({0}, {1})"},
            numpy=("atan2", "arctan2")),
        _op("sinh", 1, "floating-point", "same", {"f": "wa_sinh({0})", "c": "wa_csinh({0})",
                                                  "D": "wa_f64_sinh({0})", "Z": "wa_z_sinh({0})"}),
        _op("cosh", 1, "floating-point", "same", {"f": "wa_cosh({0})", "c": "wa_ccosh({0})",
                                                  "D": "wa_f64_cosh({0})", "Z": "wa_z_cosh({0})"}),
        _op("tanh", 1, "floating-point", "same", {"f": "wa_tanh({0})", "c": "wa_ctanh({0})",
                                                  "D": "wa_f64_tanh({0})", "Z": "wa_z_tanh({0})"}),
        _op("asinh", 1, "floating-point", "same", {"f": "wa_asinh({0})", "c": "wa_casinh({0})",
                                                   "D": "wa_f64_asinh({0})", "Z": "wa_z_asinh({0})"},
            numpy=("asinh", "arcsinh")),
        _op("acosh", 1, "floating-point", "same", {"f": "wa_acosh({0})", "c": "wa_cacosh({0})",
                                                   "D": "wa_f64_acosh({0})", "Z": "wa_z_acosh({0})"},
            numpy=("acosh", "arccosh")),
        _op("atanh", 1, "floating-point", "same", {"f": "wa_atanh({0})", "c": "wa_catanh({0})",
                                                   "D": "wa_f64_atanh({0})", "Z": "wa_z_atanh({0})"},
            numpy=("atanh", "arctanh")),
        # -- complex parts --------------------------------------------------------------------
        _op("conj", 1, "numeric", "same", {"num": "{0}", "wide": "{0}",
                                           "c": "vec2<f32>({0}.x, -{0}.y)",
                                           "D": "{0}", "Z": "wa_z_conj({0})"},
            numpy=("conj", "conjugate")),
        _op("real", 1, "numeric", "real", {"num": "{0}", "wide": "{0}", "c": "{0}.x",
                                           "D": "{0}", "Z": "{0}.xy"}, numpy=()),
        _op("imag", 1, "complex floating-point", "real", {"c": "{0}.y", "Z": "{0}.zw"}, numpy=()),
        # -- classification ---------------------------------------------------------------
        _op("isnan", 1, "numeric", "bool", {"int": "false", "f": "wa_isnan({0})", "wide": "false",
                                            "c": "wa_cisnan({0})",
                                            "D": "wa_f64_isnan({0})", "Z": "wa_z_isnan({0})"}),
        _op("isinf", 1, "numeric", "bool", {"int": "false", "f": "wa_isinf({0})", "wide": "false",
                                            "c": "wa_cisinf({0})",
                                            "D": "wa_f64_isinf({0})", "Z": "wa_z_isinf({0})"}),
        _op("isfinite", 1, "numeric", "bool", {"int": "true", "f": "wa_isfinite({0})",
                                               "wide": "true", "c": "wa_cisfinite({0})",
                                               "D": "wa_f64_isfinite({0})",
                                               "Z": "wa_z_isfinite({0})"}),
        _op("signbit", 1, "real floating-point", "bool", {"f": "((bitcast<u32>({0}) >> 31u) == 1u)",
                                                          "D": "wa_f64_signbit({0})"}),
        # -- comparison (NaN compares unequal and unordered, as IEEE says) ---------------------
        _op("equal", 2, "any", "bool", {"all": "({0} == {1})", "f": "wa_eq({0}, {1})",
                                        "wide": "wa_eq64({0}, {1})", "c": "wa_ceq({0}, {1})",
                                        "D": "wa_f64_eq({0}, {1})", "Z": "wa_z_eq({0}, {1})"}),
        _op("not_equal", 2, "any", "bool",
            {"all": "({0} != {1})", "f": "!wa_eq({0}, {1})", "wide": "!wa_eq64({0}, {1})",
             "c": "!wa_ceq({0}, {1})",
             "D": "!wa_f64_eq({0}, {1})", "Z": "!wa_z_eq({0}, {1})"}),
        _op("less", 2, "real numeric", "bool", {"num": "({0} < {1})", "f": "wa_lt({0}, {1})",
                                                "I": "wa_lt_i64({0}, {1})",
                                                "U": "wa_lt_u64({0}, {1})",
                                                "D": "wa_f64_lt({0}, {1})"}),
        _op("less_equal", 2, "real numeric", "bool", {"num": "({0} <= {1})",
                                                      "f": "wa_le({0}, {1})",
                                                      "I": "!wa_lt_i64({1}, {0})",
                                                      "U": "!wa_lt_u64({1}, {0})",
                                                      "D": "wa_f64_le({0}, {1})"}),
        _op("greater", 2, "real numeric", "bool", {"num": "({0} > {1})", "f": "wa_lt({1}, {0})",
                                                   "I": "wa_lt_i64({1}, {0})",
                                                   "U": "wa_lt_u64({1}, {0})",
                                                   "D": "wa_f64_lt({1}, {0})"}),
        _op("greater_equal", 2, "real numeric", "bool", {"num": "({0} >= {1})",
                                                         "f": "wa_le({1}, {0})",
                                                         "I": "!wa_lt_i64({0}, {1})",
                                                         "U": "!wa_lt_u64({0}, {1})",
                                                         "D": "wa_f64_le({1}, {0})"}),
        # -- logical ----------------------------------------------------------------------
        _op("logical_and", 2, "boolean", "bool", {"b": "({0} && {1})"}),
        _op("logical_or", 2, "boolean", "bool", {"b": "({0} || {1})"}),
        _op("logical_xor", 2, "boolean", "bool", {"b": "({0} != {1})"}),
        _op("logical_not", 1, "boolean", "bool", {"b": "!{0}"}),
        # -- bitwise ----------------------------------------------------------------------
        _op("bitwise_and", 2, "integer or boolean", "same", {"b": "({0} && {1})",
                                                             "int": "({0} & {1})",
                                                             "wide": "({0} & {1})"}),
        _op("bitwise_or", 2, "integer or boolean", "same", {"b": "({0} || {1})",
                                                            "int": "({0} | {1})",
                                                            "wide": "({0} | {1})"}),
        _op("bitwise_xor", 2, "integer or boolean", "same", {"b": "({0} != {1})",
                                                             "int": "({0} ^ {1})",
                                                             "wide": "({0} ^ {1})"}),
        _op("bitwise_invert", 1, "integer or boolean", "same", {"b": "!{0}", "int": "~{0}",
                                                                "wide": "~{0}"},
            numpy=("bitwise_invert", "invert", "bitwise_not")),
        # Shifts by the bit width or more give 0 (or -1 for a negative signed right shift),
        # as NumPy does; the i lane holds small signed types sign-extended, so one rule fits.
        _op("bitwise_left_shift", 2, "integer", "same",
            {"i": "select(0, {0} << u32({1}), u32({1}) < 32u)",
             "u": "select(0u, {0} << {1}, {1} < 32u)", "wide": "wa_shl64({0}, {1})"},
             numpy=("bitwise_left_shift", "left_shift")),
        _op("bitwise_right_shift", 2, "integer", "same",
            {"i": "({0} >> min(u32({1}), 31u))", "u": "select(0u, {0} >> {1}, {1} < 32u)",
             "I": "wa_shr_i64({0}, {1})", "U": "wa_shr_u64({0}, {1})"},
             numpy=("bitwise_right_shift", "right_shift")),
        # -- selection and copies (not functions of the standard on their own) ---------------
        _op("where", 3, "any", "same", {"all": "select({2}, {1}, {0})",
                                        "wide": "select({2}, {1}, {0})",
                                        "c": "select({2}, {1}, {0})",
                                        "D": "select({2}, {1}, {0})",
                                        "Z": "select({2}, {1}, {0})"}, numpy=()),
        _op("copy", 1, "any", "same", {"all": "{0}", "wide": "{0}", "c": "{0}",
                                       "D": "{0}", "Z": "{0}"}, numpy=()),
    ]
}


# Large float64 and complex128 functions in two to seven kernels, on a device whose shader
# compiler does not run them whole (``Device.staged``: a browser. On WebGL2 SwiftShader
# turned a fragment shader holding an exponential and a logarithm, or either with a division
# and more, into one that writes zeros (the backend's probe refuses those); on WebGPU its
# compiler crashed the GPU process on kernels of ~10^6 characters inlined). Each function's lane
# is, on every device, its stages applied in turn (``wa_f64_pow`` calls ``wa_f64_pow_a`` ...
# ``wa_f64_pow_d``): each stage but the last computes a double-double (an exponential, a
# logarithm, a root, an angle) or a pair (sine and cosine, sinh and cosh), carried to the
# later kernels as a complex128 array, and each later one takes the carriers before it and
# the function's operands. So a staged result is the unstaged one bit for bit.
# launch.elementwise splits them; (op name, lane) -> its stages, ops of STAGE_OPS.


def _staged(*stages) -> tuple[Stage, ...]:
    return tuple(s if isinstance(s, Stage) else Stage(s) for s in stages)


STAGED: dict[tuple[str, str], tuple[Stage, ...]] = {  # the stages' helpers, as ops
    # (wgsl_f64_math.py, wgsl_complex128.py)
    **{(name, "D"): _staged(*(f"wa_f64_{name}_{c}" for c in "abcd"[:count]))
       for name, count in (("expm1", 2), ("sinh", 2), ("cosh", 2), ("tanh", 2), ("pow", 4))},
    # asinh, acosh, atanh, log1p and logaddexp, with a logarithm's table and series a stage
    # of their own (wa_f64_ln_m), an exponential's series too, as wgsl_f64_math composes them
    **{(name, "D"): stages for name, stages in wgsl_f64_math.STAGED.items()},
    # the inverse trigonometric functions: atan2_dd in three (wgsl_f64_math.atan2_stages)
    **{(name, "D"): _staged(*first, f"wa_f64_{name}_b_q", f"wa_f64_{name}_b_u", f"wa_f64_{name}_b_d", last)
       for name, first, last in (("atan2", ("wa_f64_atan2_a",), "wa_f64_atan2_c2"),
                                 ("acos", ("wa_f64_acos_a",), "wa_f64_acos_c2"),
                                 ("asin", ("wa_f64_asin_a",), "wa_f64_asin_c"))},
    ("atan", "D"): _staged("wa_f64_atan_b_q", "wa_f64_atan_b_u", "wa_f64_atan_c"),
    # sin, cos and tan share their reduction
    **{(name, "D"): _staged("wa_f64_trig_r", f"wa_f64_{name}_b") for name in ("sin", "cos", "tan")},
    # complex128: a first stage of (sin b, cos b) is two, b's reduction and the sine and
    # cosine from it (wgsl_complex128._sincos_stage), the later stages do not read the
    # reduction; sinh and cosh share their first stages, sin and cos theirs (sinh's and
    # cosh's at iz), so that a page compiles them once
    **{(name, "Z"): _staged(f"{first}_r", f"{first}_s",
                            *(Stage(stage, tuple(range(1, k + 2))) for k, stage in enumerate(rest)))
       for name, first, rest in (
           ("sinh", "wa_z_hyp_a", ("wa_z_hyp_b", "wa_z_hyp_c", "wa_z_sinh_d")),
           ("cosh", "wa_z_hyp_a", ("wa_z_hyp_b", "wa_z_hyp_c", "wa_z_cosh_d")),
           ("sin", "wa_z_sin_a", ("wa_z_sin_b", "wa_z_sin_c", "wa_z_sin_d")),
           ("cos", "wa_z_sin_a", ("wa_z_sin_b", "wa_z_sin_c", "wa_z_cos_d")),
           ("tanh", "wa_z_tanh_a", ("wa_z_tanh_b", "wa_z_tanh_c", "wa_z_tanh_d")),
           ("tan", "wa_z_tan_a", ("wa_z_tan_b", "wa_z_tan_c", "wa_z_tan_d")))},
    # exp: the sine and cosine, then the exponential of the real part
    ("exp", "Z"): _staged("wa_z_exp_a_r", "wa_z_exp_a_s", "wa_z_exp_b_e", Stage("wa_z_exp_from", (1, 2))),
    # expm1: (sin b, cos b), then sin(b/2), each from a reduction of its own
    ("expm1", "Z"): _staged("wa_z_expm1_a_r", "wa_z_expm1_a_s", "wa_z_expm1_b_r", "wa_z_expm1_b_s",
                            *(Stage(f"wa_z_expm1_{c}", (1, *range(3, k + 4))) for k, c in enumerate("cde"))),
    # the logarithms (ln z in six: its angle's three, ln|z|'s two, the rest) and pow (ln z,
    # the sine and cosine of Im(w ln z), the binary powers), as wgsl_complex128 composes them
    **{(name, "Z"): stages for name, stages in wgsl_complex128.STAGED.items()},
}
# the stages as ops, named as their helpers (not functions of the namespace, so not in
# TABLE): a stage takes the carriers it reads, then the function's arguments; all but the
# last give a complex128 ("dd")
STAGE_OPS: dict[str, OpDef] = {}
for (_name, _lane), _stages in STAGED.items():
    for _k, _stage in enumerate(_stages):
        _args = ", ".join(f"{{{j}}}" for j in range(len(_stage.carriers(_k)) + TABLE[_name].arity))
        _op = OpDef(_stage.fn, len(_stage.carriers(_k)) + TABLE[_name].arity, "floating-point",
                    "same" if _k == len(_stages) - 1 else "dd", {_lane: f"{_stage.fn}({_args})"})
        assert STAGE_OPS.setdefault(_stage.fn, _op) == _op, _stage  # a shared stage: one op
# every op a kernel may apply: the generators look ops up here
KERNEL_OPS: dict[str, OpDef] = {**TABLE, **STAGE_OPS}

def lane_of(dtype) -> str:
    """The register lane of a dtype on WebGPU."""
    return _LANES[dtype.name]


_LANES = {"bool": "b", "int8": "i", "int16": "i", "int32": "i", "uint8": "u", "uint16": "u",
          "uint32": "u", "float32": "f", "int64": "I", "uint64": "U", "float64": "D",
          "complex64": "c", "complex128": "Z"}
