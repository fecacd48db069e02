"""Opens files (descriptors of /dev/null) until it cannot, capped at FILES_CAP (default 5000,
so that the unsandboxed run stays harmless), and keeps them open."""
import os

from _attack import main

held = []


def attack() -> str:
    cap = int(os.environ.get("FILES_CAP", "5000"))
    while len(held) < cap:
        held.append(os.open("/dev/null", os.O_RDONLY))
    return f"holds {len(held)} open descriptors"


main(attack)
