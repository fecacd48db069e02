"""Round trips: run matches in-process, record, write, read, verify, replay as text."""

from __future__ import annotations

import re

import pytest

from arena import __version__
from arena.rules import PRESETS, Deal, action_str, card_str, make_config
from arena.rules.deal import seeded_deal
from arena.records import (SCHEMA_VERSION, MatchRecord, SeedText, read_record,
                           record_from_result, render_text, rules_of, verify_record,
                           write_record)

from .helpers import NAMES, FaultyPolicy, RandomPolicy, play

TRICK_LINE = re.compile(r"^trick (\d+): (.+?) leads: .* -> (.+?) wins; tricks: ")


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_round_trip_every_preset(tmp_path, preset, suffix):
    result = play(preset, seed=7, hand_cap=2)
    record = record_from_result(result)
    path = write_record(record, tmp_path / f"m{suffix}")
    loaded = read_record(path)
    assert loaded == record
    verify_record(loaded)
    state = result.state
    h = loaded.header
    assert (h.schema_version, h.arena_version, h.match_id) == (SCHEMA_VERSION, __version__, "m1")
    assert h.preset == preset and h.rules == make_config(preset, hand_cap=2).options()
    assert rules_of(loaded) == result.spec.cfg
    assert h.names == NAMES and h.deals == "seeded" and h.termination == "normal"
    assert h.end_reason == state.end_reason
    assert len(loaded.hands) == state.hand_number == loaded.result.hands
    # per hand: engine points and deals (by role), decisions = actions in order
    for hr, pts, deal in zip(loaded.hands, state.hand_points, state.deals, strict=True):
        assert tuple(hr.points) == pts
        for s in range(3):
            assert hr.dealt[s] == [card_str(c) for c in deal.hands[hr.roles[s]]]
        assert hr.kitty == [card_str(c) for c in deal.kitty]
        assert len(hr.tricks) == make_config(preset).tricks_per_hand
    actions = [d.action for hr in loaded.hands for d in hr.decisions]
    assert actions == [action_str(a) for a in state.actions]
    # the last hand's tricks equal the engine's own TrickRecords
    last = loaded.hands[-1].tricks
    assert [(t.leader, [(s, c) for s, c in t.cards], t.winner) for t in last] == [
        (t.leader, [(s, card_str(c)) for s, c in t.cards], t.winner) for t in state.tricks]
    assert tuple(loaded.result.scores) == tuple(state.scores)
    assert tuple(loaded.result.placings) == result.placings
    assert tuple(loaded.result.engine_placings) == state.placings

    # text replay: one trick line per trick, winners equal the record's (= engine's)
    text = render_text(loaded)
    hands = text.split("\n== Hand ")[1:]
    assert len(hands) == len(loaded.hands)
    for chunk, hr in zip(hands, loaded.hands, strict=True):
        lines = [TRICK_LINE.match(x) for x in chunk.splitlines()]
        tricks = [m for m in lines if m]
        assert [int(m.group(1)) for m in tricks] == list(range(1, len(hr.tricks) + 1))
        assert [m.group(3) for m in tricks] == [NAMES[t.winner] for t in hr.tricks]
        assert [m.group(2) for m in tricks] == [NAMES[t.leader] for t in hr.tricks]
        pts = ", ".join(f"{NAMES[s]} {hr.points[s]:+d}" for s in range(3))
        assert f"points: {pts}; scores: " in chunk
    assert "== Result ==" in text
    assert "scores: " + ", ".join(f"{NAMES[s]} {state.scores[s]}" for s in range(3)) in text


@pytest.mark.parametrize("seed", [0, -5, "t1/table 3", b"\x00\xffabc", 2**80])
def test_seed_types_round_trip(tmp_path, seed):
    result = play("blato", seed=seed, hand_cap=1)
    record = record_from_result(result)
    assert record.header.seed.to_seed() == seed
    assert type(record.header.seed.to_seed()) is type(seed)
    loaded = read_record(write_record(record, tmp_path / "r.jsonl"))
    assert loaded.header.seed == SeedText.from_seed(seed)
    verify_record(loaded)


def test_explicit_deals_are_recorded_and_verified(tmp_path):
    cfg = make_config("sergeant-major", hand_cap=2)
    deals = {1: seeded_deal(cfg, "other", 1), 2: seeded_deal(cfg, "other", 2)}
    result = play("sergeant-major", seed=3, hand_cap=2, deals=deals)
    record = record_from_result(result)
    assert record.header.deals == "explicit"
    verify_record(read_record(write_record(record, tmp_path / "r.jsonl.gz")))


