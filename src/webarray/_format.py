"""NumPy's printout of an array, computed without NumPy.

A printed array should read exactly as NumPy prints the same values and dtype, and Pyodide
here has no NumPy to ask. This module follows NumPy 2's default print options (precision 8,
floatmode 'maxprec', linewidth 75, threshold 1000, edgeitems 3, no suppression) over
Python values: the caller reads the values (past ``THRESHOLD`` elements only those at
``shown_positions``) and this module lays them out.

Float digits come from the digit generation of NumPy's Dragon4 (Steele & White, Burger &
Dybvig) on the exact binary value, with NumPy's cut-offs: the shortest digits that identify
the value among its float neighbours, or, where NumPy asks for more (every element of a
scientific printout gets as many digits as the longest needs), the value's own digits
rounded by the same rule. Keeping the shortest ``'%.{p}g'`` that reads back agrees with it
except next to a power of two, whose neighbour below is nearer than the one above: float32
2**90 prints as ``1.2379401e+27`` in NumPy, where that search gives ``1.23794004e+27``.
``tests/test_format.py`` compares every layout with NumPy's, character for character.
"""

from __future__ import annotations

import math
import struct

from ._core import storage as _storage

LINEWIDTH = 75
THRESHOLD = 1000  # more elements than this print summarised
EDGEITEMS = 3  # elements kept at each end of a summarised axis
PRECISION = 8  # most digits after the point (after the first digit in scientific)

# NumPy turns to scientific notation from 10**min(8, decimal digits of the dtype) up
_SCIENTIFIC_FROM = {32: 1e6, 64: 1e8}
# ... and below 1e-4, compared in the dtype (float32: its nearest value to 1e-4)
_SMALLEST_POSITIONAL = {32: struct.unpack("<f", struct.pack("<f", 1e-4))[0], 64: 1e-4}
# a scalar prints positional from 1e-4 up to this
_SCALAR_POSITIONAL_BELOW = {32: 1e6, 64: 1e16}
# dtypes NumPy's repr leaves out because the values imply them (on a 64-bit platform)
_IMPLIED = ("bool", "int64", "float64", "complex128")


def shown_positions(shape: tuple[int, ...]) -> list[list[int]] | None:
    """Per axis, the positions a printout shows; None when it shows every element."""
    if math.prod(shape) <= THRESHOLD:
        return None
    return [list(range(n)) if n <= 2 * EDGEITEMS
            else [*range(EDGEITEMS), *range(n - EDGEITEMS, n)] for n in shape]


# -- float digits ----------------------------------------------------------------------------

def _parts(v: float, bits: int) -> tuple[bool, int, int, bool]:
    """(sign bit, mantissa, exponent, unequal margins) with abs(v) = mantissa * 2**exponent,
    for a finite v of a binary32 or binary64 dtype. The margin below a power of two is half
    the one above, except at the smallest normal exponent."""
    if bits == 32:
        word, frac_bits, bias = struct.unpack("<I", struct.pack("<f", v))[0], 23, 127
    else:
        word, frac_bits, bias = struct.unpack("<Q", struct.pack("<d", v))[0], 52, 1023
    field = (word >> frac_bits) & ((1 << (bits - 1 - frac_bits)) - 1)
    frac = word & ((1 << frac_bits) - 1)
    negative = bool(word >> (bits - 1))
    if field == 0:  # zero or subnormal
        return negative, frac, 1 - bias - frac_bits, False
    return negative, frac | (1 << frac_bits), field - bias - frac_bits, frac == 0 and field != 1


