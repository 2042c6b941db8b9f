"""Uniform words: the one check that every value a kernel family packs fits its word.

Kernels read counts, shapes, strides and offsets as 32-bit words (u32, or i32 for the
signed ones). A Python int past that range used to be masked to its low 32 bits, so a sum
over 2**32 + 8 elements of a broadcast view (no memory needed) reduced 8 of them and
returned a wrong result without an error. Packing through ``pack`` raises instead:
anything in [-2**31, 2**32) has a two's-complement word that the kernel reads back as the
same value (unsigned for counts, signed for strides), anything else does not.
"""

from __future__ import annotations

import struct

__all__ = ["UniformOverflow", "check", "pack"]

LOW = -(1 << 31)
HIGH = 1 << 32


class UniformOverflow(MemoryError):
    """A launch too large for the 32-bit words its kernel counts and addresses with."""


def check(words, family: str) -> None:
    """Raise UniformOverflow naming the kernel family, the word and its value when a
    word lies outside [-2**31, 2**32)."""
    for i, w in enumerate(words):
        if not LOW <= w < HIGH:
            raise UniformOverflow(
                f"{family} kernel: uniform word {i} would hold {w}, outside the 32-bit "
                f"range [-2**31, 2**32) that the kernel counts and addresses in; this "
                "operation is too large for one launch"
            )


def pack(words, family: str) -> bytes:
    """The little-endian 32-bit words of ``words`` (negative ones as two's complement),
    after ``check``."""
    words = list(words)
    check(words, family)
    return struct.pack(f"<{len(words)}I", *(w & 0xFFFFFFFF for w in words))
