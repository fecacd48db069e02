"""Every tournament config option, end to end over real gRPC with real bot processes (an option
only tested in-process can crash the arena: ``bank_ms > 0`` once did).

Each case is a small tournament (3 bots, ``hand_cap = 1``, short times) whose config sets a
group of options; the probe bots (``probebot.py``) report what the arena told them, and the
case checks each option's effect in what they saw, the store and the records.
:func:`test_every_option_has_a_case` fails when a config field has no case.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.records import read_record, verify_record
from arena.tournament.config import (BotEntry, FaultSection, ServerSection, TimeSection,
                                     TournamentSection, parse_config)
from arena.sandbox.config import SandboxConfig
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import make_schedule
from arena.tournament.store import open_existing

from .helpers import PROBEBOT, RAWBOT, new_tag, wait_no_processes

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Run:
    """What a case's tournament left: the config, its directory, probe events, store rows."""

    cfg: object
    out: Path
    events: list[dict]
    rows: list
    tag: str

    def of(self, event: str, bot: str | None = None) -> list[dict]:
        pids = self.pids(bot) if bot else None
        return [e for e in self.events if e["event"] == event
                and (pids is None or e["pid"] in pids)]

    def pids(self, bot: str) -> set[int]:
        return {e["pid"] for e in self.events if e["event"] == "hello"
                and e["probe_value"] == bot}

    def records(self):
        return {r.match_id: read_record(self.out / r.record) for r in self.rows}


def probe(name: str, *args: str, value: str | None = None, cwd: str | None = None,
          command: list[str] | None = None) -> str:
    """A ``[[bots]]`` block for a probe bot; ``$PROBE_VALUE`` is the bot's name unless given."""
    cmd = command or ["{python}", str(PROBEBOT), *args]
    env = {"PROBE_VALUE": name if value is None else value}
    text = f"[[bots]]\nname = {json.dumps(name)}\ncommand = {json.dumps(cmd)}\n"
    text += "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }\n"
    return text + (f"cwd = {json.dumps(cwd)}\n" if cwd else "")


def add_env(text: str, tag: str, probe_file: Path) -> str:
    """Every bot's env also carries the leftover-process tag and the probe file; the bots run
    unsandboxed so they can write the probe file (the sandbox's own tests: tests/sandbox)."""
    extra = f"ARENA_TEST_TAG = {json.dumps(tag)}, ARENA_PROBE_FILE = {json.dumps(str(probe_file))}"
    return '[sandbox]\nmode = "none"\n' + text.replace("env = { ", "env = { " + extra + ", ")


@dataclass
class Case:
    id: str
    covers: set[str]                      #: config fields (section.field) this case exercises
    config: Callable[[Path], str]         #: TOML text, given the case's directory
    check: Callable[[Run], None]
    remote: tuple[str, str] | None = None   #: (token, port key) of a remote probe to start


# ----- tournament section --------------------------------------------------------------------
def tournament_config(d: Path) -> str:
    return ('[tournament]\nname = "probe league \u2713"\npreset = "six-contracts"\n'
            'seed = "text seed"\ndeals_per_table = 2\nconcurrency = 2\n'
            "[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 2000\n"
            + probe("p0") + probe("p1") + probe("p2"))


def tournament_check(run: Run) -> None:
    with open_existing(run.out) as store:
        assert store.meta("name") == "probe league \u2713"
        key = bytes.fromhex(store.meta("deal_key") or "")
    assert len(run.rows) == 12                                # 1 table x 2 deals x 6 seatings
    assert len({r.block for r in run.rows}) == 2
    seeds = {m.match_id: m.seed.hex()
             for m in make_schedule(["p0", "p1", "p2"], 2, "text seed", deal_key=key)}
    plain = {m.match_id: m.seed.hex() for m in make_schedule(["p0", "p1", "p2"], 2, "text seed")}
    assert len(key) == 32 and not set(seeds.values()) & set(plain.values())   # keyed deals
    for match_id, rec in run.records().items():
        assert rec.header.preset == "six-contracts"
        assert (rec.header.seed.type, rec.header.seed.value) == ("bytes", seeds[match_id])
    expected = {"preset": "six-contracts", **run.cfg.rules_config().options()}
    starts = run.of("start")
    assert len(starts) == 36 and all(e["rules"] == expected for e in starts)
    for bot in ("p0", "p1", "p2"):                            # one process per match slot
        assert len(run.pids(bot)) == 2


