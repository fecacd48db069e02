"""``arena proto [--path | --include-dir]``: the bot protocol's ``.proto`` without a clone.

By default prints the text of ``threefiveeight/v1/arena.proto`` (the copy shipped in the
installed package, identical to ``proto/`` in the repository); ``--path`` prints the file's
absolute path and ``--include-dir`` the directory to pass as ``-I`` / ``includeDirs`` (the file's
import path below it is ``threefiveeight/v1/arena.proto``). Exit 0; 2 when the installation
lacks the file.
"""

from __future__ import annotations

import argparse

from ..errors import UserError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena proto``."""
    p = sub.add_parser(
        "proto", help="print the bot protocol's .proto (or its path) for code generation",
        description="Print threefiveeight/v1/arena.proto as installed with the arena, e.g. "
        "protoc -I \"$(arena proto --include-dir)\" ... threefiveeight/v1/arena.proto")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--path", action="store_true", help="print the file's absolute path")
    what.add_argument("--include-dir", action="store_true",
                      help="print the -I root (holds threefiveeight/v1/arena.proto)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the text, path or include root; exit 0."""
    from ..protocol.source import PACKAGED_ROOT, proto_path
    try:
        path = proto_path()
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    if args.path:
        print(path)
    elif args.include_dir:
        print(PACKAGED_ROOT)
    else:
        print(path.read_text(encoding="utf-8"), end="")
    return 0
