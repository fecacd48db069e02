"""Logging of the ``arena`` command: ``-v`` / ``--log-level`` and per-run log files.

The arena's modules log to loggers under ``arena`` (``arena.protocol``: bot registrations and
rejected connections; ``arena.tournament``: bot processes; ...). The CLI sends them to stderr at
WARNING by default, INFO with ``-v``, DEBUG with ``-vv`` or any level with ``--log-level``;
:func:`log_file` adds a file (``arena run`` writes ``OUT/arena.log``) that records INFO and above
whatever the console shows (DEBUG when the console does).
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..safetext import printable

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_LOGGER = "arena"
_CONSOLE_FORMAT = "arena: %(levelname)s: %(message)s"
_FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def add_options(parser: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    """Add ``-v/--verbose`` and ``--log-level`` to ``parser``.

    Args:
        inherited: on a subcommand's parser: defaults are suppressed so options given before
            the subcommand (``arena -v run ...``) are kept.
    """
    verbose: object = argparse.SUPPRESS if inherited else 0
    level: object = argparse.SUPPRESS if inherited else None
    parser.add_argument("-v", "--verbose", action="count", default=verbose,
                        help="log more on stderr: -v INFO, -vv DEBUG (default: warnings only)")
    parser.add_argument("--log-level", type=str.upper, choices=LEVELS, metavar="LEVEL",
                        default=level,
                        help="stderr log level: DEBUG, INFO, WARNING or ERROR (overrides -v)")


def console_level(args: argparse.Namespace) -> int:
    """The stderr level chosen by ``args`` (``--log-level`` wins over ``-v``)."""
    if getattr(args, "log_level", None):
        return int(getattr(logging, args.log_level))
    verbose = getattr(args, "verbose", 0) or 0
    return logging.DEBUG if verbose >= 2 else logging.INFO if verbose == 1 else logging.WARNING


class PrintableFormatter(logging.Formatter):
    """Log lines may quote what a bot sent: shown with :func:`arena.safetext.printable`."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


@contextmanager
def configured(level: int) -> Iterator[None]:
    """Send the ``arena`` loggers to stderr at ``level`` for the duration (undone after, so
    in-process callers such as tests are left as they were)."""
    logger = logging.getLogger(_LOGGER)
    handler = logging.StreamHandler()
    handler.setLevel(level)
    handler.setFormatter(PrintableFormatter(_CONSOLE_FORMAT))
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(level, logging.INFO))
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@contextmanager
def log_file(path: Path, *, console: int) -> Iterator[Path]:
    """Append the ``arena`` loggers' records to ``path`` (INFO and above, DEBUG when
    ``console`` is DEBUG) for the duration. The file is its owner's only (``0600``, from its
    creation): it names every finished match's placings before its duplicate block is
    complete (docs/security.md).

    Raises:
        OSError: the file cannot be opened.
    """
    logger = logging.getLogger(_LOGGER)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    os.chmod(path, 0o600)               # an older, open one is closed first
    handler = logging.FileHandler(path, encoding="utf-8")
    level = min(console, logging.INFO)
    handler.setLevel(level)
    handler.setFormatter(PrintableFormatter(_FILE_FORMAT))
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(level, logger.level or logging.WARNING))
    try:
        yield path
    finally:
        logger.removeHandler(handler)
        handler.close()
        logger.setLevel(old_level)
