"""Holds memory outside its processes: files in /dev/shm, then in /tmp (tmpfs: RAM), 1 MiB
each until refused, then holds them HOLD_S seconds (default 3). Succeeds if it is still
alive then, holding more than LIMIT_MIB (default 128) in its tmpfs and processes together."""
import os
import time

from _attack import main


def attack() -> str:
    held = 0
    for where in ("/dev/shm", "/tmp"):
        i = 0
        try:
            while held < 4096:
                with open(f"{where}/hog{i}", "wb") as f:
                    f.write(b"\1" * (1 << 20))
                i += 1
                held += 1
        except OSError as exc:
            print(f"{where}: refused after {held} MiB in all ({exc.strerror})", flush=True)
    time.sleep(float(os.environ.get("HOLD_S", "3")))
    if held < int(os.environ.get("LIMIT_MIB", "128")) * 3 // 4:
        raise RuntimeError(f"held only {held} MiB in tmpfs")
    return f"holds {held} MiB in tmpfs"


main(attack)
