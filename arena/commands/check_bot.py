"""``arena check-bot "CMD" [--preset P]... [--sandbox bwrap|none] [--json]``: the bot
conformance checker.

Starts the bot command as a tournament starts its bots (``{python}`` stands for this Python;
the pre-flight check of the command first; ``--arena unix:PATH`` appended, the arena's private
Unix socket, also given as ``ARENA_ADDRESS``; the token **only** in ``ARENA_TOKEN``; under its
supervisor and, by default, in the bubblewrap sandbox with the ``[sandbox]`` defaults and any
``--limit``), so that a PASS means the bot works in a tournament; or with ``--remote`` waits on
``--bind`` for a bot started elsewhere. Then it runs the scripted suite of
:mod:`arena.conformance` on the bot's stream and prints a PASS/FAIL table (``--json``: one JSON
line, :func:`arena.conformance.render_json`). Exit status: 0 when every check passes, 1 when
any fails (checks not run after the stream ended are "NOT RUN", not failures of their own), 2
on a usage mistake. The bot's output is kept in a log file when a check failed (its path is
printed).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError

if TYPE_CHECKING:
    from ..conformance.suite import SuiteReport
    from ..sandbox.config import SandboxConfig


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena check-bot``."""
    p = sub.add_parser(
        "check-bot", help="check that a bot speaks the protocol correctly (PASS/FAIL table)",
        description="Drive one bot through a scripted suite: every decision kind of every "
        "preset, a single legal action, interleaved matches on one stream, a one-hand match in "
        "all three seats, an unknown message kind, rejections, MatchEnd and Goodbye.")
    p.add_argument("bot", nargs="?", metavar="BOT_CMD",
                   help="the bot's command as one shell-quoted string, e.g. "
                   "\"{python} my_bot.py\" (omit with --remote)")
    p.add_argument("--remote", action="store_true",
                   help="do not start a bot: print the address and token and wait for one")
    p.add_argument("--preset", action="append", metavar="P",
                   help="preset to check (repeatable; default: all)")
    p.add_argument("--time-ms", type=int, default=1000,
                   help="time per decision, ms (default %(default)s)")
    p.add_argument("--grace-ms", type=int, default=250,
                   help="margin before an answer is late, ms (default %(default)s)")
    p.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap",
                   help="run the bot as a tournament does: in the bubblewrap sandbox (bwrap, "
                   "the default, [sandbox] defaults) or as a plain process (none, for a "
                   "trusted bot); either way it dials the arena's Unix socket")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="a [sandbox] limit, e.g. --limit memory_mib=2048 (repeatable)")
    p.add_argument("--bind", default="127.0.0.1:0",
                   help="--remote: HOST:PORT to listen on (default %(default)s: any free "
                   "port)")
    p.add_argument("--token", help="--remote: the token the bot must present (default: new)")
    p.add_argument("--register-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="time the bot has to connect and register (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON line")
    p.set_defaults(func=run)


def _presets(chosen: list[str] | None) -> list[str]:
    from ..rules.config import PRESETS
    chosen = chosen or list(PRESETS)
    unknown = [p for p in chosen if p not in PRESETS]
    if unknown:
        from ..wording import unknown_choice
        raise UserError(unknown_choice("preset", unknown[0], PRESETS))
    return list(dict.fromkeys(chosen))


def run(args: argparse.Namespace) -> int:
    """Run the check; see the module docstring for output and exit status."""
    from ._signals import Interrupted, run_guarded
    if bool(args.bot) == bool(args.remote):
        raise UserError("give either BOT_CMD or --remote")
    if not (1 <= args.time_ms <= 3_600_000 and 0 <= args.grace_ms <= 600_000):
        raise UserError("--time-ms must be 1..3600000 and --grace-ms 0..600000")
    if not 0 < args.register_timeout <= 86_400:
        raise UserError("--register-timeout must be in (0, 86400] seconds")
    presets = _presets(args.preset)
    try:
        argv = shlex.split(args.bot) if args.bot else []
    except ValueError as exc:
        raise UserError(f"the bot command {args.bot!r}: {exc}") from None
    if args.bot and not argv:
        raise UserError("the bot command is empty")
    sandbox = _sandbox(args) if args.bot else None
    if argv:
        from ..tournament.preflight import check_command
        why = check_command([a.replace("{python}", sys.executable) for a in argv], None,
                            dict(os.environ))
        if why:
            raise UserError(f"the bot cannot start: {why}")
    if sandbox is not None:
        from ..sandbox.config import describe
        print(describe(sandbox), file=sys.stderr)
    logs = Path(tempfile.mkdtemp(prefix="arena-check-"))
    try:
        report = run_guarded(_check(args, argv, presets, logs / "bot.log", sandbox))
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; bot log in {logs}", file=sys.stderr)
        return exc.code
    from ..conformance import render_json, render_table
    print(render_json(report) if args.json else render_table(report), end="")
    if report.passed:
        shutil.rmtree(logs, ignore_errors=True)
    elif args.bot:
        print(f"arena: the bot's output is in {logs / 'bot.log'}", file=sys.stderr)
    return 0 if report.passed else 1


def _sandbox(args: argparse.Namespace) -> SandboxConfig:
    """The ``[sandbox]`` the bot runs under: ``--sandbox`` and each ``--limit``, validated as
    the config's section (one line per problem naming the flag)."""
    from pydantic import ValidationError

    from ..sandbox.config import SandboxConfig
    from ..tournament.problems import field_problems
    from ._values import sandbox_fields
    data = {"mode": args.sandbox, **sandbox_fields(args.limit)}
    try:
        return SandboxConfig.model_validate(data)
    except ValidationError as exc:
        raise UserError("\n".join(f"--limit {where}: {msg}" for where, msg in
                                  field_problems(exc, data, SandboxConfig))) from None


async def _check(args: argparse.Namespace, argv: list[str], presets: list[str],
                 log_path: Path, sandbox: SandboxConfig | None) -> SuiteReport:
    if argv and sandbox is not None:      # started as a tournament starts it
        from ..tournament.checkbot import check_started_bot
        from ..tournament.config import BotEntry

        def say(text: str) -> None:
            print(f"arena: {text}", file=sys.stderr, flush=True)
        return await check_started_bot(
            BotEntry(name="checked-bot", command=argv), presets, sandbox=sandbox,
            log_path=log_path, time_ms=args.time_ms, grace_ms=args.grace_ms,
            register_timeout_s=args.register_timeout, label=args.bot, on_event=say)
    return await _check_remote(args, presets)


async def _check_remote(args: argparse.Namespace, presets: list[str]) -> SuiteReport:
    """``--remote``: wait on ``--bind`` for a bot started elsewhere, then run the suite."""
    from ..conformance.harness import CheckServer
    from ..conformance.suite import CheckResult, SuiteReport, run_suite
    from ..protocol.errors import ServerStartError
    from ..tournament.checkbot import registered
    from ..tournament.local import close_transport, server_address
    token = args.token or secrets.token_hex(16)
    server = CheckServer(args.bind, token)
    try:
        port = await server.start()
    except ServerStartError as exc:
        raise UserError(str(exc)) from None
    address = server_address(args.bind, port)
    label = f"a remote bot at {address}"
    try:
        # the token in the environment: a --token argument is readable in /proc
        print(f"arena: waiting for the bot: start it with ARENA_TOKEN={token} in its "
              f"environment and --arena {address}", file=sys.stderr, flush=True)
        stream = await registered(server, None, args.register_timeout)
        if stream is None:
            return SuiteReport(label, [CheckResult(
                "register", "FAIL", f"no bot registered within {args.register_timeout:g} s")])
        return await run_suite(stream, presets, time_ms=args.time_ms, grace_ms=args.grace_ms,
                               bot=label)
    finally:
        await close_transport(None, server, None)
