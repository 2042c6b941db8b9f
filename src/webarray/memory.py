"""Device memory: what webarray holds on the default device, and how to give it back."""

from __future__ import annotations

from ._core.device import resolve


def stats(device=None) -> dict:
    """Bytes held by live arrays, bytes kept in the reuse pool, and the allocation limit."""
    pool = resolve(device).pool
    return {
        "used_bytes": pool.used_bytes,
        "pooled_bytes": pool.pooled_bytes,
        "limit_bytes": pool.limit_bytes,
        "device_buffers": pool.executor.buffer_count(),
    }


def free_pooled(device=None) -> None:
    """Release every pooled (unused) buffer back to the GPU."""
    resolve(device).pool.trim()


def set_limit(nbytes: int, device=None) -> None:
    """Cap the bytes webarray may hold on the device (live plus pooled): a positive integer
    (TypeError for other types, bool included; ValueError below 1)."""
    if isinstance(nbytes, bool) or not hasattr(nbytes, "__index__"):
        raise TypeError(f"set_limit: nbytes must be an int, got {type(nbytes).__name__} "
                        f"{nbytes!r}")
    nbytes = nbytes.__index__()
    if nbytes < 1:
        raise ValueError(f"set_limit: nbytes must be at least 1 byte, got {nbytes}")
    pool = resolve(device).pool
    pool.limit_bytes = nbytes
    pool._pool_cap = pool.limit_bytes // 4
