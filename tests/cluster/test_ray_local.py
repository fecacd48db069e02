"""The Ray backend on a single-machine Ray instance (``ray.init(address="local",
num_cpus=2)``, shared by this module's tests): the same results and records as ``local``; bot
crashes stay bot faults; bots die with their worker; the gauntlet plays there too."""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest

from arena.cluster import executor as executor_module
from arena.cluster.executor import ClusterError, ray_executor
from arena.cluster.worker import MatchWorker
from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import make_schedule

from ..tournament.helpers import (RAWBOT, bot_block, config_text, make_config, new_tag,
                                 tagged_processes, wait_no_processes)
from .raytools import (comparable, ray_extra, record_lines, seeded_config, start_ray,
                       stored)

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


#: Ray's own clean-up of a dead worker's child processes, turned off here so that the tests
#: show the worker's reaper does the job (on a lost node Ray's cannot)
RAY_CLEANUP_OFF = {"RAY_kill_child_processes_on_worker_exit": "false",
                   "RAY_kill_child_processes_on_worker_exit_with_raylet_subreaper": "false",
                   "RAY_process_group_cleanup_enabled": "false"}


@pytest.fixture(scope="module")
def ray_2cpus():
    saved = {k: os.environ.get(k) for k in RAY_CLEANUP_OFF}
    os.environ.update(RAY_CLEANUP_OFF)
    try:
        start_ray(lambda: ray.init(address="local", num_cpus=2, include_dashboard=False,
                                   log_to_driver=False))
        try:
            yield
        finally:
            ray.shutdown()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_same_results_and_records_as_local(tmp_path, ray_2cpus):
    tag = new_tag()
    cfg = seeded_config(tag)
    assert cfg.cluster.backend == "local"
    local = asyncio.run(run_tournament(cfg, tmp_path / "local", progress=False))
    from arena.tournament.store import copy_deal_key
    copy_deal_key(tmp_path / "local", tmp_path / "ray")     # the same deals: the same key
    on_ray = asyncio.run(run_tournament(seeded_config(tag, ray_extra(2, 0.25)), tmp_path / "ray",
                                        progress=False, executors=ray_executor))
    assert wait_no_processes(tag) == []
    assert local.played_now == on_ray.played_now == 6
    a, b = stored(tmp_path / "local"), stored(tmp_path / "ray")
    assert sorted(a) == sorted(b) and len(a) == 6
    assert len({r.scores for r in a.values()}) > 1          # the games really differ
    for match_id in a:
        assert comparable(a[match_id]) == comparable(b[match_id])
        rec = f"records/{match_id}.jsonl.gz"
        assert record_lines(tmp_path / "local" / rec) == record_lines(tmp_path / "ray" / rec)
    def no_timings(rows):
        measured = ("ms_per_decision", "cpu_ms_per_decision", "peak_mib")
        return [{k: v for k, v in vars(r).items() if k not in measured} for r in rows]
    assert no_timings(local.standings.rows) == no_timings(on_ray.standings.rows)
    # the bots' logs come back to the driver's output directory
    for name in ("random-0", "random-1", "random-2"):
        log = (tmp_path / "ray" / "logs" / f"{name}.log").read_text()
        assert "registered with the arena" in log and "match t000-d0000-s5 starts" in log


def test_bot_crash_is_a_bot_fault_counted_on_the_driver(tmp_path, capfd, ray_2cpus):
    """As with ``local`` (tests/tournament/test_faults.py): a bot crashing in every match is
    restarted, forfeits, and is disqualified at its max_crashes-th crash; the worker
    survives it, and the crash messages name the driver's log file."""
    tag = new_tag()
    cfg = make_config("crash", tag=tag, max_crashes=2, time_ms=10_000, extra=ray_extra(1, 0.25))
    outcome = asyncio.run(run_tournament(cfg, tmp_path / "o", progress=True,
                                         executors=ray_executor))
    err = capfd.readouterr().err
    assert wait_no_processes(tag) == []
    assert outcome.played_now == 6 and "worker lost" not in err
    rows = stored(tmp_path / "o")
    reasons = [r.forfeit_reasons[r.players.index("bad")] for r in rows.values()]
    assert all(r.forfeits[r.players.index("bad")] for r in rows.values())
    assert sum("disconnect" in x for x in reasons) == 2          # crashed in 2 matches
    assert sum("disqualified after 2 crashes" in x for x in reasons) == 4
    assert len(outcome.disqualifications) == 1 and "'bad'" in outcome.disqualifications[0]
    assert f"bot 'bad' crashed: the bot's process died (exit status 3) (log: " \
        f"{tmp_path / 'o' / 'logs' / 'bad.log'})" in err
    assert (tmp_path / "o" / "logs" / "bad.log").read_text().count("=== ") >= 2  # came back


def test_bots_die_with_their_worker(tmp_path, ray_2cpus):
    """A worker killed mid-match (as a lost node kills it) takes its bots with it, even a bot
    process group that would outlive the arena: each bot runs under ``sh`` that then sleeps an
    hour in the same group; only the worker's reaper ends that."""
    tag = new_tag()
    wrap = ["sh", "-c", '"$0" "$@"; sleep 3600', "{python}"]
    text = config_text(None, tag=tag, bots=2, time_ms=60_000)
    text = text.replace('command = ["{python}", ', f"command = {json.dumps(wrap)[:-1]}, ")
    text += bot_block("bad", [*wrap, str(RAWBOT), "--mode", "hang"], tag)
    cfg = parse_config(text, "t.toml")
    worker = ray.remote(MatchWorker).options(num_cpus=0.75).remote(cfg, os.getcwd())
    match = make_schedule([b.name for b in cfg.bots], 1, cfg.tournament.seed)[0]
    ref = worker.play.remote(match, {})
    deadline = time.monotonic() + 60
    while len(tagged_processes(tag)) < 6 and time.monotonic() < deadline:  # 3 sh + 3 bots
        time.sleep(0.1)
    time.sleep(1.0)                                  # the bad bot hangs mid-match
    assert len(tagged_processes(tag)) >= 6
    ray.kill(worker)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(ref, timeout=30)
    assert wait_no_processes(tag, 15) == []


