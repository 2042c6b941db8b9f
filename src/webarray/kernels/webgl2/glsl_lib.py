"""The GLSL helper library: ``wgsl_lib.py`` (and its word-pair and complex parts) written as
GLSL by the shader front end (``kernels/shader/translate.py``), once per helper, plus the
few helpers GLSL ES 3.00 needs beyond WGSL (``kernels/shader/emit.py``: ``GLSL_EXTRA``). A helper that does not translate raises
``TranslationError`` naming it when a kernel needs it."""

from __future__ import annotations

from .. import wgsl_complex, wgsl_int64  # noqa: F401  (register their helpers)
from ..wgsl_lib import LIB
from ..shader.emit import GLSL_EXTRA
from ..shader.translate import TranslationError, signature, translate_function

_SIGS: dict = {}
_DONE: dict[str, tuple[str, set]] = {}  # helper -> (GLSL source, helpers it calls)


def signatures() -> dict:
    """name -> (parameter types, return type) of every WGSL helper."""
    if not _SIGS:
        for src in LIB.values():
            name, params, ret = signature(src)
            _SIGS[name] = (params, ret)
    return _SIGS


def translated(name: str) -> tuple[str, set]:
    got = _DONE.get(name)
    if got is None:
        if name in GLSL_EXTRA:
            got = (GLSL_EXTRA[name], set())
        else:
            try:
                _, src, used = translate_function(LIB[name], signatures())
            except TranslationError as e:
                raise TranslationError(f"helper {name} does not translate to GLSL: {e}") from None
            got = (src, used)
        _DONE[name] = got
    return got


def helpers_for(names) -> str:
    """GLSL source of the helpers ``names`` and everything they call, dependencies first."""
    ordered: list[str] = []

    def need(name: str) -> None:
        if name in ordered:
            return
        for dep in sorted(translated(name)[1]):
            if dep != name:
                need(dep)
        ordered.append(name)

    for name in sorted(names):
        need(name)
    return "".join(translated(n)[0] for n in ordered)
