"""Burns CPU inside a decision: two child processes spin until each has used BURN_S CPU
seconds (default 2)."""
import os
import time

from _attack import main


def attack() -> str:
    burn = float(os.environ.get("BURN_S", "2"))
    kids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            while time.process_time() < burn:
                pass
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
    return "burned"


main(attack)
