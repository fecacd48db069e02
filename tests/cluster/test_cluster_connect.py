"""A wrong Ray cluster address fails fast, and Ctrl-C stops the driver while Ray connects:
``arena run --ray HOST:PORT`` with nothing listening there is a one-line error within seconds;
with a port that accepts connections but never answers as Ray (ray.init retries for ever),
SIGINT ends the run at once; Ray's connection retries do not print on the terminal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from arena.cluster.connect import probe_target

from ..tournament.helpers import config_text, new_tag

pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")


def _env() -> dict[str, str]:
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])
    return env


def _command(tmp_path, address: str) -> list[str]:
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    return [sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"), "--out",
            str(tmp_path / "o"), "--ray", address]


def test_nothing_listening_is_a_one_line_error_at_once(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # closed again: nothing listens there
    t0 = time.monotonic()
    proc = subprocess.run(_command(tmp_path, f"127.0.0.1:{port}"), capture_output=True,
                          text=True, timeout=120, env=_env())
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"arena: error: cannot connect to the Ray cluster at 127.0.0.1:"
                           f"{port}: nothing listens there (TCP 127.0.0.1 port {port}); check "
                           "[cluster] address or --ray\n")
    assert time.monotonic() - t0 < 60         # not ray.init's endless retries


def test_ctrl_c_stops_the_driver_while_ray_cannot_connect(tmp_path):
    with socket.socket() as listener:   # accepts connections, never speaks: ray.init hangs
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        proc = subprocess.Popen(_command(tmp_path, f"127.0.0.1:{port}"), env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            listener.settimeout(60)
            conn, _ = listener.accept()      # the probe, or Ray itself: the driver is in it
            conn.close()
            time.sleep(8)                    # ray.init is retrying by now
            assert proc.poll() is None
            proc.send_signal(signal.SIGINT)
            _out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert proc.returncode == 130, err
    assert "SIGINT: stopping" in err, err
    assert "Traceback" not in err and "rpc_client" not in err and "gcs_client" not in err, err


@pytest.mark.parametrize("address,env,target", [
    ("10.1.2.3:6379", None, ("10.1.2.3", 6379)),
    ("ray://head:10001", None, ("head", 10001)),
    ("auto", "10.0.0.5:6379", ("10.0.0.5", 6379)),
    ("auto", None, None),
    ("local", "10.0.0.5:6379", None),
])
def test_probe_target(monkeypatch, address, env, target):
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert probe_target(address) == target
