"""Keeping Ray's own log lines off the arena's terminal.

Ray's C++ core logs every failed connection attempt on the process's stderr (file descriptor 2,
``[2026-01-01 12:00:00,000 W 123 456] rpc_client.h:153: Failed to connect to GCS ...``), and
its Python logger adds lines such as ``2026-01-01 12:00:00,000\tWARNING worker.py:1681 -- ...``.
:class:`RayLogFilter` puts a pipe in place of descriptor 2 while Ray connects: a thread copies
every line to the real stderr, except Ray's, which go to a log file (``OUT/logs/ray.log``).
:meth:`RayLogFilter.stop` puts the real stderr back and copies what is left; it also runs at
exit (a ``ray.init`` that never returns keeps the filter until then).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading
from pathlib import Path
from typing import BinaryIO

#: a line Ray logged: its C++ core's format, or its Python logger's
RAY_LINE = re.compile(rb"^(\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [DIWEF] \d+ \d+\] |"
                      rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\t[A-Z]+ \S+:\d+ -- )")


class RayLogFilter:
    """Filters Ray's lines out of descriptor 2 between :meth:`start` and :meth:`stop`.

    Args:
        sink: the file Ray's lines are appended to (None: dropped).
    """

    def __init__(self, sink: Path | None) -> None:
        self.sink = sink
        self._saved: int | None = None
        self._write: int | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Put the pipe in place (idempotent)."""
        with self._lock:
            if self._saved is not None:
                return
            read, write = os.pipe()
            self._saved = os.dup(2)
            os.dup2(write, 2)
            self._write = write
            self._thread = threading.Thread(target=self._copy, args=(read, self._saved),
                                            name="ray-log-filter", daemon=True)
            self._thread.start()
        atexit.register(self.stop)

    def _copy(self, read: int, terminal: int) -> None:
        """Copy lines until every writer is gone; then close ``terminal`` (a copy of the real
        stderr that this thread owns)."""
        sink: BinaryIO | None = None
        try:
            if self.sink is not None:
                with contextlib.suppress(OSError):
                    self.sink.parent.mkdir(parents=True, exist_ok=True)
                    sink = open(self.sink, "ab")  # noqa: SIM115 - closed in finally
            with os.fdopen(read, "rb", buffering=0) as pipe:
                pending = b""
                while chunk := pipe.read(65536):
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        self._route(line + b"\n", terminal, sink)
                if pending:
                    self._route(pending, terminal, sink)
        finally:
            if sink is not None:
                sink.close()
            with contextlib.suppress(OSError):
                os.close(terminal)

    @staticmethod
    def _route(line: bytes, terminal: int, sink: BinaryIO | None) -> None:
        if RAY_LINE.match(line):
            if sink is not None:
                with contextlib.suppress(OSError):
                    sink.write(line)
            return
        with contextlib.suppress(OSError):
            os.write(terminal, line)

    def stop(self) -> None:
        """Put the real stderr back and copy the lines still in the pipe (idempotent)."""
        with self._lock:
            saved, write, thread = self._saved, self._write, self._thread
            self._saved = self._write = self._thread = None
        if saved is None or write is None:
            return
        os.dup2(saved, 2)
        os.close(write)   # the thread copies on until no process holds the pipe (Ray's own,
        if thread is not None:   # started while it was their stderr, may still)
            thread.join(2.0)
        atexit.unregister(self.stop)
