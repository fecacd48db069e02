"""RandomBot: a seeded bot that picks uniformly among the legal actions.

The baseline of the strength benchmark (``bench/strength.py``) and a smoke-test opponent. With the
same seed and the same sequence of views it makes the same choices. With a seed, each match
restarts the RNG from (seed, match id, seat), so a tournament's games do not depend on which
bot process happened to play which match.

Run against an arena: ``ARENA_TOKEN=T python -m sample_bots.random_bot --arena HOST:PORT --seed 7``.
"""

from __future__ import annotations

import argparse
import random
import sys

from arena.rules.view import View
from arena.sdk import MatchInfo, Player, run


class RandomBot(Player):
    """Uniform choice over ``view.legal_actions`` from a private ``random.Random(seed)``."""

    name = "random"
    version = "1.0"

    def __init__(self, seed: int | str | None = 0) -> None:
        """Args: seed: seed of the bot's own RNG (None: seeded from the OS)."""
        self.seed = seed
        self._rng = random.Random(seed)

    def on_match_start(self, info: MatchInfo) -> None:
        """Reseed from (seed, match id, seat) when seeded: reproducible per match."""
        if self.seed is not None:
            self._rng = random.Random(f"{self.seed}/{info.match_id}/{info.seat}")

    def decide(self, view: View) -> int:
        """A legal action drawn uniformly (the only one when there is one)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return legal[self._rng.randrange(len(legal))]


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``--seed N`` (default: random) plus the SDK's ``--arena``,
    ``--token`` and ``--name``, passed on to ``arena.sdk.run``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the bot's RNG (with a seed, games are reproducible)")
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    run(RandomBot(seed=args.seed), rest)


if __name__ == "__main__":
    main()
