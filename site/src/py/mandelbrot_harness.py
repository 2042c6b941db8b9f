# The Mandelbrot page's side in Pyodide: runs the repository's examples as they are.
# Their files are written next to each other (mandelbrot_kernel.py imports grid() and
# the NumPy-style loop from mandelbrot_numpy_style.py) and imported as modules; the
# counts come back as int32 bytes with the time of each run.
import importlib
import os
import sys
import time

_SITE_EXAMPLES = "/home/pyodide/examples"


def _site_mandelbrot(files, variant, size, max_iter, repeat):
    os.makedirs(_SITE_EXAMPLES, exist_ok=True)
    for name, source in files.items():
        with open(os.path.join(_SITE_EXAMPLES, name), "w") as f:
            f.write(source)
    if _SITE_EXAMPLES not in sys.path:
        sys.path.insert(0, _SITE_EXAMPLES)
    importlib.invalidate_caches()

    import webarray.cupy as cp

    plain = importlib.import_module("mandelbrot_numpy_style")
    real, imag = plain.grid(cp, size)
    form = None
    if variant == "kernel":
        # as the example's main() picks it: the device's own shader language
        form = "glsl" if cp.cuda.Device().backend == "webgl2" else "wgsl"
        kernel = importlib.import_module("mandelbrot_kernel").make_kernel(form)

        def run():
            return kernel(real, imag, max_iter)
    else:
        def run():
            return plain.mandelbrot(real, imag, max_iter)

    times = []
    raw = b""
    for _ in range(repeat):
        t0 = time.perf_counter()
        counts = run()
        if counts.dtype != cp.int32:
            counts = counts.astype(cp.int32)
        raw = counts.tobytes()  # the blocking readback: the time includes all GPU work
        times.append((time.perf_counter() - t0) * 1e3)
    return {"counts": raw, "ms": times, "form": form}
