"""The site's API reference, generated from the namespace: ``python site/gen_api.py OUT.json``.

For every public name of ``webarray`` (and of its ``linalg``, ``fft`` and ``cupy``
modules where present): its kind, signature, the first line of its docstring, the spec
category it belongs to, and per backend whether it is there. Support per backend is read
from what the package states without touching a GPU: the dtypes each backend stores
(``webarray._device._SUPPORTED``), and the stored conformance reports
(``conformance/reports/*.json``), whose per-function outcomes show what was verified
where. Nothing here initialises a device.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("native", "webgpu", "webgl2")

# private module of the namespace -> the standard's name for the category
CATEGORIES = {
    "_creation": "creation",
    "_data_type": "data type",
    "_elementwise": "elementwise",
    "_indexing": "indexing",
    "_info": "inspection",
    "_linear_algebra": "linear algebra",
    "_manipulation": "manipulation",
    "_searching": "searching",
    "_set": "set",
    "_sorting": "sorting",
    "_statistical": "statistical",
    "_utility": "utility",
    "linalg": "linalg extension",
    "fft": "fft extension",
}


# What some backends lack, and the functions that need it: a kernel family (its registry
# entry raises NotImplementedError, e.g. kernels/webgl2/__init__.py, or is None). (WebGL2
# has no linalg kernels but composes the factorizations of namespace operations; eig and
# eigvals are not composed.)
NEEDS = {
    "fft": {f"webarray.fft.{n}" for n in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn",
                                          "irfftn", "hfft", "ihfft")},
    "linalg": {"webarray.linalg.eig", "webarray.linalg.eigvals"},
}


def missing_families(backend: str) -> dict[str, str]:
    """what NEEDS names -> why this backend lacks it."""
    registry = importlib.import_module(
        "webarray.kernels.webgl2" if backend == "webgl2" else "webarray.kernels.webgpu")
    out = {}
    for family in NEEDS:
        try:
            module = getattr(registry, family, None) or importlib.import_module(f"{registry.__name__}.{family}")
            if not inspect.ismodule(module):
                getattr(module, "generate")  # a stand-in raises NotImplementedError saying why
        except ImportError:
            out[family] = f"{backend} has no {family} kernels"
        except NotImplementedError as e:
            out[family] = str(e)
    return out


def first_line(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def signature(name: str, obj) -> str:
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


def category(obj, default: str) -> str:
    module = getattr(obj, "__module__", "") or ""
    return CATEGORIES.get(module.rsplit(".", 1)[-1], default)


def conformance_by_function() -> dict[str, dict[str, dict[str, int]]]:
    """function name -> target -> outcome -> count, from the stored reports."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for path in sorted((ROOT / "conformance" / "reports").glob("*.json")):
        report = json.loads(path.read_text())
        target = report.get("target", path.stem)
        for fn, counts in report.get("summary", {}).get("functions", {}).items():
            out.setdefault(fn, {})[target] = counts
    return out


def backend_dtypes(xp) -> dict[str, list[str] | None]:
    """dtype names each backend stores; None for a backend the package does not have yet."""
    from webarray._core import device as _device

    supported = getattr(_device, "_SUPPORTED", {})
    return {b: [d.name for d in supported[b]] if b in supported else None for b in BACKENDS}


def entry(xp, name: str, obj, module: str, default_category: str, dtypes, conformance, missing) -> dict:
    if inspect.isclass(obj):
        kind = "class"
    elif callable(obj) and not isinstance(obj, type(xp.float32)):
        kind = "function"
    elif isinstance(obj, type(xp.float32)):
        kind = "dtype"
    elif inspect.ismodule(obj):
        kind = "module"
    else:
        kind = "constant"
    qualname = f"{module}.{name}"
    support, why = {}, {}
    for b in BACKENDS:
        if dtypes[b] is None:
            support[b] = "missing"
        elif kind == "dtype":
            support[b] = "yes" if name in dtypes[b] else "no"
        else:
            support[b] = "yes"
            for family, users in NEEDS.items():
                if qualname in users and family in missing[b]:
                    support[b], why[b] = "no", missing[b][family]
    item = {
        "name": name,
        "qualname": qualname,
        "module": module,
        "kind": kind,
        "category": category(obj, default_category) if kind == "function" else kind,
        "signature": signature(name, obj) if kind in ("function", "class") else name,
        "summary": first_line(obj) if kind in ("function", "class", "module") else "",
        "support": support,
    }
    if why:
        item["why"] = why
    if kind == "constant":
        item["summary"] = repr(obj)
    conf = conformance.get(name)
    if conf:
        item["conformance"] = conf
    return item


def cupy_section(xp) -> dict:
    try:
        import webarray.cupy as cp  # type: ignore[import-not-found]
    except ImportError as e:
        return {"available": False, "note": f"webarray.cupy is not importable here: {e}"}
    names = getattr(cp, "__all__", [n for n in dir(cp) if not n.startswith("_")])
    items = []
    for n in sorted(names):
        obj = getattr(cp, n, None)
        if obj is None:
            continue
        same = getattr(xp, n, None) is obj
        items.append({
            "name": n,
            "signature": signature(n, obj) if callable(obj) else n,
            "summary": first_line(obj) if callable(obj) or inspect.isclass(obj) else "",
            "alias_of": f"webarray.{n}" if same else None,
        })
    return {"available": True, "items": items}


def generate() -> dict:
    import webarray as xp

    dtypes = backend_dtypes(xp)
    missing = {b: missing_families(b) if dtypes[b] is not None else {} for b in BACKENDS}
    conformance = conformance_by_function()
    items = []
    for name in xp.__all__:
        obj = getattr(xp, name)
        if name in ("linalg", "fft"):
            continue
        items.append(entry(xp, name, obj, "webarray", "namespace", dtypes, conformance, missing))
    for ext in ("linalg", "fft"):
        mod = getattr(xp, ext)
        for name in mod.__all__:
            items.append(entry(xp, name, getattr(mod, name), f"webarray.{ext}", f"{ext} extension",
                               dtypes, conformance, missing))
    array_methods = []
    for name, obj in sorted(vars(xp.Array).items()):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if name in ("__init__", "__module__", "__doc__", "__dict__", "__weakref__", "__slots__",
                    "__hash__", "__annotations__", "__firstlineno__", "__static_attributes__"):
            continue
        kind = "property" if isinstance(obj, property) else "method"
        target = obj.fget if isinstance(obj, property) else obj
        array_methods.append({
            "name": name,
            "kind": kind,
            "signature": name if kind == "property" else signature(name, target),
            "summary": first_line(target) if callable(target) else "",
        })
    info = xp.__array_namespace_info__()
    return {
        "api_version": xp.__array_api_version__,
        "backends": list(BACKENDS),
        "dtypes": dtypes,
        "capabilities": info.capabilities(),
        "items": items,
        "array": array_methods,
        "cupy": cupy_section(xp),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python site/gen_api.py OUT.json", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(generate(), indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
