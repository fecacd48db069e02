"""Result of :func:`arena.ratings.rate`: frozen dataclasses plus plain-data views.

Ratings are in Elo points (mean 1500 over the bots that are not one-sided, :mod:`.edges`; see
:mod:`arena.ratings.plackett_luce`). The bots of a
report are ordered by rating, best first (ties by name); ``los`` and ``head_to_head`` use the
same order. :meth:`RatingReport.to_dict` gives JSON-ready data (no NaN, no numpy types) and
:meth:`RatingReport.report_rows` the main table as a list of dicts, for renderers such as
:func:`arena.ratings.formatting.format_report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .intervals import CI_LEVEL
from .columns import RATING_COLUMNS, few_blocks_note
from .headtohead import HeadToHead
from .plackett_luce import ELO_BASE, ELO_PER_NAT

__all__ = ["BotRating", "RatingDifference", "RatingReport"]

MODEL_DESCRIPTION = (
    "Plackett-Luce MAP fit of match placings (ties = order unknown), Gaussian prior "
    "N(0, prior_sigma^2) on log-strength theta; R = 1500 + 400/ln(10) * theta, "
    "P(i above j) = 1/(1 + 10^(-(Ri-Rj)/400)); 95% intervals of ratings and rating "
    "differences: estimate +- t_df(0.975) * sqrt(V / lambda), V the cluster-robust variance "
    "over duplicate blocks, lambda its bias and df its degrees of freedom from the design "
    "(Bell-McCaffrey); one-sided bots (never beaten / never beat another bot) are flagged, "
    "left out of the 1500 anchor and given a one-sided 95% profile-likelihood bound; "
    "likelihood of superiority from a bootstrap over blocks"
)


@dataclass(frozen=True)
class BotRating:
    """One bot's line of the report.

    ``rating``, ``ci_low``, ``ci_high`` are Elo points; the interval bounds are ``None`` when
    the report was computed without bootstrap; one of them is ``None`` for a one-sided bot,
    whose other side is its one-sided 95% bound (:mod:`.bounds`). ``firsts`` counts first
    places including shared ones, ``average_place`` is the mean competition-ranking place
    (1..3), ``blocks`` the duplicate blocks the bot played in (with fewer than
    :data:`~arena.ratings.columns.MIN_BLOCKS` its interval is very wide).
    """

    rank: int
    name: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    matches: int
    firsts: int
    average_place: float
    forfeits: int
    blocks: int = 0
    one_sided: str | None = None
    """``"never beaten"`` / ``"never beat another bot"`` (:mod:`.edges`): the rating is then
    set by the prior (``ci_low`` / ``ci_high`` hold the data's one-sided bound), and the bot
    is not part of the 1500 anchor; None otherwise."""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict keyed by the column vocabulary (:data:`~arena.ratings.columns.
        RATING_COLUMNS`; the name is ``"bot"``)."""
        values = {"bot": self.name, **{k: getattr(self, k) for k in RATING_COLUMNS
                                       if k != "bot"}}
        return {k: values[k] for k in RATING_COLUMNS}


@dataclass(frozen=True)
class RatingDifference:
    """``difference = R_a - R_b`` in Elo points with its 95% interval (``None`` bounds without
    bootstrap; one ``None`` side: a one-sided bound, :mod:`.bounds`)."""

    a: str
    b: str
    difference: float
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class RatingReport:
    """Ratings of all bots, likelihood of superiority and head-to-head records.

    ``los[i][j]`` is the fraction of bootstrap resamples in which ``bots[i]`` is rated above
    ``bots[j]`` (ties 1/2; diagonal 0.5), or ``None`` without bootstrap. ``head_to_head``
    holds every ordered pair of distinct bots, ``a`` in report order, then ``b``.
    """

    bots: tuple[BotRating, ...]
    los: tuple[tuple[float, ...], ...] | None
    head_to_head: tuple[HeadToHead, ...]
    matches: int
    blocks: int
    prior_sigma: float
    bootstrap: int
    seed: int
    differences: tuple[RatingDifference, ...] = ()
    """Every ordered pair of distinct bots, in the order of ``head_to_head``."""

    def difference_of(self, a: str, b: str) -> RatingDifference:
        """``R_a - R_b`` with its interval (``KeyError`` if ``a == b`` or either is unknown)."""
        for d in self.differences:
            if d.a == a and d.b == b:
                return d
        raise KeyError((a, b))

    @property
    def names(self) -> tuple[str, ...]:
        """Bot names in report order (best first)."""
        return tuple(b.name for b in self.bots)

    def bot(self, name: str) -> BotRating:
        """The line of bot ``name`` (``KeyError`` if unknown)."""
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    def los_of(self, a: str, b: str) -> float | None:
        """Likelihood that ``a`` is stronger than ``b`` (``None`` without bootstrap)."""
        if self.los is None:
            return None
        names = self.names
        return self.los[names.index(a)][names.index(b)]

    def head_to_head_of(self, a: str, b: str) -> HeadToHead:
        """Record of ``a`` against ``b`` (``KeyError`` if ``a == b`` or either is unknown)."""
        for h in self.head_to_head:
            if h.a == a and h.b == b:
                return h
        raise KeyError((a, b))

    @property
    def notes(self) -> list[str]:
        """Warnings about the report: intervals resting on too few duplicate blocks
        (:func:`~arena.ratings.columns.few_blocks_note`); a 1500 anchor of one bot (the
        others one-sided), which then has no interval."""
        if not self.bootstrap:
            return []
        note = few_blocks_note({b.name: b.blocks for b in self.bots})
        notes = [note] if note else []
        anchor = [b.name for b in self.bots if b.one_sided is None]
        if len(self.bots) > 1 and len(anchor) == 1:
            notes.append(f"{anchor[0]} is the only bot without one-sided results: the "
                         "ratings are anchored on it (1500 by definition, so no interval of "
                         "its own); the others' bounds are relative to it.")
        return notes

    def report_rows(self) -> list[dict[str, Any]]:
        """The main table: one dict per bot, best first (see :meth:`BotRating.to_dict`)."""
        return [b.to_dict() for b in self.bots]

    def to_dict(self) -> dict[str, Any]:
        """Everything in the report as JSON-ready plain data."""
        return {
            "model": {
                "description": MODEL_DESCRIPTION,
                "units": "Elo points",
                "base": ELO_BASE,
                "points_per_nat": ELO_PER_NAT,
                "prior_sigma": self.prior_sigma,
                "bootstrap": self.bootstrap,
                "seed": self.seed,
                "ci_level": CI_LEVEL if self.bootstrap else None,
            },
            "matches": self.matches,
            "blocks": self.blocks,
            "notes": self.notes,
            "bots": self.report_rows(),
            "los": (
                None
                if self.los is None
                else {"bots": list(self.names), "matrix": [list(row) for row in self.los]}
            ),
            "differences": [
                {"a": d.a, "b": d.b, "difference": d.difference, "ci_low": d.ci_low,
                 "ci_high": d.ci_high}
                for d in self.differences
            ],
            "head_to_head": [
                {
                    "a": h.a,
                    "b": h.b,
                    "matches": h.matches,
                    "above": h.above,
                    "below": h.below,
                    "equal": h.equal,
                }
                for h in self.head_to_head
            ],
        }
