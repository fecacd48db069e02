"""Bots shipped to the workers with Ray's runtime_env ``working_dir`` (issue 15): the run
starts its own Ray instance (a local directory can only be shipped by the job's
``ray.init``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament

from ..tournament.helpers import config_text, new_tag, wait_no_processes
from .raytools import ray_extra, stored

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


BOT = """\
import os, sys
from sample_bots.random_bot import main
print("bot cwd:", os.getcwd(), file=sys.stderr, flush=True)
main()
"""


def test_working_dir_ships_the_bots(tmp_path, monkeypatch):
    """The bots' directory exists only where the driver is; the workers get a copy through
    Ray's runtime_env and the bots start there (a relative command path resolves in it)."""
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "shipped_bot.py").write_text(BOT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)                 # shipped_bot.py is not in the driver's cwd
    tag = new_tag()
    text = config_text(None, tag=tag, bots=3, hand_cap=1, concurrency=2,
                       extra=ray_extra(2, 0.25, "local") + f'working_dir = "{bots}"\n')
    text = text.replace('["{python}", "-m", "sample_bots.random_bot"]',
                        '["{python}", "shipped_bot.py"]')
    outcome = asyncio.run(run_tournament(parse_config(text, "t.toml"), tmp_path / "o",
                                         progress=False))
    assert wait_no_processes(tag) == []
    assert outcome.played_now == 6
    rows = stored(tmp_path / "o")
    assert all(r.status == "normal" and not any(r.faults) for r in rows.values())
    log = (tmp_path / "o" / "logs" / "random-0.log").read_text()
    cwd = log.split("bot cwd: ", 1)[1].splitlines()[0]
    assert cwd != str(bots) and cwd != str(elsewhere)
    assert (Path(cwd) / "shipped_bot.py").read_text() == BOT
