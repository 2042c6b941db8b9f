"""``cupy.random``: counter-based random numbers generated on the GPU.

The generator is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers:
as easy as 1, 2, 3", SC 2011; the generator JAX uses): element ``i`` of a call gets the
two words ``threefry(key, (i, counter))``, where the key comes from the seed and the counter
advances once per call. Every element is computed independently by one thread of an
ElementwiseKernel written in the C-like kernel language, so the same code runs as WGSL on
WebGPU and as GLSL on WebGL2, and a seed gives the same numbers on every device.

Floats are float32 (CuPy: float64): ``random``/``rand`` take the top 24 bits of a word,
so values lie in [0, 1) on a grid of 2^-24; ``normal``/``randn`` use the Box-Muller
transform of two such values. ``randint`` reduces a word modulo the range (the bias is at
most range / 2^32); its default dtype is int32 (CuPy: int64).
"""

from __future__ import annotations

import math
import os

from webarray import _dtypes as dt

from ._core import as_dtype, wrap
from ._elementwise_kernel import ElementwiseKernel

__all__ = ["RandomState", "seed", "get_random_state", "rand", "randn", "random",
           "random_sample", "ranf", "sample", "uniform", "normal", "standard_normal",
           "randint", "random_integers"]

ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
PARITY = 0x1BD11BDA


def _threefry_body() -> str:
    """C-like statements computing x0, x1 = threefry2x32-20(key (k0, k1), (i, ctr))."""
    lines = ["uint32 ks0 = k0, ks1 = k1, ks2 = k0 ^ k1 ^ 0x1BD11BDAu;",
             "uint32 x0 = uint32(i) + ks0;", "uint32 x1 = ctr + ks1;"]
    ks = ("ks0", "ks1", "ks2")
    for r in range(20):
        rot = ROTATIONS[r % 8]
        lines.append(f"x0 += x1; x1 = (x1 << {rot}u) | (x1 >> {32 - rot}u); x1 ^= x0;")
        if r % 4 == 3:
            s = (r + 1) // 4
            lines.append(f"x0 += {ks[s % 3]}; x1 += {ks[(s + 1) % 3]} + {s}u;")
    return "\n".join(lines) + "\n"


_PARAMS = "uint32 k0, uint32 k1, uint32 ctr"
_UNIFORM = ElementwiseKernel(
    _PARAMS, "float32 out",
    _threefry_body() + "out = float(x0 >> 8) * 5.9604644775390625e-08f;",
    "wa_random_uniform")
_NORMAL = ElementwiseKernel(
    _PARAMS, "float32 out",
    _threefry_body()
    + "float u1 = (float(x0 >> 8) + 1.0f) * 5.9604644775390625e-08f;\n"
    + "float u2 = float(x1 >> 8) * 5.9604644775390625e-08f;\n"
    + "out = sqrt(-2.0f * log(u1)) * cos(6.283185307179586f * u2);",
    "wa_random_normal")
_INTEGERS = ElementwiseKernel(
    _PARAMS + ", int32 low, uint32 span", "int32 out",
    _threefry_body() + "out = low + int(x0 % span);",
    "wa_random_integers")
_WORDS = ElementwiseKernel(
    _PARAMS, "uint32 w0, uint32 w1", _threefry_body() + "w0 = x0; w1 = x1;",
    "wa_random_words")


def threefry2x32(k0: int, k1: int, x0: int, x1: int) -> tuple[int, int]:
    """The reference Threefry-2x32-20 in Python (what the kernels compute per element)."""
    m = 0xFFFFFFFF
    ks = (k0, k1, k0 ^ k1 ^ PARITY)
    x0, x1 = (x0 + ks[0]) & m, (x1 + ks[1]) & m
    for r in range(20):
        rot = ROTATIONS[r % 8]
        x0 = (x0 + x1) & m
        x1 = ((x1 << rot) | (x1 >> (32 - rot))) & m
        x1 ^= x0
        if r % 4 == 3:
            s = (r + 1) // 4
            x0 = (x0 + ks[s % 3]) & m
            x1 = (x1 + ks[(s + 1) % 3] + s) & m
    return x0, x1


