"""WGSL-subset source written as GLSL ES 3.00: how the WebGL2 registry gets its kernels.

The op table, the helper library (``wgsl_lib.py`` and its word-pair and complex parts) and
the WebGL2 generators are written in our WGSL subset; this module reads a function or an
expression of it with the front end's parser (``syntax.py``) and writes it with the GLSL
emitter (``emit.py``, the ``"wgsl"`` dialect: WGSL's builtins, names as written), so the
WebGL2 registry computes exactly the expressions the WebGPU one does (same special cases,
same bit tricks, same error-free transformations). The two differences of the languages
that need types are handled by typing every expression: WGSL's abstract literals take the
type their context asks for (``x + 1`` with ``x: u32`` is ``x + 1u`` in GLSL, which has no
implicit conversions), and ``let x = e;`` gets the type GLSL needs (``uint x = e;``).
Anything outside the subset raises ``TranslationError``.
"""

from __future__ import annotations

from .emit import Emitter
from .syntax import BodyError, Parser
from .types import TYPE_NAMES, concrete

__all__ = ["TranslationError", "signature", "translate_function", "translate_expression"]


class TranslationError(ValueError):
    """WGSL that the front end does not handle (names the construct)."""


def _error(err: BodyError, src: str) -> TranslationError:
    lines = src.splitlines()
    text = lines[err.line - 1].strip() if 0 < err.line <= len(lines) else ""
    return TranslationError(f"{err.message} (line {err.line}: {text!r})" if text else err.message)


def _definition(src: str):
    try:
        defs = Parser(src, TYPE_NAMES).definitions()
    except BodyError as err:
        raise _error(err, src) from None
    if len(defs) != 1:
        raise TranslationError(f"expected one WGSL function, found {len(defs)}")
    return next(iter(defs.values()))


def signature(src: str) -> tuple[str, tuple, str]:
    """(name, parameter types, return type) of a WGSL function's header."""
    d = _definition(src.split("{", 1)[0] + "{}")
    return d.name, tuple(t for _, t, _ in d.params), d.ret or "void"


def translate_function(src: str, signatures: dict, globals_: dict | None = None
                       ) -> tuple[str, str, set]:
    """(name, GLSL source, functions it calls) of one WGSL function; ``signatures`` gives
    the functions it may call (name -> (parameter types, result type)), ``globals_`` the
    WGSL types of module-scope names it reads."""
    d = _definition(src)
    em = Emitter("glsl", [{}], dialect="wgsl", prefix="", signatures=signatures,
                 globals_=globals_)
    try:
        text = em.function(d, d.name, [t for _, t, _ in d.params], d.ret)
    except BodyError as err:
        raise _error(err, src) from None
    return d.name, text, em.used - {d.name}


def translate_expression(src: str, env: dict, signatures: dict, target: str | None = None):
    """(GLSL text, WGSL type, functions it calls) of one WGSL expression whose free names
    have the WGSL types in env (a name -> type mapping); converted to target if given."""
    try:
        p = Parser(src, TYPE_NAMES)
        tree = p.expr()
        if p.tok.kind != "end":
            raise BodyError(f"trailing {p.tok.text!r}", p.tok.line)
        em = Emitter("glsl", [{n: (t, False) for n, t in env.items()}], dialect="wgsl",
                     prefix="", signatures=signatures)
        e = em.expr(tree)
        ty = target or concrete(e[1])
        return em.convert(e, ty), ty, em.used
    except BodyError as err:
        raise _error(err, src) from None
