"""The seam between the tournament runner and where matches are played (issue 15).

The runner (``runner.py``) keeps the schedule, the store, the records, standings and progress;
a **match executor** plays one scheduled match and hands back a :class:`PlayedMatch` (the store
row and the record file's bytes). ``LocalExecutor`` (``runner.py``) plays in this process with
one gRPC server and one bot pool; ``RayExecutor`` (``arena/cluster/``) on Ray actors, each with
its own server and pool on its node. The runner writes what an executor returns, so a match is
stored whole or not at all, whichever executor played it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .schedule import ScheduledMatch
from .store import ResultRow


def record_relpath(match_id: str) -> str:
    """Where a match's record lives, relative to the output directory."""
    return f"records/{match_id}.jsonl.gz"


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match as the runner stores it.

    ``row`` is the store row (its ``record`` is :func:`record_relpath`); ``started_at`` /
    ``ended_at`` are ISO-8601 UTC times; ``record`` is the gzip-compressed JSON Lines record
    (docs/records.md), exactly the bytes of ``records/<match>.jsonl.gz``.
    """

    row: ResultRow
    started_at: str
    ended_at: str
    record: bytes


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
