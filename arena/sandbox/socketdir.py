"""The private directory holding the arena's Unix domain socket.

The directory is created with mode 0700 (only the arena's user may enter it) under the system's
temporary directory, and removed with everything in it on :meth:`SocketDir.close`. Sandboxed
bots see only the socket file itself, bound read-only into their sandbox (see
:mod:`arena.sandbox.bwrap`).

Its name carries the arena's process id (``arena-<pid>-<random>``): an arena killed with
SIGKILL cannot remove its directory, so the next one made by the same user removes those
whose process is gone and whose socket no longer answers (:func:`sweep_stale`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

#: the socket's file name inside the directory
SOCKET_NAME = "arena.sock"
#: sun_path holds 108 bytes on Linux, including the terminating NUL
_MAX_PATH = 107


class SocketDir:
    """A fresh 0700 directory for ``arena.sock``; a context manager.

    Raises:
        OSError: the directory cannot be created, or its path is too long for a socket
            (set ``TMPDIR`` to a shorter directory).
    """

    def __init__(self, parent: str | None = None) -> None:
        sweep_stale(Path(parent or tempfile.gettempdir()))
        self.path = Path(tempfile.mkdtemp(prefix=f"arena-{os.getpid()}-", dir=parent))
        os.chmod(self.path, 0o700)
        if len(os.fsencode(self.socket)) > _MAX_PATH:
            self.close()
            raise OSError(f"the socket path {self.socket} is longer than {_MAX_PATH} bytes; "
                          "set TMPDIR to a shorter directory")

    @property
    def socket(self) -> str:
        """The socket's path (the server creates the file when it starts listening)."""
        return str(self.path / SOCKET_NAME)

    def close(self) -> None:
        """Remove the directory and the socket (idempotent)."""
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> SocketDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:       # another user's process
        return True
    return True


def _answers(sock: Path) -> bool:
    """Whether something listens on the Unix socket ``sock`` (a live arena's server)."""
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(str(sock))
        except OSError:
            return False
    return True


def sweep_stale(parent: Path) -> int:
    """Remove the socket directories under ``parent`` that a killed arena of this user left:
    named ``arena-<pid>-*``, owned by this user, their process gone and their socket (if
    any) answering no connection. Returns how many were removed; never raises."""
    removed = 0
    try:
        entries = list(parent.glob("arena-*-*"))
    except OSError:
        return 0
    for path in entries:
        pid = path.name.split("-")[1]
        try:
            if (not pid.isdigit() or path.is_symlink() or not path.is_dir()
                    or path.stat().st_uid != os.getuid() or _alive(int(pid))
                    or _answers(path / SOCKET_NAME)):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed
