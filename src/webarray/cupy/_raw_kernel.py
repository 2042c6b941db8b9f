"""RawKernel: a WGSL compute shader of the user's, launched with CuPy's (grid, block, args).

The binding convention is webarray's (``executors/protocol.py``): array arguments are bound,
in order, to ``@group(0) @binding(1..n)`` (declare them ``var<storage, read>`` or
``var<storage, read_write>``, as ``array<f32>``, ``array<i32>``, ``array<u32>``; bool and
8/16-bit integers occupy one 32-bit word per element); scalar arguments are packed, in
order, as 32-bit words into binding 0, ``var<storage, read> <name>: array<u32>`` (ints as
two's complement, floats as their bits: ``bitcast<f32>(P[k])``), which is added when the
source does not declare it. ``grid`` counts workgroups, as CUDA's grid counts blocks;
``block`` must match the shader's ``@workgroup_size``. The entry point is the function
``name`` (renamed ``main`` for the executor). CUDA C source is not translated.

The declared bindings are checked against the arguments before anything is dispatched
(the GPU API would otherwise answer with a validation error that names no argument, and
an aliasing error only when the batch is submitted, taking the other work of the batch
with it): their number, their address space (storage), the element type where it is a
plain one (``array<u32>`` takes any dtype as raw words; ``array<f32>`` float32 or
complex64; ``array<i32>`` an integer or bool dtype of one word; ``array<vec2<...>>``
two-word dtypes), and that an array bound for writing is not also bound again.

On a device whose loops are bounded (Mesa's llvmpipe, see ``_kernel_lang``) the source's
loops are rewritten as ``_kernel_lang`` emits checked loops: each ``loop``, ``for`` and
``while`` gets a flag that its test, its ``break`` and its ``break if`` set, and a loop
that ends without it stores its line into one more binding (``@binding(n + 1)``), read
back after the launch: ``LoopLimitError`` names that line of the source.
"""

from __future__ import annotations

import re
import struct

from webarray import _dtypes as dt
from webarray._core import graph as _graph
from webarray._core import tensor as _tensor
from webarray._array_object import Array
from webarray._creation import zeros
from webarray._core.device import default_device
from webarray.executors.protocol import KernelError

from . import _kernel_lang as lang
from ._core import scalar_value
from ._params import kernel_error

_WORKGROUP = re.compile(r"@workgroup_size\(\s*([^)]*)\)")
_BINDING0 = re.compile(r"@binding\(\s*0\s*\)")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# a module-scope variable with its attributes: group/binding, address space, name, type
_VAR = re.compile(r"((?:@\s*\w+\s*(?:\([^)]*\))?\s*)+)"
                  r"var\s*(?:<([^>]*)>)?\s*(\w+)\s*:\s*([^;=]+?)\s*;")
_ATTR = re.compile(r"@\s*(group|binding)\s*\(\s*(\w+)\s*\)")


