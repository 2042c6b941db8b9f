"""The language of user kernel bodies: one parser for three ways of writing them, two emitters.

ElementwiseKernel and ReductionKernel bodies come in three forms, told apart only by the
type names they use (the grammar accepts the union):

- WGSL: ``f32 x`` parameters, ``let``/``var`` declarations, ``select``, ``loop`` (with
  ``continuing`` and ``break if``), ``for``, ``while``;
- GLSL: ``float x`` parameters, C declarations, ``?:``;
- CuPy's own: ``float32 x`` parameters (NumPy dtype names) with a C-like body:
  declarations (``float t = x * 2.0f;``, also ``double``/``int``/``unsigned int``, or the
  parameter types), assignments (``=``, ``+=``, ..., ``++``), arithmetic, comparisons,
  logic, bit operations, ``?:``, C casts, ``if``/``else``, ``for``, ``while``, ``do``,
  ``break``, ``continue``, and the usual math calls (``sqrt``, ``expf``, ``atan2``,
  ``fmin``, ``isnan``, ...).

A body is parsed into a small typed tree, then emitted as a WGSL or a GLSL ES 3.00
function. Types follow C: mixed operands are converted (int to float, signed to unsigned),
literals take the type of the other operand, and assignments convert to the target's
type; both shader languages need these conversions spelled out, so the emitters write
them. Registers are ``bool``, ``i32``, ``u32`` and ``f32`` (``double`` in a body means
f32: the device has no float64). Names in the emitted code get a ``u_`` prefix, so a user
name never collides with a keyword of either language (``out``, ``input``, ``filter``).

Errors in the body are reported as ``KernelError`` with the body's line; a name this
module does not know as a function is passed through to the shader compiler, whose error
then comes back with the generated source.

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
makes loops unbounded there. On such a device (``loops_bounded``) a body is emitted
``checked``: every loop keeps a flag that its test, ``break`` or ``break if`` sets, a loop
that ends without it records its line, which the kernel returns as one more output, and
the call raises ``LoopLimitError``; and a loop with no loop inside runs ``UNROLL`` passes
per turn of the emitted loop, so it spends the budget ``UNROLL`` times more slowly: one
such loop runs about 524,000 passes per element (the elementwise kernel then takes one
element per thread; a launch in pieces, above the binding limit, keeps four elements per
thread, which share its budget). Elsewhere the body is emitted as written: SwiftShader (WebGPU
and WebGL2 in Chromium) ran a loop of 3,000,000 passes exactly.
"""

from __future__ import annotations

import hashlib
import math
import re

from ..executors.protocol import KernelError
from ..kernels.ops import TABLE
from ..kernels.specs.raw import glsl_name

# passes of a loop with no loop inside per turn of the emitted loop, where loops are bounded
UNROLL = 8
# llvmpipe's loop passes per SIMD group of a shader run (LP_MAX_TGSI_LOOP_ITERATIONS)
LLVMPIPE_LOOP_PASSES = 65535


class LoopLimitError(RuntimeError):
    """A loop of a user kernel was ended by the device's loop limit before it finished."""


def loops_bounded(adapter_info: dict) -> bool:
    """Whether the adapter ends long loops silently (Mesa's llvmpipe / lavapipe)."""
    text = " ".join(str(v) for v in adapter_info.values()).lower()
    return "llvmpipe" in text or "lavapipe" in text


def loop_limit_error(kernel: str, source: str, line: int, device, what: str = "body",
                     partial: str = "") -> LoopLimitError:
    """The error for the loop at ``line`` of a kernel's body (or source) that the device
    cut short; ``partial`` names arrays that were written all the same."""
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return LoopLimitError(
        f"kernel {kernel!r}: the loop at line {line} of the {what} ({text!r}) was stopped "
        f"before its end by {device!r}, which runs at most {LLVMPIPE_LOOP_PASSES:,} loop "
        f"passes per group of 8 threads (all loops of the kernel together; a loop with no "
        f"loop inside counts one per {UNROLL} passes), so the result would be wrong"
        + (f"; {partial} hold partial results" if partial else ""))


# -- types ----------------------------------------------------------------------------------

REGISTERS = ("bool", "i32", "u32", "f32")
# type names of the three forms (and C's) -> register type
TYPE_NAMES = {
    # WGSL
    "bool": "bool", "i32": "i32", "u32": "u32", "f32": "f32",
    # GLSL and C
    "int": "i32", "uint": "u32", "float": "f32", "double": "f32", "unsigned": "u32",
    "char": "i32", "short": "i32", "long": "i32", "size_t": "u32", "ptrdiff_t": "i32",
    "signed": "i32",
    # CuPy (NumPy dtype names)
    "bool_": "bool", "int8": "i32", "int16": "i32", "int32": "i32", "uint8": "u32",
    "uint16": "u32", "uint32": "u32", "float32": "f32",
}
_WGSL_TYPE = {"bool": "bool", "i32": "i32", "u32": "u32", "f32": "f32"}
_GLSL_TYPE = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float"}

# literal types: abstract until an operand or an assignment gives them a register type
AINT, AFLOAT = "int literal", "float literal"


def concrete(t: str) -> str:
    return {AINT: "i32", AFLOAT: "f32"}.get(t, t)


def unify(a: str, b: str) -> str:
    """C's usual arithmetic conversions over register and literal types."""
    if a == b:
        return a
    if "f32" in (a, b):
        return "f32"
    if AFLOAT in (a, b):
        return "f32" if ({a, b} - {AFLOAT}) - {AINT} else AFLOAT
    if a == AINT:
        return "i32" if b == "bool" else b
    if b == AINT:
        return "i32" if a == "bool" else a
    if "u32" in (a, b):
        return "u32"
    return "i32"


