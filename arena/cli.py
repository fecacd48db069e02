# PYTHON_ARGCOMPLETE_OK
"""The ``arena`` command: thin argument parsing that hands off to each feature's module.

Subcommands register themselves through ``add_parser(subparsers)`` functions in their own
modules (``arena/commands/<name>.py``), each setting ``func`` to a callable
``(args) -> int`` exit code. A user mistake prints one ``arena: error: ...`` line and exits 2;
never a traceback. ``-v`` / ``--log-level`` (before or after the subcommand) set what the
arena logs on stderr (:mod:`arena.commands._logging`). Shell completion comes from
``argcomplete`` when it is installed (the ``completion`` extra).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from .commands import _logging
from .errors import UserError
from .safetext import printable
from .wording import did_you_mean

#: modules providing ``add_parser(subparsers)``, in help order
COMMAND_MODULES = (
    "arena.commands.run",       # run a tournament
    "arena.commands.gauntlet",  # SPRT of a candidate against a field
    "arena.commands.play",      # play one match
    "arena.commands.check_bot", # protocol conformance of one bot
    "arena.commands.replay",    # replay / verify / html of a match record
    "arena.commands.serve",     # the live web page of a tournament directory
    "arena.commands.ratings",   # ratings of a tournament directory
    "arena.commands.bench",     # benchmarks
    "arena.commands.presets",   # list rule presets
    "arena.commands.proto",     # the bot protocol's .proto
    "arena.commands.league",    # a league: init, invite, revoke, serve
    "arena.commands.submit",    # send a bot to a league
)


#: commands that hold many descriptors (bots' pipes, the page's connections): they raise the
#: soft RLIMIT_NOFILE to the hard limit at start
MANY_FILES = frozenset(("run", "serve", "gauntlet", "league"))


def raise_open_file_limit() -> tuple[int, int] | None:
    """Raise this process's soft ``RLIMIT_NOFILE`` to its hard limit (a 1,024 soft limit
    is common and is what a flood of connections to the live page runs into; the hard one
    is often far larger). Returns the ``(soft, hard)`` limits now in force; None where
    there are none (not POSIX) or they cannot be changed (the old ones stay)."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return None


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error format: one ``arena: error:`` line, exit status 2
    (subcommand parsers inherit it)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's check of a ``choices`` value (a subcommand, ``--format``) plus the
        closest choice: ``invalid choice: 'rnu' (did you mean 'run'?) (choose from ...)``."""
        if action.choices is not None and value not in action.choices \
                and isinstance(value, str):
            names = [str(c) for c in action.choices]
            hint = did_you_mean(value, names)
            if hint:
                raise argparse.ArgumentError(
                    action, f"invalid choice: {value!r}{hint} (choose from "
                    f"{', '.join(map(repr, names))})")
        super()._check_value(action, value)

    def error(self, message: str) -> NoReturn:
        where = "" if self.prog == "arena" else f"{self.prog}: "   # no "arena: error: arena:"
        self.exit(2, f"arena: error: {where}{message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser; modules that are missing are skipped."""
    parser = _Parser(
        prog="arena", description="358 Arena: bot tournaments for Three Five Eight.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _logging.add_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.add_parser(sub)
    for subparser in sub.choices.values():
        _logging.add_options(subparser, inherited=True)
    return parser


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer a shell-completion request (argcomplete's ``_ARGCOMPLETE`` environment) and
    exit; does nothing when argcomplete is not installed or no completion is asked for."""
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit code."""
    parser = build_parser()
    _complete(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:     # --help, --version, or a usage error (already printed)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if args.command in MANY_FILES:
        raise_open_file_limit()
    try:
        with _logging.configured(_logging.console_level(args)):
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
