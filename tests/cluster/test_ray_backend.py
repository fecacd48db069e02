"""The Ray backend end to end (issue 15): same results and records as ``local``; a worker node
removed mid-run; the driver killed with SIGKILL and rerun. Real bot processes over gRPC on
Ray actors; every test shuts its Ray instance down."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from arena.cli import main
from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing

from ..tournament.helpers import config_text, make_config, new_tag, wait_no_processes

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMING_KEYS = {"started_at", "ended_at", "think_ms", "arena_version"}


def ray_extra(slots: int, cpus_per_bot: float, address: str | None = None) -> str:
    text = f'[cluster]\nbackend = "ray"\nslots = {slots}\ncpus_per_bot = {cpus_per_bot}\n'
    return text + (f'address = "{address}"\n' if address else "")


def seeded_config(tag: str, extra: str = ""):
    """Three seeded random bots, 6 matches of one hand."""
    text = config_text(None, tag=tag, bots=3, hand_cap=1, concurrency=2, extra=extra)
    return parse_config(text.replace('"sample_bots.random_bot"]',
                                     '"sample_bots.random_bot", "--seed", "5"]'), "t.toml")


def strip_timings(obj):
    """A record line without wall-clock fields (times, thinking ms, arena version)."""
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


def record_lines(path):
    return [strip_timings(json.loads(ln)) for ln in gzip.decompress(path.read_bytes()).splitlines()]


def stored(out):
    with open_existing(out) as store:
        assert store.pending() == []
        return {r.match_id: r for r in store.results()}


def comparable(row):
    d = dict(row.__dict__)
    d.pop("think_ms")
    return d


def test_same_results_and_records_as_local(tmp_path):
    tag = new_tag()
    local = asyncio.run(run_tournament(seeded_config(tag), tmp_path / "local", progress=False))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = asyncio.run(run_tournament(seeded_config(tag, ray_extra(2, 0.25)),
                                            tmp_path / "ray", progress=False))
    finally:
        ray.shutdown()
    assert wait_no_processes(tag) == []
    assert local.played_now == on_ray.played_now == 6
    a, b = stored(tmp_path / "local"), stored(tmp_path / "ray")
    assert sorted(a) == sorted(b) and len(a) == 6
    for match_id in a:
        assert comparable(a[match_id]) == comparable(b[match_id])
        rec = f"records/{match_id}.jsonl.gz"
        assert record_lines(tmp_path / "local" / rec) == record_lines(tmp_path / "ray" / rec)
    rank = [(r.bot, r.matches, r.avg_place, r.firsts, r.avg_score) for r in
            local.standings.rows]
    assert rank == [(r.bot, r.matches, r.avg_place, r.firsts, r.avg_score)
                    for r in on_ray.standings.rows]
    # the bots' logs come back to the driver's output directory
    for name in ("random-0", "random-1", "random-2"):
        log = (tmp_path / "ray" / "logs" / f"{name}.log").read_text()
        assert "registered with the arena" in log and "match t000-d0000-s5 starts" in log


def test_worker_node_removed_mid_run(tmp_path, capfd):
    from ray.cluster_utils import Cluster
    tag = new_tag()
    cfg = make_config(None, tag=tag, bots=3, hand_cap=1, extra=ray_extra(3, 1 / 3))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker_node = cluster.add_node(num_cpus=2)     # room for 2 of the 3 workers
    removed: list[str] = []

    def remove_worker_node(m):
        if not removed:
            removed.append(m.match_id)
            cluster.remove_node(worker_node)

    try:
        ray.init(address=cluster.address, log_to_driver=False)
        outcome = asyncio.run(run_tournament(cfg, tmp_path / "o", progress=True,
                                             on_match=remove_worker_node))
    finally:
        ray.shutdown()
        cluster.shutdown()
    err = capfd.readouterr().err
    assert removed and "worker lost during match" in err, err
    assert "Traceback" not in err
    assert outcome.played_now == outcome.scheduled == 6
    rows = stored(tmp_path / "o")
    assert len(rows) == 6 and all(r.status == "normal" for r in rows.values())
    records = sorted((tmp_path / "o" / "records").glob("*.jsonl.gz"))
    assert [p.name for p in records] == sorted(f"{i}.jsonl.gz" for i in rows)
    assert not list((tmp_path / "o" / "records").glob(".*"))
    for p in records:
        assert main(["replay", str(p), "--verify"]) == 0
    capfd.readouterr()
    assert wait_no_processes(tag, 15) == []


def count_results(db) -> int:
    try:
        con = sqlite3.connect(db, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_driver_sigkill_then_resume(tmp_path):
    bots_tag, ray_tag = new_tag(), new_tag()      # bots carry one, every Ray process the other
    cfg_file = tmp_path / "t.toml"
    cfg_file.write_text(config_text(None, tag=bots_tag, bots=3, hand_cap=1, deals=2,
                                    extra=ray_extra(2, 0.25, "local")))
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out", str(out), "--quiet"]
    env = {**os.environ, "ARENA_TEST_TAG": ray_tag, "RAY_AUTH_MODE": "disabled"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while count_results(out / "results.sqlite") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert count_results(out / "results.sqlite") >= 2, proc.stderr.read1().decode()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        done_before = count_results(out / "results.sqlite")   # the driver is dead: exact
        assert 2 <= done_before < 12
    finally:
        if proc.poll() is None:
            proc.kill()
    # Ray's processes share the driver's fate; the bots die with their workers
    assert wait_no_processes(bots_tag, 30) == []
    assert wait_no_processes(ray_tag, 30) == []
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    assert "matches played now" in again.stdout
    played_now = int(again.stdout.rsplit("\n", 2)[-2].split()[0])
    assert played_now == 12 - done_before
    rows = stored(out)
    assert len(rows) == 12
    assert len(list((out / "records").glob("*.jsonl.gz"))) == 12
    assert not list((out / "records").glob(".*"))
    assert wait_no_processes(bots_tag, 15) == [] and wait_no_processes(ray_tag, 30) == []

