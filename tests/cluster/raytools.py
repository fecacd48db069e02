"""Helpers for the Ray backend tests: configs, results and records compared without timings."""

from __future__ import annotations

import dataclasses

import contextlib
import gzip
import json
from pathlib import Path

from arena.tournament.config import parse_config
from arena.tournament.store import open_existing

from ..tournament.helpers import config_text

TIMING_KEYS = {"started_at", "ended_at", "think_ms", "arena_version"}


def ray_extra(slots: int, cpus_per_bot: float, address: str | None = None) -> str:
    text = f'[cluster]\nbackend = "ray"\nslots = {slots}\ncpus_per_bot = {cpus_per_bot}\n'
    return text + (f'address = "{address}"\n' if address else "")


def seeded_config(tag: str, extra: str = ""):
    """Three seeded random bots, 6 matches of one hand (10 s a decision: no late answers
    under load, so the games depend on the seeds only)."""
    text = config_text(None, tag=tag, bots=3, hand_cap=1, concurrency=2, time_ms=10_000,
                       extra=extra)
    return parse_config(text.replace('"sample_bots.random_bot"]',
                                     '"sample_bots.random_bot", "--seed", "5"]'), "t.toml")


def strip_timings(obj):
    """A record line without wall-clock fields (times, thinking ms, arena version)."""
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


def record_lines(path):
    return [strip_timings(json.loads(ln)) for ln in gzip.decompress(path.read_bytes()).splitlines()]


def stored(out):
    with open_existing(out) as store:
        assert store.pending() == []
        return {r.match_id: r for r in store.results()}


def comparable(row):
    """A result row without what is measured (think time, CPU seconds, peak memory) and when
    it was played."""
    d = dataclasses.asdict(row)
    for measured in ("think_ms", "cpu_s", "peak_mib", "started_at", "ended_at"):
        d.pop(measured, None)
    return d


def describe(pids: list[int]) -> str:
    """The command lines of ``pids`` (for an assertion message)."""
    lines = []
    for pid in pids:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            lines.append(f"{pid}: " + cmdline.replace(b"\0", b" ").decode(errors="replace")[:200])
        except OSError:
            lines.append(f"{pid}: (gone)")
    return "\n".join(lines)


#: what Ray says when its raylet did not register with the GCS within the 30 s fixed in
#: ray/_private/node.py ("... timed out during startup ... or the GCS has become
#: overloaded"): on a machine busy with other work the node is slow, not broken
STARTUP_TIMEOUT = "timed out during startup"
#: starts of a Ray node tried before a startup timeout fails the test
STARTUP_ATTEMPTS = 3


def _descendants(root: int | None = None) -> set[int]:
    """The pids of every live process below ``root`` (default: this process)."""
    import os

    from ..tournament.helpers import parent_pids
    parent_of = parent_pids()
    found: set[int] = set()
    frontier = {root or os.getpid()}
    while frontier:
        frontier = {pid for pid, ppid in parent_of.items() if ppid in frontier} - found
        found |= frontier
    return found


def start_ray(start):
    """``start()`` (``ray.init``, ``Cluster(...)``, ``cluster.add_node(...)``), tried again up
    to :data:`STARTUP_ATTEMPTS` times when Ray's node start timed out (:data:`STARTUP_TIMEOUT`):
    what the failed start left running is ended first. Any other error is raised at once."""
    import os
    import signal

    import ray
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        before = _descendants()
        try:
            return start()
        except Exception as exc:
            if STARTUP_TIMEOUT not in str(exc) or attempt == STARTUP_ATTEMPTS:
                raise
            ray.shutdown()
            for pid in _descendants() - before:      # the half-started node's processes
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    raise AssertionError("unreachable")


def ray_startup_timed_out(stderr: str) -> bool:
    """Whether an ``arena run --ray local`` failed only because Ray's private instance did not
    start within Ray's fixed 30 s (``cannot connect to the Ray cluster at local: ...``)."""
    return "cannot connect to the Ray cluster" in stderr and STARTUP_TIMEOUT in stderr
