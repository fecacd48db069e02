"""End to end over real gRPC with real bot processes: a misbehaving bot gets the right faults
or forfeits, the tournament completes, and no bot process is left."""

from __future__ import annotations

import asyncio
import re

import pytest

from arena.records import read_record, verify_record
from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing

from .helpers import make_config, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e


def run(cfg, out):
    return asyncio.run(run_tournament(cfg, out, progress=False))


def bad_rows(out):
    with open_existing(out) as store:
        rows = store.results()
    return rows, [(r, r.players.index("bad")) for r in rows if "bad" in r.players]


def check_complete(outcome, out, tag):
    assert outcome.scheduled == outcome.played_now == 6
    rows, _ = bad_rows(out)
    assert sorted(r.match_id for r in rows) == sorted(
        f"t000-d0000-s{k}" for k in range(6))
    for r in rows:
        rec = read_record(out / r.record)
        verify_record(rec)
    assert wait_no_processes(tag) == []
    return rows


def test_small_tournament_completes_with_records_and_standings(tmp_path):
    tag = new_tag()
    cfg = make_config(None, tag=tag, bots=4, hand_cap=2, concurrency=2)
    outcome = run(cfg, tmp_path)
    assert outcome.scheduled == 4 * 6 and outcome.played_now == 24
    rows, _ = bad_rows(tmp_path)
    assert len(rows) == 24 and all(r.status == "normal" for r in rows)
    assert len(list((tmp_path / "records").glob("*.jsonl.gz"))) == 24
    names = [r.bot for r in outcome.standings.rows]
    assert sorted(names) == ["random-0", "random-1", "random-2", "random-3"]
    assert all(r.matches == 18 for r in outcome.standings.rows)
    assert all(r.rating is not None and r.ci_low <= r.rating <= r.ci_high
               for r in outcome.standings.rows)
    for ext in ("md", "csv", "json"):
        assert (tmp_path / f"standings.{ext}").read_text().count("random-") >= 4
    assert wait_no_processes(tag) == []


def test_crashing_bot_forfeits_is_restarted_then_disqualified(tmp_path):
    tag = new_tag()
    outcome = run(make_config("crash", tag=tag, max_crashes=2), tmp_path)
    rows = check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    reasons = [r.forfeit_reasons[i] for r, i in bad]
    assert all(r.forfeits[i] and r.places[i] == 3 for r, i in bad)
    # max_crashes = 2: disqualified when the count reaches 2 (as max_faults: at the Nth)
    assert sum("disconnect" in x for x in reasons) == 2          # crashed in 2 matches
    assert sum("disqualified after 2 crashes" in x for x in reasons) == 4
    assert all(not any(r.forfeits[j] for j in range(3) if j != i) for r, i in bad)
    assert len(rows) == 6


def test_a_bot_that_dies_of_sigsegv_is_named_with_its_signal_and_last_line(tmp_path, capsys):
    """A sandboxed bot killed by SIGSEGV mid-match (bubblewrap reports it as exit status 139):
    the stored forfeit reason and the message name the status, the signal and the last line
    it wrote; its second identical crash is one short line; one summary at the end."""
    from arena.cli import main
    from .helpers import config_text
    tag = new_tag()
    (tmp_path / "t.toml").write_text(config_text("segv", tag=tag, max_crashes=2,
                                                 sandbox="bwrap"))
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    _, bad = bad_rows(tmp_path / "o")
    reasons = sorted(r.forfeit_reasons[i] for r, i in bad)
    died = ("disconnect: the bot's process died (exit status 139 (128 + SIGSEGV)); last line "
            "of its output: rawbot: decision 6: dereferencing a null pointer")
    assert reasons == [died, died] + ["disqualified after 2 crashes"] * 4
    log = tmp_path / "o" / "logs" / "bad.log"
    full = f"bot 'bad' crashed: {died.removeprefix('disconnect: ')} (log: {log})"
    lines = err.splitlines()
    assert lines.count(full) == 1                      # shown once in full ...
    assert "bot 'bad' again: the same as before (crash 2; max_crashes = 2)" in lines
    summary = [line for line in lines if line.startswith("arena: warning: bot 'bad'")]
    assert summary == [f"arena: warning: bot 'bad' was disqualified after 2 crashes; last: "
                       f"{full}"]                      # ... and once at the end
    assert (tmp_path / "o" / "arena.log").read_text().count(full) == 2   # every one logged
    assert wait_no_processes(tag) == []


