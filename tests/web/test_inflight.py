"""The in-flight journal (arena/inflight.py): what a running arena leaves in ``OUT/live/`` for
a read-only ``arena serve`` in another process, and how that reader follows it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.events import DecisionApplied, DecisionsApplied, MatchFinished, MatchStarted
from arena.inflight import LIVE_DIR, InflightJournal, JournalReader, journaled, tee

SEATS = ("north <b>", "east", "west")


def _decision(i: int, match: str = "m1", **kw: object) -> DecisionApplied:
    fields: dict = {"hand": 1, "seat": i % 3, "kind": "play", "action": f"{i + 2}H",
                    "fault": None, "think_ms": 1.5}
    fields.update(kw)
    return DecisionApplied(match, i, **fields)


def _batch(*moves: DecisionApplied) -> DecisionsApplied:
    return DecisionsApplied(moves[0].match_id, moves)


def test_a_match_is_followed_from_start_to_stored(tmp_path):
    journal, reader = InflightJournal(tmp_path, flush_s=0), JournalReader(tmp_path)
    assert reader.poll() == []                       # no live/ directory yet
    journal(MatchStarted("m1", SEATS))
    journal(_batch(_decision(0)))
    journal(_batch(_decision(1, kind="discard", action="a card", fault="timeout",
                              think_ms=2000.04)))
    assert reader.poll() == [MatchStarted("m1", SEATS), _batch(
        _decision(0), _decision(1, kind="discard", action="a card", fault="timeout",
                                think_ms=2000.0))]
    assert reader.poll() == []                       # nothing new
    journal(_batch(_decision(2), _decision(3)))
    assert reader.poll() == [_batch(_decision(2), _decision(3))]
    files = list((tmp_path / LIVE_DIR).glob("*.jsonl"))
    assert [f.name for f in files] == ["m1.jsonl"]
    head = json.loads(files[0].read_text().splitlines()[0])
    assert head["pid"] == os.getpid() and head["seats"] == list(SEATS) and head["v"] == 2
    journal(MatchFinished("m1", SEATS, (1, 2, 3), (1, 0, -1), "records/m1.json.gz"))
    assert list((tmp_path / LIVE_DIR).glob("*.jsonl")) == []
    assert reader.poll() == [MatchFinished("m1", SEATS, (), (), "")]
    assert reader.poll() == []


def test_a_partial_last_line_waits_for_its_end(tmp_path):
    journal, reader = InflightJournal(tmp_path, flush_s=0), JournalReader(tmp_path)
    journal(MatchStarted("m1", SEATS))
    path = tmp_path / LIVE_DIR / "m1.jsonl"
    assert reader.poll() == [MatchStarted("m1", SEATS)]
    with open(path, "ab") as f:                      # a writer caught mid-line
        f.write(b'[0,1,0,"play","7H",nu')
    assert reader.poll() == []
    with open(path, "ab") as f:
        f.write(b'll,3.5]\nnot json\n[1,1,1,"play","8H",null,1.0]\n')
    assert reader.poll() == [_batch(_decision(0, action="7H", think_ms=3.5),
                                    _decision(1, action="8H", think_ms=1.0))]  # bad line skipped


def test_decisions_are_written_in_batches_not_one_write_each(tmp_path):
    async def main() -> tuple[int, int]:
        journal = InflightJournal(tmp_path, flush_s=0.2)
        journal(MatchStarted("m1", SEATS))
        for i in range(50):
            journal(_batch(_decision(i)))
        path = tmp_path / LIVE_DIR / "m1.jsonl"
        before = len(path.read_text().splitlines())
        await asyncio.sleep(0.4)
        after = len(path.read_text().splitlines())
        journal.close()
        return before, after
    before, after = asyncio.run(main())
    assert (before, after) == (1, 51)                # the header at once, then one batch
    assert list((tmp_path / LIVE_DIR).glob("*.jsonl")) == []   # close removes what is open


def test_files_of_a_dead_writer_are_skipped_and_swept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = tmp_path / LIVE_DIR
    live.mkdir()
    head = {"v": 2, "pid": dead.pid, "host": os.uname().nodename, "match": "old",
            "seats": list(SEATS), "started": 0}
    (live / "old.jsonl").write_text(json.dumps(head) + "\n")
    (live / "junk.jsonl").write_text("{not a header}\n")
    reader = JournalReader(tmp_path)
    assert reader.poll() == []                       # a killed arena's file, a malformed one
    journal = InflightJournal(tmp_path, flush_s=0)   # the next arena on the directory
    journal(MatchStarted("new", SEATS))
    assert sorted(p.name for p in live.iterdir()) == ["cards.json", "new.jsonl"]
    assert reader.poll() == [MatchStarted("new", SEATS)]


def test_a_followed_match_ends_when_its_writer_dies(tmp_path):
    script = ("import sys, time\nfrom pathlib import Path\n"
              "from arena.inflight import InflightJournal\n"
              "from arena.events import MatchStarted\n"
              "j = InflightJournal(Path(sys.argv[1]), flush_s=0)\n"
              "j(MatchStarted('m9', ('a', 'b', 'c')))\nprint('ok', flush=True)\n"
              "time.sleep(60)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    writer = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline() == "ok\n"
        reader = JournalReader(tmp_path)
        assert reader.poll() == [MatchStarted("m9", ("a", "b", "c"))]
    finally:
        writer.kill()
        writer.wait()
    assert (tmp_path / LIVE_DIR / "m9.jsonl").exists()   # SIGKILL: nobody removed it
    assert reader.poll() == [MatchFinished("m9", ("a", "b", "c"), (), (), "")]


def test_an_unwritable_journal_never_stops_the_run(tmp_path):
    (tmp_path / LIVE_DIR).write_text("a file where the directory should be")
    journal = InflightJournal(tmp_path, flush_s=0)
    journal(MatchStarted("m1", SEATS))
    journal(_batch(_decision(0)))
    assert journal.disabled


def test_journaled_passes_every_event_on_and_cleans_up(tmp_path):
    seen: list = []

    async def run(sink) -> str:
        sink(MatchStarted("m1", SEATS))
        sink(_batch(_decision(0)))
        assert (tmp_path / LIVE_DIR / "m1.jsonl").exists()
        raise RuntimeError("the arena stops mid-match")

    with pytest.raises(RuntimeError, match="mid-match"):
        asyncio.run(journaled(tmp_path, run, also=seen.append))
    assert seen == [MatchStarted("m1", SEATS), _batch(_decision(0))]
    assert list((tmp_path / LIVE_DIR).glob("*.jsonl")) == []
    assert tee(None, None) is None and tee(None, seen.append) == seen.append


def _table(won=(1, 0, 2)):
    from arena.events import PublicTable
    return PublicTable(2, 1, 2, "trump:S", (5, 3, 8), won, (4, -2, 0), (10, 11, 10), 0,
                       ((1, "QD"),), (2, ((2, "AS"), (0, "KS"), (1, "2S")), 2))


def test_tables_and_the_hidden_flag_go_through_the_journal(tmp_path):
    journal, reader = InflightJournal(tmp_path, flush_s=0), JournalReader(tmp_path)
    assert reader.hidden() is None                   # no arena wrote here yet
    journal(MatchStarted("m1", SEATS, True))
    journal(DecisionsApplied("m1", (_decision(0),), _table()))
    journal(DecisionsApplied("m1", (_decision(1),), _table((1, 1, 2))))
    got = reader.poll()
    assert got[0] == MatchStarted("m1", SEATS, True)
    assert got[1] == DecisionsApplied("m1", (_decision(0), _decision(1)), _table((1, 1, 2)))
    assert reader.hidden() is True
    head = json.loads((tmp_path / LIVE_DIR / "m1.jsonl").read_text().splitlines()[0])
    assert head["hidden"] is True


def test_the_journal_is_readable_by_its_owner_only(tmp_path):
    """The directory is 0700 and every file 0600 from its creation (an older, open
    directory is closed before the first file is written); the same for records/ and
    logs/ of the tournament directory."""
    import stat

    from arena.tournament.outdir import prepare_out_dir
    live = tmp_path / LIVE_DIR
    live.mkdir(mode=0o755)
    live.chmod(0o755)                                 # as an older arena left it
    seen: list[int] = []
    real_open = os.open

    def spy(path, flags, mode=0o777, **kw):           # the mode each file is created with
        if flags & os.O_CREAT:
            seen.append(mode)
            assert stat.S_IMODE(live.stat().st_mode) == 0o700, "file made before the chmod"
        return real_open(path, flags, mode, **kw)
    journal = InflightJournal(tmp_path, flush_s=0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "open", spy)
        journal(MatchStarted("m1", SEATS))
    journal(_batch(_decision(0)))
    assert seen and set(seen) == {0o600}
    assert stat.S_IMODE(live.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in live.iterdir()} == {0o600}
    (tmp_path / "records").mkdir(mode=0o755)
    (tmp_path / "records").chmod(0o755)
    prepare_out_dir(tmp_path)
    for sub in ("records", "logs"):
        assert stat.S_IMODE((tmp_path / sub).stat().st_mode) == 0o700
