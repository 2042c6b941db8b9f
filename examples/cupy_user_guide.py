"""What CuPy's user guide teaches (basics, user kernels, reduction kernels, ``fuse``), written
as CuPy code and run on webarray.cupy: natively, and in the browser on WebGPU and WebGL2.

    python examples/cupy_user_guide.py
    python -m webarray.browser run examples/cupy_user_guide.py --backend webgl2

Every section checks its own results in plain Python (``tolist()``), so it needs no NumPy;
the lines that do need NumPy (``cp.asnumpy``, ``get_array_module`` of a NumPy array) run
where NumPy is installed and say "skipped" where it is not (Pyodide without a package
index). With real CuPy installed, ``--cupy`` runs the same code on it. Prints one
``ok <section>`` line per section and ``all sections passed`` at the end.
"""

from __future__ import annotations

import math
import sys

if "--cupy" in sys.argv:
    import cupy as cp  # the same code on real CuPy, where it is installed
else:
    import webarray.cupy as cp

try:
    import numpy
except ImportError:
    numpy = None


def near(got, want, tol=1e-5):
    got, want = (got if isinstance(got, list) else [got]), (want if isinstance(want, list) else [want])
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        if isinstance(g, list):
            near(g, w, tol)
        else:
            assert abs(g - w) <= tol * max(1.0, abs(w)), (got, want)


def basics():
    x_gpu = cp.array([1, 2, 3])
    near(float(cp.linalg.norm(x_gpu)), math.sqrt(14))
    with cp.cuda.Device(0):
        y = cp.array([4.0, 5.0, 6.0], dtype=cp.float32)
    assert y.device == cp.cuda.Device(0) and int(y.device) == 0
    z = x_gpu * y + 1
    near(z.tolist(), [5.0, 11.0, 19.0])
    near((z / 2).sum().item(), 17.5)
    assert z.dtype.kind == "f"  # float32 here; CuPy: float64 (int64 times float32)

    def softplus(x):
        xp = cp.get_array_module(x)  # works for CuPy and NumPy arrays alike
        return xp.maximum(0, x) + xp.log1p(xp.exp(-abs(x)))

    sp = softplus(cp.asarray([-2.0, 0.0, 3.0], dtype=cp.float32))
    near(sp.tolist(), [math.log1p(math.exp(-2)), math.log(2), 3 + math.log1p(math.exp(-3))])
    if numpy is not None:
        host = cp.asnumpy(z)
        assert isinstance(host, numpy.ndarray) and host.tolist() == z.tolist()
        assert softplus(numpy.zeros(2)).tolist() == [math.log(2)] * 2
        back = cp.asarray(host)
        assert isinstance(back, cp.ndarray)
    else:
        print("  (asnumpy and NumPy arrays skipped: NumPy is not installed here)")
    print("ok basics")


def elementwise_kernels():
    squared_diff = cp.ElementwiseKernel(
        "float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")
    x = cp.arange(10, dtype=cp.float32).reshape(2, 5)
    y = cp.arange(5, dtype=cp.float32)
    near(squared_diff(x, y).tolist(), [[0.0] * 5, [25.0] * 5])
    near(squared_diff(x, 5).tolist()[0], [25.0, 16.0, 9.0, 4.0, 1.0])
    out = cp.empty((2, 5), dtype=cp.float32)
    squared_diff(x, y, out)
    near(out.tolist()[1], [25.0] * 5)

    # type-generic: T is bound from the arguments
    generic = cp.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "generic_diff")
    ints = generic(cp.arange(4, dtype=cp.int32), 1)
    assert ints.dtype == cp.int32 and ints.tolist() == [1, 0, 1, 4]

    # raw arguments: index by hand, with i the output's index
    reverse = cp.ElementwiseKernel(
        "raw T x, int32 n", "T y", "y = x[n - i - 1]", "reverse")
    r = reverse(cp.arange(6, dtype=cp.float32), 6, size=6)
    near(r.tolist(), [5.0, 4.0, 3.0, 2.0, 1.0, 0.0])
    print("ok elementwise kernels")


def reduction_kernels():
    l2norm = cp.ReductionKernel(
        "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    x = cp.arange(10, dtype=cp.float32).reshape(2, 5)
    near(l2norm(x, axis=1).tolist(), [math.sqrt(30), math.sqrt(255)])
    near(float(l2norm(x)), math.sqrt(285))
    biggest = cp.ReductionKernel(
        "T x", "T y", "abs(x)", "max(a, b)", "y = a", "0", "abs_max")
    near(biggest(cp.asarray([[1.0, -7.0], [3.0, 2.0]], dtype=cp.float32), axis=0).tolist(),
         [3.0, 7.0])
    print("ok reduction kernels")


def fused():
    @cp.fuse()
    def squared_diff(x, y):
        return (x - y) * (x - y)

    @cp.fuse(kernel_name="squared_diff_sum")
    def squared_diff_sum(x, y):
        return cp.sum((x - y) * (x - y))

    x = cp.arange(10, dtype=cp.float32)
    y = x[::-1]
    want = [(a - b) ** 2 for a, b in zip(range(10), range(9, -1, -1))]
    near(squared_diff(x, y).tolist(), want)
    near(float(squared_diff_sum(x, y)), sum(want))
    near(squared_diff(x, 2).tolist(), [(a - 2) ** 2 for a in range(10)])
    print("ok fuse")


def main():
    basics()
    elementwise_kernels()
    reduction_kernels()
    fused()
    print("all sections passed")


if __name__ == "__main__":
    main()
