"""The bot conformance checker behind ``arena check-bot`` (like fastchess's ``--compliance``).

A scripted suite drives one bot over one Play stream (:mod:`.harness`): positions for every
decision kind of every preset (:mod:`.positions`), a single-legal-action request, several
matches at once with interleaved request ids, a whole match in which the bot plays all three
seats, an unknown ``ArenaMessage`` kind, rejections, ``MatchEnd`` and ``Goodbye``
(:mod:`.suite`); :mod:`.report` prints the PASS/FAIL table with latency percentiles or JSON.
"""

from __future__ import annotations

from .positions import Position, find_positions
from .report import render_json, render_table
from .suite import CheckResult, SuiteReport, run_suite

__all__ = ["CheckResult", "Position", "SuiteReport", "find_positions", "render_json",
           "render_table", "run_suite"]
