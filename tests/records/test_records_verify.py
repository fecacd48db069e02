"""Tampered records: each change is caught, and the message names the first mismatch."""

from __future__ import annotations

import re

import pytest

from arena.records import (RecordError, RecordMismatch, read_record, record_from_result,
                           rules_of, verify_record, write_record)
from arena.rules import MatchState, action_str, make_config, parse_action
from arena.rules.deal import seeded_deal

from .helpers import FaultyPolicy, RandomPolicy, load_lines, play, save_lines


@pytest.fixture(scope="module")
def clean_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "clean.jsonl"
    write_record(record_from_result(play("sergeant-major", seed=9, hand_cap=3)), path)
    return path


def tampered(tmp_path, src, edit) -> RecordMismatch:
    """Apply ``edit(objs)`` to a copy of ``src`` and return the verification error."""
    objs = load_lines(src)
    edit(objs)
    path = tmp_path / "t.jsonl"
    save_lines(path, objs)
    record = read_record(path)
    with pytest.raises(RecordMismatch) as info:
        verify_record(record)
    return info.value


def test_clean_record_verifies(clean_file):
    verify_record(read_record(clean_file))


def test_changed_card_in_a_seeded_deal(tmp_path, clean_file):
    def edit(objs):
        dealt = objs[2]["dealt"]
        dealt[0][2], dealt[1][5] = dealt[1][5], dealt[0][2]  # swap two cards between seats
    objs = load_lines(clean_file)
    was, now = objs[2]["dealt"][0][2], objs[2]["dealt"][1][5]
    err = tampered(tmp_path, clean_file, edit)
    assert str(err) == (f"hand 2: dealt cards of seat 0 (alice), card 3: expected {was}, "
                        f"found {now}")


def test_changed_card_in_an_explicit_deal(tmp_path):
    cfg = make_config("sergeant-major", hand_cap=2)
    deals = {1: seeded_deal(cfg, "x", 1), 2: seeded_deal(cfg, "x", 2)}
    src = write_record(record_from_result(play(seed=1, deals=deals)), tmp_path / "e.jsonl")

    def edit(objs):  # replace a dealt card by one already dealt to another seat
        objs[1]["dealt"][0][0] = objs[1]["dealt"][2][0]
    err = tampered(tmp_path, src, edit)
    assert str(err) == "hand 1: deal: a card is dealt twice"


def test_changed_trick_winner(tmp_path, clean_file):
    objs = load_lines(clean_file)
    trick = objs[1]["tricks"][4]
    real = trick["winner"]
    fake = (real + 1) % 3
    names = ("alice", "bob", "carol")

    def edit(o):
        o[1]["tricks"][4]["winner"] = fake
    err = tampered(tmp_path, clean_file, edit)
    assert str(err) == (f"hand 1, trick 5: winner: expected {real} ({names[real]}), "
                        f"found {fake} ({names[fake]})")
    assert (err.where, err.field) == ("hand 1, trick 5", "winner")


def test_changed_trick_card(tmp_path, clean_file):
    def edit(o):
        o[2]["tricks"][0]["cards"][1][1] = "AS" if o[2]["tricks"][0]["cards"][1][1] != "AS" \
            else "KS"
    err = tampered(tmp_path, clean_file, edit)
    assert err.where == "hand 2, trick 1" and err.field == "cards"


@pytest.mark.parametrize("line, field, where", [
    (3, "points", "hand 3"), (3, "scores", "hand 3"), (4, "scores", "result"),
    (4, "placings", "result"), (2, "tricks_won", "hand 2"),
])
def test_changed_score_fields(tmp_path, clean_file, line, field, where):
    def edit(o):
        o[line][field][1] += 1
    err = tampered(tmp_path, clean_file, edit)
    assert err.where == where and err.field == field
    assert str(err).startswith(f"{where}: {field}: expected ")


def test_changed_action_illegal(tmp_path, clean_file):
    objs = load_lines(clean_file)
    decisions = objs[2]["decisions"]
    j = next(i for i, d in enumerate(decisions) if d["kind"] == "play")
    held = set(objs[2]["dealt"][decisions[j]["seat"]])
    other = next(c for c in objs[2]["dealt"][(decisions[j]["seat"] + 1) % 3] if c not in held)
    index = len(objs[1]["decisions"]) + j

    def edit(o):
        o[2]["decisions"][j]["action"] = other
    err = tampered(tmp_path, clean_file, edit)
    assert re.fullmatch(
        rf"hand 2, decision {j + 1} \(match decision index {index}\): action: {other} by seat "
        rf"\d \(\w+\) is not legal in phase play; legal: \[.*\]", str(err)), str(err)


