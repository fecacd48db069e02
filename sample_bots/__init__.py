"""Sample bots for 358 Arena: Python ``Player`` bots run with ``arena.sdk.run`` (see
docs/protocol.md) and ``js_bot/``, a Node.js bot speaking the same gRPC protocol."""
