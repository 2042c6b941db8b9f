"""``cupy.fft``: NumPy's ``numpy.fft`` signatures over the strict ``webarray.fft``.

As NumPy, the complex transforms take real input (converted to complex), integers are
computed in float32 and ``norm`` is "backward" (default), "ortho" or "forward". Precision
is the device's: complex64 (NumPy: complex128; see ``docs/cupy.md``).
"""

from __future__ import annotations

import webarray as _wa
from webarray import _dtypes as dt

from ._core import floating, operand, to_array, wrap

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _norm(norm) -> str:
    if norm is None:
        return "backward"
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f'fft: norm must be None, "backward", "ortho" or "forward", got '
                         f"{norm!r}")
    return norm


def _input(a, name: str, complex_: bool):
    x = a if isinstance(a, _wa.Array) else to_array(operand(a, name))
    d = floating(x.dtype)
    if complex_ and d.kind == "f":
        d = dt.complex64
    if not complex_ and d.kind == "c":
        raise TypeError(f"{name}: input must be real, got {x.dtype}")
    return x if x.dtype is d else _wa.astype(x, d)


def _one(strict, complex_in: bool):
    def fn(a, n=None, axis=-1, norm=None):
        x = _input(a, strict.__name__, complex_in)
        return wrap(strict(x, n=n, axis=axis, norm=_norm(norm)))

    fn.__name__ = strict.__name__
    fn.__doc__ = f"NumPy's ``fft.{strict.__name__}(a, n=None, axis=-1, norm=None)``."
    return fn


def _many(strict, complex_in: bool, name: str, two: bool):
    def fn(a, s=None, axes=(-2, -1) if two else None, norm=None):
        x = _input(a, name, complex_in)
        if axes is not None:
            axes = tuple(axes)
        if s is not None:
            s = tuple(s)
            if axes is None:
                axes = tuple(range(-len(s), 0))
        return wrap(strict(x, s=s, axes=axes, norm=_norm(norm)))

    fn.__name__ = name
    fn.__doc__ = (f"NumPy's ``fft.{name}(a, s=None, axes={'(-2, -1)' if two else 'None'}, "
                  "norm=None)``.")
    return fn


fft = _one(_wa.fft.fft, True)
ifft = _one(_wa.fft.ifft, True)
rfft = _one(_wa.fft.rfft, False)
irfft = _one(_wa.fft.irfft, True)
hfft = _one(_wa.fft.hfft, True)
ihfft = _one(_wa.fft.ihfft, False)
fftn = _many(_wa.fft.fftn, True, "fftn", False)
ifftn = _many(_wa.fft.ifftn, True, "ifftn", False)
rfftn = _many(_wa.fft.rfftn, False, "rfftn", False)
irfftn = _many(_wa.fft.irfftn, True, "irfftn", False)
fft2 = _many(_wa.fft.fftn, True, "fft2", True)
ifft2 = _many(_wa.fft.ifftn, True, "ifft2", True)
rfft2 = _many(_wa.fft.rfftn, False, "rfft2", True)
irfft2 = _many(_wa.fft.irfftn, True, "irfft2", True)


def fftfreq(n, d=1.0):
    return wrap(_wa.fft.fftfreq(n, d=d))


def rfftfreq(n, d=1.0):
    return wrap(_wa.fft.rfftfreq(n, d=d))


def fftshift(x, axes=None):
    x = x if isinstance(x, _wa.Array) else to_array(operand(x, "fftshift"))
    return wrap(_wa.fft.fftshift(x, axes=axes))


def ifftshift(x, axes=None):
    x = x if isinstance(x, _wa.Array) else to_array(operand(x, "ifftshift"))
    return wrap(_wa.fft.ifftshift(x, axes=axes))
