# webarray in the browser: arrays live on the GPU, Python runs in a Web Worker.
import webarray as xp

info = xp.__array_namespace_info__()
device = info.default_device()
print("device:", device.backend, "-", device.executor.adapter_info.get("device", ""))

x = xp.linspace(0, 2 * xp.pi, 1_000_000)
y = xp.sin(x) ** 2 + xp.cos(x) ** 2          # one fused kernel on the GPU
print("max |sin^2 + cos^2 - 1| =", float(xp.max(xp.abs(y - 1))))

a = xp.arange(10)
print("sum of squares 0..9 =", int(xp.sum(a * a)))
print("cumulative sum:", xp.cumulative_sum(a))
print("dtypes on this device:", ", ".join(info.dtypes()))
