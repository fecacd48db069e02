"""An arena with the live page killed with SIGKILL: its snapshot worker ends, and the
operator's terminal gets no "leaked semaphore" warning from multiprocessing's resource
tracker (it removes them, as it should; the warning was noise after every kill -9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette")

_ARENA = """
import time
from arena.web.state import SnapshotWorker
worker = SnapshotWorker()
worker.pool.submit(time.sleep, 0).result()      # the worker runs
print("ready", flush=True)
time.sleep(60)
"""


def test_kill_9_leaves_no_worker_and_no_leak_warning() -> None:
    proc = subprocess.Popen([sys.executable, "-c", _ARENA], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        os.kill(proc.pid, signal.SIGKILL)
        # stderr ends once every process holding it has: the worker (it watches its parent)
        # and the resource tracker (it warns, then exits, when the last user is gone)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=30)
        waited = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "leaked" not in err, err
    assert waited < 30
