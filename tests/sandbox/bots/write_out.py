"""Writes into the tournament's output directory (OUT_DIR)."""
import os

from _attack import main


def attack() -> str:
    path = os.path.join(os.environ["OUT_DIR"], "pwned.txt")
    with open(path, "w") as f:
        f.write("pwned\n")
    return f"wrote {path}"


main(attack)
