"""The in-flight journal: what a running arena leaves in its tournament directory so that a
separate, read-only reader (``arena serve DIR`` in another process) can show the matches in
flight.

Layout, in the tournament directory ``OUT``:

- ``OUT/live/<match>.jsonl``: one file per match in flight (``<match>`` is the match id made
  file-name safe), created when the match starts and **removed once its result row is
  stored** (or when the arena stops; a killed arena's files are removed by the next arena on
  the directory, and readers skip files whose writer process is gone).
- Line 1, the header: ``{"v": 2, "match": ID, "seats": [3 names], "hidden": BOOL, "pid": P,
  "ticks": T, "host": H, "started": UNIX_S}`` (``T``: the writer's start time in clock ticks
  since boot, ``/proc/PID/stat``, so a recycled pid is not taken for the writer; ``hidden``:
  the events show no card, :mod:`arena.events`). Each further line is either one applied
  decision, a JSON array ``[index, hand, seat, kind, action, fault or null, think_ms]`` (the
  fields of :class:`arena.events.DecisionApplied`; private cards are already ``"a card"``),
  or, after each batch of decisions, the match's public table, ``{"table": {...}}``
  (:meth:`arena.events.PublicTable.to_json`).
- ``OUT/live/cards.json``: ``{"v": 2, "hidden": BOOL}``, written when the arena starts its
  first match and kept: whether this tournament's live views hide the cards (it has a remote
  bot), for a reader that finds no match in flight.

Only the arena's user can read it: the directory is made ``0700`` and each file created
``0600`` (an existing directory is closed to others before the first file is written). The
journal carries nothing that the live page does not show.

Writing is append-only and whole lines only (``O_APPEND``): a reader takes the complete lines
and leaves a partial last one for its next read. Decisions are written in batches at most
every :data:`FLUSH_S` seconds (one ``write`` per match per batch), so the journal costs the
tournament a system call per match every 0.2 s, not one per decision. An I/O error disables
the journal (one warning in the arena's log); it never stops the tournament.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

from .events import (DecisionApplied, DecisionsApplied, Event, EventSink, MatchFinished,
                     MatchStarted, PublicTable)
from .processes.pool import safe_filename
from .processes.reaper import start_ticks

__all__ = ["FLUSH_S", "LIVE_DIR", "InflightJournal", "JournalReader", "journaled", "tee"]

#: the journal's directory inside the tournament directory
LIVE_DIR = "live"
#: the file in it that says whether the live views hide the cards
CARDS_FILE = "cards.json"
#: seconds decisions wait in memory before they are written (the live view's extra delay)
FLUSH_S = 0.2
#: bytes read from one journal file in one poll at most (the rest comes at the next)
READ_LIMIT = 1 << 20
VERSION = 2

log = logging.getLogger("arena.inflight")
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode
T = TypeVar("T")


def tee(*sinks: EventSink | None) -> EventSink | None:
    """One sink calling each of ``sinks`` (None ones left out) in order; None if none."""
    real = [s for s in sinks if s is not None]
    if not real:
        return None
    if len(real) == 1:
        return real[0]

    def both(event: Event) -> None:
        for sink in real:
            sink(event)
    return both


async def journaled(out: Path, run: Callable[[EventSink], Awaitable[T]],
                    also: EventSink | None = None) -> T:
    """``await run(sink)`` where ``sink`` writes the in-flight journal of ``out`` (and passes
    every event on to ``also``); the journal's files are removed when ``run`` ends, however
    it ends."""
    journal = InflightJournal(out)
    sink = tee(journal, also)
    try:
        return await run(journal if sink is None else sink)
    finally:
        journal.close()


@dataclass
class _Writing:
    fd: int
    path: Path
    held: list[DecisionApplied] = field(default_factory=list)
    table: PublicTable | None = None


class InflightJournal:
    """An :data:`arena.events.EventSink` writing ``OUT/live/`` (see the module docstring).

    Call it only while holding the tournament directory's lock (the runner publishes events
    only then): at its first event it removes the files a killed arena left behind.
    ``flush_s``: seconds decisions are held before being written (0: at once).
    """

    def __init__(self, out: Path, flush_s: float = FLUSH_S) -> None:
        self.dir = Path(out) / LIVE_DIR
        self.flush_s = flush_s
        self._open: dict[str, _Writing] = {}
        self._swept = False
        self._timer: asyncio.TimerHandle | None = None
        self.disabled = False
        self._header = {"v": VERSION, "pid": os.getpid(), "ticks": start_ticks(os.getpid()),
                        "host": socket.gethostname()}

    def __call__(self, event: Event) -> None:
        if self.disabled:
            return
        try:
            if isinstance(event, DecisionsApplied):
                w = self._open.get(event.match_id)
                if w is not None:
                    w.held.extend(event.moves)    # encoded at the flush, in one batch
                    w.table = event.table or w.table
                    self._schedule()
            elif isinstance(event, MatchStarted):
                self._start(event)
            elif isinstance(event, MatchFinished):
                self._end(event.match_id)
        except OSError as exc:
            self._disable(exc)

    def _start(self, event: MatchStarted) -> None:
        if not self._swept:
            self._sweep(event.hidden)
        self._end(event.match_id)       # a match restarted in the same run: a fresh file
        path = self.dir / f"{safe_filename(event.match_id)}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        header = {**self._header, "match": event.match_id, "seats": list(event.seats),
                  "hidden": event.hidden, "started": round(time.time(), 3)}
        os.write(fd, (json.dumps(header, ensure_ascii=True) + "\n").encode())
        self._open[event.match_id] = _Writing(fd, path)

    def _end(self, match_id: str) -> None:
        w = self._open.pop(match_id, None)
        if w is not None:
            os.close(w.fd)
            w.path.unlink(missing_ok=True)

    def _sweep(self, hidden: bool) -> None:
        """Make the directory (owner only), remove what a killed arena left, write
        :data:`CARDS_FILE`."""
        self.dir.mkdir(mode=0o700, exist_ok=True)
        if self.dir.stat().st_mode & 0o077:   # made by an older arena: close it first
            os.chmod(self.dir, 0o700)
        for old in self.dir.glob("*.jsonl"):
            old.unlink(missing_ok=True)
        tmp = self.dir / f".{CARDS_FILE}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps({"v": VERSION, "hidden": hidden}).encode() + b"\n")
        finally:
            os.close(fd)
        os.replace(tmp, self.dir / CARDS_FILE)
        self._swept = True

    def _schedule(self) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self.flush_s <= 0:
            self.flush()
        else:
            self._timer = loop.call_later(self.flush_s, self.flush)

    def flush(self) -> None:
        """Write the decisions held in memory (one ``write`` per match)."""
        self._timer = None
        try:
            for w in self._open.values():
                if w.held:
                    lines = [_ENCODE([e.index, e.hand, e.seat, e.kind, e.action, e.fault,
                                      round(e.think_ms, 1)]) + "\n" for e in w.held]
                    if w.table is not None:
                        lines.append(_ENCODE({"table": w.table.to_json()}) + "\n")
                    w.held.clear()
                    os.write(w.fd, "".join(lines).encode())
        except OSError as exc:
            self._disable(exc)

    def _disable(self, exc: OSError) -> None:
        log.warning("in-flight journal in %s disabled: %s (arena serve from another process "
                    "will not show matches in flight)", self.dir, exc.strerror or exc)
        self.disabled = True
        self.close()

    def close(self) -> None:
        """Remove the files of the matches still open (the arena stops)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for match_id in list(self._open):
            with contextlib.suppress(OSError):
                self._end(match_id)


