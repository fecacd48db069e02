"""Lists /proc to find the arena or other bots (any process not its own or its sandbox's)."""
import os

from _attack import main


def attack() -> str:
    mine = {os.getpid(), os.getppid(), 1}
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in mine:
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ")
            except OSError:
                continue
            if b"sample_bots" in cmd or b"arena" in cmd or b"pytest" in cmd:
                found.append(f"{entry}: {cmd.decode(errors='replace')[:60]}")
    if not found:
        raise RuntimeError("no arena or other bot process visible in /proc")
    return f"{len(found)} processes, e.g. {found[0]}"


main(attack)
