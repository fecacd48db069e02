"""Helpers for the live page tests: a tournament config with hostile bot names and a slow bot
(so a match stays in flight long enough to watch), and a reader of the URL the arena prints."""

from __future__ import annotations

import re
import subprocess
import time

from tests.tournament.helpers import PROBEBOT, bot_block

#: bot names that are markup: the page must show them as text
HOSTILE = ("<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>")


def web_config(tag: str, *, sleep_ms: int = 60, deals: int = 1) -> str:
    """3 bots (two hostile names, one slow probe bot), hand_cap 1: 6 short matches per deal."""
    text = (f"[tournament]\nname = \"web test\"\nseed = 11\ndeals_per_table = {deals}\n"
            "concurrency = 1\n[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 2000\n"
            "grace_ms = 500\n[faults]\nmax_faults = 3\nmax_crashes = 2\n"
            "register_timeout_s = 30\n")
    for name in HOSTILE:
        text += bot_block(name, ["{python}", "-m", "sample_bots.random_bot"], tag)
    text += bot_block("slow", ["{python}", str(PROBEBOT), "--mode", "slow", "--sleep-ms",
                               str(sleep_ms)], tag)
    return text


def read_url(proc: subprocess.Popen, timeout_s: float = 60) -> str:
    """The page URL from the ``arena: ... at http://...`` line on the process's stderr."""
    deadline = time.monotonic() + timeout_s
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        seen.append(line)
        m = re.search(r" at (http://\S+)", line)
        if m:
            return m.group(1)
    raise AssertionError(f"no page URL printed: {''.join(seen)!r}")
