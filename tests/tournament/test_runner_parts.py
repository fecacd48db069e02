"""The runner's parts on their own: the progress reporter, the output
directory (lock, sweeps, record-then-row save), the shared task patterns and the registry of
live process groups. Fast: no bot process."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import subprocess
import sys

import pytest

from arena.tournament.executor import PlayedMatch
from arena.tournament.outdir import (OutDirError, leftovers_notice, out_dir_lock,
                                     prepare_out_dir, save_played, sweep_unfinished_records)
from arena.processes.spawn import LiveGroups
from arena.tournament.reporter import (Alert, ConsoleReporter, MatchStored, Message, Notice,
                                       RunEnded, RunStarted)
from arena.tournament.schedule import make_schedule
from arena.tournament.store import Store
from arena.tournament.tasks import run_workers, uncancellable
from tests.rows import result_row


def _match_and_row(faults=(0, 2, 0)):
    m = make_schedule(["a", "b", "c"], 1, 7)[0]
    row = result_row(m.match_id, m.block_id, m.seats, places=(2, 1, 3), scores=(10, 30, 5),
                     faults=faults, hands=2, decisions=(5, 5, 5), think_ms=(1.0, 2.0, 3.0),
                     started_at="2026-01-01T00:00:00Z", ended_at="2026-01-01T00:01:00Z")
    return m, row


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_plain_reporter_prints_one_line_per_match_and_notices(caplog):
    m, row = _match_and_row()
    out = _Tty()
    report = ConsoleReporter(True, stream=out)
    with caplog.at_level(logging.INFO, logger="arena.tournament"):
        report(Notice("sandbox: none"))
        report(RunStarted(6, 2))
        report(Message("bot 'a' started\x1b[2J"))
        report(MatchStored(m, row))
        report(Alert("registration from another process"))
        report(RunEnded())
    a, b, c = m.seats
    assert out.getvalue().splitlines() == [
        "sandbox: none",
        "bot 'a' started\\u001b[2J",   # a bot's text is made printable
        f"[3/6] {m.match_id} {a}:2 {b}:1 {c}:3 faults 2",
        "arena: WARNING: registration from another process",
    ]
    assert report.faults == 2 and report.done == 3
    logged = [r.getMessage() for r in caplog.records]
    assert "bot 'a' started\x1b[2J" in logged
    assert f"match {m.match_id} done: placings {{'{a}': 2, '{b}': 1, '{c}': 3}}, faults " \
           "[0, 2, 0]" in logged


def test_quiet_reporter_shows_only_notices_and_alerts():
    m, row = _match_and_row(faults=(0, 0, 0))
    out = _Tty()
    report = ConsoleReporter(False, stream=out)
    for event in (RunStarted(1, 0), Notice("n"), Message("m"), MatchStored(m, row),
                  Alert("w"), RunEnded()):
        report(event)
    assert out.getvalue() == "n\narena: WARNING: w\n"


def test_second_lock_on_the_directory_is_refused_until_released(tmp_path):
    with (out_dir_lock(tmp_path / "o"),
          pytest.raises(OutDirError, match="another arena is running"),
          out_dir_lock(tmp_path / "o")):
        pass
    with out_dir_lock(tmp_path / "o"):   # released at the end of the block
        pass


def test_prepare_sweeps_temp_files_and_unfinished_records(tmp_path):
    (tmp_path / "records").mkdir()
    stale = [tmp_path / ".standings.md.abc.tmp", tmp_path / "records" / ".x.jsonl.gz.q.tmp"]
    for p in stale:
        p.write_bytes(b"half")
    keep = tmp_path / "records" / "kept.jsonl.gz"
    keep.write_bytes(b"whole")
    prepare_out_dir(tmp_path)
    assert not any(p.exists() for p in stale) and keep.exists()
    assert (tmp_path / "logs").is_dir()
    pending = make_schedule(["a", "b", "c"], 1, 7)
    orphan = tmp_path / "records" / f"{pending[0].match_id}.jsonl.gz"
    orphan.write_bytes(b"no row")
    assert sweep_unfinished_records(tmp_path, pending) == 1
    assert not orphan.exists()


def test_leftovers_notice_wording(tmp_path):
    assert leftovers_notice(1, tmp_path) == (
        f"arena: ended 1 bot process left running by an earlier arena on {tmp_path}")
    assert "ended 3 bot processes" in leftovers_notice(3, tmp_path)


def test_save_played_writes_the_record_then_the_row(tmp_path):
    m, row = _match_and_row()
    (tmp_path / "records").mkdir()
    with Store(tmp_path / "results.sqlite") as store:
        store.init_schedule("f" * 64, "t", make_schedule(["a", "b", "c"], 1, 7))
        done = PlayedMatch(row, b"gz bytes")
        asyncio.run(save_played(tmp_path, store, done))
        assert (tmp_path / row.record).read_bytes() == b"gz bytes"
        assert [r.match_id for r in store.results()] == [m.match_id]


def test_uncancellable_finishes_the_write_then_passes_the_cancellation_on():
    finished = []

    async def write() -> None:
        await asyncio.sleep(0.05)
        finished.append(True)

    async def caller() -> None:
        await uncancellable(write())

    async def main() -> None:
        task = asyncio.create_task(caller())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert finished == [True]


def test_run_workers_raises_the_first_error_itself_and_cancels_the_others():
    cancelled = []

    async def main() -> None:
        calls = iter(range(3))

        async def worker() -> None:
            if next(calls) == 0:
                await asyncio.sleep(0.01)
                raise KeyError("first")
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                cancelled.append(True)
                raise

        await run_workers(worker, 3)

    with pytest.raises(KeyError, match="first"):
        asyncio.run(main())
    assert cancelled == [True, True]


def test_live_groups_tell_their_listener_every_change():
    groups = LiveGroups()
    heard: list[tuple[str, int]] = []
    groups.add(10)                       # no listener yet
    groups.listener = lambda change, pgid: heard.append((change, pgid))
    groups.add(11)
    groups.discard(10)
    groups.discard(99)                   # not listed: still told (the reaper ignores it)
    assert heard == [("+", 11), ("-", 10), ("-", 99)]
    assert groups.snapshot() == [11] and 11 in groups and len(groups) == 1


def test_match_runner_and_sdk_types_load_without_grpc():
    code = ("import sys, arena.match, arena.sdk.types, arena.records\n"
            "print('grpc' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_terminal_reporter_draws_a_bar_and_prints_above_it():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    m, row = _match_and_row(faults=(0, 1, 0))
    out = Terminal()
    report = ConsoleReporter(True, stream=out)
    for event in (RunStarted(2, 1), Notice("sandbox: none"), MatchStored(m, row),
                  Alert("w"), RunEnded()):
        report(event)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "sandbox: none\n" in text and "arena: WARNING: w\n" in text
    assert re.search(r"matches .* 2/2 faults 1 ", text.splitlines()[-1])
    assert report.bar is None   # stopped at RunEnded
