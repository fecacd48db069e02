"""``arena gauntlet CONFIG.toml [--out DIR]``: a candidate against a field, decided by an SPRT."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..safetext import printable
from ._signals import Interrupted, run_resumable
from .run import add_ray_option, never_started_status, run_directory, with_ray

if TYPE_CHECKING:
    from ..tournament.config import TournamentConfig

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
Elo is the scale of `arena ratings`: +D points = placing above a field bot with
probability 1 / (1 + 10^(-D/400)). The statistic (GSPRT on block scores with their
empirical variance) is documented in docs/sprt.md. Rerun the same command to resume.
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
            cfg, out, progress=not args.quiet, events=events)), args.config, out)
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; rerun the same command to resume", file=sys.stderr)
        return exc.code
    st = outcome.state
    print(st.summary())
    if st.decision == "H1":
        verdict = (f"H1 accepted: {g.candidate} is stronger than the field "
                   f"(elo1 = {g.elo1:g} rather than elo0 = {g.elo0:g})")
    elif st.decision == "H0":
        verdict = (f"H0 accepted: {g.candidate} is not stronger than the field by elo1 = "
                   f"{g.elo1:g} (elo0 = {g.elo0:g} rather than elo1)")
    elif outcome.capped:
        verdict = f"no decision: max_blocks = {g.max_blocks} reached"
    elif outcome.never_started:
        verdict = "no decision: no table is left without a bot that never started"
    else:
        verdict = "still running: no decision yet"
    print(verdict)
    for line in outcome.disqualifications:
        print(f"arena: warning: bot {printable(line)}", file=sys.stderr)
    print(f"{outcome.played_now} matches played now, {outcome.already_done} earlier; results "
          f"in {out}/ (sprt.json, records/, logs/, arena.log; `arena ratings {out}`)")
    return never_started_status(outcome.never_started, "the SPRT")
