"""Allocates memory (16 MiB every 50 ms, every page touched) up to MEMORY_CAP_MIB (default
1024, so that the unsandboxed run stays harmless)."""
import os
import time

from _attack import main


def attack() -> str:
    cap = int(os.environ.get("MEMORY_CAP_MIB", "1024"))
    hoard = []
    while len(hoard) * 16 < cap:
        hoard.append(b"\1" * (16 << 20))
        time.sleep(0.05)
    return f"holds {len(hoard) * 16} MiB"


main(attack)
