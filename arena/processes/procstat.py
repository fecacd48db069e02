"""``/proc/PID/stat`` as the process-handling modules read it (Linux, ``proc(5)``); standard
library only, so the bot supervisor and the Ray reaper can use it in their small processes."""

from __future__ import annotations


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields after the command name of ``/proc/PID/stat``: index 0 is the state (field 3
    of ``proc(5)``), 1 the parent pid, 2 the process group, ..., 19 the start time in clock
    ticks. None when the process is gone (or ``/proc`` cannot be read). The command name may
    hold spaces and parentheses, so the line is split after its last ``)``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()


def is_gone(pid: int) -> bool:
    """Whether process ``pid`` has ended: no longer listed, or a zombie (``Z``) or dead
    (``X``) entry waiting to be reaped."""
    fields = stat_fields(pid)
    return not fields or fields[0] in (b"Z", b"X")
