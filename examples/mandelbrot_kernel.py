"""The Mandelbrot set with a custom ElementwiseKernel, in the body form the device speaks.

    python examples/mandelbrot_kernel.py [--size 1024] [--iters 500] [--form auto|c|wgsl|glsl]
    python -m webarray.browser run examples/mandelbrot_kernel.py -- --size 256

``--form auto`` takes WGSL on WebGPU (and natively) and GLSL on WebGL2; ``c`` is CuPy's own
form (``float32`` parameters, C-like body), which runs unchanged on real CuPy too. Every
form is translated to the device's shader language. Where NumPy is installed, the counts
are checked against the NumPy-style loop of ``mandelbrot_numpy_style.py`` on the same
grid. Prints ``mandelbrot-kernel form=... size=... checksum=...``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import webarray.cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mandelbrot_numpy_style import checksum, grid, mandelbrot  # noqa: E402

BODIES = {
    # CuPy's form: NumPy dtype names for the parameters, a C-like body
    "c": ("float32 re, float32 im, int32 max_iter", "int32 count", """
        float zr = 0.0f, zi = 0.0f;
        int k;
        for (k = 0; k < max_iter; k++) {
            float zr2 = zr * zr, zi2 = zi * zi;
            if (zr2 + zi2 > 4.0f) break;
            zi = 2.0f * zr * zi + im;
            zr = zr2 - zi2 + re;
        }
        count = k;
    """),
    # WGSL: WGSL types and statements
    "wgsl": ("f32 re, f32 im, i32 max_iter", "i32 count", """
        var zr = 0.0;
        var zi = 0.0;
        var k: i32 = 0;
        loop {
            if k >= max_iter { break; }
            let zr2 = zr * zr;
            let zi2 = zi * zi;
            if zr2 + zi2 > 4.0 { break; }
            zi = 2.0 * zr * zi + im;
            zr = zr2 - zi2 + re;
            k += 1;
        }
        count = k;
    """),
    # GLSL ES 3.00: GLSL types and statements
    "glsl": ("float re, float im, int max_iter", "int count", """
        float zr = 0.0;
        float zi = 0.0;
        int k = 0;
        while (k < max_iter) {
            float zr2 = zr * zr;
            float zi2 = zi * zi;
            if (zr2 + zi2 > 4.0) break;
            zi = 2.0 * zr * zi + im;
            zr = zr2 - zi2 + re;
            k++;
        }
        count = k;
    """),
}


def make_kernel(form: str):
    in_params, out_params, body = BODIES[form]
    return cp.ElementwiseKernel(in_params, out_params, body, f"mandelbrot_{form}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--iters", type=int, default=500)
    p.add_argument("--form", choices=["auto", "c", "wgsl", "glsl"], default="auto")
    p.add_argument("--no-numpy", action="store_true", help="skip the NumPy comparison")
    args = p.parse_args(argv)
    form = args.form
    if form == "auto":
        form = "glsl" if cp.cuda.Device().backend == "webgl2" else "wgsl"

    kernel = make_kernel(form)
    real, imag = grid(cp, args.size)
    kernel(real, imag, 1)  # compile once
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    counts = kernel(real, imag, args.iters)
    cp.cuda.Device().synchronize()
    gpu_s = time.perf_counter() - t0
    print(f"mandelbrot-kernel form={form} size={args.size} iters={args.iters} "
          f"checksum={checksum(counts)} gpu_seconds={gpu_s:.4f}")

    if not args.no_numpy:
        try:
            import numpy as np
        except ImportError:
            print("NumPy is not installed: comparison skipped")
            return 0
        ref = mandelbrot(cp.asnumpy(real), cp.asnumpy(imag), args.iters)
        same = bool(np.array_equal(cp.asnumpy(counts), ref))
        print(f"identical={same}")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
