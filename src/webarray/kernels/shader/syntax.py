"""The front end's syntax: one tokenizer and one parser for the three ways kernel code is
written, into one small tree that ``emit.py`` types and writes as WGSL or GLSL ES 3.00.

The grammar accepts the union of

- our WGSL subset: ``fn name(a: T, ...) -> T { ... }``, ``let``/``var``/``const``
  declarations (typed or not), ``vecN<T>`` and ``array<T, N>`` values with their
  constructors, swizzles (``v.xy``) and indexing, ``select``, ``bitcast<T>(...)``, ``loop``
  (with ``continuing`` and ``break if``), ``for``, ``while``: the op table's formulas, the
  helper library (``wgsl_lib.py`` and its parts) and the kernels of the WebGL2 registry;
- GLSL: ``float x`` declarations, ``?:``;
- CuPy's C-like kernel bodies (``float32 x`` parameters, NumPy dtype names): C
  declarations (``float t = x * 2.0f;``, ``double``, ``unsigned int``), assignments,
  arithmetic, comparisons, logic, bit operations, ``?:``, C casts, ``if``/``else``,
  ``for``, ``while``, ``do``, ``break``, ``continue``, math calls, and preamble functions
  (``__device__ T f(T x) { ... }``, templates, reference parameters, ``#define``).

Expressions and statements are tuples whose first item is their kind (the ``Parser``
methods say which). A problem is a ``BodyError`` with the line it is on.
"""

from __future__ import annotations

import re

from .types import AFLOAT, AINT

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+|//[^\n]*|/\*.*?\*/)
  | (?P<nl>\n)
  | (?P<num>0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+[fFhH]?
           |0[xX][0-9a-fA-F]+[uUiIlL]*
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
        if t.text in ("vec2", "vec3", "vec4") and self.peek().text == "<":
            self.next(), self.next()
            inner = self.parse_type()
            self.close_template()
            return f"{t.text}<{inner}>"
        if t.text == "array" and self.peek().text == "<":
            self.next(), self.next()
            inner = self.parse_type()
            self.expect(",")
            n = self.tok
            if n.kind != "num":
                raise BodyError("an array's length must be an integer constant", n.line)
            self.next()
            self.close_template()
            return f"array<{inner},{int(n.text.rstrip('uUiI'), 0)}>"
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

    def close_template(self) -> None:
        """The '>' ending a type's parameters ('>>' and '>=' are split)."""
        t = self.tok
        if t.text == ">":
            self.next()
        elif t.text in (">>", ">="):
            self.toks[self.i] = Tok("op", t.text[1:], t.line)
        else:
            raise BodyError(f"expected '>' closing a type, found {t.text!r}", t.line)

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
        if e[0] in ("member", "sub", "index") and (self.tok.text in _ASSIGN_OPS
                                                  or self.at("++", "--")):
            # a part of a vector or an array: v.x = ..., a[i][j] += ..., v.y++
            op = self.next().text
            if op in ("++", "--"):
                return ("set", line, e, op[0] + "=", ("lit", AINT, "1"))
            return ("set", line, e, op, self.expr())
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
            if self.at("fn"):
                d = self.wgsl_function()
                if d.name in defs:
                    raise BodyError(f"{d.name!r} is defined twice", line)
                defs[d.name] = d
                continue
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

    def wgsl_function(self) -> "Definition":
        """``fn name(a: T, ...) [-> T] { ... }``."""
        line = self.expect("fn").line
        name = self.ident().text
        self.expect("(")
        params = []
        while not self.at(")"):
            pname = self.ident().text
            self.expect(":")
            params.append((pname, self.parse_type(), False))
            if not self.at(","):
                break
            self.next()
        self.expect(")")
        ret = None
        if self.at("->"):
            self.next()
            ret = self.parse_type()
        self.context = "function"
        body = self.block()
        self.context = "body"
        return Definition(name, (), tuple(params), ret, body, line)

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
        """A primary value, then its members (``v.x``, ``v.xy``) and indices (``a[i][j]``)."""
        e = self.primary()
        while self.at(".", "["):
            line = self.tok.line
            if self.next().text == ".":
                e = ("member", e, self.ident().text, line)
            else:
                idx = self.expr()
                self.expect("]")
                e = ("sub", e, idx, line)
        return e

    def primary(self):
        t = self.tok
        line = t.line
        if t.kind == "id" and t.text in ("vec2", "vec3", "vec4", "array") and self.peek().text == "<":
            typ = self.parse_type()
            return ("construct", typ, self.arguments(), line)
        if t.kind == "num":
            self.next()
            return _number(t)
        if t.kind == "id":
            self.next()
            if t.text in ("true", "false"):
                return ("lit", "bool", t.text)
            if t.text in ("static_cast", "bitcast") and self.at("<"):  # name<T>(value)
                self.next()
                typ = self.parse_type()
                self.close_template()
                self.expect("(")
                arg = self.expr()
                self.expect(")")
                return ("conv" if t.text == "static_cast" else "bitcast", typ, arg)
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
            if self.at("("):
                args = self.arguments()
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


    def arguments(self) -> list:
        """``(a, b, ...)``."""
        self.expect("(")
        args = []
        if not self.at(")"):
            while True:
                args.append(self.expr())
                if not self.at(","):
                    break
                self.next()
        self.expect(")")
        return args


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
    if text[:2] in ("0x", "0X") and "p" in text.lower():  # a hexadecimal float (WGSL)
        body = text.rstrip("fFhH")
        typ = "f32" if body != text else AFLOAT
        return ("lit", typ, repr(float.fromhex(body)))
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