# -- tokens ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+|//[^\n]*|/\*.*?\*/)
  | (?P<nl>\n)
  | (?P<num>0[xX][0-9a-fA-F]+[uUiIlL]*
           |(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFhHuUiIlL]*)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><<=|>>=|&&|\|\||==|!=|<=|>=|<<|>>|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|->
           |[-+*/%<>=!&|^~?:;,(){}\[\].])
""", re.S | re.X | re.A)


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f"{self.text!r}@{self.line}"


def tokenize(src: str) -> list[Tok]:
    out: list[Tok] = []
    line, pos = 1, 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if m is None:
            c = src[pos]
            note = f" (U+{ord(c):04X}; a body is written in ASCII)" if ord(c) > 127 else ""
            raise BodyError(f"unexpected character {c!r}{note}", line)
        kind = m.lastgroup
        text = m.group()
        if kind == "nl":
            line += 1
        elif kind == "ws":
            line += text.count("\n")
        else:
            out.append(Tok(kind, text, line))
        pos = m.end()
    out.append(Tok("end", "", line))
    return out


class BodyError(Exception):
    """A problem in a kernel body at a line (turned into a KernelError with context)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.message, self.line = message, line


# -- the tree -------------------------------------------------------------------------------
# Expressions are tuples whose first item is the kind, statements too; types are attached
# by the checker (each expression node becomes (kind, type, ...)).

_BINARY_PREC = [
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
]
_ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")


