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


def top_shared(scores: Sequence[int]) -> bool:
    """Whether first place is shared: two or three seats have the highest match score."""
    a, b, c = scores
    top = max(a, b, c)
    return (a == top) + (b == top) + (c == top) > 1


def end_condition(cfg: RulesConfig, hand_number: int, scores: Sequence[int]) -> str | None:
    """The end condition that holds after hand ``hand_number`` (1-based) with match scores
    ``scores``, before ties and the hand cap are considered (RULES.md 2.9, 3, 5):
    ``"score"`` when a total is >= ``+end_score`` (or <= ``-end_score`` with
    ``end_score_either_sign``), else ``"hands"`` when ``hand_number >= end_hands``, else None."""
    n = cfg.end_score
    if n is not None and (max(scores) >= n or (cfg.end_score_either_sign and min(scores) <= -n)):
        return "score"
    if cfg.end_hands is not None and hand_number >= cfg.end_hands:
        return "hands"
    return None


def end_reason(cfg: RulesConfig, hand_number: int, scores: Sequence[int],
               tricks_won: Sequence[int], misere: bool,
               hand_points: Sequence[Sequence[int]] = ()) -> tuple[str | None, int | None]:
    """The one end-of-match decision, taken after hand ``hand_number`` (1-based) is complete
    (RULES.md 2.9, 5 "ties at the end", 7).

    Args:
        cfg: the rules.
        hand_number: the hand just completed.
        scores: match scores per seat after it.
        tricks_won: tricks per seat in it; misere: whether it was a misère hand.
        hand_points: the points per seat of the match's hands so far, this one last (as
            ``MatchState.hand_points``); the scores after earlier hands are worked back from
            them. Only ``tie_break="extra-hands"`` reads them, from the end and only while
            first place was shared (at most ``tie_extra_hands`` hands back). Hands older than
            the list count as a consistent past (the match went on), so a hand limit reached
            before them still starts the extra hands.

    Returns:
        ``(reason, twelve_trick_winner)``: reason ``"twelve-tricks"``, ``"score"``,
        ``"hands"``, ``"hand-cap"`` or None (play on); the winner seat with ``"twelve-tricks"``.

    Rules, in order:

    1. ``twelve_trick_win`` and not misère: a seat with 12+ tricks wins at once, ties or not.
    2. An end condition (:func:`end_condition`) ends the match when first place is not shared.
       When it is shared, ``tie_break`` decides, whatever the condition:

       - ``"shared"``: the match ends at once; equal scores share first place.
       - ``"continue"``: play on; after every hand the conditions are checked afresh.
       - ``"extra-hands"``: up to ``tie_extra_hands`` ordinary hands more. The match ends after
         the first of them that leaves first place not shared (even if the condition no longer
         holds), or after the last one (first place then shared). The reason stays the
         condition that started the extra hands.
    3. ``hand_cap`` ends the match when nothing above did.

    Worked examples (sergeant-major: hand limit 10, 3 extra hands; six-three-eight: +/-10,
    ties shared; blato: +21, ties continue):

    - sergeant-major, hand 10, scores (3, 3, -6): tie at the top, extra hand 11. Hand 11
      (4, 3, -7): ends, reason "hands", placings (1, 2, 3). Still (3, 3, -6) after hands 11,
      12 and 13: ends after hand 13 with first place shared (1, 1, 3).
    - sergeant-major with ``end_score=10`` (either sign), hand 6, scores (5, 5, -10): -10
      reached, first place shared: extra hands 7, 8, 9 as above, reason "score".
    - six-three-eight, hand 5, scores (10, 10, -20): ends at once, placings (1, 1, 3).
    - blato, hand 9, scores (22, 22, -44): play on; hand 10 (23, 20, -43): ends, "score".
    - sergeant-major, hand 10, scores (6, -3, -3): the tie is below first place: ends,
      placings (1, 2, 2).

    The same, run (``hand_points`` as ``MatchState`` passes it; hand 9 ended (0, 2, -2), so
    the tie starts at hand 10)::

        >>> from arena.rules import make_config
        >>> sm, tricks = make_config("sergeant-major"), (8, 5, 3)
        >>> end_reason(sm, 10, (3, 3, -6), tricks, False, [(3, 1, -4)])
        (None, None)
        >>> end_reason(sm, 11, (4, 3, -7), tricks, False, [(3, 1, -4), (1, 0, -1)])
        ('hands', None)
        >>> placings((4, 3, -7), None)
        (1, 2, 3)
        >>> still = [(3, 1, -4), (0, 0, 0), (0, 0, 0)]
        >>> end_reason(sm, 12, (3, 3, -6), tricks, False, still)
        (None, None)
        >>> end_reason(sm, 13, (3, 3, -6), tricks, False, [*still, (0, 0, 0)])
        ('hands', None)
        >>> placings((3, 3, -6), None)
        (1, 1, 3)
        >>> either = sm.replace(end_score=10, end_score_either_sign=True)
        >>> end_reason(either, 6, (5, 5, -10), tricks, False, [(5, 5, -10)])
        (None, None)
        >>> end_reason(either, 9, (5, 5, -10), tricks, False, [(5, 5, -10), *[(0, 0, 0)] * 3])
        ('score', None)
        >>> end_reason(make_config("six-three-eight"), 5, (10, 10, -20), (8, 6, 3), False)
        ('score', None)
        >>> blato = make_config("blato")
        >>> end_reason(blato, 9, (22, 22, -44), (3, 8, 5), False)
        (None, None)
        >>> end_reason(blato, 10, (23, 20, -43), (3, 8, 5), False)
        ('score', None)
        >>> end_reason(sm, 10, (6, -3, -3), tricks, False), placings((6, -3, -3), None)
        (('hands', None), (1, 2, 2))
        >>> end_reason(sm, 4, (4, -2, -2), (12, 2, 2), False)   # 12 tricks win at once
        ('twelve-tricks', 0)
    """
    if cfg.twelve_trick_win and not misere:
        for s in range(3):
            if tricks_won[s] >= 12:
                return "twelve-tricks", s
    now = end_condition(cfg, hand_number, scores)
    shared = top_shared(scores)
    tie_break = cfg.tie_break
    if tie_break == "extra-hands":
        start, started_by = _tie_break_start(cfg, hand_number, scores, hand_points)
        if now is not None and shared and start is None:
            start, started_by = hand_number, now          # a tie-break starts with this hand
        if start is not None and (not shared or hand_number - start >= cfg.tie_extra_hands):
            return started_by, None
        if now is not None and not shared:
            return now, None
    elif now is not None and (not shared or tie_break == "shared"):
        return now, None
    if hand_number >= cfg.hand_cap:
        return "hand-cap", None
    return None, None


