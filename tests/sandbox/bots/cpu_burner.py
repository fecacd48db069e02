"""Burns CPU inside a decision: two child processes spin until each has used BURN_S CPU
seconds (default 2)."""
import os
import subprocess
import sys

from _attack import main

SPIN = "import time\nwhile time.process_time() < {burn}: pass\n"


def attack() -> str:
    burn = float(os.environ.get("BURN_S", "2"))
    kids = [subprocess.Popen([sys.executable, "-c", SPIN.format(burn=burn)]) for _ in range(2)]
    codes = [k.wait() for k in kids]
    return f"burned (children exited {codes})"


main(attack)
