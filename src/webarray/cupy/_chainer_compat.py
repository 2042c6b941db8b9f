"""Chainer 7.8.1 (its last release) imported unchanged on today's NumPy and Python.

Two of its modules stop ``import chainer`` before any array exists:

- ``chainer/functions/array/as_strided.py`` reads ``np.sctypes``, which NumPy 2 removed;
- ``chainer/_environment_check.py`` imports ``numpy.distutils`` and ``pkg_resources``,
  which Python >= 3.12 (and setuptools >= 81) no longer have, to warn about macOS's BLAS and
  package versions.

Chainer also warns at its first GPU use that cuDNN is missing; there is no cuDNN here, so
``install()`` sets ``CHAINER_CUDNN=0`` (Chainer's own switch) unless it is set already.

Rather than a fork, ``install()`` adds an import hook for those two module names only: the
first is loaded from its own source with the two ``np.sctypes`` reads spelled out, the
second becomes a module whose ``check()`` does nothing. Every other module of Chainer,
and these two on a NumPy that still has ``sctypes``, load exactly as installed.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

_AS_STRIDED = "chainer.functions.array.as_strided"
_ENV_CHECK = "chainer._environment_check"

# the source texts replaced in as_strided.py, and what replaces them
_SCTYPES = {
    "np.sctypes['int']": "[np.int8, np.int16, np.int32, np.int64]",
    "np.sctypes['float']": "[np.float16, np.float32, np.float64]",
}


class _PatchedSource(importlib.machinery.SourceFileLoader):
    """A source loader that rewrites the ``np.sctypes`` reads before compiling."""

    def get_code(self, fullname):
        source = self.get_data(self.path).decode("utf-8")
        for old, new in _SCTYPES.items():
            source = source.replace(old, new)
        return compile(source, self.path, "exec", dont_inherit=True)


class _NoEnvironmentCheck(importlib.abc.Loader):
    """``chainer._environment_check`` as a module whose ``check()`` does nothing."""

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.check = lambda: None


class ChainerFinder(importlib.abc.MetaPathFinder):
    """The import hook: answers for the two modules above, and for nothing else."""

    def find_spec(self, fullname, path, target=None):
        if fullname == _ENV_CHECK:
            return importlib.util.spec_from_loader(fullname, _NoEnvironmentCheck())
        if fullname != _AS_STRIDED or _numpy_has_sctypes():
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _PatchedSource(fullname, spec.origin)
        return spec


def _numpy_has_sctypes() -> bool:
    try:
        import numpy  # only asked when Chainer is being imported, which needs NumPy anyway
    except ImportError:
        return False
    try:
        numpy.sctypes
    except AttributeError:
        return False
    return True


def install_hook() -> None:
    """Put the finder first on ``sys.meta_path`` (once), and tell Chainer there is no cuDNN."""
    os.environ.setdefault("CHAINER_CUDNN", "0")
    if not any(isinstance(f, ChainerFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ChainerFinder())
