"""Shared pytest setup: one device per session, hypothesis profiles, NumPy comparison."""

from __future__ import annotations

import os

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
# SciPy reads this once, when it is first imported, and test modules (Chainer's among them)
# import it at collection: set here, before any of them, or the SciPy and scikit-learn
# array-API tests would be skipped and SciPy would hand back NumPy arrays
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "long", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
