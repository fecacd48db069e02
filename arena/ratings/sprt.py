"""Sequential probability ratio test (SPRT) of a candidate bot against a field, in the unit of
the ratings: the Plackett-Luce difference ``d = R_candidate - mean(R_field)`` that
:func:`arena.ratings.rate` reports (Elo points; any anchor). Pure functions over duplicate
blocks; the gauntlet runner (:mod:`arena.tournament.gauntlet`) feeds them complete blocks in
schedule order.

Observation: one **duplicate block** (one deal at one table, all 6 seatings). The 6 matches
share their cards and are dependent; blocks are independent, which is why they are the unit.

Statistic (a generalised SPRT, GSPRT, on the Plackett-Luce estimate). After ``n`` blocks:

* ``d_hat``: the Plackett-Luce MAP estimate of ``d`` over all matches of the blocks (the fit
  of :mod:`.plackett_luce`, prior sigma as the ratings': the number ``arena ratings`` gives
  for the same matches);
* its block pseudo-values ``x_b = d_hat + n (z_b - mean z)``, with ``z_b = u^T g_b`` the
  block's influence on ``d_hat`` (``u = H^{-1} a``, ``a`` the contrast of ``d``, ``g_b`` the
  block's score vector): their variance ``s2 = n sum_b (z_b - mean z)^2`` is the block-robust
  (sandwich) variance of one block's worth of information, which carries the correlation of
  the 6 seatings and whatever the game's luck is;
* ``s2`` regularised with one pseudo-block of the model's variance
  ``m2 = n a^T H^{-1} a`` (a block of independent matches): ``v = (n s2 + m2) / (n + 1)``;
* treating the pseudo-values as normal with unknown variance (M. Van den Bergh's GSPRT, the
  basis of fishtest's ``stat_util.py``), the log-likelihood ratio of ``d = d1`` against
  ``d = d0`` with the variance at its maximum-likelihood value under each::

      LLR = n/2 * log((v + (d_hat - d0)^2) / (v + (d_hat - d1)^2))

The test goes on while ``log(beta/(1-alpha)) < LLR < log((1-beta)/alpha)`` (Wald 1945) and
accepts H0 below, H1 above. To second order the LLR is ``n (d1 - d0)(2 d_hat - d0 - d1) /
(2 v)``, the normal SPRT on ``d_hat`` with its block-robust variance; the log form keeps the
error rates when the first blocks underestimate the variance (measured: docs/sprt.md).

**Zero variance**: when every block's pseudo-value is the same (``s2`` below ``1e-10 m2``: a
deterministic candidate against copies of itself, where the seats decide every match, or one
that wins every match), the variance is not there to estimate and the GSPRT's verdict would
rest on the regularising pseudo-block alone (with ``elo0 = -elo1`` and ``d_hat = 0`` the LLR
stays at exactly 0 until the cap). After ``k`` such blocks (at least
:data:`ZERO_VARIANCE_BLOCKS`), the share of blocks that could differ is below ``3/k`` with 95%
confidence (the rule of three), and a differing block moves ``d`` by at most what a block
score going from 1/2 to 1 does, so ``|d - d_hat| <= B = 6/k`` (log-strength; 1042/k Elo). The
test then stops: H1 when ``d_hat - B`` is above the midpoint of ``elo0`` and ``elo1``, H0 when
``d_hat + B`` is below it, and undecided (:data:`ZERO_VARIANCE`) as soon as
``[d_hat - B, d_hat + B]`` lies between ``elo0`` and ``elo1`` (the truth is between the two:
more blocks would not decide). A decision of the LLR comes first.

The 95% interval of ``d`` is ``d_hat +- 1.96 sqrt(v / n)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .batch_fit import fit_batch
from .model import RatedResult
from .plackett_luce import _PERMS, DEFAULT_PRIOR_SIGMA, ELO_PER_NAT, Patterns

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "ZERO_VARIANCE",
    "ZERO_VARIANCE_BLOCKS",
    "BlockSequence",
    "SprtArrays",
    "SprtParameters",
    "SprtState",
    "decisions",
    "field_contrast",
    "llr_arrays",
    "sequential_test",
    "sprt_state",
]

ZERO_VARIANCE = "zero variance"
"""Decision of a test stopped because its blocks never vary (with the estimate between elo0
and elo1)."""
ZERO_VARIANCE_BLOCKS = 10
"""Fewest blocks with identical pseudo-values before the zero-variance rule may stop the test
(see the module doc)."""
ZERO_VARIANCE_BOUND = 6.0
"""``B * k``: the bound on ``|d - d_hat|`` after ``k`` identical blocks, in log-strength units
(the rule of three, times the largest move of ``d`` by one block)."""
_ZERO_RATIO = 1e-10
_Z95 = 1.959963984540054
#: prefixes evaluated per array operation (times patterns squared: bounds memory)
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class SprtParameters:
    """``elo0`` / ``elo1``: the Elo difference (candidate minus the field's mean rating, the
    ratings' unit) under H0 / H1, with ``elo0 < elo1``; ``alpha`` / ``beta``: the error
    probabilities of accepting H1 when H0 holds / H0 when H1 holds, each in (0, 0.5).

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
    """The test after ``blocks`` blocks: ``llr`` with its ``lower``/``upper`` bounds, the
    estimate of candidate minus field (``elo``, Elo points) and its 95% interval
    (``elo_low``, ``elo_high``; None before the first block), and ``decision``: ``"H0"``,
    ``"H1"``, :data:`ZERO_VARIANCE` (stopped undecided) or None (continue);
    ``zero_variance`` when the blocks never varied and that ended the test."""

    blocks: int
    llr: float
    lower: float
    upper: float
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    decision: str | None
    zero_variance: bool = False

    def summary(self) -> str:
        """One line like the chess tools: ``LLR 1.23 [-2.94, 2.94]  Elo +12.3 [-4.0, +28.6]
        blocks 40  H1 accepted`` (or ``running``, ``stopped: every block alike``)."""
        elo = ("Elo -" if self.elo is None else
               f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}]")
        if self.decision in ("H0", "H1"):
            verdict = f"{self.decision} accepted" + (" (every block alike)"
                                                     if self.zero_variance else "")
        elif self.decision == ZERO_VARIANCE:
            verdict = "stopped: every block alike (zero variance)"
        else:
            verdict = "running"
        return (f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}]  {elo}  "
                f"blocks {self.blocks}  {verdict}")


