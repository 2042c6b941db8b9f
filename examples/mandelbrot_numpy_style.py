"""The Mandelbrot set in NumPy style: the same function runs on NumPy and on CuPy (here
webarray.cupy; with real CuPy, change only the import).

    python examples/mandelbrot_numpy_style.py [--size 1024] [--iters 500]
    python -m webarray.browser run examples/mandelbrot_numpy_style.py -- --size 256

It computes the escape counts on the GPU, times them, and (where NumPy is installed)
computes them again with NumPy from the same grid and checks that the images are
identical. It prints one line ``mandelbrot-numpy-style size=... checksum=...`` that the
tests compare.
"""

from __future__ import annotations

import argparse
import time

import webarray.cupy as cp


def mandelbrot(real, imag, max_iter):
    """Escape counts of c = real + i*imag, by whole-array steps."""
    xp = cp.get_array_module(real)
    zr = xp.zeros_like(real)
    zi = xp.zeros_like(imag)
    counts = xp.zeros(real.shape, dtype=xp.int32)
    for _ in range(max_iter):
        zr2 = zr * zr
        zi2 = zi * zi
        alive = zr2 + zi2 <= 4.0
        counts += alive
        zi, zr = (xp.where(alive, 2.0 * zr * zi + imag, zi),
                  xp.where(alive, zr2 - zi2 + real, zr))
    return counts


def grid(xp, size):
    """The points of the image, float32 (the device's float; NumPy gets the same values)."""
    x = xp.linspace(-2.0, 0.6, size, dtype=xp.float32)
    y = xp.linspace(-1.3, 1.3, size, dtype=xp.float32)
    return xp.meshgrid(x, y)


def checksum(counts) -> int:
    """A position-weighted sum of the counts, wrapping in uint32 (which every backend has,
    WebGL2 included), the same for equal images on every backend."""
    xp = cp.get_array_module(counts)
    weights = xp.arange(counts.size, dtype=xp.uint32) % 1009 + 1
    return int((counts.reshape(-1).astype(xp.uint32) * weights).sum(dtype=xp.uint32))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--iters", type=int, default=500)
    p.add_argument("--no-numpy", action="store_true", help="skip the NumPy comparison")
    args = p.parse_args(argv)

    real, imag = grid(cp, args.size)
    mandelbrot(real, imag, 2)  # compile the kernels once
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    counts = mandelbrot(real, imag, args.iters)
    cp.cuda.Device().synchronize()
    gpu_s = time.perf_counter() - t0
    total = checksum(counts)
    print(f"mandelbrot-numpy-style size={args.size} iters={args.iters} "
          f"checksum={total} gpu_seconds={gpu_s:.4f}")

    if not args.no_numpy:
        try:
            import numpy as np
        except ImportError:
            print("NumPy is not installed: comparison skipped")
            return 0
        real_np, imag_np = cp.asnumpy(real), cp.asnumpy(imag)
        t0 = time.perf_counter()
        ref = mandelbrot(real_np, imag_np, args.iters)
        np_s = time.perf_counter() - t0
        same = bool(np.array_equal(cp.asnumpy(counts), ref))
        print(f"numpy_seconds={np_s:.4f} identical={same}")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
