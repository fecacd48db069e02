"""Atomic file writes: a file is replaced whole or not at all.

:func:`atomic_write_bytes` writes to a temporary file in the target's directory
(``.<name>.<random>.tmp``), flushes and fsyncs it, renames it over the target with
``os.replace`` and then fsyncs the directory (best effort). A crash or kill leaves either the
old file or the complete new one, never a half-written file; a SIGKILL may leave a stale
``.*.tmp`` file beside it (the tournament runner sweeps them,
:func:`arena.tournament.outdir.sweep_temp_files`). Records, standings and ``sprt.json`` are
written this way.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes"]


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring); the file gets
    ``mode`` (0644 by default; 0600: the temporary file is created owner-only and stays so,
    never readable by others, not even for a moment). Returns the path written.

    Raises:
        OSError: the directory is not writable, the disk is full, ...; the temporary file is
            removed and an existing target is left untouched.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if mode != 0o600:             # mkstemp makes 0600
                os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)
    return target


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (POSIX); ignored where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