def _tie_break_start(cfg: RulesConfig, hand_number: int, scores: Sequence[int],
                     hand_points: Sequence[Sequence[int]]) -> tuple[int | None, str | None]:
    """The first hand of the tie-break in progress before hand ``hand_number`` and the
    condition that started it: the earliest hand, among the run of hands just before it that
    all ended with first place shared (at most ``tie_extra_hands`` back), at which an end
    condition held; ``(None, None)`` when there is none. See :func:`end_reason`."""
    window = cfg.tie_extra_hands
    start = reason = None
    a, b, c = scores
    back = 0
    for i in range(len(hand_points) - 1, -1, -1):
        pa, pb, pc = hand_points[i]
        a, b, c = a - pa, b - pb, c - pc                 # the scores after hand n - back - 1
        top = a if a >= b else b
        top = max(top, c)
        if back == window or (a == top) + (b == top) + (c == top) < 2:
            return start, reason
        back += 1
        cond = end_condition(cfg, hand_number - back, (a, b, c))
        if cond is not None:
            start, reason = hand_number - back, cond
        if hand_number - back <= 1:
            return start, reason
    # the history ran out while first place was shared: an older hand limit still counts
    oldest = hand_number - back - 1
    if back < window and cfg.end_hands is not None and 1 <= cfg.end_hands <= oldest:
        return max(cfg.end_hands, hand_number - window), "hands"
    return start, reason


def placings(scores: Sequence[int], twelve_trick_winner: int | None) -> tuple[int, int, int]:
    """Competition ranking by match score (equal scores share: (1, 1, 3)); a 12-trick winner
    is first and the other two are ranked by score below him (RULES.md 5, 7)."""
    w = twelve_trick_winner
    if w is None:
        return tuple(1 + sum(scores[o] > scores[s] for o in range(3)) for s in range(3))  # type: ignore[return-value]
    return tuple(1 if s == w else 2 + sum(scores[o] > scores[s] for o in range(3) if o != w)
                 for s in range(3))  # type: ignore[return-value]