def test_hanging_bot_times_out_and_forfeits(tmp_path):
    tag = new_tag()
    outcome = run(make_config("hang", tag=tag, time_ms=200, grace_ms=100), tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    for r, i in bad:
        assert r.forfeits[i] and r.faults[i] == 3 and "3 faults (last: timeout)" in \
            r.forfeit_reasons[i]
        rec = read_record(tmp_path / r.record)
        faults = [d for h in rec.hands for d in h.decisions if d.fault]
        assert [d.fault for d in faults] == ["timeout"] * 3 and all(d.fallback for d in faults)


def test_late_answers_are_faults_with_fallback_but_no_forfeit(tmp_path):
    tag = new_tag()
    outcome = run(make_config("late", tag=tag, time_ms=200, grace_ms=100), tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    for r, i in bad:
        # the late answer is discarded; a bot still busy may also miss the next deadline
        assert 1 <= r.faults[i] <= 2 and not r.forfeits[i] and r.status == "normal"
        rec = read_record(tmp_path / r.record)
        assert {d.fault for h in rec.hands for d in h.decisions if d.fault} == {"timeout"}


def test_card_not_held_is_illegal_and_forfeits(tmp_path):
    tag = new_tag()
    outcome = run(make_config("notheld", tag=tag), tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    for r, i in bad:
        assert r.forfeits[i] and "3 faults (last: illegal)" in r.forfeit_reasons[i]
        rec = read_record(tmp_path / r.record)
        faults = [d for h in rec.hands for d in h.decisions if d.fault]
        assert all(d.fault == "illegal" and d.answer and "not legal" in d.detail
                   for d in faults)


def test_garbage_is_malformed_and_forfeits(tmp_path):
    tag = new_tag()
    outcome = run(make_config("garbage", tag=tag), tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    for r, i in bad:
        assert r.forfeits[i] and "3 faults (last: malformed)" in r.forfeit_reasons[i]
        rec = read_record(tmp_path / r.record)
        faults = [d for h in rec.hands for d in h.decisions if d.fault]
        assert [(d.fault, d.answer, d.fallback) for d in faults] == [
            ("malformed", "not-a-card", True)] * 3


def test_disconnecting_bot_forfeits(tmp_path):
    tag = new_tag()
    outcome = run(make_config("disconnect", tag=tag, max_crashes=10), tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    for r, i in bad:
        assert r.forfeits[i] and r.forfeit_reasons[i].startswith("disconnect")


def test_bot_that_never_registers_forfeits_and_is_disqualified(tmp_path):
    tag = new_tag()
    outcome = run(make_config("noregister", tag=tag, register_timeout_s=1.5, max_crashes=1),
                  tmp_path)
    check_complete(outcome, tmp_path, tag)
    _, bad = bad_rows(tmp_path)
    reasons = [r.forfeit_reasons[i] for r, i in bad]
    assert sum("did not register within 1.5 s; see its log" in x for x in reasons) == 1
    assert reasons.count("disqualified after 1 crash") == 5
    log_text = (tmp_path / "logs" / "bad.log").read_text()
    assert "=== " in log_text and "--arena" in log_text
    assert "--token" not in log_text                  # the token is in the environment only
    assert not re.search(r"[0-9a-f]{32}", log_text)


def test_bot_command_that_cannot_start_is_refused_before_the_first_match(tmp_path, capsys):
    from arena.cli import main
    from .helpers import bot_block, config_text
    tag = new_tag()
    text = config_text(None, tag=tag, bots=2) + bot_block(
        "typo", ["{python}", str(tmp_path / "no_such_bot.py")], tag) + bot_block(
        "nocmd", ["no-such-program-358"], tag)
    (tmp_path / "t.toml").write_text(text)
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()      # one line per bot, as documented
    assert len(err) == 3 and err[0].startswith("arena: error: bot 'typo': its script ")
    assert "no_such_bot.py does not exist" in err[0]
    assert err[1] == "arena: error: bot 'nocmd': 'no-such-program-358' is not a program on " \
        "the PATH"
    assert err[2].startswith("arena: error: nothing was played; fix the command")
    with open_existing(tmp_path / "o") as store:
        assert store.results() == []
    assert not list((tmp_path / "o" / "logs").iterdir())        # no bot was started


def test_bot_that_never_starts_is_named_kept_out_of_ratings_and_fails_the_run(tmp_path,
                                                                            capsys):
    from arena.cli import main
    from .helpers import bot_block, config_text
    tag = new_tag()
    text = config_text(None, tag=tag, bots=3, max_crashes=2) + bot_block(
        "broken", ["{python}", "-c", "import sys; sys.exit('cannot load my model')"], tag)
    (tmp_path / "t.toml").write_text(text)
    out = tmp_path / "o"
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 3
    captured = capsys.readouterr()
    err = captured.err
    assert ("arena: error: bot 'broken' never started: bot 'broken' exited with status 1 "
            "before registering (cannot load my model)") in err
    assert "arena: 1 bot never started ('broken'): their matches were forfeited and are kept " \
        "out of the ratings" in err
    rows = {line.split()[1]: line for line in captured.out.splitlines()
            if line.strip()[:1].isdigit()}
    assert "never started" in rows["broken"] and "18" in rows["broken"].split()
    # the ratings come from the 6 matches without it: the three others are rated
    assert all(re.search(r"\b1[3-7]\d\d\b", rows[f"random-{i}"]) for i in range(3))
    assert "never started" in (out / "standings.md").read_text()
    assert main(["ratings", str(out), "--format", "csv", "--bootstrap", "0"]) == 0
    ratings = capsys.readouterr()
    assert "broken" not in ratings.out and "random-0" in ratings.out
    assert "kept out of the ratings" in ratings.err
    log_text = (out / "logs" / "broken.log").read_text()
    assert log_text.count("\ncannot load my model\n") == 2        # started twice: max 2
    assert log_text.count(" ended: exit status 1\n") == 2
    assert wait_no_processes(tag) == []


def test_a_crash_after_the_disqualification_is_not_said_again(tmp_path) -> None:
    """With matches in flight, an instance of a bot just disqualified may crash after it: the
    terminal said "again: the same as before (crash 3; max_crashes = 2)" past the limit. Such
    a crash is logged, not said; the crashes before it are said as before."""
    from types import SimpleNamespace

    from arena.processes.pool import BotPool, _BotState
    said: list[str] = []
    pool = BotPool(SimpleNamespace(), [], "unix:x", tmp_path, slots=1, register_timeout_s=1,
                   max_crashes=2, on_event=said.append)
    st = _BotState(entry=SimpleNamespace(name="bad", remote=False))
    for _ in range(3):
        pool._crash(st, "bot 'bad' crashed: exit status 1")
    assert said == ["bot 'bad' crashed: exit status 1",
                    "bot 'bad' again: the same as before (crash 2; max_crashes = 2)",
                    "bot 'bad' is disqualified after 2 crashes; its remaining matches are "
                    "forfeited"]
    assert st.crashes == 3 and len(pool.disqualifications) == 1
