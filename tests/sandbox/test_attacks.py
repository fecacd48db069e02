"""Hostile bots in real tournaments, with the arena run as root and as an unprivileged user
(tests/sandbox/asuser.py): every attack of the threat model (docs/security.md) is tried for
real, and each is refused, contained or detected in both passes.

- the static attacks (tests/sandbox/bots/static_attacks.py: another bot's file, the output
  directory, the network, /proc, tokens, capabilities, remount and umount, a nested user
  namespace, the arena's own code, the operator's files) all fail, and the arena's code is
  unchanged afterwards;
- the resource attacks (memory through /dev/shm and /tmp, a fork bomb, CPU) are stopped by
  name, and the memory a bot holds in its tmpfs is counted;
- a bot that burns CPU between its matches gets none: it is stopped while idle, and all the
  CPU it used is counted in the standings.

Each tournament is run by ``python -m arena run`` in a subprocess, from a fake home
directory (the operator's working directory, holding an SSH key) that contains the config.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

import arena
from arena.tournament.store import open_existing

from .asuser import shared_dir, user_prefix
from .helpers import BOTS, needs_bwrap

pytestmark = [pytest.mark.e2e, pytest.mark.slow, needs_bwrap]

SECRET = "operator-secret-3b9e"
#: the arena files a bot must not be able to change (its process supervisor runs as the arena)
ARENA_CODE = [Path(arena.__file__).parent / "processes" / "supervisor.py",
              Path(arena.__file__)]


@pytest.fixture(params=["root", "user"])
def who(request) -> str:
    if request.param == "root" and os.geteuid() != 0:
        pytest.skip("the root pass needs the suite to run as root (CI does)")
    if request.param == "user" and user_prefix()[0] is None:
        pytest.skip(user_prefix()[1])
    return request.param


@pytest.fixture
def base() -> Iterator[Path]:
    """A directory the user pass can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="arena-attacks-"))
    try:
        yield shared_dir(path)
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _home(base: Path) -> Path:
    """The operator's working directory: an SSH key, another tournament's store."""
    home = base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY----- {SECRET}\n")
    (home / "runs" / "other").mkdir(parents=True)
    (home / "runs" / "other" / "results.sqlite").write_text(SECRET)
    return home


def _bot_dir(base: Path, name: str, *scripts: str) -> Path:
    d = base / "bots" / name
    d.mkdir(parents=True)
    for script in scripts:
        shutil.copy(BOTS / script, d / script)
    return d


def _inline(table: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table.items()) + " }"


