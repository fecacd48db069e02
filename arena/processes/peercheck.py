"""Which local process opened a connection to the arena: the check that a spawned bot's token
is used by the process the arena started for it.

A spawned bot gets its token in the environment only (``ARENA_TOKEN``), which other users
cannot read; a registration with that token from any other process means the token leaked. For
a TCP peer on this host, the kernel knows the socket: :func:`socket_inode` finds the client end
in ``/proc/net/tcp`` / ``tcp6`` (local port = the peer's port, remote port = the arena's), and
:func:`owners` finds the processes holding it open (``/proc/PID/fd/*`` -> ``socket:[INODE]``).
:func:`check_peer` accepts the peer when one of them is in the process tree of the bot's
supervisor (the supervisor is a child subreaper, so every process the bot started is in it).

A registration over the arena's **Unix socket** (spawned bots, sandboxed or not) carries no
peer address (gRPC's peer string is ``"unix:"``), but the kernel knows who holds every
connection: :func:`unix_peers` finds the arena's accepted ends of connections to its socket
(its own sockets with the socket's address) and asks each for its peer's credentials
(``SO_PEERCRED``: the pid of the process that connected, in the arena's PID namespace even
when the bot runs in a sandbox's). :func:`check_unix_peer` accepts the
registration when a process of the bot's tree holds one of them. gRPC does not say which
connection carried the registration: when the bot itself and a token thief are both connected,
the check passes, and the bot's own registration is then refused as already connected (a
crash with that reason in its log).

Limits (documented in the README): only processes of the arena's own user can be inspected; a
connection from another host, another user's process or another network namespace (a bot run
in a container) cannot be traced and is reported as such. Linux only (``/proc``).
"""

from __future__ import annotations

import os
import re

from ..protocol.unixpeers import connections, describe
from .supervisor import parent_map

_PEER = re.compile(r"^ipv[46]:\[?(?P<host>[^\]]*)\]?:(?P<port>\d+)$")


def parse_peer(peer: str) -> tuple[str, int] | None:
    """``"ipv4:127.0.0.1:5555"`` / ``"ipv6:[::1]:5555"`` (gRPC's peer form) -> (host, port);
    None for other forms (e.g. ``unix:``)."""
    m = _PEER.match(peer)
    return (m["host"], int(m["port"])) if m else None


def socket_inode(local_port: int, remote_port: int) -> int | None:
    """Inode of the TCP socket whose local port is ``local_port`` and whose remote port is
    ``remote_port`` (the client end of a connection to this host), or None."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 10:
                continue
            lport = int(parts[1].rsplit(":", 1)[1], 16)
            rport = int(parts[2].rsplit(":", 1)[1], 16)
            if lport == local_port and rport == remote_port and parts[9] != "0":
                return int(parts[9])
    return None


def process_tree(root: int) -> set[int]:
    """``root`` and all its live descendants."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parent_map().items():
        children.setdefault(ppid, []).append(pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in tree:
            tree.add(pid)
            todo.extend(children.get(pid, ()))
    return tree


def owners(inode: int, pids: set[int] | None = None) -> list[int]:
    """PIDs (among ``pids``, default: every process we may inspect) holding socket ``inode``."""
    link = f"socket:[{inode}]"
    candidates = pids if pids is not None else [int(p) for p in os.listdir("/proc")
                                                  if p.isdigit()]
    found = []
    for pid in candidates:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == link:
                    found.append(pid)
                    break
            except OSError:
                continue
    return found


def check_peer(peer: str, server_port: int, root_pid: int) -> str | None:
    """None when the connection from ``peer`` (gRPC's peer string) to ``server_port`` is held
    by a process in ``root_pid``'s tree; otherwise why not, as a phrase such as ``"it came from
    process 123 (python3 probe.py)"``."""
    where = parse_peer(peer)
    if where is None:
        return f"its peer {peer!r} is not a TCP connection that can be traced"
    inode = socket_inode(where[1], server_port)
    if inode is None:
        return (f"it came from {where[0]} port {where[1]}, which is no connection of a process "
                "on this host that the arena can see")
    if owners(inode, process_tree(root_pid)):
        return None
    found = owners(inode)
    if found:
        return "it came from " + ", ".join(describe(p) for p in found)
    return (f"it came from {where[0]} port {where[1]}, held by a process the arena cannot "
            "inspect (another user's, or in another namespace)")


def unix_peers(socket_path: str) -> list[int]:
    """PIDs of the processes connected to this process's Unix socket ``socket_path`` (one per
    open connection), from :func:`arena.protocol.unixpeers.connections` (each accepted
    socket's ``SO_PEERCRED``). ``/proc/net/unix`` is no help: an accepted socket belongs to the
    connecting process's network namespace (a sandbox's). Empty where ``/proc/self/fd`` cannot
    be read."""
    return [pid for pid, fds in connections(socket_path).items() for _ in fds]


def check_unix_peer(socket_path: str, root_pid: int) -> str | None:
    """None when a process in ``root_pid``'s tree holds a connection to the arena's Unix
    socket ``socket_path`` (see the module docstring); otherwise why not, as a phrase such as
    ``"it came over the arena's Unix socket, from process 123 (python3 thief.py)"``."""
    peers = unix_peers(socket_path)
    if not peers:
        return "it came over the arena's Unix socket, whose connections cannot be read"
    tree = process_tree(root_pid)
    if any(p in tree for p in peers):
        return None
    ours = process_tree(os.getpid())
    strangers = sorted({p for p in peers if p not in ours})
    if strangers:
        return ("it came over the arena's Unix socket, from "
                + " or ".join(describe(p) for p in strangers))
    return ("it came over the arena's Unix socket, from another bot's process: "
            + " or ".join(describe(p) for p in sorted(set(peers))))
