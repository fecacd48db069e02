"""Checking a bot as a tournament runs it: the conformance suite (:mod:`arena.conformance`)
against a bot started exactly as the bot pool starts one (its command with ``--arena``, the
token only in ``ARENA_TOKEN``, under its supervisor, in its ``[sandbox]`` mode, dialling the
arena's private Unix socket), so that a PASS means the bot works in a tournament.

Used by ``arena check-bot "CMD"`` (:mod:`arena.commands.check_bot`) and by the league, which
checks every submission this way before it plays (:mod:`arena.league.checker`).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..processes.pool import BotEntry, bot_argv, last_log_line
from ..processes.spawn import describe_exit, spawn, terminate
from ..protocol.errors import ServerStartError
from ..sandbox import Launcher, SocketDir
from ..sandbox.which import SandboxUnavailable
from .local import close_transport

if TYPE_CHECKING:
    from ..conformance.harness import BotStream, CheckServer
    from ..conformance.suite import SuiteReport
    from ..sandbox.config import SandboxConfig


async def check_started_bot(entry: BotEntry, presets: list[str], *, sandbox: SandboxConfig,
                            log_path: Path, time_ms: int = 1000, grace_ms: int = 250,
                            register_timeout_s: float = 20.0, label: str | None = None,
                            on_event: Callable[[str], None] = lambda text: None,
                            hide: list[Path] | None = None) -> SuiteReport:
    """Start ``entry`` as a tournament would and run the conformance suite on it.

    Args:
        entry: the bot (its ``command``, ``cwd``, ``env``). presets: presets to check.
        sandbox: the ``[sandbox]`` it runs under. log_path: its stdout/stderr go here.
        time_ms / grace_ms: the time per decision and its margin, ms.
        register_timeout_s: time it has to register, s. label: its name in the report.
        on_event: one-line news (a limit that stopped it). hide: more paths it must not see.

    Returns:
        The suite's report (a failed registration is its one FAIL line).

    Raises:
        UserError: no sandbox can run here, the arena's socket cannot be opened, or the
            command cannot be executed at all.
    """
    from ..conformance.harness import CheckServer
    from ..conformance.suite import CheckResult, SuiteReport, run_suite
    token = secrets.token_hex(16)
    sockdir = SocketDir()
    server = CheckServer(None, token, unix_socket=sockdir.socket)
    try:
        await server.start()
    except ServerStartError as exc:
        sockdir.close()
        raise UserError(str(exc)) from None
    address = f"unix:{sockdir.socket}"
    label = label or " ".join(entry.command or [])
    proc: asyncio.subprocess.Process | None = None
    launcher: Launcher | None = None
    try:
        launcher, proc = await _spawn(entry, address, token, log_path, sandbox, on_event,
                                      [log_path.parent, *(hide or [])])
        stream = await registered(server, proc, register_timeout_s)
        if stream is None:
            return SuiteReport(label, [CheckResult("register", "FAIL", _no_bot(
                proc, log_path, register_timeout_s))])
        started = proc

        async def wait_exit(timeout_s: float) -> int | None:
            try:
                return await asyncio.wait_for(started.wait(), timeout_s)
            except TimeoutError:
                return None
        return await run_suite(stream, presets, time_ms=time_ms, grace_ms=grace_ms,
                               bot=label, wait_exit=wait_exit)
    finally:
        try:
            if proc is not None and proc.returncode is None:
                await terminate(proc)
        finally:
            await close_transport(launcher, server, sockdir)


async def registered(server: CheckServer, proc: asyncio.subprocess.Process | None,
                     timeout_s: float) -> BotStream | None:
    """The bot's stream once it registered; None when it did not within ``timeout_s`` (or
    the started bot ``proc`` exited first)."""
    if proc is not None:
        reg = asyncio.ensure_future(server.wait_for_bot(timeout_s))
        exited = asyncio.ensure_future(proc.wait())
        await asyncio.wait({reg, exited}, return_when=asyncio.FIRST_COMPLETED)
        for fut in (reg, exited):
            if not fut.done():
                fut.cancel()
        if reg.done() and not reg.cancelled() and reg.exception() is None:
            return reg.result()
    try:
        return await server.wait_for_bot(0.1 if proc else timeout_s)
    except TimeoutError:
        return None


async def _spawn(entry: BotEntry, address: str, token: str, log_path: Path,
                 sandbox: SandboxConfig, on_event: Callable[[str], None],
                 hide: list[Path]) -> tuple[Launcher, asyncio.subprocess.Process]:
    """Start ``entry`` as the tournament's bot pool does (the sandbox binds the Unix socket of
    ``address`` and hides ``hide``)."""
    socket = address.removeprefix("unix:")
    try:
        launcher = Launcher(sandbox, [entry], socket=socket, hide=hide, on_event=on_event)
    except SandboxUnavailable as exc:
        raise UserError(f"sandbox mode bwrap: {exc} (mode none checks a trusted bot "
                        "unsandboxed)") from None
    env = {**os.environ, **entry.env, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
    launch = launcher.prepare(entry, bot_argv(entry, address, token), env)
    try:
        with open(log_path, "ab") as log:
            proc = await spawn(launch.argv, env=launch.env, cwd=launch.cwd,
                               log_file=log.fileno(), preexec=launch.preexec)
    except OSError as exc:
        await launcher.close()
        name = (entry.command or ["?"])[0]
        raise UserError(f"cannot start the bot {name!r}: {exc.strerror or exc}") from None
    launcher.started(entry.name, proc, log_path, launch.cgroup)
    return launcher, proc


def _no_bot(proc: asyncio.subprocess.Process | None, log_path: Path, timeout_s: float) -> str:
    if proc is not None and proc.returncode is not None:
        last = last_log_line(log_path)
        return f"the bot ended ({describe_exit(proc.returncode)}) before registering" + \
            (f" ({last})" if last else "")
    return f"no bot registered within {timeout_s:g} s"
