"""The live page over a real finished tournament (real bot processes over gRPC), without a
browser: what is served and what never is (tokens, bot environments, files by client path),
escaping of hostile bot names, the standings being the terminal's, the CLI's errors."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

NO_WEB = "the web extra is not installed (python3 -m pip install -e '.[web]')"
pytest.importorskip("starlette", reason=NO_WEB)
pytest.importorskip("uvicorn", reason=NO_WEB)

from arena.tournament.config import parse_config  # noqa: E402 (after the importorskip)
from arena.tournament.runner import run_tournament  # noqa: E402 (after the importorskip)
from arena.tournament.standings import HEADERS  # noqa: E402 (after the importorskip)
from arena.commands._values import parse_web_address  # noqa: E402 (after the importorskip)
from arena.web.app import WebServer, create_app, keep_fresh  # noqa: E402 (after the importorskip)
from arena.web.eta import Eta  # noqa: E402 (after the importorskip)
from arena.web.state import LiveState  # noqa: E402 (after the importorskip)
from arena.events import EventBus  # noqa: E402 (after the importorskip)
from tests.tournament.helpers import new_tag, wait_no_processes  # noqa: E402 (after the importorskip)

from .helpers import HOSTILE, web_config  # noqa: E402 (after the importorskip)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished 6-match tournament directory and its bots' environment tag."""
    tag = new_tag()
    out = tmp_path_factory.mktemp("web") / "t"
    cfg = parse_config(web_config(tag, sleep_ms=0), "web.toml")
    asyncio.run(run_tournament(cfg, out, progress=False))
    assert wait_no_processes(tag) == []
    return out, tag


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def _serve_and_fetch(out: Path, paths: list[str]) -> dict[str, tuple[int, str]]:
    async def main():
        state = LiveState(out)
        await asyncio.to_thread(state.refresh)
        bus = EventBus()
        server = WebServer(create_app(state, bus, live=False), "127.0.0.1", 0)
        await server.start()
        fresh = asyncio.create_task(keep_fresh(state, bus))
        try:
            return {p: await asyncio.to_thread(_get, server.url + p) for p in paths}
        finally:
            fresh.cancel()
            await server.stop()
    return asyncio.run(main())


def test_pages_show_the_terminal_standings_and_hostile_names_as_text(finished):
    out, _ = finished
    got = _serve_and_fetch(out, ["", "snapshot.json"])
    status, page = got[""]
    assert status == 200
    for h in HEADERS:
        assert f"<th>{h}</th>" in page.replace("&#39;", "'")
    assert "6</span> of 6 matches finished" in page
    assert "The tournament is complete." in page
    for name in HOSTILE:
        assert name not in page                       # never as markup
        assert name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in page
    assert "<script>alert" not in page and "<img src=x" not in page
    snap = json.loads(got["snapshot.json"][1])
    assert snap["done"] == 6 and snap["scheduled"] == 6
    assert all("<img src=x" not in v and "<script>alert" not in v
               for v in snap["fragments"].values())
    assert "<svg" in snap["fragments"]["ratings"] and "<svg" in snap["fragments"]["h2h"]
    # the log tails keep their lines (one per line of the log, escaped within)
    log = LiveState(out).log_tail("slow").splitlines()
    from markupsafe import escape
    assert len(log) >= 2 and "\n".join(map(escape, log[-2:])) in snap["fragments"]["faults"]
    assert "\\u000a" not in snap["fragments"]["faults"]


def test_no_token_environment_or_outside_file_is_served(finished):
    out, tag = finished
    (out / "secret.txt").write_text("TOP-SECRET")
    rows = json.loads((out / "standings.json").read_text())["standings"]
    assert len(rows) == 3
    from arena.tournament.store import open_existing
    with open_existing(out) as store:
        match_ids = [r.match_id for r in store.results()]
    good = [f"replay/{m}" for m in match_ids]
    bad = ["replay/..%2Fsecret.txt", "replay/..%2F..%2Fetc%2Fpasswd", "replay/nope",
           "secret.txt", "results.sqlite", "logs/slow.log", "records/", "../secret.txt",
           "replay/%2Fetc%2Fpasswd", "static/..%2F..%2Fsecret.txt"]
    got = _serve_and_fetch(out, ["", "snapshot.json", *good, *bad])
    for path in bad:
        assert got[path][0] == 404, path
    for path in good:
        assert got[path][0] == 200 and "358 Arena replay" in got[path][1], path
    tokens = _tokens_in_logs(out)
    for path, (_, body) in got.items():
        assert tag not in body, path                   # the bots' environment
        assert "TOP-SECRET" not in body, path
        for token in tokens:
            assert token not in body, path


