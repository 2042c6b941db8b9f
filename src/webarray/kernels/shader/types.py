"""The front end's types: registers, vectors and fixed-size arrays, written as WGSL writes
them (``f32``, ``vec2<u32>``, ``array<u32,8>``), and the two literal types whose register
the context decides.

Conversions follow C's usual arithmetic conversions over the registers (int to float,
signed to unsigned); a literal takes the type of the other operand. Valid WGSL never mixes
registers, so for it these rules are WGSL's own: an abstract literal becomes the type its
context asks for (``x + 1`` with ``x: u32`` is ``x + 1u``).
"""

from __future__ import annotations

import re

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
WGSL_SCALAR = {"bool": "bool", "i32": "i32", "u32": "u32", "f32": "f32"}
GLSL_SCALAR = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float"}
_GLSL_VEC = {"f32": "vec", "i32": "ivec", "u32": "uvec", "bool": "bvec"}

# literal types: abstract until an operand or an assignment gives them a register type
AINT, AFLOAT = "int literal", "float literal"

_VEC = re.compile(r"vec([234])<(\w+)>")
_ARRAY = re.compile(r"array<(.+),(\d+)>")


def vec_parts(t: str):
    """(length, component register) of a vector type, else None."""
    m = _VEC.fullmatch(t)
    return (int(m.group(1)), m.group(2)) if m else None


def array_parts(t: str):
    """(element type, length) of an array type, else None."""
    m = _ARRAY.fullmatch(t)
    return (m.group(1), int(m.group(2))) if m else None


_SCALAR_BYTES = {"f16": 2, "f32": 4, "i32": 4, "u32": 4, "bool": 4, "f64": 8, "i64": 8, "u64": 8}
_WORKGROUP_VAR = re.compile(r"var<workgroup>\s*\w+\s*:\s*([^;]+);")
_ALIAS = re.compile(r"alias\s+(\w+)\s*=\s*([^;]+);")