@dataclass
class _Reading:
    match_id: str
    seats: tuple[str, str, str]
    hidden: bool
    pid: int
    ticks: int | None      #: the writer's start time (clock ticks since boot), if known
    local: bool            #: written on this host (its pid can be checked)
    file: BinaryIO         #: the open journal file
    rest: bytes = b""      #: a partial last line


class JournalReader:
    """Follows ``OUT/live/`` written by another process: :meth:`poll` returns the events
    that happened since the last poll (blocking file I/O: call it from a thread).

    A new file gives :class:`MatchStarted` and its decisions so far; new lines give one
    :class:`DecisionsApplied` per file and poll (with the last table read); a file removed,
    or whose writer (same host) is gone, gives a :class:`MatchFinished` with empty
    ``placings``, ``scores`` and ``record`` (the match was stored, or its arena stopped: the
    store says which). Malformed files and lines are skipped.
    """

    def __init__(self, out: Path) -> None:
        self.dir = Path(out) / LIVE_DIR
        self._host = socket.gethostname()
        self._reading: dict[str, _Reading] = {}   # file name -> state
        self._skipped: set[str] = set()            # names not to look at again

    def hidden(self) -> bool | None:
        """Whether the tournament's live views hide the cards (:data:`CARDS_FILE`); None
        when no arena wrote it (e.g. a directory from before it existed)."""
        try:
            with open(self.dir / CARDS_FILE, "rb") as f:
                data = json.loads(f.read(4096))
            return bool(data["hidden"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def poll(self) -> list[Event]:
        try:
            names = {n for n in os.listdir(self.dir) if n.endswith(".jsonl")}
        except OSError:
            names = set()
        events: list[Event] = []
        for name in list(self._reading):
            r = self._reading[name]
            if name not in names or (r.local and not _alive(r.pid, r.ticks)):
                self._forget(name)
                events.append(MatchFinished(r.match_id, r.seats, (), (), ""))
        self._skipped &= names
        for name in sorted(names - self._reading.keys() - self._skipped):
            started = self._open(name)
            if started is not None:
                events.append(started)
        for r in self._reading.values():
            events.extend(self._read(r))
        return events

    def _open(self, name: str) -> MatchStarted | None:
        try:
            f = open(self.dir / name, "rb")  # noqa: SIM115 (kept open across polls)
        except OSError:
            return None
        line = f.readline(65536)
        try:
            head = json.loads(line) if line.endswith(b"\n") else None
            if head is None:        # not written yet: try again at the next poll
                f.close()
                return None
            match_id, seats = str(head["match"]), tuple(str(s) for s in head["seats"])
            hidden = bool(head.get("hidden", True))
            pid, host = int(head["pid"]), str(head.get("host", ""))
            ticks = head.get("ticks")
            ticks = None if ticks is None else int(ticks)
            if head.get("v") != VERSION or len(seats) != 3:
                raise ValueError("unknown journal version")
        except (ValueError, KeyError, TypeError):
            f.close()
            self._skipped.add(name)
            return None
        local = host == self._host
        if local and not _alive(pid, ticks):
            f.close()
            self._skipped.add(name)
            return None
        three = (seats[0], seats[1], seats[2])
        self._reading[name] = _Reading(match_id, three, hidden, pid, ticks, local, f)
        return MatchStarted(match_id, three, hidden)

    def _read(self, r: _Reading) -> list[Event]:
        try:
            data = r.file.read(READ_LIMIT)
        except OSError:
            return []
        if not data:
            return []
        *lines, r.rest = (r.rest + data).split(b"\n")
        moves: list[DecisionApplied] = []
        table = None
        for line in lines:
            try:
                item = json.loads(line)
                if isinstance(item, dict):
                    table = PublicTable.from_json(item["table"])
                    continue
                i, hand, seat, kind, action, fault, think = item
                moves.append(DecisionApplied(r.match_id, int(i), int(hand), int(seat), str(kind),
                                             str(action), None if fault is None else str(fault),
                                             float(think)))
            except (ValueError, TypeError, KeyError):
                continue
        return [DecisionsApplied(r.match_id, tuple(moves), table)] if moves else []

    def _forget(self, name: str) -> None:
        r = self._reading.pop(name)
        r.file.close()

    def close(self) -> None:
        for name in list(self._reading):
            self._forget(name)


def _alive(pid: int, ticks: int | None) -> bool:
    """Whether the writer, process ``pid`` started at ``ticks`` (clock ticks since boot; None:
    unknown), still runs: a recycled pid (another start time) does not count."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return ticks is None or start_ticks(pid) in (ticks, None)
