"""The ``bwrap`` (bubblewrap) command line of a sandboxed bot.

Isolation (issue 13):

- **filesystem**: an empty root with, read-only, the system directories (``/usr`` and its
  ``/bin``, ``/lib``... links, ``/etc`` without its password/sudo files), the arena's Python
  environment (``sys.prefix``, the import path, ``PYTHONPATH``) and the bot's own directory
  (its working directory and the directories of files named in its command); a private
  ``/tmp`` (a tmpfs of ``scratch_mib``, gone with the sandbox); fresh ``/proc`` and ``/dev``.
  Paths to hide (the tournament's output directory, other bots' directories) are covered
  with an empty read-only tmpfs where they fall inside a bound directory. Nothing else exists.
- **network**: its own network namespace (only a loopback nobody listens on); the arena's
  Unix socket is bound in as the one way out, at :data:`SANDBOX_SOCKET`.
- **processes**: its own PID, IPC, UTS, user and cgroup namespaces, ``--new-session`` (no
  terminal injection), ``--die-with-parent`` (the sandbox dies with the arena, whatever
  kills it; the PID namespace ends every process in it when its init goes).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from .which import Bubblewrap

#: where the arena's Unix socket appears inside a sandbox
SANDBOX_SOCKET = "/run/arena/arena.sock"
#: system directories bound read-only when they exist (symlinks are recreated as symlinks)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
               "/opt/node", "/usr/local")
#: files under /etc a bot has no business reading (replaced by empty files)
HIDDEN_ETC = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers",
              "/etc/sudoers.d", "/etc/ssh")


def python_dirs() -> list[str]:
    """The arena's Python environment: prefixes, the interpreter's directory, every existing
    directory of the import path and ``PYTHONPATH``, and the directory holding the ``arena``
    package (an editable install lives outside site-packages)."""
    import arena
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix,
            str(Path(sys.executable).resolve().parent), str(Path(sys.executable).parent),
            str(Path(arena.__file__).resolve().parents[1])}
    for p in list(sys.path) + os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if p and os.path.isabs(p):
            dirs.add(p if os.path.isdir(p) else os.path.dirname(p))
    return sorted(d for d in dirs if os.path.isdir(d))


def bot_dirs(cwd: str, command: Sequence[str]) -> list[str]:
    """The bot's own directories: ``cwd`` plus the directories of existing files named by
    absolute path in ``command`` (its program)."""
    dirs = {os.path.realpath(cwd)}
    for arg in command:
        if os.path.isabs(arg) and os.path.isfile(arg):
            dirs.add(os.path.dirname(os.path.realpath(arg)))
    return sorted(dirs)


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _ro_binds(paths: Iterable[str]) -> list[str]:
    """``--ro-bind`` arguments, parents first, nested duplicates dropped."""
    out: list[str] = []
    chosen: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count("/"), s)):
        if any(_inside(p, c) for c in chosen):
            continue
        chosen.append(p)
    for p in sorted(chosen, key=lambda s: (s.count("/"), s)):
        if os.path.islink(p) and os.path.dirname(p) == "/":
            out += ["--symlink", os.readlink(p), p]
        else:
            out += ["--ro-bind", p, p]
    return out


def bwrap_argv(bwrap: Bubblewrap, command: Sequence[str], *, cwd: str, socket: str | None,
               hide: Iterable[str] = (), scratch_mib: int = 64,
               extra_ro: Iterable[str] = ()) -> list[str]:
    """The full command line: ``bwrap OPTIONS -- command``.

    Args:
        bwrap: the bubblewrap to run (:func:`arena.sandbox.which.find`). command: the bot's argv (absolute program paths).
        cwd: the bot's directory (bound read-only; the sandbox starts there).
        socket: the arena's Unix socket, bound read-only at :data:`SANDBOX_SOCKET`.
        hide: directories not to expose even where they lie inside a bound directory.
        scratch_mib: size of the private ``/tmp``, MiB. extra_ro: more read-only paths.
    """
    visible = [d for d in SYSTEM_DIRS if os.path.lexists(d)]
    own = bot_dirs(cwd, command)
    python = python_dirs()
    visible += python + own + [p for p in extra_ro if os.path.exists(p)]
    args = [bwrap.path, "--unshare-all", "--die-with-parent", "--new-session",
            *bwrap.hardening(), "--hostname", "sandbox",
            # the scratch first: directories bound below may lie under /tmp
            "--size", str(scratch_mib << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    args += _ro_binds(os.path.realpath(p) if not (os.path.islink(p)
                                                  and os.path.dirname(p) == "/") else p
                      for p in visible)
    binds = [a for a in args if a.startswith("/") and a != "/tmp"]
    for h in sorted({os.path.realpath(h) for h in hide}):
        covered = any(_inside(h, b) for b in binds) and os.path.isdir(h)
        if covered and not any(_inside(o, h) for o in own + python):
            args += ["--perms", "0555", "--tmpfs", h, "--remount-ro", h]
    for f in HIDDEN_ETC:
        if os.path.isfile(f):
            args += ["--ro-bind", "/dev/null", f]
        elif os.path.isdir(f):
            args += ["--tmpfs", f]
    args += ["--proc", "/proc", "--dev", "/dev"]
    if socket is not None:
        args += ["--ro-bind", socket, SANDBOX_SOCKET]
    args += ["--chdir", os.path.realpath(cwd), "--", *command]
    return args
