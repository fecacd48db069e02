"""Cost of the live page (target: under 5%): ``arena bench arena --web``.

1. Throughput: the same tournament (three trivial protocol bots, :mod:`arena.bench.trivial_bot`,
   full-length sergeant-major matches, concurrency 2, played in this process by
   :func:`arena.tournament.runner.run_tournament`) in three set-ups, one after the other in
   each round (the order rotates from round to round; medians of decisions/s are compared):

   - ``plain``: no events at all (the arena without a page or journal);
   - ``journal``: what ``arena run`` does: the in-flight journal (:mod:`arena.inflight`) that
     lets ``arena serve`` in another process show the matches in flight;
   - ``page``: what ``arena run --web`` does (:func:`arena.web.live.run_with_page`: event bus,
     live state, uvicorn in the arena's process, the snapshot worker process, the journal)
     with 3 browsers' event streams connected (reader processes that read every byte).

   The worker's start and the streams' connections happen before the clock starts. Beside
   decisions/s (wall clock, moved a lot by other processes on a shared machine), the arena
   process's CPU time per decision (all its threads: the page's server included).

   The snapshot worker's and the readers' CPU are not in that figure; on a machine with idle
   cores they cost the tournament nothing, on a saturated one they compete with it. So a
   third figure: the whole machine's busy CPU time per decision over the same window
   (``/proc/stat``: the arena, the bots, the page's worker and readers, and anything else
   running; meaningful on an otherwise quiet machine).
2. Memory: ``arena serve`` (a separate process) on a finished directory, then ``cycles``
   connect / read the first snapshot / disconnect cycles of its event stream on 127.0.0.1;
   the server's RSS at start, after the first 1,000 cycles and at the end (target: flat).

The machine's load average is printed with the figures: on a shared machine the other
processes' load moves the figures more than the page does.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..events import EventBus, EventSink
from ..inflight import journaled
from ..tournament.config import parse_config
from ..tournament.runner import TournamentOutcome, run_tournament
from ..tournament.store import open_existing

#: the set-ups compared, in the order each round plays them
MODES = ("plain", "journal", "page")
#: browsers (event-stream readers) connected in the ``page`` set-up
STREAMS = 3
#: the cost the issue allows, percent of throughput
TARGET_PCT = 5.0
#: an event-stream reader (a browser stand-in that reads every byte and drops it)
READER = ("import sys, urllib.request\n"
          "with urllib.request.urlopen(sys.argv[1]) as r:\n"
          "    r.read1(65536)\n"
          "    print('connected', flush=True)\n"
          "    while r.read1(65536): pass\n")


def config_text(deals: int) -> str:
    """3 trivial bots, ``deals`` deals per table (6 matches each), concurrency 2."""
    bots = "".join(f'[[bots]]\nname = "trivial-{i}"\n'
                   'command = ["{python}", "-m", "arena.bench.trivial_bot"]\n' for i in range(3))
    return (f"[tournament]\nseed = 3\ndeals_per_table = {deals}\nconcurrency = 2\n"
            "[time]\nper_decision_ms = 2000\n" + bots)


def _decisions(out: Path) -> int:
    with open_existing(out) as store:
        return sum(sum(r.decisions) for r in store.results())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def machine_busy_s() -> float:
    """Busy CPU seconds of the whole machine since boot, all CPUs (``/proc/stat``: user, nice,
    system, irq, softirq, steal); 0.0 where ``/proc/stat`` cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return 0.0
    ticks = sum(int(x) for x in fields[1:4] + fields[6:9])
    return ticks / os.sysconf("SC_CLK_TCK")


async def one_round(deals: int, mode: str) -> tuple[float, float, float]:
    """Decisions per second of one tournament in set-up ``mode`` (:data:`MODES`), the arena
    process's CPU time per decision (all its threads) and the machine's busy CPU time per
    decision (all processes), both microseconds."""
    cfg = parse_config(config_text(deals), "bench")
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        out = Path(tmp) / "t"
        clock: list[float] = []
        cpu: list[float] = []
        busy: list[float] = []

        async def timed(sink: EventSink | None) -> TournamentOutcome:
            clock.append(time.perf_counter())
            cpu.append(time.process_time())
            busy.append(machine_busy_s())
            try:
                return await run_tournament(cfg, out, progress=False, events=sink)
            finally:
                clock.append(time.perf_counter())
                cpu.append(time.process_time())
                busy.append(machine_busy_s())

        if mode == "plain":
            await timed(None)
        elif mode == "journal":
            await journaled(out, timed)
        else:
            await _with_page(out, timed)
        n = _decisions(out)
        return (n / (clock[1] - clock[0]), (cpu[1] - cpu[0]) / n * 1e6,
                (busy[1] - busy[0]) / n * 1e6)


async def _with_page(out: Path, timed: Callable[[EventSink | None],
                                                Awaitable[TournamentOutcome]]) -> None:
    """``arena run --web`` in this process, the clock started once 3 streams are open."""
    import contextlib
    import io

    from ..web.live import run_with_page
    bus, port = EventBus(), _free_port()
    readers: list[subprocess.Popen[str]] = []

    async def run(page: EventSink) -> TournamentOutcome:
        readers.extend(subprocess.Popen([sys.executable, "-c", READER,
                                         f"http://127.0.0.1:{port}/events"],
                                        stdout=subprocess.PIPE, text=True)
                       for _ in range(STREAMS))
        for r in readers:          # each has its stream open and its first snapshot
            line = await asyncio.to_thread(r.stdout.readline) if r.stdout else ""
            if line != "connected\n":
                raise RuntimeError("an event-stream reader could not connect")
        await asyncio.sleep(1.0)       # the worker's first snapshot, before the clock
        return await journaled(out, timed, also=page)

    try:
        with contextlib.redirect_stderr(io.StringIO()):   # the page's address line
            await run_with_page(out, "127.0.0.1", port, run, bus=bus, linger_s=0.1)
    finally:
        for r in readers:
            try:
                r.wait(timeout=30)
            except subprocess.TimeoutExpired:
                r.kill()
                r.wait()


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmRSS")


