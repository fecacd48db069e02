"""Shared by the malicious test bots: run an attack, then play as a random bot.

Each bot script calls :func:`main` with its attack. ``ATTACK_WHEN=start`` (default) attacks
before connecting: a failed attack raises, so the bot exits with the error as its last log line
(the arena reports the crash); a successful one prints ``ATTACK SUCCEEDED: ...`` and the bot
plays on. ``ATTACK_WHEN=decide`` attacks inside the first decision (the resource bombs, so the
arena stops the bot mid-match and names the limit); with ``ATTACK_FAIL=exit`` a failed attack
in a decision ends the bot (traceback, status 1) instead of being reported as that decision's
error, as a bot that does not expect the error would.
"""

from __future__ import annotations

import os
import random
import sys
import traceback


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
                try:
                    print(f"ATTACK SUCCEEDED: {attack()}", flush=True)
                except Exception:
                    if os.environ.get("ATTACK_FAIL") != "exit":
                        raise
                    traceback.print_exc()
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(1)
            return random.choice(view.legal_actions)

    run(Attacker(), sys.argv[1:])
