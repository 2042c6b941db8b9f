"""The two Mandelbrot examples of webarray.cupy, timed natively and in the browser.

    python -m benchmarks.mandelbrot                    # 1024x1024, 500 iterations
    python -m benchmarks.mandelbrot --quick            # 256x256, 100 iterations
    python -m benchmarks.mandelbrot --no-browser

Rows: the NumPy-style function (examples/mandelbrot_numpy_style.py: one whole-array step
per iteration, fused by the lazy graph; and the same function under ``cupy.fuse``, that is
``webarray.jit``: its kernels recorded once, then replayed) and the custom ElementwiseKernel
(examples/mandelbrot_kernel.py: one thread per pixel, in its C-like, WGSL and GLSL
forms), on the native device (wgpu), in headless Chromium on WebGPU and on WebGL2
(``python -m webarray.browser run``), next to NumPy on the CPU (and CuPy where a CUDA
GPU is present, with the C-like kernel, which is CuPy's own form). Times are of the
computation alone, kernels compiled first, per call over rounds that end with a device
sync (fast kernels are repeated so the sync does not dominate); each row also says
whether its image is identical to NumPy's (by the examples' checksum, computed from the
same float32 grid). Native times are the median of ``--rounds`` runs; a browser row is one
run of the example script (its own timing, start-up excluded).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

from . import _common as c

EXAMPLES = c.ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))


def _time(fn, sync, rounds: int, target_s: float = 0.3) -> float:
    """Seconds per call: the median of ``rounds`` rounds, each of enough calls to last about
    target_s (so that the closing sync, a blocking readback, does not count for a fast
    kernel), after a warm-up call that compiles the kernels and one that sizes the rounds."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    once = time.perf_counter() - t0
    iters = max(1, min(1000, round(target_s / max(once, 1e-6))))
    # an untimed round first: a GPU that idled (the host-bound rows) needs time to clock up
    return c.median(c.time_rounds(fn, sync, iters, rounds, warmup=iters))


def _browser(script: str, backend: str, size: int, iters: int, extra=()) -> dict:
    cmd = [sys.executable, "-m", "webarray.browser", "run", str(EXAMPLES / script),
           "--backend", backend, "--file", str(EXAMPLES / "mandelbrot_numpy_style.py"),
           "--timeout", "1500", "--", "--size", str(size), "--iters", str(iters), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=c.ROOT, timeout=1600)
    secs = re.search(r"gpu_seconds=([\d.]+)", r.stdout)
    total = re.search(r"checksum=(\d+)", r.stdout)
    if r.returncode != 0 or not secs or not total:
        tail = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["?"])[-1]
        return {"error": tail[:300]}
    return {"seconds": float(secs.group(1)), "checksum": int(total.group(1))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    c.add_common_args(p, "mandelbrot")
    p.add_argument("--size", type=int, help="pixels per side (default 1024; --quick 256)")
    p.add_argument("--iters", type=int, help="iterations (default 500; --quick 100)")
    p.add_argument("--rounds", type=int, default=3, help="native timing rounds (median)")
    p.add_argument("--no-browser", action="store_true", help="native rows only")
    args = p.parse_args(argv)
    size = args.size or (256 if args.quick else 1024)
    iters = args.iters or (100 if args.quick else 500)
    rounds = 1 if args.quick else args.rounds

    import webarray.cupy as cp
    from mandelbrot_kernel import BODIES, make_kernel
    from mandelbrot_numpy_style import checksum, grid, mandelbrot

    backends, skipped = c.open_backends(args.backends)
    names = {b.name for b in backends}
    rows, results = [], []

    real, imag = grid(cp, size)
    real_np, imag_np = cp.asnumpy(real), cp.asnumpy(imag)
    t_np = _time(lambda: mandelbrot(real_np, imag_np, iters), lambda: None, max(1, rounds))
    ref = checksum(mandelbrot(real_np, imag_np, iters))

    def add(example, where, form, seconds, total, note=""):
        same = None if total is None else total == ref
        results.append({"example": example, "where": where, "form": form,
                        "seconds": seconds, "checksum": total, "identical_to_numpy": same,
                        "note": note})
        rows.append([example, where, form,
                     "-" if seconds is None else f"{seconds * 1e3:.1f}",
                     "-" if seconds is None else f"{t_np / seconds:.2f}",
                     {True: "yes", False: "NO", None: "-"}[same], note])

    add("numpy-style", "numpy (CPU)", "-", t_np, ref)
    if "webarray" in names:
        sync = cp.cuda.Device().synchronize
        out = {}
        t = _time(lambda: out.__setitem__("c", mandelbrot(real, imag, iters)), sync, rounds)
        add("numpy-style", "native", "-", t, checksum(out["c"]))
        traced = cp.fuse(mandelbrot)  # webarray.jit: recorded at the first call, then replayed
        t = _time(lambda: out.__setitem__("c", traced(real, imag, iters)), sync, rounds)
        add("numpy-style", "native", "jit", t, checksum(out["c"]))
        for form in BODIES:
            kern = make_kernel(form)
            t = _time(lambda: out.__setitem__("c", kern(real, imag, iters)), sync, rounds)
            add("kernel", "native", form, t, checksum(out["c"]))
    if "cupy" in names:
        import cupy

        kern = cupy.ElementwiseKernel(*BODIES["c"], "mandelbrot_c")
        re_c, im_c = cupy.asarray(real_np), cupy.asarray(imag_np)
        sync = cupy.cuda.Device().synchronize
        out = {}
        t = _time(lambda: out.__setitem__("c", kern(re_c, im_c, iters)), sync, rounds)
        add("kernel", "cupy", "c", t, checksum(cupy.asnumpy(out["c"])))
        import mandelbrot_numpy_style as example_module

        example_module.cp = cupy  # the example with its import changed to CuPy
        try:
            t = _time(lambda: out.__setitem__("c", mandelbrot(re_c, im_c, iters)), sync, rounds)
            add("numpy-style", "cupy", "-", t, checksum(out["c"].get()))
        finally:
            example_module.cp = cp
    if not args.no_browser:
        for script, example, backend, extra, form in [
            ("mandelbrot_numpy_style.py", "numpy-style", "webgpu", [], "-"),
            ("mandelbrot_kernel.py", "kernel", "webgpu", ["--form", "wgsl"], "wgsl"),
            ("mandelbrot_numpy_style.py", "numpy-style", "webgl2", [], "-"),
            ("mandelbrot_kernel.py", "kernel", "webgl2", ["--form", "glsl"], "glsl"),
        ]:
            c.log(f"browser: {example} on {backend} ...")
            r = _browser(script, backend, size, iters, extra)
            if "error" in r:
                add(example, f"browser {backend}", form, None, None, r["error"])
            else:
                add(example, f"browser {backend}", form, r["seconds"], r["checksum"])

    header = ["example", "where", "form", "ms", "x NumPy", "identical", "note"]
    text = c.table(header, rows, f"Mandelbrot {size}x{size}, {iters} iterations")
    rec = c.record("mandelbrot", backends, skipped, size=size, iters=iters,
                   numpy_checksum=ref, results=results)
    return c.finish(rec, args.out, text)


if __name__ == "__main__":
    raise SystemExit(main())
