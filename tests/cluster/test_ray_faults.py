"""The Ray backend's faults end to end (issue 15): a worker node removed mid-run; the driver
killed with SIGKILL and rerun. Real bot processes over gRPC on Ray actors; every test shuts its
Ray instance down and checks no bot (or Ray) process is left."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from arena.cli import main
from arena.tournament.runner import run_tournament

from ..tournament.helpers import config_text, make_config, new_tag, wait_no_processes
from .raytools import count_results, describe, ray_extra, stored

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


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
    # the bots die with their workers; Ray's processes share the driver's fate
    left = wait_no_processes(bots_tag, 30)
    assert left == [], describe(left)
    left = wait_no_processes(ray_tag, 60)
    assert left == [], describe(left)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    assert "matches played now" in again.stdout
    played_now = int(again.stdout.rsplit("\n", 2)[-2].split()[0])
    assert played_now == 12 - done_before
    rows = stored(out)
    assert len(rows) == 12
    assert len(list((out / "records").glob("*.jsonl.gz"))) == 12
    assert not list((out / "records").glob(".*"))
    left = wait_no_processes(bots_tag, 15) + wait_no_processes(ray_tag, 60)
    assert left == [], describe(left)

