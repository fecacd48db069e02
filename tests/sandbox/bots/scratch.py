"""Uses its scratch directory (TMPDIR): writes a file named after a random tag, reads it back,
lists what else is there, then holds the file SCRATCH_HOLD_S seconds (default 1.5) so the test
can look for it from outside. Prints one line:
``ATTACK SUCCEEDED: scratch <dir> wrote <tag>; others: [...]``."""
import os
import secrets
import time

from _attack import main


def attack() -> str:
    where = os.environ.get("TMPDIR", "/tmp")
    before = sorted(n for n in os.listdir(where) if n.startswith("scratch-"))
    tag = f"scratch-{os.environ.get('SCRATCH_MARK', 'x')}-{secrets.token_hex(6)}"
    path = os.path.join(where, tag)
    with open(path, "w") as f:
        f.write(tag)
    with open(path) as f:
        if f.read() != tag:
            raise RuntimeError("the scratch file does not read back")
    print(f"scratch file {tag} written", flush=True)
    time.sleep(float(os.environ.get("SCRATCH_HOLD_S", "1.5")))
    return f"scratch {where} wrote {tag}; others: {before}"


main(attack)
