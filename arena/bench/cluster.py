"""Cluster benchmark: matches/s of the same tournament with ``local`` and with ``ray`` on this
machine, and a projection of a large tournament's wall time on K nodes.

Both runs play the same schedule (seeded SDK random bots, ``hand_cap`` hands a match) with the
same number of matches in flight (``slots``). Two rates each: the whole run (from the start of
``run_tournament`` to its end, bot and worker start-up included) and the steady state (the
matches stored after the first ``slots`` ones, over the time since then), which is what a
long tournament sees; the ratio is taken on the steady state. Ray itself is started before the
ray run and not timed (a cluster is started once, with ``ray start``, and serves many
tournaments). Rounds alternate local and ray and medians are compared, so drifting machine load
hits both.

From the ray run's rate comes the per-match cost in slot-seconds (wall time x slots / matches),
and from it the projected wall time of ``C(bots, 3) x 6 x deals`` matches on K nodes of
``node_cpus`` CPUs each, with ``floor(node_cpus / (3 x cpus_per_bot))`` slots per node.

Run: ``arena bench cluster [--hand-cap 5] [--deals 4] [--slots 2] [--rounds 1]``.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ClusterFigures:
    """Rates in matches per second, per round (steady state; ``*_whole``: whole runs);
    medians compared."""

    matches: int
    hand_cap: int
    slots: int
    local_rates: tuple[float, ...]
    ray_rates: tuple[float, ...]
    local_whole: tuple[float, ...]
    ray_whole: tuple[float, ...]
    project_bots: int
    project_deals: int
    node_cpus: int
    cpus_per_bot: float

    @property
    def ratio(self) -> float:
        return statistics.median(self.ray_rates) / statistics.median(self.local_rates)

    @property
    def slot_s_per_match(self) -> float:
        """Seconds one slot spends per match on ray (wall time x slots / matches)."""
        return self.slots / statistics.median(self.ray_rates)

    def projection(self, nodes: int) -> float:
        """Projected wall time in seconds of the projected tournament on ``nodes`` nodes."""
        n = self.project_bots
        matches = n * (n - 1) * (n - 2) // 6 * 6 * self.project_deals
        per_node = max(1, math.floor(self.node_cpus / (3 * self.cpus_per_bot)))
        return matches * self.slot_s_per_match / (nodes * per_node)

    def lines(self) -> list[str]:
        med_l, med_r = statistics.median(self.local_rates), statistics.median(self.ray_rates)
        n = self.project_bots
        matches = n * (n - 1) * (n - 2) // 6 * 6 * self.project_deals
        per_node = max(1, math.floor(self.node_cpus / (3 * self.cpus_per_bot)))
        whole_l, whole_r = statistics.median(self.local_whole), statistics.median(self.ray_whole)
        out = [
            f"tournament: {self.matches} matches of {self.hand_cap} hands (seeded random bots), "
            f"{self.slots} matches in flight",
            "steady state (matches after the first slots' worth; start-up excluded):",
            f"  local: {med_l:.2f} matches/s  (rounds: "
            f"{', '.join(f'{r:.2f}' for r in self.local_rates)})",
            f"  ray:   {med_r:.2f} matches/s  (rounds: "
            f"{', '.join(f'{r:.2f}' for r in self.ray_rates)})",
            f"  ray / local: {self.ratio:.2f}  (target >= 0.8 for matches of >= 5 hands)",
            f"whole run (bot and worker start-up included): local {whole_l:.2f}, ray "
            f"{whole_r:.2f} matches/s, ratio {whole_r / whole_l:.2f}",
            f"per-match cost on ray: {self.slot_s_per_match:.2f} slot-seconds",
            f"projection: {n} bots x {self.project_deals} deal = {matches:,} matches, nodes of "
            f"{self.node_cpus} CPUs, {self.cpus_per_bot:g} CPU per bot = {per_node} slots a node:",
        ]
        for k in (1, 2, 4, 8, 16):
            out.append(f"  {k:>2} node{'s' if k > 1 else ' '}: {_duration(self.projection(k))}")
        return out


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def bench_config_text(hand_cap: int, deals: int, slots: int, cpus_per_bot: float,
                      backend: str) -> str:
    """The benchmark tournament: 3 seeded SDK random bots."""
    text = (f"[tournament]\nseed = 11\ndeals_per_table = {deals}\nconcurrency = {slots}\n"
            f"[rules]\nhand_cap = {hand_cap}\n[time]\nper_decision_ms = 2000\n"
            f'[cluster]\nbackend = "{backend}"\nslots = {slots}\ncpus_per_bot = {cpus_per_bot}\n')
    for i in range(3):
        text += (f'[[bots]]\nname = "random-{i}"\ncommand = ["{{python}}", "-m", '
                 f'"sample_bots.random_bot", "--seed", "{i}"]\n')
    return text


async def _timed(text: str, out: Path, slots: int) -> tuple[float, float]:
    """(whole-run matches/s, steady-state matches/s): the steady state counts the matches
    stored after the first ``slots`` ones, over the time since then (start-up excluded)."""
    from ..cluster.executor import ray_executor
    from ..tournament.config import parse_config
    from ..tournament.runner import run_tournament
    stamps: list[float] = []
    t0 = time.perf_counter()
    cfg = parse_config(text, "bench")
    executors = ray_executor if cfg.cluster.backend == "ray" else None   # the local baseline
    outcome = await run_tournament(cfg, out, progress=False, executors=executors,
                                   on_match=lambda m: stamps.append(time.perf_counter()))
    whole = outcome.played_now / (time.perf_counter() - t0)
    k = min(slots, len(stamps) - 2)
    steady = (len(stamps) - 1 - k) / (stamps[-1] - stamps[k]) if k >= 0 else whole
    return whole, steady


def bench_cluster(*, hand_cap: int = 5, deals: int = 4, slots: int = 2, rounds: int = 1,
                  cpus_per_bot: float = 0.25, address: str = "local", project_bots: int = 20,
                  project_deals: int = 1, node_cpus: int = 8) -> ClusterFigures:
    """Run the benchmark (see the module docstring).

    Raises:
        ClusterError: Ray is not installed or the cluster at ``address`` is unreachable.
    """
    from ..cluster.executor import import_ray
    ray = import_ray()
    local_rates: list[float] = []
    ray_rates: list[float] = []
    local_whole: list[float] = []
    ray_whole: list[float] = []
    matches = 6 * deals
    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        for r in range(rounds):
            text = bench_config_text(hand_cap, deals, slots, cpus_per_bot, "local")
            whole, steady = asyncio.run(_timed(text, Path(tmp) / f"local-{r}", slots))
            local_whole.append(whole)
            local_rates.append(steady)
            if address == "local":
                ray.init(address="local",
                         num_cpus=max(1, math.ceil(3 * cpus_per_bot * slots)),
                         include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
            try:
                text = bench_config_text(hand_cap, deals, slots, cpus_per_bot, "ray")
                whole, steady = asyncio.run(_timed(text, Path(tmp) / f"ray-{r}", slots))
                ray_whole.append(whole)
                ray_rates.append(steady)
            finally:
                ray.shutdown()
    return ClusterFigures(matches, hand_cap, slots, tuple(local_rates), tuple(ray_rates),
                          tuple(local_whole), tuple(ray_whole), project_bots, project_deals,
                          node_cpus, cpus_per_bot)
