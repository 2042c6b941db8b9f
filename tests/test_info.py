"""The inspection API and the namespace itself: version, exported names, constants, and an
info object that tells the truth about the device."""

from __future__ import annotations

import ast
import math
import os
import subprocess

import numpy as np
import pytest
from hypothesis import given, strategies as st

import webarray as xp
from webarray import _dtypes
from webarray._core.device import Device
from helpers import ALL_13, ALL_NAMES, WIDE_NAMES, assert_equal, check_switch, elements
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]
INFO = xp.__array_namespace_info__()
DEVICE = INFO.default_device()
SPEC_REPO = os.environ.get("ARRAY_API_REPO", "/work/.mirror/data-apis+array-api/repo")

# __all__ of the 2025.12 stubs, for when the spec repository is not at hand
WRITTEN_NAMES = {
    "creation_functions": [
        "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
        "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    ],
    "data_type_functions": ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"],
    "elementwise_functions": [
        "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
        "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or",
        "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign", "cos", "cosh",
        "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal",
        "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p",
        "log2", "log10", "logaddexp", "logical_and", "logical_not", "logical_or",
        "logical_xor", "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal",
        "positive", "pow", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin",
        "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
    ],
    "constants": ["e", "inf", "nan", "newaxis", "pi"],
    "info": ["__array_namespace_info__", "capabilities", "default_device", "default_dtypes",
             "devices", "dtypes"],
}


def _stub_names(module: str) -> list[str]:
    try:
        text = subprocess.run(
            ["git", "-C", SPEC_REPO, "show", f"HEAD:src/array_api_stubs/_2025_12/{module}.py"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return WRITTEN_NAMES[module]
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"no __all__ in the {module} stub")


def D(name):
    return getattr(xp, name)


# -- the namespace -----------------------------------------------------------------------------

def test_version():
    assert xp.__array_api_version__ == "2025.12"


@pytest.mark.parametrize("module", list(WRITTEN_NAMES))
def test_stub_names_match_written_names(module):
    assert sorted(_stub_names(module)) == sorted(WRITTEN_NAMES[module])


@pytest.mark.parametrize("module", ["creation_functions", "data_type_functions",
                                    "elementwise_functions"])
def test_exports_every_function_of_the_category(module):
    missing = [n for n in _stub_names(module) if not callable(getattr(xp, n, None))]
    assert not missing, f"webarray lacks {missing}"
    not_all = [n for n in _stub_names(module) if n not in xp.__all__]
    assert not not_all, f"missing from webarray.__all__: {not_all}"


def test_constants_and_dtypes_exported():
    assert set(_stub_names("constants")) | set(ALL_13) <= set(xp.__all__)
    assert xp.e == math.e and xp.pi == math.pi and xp.inf == math.inf
    assert type(xp.e) is float and type(xp.pi) is float and type(xp.inf) is float
    assert math.isnan(xp.nan) and type(xp.nan) is float
    assert xp.newaxis is None
    for n in ALL_13:
        assert isinstance(D(n), _dtypes.DType) and D(n).name == n
    assert callable(xp.__array_namespace_info__)
    assert "__array_namespace_info__" in xp.__all__


def test_array_namespace_of_arrays():
    assert xp.ones(2).__array_namespace__() is xp
    assert xp.ones(2).__array_namespace__(api_version="2025.12") is xp


# -- capabilities, devices, default dtypes ---------------------------------------------------------

def test_info_methods():
    for name in _stub_names("info")[1:]:
        assert callable(getattr(INFO, name))


def test_capabilities():
    caps = INFO.capabilities()
    assert set(caps) == {"boolean indexing", "data-dependent shapes", "max dimensions"}
    assert type(caps["boolean indexing"]) is bool
    assert type(caps["data-dependent shapes"]) is bool
    assert caps["max dimensions"] is None or type(caps["max dimensions"]) is int


def test_capability_boolean_indexing_is_true():
    a = np.array([[1.5, -2.0, 3.0], [-4.0, 5.0, 0.0]], dtype=np.float32)
    x = xp.asarray(a)
    assert INFO.capabilities()["boolean indexing"] is True
    assert_equal(x[x > 0], a[a > 0])


def test_capability_data_dependent_shapes_is_true():
    from webarray._info import DATA_DEPENDENT

    present = [f for f in DATA_DEPENDENT if callable(getattr(xp, f, None))]
    assert INFO.capabilities()["data-dependent shapes"] is (len(present) == len(DATA_DEPENDENT))
    if INFO.capabilities()["data-dependent shapes"]:
        a = np.array([0, 3, 0, 3, 1], dtype=np.int32)
        (nz,) = xp.nonzero(xp.asarray(a))
        assert_equal(nz.astype(xp.int32) if nz.dtype is not xp.int32 else nz,
                     np.nonzero(a)[0].astype(np.int32))
        assert_equal(xp.unique_values(xp.asarray(a)), np.unique(a))


def test_capability_max_dimensions_is_true():
    limit = INFO.capabilities()["max dimensions"]
    ndim = 33 if limit is None else limit
    a = np.arange(4, dtype=np.float32).reshape((2,) + (1,) * (ndim - 2) + (2,))
    b = np.ones((1,) * (ndim - 1) + (2,), dtype=np.float32)
    assert_equal(xp.asarray(a) + xp.asarray(b), a + b)


def test_devices():
    devices = INFO.devices()
    assert isinstance(devices, tuple) and len(devices) >= 1  # 2025.12: a tuple (was a list)
    # that SciPy's fixtures can still extend with a list, on either side
    assert devices + [None] == devices + (None,) == tuple(devices) + (None,)
    assert [None] + devices == (None,) + tuple(devices)
    with pytest.raises(TypeError):
        devices + 1
    assert DEVICE in devices
    for d in devices:
        x = xp.zeros(3, device=d)
        assert x.device == d
        assert xp.asarray([1, 2], device=d).device == d


def test_default_dtypes():
    for device in (None, DEVICE, *INFO.devices()):
        dd = INFO.default_dtypes(device=device)
        assert set(dd) == {"real floating", "complex floating", "integral", "indexing"}
        assert all(isinstance(v, _dtypes.DType) for v in dd.values())
        assert dd["real floating"].name in INFO.dtypes(device=device, kind="real floating")
        assert xp.isdtype(dd["complex floating"], "complex floating")
        assert dd["integral"].name in INFO.dtypes(device=device, kind="integral")
        assert dd["indexing"].name in INFO.dtypes(device=device, kind="integral")
    dd = INFO.default_dtypes()
    # the defaults are what the creation functions infer
    assert xp.asarray(1.5).dtype is dd["real floating"]
    assert xp.asarray(2).dtype is dd["integral"] and xp.arange(3).dtype is dd["integral"]
    assert xp.full(2, 1.0).dtype is dd["real floating"] and xp.zeros(2).dtype is dd["real floating"]
    if dd["complex floating"].name in INFO.dtypes():
        assert xp.asarray(1j).dtype is dd["complex floating"]
    else:
        with pytest.raises(TypeError, match="not supported on"):
            xp.asarray(1j)


DEFAULT_INT64 = r'''
import numpy as np
import webarray as xp
dd = xp.__array_namespace_info__().default_dtypes()
assert dd["integral"] == xp.int64 and dd["indexing"] == xp.int64, dd
for a in (xp.asarray(0), xp.asarray([1, 2**40]), xp.arange(3), xp.full(2, 7), xp.arange(xp.asarray(2))):
    assert a.dtype == xp.int64, a.dtype
assert int(xp.asarray(2**62)) == 2**62
for src, want in (("int8", xp.int64), ("int32", xp.int64), ("uint16", xp.uint64), ("uint32", xp.uint64),
                  ("int64", xp.int64)):
    x = xp.asarray(np.array([100, 27], dtype=src))
    for f in (xp.sum, xp.prod, xp.cumulative_sum, xp.cumulative_prod):
        assert f(x).dtype == want, (f, src, f(x).dtype)
    assert int(xp.sum(x)) == 127 and int(xp.prod(x)) == 2700
# the index dtype follows: NumPy's intp
assert xp.__array_namespace_info__().default_dtypes()["indexing"] == xp.int64
v = xp.asarray([3.0, 1.0, 2.0, 1.0])
for got, want in ((xp.argmax(v), [0]), (xp.argmin(v, keepdims=True), [1]), (xp.argsort(v), [1, 3, 2, 0]),
                  (xp.nonzero(v > 1.5)[0], [0, 2]), (xp.searchsorted(xp.sort(v), v), [3, 0, 2, 0]),
                  (xp.count_nonzero(v > 1.5), [2]), (xp.unique_counts(v).counts, [2, 1, 1]),
                  (xp.unique_inverse(v).inverse_indices, [2, 0, 1, 0]),
                  (xp.unique_all(v).indices, [1, 2, 0]), (xp.nonzero(v > 5)[0], [])):
    assert got.dtype == xp.int64, (got, got.dtype)
    assert xp.reshape(got, (-1,))._host_nested() == want, (got, want)
assert xp.argsort(xp.asarray([[2, 1], [0, 5]]), axis=0).dtype == xp.int64
try:
    xp.asarray(2**63)
except OverflowError as e:
    assert "default integer dtype int64" in str(e), e
else:
    raise AssertionError("2**63 made an int64")
print("int64 defaults ok")
'''


def test_int64_as_the_default_integer(tmp_path):
    """WEBARRAY_DEFAULT_INT=int64: Python ints, arange and the accumulators of narrower
    integers default to int64 (and uint64), as NumPy's on 64-bit platforms, and so does the
    index dtype of argmax, argsort, nonzero, searchsorted, count_nonzero and the unique
    functions (NumPy's intp); any other value is refused by name."""
    check_switch(tmp_path, "WEBARRAY_DEFAULT_INT", "int64", DEFAULT_INT64, "int64 defaults ok",
                 "int16", "WEBARRAY_DEFAULT_INT must be int32 or int64")


@pytest.mark.parametrize("bad", ["cpu", "gpu", 0, object()])
def test_bad_device_arguments(bad):
    with pytest.raises(ValueError):
        INFO.default_dtypes(device=bad)
    with pytest.raises(ValueError):
        INFO.dtypes(device=bad)


# -- dtypes(): the truth about the device ------------------------------------------------------------

def test_dtypes_lists_canonical_names():
    for device in (None, DEVICE, *INFO.devices()):
        got = INFO.dtypes(device=device)
        assert set(got) <= set(ALL_13)
        assert all(v is D(k) for k, v in got.items())
    # the two-word dtypes are listed unless WEBARRAY_WIDE_DTYPES=0 leaves them out, float64
    # and complex128 unless WEBARRAY_FLOAT64=0 does
    wide = [] if os.environ.get("WEBARRAY_WIDE_DTYPES") == "0" else WIDE_NAMES
    f64 = [] if os.environ.get("WEBARRAY_FLOAT64") == "0" else ["float64", "complex128"]
    assert set(INFO.dtypes()) == set(ALL_NAMES + wide + f64)


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_by_kind(kind):
    got = INFO.dtypes(kind=kind)
    assert got == {n: D(n) for n in INFO.dtypes() if xp.isdtype(D(n), kind)}
    assert got == {n: D(n) for n in INFO.dtypes() if np.isdtype(np.dtype(n), kind)}
    assert INFO.dtypes(kind=(kind,)) == got
    assert INFO.dtypes(kind=kind, device=DEVICE) == got


@given(st.lists(st.sampled_from(KINDS), max_size=4).map(tuple))
def test_dtypes_by_kind_tuple(kinds):
    want = {n: D(n) for n in INFO.dtypes() if any(xp.isdtype(D(n), k) for k in kinds)}
    assert INFO.dtypes(kind=kinds) == want


def test_dtypes_kind_errors():
    for bad in ("float", "integer", "", ("bool", "ints")):
        with pytest.raises(ValueError):
            INFO.dtypes(kind=bad)
    for bad in (xp.float32, 1, ["bool"], ("bool", xp.int8), ("bool", ("numeric",))):
        with pytest.raises(TypeError):
            INFO.dtypes(kind=bad)


@given(st.sampled_from(sorted(INFO.dtypes())).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(elements(n, edges=False), min_size=1, max_size=20))))
def test_every_listed_dtype_works(case):
    name, values = case
    a = np.array(values, dtype=name)
    x = xp.asarray(a)
    assert_equal(x, a)
    assert_equal(xp.full(len(values), a[0].item(), dtype=D(name)), np.full(len(values), a[0]))
    assert_equal(xp.zeros(3, dtype=D(name)), np.zeros(3, dtype=name))
    assert_equal(xp.equal(x, x), np.ones(len(values), dtype=bool))
    kind = D(name).kind
    if kind == "c":
        assert_equal(xp.astype(x, xp.complex64), a.astype(np.complex64))
        assert_equal(xp.real(x), a.real)
    else:
        with np.errstate(over="ignore"):
            assert_equal(xp.astype(x, xp.float32), a.astype(np.float32))
    if kind in "biu":
        # exact round trip through an unsigned dtype as wide
        via = xp.uint64 if name in ("int64", "uint64") else xp.uint32
        assert_equal(xp.astype(xp.astype(x, via), D(name)), a)
    if name == "bool":
        assert_equal(xp.logical_xor(x, xp.asarray(True)), ~a)
    else:
        if kind != "c":
            assert_equal(xp.maximum(x, x), a)
        assert_equal(x - x, a - a)


