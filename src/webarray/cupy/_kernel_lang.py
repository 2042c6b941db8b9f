"""CuPy's user kernels on the shader front end (``kernels/shader``): a kernel body (or a
ReductionKernel expression) and its preamble become one WGSL or GLSL ES 3.00 function of
the input registers returning the outputs (``UserFunction``).

Bodies come in three forms, told apart only by the type names they use (the front end's
grammar accepts the union): WGSL (``f32 x`` parameters), GLSL (``float x``) and CuPy's own
(``float32 x``, NumPy dtype names, with a C-like body). Registers are ``bool``, ``i32``,
``u32`` and ``f32`` (``double`` in a body means f32: user kernels compute in 32-bit registers). Names in
the emitted code get a ``u_`` prefix, so a user name never collides with a keyword of either
language (``out``, ``input``, ``filter``). Math calls are C's, computed by the op table's
helpers (``kernels/shader/emit.py``: ``CALLS``).

Errors in the body are reported as ``KernelError`` with the body's line; a name the front
end does not know as a function is passed through to the shader compiler, whose error
then comes back with the generated source.

On llvmpipe, which ends long loops silently, a body with loops is emitted ``checked``
(``kernels/shader/emit.py`` says how) and a loop cut short raises ``LoopLimitError``.
"""

from __future__ import annotations

import hashlib
import re

from ..executors.protocol import KernelError
from ..kernels.shader.emit import UNROLL, Emitter, has_loop
from ..kernels.shader.syntax import BodyError, Parser, preprocess, tokenize
from ..kernels.shader.types import GLSL_SCALAR, REGISTERS, TYPE_NAMES, WGSL_SCALAR
from ..kernels.specs.raw import glsl_name

__all__ = ["LoopLimitError", "REGISTERS", "TYPE_NAMES", "UNROLL", "UserFunction",
           "expression_function", "loop_limit_error", "loops_bounded", "uses_name"]

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
        self.checked = checked and any(has_loop(s) for s in self.tree)
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
            fields = ", ".join(f"o{k}: {WGSL_SCALAR[t]}" for k, (_, t) in enumerate(self.outputs))
            if checked:
                fields += (", " if fields else "") + f"o{n}: u32"
            lines.append(f"struct {struct} {{ {fields or 'o0: u32'}, }}")
            sig = ", ".join(f"{a}: {WGSL_SCALAR[t]}" for a, t in arg_names)
            lines.append(f"fn {self.name}({sig}) -> {struct} {{")
            for name in copies:
                lines.append(f"    var u_{name} = p_{name};")
            for name, t in self.outputs:
                init = f" = p_{name}" if self.readable_outputs else ""
                lines.append(f"    var u_{name}: {WGSL_SCALAR[t]}{init};")
            if checked:
                lines.append("    var lim_cut = 0u;")
        else:
            fields = " ".join(f"{GLSL_SCALAR[t]} o{k};" for k, (_, t) in enumerate(self.outputs))
            lines.append(f"struct {struct} {{ {fields or 'uint o0;'} }};")
            sig = ", ".join(f"{GLSL_SCALAR[t]} {a}" for a, t in arg_names)
            lines.append(f"{struct} {self.name}({sig}) {{")
            for name in copies:
                lines.append(f"    {GLSL_SCALAR[params[name][0]]} u_{name} = p_{name};")
            for name, t in self.outputs:
                zero = "p_" + name if self.readable_outputs else {
                    "bool": "false", "i32": "0", "u32": "0u", "f32": "0.0"}[t]
                lines.append(f"    {GLSL_SCALAR[t]} u_{name} = {zero};")
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
        params = ", ".join(f"{GLSL_SCALAR[t]} a{k}" for k, (_, t) in enumerate(args))
        call = ", ".join(f"a{k}" for k in range(len(args)))
        for k, (_, t) in enumerate(self.outputs):
            name = f"{self.name}_o{k}"
            src.append(f"{GLSL_SCALAR[t]} {name}({params}) {{ return {self.name}({call}).o{k}; }}\n")
            sigs[name] = (tuple(WGSL_SCALAR[t] for _, t in args), WGSL_SCALAR[t])
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
