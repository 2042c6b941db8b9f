"""The int64/uint64 WGSL helpers on their own, through raw kernels on the native executor,
against Python's exact integers (wrapped modulo 2**64) and NumPy's conversions."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, strategies as st

from webarray.executors.native import NativeExecutor
from webarray.kernels import wgsl_int64  # noqa: F401  (registers the helpers)
from webarray.kernels.wgsl_lib import helpers_for

M64 = (1 << 64) - 1
I64 = st.integers(-(1 << 63), (1 << 63) - 1)
U64 = st.integers(0, M64)
EDGE_I64 = st.sampled_from([0, 1, -1, 2, -2, (1 << 63) - 1, -(1 << 63), 1 << 32, -(1 << 32), (1 << 32) - 1, 63, 64, 65])


@pytest.fixture(scope="module")
def ex():
    return NativeExecutor()


def _run(ex, body: str, args: list[list[int]], out_words: int, n: int) -> list[int]:
    decl = "@group(0) @binding(0) var<storage, read> U: array<u32>;\n"
    for k in range(len(args)):
        decl += f"@group(0) @binding({k + 1}) var<storage, read> A{k}: array<u32>;\n"
    decl += f"@group(0) @binding({len(args) + 1}) var<storage, read_write> O: array<u32>;\n"
    loads = "".join(f"    let a{k} = vec2<u32>(A{k}[2u * i], A{k}[2u * i + 1u]);\n" for k in range(len(args)))
    main = (
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
        "    let i = g.x;\n    if (i >= U[0]) { return; }\n" + loads + body + "\n}\n"
    )
    src = decl + helpers_for(main) + main
    kid = ex.compile(src)
    handles = []
    for a in args:
        h = ex.alloc(16 * n)
        ex.write(h, 0, b"".join(struct.pack("<Q", v & M64) for v in a))
        handles.append(h)
    out = ex.alloc(4 * out_words * n + 16)
    ex.dispatch(kid, handles + [out], struct.pack("<I", n), (-(-n // 64), 1, 1))
    raw = ex.read(out, 0, 4 * out_words * n)
    for h in handles + [out]:
        ex.free(h)
    return list(struct.unpack(f"<{out_words * n}I", raw))


def _pairs(words):
    return [words[2 * i] | (words[2 * i + 1] << 32) for i in range(len(words) // 2)]


def _signed(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


BINARY = {
    "wa_add64": lambda a, b: a + b,
    "wa_sub64": lambda a, b: a - b,
    "wa_mul64": lambda a, b: a * b,
    "wa_floordiv_i64": lambda a, b: 0 if b == 0 else _signed(a) // _signed(b) if not (_signed(a) == -(1 << 63) and _signed(b) == -1) else -(1 << 63),
    "wa_rem_i64": lambda a, b: 0 if b == 0 else _signed(a) % _signed(b),
    "wa_div_u64": lambda a, b: 0 if b & M64 == 0 else (a & M64) // (b & M64),
    "wa_rem_u64": lambda a, b: 0 if b & M64 == 0 else (a & M64) % (b & M64),
    "wa_max_i64": lambda a, b: max(_signed(a), _signed(b)),
    "wa_min_u64": lambda a, b: min(a & M64, b & M64),
}


@pytest.mark.parametrize("fn", sorted(BINARY))
@given(st.lists(st.tuples(st.one_of(I64, EDGE_I64), st.one_of(I64, EDGE_I64)), min_size=1, max_size=40))
def test_binary(ex, fn, pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    got = _pairs(_run(ex, f"    let r = {fn}(a0, a1);\n    O[2u * i] = r.x; O[2u * i + 1u] = r.y;", [a, b], 2, len(a)))
    want = [BINARY[fn](x, y) & M64 for x, y in zip(a, b)]
    assert got == want


@given(st.lists(st.tuples(st.one_of(I64, EDGE_I64), st.integers(0, 70)), min_size=1, max_size=40))
def test_shifts_and_pow(ex, pairs):
    a = [p[0] for p in pairs]
    s = [p[1] for p in pairs]
    body = ("    let l = wa_shl64(a0, a1); let r = wa_shr_i64(a0, a1); let q = wa_shr_u64(a0, a1);\n"
            "    let p = wa_pow_i64(a0, vec2<u32>(a1.x % 5u, 0u));\n"
            "    O[8u*i] = l.x; O[8u*i+1u] = l.y; O[8u*i+2u] = r.x; O[8u*i+3u] = r.y;\n"
            "    O[8u*i+4u] = q.x; O[8u*i+5u] = q.y; O[8u*i+6u] = p.x; O[8u*i+7u] = p.y;")
    words = _run(ex, body, [a, s], 8, len(a))
    for k, (x, c) in enumerate(zip(a, s)):
        got = _pairs(words[8 * k: 8 * k + 8])
        assert got[0] == ((x << c) & M64 if c < 64 else 0)
        assert _signed(got[1]) == (x >> min(c, 63))
        assert got[2] == ((x & M64) >> c if c < 64 else 0)
        assert got[3] == (x ** (c % 5)) & M64


@given(st.lists(st.one_of(I64, EDGE_I64, st.integers(-(1 << 25), 1 << 25)), min_size=1, max_size=60))
def test_to_float32_is_correctly_rounded(ex, values):
    body = ("    O[2u * i] = bitcast<u32>(wa_i64_to_f32(a0));\n"
            "    O[2u * i + 1u] = bitcast<u32>(wa_u64_to_f32(a0));")
    words = _run(ex, body, [values], 2, len(values))
    got_i = np.array(words[0::2], np.uint32).view(np.float32)
    got_u = np.array(words[1::2], np.uint32).view(np.float32)
    np.testing.assert_array_equal(got_i, np.array(values, np.int64).astype(np.float32))
    np.testing.assert_array_equal(got_u, np.array([v & M64 for v in values], np.uint64).astype(np.float32))


@given(st.lists(st.floats(-float(2**62), float(2**62), width=32), min_size=1, max_size=60))
def test_from_float32_truncates(ex, values):
    bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in values]
    body = "    let r = wa_f32_to_i64(bitcast<f32>(a0.x));\n    O[2u * i] = r.x; O[2u * i + 1u] = r.y;"
    got = _pairs(_run(ex, body, [bits], 2, len(bits)))
    want = [int(np.float32(v)) & M64 for v in values]
    assert got == want
