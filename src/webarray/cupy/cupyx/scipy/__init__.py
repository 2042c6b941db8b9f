"""``cupyx.scipy``: the SciPy functions CuPy code imports (``linalg``, ``special``)."""

from . import linalg, special  # noqa: F401
