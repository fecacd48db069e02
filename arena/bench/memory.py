"""Memory benchmark of long runs: the arena's resident memory (RSS) over a tournament of many
short matches between three SDK random bots, after a warm-up.

Everything the arena keeps per match (request ids, view templates, ...) is dropped when the match
ends, so after the warm-up (caches filled, allocator pools grown) RSS should stay flat: the
target is less than 10 MB of growth from match 200 to match 2,000 with ``hand_cap = 1``. The
tournament is played in-process (:func:`arena.tournament.runner.run_tournament`, records and
store included) in a temporary directory; RSS is read from ``/proc/self/status`` (VmRSS) after
each stored match (the end figure after the last one, before the standings are computed).

Run: ``arena bench memory [--matches 2000] [--warmup 200] [--concurrency 2]``.
"""

from __future__ import annotations

import asyncio
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: growth allowed after the warm-up, MB
TARGET_MB = 10.0


def rss_mb() -> float:
    """This process's resident set size, MB (VmRSS of ``/proc/self/status``)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmRSS in /proc/self/status")


@dataclass(frozen=True)
class MemoryFigures:
    """RSS samples (MB) after the warm-up match and at the end; matches and seconds."""

    matches: int
    warmup: int
    concurrency: int
    rss_start_mb: float
    rss_warm_mb: float
    rss_end_mb: float
    rss_peak_mb: float
    seconds: float

    @property
    def growth_mb(self) -> float:
        return self.rss_end_mb - self.rss_warm_mb

    def lines(self) -> list[str]:
        after = self.matches - self.warmup
        per_k = self.growth_mb / after * 1000 if after else 0.0
        return [
            f"tournament              : {self.matches:,} matches (sergeant-major, hand_cap 1, "
            f"3 SDK random bots, concurrency {self.concurrency}) in {self.seconds:.0f} s",
            f"arena RSS               : {self.rss_start_mb:.1f} MB at start, "
            f"{self.rss_warm_mb:.1f} MB after {self.warmup:,} matches, "
            f"{self.rss_end_mb:.1f} MB after {self.matches:,} (peak {self.rss_peak_mb:.1f} MB)",
            f"growth after warm-up    : {self.growth_mb:+.1f} MB over {after:,} matches "
            f"({per_k:+.2f} MB per 1,000; target < {TARGET_MB:g} MB"
            + (")" if self.matches >= 2000 else " over 2,000 matches: run --matches 2000)"),
        ]


def _config_text(deals: int, concurrency: int) -> str:
    bots = "".join(f'[[bots]]\nname = "random-{i}"\n'
                   f'command = ["{{python}}", "-m", "sample_bots.random_bot", "--seed", "{i}"]\n'
                   for i in range(3))
    return (f"[tournament]\nseed = 1\ndeals_per_table = {deals}\nconcurrency = {concurrency}\n"
            "[rules]\nhand_cap = 1\n[time]\nper_decision_ms = 2000\n" + bots)


async def bench_memory(matches: int = 2000, warmup: int = 200,
                       concurrency: int = 2) -> MemoryFigures:
    """Play about ``matches`` matches (a multiple of 6: whole duplicate blocks) and sample the
    arena's RSS after match ``warmup`` and at the end."""
    from ..tournament.config import parse_config
    from ..tournament.runner import run_tournament
    cfg = parse_config(_config_text(math.ceil(matches / 6), concurrency), "bench")
    start = rss_mb()
    warm, last, peak, done = start, start, start, 0

    def on_match(_m: object) -> None:
        nonlocal warm, last, peak, done
        done += 1
        last = rss_mb()
        peak = max(peak, last)
        if done == warmup:
            warm = last

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="arena-bench-memory-") as tmp:
        outcome = await run_tournament(cfg, Path(tmp), progress=False, on_match=on_match)
    return MemoryFigures(outcome.played_now, warmup, concurrency, start, warm, last, peak,
                         time.perf_counter() - t0)


if __name__ == "__main__":  # pragma: no cover - manual use
    print("\n".join(asyncio.run(bench_memory()).lines()))
