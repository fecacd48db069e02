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
    from ..conformance.harness import BotStream, CheckServer
    from ..conformance.suite import SuiteReport
    from ..sandbox import Launcher
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
    from ..conformance.harness import CheckServer
    from ..conformance.suite import CheckResult, SuiteReport, run_suite
    from ..protocol.errors import ServerStartError
    from ..sandbox import SocketDir
    from ..tournament.local import server_address
    token = args.token or secrets.token_hex(16)
    sockdir = SocketDir() if argv else None    # a started bot dials the Unix socket only
    server = CheckServer(None if sockdir else args.bind, token,
                         unix_socket=sockdir.socket if sockdir else None)
    try:
        port = await server.start()
    except ServerStartError as exc:
        if sockdir is not None:
            sockdir.close()
        raise UserError(str(exc)) from None
    address = f"unix:{sockdir.socket}" if sockdir else server_address(args.bind, port)
    proc = None
    launcher: Launcher | None = None
    label = args.bot or f"a remote bot at {address}"
    try:
        if argv and sandbox is not None:
            launcher, proc = await _spawn(argv, address, token, log_path, sandbox)
        else:
            # the token in the environment: a --token argument is readable in /proc
            print(f"arena: waiting for the bot: start it with ARENA_TOKEN={token} in its "
                  f"environment and --arena {address}", file=sys.stderr, flush=True)
        stream = await _registered(server, proc, args.register_timeout)
        if stream is None:
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
        from ..tournament.local import close_transport
        try:
            if proc is not None and proc.returncode is None:
                from ..processes.spawn import terminate
                await terminate(proc)
        finally:
            await close_transport(launcher, server, sockdir)


async def _registered(server: CheckServer, proc: asyncio.subprocess.Process | None,
                      timeout_s: float) -> BotStream | None:
    """The bot's stream once it registered; None when it did not within ``timeout_s`` (or
    the started bot ``proc`` exited first)."""
    if proc is not None:
        registered = asyncio.ensure_future(server.wait_for_bot(timeout_s))
        exited = asyncio.ensure_future(proc.wait())
        await asyncio.wait({registered, exited}, return_when=asyncio.FIRST_COMPLETED)
        for fut in (registered, exited):
            if not fut.done():
                fut.cancel()
        if registered.done() and not registered.cancelled() and registered.exception() is None:
            return registered.result()
    try:
        return await server.wait_for_bot(0.1 if proc else timeout_s)
    except TimeoutError:
        return None


async def _spawn(argv: list[str], address: str, token: str, log_path: Path,
                 sandbox: SandboxConfig) -> tuple[Launcher, asyncio.subprocess.Process]:
    """Start the bot as the tournament's bot pool does: its argv with ``--arena``, the token
    in ``ARENA_TOKEN`` only, under its supervisor, in ``sandbox``'s mode (the sandbox binds
    the Unix socket of ``address`` and hides the log's directory)."""
    from ..sandbox import Launcher
    from ..sandbox.which import SandboxUnavailable
    from ..tournament.config import BotEntry
    from ..processes.pool import bot_argv
    from ..processes.spawn import spawn
    entry = BotEntry(name="checked-bot", command=argv)
    socket = address.removeprefix("unix:")

    def say(text: str) -> None:
        print(f"arena: {text}", file=sys.stderr, flush=True)
    try:
        launcher = Launcher(sandbox, [entry], socket=socket, hide=[log_path.parent],
                            on_event=say)
    except SandboxUnavailable as exc:
        raise UserError(f"--sandbox bwrap: {exc} (--sandbox none checks a trusted bot "
                        "unsandboxed)") from None
    env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
    launch = launcher.prepare(entry, bot_argv(entry, address, token), env)
    try:
        with open(log_path, "ab") as log:
            proc = await spawn(launch.argv, env=launch.env, cwd=launch.cwd,
                               log_file=log.fileno(), preexec=launch.preexec)
    except OSError as exc:
        await launcher.close()
        raise UserError(f"cannot start the bot {argv[0]!r}: {exc.strerror or exc}") from None
    launcher.started(entry.name, proc, log_path, launch.cgroup)
    return launcher, proc


def _no_bot(proc: asyncio.subprocess.Process | None, log_path: Path, timeout_s: float) -> str:
    from ..processes.pool import last_log_line
    from ..processes.spawn import describe_exit
    if proc is not None and proc.returncode is not None:
        last = last_log_line(log_path)
        return f"the bot ended ({describe_exit(proc.returncode)}) before registering" + \
            (f" ({last})" if last else "")
    return f"no bot registered within {timeout_s:g} s"
