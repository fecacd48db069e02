"""The ``bwrap`` (bubblewrap) command line of a sandboxed bot.

Isolation (the threat model is in docs/security.md):

- **privileges**: no capability, ``no_new_privs``, uid and gid 65534 inside, no further user
  namespaces (:meth:`~arena.sandbox.which.Bubblewrap.hardening`): a bot started by a root
  arena can do no more than one started by an ordinary user (no remount, no ``umount``).
- **filesystem**: an empty root, read-only once built (``--remount-ro /``), holding only, read
  only: the system directories (``/usr`` and its ``/bin``, ``/lib``... links, ``/etc``
  without its password, sudo, SSH and TLS-key files), the arena's Python environment
  (:func:`python_dirs`: the interpreter's prefixes with their installed packages, the user's
  site-packages, and the directories of the ``arena`` and ``sample_bots`` packages themselves
  for an editable install; never their parent, the current directory or ``sys.path[0]``), the
  bot's own directory (its configured ``cwd``, and the directories of the files named in its
  command, except the operator's own directories: :func:`bot_paths`) and the ``ro_paths`` of
  its config.
  Writable: a private ``/tmp`` and ``/dev/shm``, tmpfs of ``scratch_mib`` each (the
  supervisor counts their contents with the bot's memory, :mod:`arena.sandbox.usage`); ``/dev``
  itself is read-only. Paths to hide (the output directory, the config file, other bots'
  directories) are covered where they fall inside a bound directory. Nothing else exists.
- **network**: its own network namespace (only a loopback nobody listens on); the arena's
  Unix socket is bound in as the one way out, at :data:`SANDBOX_SOCKET`.
- **system calls**: a seccomp filter refuses the ones no bot needs and an attacker would use
  (System V shared memory, anonymous memory files, keyrings, bpf, io_uring, ptrace...:
  :mod:`arena.sandbox.seccomp`).
- **processes**: its own PID, IPC, UTS, user and cgroup namespaces, ``--new-session`` (no
  terminal injection), ``--die-with-parent`` (the sandbox dies with the arena, whatever
  kills it; the PID namespace ends every process in it when its init goes).
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .which import Bubblewrap

#: where the arena's Unix socket appears inside a sandbox
SANDBOX_SOCKET = "/run/arena/arena.sock"
#: the sandbox's working directory when the bot has no ``cwd`` of its own (its scratch)
SCRATCH = "/tmp"
#: system directories bound read-only when they exist (symlinks are recreated as symlinks)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
               "/opt/node", "/usr/local")
#: files and directories under /etc a bot has no business reading (covered by empty ones)
HIDDEN_ETC = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers",
              "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd",
              "/etc/credstore", "/etc/credstore.encrypted", "/etc/wireguard",
              "/etc/NetworkManager/system-connections", "/etc/machine-id")
#: packages of this project a sandboxed bot may import (the SDK, the sample bots)
OWN_PACKAGES = ("arena", "sample_bots")


@dataclass(frozen=True)
class PythonEnv:
    """What a sandboxed bot sees of the arena's Python: ``dirs`` bound read-only, and
    ``path`` (directories put on the sandbox's ``PYTHONPATH`` so that :data:`OWN_PACKAGES`
    found outside the bound prefixes import: each holds only those packages in the
    sandbox)."""

    dirs: tuple[str, ...]
    path: tuple[str, ...]


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def python_dirs() -> PythonEnv:
    """The arena's Python environment as a bot may see it (see :class:`PythonEnv`): the
    prefixes (``sys.prefix``, ``sys.base_prefix``, ``sys.exec_prefix``: the interpreter, its
    standard library and site-packages; a virtual environment's directory), the user's
    site-packages when it is on the import path, and the directories of :data:`OWN_PACKAGES`
    when they lie outside those (an editable install or ``PYTHONPATH``). Never a package's
    parent directory (a source checkout's root), the current directory, ``sys.path[0]`` or
    other ``PYTHONPATH`` entries."""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots.discard("/")
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and user_site in sys.path and os.path.isdir(user_site):
        roots.add(os.path.realpath(user_site))
    dirs = {r for r in roots if os.path.isdir(r)}
    path: list[str] = []
    for name in OWN_PACKAGES:
        pkg = _package_dir(name)
        if pkg is None or any(_inside(pkg, r) for r in dirs):
            continue
        dirs.add(pkg)
        parent = os.path.dirname(pkg)
        if parent not in path:
            path.append(parent)
    return PythonEnv(tuple(sorted(dirs)), tuple(path))


def _package_dir(name: str) -> str | None:
    """The resolved directory of the importable package ``name``, or None."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(next(iter(spec.submodule_search_locations)))


def bot_paths(cwd: str | None, command: Sequence[str]) -> list[str]:
    """What the bot may read of its own: its ``cwd`` (a directory) when it has one, and for
    each existing file named by absolute path in ``command`` (its program, its script) the
    file's directory, or the file alone where that directory is one of the operator's own
    (:func:`operator_dirs`: the working directory, the home directory, a source checkout's
    root, or one of their ancestors)."""
    out = {os.path.realpath(cwd)} if cwd else set()
    unsafe = operator_dirs()
    for arg in command:
        if os.path.isabs(arg) and os.path.isfile(arg):
            path = os.path.realpath(arg)
            parent = os.path.dirname(path)
            out.add(path if any(_inside(u, parent) for u in unsafe) else parent)
    return sorted(out)


#: the options of a Python interpreter whose value is the next argument (``-W ignore``,
#: ``-X dev``): that value is not the script
_PYTHON_VALUED = ("-W", "-X", "--check-hash-based-pycs")


def _is_python(program: str) -> bool:
    """Whether ``program`` names a Python interpreter (``python3.11``, ``/usr/bin/pypy3``)."""
    name = os.path.basename(program)
    return name.startswith(("python", "pypy"))


def absolute_files(cwd: str | None, command: Sequence[str]) -> list[str]:
    """``command`` with its relative file paths made absolute (and normalised: ``..`` cannot
    climb through a directory the sandbox does not show), for a bot without ``cwd`` (it
    would start in the arena's working directory, where those paths are read; the sandbox
    starts it elsewhere and shows it only its own files, so they are named in full: README
    "Running untrusted bots"). A path is an argument written with a ``/`` (``sub/bot.py``,
    ``../bot.py``), or the script: the first argument after the program that is not an
    option (``bot.py`` in ``python -u bot.py``; not after ``-m`` or ``-c``); either only when
    that file exists; the value of a Python interpreter's ``-W``/``-X`` option is not the
    script (``python -W ignore bot.py``). Option values (``--temp 1.5``) are never
    rewritten, whatever files lie around. Unchanged with a ``cwd`` (the sandbox starts the
    bot there)."""
    if cwd:
        return list(command)
    here = os.getcwd()
    out = list(command)
    script_seen = False
    valued = _PYTHON_VALUED if command and _is_python(command[0]) else ()
    for i, arg in enumerate(command):
        script = False
        if i > 0 and not script_seen and arg and not arg.startswith("-") \
                and command[i - 1] not in valued:
            script_seen = True
            script = command[i - 1] not in ("-m", "-c")
        if (script or "/" in arg) and arg and not os.path.isabs(arg):
            full = os.path.normpath(os.path.join(here, arg))
            if os.path.isfile(full):
                out[i] = full
    return out


def operator_dirs() -> list[str]:
    """Directories never exposed whole to a bot that has no ``cwd`` of its own: the arena's
    working directory, the home directory and the root of the checkout holding the
    ``arena`` package (an editable install); a bot whose script lies in one of them (or in
    one of their ancestors) sees that file only."""
    import arena
    dirs = {os.path.realpath(os.getcwd()), str(Path(arena.__file__).resolve().parents[1])}
    home = os.path.expanduser("~")
    if home and home != "~":
        dirs.add(os.path.realpath(home))
    return sorted(dirs)


def bot_dirs(cwd: str | None, command: Sequence[str]) -> list[str]:
    """The directories among :func:`bot_paths` (what other bots must not see)."""
    return [p for p in bot_paths(cwd, command) if os.path.isdir(p)]


def _ro_binds(paths: Iterable[str]) -> list[str]:
    """``--ro-bind`` arguments, parents first, nested duplicates dropped (a top-level symlink
    such as ``/bin -> usr/bin`` is recreated as a symlink)."""
    out: list[str] = []
    chosen: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count("/"), s)):
        if any(_inside(p, c) for c in chosen):
            continue
        chosen.append(p)
    for p in chosen:
        if os.path.islink(p) and os.path.dirname(p) == "/":
            out += ["--symlink", os.readlink(p), p]
        else:
            out += ["--ro-bind", p, p]
    return out


