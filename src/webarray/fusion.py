"""Lazy elementwise fusion: the switch, and an explicit flush.

With fusion on (the default), elementwise operations, ``astype``, ``where`` and the
creation functions that fill values return *pending* arrays: their values are computed,
many operations in one generated kernel, when something needs them (a readback, a
non-elementwise function, a view, a long chain) or at ``flush()``. Results are the same
either way; errors in arguments are raised at once. ``WEBARRAY_FUSION=0`` in the
environment, or ``set_enabled(False)``, runs every operation as its own kernel.
"""

from __future__ import annotations

from contextlib import contextmanager

from ._core import graph as _graph

__all__ = ["is_enabled", "set_enabled", "enabled", "flush"]


def is_enabled() -> bool:
    """Whether elementwise operations are fused."""
    return _graph.fusion_enabled()


def set_enabled(flag: bool) -> None:
    """Turn fusion on or off (turning it off first computes every pending array)."""
    _graph.set_fusion(flag)


@contextmanager
def enabled(flag: bool = True):
    """Run a block with fusion on (or off), then restore the previous setting."""
    before = is_enabled()
    set_enabled(flag)
    try:
        yield
    finally:
        set_enabled(before)


def flush(*arrays) -> None:
    """Compute the given pending arrays now (each in as few kernels as the graph allows),
    or every pending array when none are given."""
    if arrays:
        _graph.materialize(arrays)
    else:
        _graph.flush()