class Parser:
    def __init__(self, src: str, types: dict[str, str]):
        self.toks = tokenize(src)
        self.i = 0
        self.types = types  # type names valid in this body (incl. resolved placeholders)
        # what a 'break'/'continue' is inside of: "loop" (a loop's body) or "continuing"
        self.within: list[str] = []
        # "body": an ElementwiseKernel body, where CuPy's loop over the elements is around
        # the statements ('continue' or 'return;' outside a loop end the element);
        # "function": a preamble function ('return value;')
        self.context = "body"

    # token helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k=1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, *texts) -> bool:
        t = self.tok
        return t.kind in ("op", "id") and t.text in texts

    def expect(self, text: str) -> Tok:
        t = self.tok
        if t.text != text or t.kind not in ("op", "id"):
            found = "the end of the body" if t.kind == "end" else repr(t.text)
            raise BodyError(f"expected {text!r}, found {found}", t.line)
        return self.next()

    def ident(self) -> Tok:
        t = self.tok
        if t.kind != "id":
            raise BodyError(f"expected a name, found {t.text!r}", t.line)
        return self.next()

    def is_type_at(self, k=0) -> bool:
        t = self.peek(k)
        return t.kind == "id" and t.text in self.types

    def parse_type(self) -> str:
        t = self.tok
        if t.text == "unsigned":
            self.next()
            if self.at("int", "long", "char", "short"):
                self.next()
            return "u32"
        if t.text in ("signed", "long", "short") and self.peek().text == "int":
            self.next()
        if not self.is_type_at():
            raise BodyError(f"{t.text!r} is not a type this kernel knows", t.line)
        self.next()
        return self.types[t.text]

    # statements
    def body(self) -> list:
        stmts = []
        while self.tok.kind != "end":
            stmts.append(self.statement())
        return stmts

    def block(self) -> list:
        self.expect("{")
        stmts = []
        while not self.at("}"):
            if self.tok.kind == "end":
                raise BodyError("a '{' is never closed", self.tok.line)
            stmts.append(self.statement())
        self.next()
        return stmts

    def sub(self) -> list:
        """The body of an if/for/while: a block or one statement."""
        if self.at("{"):
            return self.block()
        return [self.statement()]

    def loop_body(self, parse):
        self.within.append("loop")
        try:
            return parse()
        finally:
            self.within.pop()

    def loop_block(self):
        """A WGSL loop's braces: statements, then optionally ``continuing { ... }`` ending
        with ``break if <condition>;``. Returns (body, continuing statements, condition)."""
        self.expect("{")
        body, cont, until = [], [], None
        self.within.append("loop")
        while not self.at("}", "continuing"):
            if self.tok.kind == "end":
                raise BodyError("a '{' is never closed", self.tok.line)
            body.append(self.statement())
        if self.at("continuing"):
            self.within[-1] = "continuing"
            self.next()
            self.expect("{")
            while not self.at("}"):
                if self.tok.kind == "end":
                    raise BodyError("a '{' is never closed", self.tok.line)
                if self.at("break") and self.peek().text == "if":
                    self.next()
                    self.next()
                    until = self.expr()
                    self.end_statement()
                    if not self.at("}"):
                        raise BodyError("'break if' must be the last statement of 'continuing'",
                                        self.tok.line)
                    break
                cont.append(self.statement())
            self.next()
            if not self.at("}"):
                raise BodyError("'continuing' must be the last part of a loop", self.tok.line)
        self.within.pop()
        self.next()
        return body, cont, until

    def statement(self):
        t = self.tok
        line = t.line
        if self.at("{"):
            return ("block", line, self.block())
        if self.at(";"):
            self.next()
            return ("block", line, [])
        if self.at("if"):
            self.next()
            cond = self.expr()
            then = self.sub()
            other = None
            if self.at("else"):
                self.next()
                other = self.sub()
            return ("if", line, cond, then, other)
        # every loop is ("loop", line, init, cond, body, cont, until): init runs once (its
        # names are the loop's), cond is tested before each pass, cont runs after each pass
        # and at a 'continue' (a for's step, WGSL's continuing), and 'until' ends the loop
        # after cont (do-while's negated condition, WGSL's 'break if')
        if self.at("while"):
            self.next()
            cond = self.expr()
            return ("loop", line, None, cond, self.loop_body(self.sub), [], None)
        if self.at("do"):
            self.next()
            body = self.loop_body(self.sub)
            self.expect("while")
            cond = self.expr()
            self.expect(";")
            return ("loop", line, None, None, body, [], ("un", "!", cond))
        if self.at("loop"):
            self.next()
            body, cont, until = self.loop_block()
            return ("loop", line, None, None, body, cont, until)
        if self.at("for"):
            self.next()
            self.expect("(")
            init = None if self.at(";") else self.simple()
            self.expect(";")
            cond = None if self.at(";") else self.expr()
            self.expect(";")
            step = None if self.at(")") else self.simple()
            self.expect(")")
            body = self.loop_body(self.sub)
            return ("loop", line, init, cond, body, [step] if step else [], None)
        if self.at("break", "continue"):
            self.next()
            if t.text == "break" and self.at("if"):
                raise BodyError("'break if' may only end a 'continuing' block", line)
            if t.text == "continue" and not self.within and self.context == "body":
                # CuPy runs the body inside its loop over the elements: on to the next one
                self.end_statement()
                return ("return", line, None)
            if not self.within or self.within[-1] != "loop":
                where = "a 'continuing' block" if self.within else "a loop"
                raise BodyError(f"'{t.text}' is not allowed {'in' if self.within else 'outside'} "
                                f"{where}", line)
            self.end_statement()
            return (t.text, line)
        if self.at("return"):
            self.next()
            value = None if self.at(";") or self.tok.kind == "end" else self.expr()
            if self.context != "function" and value is not None:
                raise BodyError("'return' with a value is not allowed in a kernel body; assign "
                                "the outputs ('return;' ends the element)", line)
            self.end_statement()
            return ("return", line, value)
        if self.at("assert") and self.peek().text == "(":
            # CUDA's device assert: checks that hold in correct use, as in a build with
            # NDEBUG (the arguments are parsed, not evaluated)
            self.next()
            self.expect("(")
            self.expr()
            self.expect(")")
            self.end_statement()
            return ("block", line, [])
        s = self.simple()
        self.end_statement()
        return s

    def end_statement(self) -> None:
        """';' (CuPy adds one after the body, so the last statement may leave it out)."""
        if self.tok.kind != "end":
            self.expect(";")

    def simple(self):
        """A declaration, assignment, increment or call, without its ';'."""
        t = self.tok
        line = t.line
        if self.at("let", "var", "const") and not (t.text == "const" and self.is_type_at(1)):
            mutable = t.text == "var"
            self.next()
            name = self.ident().text
            typ = None
            if self.at(":"):
                self.next()
                typ = self.parse_type()
            init = None
            if self.at("="):
                self.next()
                init = self.expr()
            if typ is None and init is None:
                raise BodyError(f"{name!r} needs a type or an initial value", line)
            return ("decl", line, [(name, typ, init)], mutable)
        if self.at("const") or self.is_type_at() and self.peek().kind == "id" or self.at("unsigned"):
            if self.at("const"):
                self.next()
            typ = self.parse_type()
            items = []
            while True:
                name = self.ident().text
                init = None
                size = None
                if self.at("["):  # a local array: int ind[] = {i, j};
                    self.next()
                    if not self.at("]"):
                        n = self.expr()
                        if n[0] != "lit" or n[1] not in (AINT, "i32", "u32"):
                            raise BodyError("an array's size must be an integer constant", line)
                        size = int(n[2])
                    self.expect("]")
                if self.at("="):
                    self.next()
                    if size is not None or self.at("{"):
                        self.expect("{")
                        vals = []
                        while not self.at("}"):
                            vals.append(self.expr())
                            if not self.at(","):
                                break
                            self.next()
                        self.expect("}")
                        init = ("list", vals)
                    else:
                        init = self.expr()
                if init is not None and init[0] == "list":
                    size = len(init[1]) if size is None else size
                    if len(init[1]) > size:
                        raise BodyError(f"{len(init[1])} values for an array of {size}", line)
                elif size is not None:
                    init = ("list", [])
                items.append((name, typ, init if size is None else ("list", init[1], size)))
                if not self.at(","):
                    break
                self.next()
            return ("decl", line, items, True)
        if self.at("++", "--"):
            op = self.next().text
            target = self.ident().text
            return ("assign", line, target, op[0] + "=", ("lit", AINT, "1"))
        start = self.i
        if self.tok.kind == "id" and self.peek().text == "[":
            target = self.next().text
            self.next()
            idx = self.expr()
            self.expect("]")
            if self.tok.text in _ASSIGN_OPS:
                op = self.next().text
                return ("store", line, target, idx, op, self.expr())
            self.i = start
        if self.tok.kind == "id" and (self.peek().text in _ASSIGN_OPS or self.peek().text in ("++", "--")):
            target = self.next().text
            op = self.next().text
            if op in ("++", "--"):
                return ("assign", line, target, op[0] + "=", ("lit", AINT, "1"))
            return ("assign", line, target, op, self.expr())
        self.i = start
        e = self.expr()
        if e[0] != "call":
            raise BodyError("this statement has no effect: expected an assignment, a "
                            "declaration or a call", line)
        return ("expr", line, e)

    def definitions(self) -> dict:
        """A preamble: CUDA C function definitions, ``[template <typename T>]
        [__device__ ...] type name(params) { ... }``; a parameter may be a reference
        (``T &p``), a template parameter takes the type of its argument at each call."""
        defs = {}
        while self.tok.kind != "end":
            line = self.tok.line
            tmpl = []
            if self.at("template"):
                self.next()
                self.expect("<")
                while True:
                    if not self.at("typename", "class"):
                        raise BodyError("expected 'typename' in the template's parameters",
                                        self.tok.line)
                    self.next()
                    tmpl.append(self.ident().text)
                    if not self.at(","):
                        break
                    self.next()
                self.expect(">")
            saved = self.types
            self.types = dict(saved, **{t: TEMPLATE + t for t in tmpl})
            try:
                while self.at(*_QUALIFIERS):
                    self.next()
                ret = None
                if self.at("void"):
                    self.next()
                else:
                    ret = self.parse_type()
                name = self.ident().text
                self.expect("(")
                params = []
                while not self.at(")"):
                    if self.at("const"):
                        self.next()
                    ptype = self.parse_type()
                    ref = self.at("&")
                    if ref:
                        self.next()
                    params.append((self.ident().text, ptype, ref))
                    if not self.at(","):
                        break
                    self.next()
                self.expect(")")
                self.context = "function"
                body = self.block()
                self.context = "body"
            finally:
                self.types = saved
            if name in defs:
                raise BodyError(f"the preamble defines {name!r} twice (overloads are not "
                                "supported)", line)
            defs[name] = Definition(name, tuple(tmpl), tuple(params), ret, body, line)
        return defs

    # expressions
    def expr(self):
        cond = self.binary(0)
        if self.at("?"):
            self.next()
            a = self.expr()
            self.expect(":")
            b = self.expr()
            return ("cond", cond, a, b)
        return cond

    def binary(self, level: int):
        if level == len(_BINARY_PREC):
            return self.unary()
        left = self.binary(level + 1)
        while self.tok.kind == "op" and self.tok.text in _BINARY_PREC[level]:
            op = self.next().text
            right = self.binary(level + 1)
            left = ("bin", op, left, right)
        return left

    def unary(self):
        if self.at("-", "+", "!", "~"):
            op = self.next().text
            return ("un", op, self.unary())
        if self.at("&"):  # an address, for atomicAdd(&x[k], v)
            line = self.next().line
            return ("addr", self.unary(), line)
        if self.at("(") and self._cast_ahead():
            self.next()
            typ = self.parse_type()
            self.expect(")")
            return ("conv", typ, self.unary())
        return self.postfix()

    def _cast_ahead(self) -> bool:
        """Whether '(' starts a C cast: '(' type-words ')'."""
        k = 1
        while self.peek(k).kind == "id" and (self.peek(k).text in self.types
                                             or self.peek(k).text in ("unsigned", "signed")):
            k += 1
        return k > 1 and self.peek(k).text == ")"

    def postfix(self):
        t = self.tok
        line = t.line
        if t.kind == "num":
            self.next()
            return _number(t)
        if t.kind == "id":
            self.next()
            if t.text in ("true", "false"):
                return ("lit", "bool", t.text)
            if t.text == "static_cast" and self.at("<"):
                self.next()
                typ = self.parse_type()
                self.expect(">")
                self.expect("(")
                arg = self.expr()
                self.expect(")")
                return ("conv", typ, arg)
            if self.at("["):
                self.next()
                idx = self.expr()
                self.expect("]")
                return ("index", t.text, idx, line)
            if self.at(".") and self.peek().text == "shape" and self.peek(2).text == "(":
                # CuPy's raw arrays: x.shape()[k]
                self.next(), self.next(), self.next()
                self.expect(")")
                self.expect("[")
                k = self.expr()
                self.expect("]")
                if k[0] != "lit" or k[1] not in (AINT, "i32", "u32"):
                    raise BodyError(f"{t.text}.shape()[k] needs a constant k", line)
                return ("shape", t.text, int(k[2]), line)
            if self.at(".") and self.peek().text == "size" and self.peek(2).text == "(":
                # CuPy's index objects: _ind.size(), _in_ind.size(), _out_ind.size()
                self.next(), self.next(), self.next()
                self.expect(")")
                return ("name", t.text + "__size", line)
            if t.text == "bitcast" and self.at("<"):
                self.next()
                typ = self.parse_type()
                self.expect(">")
                self.expect("(")
                arg = self.expr()
                self.expect(")")
                return ("bitcast", typ, arg)
            if self.at("("):
                self.next()
                args = []
                if not self.at(")"):
                    while True:
                        args.append(self.expr())
                        if not self.at(","):
                            break
                        self.next()
                self.expect(")")
                if t.text in self.types:
                    if len(args) != 1:
                        raise BodyError(f"the conversion {t.text}(...) takes one value", line)
                    return ("conv", self.types[t.text], args[0])
                return ("call", t.text, args, line)
            return ("name", t.text, line)
        if self.at("("):
            self.next()
            e = self.expr()
            self.expect(")")
            return e
        found = "the end of the body" if t.kind == "end" else repr(t.text)
        raise BodyError(f"expected a value, found {found}", line)


