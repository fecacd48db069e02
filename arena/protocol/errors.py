"""Typed errors of the protocol edge (server side and SDK)."""

from __future__ import annotations


class ArenaProtocolError(Exception):
    """Base class of the errors :mod:`arena.protocol` raises."""


class ServerStartError(ArenaProtocolError):
    """The gRPC server could not bind its address (the message names the address)."""


class UnknownTokenError(ArenaProtocolError, ValueError):
    """``wait_for_bot`` was asked for a token that was never registered with ``expect``."""


class BotConnectTimeout(ArenaProtocolError, TimeoutError):
    """The bot for a token did not connect and register within the time allowed.

    Attributes:
        name: the arena's name for the bot; timeout_s: the time waited, seconds.
    """

    def __init__(self, name: str, timeout_s: float) -> None:
        super().__init__(f"bot {name!r} did not connect and register within {timeout_s:g} s "
                         "(is its process running and pointed at this arena's address and "
                         "token?)")
        self.name = name
        self.timeout_s = timeout_s


def redact(token: str) -> str:
    """A token shortened for logs: the first 4 characters and its length."""
    return f"{token[:4]}...({len(token)} chars)" if len(token) > 4 else "****"
