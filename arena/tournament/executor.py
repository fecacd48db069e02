"""The seam between the tournament runner and where matches are played.

The runner (``runner.py``) keeps the schedule, the store, the records, standings and progress;
a **match executor** plays one scheduled match and hands back a :class:`PlayedMatch` (the store
row and the record file's bytes, :func:`played_from_result`). ``LocalExecutor`` (``local.py``)
plays in this process with one gRPC server and one bot pool; ``RayExecutor``
(``arena/cluster/``) on Ray actors, each with its own server and pool on its node. The runner
writes what an executor returns, so a match is stored whole or not at all, whichever executor
played it.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..events import MatchFinished
from ..match import MatchOutcome
from ..records import record_from_result
from ..records.codec import dumps_record
from ..sandbox import Usage
from .schedule import ScheduledMatch
from .store import ResultRow

_T = TypeVar("_T")


def record_relpath(match_id: str) -> str:
    """Where a match's record lives, relative to the output directory."""
    return f"records/{match_id}.jsonl.gz"


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match as the runner stores it.

    ``row`` is the store row (its ``record`` is :func:`record_relpath`); ``record`` is the
    gzip-compressed JSON Lines record (docs/records.md), exactly the bytes of
    ``records/<match>.jsonl.gz``.
    """

    row: ResultRow
    record: bytes

    def finished(self) -> MatchFinished:
        """The :class:`arena.events.MatchFinished` to publish once this match is stored."""
        row = self.row
        return MatchFinished(row.match_id, row.players, row.places, row.scores, row.record)


class MatchExecutor(Protocol):
    """Plays scheduled matches for the runner.

    ``slots``: how many matches it plays at once (the runner keeps that many in flight).
    ``disqualifications``: one line per bot disqualified so far (end-of-run summary).
    ``start()`` is awaited once before ``play``; ``close()`` once at the end, also after an
    error or cancellation, and must end every bot process it started.
    """

    slots: int

    @property
    def disqualifications(self) -> list[str]: ...

    async def start(self) -> None: ...

    async def play(self, m: ScheduledMatch) -> PlayedMatch: ...

    async def close(self) -> None: ...


def result_row(m: ScheduledMatch, result: MatchOutcome, record: str,
               usage: list[Usage | None] | None = None) -> ResultRow:
    """The store row of a finished match (``usage``: per seat, the sandbox's accounting)."""
    usage = usage or [None, None, None]
    return ResultRow(
        match_id=m.match_id, block=m.block_id, players=m.seats, status=result.termination,
        places=_three(result.placings), scores=result.scores, faults=_three(result.faults),
        forfeits=_three(result.forfeited), forfeit_reasons=_three(result.forfeit_reasons),
        end_reason=result.state.end_reason, hands=result.state.hand_number,
        decisions=_three(result.decisions_asked),
        think_ms=_three([round(t, 3) for t in result.think_ms]),
        started_at=result.started_at, ended_at=result.ended_at, record=record,
        cpu_s=_three([u.cpu_s if u else None for u in usage]),
        peak_mib=_three([u.peak_mib if u else None for u in usage]))


def _three(values: Sequence[_T]) -> tuple[_T, _T, _T]:
    """Per-seat values as a 3-tuple. Raises ValueError when there are not three."""
    first, second, third = values
    return first, second, third


def played_from_result(m: ScheduledMatch, result: MatchOutcome,
                       usage: list[Usage | None] | None = None) -> PlayedMatch:
    """The store row and record bytes of ``result`` (the bytes ``write_record`` would write:
    gzip with ``mtime=0``, so equal games give equal files); ``usage``: per seat, the
    sandbox's CPU / peak-memory accounting."""
    data = gzip.compress(dumps_record(record_from_result(result)).encode("utf-8"),
                         compresslevel=6, mtime=0)
    return PlayedMatch(result_row(m, result, record_relpath(m.match_id), usage), data)
