"""The Ray actor that plays matches on its node (wrapped with ``ray.remote`` by the driver).

Each :class:`MatchWorker` owns a :class:`~arena.tournament.local.LocalExecutor` (one gRPC arena
server on loopback and one bot pool, one instance per bot) and plays one match at a time: the
bots run on the actor's node and the decision path never crosses the network. A reply carries
the :class:`~arena.tournament.executor.PlayedMatch` plus what the driver needs to keep the
output directory as with ``local``: the bots' new log bytes, the pool's messages and the crashes
counted during the match. Crash counting and disqualification are global, on the driver.

No bot outlives its worker: every bot process group is reported, as it is spawned, to a small
**reaper** process (its own session, so it survives the actor); when the actor dies in any way
(SIGKILL, node loss, the driver's job ending) the reaper's stdin reaches end-of-file and it
SIGKILLs every group still listed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ..errors import UserError
from ..processes.spawn import LIVE_GROUPS
from ..tournament.config import TournamentConfig
from ..tournament.executor import PlayedMatch
from ..tournament.schedule import ScheduledMatch

if TYPE_CHECKING:
    from ..tournament.local import LocalExecutor

#: crash limit given to a worker's own pool: the driver disqualifies, from global counts
_NO_LOCAL_LIMIT = 10**9

REAPER = r"""
import os, signal, sys
groups = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] == "+": groups.add(int(line[1:]))
    elif line[:1] == "-": groups.discard(int(line[1:]))
for g in groups:
    try: os.killpg(g, signal.SIGKILL)
    except OSError: pass
"""


class WorkerSetupError(UserError):
    """A worker cannot start on its node (missing bot directory, cannot bind loopback)."""


@dataclass(frozen=True)
class WorkerReply:
    """What a worker returns for one match.

    ``logs``: log file name -> bytes appended since the last reply; ``events``: the pool's
    one-line messages (paths under ``log_dir`` name the worker's temporary log directory);
    ``crashes``: bot name -> crashes counted during this match; ``node``: host name;
    ``starts``: the bot starts since the last reply, (bot, registered, error or None), for
    the driver's store (a bot that never started: exit status 3, as with ``local``).
    """

    played: PlayedMatch
    logs: dict[str, bytes] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    crashes: dict[str, int] = field(default_factory=dict)
    log_dir: str = ""
    node: str = ""
    starts: list[tuple[str, bool, str | None]] = field(default_factory=list)


class StartLog:
    """The worker pool's process tracker: keeps each start's outcome for the next reply (the
    processes themselves are the reaper's business, :class:`_ReaperFeed`)."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, bool, str | None]] = []

    def spawned(self, instance: str, bot: str, pgid: int, start_ticks: int) -> None:
        pass

    def ended(self, instance: str) -> None:
        pass

    def start_result(self, bot: str, ok: bool, error: str | None = None) -> None:
        self.starts.append((bot, ok, error))

    def take(self) -> list[tuple[str, bool, str | None]]:
        """The starts kept so far, forgotten here."""
        out, self.starts = self.starts, []
        return out


class _ReaperFeed:
    """Listener of :data:`~arena.processes.spawn.LIVE_GROUPS` in a worker: each group
    added or removed is written to the reaper (``+PGID`` / ``-PGID``, one per line)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self.pipe = pipe

    def __call__(self, change: str, pgid: int) -> None:
        try:
            self.pipe.write(f"{change}{pgid}\n".encode())
            self.pipe.flush()
        except (OSError, ValueError):
            pass


class MatchWorker:
    """A Ray actor body (see the module docstring).

    Args:
        cfg: the tournament config. base_dir: the directory bots start in (the driver's working
            directory on a shared filesystem); ``None`` keeps the actor's own (Ray's
            ``runtime_env`` working_dir copy).
    """

    def __init__(self, cfg: TournamentConfig, base_dir: str | None) -> None:
        faults = cfg.faults.model_copy(update={"max_crashes": _NO_LOCAL_LIMIT})
        self.cfg = cfg.model_copy(update={"faults": faults})
        self.base_dir = base_dir
        self.events: list[str] = []
        self.offsets: dict[str, int] = {}
        self.log_dir: Path | None = None
        self.reaper: subprocess.Popen[bytes] | None = None
        self.local: LocalExecutor | None = None
        self.start_log = StartLog()

    async def _start(self) -> LocalExecutor:
        from ..tournament.local import LocalExecutor
        if self.base_dir is not None:
            if not os.path.isdir(self.base_dir):
                raise WorkerSetupError(
                    f"node {socket.gethostname()}: the bots' directory {self.base_dir} does not "
                    "exist there; use a shared filesystem or [cluster] working_dir")
            os.chdir(self.base_dir)
        self.log_dir = Path(tempfile.mkdtemp(prefix="arena-worker-logs-"))
        self.reaper = reaper = subprocess.Popen(
            [sys.executable, "-c", REAPER], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            start_new_session=True)
        if reaper.stdin is None:            # cannot happen: stdin=PIPE
            raise RuntimeError("the reaper has no stdin pipe")
        LIVE_GROUPS.listener = _ReaperFeed(reaper.stdin)
        self.local = local = LocalExecutor(self.cfg, self.log_dir, self.events.append, slots=1,
                                           bind="127.0.0.1:0", tracker=self.start_log)
        await local.start()
        return local

    async def play(self, m: ScheduledMatch, disqualified: dict[str, str]) -> WorkerReply:
        """Play ``m``; bots in ``disqualified`` (name -> reason) forfeit as with ``local``."""
        local = self.local if self.local is not None else await self._start()
        if local.pool is None:              # cannot happen: LocalExecutor.start() made it
            raise RuntimeError("the worker's bot pool is not running")
        bots = local.pool.bots
        for name, reason in disqualified.items():
            if name in bots and not bots[name].disqualified:
                bots[name].disqualified = reason
        before = {n: st.crashes for n, st in bots.items()}
        played = await local.play(m)
        crashes = {n: st.crashes - before[n] for n, st in bots.items() if st.crashes > before[n]}
        events, self.events[:] = list(self.events), []
        return WorkerReply(played, self._new_logs(), events, crashes, str(self.log_dir),
                           socket.gethostname(), self.start_log.take())

    def _new_logs(self) -> dict[str, bytes]:
        logs: dict[str, bytes] = {}
        if self.log_dir is None:
            return logs
        for path in sorted(self.log_dir.glob("*.log")):
            start = self.offsets.get(path.name, 0)
            with open(path, "rb") as f:
                f.seek(start)
                data = f.read()
            if data:
                self.offsets[path.name] = start + len(data)
                logs[path.name] = data
        return logs

    async def pids(self) -> list[int]:
        """Process ids of this worker and its reaper (tests check they end)."""
        return [os.getpid()] + ([self.reaper.pid] if self.reaper else [])

    async def close(self) -> dict[str, bytes]:
        """End every bot process, stop the server and the reaper; returns the last log bytes."""
        logs: dict[str, bytes] = {}
        try:
            if self.local is not None:
                await self.local.close()
                logs = self._new_logs()
        finally:
            if self.reaper is not None:
                if self.reaper.stdin is not None:
                    self.reaper.stdin.close()   # EOF: the reaper kills what is left, then exits
                self.reaper.wait()
            if self.log_dir is not None:
                shutil.rmtree(self.log_dir, ignore_errors=True)
        return logs
