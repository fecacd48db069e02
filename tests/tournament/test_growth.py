"""A league that grows: bots added to an existing tournament directory play
only the matches their tables add; no stored match is replayed or dropped; changed games or
commands are refused with what changed."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.cli import main
from arena.tournament.config import parse_config
from arena.tournament.growth import GrowthError, added_matches, prepare_schedule
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import make_schedule
from arena.tournament.store import Store, open_existing
from tests.rows import result_row

from .helpers import config_text, new_tag, wait_no_processes

NAMES = [f"bot-{k:02d}" for k in range(24)]


def league_text(n: int, *, schedule: str = "all-tables", meetings: int = 1, deals: int = 1,
                extra: str = "") -> str:
    text = (f'[tournament]\nseed = 5\ndeals_per_table = {deals}\nschedule = "{schedule}"\n'
            + (f"pair_meetings = {meetings}\n" if schedule == "balanced" else "") + extra)
    for name in NAMES[:n]:
        text += f'[[bots]]\nname = "{name}"\ncommand = ["bot", "{name}"]\n'
    return text


def grow(tmp_path: Path, steps: list[int], **kwargs) -> list[tuple]:
    """Grow a store through ``steps`` rosters (no play); the stored schedule rows."""
    with Store(tmp_path / "results.sqlite") as store:
        for n in steps:
            cfg = parse_config(league_text(n, **kwargs))
            t = cfg.tournament
            prepare_schedule(store, cfg, make_schedule(
                [b.name for b in cfg.bots], t.deals_per_table, t.seed, schedule=t.schedule,
                pair_meetings=t.pair_meetings))
        return store.db.execute("SELECT match_id, block_id, table_idx, deal_idx, seating_idx, "
                                "seat0, seat1, seat2, seed FROM schedule").fetchall()


def played(tmp_path: Path) -> None:
    """Store a result for every scheduled match (the refusals protect stored results)."""
    with Store(tmp_path / "results.sqlite") as store:
        for m in store.pending():
            store.save_result(result_row(m.match_id, m.block_id, m.seats, scores=(1, 0, -1)))


def fresh(tmp_path: Path, name: str) -> Path:
    (tmp_path / name).mkdir()
    return tmp_path / name


def content(rows) -> Counter:
    """The games of a schedule, without their numbering: (seats, deal, seed)."""
    return Counter((r[5], r[6], r[7], r[3], r[8]) for r in rows)


@pytest.mark.parametrize("steps", [[3, 4, 6], [3, 7], [5, 6, 9, 10]])
def test_all_tables_growth_is_the_whole_rosters_schedule(tmp_path, steps):
    rows = grow(tmp_path, steps, deals=2)
    full = make_schedule(NAMES[:steps[-1]], 2, 5)
    want = Counter((*m.seats, m.deal, m.seed.hex()) for m in full)
    assert content(rows) == want                       # nothing missing, nothing twice
    assert len({r[0] for r in rows}) == len(rows)      # ids unique
    blocks = Counter(r[1] for r in rows)
    assert set(blocks.values()) == {6}                 # whole duplicate blocks


def test_growth_keeps_every_stored_match_id(tmp_path):
    first = grow(tmp_path, [4])
    later = grow(tmp_path, [6])
    assert set(first) <= set(later)
    new_tables = {r[2] for r in later} - {r[2] for r in first}
    assert min(new_tables) == max(r[2] for r in first) + 1
    assert all("bot-04" in r[5:8] or "bot-05" in r[5:8] for r in later if r[2] in new_tables)


@pytest.mark.parametrize(("steps", "meetings"), [([3, 4, 6], 1), ([7, 9], 1), ([6, 13], 2),
                                                 ([20, 21], 1), ([9, 10, 16], 1)])
def test_balanced_growth_every_pair_meets_at_least_l_times(tmp_path, steps, meetings):
    rows = grow(tmp_path, steps, schedule="balanced", meetings=meetings)
    tables = {}
    for r in rows:
        tables.setdefault(r[2], frozenset(r[5:8]))
    pairs = Counter(p for t in tables.values() for p in itertools.combinations(sorted(t), 2))
    n = steps[-1]
    assert set(pairs) == set(itertools.combinations(NAMES[:n], 2))
    assert min(pairs.values()) >= meetings
    # pairs that include a bot of the last step meet exactly as in the whole roster's design
    from arena.tournament.balanced import balanced_tables
    design = balanced_tables(NAMES[:n], meetings, 5)
    full = Counter(p for t in design for p in itertools.combinations(sorted(t), 2))
    new = set(NAMES[steps[-2]:n])
    for pair, count in full.items():
        if new & set(pair):
            assert pairs[pair] == count
    # the added tables are the design's tables with a new bot, with their seeds
    last = grow(fresh(tmp_path, "again"), steps[:-1], schedule="balanced", meetings=meetings)
    added = content(rows) - content(last)
    full_sched = make_schedule(NAMES[:n], 1, 5, schedule="balanced", pair_meetings=meetings)
    want = Counter((*m.seats, m.deal, m.seed.hex()) for m in full_sched if new & set(m.seats))
    assert added == want


def test_added_bot_21_to_22_adds_few_tables():
    cfg = parse_config(league_text(22, schedule="balanced"))
    added = added_matches(cfg, {"bot-21"}, 70)
    tables = {m.table for m in added}
    assert 10 <= len(tables) <= 12 and min(tables) == 70     # 21 others: >= 11 seats/2


@pytest.mark.parametrize(("extra", "changed"), [
    ("[time]\nper_decision_ms = 999\n", 'time.per_decision_ms 1000 -> 999'),
    ("[rules]\nhand_cap = 2\n", "rules.hand_cap"),
    ("[faults]\nmax_faults = 5\n", "faults.max_faults 3 -> 5"),
])
def test_changed_games_are_refused_naming_the_change(tmp_path, extra, changed):
    grow(tmp_path, [4])
    played(tmp_path)
    text = league_text(5)
    head, bots = text.split("[[bots]]", 1)
    with pytest.raises(GrowthError) as err:
        grow_text(tmp_path, head + extra + "[[bots]]" + bots)
    msg = str(err.value)
    assert changed in msg and "use a new --out directory" in msg and "\n" not in msg
    with Store(tmp_path / "results.sqlite") as store:     # nothing was added
        assert store.scheduled_count() == 6 * 4


def grow_text(tmp_path: Path, text: str) -> None:
    cfg = parse_config(text)
    with Store(tmp_path / "results.sqlite") as store:
        prepare_schedule(store, cfg, [])


def grow_text_rows(tmp_path: Path, text: str) -> list[tuple]:
    """:func:`grow_text` with the config's full schedule given; the stored schedule rows."""
    cfg = parse_config(text)
    t = cfg.tournament
    with Store(tmp_path / "results.sqlite") as store:
        prepare_schedule(store, cfg, make_schedule([b.name for b in cfg.bots],
                                                   t.deals_per_table, t.seed))
        return store.db.execute("SELECT match_id, block_id, table_idx, deal_idx, seating_idx, "
                                "seat0, seat1, seat2, seed FROM schedule").fetchall()