@dataclass
class BlockSequence:
    """Duplicate blocks in schedule order, encoded as they come (:meth:`add`): the bots
    (``names``, the candidate first), the distinct match outcomes (patterns) and per block how
    often each occurs."""

    candidate: str
    names: list[str] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)
    _patterns: dict[tuple[tuple[int, ...], tuple[bool, ...]], int] = field(default_factory=dict)
    _blocks: list[dict[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._bot(self.candidate)

    def __len__(self) -> int:
        return len(self._blocks)

    def _bot(self, name: str) -> int:
        if name not in self._index:
            self._index[name] = len(self.names)
            self.names.append(name)
        return self._index[name]

    def add(self, matches: Sequence[RatedResult]) -> None:
        """Append one block (its matches; each must seat the candidate).

        Raises:
            ValueError: no match, or a match without the candidate.
        """
        if not matches:
            raise ValueError("a block needs at least one match")
        counts: dict[int, int] = {}
        for m in matches:
            if self.candidate not in m.players:
                raise ValueError(f"candidate {self.candidate!r} did not play in a match of "
                                 "the block")
            slots = sorted(zip((self._bot(n) for n in m.players), m.places, strict=True))
            ids = tuple(i for i, _ in slots)
            places = [p for _, p in slots]
            allowed = tuple(bool(places[a] <= places[b] <= places[c])
                            for a, b, c in _PERMS.tolist())
            key = (ids, allowed)
            p = self._patterns.setdefault(key, len(self._patterns))
            counts[p] = counts.get(p, 0) + 1
        self._blocks.append(counts)

    def arrays(self) -> tuple[Patterns, FloatArray]:
        """The patterns and the blocks x patterns count matrix."""
        keys = sorted(self._patterns, key=self._patterns.__getitem__)
        patterns = Patterns(
            players=np.array([ids for ids, _ in keys], dtype=np.intp).reshape(-1, 3),
            allowed=np.array([al for _, al in keys], dtype=bool).reshape(-1, 6),
            of_match=np.zeros(0, dtype=np.intp))
        counts = np.zeros((len(self._blocks), len(keys)))
        for b, row in enumerate(self._blocks):
            for p, c in row.items():
                counts[b, p] = c
        return patterns, counts


def field_contrast(patterns: Patterns, counts: FloatArray, n: int) -> FloatArray:
    """Per row of ``counts`` (B, P), the contrast ``a`` (B, n) with ``a^T theta = theta_0 -
    mean(theta_f)``: the candidate (bot 0) minus the mean of the field bots that played in
    the row's blocks (so a prefix of blocks is tested on its own bots only)."""
    seen = np.zeros((len(counts), n))
    for slot in range(3):
        np.add.at(seen.T, patterns.players[:, slot], (counts > 0).T)
    present = seen > 0
    present[:, 0] = False
    a = -present.astype(float) / np.maximum(present.sum(axis=1, keepdims=True), 1)
    a[:, 0] = 1.0
    out: FloatArray = a
    return out


@dataclass(frozen=True)
class SprtArrays:
    """Per row (a prefix of blocks, or a simulated run): the LLR, the estimate ``d_hat`` and
    the regularised per-block variance ``v`` (log-strength units), whether the blocks showed
    zero variance, and the fit ``theta`` (a warm start for the next)."""

    llr: FloatArray
    d_hat: FloatArray
    var: FloatArray
    zero: npt.NDArray[np.bool_]
    theta: FloatArray


def llr_arrays(patterns: Patterns, counts: FloatArray, second: FloatArray, blocks: FloatArray,
               params: SprtParameters, *, theta0: FloatArray | None = None,
               prior_sigma: float = DEFAULT_PRIOR_SIGMA) -> SprtArrays:
    """The statistic of the module doc for B rows at once: ``counts`` (B, P) how often each
    pattern occurs in the row's blocks, ``second`` (B, P, P) the sum over its blocks of
    ``m_b m_b^T`` (``m_b`` the block's counts), ``blocks`` (B,) how many blocks; bot 0 is the
    candidate, every other bot of ``patterns`` the field."""
    n = int(patterns.players.max()) + 1
    start = np.zeros(n) if theta0 is None else theta0
    fit = fit_batch(patterns, counts, n, prior_sigma, start)
    theta, grad_local = fit.theta, fit.grad_local
    a = field_contrast(patterns, counts, n)                                       # (B, n)
    u = np.linalg.solve(fit.hess, a[..., None])[..., 0]                            # (B, n)
    w = np.einsum("bpi,bpi->bp", grad_local, u[:, patterns.players])   # (B, P): u . g_p
    total = np.einsum("bp,bp->b", counts, w)
    v0 = np.einsum("bp,bpq,bq->b", w, second, w) - total**2 / blocks
    model = blocks * np.einsum("bi,bi->b", u, a)
    robust = blocks * np.maximum(v0, 0.0)
    var = (blocks * robust + model) / (blocks + 1.0)
    d_hat = np.einsum("bi,bi->b", theta, a)
    d0, d1 = params.elo0 / ELO_PER_NAT, params.elo1 / ELO_PER_NAT
    llr = 0.5 * blocks * np.log((var + (d_hat - d0) ** 2) / (var + (d_hat - d1) ** 2))
    zero = robust <= _ZERO_RATIO * model
    return SprtArrays(llr, d_hat, var, zero, theta)


#: decision codes of :func:`decisions`
H0, H1, STOPPED, CONTINUE = -1, 1, 2, 0
_NAMES = {H0: "H0", H1: "H1", STOPPED: ZERO_VARIANCE, CONTINUE: None}


def decisions(arr: SprtArrays, blocks: npt.ArrayLike, params: SprtParameters
              ) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.bool_]]:
    """Per row of ``arr`` after ``blocks`` blocks: the decision code (:data:`H1`,
    :data:`H0`, :data:`STOPPED` by zero variance, :data:`CONTINUE`) and whether zero variance
    ended the test (see the module doc)."""
    k = np.asarray(blocks, dtype=float)
    d0, d1 = params.elo0 / ELO_PER_NAT, params.elo1 / ELO_PER_NAT
    mid = (d0 + d1) / 2
    bound = ZERO_VARIANCE_BOUND / np.maximum(k, 1.0)
    low, high = arr.d_hat - bound, arr.d_hat + bound
    zero_code = np.where(low >= mid, H1, np.where(high <= mid, H0, np.where(
        (low > d0) & (high < d1), STOPPED, CONTINUE)))
    undecided = (arr.llr > params.lower) & (arr.llr < params.upper)
    by_zero = arr.zero & (k >= ZERO_VARIANCE_BLOCKS) & undecided & (zero_code != CONTINUE)
    code = np.where(arr.llr >= params.upper, H1, np.where(arr.llr <= params.lower, H0,
                                                          np.where(by_zero, zero_code,
                                                                   CONTINUE)))
    return code.astype(int), by_zero


