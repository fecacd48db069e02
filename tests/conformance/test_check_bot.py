"""``arena check-bot`` end to end: the sample bots and the JS bot pass; deliberately broken bots
fail on the right line (and only from there); remote mode; usage errors."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.conformance.positions import find_positions
from arena.rules.config import PRESETS

from ..protocol.helpers import JS_BOT, js_bot_installed

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
BROKEN = Path(__file__).with_name("brokenbot.py")


def _check(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check-bot", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _lines(report: dict) -> list[tuple[str, str, str]]:
    return [(c["name"], c["status"], c["reason"]) for c in report["checks"]]


def test_random_bot_passes_every_preset(capsys) -> None:
    code, report = _check(capsys, "{python} -m sample_bots.random_bot")
    assert code == 0 and report["passed"] and report["exit_status"] == 0
    names = [n for n, _, _ in _lines(report)]
    # every decision kind of every preset, then the protocol checks, in order
    for preset in PRESETS:
        for pos in find_positions(preset)[0]:
            assert pos.check in names
    for name in ("six-contracts: exchange-return", "six-contracts: play (misère)",
                 "sergeant-major: exchange-demand after a void declaration",
                 "blato: play (F3, following in a trump contract)",
                 "six-contracts: play (F2, following in a trump contract)",
                 "six-contracts: contract (no-trump, misere offered)"):
        assert name in names
    assert names[0] == "register" and names[-1] == "Goodbye (exit status 0)"
    assert {s for _, s, _ in _lines(report)} == {"PASS"}
    lat = report["latency_ms"]
    assert lat["count"] > 250 and 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"]
    assert report["registered"]["client"].startswith("arena-sdk-python/")


@pytest.mark.slow
@pytest.mark.parametrize("cmd,extra", [
    ("{python} -m sample_bots.greedy_bot", ("--preset", "blato", "--preset", "six-contracts")),
    ("{python} -m sample_bots.montecarlo_bot",
     ("--preset", "blato", "--time-ms", "300", "--grace-ms", "1000")),
])
def test_other_sample_bots_pass(capsys, cmd, extra) -> None:
    code, report = _check(capsys, cmd, *extra)
    assert code == 0, [line for line in _lines(report) if line[1] != "PASS"]


@pytest.mark.skipif(not js_bot_installed(), reason="Node.js bot not installed: needs `node` "
                    "and `npm ci --prefix sample_bots/js_bot`")
def test_js_bot_passes(capsys) -> None:
    code, report = _check(capsys, f"node {JS_BOT / 'bot.js'}")
    assert code == 0, [line for line in _lines(report) if line[1] != "PASS"]
    assert report["registered"]["client"].startswith("js-bot")


@pytest.mark.parametrize("mode,first_fail,reason", [
    ("illegal", "six-contracts: contract (no-trump, misere offered)", "illegal action '2S'"),
    ("unknown-crash", "unknown ArenaMessage kind (ignored)", "after an unknown ArenaMessage kind"),
    ("wrong-ids", "interleaved matches (3 at once)", "answered request id"),
    ("reject-crash", "Rejection (then keeps answering)", "the stream ended"),
    ("no-exit", "Goodbye (exit status 0)", "still running 5 s after Goodbye"),
])
def test_broken_bots_fail_on_the_right_line(capsys, mode, first_fail, reason) -> None:
    code, report = _check(capsys, f"{{python}} {BROKEN} --mode {mode}",
                          "--preset", "six-contracts")
    assert code == 1 and not report["passed"]
    lines = _lines(report)
    first = next(i for i, (_, status, _) in enumerate(lines) if status == "FAIL")
    assert lines[first][0] == first_fail and reason in lines[first][2], lines[first]
    assert all(status == "PASS" for _, status, _ in lines[:first])
    if mode in ("unknown-crash", "reject-crash"):
        # the lines after the one that ended the stream did not run: not failures of theirs
        assert all(s == "NOT RUN" and r.startswith("the stream ended at ")
                   for _, s, r in lines[first + 1:]), lines
        assert [s for _, s, _ in lines].count("FAIL") == 1
        assert report["exit_status"] == 1
    if mode == "no-exit":
        assert first == len(lines) - 1 and report["exit_status"] is None


def test_text_table_and_exit_status(capsys) -> None:
    code = main(["check-bot", f"{{python}} {BROKEN} --mode good", "--preset", "blato"])
    out = capsys.readouterr().out
    assert code == 0
    assert "PASS      blato: exchange-give" in out and "FAIL" not in out.split("\n\n")[0]
    assert "0 failed, 0 skipped; latency over" in out and "p99" in out
    assert out.rstrip().endswith("PASS: the bot conforms to protocol 1")


def test_a_bot_that_cannot_start_or_register_fails_the_register_line(capsys) -> None:
    code, report = _check(capsys, "{python} -c \"import sys; print('no luck'); sys.exit(4)\"",
                          "--preset", "blato")
    assert code == 1
    assert _lines(report) == [("register", "FAIL",
                               "the bot ended (exit status 4) before registering (no luck)")]


PROBE = Path(__file__).with_name("sandboxprobe.py")


def test_a_pass_means_it_runs_as_in_a_tournament(capsys) -> None:
    """The default runs the bot as a tournament does: in the bubblewrap sandbox, on the
    arena's Unix socket, the token only in ARENA_TOKEN (the probe bot checks all three from
    inside and plays only then); --sandbox none runs it as a plain process."""
    code, report = _check(capsys, f"{{python}} {PROBE}", "--preset", "blato")
    assert code == 0 and report["passed"], _lines(report)
    assert report["exit_status"] == 0 and report["registered"]["name"] == "random"
    code, report = _check(capsys, f"{{python}} {PROBE}", "--preset", "blato",
                          "--sandbox", "none")
    assert code == 1
    (name, status, reason), = _lines(report)
    assert (name, status) == ("register", "FAIL")
    assert reason.startswith("the bot ended (exit status 5) before registering (sandboxprobe: "
                             "not sandboxed: pid 1 is ")


def test_a_sandbox_limit_stops_the_bot_as_in_a_tournament(capsys) -> None:
    """--limit is the [sandbox] field: a bot over its memory limit fails the check."""
    hog = "{python} -c \"x = bytearray(300 * 2**20); import time; time.sleep(60)\""
    code, report = _check(capsys, hog, "--preset", "blato", "--limit", "memory_mib=128",
                          "--register-timeout", "20")
    assert code == 1
    (name, status, reason), = _lines(report)
    assert (name, status) == ("register", "FAIL") and "before registering" in reason, reason


def test_remote_bot(tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    checker = subprocess.Popen(
        [sys.executable, "-m", "arena", "check-bot", "--remote", "--bind", f"127.0.0.1:{port}",
         "--token", "t0k", "--preset", "blato", "--json"], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random_bot", "--arena", f"127.0.0.1:{port}",
         "--token", "t0k", "--connect-timeout", "30"], cwd=REPO, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out, err = checker.communicate(timeout=120)
        assert bot.wait(30) == 0
    finally:
        for proc in (checker, bot):
            if proc.poll() is None:
                proc.kill()
    assert f"start it with ARENA_TOKEN=t0k in its environment and --arena 127.0.0.1:{port}" \
        in err
    report = json.loads(out)
    assert checker.returncode == 0 and report["passed"]
    assert _lines(report)[-1] == ("Goodbye (exit status 0)", "SKIP",
                                  "a remote bot's exit status is not seen")


@pytest.mark.parametrize("args,message", [
    ([], "give either BOT_CMD or --remote"),
    (["x", "--remote"], "give either BOT_CMD or --remote"),
    (["x", "--preset", "nope"], "unknown preset 'nope'"),
    (["x", "--time-ms", "0"], "--time-ms must be"),
    (["/no/such/bot"], "the bot cannot start: /no/such/bot does not exist"),
    (["x", "--limit", "memory_mib=0"], "--limit memory_mib: "),
    (["x", "--limit", "memry_mib=9"], "--limit memry_mib: unknown field (did you mean "
                                      "'memory_mib'?)"),
])
def test_usage_errors_are_one_line(capsys, args, message) -> None:
    assert main(["check-bot", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_crash_during_the_unknown_kind_sends_is_named_as_such() -> None:
    """The bot may exit on the first unknown message before the arena's next write: that write
    failing is the same fault (the CI race of stop 18), named on the same line."""
    import asyncio

    from arena.conformance import suite
    from arena.conformance.positions import single_legal_action

    class _Stream:  # a BotStream whose third write (the empty ArenaMessage) hits a closed stream
        writes = 0

        async def send(self, msg) -> float:
            self.writes += 1
            if self.writes >= 3:
                raise ConnectionError("the stream ended (the bot closed it or exited)")
            return 0.0

    check = suite._unknown_kind_check(single_legal_action())
    drv = suite._Driver(_Stream(), 100, 100)  # type: ignore[arg-type]
    with pytest.raises(suite.StreamEnded, match=r"^after an unknown ArenaMessage kind: the stream"):
        asyncio.run(check(drv, suite.CheckResult("x", "PASS")))