# a device of the default's GPU with the switchable dtypes left out (WEBARRAY_WIDE_DTYPES=0,
# WEBARRAY_FLOAT64=0): what it lacks is refused by name
NARROW = Device(DEVICE.executor, wide_dtypes=False, float64=False)


@pytest.mark.parametrize("name", [n for n in ALL_13 if n not in INFO.dtypes(device=NARROW)])
def test_every_omitted_dtype_raises_naming_the_device(name):
    d, on = D(name), NARROW
    makers = [
        lambda: xp.zeros(2, dtype=d, device=on), lambda: xp.ones((2, 2), dtype=d, device=on),
        lambda: xp.empty(2, dtype=d, device=on), lambda: xp.full(2, 1, dtype=d, device=on),
        lambda: xp.eye(3, dtype=d, device=on), lambda: xp.asarray([1, 0], dtype=d, device=on),
        lambda: xp.zeros_like(xp.ones(2, device=on), dtype=d),
        lambda: xp.astype(xp.ones(2, device=on), d),
        lambda: xp.asarray(np.zeros(2, dtype=name), device=on),
    ]
    if d.kind in "iuf":
        makers.append(lambda: xp.arange(3, dtype=d, device=on))
    if d.kind in "fc":
        makers.append(lambda: xp.linspace(0, 1, 3, dtype=d, device=on))
    for make in makers:
        with pytest.raises(TypeError, match="not supported on") as e:
            make()
        assert repr(NARROW) in str(e.value)
