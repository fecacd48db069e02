"""A bot that imports numpy (OpenBLAS threads, big virtual reservations): it must run under
small memory limits, whose data limit (RLIMIT_DATA) leaves room for them."""
import random
import sys

import numpy

from arena.sdk import Player, run


class P(Player):
    name = "np"

    def decide(self, view):
        return int(numpy.int64(random.choice(view.legal_actions)))


run(P(), sys.argv[1:])
