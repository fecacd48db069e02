"""Cost of the live page (issue 17, Performance). Prints figures; run from the repository root:

    PYTHONPATH=. python3 bench/web.py [--deals 4] [--rounds 3] [--cycles 10000]

1. Throughput: the same tournament (three trivial protocol bots,
   ``arena.bench.trivial_bot``, full-length sergeant-major matches, concurrency 2) without the
   page and with it (``EventBus`` + live state + uvicorn in the arena's process and the
   snapshot worker process, as ``arena run --web`` does; the worker's start is not timed) and
   3 browsers' event streams connected (reader processes);
   rounds alternate, medians of decisions/s are compared (target: under 5% slower).
2. Memory: ``arena serve`` on the finished directory, then ``--cycles`` connect / read the
   first snapshot / disconnect cycles of its event stream on 127.0.0.1; the server's RSS after
   the first 1,000 cycles and at the end (target: flat).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.events import EventBus
from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing
from arena.web.app import WebServer, create_app, keep_fresh
from arena.web.state import LiveState, SnapshotWorker

#: an event-stream reader (a browser stand-in that reads and drops the bytes)
READER = ("import sys, urllib.request\n"
          "with urllib.request.urlopen(sys.argv[1]) as r:\n"
          "    while r.read1(65536): pass\n")


def config(deals: int) -> str:
    bots = "".join(f'[[bots]]\nname = "trivial-{i}"\n'
                   'command = ["{python}", "-m", "arena.bench.trivial_bot"]\n' for i in range(3))
    return (f"[tournament]\nseed = 3\ndeals_per_table = {deals}\nconcurrency = 2\n"
            "[time]\nper_decision_ms = 2000\n" + bots)


def decisions(out: Path) -> int:
    with open_existing(out) as store:
        return sum(sum(r.decisions) for r in store.results())


async def one_round(deals: int, web: bool) -> float:
    """Decisions per second of one tournament, with or without the page and 3 streams."""
    cfg = parse_config(config(deals), "bench")
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        out = Path(tmp) / "t"
        readers: list[subprocess.Popen] = []
        server = fresh = None
        bus = None
        if web:
            bus = EventBus()
            state = LiveState(out)
            bus.listen(state.on_event)
            server = WebServer(create_app(state, bus, live=True), "127.0.0.1", 0)
            await server.start()
            worker = SnapshotWorker()          # as arena run --web does
            await asyncio.wrap_future(worker.pool.submit(int))   # started and warm
            fresh = asyncio.create_task(keep_fresh(state, bus, worker=worker))
            readers = [subprocess.Popen([sys.executable, "-c", READER, server.url + "events"])
                       for _ in range(3)]
            while bus.subscribers < 3:
                await asyncio.sleep(0.05)
        t0 = time.perf_counter()
        await run_tournament(cfg, out, progress=False,
                             events=bus.publish if bus is not None else None)
        seconds = time.perf_counter() - t0
        if web:
            fresh.cancel()
            worker.close()
            bus.close()
            await asyncio.sleep(0.1)
            await server.stop()
            for r in readers:
                r.wait(timeout=30)
        return decisions(out) / seconds, out.exists() and decisions(out)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmRSS")


def cycles(directory: Path, n: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(directory),
                             "--port", "0"], env=env, text=True, stderr=subprocess.PIPE)
    try:
        m = None
        while m is None:
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError("arena serve did not start")
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        port = int(m.group(1))
        start, warm, t0 = rss_mb(proc.pid), 0.0, time.perf_counter()
        for i in range(1, n + 1):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/events")
            resp = conn.getresponse()
            while not resp.fp.readline().startswith(b"data: "):
                pass
            conn.close()
            if i == min(1000, n):
                time.sleep(0.5)
                warm = rss_mb(proc.pid)
        time.sleep(1.0)
        end = rss_mb(proc.pid)
        seconds = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return [f"event-stream cycles     : {n:,} connect / first snapshot / disconnect in "
            f"{seconds:.0f} s ({n / seconds:.0f}/s) against arena serve on 127.0.0.1",
            f"server RSS              : {start:.1f} MB at start, {warm:.1f} MB after "
            f"{min(1000, n):,} cycles, {end:.1f} MB after {n:,} ({end - warm:+.1f} MB)"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4, help="deals per table (6 matches each)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of each kind")
    ap.add_argument("--cycles", type=int, default=10_000, help="event-stream cycles")
    args = ap.parse_args()
    plain, web = [], []
    for _ in range(args.rounds):
        plain.append(asyncio.run(one_round(args.deals, False))[0])
        web.append(asyncio.run(one_round(args.deals, True))[0])
    p, w = statistics.median(plain), statistics.median(web)
    print(f"tournament              : {args.deals * 6} full-length matches, 3 trivial bots, "
          f"concurrency 2; {args.rounds} rounds each, alternating")
    print(f"without the page        : {p:,.0f} decisions/s (median; "
          f"{', '.join(f'{x:,.0f}' for x in plain)})")
    print(f"page + 3 event streams  : {w:,.0f} decisions/s (median; "
          f"{', '.join(f'{x:,.0f}' for x in web)})")
    print(f"cost of the page        : {(1 - w / p) * 100:+.1f}% (target: under 5%)")
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        out = Path(tmp) / "t"
        asyncio.run(run_tournament(parse_config(config(1), "bench"), out, progress=False))
        for line in cycles(out, args.cycles):
            print(line)


if __name__ == "__main__":
    main()