def test_no_room_for_any_worker_is_an_error_not_a_hang(tmp_path, monkeypatch, ray_2cpus):
    @ray.remote(num_cpus=2)
    class Hog:
        def ping(self):
            return 1

    hog = Hog.remote()                          # holds every CPU of the instance
    ray.get(hog.ping.remote(), timeout=60)
    monkeypatch.setattr(executor_module, "PLACEMENT_TIMEOUT_S", 5.0)
    tag = new_tag()
    cfg = make_config(None, tag=tag, extra=ray_extra(1, 0.25))
    try:
        with pytest.raises(ClusterError) as exc:
            asyncio.run(run_tournament(cfg, tmp_path / "o", progress=False,
                                       executors=ray_executor))
    finally:
        ray.kill(hog)
    assert str(exc.value).startswith("no Ray worker could be placed and started for 5 s: no "
                                     "node has 0.75 free CPUs")
    assert wait_no_processes(tag) == []
    assert (tmp_path / "o" / "results.sqlite").exists()      # the schedule is kept: resume


def test_gauntlet_plays_on_ray_workers_with_a_twin_field_bot(tmp_path, ray_2cpus):
    """`arena gauntlet --ray`: the gauntlet's bots (with the twin of a one-bot field) run on
    the workers; the store, records, logs and the SPRT state are the driver's as with local."""
    from arena.tournament.gauntlet_runner import run_gauntlet

    tag = new_tag()
    text = ('[sandbox]\nmode = "none"\n[tournament]\nseed = 3\nconcurrency = 2\n'
            "[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 10000\n"
            '[gauntlet]\ncandidate = "greedy"\nelo1 = 100\nmax_blocks = 2\n'
            + ray_extra(2, 0.25)
            + bot_block("greedy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
            + bot_block("random-0", ["{python}", "-m", "sample_bots.random_bot"], tag))
    cfg = parse_config(text, "g.toml")
    out = tmp_path / "g"
    outcome = asyncio.run(run_gauntlet(cfg, out, progress=False, executors=ray_executor))
    assert wait_no_processes(tag) == []
    rows = stored(out)
    assert len(rows) == 12 and outcome.played_now == 12
    assert {frozenset(r.players) for r in rows.values()} == {
        frozenset({"greedy", "random-0", "random-0#2"})}
    state = json.loads((out / "sprt.json").read_text())
    assert state["blocks"] == 2 and state["never_started"] == []
    assert state["capped"] == (state["decision"] is None)
    from arena.processes.pool import safe_filename
    for name in ("greedy", "random-0", "random-0#2"):
        log = out / "logs" / f"{safe_filename(name)}.log"
        assert "registered with the arena" in log.read_text()


def test_a_bot_that_never_starts_on_the_workers_is_reported_as_with_local(tmp_path, ray_2cpus):
    """`arena run --ray` / `arena gauntlet --ray`: the workers report every bot start to the
    driver's store, so a bot that never registered is named, kept out of the ratings and the
    SPRT, and ends the run with exit status 3, as with ``local``."""
    from arena.tournament.gauntlet_runner import run_gauntlet
    broken = ["{python}", "-c", "import sys; sys.exit('no model file')"]
    tag = new_tag()
    head = ('[sandbox]\nmode = "none"\n[tournament]\nseed = 3\nconcurrency = 2\n'
            "[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 10000\n"
            "[faults]\nmax_crashes = 2\n" + ray_extra(2, 0.25))
    bots = (bot_block("greedy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
            + bot_block("random-0", ["{python}", "-m", "sample_bots.random_bot"], tag)
            + bot_block("broken", broken, tag))
    outcome = asyncio.run(run_tournament(parse_config(head + bots, "t.toml"),
                                         tmp_path / "rr", progress=False,
                                         executors=ray_executor))
    assert dict(outcome.never_started).keys() == {"broken"}
    reason = dict(outcome.never_started)["broken"]
    assert "no model file" in reason       # the log it points to is the driver's copy
    assert f"see its log: {tmp_path / 'rr' / 'logs' / 'broken.log'}" in reason, reason
    rows = {r.bot: r for r in outcome.standings.rows}
    assert (rows["broken"].status, rows["broken"].rating) == ("never started", None)
    assert rows["greedy"].status is None and rows["greedy"].matches == 6
    assert wait_no_processes(tag) == []

    text = (head + '[gauntlet]\ncandidate = "greedy"\nelo1 = 100\nmax_blocks = 3\n'
            + bots + bot_block("random-1", ["{python}", "-m", "sample_bots.random_bot",
                                            "--seed", "1"], tag))
    gauntlet = asyncio.run(run_gauntlet(parse_config(text, "g.toml"), tmp_path / "g",
                                        progress=False, executors=ray_executor))
    assert dict(gauntlet.never_started).keys() == {"broken"}
    state = json.loads((tmp_path / "g" / "sprt.json").read_text())
    assert state["never_started"] == ["broken"]
    assert wait_no_processes(tag) == []
