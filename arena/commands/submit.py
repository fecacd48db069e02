"""``arena submit URL BOTDIR --token T [--name NAME] [--no-wait]``: send a bot to a league.

BOTDIR holds the bot and its ``bot.toml`` manifest (docs/league.md); it is sent as one
gzip-compressed tar archive (``POST URL/api/submissions``, ``Authorization: Bearer T``). Prints
the submission's id and URL, then (unless ``--no-wait``) waits for its check and prints the
verdict: exit 0 when it is active, 1 when rejected (with the reason; with ``--no-wait`` too
when the same files were rejected before), 2 on a usage mistake or
an answer refusing the upload (with the league's reason), 3 when the league cannot be reached.
The token may also come from ``ARENA_LEAGUE_TOKEN`` (a command line is visible to other local
users).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from ..errors import UserError

#: seconds ``arena submit`` waits for the verdict at most, by default
WAIT_S = 600.0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena submit``."""
    p = sub.add_parser("submit", help="send a bot to a league (arena league serve)",
                       description="Send BOTDIR (with its bot.toml) to the league at URL and "
                       "wait for its check's verdict.")
    p.add_argument("url", type=league_url,
                   help="the league's address, e.g. http://127.0.0.1:8358/")
    p.add_argument("botdir", help="the bot's directory, holding bot.toml")
    p.add_argument("--token", help="your participant token (default: ARENA_LEAGUE_TOKEN)")
    p.add_argument("--name", help="the bot's name in the league (default: bot.toml's)")
    p.add_argument("--no-wait", action="store_true", help="do not wait for the verdict")
    p.add_argument("--wait-s", type=float, default=WAIT_S,
                   help="seconds to wait for the verdict at most (default %(default)s)")
    p.set_defaults(func=run)


def league_url(text: str) -> str:
    """An argparse ``type`` for the league's address: an ``http://`` or ``https://`` URL with
    a host (urllib raised ``ValueError: unknown url type`` on ``notaurl``, and ``ftp://`` was
    reported as "cannot reach").

    Raises:
        argparse.ArgumentTypeError: another scheme or no host (argparse: exit status 2).
    """
    parts = urllib.parse.urlsplit(text.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(
            f"the league's URL must be http://HOST[:PORT]/ or https://HOST[:PORT]/ "
            f"(e.g. http://127.0.0.1:8358/), got {text!r}")
    return text.strip()


def _request(req: urllib.request.Request) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(req, timeout=120) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            body = json.loads(exc.read() or b"{}")
        except ValueError:
            body = {}
        return exc.code, body if isinstance(body, dict) else {}


def run(args: argparse.Namespace) -> int:
    from ..league.archive import pack
    token = args.token or os.environ.get("ARENA_LEAGUE_TOKEN")
    if not token:
        raise UserError("give --token or set ARENA_LEAGUE_TOKEN (arena league invite prints it)")
    base = args.url.rstrip("/") + "/"
    data = pack(Path(args.botdir))
    url = base + "api/submissions" + (f"?name={urllib.parse.quote(args.name)}"
                                      if args.name else "")
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/gzip"})
    try:
        status, body = _request(req)
    except (urllib.error.URLError, OSError) as exc:
        print(f"arena: error: cannot reach the league at {base}: "
              f"{getattr(exc, 'reason', exc)}", file=sys.stderr)
        return 3
    if status not in (200, 201):
        raise UserError(f"the league refused the submission ({status}): "
                        f"{body.get('error', 'no reason given')}")
    print(f"submission {body['id']} ({body['owner']}/{body['bot']}): {body['state']}"
          + ("" if status == 201 else " (the same files were sent before)")
          + f"; {base.rstrip('/')}{body['url']}")
    if body.get("bot_token"):
        print(f"connection token of this remote version (shown once): {body['bot_token']}")
        where = body.get("arena_address")
        print("it plays once it connects: ARENA_TOKEN=<that token> your-bot --arena "
              + (where or "HOST:PORT (the league's [server] bind; no match runs now)"))
    if args.no_wait:     # a verdict already given (the same files sent before) still counts
        return _rejected(body) if body.get("state") == "rejected" else 0
    return _wait(base.rstrip("/") + body["url"], token, args.wait_s)


def _rejected(body: dict[str, Any]) -> int:
    """Print a rejected submission's reason; its exit status, 1 (docs/league.md)."""
    print(f"rejected: {body.get('reason')}")
    return 1


def _wait(url: str, token: str, wait_s: float) -> int:
    deadline = time.monotonic() + wait_s
    pause = 0.5
    while True:
        status, body = _request(urllib.request.Request(url, headers={
            "Authorization": f"Bearer {token}"}))
        state = body.get("state")
        if status == 200 and state in ("active", "retired"):
            print(f"{body.get('name')}: active")
            return 0
        if status == 200 and state == "rejected":
            return _rejected(body)
        if time.monotonic() > deadline:
            print(f"arena: still {state} after {wait_s:g} s; see {url}", file=sys.stderr)
            return 1
        time.sleep(pause)
        pause = min(pause * 1.5, 5.0)
