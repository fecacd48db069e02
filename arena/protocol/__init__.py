"""The protocol edge: the bot protocol's generated code, conversions, and the arena's gRPC
server (with ``arena.sdk``, the only code that imports grpc and the generated modules).

Public API (imported lazily, so ``import arena.protocol`` stays light)::

    from arena.protocol import ArenaServer, RemoteBot, BotConnectTimeout
    server = ArenaServer("127.0.0.1:0"); port = await server.start()
    server.expect(token, name); bot = await server.wait_for_bot(token, timeout_s=10)

Modules: ``server`` (ArenaServer), ``session`` (RemoteBot), ``convert`` (engine objects <->
messages), ``errors``, ``gen`` (regenerates ``_gen`` from ``proto/``).
"""

from __future__ import annotations

from typing import Any

#: the protocol version this arena and the SDK speak (RegisterRequest.protocol_version)
PROTOCOL_VERSION = "1"
SUPPORTED_PROTOCOL_VERSIONS = ("1",)

_LAZY = {
    "ArenaServer": "server", "RemoteBot": "session", "BotIdentity": "session",
    "ArenaProtocolError": "errors", "BotConnectTimeout": "errors",
    "UnknownTokenError": "errors", "ServerStartError": "errors",
    "ConversionError": "convert",
}

__all__ = [
    "PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "ArenaProtocolError",
    "ArenaServer",
    "BotConnectTimeout",
    "BotIdentity",
    "ConversionError",
    "RemoteBot",
    "ServerStartError",
    "UnknownTokenError",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.protocol' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
