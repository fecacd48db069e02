"""Computes the hidden cards from a guessable tournament seed, as a bot found seed 2026 in
12,163 tries: at its first decision it derives, for every tournament seed 0..GUESS_SEEDS
(default 3000) and every order of the table's bot names, the match seed the arena's schedule
would give (arena.tournament.schedule without the deal key) and the first hand's deal; if one
deal holds exactly its own cards it prints the other hands and the kitty (``ATTACK
SUCCEEDED``), else ``BLOCKED deal_guess``; in every match. It plays as a random bot."""
from __future__ import annotations

import itertools
import os
import random
import re
import sys

from arena.rules.deal import derive_seed, seeded_deal
from arena.sdk import Player, run


def guess(cfg, match_id: str, names, seat: int, hand, seeds: int):
    """(tournament seed, deal) whose first-hand cards of ``seat`` are ``hand``, or None."""
    m = re.match(r"t(\d+)-d(\d+)-s\d", match_id)
    if m is None:
        return None
    deal_idx = int(m[2])
    mine = set(hand)
    for s in range(seeds):
        for order in itertools.permutations(sorted(set(names))):
            deal = seeded_deal(cfg, derive_seed(s, "table", *order, "deal", deal_idx), 1)
            if mine <= set(deal.hands[seat]) and len(mine) >= 6:
                return s, deal
    return None


class Guesser(Player):
    name = "deal-guess"
    done = False

    def on_match_start(self, info) -> None:
        self.info = info
        self.done = False

    def decide(self, view):
        if not self.done:
            self.done = True
            info = self.info
            found = guess(info.cfg, info.match_id, info.names, info.seat, view.hand,
                          int(os.environ.get("GUESS_SEEDS", "3000")))
            if found:
                print(f"ATTACK SUCCEEDED: deal_guess: seed {found[0]}: {found[1]}", flush=True)
            else:
                print("BLOCKED deal_guess: no tournament seed gives my cards", flush=True)
        return random.choice(view.legal_actions)


if __name__ == "__main__":
    run(Guesser(), sys.argv[1:])
