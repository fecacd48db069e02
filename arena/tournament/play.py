"""One match between three bot commands over gRPC (``arena play``)."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ..match import MatchOutcome, MatchSpec, run_match
from ..rules import RulesConfig
from ..sandbox import Launcher, SandboxConfig, SocketDir
from .config import BotEntry
from ..processes.pool import BotPool, UnavailableBot
from .preflight import preflight
from .local import server_address


class BotStartError(Exception):
    """A bot of ``arena play`` could not start (its command failed, or it did not register);
    the message says which and why, and names its log."""


def bot_names(commands: Sequence[str]) -> list[str]:
    """Short unique names from commands: the module or script name (``random_bot``), with
    ``-2``/``-3`` appended to repeats."""
    names = []
    for cmd in commands:
        argv = shlex.split(cmd)
        base = next((a for a in reversed(argv) if not a.startswith("-") and "/" not in a
                     and "." in a), None) if "-m" in argv else None
        if base is None:
            base = next((Path(a).stem for a in argv[1:] if not a.startswith("-")),
                        Path(argv[0]).stem if argv else "bot")
        base = (base.rsplit(".", 1)[-1] or "bot")[:60]
        name, k = base, 2
        while name in names:
            name, k = f"{base}-{k}", k + 1
        names.append(name)
    return names


def entries(commands: Sequence[str]) -> list[BotEntry]:
    """Bot entries for commands given as shell-like strings (``"{python} -m x"`` allowed).

    Raises:
        ValueError: an empty command or unbalanced quotes.
    """
    out = []
    for name, cmd in zip(bot_names(commands), commands, strict=True):
        argv = shlex.split(cmd)
        if not argv:
            raise ValueError("an empty bot command")
        try:
            out.append(BotEntry(name=name, command=argv))
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise ValueError(f"bot command {cmd!r}: {problem}") from None
    return out


async def play_single(rules: RulesConfig, commands: Sequence[str], *, seed: int | str,
                      time_ms: int, grace_ms: int, register_timeout_s: float = 30.0,
                      log_dir: Path | None = None,
                      sandbox: SandboxConfig | None = None) -> MatchOutcome:
    """Spawn the three bots, play one match (seat i = ``commands[i]``; seat 0 deals first),
    end the processes, return the result. ``sandbox``: the ``[sandbox]`` settings the bots
    run under, as in ``arena run`` (default: :class:`~arena.sandbox.SandboxConfig`'s, the
    bubblewrap sandbox); the bots dial the arena's Unix socket, bound into their sandboxes,
    and a bot stopped at a limit is reported by the limit's name.

    Raises:
        ValueError: not three commands, a bad command string, or a command that cannot start
            (pre-flight: program or script missing, not executable).
        BotStartError: a bot started but exited or did not register (nothing is played).
        SandboxUnavailable: ``mode = "bwrap"`` without bubblewrap installed.
    """
    from ..protocol.server import ArenaServer
    if len(commands) != 3:
        raise ValueError(f"a match needs 3 bot commands, got {len(commands)}")
    bots = entries(commands)
    problems = preflight(bots)
    if problems:
        raise ValueError("\n".join(problems))    # one line per bot
    logs = log_dir or Path(tempfile.mkdtemp(prefix="arena-play-"))
    os.makedirs(logs, exist_ok=True)

    def say(text: str) -> None:
        print(f"arena: {text}", file=sys.stderr, flush=True)

    launcher = Launcher(sandbox or SandboxConfig(), bots, socket=None, hide=[logs],
                        on_event=say)
    sockdir = SocketDir()
    launcher.socket = sockdir.socket
    server = ArenaServer("127.0.0.1:0", register_timeout_s=register_timeout_s,
                         on_warning=lambda text: say(f"WARNING: {text}"),
                         unix_socket=sockdir.socket)
    try:
        port = await server.start()
    except BaseException:
        sockdir.close()
        raise
    pool = BotPool(server, bots, server.unix_address or server_address("127.0.0.1:0", port),
                   logs, slots=1, register_timeout_s=register_timeout_s, max_crashes=1,
                   launcher=launcher)
    try:
        leased = await pool.acquire([b.name for b in bots])
        failed = [bot.gone_reason or f"bot {bot.name!r} did not start" for _, _, bot in leased
                  if isinstance(bot, UnavailableBot)]
        if failed:
            raise BotStartError("; ".join(failed))
        spec = MatchSpec("play", rules, seed=seed, time_ms=time_ms, grace_ms=grace_ms)
        procs = [inst.proc if inst is not None else None for _, inst, _ in leased]
        await launcher.begin([(p, bot) for p, (_, _, bot) in zip(procs, leased, strict=True)])
        result = await run_match(spec, [bot for _, _, bot in leased])
        await launcher.end(procs)
        return result
    finally:
        try:
            await pool.close()
        finally:
            try:
                await launcher.close()
                await server.stop()
            finally:
                sockdir.close()
