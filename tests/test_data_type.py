"""Dtype objects, the promotion table and the data-type functions (astype, can_cast, finfo,
iinfo, isdtype, result_type), against the standard's tables and NumPy."""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from webarray import _dtypes
from helpers import (ALL_13, ALL_NAMES, DTYPES, INT_NAMES, SUPPORTED_NAMES, UNSUPPORTED_NAMES,
                     assert_equal, views)

UNSUPPORTED = UNSUPPORTED_NAMES
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]
DEVICE = xp.__array_namespace_info__().default_device()


def D(name):
    return getattr(xp, name)


# -- the standard's promotion tables -----------------------------------------------------------

SPEC_REPO = os.environ.get("ARRAY_API_REPO", "/work/.mirror/data-apis+array-api/repo")
CODES = {"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
         "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
         "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128"}

# The tables of type_promotion.rst (2025.12), written out for when the spec is not at hand;
# row dtype, then the result for each column dtype.
WRITTEN_TABLES = [
    (["i1", "i2", "i4", "i8"], {"i1": "i1 i2 i4 i8", "i2": "i2 i2 i4 i8",
                                "i4": "i4 i4 i4 i8", "i8": "i8 i8 i8 i8"}),
    (["u1", "u2", "u4", "u8"], {"u1": "u1 u2 u4 u8", "u2": "u2 u2 u4 u8",
                                "u4": "u4 u4 u4 u8", "u8": "u8 u8 u8 u8"}),
    (["u1", "u2", "u4"], {"i1": "i2 i4 i8", "i2": "i2 i4 i8", "i4": "i4 i4 i8",
                          "i8": "i8 i8 i8"}),
    (["f4", "f8", "c8", "c16"], {"f4": "f4 f8 c8 c16", "f8": "f8 f8 c16 c16",
                                 "c8": "c8 c16 c8 c16", "c16": "c16 c16 c16 c16"}),
]


def _table_from(tables) -> dict:
    """{(name, name): name} in both orders, plus bool with bool (alone on the lattice)."""
    out = {("bool", "bool"): "bool"}
    for cols, rows in tables:
        for r, cells in rows.items():
            for c, v in zip(cols, cells.split()):
                for pair in ((r, c), (c, r)):
                    key = (CODES[pair[0]], CODES[pair[1]])
                    assert out.get(key, CODES[v]) == CODES[v], f"tables disagree on {key}"
                    out[key] = CODES[v]
    return out


def _spec_rst() -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", SPEC_REPO, "show",
             "HEAD:spec/2025.12/API_specification/type_promotion.rst"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def _parse_rst_tables(text: str):
    """The grid tables of the rst: [(column codes, {row code: 'cell cell ...'})]."""
    tables = []
    block: list[str] = []
    for line in text.splitlines() + [""]:
        if line.startswith(("+", "|")):
            block.append(line)
            continue
        if block:
            rows = [[c.strip().strip("*") for c in ln.strip("|").split("|")]
                    for ln in block if ln.startswith("|")]
            cols = rows[0][1:]
            tables.append((cols, {r[0]: " ".join(r[1:]) for r in rows[1:]}))
            block = []
    return tables


SPEC_TEXT = _spec_rst()
EXPECTED = _table_from(_parse_rst_tables(SPEC_TEXT) if SPEC_TEXT else WRITTEN_TABLES)


def test_spec_tables_match_written_tables():
    if SPEC_TEXT is None:
        pytest.skip("array-api spec repository not available")
    tables = _parse_rst_tables(SPEC_TEXT)
    assert len(tables) == 4
    assert _table_from(tables) == _table_from(WRITTEN_TABLES)


def test_dtype_names():
    objs = [D(n) for n in ALL_13]
    assert len({id(d) for d in objs}) == 13
    for n, d in zip(ALL_13, objs):
        assert isinstance(d, _dtypes.DType)
        assert d.name == n
        assert d == d and d == D(n) and not (d != D(n))
        assert {d: 1}[D(n)] == 1
        assert all(d != o for o in objs if o is not d)
        assert d != n
        # NumPy reads a webarray dtype through its ``dtype`` attribute: np.dtype(d), and
        # NumPy's own dtype comparison, see NumPy's dtype of that name (as for CuPy's dtypes)
        assert np.dtype(d) == np.dtype(n) and np.zeros(1).astype(d).dtype == np.dtype(n)
        assert all(np.dtype(o) != np.dtype(n) for o in objs if o is not d)
        assert pickle.loads(pickle.dumps(d)) is d


