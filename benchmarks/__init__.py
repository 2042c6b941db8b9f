"""Benchmark scripts of webarray; run one as ``python -m benchmarks.<name>`` from the repo root."""
