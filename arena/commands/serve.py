"""``arena serve DIR [--host H] [--port P]``: the live tournament page of a tournament directory
(finished, resumed or being run by another arena), read-only."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._signals import Interrupted, run_guarded
from ._values import cli_port


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena serve``."""
    p = sub.add_parser("serve", help="serve the live web page of a tournament directory",
                       description="Serve the tournament page (standings, progress, finished "
                       "matches with replays, faults and logs, rating plot, head-to-head) "
                       "of DIR, read-only; new results appear as another arena writes them. "
                       "Needs the web extra: python3 -m pip install 'arena358[web]'.")
    p.add_argument("dir", help="tournament directory (the --out of arena run)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; others print a warning)")
    p.add_argument("--port", type=cli_port, default=8358, help="port (default 8358; 0: any free)")
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C / SIGTERM; exit 0 then, 2 on a user mistake."""
    from ..web import require_web
    require_web()
    from ..web.live import serve_directory
    try:
        run_guarded(serve_directory(Path(args.dir), args.host, args.port),
                    stopping="the page server")
    except Interrupted:
        return 0
    return 0
