"""358 Arena: bot tournaments for Three Five Eight."""

__version__ = "0.1.0"
