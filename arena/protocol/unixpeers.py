"""Who holds the connections to the arena's Unix socket: the kernel's ``SO_PEERCRED``.

gRPC tells no Unix-socket connection from another (its peer string is just ``"unix:"``), but
the kernel knows the process that opened each one: :func:`connections` finds this process's
accepted ends of connections to its socket (its sockets bound to the socket's path, not the
listening one) and asks each for its peer's pid, in this process's PID namespace even when the
peer runs in a sandbox's. :func:`shut_down` ends connections under gRPC (``shutdown(2)`` on a
copy of the descriptor: gRPC sees the connection closed and cleans it up itself). The server
uses them to cap the connections one process may hold (:data:`MAX_CONNECTIONS_PER_PROCESS`).
Linux only; where ``/proc/self/fd`` cannot be read, nothing is found.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct

#: connections to the Unix socket one process may hold (a bot needs one)
MAX_CONNECTIONS_PER_PROCESS = 4


def connections(socket_path: str) -> dict[int, list[int]]:
    """pid -> this process's descriptors of the connections that pid opened to
    ``socket_path``."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return {}
    found: dict[int, list[int]] = {}
    for name in fds:
        fd = int(name)
        pid = _peer_pid(fd, socket_path)
        if pid is not None:
            found.setdefault(pid, []).append(fd)
    return found


def _peer_pid(fd: int, socket_path: str) -> int | None:
    """The peer's pid of descriptor ``fd`` if it is a connection to ``socket_path``."""
    try:
        if not os.readlink(f"/proc/self/fd/{fd}").startswith("socket:["):
            return None
        with socket.socket(fileno=os.dup(fd)) as sock:
            if (sock.family != socket.AF_UNIX
                    or sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                    or sock.getsockname() != socket_path):
                return None
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                    struct.calcsize("3i"))
    except (OSError, ValueError):
        return None
    pid = struct.unpack("3i", creds)[0]
    return pid if pid > 0 else None


def shut_down(fds: list[int], pid: int, socket_path: str) -> int:
    """``shutdown(SHUT_RDWR)`` each connection that ``pid`` still holds (checked again: gRPC may
    have closed a descriptor and reused it since); the descriptors stay gRPC's. How many."""
    done = 0
    for fd in fds:
        if _peer_pid(fd, socket_path) != pid:
            continue
        with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
            done += 1
    return done


def describe(pid: int) -> str:
    """``"process 123 (python3 bot.py)"``: the pid and its command line, shortened."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        cmd = "?"
    cmd = "".join(ch if ch.isprintable() else "?" for ch in cmd)
    return f"process {pid} ({cmd[:200]})"