def _digits(mantissa: int, exponent: int, unequal: bool, *, fraction: bool,
            cutoff_max: int, cutoff_min: int) -> tuple[str, int]:
    """Decimal digits of mantissa * 2**exponent and the power of ten of the first one.

    Digits stop at the first place where they identify the value among its float
    neighbours (then rounded towards the nearer of them), but not before ``cutoff_min``
    digits and never past ``cutoff_max`` (counted after the point when ``fraction``, else
    in all; -1: no limit), where the last digit is rounded half to even.
    """
    if mantissa == 0:
        return "0", 0
    # value = r / s, and the halfway points to its neighbours lie low / s below and
    # high / s above it (scaled by 4 so that the narrow margin is an integer too)
    if exponent >= 0:
        r, s, high = mantissa << (exponent + 2), 4, 1 << (exponent + 1)
    else:
        r, s, high = mantissa << 2, 1 << (2 - exponent), 2
    low = high // 2 if unequal else high
    inclusive = mantissa % 2 == 0  # an even value also owns the halfway points
    k = math.ceil((mantissa.bit_length() - 1 + exponent) * math.log10(2))  # value < 10**k
    if k >= 0:
        s *= 10 ** k
    else:
        r, low, high = (t * 10 ** -k for t in (r, low, high))
    while r >= s:
        s, k = s * 10, k + 1
    while r * 10 < s:
        r, low, high, k = r * 10, low * 10, high * 10, k - 1
    if fraction and 0 <= cutoff_max <= -k:
        # the first digit allowed lies to the right of the value's own first digit
        s, k = s * 10 ** (1 - cutoff_max - k), 1 - cutoff_max
    last = None if cutoff_max < 0 else (-cutoff_max if fraction else k - cutoff_max)
    free = k if cutoff_min < 0 else min(k, -cutoff_min if fraction else k - cutoff_min)
    out = []
    place = k
    while True:
        place -= 1
        r, low, high = r * 10, low * 10, high * 10
        d, r = divmod(r, s)
        down_ok = r <= low if inclusive else r < low
        up_ok = r + high >= s if inclusive else r + high > s
        if ((down_ok or up_ok) and place <= free) or place == last:
            break
        out.append(d)
    if down_ok == up_ok:  # both ends identify the value, or neither (a cut-off): nearest
        down = 2 * r < s or (2 * r == s and d % 2 == 0)
    else:
        down = down_ok
    if down or d < 9:
        out.append(d if down else d + 1)
    else:  # carry past the nines
        while out and out[-1] == 9:
            out.pop()
        if out:
            out[-1] += 1
        else:
            out, k = [1], k + 1
    return "".join(map(str, out)), k - 1


def _sign(negative: bool, plus: bool) -> str:
    return "-" if negative else "+" if plus else ""


def _trim(frac: str, trim: str, min_digits: int) -> str:
    """Trailing digits after the point by NumPy's trim mode: 'k' pads zeros up to
    min_digits, '.' and '-' drop trailing zeros, '0' leaves one zero."""
    if trim == "k":
        return frac + "0" * (max(min_digits, 0) - len(frac))
    frac = frac.rstrip("0")
    return "0" if trim == "0" and not frac else frac


def positional(v: float, bits: int, *, precision: int = -1, min_digits: int = -1,
               trim: str = ".", plus: bool = False, pad_left: int = -1,
               pad_right: int = -1) -> str:
    """NumPy's format_float_positional(unique=True, fractional=True) of a finite v."""
    negative, m, e, unequal = _parts(v, bits)
    digits, point = _digits(m, e, unequal, fraction=True, cutoff_max=precision,
                            cutoff_min=min_digits)
    if point < 0:
        whole, frac = "0", "0" * (-point - 1) + digits
    else:
        whole, frac = digits[:point + 1].ljust(point + 1, "0"), digits[point + 1:]
    frac = _trim(frac, trim, min_digits)
    dot = "" if trim == "-" and not frac else "."
    text = whole + dot + frac
    if pad_right >= len(frac):
        text += " " * (pad_right - len(frac) + (dot == ""))
    sign = _sign(negative, plus)
    return " " * (pad_left - len(whole) - len(sign)) + sign + text


def scientific(v: float, bits: int, *, precision: int = -1, min_digits: int = -1,
               trim: str = ".", plus: bool = False, pad_left: int = -1,
               exp_digits: int = -1) -> str:
    """NumPy's format_float_scientific(unique=True) of a finite v."""
    negative, m, e, unequal = _parts(v, bits)
    digits, point = _digits(m, e, unequal, fraction=False,
                            cutoff_max=precision + 1 if precision >= 0 else -1,
                            cutoff_min=min_digits + 1 if min_digits >= 0 else -1)
    frac = digits[1:]
    dot = "" if trim == "-" and not frac else "."
    frac = _trim(frac, trim, min_digits)
    sign = _sign(negative, plus)
    width = 2 if exp_digits < 0 else min(exp_digits, 5)
    exponent = f"e{'-' if point < 0 else '+'}{abs(point):0{width}d}"
    return " " * (pad_left - 1 - len(sign)) + sign + digits[0] + dot + frac + exponent


