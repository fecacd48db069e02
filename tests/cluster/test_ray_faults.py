"""The Ray backend's faults end to end: a worker node removed mid-run; the driver
stopped with Ctrl-C, then SIGKILL, and rerun (bots shipped with working_dir). Real bot
processes over gRPC on Ray actors; every test shuts its
Ray instance down and checks no bot (or Ray) process is left."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from arena.cluster.executor import ray_executor

from arena.cli import main
from arena.tournament.runner import run_tournament

from ..tournament.helpers import (config_text, count_results, make_config, new_tag,
                                 wait_no_processes)
from .raytools import (STARTUP_ATTEMPTS, describe, ray_extra, ray_startup_timed_out,
                       start_ray, stored)

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_worker_node_removed_mid_run(tmp_path, capfd):
    from ray.cluster_utils import Cluster
    tag = new_tag()
    cfg = make_config(None, tag=tag, bots=3, hand_cap=1, time_ms=10_000,
                      extra=ray_extra(3, 1 / 3))
    cluster = start_ray(lambda: Cluster(initialize_head=True, head_node_args={"num_cpus": 1}))
    worker_node = start_ray(lambda: cluster.add_node(num_cpus=2))  # room for 2 of 3 workers
    removed: list[str] = []

    def remove_worker_node(m):
        if not removed:
            removed.append(m.match_id)
            cluster.remove_node(worker_node)

    try:
        ray.init(address=cluster.address, log_to_driver=False)
        outcome = asyncio.run(run_tournament(cfg, tmp_path / "o", progress=True,
                                             on_match=remove_worker_node,
                                             executors=ray_executor))
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


#: the most a run here is waited for (Ray's start, then matches; a busy machine is slow)
PATIENCE_S = 300.0


def interrupt_after(cmd, env, out, results: int, sig: int) -> tuple[int, str]:
    """Start ``cmd`` (in ``out``'s sibling ``elsewhere``), send ``sig`` (to its process group,
    like Ctrl-C) once ``results`` matches are stored; returns (exit status, stderr). A start
    that failed only because Ray's private instance timed out during its startup (Ray's
    fixed 30 s, :func:`ray_startup_timed_out`) is run again, up to 3 times."""
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True,
                                cwd=out.parent / "elsewhere")
        try:
            deadline = time.monotonic() + PATIENCE_S
            while (count_results(out / "results.sqlite") < results and proc.poll() is None
                   and time.monotonic() < deadline):
                time.sleep(0.05)
            if proc.poll() is not None:          # ended by itself: why?
                err = proc.stderr.read().decode()
                if ray_startup_timed_out(err) and attempt < STARTUP_ATTEMPTS:
                    continue
                raise AssertionError(f"the arena ended (status {proc.returncode}) before "
                                     f"{results} results: {err}")
            assert count_results(out / "results.sqlite") >= results, "no progress"
            os.killpg(proc.pid, sig)
            code = proc.wait(60)
            return code, proc.stderr.read().decode()
        finally:
            if proc.poll() is None:
                proc.kill()
    raise AssertionError("unreachable")


SHIPPED_BOT = """\
import os, sys
from sample_bots.random_bot import main
print("bot cwd:", os.getcwd(), file=sys.stderr, flush=True)
main()
"""


def test_driver_ctrl_c_then_sigkill_then_resume(tmp_path):
    """Also ships the bots with ``working_dir``: their script exists only in a directory of
    the driver's machine that is not the driver's working directory, and they start in Ray's
    copy of it (a local directory is shipped by the job's ray.init, so by `arena` itself)."""
    bots_tag, ray_tag = new_tag(), new_tag()      # bots carry one, every Ray process the other
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "shipped_bot.py").write_text(SHIPPED_BOT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cfg_file = tmp_path / "t.toml"
    text = config_text(None, tag=bots_tag, bots=3, hand_cap=1, deals=2, time_ms=10_000,
                       extra=ray_extra(2, 0.25, "local") + f'working_dir = "{bots}"\n')
    cfg_file.write_text(text.replace('["{python}", "-m", "sample_bots.random_bot"]',
                                     '["{python}", "shipped_bot.py"]'))
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out", str(out), "--quiet"]
    env = {**os.environ, "ARENA_TEST_TAG": ray_tag, "RAY_AUTH_MODE": "disabled"}
    if os.environ.get("PYTHONPATH"):             # the checkout under test, from elsewhere too
        env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])

    def nothing_left():
        # the bots die with their workers; Ray's processes share the driver's fate
        left = wait_no_processes(bots_tag, 30)
        assert left == [], describe(left)
        left = wait_no_processes(ray_tag, 60)
        assert left == [], describe(left)

    code, err = interrupt_after(cmd, env, out, 2, signal.SIGINT)
    assert code == 130 and "rerun the same command to resume" in err, err
    assert "Traceback" not in err
    nothing_left()
    after_ctrl_c = count_results(out / "results.sqlite")
    code, _ = interrupt_after(cmd, env, out, after_ctrl_c + 2, signal.SIGKILL)
    assert code == -signal.SIGKILL
    nothing_left()
    done_before = count_results(out / "results.sqlite")     # the driver is dead: exact
    assert after_ctrl_c + 2 <= done_before < 12
    for _ in range(STARTUP_ATTEMPTS):
        again = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=PATIENCE_S, cwd=elsewhere)
        if not ray_startup_timed_out(again.stderr):
            break
    assert again.returncode == 0, again.stderr
    played_now = int(again.stdout.rsplit("\n", 2)[-2].split()[0])
    assert played_now == 12 - done_before
    rows = stored(out)
    assert len(rows) == 12
    assert len(list((out / "records").glob("*.jsonl.gz"))) == 12
    assert not list((out / "records").glob(".*"))
    assert all(r.status == "normal" and not any(r.faults) for r in rows.values()), \
        [(r.match_id, r.status, r.faults, r.forfeit_reasons) for r in rows.values()]
    nothing_left()
    log = (out / "logs" / "random-0.log").read_text()
    cwds = {line.split("bot cwd: ", 1)[1] for line in log.splitlines() if "bot cwd: " in line}
    # Ray's copy: "shipped_bot.py" is found relative to neither the original nor the driver's
    assert cwds and str(bots) not in cwds and str(elsewhere) not in cwds