def _tokens_in_logs(out: Path) -> list[str]:
    """Redacted token prefixes as the logs show them are fine; the arena never writes the
    full token anywhere in the directory, so check the store and logs contain no 32+ hex run
    that the pages show either (a leaked token would be such a run)."""
    import re
    found = set()
    for f in (out / "logs").iterdir():
        found.update(re.findall(r"[0-9a-f]{32,}", f.read_text(errors="replace")))
    return sorted(found)


def test_web_address_parsing_and_cli_errors(tmp_path):
    assert parse_web_address("8358") == ("127.0.0.1", 8358)
    assert parse_web_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_web_address("[::1]:9000") == ("::1", 9000)
    with pytest.raises(ValueError, match=r"\[HOST:\]PORT"):
        parse_web_address("localhost:http")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    p = subprocess.run([sys.executable, "-m", "arena.cli", "serve", str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "missing results.sqlite" in p.stderr
    cfg = tmp_path / "c.toml"
    cfg.write_text(web_config("x"))
    p = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(cfg), "--web", "x:y"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and "[HOST:]PORT" in p.stderr and p.stderr.count("\n") == 1


def test_snapshot_figures_match_the_store(finished):
    """The rating history ends at the fit over all results; head-to-head and faults are the
    store's counts; the ETA is 0 once everything is played."""
    from arena.ratings import MatchResult as RatedMatch
    from arena.ratings import rate
    from arena.tournament.store import open_existing
    out, _ = finished
    snap = LiveState(out).refresh()
    with open_existing(out) as store:
        results = store.results()
    report = rate([RatedMatch(r.players, tuple(r.places), r.block, tuple(r.forfeits))
                   for r in results], bootstrap=0)
    k, last = snap.history[-1]
    assert k == 6 and last == {b.name: b.rating for b in report.bots}
    # 6 scheduled: a checkpoint per match; one match alone cannot be rated
    assert [p[0] for p in snap.history] == [2, 3, 4, 5, 6]
    a, b = HOSTILE
    m, above, below, equal = snap.head_to_head[(a, b)]
    assert m == 6 and above + below + equal == 6
    assert snap.head_to_head[(b, a)] == (6, below, above, equal)
    assert above == sum(1 for r in results
                        if r.places[r.players.index(a)] < r.places[r.players.index(b)])
    assert snap.eta == Eta(0.0, 0.0) and (snap.done, snap.scheduled) == (6, 6)
    assert {f[0] for f in snap.faults.values()} == {0}


def test_serve_follows_an_arena_running_in_another_process(tmp_path):
    """``arena serve`` polls the store (read-only) of a directory another arena is writing:
    the counts it serves grow to the end, and the running arena is not disturbed."""
    import re
    import time

    tag = new_tag()
    cfg = tmp_path / "web.toml"
    cfg.write_text(web_config(tag, sleep_ms=100))   # slow enough to watch under load
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    run = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(cfg), "--out",
                            str(out), "--quiet"], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    serve = None
    try:
        deadline = time.monotonic() + 120
        while not (out / "results.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        serve = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(out),
                                  "--port", "0"], env=env, text=True, stderr=subprocess.PIPE)
        from .helpers import read_url
        url = read_url(serve)
        seen = []
        while time.monotonic() < deadline:
            done = json.loads(_get(url + "snapshot.json")[1])["done"]
            if not seen or seen[-1] != done:
                seen.append(done)
            if done == 6:
                break
            time.sleep(0.3)
        assert run.wait(timeout=120) == 0, run.stderr.read()
        assert seen[-1] == 6 and len(seen) >= 2, seen      # it moved while we watched
        assert seen == sorted(seen)
        status, page = _get(url)
        assert status == 200 and "read-only view" in page
        assert re.search(r"6</span> of 6 matches finished", page)
    finally:
        for p in (run, serve):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=30)
    assert serve.returncode in (0, -15)
    assert wait_no_processes(tag) == []


