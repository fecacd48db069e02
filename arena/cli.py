"""The ``arena`` command: thin argument parsing that hands off to each feature's module.

Subcommands register themselves through ``add_parser(subparsers)`` functions in their own
modules (``arena/commands/<name>.py``), each setting ``func`` to a callable
``(args) -> int`` exit code. A user mistake prints one ``arena: error: ...`` line and exits 2;
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .errors import UserError
from .safetext import printable

#: modules providing ``add_parser(subparsers)``, in help order
COMMAND_MODULES = (
    "arena.commands.run",       # run a tournament
    "arena.commands.play",      # play one match
    "arena.commands.replay",    # replay / verify / html of a match record
    "arena.commands.serve",     # the live web page of a tournament directory
    "arena.commands.ratings",   # ratings of a tournament directory
    "arena.commands.bench",     # benchmarks
    "arena.commands.presets",   # list rule presets
)


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error format: one ``arena: error:`` line, exit status 2
    (subcommand parsers inherit it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"arena: error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser; modules that are missing are skipped."""
    parser = _Parser(
        prog="arena", description="358 Arena: bot tournaments for Three Five Eight.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.add_parser(sub)
    return parser


class _PrintableFormatter(logging.Formatter):
    """Log lines may quote what a bot sent: shown with :func:`arena.safetext.printable`."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def _log_printably() -> None:
    """Warnings and errors of the arena's loggers go to stderr made printable (unless the
    program has configured logging itself)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_PrintableFormatter("%(message)s"))
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit code."""
    _log_printably()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:     # --help, --version, or a usage error (already printed)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        for line in str(exc).splitlines() or [""]:   # one line per problem
            print(f"arena: error: {printable(line)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: not an error
        return 0
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