class RawKernel:
    def __init__(self, code: str, name: str, options=(), backend: str | None = None):
        """options and backend (CuPy's compiler choices) are accepted and have no effect."""
        if "__global__" in code or "extern \"C\"" in code:
            raise NotImplementedError(
                f"RawKernel {name!r}: CUDA C source cannot run here; write the kernel in "
                "WGSL (see docs/cupy.md)")
        if not re.search(rf"\bfn\s+{re.escape(name)}\s*\(", code):
            raise ValueError(f"RawKernel {name!r}: the source has no function {name!r}")
        if name != "main" and re.search(r"\bfn\s+main\s*\(", code):
            raise ValueError(f"RawKernel {name!r}: the source also defines 'main', which "
                             "webarray needs for the entry point")
        self.code = code
        self.name = name
        self.bindings = _declared_bindings(code, name)
        self.has_loops = bool(_LOOP.search(_COMMENTS.sub(" ", code)))
        m = _WORKGROUP.search(code)
        self.workgroup = None
        if m:
            try:
                dims = [int(v.strip().rstrip("iu"), 0) for v in m.group(1).split(",") if v.strip()]
                self.workgroup = tuple(dims + [1] * (3 - len(dims)))
            except ValueError:
                pass  # sizes given by constants: not checked
        self._sources: dict = {}

    def _source(self, cut_binding: int | None) -> str:
        """The source to compile: loops checked (with the cut flag at that binding) or not."""
        src = self._sources.get(cut_binding)
        if src is None:
            code = self.code if cut_binding is None else _checked_loops(self.code, cut_binding)
            if self.name != "main":
                code = re.sub(rf"\b{re.escape(self.name)}\b", "main", code)
            if not _BINDING0.search(code):
                code = "@group(0) @binding(0) var<storage, read> wa_scalars: array<u32>;\n" + code
            src = self._sources[cut_binding] = code
        return src

    def __call__(self, grid, block, args, shared_mem: int = 0, stream=None):
        grid = _dims(grid, "grid")
        block = _dims(block, "block")
        if self.workgroup is not None and block != self.workgroup:
            raise ValueError(f"RawKernel {self.name!r}: block {block} differs from the "
                             f"shader's @workgroup_size{self.workgroup}")
        buffers, words = [], []
        device = None
        for k, a in enumerate(args):
            if isinstance(a, Array):
                if a._offset != 0 or a._strides != _tensor.c_strides(a.shape):
                    raise ValueError(f"RawKernel {self.name!r}: argument {k} is a strided or "
                                     "offset view; pass a C-contiguous array of its own "
                                     "(x.copy())")
                if device is None:
                    device = a.device
                elif a.device != device:
                    raise ValueError(f"RawKernel {self.name!r}: arguments on different devices")
                buffers.append((k, a))
            else:
                v = scalar_value(a)
                if v is None:
                    raise TypeError(f"RawKernel {self.name!r}: argument {k} is a "
                                    f"{type(a).__name__}; pass arrays and scalars")
                words.append(_word(a, v))
        self._check_bindings(buffers, len(words))
        device = device or default_device()
        if device.backend == "webgl2":
            raise NotImplementedError(f"RawKernel {self.name!r}: WGSL compute shaders do not "
                                      "run on WebGL2")
        _graph.flush(device)
        bufs = [a._buf for _, a in buffers]
        cut = None
        if self.has_loops and lang.loops_bounded(device.executor.adapter_info):
            cut = zeros(1, dtype=dt.uint32, device=device)
            bufs.append(cut._buf)
        code = self._source(len(buffers) + 1 if cut is not None else None)
        uniforms = struct.pack(f"<{len(words)}I", *words) if words else b"\0\0\0\0"
        try:
            device.launch(("raw", code), lambda: code, bufs, uniforms, grid)
        except KernelError as e:
            raise kernel_error(self.name, e, "wgsl") from None
        line = int(cut[0]) if cut is not None else 0
        if line:
            raise lang.loop_limit_error(self.name, self.code, line, device, "source",
                                        "the arrays passed in may")

    def _check_bindings(self, buffers, n_scalars: int) -> None:
        """TypeError/ValueError naming the binding when the arguments do not fit the
        declared bindings (module docstring)."""
        if self.bindings is None:
            return
        declared = {b: v for b, v in self.bindings.items() if b != 0}
        if sorted(declared) != list(range(1, len(buffers) + 1)):
            have = ", ".join(f"@binding({b}) var<{v[0]}> {v[1]}: {v[2]}"
                             for b, v in sorted(declared.items()))
            raise TypeError(
                f"RawKernel {self.name!r} declares {len(declared)} array binding"
                f"{'s' if len(declared) != 1 else ''} ({have or 'none'}), but was called with "
                f"{len(buffers)} array{'s' if len(buffers) != 1 else ''} (and {n_scalars} "
                f"scalar{'s' if n_scalars != 1 else ''}); array arguments bind in order to "
                "@group(0) @binding(1..n), scalars are words of binding 0")
        for b, (space, var, typ) in sorted(self.bindings.items()):
            if not re.fullmatch(r"storage\s*(,\s*(read|read_write)\s*)?", space):
                raise TypeError(f"RawKernel {self.name!r}: @binding({b}) {var} is var<{space}>; "
                                "webarray binds storage buffers: declare it var<storage, read> "
                                "or var<storage, read_write>")
        writes: dict = {}
        for b, (k, a) in enumerate(buffers, start=1):
            space, var, typ = declared[b]
            takes = _takes(typ, a.dtype)
            if takes is False:
                raise TypeError(f"RawKernel {self.name!r}: argument {k} (an array of "
                                f"{a.dtype.name}) is bound to @binding({b}) {var}: {typ}, which "
                                "does not hold that dtype (array<f32>: float32, complex64; "
                                "array<i32>: bool and integers of up to 32 bits; array<vec2<...>>: "
                                "int64, uint64, complex64; array<u32>: any dtype, as raw words)")
            other = writes.get(id(a._buf))
            write = "read_write" in space
            if other is not None and (write or other[2]):
                raise ValueError(f"RawKernel {self.name!r}: arguments {other[0]} and {k} are the "
                                 f"same buffer, bound to @binding({other[1]}) and @binding({b}), "
                                 "and one of them for writing; pass a copy (x.copy())")
            writes.setdefault(id(a._buf), (k, b, write))