def test_changed_seed_and_schedule_are_refused(tmp_path):
    grow(tmp_path, [4])
    played(tmp_path)
    with pytest.raises(GrowthError, match=r"tournament.seed 5 -> 6"):
        grow_text(tmp_path, league_text(4).replace("seed = 5", "seed = 6"))
    with pytest.raises(GrowthError, match=r'tournament.schedule "all-tables" -> "balanced"'):
        grow_text(tmp_path, league_text(4, schedule="balanced"))


def test_changed_command_and_removed_bot_are_refused(tmp_path):
    grow(tmp_path, [4])
    played(tmp_path)
    text = league_text(5).replace('["bot", "bot-01"]', '["bot", "bot-01", "--fast"]')
    with pytest.raises(GrowthError) as err:
        grow_text(tmp_path, text)
    msg = str(err.value)
    assert "bot 'bot-01' played here as [\"bot\", \"bot-01\"]" in msg
    assert '"--fast"' in msg and "'bot-01-v2'" in msg and "new --out directory" in msg
    remote = league_text(4).replace('command = ["bot", "bot-03"]',
                                    'remote = true\ntoken = "0123456789abcdef"')
    with pytest.raises(GrowthError, match=r"'bot-03' played here as .* now gives a remote bot"):
        grow_text(tmp_path, remote)
    fewer = league_text(5).replace('[[bots]]\nname = "bot-02"\ncommand = ["bot", "bot-02"]\n',
                                   "")
    with pytest.raises(GrowthError, match="'bot-02' played here but is not in the config"):
        grow_text(tmp_path, fewer)


