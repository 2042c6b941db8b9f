"""WGSL for whole-array user kernels (specs/raw.py): one compute shader, a thread per element."""

from __future__ import annotations

import re

from ..grid import fold
from ..specs.raw import RawSpec, call
from ..wgsl_lib import helpers_for

WORKGROUP = 64


def _read(reg: str, ref: str) -> str:
    return f"({ref} != 0i)" if reg == "bool" else ref


def _write(reg: str, text: str) -> str:
    return f"select(0i, 1i, {text})" if reg == "bool" else text


def generate(spec: RawSpec) -> str:
    """Invocation e computes element e of every output; raw parameters are no arguments of
    the user function: its body reads r_<name>, which becomes the bound array."""
    fn = spec.fn
    coords, args = call(spec, lambda k: f"P[{k}u]", lambda b, reg, i: _read(reg, f"b{b}[{i}]"))
    decls = [f"@group(0) @binding({k + 1}) var<storage, read_write> b{k + 1}: array<{storage}>;"
             for k, storage in enumerate(spec.storages)]
    src = fn.source("wgsl").replace("U[0] >> 31u", "P[0] >> 31u")
    for ref, k in spec.shape_words:
        src = re.sub(rf"\b{ref}\b", f"bitcast<i32>(P[{k}u])", src)
    for name, b, _ in spec.raws:
        src = src.replace(f"r_{name}[", f"b{b}[")
    stores = "\n".join(f"    b{b}[e] = {_write(reg, f'r.o{k}')};"
                       for k, (b, reg) in enumerate(spec.outputs))
    return "\n".join([
        "@group(0) @binding(0) var<storage, read> P: array<u32>;",
        *decls, helpers_for(src) + src,
        f"@compute @workgroup_size({WORKGROUP})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
        "@builtin(num_workgroups) nw: vec3<u32>) {",
        f"    let e = gid.x + gid.y * nw.x * {WORKGROUP}u;",
        "    if (e >= P[0]) { return; }",
        *coords,
        f"    let r = {fn.name}({', '.join(args)});",
        stores,
        "}",
    ])


def grid(n: int, max_per_dim: int) -> tuple[int, int, int]:
    return fold(-(-n // WORKGROUP), max_per_dim)
