"""Accuracy of webarray's floating-point elementwise functions, in float32 ULPs.

Every function runs on the device over about 10^6 float32 points per range and is compared
with NumPy evaluated in float64 on the same (exactly widened) points. The error of one point
is |result - reference| divided by the float32 ULP at the reference (the spacing of float32
numbers at |reference|, so a subnormal reference has the subnormal spacing). A point whose
reference is NaN or infinite must give exactly that; otherwise it is counted as *wrong*
(and its error as infinite). NumPy's own float32 loops are measured the same way, for scale.
Prints a Markdown table (the one in docs/accuracy.md).

    XDG_RUNTIME_DIR=/tmp python3 benchmarks/accuracy.py [--points N] [--seed S] [--worst] [FUNC ...]

With ``--browser`` the functions run in headless Chromium instead (Pyodide on WebGPU, through
``python -m webarray.browser run``; SwiftShader where there is no GPU), on the same points
(20000 per range unless --points says otherwise); the errors are computed here.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import webarray as xp

F32_MAX = float(np.finfo(np.float32).max)


# -- samplers: each takes (rng, n) and returns float32 values (or pairs of them) ------------


def uniform(lo: float, hi: float):
    def draw(rng, n):
        return rng.uniform(lo, hi, n).astype(np.float32)

    draw.label = f"[{_fmt(lo)}, {_fmt(hi)}]"
    return draw


def magnitudes(lo_exp: float, hi_exp: float, signs: str = "+-"):
    """±10**u with u uniform in [lo_exp, hi_exp]: every binade of the range equally often."""

    def draw(rng, n):
        m = 10.0 ** rng.uniform(lo_exp, hi_exp, n)
        if signs == "+-":
            m *= rng.choice([-1.0, 1.0], n)
        elif signs == "-":
            m = -m
        return np.clip(m, -F32_MAX, F32_MAX).astype(np.float32)

    s = {"+": "", "-": "-", "+-": "±"}[signs]
    draw.label = f"{s}10^[{lo_exp:g}, {hi_exp:g}]"
    return draw


def all_finite():
    """Uniform over the finite float32 bit patterns (so mostly huge and tiny numbers)."""

    def draw(rng, n):
        out = np.empty(0, np.float32)
        while out.size < n:
            v = rng.integers(0, 2**32, 2 * n, dtype=np.uint64).astype(np.uint32).view(np.float32)
            out = np.concatenate([out, v[np.isfinite(v)]])
        return out[:n]

    draw.label = "all finite float32"
    return draw


def pairs(first, second):
    def draw(rng, n):
        return first(rng, n), second(rng, n)

    draw.label = f"{first.label} × {second.label}"
    return draw


def integers(lo: int, hi: int):
    def draw(rng, n):
        return rng.integers(lo, hi + 1, n).astype(np.float32)

    draw.label = f"integers in [{lo}, {hi}]"
    return draw


def _fmt(v: float) -> str:
    if v in (math.pi, -math.pi):
        return "-π" if v < 0 else "π"
    return f"{v:g}"


def _quiet(f):
    # NumPy warns about domain errors and overflow, which the measurement wants to see
    def ref(*a):
        with np.errstate(all="ignore"):
            return f(*a)

    return ref


# Each function: (NumPy reference taking float64, [sampler per measured range]).
# The first range is the core range of the function, the next ones stress it.
PI = math.pi
WIDE = magnitudes(-38, 38.5)
FUNCS = {
    "sqrt": (np.sqrt, [uniform(0, 100), magnitudes(-45, 38.5, "+")]),
    "divide": (np.divide, [pairs(uniform(-100, 100), uniform(-100, 100)), pairs(WIDE, WIDE)]),
    "reciprocal": (np.reciprocal, [uniform(-100, 100), WIDE]),
    "exp": (np.exp, [uniform(-10, 10), uniform(-104, 89)]),
    "expm1": (np.expm1, [uniform(-1, 1), uniform(-20, 89), magnitudes(-38, 0)]),
    "log": (np.log, [uniform(0.5, 2), magnitudes(-45, 38.5, "+")]),
    "log1p": (np.log1p, [uniform(-0.5, 1), magnitudes(-38, 38.5, "+"), magnitudes(-38, 0, "-")]),
    "log2": (np.log2, [uniform(0.5, 2), magnitudes(-45, 38.5, "+")]),
    "log10": (np.log10, [uniform(0.5, 2), magnitudes(-45, 38.5, "+")]),
    "sin": (np.sin, [uniform(-PI, PI), uniform(-1e4, 1e4), WIDE]),
    "cos": (np.cos, [uniform(-PI, PI), uniform(-1e4, 1e4), WIDE]),
    "tan": (np.tan, [uniform(-PI / 2, PI / 2), uniform(-1e4, 1e4), WIDE]),
    "asin": (np.arcsin, [uniform(-1, 1), magnitudes(-38, 0)]),
    "acos": (np.arccos, [uniform(-1, 1), magnitudes(-38, 0)]),
    "atan": (np.arctan, [uniform(-4, 4), WIDE]),
    "sinh": (np.sinh, [uniform(-10, 10), uniform(-90, 90), magnitudes(-38, 0)]),
    "cosh": (np.cosh, [uniform(-10, 10), uniform(-90, 90)]),
    "tanh": (np.tanh, [uniform(-5, 5), magnitudes(-38, 1.5)]),
    "asinh": (np.arcsinh, [uniform(-10, 10), WIDE]),
    "acosh": (np.arccosh, [uniform(1, 10), magnitudes(0, 38.5, "+")]),
    "atanh": (np.arctanh, [uniform(-1, 1), magnitudes(-38, 0)]),
    "atan2": (np.arctan2, [pairs(uniform(-10, 10), uniform(-10, 10)), pairs(WIDE, WIDE)]),
    "hypot": (np.hypot, [pairs(uniform(-100, 100), uniform(-100, 100)), pairs(WIDE, WIDE)]),
    "logaddexp": (np.logaddexp, [pairs(uniform(-20, 20), uniform(-20, 20)),
                                 pairs(uniform(-100, 100), uniform(-100, 100)),
                                 pairs(WIDE, WIDE)]),
    "pow": (np.power, [pairs(uniform(0, 10), uniform(-10, 10)),
                       pairs(magnitudes(-38, 38.5, "+"), uniform(-4, 4)),
                       pairs(uniform(0.9, 1.1), uniform(-1000, 1000)),
                       pairs(magnitudes(-3, 3, "-"), integers(-30, 30))]),
}


ALL_FINITE = all_finite()


def ulp32(ref: np.ndarray) -> np.ndarray:
    """The float32 ULP at |ref| (float64, at most the float32 maximum): the spacing above
    the float32 nearest to |ref|, or below the largest float32 (above it there is none)."""
    r = np.minimum(np.abs(ref), F32_MAX).astype(np.float32)
    with np.errstate(over="ignore"):
        return np.where(r == np.float32(F32_MAX), 2.0**104, np.spacing(r).astype(np.float64))


def ulp_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per-point error in float32 ULPs; inf where a NaN or infinity is not matched."""
    got = got.astype(np.float64)
    err = np.full(got.shape, np.inf)
    nan_r, nan_g = np.isnan(ref), np.isnan(got)
    err[nan_r & nan_g] = 0.0
    # a reference beyond the float32 range must round to ±inf (or to ±max within 1 ULP)
    big = ~nan_r & (np.abs(ref) > F32_MAX)
    ok_big = big & (np.sign(got) == np.sign(ref)) & (np.abs(got) >= F32_MAX)
    err[ok_big] = np.where(np.isinf(got[ok_big]), 0.0, 1.0)
    fin = ~nan_r & ~big & ~nan_g & np.isfinite(got)
    err[fin] = np.abs(got[fin] - ref[fin]) / ulp32(ref[fin])
    return err


