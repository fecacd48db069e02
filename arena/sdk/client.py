"""The SDK's connection loop (being written; the signature of :func:`run` is stable)."""

from __future__ import annotations

from collections.abc import Sequence

from .player import Player


def run(player: Player, argv: Sequence[str] | None = None) -> int:
    """Connect to the arena and serve ``player`` until the arena closes the stream.

    Args:
        player: the bot's policy.
        argv: command-line arguments (default ``sys.argv[1:]``): ``--arena HOST:PORT``,
            ``--token T``, ``--name NAME`` (env ``ARENA_ADDRESS``, ``ARENA_TOKEN``).

    Returns:
        the process exit status (0 on a normal end); ``run`` does not call ``sys.exit``.
    """
    raise NotImplementedError("arena.sdk.run is being implemented")