# words before a preamble function's type that change nothing here
_QUALIFIERS = ("__device__", "__host__", "__forceinline__", "__inline__", "inline", "static",
               "__noinline__")
TEMPLATE = "template:"  # a template parameter's type until a call binds it


class Definition:
    """A preamble function: parameters (name, type, is a reference), result type (None:
    void), body statements; types may be TEMPLATE + name."""

    def __init__(self, name, template, params, ret, body, line):
        self.name, self.template, self.params, self.ret, self.body, self.line = (
            name, template, params, ret, body, line)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])(.*)$")


def preprocess(preamble: str, body: str) -> tuple[str, str]:
    """C's object-like ``#define NAME text`` (with ``\\`` line continuations) in the preamble,
    expanded in the preamble and the body; the body keeps its line numbers. Other
    directives raise ``BodyError``."""
    lines, pending, joined = [], None, 0
    for text in preamble.split("\n"):
        text = text.rstrip("\r") if pending is None else pending + " " + text.rstrip("\r")
        if text.endswith("\\"):
            pending, joined = text[:-1], joined + 1
            continue
        lines.append(text)
        lines.extend([""] * joined)  # the preamble keeps its line numbers too
        pending, joined = None, 0
    if pending is not None:
        lines.append(pending)
    macros: dict[str, str] = {}
    kept = []
    for k, text in enumerate(lines, start=1):
        m = _DEFINE.match(text)
        if m:
            macros[m.group(1)] = m.group(2).strip()
            kept.append("")
        elif text.lstrip().startswith("#"):
            raise BodyError(f"the preprocessor directive {text.strip()!r} is not supported "
                            "(only '#define NAME text')", k)
        else:
            kept.append(text)
    if not macros:
        return "\n".join(kept), body
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, macros)) + r")\b")

    def expand(text: str) -> str:
        for _ in range(16):  # macros that name macros
            new = pattern.sub(lambda m: macros[m.group(1)], text)
            if new == text:
                return new
            text = new
        return text

    return expand("\n".join(kept)), expand(body)


