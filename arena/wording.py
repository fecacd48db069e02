"""Small helpers for the words of messages and reports."""

from __future__ import annotations

__all__ = ["plural"]

_IRREGULAR = {"match": "matches", "crash": "crashes", "bench": "benches"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 hand"``, ``"2 hands"``, ``"0 matches"``: ``n`` and ``word`` in the right number
    (``many``: the plural when it is not ``word + "s"`` or a known form)."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many or _IRREGULAR.get(word, word + 's')}"
