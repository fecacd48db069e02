"""Sequential probability ratio test (SPRT) of a candidate bot against a field, on the Elo scale
of the ratings module. Pure functions over block scores; the gauntlet runner
(:mod:`arena.tournament.gauntlet`) feeds them complete duplicate blocks in schedule order.

Observation: one **duplicate block** (one deal at one table of the candidate and two field bots,
played in all 6 seatings). Its score is the candidate's mean pairwise score against the two
field bots over the 6 matches (above a field bot 1, shared place 1/2, below 0; 12 comparisons),
``x`` in [0, 1] (:func:`block_score`). The 6 seatings share their cards, so matches are
correlated; blocks are independent, which is why they are the unit.

Elo scale: under the Plackett-Luce model of :mod:`arena.ratings` the probability that a bot
rated ``d`` points above another places above it is ``L(d) = 1 / (1 + 10^(-d/400))``, whoever
the third bot is. The expected block score of a candidate ``elo`` points above the field is
therefore ``s(elo) = L(elo)``, and the test is on that scale.

Statistic (generalised SPRT, GSPRT; M. Van den Bergh, "A practical introduction to the
GSPRT" and "Normalized Elo" notes, 2016-2020, the basis of fishtest's ``stat_util.py``): the
block scores are treated as normal with unknown mean and variance; the log-likelihood ratio of
H1: ``mean = s1 = L(elo1)`` against H0: ``mean = s0 = L(elo0)``, each with the variance at its
maximum-likelihood value ``var + (mu - s_j)^2``, is::

    LLR = n/2 * log((var + (mu - s0)^2) / (var + (mu - s1)^2))

with ``n`` blocks, sample mean ``mu`` and (population) variance ``var`` of the block scores. To
second order this is fishtest's ``n (s1 - s0)(2 mu - s0 - s1) / (2 var)``; the log form is
used because it keeps the error rates at their nominal values when the variance of the first
blocks is underestimated (measured: ``docs/sprt.md``). The test continues while ``log(beta /
(1 - alpha)) < LLR < log((1 - beta) / alpha)`` (Wald 1945) and accepts H0 below, H1 above. The
empirical variance is what lets block-level duplicate correlation and any luck model in: no
model of the game is assumed.

Degenerate data: ``var`` is regularised with one pseudo-block of variance ``VAR0 = 1/48`` (a
block of 12 independent fair comparisons): ``var_n = (n var + VAR0) / (n + 1)``. The LLR is
then finite for any data (candidate always last, always first, all ties) and still grows without
bound when the data are constant, so the test ends: with the defaults (elo0 0, elo1 5) always
last accepts H0 after ~200 blocks, always first H1 after ~200, all ties H0 after ~40.

The Elo estimate is ``-400 log10(1/mu - 1)`` with a 95% interval from ``mu +- 1.96
sqrt(var_n / n)`` mapped the same way (the score is clamped to ``[1/(24 n), 1 - 1/(24 n)]``
so the estimate is finite).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .model import RatedResult

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "VAR0",
    "SprtParameters",
    "SprtState",
    "block_score",
    "elo_to_score",
    "llr_from_sums",
    "score_to_elo",
    "sequential_test",
    "sprt_state",
]

VAR0 = 1.0 / 48.0
"""Variance of the regularising pseudo-block (12 independent comparisons with p = 1/2)."""
_Z95 = 1.959963984540054


def elo_to_score(elo: float) -> float:
    """``L(elo) = 1 / (1 + 10^(-elo/400))``: expected pairwise score ``elo`` points above."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """Inverse of :func:`elo_to_score` for ``0 < score < 1``.

    Raises:
        ValueError: ``score`` outside (0, 1).
    """
    if not 0.0 < score < 1.0:
        raise ValueError(f"score must be in (0, 1), got {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class SprtParameters:
    """``elo0`` / ``elo1``: the Elo difference (candidate minus field) under H0 / H1, with
    ``elo0 < elo1``; ``alpha`` / ``beta``: the error probabilities of accepting H1 when H0
    holds / H0 when H1 holds, each in (0, 0.5).

    Raises:
        ValueError: any value out of range (message names it).
    """

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got elo0={self.elo0}, elo1={self.elo1}")
        if not (self.elo0 >= -1000 and self.elo1 <= 1000):
            raise ValueError("elo0 and elo1 must lie within [-1000, 1000]")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be in (0, 0.5), got {getattr(self, name)}")

    @property
    def lower(self) -> float:
        """Wald's lower bound ``log(beta / (1 - alpha))``: accept H0 at or below it."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound ``log((1 - beta) / alpha)``: accept H1 at or above it."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtState:
    """The test after ``blocks`` blocks: ``llr`` with its ``lower``/``upper`` bounds, the mean
    block ``score``, the Elo estimate and its 95% interval (``elo``, ``elo_low``, ``elo_high``;
    None before the first block) and ``decision``: ``"H0"``, ``"H1"`` or None (continue)."""

    blocks: int
    llr: float
    lower: float
    upper: float
    score: float | None
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    decision: str | None

    def summary(self) -> str:
        """One line like the chess tools: ``LLR 1.23 [-2.94, 2.94]  Elo +12.3 [-4.0, +28.6]
        blocks 40  H1 accepted`` (or ``running``)."""
        elo = ("Elo -" if self.elo is None else
               f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}]")
        verdict = f"{self.decision} accepted" if self.decision else "running"
        return (f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]  {elo}  "
                f"blocks {self.blocks}  {verdict}")


