"""Leaves a grandchild behind: setsid + double fork; the grandchild execs
``sleep GRANDCHILD_MARK`` (a number unique to the test, so the test can look for it)."""
import os

from _attack import main


def attack() -> str:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", os.environ["GRANDCHILD_MARK"]])
        os._exit(0)
    os.waitpid(pid, 0)
    return "grandchild started"


main(attack)