def stream_cycles(directory: Path, n: int) -> list[str]:
    """RSS of ``arena serve DIRECTORY`` over ``n`` event-stream cycles; the figure lines."""
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(directory),
                             "--port", "0"], text=True, stderr=subprocess.PIPE)
    try:
        m = None
        while m is None:
            line = proc.stderr.readline() if proc.stderr else ""
            if not line:
                raise RuntimeError("arena serve did not start")
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        port = int(m.group(1))
        start, warm, t0 = _rss_mb(proc.pid), 0.0, time.perf_counter()
        for i in range(1, n + 1):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/events")
            resp = conn.getresponse()
            while not resp.fp.readline().startswith(b"data: "):
                pass
            conn.close()
            if i == min(1000, n):
                time.sleep(0.5)
                warm = _rss_mb(proc.pid)
        time.sleep(1.0)
        end = _rss_mb(proc.pid)
        seconds = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return [f"{'event-stream cycles':<36}: {n:,} connect / first snapshot / disconnect in "
            f"{seconds:.0f} s ({n / seconds:.0f}/s) against arena serve on 127.0.0.1",
            f"{'arena serve RSS':<36}: {start:.1f} MB at start, {warm:.1f} MB after "
            f"{min(1000, n):,} cycles, {end:.1f} MB after {n:,} ({end - warm:+.1f} MB)"]


@dataclass
class WebFigures:
    """Decisions/s by set-up (one per round), load averages, the memory lines."""

    deals: int
    rates: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in MODES})
    #: the arena process's CPU microseconds per decision, by set-up (one per round)
    cpu_us: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in MODES})
    #: the whole machine's busy CPU microseconds per decision, by set-up (one per round)
    machine_us: dict[str, list[float]] = field(
        default_factory=lambda: {m: [] for m in MODES})
    load: list[tuple[float, float, float]] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)

    def median(self, mode: str) -> float:
        return statistics.median(self.rates[mode])

    def cost_pct(self, mode: str) -> float:
        """Throughput lost in ``mode`` against ``plain``, percent."""
        return (1 - self.median(mode) / self.median("plain")) * 100

    def lines(self) -> list[str]:
        rounds = len(self.rates["plain"])
        out = [f"{'tournament':<36}: {self.deals * 6} full-length matches, 3 trivial bots, "
               f"concurrency 2; {rounds} round{'s' if rounds != 1 else ''}, set-ups "
               "alternating"]
        label = {"plain": "no events", "journal": "journal (arena run)",
                 "page": f"page + {STREAMS} streams (arena run --web)"}
        for mode in MODES:
            runs = ", ".join(f"{x:,.0f}" for x in self.rates[mode])
            out.append(f"{label[mode]:<36}: {self.median(mode):,.0f} decisions/s (median; "
                       f"{runs})")
        for mode in MODES[1:]:
            out.append(f"{'cost of the ' + label[mode].split(' (')[0]:<36}: "
                       f"{self.cost_pct(mode):+.1f}% (target: under {TARGET_PCT:g}%)")
        out.append(f"{'arena CPU per decision (median, us)':<36}: "
                   f"{_by_mode(self.cpu_us)} (all its threads; less moved by the machine's "
                   "load than decisions/s)")
        out.append(f"{'machine CPU per decision (median, us)':<36}: "
                   f"{_by_mode(self.machine_us)} (every process: arena, bots, the page's "
                   "worker and readers)")
        loads = "; ".join(f"{a:.2f} {b:.2f} {c:.2f}" for a, b, c in self.load)
        out.append(f"{'load average (1/5/15 min)':<36}: {loads} (at each round's start; "
                   f"{os.cpu_count()} CPUs)")
        return out + self.memory


def _by_mode(us: dict[str, list[float]]) -> str:
    plain = statistics.median(us["plain"])
    return ", ".join(f"{m} {statistics.median(us[m]):.0f}" +
                     (f" ({(statistics.median(us[m]) / plain - 1) * 100:+.1f}%)"
                      if m != "plain" and plain else "") for m in MODES)


def bench_web(deals: int = 12, rounds: int = 3, cycles: int = 10_000) -> WebFigures:
    """Run both parts (see the module docstring); the figures."""
    figures = WebFigures(deals)
    for r in range(rounds):
        figures.load.append(os.getloadavg())
        for mode in MODES[r % 3:] + MODES[:r % 3]:     # each set-up first in turn
            rate, cpu_us, machine_us = asyncio.run(one_round(deals, mode))
            figures.rates[mode].append(rate)
            figures.cpu_us[mode].append(cpu_us)
            figures.machine_us[mode].append(machine_us)
    if cycles:
        with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
            out = Path(tmp) / "t"
            asyncio.run(run_tournament(parse_config(config_text(1), "bench"), out,
                                       progress=False))
            figures.memory = stream_cycles(out, cycles)
    return figures
