"""Dispatch grids: a number of workgroups folded into two dimensions under the device's
per-dimension limit, as square as the limit needs (so at most gy - 1 workgroups idle).
Kernels recover their linear workgroup index as ``wid.x + wid.y * num_workgroups.x``."""

from __future__ import annotations


def fold(groups: int, max_per_dim: int) -> tuple[int, int, int]:
    groups = max(groups, 1)
    gy = -(-groups // max_per_dim)
    return (-(-groups // gy), gy, 1)