def _number(t: Tok):
    text = t.text
    if text[:2] in ("0x", "0X"):
        digits = text.rstrip("uUiIlL")
        suffix = text[len(digits):].lower()
        typ = "u32" if "u" in suffix else ("i32" if "i" in suffix else AINT)
        return ("lit", typ, str(int(digits, 16)))
    body = text.rstrip("fFhHuUiIlL")
    suffix = text[len(body):].lower()
    is_float = any(c in body for c in ".eE") or "f" in suffix or "h" in suffix
    if is_float:
        return ("lit", "f32" if suffix in ("f", "h") else AFLOAT, repr(float(body)))
    if "u" in suffix:
        return ("lit", "u32", str(int(body)))
    if "i" in suffix:
        return ("lit", "i32", str(int(body)))
    return ("lit", AINT, str(int(body)))


# -- math calls -----------------------------------------------------------------------------
# name -> (argument rule, result rule, WGSL template, GLSL template). Argument rules:
# "f" every argument is f32; "same" arguments unified; "int" ints. Result "f", "same",
# "bool". Templates use {0}, {1}, ... for the (converted) arguments.
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


# -- checking and emitting ------------------------------------------------------------------

class Emitter:
    """Types a parsed body and writes it in one shader language ("wgsl" or "glsl")."""

    def __init__(self, lang: str, scopes: list[dict], exact: str | None = None,
                 checked: bool = False, raws: dict | None = None, raw_ndims=None,
                 atomic=(), definitions=None, leave: str = "return;", root=None):
        self.lang = lang
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
        self.leave = leave  # what 'return;' is: the end of the element or of a function
        self.refs: set = set()  # reference parameters of the function being written
        self.bind: dict = {}  # template parameter -> register type
        self.ret = None  # the result type of the function being written
        # raw parameters: name -> register type; element k is r_<name>[k] of a storage
        # array of 32-bit words (bool and narrow integers take a word each, as stored)
        self.raws = raws or {}
        self.scopes = scopes  # name -> (register type, mutable)
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
        raise BodyError(f"unknown name {name!r}", line)

    def tname(self, t: str) -> str:
        return (_WGSL_TYPE if self.lang == "wgsl" else _GLSL_TYPE)[concrete(self.rtype(t))]

    def rtype(self, t):
        """A type of the tree with template parameters bound."""
        if isinstance(t, str) and t.startswith(TEMPLATE):
            if t not in self.bind:
                raise BodyError(f"the template parameter {t[len(TEMPLATE):]!r} is not bound "
                                "by the call's arguments", 0)
            return self.bind[t]
        return t

    def var_text(self, name: str) -> str:
        return f"(*u_{name})" if name in self.refs and self.lang == "wgsl" else f"u_{name}"

    # expressions: return (text, type)
    def lit(self, value: str, t: str) -> str:
        t = concrete(t)
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
        v = int(float(value))
        if t == "u32":
            return f"{v & 0xFFFFFFFF}u"
        if self.lang == "wgsl":
            return f"{v}i" if v >= 0 else f"({v}i)"
        return str(v) if v >= 0 else f"({v})"

    def convert(self, e, t: str) -> str:
        """Text of expression e converted to type t (literals are written in t)."""
        text, et = e
        t = concrete(t) if t in (AINT, AFLOAT) else t
        if et in (AINT, AFLOAT):
            if t == "bool":
                return "true" if float(text) != 0 else "false"
            if et == AFLOAT and t != "f32":
                return self.lit(str(int(float(text))), t)
            return self.lit(text, t)
        if et == t:
            return text
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
            if "[" in t:
                raise BodyError(f"the array {e[1]!r} is used as a value (index it, or index "
                                "a raw parameter with it)", e[2])
            return (self.var_text(e[1]), t)
        if kind == "un":
            op, a = e[1], self.expr(e[2])
            if op == "!":
                return (f"!{self._paren(self.convert(a, 'bool'))}", "bool")
            if a[1] in (AINT, AFLOAT):
                v = -float(a[0]) if op == "-" else float(a[0])
                if op == "~":
                    return self.expr(("lit", "i32", str(~int(a[0]))))
                return (repr(v) if a[1] == AFLOAT else str(int(v)), a[1])
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
            if self.lang == "wgsl":
                return (f"bitcast<{self.tname(e[1])}>({text})", e[1])
            fn = {("f32", "u32"): "floatBitsToUint", ("f32", "i32"): "floatBitsToInt",
                  ("u32", "f32"): "uintBitsToFloat", ("i32", "f32"): "intBitsToFloat"}.get((src, e[1]))
            return (f"{fn}({text})" if fn else f"{self.tname(e[1])}({text})", e[1])
        if kind == "call":
            return self.call(e)
        if kind == "index":
            local = self.local_array(e[1], e[3])
            if local:
                return (f"u_{e[1]}[{self.convert(self.expr(e[2]), 'i32')}]", local[0])
            return self.raw_element(e[1], e[2], e[3])
        raise AssertionError(kind)

    def local_array(self, name: str, line: int):
        """(element type, length) of a local array, or None for another name."""
        for s in reversed(self.scopes):
            if name in s:
                t = s[name][0]
                if "[" in t:
                    base, n = t[:-1].split("[")
                    return base, int(n)
                return None
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
            k = f"i32(u_{index[1]}[0])"
            for d in range(1, ndim):
                k = f"({k} * r_{name}__shape{d} + i32(u_{index[1]}[{d}]))"
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
        if a[1] in (AINT, AFLOAT) and b[1] in (AINT, AFLOAT) and op in "+-*/" and (
                AFLOAT in (a[1], b[1])):
            # C folds constant float arithmetic (1.0/0.0 is infinity), which WGSL refuses
            x, y = float(a[0]), float(b[0])
            if op == "/":
                v = x / y if y else (math.copysign(math.inf, x) * math.copysign(1.0, y) if x else math.nan)
            else:
                v = {"+": x + y, "-": x - y, "*": x * y}[op]
            return (repr(v), AFLOAT)
        if a[1] in (AINT, AFLOAT) and b[1] in (AINT, AFLOAT) and op not in ("<<", ">>"):
            t = unify(a[1], b[1])
            a, b = (self.lit(a[0], t), concrete(t)), (self.lit(b[0], t), concrete(t))
        if op in ("<<", ">>"):
            t = concrete(a[1])
            if t in ("f32", "bool"):
                raise BodyError(f"{op!r} needs integer operands", 0)
            amount = self.convert(b, "u32") if self.lang == "wgsl" else self.convert(b, concrete(b[1]))
            return (f"({self.convert(a, t)} {op} {amount})", t)
        t = unify(a[1], b[1])
        if t == "bool" and op not in ("==", "!=", "&", "|", "^"):
            t = "i32"
        t = concrete(t)
        x, y = self.convert(a, t), self.convert(b, t)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return (f"({x} {op} {y})", "bool")
        if op in ("&", "|", "^", "%") and t == "f32" and op != "%":
            raise BodyError(f"{op!r} needs integer operands", 0)
        if op == "%" and t == "f32" and self.lang == "glsl":
            return (f"({x} - {y} * trunc({x} / {y}))", t)
        if t == "bool":
            op = {"&": "&&", "|": "||", "^": "!="}[op]
        if op in ("+", "-", "*", "/") and t == "f32" and self.exact:
            self.used_exact = True
            return (f"{self.exact}({x} {op} {y})", t)
        return (f"({x} {op} {y})", t)

    def call(self, e):
        _, name, args, line = e
        if name in self.definitions:
            return self.user_call(e)
        if name == "atomicAdd":
            return self.atomic_add(e)
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
                if not mutable or "[" in t:
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
                    texts.append(f"u_{v[0]}" if v[0] in self.refs else f"&u_{v[0]}")
                else:
                    texts.append(f"u_{v[0]}")
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
                      self.atomic, self.definitions, root=root)
        sub.bind = bind
        try:
            params = [concrete(sub.rtype(t)) for _, t, _ in d.params]
            ret = concrete(sub.rtype(d.ret)) if d.ret is not None else None
        except BodyError as err:
            err.line = err.line or line
            raise
        fname = f"pf_{d.name}_{len(root.instances)}"
        root.instances[key] = (fname, params, ret)
        sub.ret = ret
        sub.refs = {n for n, _, ref in d.params if ref}
        for (n, _, ref), t in zip(d.params, params):
            sub.scopes[0][n] = (t, True)
        sub.scopes.append({})
        try:
            sub.emit(d.body, 1)
        except BodyError as err:
            err.where = "preamble"
            raise
        copies = [n for n, _, ref in d.params if not ref and n in sub.assigned]
        if self.lang == "wgsl":
            sig = ", ".join(
                (f"u_{n}: ptr<function, {_WGSL_TYPE[t]}>" if ref else
                 f"{'p' if n in copies else 'u'}_{n}: {_WGSL_TYPE[t]}")
                for (n, _, ref), t in zip(d.params, params))
            head = f"fn {fname}({sig})" + (f" -> {_WGSL_TYPE[ret]}" if ret else "") + " {"
            copy = [f"    var u_{n} = p_{n};" for n in copies]
        else:
            sig = ", ".join(f"{'inout ' if ref else ''}{_GLSL_TYPE[t]} "
                            f"{'p' if n in copies else 'u'}_{n}"
                            for (n, _, ref), t in zip(d.params, params))
            head = f"{_GLSL_TYPE[ret] if ret else 'void'} {fname}({sig}) {{"
            copy = [f"    {_GLSL_TYPE[t]} u_{n} = p_{n};"
                    for (n, _, ref), t in zip(d.params, params) if n in copies]
        root.functions.append("\n".join([head, *copy, *sub.lines, "}"]) + "\n")
        if sub.used_exact:
            root.used_exact = True
        return fname, params, ret

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
                    if val is not None:
                        text = self.convert(val, t)
                    if self.lang == "wgsl":
                        kw = "var" if s[3] else "let"
                        self.out(depth, f"{kw} u_{name}: {self.tname(t)}"
                                 + (f" = {text};" if val is not None else ";"))
                    else:
                        if val is None:
                            text = self.lit("0", t) if t != "bool" else "false"
                        self.out(depth, f"{self.tname(t)} u_{name} = {text};")
                    self.scopes[-1][name] = (t, s[3])
            elif kind == "assign":
                self.out(depth, self.assignment(s) + ";")
            elif kind == "store" and self.local_array(s[2], line):
                _, _, name, index, op, value = s
                t = self.local_array(name, line)[0]
                ref = f"u_{name}[{self.convert(self.expr(index), 'i32')}]"
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
        vals += [self.lit("0", t) if t != "bool" else "false"] * (n - len(vals))
        if self.lang == "wgsl":
            self.out(depth, f"var u_{name} = array<{self.tname(t)}, {n}>({', '.join(vals)});")
        else:
            self.out(depth, f"{self.tname(t)} u_{name}[{n}] = {self.tname(t)}[{n}]("
                     f"{', '.join(vals)});")
        self.scopes[-1][name] = (f"{t}[{n}]", True)

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
        if not any(_has_loop(x) for x in body + cont):
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
        if "[" in t:
            raise BodyError(f"the array {target!r} cannot be assigned as a whole", line)
        self.assigned.add(target)
        text = self.var_text(target)
        if op == "=":
            val = self.convert(self.expr(value), t)
        else:
            val = self.convert(self.binop(op[:-1], (text, t), self.expr(value)), t)
        return f"{text} = {val}"