def _size_align(t: str, aliases: dict[str, str]) -> tuple[int, int]:
    """WGSL's (size, alignment) in bytes of a workgroup variable's type."""
    t = aliases.get(t, t)
    if t.startswith("atomic<"):
        t = t[7:-1]
    if t in _SCALAR_BYTES:
        return _SCALAR_BYTES[t], _SCALAR_BYTES[t]
    v = vec_parts(t)
    if v:
        b = _SCALAR_BYTES[v[1]]
        return v[0] * b, (2 if v[0] == 2 else 4) * b
    a = array_parts(t)
    if a:
        size, align = _size_align(a[0], aliases)
        return a[1] * -(-size // align) * align, align
    raise ValueError(f"workgroup memory: no size known for the WGSL type {t!r}")


def workgroup_bytes(source: str) -> int:
    """Bytes of workgroup memory that a WGSL kernel declares, counted as WebGPU does against
    maxComputeWorkgroupStorageSize (each variable rounded up to 16 bytes)."""
    aliases = {k: v.replace(" ", "") for k, v in _ALIAS.findall(source)}
    return sum(-(-_size_align(t.replace(" ", ""), aliases)[0] // 16) * 16
               for t in _WORKGROUP_VAR.findall(source))


# a function definition, WGSL (fn name() -> T {) or GLSL (T name() {), at the start of a line
_FN = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:fn\s+)?(?:[\w<>]+\s+)?(\w+)\s*\([^;{]*\)[^;{]*\{", re.M)
_CALLEE = re.compile(r"\b(\w+)\s*\(")


def inlined_size(source: str, entry: str = "main") -> int:
    """Characters of WGSL (or GLSL) that ``entry`` amounts to with every call to a function
    of the source replaced by that function's body, as SwiftShader compiles it (it inlines
    every call; a loop's body counts once). Kernels of the float64 library reach ~10^6. Of
    several ``entry`` functions (a WebGL2 program's vertex and fragment shaders) the last."""
    bodies: dict[str, str] = {}
    for m in _FN.finditer(source):
        start = m.end() - 1
        depth, i = 0, start
        while i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            if depth == 0:
                break
            i += 1
        bodies[m.group(1)] = source[start:i + 1]
    sizes: dict[str, int] = {}

    def size(name: str, active: frozenset = frozenset()) -> int:
        if name not in sizes:
            body = bodies[name]
            sizes[name] = len(body) + sum(size(c, active | {name}) for c in _CALLEE.findall(body)
                                          if c in bodies and c not in active)
        return sizes[name]

    return size(entry) if entry in bodies else len(source)


# SwiftShader's WebGPU compiler in Chromium (156): kernels of up to ~670,000 characters of
# inlined WGSL compiled (float64 exp, log, log1p, the stages of sin, pow, asinh, atan2, of
# complex128 exp, sin, tanh, expm1); from ~740,000 on (float64 atan2's double-double core and
# the sine whole before they were staged, complex128 sign, ln) every one measured crashed the
# GPU process. Below that the size alone did not decide (stages holding a whole logarithm or
# exponential crashed it at 618,000-690,000 characters while larger ones ran): those are now
# split further (wa_f64_ln_m, wa_f64_exp_core's parts), the stages added with them at most
# ~540,000 (complex128 pow lost the device at 636,000 before its w ln z was a stage); the
# largest left, 615,000-660,000 (float64 exp, sinh's first stage, complex128 exp's
# exponential), were measured to run. Late in a long array-api-tests run float64 asinh's
# second stage (679,000, which had run alone) lost the device: asinh and log1p are three
# stages now, at most 432,000.
INLINE_LIMIT = 700_000
# WebGL2 on SwiftShader (its GLSL, ~1.1x the WGSL): float64 sin whole (975,000) ran; complex128
# ln z (2,090,000) lost the context or was refused by the probe
INLINE_LIMIT_WEBGL2 = 1_200_000


def compile_refusal(source: str, backend: str, limit: int, device: str) -> str | None:
    """Why a kernel is not sent to a browser's WebGPU on SwiftShader (it would crash the
    browser's GPU process, losing the device) or to WebGL2 (the context), or None."""
    size = inlined_size(source)
    if size <= limit:
        return None
    webgl2 = backend == "webgl2"
    # the calls of the function that computes the values (a WebGL2 fragment's wa_value)
    at = source.rfind(" wa_value(uint")
    main = source[at if at >= 0 else source.rfind("void main(" if webgl2 else "fn main("):]
    calls = sorted(set(re.findall(r"\b(wa_\w+)\(", main[:main.find("\n}")])) - {"wa_value"})
    what = (f"is {size:,} characters of {'GLSL' if webgl2 else 'WGSL'} with its calls inlined, "
            f"more than the {limit:,} it compiles")
    where = ("WebGL2, where SwiftShader lost the context or wrote zeros on such kernels" if webgl2
             else "SwiftShader's WebGPU on the CPU, whose compiler crashes the browser's GPU "
                  "process on such kernels (losing the device)")
    return (f"this kernel ({', '.join(calls) or 'no library calls'}) {what}: {device} is "
            f"{where}, so it is refused before compiling and the device goes on working. It "
            "runs natively and on WebGPU with a GPU adapter (docs/float64.md); "
            "WEBARRAY_INLINE_LIMIT=0 sends it anyway")


def scalar_of(t: str) -> str:
    """A vector's component register; a scalar type itself."""
    v = vec_parts(t)
    return v[1] if v else t


def with_scalar(t: str, s: str) -> str:
    """Type t (scalar or vector) with its components of register s."""
    v = vec_parts(t)
    return f"vec{v[0]}<{s}>" if v else s


def is_literal(t: str) -> bool:
    return t in (AINT, AFLOAT)


def concrete(t: str) -> str:
    return {AINT: "i32", AFLOAT: "f32"}.get(t, t)


def unify(a: str, b: str) -> str:
    """C's usual arithmetic conversions over register and literal types; a vector operand
    makes the result that vector (its components unified with the other operand)."""
    va, vb = vec_parts(a), vec_parts(b)
    if va or vb:
        n = (va or vb)[0]
        s = _unify(scalar_of(a), scalar_of(b))
        return f"vec{n}<{concrete(s)}>"
    return _unify(a, b)


def _unify(a: str, b: str) -> str:
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


def wgsl_type(t: str) -> str:
    t = concrete(t)
    arr = array_parts(t)
    if arr:
        return f"array<{wgsl_type(arr[0])}, {arr[1]}>"
    return t


def glsl_type(t: str) -> str:
    """The GLSL ES 3.00 type of a scalar or vector (arrays: ``glsl_array``)."""
    t = concrete(t)
    v = vec_parts(t)
    if v:
        return f"{_GLSL_VEC[v[1]]}{v[0]}"
    if t in GLSL_SCALAR:
        return GLSL_SCALAR[t]
    raise ValueError(f"no GLSL type for {t!r}")
