"""The front end's checker and emitters: types a tree of ``syntax.py`` and writes it as a
WGSL or a GLSL ES 3.00 function (``Emitter``), with every conversion C's rules and WGSL's
abstract literals imply spelled out, since neither shader language converts implicitly.

Calls are read in one of two dialects:

- ``"c"`` (kernel bodies of the CuPy layer): C's math names (``expf``, ``fmin``,
  ``isnan``, ``erfcinv``) are the op table's accurate helpers (``CALLS``, filled from
  ``ops.TABLE``), and an unknown name is passed through to the shader compiler;
- ``"wgsl"`` (the op table, the helper library and the WebGL2 registry's kernels): WGSL's
  builtins as WGSL defines them, written as their GLSL counterparts where GLSL differs
  (``round`` is ``roundEven``, ``select(f, t, c)`` is ``c ? t : f``, which evaluates only
  the chosen operand so guarded divisions stay defined, signed ``%`` is a helper since GLSL
  leaves it undefined for negative operands, ``countLeadingZeros``/``countOneBits`` are
  helpers GLSL ES 3.00 lacks: ``GLSL_EXTRA``); an unknown name is an error.

In both, a function of ``signatures`` (name -> (parameter types, result type)) is called
with its arguments converted to its parameters, and recorded in ``used``.

Loops on llvmpipe. Mesa's llvmpipe (lavapipe, the software Vulkan of CI) gives each SIMD
group of a compute shader (8 invocations at 256 bits) one budget of 65,535 loop passes
(gallivm's ``LP_MAX_TGSI_LOOP_ITERATIONS``: set once per shader run, spent by every pass of
every loop, nested or not, never reset when a loop is entered); once it is spent, each
loop ends after its current pass as if it had broken, without an error. Measured on
lavapipe 22.3.6 (Mesa 22.3.6, LLVM 15): a loop to 100,000 stops at 65,535; two loops of
40,000 in a row give 40,000 and 25,534; 300 x 300 nested passes give 65,101; a loop nested
in a loop that re-enters it until it really ended gains nothing (65,535, also three deep);
in a workgroup of 8 where invocation k needs 10,000 (k + 1) passes the last two stop at
65,535, while 8 workgroups of one invocation each have their own budget. So no rewrite
makes loops unbounded there. On such a device a user kernel's body is emitted
``checked``: every loop keeps a flag that its test, ``break`` or ``break if`` sets, a loop
that ends without it records its line in ``lim_cut``, which the kernel returns as one more
output (``cupy/_kernel_lang.py`` raises ``LoopLimitError``); and a loop with no loop
inside runs ``UNROLL`` passes per turn of the emitted loop, so it spends the budget
``UNROLL`` times more slowly: one such loop runs about 524,000 passes per element.
Elsewhere the body is emitted as written: SwiftShader (WebGPU and WebGL2 in Chromium) ran a
loop of 3,000,000 passes exactly.
"""

from __future__ import annotations

import math
import re

from ..ops import TABLE
from .syntax import TEMPLATE, BodyError, Definition
from .types import (AFLOAT, AINT, array_parts, concrete, glsl_type,
                    is_literal, scalar_of, unify, vec_parts, wgsl_type, with_scalar)

# passes of a loop with no loop inside per turn of the emitted loop, where loops are bounded
UNROLL = 8

_F = "f"
CALLS = {
    "sqrt": (_F, _F, "sqrt({0})", "sqrt({0})"),
    # CUDA's special functions (wgsl_lib: float32-accurate helpers)
    "erf": (_F, _F, "wa_erf({0})", "wa_erf({0})"),
    "erfc": (_F, _F, "wa_erfc({0})", "wa_erfc({0})"),
    "erfcx": (_F, _F, "wa_erfcx({0})", "wa_erfcx({0})"),
    "erfinv": (_F, _F, "wa_erfinv({0})", "wa_erfinv({0})"),
    "erfcinv": (_F, _F, "wa_erfcinv({0})", "wa_erfcinv({0})"),
    "normcdf": (_F, _F, "wa_normcdf({0})", "wa_normcdf({0})"),
    "normcdfinv": (_F, _F, "wa_normcdfinv({0})", "wa_normcdfinv({0})"),
    "lgamma": (_F, _F, "wa_lgamma({0})", "wa_lgamma({0})"),
    "digamma": (_F, _F, "wa_digamma({0})", "wa_digamma({0})"),
    # CUDA's fast intrinsics, computed as the accurate functions
    "__expf": (_F, _F, "wa_exp({0})", "wa_exp({0})"),
    "__logf": (_F, _F, "wa_log({0})", "wa_log({0})"),
    "__float2int_rd": (_F, "i", "i32(floor({0}))", "int(floor({0}))"),
    "rsqrt": (_F, _F, "inverseSqrt({0})", "inversesqrt({0})"),
    "exp": (_F, _F, "wa_exp({0})", "wa_exp({0})"),
    "exp2": (_F, _F, "exp2({0})", "exp2({0})"),
    "expm1": (_F, _F, "wa_expm1({0})", "wa_expm1({0})"),
    "log": (_F, _F, "wa_log({0})", "wa_log({0})"),
    "log2": (_F, _F, "wa_log2({0})", "wa_log2({0})"),
    "log10": (_F, _F, "wa_log10({0})", "wa_log10({0})"),
    "log1p": (_F, _F, "wa_log1p({0})", "wa_log1p({0})"),
    "sin": (_F, _F, "wa_sin({0})", "wa_sin({0})"),
    "cos": (_F, _F, "wa_cos({0})", "wa_cos({0})"),
    "tan": (_F, _F, "wa_tan({0})", "wa_tan({0})"),
    "asin": (_F, _F, "wa_asin({0})", "wa_asin({0})"),
    "acos": (_F, _F, "wa_acos({0})", "wa_acos({0})"),
    "atan": (_F, _F, "wa_atan({0})", "wa_atan({0})"),
    "atan2": (_F, _F, "wa_atan2({0}, {1})", "wa_atan2({0}, {1})"),
    "sinh": (_F, _F, "wa_sinh({0})", "wa_sinh({0})"),
    "cosh": (_F, _F, "wa_cosh({0})", "wa_cosh({0})"),
    "tanh": (_F, _F, "wa_tanh({0})", "wa_tanh({0})"),
    "asinh": (_F, _F, "wa_asinh({0})", "wa_asinh({0})"),
    "acosh": (_F, _F, "wa_acosh({0})", "wa_acosh({0})"),
    "atanh": (_F, _F, "wa_atanh({0})", "wa_atanh({0})"),
    "pow": (_F, _F, "wa_pow_f({0}, {1})", "wa_pow_f({0}, {1})"),
    "floor": (_F, _F, "floor({0})", "floor({0})"),
    "ceil": (_F, _F, "ceil({0})", "ceil({0})"),
    "trunc": (_F, _F, "trunc({0})", "trunc({0})"),
    "round": (_F, _F, "round({0})", "roundEven({0})"),
    "rint": (_F, _F, "round({0})", "roundEven({0})"),
    "nearbyint": (_F, _F, "round({0})", "roundEven({0})"),
    "fabs": (_F, _F, "abs({0})", "abs({0})"),
    "fmin": (_F, _F, "min({0}, {1})", "min({0}, {1})"),
    "fmax": (_F, _F, "max({0}, {1})", "max({0}, {1})"),
    "fmod": (_F, _F, "({0} % {1})", "({0} - {1} * trunc({0} / {1}))"),
    "hypot": (_F, _F, "wa_hypot({0}, {1})", "wa_hypot({0}, {1})"),
    "fma": (_F, _F, "fma({0}, {1}, {2})", "({0} * {1} + {2})"),
    "copysign": (_F, _F, "select(abs({0}), -abs({0}), {1} < 0.0 || (bitcast<u32>({1}) >> 31u) == 1u)",
                 "((floatBitsToUint({1}) >> 31u) == 1u ? -abs({0}) : abs({0}))"),
    "mix": (_F, _F, "mix({0}, {1}, {2})", "mix({0}, {1}, {2})"),
    "step": (_F, _F, "step({0}, {1})", "step({0}, {1})"),
    "isnan": (_F, "bool", "((bitcast<u32>({0}) & 0x7fffffffu) > 0x7f800000u)",
              "((floatBitsToUint({0}) & 0x7fffffffu) > 0x7f800000u)"),
    "isinf": (_F, "bool", "((bitcast<u32>({0}) & 0x7fffffffu) == 0x7f800000u)",
              "((floatBitsToUint({0}) & 0x7fffffffu) == 0x7f800000u)"),
    "isfinite": (_F, "bool", "((bitcast<u32>({0}) & 0x7fffffffu) < 0x7f800000u)",
                 "((floatBitsToUint({0}) & 0x7fffffffu) < 0x7f800000u)"),
    "abs": ("same", "same", "abs({0})", "abs({0})"),
    "min": ("same", "same", "min({0}, {1})", "min({0}, {1})"),
    "max": ("same", "same", "max({0}, {1})", "max({0}, {1})"),
    "clamp": ("same", "same", "clamp({0}, {1}, {2})", "clamp({0}, {1}, {2})"),
    "sign": ("same", "same", "sign({0})", "sign({0})"),
    "select": ("select", "same", "select({0}, {1}, {2})", "({2} ? {1} : {0})"),
}
# the op table's float ops under their CUDA names (OpDef.c), where the float lane is one call
# of a helper of the WGSL-subset library, which the GLSL side has under the same name
for _op in TABLE.values():
    _expr = _op.wgsl.get("f", "")
    if _op.c and re.fullmatch(r"wa_\w+\(\{0\}(, \{1\})?\)", _expr):
        for _name in _op.c:
            CALLS[_name] = (_F, _F if _op.result == "same" else _op.result, _expr, _expr)
