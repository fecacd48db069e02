"""Connecting the driver to Ray without hanging: a TCP probe of the cluster address before
``ray.init`` (nothing listening is a one-line error at once), and ``ray.init`` in a thread of
its own under a watchdog (on an address that does not answer as Ray it retries for ever inside
Ray's C++ core, where no signal reaches Python), so the event loop stays free and a signal
stops the run at any moment.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from types import ModuleType

from ..errors import UserError


class ClusterError(UserError):
    """The Ray cluster cannot be used: not reachable, too small, or workers keep dying."""


#: seconds ray.init may take to connect before the run stops with ClusterError
CONNECT_TIMEOUT_S = 60.0
#: seconds the TCP probe of a cluster address waits for the connection
PROBE_TIMEOUT_S = 5.0


def sentence(text: str, limit: int = 300) -> str:
    """Ray's message on one line (its lines joined), cut at a word, not in one."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + " ..."


def _settle(fut: asyncio.Future[None], exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is None:
        fut.set_result(None)
    else:
        fut.set_exception(exc)


def probe_target(address: str) -> tuple[str, int] | None:
    """The ``(host, port)`` a cluster address dials first (``HOST:PORT``, ``ray://HOST:PORT``,
    ``auto`` with ``RAY_ADDRESS`` set to one of those), or None (``local``, plain ``auto``)."""
    if address == "auto":
        address = os.environ.get("RAY_ADDRESS", "").strip() or "auto"
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def probe(address: str) -> None:
    """Raise ClusterError when nothing accepts a TCP connection where ``address`` points."""
    target = probe_target(address)
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=PROBE_TIMEOUT_S).close()
    except OSError as exc:
        why = "nothing listens there" if isinstance(exc, ConnectionRefusedError) else \
            (exc.strerror or str(exc) or type(exc).__name__)
        raise ClusterError(f"cannot connect to the Ray cluster at {address}: {why} (TCP "
                           f"{target[0]} port {target[1]}); check [cluster] address or "
                           "--ray") from None


def start_init(ray: ModuleType, kwargs: dict[str, object]) -> asyncio.Future[None]:
    """Run ``ray.init(**kwargs)`` in a daemon thread; the future resolves with its outcome.
    The thread then lives as long as the process: Ray starts its processes (GCS, raylet for
    ``"local"``) with a parent-death signal, sent when the *thread* that started them ends."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def init() -> None:
        try:
            ray.init(**kwargs)
        except BaseException as exc:  # handed to the awaiting task
            loop.call_soon_threadsafe(_settle, done, exc)
            return
        loop.call_soon_threadsafe(_settle, done, None)
        threading.Event().wait()

    # a daemon thread: one stuck in ray.init does not keep the process alive at exit
    threading.Thread(target=init, name="ray.init", daemon=True).start()
    return done


async def wait_init(done: asyncio.Future[None], address: str) -> None:
    """Wait for :func:`start_init`'s outcome, at most :data:`CONNECT_TIMEOUT_S` seconds.

    Raises:
        ClusterError: ray.init failed (its message on one line) or did not return in time.
    """
    try:
        await asyncio.wait_for(asyncio.shield(done), CONNECT_TIMEOUT_S)
    except (ConnectionError, RuntimeError, ValueError, TypeError, TimeoutError) as exc:
        if not done.done():   # the watchdog's
            raise ClusterError(f"cannot connect to the Ray cluster at {address}: no answer "
                               f"within {CONNECT_TIMEOUT_S:g} s (is it the GCS port of a Ray "
                               "cluster, e.g. 6379?)") from None
        hint = (" (start one with `ray start --head`, or use address = \"local\")"
                if address == "auto" else "")
        raise ClusterError(f"cannot connect to the Ray cluster at {address}: "
                           f"{sentence(str(exc)) or type(exc).__name__}{hint}") from None
