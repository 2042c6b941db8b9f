# Linear algebra and FFT on the GPU.
import webarray as xp

a = xp.reshape(xp.arange(16, dtype=xp.float32), (4, 4)) / 10 + xp.eye(4) * 2
b = xp.ones((4, 1))
x = xp.linalg.solve(a, b)
print("solve(a, b):", x[:, 0])
print("residual:", float(xp.linalg.vector_norm(a @ x - b)))
print("det(a) =", float(xp.linalg.det(a)))

# The fft runs as compute-shader kernels on WebGPU; WebGL2 (fragment shaders only) composes
# the same transform of whole-array steps.
t = xp.linspace(0, 1, 64, endpoint=False)
signal = xp.sin(2 * xp.pi * 5 * t) + 0.5 * xp.sin(2 * xp.pi * 12 * t)
spectrum = xp.abs(xp.fft.rfft(signal))
peaks = xp.argsort(-spectrum)[:2]
print("strongest frequencies:", sorted(int(p) for p in peaks))
