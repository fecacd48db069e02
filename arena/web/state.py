"""The live page's state: a snapshot rebuilt from the tournament directory (read-only) plus the
matches in flight, kept from :mod:`arena.events`.

:meth:`LiveState.refresh` reads ``results.sqlite`` (read-only SQLite connection; the runner
writes in WAL mode, so reading never blocks it) and the bots' logs, and recomputes the
standings (:func:`arena.tournament.standings.compute_standings`, the terminal's), the rating
history (one Plackett-Luce fit without bootstrap per checkpoint) and the head-to-head matrix.
:meth:`LiveState.on_event` is an :class:`arena.events.EventBus` listener: O(1) per event.

Only files inside the tournament directory are read, and only these: ``results.sqlite``,
``logs/<safe bot name>.log`` and ``live/cards.json`` (records are read by
:mod:`arena.web.app`, by the path stored in the result row, checked to be inside
``records/``).

**What a snapshot holds of a duplicate block still being played.** The standings, rating
history and head-to-head use every stored result (what the standings need). Nothing else of
a match is listed before its whole block (the 6 seatings of one deal of one table, store rows
sharing ``block_id``) is stored: the finished-match list and its replay links, and the forfeit
reasons, come from complete blocks only (:meth:`arena.tournament.store.Store.complete_blocks`).
When the tournament has a remote bot (``hide_cards``; unknown counts as yes) the bots' log
tails wait for the tournament's end too: a log may name a bot's cards of a deal whose other
seatings are still to be played, and a remote bot's owner can read the page.
"""

from __future__ import annotations

import contextlib

import re
import sqlite3
import time
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..events import (DecisionApplied, DecisionsApplied, Event, MatchFinished, MatchStarted,
                      PublicTable)
from ..ratings import DEFAULT_BOOTSTRAP, RatingsInputError, rate
from ..ratings.headtohead import head_to_head
from ..safetext import printable
from ..tournament.lobby import LOBBY_KEY, note_from_json
from ..processes.pool import safe_filename
from ..processes.proctable import never_started
from ..tournament.standings import Standings, compute_standings
from ..tournament.store import ResultRow, Store, StoreError
from .eta import Eta, Finished, estimate

#: bytes of each bot's log shown on the page (its tail)
LOG_TAIL_BYTES = 4096
#: what the arena's tokens look like (``secrets.token_hex(16)``, arena.processes.pool): a bot
#: that prints its own ``ARENA_TOKEN`` does not get it shown on the page
TOKEN_LIKE = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{32,}(?![0-9a-fA-F])")
#: moves of a match in flight kept for its live view (the page lists the last 40; each
#: snapshot carries them for every match in flight)
LIVE_MOVES = 40
#: points of the rating-over-time plot (at most)
HISTORY_POINTS = 24
#: bootstrap resamples of the standings' likelihood of superiority while matches are pending
#: (the terminal's DEFAULT_BOOTSTRAP, 1,000, once the tournament is complete): a refresh after
#: each match costs the machine a third of the CPU; the 95% intervals do not depend on it
LIVE_BOOTSTRAP = 200
#: finished matches listed on the page (the most recent)
FINISHED_SHOWN = 100


@dataclass
class InFlight:
    """A running match: its seats, its public moves so far (:class:`DecisionApplied`) and
    its public table after the last batch; ``hidden``: its events show no card."""

    match_id: str
    seats: tuple[str, str, str]
    hidden: bool = False
    started: float = field(default_factory=time.time)   #: Unix time, s
    moves: deque[DecisionApplied] = field(default_factory=lambda: deque(maxlen=LIVE_MOVES))
    decisions: int = 0
    table: PublicTable | None = None

    def to_json(self) -> dict[str, object]:
        return {"id": self.match_id, "seats": list(self.seats), "decisions": self.decisions,
                "hidden": self.hidden, "started": round(self.started, 3),
                "table": None if self.table is None else self.table.to_json(),
                "moves": [_move_json(m) for m in self.moves]}


def _move_json(m: DecisionApplied) -> dict[str, object]:
    return {"i": m.index, "hand": m.hand, "seat": m.seat, "kind": m.kind, "action": m.action,
            "fault": m.fault}


