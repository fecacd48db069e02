"""Helpers for tournament tests: configs with real bot processes, leftover-process checks."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import uuid
from pathlib import Path

from arena.tournament.config import parse_config

RAWBOT = Path(__file__).with_name("rawbot.py")
PROBEBOT = Path(__file__).with_name("probebot.py")


def bot_block(name: str, command: list[str], tag: str) -> str:
    return (f"[[bots]]\nname = {json.dumps(name)}\ncommand = {json.dumps(command)}\n"
            f"env = {{ ARENA_TEST_TAG = {json.dumps(tag)} }}\n")


def config_text(bad_mode: str | None = None, *, tag: str, deals: int = 1, hand_cap: int = 1,
                time_ms: int = 300, grace_ms: int = 150, max_faults: int = 3,
                max_crashes: int = 2, register_timeout_s: float = 15, concurrency: int = 1,
                extra: str = "", bots: int = 3, sandbox: str = "none") -> str:
    """A tournament config. ``sandbox``: the ``[sandbox] mode``; "none" by default, since these
    tests count the bots' processes and read files the bots write (bwrap adds two processes
    per bot and hides the test's directories; the sandbox has its own tests in tests/sandbox)."""
    text = (f'[sandbox]\nmode = "{sandbox}"\n'
            f"[tournament]\nseed = 7\ndeals_per_table = {deals}\nconcurrency = {concurrency}\n"
            f"[rules]\nhand_cap = {hand_cap}\n"
            f"[time]\nper_decision_ms = {time_ms}\ngrace_ms = {grace_ms}\n"
            f"[faults]\nmax_faults = {max_faults}\nmax_crashes = {max_crashes}\n"
            f"register_timeout_s = {register_timeout_s}\n")
    n_random = bots - (1 if bad_mode else 0)
    for i in range(n_random):
        text += bot_block(f"random-{i}", ["{python}", "-m", "sample_bots.random_bot"], tag)
    if bad_mode:
        text += bot_block("bad", ["{python}", str(RAWBOT), "--mode", bad_mode], tag)
    return text + extra


def make_config(*args, **kwargs):
    return parse_config(config_text(*args, **kwargs), "test.toml")


def count_results(db) -> int:
    """Result rows in the results store at ``db`` (0 while it is missing or locked): read
    with plain sqlite3 while another process (an arena being killed) may be writing it."""
    try:
        con = sqlite3.connect(db, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def new_tag() -> str:
    return uuid.uuid4().hex


def tagged_processes(tag: str) -> list[int]:
    """PIDs of live processes whose environment carries ``ARENA_TEST_TAG=tag``."""
    found = []
    needle = f"ARENA_TEST_TAG={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if needle in env and ") Z " not in stat:
            found.append(int(entry))
    return found


def wait_no_processes(tag: str, timeout_s: float = 60.0) -> list[int]:
    """The live processes tagged ``tag``, once there are none ([]) or after ``timeout_s``
    (polled every 0.2 s: it returns as soon as they are gone; the bound only has to outlast a
    busy machine)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = tagged_processes(tag)
        if not left:
            return []
        time.sleep(0.2)
    return tagged_processes(tag)


PYTHON = sys.executable


def parent_pids() -> dict[int, int]:
    """pid -> parent pid of every live process, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rpartition(")")[2].split()[1])
    return parents


def kill_9_when(proc, ready, timeout_s: float = 120.0) -> bool:
    """SIGKILL ``proc`` (a ``subprocess.Popen`` started in its own session) once ``ready()``
    holds (or ``timeout_s`` passed), and reap it; killed in any case on the way out. Whether
    it was still running when it was killed."""
    import signal
    try:
        deadline = time.monotonic() + timeout_s
        while not ready() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        alive = proc.poll() is None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        return alive
    finally:
        if proc.poll() is None:
            proc.kill()