def _children(pid: int) -> list[int]:
    from tests.tournament.helpers import parent_pids
    return [child for child, parent in parent_pids().items() if parent == pid]


def _alive(pid: int) -> bool:
    try:
        return ") Z " not in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False


def test_sigkill_of_an_arena_with_the_page_leaves_nothing_running(tmp_path):
    """The snapshot worker (and every bot) ends when ``arena run --web`` is SIGKILLed."""
    import signal
    import time

    from .helpers import read_url
    tag = new_tag()
    cfg = tmp_path / "web.toml"
    cfg.write_text(web_config(tag, sleep_ms=60, deals=3))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    run = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(cfg), "--out",
                            str(tmp_path / "out"), "--web", "0", "--quiet"], env=env,
                           text=True, stderr=subprocess.PIPE)
    url = read_url(run)
    deadline = time.monotonic() + 60
    while json.loads(_get(url + "snapshot.json")[1])["done"] < 1:
        assert time.monotonic() < deadline
        time.sleep(0.3)
    children = _children(run.pid)
    assert len(children) >= 4          # the worker (and its tracker) beside 3 bots
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    deadline = time.monotonic() + 15
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [c for c in children if _alive(c)] == []
    assert wait_no_processes(tag) == []
    # the killed arena's journal (its match in flight) is not shown as in flight by a reader
    from arena.inflight import JournalReader
    assert list((tmp_path / "out" / "live").glob("*.jsonl")) != []
    assert JournalReader(tmp_path / "out").poll() == []


def test_non_loopback_bind_warns_and_a_resync_is_a_fresh_snapshot(finished):
    from arena.events import RESYNC, StandingsChanged
    from functools import partial

    from arena.web.app import event_message, snapshot_json_sse

    from .helpers import read_url
    out, _ = finished
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    serve = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(out), "--host",
                              "0.0.0.0", "--port", "0"], env=env, text=True,
                             stderr=subprocess.PIPE)
    try:
        read_url(serve)
        warning = serve.stderr.readline()
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    assert warning.startswith("arena: WARNING: the page is reachable from other machines")
    state = LiveState(out)
    state.refresh()
    for item in (RESYNC, StandingsChanged(6, 6)):
        text = event_message(item, partial(snapshot_json_sse, state, False))
        assert text.startswith("event: snapshot\ndata: ")
        assert json.loads(text.split("data: ", 1)[1])["done"] == 6


