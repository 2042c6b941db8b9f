"""The inspection API: ``__array_namespace_info__``, telling the truth per device."""

from __future__ import annotations

from . import _dtypes as dt
from ._core.device import DEFAULT_FLOAT, DEFAULT_INT, INDEX, Device, all_devices, default_device, resolve

__all__ = ["__array_namespace_info__"]


# The functions of the standard whose output shape depends on the data (besides boolean
# indexing, which the array object supports itself).
DATA_DEPENDENT = (
    "nonzero", "repeat", "unique_all", "unique_counts", "unique_inverse", "unique_values",
)


class Devices(tuple):
    """The tuple of devices that ``devices()`` returns; ``+`` takes a list or tuple on either
    side and gives a Devices."""

    __slots__ = ()

    def __add__(self, other):
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return Devices(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return Devices(tuple(other) + tuple(self))


class Info:
    __module__ = "webarray"

    def capabilities(self) -> dict:
        """"data-dependent shapes" is True only once the namespace has every function of
        the standard whose output shape depends on the data."""
        import webarray  # the namespace package imports this module

        return {
            "boolean indexing": True,
            "data-dependent shapes": all(hasattr(webarray, f) for f in DATA_DEPENDENT),
            # shapes and strides travel as kernel uniforms of any length
            "max dimensions": None,
        }

    def default_device(self) -> Device:
        return default_device()

    def devices(self) -> "Devices":
        """A tuple, as the 2025.12 standard says (it said a list before), that also
        concatenates with a list, as SciPy's test fixtures do (``devices() + [None]``)."""
        return Devices(all_devices())

    def default_dtypes(self, *, device=None) -> dict:
        """The default complex dtype is the complex one of the default real floating dtype
        (complex64, or complex128 with WEBARRAY_DEFAULT_FLOAT=float64); complex64 is named
        even where ``dtypes()`` shows that the device cannot store it (the standard requires
        the key)."""
        resolve(device)
        return {
            "real floating": DEFAULT_FLOAT,
            "complex floating": dt.complex_of(DEFAULT_FLOAT),
            "integral": DEFAULT_INT,
            "indexing": INDEX,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        """Only the dtypes this device stores exactly; any other raises TypeError on it."""
        supported = resolve(device).dtypes
        if kind is None:
            return {d.name: d for d in supported}
        names = kind if isinstance(kind, tuple) else (kind,)
        for k in names:
            if not isinstance(k, str):
                raise TypeError(
                    f"dtypes: kind must be a kind name or a tuple of kind names, got {k!r}"
                )
            if k not in dt.kinds:
                raise ValueError(
                    f"dtypes: unknown kind {k!r}; allowed: {', '.join(repr(n) for n in dt.kinds)}"
                )
        return {d.name: d for d in supported if any(d in dt.kinds[k] for k in names)}


def __array_namespace_info__() -> Info:
    return Info()
