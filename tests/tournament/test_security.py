"""A stolen token (issue 10 item 11): a registration with a spawned bot's token from a process
the arena did not start, and the real bot's second connection, are loud warnings in the
arena's output; end to end over real gRPC with real processes."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .helpers import bot_block, config_text, new_tag, tagged_processes, wait_no_processes

pytestmark = pytest.mark.e2e


def _environ(pid: int) -> dict[str, str]:
    items = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace").split("\0")
    return dict(item.split("=", 1) for item in items if "=" in item)


def _late_bot(flag: Path) -> list[str]:
    """A bot command that waits for ``flag`` before it connects (so a thief who read its
    token registers first; then the real bot connects with the same token)."""
    return ["sh", "-c", f'while [ ! -e {flag} ]; do sleep 0.05; done; '
            'exec {python} -m sample_bots.random_bot "$@"', "late"]


def _run_with_thief(tmp_path: Path, config: str, tag: str, thief_tag: str, flag: Path,
                    address: Callable[[dict[str, str]], str]) -> tuple[str, int]:
    """``arena run`` of ``config`` (with the late bot); once the late bot waits, a thief with
    its token registers at ``address(late bot's environment)``; then the flag lets the real
    bot connect. Returns the arena's stderr and the thief's pid; checks that nothing is left."""
    (tmp_path / "t.toml").write_text(config)
    err_path = tmp_path / "err.txt"
    with open(err_path, "wb") as err:
        arena = subprocess.Popen([sys.executable, "-m", "arena.cli", "run",
                                  str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"),
                                  "--quiet"], stdout=subprocess.DEVNULL, stderr=err,
                                 start_new_session=True)
    thief = None
    try:
        deadline = time.monotonic() + 30
        env = None
        while env is None and time.monotonic() < deadline:
            for pid in tagged_processes(tag):
                try:
                    if str(flag).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                        env = _environ(pid)
                        break
                except OSError:
                    pass
            time.sleep(0.05)
        assert env is not None, "the late bot never started"
        thief = subprocess.Popen(
            [sys.executable, "-m", "sample_bots.random_bot", "--arena", address(env)],
            env={**os.environ, "ARENA_TOKEN": env["ARENA_TOKEN"], "ARENA_TEST_TAG": thief_tag},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while "registered from" not in err_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        flag.touch()
        assert arena.wait(120) == 0
        assert thief.wait(20) == 0          # it played as "late" and was told goodbye
    finally:
        for p in (arena, thief):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, 9)
                p.wait()
    assert wait_no_processes(tag) == [] and wait_no_processes(thief_tag) == []
    return err_path.read_text(), thief.pid


def test_registration_from_another_process_and_second_connection_are_warnings(tmp_path):
    tag, thief_tag = new_tag(), new_tag()
    flag = tmp_path / "flag"
    with socket.socket() as s:    # a fixed TCP port: spawned bots get the Unix socket, and
        s.bind(("127.0.0.1", 0))  # connections over it are not traced (private 0700 dir)
        port = s.getsockname()[1]
    config = (config_text(None, tag=tag, bots=2, deals=3, hand_cap=2)
              + bot_block("late", _late_bot(flag), tag)
              + f'[server]\nbind = "127.0.0.1:{port}"\n')
    text, thief = _run_with_thief(tmp_path, config, tag, thief_tag, flag,
                                  lambda _env: f"127.0.0.1:{port}")
    assert re.search(
        r"arena: WARNING: bot 'late' registered from ipv4:127\.0\.0\.1:\d+, but not from the "
        rf"process the arena started for it: it came from process {thief} \(\S+ -m "
        r"sample_bots\.random_bot --arena 127\.0\.0\.1:\d+\)\. Its token has leaked", text), text
    # the real bot comes second, over the arena's Unix socket
    assert re.search(r"arena: WARNING: a second connection \(unix:\S*\) used the "
                     r"token of a bot that is already connected; it was refused", text), text
    log = (tmp_path / "o" / "logs" / "late.log").read_text()
    assert "ALREADY_CONNECTED" in log and "ended: exit status 3" in log


def _unix_address(env: dict[str, str]) -> str:
    address = env["ARENA_ADDRESS"]
    assert address.startswith("unix:/")
    return address


def test_registration_over_the_unix_socket_is_traced(tmp_path):
    """A thief that read a spawned bot's token and address registers over the arena's Unix
    socket first: the kernel's SO_PEERCRED names it; the spawned bots' own registrations over
    the same socket raise no warning."""
    tag, thief_tag = new_tag(), new_tag()
    flag = tmp_path / "flag"
    config = (config_text(None, tag=tag, bots=2, deals=3, hand_cap=2)
              + bot_block("late", _late_bot(flag), tag))
    text, thief = _run_with_thief(tmp_path, config, tag, thief_tag, flag, _unix_address)
    assert re.search(
        r"arena: WARNING: bot 'late' registered from unix:, but not from the process the "
        r"arena started for it: it came over the arena's Unix socket, from process "
        rf"{thief} \(\S+ -m sample_bots\.random_bot --arena unix:/\S+\)\. Its token has "
        r"leaked", text), text
    assert text.count("registered from") == 1, text      # the other bots: traced, no warning
    assert re.search(r"arena: WARNING: a second connection \(unix:\S*\) used the "
                     r"token of a bot that is already connected; it was refused", text), text
