"""Shared by the malicious test bots: run an attack, then play as a random bot.

Each bot script calls :func:`main` with its attack. ``ATTACK_WHEN=start`` (default) attacks
before connecting: a failed attack raises, so the bot exits with the error as its last log line
(the arena reports the crash); a successful one prints ``ATTACK SUCCEEDED: ...`` and the bot
plays on. ``ATTACK_WHEN=decide`` attacks inside the first decision (the resource bombs, so the
arena stops the bot mid-match and names the limit).
"""

from __future__ import annotations

import os
import random
import sys


def main(attack) -> None:
    when = os.environ.get("ATTACK_WHEN", "start")
    if when == "start":
        print(f"ATTACK SUCCEEDED: {attack()}", flush=True)
    from arena.sdk import Player, run

    class Attacker(Player):
        name = "attacker"
        attacked = False

        def decide(self, view):
            if when == "decide" and not self.attacked:
                self.attacked = True
                print(f"ATTACK SUCCEEDED: {attack()}", flush=True)
            return random.choice(view.legal_actions)

    run(Attacker(), sys.argv[1:])