def test_changed_action_to_another_legal_card(tmp_path, clean_file):
    """A different but legal last card of a trick: caught at that trick (its cards differ)."""
    record = read_record(clean_file)
    state = MatchState.new(rules_of(record), record.header.seed.to_seed())
    target = None
    for h, hr in enumerate(record.hands):
        for j, d in enumerate(hr.decisions):
            legal = state.legal_actions()
            if target is None and d.kind == "play" and len(state.trick) == 2 and len(legal) > 1:
                alt = action_str(next(a for a in legal if action_str(a) != d.action))
                target = (h + 1, j, alt, len(state.tricks) + 1)
            state.apply(parse_action(d.action))
    assert target is not None
    hand, j, alt, trick = target

    def edit(o):
        o[hand]["decisions"][j]["action"] = alt
    err = tampered(tmp_path, clean_file, edit)
    assert (err.where, err.field) == (f"hand {hand}, trick {trick}", "cards")
    assert alt in str(err.expected[2]) and alt not in str(err.found[2])


def test_changed_contract_and_seat(tmp_path, clean_file):
    def edit(o):
        o[1]["contract"] = "no-trump" if o[1]["contract"] != "no-trump" else "trump:S"
    assert (tampered(tmp_path, clean_file, edit).field) == "contract"

    def edit2(o):
        o[1]["decisions"][0]["seat"] = (o[1]["decisions"][0]["seat"] + 1) % 3
    err = tampered(tmp_path, clean_file, edit2)
    assert err.where.startswith("hand 1, decision 1 ") and err.field == "seat"


def test_removed_and_extra_decisions_and_hands(tmp_path, clean_file):
    def drop(o):
        o[2]["decisions"].pop()
    assert "hand 2: decisions: the hand is incomplete after" in str(
        tampered(tmp_path, clean_file, drop))

    def extra(o):
        o[1]["decisions"].append(o[2]["decisions"][0])
    err = tampered(tmp_path, clean_file, extra)
    assert "recorded after the hand's last trick" in str(err)

    def lose_hand(o):
        del o[3]
        o[-1]["hands"] = 2
    assert str(tampered(tmp_path, clean_file, lose_hand)) == (
        "result: the record ends after hand 2 but the engine's match goes on")


def test_fallback_choice_and_fault_counts(tmp_path):
    policies = [FaultyPolicy(1, illegal_at={2}), RandomPolicy(2), RandomPolicy(3)]
    src = write_record(record_from_result(play(seed=8, policies=policies)), tmp_path / "f.jsonl")
    verify_record(read_record(src))
    objs = load_lines(src)
    j = next(i for i, d in enumerate(objs[1]["decisions"]) if d.get("fault"))

    def edit(o):  # pretend the fallback chose differently: must be the runner's choice
        d = o[1]["decisions"][j]
        d["action"] = next(x["action"] for x in o[1]["decisions"][j + 1:]
                           if x["kind"] == d["kind"] and x["action"] != d["action"])
    err = tampered(tmp_path, src, edit)
    assert err.field in ("action (fallback's choice)", "action")

    def faults(o):
        o[0]["seats"][0]["faults"] = 0
    assert str(tampered(tmp_path, src, faults)) == (
        "header, seat 0 (alice): faults: expected 1, found 0")


def test_header_rules_and_seed(tmp_path, clean_file):
    def rules(o):
        o[0]["rules"]["follow"] = "F9"
    err = tampered(tmp_path, clean_file, rules)
    assert str(err).startswith("header: rules: invalid value 'F9' for rule option 'follow'")

    def seed(o):
        o[0]["seed"]["value"] = "10"
    err = tampered(tmp_path, clean_file, seed)
    assert str(err).startswith("hand 1: dealt cards of seat 0 (alice), card 1: expected ")


def test_not_a_record():
    with pytest.raises(RecordError):
        verify_record("nope")  # type: ignore[arg-type]  # the wrong type is the test
