"""Resume after ``kill -9`` of the arena: the final set of matches equals the schedule, each
exactly once, and the bots of the killed arena exit by themselves (their stream closed)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing

from .helpers import (config_text, count_results, kill_9_when, make_config, new_tag,
                      wait_no_processes)

pytestmark = pytest.mark.e2e


def test_sigkill_mid_run_then_resume(tmp_path):
    tag = new_tag()
    kwargs = dict(tag=tag, bots=4, hand_cap=2, concurrency=2)
    cfg_file = tmp_path / "t.toml"
    cfg_file.write_text(config_text(None, **kwargs))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out",
                             str(out), "--quiet"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    kill_9_when(proc, lambda: count_results(out / "results.sqlite") >= 3, timeout_s=60)
    done_before = count_results(out / "results.sqlite")
    assert 3 <= done_before < 24
    # the bots lose their stream and exit on their own
    assert wait_no_processes(tag, 15) == []
    outcome = asyncio.run(run_tournament(make_config(None, **kwargs), out, progress=False))
    assert outcome.already_done >= done_before and outcome.scheduled == 24
    assert outcome.played_now + outcome.already_done == 24
    with open_existing(out) as store:
        ids = [r.match_id for r in store.results()]
        assert store.pending() == []
    assert len(ids) == len(set(ids)) == 24
    assert len(list((out / "records").glob("*.jsonl.gz"))) == 24
    assert not list((out / "records").glob(".*"))        # no half-written temp files
    again = asyncio.run(run_tournament(make_config(None, **kwargs), out, progress=False))
    assert again.played_now == 0 and again.already_done == 24
    assert wait_no_processes(tag) == []


def test_rerun_with_another_tournament_is_refused(tmp_path):
    from arena.cli import main
    tag = new_tag()
    (tmp_path / "a.toml").write_text(config_text(None, tag=tag, hand_cap=1))
    assert main(["run", str(tmp_path / "a.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    (tmp_path / "b.toml").write_text(config_text(None, tag=tag, hand_cap=2))
    assert main(["run", str(tmp_path / "b.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert wait_no_processes(tag) == []
