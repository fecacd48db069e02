"""A bot that plays (the random bot) only when it runs as a tournament runs its bots: in the
bubblewrap sandbox (pid 1 of its PID namespace is bwrap), dialing the arena's Unix
socket, the token in ARENA_TOKEN and not on its command line. Otherwise it says why and
exits with status 5 before registering.

Usage: ``python tests/conformance/sandboxprobe.py --arena ADDRESS``
"""

from __future__ import annotations

import os
import runpy
import sys


def why_not() -> str | None:
    address = os.environ.get("ARENA_ADDRESS", "")
    if not address.startswith("unix:") or f"--arena {address}" not in " ".join(sys.argv):
        return f"not on the arena's Unix socket (ARENA_ADDRESS {address!r}, argv {sys.argv})"
    if not os.environ.get("ARENA_TOKEN") or "--token" in sys.argv:
        return "the token is not (only) in ARENA_TOKEN"
    try:
        with open("/proc/1/cmdline", "rb") as f:
            init = f.read().split(b"\0")[0].decode(errors="replace")
    except OSError as exc:
        return f"cannot read /proc/1/cmdline ({exc.strerror})"
    if os.path.basename(init) != "bwrap":     # pid 1 of a sandbox's PID namespace
        return f"not sandboxed: pid 1 is {init!r}, not bwrap"
    return None

if __name__ == "__main__":
    problem = why_not()
    if problem:
        print(f"sandboxprobe: {problem}", flush=True)
        sys.exit(5)
    runpy.run_module("sample_bots.random_bot", run_name="__main__")
