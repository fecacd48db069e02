"""Hostile names and log lines end to end (issue 10 item 13): a bot whose dying words clear the
screen and reverse the text, and bots named like HTML and Markdown markup. The operator's
terminal and standings.md get them escaped."""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata

import pytest

from .helpers import PROBEBOT, bot_block, config_text, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e

LINE = "\x1b[2J\x1b[Hall your base \u202eevil\x07"


def test_hostile_log_line_and_names_reach_the_terminal_escaped(tmp_path):
    tag = new_tag()
    text = config_text(None, tag=tag, bots=0, max_crashes=1)
    for name in ("<img src=x onerror=alert(1)>", "*bold* _x_"):
        text += bot_block(name, ["{python}", "-m", "sample_bots.random_bot"], tag)
    text += bot_block("dying", ["{python}", str(PROBEBOT), "--mode", "hostile", "--line", LINE],
                      tag)
    (tmp_path / "t.toml").write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                           "--out", str(tmp_path / "o")], capture_output=True, timeout=120)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 3, err   # 'dying' never started (exit status 3)
    for stream in (out, err):
        bad = {ch for ch in stream if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
               and ch != "\n"}
        assert bad == set(), json.dumps(stream)
    assert "\\u001b[2J\\u001b[Hall your base \\u202eevil\\u0007" in err   # the crash message
    assert "<img src=x onerror=alert(1)>" in out                         # the standings table
    md = (tmp_path / "o" / "standings.md").read_text(encoding="utf-8")
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "\\*bold\\* \\_x\\_" in md
    assert wait_no_processes(tag) == []
