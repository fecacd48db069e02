"""Hand points, match end and placings: pure functions (RULES.md 2.6, 2.9, 5 and 7).

Per-seat tuples are indexed by seat 0..2.
"""

from __future__ import annotations

from collections.abc import Sequence

from .config import RulesConfig


def hand_points(tricks_won: Sequence[int], targets: Sequence[int], limits: Sequence[int],
                misere: bool) -> tuple[int, int, int]:
    """Points per seat of a finished hand: ``tricks - target``, or in misère
    ``limit - tricks`` (RULES.md 2.6). Example W11 (six-contracts, targets S0 3 / S1 8 / S2 5):
    tricks (1, 10, 5) -> (-2, +2, 0)."""
    if misere:
        return (limits[0] - tricks_won[0], limits[1] - tricks_won[1], limits[2] - tricks_won[2])
    return (tricks_won[0] - targets[0], tricks_won[1] - targets[1], tricks_won[2] - targets[2])


def end_reason(cfg: RulesConfig, hand_number: int, scores: Sequence[int],
               tricks_won: Sequence[int], misere: bool) -> tuple[str | None, int | None]:
    """Whether the match ends after hand ``hand_number`` (1-based) is complete.

    Returns ``(reason, twelve_trick_winner)``: reason is ``"twelve-tricks"``, ``"score"``,
    ``"hands"``, ``"hand-cap"`` or None (play on). Rules, in order:

    1. ``twelve_trick_win`` and not misère: a seat with 12+ tricks wins at once.
    2. ``end_score``: a total >= +N (or <= -N with ``end_score_either_sign``) ends the match,
       unless first place is shared and ``tie_break == "continue"``.
    3. ``end_hands``: after that many hands the match ends, unless first place is shared and
       ``tie_break`` is ``"continue"``, or ``"extra-hands"`` with fewer than
       ``tie_extra_hands`` extra hands played so far.
    4. ``hand_cap`` always ends the match.
    """
    if cfg.twelve_trick_win and not misere:
        for s in range(3):
            if tricks_won[s] >= 12:
                return "twelve-tricks", s
    top_shared = sorted(scores)[1] == max(scores)
    if cfg.end_score is not None and (
            max(scores) >= cfg.end_score
            or (cfg.end_score_either_sign and min(scores) <= -cfg.end_score)):
        if not (top_shared and cfg.tie_break == "continue"):
            return "score", None
    if cfg.end_hands is not None and hand_number >= cfg.end_hands:
        if not top_shared or cfg.tie_break == "shared":
            return "hands", None
        if cfg.tie_break == "extra-hands" and hand_number - cfg.end_hands >= cfg.tie_extra_hands:
            return "hands", None
    if hand_number >= cfg.hand_cap:
        return "hand-cap", None
    return None, None


def placings(scores: Sequence[int], twelve_trick_winner: int | None) -> tuple[int, int, int]:
    """Competition ranking by match score (equal scores share: (1, 1, 3)); a 12-trick winner
    is first and the other two are ranked by score below him (RULES.md 5, 7)."""
    w = twelve_trick_winner
    if w is None:
        return tuple(1 + sum(scores[o] > scores[s] for o in range(3)) for s in range(3))  # type: ignore[return-value]
    return tuple(1 if s == w else 2 + sum(scores[o] > scores[s] for o in range(3) if o != w)
                 for s in range(3))  # type: ignore[return-value]
