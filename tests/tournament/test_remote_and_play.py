"""A remote bot joining with its token; ``arena play`` end to end."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile

import pytest

from arena.cli import main
from arena.tournament.runner import run_tournament

from .helpers import config_text, make_config, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_remote_bot_joins_with_its_token(tmp_path, capsys):
    tag = new_tag()
    port = free_port()
    extra = (f'[server]\nbind = "127.0.0.1:{port}"\n'
             '[[bots]]\nname = "visitor"\nremote = true\ntoken = "let-me-in-0123456789"\n')
    cfg = make_config(None, tag=tag, bots=2, extra=extra)
    visitor = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random_bot", "--arena", f"127.0.0.1:{port}",
         "--connect-timeout", "20"], env={**os.environ, "ARENA_TOKEN": "let-me-in-0123456789"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        outcome = asyncio.run(run_tournament(cfg, tmp_path, progress=False))
        assert visitor.wait(20) == 0            # told goodbye when the tournament ended
    finally:
        if visitor.poll() is None:
            visitor.kill()
    assert outcome.played_now == 6
    # the arena tells remote bots to pass the token in the environment, never as --token
    err = capsys.readouterr().err
    assert (f"remote bots (visitor) join with ARENA_TOKEN=<their token> in their environment "
            f"and --arena 127.0.0.1:{port}") in err and "--token" not in err
    row = next(r for r in outcome.standings.rows if r.bot == "visitor")
    assert row.matches == 6 and row.forfeits == 0
    assert wait_no_processes(tag) == []


def test_arena_play_prints_the_match(capsys, tmp_path):
    rec = tmp_path / "m.jsonl"
    code = main(["play", "{python} -m sample_bots.random_bot",
                 "{python} -m sample_bots.greedy_bot", "{python} -m sample_bots.random_bot",
                 "--preset", "blato", "--set", "hand_cap=2", "--seed", "5",
                 "--record", str(rec)])
    out = capsys.readouterr().out
    assert code == 0
    assert "== Hand 1:" in out and "== Hand 2:" in out and "== Result ==" in out
    assert out.count("trick 16:") == 2 and "random_bot-2" in out
    assert main(["replay", str(rec), "--verify"]) == 0


def test_arena_play_bad_option_is_one_line(capsys):
    assert main(["play", "a", "b", "c", "--set", "hand_cap=0"]) == 2
    assert "invalid value 0 for rule option 'hand_cap'" in capsys.readouterr().err


def test_arena_play_preflight_failure_leaves_no_empty_log_directory(capsys, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rand = "{python} -m sample_bots.random_bot"
    assert main(["play", rand, rand, "no-such-bot-program", "--set", "hand_cap=1"]) == 2
    err = capsys.readouterr().err
    assert "'no-such-bot-program' is not a program on the PATH" in err
    assert "playing one" not in err          # the check comes before it says it plays
    assert list(tmp_path.iterdir()) == []


def test_config_text_helper_is_valid():
    assert config_text(None, tag="x").count("[[bots]]") == 3


def test_seeded_bots_give_the_same_tournament_twice(tmp_path):
    from arena.tournament.config import parse_config
    from arena.tournament.store import open_existing
    from .helpers import bot_block
    tag = new_tag()
    text = config_text(None, tag=tag, bots=0, hand_cap=2, concurrency=2) + "".join(
        bot_block(f"r{i}", ["{python}", "-m", "sample_bots.random_bot", "--seed", str(i)], tag)
        for i in range(4))
    from arena.tournament.store import copy_deal_key
    results = []
    for run in ("a", "b"):
        if run == "b":      # the same deals in another directory: its deal key
            copy_deal_key(tmp_path / "a", tmp_path / "b")
        asyncio.run(run_tournament(parse_config(text), tmp_path / run, progress=False))
        with open_existing(tmp_path / run) as store:
            results.append([(r.match_id, r.places, r.scores) for r in store.results()])
    assert len(results[0]) == 24 and results[0] == results[1]
    asyncio.run(run_tournament(parse_config(text), tmp_path / "c", progress=False))
    with open_existing(tmp_path / "c") as store:     # a directory of its own: other deals
        assert [(r.match_id, r.places, r.scores) for r in store.results()] != results[0]
    assert wait_no_processes(tag) == []


def test_relative_paths_are_read_from_the_config_directory(tmp_path, capsys, monkeypatch):
    """A league directory run from elsewhere: its relative TLS files and a bot's relative
    cwd (a script there, in the bubblewrap sandbox) are read from the config's directory; the
    listening line says the port speaks TLS and what a remote bot adds; a remote bot joins
    over TLS."""
    from ..protocol.certs import make_certs
    tag = new_tag()
    league = tmp_path / "league"
    certs = make_certs(league / "certs")
    (league / "bots").mkdir()
    (league / "bots" / "mine.py").write_text(
        "import runpy\nrunpy.run_module('sample_bots.random_bot', run_name='__main__')\n")
    port = free_port()
    text = config_text(None, tag=tag, bots=1, sandbox="bwrap") + (
        f'[server]\nbind = "127.0.0.1:{port}"\n'
        'tls_cert = "certs/server.pem"\ntls_key = "certs/server.key"\n'
        f'[[bots]]\nname = "mine"\ncommand = ["{{python}}", "mine.py"]\ncwd = "bots"\n'
        f'env = {{ ARENA_TEST_TAG = "{tag}" }}\n'
        '[[bots]]\nname = "visitor"\nremote = true\ntoken = "let-me-in-0123456789"\n')
    (league / "t.toml").write_text(text)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    visitor = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random_bot", "--arena", f"127.0.0.1:{port}",
         "--tls-ca", str(certs.ca.cert), "--connect-timeout", "30"],
        env={**os.environ, "ARENA_TOKEN": "let-me-in-0123456789"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        code = main(["run", "../league/t.toml", "--out", "out", "--quiet"])
        assert visitor.wait(20) == 0
    finally:
        if visitor.poll() is None:
            visitor.kill()
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"arena listening on 127.0.0.1:{port} (TLS); remote bots (visitor) join with " \
           f"ARENA_TOKEN=<their token> in their environment and --arena 127.0.0.1:{port} " \
           "--tls-ca CA.pem" in err
    rows = json.loads((elsewhere / "out" / "standings.json").read_text())["standings"]
    assert {r["bot"]: (r["matches"], r["forfeits"]) for r in rows} == {
        "random-0": (6, 0), "mine": (6, 0), "visitor": (6, 0)}
    # a missing file names where it was looked for and the rule
    (league / "t.toml").write_text(text.replace("certs/server.key", "certs/nokey.pem"))
    assert main(["run", "../league/t.toml", "--out", "out2"]) == 2
    assert f"server: tls_key: no such file: {league}/certs/nokey.pem (a relative path is read " \
           "from the config file's directory)" in capsys.readouterr().err
    assert wait_no_processes(tag) == []
