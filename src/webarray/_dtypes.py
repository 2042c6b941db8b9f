"""Data type objects, categories and the type promotion table of the standard."""

from __future__ import annotations


__all__ = [
    "DType",
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


class DType:
    """A data type of the standard. Compared by identity; usable as a dict key.

    Equality and hashing are the object defaults (identity), which stay in C: dtype checks
    run on every op. A DType never equals a string or another DType; NumPy reads it as its
    own dtype of that name (``dtype``), so NumPy's dtype comparison sees them equal.
    """

    __slots__ = ("name", "kind", "bits", "__weakref__")

    def __init__(self, name: str, kind: str, bits: int):
        self.name = name
        # "b" bool, "i" signed, "u" unsigned, "f" real floating, "c" complex floating
        self.kind = kind
        self.bits = bits

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8)

    @property
    def dtype(self):
        """NumPy's dtype of this name. NumPy reads an object's ``dtype`` attribute where it
        expects a dtype, so ``a.astype(x.dtype)`` and ``np.asarray(a, dtype=xp.float32)``
        work on NumPy arrays (scikit-learn with dispatch off casts NumPy arrays to its
        input's dtype that way), and ``np.dtype("float32") == webarray.float32`` is True, as
        for CuPy's dtypes (NumPy's dtype comparison converts the other side)."""
        import numpy

        return numpy.dtype(self.name)

    def __repr__(self) -> str:
        return f"webarray.{self.name}"

    def __reduce__(self):
        return self.name

bool = DType("bool", "b", 8)
int8 = DType("int8", "i", 8)
int16 = DType("int16", "i", 16)
int32 = DType("int32", "i", 32)
int64 = DType("int64", "i", 64)
uint8 = DType("uint8", "u", 8)
uint16 = DType("uint16", "u", 16)
uint32 = DType("uint32", "u", 32)
uint64 = DType("uint64", "u", 64)
float32 = DType("float32", "f", 32)
float64 = DType("float64", "f", 64)
complex64 = DType("complex64", "c", 64)
complex128 = DType("complex128", "c", 128)

all_dtypes = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128,
)
by_name = {d.name: d for d in all_dtypes}

boolean_dtypes = (bool,)
signed_integer_dtypes = (int8, int16, int32, int64)
unsigned_integer_dtypes = (uint8, uint16, uint32, uint64)
integer_dtypes = signed_integer_dtypes + unsigned_integer_dtypes
real_floating_dtypes = (float32, float64)
complex_floating_dtypes = (complex64, complex128)
floating_dtypes = real_floating_dtypes + complex_floating_dtypes
real_numeric_dtypes = integer_dtypes + real_floating_dtypes
numeric_dtypes = real_numeric_dtypes + complex_floating_dtypes

# The categories named by the standard's function signatures; elementwise functions and
# the op table refer to them by these keys, and error messages quote the key.
categories = {
    "any": all_dtypes,
    "boolean": boolean_dtypes,
    "integer": integer_dtypes,
    "integer or boolean": integer_dtypes + boolean_dtypes,
    "real numeric": real_numeric_dtypes,
    "numeric": numeric_dtypes,
    "floating-point": floating_dtypes,
    "real floating-point": real_floating_dtypes,
    "complex floating-point": complex_floating_dtypes,
}

# isdtype kinds
kinds = {
    "bool": boolean_dtypes,
    "signed integer": signed_integer_dtypes,
    "unsigned integer": unsigned_integer_dtypes,
    "integral": integer_dtypes,
    "real floating": real_floating_dtypes,
    "complex floating": complex_floating_dtypes,
    "numeric": numeric_dtypes,
}