def test_promotion_table_is_the_standards():
    got = {(a.name, b.name): v.name for (a, b), v in _dtypes.promotion_table.items()}
    assert got == EXPECTED


def _promoted(a: str, b: str) -> str | None:
    """The standard's table, and between kinds (which it leaves to the library) NumPy's
    result_type; None for uint64 with a signed integer (NumPy's float64 would round them)."""
    want = EXPECTED.get((a, b))
    if want is None and {a, b} & {"uint64"} and {a, b} & {"int8", "int16", "int32", "int64"}:
        return None
    return want or np.result_type(a, b).name


def test_promotion_between_kinds_is_numpys():
    """The pairs the standard leaves open: bool gives way, an integer with a floating dtype
    gives the smallest of that kind holding both exactly (int16 with float32 is float32,
    int32 with float32 float64), as NumPy's."""
    for a, b, want in (("bool", "int8", "int8"), ("uint16", "bool", "uint16"),
                       ("bool", "float32", "float32"), ("int16", "float32", "float32"),
                       ("int32", "float32", "float64"), ("uint64", "float32", "float64"),
                       ("int8", "complex64", "complex64"), ("uint32", "complex64", "complex128"),
                       ("int64", "float64", "float64"), ("bool", "complex128", "complex128")):
        assert _dtypes.promote(D(a), D(b)) is D(want) is _dtypes.promote(D(b), D(a))
    for a, b in (("uint64", "int8"), ("int64", "uint64")):
        with pytest.raises(TypeError, match="cannot be type promoted"):
            _dtypes.promote(D(a), D(b))


@pytest.mark.parametrize("a,b", list(itertools.product(ALL_13, ALL_13)))
def test_promote_and_result_type_of_dtypes(a, b):
    want = _promoted(a, b)
    if want is None:
        with pytest.raises(TypeError):
            _dtypes.promote(D(a), D(b))
        with pytest.raises(TypeError):
            xp.result_type(D(a), D(b))
    else:
        assert _dtypes.promote(D(a), D(b)) is D(want)
        assert xp.result_type(D(a), D(b)) is D(want)
        if (a, b) in EXPECTED:  # the standard's graph, irrespective of the device
            assert xp.can_cast(D(a), D(want))
        else:  # can_cast keeps to the standard's graph: no cast between kinds
            assert xp.can_cast(D(a), D(want)) == (D(a).kind == D(want).kind)


@pytest.mark.parametrize("a,b", list(itertools.product(SUPPORTED_NAMES, SUPPORTED_NAMES)))
def test_result_type_of_arrays_follows_the_device(a, b):
    x, y = xp.zeros(2, dtype=D(a)), xp.ones((), dtype=D(b))
    want = _promoted(a, b)
    if want is None or want not in SUPPORTED_NAMES:
        with pytest.raises(TypeError):
            xp.result_type(x, y)
        with pytest.raises(TypeError):
            xp.result_type(x, D(b))
    else:
        assert xp.result_type(x, y) is D(want)
        assert xp.result_type(D(a), y) is D(want)


def _fold(names):
    """NumPy's result_type of all at once, or None where uint64 meets a signed integer and
    no floating dtype is among them (promote_all takes the floating dtypes first)."""
    if not any(D(n).kind in "fc" for n in names) and "uint64" in names and any(
            D(n).kind == "i" for n in names):
        return None
    return np.result_type(*names).name


@given(st.lists(st.sampled_from(ALL_13), min_size=1, max_size=5), st.randoms())
def test_result_type_many_dtypes_any_order(names, rnd):
    want = _fold(names)
    shuffled = list(names)
    rnd.shuffle(shuffled)
    for order in (names, shuffled):
        if want is None:
            with pytest.raises(TypeError):
                xp.result_type(*[D(n) for n in order])
        else:
            assert xp.result_type(*[D(n) for n in order]) is D(want)


def _scalar_rule(name: str, s):
    """Result of result_type(dtype, scalar) by the 2025.12 rules, or the exception type."""
    kind = D(name).kind
    if isinstance(s, bool):
        return name if kind == "b" else TypeError
    if isinstance(s, int):
        if kind == "b":
            return TypeError
        if kind in "iu":
            info = np.iinfo(name)
            return name if info.min <= s <= info.max else OverflowError
        return name
    if isinstance(s, float):
        return name if kind in "fc" else TypeError
    if kind == "f":
        return {"float32": "complex64", "float64": "complex128"}[name]
    return name if kind == "c" else TypeError


scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-300, 300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(),
)


@given(st.sampled_from(ALL_13), st.lists(scalars, min_size=1, max_size=3), st.booleans())
def test_result_type_with_python_scalars(name, values, scalars_first):
    want = name
    for s in values:
        if isinstance(want, str):
            want = _scalar_rule(want, s)
    args = values + [D(name)] if scalars_first else [D(name)] + values
    if isinstance(want, str):
        assert xp.result_type(*args) is D(want)
    else:
        with pytest.raises(want):
            xp.result_type(*args)


@given(st.sampled_from(SUPPORTED_NAMES), scalars)
def test_result_type_array_and_scalar_uses_device_graph(name, s):
    want = _scalar_rule(name, s)
    x = xp.zeros(1, dtype=D(name))
    if isinstance(want, str) and want not in SUPPORTED_NAMES:
        want = TypeError  # e.g. float32 with a complex scalar where complex64 is not on the device
    if isinstance(want, str):
        assert xp.result_type(x, s) is D(want)
        assert xp.result_type(s, x) is D(want)
    else:
        with pytest.raises(want):
            xp.result_type(x, s)


def test_result_type_errors():
    with pytest.raises(ValueError):
        xp.result_type()
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)
    for bad in ("float32", np.float32, np.dtype("float32"), None, [xp.int8], np.zeros(2)):
        with pytest.raises(TypeError):
            xp.result_type(xp.int8, bad)
    if "complex64" in SUPPORTED_NAMES:
        assert xp.result_type(xp.ones(1), 1j) is xp.complex64
    else:
        with pytest.raises(TypeError, match="not supported on"):
            xp.result_type(xp.ones(1), 1j)
    for name in UNSUPPORTED:
        like = {"i": xp.int8, "u": xp.uint8}.get(D(name).kind, xp.float32)
        with pytest.raises(TypeError, match="not supported on"):
            xp.result_type(xp.ones(1, dtype=like), D(name))


@pytest.mark.parametrize("a,b", list(itertools.product(ALL_13, ALL_13)))
def test_can_cast_dtypes(a, b):
    assert xp.can_cast(D(a), D(b)) is (EXPECTED.get((a, b)) == b)


@pytest.mark.parametrize("a,b", list(itertools.product(SUPPORTED_NAMES, ALL_13)))
def test_can_cast_arrays_follows_the_device(a, b):
    x = xp.zeros((2, 1), dtype=D(a))
    assert xp.can_cast(x, D(b)) is (EXPECTED.get((a, b)) == b and b in SUPPORTED_NAMES)


def test_can_cast_errors():
    for bad in ("int8", np.int8, None, 1):
        with pytest.raises(TypeError):
            xp.can_cast(xp.int8, bad)
        with pytest.raises(TypeError):
            xp.can_cast(bad, xp.int8)


# -- isdtype ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL_13)
@pytest.mark.parametrize("kind", KINDS)
def test_isdtype_kinds_like_numpy(name, kind):
    assert xp.isdtype(D(name), kind) is bool(np.isdtype(np.dtype(name), kind))


@pytest.mark.parametrize("name", ALL_13)
def test_isdtype_dtype_kind(name):
    for other in ALL_13:
        assert xp.isdtype(D(name), D(other)) is (name == other)


kind_items = st.one_of(st.sampled_from(KINDS), st.sampled_from(ALL_13).map(D))


@given(st.sampled_from(ALL_13), st.lists(kind_items, max_size=4).map(tuple))
def test_isdtype_tuples(name, kinds):
    want = any(
        (k is D(name)) if isinstance(k, _dtypes.DType) else bool(np.isdtype(np.dtype(name), k))
        for k in kinds
    )
    assert xp.isdtype(D(name), kinds) is want


def test_isdtype_errors():
    for bad in ("float", "integer", "", "bools", "Real floating"):
        with pytest.raises(ValueError):
            xp.isdtype(xp.float32, bad)
        with pytest.raises(ValueError):
            xp.isdtype(xp.float32, ("bool", bad))
    for bad in (1, None, np.float32, np.dtype("float32"), ["bool"], ("bool", ("numeric",))):
        with pytest.raises(TypeError):
            xp.isdtype(xp.float32, bad)
    for bad in ("float32", np.float32, None, xp.ones(1)):
        with pytest.raises(TypeError):
            xp.isdtype(bad, "numeric")