def test_standings_show_the_terminal_status_of_bots_that_never_took_part(finished, tmp_path):
    """A bot that never started and a remote bot that did not connect: the web standings
    carry the same cells (status in the rating column, kept out of the ratings) and the same
    legend, status line included, as the terminal's table."""
    import html
    import re
    import shutil

    from arena.ratings.columns import COLUMNS
    from arena.processes.proctable import ProcessTable
    from arena.tournament.standings import compute_standings, format_standings, table_rows
    from arena.tournament.store import Store
    out = tmp_path / "t"
    shutil.copytree(finished[0], out)
    with Store(out / "results.sqlite") as store:
        procs = ProcessTable(store.db)
        store.db.execute("DELETE FROM bot_starts")     # as if these two never registered
        procs.start_result("slow", False, "bot 'slow' exited with status 1 before registering")
        procs.start_result(HOSTILE[0], False,
                           f"remote bot {HOSTILE[0]!r} did not connect within 30 s")
        results = store.results()
    absent = {"slow": "never started", HOSTILE[0]: "did not connect"}
    terminal = compute_standings(results, [*HOSTILE, "slow"], absent=absent)
    status, page = _serve_and_fetch(out, [""])[""]
    assert status == 200
    table = page.split('<table class="standings">', 1)[1].split("</ul>", 1)[0]
    cells = [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
             for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)]
    assert cells == [[str(c) for c in row] for row in table_rows(terminal)]
    by_bot = {row[1]: row for row in cells}
    assert by_bot["slow"][2] == "never started"
    assert by_bot[HOSTILE[0]][2] == "did not connect"
    legend = [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", table, re.S)]
    flat = " ".join(format_standings(terminal, "text", wide=True, legend=True).split())
    assert legend and all(" ".join(line.split()) in flat for line in legend)   # wrapped there
    assert f"status: {COLUMNS['status'].meaning}" in legend


def test_each_event_is_encoded_once_and_a_stream_far_behind_gets_a_snapshot():
    from arena.events import DecisionApplied, DecisionsApplied, StandingsChanged
    from arena.web.app import _Hub

    def one(i: int, action: str) -> DecisionsApplied:
        return DecisionsApplied("m1", (DecisionApplied("m1", i, 1, i % 3, "play", action),))

    async def main() -> None:
        bus = EventBus()
        renders: list[int] = []
        hub = _Hub(bus, lambda: f"SNAPSHOT {renders.append(1) or len(renders)}", size=4)
        hub.start()
        hub.streams = 1
        cursor = hub.seq
        for i in range(3):
            bus.publish(one(i, f"{i + 7}H"))
        assert await hub.wait(cursor, 5)
        await asyncio.sleep(0.3)
        items, cursor = hub.since(cursor)
        assert [json.loads(t.split("data: ", 1)[1]) for t in items] == [
            {"id": "m1", "moves": [[i, 1, i, "play", f"{i + 7}H", None]], "table": None}
            for i in range(3)]
        assert all(t.startswith("event: decisions\n") for t in items)
        assert not await hub.wait(cursor, 0.1)              # nothing new: a keep-alive
        for i in range(10):                                   # more than the ring holds
            bus.publish(one(3 + i, "AS"))
        await asyncio.sleep(0.3)
        assert hub.since(cursor) == (["SNAPSHOT 1"], hub.seq)   # a fresh snapshot
        bus.publish(StandingsChanged(1, 6))
        await asyncio.sleep(0.3)
        before = hub.seq - 1
        for _ in range(3):     # new standings: rendered once, whatever the streams reading
            assert hub.since(before) == (["SNAPSHOT 2"], hub.seq)
        assert len(renders) == 2
        bus.close()
        assert await hub.wait(hub.seq, 5) and hub.closed
    asyncio.run(main())


def test_the_snapshot_is_one_json_object_with_every_fragment(finished):
    """snapshot_json: the standings' parts rendered once per standings, the progress line
    and the matches in flight per call."""
    from arena.events import DecisionApplied, DecisionsApplied, MatchStarted
    from arena.web.page import fragments, snapshot_json
    out, _ = finished
    state = LiveState(out)
    state.refresh()
    data = json.loads(snapshot_json(state, live=True))
    assert set(data) == {"fragments", "inflight", "name", "done", "scheduled", "live", "at"}
    assert data["fragments"] == fragments(state.snapshot, 0)
    assert (data["done"], data["scheduled"], data["inflight"], data["live"]) == (6, 6, [], True)
    assert "<table" in data["fragments"]["standings"] and "<svg" in data["fragments"]["ratings"]
    state.on_event(MatchStarted("m9", ("a", "b", "c")))
    state.on_event(DecisionsApplied("m9", (DecisionApplied("m9", 0, 1, 2, "play", "AS"),)))
    data = json.loads(snapshot_json(state, live=True))
    assert data["fragments"]["progress"] == fragments(state.snapshot, 1)["progress"]
    started = data["inflight"][0].pop("started")
    assert abs(started - time.time()) < 60
    assert data["inflight"] == [{"id": "m9", "seats": ["a", "b", "c"], "decisions": 1,
                                 "hidden": False, "table": None,
                                 "moves": [{"i": 0, "hand": 1, "seat": 2, "kind": "play",
                                            "action": "AS", "fault": None}]}]


def test_a_port_in_use_is_one_line_naming_the_option(finished, tmp_path, capsys):
    """`arena serve --port P` and `arena run --web P` on a port already bound: one line that
    names the command's own option, exit 2."""
    import socket

    from arena.cli import main
    out, _ = finished
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", str(out), "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"arena: error: --host/--port: cannot listen on 127.0.0.1:{port}: ")
        assert err.count("\n") == 1
        cfg = tmp_path / "t.toml"
        cfg.write_text(web_config(new_tag()))
        assert main(["run", str(cfg), "--out", str(tmp_path / "o"), "--web", str(port),
                     "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"arena: error: --web: cannot listen on 127.0.0.1:{port}: " in err
