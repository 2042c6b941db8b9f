"""searching functions of the standard."""

from __future__ import annotations

__all__: list[str] = []
