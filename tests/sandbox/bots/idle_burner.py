"""Burns CPU while it should be idle: from the end of each of its matches until its next one
starts, a thread spins; at each match start it prints the CPU seconds that thread has used
so far and the time (``idle burn N.NNN s at UNIX_TIME``). The arena stops an idle bot, so
the figure should stay near 0, and whatever it burns is counted in the standings."""
import random
import sys
import threading
import time

from arena.sdk import Player, run


class IdleBurner(Player):
    name = "idle-burner"

    def __init__(self) -> None:
        self.idle = threading.Event()
        self.burnt = 0.0
        threading.Thread(target=self._spin, daemon=True).start()

    def _spin(self) -> None:
        while True:
            self.idle.wait()
            base, start = self.burnt, time.thread_time()
            while self.idle.is_set():
                self.burnt = base + time.thread_time() - start

    def on_match_start(self, info) -> None:
        self.idle.clear()
        print(f"idle burn {self.burnt:.3f} s at {time.time():.3f}", flush=True)

    def on_match_end(self, end) -> None:
        self.idle.set()

    def decide(self, view):
        return random.choice(view.legal_actions)


run(IdleBurner(), sys.argv[1:])