def _special(v: float, plus: bool) -> str:
    if math.isnan(v):
        return "+nan" if plus else "nan"
    return _sign(v < 0, plus) + "inf"


class _FloatFormat:
    """One float dtype's layout for a set of values: positional or scientific, digits and
    padding shared by all (NumPy's FloatingFormat with its default options)."""

    def __init__(self, values: list[float], bits: int, plus: bool = False):
        self.bits, self.plus = bits, plus
        finite = [v for v in values if math.isfinite(v)]
        sizes = [abs(v) for v in finite if v != 0]
        self.scientific = False
        if sizes:
            big, small = max(sizes), min(sizes)
            ratio = big / small
            if bits == 32:  # NumPy divides in float32, overflowing to infinity
                ratio = struct.unpack("<f", _storage.f32_bytes(ratio))[0]
            self.scientific = (big >= _SCIENTIFIC_FROM[bits] or small < _SMALLEST_POSITIONAL[bits]
                               or ratio > 1000.0)
        self.precision, self.min_digits, self.trim = PRECISION, 0, "."
        self.pad_left = self.pad_right = 0
        self.exp_digits = -1
        if finite and self.scientific:
            texts = [scientific(v, bits, precision=PRECISION, plus=plus) for v in finite]
            mantissas, _, exps = zip(*(t.partition("e") for t in texts))
            wholes, fracs = zip(*(t.split(".") for t in mantissas))
            self.exp_digits = max(map(len, exps)) - 1
            self.precision = self.min_digits = max(map(len, fracs))
            self.trim = "k"
            self.pad_left = max(map(len, wholes))
            self.pad_right = self.exp_digits + 2 + self.precision
        elif finite:
            texts = [positional(v, bits, precision=PRECISION, plus=plus) for v in finite]
            wholes, fracs = zip(*(t.split(".") for t in texts))
            self.pad_left = max(map(len, wholes))
            self.pad_right = max(map(len, fracs))
        if len(finite) != len(values):  # room for nan and inf
            minus = plus or any(v == -math.inf for v in values)
            self.pad_left = max(self.pad_left, 3 + minus - (self.pad_right + 1))

    def __call__(self, v: float) -> str:
        if not math.isfinite(v):
            return _special(v, self.plus).rjust(self.pad_left + self.pad_right + 1)
        if self.scientific:
            return scientific(v, self.bits, precision=self.precision, min_digits=self.min_digits,
                              trim=self.trim, plus=self.plus, pad_left=self.pad_left,
                              exp_digits=self.exp_digits)
        return positional(v, self.bits, precision=self.precision, min_digits=self.min_digits,
                          trim=self.trim, plus=self.plus, pad_left=self.pad_left,
                          pad_right=self.pad_right)


