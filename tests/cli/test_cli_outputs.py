"""Everyday CLI conventions: ``python -m arena``, ``--json`` outputs, ``-v/--log-level`` and the
run's ``arena.log``, shell completion, and the README bot type-checking against ``py.typed``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import __version__
from arena.cli import main

from ..tournament.helpers import config_text, new_tag, wait_no_processes

REPO = Path(__file__).resolve().parents[2]
BOTS = ["{python} -m sample_bots.random_bot", "{python} -m sample_bots.greedy_bot",
        "{python} -m sample_bots.random_bot"]


def _arena(*args: str, cwd: Path, env: dict[str, str] | None = None,
           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def test_python_dash_m_arena_is_the_arena_command(tmp_path) -> None:
    done = _arena("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"arena {__version__}"
    done = _arena("presets", "--json", cwd=tmp_path)
    assert done.returncode == 0 and "blato" in json.loads(done.stdout)


@pytest.mark.e2e
def test_play_json_and_replay_verify_json(capsys, tmp_path) -> None:
    rec = tmp_path / "m.jsonl"
    assert main(["play", *BOTS, "--preset", "six-contracts", "--set", "hand_cap=2",
                 "--seed", "3", "--record", str(rec), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    summary = json.loads(out)
    assert summary["preset"] == "six-contracts" and summary["hands"] == 2
    assert summary["names"] == ["random_bot", "greedy_bot", "random_bot-2"]
    assert sorted(summary["placings"])[0] == 1 and summary["faults"] == [0, 0, 0]
    assert summary["termination"] == "normal" and summary["record"] == str(rec)
    assert summary["bot_logs"] is None   # removed: nothing went wrong

    assert main(["replay", str(rec), "--verify", "--json"]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] is True and verified["path"] == str(rec)
    for key in ("match_id", "scores", "placings", "hands", "decisions", "names"):
        assert verified[key] == summary[key], key

    broken = tmp_path / "broken.jsonl"
    lines = rec.read_text().splitlines(keepends=True)
    broken.write_text("".join(lines[:-1]))           # the result line is lost
    assert main(["replay", str(broken), "--verify", "--json"]) == 1
    captured = capsys.readouterr()
    failed = json.loads(captured.out)
    assert failed["ok"] is False and failed["path"] == str(broken) and failed["error"]
    assert captured.err.startswith("arena: error: ")


def test_replay_json_needs_verify(capsys, tmp_path) -> None:
    assert main(["replay", str(tmp_path / "x.jsonl"), "--json"]) == 2
    assert "--json goes with --verify" in capsys.readouterr().err


@pytest.mark.e2e
def test_run_json_summary_log_file_and_verbose_stderr(tmp_path) -> None:
    tag = new_tag()
    cfg = tmp_path / "t.toml"
    cfg.write_text(config_text(None, tag=tag))
    out = tmp_path / "out"
    done = _arena("run", str(cfg), "--out", str(out), "--quiet", "--json", "-v", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    summary = json.loads(done.stdout)
    assert summary["played_now"] == 6 and summary["scheduled"] == 6
    assert summary["already_done"] == 0 and summary["disqualifications"] == []
    assert sorted(r["bot"] for r in summary["standings"]) == ["random-0", "random-1", "random-2"]
    assert all(r["matches"] == 6 for r in summary["standings"])
    # -v: INFO lines on stderr; the log file has them with timestamps, whatever the console
    assert re.search(r"arena: INFO: bot 'random-0' registered", done.stderr)
    log = (out / "arena.log").read_text()
    assert re.search(r"^\d{4}-\d\d-\d\d .* INFO arena.protocol: arena server listening", log,
                     re.M)
    assert log.count("INFO arena.tournament: match ") == 6
    assert "bot 'random-2' registered" in log
    assert wait_no_processes(tag) == []

    # a resumed run appends to the log; without -v nothing is logged on stderr
    done = _arena("run", str(cfg), "--out", str(out), "--quiet", "--json", cwd=tmp_path)
    assert done.returncode == 0 and "INFO" not in done.stderr
    assert json.loads(done.stdout)["already_done"] == 6
    assert (out / "arena.log").read_text().startswith(log)


def test_log_level_option_before_or_after_the_command(tmp_path) -> None:
    from arena.cli import build_parser
    from arena.commands._logging import console_level
    parse = build_parser().parse_args
    assert console_level(parse(["presets"])) == 30
    assert console_level(parse(["-v", "presets"])) == 20
    assert console_level(parse(["presets", "-vv"])) == 10
    assert console_level(parse(["--log-level", "error", "run", "x.toml"])) == 40
    assert console_level(parse(["run", "x.toml", "-vv", "--log-level", "WARNING"])) == 30


def test_shell_completion_with_argcomplete(tmp_path) -> None:
    pytest.importorskip("argcomplete")
    target = tmp_path / "completions"
    done = _arena(cwd=tmp_path, env={
        "_ARGCOMPLETE": "1", "COMP_LINE": "arena replay rec --ve", "COMP_POINT": "21",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(target)})
    assert done.returncode == 0, done.stderr
    assert set(target.read_text().split("\v")) == {"--verify", "--verbose"}


def _readme_bot() -> str:
    text = (REPO / "README.md").read_text()
    section = text.split("## Writing a bot", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_bot_passes_mypy_strict_against_the_typed_package(tmp_path) -> None:
    if shutil.which("mypy") is None and subprocess.run(
            [sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode:
        pytest.skip("mypy is not installed (the dev extra installs it)")
    assert (REPO / "arena" / "py.typed").is_file()
    (tmp_path / "my_bot.py").write_text(_readme_bot())
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                           str(tmp_path / ".mypy_cache"), "my_bot.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # and the check is real: a wrong return type fails
    (tmp_path / "bad_bot.py").write_text(_readme_bot().replace(
        "return random.choice(view.legal_actions)", "return str(view.legal_actions[0])"))
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                           str(tmp_path / ".mypy_cache"), "bad_bot.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Incompatible return value" in done.stdout
