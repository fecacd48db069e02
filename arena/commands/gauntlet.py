"""``arena gauntlet CONFIG.toml [--out DIR]``: a candidate against a field, decided by an SPRT."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..safetext import printable
from ._signals import Interrupted, run_resumable
from ._runs import add_ray_option, executors_for, never_started_status, run_directory, with_ray

if TYPE_CHECKING:
    from ..tournament.config import TournamentConfig
    from ..ratings.model import RatedResult
    from ..ratings.sprt import SprtState

#: :data:`arena.ratings.sprt.ZERO_VARIANCE`, without importing numpy when the CLI starts
ZERO_VARIANCE = "zero variance"

EPILOG = """\
The config is a tournament config with a [gauntlet] section:

  [gauntlet]
  candidate = "new-version"   # one of the [[bots]]; every other bot is the field
  elo0 = 0                    # H0: candidate - field = elo0 Elo points
  elo1 = 5                    # H1: candidate - field = elo1
  alpha = 0.05                # P(accept H1 | H0)
  beta = 0.05                 # P(accept H0 | H1)
  max_blocks = 10000          # cap: stop undecided after this many blocks

Tables are the candidate plus two field bots (a field of one bot is seated twice); each
duplicate block (one deal in all 6 seatings) is one observation, decided in schedule order.
Elo is the unit of `arena ratings`: the candidate's rating minus the mean rating of the
field (Plackett-Luce, +D points = placing above a bot D points below with probability
1 / (1 + 10^(-D/400))). The statistic (a GSPRT on that estimate with its block-robust
variance) is documented in docs/sprt.md. Rerun the same command to resume.
`arena run CONFIG` does the same when [tournament] mode = "gauntlet".

A bot that never started (a remote bot that never connected) is kept out of the test (its
blocks are passed over) and the exit status is 3, as with `arena run`.
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena gauntlet``."""
    p = sub.add_parser("gauntlet", help="SPRT: is a candidate bot better than the field?",
                       description="Play a candidate bot against a field of baseline bots in "
                       "duplicate blocks until a sequential probability ratio test accepts H0 "
                       "(not better by elo1) or H1 (better than elo0).", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", help="tournament config (TOML) with a [gauntlet] section")
    p.add_argument("--out", help="output directory (default: runs/<config name>)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_ray_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the gauntlet (see :func:`play_gauntlet`); the arena's log is appended to
    ``OUT/arena.log``."""
    from ..tournament.config import load_config   # pydantic: not at `arena --help`
    cfg = load_config(args.config)
    if cfg.gauntlet is None:
        raise UserError(f"{args.config}: no [gauntlet] section (see `arena gauntlet --help`); "
                        "for a round-robin use `arena run`")
    cfg = with_ray(args, cfg)
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    with run_directory(args, out):
        return play_gauntlet(args, cfg, out)


def play_gauntlet(args: argparse.Namespace, cfg: TournamentConfig, out: Path) -> int:
    """Run the gauntlet of ``cfg`` into ``out``; print the final state and result line. Exit
    0 (H0, H1 or capped), 2 on a user mistake, 3 when a bot never started (kept out of the
    SPRT), 128+N when stopped by signal N (rerun to resume)."""
    from ..inflight import journaled
    from ..tournament.gauntlet_runner import run_gauntlet
    g = cfg.gauntlet
    if g is None:
        raise UserError(f"{args.config}: no [gauntlet] section (see `arena gauntlet --help`)")
    try:   # the matches in flight go to OUT/live/, for arena serve in another process
        outcome = run_resumable(journaled(out, lambda events: run_gauntlet(
            cfg, out, progress=not args.quiet, events=events, executors=executors_for(cfg))),
            args.config, out)
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; rerun the same command to resume", file=sys.stderr)
        return exc.code
    st = outcome.state
    print(st.summary())
    print(verdict_line(st, g.candidate, g.elo0, g.elo1, g.max_blocks, outcome.capped,
                       bool(outcome.never_started)))
    for line in outcome.disqualifications:
        print(f"arena: warning: bot {printable(line)}", file=sys.stderr)
    for line in tested_lines(g.candidate, outcome.tested, outcome.stored, out):
        print(line)
    print(f"{outcome.played_now} matches played now, {outcome.already_done} earlier; results "
          f"in {out}/ (sprt.json, records/, logs/, arena.log; `arena ratings {out}`)")
    return never_started_status(outcome.never_started, "the SPRT")


def verdict_line(st: SprtState, candidate: str, elo0: float, elo1: float, max_blocks: int,
                 capped: bool, never_started: bool) -> str:
    """The result in words: H0 / H1 accepted, stopped by zero variance, or no decision."""
    name = printable(candidate)
    alike = " (every block alike)" if st.zero_variance else ""
    if st.decision == "H1":
        return (f"H1 accepted{alike}: {name} is stronger than the field (elo1 = {elo1:g} "
                f"rather than elo0 = {elo0:g})")
    if st.decision == "H0":
        return (f"H0 accepted{alike}: {name} is not stronger than the field by elo1 = "
                f"{elo1:g} (elo0 = {elo0:g} rather than elo1)")
    if st.decision == ZERO_VARIANCE:
        return (f"no decision: every block of the test scored alike (zero variance) with "
                f"{name} {st.elo:+.1f} Elo against the field, between elo0 = {elo0:g} and "
                f"elo1 = {elo1:g}: more blocks would change nothing")
    if capped:
        return f"no decision: max_blocks = {max_blocks} reached"
    if never_started:
        return "no decision: no table is left without a bot that never started"
    return "still running: no decision yet"


def tested_lines(candidate: str, tested: Sequence[RatedResult], stored: int,
                 out: Path) -> list[str]:
    """What the test rests on: its matches, the candidate's placings and its record against
    each field bot, and what its Elo means next to ``arena ratings``."""
    if not tested:
        return []
    places = Counter(m.places[m.players.index(candidate)] for m in tested)
    field: dict[str, list[int]] = {}
    for m in tested:
        mine = m.places[m.players.index(candidate)]
        for name, place in zip(m.players, m.places, strict=True):
            if name != candidate:
                rec = field.setdefault(name, [0, 0, 0])
                rec[0 if mine < place else 1 if mine > place else 2] += 1
    n = len(tested)
    who = printable(candidate)
    lines = [f"the test: {n // 6} blocks, {n} matches; {who} placed "
             f"1st {places[1]}, 2nd {places[2]}, 3rd {places[3]} (shared places count as the "
             "better one)"]
    for name, (above, below, equal) in field.items():
        lines.append(f"  against {printable(name)}: above in {above}, below in {below}, "
                     f"equal in {equal}")
    extra = stored - n
    lines += textwrap.wrap(f"Elo: the rating of {who} minus the mean rating of "
                 f"{', '.join(printable(f) for f in field)}, on the scale and by the model of "
                 f"`arena ratings {out}` (Plackett-Luce), over these {n} matches"
                 + (f"; arena ratings also counts the {extra} other stored matches (after the "
                    "deciding block, or of bots kept out), so its figures can differ"
                    if extra > 0 else ""), width=100, subsequent_indent="  ")
    return lines