def _formatter(values: list, dtype, ndim: int):
    """The function that prints one element of values, padded to their common width."""
    if dtype.kind == "b":
        true = " True" if ndim else "True"
        return lambda v: true if v else "False"
    if dtype.kind in "iu":
        width = max(len(str(max(values))), len(str(min(values))))
        return lambda v: str(v).rjust(width)
    if dtype.kind == "f":
        return _FloatFormat(values, dtype.bits)
    real = _FloatFormat([v.real for v in values], dtype.bits // 2)
    imag = _FloatFormat([v.imag for v in values], dtype.bits // 2, plus=True)

    def complex_format(v: complex) -> str:
        i = imag(v.imag)
        end = len(i.rstrip())
        return real(v.real) + i[:end] + "j" + i[end:]

    return complex_format


# -- arrays ----------------------------------------------------------------------------------

def array2string(values: list, shape: tuple[int, ...], dtype, *, separator: str = " ",
                 prefix: str = "", suffix: str = "") -> str:
    """NumPy's array2string of an array of this shape and dtype whose shown values (see
    shown_positions) are ``values``, flat in C order. ``prefix`` only sets the indent of
    continuation lines; ``suffix`` shortens every line by its length."""
    if 0 in shape:
        return "[]"
    elided = shown_positions(shape) is not None
    shown = [2 * EDGEITEMS if elided and n > 2 * EDGEITEMS else n for n in shape]
    fmt = _formatter(values, dtype, len(shape))
    words = [fmt(v) for v in values]
    ndim = len(shape)

    def block(axis: int, start: int, hang: str, width: int) -> str:
        if axis == ndim:
            return words[start]
        step = math.prod(shown[axis + 1:])
        parts = [block(axis + 1, start + i * step, hang + " ", width - 1)
                 for i in range(shown[axis])]
        if elided and shape[axis] > 2 * EDGEITEMS:
            parts.insert(EDGEITEMS, "...")
        if axis < ndim - 1:  # rows, with a blank line between blocks per extra axis
            text = (separator.rstrip() + "\n" * (ndim - 1 - axis)).join(hang + p for p in parts)
        else:  # elements, wrapped before the line would pass width
            room = width - max(len(separator.rstrip()), 1)
            text, line = "", hang
            for j, word in enumerate(parts):
                if len(line) + len(word) > room and len(line) > len(hang):
                    text += line.rstrip() + "\n"
                    line = hang
                line += word + (separator if j < len(parts) - 1 else "")
            text += line
        return "[" + text[len(hang):] + "]"

    return block(0, 0, " " * (len(prefix) + 1), LINEWIDTH - len(suffix))


def array_repr(values: list, shape: tuple[int, ...], dtype, *, name: str = "array",
               fields: list[str] | None = None) -> str:
    """NumPy's repr: ``name(values, shape=..., dtype=...)``, the shape where the values do
    not show it and the dtype where they do not imply it. ``fields`` replaces the dtype
    field (the strict Array always names its dtype and device)."""
    size = math.prod(shape)
    extras = []
    if (size == 0 and shape != (0,)) or size > THRESHOLD:
        extras.append(f"shape={shape}")
    if fields is not None:
        extras += fields
    elif dtype.name not in _IMPLIED or size == 0:
        extras.append(f"dtype={dtype.name}")
    body = array2string(values, shape, dtype, separator=", ", prefix=name + "(", suffix=")")
    if not extras:
        return f"{name}({body})"
    head = f"{name}({body},"
    tail = ", ".join(extras) + ")"
    last_line = len(head) - (head.rfind("\n") + 1)
    spacer = "\n" + " " * (len(name) + 1) if last_line + len(tail) + 1 > LINEWIDTH else " "
    return head + spacer + tail


def array_str(values: list, shape: tuple[int, ...], dtype) -> str:
    """NumPy's str: a 0-d array prints as its scalar."""
    if not shape:
        return scalar_str(values[0], dtype)
    return array2string(values, shape, dtype)


def _float_scalar(v: float, bits: int, trim_positional: str, plus: bool = False) -> str:
    if not math.isfinite(v):
        return "nan" if math.isnan(v) else _sign(v < 0, plus) + "inf"
    if v == 0 or 1e-4 <= abs(v) < _SCALAR_POSITIONAL_BELOW[bits]:
        return positional(v, bits, trim=trim_positional, plus=plus)
    return scientific(v, bits, trim="-", plus=plus)


def scalar_str(v, dtype) -> str:
    """str of a NumPy scalar of this dtype: '1.0', '1e+20', '(1+2j)', 'True'."""
    if dtype.kind == "f":
        return _float_scalar(v, dtype.bits, "0")
    if dtype.kind != "c":
        return str(v)
    bits = dtype.bits // 2
    if v.real == 0 and math.copysign(1.0, v.real) > 0:
        return _float_scalar(v.imag, bits, "-") + "j"
    real = _float_scalar(v.real, bits, "-") if math.isfinite(v.real) else _special(v.real, False)
    imag = _float_scalar(v.imag, bits, "-", True) if math.isfinite(v.imag) else _special(v.imag, True)
    return f"({real}{imag}j)"
