"""Translate the WGSL subset of the op table and its helper library into GLSL ES 3.00.

The op table and ``wgsl_lib.py`` stay the single source of every elementwise formula; this
module turns their WGSL into GLSL so that the WebGL2 registry computes exactly the same
expressions (same special cases, same bit tricks, same error-free transformations).

The subset: functions ``fn name(a: T, ...) -> T { ... }`` with ``let``/``var``/``const``
declarations (typed or not), assignments (also compound and ``++``/``--``), ``if``/``else``,
``loop``, ``for``, ``break``, ``continue``, ``return``; expressions over scalars, ``vecN``
and fixed-size arrays, with WGSL's builtins and constructors. Two differences of the
languages need types, so every expression is typed as it is translated:

- WGSL literals without a suffix are *abstract* and take the type their context asks for
  (``x + 1`` with ``x: u32``); GLSL ES has no implicit conversions, so the literal is
  written in that type (``x + 1u``).
- ``let x = e;`` leaves the type out; GLSL needs it (``uint x = e;``).

Other rewrites: ``bitcast`` to ``floatBitsToUint`` and friends, ``select(f, t, c)`` to
``c ? t : f`` (which evaluates only the chosen operand, so guarded divisions and shifts
stay defined), ``round`` to ``roundEven`` (WGSL rounds half to even), hexadecimal float
literals to decimal, signed ``%`` to a helper (GLSL leaves it undefined for negative
operands), and ``countLeadingZeros``/``countOneBits``, which GLSL ES 3.00 lacks, to
helpers written here. Anything outside the subset raises ``TranslationError``.
"""

from __future__ import annotations

import re

__all__ = ["TranslationError", "translate_function", "translate_expression", "glsl_type",
           "signature", "GLSL_EXTRA"]


class TranslationError(ValueError):
    """WGSL that this translator does not handle (names the construct and the source)."""


_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<hexfloat>0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+[fh]?)
  | (?P<hexint>0[xX][0-9a-fA-F]+[iu]?)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fh]?|\d+[eE][+-]?\d+[fh]?|\d+[fh])
  | (?P<int>\d+[iu]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|[-+*/%<>=!~&|^(){}\[\],;:.?@])
""", re.VERBOSE)


def _tokens(src: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m:
            raise TranslationError(f"cannot read WGSL at {src[pos:pos + 30]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    out.append(("eof", ""))
    return out


# -- types ---------------------------------------------------------------------------------
# A type is a WGSL type string ("f32", "vec2<u32>", "array<u32,8>") or "AI"/"AF" for an
# abstract integer/float literal whose type the context decides.

_SCALAR = {"f32": "float", "i32": "int", "u32": "uint", "bool": "bool"}
_VEC_PREFIX = {"f32": "vec", "i32": "ivec", "u32": "uvec", "bool": "bvec"}


def _vec_parts(t: str):
    m = re.fullmatch(r"vec([234])<(\w+)>", t)
    return (int(m.group(1)), m.group(2)) if m else None


def _array_parts(t: str):
    m = re.fullmatch(r"array<(.+),(\d+)>", t)
    return (m.group(1), int(m.group(2))) if m else None


def _scalar_of(t: str) -> str:
    v = _vec_parts(t)
    return v[1] if v else t


def glsl_type(t: str) -> str:
    if t in _SCALAR:
        return _SCALAR[t]
    v = _vec_parts(t)
    if v:
        return f"{_VEC_PREFIX[v[1]]}{v[0]}"
    raise TranslationError(f"no GLSL type for {t!r}")


def _is_abstract(t: str) -> bool:
    return t in ("AI", "AF")


# GLSL keywords and builtins that WGSL code may use as names: renamed with a trailing _
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


def _name(n: str) -> str:
    if n in _RESERVED or "__" in n or n.startswith("gl_"):
        return n.replace("__", "_u_") + "_"
    return n


# -- literals ------------------------------------------------------------------------------

def _float_text(v: float) -> str:
    if v != v or v in (float("inf"), float("-inf")):
        raise TranslationError("a NaN or infinite literal (build it from bits at run time)")
    r = repr(float(v))
    if "e" not in r and "." not in r:
        r += ".0"
    return r


def _int_text(v: int, t: str) -> str:
    if t == "u32":
        return f"{v & 0xFFFFFFFF}u"
    if t == "i32":
        v = (v + 2**31) % 2**32 - 2**31
        if v == -(2**31):
            return "int(0x80000000u)"
        return str(v) if v >= 0 else f"({v})"
    if t == "f32":
        return _float_text(float(v))
    raise TranslationError(f"an integer literal cannot be {t}")


class _E:
    """A translated expression: GLSL text, WGSL type, and the value of an abstract literal."""

    __slots__ = ("text", "type", "value")

    def __init__(self, text: str, type_: str, value=None):
        self.text, self.type, self.value = text, type_, value


def _concrete(e: _E, target: str) -> str:
    """e's text as a value of the concrete type target (abstract literals converted)."""
    if not _is_abstract(e.type):
        return e.text
    s = _scalar_of(target) if not _array_parts(target) else _array_parts(target)[0]
    if e.type == "AF" or s == "f32":
        if s not in ("f32",):
            raise TranslationError(f"a float literal {e.value!r} where {target} is needed")
        text = _float_text(float(e.value))
    else:
        text = _int_text(int(e.value), s)
    if _vec_parts(target):
        return f"{glsl_type(target)}({text})"
    return text


