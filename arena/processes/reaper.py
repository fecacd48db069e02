"""Leftover bot processes of an arena that died, found from the store and ended.

Every bot process the arena starts runs under a supervisor (:mod:`arena.processes.supervisor`)
that ends the bot's whole process tree when the arena dies. If the supervisor itself was killed
too (``kill -9`` of every process, the OOM killer), bot processes may be left running. So the
arena records each instance in the store's process table (:mod:`arena.processes.proctable`):
its process group id (the supervisor's pid), the group leader's start time (clock ticks since
boot, field 22 of ``/proc/PID/stat``) and a random instance tag that the supervisor, the bot
and every process they start inherit in the environment variable :data:`INSTANCE_ENV`. The next
``arena run`` on the same directory calls :func:`kill_leftovers` before it starts anything.

A process is a leftover when it belongs to the current user, is not a zombie, and either

- carries ``ARENA_BOT_INSTANCE=<tag>`` of a recorded instance in its environment, or
- is in a recorded process group whose leader is gone or has the recorded start time, and
  started no earlier than that leader (a recycled pid or process group id fails both checks).

Linux only (``/proc``); elsewhere nothing is found.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass

from .procstat import stat_fields

#: environment variable holding an instance's tag (the supervisor, the bot and its children)
INSTANCE_ENV = "ARENA_BOT_INSTANCE"


@dataclass(frozen=True)
class ProcessRecord:
    """One bot instance as recorded in the store.

    Attributes:
        instance: the random tag in :data:`INSTANCE_ENV`; bot: the bot's name;
        pgid: process group id (= the supervisor's pid); start_ticks: the supervisor's start
        time, clock ticks since boot (``/proc/PID/stat`` field 22).
    """

    instance: str
    bot: str
    pgid: int
    start_ticks: int


@dataclass(frozen=True)
class _Stat:
    pid: int
    pgid: int
    start_ticks: int
    zombie: bool


def _read_stat(pid: int) -> _Stat | None:
    fields = stat_fields(pid)
    if fields is None:
        return None
    try:
        return _Stat(pid, int(fields[2]), int(fields[19]), fields[0] in (b"Z", b"X"))
    except (IndexError, ValueError):
        return None


def start_ticks(pid: int) -> int | None:
    """Start time of process ``pid`` in clock ticks since boot, or None if it is gone."""
    st = _read_stat(pid)
    return None if st is None else st.start_ticks


def _own_pids() -> list[int]:
    uid = os.getuid()
    pids = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def _environ_has(pid: int, wanted: set[bytes]) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read()
    except OSError:
        return False
    return not wanted.isdisjoint(env.split(b"\0"))


def find_leftovers(records: Iterable[ProcessRecord]) -> list[int]:
    """PIDs of the live processes that belong to the recorded instances (see the module
    docstring for the rule); never the calling process."""
    records = list(records)
    if not records:
        return []
    groups: dict[int, int] = {}
    for r in records:
        leader = start_ticks(r.pgid)
        if leader is None or leader == r.start_ticks:  # not recycled
            groups[r.pgid] = r.start_ticks
    wanted = {f"{INSTANCE_ENV}={r.instance}".encode() for r in records}
    found = []
    me = os.getpid()
    for pid in _own_pids():
        st = _read_stat(pid)
        if st is None or st.zombie or pid == me:
            continue
        in_group = st.pgid in groups and st.start_ticks >= groups[st.pgid]
        if in_group or _environ_has(pid, wanted):
            found.append(pid)
    return found


def kill_leftovers(records: Iterable[ProcessRecord], timeout_s: float = 5.0) -> int:
    """SIGKILL every leftover of ``records`` (again while new ones appear, up to
    ``timeout_s`` seconds). Returns how many processes were killed."""
    records = list(records)
    killed: set[int] = set()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pids = find_leftovers(records)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.05)
    return len(killed)
