"""Tournaments: config, pure round-robin schedule, SQLite results store, async runner,
standings."""