def _size(size) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        return tuple(int(s) for s in size)
    return (int(size),)


def _check_float(dtype):
    d = as_dtype(dtype) if dtype is not None else dt.float32
    if d is not dt.float32:
        raise TypeError(f"random floats are float32 on this device, not {d.name}")
    return d


class RandomState:
    """A seeded stream of calls; each call uses the next counter value."""

    def __init__(self, seed: int | None = None):
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if hasattr(seed, "__index__"):
            seed = seed.__index__()
        else:
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        seed &= 0xFFFFFFFFFFFFFFFF
        self._key = (seed & 0xFFFFFFFF, seed >> 32)
        self._counter = 0

    def _next(self) -> tuple[int, int, int]:
        c = self._counter
        self._counter = (c + 1) & 0xFFFFFFFF
        return self._key + (c,)

    def _run(self, kernel, shape, *extra):
        n = math.prod(shape)
        if n >= 1 << 31:
            raise ValueError(f"at most 2**31 - 1 random values per call, asked for {n}")
        flat = kernel(*self._next(), *extra, size=max(n, 1))
        if isinstance(flat, tuple):
            return tuple(wrap(f[:n].reshape(shape)) for f in flat)
        return wrap(flat[:n].reshape(shape))

    def random_sample(self, size=None, dtype=None):
        _check_float(dtype)
        return self._run(_UNIFORM, _size(size))

    random = random_sample

    def rand(self, *size, dtype=None):
        return self.random_sample(size, dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None):
        _check_float(dtype)
        u = self._run(_UNIFORM, _size(size))
        return wrap(u * (float(high) - float(low)) + float(low)) if _scalars(low, high) else \
            wrap(u * (high - low) + low)

    def standard_normal(self, size=None, dtype=None):
        _check_float(dtype)
        return self._run(_NORMAL, _size(size))

    def randn(self, *size, dtype=None):
        return self.standard_normal(size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None):
        z = self.standard_normal(size, dtype)
        if _scalars(loc, scale):
            return wrap(z * float(scale) + float(loc))
        return wrap(z * scale + loc)

    def randint(self, low, high=None, size=None, dtype=None):
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if high <= low:
            raise ValueError(f"randint: low ({low}) must be below high ({high})")
        if high - low > 1 << 32 or low < -(1 << 31) or high > (1 << 31):
            raise ValueError("randint: the range must fit int32 (this device's default integer)")
        out = self._run(_INTEGERS, _size(size), low, (high - low) & 0xFFFFFFFF)
        d = as_dtype(dtype) if dtype is not None else dt.int32
        return out if d is dt.int32 else wrap(out.astype(d))

    def random_integers(self, low, high=None, size=None):
        if high is None:
            low, high = 1, low
        return self.randint(low, int(high) + 1, size)

    def raw_words(self, size):
        """Two uint32 arrays of raw generator output (not in CuPy; for tests)."""
        return self._run(_WORDS, _size(size))


def _scalars(*values) -> bool:
    return all(isinstance(v, (int, float)) for v in values)


_STATE = RandomState(0)


def get_random_state() -> RandomState:
    return _STATE


def seed(seed: int | None = None) -> None:
    _STATE.seed(seed)


def rand(*size, dtype=None):
    return _STATE.rand(*size, dtype=dtype)


def randn(*size, dtype=None):
    return _STATE.randn(*size, dtype=dtype)


def random_sample(size=None, dtype=None):
    return _STATE.random_sample(size, dtype)


random = ranf = sample = random_sample


def uniform(low=0.0, high=1.0, size=None, dtype=None):
    return _STATE.uniform(low, high, size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=None):
    return _STATE.normal(loc, scale, size, dtype)


def standard_normal(size=None, dtype=None):
    return _STATE.standard_normal(size, dtype)


def randint(low, high=None, size=None, dtype=None):
    return _STATE.randint(low, high, size, dtype)


def random_integers(low, high=None, size=None):
    return _STATE.random_integers(low, high, size)
