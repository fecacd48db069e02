"""The single entry point of the ratings fold: :func:`rate`.

Pure: takes match results, returns a :class:`~arena.ratings.report.RatingReport`; no I/O, no
printing, no global random state. The same results (in any order) with the same arguments
give an identical report.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .bootstrap import block_bootstrap
from .bounds import difference_bounds, profile_bound
from .edges import NEVER_BEATEN, anchor_mask, anchored_elo, one_sided
from .headtohead import bot_counts, head_to_head
from .model import MatchResult, RatedResult, RatingsInputError, disconnected_groups, validated
from .intervals import block_design, contrasts, robust_intervals
from .plackett_luce import DEFAULT_PRIOR_SIGMA, ELO_PER_NAT, Patterns, encode, fit_theta
from .report import BotRating, RatingDifference, RatingReport

__all__ = ["DEFAULT_BOOTSTRAP", "rate"]

DEFAULT_BOOTSTRAP = 1000
"""Default number of block-bootstrap resamples of the likelihood of superiority (Monte Carlo
error at most 0.5 / sqrt(1000) = 0.016, see docs/ratings.md)."""


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool):
        raise RatingsInputError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise RatingsInputError(f"{name} must be an integer, got {value!r}") from None
    if number < minimum:
        raise RatingsInputError(f"{name} must be >= {minimum}, got {number}")
    return number


def _check_names(results: Sequence[MatchResult], players: Sequence[str] | None) -> list[str]:
    """All bot names (sorted), checked against the explicit ``players`` list if given."""
    seen = sorted({name for r in results for name in r.players})
    if players is None:
        return seen
    if isinstance(players, str):
        raise RatingsInputError(f"players must be a sequence of names, not the string {players!r}")
    wanted = list(players)
    duplicates = sorted({n for n in wanted if wanted.count(n) > 1})
    if duplicates:
        raise RatingsInputError(f"players lists these bots more than once: {duplicates!r}")
    absent = sorted(set(wanted) - set(seen), key=str)
    if absent:
        raise RatingsInputError(
            f"no match results for these bots named in players: {absent!r}; "
            "a bot can only be rated after it has played"
        )
    unlisted = sorted(set(seen) - set(wanted))
    if unlisted:
        raise RatingsInputError(
            f"match results name bots that are not in players: {unlisted!r}"
        )
    return seen


def rate(
    results: Sequence[RatedResult],
    *,
    players: Sequence[str] | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    prior_sigma: float = DEFAULT_PRIOR_SIGMA,
) -> RatingReport:
    """Rate bots from their match placings (Plackett-Luce, Elo scale, block-robust intervals).

    Parameters
    ----------
    results:
        The match results (:class:`MatchResult`, or anything with its four attributes, such
        as the arena's stored results: each is checked as a :class:`MatchResult`); their order
        does not matter.
    players:
        Optional explicit list of the bots to rate. Every listed bot must have played, and
        every bot in ``results`` must be listed.
    bootstrap:
        Number of block-bootstrap resamples for the likelihood of superiority; 0 skips the
        bootstrap and the 95% intervals (intervals and LOS are then ``None``). The intervals
        themselves are analytic (:mod:`.intervals`): they do not depend on the resamples.
    seed:
        Seed of the bootstrap's random generator (``numpy.random.default_rng``).
    prior_sigma:
        Standard deviation of the N(0, sigma^2) prior on each log-strength theta, in natural
        log units (1 unit = 400/ln 10 = 173.7 Elo points). Default 1.5 (260 Elo points).

    Returns a :class:`RatingReport` with bots ordered best first. Ratings are Elo points,
    ``1500 + 400/ln(10) * theta``, so that ``P(i places above j) = 1 / (1 + 10^(-(R_i -
    R_j)/400))``, anchored so that the mean rating of the bots *without* one-sided results is
    1500 (one-sided bots, never beaten or never beating another bot, are flagged in
    ``BotRating.one_sided``; see :mod:`.edges`). ``differences`` holds ``R_a - R_b`` with a 95%
    interval for every ordered pair.

    Raises :class:`RatingsInputError` for: fewer than 2 matches, items that are not
    :class:`MatchResult`, a bot in ``players`` without matches, bots in ``results`` missing
    from ``players``, groups of bots with no chain of matches between them, bootstrap with
    fewer than 2 blocks, or invalid ``bootstrap`` / ``seed`` / ``prior_sigma``.
    """
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence):
        raise RatingsInputError(
            f"results must be a sequence of MatchResult, got {type(results).__name__}"
        )
    checked: list[MatchResult] = []
    for k, r in enumerate(results):
        if not isinstance(r, RatedResult):
            raise RatingsInputError(f"results[{k}] is not a MatchResult: {r!r}")
        try:
            checked.append(validated(r))
        except RatingsInputError as exc:
            raise RatingsInputError(f"results[{k}]: {exc}") from None
    return _rate(checked, players, bootstrap, seed, prior_sigma)


def _rate(results: list[MatchResult], players: Sequence[str] | None, bootstrap: int, seed: int,
          prior_sigma: float) -> RatingReport:
    """:func:`rate` over checked results."""
    if len(results) < 2:
        raise RatingsInputError(
            f"need at least 2 match results to fit ratings, got {len(results)}"
        )
    bootstrap = _check_int(bootstrap, "bootstrap", 0)
    seed = _check_int(seed, "seed", 0)
    if isinstance(prior_sigma, bool) or not isinstance(prior_sigma, (int, float)) or not (
        math.isfinite(prior_sigma) and prior_sigma > 0
    ):
        raise RatingsInputError(f"prior_sigma must be a finite number > 0, got {prior_sigma!r}")
    prior_sigma = float(prior_sigma)

    names = _check_names(results, players)
    groups = disconnected_groups(results)
    if len(groups) > 1:
        listed = "; ".join("{" + ", ".join(repr(n) for n in g) + "}" for g in groups)
        raise RatingsInputError(
            f"bots fall into {len(groups)} groups with no chain of matches between them, "
            f"so their ratings are not comparable: {listed}"
        )
    n_blocks = len({r.block for r in results})
    if bootstrap and n_blocks < 2:
        raise RatingsInputError(
            f"the block bootstrap needs at least 2 blocks, got {n_blocks}; "
            "pass bootstrap=0 to rate without intervals"
        )

    index = {name: i for i, name in enumerate(names)}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, len(names), prior_sigma)
    flags = one_sided(results, names)
    anchor = anchor_mask([flags[n] for n in names])
    ratings = anchored_elo(theta, anchor)
    bounds: list[tuple[float | None, float | None]] = []
    pair_bounds: dict[tuple[int, int], tuple[float | None, float | None]] = {}
    boot = None
    if bootstrap:
        design = block_design(results, patterns)
        bounds, pair_bounds = _intervals(patterns, design.membership, theta, ratings, anchor,
                                         [flags[n] for n in names], prior_sigma)
        boot = block_bootstrap(design.membership, patterns, len(names), theta,
                               resamples=bootstrap, seed=seed, prior_sigma=prior_sigma,
                               anchor=anchor)
        if len(names) > 1 and int(anchor.sum()) == 1:
            # the anchor's one bot is 1500 by definition: [1500, 1500] would read as
            # certainty; it has no interval of its own (RatingReport.notes says why)
            bounds[int(np.flatnonzero(anchor)[0])] = (None, None)

    order = sorted(range(len(names)), key=lambda i: (-ratings[i], names[i]))
    counts = bot_counts(results, names)
    bots = tuple(
        BotRating(
            rank=rank,
            name=names[i],
            rating=float(ratings[i]),
            ci_low=bounds[i][0] if bounds else None,
            ci_high=bounds[i][1] if bounds else None,
            matches=counts[names[i]].matches,
            firsts=counts[names[i]].firsts,
            average_place=counts[names[i]].average_place,
            forfeits=counts[names[i]].forfeits,
            blocks=counts[names[i]].blocks,
            one_sided=flags[names[i]],
        )
        for rank, i in enumerate(order, start=1)
    )
    differences = []
    for i in order:
        for j in order:
            if i != j:
                diff = float(ratings[i] - ratings[j])
                low, high = pair_bounds.get((i, j), (None, None))
                differences.append(RatingDifference(names[i], names[j], diff, low, high))
    los = (
        None
        if boot is None
        else tuple(tuple(float(boot.los[i, j]) for j in order) for i in order)
    )
    return RatingReport(
        bots=bots,
        los=los,
        head_to_head=tuple(head_to_head(results, [names[i] for i in order])),
        matches=len(results),
        blocks=n_blocks,
        prior_sigma=prior_sigma,
        bootstrap=bootstrap,
        seed=seed,
        differences=tuple(differences),
    )


def _intervals(patterns: Patterns, membership: object, theta: NDArray[np.float64],
               ratings: NDArray[np.float64], anchor: NDArray[np.bool_],
               flags: Sequence[str | None], prior_sigma: float
               ) -> tuple[list[tuple[float | None, float | None]],
                          dict[tuple[int, int], tuple[float | None, float | None]]]:
    """The 95% interval of every bot and of every ordered pair's difference (Elo points): the
    block-robust intervals (:mod:`.intervals`); one-sided bots get a one-sided bound
    (:mod:`.bounds`), their differences the bounds combined."""
    n = len(theta)
    matrix, pairs = contrasts(anchor)
    half = robust_intervals(patterns, membership, theta, prior_sigma,  # type: ignore[arg-type]
                            matrix).half * ELO_PER_NAT
    bots: list[tuple[float | None, float | None]] = []
    for i in range(n):
        r = float(ratings[i])
        if flags[i] is None:
            bots.append((r - float(half[i]), r + float(half[i])))
            continue
        upward = flags[i] == NEVER_BEATEN
        bound = profile_bound(patterns, patterns.counts, theta, i, anchor, prior_sigma,
                              upward=upward)
        bots.append((bound, None) if upward else (None, bound))
    out: dict[tuple[int, int], tuple[float | None, float | None]] = {}
    for k, (i, j) in enumerate(pairs):
        diff = float(ratings[i] - ratings[j])
        if flags[i] is None and flags[j] is None:
            h = float(half[n + k])
            out[i, j], out[j, i] = (diff - h, diff + h), (-diff - h, -diff + h)
        else:
            out[i, j] = difference_bounds(*bots[i], *bots[j])
            out[j, i] = difference_bounds(*bots[j], *bots[i])
    return bots, out
