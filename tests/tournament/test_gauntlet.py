"""The gauntlet: schedule and complete-block prefix (pure), config errors, and `arena gauntlet`
end to end with real sample bots over gRPC (a decision, resume, the cap)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
import subprocess
import sys

import pytest

from arena.cli import main
from arena.ratings import MatchResult
from arena.tournament.config import ConfigError, parse_config
from arena.tournament.gauntlet import (BlockPrefix, block_order, gauntlet_entries,
                                       gauntlet_schedule, gauntlet_tables)

from .helpers import bot_block, count_results, kill_9_when, new_tag, wait_no_processes


def gauntlet_text(tag: str, *, field: int = 1, elo1: float = 100, max_blocks: int = 40,
                  extra: str = "") -> str:
    text = ("[tournament]\nseed = 3\nconcurrency = 2\n[rules]\nhand_cap = 1\n"
            "[time]\nper_decision_ms = 300\n"
            f"[gauntlet]\ncandidate = \"greedy\"\nelo1 = {elo1}\nmax_blocks = {max_blocks}\n"
            + extra)
    text += bot_block("greedy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
    for k in range(field):
        text += bot_block(f"random-{k}", ["{python}", "-m", "sample_bots.random_bot", "--seed",
                                          str(k)], tag)
    return text


def test_tables_and_schedule_order():
    assert gauntlet_tables("c", ["a", "b", "d"]) == [("c", "a", "b"), ("c", "a", "d"),
                                                     ("c", "b", "d")]
    sched = gauntlet_schedule("c", ["a", "b", "d"], 7, seed=1)
    assert len(sched) == 42
    blocks = block_order(sched)
    assert blocks == ["t000-d0000", "t001-d0000", "t002-d0000", "t000-d0001", "t001-d0001",
                      "t002-d0001", "t000-d0002"]
    for k, blk in enumerate(blocks):
        ms = [m for m in sched if m.block_id == blk]
        assert len(ms) == 6 and len({m.seed for m in ms}) == 1
        assert {frozenset(m.seats) for m in ms} == {frozenset(gauntlet_tables(
            "c", ["a", "b", "d"])[k % 3])}
        assert len({m.seats for m in ms}) == 6
    assert gauntlet_schedule("c", ["a", "b", "d"], 7, seed=1) == sched
    assert gauntlet_schedule("c", ["a", "b", "d"], 7, seed=2)[0].seed != sched[0].seed
    with pytest.raises(ValueError, match="2 distinct field bots"):
        gauntlet_tables("c", ["a"])


def test_a_field_of_one_bot_is_seated_twice():
    cfg = parse_config(gauntlet_text("t"))
    assert [e.name for e in gauntlet_entries(cfg)] == ["greedy", "random-0", "random-0#2"]
    assert gauntlet_entries(cfg)[2].command == gauntlet_entries(cfg)[1].command
    cfg3 = parse_config(gauntlet_text("t", field=3))
    assert [e.name for e in gauntlet_entries(cfg3)] == ["greedy", "random-0", "random-1",
                                                        "random-2"]


def test_decisions_use_the_complete_block_prefix_only():
    order = ["b0", "b1", "b2"]
    prefix = BlockPrefix("c", order)
    win = lambda blk: MatchResult(("c", "x", "y"), (1, 2, 3), blk)  # noqa: E731
    for _ in range(6):
        assert not prefix.add(win("b1"))      # b1 complete, but b0 is not
    assert len(prefix.blocks) == 0
    for _ in range(5):
        prefix.add(win("b0"))
    assert prefix.add(win("b0")) and len(prefix.blocks) == 2   # b0 then b1
    assert [m.block for m in prefix.matches] == ["b0"] * 6 + ["b1"] * 6
    prefix.add(win("b2"))
    assert len(prefix.blocks) == 2


def test_blocks_of_a_bot_that_never_started_are_passed_over():
    prefix = BlockPrefix("c", ["b0", "b1", "b2"], excluded=frozenset({"z"}))
    for _ in range(6):
        prefix.add(MatchResult(("c", "x", "z"), (1, 2, 3), "b0"))
        prefix.add(MatchResult(("c", "x", "y"), (3, 2, 1), "b1"))
    assert [m.block for m in prefix.matches] == ["b1"] * 6 and prefix.consumed == 2
    assert prefix.blocks.names == ["c", "x", "y"]      # z never enters the test
    for _ in range(6):
        prefix.add(MatchResult(("c", "x", "y"), (1, 2, 3), "b2"))
    assert len(prefix.blocks) == 2 and prefix.consumed == 3


@pytest.mark.parametrize("bad, message", [
    ('candidate = "nobody"', "gauntlet.candidate: 'nobody' is not one of the bots"),
    ("elo0 = 200", "gauntlet: elo0 must be below elo1"),
    ("alpha = 0.7", "gauntlet: alpha must be in (0, 0.5)"),
    ("max_blocks = 0", "gauntlet.max_blocks: Input should be greater than or equal to 1"),
])
def test_gauntlet_config_errors(bad, message):
    text = gauntlet_text("t").replace('candidate = "greedy"\n', "")
    key = bad.split(" = ")[0]
    text = "\n".join(line for line in text.splitlines() if not line.startswith(key + " "))
    text = text.replace("[gauntlet]\n", f"[gauntlet]\n{bad}\n")
    if key != "candidate":
        text = text.replace("[gauntlet]\n", '[gauntlet]\ncandidate = "greedy"\n')
    with pytest.raises(ConfigError) as err:
        parse_config(text, "g.toml")
    assert message in str(err.value)


def test_remote_single_field_bot_and_wrong_command(tmp_path, capsys):
    text = ('[gauntlet]\ncandidate = "a"\n[[bots]]\nname = "a"\ncommand = ["x"]\n'
            '[[bots]]\nname = "b"\nremote = true\ntoken = "t"\n')
    with pytest.raises(ConfigError, match="a field of one bot is seated twice"):
        parse_config(text, "g.toml")
    cfg = tmp_path / "g.toml"
    cfg.write_text(gauntlet_text("t"))
    assert main(["run", str(cfg)]) == 2
    assert "has a [gauntlet] section: run it with `arena gauntlet" in capsys.readouterr().err
    plain = tmp_path / "p.toml"
    plain.write_text(gauntlet_text("t").replace("[gauntlet]\n", "[x]\n").split("[x]")[0]
                     + gauntlet_text("t").split("max_blocks = 40\n")[1] + bot_block(
                         "third", ["x"], "t"))
    assert main(["gauntlet", str(plain)]) == 2
    assert "no [gauntlet] section" in capsys.readouterr().err


@pytest.mark.e2e
def test_arena_gauntlet_decides_h1_for_greedy_against_random_and_resumes(tmp_path):
    tag = new_tag()
    cfg = tmp_path / "g.toml"
    cfg.write_text(gauntlet_text(tag))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "arena.cli", "gauntlet", str(cfg), "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "H1 accepted: greedy is stronger than the field" in proc.stdout
    assert "LLR " in proc.stderr and "blocks 1  running" in proc.stderr
    # the deciding line once (stdout), not again among the progress lines
    assert (proc.stdout + proc.stderr).count("  H1 accepted") == 1
    assert wait_no_processes(tag) == []
    state = json.loads((out / "sprt.json").read_text())
    assert state["decision"] == "H1" and state["llr"] >= state["upper"]
    assert 2 <= state["blocks"] < 40 and state["elo"] > 100
    # what the test rests on, and its Elo is the ratings' candidate minus the field's mean
    n = 6 * state["blocks"]
    assert f"the test: {state['blocks']} blocks, {n} matches; greedy placed 1st " in proc.stdout
    assert "  against random-0: above in " in proc.stdout
    assert "  against random-0#2: above in " in proc.stdout
    assert "Elo: the rating of greedy minus the mean rating of random-0, random-0#2" in \
        proc.stdout.replace("\n  ", " ")
    from arena.ratings import rate
    from arena.tournament.store import open_existing
    with open_existing(out) as store:
        tested = [r for r in store.results()
                  if int(r.block.split("-d")[1]) < state["blocks"]]
    report = rate(tested, bootstrap=0)
    # the same quantity from two fits, each converged to its own tolerance (a few 1e-6 Elo
    # apart at times): equal to a thousandth of an Elo
    assert state["elo"] == pytest.approx(report.bot("greedy").rating - (
        report.bot("random-0").rating + report.bot("random-0#2").rating) / 2, abs=1e-3)
    con = sqlite3.connect(out / "results.sqlite")
    done = con.execute("SELECT s.block_id FROM results JOIN schedule s USING (match_id)"
                       ).fetchall()
    seats = {r for r in con.execute("SELECT seat0, seat1, seat2 FROM schedule").fetchall()}
    con.close()
    assert {frozenset(s) for s in seats} == {frozenset({"greedy", "random-0", "random-0#2"})}
    # the first `blocks` blocks are complete; matches beyond them (played while an earlier
    # block was finishing) do not count
    counts = Counter(b for (b,) in done)
    prefix = [f"t000-d{d:04d}" for d in range(state["blocks"])]
    assert all(counts[b] == 6 for b in prefix) and len(done) >= 6 * state["blocks"]
    again = subprocess.run([*cmd, "--quiet"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "0 matches played now" in again.stdout and "H1 accepted" in again.stdout
    assert json.loads((out / "sprt.json").read_text()) == state
    rated = subprocess.run([sys.executable, "-m", "arena.cli", "ratings", str(out),
                            "--format", "json", "--bootstrap", "50"],
                           capture_output=True, text=True, timeout=120)
    assert rated.returncode == 0, rated.stderr
    assert json.loads(rated.stdout)["bots"][0]["bot"] == "greedy"


@pytest.mark.e2e
def test_arena_gauntlet_stops_at_max_blocks_without_a_decision(tmp_path):
    tag = new_tag()
    cfg = tmp_path / "g.toml"
    cfg.write_text(gauntlet_text(tag, field=2, elo1=5, max_blocks=2))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "gauntlet", str(cfg), "--out",
                           str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "no decision: max_blocks = 2 reached" in proc.stdout
    assert "12 matches played now" in proc.stdout
    state = json.loads((out / "sprt.json").read_text())
    assert state["capped"] and state["decision"] is None and state["blocks"] == 2
    assert wait_no_processes(tag) == []


def test_example_gauntlet_config_is_valid():
    from pathlib import Path

    from arena.tournament.config import load_config
    cfg = load_config(Path(__file__).parents[2] / "examples" / "gauntlet.toml")
    assert cfg.gauntlet.candidate == "greedy" and cfg.gauntlet.elo1 == 50
    assert cfg.tournament.mode == "gauntlet"   # `arena run` plays it too
    assert [e.name for e in gauntlet_entries(cfg)] == ["greedy", "random", "random-2"]


@pytest.mark.e2e
def test_gauntlet_killed_with_sigkill_resumes_to_the_same_decision(tmp_path):
    """SIGKILL mid-run: the bots exit, nothing stored is lost or played twice, and the rerun
    plays on from the stored results to a decision on complete blocks."""

    from arena.tournament.store import open_existing

    tag = new_tag()
    text = gauntlet_text(tag, field=2, elo1=150, max_blocks=12)
    cfg = tmp_path / "g.toml"
    cfg.write_text(text)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "arena.cli", "gauntlet", str(cfg), "--out", str(out),
           "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)

    def stored() -> int:
        return count_results(out / "results.sqlite")

    alive = kill_9_when(proc, lambda: stored() >= 4)
    before = stored()
    assert alive and before >= 4
    assert wait_no_processes(tag, 15) == []
    con = sqlite3.connect(out / "results.sqlite")
    try:   # the bots were tracked in the store as in `arena run` (main's process table)
        started = {b for (b,) in con.execute("SELECT bot FROM bot_starts WHERE registered > 0")}
    finally:
        con.close()
    assert started == {"greedy", "random-0", "random-1"}
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{before} earlier" in resumed.stdout
    state = json.loads((out / "sprt.json").read_text())
    with open_existing(out) as store:
        ids = [r.match_id for r in store.results()]
    assert len(ids) == len(set(ids)) >= 6 * state["blocks"]
    assert not list((out / "records").glob(".*"))
    assert state["decision"] == "H1" and state["llr"] >= state["upper"]
    counts = Counter(r.block for r in store_rows(out))
    assert all(counts[f"t000-d{k:04d}"] == 6 for k in range(state["blocks"]))   # one table
    assert wait_no_processes(tag) == []


def store_rows(out):
    from arena.tournament.store import open_existing
    with open_existing(out) as store:
        return store.results()


def test_mode_gauntlet_needs_a_gauntlet_section(tmp_path, capsys):
    text = '[tournament]\nmode = "gauntlet"\n' + "".join(
        bot_block(f"b{k}", ["{python}", "-m", "sample_bots.random_bot"], "t") for k in range(3))
    with pytest.raises(ConfigError, match='tournament.mode: mode = "gauntlet" needs a '
                       r"\[gauntlet\] section"):
        parse_config(text, "t.toml")
    cfg = parse_config(gauntlet_text("t").replace("[tournament]\n",
                                                  '[tournament]\nmode = "gauntlet"\n'))
    assert cfg.tournament.mode == "gauntlet"
    assert parse_config(gauntlet_text("t")).tournament.mode == "round-robin"
    web = tmp_path / "w.toml"
    web.write_text(gauntlet_text("t").replace("[tournament]\n", '[tournament]\nmode = '
                                              '"gauntlet"\n'))
    assert main(["run", str(web), "--web", "0", "--out", str(tmp_path / "o")]) == 2
    assert "--web and --json are for round-robins" in capsys.readouterr().err


@pytest.mark.e2e
def test_arena_run_with_mode_gauntlet_runs_the_gauntlet(tmp_path):
    tag = new_tag()
    cfg = tmp_path / "g.toml"
    cfg.write_text(gauntlet_text(tag).replace("[tournament]\n",
                                              '[tournament]\nmode = "gauntlet"\n'))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(cfg), "--out",
                           str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "H1 accepted: greedy is stronger than the field" in proc.stdout
    state = json.loads((out / "sprt.json").read_text())
    assert state["decision"] == "H1" and state["never_started"] == []
    assert (out / "arena.log").is_file()
    assert wait_no_processes(tag) == []


BROKEN = ["{python}", "-c", "import sys; sys.exit('no model file')"]


def _quiet_gauntlet(tmp_path, text: str, out) -> subprocess.CompletedProcess:
    """`arena gauntlet CFG --out OUT --quiet` on config ``text``, in a child process."""
    cfg_file = tmp_path / "g.toml"
    cfg_file.write_text(text)
    return subprocess.run([sys.executable, "-m", "arena.cli", "gauntlet", str(cfg_file),
                           "--out", str(out), "--quiet"], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.e2e
def test_gauntlet_keeps_a_field_bot_that_never_started_out_of_the_sprt(tmp_path):
    """A field of 3 where one bot exits before registering: its two tables are passed over,
    the test decides on the third table alone, and the exit status is 3 as in `arena run`."""
    from arena.ratings.sprt import BlockSequence, sequential_test
    from arena.tournament.gauntlet import sprt_parameters
    from arena.tournament.store import ResultRow, open_existing

    tag = new_tag()
    text = gauntlet_text(tag, field=2, extra="[faults]\nmax_crashes = 2\n") \
        + bot_block("broken", BROKEN, tag)
    out = tmp_path / "out"
    proc = _quiet_gauntlet(tmp_path, text, out)
    assert proc.returncode == 3, proc.stderr
    assert "arena: error: bot 'broken' never started: " in proc.stderr
    assert "kept out of the SPRT" in proc.stderr
    state = json.loads((out / "sprt.json").read_text())
    assert state["never_started"] == ["broken"] and state["decision"] == "H1"
    # the decision is the SPRT over the complete blocks of the one table without 'broken'
    with open_existing(out) as store:
        rows = store.results()
    by_block: dict[str, list[ResultRow]] = {}
    for r in rows:
        by_block.setdefault(r.block, []).append(r)   # stored rows are rated as they are
    blocks = BlockSequence("greedy")
    for d in range(40):
        matches = by_block.get(f"t000-d{d:04d}", [])
        if len(matches) < 6:
            break
        blocks.add(matches)
    want = sequential_test(blocks, sprt_parameters(parse_config(text)), 40)
    assert want.decision == "H1" and state["blocks"] == want.blocks
    assert state["llr"] == pytest.approx(want.llr)
    assert wait_no_processes(tag) == []


@pytest.mark.e2e
def test_gauntlet_stops_when_the_candidate_never_started(tmp_path):
    tag = new_tag()
    text = gauntlet_text(tag, field=2, extra="[faults]\nmax_crashes = 2\n").replace(
        json.dumps(["{python}", "-m", "sample_bots.greedy_bot"]), json.dumps(BROKEN))
    assert "no model file" in text
    out = tmp_path / "out"
    proc = _quiet_gauntlet(tmp_path, text, out)
    assert proc.returncode == 3, proc.stderr
    assert "no decision: no table is left without a bot that never started" in proc.stdout
    state = json.loads((out / "sprt.json").read_text())
    assert state["blocks"] == 0 and state["decision"] is None
    assert state["never_started"] == ["greedy"]
    played = int(proc.stdout.split(" matches played now")[0].rsplit("\n", 1)[-1])
    assert 2 <= played <= 4        # stopped once its 2 starts had failed (2 slots in flight)
    assert wait_no_processes(tag) == []


@pytest.mark.e2e
def test_a_running_gauntlet_shows_its_matches_in_flight_to_arena_serve(tmp_path):
    """`arena gauntlet` keeps the in-flight journal (OUT/live/) like `arena run`: a reader in
    another process sees a match start and its moves, then its end; nothing is left after."""
    import time

    from arena.events import DecisionsApplied, MatchFinished, MatchStarted
    from arena.inflight import JournalReader

    from .helpers import PROBEBOT
    tag = new_tag()
    text = gauntlet_text(tag, field=1, elo1=5, max_blocks=1).replace(
        'name = "random-0"', 'name = "slow"').replace(
        '"-m", "sample_bots.random_bot", "--seed", "0"',
        f'"{PROBEBOT}", "--mode", "slow", "--sleep-ms", "20"')
    assert "--mode" in text
    cfg = tmp_path / "g.toml"
    cfg.write_text(text)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "gauntlet", str(cfg), "--out",
                             str(out), "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen: list = []
    try:
        reader = JournalReader(out)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            seen += reader.poll()
            time.sleep(0.05)
        stdout, stderr = proc.communicate(timeout=60)
        seen += reader.poll()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "no decision: max_blocks = 1 reached" in stdout
    started = {e.match_id for e in seen if isinstance(e, MatchStarted)}
    moved = {e.match_id for e in seen if isinstance(e, DecisionsApplied)}
    ended = {e.match_id for e in seen if isinstance(e, MatchFinished)}
    assert started and moved <= started and moved and ended == started
    for match_id in moved:        # each match's moves arrive in order, none twice
        idx = [m.index for e in seen if isinstance(e, DecisionsApplied)
               and e.match_id == match_id for m in e.moves]
        assert idx == list(range(idx[0], idx[0] + len(idx)))
    assert list((out / "live").glob("*.jsonl")) == []   # no match left in flight
    assert wait_no_processes(tag) == []


@pytest.mark.e2e
def test_a_deterministic_bot_against_copies_of_itself_stops_on_zero_variance(tmp_path):
    """greedy (deterministic) against two copies of itself with elo0 = -elo1: every block
    scores alike and the LLR stays at 0; the test stops once the zero-variance bound (1042/k
    Elo) is inside (-50, 50), after 21 blocks, with a verdict that says so, instead of
    playing on to max_blocks."""
    tag = new_tag()
    text = ("[tournament]\nseed = 5\nconcurrency = 2\n[rules]\nhand_cap = 1\n"
            "[time]\nper_decision_ms = 300\n[gauntlet]\ncandidate = \"greedy\"\nelo0 = -50\n"
            "elo1 = 50\nmax_blocks = 200\n")
    text += bot_block("greedy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
    text += bot_block("copy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
    out = tmp_path / "out"
    proc = _quiet_gauntlet(tmp_path, text, out)
    assert proc.returncode == 0, proc.stderr
    assert "stopped: every block alike (zero variance)" in proc.stdout
    assert "no decision: every block of the test scored alike (zero variance)" in proc.stdout
    state = json.loads((out / "sprt.json").read_text())
    assert state["blocks"] == 21 and state["zero_variance"]
    assert state["decision"] == "zero variance" and state["llr"] == pytest.approx(0, abs=1e-9)
    assert wait_no_processes(tag) == []
