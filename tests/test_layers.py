"""The layers of src/webarray import downward only (docs/architecture.md), read from the source.

Layers, top to bottom: the CuPy layer (``webarray.cupy``), the namespace (the modules directly
in ``webarray/``), the core (``webarray._core``), then kernels (``webarray.kernels``) and
executors (``webarray.executors``). ``_dtypes`` is data every layer may read. The only import
loops allowed are Array <-> namespace functions and, one layer up, ``cupy.ndarray`` <-> CuPy
functions; an import inside a function says why in a comment.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "webarray"


def _module_name(path: Path) -> str:
    parts = ("webarray",) + path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in SRC.rglob("*.py")}


def _imports(name: str, path: Path):
    """(target module, line, inside a function) for every import of a webarray module."""
    tree = ast.parse(path.read_text())
    inner = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            targets = [f"{full}.{a.name}" if f"{full}.{a.name}" in MODULES else full
                       for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for t in targets:
            while t not in MODULES and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in MODULES:
                yield t, node.lineno, id(node) in inner


EDGES = {name: list(_imports(name, path)) for name, path in MODULES.items()}


def _layer(name: str) -> str:
    if name == "webarray._dtypes":
        return "data"
    for prefix, layer in (("webarray.cupy", "cupy"), ("webarray._core", "core"),
                          ("webarray.kernels", "kernels"), ("webarray.executors", "executors"),
                          ("webarray.volunteer", "apps"), ("webarray.browser", "apps")):
        if name == prefix or name.startswith(prefix + "."):
            return layer
    return "namespace"


# which layers each layer may import
ALLOWED = {
    "apps": {"apps", "cupy", "namespace", "core", "kernels", "executors", "data"},
    "cupy": {"cupy", "namespace", "core", "kernels", "executors", "data"},
    "namespace": {"namespace", "core", "kernels", "executors", "data"},
    "core": {"core", "kernels", "executors", "data"},
    "kernels": {"kernels", "data"},
    "executors": {"executors", "data"},
    "data": {"data"},
}


def test_every_import_points_down():
    wrong = [f"{src} (line {line}) imports {dst}: {_layer(src)} may not import {_layer(dst)}"
             for src, edges in EDGES.items() for dst, line, _ in edges
             if _layer(dst) not in ALLOWED[_layer(src)]]
    assert not wrong, "\n".join(wrong)


def test_renderers_are_siblings_and_the_namespace_names_no_backend():
    wrong = []
    for src, edges in EDGES.items():
        for dst, line, _ in edges:
            for a, b in (("webarray.kernels.webgpu", "webarray.kernels.webgl2"),
                         ("webarray.kernels.webgl2", "webarray.kernels.webgpu")):
                if src.startswith(a) and dst.startswith(b):
                    wrong.append(f"{src} (line {line}) imports {dst}")
            if _layer(src) in ("namespace", "cupy") and (
                    dst.startswith(("webarray.kernels.webgpu", "webarray.kernels.webgl2"))
                    or dst in ("webarray.executors.native", "webarray.executors.browser")):
                wrong.append(f"{src} (line {line}) imports the backend module {dst}")
    assert not wrong, "\n".join(wrong)


def _cycles() -> list[set[str]]:
    """The import graph's strongly connected components of more than one module."""
    sys.setrecursionlimit(10_000)
    index: dict = {}
    low: dict = {}
    stack: list = []
    on: set = set()
    found: list = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _, _ in EDGES[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in MODULES:
        if v not in index:
            visit(v)
    return found


def test_the_only_import_loops_are_array_and_ndarray_with_their_functions():
    cycles = _cycles()
    assert cycles, "the namespace loop (Array <-> functions) should be found: is the scan broken?"
    for comp in cycles:
        layers = {_layer(m) for m in comp}
        assert layers in ({"namespace"}, {"cupy"}), f"an import loop across layers: {sorted(comp)}"
        if layers == {"namespace"}:
            assert "webarray._array_object" in comp, f"a namespace loop without Array: {sorted(comp)}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_an_import_inside_a_function_says_why(name):
    lines = MODULES[name].read_text().splitlines()
    silent = []
    for dst, line, inner in EDGES[name]:
        if not inner:
            continue
        window = lines[max(0, line - 5):line]  # the import's line and the four above it
        if not any("#" in text for text in window):
            silent.append(f"line {line}: {lines[line - 1].strip()}")
    assert not silent, f"{name}: imports inside functions without a comment:\n" + "\n".join(silent)


def test_the_cupy_layer_leaves_whole_shaders_to_the_kernel_registries():
    """Kernels of CuPy's classes are specs rendered by kernels/webgpu and kernels/webgl2
    (specs/raw.py, specs/reduction.py ReduceSpec with a UserFold); the CuPy layer translates
    bodies to functions and wraps users' own RawKernel source, but writes no entry point of
    its own."""
    writers = [name for name, path in MODULES.items()
               if name.startswith("webarray.cupy.") and name != "webarray.cupy._raw_kernel"
               and ("@compute" in path.read_text() or "#version 300 es" in path.read_text())]
    assert not writers, f"shader entry points written in the CuPy layer: {writers}"
