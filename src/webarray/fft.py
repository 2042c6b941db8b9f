"""The fft extension of the standard (2025.12).

Every transform reduces to one primitive, an unnormalised complex transform of
contiguous rows (``_rows``): lengths whose prime factors are at most 127 run as Stockham
passes, one dispatch per pass over all rows at once (``_core/algorithms/fft.py``, which
launches them and keeps the twiddle and chirp tables); any other length goes through
Bluestein's chirp-z transform, composed here of namespace operations: a convolution done
with power-of-two transforms of length >= 2n - 1. Bluestein's error is about twice a
direct transform's (two transforms of length >= 2n - 1 and a kernel made by a third, all
in float32, and two chirp products: 2.6e-7 against pocketfft's float32 1.2e-7 at
465 = 3·5·31 before primes up to 127 got a pass of their own, #22); for the larger primes
pocketfft uses Bluestein too, and the two agree within 1.25x. The transformed axis is
moved last as a view and copied to contiguous rows when it is not already. float32 and
complex64 input give complex64 results (float32 for the real-valued results of irfft,
irfftn and hfft); float64 and complex128 (on a device with float64, issue #20) give
complex128 (float64), computed in float64 throughout: twiddles and chirps rounded once
from float64, the passes in the device's float64 lane (docs/float64.md). A device without
fft kernels (WebGL2: no workgroups) runs the same transforms composed of namespace
operations (``_composed_rows``: radix-2 stages, Bluestein for other lengths).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import _dtypes as dt
from ._core import graph as _graph
from ._core import tensor as _tensor
from ._core.algorithms import fft as _fft
from ._array_object import Array
from ._core.device import DEFAULT_FLOAT, resolve
from ._creation import asarray, zeros
from ._data_type import astype
from ._elementwise import conj, real
from ._indexing import take
from ._manipulation import (
    _array, _int, concat, flip, moveaxis, normalize_axes, normalize_axis, reshape, roll, stack,
)
from .kernels.expr import Apply, Cast, Index, Scalar

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")
_MAX_INDEX = 2**31 - 1  # the element index of an elementwise kernel is an int32
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# -- argument checks -----------------------------------------------------------------------

def _input(x, what: str, kinds: str) -> Array:
    _array(x, what)
    if x.dtype.kind not in kinds:
        allowed = {"fc": "a floating-point", "f": "a real-valued floating-point"}[kinds]
        raise TypeError(f"{what} requires {allowed} array, got {x.dtype.name}")
    return x


def _norm(norm, what: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"{what}: norm must be one of {_NORMS}, got {norm!r}")
    return norm


def _length(n, what: str) -> int:
    n = _int(n, f"{what}: n")
    if n < 1:
        raise ValueError(f"{what}: n must be at least 1, got {n}")
    return n


def _sizes_axes(x: Array, s, axes, what: str) -> tuple[list[int | None], tuple[int, ...]]:
    """Per transformed axis the requested size (None: keep the axis) and the axes."""
    if s is not None and axes is None:
        raise ValueError(f"{what}: s was given without axes; give axes too")
    axes = tuple(range(x.ndim)) if axes is None else normalize_axes(tuple(axes), x.ndim, what)
    if s is None:
        return [None] * len(axes), axes
    s = list(s)
    if len(s) != len(axes):
        raise ValueError(f"{what}: s {tuple(s)} and axes {axes} must have the same length")
    sizes: list[int | None] = []
    for v in s:
        v = _int(v, f"{what}: an entry of s")
        if v != -1 and v < 1:
            raise ValueError(f"{what}: entries of s must be at least 1 (or -1), got {v}")
        sizes.append(None if v == -1 else v)
    return sizes, axes


# -- the transform of contiguous rows --------------------------------------------------------

def _rows(x: Array, inverse: bool) -> Array:
    """The unnormalised DFT (exp(+2 pi i ...) if inverse) along the last axis of a
    C-contiguous complex64 or complex128 array of shape (..., n); a new array of that shape."""
    if x.device.kernels.fft is not None:
        out = _fft.rows(x, inverse)  # the Stockham passes take any leading shape
        if out is not None:
            return out
    if x.ndim != 2:
        shape = x.shape
        return reshape(_rows(reshape(x, (math.prod(shape[:-1]), shape[-1])), inverse), shape)
    if x.device.kernels.fft is None:  # WebGL2: no fft kernels, the passes composed here
        return _composed_rows(x, inverse)
    return _bluestein(x, inverse)


def _composed_rows(x: Array, inverse: bool) -> Array:
    """``_rows`` of namespace operations, for a device whose registry has no fft kernels
    (WebGL2): radix-2 decimation in time for a power-of-two n (the bit-reversed order by one
    gather, then per stage of half-width h the butterflies a ± w·b over the two halves of
    each block, w = exp(-+ pi i j / h) the first half of the Stockham passes' twiddle table of
    length 2h), Bluestein's transform (of power-of-two transforms) for any other n."""
    batch, n = x.shape
    if batch == 0 or n == 1:
        return _graph.copy_of(x)
    if n & (n - 1):
        return _bluestein(x, inverse)
    device, dtype = x.device, x.dtype
    bits = n.bit_length() - 1
    order = _fft.table(device, ("bitrev", n), lambda: asarray(
        [int(format(k, f"0{bits}b")[::-1], 2) for k in range(n)], dtype=dt.int32,
        device=device))
    x = take(x, order, axis=1)
    h = 1
    while h < n:
        w = _fft.roots(device, 2 * h, dtype)[:h]
        if inverse:
            w = conj(w)
        v = reshape(x, (batch, n // (2 * h), 2, h))
        a, t = v[:, :, 0, :], v[:, :, 1, :] * w
        x = reshape(stack([a + t, a - t], axis=2), (batch, n))
        h *= 2
    return x


def _chirp(n: int, inverse: bool) -> list[complex]:
    """exp(-+ pi i k^2 / n); k^2 is reduced mod 2n first, so the angle stays exact."""
    s = 1.0 if inverse else -1.0
    out = []
    for k in range(n):
        a = s * math.pi * ((k * k) % (2 * n)) / n
        out.append(complex(math.cos(a), math.sin(a)))
    return out


def _bluestein(x: Array, inverse: bool) -> Array:
    """X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]) with c the chirp: a linear
    convolution, done as a cyclic one of power-of-two length m >= 2n - 1."""
    batch, n = x.shape
    m = 1 << (2 * n - 2).bit_length()
    device, dtype = x.device, x.dtype

    def make_kernel() -> Array:
        c = _chirp(n, inverse)
        b = [0j] * m
        for k in range(n):
            b[k] = b[(m - k) % m] = c[k].conjugate()
        # the 1/m of the inverse transform of the convolution is folded in here
        return _rows(asarray([[v / m for v in b]], dtype=dtype, device=device), False)

    chirp = _fft.table(device, ("chirp", n, inverse, dtype),
                       lambda: asarray(_chirp(n, inverse), dtype=dtype, device=device))
    kernel = _fft.table(device, ("bluestein", n, inverse, dtype), make_kernel)
    a = concat([x * chirp, zeros((batch, m - n), dtype=dtype, device=device)], axis=1)
    conv = _rows(_rows(a, False) * kernel, True)
    return _graph.copy_of(conv[:, :n] * chirp)


# -- one axis ---------------------------------------------------------------------------------

def _resize(x: Array, axis: int, n: int) -> Array:
    """x truncated or zero-padded to n along axis."""
    m = x.shape[axis]
    if n < m:
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, n)
        return x[tuple(idx)]
    if n > m:
        shape = list(x.shape)
        shape[axis] = n - m
        return concat([x, zeros(tuple(shape), dtype=x.dtype, device=x.device)], axis=axis)
    return x


def _scale(norm: str, n: int, inverse: bool) -> float:
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") != inverse else 1.0


def _c2c(x: Array, n: int | None, axis: int, norm: str, inverse: bool) -> Array:
    """The complex transform of x (complex64 or complex128) along a non-negative axis."""
    if n is None:
        n = x.shape[axis]
        if n < 1:
            raise ValueError(f"the transformed axis {axis} has no elements; give n (or s) >= 1")
    x = _resize(x, axis, n)
    last = axis == x.ndim - 1  # the common case: no axis to move
    out = _rows(_graph.bindable(x if last else moveaxis(x, axis, -1)), inverse)
    f = _scale(norm, n, inverse)
    if f != 1.0:
        out = _fft.scale(out, f)
    return out if last else moveaxis(out, -1, axis)


def _complex(x: Array) -> Array:
    """x as the complex dtype of its precision (float64 and complex128: complex128)."""
    to = dt.complex128 if x.dtype in (dt.float64, dt.complex128) else dt.complex64
    return x if x.dtype is to else astype(x, to)


def _hermitian_full(x: Array, axis: int, n: int) -> Array:
    """The length-n spectrum whose first n//2 + 1 entries are x's (truncated or padded)
    and whose others are the conjugates that make its inverse transform real."""
    h = _resize(x, axis, n // 2 + 1)
    idx = [slice(None)] * h.ndim
    idx[axis] = slice(1, n - n // 2)
    tail = conj(flip(h[tuple(idx)], axis=axis))
    return concat([h, tail], axis=axis) if tail.shape[axis] else h


# -- the functions ---------------------------------------------------------------------------

_COMPLEX = (dt.complex64, dt.complex128)


def _plain(x, axis, inverse: bool) -> Array | None:
    """The common call's transform (a computed, C-contiguous complex array, along its last
    axis, no scaling) straight from the kept passes, or None (the caller takes the general
    path, which checks and says what is wrong). A repeated ``fft(x)`` spent ~28% of its host
    time in the general path's layers (a 2-core VM: 13.8 -> 10.0 µs with the passes alone)."""
    if (type(x) is not Array or x._b is None or x._dtype not in _COMPLEX or type(axis) is not int
            or not x._shape or (axis != -1 and axis != len(x._shape) - 1) or x._shape[-1] == 0):
        return None
    if x._strides != _tensor.c_strides(x._shape) or x.device.kernels.fft is None:
        return None
    return _fft.rows(_graph.bindable(x), inverse)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    if n is None and norm == "backward":
        out = _plain(x, axis, False)
        if out is not None:
            return out
    _input(x, "fft", "fc")
    n = None if n is None else _length(n, "fft")
    return _c2c(_complex(x), n, normalize_axis(axis, x.ndim, "fft"), _norm(norm, "fft"), False)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    _input(x, "ifft", "fc")
    n = None if n is None else _length(n, "ifft")
    return _c2c(_complex(x), n, normalize_axis(axis, x.ndim, "ifft"), _norm(norm, "ifft"), True)


def _nd(x: Array, s, axes, norm: str, inverse: bool, what: str) -> Array:
    _input(x, what, "fc")
    sizes, axes = _sizes_axes(x, s, axes, what)
    norm = _norm(norm, what)
    y = _complex(x)
    for n, ax in zip(reversed(sizes), reversed(axes)):
        y = _c2c(y, n, ax, norm, inverse)
    return y


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str = "backward") -> Array:
    return _nd(x, s, axes, norm, False, "fftn")


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    return _nd(x, s, axes, norm, True, "ifftn")


def _rfft(x: Array, n: int | None, axis: int, norm: str) -> Array:
    y = _c2c(_complex(x), n, axis, norm, False)
    n = y.shape[axis]
    idx = [slice(None)] * y.ndim
    idx[axis] = slice(0, n // 2 + 1)
    return y[tuple(idx)]


def _irfft(x: Array, n: int | None, axis: int, norm: str, what: str) -> Array:
    if n is None:
        n = 2 * (x.shape[axis] - 1)
        if n < 1:
            raise ValueError(
                f"{what}: the default n = 2 * (M - 1) is {n} for an axis of size "
                f"{x.shape[axis]}; give n >= 1"
            )
    return real(_c2c(_hermitian_full(_complex(x), axis, n), n, axis, norm, True))


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    _input(x, "rfft", "f")
    n = None if n is None else _length(n, "rfft")
    return _rfft(x, n, normalize_axis(axis, x.ndim, "rfft"), _norm(norm, "rfft"))


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    _input(x, "irfft", "fc")
    n = None if n is None else _length(n, "irfft")
    return _irfft(x, n, normalize_axis(axis, x.ndim, "irfft"), _norm(norm, "irfft"), "irfft")


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    _input(x, "rfftn", "f")
    sizes, axes = _sizes_axes(x, s, axes, "rfftn")
    norm = _norm(norm, "rfftn")
    if not axes:
        return _complex(x)
    y = _rfft(x, sizes[-1], axes[-1], norm)
    for n, ax in zip(reversed(sizes[:-1]), reversed(axes[:-1])):
        y = _c2c(y, n, ax, norm, False)
    return y


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str = "backward") -> Array:
    _input(x, "irfftn", "fc")
    sizes, axes = _sizes_axes(x, s, axes, "irfftn")
    norm = _norm(norm, "irfftn")
    if not axes:
        return real(_complex(x))
    y = _complex(x)
    for n, ax in zip(sizes[:-1], axes[:-1]):
        y = _c2c(y, n, ax, norm, True)
    return _irfft(y, sizes[-1], axes[-1], norm, "irfftn")


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    _input(x, "hfft", "fc")
    n = None if n is None else _length(n, "hfft")
    return _irfft(conj(_complex(x)), n, normalize_axis(axis, x.ndim, "hfft"),
                  _SWAP[_norm(norm, "hfft")], "hfft")


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    _input(x, "ihfft", "f")
    n = None if n is None else _length(n, "ihfft")
    return conj(_rfft(x, n, normalize_axis(axis, x.ndim, "ihfft"), _SWAP[_norm(norm, "ihfft")]))


def _freq_args(n, d, dtype, what: str) -> tuple[int, float, dt.DType]:
    n = _length(n, what)
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"{what}: d must be a real number, got {type(d).__name__}")
    if dtype is None:
        dtype = DEFAULT_FLOAT  # the default real floating dtype (float64 where it is switched on)
    if dtype not in dt.real_floating_dtypes:
        raise ValueError(f"{what}: dtype must be a real floating-point dtype, got {dtype!r}")
    return n, float(d), dtype


def _frequencies(n: int, d: float, dtype: dt.DType, device, count: int, what: str) -> Array:
    """The count sample frequencies k / (d·n): k = i for rfftfreq, and for fftfreq i below
    (n + 1) // 2 and i - n from there, computed on the device from the element index: nothing of length n is built on the
    host, and a result that cannot be allocated raises MemoryError at once."""
    device = resolve(device)
    device.check_dtype(dtype)
    if count > _MAX_INDEX:
        raise MemoryError(
            f"{what}: the {count} frequencies of n = {n} are more than the 2**31 - 1 "
            "elements one kernel numbers"
        )
    try:
        out = Array._empty((count,), dtype, device)
    except MemoryError as e:
        raise MemoryError(
            f"{what}: the {count} frequencies of n = {n} ({dtype.name}) do not fit: {e}"
        ) from None
    i32 = dt.int32
    i = Index(i32)
    if what == "fftfreq":  # the upper half counts up from -(n // 2)
        low = Apply("less", (i, Scalar(0, i32)), i32, dt.bool)
        i = Apply("where", (low, i, Apply("subtract", (i, Scalar(1, i32)), i32, i32)), i32, i32)
    # one division (correctly rounded where the device's is): where d·n is exact in float32
    # it differs from NumPy's k * (1 / (d·n)) in float64, rounded to float32, only at a
    # rounding tie; otherwise the rounding of d·n adds at most an ulp
    node = Apply("divide", (Cast(i, dtype), Scalar(2, dtype)), dtype, dtype)
    scalars = [(i32, (n + 1) // 2), (i32, n), (dtype, d * n)]
    return _graph.execute(device, (count,), [(node, out)], (), scalars)[0]


def fftfreq(n: int, /, *, d: float = 1.0, dtype: dt.DType | None = None, device=None) -> Array:
    n, d, dtype = _freq_args(n, d, dtype, "fftfreq")
    return _frequencies(n, d, dtype, device, n, "fftfreq")


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: dt.DType | None = None, device=None) -> Array:
    n, d, dtype = _freq_args(n, d, dtype, "rfftfreq")
    return _frequencies(n, d, dtype, device, n // 2 + 1, "rfftfreq")


def _shift(x: Array, axes, what: str, sign: int) -> Array:
    _input(x, what, "fc")
    axes = tuple(range(x.ndim)) if axes is None else normalize_axes(axes, x.ndim, what)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    return _shift(x, axes, "fftshift", 1)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    return _shift(x, axes, "ifftshift", -1)