def _declared_bindings(code: str, kernel: str) -> dict | None:
    """@binding number -> (address space, variable name, type) of group 0; None when a
    binding number is not a literal (then nothing is checked)."""
    out = {}
    for m in _VAR.finditer(_COMMENTS.sub(" ", code)):
        attrs = dict(_ATTR.findall(m.group(1)))
        if "binding" not in attrs:
            continue
        if attrs.get("group", "0") != "0":
            raise ValueError(f"RawKernel {kernel!r}: {m.group(3)} is in @group({attrs['group']}); "
                             "webarray binds group 0 only")
        try:
            b = int(attrs["binding"].rstrip("iu"), 0)
        except ValueError:
            return None
        out[b] = ((m.group(2) or "").strip(), m.group(3), re.sub(r"\s+", "", m.group(4)))
    return out


def _takes(typ: str, dtype: dt.DType) -> bool | None:
    """Whether a binding of WGSL type typ holds arrays of dtype (None: not known)."""
    m = re.fullmatch(r"array<(.+?)(,\w+)?>", typ)
    if m is None:
        return None
    elem = re.sub(r"^atomic<(.*)>$", r"\1", m.group(1))
    words = max(1, dtype.bits // 32)
    if elem == "u32":
        return True
    if elem == "f32":
        return dtype in (dt.float32, dt.complex64)
    if elem == "i32":
        return dtype.kind in "biu" and words == 1
    if elem in ("vec2<f32>", "vec2f"):
        return dtype is dt.complex64
    if elem in ("vec2<u32>", "vec2u", "vec2<i32>", "vec2i"):
        return words == 2
    return None


# -- loops checked where the device bounds them ------------------------------------------------

_LOOP = re.compile(r"\b(loop|for|while)\b")
_WGSL_TOKEN = re.compile(r"\s+|//[^\n]*|[A-Za-z_]\w*|\d[\w.]*|.", re.S)


def _tokens(code: str):
    """(text, start, end) of WGSL tokens, comments (nested, as WGSL's) left out."""
    pos = 0
    while pos < len(code):
        if code.startswith("/*", pos):
            depth, pos = 1, pos + 2
            while depth and pos < len(code):
                if code.startswith("/*", pos):
                    depth, pos = depth + 1, pos + 2
                elif code.startswith("*/", pos):
                    depth, pos = depth - 1, pos + 2
                else:
                    pos += 1
            continue
        m = _WGSL_TOKEN.match(code, pos)
        text = m.group()
        if not (text.isspace() or text.startswith("//")):
            yield text, m.start(), m.end()
        pos = m.end()


def _checked_loops(code: str, cut_binding: int) -> str:
    """code with every loop checked: a flag per loop that its test, 'break' and 'break if'
    set, and, after the loop, its line stored into ``_wa_cut`` when the flag is clear."""
    toks = list(_tokens(code))
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    stack: list[tuple] = []  # per open brace: ("loop", k, line) / ("continuing", k) / (kind,)
    pending = None  # what the next top-level '{' opens
    header = None  # a for's header: [paren depth, first ';' end, second ';' start]
    cond = None  # (start, end) of the test of the loop being opened
    stmt_start = 0
    paren = 0
    count = 0
    for k, (text, start, end) in enumerate(toks):
        if text == "(":
            paren += 1
        elif text == ")":
            paren -= 1
            if header is not None and paren == header[0]:
                cond = (header[1], header[2]) if len(header) == 3 else None
                header = None
        elif text == ";":
            if header is not None and paren == header[0] + 1:
                if len(header) == 1:
                    header.append(end)
                elif len(header) == 2:
                    header.append(start)
            elif paren == 0:
                stmt_start = end
        elif text in ("loop", "for", "while"):
            count += 1
            line = code.count("\n", 0, start) + 1
            edits.append((stmt_start, stmt_start, f" var _wa_end{count} = false; "))
            pending = ("loop", count, line)
            if text == "for":
                header = [paren]
            elif text == "while":
                cond = (end, None)
                edits.append((start, end, "loop"))
        elif text == "continuing":
            pending = next((("continuing", e[1]) for e in reversed(stack) if e[0] == "loop"), None)
        elif text == "switch":
            pending = ("switch",)
        elif text == "{":
            opened = pending if pending is not None and paren == 0 else ("block",)
            if opened[0] == "loop" and cond is not None:
                c0, c1 = cond[0], cond[1] if cond[1] is not None else start
                test = code[c0:c1].strip()
                if test:  # the test moves from the header into the body
                    edits.append((c0, c1, " "))
                    edits.append((end, end, f" if !({test}) {{ _wa_end{opened[1]} = true; "
                                            "break; }"))
                cond = None
            if opened is pending:
                pending = None
            stack.append(opened)
            stmt_start = end
        elif text == "}":
            closed = stack.pop() if stack else ("block",)
            if closed[0] == "loop":
                edits.append((end, end, f" if (!_wa_end{closed[1]}) {{ atomicMax(&_wa_cut[0], "
                                        f"{closed[2]}u); }}"))
            stmt_start = end
        elif text == "break":
            target = next((e for e in reversed(stack) if e[0] != "block"), None)
            if target is None:
                continue
            semi = next((t for t in toks[k + 1:] if t[0] == ";"), None)
            if target[0] == "continuing" and semi and toks[k + 1][0] == "if":
                # break if <test>;  ->  _wa_endK = <test>; break if _wa_endK;
                test = code[toks[k + 1][2]:semi[1]].strip()
                flag = f"_wa_end{target[1]}"
                edits.append((start, semi[1], f"{flag} = {test}; break if {flag}"))
            elif target[0] == "loop":
                edits.append((start, start, f"_wa_end{target[1]} = true; "))
    out = []
    at = 0
    for s, e, text in sorted(edits, key=lambda x: (x[0], x[1])):
        out.append(code[at:s])
        out.append(text)
        at = e
    out.append(code[at:])
    decl = (f"@group(0) @binding({cut_binding}) var<storage, read_write> _wa_cut: "
            "array<atomic<u32>>;\n")
    return decl + "".join(out)


def _dims(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise ValueError(f"{what} must be one to three positive sizes, got {v!r}")
    return t + (1,) * (3 - len(t))


def _word(obj, v) -> int:
    name = getattr(getattr(obj, "dtype", None), "name", "")
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) or name.startswith("float"):
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if isinstance(v, int):
        return v & 0xFFFFFFFF
    raise TypeError(f"RawKernel: a {type(v).__name__} scalar has no 32-bit form")