def on_this_device(name: str, args) -> np.ndarray:
    return np.asarray(getattr(xp, name)(*(xp.asarray(a) for a in args)))


_BROWSER_SCRIPT = """
import array, json, struct
import webarray as xp

layout = json.load(open("layout.json"))
data = open("points.bin", "rb").read()
for k, (name, arg_bytes) in enumerate(layout):
    args = []
    for size in arg_bytes:
        args.append(xp.asarray(array.array("f", data[:size]).tolist(), dtype=xp.float32))
        data = data[size:]
    values = getattr(xp, name)(*args)._host_flat()
    print("RESULT", k, struct.pack("<%df" % len(values), *values).hex(), flush=True)
"""


def in_the_browser(jobs, timeout: int = 1800) -> list[np.ndarray]:
    """The results of jobs [(function name, float32 arguments)] computed in headless Chromium
    (python -m webarray.browser run; Pyodide has no NumPy, so values travel as bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "script.py").write_text(_BROWSER_SCRIPT)
        layout = [(name, [a.nbytes for a in args]) for name, args in jobs]
        (tmp / "layout.json").write_text(json.dumps(layout))
        (tmp / "points.bin").write_bytes(b"".join(a.tobytes() for _, args in jobs for a in args))
        cmd = [sys.executable, "-m", "webarray.browser", "run", str(tmp / "script.py"),
               "--file", str(tmp / "layout.json"), "--file", str(tmp / "points.bin"),
               "--timeout", str(timeout)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 120)
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            _, k, hexed = line.split()
            results[int(k)] = np.frombuffer(bytes.fromhex(hexed), dtype="<f4")
    if proc.returncode != 0 or len(results) != len(jobs):
        raise RuntimeError(f"the browser run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return [results[k] for k in range(len(jobs))]


def draw(sampler, n: int, rng) -> tuple:
    drawn = sampler(rng, n)
    return drawn if isinstance(drawn, tuple) else (drawn,)


F32_TINY = float(np.finfo(np.float32).tiny)


def subnormal(v: np.ndarray) -> np.ndarray:
    return (v != 0) & (np.abs(v) < F32_TINY)


def measure(ref, args, got) -> dict:
    want = ref(*(a.astype(np.float64) for a in args))
    err = ulp_errors(got, want)
    worst = int(np.argmax(err))
    # devices may flush subnormals (WGSL allows it): the error where no argument and no
    # result is subnormal, separately
    normal = ~subnormal(want)
    for a in args:
        normal &= ~subnormal(a)
    with np.errstate(all="ignore"):
        numpy32 = ulp_errors(np.asarray(ref(*args)), want)
    return {
        "max": float(err[worst]),
        "normal": float(err[normal].max()) if normal.any() else 0.0,
        "numpy": float(numpy32.max()),
        "wrong": int(np.isinf(err).sum()),
        "at": tuple(float(a[worst]) for a in args),
        "got": float(got[worst]),
        "want": float(want[worst]),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("funcs", nargs="*", help="functions to measure (default: all)")
    p.add_argument("--points", type=int, help="points per range (default 10^6; 20000 with --browser)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worst", action="store_true", help="also print the worst point per range")
    p.add_argument("--browser", action="store_true",
                   help="run the functions in headless Chromium (WebGPU) instead of here")
    opts = p.parse_args(argv)
    names = opts.funcs or list(FUNCS)
    points = opts.points or (20_000 if opts.browser else 1_000_000)
    def rows():
        for name in names:
            ref, ranges = FUNCS[name]
            binary = isinstance(ranges[0](np.random.default_rng(0), 1), tuple)
            extra = pairs(ALL_FINITE, ALL_FINITE) if binary else ALL_FINITE
            for k, sampler in enumerate(ranges + [extra]):
                rng = np.random.default_rng([opts.seed, k, sum(map(ord, name))])
                yield name, _quiet(ref), sampler, draw(sampler, points, rng)

    t0 = time.time()
    if opts.browser:
        where = "headless Chromium (WebGPU)"
        todo = list(rows())
        results = iter(in_the_browser([(name, args) for name, _, _, args in todo]))
        measured = ((row, next(results)) for row in todo)
    else:
        where = repr(xp.__array_namespace_info__().default_device())
        measured = ((row, on_this_device(row[0], row[3])) for row in rows())
    print(f"device: {where}; NumPy {np.__version__}; {points} points per range, seed {opts.seed}\n")
    print("| function | range | max ULP | max ULP, no subnormals | wrong | NumPy float32 max ULP |")
    print("|---|---|---:|---:|---:|---:|")
    for (name, ref, sampler, args), got in measured:
        r = measure(ref, args, got)
        mx, nx, npx = (("∞" if math.isinf(v) else f"{v:.3g}" if v >= 100 else f"{v:.2f}")
                       for v in (r["max"], r["normal"], r["numpy"]))
        print(f"| {name} | {sampler.label} | {mx} | {nx} | {r['wrong']} | {npx} |")
        if opts.worst:
            print(f"|  | worst at {r['at']}: got {r['got']!r}, want {r['want']!r} | | | | |")
    print(f"\n({time.time() - t0:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