# ----- rules ---------------------------------------------------------------------------------
def rules_51_config(d: Path) -> str:
    return ('[tournament]\npreset = "six-three-eight"\n'
            '[rules]\nhand_cap = 1\ntargets = [7, 6, 4]\nno_trump = true\nfollow = "F2"\n'
            'direction = "counterclockwise"\nremoved_card = "2D"\nend_score = 5\n'
            + probe("p0") + probe("p1") + probe("p2"))


def rules_blato_config(d: Path) -> str:
    return ('[tournament]\npreset = "blato"\n'
            '[rules]\nhand_cap = 1\nmisere = true\ntie_break = "shared"\n'
            'exchange_optional = true\nmisere_limits = [2, 8, 6]\nkitty_shown = false\n'
            + probe("p0") + probe("p1") + probe("p2"))


def rules_check(run: Run) -> None:
    opts = run.cfg.rules_config().options()
    for key, value in run.cfg.rules.items():
        assert opts[key] == value                              # the override took effect
    starts = run.of("start")
    assert len(starts) == 18
    assert all(e["rules"] == {"preset": run.cfg.tournament.preset, **opts} for e in starts)
    for rec in run.records().values():
        assert rec.header.rules == opts
        verify_record(rec)


# ----- time ----------------------------------------------------------------------------------
def time_config(d: Path) -> str:
    # p0 takes 700 ms on its 2nd decision of each match: over per_decision_ms + grace_ms, so
    # only the bank (1000 ms) keeps it from being late
    return ("[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 300\ngrace_ms = 200\n"
            "bank_ms = 1000\n"
            + probe("p0", "--mode", "slow", "--sleep-ms", "700", "--on", "2")
            + probe("p1") + probe("p2"))


def time_check(run: Run) -> None:
    assert all(e["time_per_decision_ms"] == 300 for e in run.of("start"))
    decides = run.of("decide")
    assert decides and all(e["time_type"] == "int" for e in decides)
    assert all(r.faults == (0, 0, 0) for r in run.rows)        # the bank paid for 700 ms
    for match in {e["match"] for e in decides}:
        slow = sorted((e["n"], e["time_ms"]) for e in run.of("decide", "p0")
                      if e["match"] == match)
        assert slow[0] == (1, 1300) and slow[1] == (2, 1300)   # 300 ms + the whole bank
        assert 500 <= slow[2][1] <= 900                        # over 400 ms drawn from it
        others = [e["time_ms"] for e in decides if e["match"] == match
                  and e["pid"] not in run.pids("p0")]
        assert others and all(1200 <= t <= 1300 for t in others)
    for rec in run.records().values():
        assert (rec.header.time_ms, rec.header.grace_ms, rec.header.time_bank_ms) == \
            (300, 200, 1000)


# ----- faults --------------------------------------------------------------------------------
def faults_config(d: Path) -> str:
    # p0 answers cards it does not hold (illegal) until it forfeits at max_faults = 2; p1 takes
    # 500 ms once: late without grace_ms = 400 (per_decision_ms 300, no bank)
    return ('[tournament]\npreset = "nine-five-two"\n[rules]\nhand_cap = 1\n'
            "[time]\nper_decision_ms = 300\ngrace_ms = 400\n[faults]\nmax_faults = 2\n"
            + probe("p0", "--mode", "notheld")
            + probe("p1", "--mode", "slow", "--sleep-ms", "500", "--on", "1") + probe("p2"))


def faults_check(run: Run) -> None:
    ends = run.of("end")
    records = run.records()
    for r in run.rows:
        bad = r.players.index("p0")
        assert r.faults[bad] == 2 and r.forfeits[bad]
        assert r.forfeit_reasons[bad] == "2 faults (last: illegal)"
        assert r.places[bad] == 3 and r.status == "forfeit"
        assert sum(r.faults) == 2                                  # p1 was never late
        rec = records[r.match_id]
        told = [e for e in ends if e["match"] == r.match_id]
        assert len(told) == 3                                      # p0 is told too
        for e in told:
            assert e["placings"] == list(rec.result.placings) == list(r.places)
            assert e["scores"] == list(rec.result.scores)
            assert e["reason"] == f"forfeit by seat {bad}; {rec.result.end_reason}"


# ----- crashes and registration ----------------------------------------------------------------
def crashes_config(d: Path) -> str:
    never = ["{python}", str(RAWBOT), "--mode", "noregister"]
    return ("[rules]\nhand_cap = 1\n[faults]\nmax_crashes = 1\nregister_timeout_s = 4\n"
            + probe("p0") + probe("p1") + probe("never", command=never))