def _default(e: _E) -> str:
    return {"AI": "i32", "AF": "f32"}.get(e.type, e.type)


def _unify(*es: _E) -> str:
    """The concrete type a group of operands shares (an abstract literal follows the rest)."""
    concrete = [e.type for e in es if not _is_abstract(e.type)]
    if concrete:
        vec = [t for t in concrete if _vec_parts(t)]
        return vec[0] if vec else concrete[0]
    return "f32" if any(e.type == "AF" for e in es) else "i32"


# -- builtins --------------------------------------------------------------------------------

_SAME = {  # result and operands share one type
    "abs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "sqrt": "sqrt", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sin": "sin",
    "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "min": "min", "max": "max", "clamp": "clamp", "fract": "fract", "round": "roundEven",
    "inverseSqrt": "inversesqrt", "atan2": "atan", "pow": "pow", "mix": "mix",
    "countLeadingZeros": "wa_clz", "countOneBits": "wa_popcount",
}
_BITCAST = {("u32", "f32"): "uintBitsToFloat", ("i32", "f32"): "intBitsToFloat",
            ("f32", "u32"): "floatBitsToUint", ("f32", "i32"): "floatBitsToInt"}

# GLSL-only helpers for what GLSL ES 3.00 lacks; callable from translated code
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


class _Translator:
    def __init__(self, signatures: dict):
        self.sigs = signatures  # helper name -> (param types, return type)
        self.scopes: list[dict] = []
        self.toks: list = []
        self.i = 0
        self.used: set[str] = set()  # helpers (wa_*) the translated code calls
        self.ret = ""
        self.globals: dict = {}

    # token helpers
    def peek(self, k=0):
        return self.toks[self.i + k]

    def take(self, expect=None):
        tok = self.toks[self.i]
        if expect is not None and tok[1] != expect:
            raise TranslationError(f"expected {expect!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def at(self, text) -> bool:
        return self.toks[self.i][1] == text

    # scopes
    def lookup(self, name: str) -> str:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        raise TranslationError(f"unknown name {name!r}")

    def declare(self, name: str, t: str) -> None:
        self.scopes[-1][name] = t

    # types
    def parse_type(self) -> str:
        name = self.take()[1]
        if name in _SCALAR:
            return name
        if name in ("vec2", "vec3", "vec4"):
            self.take("<")
            inner = self.parse_type()
            self.close_template()
            return f"{name}<{inner}>"
        if name == "array":
            self.take("<")
            inner = self.parse_type()
            self.take(",")
            count = self.take()[1].rstrip("iu")
            self.close_template()
            return f"array<{inner},{int(count, 0)}>"
        raise TranslationError(f"unsupported WGSL type {name!r}")

    def close_template(self) -> None:
        kind, text = self.peek()
        if text == ">":
            self.take()
        elif text == ">>":  # vec2<vec2<f32>>: split the token
            self.toks[self.i] = ("op", ">")
        elif text == ">=":
            self.toks[self.i] = ("op", "=")
        else:
            raise TranslationError(f"expected '>' closing a type, found {text!r}")

    # -- functions and statements ------------------------------------------------------------
    def header(self, src: str) -> tuple[str, list, str]:
        """(name, [(parameter, WGSL type)], return type) of ``fn name(...) -> T``, the
        tokens read up to the body."""
        self.toks = _tokens(src)
        self.i = 0
        self.take("fn")
        name = self.take()[1]
        self.take("(")
        params = []
        while not self.at(")"):
            pname = self.take()[1]
            self.take(":")
            params.append((pname, self.parse_type()))
            if self.at(","):
                self.take()
        self.take(")")
        ret = "void"
        if self.at("->"):
            self.take()
            ret = self.parse_type()
        return name, params, ret

    def function(self, src: str) -> tuple[str, str, tuple, str]:
        name, params, ret = self.header(src)
        self.ret = ret
        self.scopes = [self.globals, dict(params)]
        body = self.block(1)
        head = ", ".join(f"{glsl_type(t)} {_name(p)}" for p, t in params)
        rt = "void" if ret == "void" else glsl_type(ret)
        return name, f"{rt} {name}({head}) {body}\n", tuple(t for _, t in params), ret

    def block(self, depth: int) -> str:
        self.take("{")
        self.scopes.append({})
        lines = []
        while not self.at("}"):
            lines.append(self.statement(depth))
        self.take("}")
        self.scopes.pop()
        pad = "    " * (depth - 1)
        inner = "".join(f"{'    ' * depth}{ln}\n" for ln in lines)
        return "{\n" + inner + pad + "}"

    def statement(self, depth: int) -> str:
        kind, text = self.peek()
        if text in ("let", "var", "const"):
            s = self.declaration()
            self.take(";")
            return s + ";"
        if text == "return":
            self.take()
            if self.at(";"):
                self.take()
                return "return;"
            e = self.expr()
            self.take(";")
            return f"return {_concrete(e, self.ret)};"
        if text in ("break", "continue", "discard"):
            self.take()
            self.take(";")
            return f"{text};"
        if text == "if":
            return self.if_statement(depth)
        if text == "loop":
            self.take()
            return "for (;;) " + self.block(depth + 1)
        if text == "while":
            self.take()
            cond = self.expr()
            return f"while ({_concrete(cond, 'bool')}) " + self.block(depth + 1)
        if text == "for":
            self.take()
            self.take("(")
            self.scopes.append({})
            init = "" if self.at(";") else self.simple_statement()
            self.take(";")
            cond = "" if self.at(";") else _concrete(self.expr(), "bool")
            self.take(";")
            update = "" if self.at(")") else self.simple_statement()
            self.take(")")
            body = self.block(depth + 1)
            self.scopes.pop()
            return f"for ({init}; {cond}; {update}) {body}"
        if text == "{":
            return self.block(depth + 1)
        s = self.simple_statement()
        self.take(";")
        return s + ";"

    def if_statement(self, depth: int) -> str:
        self.take("if")
        cond = self.expr()
        out = f"if ({_concrete(cond, 'bool')}) " + self.block(depth + 1)
        if self.at("else"):
            self.take()
            if self.at("if"):
                out += " else " + self.if_statement(depth)
            else:
                out += " else " + self.block(depth + 1)
        return out

    def declaration(self) -> str:
        self.take()
        name = self.take()[1]
        t = None
        if self.at(":"):
            self.take()
            t = self.parse_type()
        init = None
        if self.at("="):
            self.take()
            init = self.expr()
        if t is None:
            if init is None:
                raise TranslationError(f"{name}: a declaration needs a type or a value")
            t = _default(init)
        arr = _array_parts(t)
        gname = _name(name)
        if arr:
            et, n = arr
            if init is None:
                zero = _concrete(_E("0", "AI", 0), et)
                value = f"{glsl_type(et)}[{n}](" + ", ".join([zero] * n) + ")"
            else:
                value = init.text
            self.declare(name, t)
            return f"{glsl_type(et)} {gname}[{n}] = {value}"
        if init is None:
            value = _concrete(_E("0", "AI", 0), t) if _scalar_of(t) != "bool" else "false"
            if _vec_parts(t) and _scalar_of(t) == "bool":
                value = f"{glsl_type(t)}(false)"
        else:
            value = _concrete(init, t)
        self.declare(name, t)
        return f"{glsl_type(t)} {gname} = {value}"

    def simple_statement(self) -> str:
        kind, text = self.peek()
        if text in ("let", "var", "const"):
            return self.declaration()
        target = self.postfix()
        op = self.take()[1]
        if op in ("++", "--"):
            return f"{target.text}{op}"
        if op not in ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="):
            raise TranslationError(f"unsupported statement operator {op!r}")
        value = self.expr()
        if op == "%=" and _scalar_of(target.type) == "i32":
            self.used.add("wa_imod")
            return f"{target.text} = wa_imod({target.text}, {_concrete(value, target.type)})"
        if op in ("<<=", ">>="):
            return f"{target.text} {op} {_concrete(value, 'u32' if _is_abstract(value.type) else value.type)}"
        return f"{target.text} {op} {_concrete(value, target.type)}"

    # -- expressions --------------------------------------------------------------------------
    _LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
               ("<<", ">>"), ("+", "-"), ("*", "/", "%")]

    def expr(self, level: int = 0) -> _E:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.expr(level + 1)
        while self.peek()[1] in self._LEVELS[level]:
            op = self.take()[1]
            right = self.expr(level + 1)
            left = self.binary(op, left, right)
        return left

    def binary(self, op: str, a: _E, b: _E) -> _E:
        if _is_abstract(a.type) and _is_abstract(b.type) and op in "+-*/%<<>>&|^":
            return self.fold(op, a, b)
        if op in ("&&", "||"):
            return _E(f"({_concrete(a, 'bool')} {op} {_concrete(b, 'bool')})", "bool")
        if op in ("<<", ">>"):
            lt = _default(a)
            bt = b.type if not _is_abstract(b.type) else "u32"
            return _E(f"({_concrete(a, lt)} {op} {_concrete(b, bt)})", lt)
        t = _unify(a, b)
        ta = a.type if _vec_parts(a.type) else _scalar_of(t) if not _is_abstract(a.type) else t
        tb = b.type if _vec_parts(b.type) else _scalar_of(t) if not _is_abstract(b.type) else t
        if _is_abstract(a.type) and _vec_parts(b.type):
            ta = _scalar_of(t)
        if _is_abstract(b.type) and _vec_parts(a.type):
            tb = _scalar_of(t)
        x, y = _concrete(a, ta), _concrete(b, tb)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            if _vec_parts(t):
                raise TranslationError(f"componentwise comparison {op} of {t}")
            return _E(f"({x} {op} {y})", "bool")
        if _scalar_of(t) == "bool":
            gl = {"&": "&&", "|": "||", "^": "^^"}.get(op)
            if gl is None:
                raise TranslationError(f"operator {op} on bool")
            return _E(f"({x} {gl} {y})", "bool")
        if op == "%" and _scalar_of(t) == "i32":
            self.used.add("wa_imod")
            return _E(f"wa_imod({x}, {y})", t)
        if op == "%" and _scalar_of(t) == "f32":
            raise TranslationError("% on f32 (WGSL truncates, GLSL has no such operator)")
        return _E(f"({x} {op} {y})", t)

    def fold(self, op: str, a: _E, b: _E) -> _E:
        t = "AF" if "AF" in (a.type, b.type) else "AI"
        x, y = a.value, b.value
        if op == "/" and t == "AI":
            v = int(x / y)
        elif op == "%":
            v = x - y * int(x / y) if t == "AI" else None
        else:
            v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
                 "/": lambda: x / y, "<<": lambda: x << y, ">>": lambda: x >> y,
                 "&": lambda: x & y, "|": lambda: x | y, "^": lambda: x ^ y}[op]()
        if v is None:
            raise TranslationError("% of abstract floats")
        text = _float_text(v) if t == "AF" else str(v)
        return _E(text, t, v)

    def unary(self) -> _E:
        text = self.peek()[1]
        if text == "-":
            self.take()
            e = self.unary()
            if _is_abstract(e.type):
                v = -e.value
                return _E(_float_text(v) if e.type == "AF" else str(v), e.type, v)
            return _E(f"(-{e.text})", e.type)
        if text == "!":
            self.take()
            e = self.unary()
            return _E(f"(!{_concrete(e, 'bool')})", "bool")
        if text == "~":
            self.take()
            e = self.unary()
            t = _default(e)
            return _E(f"(~{_concrete(e, t)})", t)
        return self.postfix()

    def postfix(self) -> _E:
        e = self.primary()
        while True:
            if self.at("."):
                self.take()
                sw = self.take()[1]
                v = _vec_parts(e.type)
                if not v or not re.fullmatch(r"[xyzwrgba]{1,4}", sw):
                    raise TranslationError(f"member .{sw} of {e.type}")
                t = v[1] if len(sw) == 1 else f"vec{len(sw)}<{v[1]}>"
                e = _E(f"{e.text}.{sw}", t)
            elif self.at("["):
                self.take()
                idx = self.expr()
                self.take("]")
                arr = _array_parts(e.type)
                v = _vec_parts(e.type)
                if not arr and not v:
                    raise TranslationError(f"indexing a {e.type}")
                it = "u32" if _is_abstract(idx.type) else idx.type
                e = _E(f"{e.text}[{_concrete(idx, it)}]", arr[0] if arr else v[1])
            else:
                return e

    def primary(self) -> _E:
        kind, text = self.take()
        if text == "(":
            e = self.expr()
            self.take(")")
            if _is_abstract(e.type):
                return e
            return _E(f"({e.text})", e.type)
        if kind == "hexfloat":
            return self.literal_float(float.fromhex(text.rstrip("fh")), text)
        if kind == "float":
            suffix = text[-1] in "fh"
            v = float(text.rstrip("fh"))
            return _E(_float_text(v), "f32", v) if suffix else _E(_float_text(v), "AF", v)
        if kind in ("int", "hexint"):
            body = text.rstrip("iu")
            v = int(body, 0)
            if text.endswith("u"):
                return _E(_int_text(v, "u32"), "u32")
            if text.endswith("i"):
                return _E(_int_text(v, "i32"), "i32")
            return _E(str(v), "AI", v)
        if text in ("true", "false"):
            return _E(text, "bool")
        if kind != "ident":
            raise TranslationError(f"unexpected {text!r}")
        if text == "bitcast":
            self.take("<")
            target = self.parse_type()
            self.close_template()
            self.take("(")
            arg = self.expr()
            self.take(")")
            return self.bitcast(target, arg)
        if text in ("vec2", "vec3", "vec4", "array") and self.at("<"):
            self.i -= 1
            t = self.parse_type()
            return self.construct(t, self.args())
        if text in _SCALAR and self.at("("):
            return self.construct(text, self.args())
        if self.at("("):
            return self.call(text, self.args())
        return _E(_name(text), self.lookup(text))

    def literal_float(self, v: float, text: str) -> _E:
        return _E(_float_text(v), "f32" if text[-1] in "fh" else "AF", v)

    def args(self) -> list[_E]:
        self.take("(")
        out = []
        while not self.at(")"):
            out.append(self.expr())
            if self.at(","):
                self.take()
        self.take(")")
        return out

    def construct(self, t: str, args: list[_E]) -> _E:
        arr = _array_parts(t)
        if arr:
            et, n = arr
            inner = ", ".join(_concrete(a, et) for a in args)
            return _E(f"{glsl_type(et)}[{n}]({inner})", t)
        v = _vec_parts(t)
        if v:
            comp = v[1]
            parts = [_concrete(a, comp) if _is_abstract(a.type) else a.text for a in args]
            return _E(f"{glsl_type(t)}({', '.join(parts)})", t)
        (a,) = args
        if _is_abstract(a.type):
            if t == "bool":
                return _E("true" if a.value else "false", "bool")
            return _E(_concrete(a, t), t)
        if a.type == t:
            return a
        return _E(f"{glsl_type(t)}({a.text})", t)

    def bitcast(self, target: str, arg: _E) -> _E:
        src = _default(arg)
        text = _concrete(arg, src)
        s, d = _scalar_of(src), _scalar_of(target)
        if s == d:
            return _E(text, target)
        fn = _BITCAST.get((s, d))
        if fn:
            return _E(f"{fn}({text})", target)
        if {s, d} == {"u32", "i32"}:
            return _E(f"{glsl_type(target)}({text})", target)
        raise TranslationError(f"bitcast<{target}> of {src}")

    def call(self, name: str, args: list[_E]) -> _E:
        if name in self.sigs:
            params, ret = self.sigs[name]
            if len(params) != len(args):
                raise TranslationError(f"{name} takes {len(params)} arguments")
            self.used.add(name)
            inner = ", ".join(_concrete(a, p) for a, p in zip(args, params))
            return _E(f"{name}({inner})", ret)
        if name == "select":
            f, t, c = args
            ty = _unify(f, t)
            if _vec_parts(c.type):
                raise TranslationError("select with a vector condition")
            return _E(f"({_concrete(c, 'bool')} ? {_concrete(t, ty)} : {_concrete(f, ty)})", ty)
        if name == "fma":
            ty = _unify(*args)
            a, b, c = (_concrete(x, ty) for x in args)
            return _E(f"({a} * {b} + {c})", ty)
        if name in ("all", "any"):
            (a,) = args
            if a.type == "bool":
                return a
            return _E(f"{name}({a.text})", "bool")
        if name in ("dot", "length", "distance"):
            ty = _unify(*args)
            return _E(f"{name}({', '.join(_concrete(a, ty) for a in args)})", _scalar_of(ty))
        gl = _SAME.get(name)
        if gl is None:
            raise TranslationError(f"unsupported WGSL function {name!r}")
        ty = _unify(*args)
        if gl.startswith("wa_"):
            self.used.add(gl)
        parts = []
        for a in args:  # min(vec, scalar) is not WGSL, but clamp(x, lo, hi) all share ty
            parts.append(_concrete(a, ty))
        return _E(f"{gl}({', '.join(parts)})", ty)


def signature(src: str) -> tuple[str, tuple, str]:
    """(name, parameter types, return type) of a WGSL function's header."""
    name, params, ret = _Translator({}).header(src.split("{", 1)[0])
    return name, tuple(t for _, t in params), ret


def translate_function(src: str, signatures: dict, globals_: dict | None = None
                       ) -> tuple[str, str, set]:
    """(name, GLSL source, helpers it calls) of one WGSL function; globals_ gives the
    WGSL types of module-scope names it reads."""
    t = _Translator(signatures)
    t.globals = dict(globals_ or {})
    name, glsl, _, _ = t.function(src)
    t.used.discard(name)
    return name, glsl, t.used


def translate_expression(src: str, env: dict, signatures: dict, target: str | None = None):
    """(GLSL text, WGSL type, helpers it calls) of one WGSL expression whose free names
    have the WGSL types in env (a name -> type mapping); converted to target if given."""
    t = _Translator(signatures)
    t.toks = _tokens(src)
    t.scopes = [dict(env)]
    e = t.expr()
    if t.peek()[0] != "eof":
        raise TranslationError(f"trailing {t.peek()[1]!r} in {src!r}")
    ty = target or _default(e)
    return _concrete(e, ty), ty, t.used
