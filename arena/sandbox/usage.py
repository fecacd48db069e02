"""CPU time and memory of a bot's process tree, read from ``/proc`` (no cgroups needed).

A sandboxed bot is a tree: the ``bwrap`` process the arena started, bubblewrap's init (PID 1 of
the sandbox's PID namespace, which adopts and reaps every orphan, double forks included), the
bot and its children. :func:`scan` reads ``/proc/*/stat`` once for the whole machine;
:func:`tree` picks out the descendants of one process.

- **CPU seconds** of a tree = the sum over its live processes of user + system time plus the
  time of the children they have reaped (``cutime + cstime``), so processes that came and went
  are counted (``proc(5)``, fields 14-17; clock ticks of ``SC_CLK_TCK``).
- **Resident memory** of a tree = the sum of its processes' resident set sizes (field 24).
  Shared pages (a forked child's copy-on-write memory) are counted once per process, so this
  overestimates a forking bot; before a bot is stopped for memory the supervisor confirms with
  the proportional set size (:func:`pss`), which shares such pages out.
- **Scratch in use** (:func:`scratch_bytes`): the files a sandboxed bot holds in its private
  ``/tmp`` and ``/dev/shm`` (tmpfs: RAM too), read with ``statvfs`` through
  ``/proc/PID/root`` of a process inside its sandbox. The supervisor adds it to the resident
  memory: a bot's memory is all the RAM it holds (a file it also maps counts twice).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class ProcInfo:
    """One process as read from ``/proc/PID/stat``: parent, CPU seconds (own + reaped
    children), resident bytes, threads."""

    ppid: int
    cpu_s: float
    rss: int
    threads: int


@dataclass(frozen=True)
class Usage:
    """A bot's resources in one match: CPU seconds (user + system, all its processes) and the
    peak resident memory in MiB (all its processes together)."""

    cpu_s: float
    peak_mib: float


def parse_stat(text: str | bytes) -> ProcInfo | None:
    """A ``/proc/PID/stat`` line -> :class:`ProcInfo` (None when it does not parse). The
    command name (field 2) may hold spaces and parentheses: fields are split after the last
    ``)``."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    rest = text[text.rfind(")") + 2:].split()
    if len(rest) < 22:
        return None
    try:
        cpu = sum(int(x) for x in rest[11:15]) / _TICK
        return ProcInfo(int(rest[1]), cpu, int(rest[21]) * _PAGE, int(rest[17]))
    except ValueError:
        return None


def read_stat(pid: int) -> ProcInfo | None:
    """One process's :class:`ProcInfo`, or None when it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        return parse_stat(os.read(fd, 1024))
    except OSError:
        return None
    finally:
        os.close(fd)


def scan() -> dict[int, ProcInfo]:
    """Every process on the machine (pid -> info); processes that vanish meanwhile are
    skipped."""
    table: dict[int, ProcInfo] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = read_stat(int(entry))
            if info is not None:
                table[int(entry)] = info
    return table


def children(table: dict[int, ProcInfo]) -> dict[int, list[int]]:
    """Parent pid -> its children's pids, from a :func:`scan`."""
    kids: dict[int, list[int]] = {}
    for pid, info in table.items():
        kids.setdefault(info.ppid, []).append(pid)
    return kids


def tree(table: dict[int, ProcInfo], root: int,
         kids: dict[int, list[int]] | None = None) -> list[int]:
    """``root`` and all its descendants in ``table`` (empty when ``root`` is gone); ``kids``
    is :func:`children` of ``table`` when the caller already has it."""
    if root not in table:
        return []
    if kids is None:
        kids = children(table)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def peak_rss(pids: list[int]) -> int:
    """The largest ``VmHWM`` (peak resident set) among ``pids``, bytes (0 when unreadable)."""
    best = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        best = max(best, int(line.split()[1]) * 1024)
                        break
        except (OSError, ValueError, IndexError):
            continue
    return best


def pss(pids: list[int]) -> int:
    """The proportional set size of ``pids`` together, bytes (``smaps_rollup``, Linux >=
    4.14): shared pages are divided among the processes sharing them, so a forked tree is not
    counted several times. Slower to read than RSS: used to confirm a limit before acting."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total


#: the sandbox's tmpfs mounts whose contents count with a bot's memory
SCRATCH_MOUNTS = ("tmp", "dev/shm")


def scratch_bytes(pid: int) -> int | None:
    """Bytes in use in the private ``/tmp`` and ``/dev/shm`` of the sandbox that process
    ``pid`` runs in (seen through ``/proc/PID/root``), or None when they cannot be read (the
    process is gone, or it is not in a sandbox of ours: its root is the host's)."""
    total = 0
    try:
        host = os.stat("/tmp").st_dev
        for mount in SCRATCH_MOUNTS:
            path = f"/proc/{pid}/root/{mount}"
            if mount == "tmp" and os.stat(path).st_dev == host:
                return None
            st = os.statvfs(path)
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
    except OSError:
        return None
    return total


def reset_peak(pids: list[int]) -> None:
    """Reset the ``VmHWM`` of ``pids`` (``clear_refs`` 5, Linux >= 4.0), so a new match's
    peak is its own; processes that refuse are skipped."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            continue
