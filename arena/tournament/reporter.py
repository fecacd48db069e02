"""What the tournament runner tells the person running it: progress events and their reporter.

The runner does not print; it emits :data:`ProgressEvent` values to a :data:`Reporter` (any
callable taking one event; it must not block). :class:`ConsoleReporter` is the one ``arena
run`` uses: a rich progress bar on a terminal, plain lines otherwise (CI, pipes), nothing but
notices and warnings with ``--quiet``; every message also goes to the ``arena.tournament``
log (``OUT/arena.log``).

Events, in the order a run emits them: :class:`Notice` (any time: leftover processes ended, the
sandbox in force), :class:`RunStarted` (scheduled and already finished matches),
:class:`Message` (the bot pool's one-line news: starts, crashes, restarts) and
:class:`Alert` (security and process warnings) while matches play, one :class:`MatchStored`
per finished match once its record and row are written, and :class:`RunEnded` last (also after
an error or a cancellation). The live web page's per-decision events are another stream
(:mod:`arena.events`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from ..safetext import printable
from .schedule import ScheduledMatch
from .store import ResultRow

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

log = logging.getLogger("arena.tournament")


@dataclass(frozen=True)
class RunStarted:
    """Matches are about to be played: ``scheduled`` in all, ``done`` of them stored earlier."""

    scheduled: int
    done: int


@dataclass(frozen=True)
class Notice:
    """A line shown even with ``--quiet`` (not logged: the runner logs what it needs)."""

    text: str


@dataclass(frozen=True)
class Message:
    """A progress message (may quote a bot's log line): logged, shown unless quiet."""

    text: str


@dataclass(frozen=True)
class Alert:
    """A security or process warning: always shown (even with ``--quiet``), in red on a bar."""

    text: str


@dataclass(frozen=True)
class MatchStored:
    """A match finished and its record and result row are stored."""

    match: ScheduledMatch
    row: ResultRow


@dataclass(frozen=True)
class RunEnded:
    """No more matches will be played (the end of the run, an error or a cancellation)."""


ProgressEvent = RunStarted | Notice | Message | Alert | MatchStored | RunEnded
#: where the runner sends its progress events; called on the runner's thread, must not block
Reporter = Callable[[ProgressEvent], None]


class ConsoleReporter:
    """Progress on stderr: a rich bar on a terminal (``stream.isatty()``), else one plain line
    per match; ``enabled=False`` (``--quiet``) shows only notices and warnings."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.total = self.done = self.faults = 0
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, event: ProgressEvent) -> None:
        match event:
            case RunStarted(scheduled, done):
                self.total, self.done = scheduled, done
                self._start_bar()
            case Notice(text):
                self._print(text)
            case Message(text):
                self._message(text)
            case Alert(text):
                self._print(f"arena: WARNING: {text}", style="bold red")
            case MatchStored(match, row):
                self._advance(match, row)
            case RunEnded():
                if self.bar is not None:
                    self.bar.stop()
                    self.bar = None

    def _start_bar(self) -> None:
        if not (self.enabled and self.stream.isatty()) or self.bar is not None:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        self.bar = Progress(TextColumn("[bold]matches"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("faults {task.fields[faults]}"), TimeElapsedColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(),
                            console=Console(file=self.stream), transient=False)
        self.task = self.bar.add_task("matches", total=self.total, completed=self.done,
                                      faults=0)
        self.bar.start()

    def _print(self, line: str, style: str | None = None) -> None:
        if self.bar is not None:
            self.bar.console.print(line, markup=False, highlight=False, style=style)
        else:
            print(line, file=self.stream, flush=True)

    def _message(self, text: str) -> None:
        log.info("%s", text)   # also in OUT/arena.log
        if self.enabled:
            self._print(printable(text))   # it may quote a bot's log line

    def _advance(self, m: ScheduledMatch, row: ResultRow) -> None:
        self.done += 1
        self.faults += sum(row.faults)
        log.info("match %s done: placings %s, faults %s", m.match_id,
                 dict(zip(m.seats, row.places, strict=True)), list(row.faults))
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=1, faults=self.faults)
        elif self.enabled:
            places = " ".join(f"{n}:{p}" for n, p in zip(m.seats, row.places, strict=True))
            print(f"[{self.done}/{self.total}] {m.match_id} {places}"
                  + (f" faults {sum(row.faults)}" if any(row.faults) else ""),
                  file=self.stream, flush=True)
