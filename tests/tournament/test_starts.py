"""Bots that do not start or do not come: ``arena play`` fails with
the start error, a remote bot that never joins is "did not connect" and its matches are left
for a later run, and both limits mean "when the count reaches N"."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.match import LocalBot, MatchSpec, run_match
from arena.rules import make_config
from arena.tournament.config import BotEntry
from arena.processes.pool import BotPool
from arena.tournament.preflight import check_command
from arena.tournament.store import open_existing

from .helpers import PYTHON, config_text, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e


def test_arena_play_exits_3_with_the_start_error(capsys):
    code = main(["play", "{python} -m sample_bots.random_bot",
                 "{python} -c \"import sys; sys.exit('no model file')\"",
                 "{python} -m sample_bots.random_bot", "--set", "hand_cap=1"])
    out, err = capsys.readouterr()
    assert code == 3
    assert "exited with status 1 before registering (no model file); see its log: " in err
    assert err.rstrip().endswith(")") and "nothing was played (bot logs in " in err
    assert "== Hand 1" not in out


def test_arena_play_refuses_a_command_that_cannot_start(capsys):
    code = main(["play", "{python} -m sample_bots.random_bot", "no-such-bot-358 --fast",
                 "{python} no_such_dir/bot.py"])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("arena: error: ")]
    assert code == 2 and len(errors) == 2 and "Traceback" not in err     # one line per bot
    assert "'no-such-bot-358' is not a program on the PATH" in errors[0]
    assert "its script no_such_dir/bot.py does not exist" in errors[1]


@pytest.mark.parametrize("argv,problem", [
    ([PYTHON, "-m", "sample_bots.random_bot"], None),
    ([PYTHON, "-u", "-X", "dev", "missing.py", "--x"], "its script missing.py does not exist"),
    ([PYTHON, "-c", "pass"], None),
    (["sh", "-c", "exec sleep 1"], None),
    (["./bot.sh"], "./bot.sh does not exist"),
    (["node", "--require", "x.js", "gone.js"], "its script gone.js does not exist"),
    ([PYTHON, "-m", "sample_bots.greedy_bott"], "its module sample_bots.greedy_bott does not "
     "exist (no "),
    ([PYTHON, "-u", "-msample_bots.nope.bot"], "its module sample_bots.nope.bot does not exist "
     "(no package "),
    ([PYTHON, "-m", "sample_bots.js_bot"], "its module sample_bots.js_bot does not exist"),
    ([PYTHON, "-m", "json.tool"], None),              # installed: looked up at the start
    ([PYTHON, "-m", "sample_bots"], None),            # top level only: not checked here
    ([PYTHON, "-c", "pass", "-m", "x.y"], None),
])
def test_preflight_command_checks(argv, problem):
    got = check_command(argv, None, {})
    assert got is None if problem is None else problem in (got or ""), got


def test_preflight_non_executable_and_cwd(tmp_path):
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")
    assert "is not executable" in check_command(["./bot.sh"], str(tmp_path), {})
    script.chmod(0o755)
    assert check_command(["./bot.sh"], str(tmp_path), {}) is None
    assert "working directory" in check_command(["./bot.sh"], str(tmp_path / "no"), {})


def test_remote_bot_that_never_joins_did_not_connect_and_nothing_is_stored(tmp_path, capsys):
    """The lobby waits [tournament] start_after, then the matches with the remote bot are
    left pending (not waited for again: register_timeout_s is 60), not stored as forfeits and
    not counted as crashes; it is "did not connect" in the standings, exit status 3."""
    tag = new_tag()
    text = config_text(None, tag=tag, bots=2, register_timeout_s=60, max_crashes=2) + (
        '[[bots]]\nname = "visitor"\nremote = true\ntoken = "visitor-token-0123456789"\n')
    text = text.replace("concurrency = 1\n", "concurrency = 1\nstart_after = 1\n")
    (tmp_path / "t.toml").write_text(text)
    out = tmp_path / "o"
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 3
    captured = capsys.readouterr()
    with open_existing(out) as store:
        assert store.results() == [] and len(store.pending()) == 6
    visitor = next(line for line in captured.out.splitlines() if "visitor" in line)
    assert "did not connect" in visitor
    assert "arena: waiting up to 1 s for 1 remote bot to connect: visitor" in captured.err
    assert "arena: remote bot 'visitor' did not connect: 6 matches with it were not played " \
        "(nothing stored)" in captured.err
    assert "disqualified" not in captured.err and "crash" not in captured.err
    assert "0 matches played now, 0 resumed from earlier runs, 6 scheduled, 6 left for a " \
        "later run" in captured.out
    assert wait_no_processes(tag) == []


class _Server:
    """What BotPool needs of the server when no bot is started."""

    port = None

    def expect(self, token: str, name: str) -> None:
        pass


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_crashes_disqualifies_when_the_count_reaches_n(n, tmp_path):
    async def scenario():
        pool = BotPool(_Server(), [BotEntry(name="b", command=["x"])], "127.0.0.1:1",
                       tmp_path, slots=1, register_timeout_s=1, max_crashes=n)
        st = pool.bots["b"]
        for k in range(1, n + 1):
            assert st.disqualified is None
            pool._crash(st, f"crash {k}")
        assert st.disqualified == f"disqualified after {n} crash{'es' if n > 1 else ''}"
        assert pool.disqualifications == [f"'b' was {st.disqualified}; last: crash {n}"]
    asyncio.run(scenario())


class _Illegal:
    def decide(self, view):
        return 999


class _Random:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, view):
        return self.rng.choice(view.legal_actions)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_faults_forfeits_when_the_count_reaches_n(n):
    bots = [LocalBot(_Random(1), "a"), LocalBot(_Illegal(), "bad"), LocalBot(_Random(2), "c")]
    spec = MatchSpec("m", make_config("sergeant-major", hand_cap=1), seed=3, max_faults=n)
    result = asyncio.run(run_match(spec, bots))
    asked = [d for d in result.decisions if d.seat == 1 and d.think_ms is not None]
    assert result.faults[1] == n and len(asked) == n        # not asked again after the Nth
    assert result.forfeited[1] and result.forfeit_reasons[1] == f"{n} faults (last: illegal)"


def test_readme_states_both_limits_the_same_way():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "max_faults = 3              # a bot forfeits a match at its 3rd fault in it" in readme
    assert "max_crashes = 3             # a bot is disqualified at its 3rd crash" in readme
