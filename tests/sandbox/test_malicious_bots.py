"""Malicious bots (tests/sandbox/bots/) in real tournaments: inside the bubblewrap sandbox each
attack fails, the failure or the limit is reported by name, and the tournament completes; with
``mode = "none"`` the same attacks succeed (what the sandbox prevents; README table).

Each tournament is 6 one-hand matches between the attacker, a victim and a random bot."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing

from .helpers import (SECRET, attack_config, free_port, needs_bwrap, processes_with_arg,
                      wait_until)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def play(tmp: Path, text: str, capfd) -> tuple[object, str, str, list]:
    """Run the tournament of ``text`` in-process; returns (outcome, stderr, the attacker's
    log, stored results)."""
    cfg = parse_config(text, "t.toml")
    outcome = asyncio.run(asyncio.wait_for(run_tournament(cfg, tmp / "out"), 120))
    err = capfd.readouterr().err
    log = (tmp / "out" / "logs" / "attacker.log").read_text(errors="replace")
    with open_existing(tmp / "out") as store:
        results = store.results()
    return outcome, err, log, results


def succeeded(log: str) -> bool:
    """The bot printed that its attack worked (a traceback quoting the line does not count)."""
    return re.search(r"^ATTACK SUCCEEDED: ", log, re.M) is not None


def attacker_forfeits(results: list) -> list[str]:
    return [r.forfeit_reasons[r.players.index("attacker")] or "" for r in results]


# ----- attacks that fail at the first attempt inside the sandbox ------------------------------
BLOCKED = {
    "read_other.py": "FileNotFoundError",         # the victim's directory does not exist
    "write_out.py": "FileNotFoundError",          # nor does the output directory
    "tcp_connect.py": "ConnectionRefusedError",   # own network namespace: nobody listens
    "list_proc.py": "no arena or other bot process visible",
    "env_tokens.py": "no other token or arena secret visible",
}


@needs_bwrap
@pytest.mark.parametrize("script", sorted(BLOCKED))
def test_attack_fails_in_the_sandbox(tmp_path, capfd, monkeypatch, script) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "arena-secret")
    port = free_port()
    text = attack_config(tmp_path, script, "bwrap", port=port)
    outcome, err, log, results = play(tmp_path, text, capfd)
    assert "sandbox: bwrap (memory 128 MiB, 32 processes" in err
    assert outcome.played_now == 6 == outcome.scheduled        # the tournament completed
    assert not succeeded(log) and SECRET not in log
    assert BLOCKED[script] in log                              # the attack's own error
    # restarted once after the first crash: the second attempt ran while the other bots did
    assert log.count(BLOCKED[script]) >= 2 and "instance 2:" in log
    # the crash is reported with the bot's last words, and its seat forfeits every match
    assert "bot 'attacker' exited with status 1 before registering" in err
    assert BLOCKED[script] in err
    assert all(attacker_forfeits(results))
    assert not (tmp_path / "out" / "pwned.txt").exists()
    victim = [r for r in results if "victim" in r.players]
    assert all(not r.forfeits[r.players.index("victim")] for r in victim)


@needs_bwrap
@pytest.mark.parametrize("script,limit", [
    ("fork_bomb.py", "process limit 32 reached"),
    ("memory_hog.py", "memory limit 128 MiB reached"),
    ("cpu_burner.py", "CPU time limit 1 s per match reached")])
def test_resource_bomb_is_stopped_by_name(tmp_path, capfd, script, limit) -> None:
    text = attack_config(tmp_path, script, "bwrap", concurrency=2, max_crashes=1,
                         env={"ATTACK_WHEN": "decide"}, cpu_s=1, time_ms=30_000)
    outcome, err, log, results = play(tmp_path, text, capfd)
    assert outcome.played_now == 6                             # other matches went on
    assert not succeeded(log), (err, [(r.players, r.forfeit_reasons, r.cpu_s) for r in results])
    assert f"bot 'attacker' stopped: {limit}" in err
    reasons = attacker_forfeits(results)
    assert any(limit in r for r in reasons), reasons           # named in the stored result
    assert all(reasons)
    # the other two bots played every match to its end
    assert all(not r.forfeits[i] for r in results for i, n in enumerate(r.players)
               if n != "attacker")
    assert all(r.hands == 1 and r.end_reason is not None for r in results)   # finished
    # accounting: every spawned bot's CPU and peak memory is stored and shown
    rows = {r.bot: r for r in outcome.standings.rows}
    assert rows["victim"].peak_mib > 10 and rows["victim"].cpu_ms_per_decision is not None
    stored = [r.peak_mib[r.players.index("victim")] for r in results]
    assert all(p is not None and 10 < p < 128 for p in stored)
    if script == "cpu_burner.py":   # the match it was stopped in: about the 1 s it was allowed
        burnt = [r.cpu_s[r.players.index("attacker")] for r in results
                 if limit in (r.forfeit_reasons[r.players.index("attacker")] or "")]
        assert burnt and all(0.9 <= c < 2.5 for c in burnt), burnt


@needs_bwrap
def test_grandchild_is_gone_when_the_slot_ends(tmp_path, capfd) -> None:
    mark = f"{4000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    text = attack_config(tmp_path, "grandchild.py", "bwrap",
                         env={"GRANDCHILD_MARK": mark})
    outcome, _err, log, results = play(tmp_path, text, capfd)
    assert outcome.played_now == 6
    assert "\nATTACK SUCCEEDED: grandchild started" in log      # it ran, inside the sandbox
    assert not any(attacker_forfeits(results))
    assert wait_until(lambda: not processes_with_arg(mark), 5), processes_with_arg(mark)


@needs_bwrap
def test_grandchild_dies_with_a_sigkilled_arena(tmp_path) -> None:
    mark = f"{5000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    text = attack_config(tmp_path, "grandchild.py", "bwrap", env={"GRANDCHILD_MARK": mark})
    text = text.replace("per_decision_ms = 3000", "per_decision_ms = 3000\ngrace_ms = 0")
    (tmp_path / "t.toml").write_text(text)
    arena = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(tmp_path / "t.toml"),
                              "--out", str(tmp_path / "out"), "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        assert wait_until(lambda: processes_with_arg(mark), 30), "the grandchild never started"
        os.kill(arena.pid, signal.SIGKILL)                     # the arena only, not its group
        arena.wait(10)
        assert wait_until(lambda: not processes_with_arg(mark), 10), processes_with_arg(mark)
    finally:
        for pid in processes_with_arg(mark):
            os.kill(pid, signal.SIGKILL)
        if arena.poll() is None:
            arena.kill()
    # the killed arena's pids cgroups are removed by the next arena that looks for its own
    from arena.sandbox import pidlimit
    left = [b for b in pidlimit.candidates() if (b / f"arena358-{arena.pid}").is_dir()]
    groups = pidlimit.find()
    if groups is not None:
        assert left == [groups.base]          # it had one, left behind by the SIGKILL
        stale = groups.base / f"arena358-{arena.pid}"
        # removed once its last tasks (the killed sandbox's, exiting) are gone
        assert wait_until(lambda: groups.remove_stale() or not stale.exists(), 10)
        groups.close()
        assert not groups.path.exists()


# ----- the same bots without the sandbox: what it prevents -------------------------------------
@pytest.mark.parametrize("script,env,shows", [
    ("read_other.py", {}, SECRET),
    ("write_out.py", {}, "wrote"),
    ("tcp_connect.py", {}, "connected to 127.0.0.1"),
    ("list_proc.py", {}, "processes, e.g."),
    ("env_tokens.py", {"ATTACK_WHEN": "decide"}, "the arena's ARENA_TEST_SECRET, pid "),
    ("fork_bomb.py", {"ATTACK_WHEN": "decide", "FORK_CAP": "40"}, "40 processes"),
    ("memory_hog.py", {"ATTACK_WHEN": "decide", "MEMORY_CAP_MIB": "192"}, "holds 192 MiB"),
])
def test_attack_succeeds_without_the_sandbox(tmp_path, capfd, monkeypatch, script, env,
                                             shows) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "arena-secret")
    text = attack_config(tmp_path, script, "none", port=free_port(), env=env)
    outcome, err, log, _results = play(tmp_path, text, capfd)
    assert "sandbox: none" in err
    assert outcome.played_now == 6
    assert succeeded(log) and shows in log, log[-2000:]
    if script == "write_out.py":
        assert (tmp_path / "out" / "pwned.txt").read_text() == "pwned\n"


def test_grandchild_is_ended_without_the_sandbox_too(tmp_path, capfd) -> None:
    """Mode "none" has no PID namespace, but the process supervisor still ends a
    grandchild that left the bot's process group."""
    mark = f"{6000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    text = attack_config(tmp_path, "grandchild.py", "none", env={"GRANDCHILD_MARK": mark})
    try:
        outcome, _err, _log, _results = play(tmp_path, text, capfd)
        assert outcome.played_now == 6
        assert wait_until(lambda: not processes_with_arg(mark), 10), processes_with_arg(mark)
    finally:
        for pid in processes_with_arg(mark):
            os.kill(pid, signal.SIGKILL)