def crashes_check(run: Run) -> None:
    for r in run.rows:
        bad = r.players.index("never")
        assert r.forfeits[bad] and not any(r.forfeits[i] for i in range(3) if i != bad)
    reasons = [r.forfeit_reasons[r.players.index("never")] for r in run.rows]
    assert any("4 s" in x for x in reasons)                 # waited register_timeout_s
    log = (run.out / "logs" / "never.log").read_text()
    assert 1 <= log.count("=== ") <= 2                       # at most max_crashes + 1 starts
    assert any("disqualified" in x for x in reasons)


# ----- server and bot entries ----------------------------------------------------------------
PORTS: dict[str, int] = {}


def server_bots_config(d: Path) -> str:
    port = PORTS["server-bots"] = free_port()
    botdir = d / "bot dir"
    botdir.mkdir()
    (botdir / "mybot.py").write_text(
        f"import runpy\nrunpy.run_path({str(PROBEBOT)!r}, run_name='__main__')\n")
    return (f'[rules]\nhand_cap = 1\n[server]\nbind = "127.0.0.1:{port}"\n'
            + probe("env", value="x y \u00fc")
            + probe("incwd", cwd=str(botdir), command=["{python}", "mybot.py"])
            + '[[bots]]\nname = "visitor"\nremote = true\ntoken = "visitor-token-0123456789"\n')


def server_bots_check(run: Run) -> None:
    assert {e["probe_value"] for e in run.of("hello")} >= {"x y \u00fc", "incwd", "visitor"}
    (incwd,) = [e for e in run.of("hello") if e["probe_value"] == "incwd"]
    assert Path(incwd["cwd"]).name == "bot dir"
    assert len(run.of("start", "visitor")) == 6                # joined on the bound port
    assert all(not any(r.forfeits) and r.faults == (0, 0, 0) for r in run.rows)


# ----- schedule ------------------------------------------------------------------------------
def schedule_config(d: Path) -> str:
    return ('[tournament]\nseed = 7\nschedule = "balanced"\npair_meetings = 2\n'
            "[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 2000\n"
            + probe("p0") + probe("p1") + probe("p2"))


def schedule_check(run: Run) -> None:
    """Balanced with pair_meetings = 2: the one table of 3 bots twice, each with its own deal
    (all-tables would play it once)."""
    with open_existing(run.out) as store:
        key = bytes.fromhex(store.meta("deal_key") or "")
    expected = make_schedule(["p0", "p1", "p2"], 1, 7, schedule="balanced", pair_meetings=2,
                             deal_key=key)
    assert len(expected) == 12
    assert sorted(r.match_id for r in run.rows) == sorted(m.match_id for m in expected)
    assert len({r.block for r in run.rows}) == 2
    seeds = {m.match_id: m.seed.hex() for m in expected}
    assert len(set(seeds.values())) == 2                       # two deals, 6 seatings each
    for match_id, rec in run.records().items():
        assert rec.header.seed.value == seeds[match_id]
    pairs = {}
    for r in run.rows:
        for pair in itertools.combinations(sorted(r.players), 2):
            pairs[pair] = pairs.get(pair, 0) + 1
    assert pairs == {("p0", "p1"): 12, ("p0", "p2"): 12, ("p1", "p2"): 12}


CASES = [
    Case("schedule", {"tournament.schedule", "tournament.pair_meetings"}, schedule_config,
         schedule_check),
    Case("tournament", {"tournament.name", "tournament.preset", "tournament.seed",
                        "tournament.deals_per_table", "tournament.concurrency",
                        "bots.name", "bots.command", "bots.env"},
         tournament_config, tournament_check),
    Case("rules-51", {"rules"}, rules_51_config, rules_check),
    Case("rules-blato", {"rules"}, rules_blato_config, rules_check),
    Case("time", {"time.per_decision_ms", "time.grace_ms", "time.bank_ms"},
         time_config, time_check),
    Case("faults", {"faults.max_faults", "time.grace_ms"}, faults_config, faults_check),
    Case("crashes", {"faults.max_crashes", "faults.register_timeout_s"}, crashes_config,
         crashes_check),
    Case("server-bots", {"server.bind", "bots.cwd", "bots.remote", "bots.token", "bots.env"},
         server_bots_config, server_bots_check,
         remote=("visitor-token-0123456789", "server-bots")),
]


