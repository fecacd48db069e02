"""Running the arena as root and as an unprivileged user, for the attack tests.

Every attack of tests/sandbox/test_attacks.py runs twice: with the arena as root (CI runs as
root; skipped, with the reason, when the suite runs as a user) and as an unprivileged user
(the suite's own user when it is not root; as root, ``nobody`` through util-linux's
``setpriv``). A root-owned Python often lives under a directory other users cannot enter
(``/root/.pyenv``): the user pass then runs in a private mount namespace (``unshare
--mount``) where that directory is replaced by an empty tmpfs holding only the interpreter's
prefix, bound at its own path, so that the user can run the same interpreter and packages.
Nothing outside that namespace changes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

import arena

#: the unprivileged user of the user pass when the suite runs as root (``nobody``)
USER_UID = 65534


def _hidden_ancestor(path: str) -> str | None:
    """The highest ancestor of ``path`` that other users cannot enter, or None."""
    parts = Path(path).resolve().parts
    for i in range(1, len(parts)):
        d = Path(*parts[:i + 1])
        if not d.stat().st_mode & stat.S_IXOTH:
            return str(d)
    return None


def _needed() -> list[str]:
    """What the user must reach: the interpreter's prefixes and this checkout's packages."""
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths.add(str(Path(arena.__file__).resolve().parents[1]))
    return sorted(paths)


def user_prefix() -> tuple[list[str] | None, str]:
    """``(argv prefix, "")`` that runs a command as an unprivileged user, or ``(None,
    reason)`` when this machine cannot."""
    if os.geteuid() != 0:
        return [], ""
    for tool in ("unshare", "setpriv", "mount"):
        if shutil.which(tool) is None:
            return None, f"the user pass needs util-linux's {tool}, which is not installed"
    lines = ["set -e"]
    moved = [(i, path, _hidden_ancestor(path)) for i, path in enumerate(_needed())]
    moved = [(f"/run/arena-user-pass/{i}", path, hidden)
             for i, path, hidden in moved if hidden is not None]
    for keep, path, _ in moved:              # first keep each, then cover, then put back
        lines += [f"mkdir -p {keep}", f"mount --bind {shlex.quote(path)} {keep}"]
    for hidden in sorted({h for _, _, h in moved}):
        lines.append(f"mount -t tmpfs -o mode=755 tmpfs {shlex.quote(hidden)}")
    for keep, path, _ in moved:
        lines += [f"mkdir -p {shlex.quote(path)}", f"mount --bind {keep} {shlex.quote(path)}"]
    lines.append(f'exec setpriv --reuid {USER_UID} --regid {USER_UID} --clear-groups -- "$@"')
    script = "\n".join(lines)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "as-user"], ""


def shared_dir(base: Path) -> Path:
    """``base`` made reachable and writable for the user pass (world-writable, sticky)."""
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o1777)
    return base
