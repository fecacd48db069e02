"""Tiny bots used by the protocol tests (not for tournaments)."""
