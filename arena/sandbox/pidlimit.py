"""The process limit enforced by the kernel: one ``pids`` cgroup per sandboxed bot process.

``RLIMIT_NPROC`` is not applied to root (nor to a process with ``CAP_SYS_RESOURCE``), and
bubblewrap started by root maps the sandbox's root to the real root: run the arena as root and
the rlimit binds nothing. A ``pids`` cgroup limits every process regardless of its user
(``Documentation/admin-guide/cgroup-v1/pids.rst``, ``cgroup-v2.rst`` "PID"): a ``fork`` or
``clone`` that would take the group over ``pids.max`` fails with ``EAGAIN``, and the kernel
counts the refusals in ``pids.events`` (``max N``), so the fault is named even when the bot
swallows the error.

Layout: ``<the arena's own pids cgroup>/arena358-<arena pid>/bot-<n>``. Under the bot's
supervisor, a shell moves itself into the group and ``exec``s bubblewrap
(:func:`start_command`), so bubblewrap and everything it starts are in it from their first
instruction: the sandbox (bubblewrap's two processes, the bot and its processes and threads)
may hold ``processes`` tasks, the figure the ``/proc`` reading also stops at. (No
``preexec_fn``: Python code between ``fork`` and ``exec`` in the arena's threaded process is
unsafe.) Groups are removed when
their bot ends; those of an arena that was killed are removed by the next arena that starts.

Where no ``pids`` hierarchy is writable (a container without cgroup delegation) :func:`find`
returns None: for an ordinary user the limit is then ``RLIMIT_NPROC`` (counted in the
sandbox's user namespace) and the ``/proc`` reading; a root arena refuses to start sandboxed
bots (:func:`arena.sandbox.config.require_bwrap`), since nothing would hold the limit.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

_PREFIX = "arena358-"
#: the numbers of bot groups, shared by every :class:`PidsCgroups` of this process (a league
#: server checks a submission while its matches play: two launchers, one parent group)
_NUMBERS = itertools.count(1)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, options) of the cgroup file systems, from /proc/self/mounts."""
    out = []
    try:
        text = Path("/proc/self/mounts").read_text()
    except OSError:
        return []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            out.append((parts[1], parts[2], set(parts[3].split(","))))
    return out


def _own_paths() -> dict[str, str]:
    """This process's cgroup per hierarchy: ``"pids"`` (v1) and ``""`` (v2) -> path."""
    paths: dict[str, str] = {}
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return paths
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            paths[c] = path
    return paths


def candidates() -> list[Path]:
    """The directories under which this process may create pids cgroups, best first."""
    own = _own_paths()
    out = []
    for point, fstype, opts in _mounts():
        if fstype == "cgroup" and "pids" in opts and "pids" in own:
            out.append(Path(point + own["pids"]))
    for point, fstype, _ in _mounts():
        if fstype == "cgroup2" and "" in own:
            base = Path(point + own[""])
            with contextlib.suppress(OSError):
                if "pids" in (base / "cgroup.subtree_control").read_text().split():
                    out.append(base)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_tree(path: Path) -> bool:
    """rmdir the cgroup ``path`` and its (empty) child groups; False if one is still busy."""
    ok = True
    with contextlib.suppress(OSError):
        for child in path.iterdir():
            if child.is_dir():
                ok = _remove_tree(child) and ok
    try:
        path.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return ok


class BotCgroup:
    """The pids cgroup of one bot process (``path``), limited to ``limit`` tasks."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path, self.limit = path, limit
        self._procs = str(path / "cgroup.procs")
        #: the bot's process has ended (its group may go once empty); until then an empty
        #: group is one whose shell has not joined yet
        self.ended = False

    @property
    def procs_file(self) -> str:
        """The group's ``cgroup.procs`` (a pid written there moves that process in)."""
        return self._procs

    def refusals(self) -> int:
        """How many forks the limit has refused (``pids.events`` ``max``; 0 when unread)."""
        try:
            for line in (self.path / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def remove(self) -> bool:
        """Remove the group (False while a task is still in it)."""
        return _remove_tree(self.path)


class PidsCgroups:
    """The arena's parent group ``<base>/arena358-<pid>`` and its bots' groups."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.path = base / f"{_PREFIX}{os.getpid()}"
        self._numbers = _NUMBERS
        self.groups: list[BotCgroup] = []

    def new(self, processes: int) -> BotCgroup:
        """A fresh group for one bot process whose sandbox may hold ``processes`` tasks.

        Raises:
            OSError: the group cannot be created or limited.
        """
        self.path.mkdir(exist_ok=True)
        path = self.path / f"bot-{next(self._numbers)}"
        path.mkdir()
        try:
            (path / "pids.max").write_text(str(processes))
        except OSError:
            path.rmdir()
            raise
        group = BotCgroup(path, processes)
        self.groups.append(group)
        return group

    def sweep(self) -> None:
        """Remove the groups of bots that ended (once their last tasks are gone)."""
        self.groups = [g for g in self.groups if not (g.ended and g.remove())]

    def close(self) -> None:
        """Remove every group of this arena that is empty (call once its bots ended)."""
        for g in self.groups:
            g.ended = True
        self.sweep()
        if not self.groups:
            with contextlib.suppress(OSError):
                self.path.rmdir()

    def remove_stale(self) -> None:
        """Remove the groups left by arenas that no longer run (killed with SIGKILL)."""
        with contextlib.suppress(OSError):
            for d in self.base.iterdir():
                rest = d.name[len(_PREFIX):]
                if d.name.startswith(_PREFIX) and rest.isdigit() and not _alive(int(rest)):
                    _remove_tree(d)


#: the shell that starts a sandbox: it moves itself into the pids cgroup (when ``$0`` names
#: one), opens the seccomp filter (when ``$1`` names one) as descriptor 3 for bubblewrap's
#: ``--seccomp 3``, then becomes the command (``exec``, keeping its pid)
_START = ('{ [ -z "$0" ] || echo $$ > "$0"; } && f=$1 && shift && '
          'if [ -n "$f" ]; then exec "$@" 3<"$f"; else exec "$@"; fi')


def start_command(group: BotCgroup | None, seccomp_file: str | None) -> list[str]:
    """The prefix that runs a command inside ``group`` (if any) with ``seccomp_file`` open as
    descriptor 3 (if any): ``sh -c START PROCS_FILE FILTER command...``."""
    return ["/bin/sh", "-c", _START, group.procs_file if group is not None else "",
            seccomp_file or ""]


def available() -> bool:
    """Whether a pids cgroup can be made here (:func:`find` found a writable hierarchy)."""
    groups = find()
    if groups is None:
        return False
    groups.close()
    return True


def find() -> PidsCgroups | None:
    """The arena's pids cgroups, or None where no pids hierarchy is writable here."""
    for base in candidates():
        groups = PidsCgroups(base)
        try:
            groups.path.mkdir(exist_ok=True)
            probe = groups.new(8)
        except OSError:
            with contextlib.suppress(OSError):
                groups.path.rmdir()
            continue
        probe.remove()
        groups.groups.clear()
        groups.remove_stale()
        return groups
    return None
