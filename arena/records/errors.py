"""Typed errors of match records (:mod:`arena.records`).

Both derive from :class:`ValueError` (like the rules engine's errors), so "bad input" handlers
catch them; the ``arena replay`` command prints their one-line message and exits 1.
"""

from __future__ import annotations


class RecordError(ValueError):
    """A record file or object cannot be used: unreadable, truncated, not JSON Lines, an
    unknown ``schema_version``, a field of the wrong shape, or (subclass) a verification
    mismatch. The message is one line naming the file line / hand / field at fault."""


class RecordMismatch(RecordError):
    """Re-simulating a record with the rules engine disagrees with what it says.

    The message names the FIRST mismatch in match order, e.g.
    ``"hand 2, trick 5: winner: expected 1 (bob), found 0 (alice)"``.

    Attributes:
        where: location text (``"hand 2, trick 5"``, ``"hand 1, decision 7"``, ``"result"``).
        field: the field that differs (``"winner"``, ``"action"``, ``"points"`` ...).
        expected: what the engine computed (or None when the problem is not a comparison).
        found: what the record holds.
    """

    def __init__(self, where: str, field: str, expected: object = None, found: object = None,
                 *, message: str | None = None) -> None:
        text = message if message is not None else (
            f"{where}: {field}: expected {_show(expected)}, found {_show(found)}")
        super().__init__(text)
        self.where = where
        self.field = field
        self.expected = expected
        self.found = found


def _show(value: object) -> str:
    """Compact text of a compared value (lists of cards as ``[AS 10H]``)."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return "[" + " ".join(value) + "]"
    return repr(value) if isinstance(value, str) else str(value)