# The promotion table of the standard, written out pair by pair (both orders) so that it
# can be checked against the standard's tables line by line. Pairs that are absent (mixed
# kinds, uint64 with a signed integer) have no defined promotion and raise TypeError.
promotion_table = {
    # boolean
    (bool, bool): bool,
    # signed integers
    (int8, int8): int8,
    (int8, int16): int16,
    (int8, int32): int32,
    (int8, int64): int64,
    (int16, int8): int16,
    (int16, int16): int16,
    (int16, int32): int32,
    (int16, int64): int64,
    (int32, int8): int32,
    (int32, int16): int32,
    (int32, int32): int32,
    (int32, int64): int64,
    (int64, int8): int64,
    (int64, int16): int64,
    (int64, int32): int64,
    (int64, int64): int64,
    # unsigned integers
    (uint8, uint8): uint8,
    (uint8, uint16): uint16,
    (uint8, uint32): uint32,
    (uint8, uint64): uint64,
    (uint16, uint8): uint16,
    (uint16, uint16): uint16,
    (uint16, uint32): uint32,
    (uint16, uint64): uint64,
    (uint32, uint8): uint32,
    (uint32, uint16): uint32,
    (uint32, uint32): uint32,
    (uint32, uint64): uint64,
    (uint64, uint8): uint64,
    (uint64, uint16): uint64,
    (uint64, uint32): uint64,
    (uint64, uint64): uint64,
    # mixed signed and unsigned integers
    (int8, uint8): int16,
    (int8, uint16): int32,
    (int8, uint32): int64,
    (int16, uint8): int16,
    (int16, uint16): int32,
    (int16, uint32): int64,
    (int32, uint8): int32,
    (int32, uint16): int32,
    (int32, uint32): int64,
    (int64, uint8): int64,
    (int64, uint16): int64,
    (int64, uint32): int64,
    (uint8, int8): int16,
    (uint16, int8): int32,
    (uint32, int8): int64,
    (uint8, int16): int16,
    (uint16, int16): int32,
    (uint32, int16): int64,
    (uint8, int32): int32,
    (uint16, int32): int32,
    (uint32, int32): int64,
    (uint8, int64): int64,
    (uint16, int64): int64,
    (uint32, int64): int64,
    # floating point
    (float32, float32): float32,
    (float32, float64): float64,
    (float64, float32): float64,
    (float64, float64): float64,
    (complex64, complex64): complex64,
    (complex64, complex128): complex128,
    (complex128, complex64): complex128,
    (complex128, complex128): complex128,
    (float32, complex64): complex64,
    (float32, complex128): complex128,
    (float64, complex64): complex128,
    (float64, complex128): complex128,
    (complex64, float32): complex64,
    (complex128, float32): complex128,
    (complex64, float64): complex128,
    (complex128, float64): complex128,
}


def _mixed(d1: DType, d2: DType) -> DType | None:
    """NumPy's promotion of arrays of two kinds, which the standard leaves to the library:
    bool gives way to any other kind; an integer with a floating dtype gives the smallest
    floating dtype of that kind holding both exactly (8- and 16-bit integers fit float32,
    wider ones need float64), as NumPy's. None for uint64 with a signed integer (NumPy's
    float64 would round them)."""
    if d1.kind == "b" or d2.kind == "b":
        return d2 if d1.kind == "b" else d1
    if d1.kind in "iu" and d2.kind in "iu":
        return None
    i, f = (d1, d2) if d1.kind in "iu" else (d2, d1)
    r = promotion_table[float32 if i.bits <= 16 else float64, real_of(f)]
    return complex_of(r) if f.kind == "c" else r


def promote(d1: DType, d2: DType) -> DType:
    """Result dtype of a binary operation on arrays of dtypes d1 and d2: the standard's
    table, and between kinds NumPy's promotion (``_mixed``)."""
    try:
        return promotion_table[d1, d2]
    except KeyError:
        r = _mixed(d1, d2)
        if r is None:
            raise TypeError(
                f"{d1.name} and {d2.name} cannot be type promoted together: the standard "
                "defines no promotion between them, and NumPy's float64 would round "
                "them; cast one with astype"
            ) from None
        return r


def promote_all(dtypes) -> DType:
    """The result dtype of many: ``promote`` in an order that makes it independent of theirs
    (the floating dtypes first, then the integers, bools last), as NumPy's result_type of
    all at once; int8, uint64, float32 is float64 in every order."""
    ordered = sorted(dtypes, key=lambda d: "cfiub".index(d.kind))
    out = ordered[0]
    for d in ordered[1:]:
        out = promote(out, d)
    return out


def check_operand(dtype: DType, compute: DType, category: str, what: str) -> None:
    """Raise TypeError unless an operand of dtype can enter an operation of the named
    category that computes in compute: dtype is of the category, or it is converted to
    compute, another kind that is (NumPy's atan2 of an integer and a float array)."""
    cats = categories[category]
    if dtype not in cats and (compute.kind == dtype.kind or compute not in cats):
        check_category(dtype, category, what)


def check_category(dtype: DType, category: str, what: str) -> None:
    """Raise TypeError unless dtype belongs to the named category."""
    if dtype not in categories[category]:
        raise TypeError(
            f"{what} requires an array with a {category} data type, got {dtype.name}"
        )


def complex_of(dtype: DType) -> DType:
    return complex64 if dtype in (float32, complex64) else complex128


def real_of(dtype: DType) -> DType:
    return {complex64: float32, complex128: float64}.get(dtype, dtype)