def _visible(extra_ro: Iterable[str], own: Sequence[str], python: PythonEnv) -> list[str]:
    """Every path to bind read-only, resolved (top-level symlinks kept as they are)."""
    visible = [d for d in SYSTEM_DIRS if os.path.lexists(d)]
    visible += [*python.dirs, *own, *(p for p in extra_ro if os.path.exists(p))]
    return [p if os.path.islink(p) and os.path.dirname(p) == "/" else os.path.realpath(p)
            for p in visible]


def _hidden(hide: Iterable[str], binds: Sequence[str], keep: Sequence[str]) -> list[str]:
    """Cover each of ``hide`` that lies inside a bound path (an empty read-only tmpfs over a
    directory, ``/dev/null`` over a file), unless it holds one of ``keep``; then the
    :data:`HIDDEN_ETC` files."""
    args: list[str] = []
    for h in sorted({os.path.realpath(h) for h in hide}):
        if not any(_inside(h, b) for b in binds) or any(_inside(k, h) for k in keep):
            continue
        if os.path.isdir(h):
            args += ["--perms", "0555", "--tmpfs", h, "--remount-ro", h]
        elif os.path.exists(h):
            args += ["--ro-bind", "/dev/null", h]
    for f in HIDDEN_ETC:
        if os.path.isdir(f) and not os.path.islink(f):
            args += ["--perms", "0555", "--tmpfs", f, "--remount-ro", f]
        elif os.path.lexists(f):
            args += ["--ro-bind", "/dev/null", f]
    return args