@needs_bwrap
def test_per_bot_mode_overrides_the_tournament(tmp_path, capfd) -> None:
    """Sandboxed tournament, one trusted bot: only that one sees the machine."""
    text = attack_config(tmp_path, "list_proc.py", "bwrap").replace(
        'name = "attacker"\n', 'name = "attacker"\nsandbox = { mode = "none" }\n')
    outcome, err, log, results = play(tmp_path, text, capfd)
    assert "; per bot: attacker: none" in err
    assert outcome.played_now == 6 and succeeded(log)
    assert not any(attacker_forfeits(results))
    rows = {r.bot: r for r in outcome.standings.rows}
    assert all(rows[n].peak_mib is not None for n in ("attacker", "victim", "random"))


# ----- the per-process limits and the scratch directory ----------------------------
@needs_bwrap
@pytest.mark.parametrize("script,sandbox,env,error,limit", [
    ("open_files.py", "open_files = 64\n", {}, "Too many open files",
     "open files limit 64 reached"),
    ("file_size.py", "file_size_mib = 2\n", {"WRITE_MIB": "8"}, "File too large",
     "file size limit 2 MiB reached"),
])
def test_per_process_limit_is_named(tmp_path, capfd, script, sandbox, env, error,
                                    limit) -> None:
    """The kernel refuses the descriptor / the write past the limit; the bot dies of it in a
    decision, the fault is reported by the limit's name, and the tournament completes."""
    text = attack_config(tmp_path, script, "bwrap", max_crashes=2, sandbox=sandbox,
                         env={"ATTACK_WHEN": "decide", "ATTACK_FAIL": "exit", **env})
    outcome, err, log, results = play(tmp_path, text, capfd)
    assert outcome.played_now == 6 == outcome.scheduled
    assert not succeeded(log) and error in log, log[-2000:]
    assert f"bot 'attacker' stopped: {limit}" in err, err[-3000:]
    assert "registered from" not in err    # sandboxed registrations over the socket: traced
    # its seat forfeits every match; the match it died in names the limit in the stored
    # result (as the bot's own last words: it exited by itself), although the arena saw the
    # stream end before the process's exit status
    reasons = attacker_forfeits(results)
    assert all(reasons)
    named = rf"disconnect: the bot exited \(status \d+\); its log names a limit: {limit}"
    assert any(re.fullmatch(named, r) for r in reasons), reasons
    assert not any("closed its stream" in r for r in reasons), reasons
    assert all(not r.forfeits[i] for r in results for i, n in enumerate(r.players)
               if n != "attacker")


