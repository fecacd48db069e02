"""`arena run --ray local` with the default ``cpus_per_bot = 1`` on a small machine: the
private Ray instance is sized for its workers (3 CPUs each), and the tournament plays."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..tournament.helpers import config_text, new_tag, wait_no_processes
from .raytools import STARTUP_ATTEMPTS, ray_startup_timed_out

pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_default_cpus_per_bot_fits_a_private_instance(tmp_path):
    tag, ray_tag = new_tag(), new_tag()
    cfg = tmp_path / "t.toml"
    cfg.write_text(config_text(None, tag=tag, bots=3, hand_cap=1, time_ms=10_000,
                               concurrency=1))
    env = {**os.environ, "ARENA_TEST_TAG": ray_tag, "RAY_AUTH_MODE": "disabled"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])
    for _ in range(STARTUP_ATTEMPTS):     # Ray's own start may time out on a busy machine
        proc = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(cfg), "--ray",
                               "local", "--out", str(tmp_path / "o"), "--json"], env=env,
                              capture_output=True, text=True, timeout=600, cwd=tmp_path)
        if not ray_startup_timed_out(proc.stderr):
            break
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["played_now"] == 6
    if (os.cpu_count() or 1) < 3:
        assert "private Ray instance: 3 logical CPUs, for 1 worker x 3 bots x cpus_per_bot 1" \
            in proc.stderr
    assert wait_no_processes(tag, 30) == []
    assert wait_no_processes(ray_tag, 60) == []
