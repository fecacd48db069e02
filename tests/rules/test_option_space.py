"""Rule properties over random option combinations, not only the presets (hypothesis): every
option of ``RulesConfig`` and every value (``tests/rules/strategies.py``).

- a combination is either accepted or rejected with a ``RulesConfigError`` naming an option;
- an accepted combination plays to the end through the public API;
- no view shows a seat a card it has not seen (``tests/rules/seen.py`` is the oracle), in its
  hand, the kitty, discards, tricks, exchange events or its legal actions, and a state resampled
  from a view gives the same view;
- the match ends exactly when RULES.md 2.9, 5 and 7 say (an independent, hand-by-hand oracle).

Bounded: hand caps 1..6 (1..12 for the end-of-match test); the ``slow`` variants draw more.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import (OPTION_NAMES, Decision, MatchState, RulesConfigError, make_config,
                         mask_of)
from arena.rules.scoring import end_reason

from .seen import SeenCards, cards_named
from .strategies import accepted_configs, option_overrides
from arena.rules.view import view_of

QUICK = settings(max_examples=120, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
DEEP = settings(max_examples=400, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@settings(max_examples=300, deadline=None, database=None)
@given(drawn=option_overrides())
def test_every_combination_is_accepted_or_rejected_with_a_clear_error(drawn):
    preset, opts = drawn
    try:
        cfg = make_config(preset, **opts)
    except RulesConfigError as exc:
        text = str(exc)
        assert "\n" not in text
        assert any(name in text for name in (*OPTION_NAMES, "deck")), text
        return
    assert all(getattr(cfg, k) == (tuple(v) if isinstance(v, list) else v)
               for k, v in opts.items())
    assert make_config(preset, **{k: v for k, v in cfg.options().items() if k != "preset"}) == cfg


def _check_no_leak(cfg, seed: int, play_seed: int, sample_every: int) -> None:
    """Play a random match; at every step check every seat's view against the oracle, and
    every ``sample_every`` steps that a state resampled from each view gives the same view."""
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    seen = SeenCards(s)
    step = 0
    while not s.finished:
        legal = s.legal_actions()
        assert legal and legal == sorted(set(legal))
        for seat in range(3):
            v = view_of(s, seat)
            leak = cards_named(v) & ~seen.seen[seat]
            assert not leak, (f"seat {seat} is shown cards it has not seen: {leak:#x}", v)
            if seat == s.current_seat:
                assert v.legal_actions == tuple(legal)
            else:
                assert v.legal_actions == ()
            if step % sample_every == 0:
                assert view_of(MatchState.from_view(v, rng), seat) == v
        s.apply(rng.choice(legal))
        seen.update(s)
        step += 1
    assert s.placings is not None and s.hand_number <= cfg.hand_cap


@QUICK
@given(cfg=accepted_configs(), seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32))
def test_views_hide_what_a_seat_has_not_seen_under_any_accepted_options(cfg, seed, play_seed):
    _check_no_leak(cfg, seed, play_seed, sample_every=23)


@pytest.mark.slow
@DEEP
@given(cfg=accepted_configs(), seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32))
def test_views_hide_what_a_seat_has_not_seen_deep(cfg, seed, play_seed):
    _check_no_leak(cfg, seed, play_seed, sample_every=7)


def test_the_leak_oracle_flags_a_card_shown_too_early():
    """The oracle can fail: a six-contracts declarer shown his whole hand before choosing."""
    s = MatchState.new(make_config("six-contracts"), seed=3)
    assert s.decision is Decision.CONTRACT
    seen = SeenCards(s)
    v = view_of(s, s.declarer)
    assert cards_named(v) & ~seen.seen[s.declarer] == 0
    whole = v.__class__(**{**{f: getattr(v, f) for f in v.__slots__},
                           "hand": tuple(sorted(s.deals[0].hands[1]))})
    assert cards_named(whole) & ~seen.seen[s.declarer] == mask_of(s.deals[0].hands[1][6:])


def expected_end(cfg, hands) -> tuple[int, str, int | None] | None:
    """Independent oracle, hand by hand from hand 1 (RULES.md 2.9, 5, 7): the hand after which
    the match ends, the reason and the 12-trick winner; None if it has not ended."""
    tie_since = None            # (hand, condition) while extra hands are being played
    for h in hands:
        n, sc = h.hand_number, h.scores
        if cfg.twelve_trick_win and h.contract != 5 and max(h.tricks_won) >= 12:
            return n, "twelve-tricks", h.tricks_won.index(max(h.tricks_won))
        cond = None
        if cfg.end_score is not None and (max(sc) >= cfg.end_score or (
                cfg.end_score_either_sign and min(sc) <= -cfg.end_score)):
            cond = "score"
        elif cfg.end_hands is not None and n >= cfg.end_hands:
            cond = "hands"
        tied = sorted(sc)[1] == max(sc)
        if tie_since is not None:
            if not tied or n - tie_since[0] >= cfg.tie_extra_hands:
                return n, tie_since[1], None
        elif cond is not None:
            if not tied or cfg.tie_break == "shared":
                return n, cond, None
            if cfg.tie_break == "extra-hands":
                if cfg.tie_extra_hands == 0:
                    return n, cond, None
                tie_since = (n, cond)
        if n >= cfg.hand_cap:
            return n, "hand-cap", None
    return None


@st.composite
def end_configs(draw):
    """Accepted configs with the end options drawn to end (and tie) often."""
    cfg = draw(accepted_configs())
    return cfg.replace(
        end_score=draw(st.integers(1, 3) | st.integers(1, 8) | st.none()),
        end_score_either_sign=draw(st.booleans()),
        end_hands=draw(st.none() | st.integers(1, 8)) if cfg.preset != "six-contracts"
        else draw(st.none() | st.sampled_from((3, 6, 9))),
        tie_break=draw(st.sampled_from(("extra-hands", "shared", "continue"))),
        tie_extra_hands=draw(st.integers(0, 4)),
        hand_cap=draw(st.integers(1, 12)))


def _check_end(cfg, seed: int, play_seed: int) -> None:
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    while not s.finished:
        s.apply(rng.choice(s.legal_actions()))
    hands = s.completed_hands
    assert expected_end(cfg, hands) == (s.hand_number, s.end_reason, s.twelve_trick_winner)
    assert expected_end(cfg, hands[:-1]) is None          # it did not end earlier
    first = [seat for seat in range(3) if s.placings[seat] == 1]
    if s.end_reason in ("score", "hands") and len(first) > 1:
        # a shared first place at a normal end: only where the tie-break allows it
        assert cfg.tie_break != "continue"
        if cfg.tie_break == "extra-hands":
            tied = [h for h in hands[-cfg.tie_extra_hands - 1:]
                    if sorted(h.scores)[1] == max(h.scores)]
            assert len(tied) == cfg.tie_extra_hands + 1   # tied through every extra hand


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cfg=end_configs(), seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32))
def test_matches_end_as_the_rules_say_under_any_accepted_options(cfg, seed, play_seed):
    _check_end(cfg, seed, play_seed)


class _Hand(NamedTuple):
    hand_number: int
    scores: tuple[int, int, int]
    contract: int
    tricks_won: tuple[int, int, int]


@st.composite
def hand_sequences(draw):
    """Per-hand (points, tricks, contract) with small points, so that ties are frequent."""
    out = []
    for _ in range(12):
        a, b = draw(st.integers(-2, 2)), draw(st.integers(-2, 2))
        tricks = draw(st.sampled_from(((8, 5, 3), (12, 2, 2), (2, 13, 1), (3, 3, 10))))
        out.append(((a, b, -a - b), tricks, draw(st.sampled_from((0, 4, 5)))))
    return out


@settings(max_examples=500, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cfg=end_configs(), seq=hand_sequences())
def test_end_reason_agrees_with_the_hand_by_hand_oracle(cfg, seq):
    """``end_reason`` (called as ``MatchState`` calls it, with the hand points so far)
    against :func:`expected_end`, over score sequences full of ties."""
    scores, points, hands = (0, 0, 0), [], []
    for n, (pts, tricks, contract) in enumerate(seq, 1):
        scores = tuple(x + p for x, p in zip(scores, pts, strict=True))
        points.append(pts)
        hands.append(_Hand(n, scores, contract, tricks))
        got = end_reason(cfg, n, scores, tricks, contract == 5, points)
        if got[0] is not None:
            assert expected_end(cfg, hands) == (n, *got)
            assert expected_end(cfg, hands[:-1]) is None
            return
    assert expected_end(cfg, hands) is None


def test_a_sergeant_match_tied_at_the_cumulative_target_plays_extra_hands():
    """End to end through MatchState: seeded random matches of sergeant-major with a small
    either-sign target; the first that reaches it with first place shared goes on to extra
    hands and ends when the tie is broken or after 3 of them."""
    cfg = make_config(end_score=3, end_score_either_sign=True, end_hands=None, hand_cap=40)
    found = 0
    for seed in range(400):
        s = MatchState.new(cfg, seed=seed)
        rng = random.Random(seed)
        while not s.finished:
            s.apply(rng.choice(s.legal_actions()))
        hands = s.completed_hands
        trigger = next((h for h in hands if max(h.scores) >= 3 or min(h.scores) <= -3), None)
        if trigger is None or sorted(trigger.scores)[1] != max(trigger.scores):
            continue
        if s.end_reason == "twelve-tricks":
            continue
        found += 1
        assert s.end_reason == "score" and s.hand_number > trigger.hand_number
        extra = hands[trigger.hand_number:]
        assert all(sorted(h.scores)[1] == max(h.scores) for h in extra[:-1])
        last = extra[-1]
        assert len(extra) == 3 or sorted(last.scores)[1] != max(last.scores)
        if found == 3:
            return
    raise AssertionError(f"only {found} tied targets in 400 seeded matches")
