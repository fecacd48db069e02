"""Ratings of bots from match placings: a pure fold over match results.

Model: Plackett-Luce (Luce 1959; Plackett 1975) over the placing of the 3 bots of each match,
ties meaning "order unknown", fitted by maximum a posteriori with a weak Gaussian prior on the
log-strengths (Hunter 2004 for the model family). Ratings are reported in Elo points,
``R = 1500 + 400/ln(10) * theta`` (theta centred), so that
``P(i places above j) = 1 / (1 + 10^(-(R_i - R_j)/400))`` holds exactly. 95% intervals of
ratings and of rating differences come from the cluster-robust variance over duplicate blocks
with a small-sample correction per quantity (:mod:`.intervals`); bots with one-sided results
(never beaten, never beat another bot) are flagged, left out of the 1500 anchor
(:mod:`.edges`) and get a one-sided bound (:mod:`.bounds`); the likelihood of superiority comes
from a bootstrap over blocks (:mod:`.bootstrap`). :mod:`.sprt` is the gauntlet's test on the
same scale and :mod:`.adaptive` chooses the tables of an adaptive schedule. See the module docs
for formulas and sources.

Usage::

    from arena.ratings import MatchResult, rate, format_report

    results = [MatchResult(("alice", "bob", "carol"), (1, 2, 3), block="t1-d1"), ...]
    report = rate(results, seed=0)          # 1000 bootstrap resamples
    print(format_report(report, "md"))
"""

from .api import DEFAULT_BOOTSTRAP, rate
from .formatting import format_report
from .headtohead import HeadToHead
from .model import MatchResult, RatingsInputError
from .plackett_luce import DEFAULT_PRIOR_SIGMA, ELO_BASE, ELO_PER_NAT, p_above
from .report import BotRating, RatingDifference, RatingReport

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_PRIOR_SIGMA",
    "ELO_BASE",
    "ELO_PER_NAT",
    "BotRating",
    "HeadToHead",
    "MatchResult",
    "RatingDifference",
    "RatingReport",
    "RatingsInputError",
    "format_report",
    "p_above",
    "rate",
]
