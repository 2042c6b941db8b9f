# CuPy code moves to the browser by changing only the import. Pyodide here has no NumPy,
# so write CuPy's own names: cp.float32 (not np.float32) and x.tolist() (not cp.asnumpy(x)).
import webarray.cupy as cp

x = cp.linspace(-1, 1, 1_000_000, dtype=cp.float32)
y = (cp.sin(x) ** 2).sum()
print("sum of sin(x)^2 =", float(y))
print("first values:", x[:3].tolist())

# a user kernel in CuPy's C-like form, translated to the device's shader language
square_add = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a * a + b", "square_add")
print("a*a + b =", square_add(cp.arange(4, dtype=cp.float32), cp.ones(4, dtype=cp.float32)).tolist())
