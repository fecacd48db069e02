"""Benchmarks (printed figures, never timed unit tests)."""