def test_a_directory_with_no_stored_result_takes_any_config(tmp_path):
    """Nothing stored, nothing to contradict: other games, a removed bot, another command
    (what a corrected config after a failed first run looks like) start the directory afresh
    with the config's schedule."""
    grow(tmp_path, [4])
    with Store(tmp_path / "results.sqlite") as store:
        from arena.processes.proctable import ProcessTable
        ProcessTable(store.db).start_result("bot-01", False, "exited with status 1")
    text = league_text(3).replace("seed = 5", "seed = 6").replace(
        '["bot", "bot-01"]', '["bot", "bot-01", "--fixed"]')
    rows = grow_text_rows(tmp_path, text)
    want = make_schedule(NAMES[:3], 1, 6)
    assert sorted(r[0] for r in rows) == sorted(m.match_id for m in want)
    assert {r[8] for r in rows} == {m.seed.hex() for m in want}     # the new seed's deals
    with Store(tmp_path / "results.sqlite") as store:
        from arena.processes.proctable import never_started
        assert never_started(store.db) == {}          # start outcomes of the old run: gone
        league = json.loads(store.meta("league") or "")
        assert league["bots"]["bot-01"] == {"command": ["bot", "bot-01", "--fixed"]}
        assert store.meta("fingerprint") == parse_config(text).fingerprint()


def test_a_bot_that_played_nothing_may_change_its_command(tmp_path):
    """Results stored for other bots: a bot none of whose matches is stored takes its new
    command (and is then held to it); a removed one is "scheduled", not "played"."""
    grow(tmp_path, [3])
    played(tmp_path)                                   # bot-00..02 played
    grow(tmp_path, [4])                                # bot-03 scheduled, played nothing
    new = league_text(4).replace('["bot", "bot-03"]', '["bot", "bot-03", "--fixed"]')
    grow_text(tmp_path, new)
    with Store(tmp_path / "results.sqlite") as store:
        league = json.loads(store.meta("league") or "")
    assert league["bots"]["bot-03"] == {"command": ["bot", "bot-03", "--fixed"]}
    with pytest.raises(GrowthError, match="bot 'bot-03' is scheduled here but is not in the "
                                          "config"):
        grow_text(tmp_path, league_text(3))
    played(tmp_path)                                   # now bot-03 played too
    with pytest.raises(GrowthError, match=r"bot 'bot-03' played here as \["
                                          r'"bot", "bot-03", "--fixed"\]'):
        grow_text(tmp_path, league_text(4))


def test_env_and_order_may_change(tmp_path):
    grow(tmp_path, [4])
    text = league_text(4).replace('command = ["bot", "bot-00"]\n',
                                  'command = ["bot", "bot-00"]\nenv = { X = "1" }\n')
    blocks = text.split("[[bots]]")
    grow_text(tmp_path, blocks[0] + "[[bots]]" + "[[bots]]".join(reversed(blocks[1:])))
    with Store(tmp_path / "results.sqlite") as store:
        assert store.scheduled_count() == 24


def test_directory_from_before_growth_is_adopted(tmp_path):
    cfg = parse_config(league_text(3))
    with Store(tmp_path / "results.sqlite") as store:   # what an older arena wrote
        store.init_schedule(cfg.fingerprint(), "t", make_schedule(NAMES[:3], 1, 5))
    rows = grow(tmp_path, [4])
    assert content(rows) == content(grow(fresh(tmp_path, "fresh"), [4]))
    played(tmp_path)
    with Store(tmp_path / "results.sqlite") as store:
        other = parse_config(league_text(4).replace("seed = 5", "seed = 9"))
        with pytest.raises(GrowthError, match="seed 5 -> 9"):
            prepare_schedule(store, other, [])


