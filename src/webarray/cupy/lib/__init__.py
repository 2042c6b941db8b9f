"""``cupy.lib``: ``stride_tricks``, as NumPy's ``numpy.lib``."""

from . import stride_tricks  # noqa: F401