def block_score(matches: Sequence[RatedResult], candidate: str) -> float:
    """The candidate's mean pairwise score against the other bots over ``matches`` (the
    matches of one block): per match and opponent 1 if placed above, 1/2 if tied, 0 below.

    Raises:
        ValueError: no match, or the candidate is missing from one.
    """
    total = count = 0.0
    for m in matches:
        if candidate not in m.players:
            raise ValueError(f"candidate {candidate!r} did not play in a match of the block")
        mine = m.places[m.players.index(candidate)]
        for name, place in zip(m.players, m.places, strict=True):
            if name != candidate:
                total += 1.0 if mine < place else 0.5 if mine == place else 0.0
                count += 1
    if not count:
        raise ValueError("a block score needs at least one match")
    return total / count


def llr_from_sums(n: npt.ArrayLike, total: npt.ArrayLike, total_sq: npt.ArrayLike,
                  params: SprtParameters) -> tuple[FloatArray, FloatArray]:
    """LLR (see module doc) from the number of blocks ``n``, the sum and the sum of squares of
    their scores; numbers or arrays, which broadcast (used vectorised by the simulations).
    Returns (LLR, regularised variance) as float arrays (0-d for numbers)."""
    blocks = np.asarray(n, dtype=np.float64)
    mu = np.asarray(total, dtype=np.float64) / blocks
    var = np.maximum(np.asarray(total_sq, dtype=np.float64) / blocks - mu * mu, 0.0)
    var_n = (blocks * var + VAR0) / (blocks + 1)
    s0, s1 = elo_to_score(params.elo0), elo_to_score(params.elo1)
    llr = 0.5 * blocks * np.log((var_n + (mu - s0) ** 2) / (var_n + (mu - s1) ** 2))
    return llr, var_n


def sprt_state(scores: Sequence[float], params: SprtParameters) -> SprtState:
    """The test over all of ``scores`` (block scores in [0, 1], in schedule order), without
    stopping early (see :func:`sequential_test` for the stopping rule).

    Raises:
        ValueError: a score outside [0, 1] or not finite.
    """
    x = np.asarray(list(scores), dtype=float)
    if x.size and not (np.all(np.isfinite(x)) and x.min() >= 0.0 and x.max() <= 1.0):
        raise ValueError("block scores must be numbers in [0, 1]")
    n = int(x.size)
    if n == 0:
        return SprtState(0, 0.0, params.lower, params.upper, None, None, None, None, None)
    llr, var_n = (float(v) for v in llr_from_sums(n, float(x.sum()),
                                                  float(np.square(x).sum()), params))
    mu = float(x.mean())
    eps = 1.0 / (24.0 * n)

    def clamp(s: float) -> float:
        return min(max(s, eps), 1.0 - eps)

    half = _Z95 * math.sqrt(var_n / n)
    decision = "H1" if llr >= params.upper else "H0" if llr <= params.lower else None
    return SprtState(n, llr, params.lower, params.upper, mu, score_to_elo(clamp(mu)),
                     score_to_elo(clamp(mu - half)), score_to_elo(clamp(mu + half)), decision)


def sequential_test(scores: Sequence[float], params: SprtParameters,
                    max_blocks: int | None = None) -> SprtState:
    """Run the SPRT over ``scores`` in order and stop at the first block where the LLR leaves
    the continuation region (or at ``max_blocks``). Later scores are ignored, so the result
    depends only on complete blocks in schedule order, never on which matches finished first.

    Returns the state at the decision, or after the last score (``decision`` None: running, or
    ``blocks == max_blocks``: stopped by the cap without a decision).
    """
    x = np.asarray(list(scores), dtype=float)
    if max_blocks is not None:
        x = x[:max_blocks]
    if x.size:
        if not (np.all(np.isfinite(x)) and x.min() >= 0.0 and x.max() <= 1.0):
            raise ValueError("block scores must be numbers in [0, 1]")
        n = np.arange(1, x.size + 1)
        llr, _ = llr_from_sums(n, np.cumsum(x), np.cumsum(x * x), params)
        crossed = np.flatnonzero((llr >= params.upper) | (llr <= params.lower))
        if crossed.size:
            x = x[:crossed[0] + 1]
    return sprt_state(x.tolist(), params)