#: options whose end-to-end test (real bot processes over gRPC) lives with their feature:
#: option -> (test module under tests/, test function)
_TLS = ("protocol/test_tls.py", "test_tournament_over_tls_hands_started_bots_the_ca")
ELSEWHERE: dict[str, tuple[str, str]] = {
    "server.tls_cert": _TLS,
    "server.tls_key": _TLS,
    "server.tls_ca": _TLS,
    "server.client_ca": ("protocol/test_tls.py",
                         "test_mutual_tls_requires_a_client_certificate_from_the_client_ca"),
    "tournament.mode": ("tournament/test_gauntlet.py",
                        "test_arena_run_with_mode_gauntlet_runs_the_gauntlet"),
    # the lobby: arena run --wait-remote sets it; a remote bot connecting late
    "tournament.start_after": ("tournament/test_lobby.py",
                               "test_a_no_show_is_left_for_later_and_plays_when_it_connects_late"),
    # schedule = "adaptive": its target, in a real run killed and resumed
    "tournament.target": ("tournament/test_adaptive.py",
                          "test_arena_run_adaptive_plays_whole_blocks_up_to_the_budget_and_resumes"),
    # [sandbox] and a bot's own sandbox overrides: real bwrap tournaments
    "sandbox.mode": ("sandbox/test_malicious_bots.py", "test_attack_fails_in_the_sandbox"),
    "sandbox.memory_mib": ("sandbox/test_malicious_bots.py",
                           "test_resource_bomb_is_stopped_by_name"),
    "sandbox.processes": ("sandbox/test_malicious_bots.py",
                          "test_resource_bomb_is_stopped_by_name"),
    "sandbox.cpu_s_per_match": ("sandbox/test_malicious_bots.py",
                                "test_resource_bomb_is_stopped_by_name"),
    "bots.sandbox": ("sandbox/test_malicious_bots.py",
                     "test_per_bot_mode_overrides_the_tournament"),
    # the scratch's size: /dev/shm refuses the hog at it, in a real tournament
    "sandbox.scratch_mib": ("sandbox/test_attacks.py",
                            "test_resource_attacks_are_stopped_by_name"),
    # only checked where the sandbox is built or classifies an exit (no tournament test yet)
    "sandbox.ro_paths": ("sandbox/test_sandbox_unit.py", "test_bwrap_argv_isolates"),
    "sandbox.open_files": ("sandbox/test_sandbox_unit.py", "test_classify_exit"),
    "sandbox.file_size_mib": ("sandbox/test_sandbox_unit.py", "test_classify_exit"),
}


def test_every_option_has_a_case():
    fields = {f"{section}.{name}" for section, model in (
        ("tournament", TournamentSection), ("time", TimeSection), ("faults", FaultSection),
        ("server", ServerSection), ("sandbox", SandboxConfig), ("bots", BotEntry))
        for name in model.model_fields}
    covered = set().union(*(c.covers for c in CASES))
    tests_dir = Path(__file__).resolve().parent.parent
    for option, (module, test) in ELSEWHERE.items():   # the named test exists
        assert f"def {test}(" in (tests_dir / module).read_text(), (option, module, test)
    assert fields | {"rules"} == covered | set(ELSEWHERE)


def start_remote(token: str, port: int, tag: str, probe_file: Path) -> subprocess.Popen:
    env = {**__import__("os").environ, "ARENA_TEST_TAG": tag,
           "ARENA_PROBE_FILE": str(probe_file), "PROBE_VALUE": "visitor"}
    return subprocess.Popen([sys.executable, str(PROBEBOT), "--arena", f"127.0.0.1:{port}",
                             "--token", token, "--connect-timeout", "30"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_option_end_to_end(case: Case, tmp_path: Path) -> None:
    tag = new_tag()
    probe_file = tmp_path / "probe.jsonl"
    text = add_env(case.config(tmp_path), tag, probe_file)
    cfg = parse_config(text, f"{case.id}.toml")
    remote = None
    if case.remote:
        remote = start_remote(case.remote[0], PORTS[case.remote[1]], tag, probe_file)
    try:
        asyncio.run(run_tournament(cfg, tmp_path / "out", progress=False))
        if remote is not None:
            assert remote.wait(20) == 0                 # told goodbye at the end
    finally:
        if remote is not None and remote.poll() is None:
            remote.kill()
    events = [json.loads(line) for line in probe_file.read_text().splitlines()]
    with open_existing(tmp_path / "out") as store:
        rows = store.results()
        assert store.pending() == []
    case.check(Run(cfg, tmp_path / "out", events, rows, tag))
    assert wait_no_processes(tag) == []
