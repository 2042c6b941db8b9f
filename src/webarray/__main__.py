"""``python -m webarray``: compute a few values on the GPU and say which adapter did it."""

from __future__ import annotations

import time

import webarray as xp


def main() -> None:
    dev = xp.__array_namespace_info__().default_device()
    info = dev.executor.adapter_info
    print(f"webarray {xp.__array_api_version__} on {dev.backend}: {info['device']} "
          f"({info['description']}, {info['backend']} {info['adapter_type']})")
    x = xp.linspace(0, 2 * xp.pi, 8)
    print("x                =", x)
    print("sin(x)**2+cos(x)**2 =", xp.sin(x) ** 2 + xp.cos(x) ** 2)
    n = 1 << 20
    a = xp.arange(n, dtype=xp.float32)
    t = time.perf_counter()
    b = xp.sqrt(a) * 2.0 + 1.0
    v = float(b[n - 1])
    print(f"sqrt(a)*2+1 over 2^20 elements: last = {v} in {(time.perf_counter() - t) * 1e3:.1f} ms")
    m = xp.asarray([[1, 2], [3, 4]], dtype=xp.int8)
    print("int8 wraparound  =", m * 100)
    print("dtypes on this device:", ", ".join(xp.__array_namespace_info__().dtypes()))


if __name__ == "__main__":
    main()