def _state(blocks: int, llr: float, d_hat: float, var: float, decision: str | None,
           zero: bool, params: SprtParameters) -> SprtState:
    half = _Z95 * math.sqrt(var / blocks)
    return SprtState(blocks, llr, params.lower, params.upper, d_hat * ELO_PER_NAT,
                     (d_hat - half) * ELO_PER_NAT, (d_hat + half) * ELO_PER_NAT, decision, zero)


def _empty(params: SprtParameters) -> SprtState:
    return SprtState(0, 0.0, params.lower, params.upper, None, None, None, None)


def sprt_state(sequence: BlockSequence, params: SprtParameters, upto: int | None = None, *,
               prior_sigma: float = DEFAULT_PRIOR_SIGMA) -> SprtState:
    """The test over the first ``upto`` blocks of ``sequence`` (default all; no early stop:
    see :func:`sequential_test`); ``decision`` says what the last of them decides, if
    anything."""
    k = len(sequence) if upto is None else min(upto, len(sequence))
    if k == 0 or len(sequence.names) < 2:
        return _empty(params)
    patterns, m = sequence.arrays()
    m = m[:k]
    arr = llr_arrays(patterns, m.sum(axis=0)[None], (m.T @ m)[None], np.array([float(k)]),
                     params, prior_sigma=prior_sigma)
    code, by_zero = decisions(arr, k, params)
    return _state(k, float(arr.llr[0]), float(arr.d_hat[0]), float(arr.var[0]),
                  _NAMES[int(code[0])], bool(by_zero[0]), params)