def _theirs(others: Iterable[str], shared: Sequence[str]) -> list[str]:
    """Other bots' paths that are theirs alone: not inside or around what every bot reads
    (``shared``: the system directories, the Python environment, this bot's own paths), such
    as the interpreter another bot's command names."""
    return [p for p in {os.path.realpath(o) for o in others}
            if not any(_inside(p, s) or _inside(s, p) for s in shared)]


def bwrap_argv(bwrap: Bubblewrap, command: Sequence[str], *, cwd: str | None,
               socket: str | None, hide: Iterable[str] = (), others: Iterable[str] = (),
               scratch_mib: int = 64, extra_ro: Iterable[str] = (),
               python: PythonEnv | None = None, seccomp_fd: int | None = None) -> list[str]:
    """The full command line: ``bwrap OPTIONS -- command``.

    Args:
        bwrap: the bubblewrap to run (:func:`arena.sandbox.which.find`).
        command: the bot's argv (absolute program paths).
        cwd: the bot's own directory (bound read-only; the sandbox starts there), or None:
            only the files named in ``command`` are bound and it starts in its ``/tmp``.
        socket: the arena's Unix socket, bound read-only at :data:`SANDBOX_SOCKET`.
        hide: paths not to expose even where they lie inside a bound directory (the output
            directory, the config file).
        others: the other bots' own paths (:func:`bot_paths`), hidden likewise where they
            are theirs alone (:func:`_theirs`).
        scratch_mib: size of the private ``/tmp`` and of ``/dev/shm``, MiB each.
        extra_ro: more read-only paths (``ro_paths``; missing ones are skipped).
        python: the Python environment to expose (default :func:`python_dirs`).
        seccomp_fd: a descriptor (open in bubblewrap's process) holding the seccomp filter
            of :mod:`arena.sandbox.seccomp`, or None.
    """
    python = python if python is not None else python_dirs()
    own = bot_paths(cwd, command)
    size = str(scratch_mib << 20)
    args = [bwrap.path, "--unshare-all", "--die-with-parent", "--new-session",
            *bwrap.hardening(), "--hostname", "sandbox",
            *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            # the scratch first: directories bound below may lie under /tmp
            "--size", size, "--perms", "1777", "--tmpfs", "/tmp"]
    visible = _visible(extra_ro, own, python)
    binds = _ro_binds(visible)
    args += binds
    keep = [*own, *python.dirs]
    shared = [os.path.realpath(d) for d in SYSTEM_DIRS if os.path.lexists(d)] + keep
    args += _hidden([*hide, *_theirs(others, shared)], [a for a in binds if a.startswith("/")],
                    keep=keep)
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", size, "--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    if socket is not None:
        args += ["--ro-bind", socket, SANDBOX_SOCKET]
    args += ["--remount-ro", "/",
             "--chdir", os.path.realpath(cwd) if cwd else SCRATCH, "--", *command]
    return args


def sandbox_env_path(python: PythonEnv, bot_env: dict[str, str]) -> str | None:
    """The ``PYTHONPATH`` a sandboxed bot gets: the bot's own (its config's ``env``) followed
    by :attr:`PythonEnv.path`; None when both are empty."""
    parts = [p for p in bot_env.get("PYTHONPATH", "").split(os.pathsep) if p]
    parts += [p for p in python.path if p not in parts]
    return os.pathsep.join(parts) or None

