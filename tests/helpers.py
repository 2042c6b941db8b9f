"""Comparison helpers and hypothesis strategies shared by the test modules.

Arrays are drawn as NumPy arrays (the reference), moved to webarray, and often viewed
non-contiguously (reversed, strided, transposed, broadcast) on both sides identically,
so every kernel is exercised through its strided path too.
"""

from __future__ import annotations


import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import webarray as xp

DTYPES = {
    "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "float32": np.float32,
}
INT_NAMES = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]
FLOAT_NAMES = ["float32"]
NUMERIC_NAMES = INT_NAMES + FLOAT_NAMES
# the one-word dtypes that the generic tests draw values of
ALL_NAMES = ["bool"] + NUMERIC_NAMES
# the two-word dtypes; tests/test_wide_dtypes.py draws their values
WIDE_NAMES = ["int64", "uint64", "complex64"]
ALL_13 = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
]
# what the default device lists, and the standard's dtypes it does not: tests of dtype
# errors and of the dtype functions read these, so they stay true as dtypes are added
SUPPORTED_NAMES = [n for n in ALL_13 if n in xp.__array_namespace_info__().dtypes()]
UNSUPPORTED_NAMES = [n for n in ALL_13 if n not in SUPPORTED_NAMES]

# edge values the standard's special cases talk about
FLOAT_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0,
               np.finfo(np.float32).max, -np.finfo(np.float32).max,
               np.finfo(np.float32).tiny, 1e-45, np.pi, 100.0, -100.0]


def wa_dtype(name: str):
    return getattr(xp, name)


def to_wa(a: np.ndarray):
    return xp.asarray(a)


def to_np(x) -> np.ndarray:
    return np.asarray(x)


def elements(name: str, edges: bool = True):
    dtype = np.dtype(name)
    if name == "bool":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(int(info.min), int(info.max))
    if dtype.kind == "c":
        part = elements("float32", edges)
        return st.builds(complex, part, part)
    finite = st.floats(width=32, allow_nan=False, allow_infinity=False)
    if not edges:
        return finite
    return st.one_of(finite, st.sampled_from(FLOAT_EDGES).map(np.float32))


def few_values(name: str):
    """A handful of values per dtype, so that draws are full of ties and edge values."""
    dtype = np.dtype(DTYPES[name])
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "f":
        return st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5])
    info = np.iinfo(dtype)
    return st.sampled_from([int(info.min), int(info.max), 0, 1, 7])


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=6):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def arrays(name: str, shape, edges: bool = True, elements_strategy=None):
    if elements_strategy is None:
        elements_strategy = elements(name, edges)
    return hnp.arrays(DTYPES[name], shape, elements=elements_strategy)


@st.composite
def views(draw, name: str, shape=None, edges: bool = True, elements_strategy=None):
    """(numpy array, webarray array) with equal values; the webarray side may be a view."""
    if shape is None:
        shape = draw(shapes())
    kind = draw(st.sampled_from(["plain", "reversed", "strided", "transposed", "offset"]))
    if kind == "plain" or len(shape) == 0:
        a = draw(arrays(name, shape, edges, elements_strategy))
        return a, to_wa(a)
    if kind == "reversed":
        a = draw(arrays(name, shape, edges, elements_strategy))
        idx = tuple(slice(None, None, -1) for _ in shape)
        return a[idx].copy(), to_wa(a)[idx]
    if kind == "strided":
        big = tuple(2 * n for n in shape)
        a = draw(arrays(name, big, edges, elements_strategy))
        idx = tuple(slice(None, None, 2) for _ in shape)
        return a[idx].copy(), to_wa(a)[idx]
    if kind == "offset":
        big = (shape[0] + 1,) + tuple(shape[1:])
        a = draw(arrays(name, big, edges, elements_strategy))
        return a[1:].copy(), to_wa(a)[1:]
    rev = tuple(reversed(shape))
    a = draw(arrays(name, rev, edges, elements_strategy))
    perm = tuple(reversed(range(len(shape))))
    w = to_wa(a)
    from webarray._array_object import Array

    wt = Array._view(w._buf, w.dtype, [w.shape[p] for p in perm], [w._strides[p] for p in perm], w._offset, w.device)
    return np.transpose(a, perm).copy(), wt


def assert_equal(actual, expected, *, rtol: float = 0.0, atol: float = 0.0, ulps: int | None = None):
    """Exact dtype and shape; values equal (NaN == NaN; signed zeros distinguished unless a
    tolerance is given), or within rtol/atol/ulps for floating results."""
    assert isinstance(actual, xp.Array), f"expected a webarray array, got {type(actual)}"
    expected = np.asarray(expected)
    assert actual.dtype == wa_dtype(expected.dtype.name), (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    got = to_np(actual)
    if expected.dtype.kind == "c":
        # complex: each part by the float rules, the tolerance scaled by |expected|
        scale = np.abs(expected.astype(np.complex128))
        for part in ("real", "imag"):
            _assert_floats(getattr(got, part), getattr(expected, part), rtol=0.0,
                           atol=np.nan_to_num(atol + rtol * scale, posinf=0.0), ulps=ulps)
        return
    if expected.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected)
        return
    _assert_floats(got, expected, rtol=rtol, atol=atol, ulps=ulps)


def _assert_floats(got, expected, *, rtol, atol, ulps):
    nan_e, nan_g = np.isnan(expected), np.isnan(got)
    bad = nan_e != nan_g
    assert not bad.any(), f"NaN mismatch at {np.argwhere(bad)[:5].tolist()}: got {got[bad][:5]}, expected {expected[bad][:5]}"
    atol = np.broadcast_to(atol, expected.shape)[~nan_e]
    e, g = expected[~nan_e], got[~nan_e]
    inf = np.isinf(e)
    assert (g[inf] == e[inf]).all(), f"inf mismatch: got {g[inf][:5]}, expected {e[inf][:5]}"
    atol = atol[~inf]
    e, g = e[~inf].astype(np.float64), g[~inf].astype(np.float64)
    if ulps is None and rtol == 0 and not np.any(atol):
        np.testing.assert_array_equal(np.signbit(g), np.signbit(e), err_msg="signed zero / sign mismatch")
        np.testing.assert_array_equal(g, e)
        return
    tol = atol + rtol * np.abs(e)
    if ulps is not None:
        with np.errstate(over="ignore"):
            spacing = np.spacing(np.abs(e).astype(np.float32)).astype(np.float64)
        # np.spacing(float32 max) is inf; the step below it is 2**104
        spacing = np.where(np.isinf(spacing), 2.0 ** 104, spacing)
        tol = np.maximum(tol, ulps * spacing)
    err = np.abs(g - e)
    worst = int(np.argmax(err - tol)) if err.size else 0
    assert (err <= tol).all(), f"value mismatch: got {g[worst]!r}, expected {e[worst]!r} (err {err[worst]:.3g}, tol {tol[worst]:.3g})"


def launches_during(fn):
    """fn's result and how many elementwise kernels it dispatched (``launch.launches``)."""
    from webarray._core import launch
    before = launch.launches
    out = fn()
    return out, launch.launches - before


def check_switch(tmp_path, variable: str, value: str, script: str, printed: str,
                 refused: str | None = None, message: str | None = None, unset=()) -> None:
    """An environment switch read once, at import: ``script`` run in a fresh interpreter with
    ``variable=value`` (and ``unset`` removed) prints ``printed``; with ``variable=refused``
    ``import webarray`` fails saying ``message``."""
    import os
    import subprocess
    import sys

    path = tmp_path / f"{variable.lower()}.py"
    path.write_text(script)
    env = dict(os.environ, **{variable: value})
    for name in unset:
        env.pop(name, None)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0 and printed in r.stdout, r.stdout + r.stderr
    if refused is not None:
        env[variable] = refused
        r = subprocess.run([sys.executable, "-c", "import webarray"], capture_output=True,
                           text=True, env=env, timeout=300)
        assert r.returncode != 0 and message in r.stderr, r.stderr[-2000:]