def run_arena(who: str, home: Path, config: str, out: Path, timeout_s: float = 240,
              path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m arena run`` on ``config`` (written to ``path``, default ``home/t.toml``)
    as ``who``, from ``home`` (the working directory)."""
    path = path or home / "t.toml"
    path.write_text(config)
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o777)
    prefix = user_prefix()[0] if who == "user" else []
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "ARENA_BWRAP")}
    env |= {"HOME": str(home), "ARENA_TEST_SECRET": "arena-secret"}
    return subprocess.run([*(prefix or []), sys.executable, "-m", "arena", "run", str(path),
                           "--out", str(out), "--quiet"], cwd=home, env=env, text=True,
                          capture_output=True, timeout=timeout_s, check=False)


def _with_randoms(head: str, name: str, script: str, where: Path, randoms: int,
                  env: dict[str, str] | None = None) -> str:
    """A config: ``head`` (its sections), the bot ``name`` running ``script`` in ``where``,
    then ``randoms`` sample random bots."""
    return (head + f'[[bots]]\nname = "{name}"\ncommand = ["{{python}}", "{script}"]\n'
            f"cwd = {json.dumps(str(where))}\n" + (f"env = {_inline(env)}\n" if env else "")
            + "".join(f'[[bots]]\nname = "r{i}"\ncommand = ["{{python}}", "-m", '
                      f'"sample_bots.random_bot"]\n' for i in range(randoms)))


def _digests() -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in ARENA_CODE}


def test_static_attacks_fail(who, base) -> None:
    home = _home(base)
    attacker = _bot_dir(base, "attacker", "static_attacks.py")
    victim = _bot_dir(base, "victim")
    (victim / "secret.txt").write_text(SECRET + "\n")
    out = attacker / "out"            # inside the attacker's own directory: covered
    env = {"TARGET_FILE": str(victim / "secret.txt"), "OUT_DIR": str(out),
           "ARENA_TCP_PORT": "0", "SECRET": SECRET,
           "OPERATOR_FILES": json.dumps([str(home / ".ssh" / "id_rsa"),
                                         str(attacker / "t.toml"),
                                         str(home / "runs" / "other" / "results.sqlite"),
                                         str(out / "results.sqlite")])}
    config = (f"# remote token of a friend: {SECRET}\n"
              "[tournament]\nseed = 5\ndeals_per_table = 1\n[rules]\nhand_cap = 1\n"
              "[time]\nper_decision_ms = 3000\n"
              f'[[bots]]\nname = "attacker"\ncommand = ["{{python}}", "static_attacks.py"]\n'
              f"cwd = {json.dumps(str(attacker))}\nenv = {_inline(env)}\n"
              '[[bots]]\nname = "victim"\ncommand = ["{python}", "-m", '
              f'"sample_bots.random_bot"]\ncwd = {json.dumps(str(victim))}\n'
              '[[bots]]\nname = "random"\ncommand = ["{python}", "-m", '
              '"sample_bots.random_bot"]\n')
    before = _digests()
    # the config lies in the attacker's own directory: covered (it holds a token)
    done = run_arena(who, home, config, out, path=attacker / "t.toml")
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "logs" / "attacker.log").read_text(errors="replace")
    assert "ATTACK SUCCEEDED" not in log, log[-3000:]
    blocked = set(re.findall(r"^BLOCKED (\w+): ", log, re.M))
    from tests.sandbox.bots.static_attacks import ATTACKS
    assert blocked == {a.__name__ for a in ATTACKS}, log[-3000:]
    assert re.search(r"^BLOCKED remount_rw: Operation not permitted", log, re.M), log
    assert re.search(r"^BLOCKED umount_hiding: Operation not permitted", log, re.M), log
    assert "BLOCKED capabilities: nothing" in log and "BLOCKED root_uid: nothing" in log
    assert _digests() == before
    assert not (out / "pwned.txt").exists()
    with open_existing(out) as store:
        results = store.results()
    assert len(results) == 6 and not any(any(r.forfeits) for r in results)


def _stored(out: Path) -> list:
    with open_existing(out) as store:
        return store.results()


def _reasons(results: list, name: str) -> list[str]:
    return [r.forfeit_reasons[r.players.index(name)] or "" for r in results if name in r.players]


def test_resource_attacks_are_stopped_by_name(who, base) -> None:
    """Memory held in /dev/shm and /tmp counts (the tmpfs are sized and read), a fork bomb
    meets the process limit, a CPU burner the CPU limit: each stopped with the limit's name
    in its stored forfeit."""
    home = _home(base)
    bots = ""
    for name, script in (("shm", "shm_hog.py"), ("forker", "fork_bomb.py"),
                         ("burner", "cpu_burner.py")):
        d = _bot_dir(base, name, script, "_attack.py")
        bots += (f'[[bots]]\nname = "{name}"\ncommand = ["{{python}}", "{script}"]\n'
                 f'cwd = {json.dumps(str(d))}\nenv = {{ ATTACK_WHEN = "decide" }}\n')
    config = ("[tournament]\nseed = 5\ndeals_per_table = 1\n[rules]\nhand_cap = 1\n"
              "[time]\nper_decision_ms = 30000\n[faults]\nmax_crashes = 1\n"
              "register_timeout_s = 30\n"
              "[sandbox]\nmemory_mib = 128\nscratch_mib = 64\nprocesses = 32\n"
              "cpu_s_per_match = 1\n" + bots)
    out = base / "out"
    done = run_arena(who, home, config, out)
    assert done.returncode == 0, done.stderr[-3000:]
    results = _stored(out)
    assert len(results) == 6
    for name, limit in (("shm", "memory limit 128 MiB reached"),
                        ("forker", "process limit 32 reached"),
                        ("burner", "CPU time limit 1 s per match reached")):
        log = (out / "logs" / f"{name}.log").read_text(errors="replace")
        assert "ATTACK SUCCEEDED" not in log, log[-2000:]
        assert any(limit in r for r in _reasons(results, name)), (name, _reasons(results,
                                                                                 name))
        assert f"bot {name!r} stopped: {limit}" in (out / "arena.log").read_text()
    shm = (out / "logs" / "shm.log").read_text(errors="replace")
    # /dev/shm is sized: it refused the hog at the scratch size, not at half the RAM
    refused = re.search(r"^/dev/shm: refused after (\d+) MiB", shm, re.M)
    assert refused and 56 <= int(refused[1]) <= 64, shm[-2000:]
    stopped = [r for r in results if "memory limit" in (r.forfeit_reasons[r.players.index("shm")]
                                                        or "")]
    assert stopped[0].peak_mib[stopped[0].players.index("shm")] >= 100    # the tmpfs counted


def test_an_idle_bot_gets_no_cpu_and_all_its_cpu_is_counted(who, base) -> None:
    home = _home(base)
    burner = _bot_dir(base, "burner", "idle_burner.py")
    config = _with_randoms("[tournament]\nseed = 5\ndeals_per_table = 1\nconcurrency = 1\n"
                           "[rules]\nhand_cap = 5\n[time]\nper_decision_ms = 3000\n",
                           "burner", "idle_burner.py", burner, 3)
    out = base / "out"
    done = run_arena(who, home, config, out)
    assert done.returncode == 0, done.stderr[-3000:]
    results = _stored(out)
    assert len(results) == 24
    log = (out / "logs" / "burner.log").read_text(errors="replace")
    seen = [(float(b), float(t)) for b, t in
            re.findall(r"^idle burn ([\d.]+) s at ([\d.]+)", log, re.M)]
    assert len(seen) == 18                    # its 18 matches; it sat out the other 6
    # the longest wait between two of its matches holds the 6 matches it sat out: stopped,
    # it burnt only the moments between a match's end and its stop, and between its next
    # lease and the match's start, some milliseconds (unstopped, the spinning thread gets a
    # core all along: burnt ~ gap). The 6 matches take 0.2-0.4 s on a fast quiet machine.
    gap, burnt = max((t1 - t0, b1 - b0) for (b0, t0), (b1, t1) in pairwise(seen))
    assert gap > 0.15 and burnt < 0.15 * gap + 0.01, (gap, burnt, seen)
    burns = [b for b, _ in seen]
    counted = sum(r.cpu_s[r.players.index("burner")] for r in results if "burner" in r.players)
    assert counted >= burns[-1]               # everything it used is in the standings


def test_the_guess_finds_unkeyed_deals() -> None:
    """The attack of deal_guess.py works where deals derive from the seed alone."""
    from arena.rules import config_from_options
    from arena.rules.deal import seeded_deal
    from arena.tournament.schedule import make_schedule
    from tests.sandbox.bots.deal_guess import guess
    cfg = config_from_options("sergeant-major", {})
    m = make_schedule(["b", "c", "a"], 1, 17)[3]
    hand = seeded_deal(cfg, m.seed, 1).hands[1]
    found = guess(cfg, m.match_id, m.seats, 1, hand, 40)
    assert found is not None and found[0] == 17 and set(found[1].hands[1]) == set(hand)


def test_hidden_cards_cannot_be_computed_from_the_seed(who, base) -> None:
    home = _home(base)
    guesser = _bot_dir(base, "guesser", "deal_guess.py")
    config = _with_randoms("[tournament]\nseed = 5\ndeals_per_table = 1\n[rules]\nhand_cap = 1\n"
                           "[time]\nper_decision_ms = 20000\n", "guesser", "deal_guess.py",
                           guesser, 2, {"GUESS_SEEDS": "200"})
    out = base / "out"
    done = run_arena(who, home, config, out)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "logs" / "guesser.log").read_text(errors="replace")
    assert log.count("BLOCKED deal_guess: no tournament seed gives my cards") == 6, log[-2000:]
    assert "ATTACK SUCCEEDED" not in log


def test_static_attacks_succeed_without_the_sandbox(base) -> None:
    """The same bot with ``mode = "none"``: what the sandbox prevents (docs/security.md)."""
    import socket
    home = _home(base)
    attacker = _bot_dir(base, "attacker", "static_attacks.py")
    victim = _bot_dir(base, "victim")
    (victim / "secret.txt").write_text(SECRET + "\n")
    out = base / "out"
    with socket.create_server(("127.0.0.1", 0)) as listener:
        env = {"TARGET_FILE": str(victim / "secret.txt"), "OUT_DIR": str(out),
               "ARENA_TCP_PORT": str(listener.getsockname()[1]), "SECRET": SECRET,
               "OPERATOR_FILES": json.dumps([str(home / ".ssh" / "id_rsa")]),
               "SKIP_ATTACKS": "write_arena_code"}     # it would succeed, for real
        config = _with_randoms("[tournament]\nseed = 5\ndeals_per_table = 1\n[rules]\n"
                               'hand_cap = 1\n[sandbox]\nmode = "none"\n', "attacker",
                               "static_attacks.py", attacker, 2, env)
        done = run_arena("root" if os.geteuid() == 0 else "user", home, config, out)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "logs" / "attacker.log").read_text(errors="replace")
    won = set(re.findall(r"^ATTACK SUCCEEDED: (\w+): ", log, re.M))
    expected = {"read_other", "write_out", "tcp_connect", "list_proc", "env_tokens",
                "read_operator", "hidden_memory", "kernel_surface"}
    if os.geteuid() == 0:
        expected |= {"capabilities", "root_uid"}
    assert expected <= won, log[-3000:]
    assert (out / "pwned.txt").read_text() == "pwned\n"
