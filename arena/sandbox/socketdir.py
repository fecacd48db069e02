"""The private directory holding the arena's Unix domain socket.

The directory is created with mode 0700 (only the arena's user may enter it) under the system's
temporary directory, and removed with everything in it on :meth:`SocketDir.close`. Sandboxed
bots see only the socket file itself, bound read-only into their sandbox (see
:mod:`arena.sandbox.bwrap`).
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
        self.path = Path(tempfile.mkdtemp(prefix="arena-", dir=parent))
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
