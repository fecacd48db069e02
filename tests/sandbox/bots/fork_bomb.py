"""Fork bomb: children that sleep, as many as it can (capped at FORK_CAP, default 400, so that
the unsandboxed run stays harmless). When the kernel refuses a fork (the sandbox's process
limit) it says after how many and holds its children FORK_HOLD_S seconds (default 0) before
raising the error."""
import os
import time

from _attack import main


def attack() -> str:
    cap = int(os.environ.get("FORK_CAP", "400"))
    made = 0
    try:
        for _ in range(cap):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            made += 1
    except BlockingIOError:
        print(f"ATTACK BLOCKED: fork refused after {made} processes", flush=True)
        time.sleep(float(os.environ.get("FORK_HOLD_S", "0")))
        raise
    return f"{made} processes"


main(attack)
