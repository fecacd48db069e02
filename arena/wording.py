"""Small helpers for the words of messages and reports."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "plural", "unknown_choice"]

_IRREGULAR = {"match": "matches", "crash": "crashes", "bench": "benches"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 hand"``, ``"2 hands"``, ``"0 matches"``: ``n`` and ``word`` in the right number
    (``many``: the plural when it is not ``word + "s"`` or a known form)."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many or _IRREGULAR.get(word, word + 's')}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'hand_cap'?)"`` for the choice closest to ``word`` (difflib's ratio
    at least 0.6, as Python's own suggestions), else ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_choice(kind: str, word: str, choices: Iterable[str], many: str | None = None) -> str:
    """``"unknown preset 'sergent-major' (did you mean 'sergeant-major'?); valid presets:
    ..."``: the message for a name that is not one of ``choices`` (``many``: the plural of
    ``kind`` when it is not ``kind + "s"``)."""
    names = list(choices)
    return (f"unknown {kind} {word!r}{did_you_mean(word, names)}; valid {many or kind + 's'}: "
            f"{', '.join(names)}")
