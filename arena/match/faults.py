"""Typed faults and forfeits, shared by the bot adapters, the match runner, the pool and records.

A **fault** is one unusable answer (docs/protocol.md, "Faults"): the runner plays a fallback
for that decision and counts it. A **forfeit** ends a seat's part in a match: after
``max_faults`` faults, at once on a disconnect (stream closed, process gone, or a bot that was
never available: not started, disqualified), or when a start / end notification fails.

The enum values are the strings written to match records (``fault`` of a decision) since the
first record format: a :class:`FaultKind` equals its value (``FaultKind.TIMEOUT == "timeout"``),
so old records and stores read back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["FAULT_KINDS", "FaultKind", "Forfeit"]


class FaultKind(StrEnum):
    """Why one answer was unusable (the ``fault`` of a recorded decision).

    - ``ILLEGAL``: an action code the rules do not allow at that point;
    - ``TIMEOUT``: no answer within the time per decision (+ time bank + grace); the bot is told
      ``late``;
    - ``MALFORMED``: an answer that is not an action;
    - ``ERROR``: the bot reported an error (or an in-process policy raised);
    - ``DISCONNECT``: the stream closed or the process is gone (a crash is a disconnect).
    """

    ILLEGAL = "illegal"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    ERROR = "error"
    DISCONNECT = "disconnect"


#: every fault kind, in the order of :class:`FaultKind` (each equal to its string value)
FAULT_KINDS: tuple[FaultKind, ...] = tuple(FaultKind)


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Why a seat forfeited its match.

    Attributes:
        kind: the fault behind it: ``DISCONNECT`` for a lost or never-available bot, ``ERROR``
            for a failed start / end notification, else the kind of the last of the
            ``max_faults`` faults.
        detail: the text stored as the seat's ``forfeit_reason`` in records and results
            (``"disconnect: stream closed"``, ``"3 faults (last: timeout)"``, a disqualification
            reason...); ``str(forfeit)`` is this text.
    """

    kind: FaultKind
    detail: str

    def __str__(self) -> str:
        return self.detail

    @classmethod
    def disconnect(cls, detail: str) -> Forfeit:
        """A lost bot: ``"disconnect: <detail>"``."""
        return cls(FaultKind.DISCONNECT, f"disconnect: {detail}")

    @classmethod
    def error(cls, detail: str) -> Forfeit:
        """A failed notification: ``"error: <detail>"``."""
        return cls(FaultKind.ERROR, f"error: {detail}")

    @classmethod
    def too_many_faults(cls, count: int, last: FaultKind) -> Forfeit:
        """``count`` faults in one match, the last one of kind ``last``."""
        return cls(last, f"{count} faults (last: {last})")

    @classmethod
    def gone(cls, reason: str | None) -> Forfeit:
        """A bot already gone when asked: its :attr:`arena.match.Bot.gone_reason` verbatim,
        or ``"disconnect: bot is gone"``."""
        return cls(FaultKind.DISCONNECT, reason or "disconnect: bot is gone")
