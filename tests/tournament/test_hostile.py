"""Hostile bots end to end: a bot whose dying words clear the screen and reverse the text, and
bots named like HTML and Markdown markup (the operator's terminal and standings.md get them
escaped); a bot that squats the registration places of the arena's Unix socket and TCP port
(every other bot still starts)."""

from __future__ import annotations

import json
import re
import shlex
import socket
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

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


def test_hostile_log_line_reaches_the_terminal_escaped_in_arena_play():
    """`arena play` with a bot that dies before registering: its start error quotes its last
    log line, escaped (exit status 3, nothing played)."""
    hostile = f"{sys.executable} {PROBEBOT} --mode hostile --line {shlex.quote(LINE)}"
    rand = f"{sys.executable} -m sample_bots.random_bot"
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "play", rand, rand, hostile,
                           "--set", "hand_cap=1"], capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    bad = {ch for ch in proc.stdout.decode() + err
           if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch != "\n"}
    assert bad == set(), json.dumps(err)
    assert "\\u001b[2J\\u001b[Hall your base \\u202eevil\\u0007" in err


SQUATBOT = Path(__file__).with_name("squatbot.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_squatted_registration_places_keep_no_bot_out(tmp_path):
    """A started bot opens 36 streams that send nothing on the arena's Unix socket (over 12
    connections) and 36 on its TCP port (where it has no token), and opens a new one whenever
    one is pushed out; only then does the last honest bot start. Every honest bot starts and
    plays every match; the squatter, holding more connections to the Unix socket than a bot
    may, is cut off (SO_PEERCRED names it; disqualified when its registered connection was
    among them); the flood gives a bounded number of warning lines, even under --quiet."""
    tag = new_tag()
    flag = tmp_path / "flag"
    port = _free_port()
    text = config_text(None, tag=tag, bots=2, deals=1, hand_cap=1, max_crashes=1)
    text += bot_block("squatter", ["{python}", str(SQUATBOT), "--target", "ENV", "--target",
                                   f"127.0.0.1:{port}", "--streams", "36", "--connections", "12",
                                   "--flag", str(flag),
                                   "--register"], tag)
    text += bot_block("late", ["sh", "-c", f'while [ ! -e {flag} ]; do sleep 0.05; done; '
                               'exec {python} -m sample_bots.random_bot "$@"', "late"], tag)
    text += f'[server]\nbind = "127.0.0.1:{port}"\n'
    (tmp_path / "t.toml").write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                           "--out", str(tmp_path / "o"), "--quiet"], capture_output=True,
                          timeout=180)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err          # no bot "never started" (that is exit 3)
    assert flag.exists()
    warnings = [line for line in err.splitlines() if "WARNING" in line]
    assert any("too many streams waiting to register from the Unix socket" in w
               for w in warnings), err
    assert any("too many streams waiting to register from 127.0.0.1" in w
               for w in warnings), err
    assert re.search(r"WARNING: process \d+ \(\S+ \S+squatbot\.py .*\) held 1[23] "
                     r"connections to the arena's Unix socket \(a bot needs one; at most 4\): "
                     r"1[23] were closed", err), err
    assert len(warnings) <= 12, err    # not one per stream pushed out (hundreds)
    con = sqlite3.connect(tmp_path / "o" / "results.sqlite")
    try:
        rows = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    finally:
        con.close()
    assert rows == 24      # 4 tables of 3 from 4 bots, 6 seatings of one deal each
    table = [line.split("|") for line in
             (tmp_path / "o" / "standings.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("|")]
    forfeits = table[0].index(next(c for c in table[0] if c.strip() == "forfeits"))
    played = {row[2].strip(): (row[4].strip(), row[forfeits].strip()) for row in table[2:]}
    assert {n: played[n] for n in ("random-0", "random-1", "late")} == \
        {n: ("18", "0") for n in ("random-0", "random-1", "late")}, played
    # cut off while it held its registered connection too, it is disqualified; where its own
    # registration came after the cut (a loaded machine), it plays on with the one allowed
    assert played["squatter"][0] == "18", played
    if int(played["squatter"][1]):
        assert "'squatter' was disqualified" in err
    assert wait_no_processes(tag) == []