_ARITY = {"atan2": 2, "pow": 2, "fmin": 2, "fmax": 2, "fmod": 2, "hypot": 2, "fma": 3,
          "copysign": 2, "mix": 3, "step": 2, "min": 2, "max": 2, "clamp": 3, "select": 3}
CONSTANTS = {"M_PI": repr(3.141592653589793), "M_E": repr(2.718281828459045),
             "M_SQRT2": repr(2 ** 0.5), "M_LN2": repr(0.6931471805599453)}


def _call_name(name: str) -> str:
    """C's float variants (expf, sqrtf, fminf) are the same calls on f32."""
    if name not in CALLS and name.endswith("f") and name[:-1] in CALLS:
        return name[:-1]
    return name


# WGSL builtins whose operands and result share one type -> their GLSL names
_SAME = {
    "abs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "sqrt": "sqrt", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sin": "sin",
    "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "min": "min", "max": "max", "clamp": "clamp", "fract": "fract", "round": "roundEven",
    "inverseSqrt": "inversesqrt", "atan2": "atan", "pow": "pow", "mix": "mix",
    "countLeadingZeros": "wa_clz", "countOneBits": "wa_popcount",
}

# GLSL-only helpers for what GLSL ES 3.00 lacks; the emitted GLSL calls them (``used``)
GLSL_EXTRA = {
    "wa_clz": """uint wa_clz(uint x) {
    if (x == 0u) { return 32u; }
    uint n = 0u;
    if ((x & 0xffff0000u) == 0u) { n += 16u; x <<= 16u; }
    if ((x & 0xff000000u) == 0u) { n += 8u; x <<= 8u; }
    if ((x & 0xf0000000u) == 0u) { n += 4u; x <<= 4u; }
    if ((x & 0xc0000000u) == 0u) { n += 2u; x <<= 2u; }
    if ((x & 0x80000000u) == 0u) { n += 1u; }
    return n;
}
int wa_clz(int x) { return int(wa_clz(uint(x))); }
""",
    "wa_popcount": """uint wa_popcount(uint x) {
    x = x - ((x >> 1u) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2u) & 0x33333333u);
    x = (x + (x >> 4u)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24u;
}
int wa_popcount(int x) { return int(wa_popcount(uint(x))); }
""",
    "wa_imod": """int wa_imod(int a, int b) { return a - (a / b) * b; }
""",
}


# -- checking and emitting ------------------------------------------------------------------

# GLSL keywords and builtins that WGSL code may use as names (the "wgsl" dialect writes
# names as they are): renamed with a trailing _
_RESERVED = set("""
attribute const uniform varying layout centroid flat smooth noperspective break continue do
for while switch case default if else in out inout float int void bool true false invariant
discard return mat2 mat3 mat4 vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 uint uvec2
uvec3 uvec4 lowp mediump highp precision sampler2D sampler3D samplerCube struct asm class
union enum typedef template this packed goto inline noinline volatile public static extern
external interface long short double half fixed unsigned superp input output filter
sizeof cast namespace using sample patch active common partition resource buffer shared
texture radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow
exp log exp2 log2 sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod
modf min max clamp mix step smoothstep isnan isinf length distance dot cross normalize
faceforward reflect refract matrixCompMult outerProduct transpose determinant inverse
lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not
texelFetch textureSize texture gl_FragCoord main
""".split())


def plain_name(n: str) -> str:
    """A WGSL name as GLSL may spell it."""
    if n in _RESERVED or "__" in n or n.startswith("gl_"):
        return n.replace("__", "_u_") + "_"
    return n


