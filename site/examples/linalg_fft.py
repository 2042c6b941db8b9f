# Linear algebra and FFT on the GPU.
import webarray as xp

a = xp.reshape(xp.arange(16, dtype=xp.float32), (4, 4)) / 10 + xp.eye(4) * 2
b = xp.ones((4, 1))
x = xp.linalg.solve(a, b)
print("solve(a, b):", x[:, 0])
print("residual:", float(xp.linalg.vector_norm(a @ x - b)))
print("det(a) =", float(xp.linalg.det(a)))

# An FFT's result is complex64, which not every backend stores (WebGL2 keeps one 32-bit
# word per element): ask the device what it has.
device = xp.__array_namespace_info__().default_device()
if "complex64" in xp.__array_namespace_info__().dtypes():
    t = xp.linspace(0, 1, 64, endpoint=False)
    signal = xp.sin(2 * xp.pi * 5 * t) + 0.5 * xp.sin(2 * xp.pi * 12 * t)
    spectrum = xp.abs(xp.fft.rfft(signal))
    peaks = xp.argsort(-spectrum)[:2]
    print("strongest frequencies:", sorted(int(p) for p in peaks))
else:
    print(f"fft skipped: its results are complex64, which {device.backend} does not have "
          "(pick WebGPU above to run it)")
