"""The inspection API: ``__array_namespace_info__``, telling the truth per device."""

from __future__ import annotations

from . import _dtypes as dt
from ._device import Device, all_devices, default_device, resolve

__all__ = ["__array_namespace_info__"]


class Info:
    __module__ = "webarray"

    def capabilities(self) -> dict:
        return {
            # mask indexing and nonzero have data-dependent shapes, both supported
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": None,
        }

    def default_device(self) -> Device:
        return default_device()

    def devices(self) -> list[Device]:
        return list(all_devices())

    def default_dtypes(self, *, device=None) -> dict:
        resolve(device)
        return {
            "real floating": dt.float32,
            "complex floating": dt.complex64,
            "integral": dt.int32,
            "indexing": dt.int32,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        supported = resolve(device).dtypes
        if kind is None:
            chosen = supported
        else:
            from ._data_type import isdtype

            chosen = [d for d in supported if isdtype(d, kind)]
        return {d.name: d for d in chosen}


def __array_namespace_info__() -> Info:
    return Info()
