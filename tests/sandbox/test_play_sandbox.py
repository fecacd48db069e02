"""``arena play`` runs its three bots under the same ``[sandbox]`` settings as ``arena run``
(``--sandbox``, ``--limit``): real processes, real gRPC over the Unix socket."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import BOTS, needs_bwrap

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
RANDOM = "{python} -m sample_bots.random_bot"


def play(tmp_path, first: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "play", first, RANDOM, RANDOM,
                           "--set", "hand_cap=1", "--json", *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


@needs_bwrap
def test_play_sandboxes_by_default_and_none_turns_it_off(tmp_path) -> None:
    done = play(tmp_path, f"{{python}} {BOTS / 'list_proc.py'}")
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("sandbox: bwrap (memory 1 GiB, 128 processes")
    assert ("bot 'list_proc' exited with status 1 before registering (RuntimeError: no arena "
            "or other bot process visible in /proc)") in done.stderr
    assert "registered from" not in done.stderr         # the others: traced over the socket
    shutil.rmtree(re.search(r"bot logs in (\S+)\)", done.stderr)[1])
    done = play(tmp_path, f"{{python}} {BOTS / 'list_proc.py'}", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("sandbox: none")
    summary = json.loads(done.stdout)
    assert summary["forfeited"] == [False, False, False] and summary["hands"] == 1


@needs_bwrap
def test_play_applies_the_limits_and_names_the_fault(tmp_path) -> None:
    bomb = f"env ATTACK_WHEN=decide ATTACK_FAIL=exit {{python}} {BOTS / 'open_files.py'}"
    done = play(tmp_path, bomb, "--limit", "open_files=64")
    assert done.returncode == 0, done.stderr
    assert "64 open files" in done.stderr.splitlines()[0]
    assert "arena: bot 'ATTACK_WHEN=decide' stopped: open files limit 64 reached" in done.stderr
    summary = json.loads(done.stdout)
    assert summary["forfeited"] == [True, False, False] and summary["hands"] == 1
    (log_path,) = Path(summary["bot_logs"]).glob("ATTACK_WHEN_decide*.log")
    log = log_path.read_text()
    assert "Too many open files" in log
    shutil.rmtree(summary["bot_logs"])


def test_play_rejects_bad_sandbox_options(tmp_path) -> None:
    done = play(tmp_path, RANDOM, "--limit", "memory_mib=1", "--limit", "bogus=3",
                "--sandbox", "none")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "arena: error: --limit memory_mib: Input should be greater than or equal to 16 (got 1)",
        "arena: error: --limit bogus: unknown field (check the spelling)"]
    done = play(tmp_path, RANDOM, "--limit", "memory_mib")
    assert done.returncode == 2
    assert "--limit expects OPTION=VALUE, got 'memory_mib'" in done.stderr


@needs_bwrap
def test_a_numpy_bot_runs_at_64_mib_and_a_hog_is_named_before_it_registers(tmp_path) -> None:
    """The data limit leaves room for numpy's threads and reservations (at 64 MiB it used to
    fail with pthread_create errors); a bot stopped at the memory limit while it starts is
    reported with the limit, not as a plain SIGKILL."""
    done = play(tmp_path, f"{{python}} {BOTS / 'numpy_bot.py'}", "--limit", "memory_mib=64")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["forfeited"] == [False, False, False] and summary["faults"] == [0, 0, 0]
    hog = f"env MEMORY_CAP_MIB=512 {{python}} {BOTS / 'memory_hog.py'}"
    done = play(tmp_path, hog, "--limit", "memory_mib=64")
    assert done.returncode == 3, done.stderr
    assert ("bot 'MEMORY_CAP_MIB=512' was stopped by the sandbox: memory limit 64 MiB reached "
            "before registering") in done.stderr
    shutil.rmtree(re.search(r"bot logs in (\S+)\)", done.stderr)[1])


JS_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "js_bot"


@needs_bwrap
@pytest.mark.skipif(shutil.which("node") is None or not (JS_BOT / "node_modules").is_dir(),
                    reason="the JavaScript bot needs Node.js and `npm ci --prefix "
                    "sample_bots/js_bot`")
def test_the_javascript_bot_plays_in_the_sandbox(tmp_path) -> None:
    """Node.js under the sandbox: the seccomp filter refuses io_uring (libuv falls back to
    threads) and the bot reads the .proto installed with the arena package."""
    done = play(tmp_path, f"node {JS_BOT / 'bot.js'} --seed 3")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["forfeited"] == [False, False, False] and summary["faults"] == [0, 0, 0]


@needs_bwrap
def test_a_script_named_from_where_arena_runs_starts_in_the_sandbox(tmp_path) -> None:
    """README's recipe, a bot without ``cwd`` whose command names its script relative to the
    directory ``arena`` runs from (``python lowbot/bot.py``): the sandbox starts it (its
    script named in full, its directory bound), as it starts without the sandbox. Before,
    it failed with "can't open file '/tmp/lowbot/bot.py'" (the sandbox starts elsewhere)."""
    bot = tmp_path / "lowbot"
    bot.mkdir()
    (bot / "bot.py").write_text("from sample_bots.random_bot import main\nmain()\n")
    (tmp_path / "5").write_text("a file named like an argument: left alone\n")
    done = play(tmp_path, "{python} lowbot/bot.py --seed 5")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("sandbox: bwrap")
    summary = json.loads(done.stdout)
    assert summary["forfeited"] == [False, False, False] and summary["hands"] == 1


def test_relative_file_arguments_are_made_absolute_only_without_a_cwd(tmp_path,
                                                                     monkeypatch) -> None:
    from arena.sandbox.bwrap import absolute_files
    (tmp_path / "lib").mkdir()
    for name in ("bot.py", "lib/bot.js", "5", "seed"):
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    command = ["/usr/bin/python3", "bot.py", "lib/bot.js", "--seed", "5", "seed", "nofile.py"]
    assert absolute_files(None, command) == [
        "/usr/bin/python3", str(tmp_path / "bot.py"), str(tmp_path / "lib/bot.js"), "--seed",
        "5", "seed", "nofile.py"]
    assert absolute_files(str(tmp_path), command) == command
    # an option's value is never a path, even when a file has its name; ".." is resolved
    (tmp_path / "1.5").write_text("")
    (tmp_path / "deep").mkdir()
    assert absolute_files(None, ["/usr/bin/python3", "-u", "bot.py", "--temp", "1.5"]) == [
        "/usr/bin/python3", "-u", str(tmp_path / "bot.py"), "--temp", "1.5"]
    assert absolute_files(None, ["/usr/bin/python3", "-m", "bot.py"]) == [
        "/usr/bin/python3", "-m", "bot.py"]
    # a Python option's value is not the script, even when a file has its name
    (tmp_path / "ignore").write_text("")
    assert absolute_files(None, ["python3.11", "-W", "ignore", "-X", "dev", "bot.py"]) == [
        "python3.11", "-W", "ignore", "-X", "dev", str(tmp_path / "bot.py")]
    assert absolute_files(None, ["/opt/bot", "-W", "ignore"]) == [
        "/opt/bot", "-W", str(tmp_path / "ignore")]
    monkeypatch.chdir(tmp_path / "deep")
    assert absolute_files(None, ["/usr/bin/python3", "../bot.py"]) == [
        "/usr/bin/python3", str(tmp_path / "bot.py")]


def test_a_script_named_with_dotdot_starts_in_the_sandbox(tmp_path) -> None:
    """``python ../bot.py`` from a directory the sandbox does not show: the path is resolved
    before it is given (the kernel cannot climb through a directory that is not there)."""
    bot = tmp_path / "lowbot"
    (bot / "deep").mkdir(parents=True)
    (bot / "bot.py").write_text("from sample_bots.random_bot import main\nmain()\n")
    done = play(bot / "deep", "{python} ../bot.py")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["forfeited"] == [False, False, False]


@needs_bwrap
def test_a_script_after_a_python_option_value_starts_in_the_sandbox(tmp_path) -> None:
    """``python -W ignore bot.py``: ``ignore`` is the option's value, ``bot.py`` the script
    that is named in full for the sandbox."""
    (tmp_path / "bot.py").write_text("from sample_bots.random_bot import main\nmain()\n")
    done = play(tmp_path, "{python} -W ignore -X dev bot.py")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("sandbox: bwrap")
    assert json.loads(done.stdout)["forfeited"] == [False, False, False]