def _has_loop(s) -> bool:
    kind = s[0]
    if kind == "loop":
        return True
    if kind == "block":
        return any(_has_loop(x) for x in s[2])
    if kind == "if":
        return any(_has_loop(x) for x in s[3] + (s[4] or []))
    return False


def _continues(s) -> bool:
    """Whether statement s (inside a loop with no loop inside) holds a 'continue'."""
    kind = s[0]
    if kind == "continue":
        return True
    if kind == "block":
        return any(_continues(x) for x in s[2])
    if kind == "if":
        return any(_continues(x) for x in s[3] + (s[4] or []))
    return False


# -- functions ------------------------------------------------------------------------------

class UserFunction:
    """A translated kernel body: a function of the input registers returning the outputs.

    ``name`` depends on the source, so equal bodies share compiled kernels. ``source(lang)``
    gives the WGSL or GLSL ES 3.00 function (with its result struct).

    ``checked`` (for llvmpipe, see the module docstring): when the body has loops, the WGSL
    function unrolls its innermost loops and returns one more field, ``o<len(outputs)>``, a
    u32 that is 0 when every loop ran to its end and otherwise the body's line of the first
    loop the device cut short (``checked`` stays False for a body without loops).
    """

    def __init__(self, kernel: str, body: str, inputs, outputs, types: dict[str, str],
                 readable_outputs: bool = False, checked: bool = False, raws=(),
                 preamble: str = "", raw_ndims=None):
        self.kernel = kernel
        try:
            preamble, body = preprocess(preamble, body)
        except BodyError as err:
            raise _body_error(kernel, preamble, err, "preamble") from None
        self.body = body
        self.preamble = preamble
        # raw parameters (name, register type): read and written as module-scope arrays
        # r_<name> that the kernel around the function declares (_raw_elementwise), with
        # their dimensions (sizes as r_<name>__shape<k>); atomicAdd makes a raw
        # parameter's array one of atomic words (``atomic``)
        self.raws = dict(raws)
        self.raw_ndims = dict(raw_ndims or {})
        self.definitions = {}
        if preamble.strip():
            try:
                self.definitions = Parser(preamble, types).definitions()
            except BodyError as err:
                raise _body_error(kernel, preamble, err, "preamble") from None
        self.inputs = list(inputs)  # (name, register type)
        self.outputs = list(outputs)  # (name, register type)
        self.readable_outputs = readable_outputs  # outputs are also arguments (in/out)
        self.types = types
        self.tree = _parse(body, types, kernel)
        self.atomic = set(_ATOMIC.findall(body + "\n" + preamble)) & set(self.raws)
        self.checked = checked and any(_has_loop(s) for s in self.tree)
        digest = hashlib.sha1(repr((body, preamble, self.inputs, self.outputs,
                                    readable_outputs, sorted(types.items()), self.checked,
                                    sorted(self.raws.items()), sorted(self.raw_ndims.items()))
                                   ).encode()).hexdigest()[:12]
        self.name = f"user_{digest}"
        self._sources: dict[str, str] = {}
        self.source("wgsl")  # type errors in the body surface when the kernel is made

    def source(self, lang: str) -> str:
        src = self._sources.get(lang)
        if src is None:
            src = self._emit(lang)
            src = self._sources[lang] = glsl_name(src) if lang == "glsl" else src
        return src

    def _emit(self, lang: str) -> str:
        # inputs are assignable, as C passes them by value: the ones the body assigns
        # become local copies of the arguments
        params = {name: (t, True) for name, t in self.inputs}
        outs = {name: (t, True) for name, t in self.outputs}
        exact = f"{self.name}_x"  # keeps a float result as rounded (below)
        checked = self.checked and lang == "wgsl"
        struct = f"{self.name}_out"
        n = len(self.outputs)
        ret = ", ".join([f"u_{name}" for name, _ in self.outputs] + ["lim_cut"] * checked)
        # 'return;' (or 'continue' outside loops) ends the element with the outputs as set
        leave = f"return {struct}({ret});" if n or checked else f"return {struct}(0u);"
        em = Emitter(lang, [params, outs, {}], exact, checked, self.raws, self.raw_ndims,
                     self.atomic, self.definitions, leave)
        try:
            em.emit(self.tree, 2)
        except BodyError as err:
            if getattr(err, "where", "") == "preamble":  # in a preamble function
                raise _body_error(self.kernel, self.preamble, err, "preamble") from None
            raise _body_error(self.kernel, self.body, err) from None
        copies = sorted(em.assigned & set(params))
        arg_names = [(("p_" if name in copies else "u_") + name, t) for name, t in self.inputs]
        if self.readable_outputs:
            arg_names += [("p_" + name, t) for name, t in self.outputs]
        lines = []
        if em.used_exact:
            # Every float result is rounded to f32 as written, as NumPy and C (without
            # -ffp-contract) round them: shader compilers fuse a*b+c into one fma and
            # re-associate sums ((x + y) - (x + x) -> y - x), which changes results (a
            # Mandelbrot loop diverges from NumPy's). OR-ing the result's bits with a zero
            # the compiler cannot know keeps it a rounded value:
            # the first uniform word (an element or row count, below 2^31) shifted right by
            # 31. A zero computed from the value itself (wa_keep's countOneBits(u) >> 6)
            # is seen through by NVIDIA's compiler, which bounds countOneBits by 32.
            lines.append(f"fn {exact}(v: f32) -> f32 {{ "
                         "return bitcast<f32>(bitcast<u32>(v) | (U[0] >> 31u)); }"
                         if lang == "wgsl" else
                         f"float {exact}(float v) {{ "
                         "return uintBitsToFloat(floatBitsToUint(v) | (U[0].x >> 31u)); }")
        for name in sorted(self.atomic):
            if self.raws[name] == "f32":
                # float32 atomicAdd: compare-and-swap of the word until no other thread
                # changed it in between; returns the old value, as CUDA's
                lines.append(
                    f"fn r_{name}__atomic_add(k: i32, v: f32) -> f32 {{\n"
                    f"    var old = atomicLoad(&r_{name}[k]);\n"
                    "    loop {\n"
                    f"        let r = atomicCompareExchangeWeak(&r_{name}[k], old, "
                    "bitcast<u32>(bitcast<f32>(old) + v));\n"
                    "        if (r.exchanged) { break; }\n"
                    "        old = r.old_value;\n"
                    "    }\n"
                    "    return bitcast<f32>(old);\n}")
        lines.extend(em.functions)
        if lang == "wgsl":
            fields = ", ".join(f"o{k}: {_WGSL_TYPE[t]}" for k, (_, t) in enumerate(self.outputs))
            if checked:
                fields += (", " if fields else "") + f"o{n}: u32"
            lines.append(f"struct {struct} {{ {fields or 'o0: u32'}, }}")
            sig = ", ".join(f"{a}: {_WGSL_TYPE[t]}" for a, t in arg_names)
            lines.append(f"fn {self.name}({sig}) -> {struct} {{")
            for name in copies:
                lines.append(f"    var u_{name} = p_{name};")
            for name, t in self.outputs:
                init = f" = p_{name}" if self.readable_outputs else ""
                lines.append(f"    var u_{name}: {_WGSL_TYPE[t]}{init};")
            if checked:
                lines.append("    var lim_cut = 0u;")
        else:
            fields = " ".join(f"{_GLSL_TYPE[t]} o{k};" for k, (_, t) in enumerate(self.outputs))
            lines.append(f"struct {struct} {{ {fields or 'uint o0;'} }};")
            sig = ", ".join(f"{_GLSL_TYPE[t]} {a}" for a, t in arg_names)
            lines.append(f"{struct} {self.name}({sig}) {{")
            for name in copies:
                lines.append(f"    {_GLSL_TYPE[params[name][0]]} u_{name} = p_{name};")
            for name, t in self.outputs:
                zero = "p_" + name if self.readable_outputs else {
                    "bool": "false", "i32": "0", "u32": "0u", "f32": "0.0"}[t]
                lines.append(f"    {_GLSL_TYPE[t]} u_{name} = {zero};")
        lines.append("    {")
        lines.extend(em.lines)
        lines.append("    }")
        lines.append("    " + leave)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def glsl_outputs(self) -> tuple[str, dict]:
        """For the WebGL2 kernels, which compute one output per draw: the GLSL function
        plus one wrapper per output, ``<name>_o<k>(args) -> value``, and the wrappers'
        signatures as ``{name: ((WGSL parameter types), WGSL result type)}``."""
        src = [self.source("glsl")]
        sigs = {}
        args = list(self.inputs)
        if self.readable_outputs:
            args += [("p_" + n, t) for n, t in self.outputs]
        params = ", ".join(f"{_GLSL_TYPE[t]} a{k}" for k, (_, t) in enumerate(args))
        call = ", ".join(f"a{k}" for k in range(len(args)))
        for k, (_, t) in enumerate(self.outputs):
            name = f"{self.name}_o{k}"
            src.append(f"{_GLSL_TYPE[t]} {name}({params}) {{ return {self.name}({call}).o{k}; }}\n")
            sigs[name] = (tuple(_WGSL_TYPE[t] for _, t in args), _WGSL_TYPE[t])
        return "".join(src), sigs


