"""A bot to send to a league (``arena submit URL examples/league-bot/``): README's first bot."""

import random

from arena.sdk import Player, View, run


class MyBot(Player):
    name = "mybot"

    def decide(self, view: View) -> int:
        return random.choice(view.legal_actions)   # every request lists the legal actions


if __name__ == "__main__":
    run(MyBot())
