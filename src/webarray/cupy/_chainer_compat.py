"""Chainer 7.8.1 (its last release) imported unchanged on today's NumPy and Python.

Two of its modules stop ``import chainer`` before any array exists:

- ``chainer/functions/array/as_strided.py`` reads ``np.sctypes``, which NumPy 2 removed;
- ``chainer/_environment_check.py`` imports ``numpy.distutils`` and ``pkg_resources``,
  which Python >= 3.12 (and setuptools >= 81) no longer have, to warn about macOS's BLAS and
  package versions.

Chainer also warns at its first GPU use that cuDNN is missing; there is no cuDNN here, so
``install()`` sets ``CHAINER_CUDNN=0`` (Chainer's own switch) unless it is set already.

A third, ``chainer/functions/array/resize_images.py``, imports but fails when called: it
asks for ``dtype=numpy.float``, an alias NumPy 1.24 removed.

Rather than a fork, ``install()`` adds an import hook for those three module names only:
the first and third are loaded from their own source with those reads spelled out
(``_PATCHES``), the second becomes a module whose ``check()`` does nothing. Every other
module of Chainer, and these on a NumPy that still has the names, load exactly as
installed.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

_AS_STRIDED = "chainer.functions.array.as_strided"
_RESIZE = "chainer.functions.array.resize_images"
_ENV_CHECK = "chainer._environment_check"

# the source texts replaced, per module, and what replaces them (on the same line, so that
# line numbers stay): as_strided.py reads np.sctypes at import; resize_images.py builds its
# sampling grid with dtype=numpy.float, the alias of Python's float that NumPy 1.24
# removed (float: float64 on NumPy, the default float32 on webarray)
_PATCHES = {
    _AS_STRIDED: {
        "np.sctypes['int']": "[np.int8, np.int16, np.int32, np.int64]",
        "np.sctypes['float']": "[np.float16, np.float32, np.float64]",
    },
    _RESIZE: {"dtype=numpy.float)": "dtype=float)"},
}


class _PatchedSource(importlib.machinery.SourceFileLoader):
    """A source loader that rewrites the texts of ``_PATCHES`` before compiling."""

    def get_code(self, fullname):
        source = self.get_data(self.path).decode("utf-8")
        for old, new in _PATCHES[fullname].items():
            source = source.replace(old, new)
        return compile(source, self.path, "exec", dont_inherit=True)


class _NoEnvironmentCheck(importlib.abc.Loader):
    """``chainer._environment_check`` as a module whose ``check()`` does nothing."""

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.check = lambda: None


class ChainerFinder(importlib.abc.MetaPathFinder):
    """The import hook: answers for the modules above, and for nothing else."""

    def find_spec(self, fullname, path, target=None):
        if fullname == _ENV_CHECK:
            return importlib.util.spec_from_loader(fullname, _NoEnvironmentCheck())
        if fullname not in _PATCHES or not _numpy_lacks(
                "sctypes" if fullname == _AS_STRIDED else "float"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _PatchedSource(fullname, spec.origin)
        return spec


def _numpy_lacks(name: str) -> bool:
    try:
        import numpy  # only asked when Chainer is being imported, which needs NumPy anyway
    except ImportError:
        return False
    return not hasattr(numpy, name)


def install_hook() -> None:
    """Put the finder first on ``sys.meta_path`` (once), and tell Chainer there is no cuDNN."""
    os.environ.setdefault("CHAINER_CUDNN", "0")
    if not any(isinstance(f, ChainerFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ChainerFinder())
