"""Resource limits of a sandboxed bot and the names of the faults they raise.

Two layers, plus the kernel's process limit of :mod:`.pidlimit` (a ``pids`` cgroup):

- **rlimits**, set inside the sandbox by util-linux's ``prlimit`` just before the bot's
  command (inherited by every process of the bot): ``RLIMIT_DATA`` (a process's private
  writable memory, :func:`data_limit_bytes`: a hard backstop against allocating faster than
  the supervisor reads; unlike ``RLIMIT_AS`` it does not count the address space JIT runtimes
  such as Node.js reserve without using), ``RLIMIT_NOFILE``,
  ``RLIMIT_FSIZE``, ``RLIMIT_CORE = 0`` and ``RLIMIT_NPROC`` (set after the sandbox's user
  namespace exists, so it counts the sandbox's own processes and threads only; the kernel does
  not apply it to root, where the ``pids`` cgroup of :mod:`.pidlimit` holds the limit, or
  failing one the supervisor's count below). Without ``prlimit``
  the per-process ones are set by a ``preexec_fn`` in the child instead (:func:`preexec`);
- the **supervisor** (:mod:`arena.sandbox.launch`) reads the process tree from ``/proc``
  several times a second and stops a bot whose processes together exceed ``memory_mib``
  resident, ``processes`` processes and threads, or ``cpu_s_per_match`` CPU seconds in the
  current match.

A bot stopped by either layer is reported with the limit's name, e.g.
``"memory limit 1 GiB reached"`` (:func:`fault_text`), not as a generic crash.
"""

from __future__ import annotations

import resource
import shutil
import signal
from collections.abc import Callable

from .config import SandboxConfig, mib_text

MEMORY, PROCESSES, OPEN_FILES, FILE_SIZE, CPU = ("memory", "processes", "open files",
                                                  "file size", "CPU time")


def fault_text(kind: str, cfg: SandboxConfig) -> str:
    """The fault's name as reported, e.g. ``"memory limit 1 GiB reached"``."""
    if kind == MEMORY:
        return f"memory limit {mib_text(cfg.memory_mib)} reached"
    if kind == PROCESSES:
        return f"process limit {cfg.processes} reached (processes and threads)"
    if kind == OPEN_FILES:
        return f"open files limit {cfg.open_files} reached"
    if kind == FILE_SIZE:
        return f"file size limit {mib_text(cfg.file_size_mib)} reached"
    if kind == CPU:
        return f"CPU time limit {cfg.cpu_s_per_match} s per match reached"
    raise ValueError(f"unknown limit {kind!r}")


#: what ``RLIMIT_DATA`` allows above ``memory_mib``, at least (MiB; see :func:`data_limit_bytes`)
DATA_HEADROOM_MIB = 512


def data_limit_bytes(cfg: SandboxConfig) -> int:
    """``RLIMIT_DATA`` per process: ``memory_mib`` plus ``max(memory_mib, 512)`` MiB.

    It counts the virtual memory a process maps privately and writable (heap, thread
    stacks, anonymous mappings), touched or not, so it stops an allocation spree between two
    of the supervisor's readings; the headroom keeps thread stacks and runtime reservations
    (glibc arenas, OpenBLAS buffers, a JIT's heap) from hitting it long before the bot's
    resident memory reaches ``memory_mib``, where the supervisor stops the bot by name."""
    return (cfg.memory_mib + max(cfg.memory_mib, DATA_HEADROOM_MIB)) << 20


def preexec(cfg: SandboxConfig) -> Callable[[], None]:
    """A ``preexec_fn`` setting the per-process rlimits in the child (before ``exec``)."""
    data = data_limit_bytes(cfg)
    nofile = cfg.open_files
    fsize = cfg.file_size_mib << 20

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (data, data))
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def inner_prefix(cfg: SandboxConfig) -> list[str]:
    """The command put before the bot's inside the sandbox: ``prlimit --data=.. --nofile=..
    --fsize=.. --core=0 --nproc=N --`` (empty when util-linux's prlimit is missing)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [prlimit, f"--data={data_limit_bytes(cfg)}", f"--nofile={cfg.open_files}",
            f"--fsize={cfg.file_size_mib << 20}", "--core=0", f"--nproc={cfg.processes}", "--"]


#: log-tail phrases of runtimes that ran out of a limit, per limit
_PHRASES = {
    MEMORY: ("MemoryError", "out of memory", "Cannot allocate memory", "std::bad_alloc",
             "JavaScript heap out of memory", "ENOMEM"),
    PROCESSES: ("Resource temporarily unavailable", "BlockingIOError", "EAGAIN",
                "can't start new thread", "can't create new thread"),
    OPEN_FILES: ("Too many open files", "EMFILE"),
    FILE_SIZE: ("File too large", "EFBIG"),
}


def classify_exit(returncode: int | None, log_tail: str, cfg: SandboxConfig, *,
                  peak_rss: int = 0, peak_tasks: int = 0) -> str | None:
    """Name the limit a sandboxed bot that died by itself most likely hit, or None.

    Args:
        returncode: the bwrap process's status (negative: killed by that signal).
        log_tail: the end of the bot's log (its last words).
        peak_rss: the highest resident memory the supervisor saw, bytes.
        peak_tasks: the most processes + threads the supervisor saw.
    """
    if returncode == -signal.SIGXFSZ:
        return fault_text(FILE_SIZE, cfg)
    if returncode == -signal.SIGXCPU:
        return fault_text(CPU, cfg)
    for kind, phrases in _PHRASES.items():
        if any(p in log_tail for p in phrases):
            return fault_text(kind, cfg)
    if peak_rss >= (cfg.memory_mib << 20) * 9 // 10:
        return fault_text(MEMORY, cfg)
    if peak_tasks >= cfg.processes:
        return fault_text(PROCESSES, cfg)
    return None
