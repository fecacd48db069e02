"""``arena check-bot "CMD" [--preset P]... [--json]``: the bot conformance checker.

Starts the bot command (``{python}`` stands for this Python; ``--arena HOST:PORT --token T`` are
appended as for tournament bots, and given as ``ARENA_ADDRESS`` / ``ARENA_TOKEN``), or with
``--remote`` waits for a bot started elsewhere, then runs the scripted suite of
:mod:`arena.conformance` on its stream and prints a PASS/FAIL table (``--json``: one JSON line).
Exit status: 0 when every check passes, 1 when any fails, 2 on a usage mistake. The bot's
output is kept in a log file when a check failed (its path is printed).
"""

from __future__ import annotations

import argparse
import asyncio
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
    p.add_argument("--bind", default="127.0.0.1:0",
                   help="HOST:PORT to listen on (default %(default)s: any free port)")
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
    argv = shlex.split(args.bot) if args.bot else []
    if args.bot and not argv:
        raise UserError("the bot command is empty")
    logs = Path(tempfile.mkdtemp(prefix="arena-check-"))
    try:
        report = run_guarded(_check(args, argv, presets, logs / "bot.log"))
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


async def _check(args: argparse.Namespace, argv: list[str], presets: list[str],
                 log_path: Path) -> SuiteReport:
    from ..conformance.harness import CheckServer
    from ..conformance.suite import CheckResult, SuiteReport, run_suite
    from ..protocol.errors import ServerStartError
    from ..tournament.local import server_address
    token = args.token or secrets.token_hex(16)
    server = CheckServer(args.bind, token)
    try:
        port = await server.start()
    except ServerStartError as exc:
        raise UserError(str(exc)) from None
    address = server_address(args.bind, port)
    proc = None
    label = args.bot or f"a remote bot at {address}"
    try:
        if argv:
            proc = await _spawn(argv, address, token, log_path)
            registered = asyncio.ensure_future(server.wait_for_bot(args.register_timeout))
            exited = asyncio.ensure_future(proc.wait())
            await asyncio.wait({registered, exited}, return_when=asyncio.FIRST_COMPLETED)
            for fut in (registered, exited):
                if not fut.done():
                    fut.cancel()
            stream = (registered.result() if registered.done() and not registered.cancelled()
                      and registered.exception() is None else None)
        else:
            print(f"arena: waiting for the bot: --arena {address} --token {token}",
                  file=sys.stderr, flush=True)
            stream = None
        if stream is None:
            try:
                stream = await server.wait_for_bot(0.1 if proc else args.register_timeout)
            except TimeoutError:
                return SuiteReport(label, [CheckResult("register", "FAIL", _no_bot(
                    proc, log_path, args.register_timeout))])

        async def wait_exit(timeout_s: float) -> int | None:
            if proc is None:
                return None
            try:
                return await asyncio.wait_for(proc.wait(), timeout_s)
            except TimeoutError:
                return None
        return await run_suite(stream, presets, time_ms=args.time_ms, grace_ms=args.grace_ms,
                               bot=label, wait_exit=wait_exit if proc else None)
    finally:
        if proc is not None and proc.returncode is None:
            from ..tournament.processes import terminate
            await terminate(proc)
        await server.stop()


async def _spawn(argv: list[str], address: str, token: str,
                 log_path: Path) -> asyncio.subprocess.Process:
    from ..tournament.config import BotEntry
    from ..tournament.pool import bot_argv
    from ..tournament.processes import LIVE_GROUPS
    entry = BotEntry(name="checked-bot", command=argv)
    full = bot_argv(entry, address, token)
    env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
    try:
        with open(log_path, "wb") as log:
            proc = await asyncio.create_subprocess_exec(
                *full, stdin=asyncio.subprocess.DEVNULL, stdout=log,
                stderr=asyncio.subprocess.STDOUT, env=env, start_new_session=True)
    except OSError as exc:
        raise UserError(f"cannot start the bot {argv[0]!r}: {exc.strerror or exc}") from None
    LIVE_GROUPS.add(proc.pid)
    return proc


def _no_bot(proc: asyncio.subprocess.Process | None, log_path: Path, timeout_s: float) -> str:
    from ..tournament.pool import last_log_line
    if proc is not None and proc.returncode is not None:
        last = last_log_line(log_path)
        return f"the bot exited with status {proc.returncode} before registering" + \
            (f" ({last})" if last else "")
    return f"no bot registered within {timeout_s:g} s"