class Emitter:
    """Types a parsed body and writes it in one shader language ("wgsl" or "glsl").

    ``scopes``: name -> (type, mutable), innermost last. ``dialect``: how calls are read
    (the module docstring). ``prefix``: what local names are written with (``u_`` for user
    code, so a user name never collides with a keyword of either language; "" writes them
    as they are, GLSL's reserved words renamed). ``globals_``: module-scope names (and their
    types) written as they are. ``signatures``: functions the code may call."""

    def __init__(self, lang: str, scopes: list[dict], exact: str | None = None,
                 checked: bool = False, raws: dict | None = None, raw_ndims=None,
                 atomic=(), definitions=None, leave: str = "return;", root=None, *,
                 dialect: str = "c", prefix: str = "u_", signatures=None, globals_=None):
        self.lang = lang
        self.dialect = dialect
        self.prefix = prefix
        self.signatures = signatures or {}
        self.globals = globals_ or {}
        # raw parameters' dimensions (x[ind] with a local array, x.shape()[k]) and the
        # ones atomicAdd writes (bound as atomic words)
        self.raw_ndims = raw_ndims or {}
        self.atomic = set(atomic)
        # preamble functions: name -> Definition; instances are written once, into the
        # root emitter's ``functions`` (text) under ``instances`` ((name, binding) -> name)
        self.definitions = definitions or {}
        self.root = root or self
        if root is None:
            self.functions: list[str] = []
            self.instances: dict = {}
            self.used: set[str] = set()  # functions of ``signatures`` and GLSL_EXTRA called
        self.leave = leave  # what 'return;' is: the end of the element or of a function
        self.refs: set = set()  # reference parameters of the function being written
        self.bind: dict = {}  # template parameter -> register type
        self.ret = None  # the result type of the function being written
        # raw parameters: name -> register type; element k is r_<name>[k] of a storage
        # array of 32-bit words (bool and narrow integers take a word each, as stored)
        self.raws = raws or {}
        self.scopes = scopes  # name -> (type, mutable)
        self.lines: list[str] = []
        self.assigned: set[str] = set()
        # the function that hides an f32 product from the compiler (see UserFunction)
        self.exact = exact
        self.used_exact = False
        # loops that say when they were cut short (WGSL on llvmpipe: the module docstring)
        self.checked = checked
        self.loops: list[dict] = []  # per enclosing loop: how break/continue are written
        self.count = 0

    # names and types
    def lookup(self, name: str, line: int):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        if name in self.globals:
            return self.globals[name], False
        raise BodyError(f"unknown name {name!r}", line)

    def tname(self, t: str) -> str:
        t = concrete(self.rtype(t))
        return wgsl_type(t) if self.lang == "wgsl" else glsl_type(t)

    def rtype(self, t):
        """A type of the tree with template parameters bound."""
        if isinstance(t, str) and t.startswith(TEMPLATE):
            if t not in self.bind:
                raise BodyError(f"the template parameter {t[len(TEMPLATE):]!r} is not bound "
                                "by the call's arguments", 0)
            return self.bind[t]
        return t

    def local(self, name: str) -> str:
        """How a local name (parameter, variable) is written."""
        return self.prefix + name if self.prefix else plain_name(name)

    def var_text(self, name: str) -> str:
        if name in self.globals and not any(name in s for s in self.scopes):
            return name
        text = self.local(name)
        return f"(*{text})" if name in self.refs and self.lang == "wgsl" else text

    def declare(self, name: str, t: str, value: str | None, mutable: bool, depth: int) -> None:
        """``name`` of type t in this scope, with its initial value (None: zero)."""
        arr = array_parts(t)
        text = self.local(name)
        if self.lang == "wgsl":
            kw = "var" if mutable or arr else "let"
            self.out(depth, f"{kw} {text}: {self.tname(t)}"
                     + (f" = {value};" if value is not None else ";"))
        elif arr:
            et, n = arr
            if value is None:
                value = f"{self.tname(et)}[{n}](" + ", ".join([self.zero(et)] * n) + ")"
            self.out(depth, f"{self.tname(et)} {text}[{n}] = {value};")
        else:
            self.out(depth, f"{self.tname(t)} {text} = {value if value is not None else self.zero(t)};")
        self.scopes[-1][name] = (t, mutable)

    def zero(self, t: str) -> str:
        if vec_parts(t):
            return f"{self.tname(t)}({self.zero(scalar_of(t))})"
        return self.lit("0", t) if t != "bool" else "false"

    # expressions: return (text, type)
    def lit(self, value: str, t: str) -> str:
        t = concrete(t)
        if vec_parts(t):
            return f"{self.tname(t)}({self.lit(value, scalar_of(t))})"
        if t == "bool":
            return value if value in ("true", "false") else ("true" if float(value) else "false")
        if t == "f32":
            v = float(value)
            if not math.isfinite(v):
                bits = "0x7fc00000u" if math.isnan(v) else ("0x7f800000u" if v > 0 else "0xff800000u")
                return (f"bitcast<f32>({bits})" if self.lang == "wgsl" else f"uintBitsToFloat({bits})")
            text = repr(v)
            if "e" not in text and "." not in text and "n" not in text:
                text += ".0"
            return text
        v = int(value) if re.fullmatch(r"-?\d+", value) else int(float(value))
        if t == "u32":
            return f"{v & 0xFFFFFFFF}u"
        v = (v + 2**31) % 2**32 - 2**31  # C's conversion to int: the low 32 bits
        if v == -2**31:
            return "bitcast<i32>(0x80000000u)" if self.lang == "wgsl" else "int(0x80000000u)"
        if self.lang == "wgsl":
            return f"{v}i" if v >= 0 else f"({v}i)"
        return str(v) if v >= 0 else f"({v})"

    def convert(self, e, t: str) -> str:
        """Text of expression e converted to type t (literals are written in t)."""
        text, et = e
        t = concrete(t) if is_literal(t) else t
        if is_literal(et):
            if vec_parts(t):
                return self.lit(text, t)
            if t == "bool":
                return "true" if float(text) != 0 else "false"
            if et == AFLOAT and t != "f32":
                return self.lit(str(int(float(text))), t)
            return self.lit(text, t)
        if et == t:
            return text
        if array_parts(t) or array_parts(et):
            raise BodyError(f"a value of type {et} where {t} is needed", 0)
        if vec_parts(t) and not vec_parts(et):  # a scalar where a vector is needed
            return f"{self.tname(t)}({self.convert(e, scalar_of(t))})"
        if t == "bool":
            zero = {"i32": self.lit("0", "i32"), "u32": "0u", "f32": "0.0"}[et]
            return f"({text} != {zero})"
        return f"{self.tname(t)}({text})"

    def expr(self, e):
        kind = e[0]
        if kind == "lit":
            return (e[2], e[1]) if e[1] in (AINT, AFLOAT) else (self.lit(e[2], e[1]), e[1])
        if kind == "name":
            if e[1] in CONSTANTS and not any(e[1] in s for s in self.scopes):
                return (CONSTANTS[e[1]], AFLOAT)
            t, _ = self.lookup(e[1], e[2])
            if array_parts(t) and self.dialect == "c":
                raise BodyError(f"the array {e[1]!r} is used as a value (index it, or index "
                                "a raw parameter with it)", e[2])
            return (self.var_text(e[1]), t)
        if kind == "un":
            op, a = e[1], self.expr(e[2])
            if op == "!":
                return (f"!{self._paren(self.convert(a, 'bool'))}", "bool")
            if a[1] == AINT:
                if op == "~":
                    return self.expr(("lit", "i32", str(~int(a[0]))))
                return (str(-int(a[0]) if op == "-" else int(a[0])), AINT)
            if a[1] == AFLOAT:
                return (repr(-float(a[0]) if op == "-" else float(a[0])), AFLOAT)
            t = a[1]
            if t == "bool":
                t = "i32"
            if op == "~" and t == "f32":
                raise BodyError("'~' needs an integer operand", 0)
            if op == "+":
                return (self.convert(a, t), t)
            return (f"({op}{self._paren(self.convert(a, t))})", t)
        if kind == "bin":
            return self.binop(e[1], self.expr(e[2]), self.expr(e[3]))
        if kind == "cond":
            c = self.convert(self.expr(e[1]), "bool")
            a, b = self.expr(e[2]), self.expr(e[3])
            t = concrete(unify(a[1], b[1]))
            x, y = self.convert(a, t), self.convert(b, t)
            if self.lang == "wgsl":
                return (f"select({y}, {x}, {c})", t)
            return (f"({c} ? {x} : {y})", t)
        if kind == "member":
            _, base, field, line = e
            text, t = self.expr(base)
            v = vec_parts(t)
            if not v or not re.fullmatch(r"[xyzw]{1,4}|[rgba]{1,4}", field):
                raise BodyError(f"{t} has no member .{field}", line)
            return (f"{self._paren(text)}.{field}",
                    v[1] if len(field) == 1 else f"vec{len(field)}<{v[1]}>")
        if kind == "sub":
            _, base, idx, line = e
            return self.subscript(self.expr(base), idx, line)
        if kind == "construct":
            return self.construct(e[1], [self.expr(a) for a in e[2]], e[3])
        if kind == "conv":
            t = self.rtype(e[1])
            return (self.convert(self.expr(e[2]), t), t)
        if kind == "shape":
            _, name, k, line = e
            if name not in self.raws:
                raise BodyError(f"{name!r} is not a raw parameter, so it has no shape()", line)
            if not 0 <= k < self.raw_ndims.get(name, 0):
                raise BodyError(f"{name}.shape()[{k}]: {name!r} has "
                                f"{self.raw_ndims.get(name, 0)} dimensions", line)
            return (f"r_{name}__shape{k}", "i32")
        if kind == "addr":
            raise BodyError("'&' takes an address only as atomicAdd's first argument", e[2])
        if kind == "bitcast":
            a = self.expr(e[2])
            src = concrete(a[1])
            text = self.convert(a, src)
            if src == e[1]:
                return (text, src)
            if self.lang == "wgsl":
                return (f"bitcast<{self.tname(e[1])}>({text})", e[1])
            pair = (scalar_of(src), scalar_of(e[1]))
            fn = {("f32", "u32"): "floatBitsToUint", ("f32", "i32"): "floatBitsToInt",
                  ("u32", "f32"): "uintBitsToFloat", ("i32", "f32"): "intBitsToFloat"}.get(pair)
            if fn is None and set(pair) != {"u32", "i32"}:
                raise BodyError(f"bitcast<{e[1]}> of {src}", 0)
            return (f"{fn}({text})" if fn else f"{self.tname(e[1])}({text})", e[1])
        if kind == "call":
            return self.call(e)
        if kind == "index":
            if self.is_variable(e[1]):
                return self.subscript(self.expr(("name", e[1], e[3])), e[2], e[3])
            return self.raw_element(e[1], e[2], e[3])
        raise AssertionError(kind)

    def is_variable(self, name: str) -> bool:
        """Whether name is a local or module-scope value (not a raw parameter)."""
        return (any(name in s for s in self.scopes) or name in self.globals) and not (
            name in self.raws and not any(name in s for s in self.scopes))

    def subscript(self, base, idx, line: int):
        """Element idx of a vector or array value."""
        text, t = base
        arr, v = array_parts(t), vec_parts(t)
        if not arr and not v:
            raise BodyError(f"a value of type {t} cannot be indexed", line)
        i = self.expr(idx)
        it = "i32" if is_literal(i[1]) else i[1]
        if it not in ("i32", "u32"):
            raise BodyError(f"an index must be an integer, not {it}", line)
        return (f"{text}[{self.convert(i, it)}]", arr[0] if arr else v[1])

    def construct(self, t: str, args, line: int):
        """``vecN<T>(...)`` or ``array<T, N>(...)``."""
        arr = array_parts(t)
        if arr:
            et, n = arr
            if len(args) != n:
                raise BodyError(f"{t} takes {n} values, got {len(args)}", line)
            inner = ", ".join(self.convert(a, et) for a in args)
            if self.lang == "wgsl":
                return (f"{self.tname(t)}({inner})", t)
            return (f"{self.tname(et)}[{n}]({inner})", t)
        n, comp = vec_parts(t)
        parts = []
        for a in args:
            parts.append(self.convert(a, with_scalar(a[1], comp) if vec_parts(a[1]) else comp))
        return (f"{self.tname(t)}({', '.join(parts)})", t)

    def local_array(self, name: str, line: int):
        """(element type, length) of a local array, or None for another name."""
        for s in reversed(self.scopes):
            if name in s:
                return array_parts(s[name][0])
        return None

    def raw_ref(self, name: str, index, line: int) -> tuple[str, str]:
        if name not in self.raws:
            raise BodyError(f"{name!r} is not a raw parameter, so it cannot be indexed", line)
        arr = self.local_array(index[1], line) if index[0] == "name" else None
        if self.lang == "glsl" and (arr or name in self.atomic):
            raise BodyError(f"{'an index array on' if arr else 'atomicAdd into'} the raw "
                            f"parameter {name!r} is not supported on WebGL2", line)
        if arr:
            # CuPy's x[ind] with an index array: one index per dimension, in C order
            ndim = self.raw_ndims.get(name, 1)
            if arr[1] != ndim:
                raise BodyError(f"{name!r} has {ndim} dimensions, indexed with the "
                                f"{arr[1]} values of {index[1]!r}", line)
            k = f"i32({self.local(index[1])}[0])"
            for d in range(1, ndim):
                k = f"({k} * r_{name}__shape{d} + i32({self.local(index[1])}[{d}]))"
        else:
            k = self.convert(self.expr(index), "i32")
        if self.lang == "glsl":  # a read by texelFetch (_raw_elementwise._glsl_kernel)
            return f"r_{name}({k})", self.raws[name]
        return f"r_{name}[{k}]", self.raws[name]

    def raw_element(self, name: str, index, line: int):
        ref, t = self.raw_ref(name, index, line)
        if name in self.atomic:
            word = f"atomicLoad(&{ref})"
            return (f"bitcast<f32>({word})", t) if t == "f32" else (word, t)
        if t == "bool":
            return (f"({ref} != {'0' if self.lang == 'glsl' else '0i'})", "bool")
        return (ref, t)

    @staticmethod
    def _paren(text: str) -> str:
        return text if re.fullmatch(r"[\w.]+|\(.*\)", text) else f"({text})"

    def binop(self, op: str, a, b):
        if op in ("&&", "||"):
            return (f"({self.convert(a, 'bool')} {op} {self.convert(b, 'bool')})", "bool")
        if is_literal(a[1]) and is_literal(b[1]) and op not in ("&&", "||", "==", "!=", "<",
                                                                ">", "<=", ">="):
            return self.fold(op, a, b)
        if op in ("<<", ">>"):
            t = concrete(a[1])
            if scalar_of(t) in ("f32", "bool"):
                raise BodyError(f"{op!r} needs integer operands", 0)
            amount = self.convert(b, "u32") if self.lang == "wgsl" else self.convert(b, concrete(b[1]))
            return (f"({self.convert(a, t)} {op} {amount})", t)
        t = unify(a[1], b[1])
        if t == "bool" and op not in ("==", "!=", "&", "|", "^"):
            t = "i32"
        t = concrete(t)
        if vec_parts(t):
            if op in ("==", "!=", "<", ">", "<=", ">="):
                raise BodyError(f"componentwise comparison {op} of {t}", 0)
            if scalar_of(t) == "bool" or (op == "%" and scalar_of(t) != "u32"):
                raise BodyError(f"operator {op} on {t}", 0)
            # a scalar operand stays a scalar (v * s): both languages take it
            x = self.convert(a, t if vec_parts(a[1]) else scalar_of(t))
            y = self.convert(b, t if vec_parts(b[1]) else scalar_of(t))
            return (f"({x} {op} {y})", t)
        x, y = self.convert(a, t), self.convert(b, t)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return (f"({x} {op} {y})", "bool")
        if op in ("&", "|", "^", "%") and t == "f32" and op != "%":
            raise BodyError(f"{op!r} needs integer operands", 0)
        if op == "%" and t == "f32" and self.lang == "glsl":
            return (f"({x} - {y} * trunc({x} / {y}))", t)
        if op == "%" and t == "i32" and self.lang == "glsl":
            # GLSL leaves % undefined for negative operands; C and WGSL truncate
            self.root.used.add("wa_imod")
            return (f"wa_imod({x}, {y})", t)
        if t == "bool":
            op = {"&": "&&", "|": "||", "^": "!="}[op]
        if op in ("+", "-", "*", "/") and t == "f32" and self.exact:
            self.used_exact = True
            return (f"{self.exact}({x} {op} {y})", t)
        return (f"({x} {op} {y})", t)

    def fold(self, op: str, a, b):
        """Arithmetic of two literals, computed here: C folds constant arithmetic (1.0/0.0 is
        infinity, which WGSL refuses), WGSL evaluates abstract literals exactly."""
        if AFLOAT in (a[1], b[1]):
            x, y = float(a[0]), float(b[0])
            if op == "/":
                v = x / y if y else (math.copysign(math.inf, x) * math.copysign(1.0, y) if x else math.nan)
            elif op in "+-*":
                v = {"+": x + y, "-": x - y, "*": x * y}[op]
            else:
                raise BodyError(f"{op!r} of float literals", 0)
            return (repr(v), AFLOAT)
        x, y = int(a[0]), int(b[0])
        if op in ("/", "%") and y == 0:
            raise BodyError(f"{a[0]} {op} 0: a division by zero", 0)
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1) if op in ("/", "%") else 0
        v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: q,
             "%": lambda: x - q * y, "<<": lambda: x << y, ">>": lambda: x >> y,
             "&": lambda: x & y, "|": lambda: x | y, "^": lambda: x ^ y}[op]()
        return (str(v), AINT)

    def call(self, e):
        _, name, args, line = e
        if name in self.definitions:
            return self.user_call(e)
        if name == "atomicAdd":
            return self.atomic_add(e)
        if name in self.signatures:
            params, ret = self.signatures[name]
            if len(params) != len(args):
                raise BodyError(f"{name}() takes {len(params)} arguments, got {len(args)}", line)
            vals = [self.expr(a) for a in args]
            self.root.used.add(name)
            return (f"{name}({', '.join(self.convert(v, p) for v, p in zip(vals, params))})", ret)
        if self.dialect == "wgsl":
            return self.builtin(name, [self.expr(a) for a in args], line)
        name = _call_name(name)
        vals = [self.expr(a) for a in args]
        spec = CALLS.get(name)
        if spec is None:
            # not ours: the shader compiler decides (its error carries the generated source)
            t = concrete(vals[0][1]) if vals else "f32"
            return (f"{name}({', '.join(self.convert(v, concrete(v[1])) for v in vals)})", t)
        want = _ARITY.get(name, 1)
        if len(vals) != want:
            raise BodyError(f"{name}() takes {want} argument{'s' if want > 1 else ''}, "
                            f"got {len(vals)}", line)
        argrule, result, wgsl, glsl = spec
        if argrule == "f":
            texts = [self.convert(v, "f32") for v in vals]
            t = "f32"
        elif argrule == "select":
            t = "f32"
            t = unify(vals[0][1], vals[1][1])
            t = concrete(t)
            texts = [self.convert(vals[0], t), self.convert(vals[1], t), self.convert(vals[2], "bool")]
        else:
            t = vals[0][1]
            for v in vals[1:]:
                t = unify(t, v[1])
            t = concrete(t)
            if t == "bool":
                t = "i32"
            texts = [self.convert(v, t) for v in vals]
        if name == "abs" and t == "u32":
            return (texts[0], t)
        if name == "sign" and t == "u32":
            return (f"min({texts[0]}, 1u)", t)
        text = (wgsl if self.lang == "wgsl" else glsl).format(*texts)
        return (text, {"f": "f32", "same": t, "bool": "bool", "i": "i32"}[result])

    def builtin(self, name: str, vals, line: int):
        """A WGSL builtin (the "wgsl" dialect), written in this emitter's language."""
        wgsl = self.lang == "wgsl"
        if name == "select":
            if len(vals) != 3:
                raise BodyError("select() takes 3 arguments", line)
            f, t, c = vals
            if vec_parts(c[1]):
                raise BodyError("select with a vector condition", line)
            ty = concrete(unify(f[1], t[1]))
            x, y, cc = self.convert(t, ty), self.convert(f, ty), self.convert(c, "bool")
            return (f"select({y}, {x}, {cc})" if wgsl else f"({cc} ? {x} : {y})", ty)
        if name in ("all", "any"):
            (a,) = vals
            if a[1] == "bool":
                return a
            return (f"{name}({a[0]})", "bool")
        if not vals:
            raise BodyError(f"unsupported WGSL function {name!r}", line)
        ty = vals[0][1]
        for v in vals[1:]:
            ty = unify(ty, v[1])
        ty = concrete(ty)
        texts = [self.convert(v, ty) for v in vals]
        if name == "fma":
            return (f"fma({', '.join(texts)})" if wgsl else
                    f"({texts[0]} * {texts[1]} + {texts[2]})", ty)
        if name in ("dot", "length", "distance"):
            return (f"{name}({', '.join(texts)})", scalar_of(ty))
        gl = _SAME.get(name)
        if gl is None:
            raise BodyError(f"unsupported WGSL function {name!r}", line)
        if name == "abs" and scalar_of(ty) == "u32":
            return (texts[0], ty)
        if not wgsl and gl.startswith("wa_"):
            self.root.used.add(gl)
        return (f"{name if wgsl else gl}({', '.join(texts)})", ty)

    def atomic_add(self, e):
        """atomicAdd(&x[k], v) on a raw parameter x: its old value. Integers add natively;
        float32 adds in a compare-and-swap loop over the word (WGSL has no float atomics),
        written once per parameter as r_<x>__atomic_add(k, v)."""
        _, _, args, line = e
        if len(args) != 2 or args[0][0] != "addr" or args[0][1][0] != "index":
            raise BodyError("atomicAdd takes (&x[k], value) for a raw parameter x", line)
        _, name, index, _ = args[0][1]
        if name not in self.raws:
            raise BodyError(f"atomicAdd: {name!r} is not a raw parameter", line)
        ref, t = self.raw_ref(name, index, line)
        if t not in ("f32", "i32", "u32"):
            raise BodyError(f"atomicAdd on {name!r}: takes float32 or (u)int32 arrays", line)
        v = self.convert(self.expr(args[1]), t)
        if t != "f32":
            return (f"atomicAdd(&{ref}, {v})", t)
        return (f"r_{name}__atomic_add({ref[len(name) + 3:-1]}, {v})", t)

    def user_call(self, e):
        """A call of a preamble function: its instance for the arguments' types (template
        parameters bound by them), written once; reference parameters take variables."""
        _, name, args, line = e
        d = self.definitions[name]
        if len(args) != len(d.params):
            raise BodyError(f"{name}() takes {len(d.params)} arguments, got {len(args)}", line)
        bind, vals = {}, []
        for (pname, ptype, ref), a in zip(d.params, args):
            if ref:
                if a[0] != "name":
                    raise BodyError(f"{name}(): the reference parameter {pname!r} needs a "
                                    "variable", line)
                t, mutable = self.lookup(a[1], line)
                if not mutable or array_parts(t):
                    raise BodyError(f"{name}(): {a[1]!r} cannot be passed by reference", line)
                self.assigned.add(a[1])
                vals.append((a[1], t))
            else:
                vals.append(self.expr(a))
            if isinstance(ptype, str) and ptype.startswith(TEMPLATE):
                have = concrete(vals[-1][1])
                if bind.setdefault(ptype, have) != have:
                    bind[ptype] = concrete(unify(bind[ptype], have))
        fname, params, ret = self.instance(d, bind, line)
        texts = []
        for (pname, ptype, ref), v, pt in zip(d.params, vals, params):
            if ref:
                if v[1] != pt:
                    raise BodyError(f"{name}(): {pname!r} is a reference to {pt}, given "
                                    f"{v[0]!r} of type {v[1]}", line)
                if self.lang == "wgsl":
                    texts.append(self.local(v[0]) if v[0] in self.refs else f"&{self.local(v[0])}")
                else:
                    texts.append(self.local(v[0]))
            else:
                texts.append(self.convert(v, pt))
        return (f"{fname}({', '.join(texts)})", ret or "void")

    def instance(self, d: Definition, bind: dict, line: int):
        """(name, parameter types, result type) of d's instance for the binding; written
        into the root's functions the first time."""
        root = self.root
        key = (d.name, tuple(sorted(bind.items())))
        got = root.instances.get(key)
        if got is not None:
            return got
        sub = Emitter(self.lang, [{}], self.exact, False, self.raws, self.raw_ndims,
                      self.atomic, self.definitions, root=root, dialect=self.dialect,
                      prefix=self.prefix, signatures=self.signatures, globals_=self.globals)
        sub.bind = bind
        try:
            params = [concrete(sub.rtype(t)) for _, t, _ in d.params]
            ret = concrete(sub.rtype(d.ret)) if d.ret is not None else None
        except BodyError as err:
            err.line = err.line or line
            raise
        fname = f"pf_{d.name}_{len(root.instances)}"
        root.instances[key] = (fname, params, ret)
        try:
            root.functions.append(sub.function(d, fname, params, ret))
        except BodyError as err:
            err.where = "preamble"
            raise
        return fname, params, ret

    def function(self, d: Definition, fname: str, params, ret) -> str:
        """The text of function d named fname, its parameter and result types given (this
        emitter is fresh: its scopes hold nothing but the globals)."""
        self.ret = ret
        self.refs = {n for n, _, ref in d.params if ref}
        for (n, _, ref), t in zip(d.params, params):
            self.scopes[0][n] = (t, self.dialect == "c")
        self.scopes.append({})
        self.emit(d.body, 1)
        copies = [n for n, _, ref in d.params if not ref and n in self.assigned]
        names = {n: ("p_" + n if n in copies else self.local(n)) for n, _, _ in d.params}
        if self.lang == "wgsl":
            sig = ", ".join(
                (f"{self.local(n)}: ptr<function, {self.tname(t)}>" if ref else
                 f"{names[n]}: {self.tname(t)}")
                for (n, _, ref), t in zip(d.params, params))
            head = f"fn {fname}({sig})" + (f" -> {self.tname(ret)}" if ret else "") + " {"
            copy = [f"    var {self.local(n)} = p_{n};" for n in copies]
        else:
            sig = ", ".join(f"{'inout ' if ref else ''}{self.tname(t)} {names[n]}"
                            for (n, _, ref), t in zip(d.params, params))
            head = f"{self.tname(ret) if ret else 'void'} {fname}({sig}) {{"
            copy = [f"    {self.tname(t)} {self.local(n)} = p_{n};"
                    for (n, _, ref), t in zip(d.params, params) if n in copies]
        if self.used_exact:
            self.root.used_exact = True
        return "\n".join([head, *copy, *self.lines, "}"]) + "\n"

    # statements
    def emit(self, stmts, depth: int) -> None:
        for s in stmts:
            self.statement(s, depth)

    def out(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def scoped(self, stmts, depth: int) -> None:
        self.scopes.append({})
        self.emit(stmts, depth)
        self.scopes.pop()

    def statement(self, s, depth: int) -> None:
        kind, line = s[0], s[1]
        try:
            if kind == "block":
                self.out(depth, "{")
                self.scoped(s[2], depth + 1)
                self.out(depth, "}")
            elif kind == "decl":
                for name, typ, init in s[2]:
                    if init is not None and init[0] == "list":
                        self.local_decl(name, self.rtype(typ), init, depth)
                        continue
                    val = self.expr(init) if init is not None else None
                    t = self.rtype(typ) or concrete(val[1])
                    self.declare(name, t, self.convert(val, t) if val is not None else None,
                                 s[3], depth)
            elif kind == "assign":
                self.out(depth, self.assignment(s) + ";")
            elif kind == "store" and self.is_variable(s[2]):  # an element of an array or vector
                _, _, name, index, op, value = s
                self.statement(("set", line, ("index", name, index, line), op, value), depth)
            elif kind == "set":
                _, _, target, op, value = s
                root = target
                while root[0] in ("member", "sub"):
                    root = root[1]
                name = root[1]
                if root[0] not in ("name", "index") or not self.lookup(name, line)[1]:
                    raise BodyError(f"{name!r} cannot be assigned (it is a 'let' or an input)"
                                    if root[0] in ("name", "index") else "this cannot be assigned",
                                    line)
                self.assigned.add(name)
                ref, t = self.expr(target)
                val = self.expr(value)
                if op != "=":
                    val = self.binop(op[:-1], (ref, t), val)
                self.out(depth, f"{ref} = {self.convert(val, t)};")
            elif kind == "store" and s[2] in self.atomic:
                _, _, name, index, op, value = s
                ref, t = self.raw_ref(name, index, line)
                val = self.expr(value)
                if op != "=":
                    val = self.binop(op[:-1], self.raw_element(name, index, line), val)
                text = self.convert(val, t)
                self.out(depth, f"atomicStore(&{ref}, "
                         f"{f'bitcast<u32>({text})' if t == 'f32' else text});")
            elif kind == "store":
                _, _, name, index, op, value = s
                if self.lang == "glsl":
                    raise BodyError(f"writing the raw parameter {name!r} has no WebGL2 "
                                    "counterpart: a fragment shader writes only its own "
                                    "output element (run the kernel on WebGPU)", line)
                ref, t = self.raw_ref(name, index, line)
                val = self.expr(value)
                if op != "=":
                    val = (self.binop(op[:-1], self.raw_element(name, index, line), val)[0], t)
                text = self.convert(val, t)
                self.out(depth, f"{ref} = {('select(0i, 1i, ' + text + ')') if t == 'bool' else text};")
            elif kind == "expr":
                text, t = self.expr(s[2])
                self.out(depth, (f"_ = {text};" if self.lang == "wgsl" and t != "void"
                                 else f"{text};"))
            elif kind == "return":
                if s[2] is None:
                    if self.ret is not None:
                        raise BodyError("this function must return a value", line)
                    self.out(depth, self.leave)
                else:
                    if self.ret is None:
                        raise BodyError("a void function returns no value", line)
                    self.out(depth, f"return {self.convert(self.expr(s[2]), self.ret)};")
            elif kind == "if":
                self.out(depth, f"if ({self.convert(self.expr(s[2]), 'bool')}) {{")
                self.scoped(s[3], depth + 1)
                if s[4] is not None:
                    self.out(depth, "} else {")
                    self.scoped(s[4], depth + 1)
                self.out(depth, "}")
            elif kind == "loop":
                self.loop(s, depth)
            elif kind == "break":
                end = self.loops[-1].get("end")
                self.out(depth, f"{{ {end} = true; break; }}" if end else "break;")
            elif kind == "continue":
                inline = self.loops[-1].get("inline")
                if inline:  # GLSL has no continuing: run it here
                    self.out(depth, "{")
                    self.continuing(*inline, depth + 1, "break;")
                    self.out(depth + 1, "continue;")
                    self.out(depth, "}")
                else:
                    self.out(depth, "continue;")
            else:
                raise AssertionError(kind)
        except BodyError as err:
            if not err.line:
                err.line = line
            raise

    def local_decl(self, name: str, t: str, init, depth: int) -> None:
        """A local array: ``int ind[] = {i, j};`` (missing values are 0, as in C)."""
        _, vals, n = init
        vals = [self.convert(self.expr(v), t) for v in vals]
        vals += [self.zero(t)] * (n - len(vals))
        arr = f"array<{t},{n}>"
        if self.lang == "wgsl":
            self.declare(name, arr, f"{self.tname(arr)}({', '.join(vals)})", True, depth)
        else:
            self.declare(name, arr, f"{self.tname(t)}[{n}]({', '.join(vals)})", True, depth)

    def text_of(self, s) -> list[str]:
        """The lines of statement s, unindented (a for's init and step)."""
        saved, self.lines = self.lines, []
        self.statement(s, 0)
        lines, self.lines = self.lines, saved
        return lines

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def continuing(self, cont, until, depth: int, exit: str) -> None:
        """cont and the end test after a pass, in a block of their own (WGSL's continuing
        sees the body's names and may declare its own)."""
        if not cont and until is None:
            return
        self.out(depth, "{")
        self.scopes.append({})
        self.emit(cont, depth + 1)
        if until is not None:
            self.out(depth + 1, f"if ({self.convert(self.expr(until), 'bool')}) {{ {exit} }}")
        self.scopes.pop()
        self.out(depth, "}")

    def loop(self, s, depth: int) -> None:
        _, line, init, cond, body, cont, until = s
        self.scopes.append({})  # the names of a for's init
        init_lines = self.text_of(init) if init is not None else []
        test = self.convert(self.expr(cond), "bool") if cond is not None else None
        if self.checked:
            self.checked_loop(s, depth, init_lines, test)
        elif (until is None and len(init_lines) <= 1 and len(cont) <= 1
              and all(c[0] in ("assign", "expr") for c in cont)):
            # for / while as the language writes them
            first = init_lines[0].rstrip(";") if init_lines else ""
            step = self.text_of(cont[0])[0].rstrip(";") if cont else ""
            if init is None and not cont and test is not None:
                self.out(depth, f"while ({test}) {{")
            elif self.lang == "wgsl" and init is None and not cont and test is None:
                self.out(depth, "loop {")
            else:
                self.out(depth, f"for ({first}; {test or ''}; {step}) {{")
            self.loops.append({})
            self.scoped(body, depth + 1)
            self.loops.pop()
            self.out(depth, "}")
        elif self.lang == "glsl" and not init_lines and test is None and not cont:
            self.out(depth, "do {")  # do-while: 'continue' goes to the test, as in C
            self.loops.append({})
            self.scoped(body, depth + 1)
            self.loops.pop()
            again = until[2] if until[0] == "un" and until[1] == "!" else ("un", "!", until)
            self.out(depth, f"}} while ({self.convert(self.expr(again), 'bool')});")
        else:
            d = depth + 1 if init_lines else depth
            if init_lines:
                self.out(depth, "{")
                for text in init_lines:
                    self.out(d, text)
            if self.lang == "wgsl":
                self.wgsl_loop(d, test, body, cont, until, None)
            else:
                self.out(d, f"for (; {test or ''}; ) {{")
                self.scopes.append({})  # the body's names, which continuing sees
                self.loops.append({"inline": (cont, until)})
                self.emit(body, d + 1)
                self.loops.pop()
                self.continuing(cont, until, d + 1, "break;")
                self.scopes.pop()
                self.out(d, "}")
            if init_lines:
                self.out(depth, "}")
        self.scopes.pop()

    def wgsl_loop(self, depth: int, test, body, cont, until, end: str | None) -> None:
        """``loop { body continuing { cont break if until; } }`` with the test first; with
        ``end``, each of the loop's own ways out (test, break, break if) sets that flag."""
        stop = f"{end} = true; break;" if end else "break;"
        self.out(depth, "loop {")
        if test is not None:
            self.out(depth + 1, f"if (!({test})) {{ {stop} }}")
        self.scopes.append({})  # the body's names, which continuing sees
        self.loops.append({"end": end})
        self.emit(body, depth + 1)
        self.loops.pop()
        if cont or until is not None:
            self.out(depth + 1, "continuing {")
            self.scopes.append({})
            self.emit(cont, depth + 2)
            if until is not None:
                done = self.convert(self.expr(until), "bool")
                if end:
                    self.out(depth + 2, f"{end} = {done};")
                    done = end
                self.out(depth + 2, f"break if {done};")
            self.scopes.pop()
            self.out(depth + 1, "}")
        self.scopes.pop()
        self.out(depth, "}")

    def checked_loop(self, s, depth: int, init_lines, test) -> None:
        """A WGSL loop that records in ``lim_cut`` (the first one's line) when it ends other
        than by its test, 'break if' or 'break': llvmpipe's limiter ends a loop that way.
        A loop with no loop inside runs UNROLL passes per turn, which spends UNROLL times
        fewer of the limiter's iterations."""
        _, line, _, _, body, cont, until = s
        end = self.fresh("lim_end")
        d = depth + 1
        self.out(depth, "{")
        self.out(d, f"var {end} = false;")
        for text in init_lines:
            self.out(d, text)
        if not any(has_loop(x) for x in body + cont):
            stop = f"{end} = true; break;"
            go = self.fresh("lim_go") if any(_continues(x) for x in body) else None
            if go:
                self.out(d, f"var {go}: bool;")
            self.out(d, "loop {")
            self.loops.append({"end": end})
            for _ in range(UNROLL):
                self.out(d + 1, "{")
                self.scopes.append({})
                if test is not None:
                    self.out(d + 2, f"if (!({test})) {{ {stop} }}")
                if go:
                    self.out(d + 2, f"{go} = true;")
                self.guarded(body, d + 2, go)
                self.continuing(cont, until, d + 2, stop)
                self.scopes.pop()
                self.out(d + 1, "}")
            self.loops.pop()
            self.out(d, "}")
        else:
            self.wgsl_loop(d, test, body, cont, until, end)
        self.out(d, f"if (!{end} && lim_cut == 0u) {{ lim_cut = {line}u; }}")
        self.out(depth, "}")

    def guarded(self, stmts, depth: int, go: str | None) -> None:
        """A pass of an unrolled loop: a 'continue' clears ``go`` and the statements after
        it run only while ``go`` holds ('break' leaves the loop as it is)."""
        for k, s in enumerate(stmts):
            if go is None or not _continues(s):
                self.statement(s, depth)
                continue
            if s[0] == "continue":
                self.out(depth, f"{go} = false;")
                return  # the rest of this block is never reached
            if s[0] == "block":
                self.out(depth, "{")
                self.guarded_scope(s[2], depth + 1, go)
                self.out(depth, "}")
            else:
                try:
                    test = self.convert(self.expr(s[2]), "bool")
                except BodyError as err:
                    err.line = err.line or s[1]
                    raise
                self.out(depth, f"if ({test}) {{")
                self.guarded_scope(s[3], depth + 1, go)
                if s[4] is not None:
                    self.out(depth, "} else {")
                    self.guarded_scope(s[4], depth + 1, go)
                self.out(depth, "}")
            if k + 1 < len(stmts):
                self.out(depth, f"if ({go}) {{")
                self.guarded_scope(stmts[k + 1:], depth + 1, go)
                self.out(depth, "}")
            return

    def guarded_scope(self, stmts, depth: int, go: str) -> None:
        self.scopes.append({})
        self.guarded(stmts, depth, go)
        self.scopes.pop()

    def assignment(self, s) -> str:
        _, line, target, op, value = s
        t, mutable = self.lookup(target, line)
        if not mutable:
            raise BodyError(f"{target!r} cannot be assigned (it is a 'let' or an input)", line)
        if array_parts(t) and self.dialect == "c":
            raise BodyError(f"the array {target!r} cannot be assigned as a whole", line)
        self.assigned.add(target)
        text = self.var_text(target)
        if op == "=":
            val = self.convert(self.expr(value), t)
        else:
            val = self.convert(self.binop(op[:-1], (text, t), self.expr(value)), t)
        return f"{text} = {val}"


def _holds(s, kind: str) -> bool:
    """Whether statement s is, or holds in its blocks and branches, a statement of kind (not
    looking into loops)."""
    if s[0] == kind:
        return True
    if s[0] == "block":
        return any(_holds(x, kind) for x in s[2])
    if s[0] == "if":
        return any(_holds(x, kind) for x in s[3] + (s[4] or []))
    return False


def has_loop(s) -> bool:
    return _holds(s, "loop")


def _continues(s) -> bool:
    """Whether statement s (inside a loop with no loop inside) holds a 'continue'."""
    return _holds(s, "continue")


# -- functions ------------------------------------------------------------------------------
