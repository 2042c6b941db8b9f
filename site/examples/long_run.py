# A long run: output streams while it works, and the Stop button interrupts it
# (KeyboardInterrupt, raised between two operations; the Python worker keeps its state).
import time

import webarray as xp

x = xp.ones((256, 256))
t0 = time.perf_counter()
for step in range(1, 1001):
    x = xp.tanh(x @ x / 256 + 0.5)
    if step % 10 == 0:
        # a readback waits for the GPU, so the time below is real
        print(f"step {step:3d}: mean {float(xp.mean(x)):.6f}  ({time.perf_counter() - t0:.1f} s)")