def uses_name(kernel: str, body: str, name: str) -> bool:
    """Whether the body mentions ``name``; KernelError naming the line if it cannot be read."""
    try:
        return any(t.kind == "id" and t.text == name for t in tokenize(body))
    except BodyError as err:
        raise _body_error(kernel, body, err) from None


def _parse(body: str, types, kernel: str):
    try:
        return Parser(body, types).body()
    except BodyError as err:
        raise _body_error(kernel, body, err) from None


_ATOMIC = re.compile(r"\batomicAdd\s*\(\s*&\s*([A-Za-z_]\w*)")


def _body_error(kernel: str, body: str, err: BodyError, what: str = "body") -> KernelError:
    lines = body.splitlines() or [""]
    shown = []
    for k, text in enumerate(lines, start=1):
        if abs(k - err.line) <= 2:
            mark = ">" if k == err.line else " "
            shown.append(f"{mark}{k:4d} | {text}")
    return KernelError(f"kernel {kernel!r}: line {err.line} of the {what}: {err.message}\n"
                       + "\n".join(shown))


def expression_function(kernel: str, name: str, expr: str, args, result: str,
                        types: dict[str, str]) -> UserFunction:
    """A function computing one expression of the arguments (ReductionKernel's map and
    reduce expressions): ``result = <expr>;``."""
    return UserFunction(kernel, f"{name} = {expr};", args, [(name, result)], types)
