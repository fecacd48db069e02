"""The ``arena`` command: thin argument parsing that hands off to each feature's module.

Subcommands register themselves through ``add_parser(subparsers)`` functions in their own
modules (``arena/commands/<name>.py``), each setting ``func`` to a callable
``(args) -> int`` exit code. A user mistake prints one ``arena: error: ...`` line and exits 2;
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .errors import UserError

#: modules providing ``add_parser(subparsers)``, in help order
COMMAND_MODULES = (
    "arena.commands.run",       # run a tournament
    "arena.commands.gauntlet",  # SPRT of a candidate against a field
    "arena.commands.play",      # play one match
    "arena.commands.replay",    # replay / verify / html of a match record
    "arena.commands.ratings",   # ratings of a tournament directory
    "arena.commands.bench",     # benchmarks
    "arena.commands.presets",   # list rule presets
)


def build_parser() -> argparse.ArgumentParser:
    """The full parser; modules that are missing are skipped."""
    parser = argparse.ArgumentParser(
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: not an error
        return 0
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