def test_a_damaged_league_entry_is_one_line(tmp_path, capsys):
    grow(tmp_path, [3])
    con = sqlite3.connect(tmp_path / "results.sqlite")
    with con:
        con.execute("UPDATE meta SET value = '{\"games\": 1' WHERE key = 'league'")
    con.close()
    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text(league_text(4))
    assert main(["run", str(cfg_file), "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the stored league (meta 'league') is damaged" in err[0]


def test_arena_run_refuses_a_changed_command_in_one_line(tmp_path, capsys):
    grow(tmp_path, [3])
    played(tmp_path)
    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text(league_text(3).replace('["bot", "bot-00"]', '["bot", "v2"]'))
    assert main(["run", str(cfg_file), "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bot 'bot-00' played here as" in err[0]


# ----- end to end: real bot processes over gRPC --------------------------------------------

def _stored(out: Path) -> dict[str, tuple[str, str, str]]:
    """match id -> (started_at, ended_at, SHA-256 of the record file)."""
    con = sqlite3.connect(out / "results.sqlite")
    try:
        rows = con.execute("SELECT match_id, started_at, ended_at, record FROM results")
        return {mid: (s, e, hashlib.sha256((out / rec).read_bytes()).hexdigest())
                for mid, s, e, rec in rows}
    finally:
        con.close()


class Stop(Exception):
    pass


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("schedule", ["all-tables", "balanced"])
def test_league_grows_3_4_6_over_grpc(tmp_path, schedule):
    """Real random bots: 3 bots, then 4, then 6 (interrupted once and resumed); every step
    plays only the added matches, every earlier result and record stays as it was, and the
    final league holds each match of the grown schedule exactly once."""
    tag = new_tag()
    out = tmp_path / "out"

    def cfg(n: int):
        text = config_text(None, tag=tag, bots=n, hand_cap=1, concurrency=2)
        if schedule == "balanced":
            text = text.replace("deals_per_table = 1", 'deals_per_table = 1\nschedule = '
                                '"balanced"')
        return parse_config(text, "league.toml")

    before: dict[str, tuple[str, str, str]] = {}
    for n in (3, 4):
        outcome = asyncio.run(run_tournament(cfg(n), out, progress=False))
        assert outcome.already_done == len(before)
        assert outcome.played_now == outcome.scheduled - len(before) > 0
        now = _stored(out)
        assert {k: now[k] for k in before} == before       # nothing replayed
        before = now
    # 6 bots, interrupted after 5 matches, then resumed
    seen = []

    def stop_after_five(m):
        seen.append(m.match_id)
        if len(seen) == 5:
            raise Stop

    with pytest.raises(Stop):
        asyncio.run(run_tournament(cfg(6), out, progress=False, on_match=stop_after_five))
    assert wait_no_processes(tag) == []
    partial = _stored(out)
    assert {k: partial[k] for k in before} == before
    outcome = asyncio.run(run_tournament(cfg(6), out, progress=False))
    final = _stored(out)
    assert {k: final[k] for k in partial} == partial
    assert outcome.already_done == len(partial)
    assert outcome.played_now == outcome.scheduled - len(partial)
    with open_existing(out) as store:
        assert store.pending() == []
        rows = store.results()
        sched = store.db.execute("SELECT seat0, seat1, seat2, deal_idx, seed FROM schedule"
                                 ).fetchall()
        key = bytes.fromhex(store.meta("deal_key") or "")
    assert len(rows) == len(final) == len(sched) == outcome.scheduled
    names = [f"random-{k}" for k in range(6)]
    if schedule == "all-tables":   # exactly the fresh 6-bot schedule's games
        full = make_schedule(names, 1, 7, deal_key=key)   # the directory's deal key throughout
        assert Counter(sched) == Counter((*m.seats, m.deal, m.seed.hex()) for m in full)
    pairs = Counter(p for s in {frozenset(r[:3]) for r in sched}
                    for p in itertools.combinations(sorted(s), 2))
    assert set(pairs) == set(itertools.combinations(names, 2))
    standings = json.loads((out / "standings.json").read_text())
    assert sorted(r["bot"] for r in standings["standings"]) == names
    assert wait_no_processes(tag) == []


@pytest.mark.slow
@pytest.mark.e2e
def test_growth_survives_sigkill_and_arena_ratings_covers_everyone(tmp_path, capsys):
    """`arena run` grows 3 -> 4 bots, is killed with SIGKILL mid-growth, and the rerun plays
    exactly the matches left: each of the 48 once, the 12 old ones untouched."""
    tag = new_tag()
    out = tmp_path / "out"
    cfg_file = tmp_path / "league.toml"
    cfg_file.write_text(config_text(None, tag=tag, bots=3, hand_cap=1, deals=2))
    assert main(["run", str(cfg_file), "--out", str(out), "--quiet"]) == 0
    old = _stored(out)
    assert len(old) == 12
    cfg_file.write_text(config_text(None, tag=tag, bots=4, hand_cap=1, deals=2))
    cmd = [sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _count(out) < 16 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None and 16 <= _count(out) < 48
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        err = proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "league grown by 'random-3': 3 tables, 36 matches added" in err
    assert wait_no_processes(tag, 15) == []
    killed = _stored(out)
    assert {k: killed[k] for k in old} == old
    capsys.readouterr()
    assert main(["run", str(cfg_file), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "league grown" not in captured.err              # nothing more to add
    assert f"{48 - len(killed)} matches played now, {len(killed)} resumed from earlier runs, " \
        "48 scheduled" in captured.out
    final = _stored(out)
    assert len(final) == 48 and {k: final[k] for k in killed} == killed
    with open_existing(out) as store:
        assert store.pending() == []
    assert main(["ratings", str(out), "--format", "json", "--bootstrap", "50"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["bot"] for r in report["bots"]} == {f"random-{k}" for k in range(4)}
    assert wait_no_processes(tag) == []


def _count(out: Path) -> int:
    try:
        con = sqlite3.connect(out / "results.sqlite", timeout=1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.e2e
def test_a_typo_then_the_fix_in_the_same_out_directory(tmp_path, capsys):
    """A module name misspelt: the pre-flight stops the run (one line per bot, nothing
    played); the corrected config then runs in the same --out directory (nothing was stored
    to contradict it), its bots in the bubblewrap sandbox."""
    tag = new_tag()
    repo = Path(__file__).resolve().parents[2]
    good = config_text(None, tag=tag, bots=2, sandbox="bwrap") + (
        f'[[bots]]\nname = "mine"\ncommand = ["{{python}}", "-m", "sample_bots.greedy_bot"]\n'
        f'cwd = "{repo}"\nenv = {{ ARENA_TEST_TAG = "{tag}" }}\n')
    cfg_file, out = tmp_path / "t.toml", tmp_path / "out"
    cfg_file.write_text(good.replace("sample_bots.greedy_bot", "sample_bots.greedy_bto"))
    assert main(["run", str(cfg_file), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"arena: error: bot 'mine': its module sample_bots.greedy_bto does not exist "
                   f"(no {repo}/sample_bots/greedy_bto.py or "
                   f"{repo}/sample_bots/greedy_bto/__main__.py)",
                   "arena: error: nothing was played; fix the command and run again (the same "
                   "--out directory is fine)"]
    assert not any("played here" in line for line in err)
    cfg_file.write_text(good)
    assert main(["run", str(cfg_file), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "arena: error" not in captured.err
    with open_existing(out) as store:
        rows = store.results()
    assert len(rows) == 6 and all("mine" in r.players and not any(r.forfeits) for r in rows)
    assert "6 matches played now, 0 resumed" in captured.out
    assert wait_no_processes(tag) == []