def sequential_test(sequence: BlockSequence, params: SprtParameters,
                    max_blocks: int | None = None, *,
                    prior_sigma: float = DEFAULT_PRIOR_SIGMA) -> SprtState:
    """Run the SPRT over the blocks of ``sequence`` in order and stop at the first block
    where it decides (or at ``max_blocks``). Later blocks are ignored, so the result depends
    only on complete blocks in schedule order, never on which matches finished first.

    Returns the state at the decision, or after the last block (``decision`` None: running, or
    ``blocks == max_blocks``: stopped by the cap without a decision).
    """
    total = len(sequence) if max_blocks is None else min(len(sequence), max_blocks)
    if total == 0 or len(sequence.names) < 2:
        return _empty(params)
    patterns, m = sequence.arrays()
    m = m[:total]
    p = m.shape[1]
    chunk = max(1, _CHUNK_CELLS // max(1, p * p))
    counts = np.cumsum(m, axis=0)
    second = np.zeros((p, p))
    theta = None
    for lo in range(0, total, chunk):
        hi = min(total, lo + chunk)
        outer = m[lo:hi, :, None] * m[lo:hi, None, :]
        sec = second + np.cumsum(outer, axis=0)
        ks = np.arange(lo + 1, hi + 1, dtype=float)
        arr = llr_arrays(patterns, counts[lo:hi], sec, ks, params, theta0=theta,
                         prior_sigma=prior_sigma)
        code, by_zero = decisions(arr, ks, params)
        hit = np.flatnonzero(code != CONTINUE)
        if hit.size or hi == total:
            j = int(hit[0]) if hit.size else hi - lo - 1
            return _state(lo + j + 1, float(arr.llr[j]), float(arr.d_hat[j]),
                          float(arr.var[j]), _NAMES[int(code[j])], bool(by_zero[j]), params)
        second = sec[-1]
        theta = arr.theta[-1]
    return _empty(params)     # never reached: the last prefix returns
