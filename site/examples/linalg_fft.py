# Linear algebra and FFT on the GPU.
import webarray as xp

a = xp.reshape(xp.arange(16, dtype=xp.float32), (4, 4)) / 10 + xp.eye(4) * 2
b = xp.ones((4, 1))
x = xp.linalg.solve(a, b)
print("solve(a, b):", x[:, 0])
print("residual:", float(xp.linalg.vector_norm(a @ x - b)))
print("det(a) =", float(xp.linalg.det(a)))

# The fft runs as compute-shader kernels, which WebGL2 (fragment shaders only) lacks: it
# says so with NotImplementedError, and so does this example.
device = xp.__array_namespace_info__().default_device()
t = xp.linspace(0, 1, 64, endpoint=False)
signal = xp.sin(2 * xp.pi * 5 * t) + 0.5 * xp.sin(2 * xp.pi * 12 * t)
try:
    spectrum = xp.abs(xp.fft.rfft(signal))
except NotImplementedError as e:
    print(f"fft skipped on {device.backend}: {e} (pick WebGPU above to run it)")
else:
    peaks = xp.argsort(-spectrum)[:2]
    print("strongest frequencies:", sorted(int(p) for p in peaks))
