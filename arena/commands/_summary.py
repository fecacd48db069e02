"""Machine-readable (``--json``) summaries shared by ``arena play`` and ``arena replay``.

The JSON shapes are part of the CLI's interface (docs in README.md, "JSON output"): keys are
only ever added.
"""

from __future__ import annotations

import json
from typing import Any

from ..records import MatchRecord


def record_summary(record: MatchRecord) -> dict[str, Any]:
    """One match record as a JSON-ready dict.

    Keys: ``match_id``, ``preset``, ``names`` / ``versions`` / ``faults`` / ``forfeited`` /
    ``forfeit_reasons`` / ``scores`` / ``placings`` (lists by seat 0..2), ``hands``,
    ``decisions``, ``termination`` (``"normal"`` or ``"forfeit"``), ``end_reason``,
    ``started_at`` / ``ended_at`` (ISO 8601 UTC).
    """
    h, r = record.header, record.result
    seats = sorted(h.seats, key=lambda s: s.seat)
    return {
        "match_id": h.match_id, "preset": h.preset,
        "names": [s.name for s in seats], "versions": [s.version for s in seats],
        "scores": list(r.scores), "placings": list(r.placings),
        "faults": [s.faults for s in seats], "forfeited": [s.forfeited for s in seats],
        "forfeit_reasons": [s.forfeit_reason for s in seats],
        "hands": len(record.hands), "decisions": sum(len(x.decisions) for x in record.hands),
        "termination": h.termination, "end_reason": r.end_reason,
        "started_at": h.started_at, "ended_at": h.ended_at,
    }


def dumps(obj: Any) -> str:
    """``obj`` as one line of JSON (non-ASCII kept, keys in insertion order) plus a newline."""
    return json.dumps(obj, ensure_ascii=False) + "\n"
