"""Bot processes over their whole life: Goodbye before any signal at
the end, the token in the environment only, and no bot process (hung, not written with the SDK,
not yet connected, or a child it started) outliving the arena, whatever kills it."""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena.processes.reaper import INSTANCE_ENV, ProcessRecord, find_leftovers, start_ticks
from arena.tournament.runner import run_tournament

from .helpers import bot_block, config_text, new_tag, tagged_processes, wait_no_processes
import contextlib

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
JS_BOT = REPO / "sample_bots" / "js_bot"
HAVE_NODE = shutil.which("node") is not None and (JS_BOT / "node_modules").is_dir()
TESTBOT = ["{python}", "-m", "sample_bots._testbots.bot"]
#: the most these tests wait for something that must happen (a bot started, a process ended):
#: they go on as soon as it has; only a real hang waits this long (a machine busy with other
#: work may take tens of seconds to start an arena and its bots)
PATIENCE_S = 300.0


def _cmdline(pid: int) -> list[str]:
    """The command line of ``pid`` ([] once it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return []
    return raw.rstrip("\0").split("\0")


def _environ(pid: int) -> dict[str, str]:
    items = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace").split("\0")
    return dict(item.split("=", 1) for item in items if "=" in item)


def test_bots_get_goodbye_before_any_signal_and_exit_0(tmp_path, capsys):
    tag = new_tag()
    text = config_text(None, tag=tag, bots=2, concurrency=2)
    if HAVE_NODE:
        text += bot_block("js", ["node", str(JS_BOT / "bot.js"), "--seed", "3"], tag)
    else:
        text += bot_block("greedy", ["{python}", "-m", "sample_bots.greedy_bot"], tag)
    from arena.tournament.config import parse_config
    outcome = asyncio.run(run_tournament(parse_config(text), tmp_path, progress=False))
    assert outcome.played_now == 6
    assert wait_no_processes(tag) == []
    assert "WARNING" not in capsys.readouterr().err   # every peer check passed
    logs = sorted((tmp_path / "logs").glob("*.log"))
    assert len(logs) == 3
    for log in logs:
        text = log.read_text()
        started = re.findall(r"=== \S+ instance (\d+): ", text)
        ended = re.findall(r"=== \S+ instance (\d+) ended: (.*)", text)
        assert sorted(started) == ["1", "2"], text            # one per match slot
        # every instance read the Goodbye and left by itself (status 0 through the SDK / JS)
        assert sorted(ended) == [("1", "exit status 0"), ("2", "exit status 0")], text
        assert text.count("arena says goodbye: the tournament is over") == 2, text


def test_token_only_in_the_environment_and_placeholders_still_work(tmp_path):
    tag = new_tag()
    text = config_text(None, tag=tag, bots=2) + bot_block(
        "explicit", [*TESTBOT, "--arena", "{arena}", "--token", "{token}"], tag)
    seen: list[tuple[list[str], dict[str, str]]] = []

    def inspect(_match) -> None:
        for pid in tagged_processes(tag):
            with contextlib.suppress(OSError):
                seen.append((_cmdline(pid), _environ(pid)))

    from arena.tournament.config import parse_config
    outcome = asyncio.run(run_tournament(parse_config(text), tmp_path, progress=False,
                                         on_match=inspect))
    assert outcome.played_now == 6 and all(r.forfeits == 0 for r in outcome.standings.rows)
    bots = [(cmd, env) for cmd, env in seen if "sample_bots.random_bot" in " ".join(cmd)]
    explicit = [(cmd, env) for cmd, env in seen if "sample_bots._testbots.bot" in cmd]
    assert bots and explicit
    for cmd, env in bots:
        assert re.fullmatch(r"[0-9a-f]{32}", env["ARENA_TOKEN"]) and env["ARENA_ADDRESS"]
        assert "--token" not in cmd and env["ARENA_TOKEN"] not in " ".join(cmd)
        assert cmd[-2:] == ["--arena", env["ARENA_ADDRESS"]]
    for cmd, env in explicit:   # {token} asked for explicitly: on the command line (documented)
        assert cmd[cmd.index("--token") + 1] == env["ARENA_TOKEN"]
        assert cmd.count("--arena") == 1
    assert wait_no_processes(tag) == []


def _hostile_config(tag: str) -> str:
    """Bots that would survive a careless arena: one hangs in decide (SDK), one starts
    children in its group, a new session and a daemon (at its start, before it registers),
    and one is not an SDK bot and never connects (it is restarted for every match: it counts
    a crash after 2 s each time; an SDK bot slower than that to register on a busy machine is
    restarted too, which only adds moments to kill the arena at)."""
    return (config_text(None, tag=tag, bots=0, time_ms=60_000, register_timeout_s=2,
                        max_crashes=100, concurrency=2)
            + bot_block("hung", [*TESTBOT, "--mode", "hang"], tag)
            + bot_block("spawner", [*TESTBOT, "--mode", "spawner"], tag)
            + bot_block("sleeper", ["sh", "-c", "exec sleep 25"], tag))


def _start_arena(tmp_path: Path, tag: str, out: str = "o",
                 tmpdir: str | None = None) -> subprocess.Popen:
    (tmp_path / "t.toml").write_text(_hostile_config(tag))
    env = None if tmpdir is None else {**os.environ, "TMPDIR": tmpdir}
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                             "--out", str(tmp_path / out), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)


def _snapshot(tag: str) -> tuple[int, bool]:
    """(tagged processes alive, whether the spawner's children are among them)."""
    procs = tagged_processes(tag)
    kids = False
    for pid in procs:
        kids = kids or _cmdline(pid) == ["sleep", "300"]
    return len(procs), kids


#: when a kill may come: (what to wait for first, the random extra delay range in seconds)
PHASES = {
    "starting": (None, (0.05, 1.5)),          # the arena is still starting: maybe no bot yet
    "bots starting": ("process", (0.0, 0.6)),  # bots being started and registering
    "playing": ("children", (0.0, 2.5)),      # the spawner's children up, the hung bot hangs
}


@pytest.mark.slow
def test_kill_9_of_the_arena_at_random_moments_leaves_no_bot_process(tmp_path):
    """12 arenas killed with SIGKILL at random moments: no bot process outlives one, and each
    arena removes the socket directory the one killed before it left in TMPDIR (at most the
    last one's stays). (The sandbox's seccomp filter is a memory file, nothing on disk:
    tests/sandbox/test_sandbox_unit.py.)"""
    rng = random.Random(10)
    kills = []
    tmpdir = tempfile.mkdtemp(prefix="k9-")      # short: a socket path holds 107 bytes
    for i in range(12):
        phase = list(PHASES)[i % 3]
        wait_for, (low, high) = PHASES[phase]
        tag = new_tag()
        arena = _start_arena(tmp_path, tag, f"o{i}", tmpdir)
        delay = rng.uniform(low, high)
        try:
            if wait_for == "process":
                assert _wait_for(lambda t=tag: tagged_processes(t))
            elif wait_for == "children":
                assert _wait_for(lambda t=tag: _snapshot(t)[1])
            time.sleep(delay)
            seen, kids = _snapshot(tag)
            os.kill(arena.pid, signal.SIGKILL)
            arena.wait(10)
        finally:
            if arena.poll() is None:
                arena.kill()
        # the supervisors end their bots at once (parent-death signal); a machine busy with
        # other work may not run them for a while: what counts is that nothing is left
        left = wait_no_processes(tag, 60.0)
        kills.append((phase, round(delay, 2), seen, kids))
        if left:
            described = []
            for pid in left:   # do not leave them to the next test
                try:
                    described.append(" ".join(_cmdline(pid)))
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            pytest.fail(f"kill {i} ({phase}, {delay:.2f} s) left {len(left)} bot processes "
                        f"alive 60 s later: {described}; kills so far: {kills}")
    assert sum(kids for *_, kids in kills) >= 4, kills   # the "playing" kills had children
    left_files = sorted(os.listdir(tmpdir))
    shutil.rmtree(tmpdir, ignore_errors=True)
    assert len([n for n in left_files if re.match(r"arena-\d+-", n)]) <= 1, left_files


def _wait_for(pred, timeout_s: float = PATIENCE_S) -> bool:
    """Whether ``pred()`` became true (polled every 50 ms) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_next_run_ends_what_a_dead_arena_and_its_supervisors_left(tmp_path):
    tag = new_tag()
    arena = _start_arena(tmp_path, tag)
    try:
        # the spawner's three children are up
        assert _wait_for(lambda: sum("sleep 300" in " ".join(_cmdline(p))
                                     for p in tagged_processes(tag)) >= 3)
        # the worst case: the arena and every supervisor die at once (the arena is stopped
        # first so that it cannot react to the supervisors' deaths)
        os.kill(arena.pid, signal.SIGSTOP)
        for pid in tagged_processes(tag):
            if "supervisor.py" in " ".join(_cmdline(pid)):
                os.kill(pid, signal.SIGKILL)
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait(10)
    finally:
        if arena.poll() is None:
            arena.kill()
    # the bots die with their supervisors (their own death signal), but not their children
    def commands() -> set[str]:
        return {" ".join(_cmdline(p)) for p in tagged_processes(tag)} - {""}
    assert _wait_for(lambda: commands() == {"sleep 300"}), commands()
    survivors = tagged_processes(tag)
    assert len(survivors) >= 3, commands()
    # the next `arena run` on the directory ends them before it starts anything
    err_path = tmp_path / "second.err"
    message = re.compile(r"arena: ended (\d+) bot process(es)? left running by an earlier "
                         r"arena on ")
    with open(err_path, "w") as err:
        second = subprocess.Popen([sys.executable, "-m", "arena.cli", "run",
                                   str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"),
                                   "--quiet"], stdout=subprocess.DEVNULL, stderr=err,
                                  start_new_session=True)
    try:
        assert _wait_for(lambda: message.search(err_path.read_text())), err_path.read_text()
        # ended before the new arena started anything
        assert int(message.search(err_path.read_text())[1]) >= len(survivors)
        assert not any(p in tagged_processes(tag) for p in survivors)
    finally:
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(10)
    assert wait_no_processes(tag) == []


def test_children_of_a_bot_whose_supervisor_was_killed_are_ended_by_the_arena(tmp_path):
    tag = new_tag()
    (tmp_path / "t.toml").write_text(
        config_text(None, tag=tag, bots=2, hand_cap=3, deals=3)
        + bot_block("spawner", [*TESTBOT, "--mode", "spawner"], tag))
    arena = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                              "--out", str(tmp_path / "o"), "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        assert _wait_for(lambda: sum(_cmdline(p) == ["sleep", "300"]
                                     for p in tagged_processes(tag)) >= 3)
        kids = [p for p in tagged_processes(tag) if _cmdline(p) == ["sleep", "300"]]
        supervisor = next(p for p in tagged_processes(tag)
                          if "supervisor.py" in " ".join(_cmdline(p))
                          and "spawner" in " ".join(_cmdline(p)))
        os.kill(supervisor, signal.SIGKILL)   # e.g. the OOM killer: it cannot clean up
        # the arena sees its bot gone and ends what the instance left, while it plays on
        assert _wait_for(lambda: not any(p in tagged_processes(tag) for p in kids))
        assert arena.poll() is None or arena.returncode == 0
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
        arena.wait(10)
    assert wait_no_processes(tag) == []


def test_leftovers_are_found_by_instance_tag_or_by_group_and_start_time():
    env = {**os.environ, INSTANCE_ENV: "feedfacecafebeef"}
    tagged = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    plain = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert _wait_for(lambda: start_ticks(plain.pid) is not None)
        ticks = start_ticks(plain.pid)
        by_tag = ProcessRecord("feedfacecafebeef", "x", 999_999_999, 0)
        by_group = ProcessRecord("0" * 16, "y", plain.pid, ticks)
        recycled = ProcessRecord("1" * 16, "z", plain.pid, ticks - 1)  # another process
        assert tagged.pid in find_leftovers([by_tag]) and plain.pid not in find_leftovers(
            [by_tag])
        assert find_leftovers([by_group]) == [plain.pid]
        assert find_leftovers([recycled]) == []
        assert os.getpid() not in find_leftovers([ProcessRecord(
            "2" * 16, "me", os.getpgrp(), start_ticks(os.getpgrp()) or 0)])
    finally:
        for p in (tagged, plain):
            p.kill()
            p.wait()
