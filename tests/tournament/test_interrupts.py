"""Stopping the arena: signals (also repeated) leave no bot process; two arenas never share an
output directory; bad output paths are one-line errors."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from arena.cli import main
from arena.tournament.outdir import lock_out_dir

from .helpers import config_text, new_tag, tagged_processes, wait_no_processes

pytestmark = pytest.mark.e2e


def wait_for(pred, timeout_s=30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signals", [(signal.SIGINT,), (signal.SIGINT, signal.SIGINT),
                                     (signal.SIGTERM, signal.SIGTERM), (signal.SIGHUP,)])
def test_signals_mid_match_leave_no_bot_process(tmp_path, signals):
    tag = new_tag()
    # the bad bot hangs after 5 decisions with a long time limit: the match is mid-way
    (tmp_path / "t.toml").write_text(config_text("hang", tag=tag, time_ms=60_000))
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                             "--out", str(tmp_path / "o"), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert wait_for(lambda: len(tagged_processes(tag)) == 6)   # 3 bots, 3 supervisors
        time.sleep(1.0)                                   # let the bad bot start hanging
        for sig in signals:
            os.killpg(proc.pid, sig)                      # like Ctrl-C in a terminal
            time.sleep(0.15)
        code = proc.wait(30)
        err = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 128 + signals[0]
    assert "rerun the same command to resume" in err and "Traceback" not in err
    assert wait_no_processes(tag, 10) == []
    con = sqlite3.connect(tmp_path / "o" / "results.sqlite")
    assert con.execute("SELECT COUNT(*) FROM schedule").fetchone()[0] == 6
    con.close()


def test_second_arena_on_the_same_directory_is_refused(tmp_path, capsys):
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    fd = lock_out_dir(tmp_path / "o")            # as a running arena holds it
    try:
        assert main(["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "o")]) == 2
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert "another arena is running on" in err and err.count("\n") == 1


@pytest.mark.parametrize("make_out", ["file", "under-file"])
def test_bad_out_directory_is_one_line(tmp_path, capsys, make_out):
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    (tmp_path / "f").write_text("x")
    out = tmp_path / "f" if make_out == "file" else tmp_path / "f" / "sub"
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena: error: cannot use output directory {out}") and \
        err.count("\n") == 1


def test_play_record_path_checked_before_playing(tmp_path, capsys):
    assert main(["play", "a", "b", "c", "--record", str(tmp_path / "no" / "x.jsonl")]) == 2
    assert "not a file path in an existing directory" in capsys.readouterr().err


def test_replay_html_cannot_overwrite_the_record(tmp_path, capsys):
    rec = tmp_path / "r.jsonl"
    rec.write_text("{}\n")
    assert main(["replay", str(rec), "--html", str(rec)]) == 2
    assert "would overwrite the record itself" in capsys.readouterr().err
    assert rec.read_text() == "{}\n"