def test_per_process_limits_are_absent_without_the_sandbox(tmp_path, capfd) -> None:
    for script, env, shows in [("open_files.py", {"FILES_CAP": "300"}, "holds 300 open"),
                               ("file_size.py", {"WRITE_MIB": "8"}, "wrote 8 MiB")]:
        d = tmp_path / script
        scratch = d / "scratch"
        scratch.mkdir(parents=True)
        text = attack_config(d, script, "none", sandbox="open_files = 64\nfile_size_mib = 2\n",
                             env={"ATTACK_WHEN": "decide", "TMPDIR": str(scratch), **env})
        outcome, _err, log, _results = play(d, text, capfd)
        assert outcome.played_now == 6 and succeeded(log) and shows in log, log[-2000:]


def _roots_holding(name: str) -> list[int]:
    """PIDs of the processes whose /tmp holds ``name`` (seen through /proc/PID/root)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and os.path.exists(f"/proc/{entry}/root/tmp/{name}"):
            found.append(int(entry))
    return found


@needs_bwrap
def test_scratch_is_private_per_process_and_removed(tmp_path, capfd) -> None:
    """Two concurrent instances of the bot write in their scratch /tmp: each file is there
    for its own sandbox only (not the host's /tmp, not the other instance's), and is gone
    with the sandbox."""
    mark = uuid.uuid4().hex[:10]
    text = attack_config(tmp_path, "scratch.py", "bwrap", concurrency=2,
                         env={"ATTACK_WHEN": "decide", "SCRATCH_MARK": mark,
                              "SCRATCH_HOLD_S": "2"}, time_ms=10_000)
    log_path = tmp_path / "out" / "logs" / "attacker.log"
    seen: dict[str, set[int]] = {}

    async def watch() -> None:
        while True:
            text = log_path.read_text() if log_path.exists() else ""
            for tag in re.findall(r"^scratch file (\S+) written$", text, re.M):
                if tag not in seen:
                    seen[tag] = set(await asyncio.to_thread(_roots_holding, tag))
            await asyncio.sleep(0.05)

    async def main():
        watcher = asyncio.ensure_future(watch())
        try:
            return await asyncio.wait_for(run_tournament(parse_config(text, "t.toml"),
                                                         tmp_path / "out"), 120)
        finally:
            watcher.cancel()

    outcome = asyncio.run(main())
    log = log_path.read_text()
    assert outcome.played_now == 6
    writes = re.findall(r"^ATTACK SUCCEEDED: scratch /tmp wrote (\S+); others: (.*)$", log,
                        re.M)
    assert len(writes) >= 2, log[-2000:]              # at least two instances wrote
    assert all(others == "[]" for _, others in writes)   # none saw another's file
    assert len(seen) >= 2 and all(seen.values()), seen   # each seen from outside, in its box
    groups = list(seen.values())
    assert all(a.isdisjoint(b) for i, a in enumerate(groups) for b in groups[i + 1:])
    assert not any(os.path.exists(f"/tmp/{t}") for t in seen)   # not the host's /tmp
    assert not any(_roots_holding(t) for t in seen)              # gone with the sandbox
    assert "scratch-" not in " ".join(os.listdir(tmp_path / "out"))


def _kernel_limits_processes() -> bool:
    from arena.sandbox import pidlimit
    groups = pidlimit.find()
    if groups is not None:
        groups.close()
        return True
    return os.geteuid() != 0          # RLIMIT_NPROC binds a non-root arena's bots


@needs_bwrap
@pytest.mark.skipif(not _kernel_limits_processes(),
                    reason="the arena runs as root and no pids cgroup is writable here")
def test_fork_bomb_is_refused_by_the_kernel(tmp_path, capfd, monkeypatch) -> None:
    """The process limit holds between two /proc readings, for root too: with the reading
    turned off (one reading an hour), the kernel refuses the bomb's forks at the limit; the
    refusals name the fault; the tournament completes."""
    from arena.sandbox import launch
    monkeypatch.setattr(launch, "TICK_S", 3600.0)
    text = attack_config(tmp_path, "fork_bomb.py", "bwrap", max_crashes=1, processes=32,
                         env={"ATTACK_WHEN": "decide", "ATTACK_FAIL": "exit",
                              "FORK_CAP": "400", "FORK_HOLD_S": "1"}, time_ms=30_000)
    outcome, err, log, results = play(tmp_path, text, capfd)
    assert outcome.played_now == 6 == outcome.scheduled
    assert not succeeded(log)
    # refused by the kernel: a fork of the bomb, or a thread its gRPC runtime wanted (the
    # bot's threads count too); never more than the limit
    made = [int(n) for n in re.findall(r"^ATTACK BLOCKED: fork refused after (\d+) processes",
                                       log, re.M)]
    assert all(n < 32 for n in made), made
    assert made or "pthread_create failed: Resource temporarily unavailable" in log, log[-2000:]
    assert "bot 'attacker' stopped: process limit 32 reached" in err
    assert all(attacker_forfeits(results))
    assert all(not r.forfeits[i] for r in results for i, n in enumerate(r.players)
               if n != "attacker")
    assert not [d for d in os.listdir("/sys/fs/cgroup/pids") if d == f"arena358-{os.getpid()}"]