@dataclass(frozen=True)
class Snapshot:
    """What the page shows, as of one :meth:`LiveState.refresh` (times: Unix seconds)."""

    name: str
    bots: tuple[str, ...]
    done: int
    scheduled: int
    eta: Eta | None             #: the time left (:mod:`arena.web.eta`), None while unknown
    standings: Standings
    #: (matches finished, {bot: Elo rating}) checkpoints, oldest first
    history: tuple[tuple[int, dict[str, float]], ...]
    #: (a, b) -> (matches, a above b, a below b, equal)
    head_to_head: dict[tuple[str, str], tuple[int, int, int, int]]
    finished: tuple[ResultRow, ...]        #: most recent first, of complete blocks only
    #: finished matches not listed yet: their duplicate block is still being played
    waiting: int
    #: bot -> (faults, forfeits, the last forfeit reasons)
    faults: dict[str, tuple[int, int, tuple[str, ...]]]
    log_tails: dict[str, str]              #: bot -> the printable tail of its log
    made_at: float
    #: why the log tails are not shown (None: they are)
    logs_held: str | None = None


class LiveState:
    """State of the tournament in directory ``out`` for the live page; ``secrets`` (the
    config's remote-bot tokens) are redacted from the log tails, as is anything token-like.
    ``private_logs``: never show the log tails (a league's: each is its owner's only).

    Raises (from :meth:`refresh`): StoreError when ``out`` holds no readable store.
    """

    def __init__(self, out: str | Path, secrets: tuple[str, ...] = (),
                 hide_cards: bool | None = None, *, private_logs: bool = False) -> None:
        self.out = Path(out).resolve()
        self.private_logs = private_logs
        #: strings never shown (the remote bots' tokens, when the config is known)
        self.secrets = tuple(s for s in secrets if s)
        #: the tournament has a remote bot (None: unknown, read from the arena's journal)
        self.hide_cards = hide_cards
        self.inflight: dict[str, InFlight] = {}
        self.snapshot: Snapshot | None = None
        self._history_cache: dict[int, dict[str, float] | None] = {}

    # -- events (runner side, O(1)) ------------------------------------------------------
    def on_event(self, event: Event) -> None:
        """Keep the matches in flight up to date (an :class:`EventBus` listener)."""
        if isinstance(event, MatchStarted):
            self.inflight[event.match_id] = InFlight(event.match_id, event.seats,
                                                     event.hidden)
        elif isinstance(event, DecisionsApplied):
            live = self.inflight.get(event.match_id)
            if live is not None:
                live.moves.extend(event.moves)
                live.decisions += len(event.moves)
                live.table = event.table or live.table
        elif isinstance(event, MatchFinished):
            self.inflight.pop(event.match_id, None)

    # -- the store (a worker thread) -----------------------------------------------------
    def results_count(self) -> int:
        """Finished matches in the store now (a cheap read for polling)."""
        return self.poll_key()[0]

    def poll_key(self) -> tuple[int, str]:
        """What a refresh would change with (a cheap read for polling): the finished
        matches and the lobby's entry (:mod:`arena.tournament.lobby`)."""
        with _readonly(self.out) as store:
            count: int = store.db.execute("SELECT count(*) FROM results").fetchone()[0]
            lobby = store.meta(LOBBY_KEY) or ""
        return count, lobby

    def refresh(self) -> Snapshot:
        """Rebuild the snapshot from the store and logs (blocking: run it in a thread)."""
        with _readonly(self.out) as store:
            results = store.results()
            scheduled = store.scheduled_count()
            name = store.meta("name") or self.out.name
            bots = _bot_names(store.db)
            absent = absence_notes(never_started(store.db))
            lobby = note_from_json(store.meta(LOBBY_KEY))
            complete = store.complete_blocks()
            pending = [m.seats for m in store.pending()]
        order = sorted(results, key=lambda r: r.ended_at)
        listed = [r for r in order if r.block in complete]
        held = self._logs_held(len(results) >= scheduled)
        standings = compute_standings(
            results, bots, absent=absent,
            bootstrap=LIVE_BOOTSTRAP if len(results) < scheduled else DEFAULT_BOOTSTRAP)
        if lobby is not None:    # the arena waits for remote bots: said under the standings
            standings = replace(standings, note="; ".join(n for n in (lobby, standings.note)
                                                           if n))
        snap = Snapshot(
            name=name, bots=bots, done=len(results), scheduled=scheduled,
            eta=estimate(_costs(order), pending),
            standings=standings,
            history=self._rating_history(order, bots, scheduled),
            head_to_head=_head_to_head(results, bots),
            finished=tuple(reversed(listed))[:FINISHED_SHOWN],
            waiting=len(order) - len(listed),
            faults=_faults(results, bots, complete),
            log_tails={} if held else {b: self.log_tail(b) for b in bots},
            made_at=time.time(), logs_held=held)
        self.snapshot = snap
        return snap

    def hides_cards(self) -> bool:
        """Whether the live views hide the cards: as told, else as the arena's journal says
        (``live/cards.json``; no such file: yes)."""
        if self.hide_cards is not None:
            return self.hide_cards
        from ..inflight import JournalReader
        return JournalReader(self.out).hidden() is not False

    def _logs_held(self, complete: bool) -> str | None:
        if self.private_logs:
            return ("A bot's log is its owner's only: the owner reads it on the bot's page "
                    "with its token.")
        if complete or not self.hides_cards():
            return None
        return ("The bots' log tails appear when the tournament is complete: a remote bot "
                "plays in it, and a log may name cards of a deal still being played.")

    def log_path(self, bot: str) -> Path:
        """``logs/<bot>.log`` as the bot pool names it (never outside ``logs/``)."""
        return self.out / "logs" / f"{safe_filename(bot)}.log"

    def log_tail(self, bot: str, limit: int = LOG_TAIL_BYTES) -> str:
        """The last ``limit`` bytes of the bot's log, whole lines, made printable ('' if none).
        """
        try:
            with open(self.log_path(bot), "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                f.seek(max(0, size - limit))
                data = f.read(limit)
        except OSError:
            return ""
        lines = data.decode("utf-8", "replace").splitlines()
        if size > limit and lines:
            lines = lines[1:]        # a cut first line
        return "\n".join(printable(redact_tokens(line, self.secrets)) for line in lines)

    def _rating_history(self, order: list[ResultRow], bots: tuple[str, ...],
                        scheduled: int) -> tuple[tuple[int, dict[str, float]], ...]:
        """Checkpoints every ``scheduled / HISTORY_POINTS`` matches (each fitted once and
        kept) plus the latest count."""
        n = len(order)
        step = max(1, -(-scheduled // HISTORY_POINTS))
        ks = [k for k in range(step, n + 1, step)] + ([n] if n % step else [])
        points: list[tuple[int, dict[str, float]]] = []
        for k in ks:
            if k not in self._history_cache:
                try:
                    report = rate(order[:k], bootstrap=0)   # stored rows are rated as they are
                except RatingsInputError:
                    self._history_cache[k] = None
                    continue
                self._history_cache[k] = {b.name: b.rating for b in report.bots}
            fitted = self._history_cache[k]
            if fitted is not None:
                points.append((k, fitted))
        for k in [k for k in self._history_cache if k % step and k != n]:
            del self._history_cache[k]   # an old "latest" point
        return tuple(points)


def absence_notes(never: dict[str, str]) -> dict[str, str]:
    """The status the terminal's standings show for each bot that never took part
    (:func:`arena.processes.proctable.never_started`: bot -> its last start failure):
    ``"did not connect"`` for a remote bot (the pool's reason starts ``remote bot``), else
    ``"never started"``."""
    return {bot: "did not connect" if reason.startswith("remote bot ") else "never started"
            for bot, reason in never.items()}


def redact_tokens(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every token-like run (:data:`TOKEN_LIKE`) and every string of
    ``secrets`` replaced by ``[redacted]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return TOKEN_LIKE.sub("[redacted]", text)


class _readonly:
    """``Store(out/results.sqlite, readonly=True)`` as a context manager."""

    def __init__(self, out: Path) -> None:
        path = out / "results.sqlite"
        if not path.is_file():
            raise StoreError(f"{out}: no tournament results here (missing results.sqlite)")
        self.store = Store(path, readonly=True)

    def __enter__(self) -> Store:
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store.close()


def _bot_names(db: sqlite3.Connection) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for row in db.execute("SELECT seat0, seat1, seat2 FROM schedule ORDER BY deal_idx, "
                          "table_idx, seating_idx"):
        for name in row:
            seen.setdefault(name)
    return tuple(seen)


def _costs(order: list[ResultRow]) -> list[Finished]:
    """The finished matches as :class:`arena.web.eta.Finished` (times that do not parse
    are left out)."""
    out: list[Finished] = []
    for r in order:
        try:
            a, b = (datetime.fromisoformat(t).timestamp() for t in (r.started_at, r.ended_at))
        except ValueError:
            continue
        out.append(Finished(r.players, r.decisions, r.think_ms, a, b))
    return out


def _head_to_head(results: list[ResultRow], bots: tuple[str, ...]
                  ) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """(a, b) -> (matches, a above b, a below b, tied) for the pairs that met: the ratings'
    head-to-head records (:func:`arena.ratings.headtohead.head_to_head`) keyed for the SVG."""
    return {(h.a, h.b): (h.matches, h.above, h.below, h.equal)
            for h in head_to_head(results, bots) if h.matches}


def _faults(results: list[ResultRow], bots: tuple[str, ...], complete: set[str]
            ) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """bot -> (faults, forfeits, the last 5 forfeit reasons): the counts over every result,
    the reasons (which name a match) from complete blocks only."""
    faults = dict.fromkeys(bots, 0)
    forfeits = dict.fromkeys(bots, 0)
    reasons: dict[str, list[str]] = {b: [] for b in bots}
    for r in results:
        for i, name in enumerate(r.players):
            faults[name] = faults.get(name, 0) + r.faults[i]
            forfeits.setdefault(name, 0)
            reasons.setdefault(name, [])
            if r.forfeits[i]:
                forfeits[name] += 1
                if r.block in complete:
                    reasons[name].append(f"{r.match_id}: {r.forfeit_reasons[i] or 'forfeited'}")
    return {b: (f, forfeits[b], tuple(reasons[b][-5:])) for b, f in faults.items()}


# -- snapshots rebuilt in a worker process ---------------------------------------------------
_WORKER_STATES: dict[tuple[str, tuple[str, ...], bool | None, bool], LiveState] = {}


def build_snapshot(out: str, secrets: tuple[str, ...], hide_cards: bool | None = None,
                   private_logs: bool = False) -> tuple[Snapshot, float]:
    """:meth:`LiveState.refresh` in a worker process (its rating-history cache kept there);
    returns the snapshot and the seconds it took."""
    t0 = time.perf_counter()
    key = (out, secrets, hide_cards, private_logs)
    state = _WORKER_STATES.setdefault(key, LiveState(out, secrets, hide_cards,
                                                     private_logs=private_logs))
    return state.refresh(), time.perf_counter() - t0


#: scheduling priority added to the snapshot worker (``nice``): on a busy machine the
#: standings' refreshes take the CPU the arena and the bots leave, instead of a share of it
WORKER_NICE = 10


def _worker_init(parent: int) -> None:
    """In the worker: ignore Ctrl-C (the arena stops it) and exit as soon as the arena is
    gone, however it ended (SIGKILL included): the parent death signal on Linux, and a
    watcher thread everywhere."""
    import os
    import signal
    import threading
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(0)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)   # the page's refreshes yield the CPU to the arena and its bots

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def _warm() -> None:
    """Import what a refresh needs (the worker's start, paid before the first refresh)."""
    from ..ratings import rate  # noqa: F401


#: the resource tracker's warning after its users died without cleaning up (a kill -9): it
#: removes what they left, so on the operator's terminal the warning is only noise
_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the worker's queues register semaphores with
    it) with its leak warning off: it starts with the interpreter's ``-W`` options
    (``sys.warnoptions``), so the filter is added to them while it starts. A tracker already
    running is left as it is."""
    import sys
    from multiprocessing import resource_tracker
    added = _TRACKER_QUIET not in sys.warnoptions
    if added:
        sys.warnoptions.append(_TRACKER_QUIET)
    try:
        resource_tracker.ensure_running()
    finally:
        if added:
            sys.warnoptions.remove(_TRACKER_QUIET)


class SnapshotWorker:
    """Rebuilds the snapshots in one worker process (``spawn``), so the rating fits (the
    standings' bootstrap, the rating history) never hold the arena's interpreter lock: the
    runner keeps its pace while the page is refreshed. Close it when done; it also ends by
    itself when the arena dies (:func:`_worker_init`)."""

    def __init__(self) -> None:
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor
        _start_resource_tracker()
        self.pool = ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init, initargs=(os.getpid(),))
        self.pool.submit(_warm)
        #: seconds the last refresh took in the worker
        self.last_s = 0.0

    async def refresh(self, state: LiveState) -> Snapshot:
        """``state.refresh()`` done by the worker; sets and returns ``state.snapshot``."""
        import asyncio
        loop = asyncio.get_running_loop()
        snap, self.last_s = await loop.run_in_executor(self.pool, build_snapshot,
                                                       str(state.out), state.secrets,
                                                       state.hide_cards, state.private_logs)
        state.snapshot = snap
        return snap

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
