"""A stolen token, end to end over real gRPC with real processes: a spawned bot's token used on
the TCP port, or a remote bot's on the arena's Unix socket, is refused with a warning; a spawned
bot's token used over the Unix socket by a process the arena did not start, and the real bot's
second connection, are loud warnings in the arena's output."""

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


def _start_arena(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """``arena run t.toml --out o --quiet`` in ``tmp_path``, its stderr in ``err.txt``."""
    err_path = tmp_path / "err.txt"
    with open(err_path, "wb") as err:
        arena = subprocess.Popen([sys.executable, "-m", "arena.cli", "run",
                                  str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"),
                                  "--quiet"], stdout=subprocess.DEVNULL, stderr=err,
                                 start_new_session=True)
    return arena, err_path


def _unix_socket_of(pid: int, timeout_s: float = 30) -> str | None:
    """The ``unix:PATH`` address of the Unix socket process ``pid`` listens on (its sockets'
    inodes in /proc/net/unix), waiting up to ``timeout_s`` for it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1]
                      for fd in os.listdir(f"/proc/{pid}/fd")}
            for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
                parts = line.split()
                if len(parts) >= 8 and parts[6] in inodes and parts[7].endswith("arena.sock"):
                    return f"unix:{parts[7]}"
        except OSError:
            pass
        time.sleep(0.05)
    return None


def _bot_environment(tag: str, wanted: Callable[[int], bool]) -> dict[str, str] | None:
    """The environment of the first process tagged ``tag`` that is ``wanted`` (within 30 s)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in tagged_processes(tag):
            try:
                if wanted(pid):
                    return _environ(pid)
            except OSError:
                pass
        time.sleep(0.05)
    return None


def _run_with_thief(tmp_path: Path, config: str, tag: str, thief_tag: str, flag: Path,
                    address: Callable[[dict[str, str]], str], *, marker: str = "registered from",
                    thief_status: int = 0) -> tuple[str, int]:
    """``arena run`` of ``config`` (with the late bot); once the late bot waits, a thief with
    its token registers at ``address(late bot's environment)``; once ``marker`` is in the
    arena's stderr, the flag lets the real bot connect. Returns the arena's stderr and the
    thief's pid (which exited with ``thief_status``); checks that nothing is left."""
    (tmp_path / "t.toml").write_text(config)
    arena, err_path = _start_arena(tmp_path)
    thief = None
    try:
        env = _bot_environment(
            tag, lambda pid: str(flag).encode() in Path(f"/proc/{pid}/cmdline").read_bytes())
        assert env is not None, "the late bot never started"
        thief = subprocess.Popen(
            [sys.executable, "-m", "sample_bots.random_bot", "--arena", address(env)],
            env={**os.environ, "ARENA_TOKEN": env["ARENA_TOKEN"], "ARENA_TEST_TAG": thief_tag},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while marker not in err_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        flag.touch()
        assert arena.wait(120) == 0, err_path.read_text()
        assert thief.wait(20) == thief_status
    finally:
        for p in (arena, thief):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, 9)
                p.wait()
    assert wait_no_processes(tag) == [] and wait_no_processes(thief_tag) == []
    return err_path.read_text(), thief.pid


def test_a_started_bots_token_over_tcp_is_refused_with_a_warning(tmp_path):
    """A thief that read a spawned bot's token registers with it on the arena's TCP port: the
    bots the arena starts use its Unix socket, so it is refused (exit status 3) with a
    warning; the real bot then registers over the Unix socket and plays."""
    tag, thief_tag = new_tag(), new_tag()
    flag = tmp_path / "flag"
    with socket.socket() as s:    # a fixed TCP port, for the thief
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = (config_text(None, tag=tag, bots=2, deals=3, hand_cap=2)
              + bot_block("late", _late_bot(flag), tag)
              + f'[server]\nbind = "127.0.0.1:{port}"\n')
    text, _thief = _run_with_thief(tmp_path, config, tag, thief_tag, flag,
                                   lambda _env: f"127.0.0.1:{port}", marker="came over TCP",
                                   thief_status=3)
    assert re.search(
        r"arena: WARNING: the token of 'late', a bot the arena started and gave its Unix "
        r"socket, came over TCP; it was refused\. The token has leaked \(latest from "
        r"ipv4:127\.0\.0\.1:\d+\)", text), text
    assert "registered from" not in text and "second connection" not in text, text
    log = (tmp_path / "o" / "logs" / "late.log").read_text()
    assert "ended: exit status 0" in log


def test_a_remote_bots_token_over_the_unix_socket_is_refused_with_a_warning(tmp_path):
    """A local process with a remote bot's token (read from the config, say) and the arena's
    Unix socket address (a spawned bot's ARENA_ADDRESS) registers over the socket: only the
    bots the arena starts use it, so it is refused (exit status 3) with a warning; the real
    remote bot then joins over TCP and every match is played."""
    tag, other_tag = new_tag(), new_tag()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "far-token-0123456789abcdef"
    config = (config_text(None, tag=tag, bots=2, deals=1, hand_cap=1)
              + f'[[bots]]\nname = "far"\nremote = true\ntoken = "{token}"\n'
              + f'[server]\nbind = "127.0.0.1:{port}"\n')
    (tmp_path / "t.toml").write_text(config)
    started: list[subprocess.Popen[bytes]] = []

    def start(cmd: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen(cmd, env={**os.environ, "ARENA_TEST_TAG": other_tag,
                                                  **env}, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
        return started[-1]

    arena, err_path = _start_arena(tmp_path)
    try:
        # the socket's address, as a spawned bot's ARENA_ADDRESS holds it (the lobby waits
        # for the remote bot before any bot starts)
        address = _unix_socket_of(arena.pid)
        assert address is not None and address.startswith("unix:/"), address
        thief = start([sys.executable, "-m", "sample_bots.random_bot", "--arena", address],
                      {"ARENA_TOKEN": token})
        assert thief.wait(20) == 3
        remote = start([sys.executable, "-m", "sample_bots.random_bot", "--arena",
                        f"127.0.0.1:{port}"], {"ARENA_TOKEN": token})
        assert arena.wait(120) == 0, err_path.read_text()
        assert remote.wait(20) == 0
    finally:
        for p in (arena, *started):
            if p.poll() is None:
                os.killpg(p.pid, 9)
                p.wait()
    text = err_path.read_text()
    assert re.search(
        r"arena: WARNING: the token of remote bot 'far' came over the arena's Unix socket, "
        r"which is for the bots the arena starts; remote bots connect to the arena's TCP "
        r"address; it was refused\. The token has leaked \(latest from unix:", text), text
    assert wait_no_processes(tag) == [] and wait_no_processes(other_tag) == []


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