# -- finfo and iinfo -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo_like_numpy(name):
    ref = np.finfo(np.dtype(name))
    got = xp.finfo(D(name))
    assert got.bits == ref.bits and type(got.bits) is int
    for field in ("eps", "max", "min", "smallest_normal"):
        v = getattr(got, field)
        assert type(v) is float, (field, type(v))
        assert v == float(getattr(ref, field)), field
    assert got.dtype is D(ref.dtype.name)


def test_finfo_iinfo_of_arrays():
    assert xp.finfo(xp.ones(3)) == xp.finfo(xp.float32)
    for name in INT_NAMES:
        assert xp.iinfo(xp.zeros(2, dtype=D(name))) == xp.iinfo(D(name))


@pytest.mark.parametrize("name", INT_NAMES + ["int64", "uint64"])
def test_iinfo_like_numpy(name):
    ref = np.iinfo(np.dtype(name))
    got = xp.iinfo(D(name))
    assert (got.bits, got.min, got.max) == (ref.bits, int(ref.min), int(ref.max))
    assert type(got.min) is int and type(got.max) is int
    assert got.dtype is D(name)


def test_finfo_iinfo_errors():
    for name in ["bool"] + INT_NAMES:
        with pytest.raises(TypeError):
            xp.finfo(D(name))
    for name in ["bool", "float32", "float64", "complex64"]:
        with pytest.raises(TypeError):
            xp.iinfo(D(name))
    for bad in ("float32", np.float32, None):
        with pytest.raises(TypeError):
            xp.finfo(bad)
        with pytest.raises(TypeError):
            xp.iinfo(bad)


# -- astype -------------------------------------------------------------------------------------

def _int_target_floats(target: str):
    """float32 values whose truncation lies within target's range."""
    info = np.iinfo(target)
    lo = np.float32(info.min - 1)
    if float(lo) <= info.min - 1:
        lo = np.nextafter(lo, np.float32(np.inf))
    hi = np.float32(info.max + 1)
    if float(hi) >= info.max + 1:
        hi = np.nextafter(hi, np.float32(-np.inf))
    edges = [v for v in (0.0, -0.0, 0.5, -0.5, 0.999, float(lo), float(hi)) if lo <= v <= hi]
    return st.one_of(
        st.floats(float(lo), float(hi), width=32),
        st.sampled_from(edges),
    )


@st.composite
def astype_cases(draw):
    src = draw(st.sampled_from(ALL_NAMES))
    dst = draw(st.sampled_from(ALL_NAMES))
    elems = _int_target_floats(dst) if src == "float32" and dst in INT_NAMES else None
    a, x = draw(views(src, elements_strategy=elems))
    return src, dst, a, x


@given(astype_cases())
def test_astype_like_numpy(case):
    src, dst, a, x = case
    y = xp.astype(x, D(dst))
    assert_equal(y, a.astype(DTYPES[dst]))
    assert y is not x


def test_astype_nan_to_bool():
    a = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, 1e-45], dtype=np.float32)
    assert_equal(xp.astype(xp.asarray(a), xp.bool), a.astype(bool))


@given(st.sampled_from(ALL_NAMES).flatmap(lambda n: views(n)))
def test_astype_copy_semantics(case):
    a, x = case
    assert xp.astype(x, x.dtype, copy=False) is x
    y = xp.astype(x, x.dtype)
    assert y is not x and y._buf is not x._buf
    assert_equal(y, a)
    z = xp.astype(x, x.dtype, copy=True, device=DEVICE)
    assert z is not x and z._buf is not x._buf
    other = xp.float32 if x.dtype is not xp.float32 else xp.int32
    w = xp.astype(x, other, copy=False)
    assert w is not x and w.dtype is other


@pytest.mark.parametrize("src", SUPPORTED_NAMES)
@pytest.mark.parametrize("dst", UNSUPPORTED)
def test_astype_unsupported_dtype_names_the_device(src, dst):
    with pytest.raises(TypeError, match="not supported on") as e:
        xp.astype(xp.zeros(3, dtype=D(src)), D(dst))
    assert repr(DEVICE) in str(e.value)


def test_astype_errors():
    x = xp.ones(3)
    for bad in ("float32", np.float32, None):
        with pytest.raises(TypeError):
            xp.astype(x, bad)
    with pytest.raises(TypeError):
        xp.astype(np.ones(3, dtype=np.float32), xp.float32)
    with pytest.raises(ValueError):
        xp.astype(x, xp.int32, device="cpu")