def test_faults_fallbacks_and_forfeit_are_recorded(tmp_path):
    policies = [FaultyPolicy(1, illegal_at={3}), FaultyPolicy(2, raise_at={1, 2, 4}),
                RandomPolicy(3)]
    result = play("six-contracts", seed=11, hand_cap=2, policies=policies, max_faults=3)
    assert result.forfeited == (False, True, False)
    record = read_record(write_record(record_from_result(result), tmp_path / "f.jsonl"))
    verify_record(record)
    h = record.header
    assert [s.faults for s in h.seats] == [1, 3, 0]
    assert h.termination == "forfeit" and h.seats[1].forfeited
    assert h.seats[1].forfeit_reason == "3 faults (last: error)"
    assert record.result.placings[1] == 3
    decisions = [d for hr in record.hands for d in hr.decisions]
    illegal = [d for d in decisions if d.fault == "illegal"]
    assert len(illegal) == 1 and illegal[0].seat == 0 and illegal[0].fallback
    assert illegal[0].answer is not None
    errors = [d for d in decisions if d.fault == "error"]
    assert [d.seat for d in errors] == [1, 1, 1] and "boom" in errors[0].detail
    after = decisions[decisions.index(errors[-1]) + 1:]
    assert all(d.fallback and d.think_ms is None for d in after if d.seat == 1)
    assert sum(s.decisions_asked for s in h.seats) == sum(d.think_ms is not None
                                                          for d in decisions)
    text = render_text(record)
    assert text.count("! FAULT by alice: illegal") == 1
    assert text.count("! FAULT by bob: error") == 3
    assert "Forfeit: bob: 3 faults (last: error)" in text
    assert "! bob has forfeited" in text
    seat_text = render_text(record, seat=2)
    assert "FAULT" not in seat_text  # faults are told only to the bot at fault


def test_seat_view_hides_other_hands():
    record = record_from_result(play("sergeant-major", seed=5, hand_cap=2))
    full = render_text(record)
    me = 1
    text = render_text(record, seat=me)
    hr = record.hands[0]
    assert "Seat view: bob (seat 1)" in text
    assert f"cards of alice: {' '.join(['??'] * 16)}" in text
    for s in (0, 2):  # nobody else's dealt hand is printed
        assert f"dealt {NAMES[s]}:" not in text
    assert "dealt alice:" in full
    # trick lines (public) are identical in both views
    assert [x for x in full.splitlines() if x.startswith("trick ")] == \
        [x for x in text.splitlines() if x.startswith("trick ")]
    # bob's own dealt cards appear (sorted), the kitty stays hidden unless bob declares
    own = sorted(hr.dealt[me])
    line = next(x for x in text.splitlines() if x.startswith("your cards bob:"))
    assert sorted(line.split(": ", 1)[1].split()) == own
    if hr.declarer != me:
        assert "kitty: ?? ?? ?? ??" in text.split("== Hand 2")[0]


def test_hand_filter_and_record_type():
    record = record_from_result(play("nine-five-two", seed=2, hand_cap=3))
    assert isinstance(record, MatchRecord)
    text = render_text(record, hand=2)
    assert "== Hand 2:" in text and "== Hand 1:" not in text and "== Hand 3:" not in text
    with pytest.raises(ValueError):
        render_text(record, hand=4)
    with pytest.raises(ValueError):
        render_text(record, seat=3)


class _Strong:
    """Seat 0's policy for the 12-trick test: trump spades, discard low, play high spades."""

    def decide(self, view) -> int:
        legal = view.legal_actions
        if view.decision.value == "contract":
            return 60  # trump:S
        spades = [a for a in legal if a < 13]
        if view.decision.value == "discard":
            return min((a for a in legal if a >= 13), default=min(legal))
        return max(spades) if spades else max(legal)


def test_twelve_trick_win_is_recorded(tmp_path):
    cfg = make_config("sergeant-major")
    rest = [c for c in range(52) if c >= 13 and c % 13 != 12]
    deal = Deal(((*range(13), 25, 38, 51), tuple(rest[:16]), tuple(rest[16:32])),
                tuple(rest[32:36]))
    result = play("sergeant-major", seed=1, hand_cap=5, deals={1: deal},
                  policies=[_Strong(), RandomPolicy(1), RandomPolicy(2)])
    record = read_record(write_record(record_from_result(result), tmp_path / "12.jsonl"))
    verify_record(record)
    assert cfg.twelve_trick_win
    assert record.result.end_reason == "twelve-tricks" == record.header.end_reason
    assert record.result.twelve_trick_winner == 0 and record.result.placings[0] == 1
    assert record.header.deals == "explicit" and len(record.hands) == 1
    assert record.hands[0].tricks_won[0] >= 12
    assert "alice took 12+ tricks in a hand and wins" in render_text(record)


def test_control_characters_in_names_are_escaped_in_text():
    names = ("a\x1b[2Jb", "line\nbreak", "rtl\u202eevil")
    text = render_text(record_from_result(play("blato", seed=2, hand_cap=1, names=names)))
    assert "\x1b" not in text and "\u202e" not in text
    assert "a\\u001b[2Jb" in text and "line\\u000abreak" in text and "rtl\\u202eevil" in text
    assert all(not line.startswith("break") for line in text.splitlines())


def test_seat_view_shows_dealt_card_counts_when_the_kitty_is_taken_at_once():
    from arena.records import record_from_result, render_text
    from .helpers import play as _play
    record = record_from_result(_play("sergeant-major", 4, hand_cap=1))
    declarer = record.hands[0].declarer
    for seat in range(3):
        text = render_text(record, seat=seat, hand=1)
        lines = [ln for ln in text.splitlines() if ln.startswith(("your cards", "cards of"))]
        assert len(lines) == 3
        for ln in lines:
            assert len(ln.split(": ", 1)[1].split()) == 16, ln   # 16 dealt, kitty apart
        assert not any(ln.startswith("kitty:") for ln in text.splitlines())  # shown once
        kitty_line = next(ln for ln in text.splitlines() if "takes the kitty" in ln)
        assert ("??" in kitty_line) == (seat != declarer)
