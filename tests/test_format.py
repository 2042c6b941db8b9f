"""Printed arrays read exactly as NumPy prints the same values and dtype.

``print(xp.asarray([60.0, 10.0, 100.0]))`` showed ``[6e+01, 1e+01, 1e+02]`` and a 2-D
CuPy-layer array printed on one line without its float32 dtype. ``webarray._format``
now lays values out by NumPy's default print options without NumPy (Pyodide has none):
the CuPy layer's ``repr`` and ``str`` must equal NumPy's character for character, and the
strict Array's repr is NumPy's ``array2string`` inside ``Array(..., dtype=..., device=...)``.
Values are drawn by hypothesis (nan, inf, -0.0, huge, tiny, subnormal, powers of two);
float64 and complex128, which this device cannot hold, are checked on the module alone.
"""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp
import webarray.cupy as cp
from webarray import _dtypes, _format

ROOT = Path(__file__).resolve().parents[1]
BACKEND = xp.asarray(0).device.backend
NAMES = ["float32", "int32", "int64", "uint8", "bool", "complex64"]


def _float32s():
    """float32 values of every kind, and families of nearby magnitudes, so that arrays
    print positional as well as scientific."""
    return st.one_of(
        st.floats(width=32),
        st.integers(-10**6, 10**6).map(float),
        st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-4, 9.999e-5, 1e6,
                         999999.9, 1e16, 3.4028235e38, 1e-45, 1.1754944e-38, 0.1, 0.5]),
        st.tuples(st.integers(-1000, 1000), st.integers(-6, 8)).map(lambda t: t[0] * 10.0 ** t[1]),
        st.integers(-149, 127).map(lambda e: 2.0 ** e),
    ).map(lambda v: struct.unpack("<f", struct.pack("<f", v))[0] if abs(v) < 3.5e38 else v)


def _elements(name: str):
    if name == "float32":
        return _float32s()
    if name == "complex64":
        return st.builds(complex, _float32s(), _float32s())
    if name == "bool":
        return st.booleans()
    info = np.iinfo(name)
    return st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-3, 120).filter(
        lambda v: info.min <= v <= info.max))


def _arrays(max_dims: int = 3, max_side: int = 5):
    return st.sampled_from(NAMES).flatmap(lambda name: hnp.arrays(
        name, hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=max_side),
        elements=_elements(name)))


def _strict_repr(a: np.ndarray) -> str:
    """The strict Array's repr: NumPy's layout, always with the dtype and the device."""
    extras = [f"shape={a.shape}"] if (a.size == 0 and a.shape != (0,)) or a.size > 1000 else []
    extras += [f"dtype={a.dtype.name}", f"device={BACKEND}"]
    head = "Array(" + np.array2string(a, separator=", ", prefix="Array(", suffix=")") + ","
    tail = ", ".join(extras) + ")"
    last_line = len(head) - (head.rfind("\n") + 1)
    return head + ("\n      " if last_line + len(tail) + 1 > 75 else " ") + tail


def _check(a: np.ndarray) -> None:
    c = cp.asarray(a)
    assert c.dtype.name == a.dtype.name
    assert repr(c) == repr(a)
    assert str(c) == str(a)
    x = xp.asarray(a)
    assert repr(x) == _strict_repr(a)
    assert str(x) == repr(x)


def test_issue_examples():
    x = xp.asarray([60.0, 10.0, 100.0])
    assert str(x) == f"Array([ 60.,  10., 100.], dtype=float32, device={BACKEND})"
    c = cp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert repr(c) == "array([[1., 2.],\n       [3., 4.]], dtype=float32)"
    assert str(c) == "[[1. 2.]\n [3. 4.]]"


@given(_arrays())
def test_matches_numpy(a):
    _check(a)


@pytest.mark.parametrize("shape", [(1001,), (3, 400), (2, 3, 200), (50, 100), (7, 7, 7, 7),
                                   (1, 1, 2000), (334, 3)])
@pytest.mark.parametrize("name", NAMES)
def test_summarised_matches_numpy(shape, name):
    rng = np.random.default_rng(sum(shape))
    values = rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 8, size=shape)
    if name == "complex64":
        a = (values + 1j * values[..., ::-1]).astype(name)
    elif name == "bool":
        a = values > 0
    else:
        a = values.astype(np.float32).astype(name) if name == "float32" else (
            values % 250).astype(name)
    _check(a)
    _check(a[..., ::-1])  # a strided view: the edges are gathered through it


def test_summary_reads_only_the_edges(monkeypatch):
    x = xp.reshape(xp.arange(1_000_000, dtype=xp.float32), (1000, 1000))
    executor = x.device.executor
    read = executor.read
    seen = []

    def counting(handle, offset, size):
        seen.append(size)
        return read(handle, offset, size)

    monkeypatch.setattr(executor, "read", counting)
    text = repr(x)
    assert "..." in text and "1.e+06" not in text
    assert sum(seen) <= 36 * 4  # the 6 x 6 corner elements, one readback


@given(st.sampled_from(["float32", "float64"]).flatmap(lambda name: hnp.arrays(
    name, hnp.array_shapes(min_dims=0, max_dims=2, max_side=6),
    elements=st.floats(width=32 if name == "float32" else 64))))
@settings(max_examples=300)
def test_float_layout_on_raw_bits(a):
    """The digit generation on every bit pattern hypothesis likes (subnormals, powers of
    two, float64, which the device cannot hold), through the module alone."""
    dtype = _dtypes.by_name[a.dtype.name]
    assert _format.array_repr(a.ravel().tolist(), a.shape, dtype) == repr(a)
    assert _format.array_str(a.ravel().tolist(), a.shape, dtype) == str(a)


@given(st.sampled_from(["complex64", "complex128"]).flatmap(lambda name: hnp.arrays(
    name, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4))))
@settings(max_examples=150)
def test_complex_layout(a):
    dtype = _dtypes.by_name[a.dtype.name]
    assert _format.array_repr(a.ravel().tolist(), a.shape, dtype) == repr(a)
    assert _format.array_str(a.ravel().tolist(), a.shape, dtype) == str(a)


def test_works_without_numpy():
    """Pyodide here has no NumPy: printing must not need it."""
    a = np.array([[0.5, -np.inf, 1e-7], [np.nan, 3.0, -0.0]], dtype=np.float32)
    script = (
        "import sys; sys.modules['numpy'] = None\n"
        "import webarray as xp, webarray.cupy as cp\n"
        "v = [[0.5, -float('inf'), 1e-7], [float('nan'), 3.0, -0.0]]\n"
        "print(repr(cp.asarray(v)) + '|' + str(cp.asarray(v)) + '|' + repr(xp.asarray(v)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip("\n") == f"{repr(a)}|{str(a)}|{_strict_repr(a)}"
