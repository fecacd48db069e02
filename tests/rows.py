"""A stored result row for tests: the fields a test does not care about take plain values."""

from __future__ import annotations

from typing import Any

from arena.tournament.store import ResultRow


def result_row(match_id: str, block: str, players: tuple[str, str, str],
               **fields: Any) -> ResultRow:
    """A normal (no forfeit, no fault) one-hand result of ``match_id``; ``fields`` override
    any other :class:`ResultRow` field (places 1, 2, 3 and scores 0 by default)."""
    values: dict[str, Any] = {
        "status": "normal", "places": (1, 2, 3), "scores": (0, 0, 0), "faults": (0, 0, 0),
        "forfeits": (False, False, False), "forfeit_reasons": (None, None, None),
        "end_reason": "hand-cap", "hands": 1, "decisions": (1, 1, 1),
        "think_ms": (1.0, 1.0, 1.0), "started_at": "s", "ended_at": "e",
        "record": f"records/{match_id}.jsonl.gz"}
    values.update(fields)
    return ResultRow(match_id=match_id, block=block, players=players, **values)
