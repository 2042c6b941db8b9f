"""``cupy._util``: the warning class and the memoizing decorator CuPy code uses.

Chainer builds its kernels inside functions decorated with ``cupy.memoize`` (through
``chainer.backends.cuda.memoize``), so that each is made once; ``clear_memo`` empties every
such cache.
"""

from __future__ import annotations

import functools
import threading


class PerformanceWarning(RuntimeWarning):
    """Warned where CuPy code would be slow (``cupy._util.PerformanceWarning``)."""


_caches: list[dict] = []
_lock = threading.Lock()


def memoize(for_each_device: bool = False):
    """Cache a function's results by its arguments (one device here, so
    ``for_each_device`` changes nothing)."""

    def decorator(f):
        cache: dict = {}
        with _lock:
            _caches.append(cache)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            try:
                return cache[key]
            except KeyError:
                pass
            value = cache[key] = f(*args, **kwargs)
            return value

        return wrapper

    return decorator


def clear_memo() -> None:
    """Empty the caches of every ``memoize``d function."""
    with _lock:
        for cache in _caches:
            cache.clear()
