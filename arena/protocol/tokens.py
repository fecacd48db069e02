"""The tokens an :class:`arena.protocol.server.ArenaServer` expects: the arena's name for each,
the transport it may register over, and its peer check.

Tokens are kept by their SHA-256 (so a lookup's timing tells nothing about the expected
tokens) and then compared with :func:`hmac.compare_digest`. A token may be bound to one
transport: ``"unix"`` for a bot the arena starts and gives its Unix socket, ``"tcp"`` for a
remote bot (see :meth:`Tokens.transport_problem`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Literal

#: a token's peer check: None when the peer is the expected process, else why not
PeerCheck = Callable[[str], "str | None"]
#: the listener a stream came over
Transport = Literal["tcp", "unix"]
_WHERE = {"tcp": "over TCP", "unix": "over the arena's Unix socket"}


def transport_of(peer: str) -> Transport:
    """``"unix"`` for gRPC's peer string of a Unix-socket connection, else ``"tcp"``."""
    return "unix" if peer.startswith("unix:") else "tcp"


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Tokens:
    """The expected tokens (see the module docstring)."""

    def __init__(self) -> None:
        #: sha256(token) -> (token, name, the transport it may use or None for either)
        self._expected: dict[bytes, tuple[str, str, Transport | None]] = {}
        self._checks: dict[bytes, PeerCheck] = {}

    def expect(self, token: str, name: str, *, transport: Transport | None = None,
               peer_check: PeerCheck | None = None) -> None:
        """Expect ``token`` for the bot ``name`` (see ``ArenaServer.expect``).

        Raises:
            ValueError: empty token or name, or an unknown transport.
        """
        if not token or not name:
            raise ValueError("expect() needs a non-empty token and name")
        if transport not in (None, "tcp", "unix"):
            raise ValueError(f"transport must be 'tcp', 'unix' or None, not {transport!r}")
        self._expected[_digest(token)] = (token, name, transport)
        if peer_check is not None:
            self._checks[_digest(token)] = peer_check

    def set_peer_check(self, token: str, check: PeerCheck) -> None:
        self._checks[_digest(token)] = check

    def peer_check(self, token: str) -> PeerCheck | None:
        return self._checks.get(_digest(token))

    def clear_peer_checks(self) -> None:
        self._checks.clear()

    def forget(self, token: str) -> None:
        self._expected.pop(_digest(token), None)
        self._checks.pop(_digest(token), None)

    def name_for(self, token: str) -> str | None:
        """The arena's name for ``token``, or None (constant-time comparison)."""
        entry = self._expected.get(_digest(token))
        if entry is None or not hmac.compare_digest(
                entry[0].encode("utf-8", "surrogatepass"),
                token.encode("utf-8", "surrogatepass")):
            return None
        return entry[1]

    def transport_problem(self, token: str, name: str, transport: Transport) -> str | None:
        """Why ``token`` (the bot ``name``'s) may not register over ``transport``, or None."""
        entry = self._expected.get(_digest(token))
        wanted = entry[2] if entry is not None else None
        if wanted is None or wanted == transport:
            return None
        if wanted == "tcp":
            return (f"the token of remote bot {name!r} came {_WHERE[transport]}, which is for "
                    "the bots the arena starts; remote bots connect to the arena's TCP address")
        return (f"the token of {name!r}, a bot the arena started and gave its Unix socket, came "
                f"{_WHERE[transport]}")
