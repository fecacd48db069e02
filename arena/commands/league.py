"""``arena league init|invite|revoke|serve``: a league strangers submit bots to (docs/league.md).

- ``arena league init DIR --config league.toml``: make DIR a league (its config copied in,
  its store and secret deal key made);
- ``arena league invite DIR NAME``: add a participant; prints its API token once (the league
  stores only its hash);
- ``arena league revoke DIR NAME``: revoke a participant's token (its active versions go on
  playing);
- ``arena league serve DIR [--host H] [--port P] [--ray [ADDRESS]]``: the HTTP API, the pages
  and the match scheduler, until SIGTERM / Ctrl-C (exit 0); ``serve`` again resumes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._runs import add_ray_option, executors_for
from ._values import cli_port


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena league``."""
    p = sub.add_parser("league", help="run a league that participants submit bots to",
                       description="A league: participants submit bots (arena submit), each "
                       "submission is checked in the sandbox, and the league plays matches "
                       "for as long as it runs. See docs/league.md.")
    actions = p.add_subparsers(dest="league_command", metavar="ACTION", required=True)
    init = actions.add_parser("init", help="make a directory a league")
    init.add_argument("dir", help="the league's directory (created)")
    init.add_argument("--config", required=True, help="league.toml (docs/league.md)")
    init.set_defaults(func=run_init)
    inv = actions.add_parser("invite", help="add a participant and print its token once")
    inv.add_argument("dir")
    inv.add_argument("name", help="the participant's name (1-40 letters, digits, - _ .)")
    inv.set_defaults(func=run_invite)
    rev = actions.add_parser("revoke", help="revoke a participant's token")
    rev.add_argument("dir")
    rev.add_argument("name")
    rev.set_defaults(func=run_revoke)
    srv = actions.add_parser("serve", help="serve the league: API, pages, matches")
    srv.add_argument("dir")
    srv.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1; others print a warning)")
    srv.add_argument("--port", type=cli_port, default=8358, help="port (default 8358; 0: any free)")
    add_ray_option(srv)
    srv.set_defaults(func=run_serve)


def run_init(args: argparse.Namespace) -> int:
    from ..league.admin import init_league
    cfg = init_league(Path(args.dir), Path(args.config))
    print(f"league {cfg.tournament.name!r} made in {args.dir}; invite participants with "
          f"`arena league invite {args.dir} NAME`, then `arena league serve {args.dir}`")
    return 0


def run_invite(args: argparse.Namespace) -> int:
    from ..league.admin import invite
    token = invite(Path(args.dir), args.name)
    print(token)
    print(f"arena: participant {args.name!r} added; its token is above, shown this once "
          "(the league keeps only its hash): ARENA_LEAGUE_TOKEN=TOKEN arena submit URL "
          "BOTDIR",
          file=sys.stderr)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from ..league.admin import revoke
    revoke(Path(args.dir), args.name)
    print(f"arena: {args.name!r}'s token is revoked (its active versions go on playing)",
          file=sys.stderr)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    """Serve until SIGTERM / Ctrl-C; exit 0 then, 2 on a user mistake."""
    from ..web import require_web
    require_web()
    from ..league.service import open_league, serve
    from ..web.app import is_loopback
    from ._signals import Interrupted, run_guarded
    cfg, st = open_league(Path(args.dir))
    st.close()
    if getattr(args, "ray", None) is not None:
        from ..tournament.config import with_cluster
        fields = {"backend": "ray", **({"address": args.ray} if args.ray else {})}
        cluster = with_cluster(cfg.tournament_config(
            [{"name": f"b{i}", "command": ["true"]} for i in range(3)]), args.dir, **fields)
        executors = executors_for(cluster)
    else:
        executors = None

    def say(text: str) -> None:
        print(f"arena: {text}", file=sys.stderr, flush=True)

    def ready(url: str) -> None:
        print(f"league {cfg.tournament.name!r} served at {url} (API: {url}api/submissions, "
              f"{url}api/standings)", file=sys.stderr, flush=True)
        if not is_loopback(args.host):
            print(f"arena: WARNING: the league is reachable from other machines on "
                  f"{args.host} over plain HTTP: participants' tokens travel in clear; put "
                  "TLS in front of it (a reverse proxy)", file=sys.stderr, flush=True)
    from . import _logging
    try:
        with _logging.log_file(Path(args.dir) / "arena.log",
                               console=_logging.console_level(args)):
            run_guarded(serve(Path(args.dir), args.host, args.port, executors=executors,
                              on_event=say, ready=ready), stopping="the league")
    except Interrupted:
        return 0
    return 0
