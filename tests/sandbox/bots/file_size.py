"""Writes one big file (WRITE_MIB MiB, default 8) into its scratch directory (TMPDIR), in
1 MiB blocks."""
import os

from _attack import main


def attack() -> str:
    size = int(os.environ.get("WRITE_MIB", "8"))
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "big.bin")
    block = b"x" * (1 << 20)
    with open(path, "wb") as f:
        for _ in range(size):
            f.write(block)
            f.flush()
    return f"wrote {os.path.getsize(path) >> 20} MiB to {path}"


main(attack)
