"""Which tables to play next: information-driven scheduling over duplicate blocks.

:func:`next_tables` is a pure function of the results so far (and the blocks already scheduled
but not finished) and the roster: it returns the next ``k`` tables, each to be played as one
duplicate block (one new deal in all 6 seatings), so adaptive schedules keep whole blocks.

1. **Warm-up**: until every pair of bots has met at a table (played or scheduled), tables are
   chosen to cover the pairs that have not met: the caller's preferred covering first (the
   runner passes a balanced schedule's tables, :mod:`arena.tournament.balanced`), then most
   uncovered pairs first (a greedy covering, 5-15% larger than a Steiner triple system). A bot
   added to a league meets every other bot this way before anything else.
2. **Information**: then each table is chosen to shrink the uncertainty that matters for the
   ``target``. At the current Plackett-Luce fit ``theta`` (:mod:`.plackett_luce`), the
   information of one block at table ``T`` is ``E_T = 6 * sum_o P(o) J(o)`` (the 6 orderings
   ``o`` of its bots, ``J(o)`` the negative Hessian of ``log P(o)``), and adding it to the
   current information ``I`` (the played and scheduled blocks, plus the prior) lowers the
   variance of a contrast ``a`` by ``Delta_T(a) = a^T (I^{-1} - (I + E_T)^{-1}) a``, computed
   for all tables at once with the Woodbury identity. The table with the largest weighted
   gain ``sum_c w_c Delta_T(a_c)`` is chosen; for ``k > 1`` its information is added, the
   weights are computed again from the variances it leaves, and the next is chosen likewise
   (the estimate held): a batch design, so the ``k`` tables of one call are the tables ``k``
   calls give when each sees the earlier ones as pending, and they do not all go to the same
   question.

Targets (``target``):

* ``"top"``: the order of the best ``top`` bots (default 3): the contrasts between
  neighbours among them and between the ``top``-th and every other bot, each weighted by how
  far it is from being settled: ``w_c = exp(-z_c) max(z_c, 1) / v_c`` with ``z_c = |d_c| /
  sqrt(v_c)`` (``d_c`` its estimate, ``v_c`` its variance): pairs already far apart (large
  ``z``) get few blocks, pairs whose order is uncertain many;
* ``"widest"``: every bot's rating, weighted towards the widest **reported** intervals: with
  ``s_i`` the ratio of bot ``i``'s reported variance (``(half / 1.96)^2``, the block-robust
  variance and t factor of :func:`arena.ratings.rate`) to its model variance ``v_i``,
  ``w_i = s_i (s_i v_i / max_j s_j v_j)^7`` (``v`` after the tables chosen so far; ``s_i``
  shrunk towards 1 when the report has few degrees of freedom): the gain is the drop of the
  reported variances, the widest first. The question is settled by the
  reported widths, and a bot whose blocks happened to scatter has a wider interval than its
  information says: it gets blocks until its own interval is narrow enough (measured in
  docs/ratings.md, "Against balanced duplicate at equal matches").

Pairs of bots of similar strength inform most per match (a Plackett-Luce comparison carries
``p (1 - p)``), which is where the gain over a fixed schedule comes from; measured against
balanced duplicate at equal matches in ``bench/adaptive.py`` (docs/ratings.md), where the
intervals of :mod:`.intervals` keep their coverage under the adaptive design.

Deterministic: the same results, pending tables, roster and ``seed`` give the same tables
(ties between tables are broken by a SHA-256 order of the tables seeded with ``seed``).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from .edges import anchor_mask, one_sided
from .intervals import CI_LEVEL, block_design, contrasts, robust_intervals
from .model import RatedResult, validated
from .plackett_luce import DEFAULT_PRIOR_SIGMA, Patterns, encode, fit_theta, pattern_terms

__all__ = ["TARGETS", "next_tables"]

TARGETS = ("top", "widest")
Table = tuple[str, str, str]
#: most candidate tables scored at once (larger rosters: tables with a bot that matters most)
_MAX_CANDIDATES = 20_000
#: the normal quantile of the intervals' level (the reported scale's reference)
_Z = float(norm.ppf(0.5 + CI_LEVEL / 2))
#: degrees of freedom at which the reported scale counts half (in log): see _reported_scale
_SCALE_DF = 30.0


def _order_key(table: Sequence[str], seed: int | str) -> bytes:
    return hashlib.sha256(repr((seed, tuple(table))).encode()).digest()


def _blocks_of(results: Sequence[RatedResult], pending: Sequence[Sequence[str]]
               ) -> list[frozenset[str]]:
    """The bot set of every block played (from ``results``) or scheduled (``pending``)."""
    seen: dict[str, set[str]] = {}
    for r in results:
        seen.setdefault(r.block, set()).update(r.players)
    return [frozenset(b) for b in seen.values()] + [frozenset(t) for t in pending]


def _warm_up(bots: Sequence[str], blocks: list[frozenset[str]], k: int, seed: int | str,
             preferred: Sequence[Sequence[str]]) -> list[Table]:
    """Up to ``k`` tables covering pairs that have not met (none when all have): first the
    ``preferred`` tables (in their order) that seat such a pair, then each time the table
    with the most such pairs, then the fewest blocks of its bots, then the seeded order."""
    n = len(bots)
    index = {name: i for i, name in enumerate(bots)}
    unmet = ~np.eye(n, dtype=bool)
    load = np.zeros(n)
    for b in blocks:
        ids = [index[x] for x in b if x in index]
        load[ids] += 1
        unmet[np.ix_(ids, ids)] = False
    out: list[Table] = []
    for t in preferred:
        ids = [index[x] for x in t]
        if len(out) < k and unmet[np.ix_(ids, ids)].any():
            out.append((t[0], t[1], t[2]))
            unmet[np.ix_(ids, ids)] = False
            load[ids] += 1
    tables = _candidates(bots, np.zeros(n), seed, every=True)
    i, j, m = tables[:, 0], tables[:, 1], tables[:, 2]
    while len(out) < k:
        new = unmet[i, j].astype(int) + unmet[i, m] + unmet[j, m]
        if not new.any():
            break
        key = new * (4.0 * n * (len(blocks) + k + 1)) - load[tables].sum(axis=1)
        best = tables[int(np.argmax(key))]     # first of the best in the seeded order
        out.append((bots[best[0]], bots[best[1]], bots[best[2]]))
        unmet[np.ix_(best, best)] = False
        load[best] += 1
    return out


def _table_information(theta: NDArray[np.float64], tables: NDArray[np.intp]
                       ) -> NDArray[np.float64]:
    """Expected information (T, 3, 3) of one duplicate block (6 matches) at each table."""
    t = len(tables)
    patterns = Patterns(players=np.repeat(tables, 6, axis=0),
                        allowed=np.tile(np.eye(6, dtype=bool), (t, 1)),
                        of_match=np.zeros(0, dtype=np.intp))
    log_p, _, hess = pattern_terms(theta, patterns)
    if hess is None:      # never: derivatives were asked for
        raise RuntimeError("no Hessian from the pattern terms")
    prob = np.exp(log_p).reshape(t, 6)
    info: NDArray[np.float64] = -6.0 * np.einsum("to,toij->tij", prob, hess.reshape(t, 6, 3, 3))
    return info


def _weights(theta: NDArray[np.float64], cov: NDArray[np.float64], target: str,
             top: int, scale: NDArray[np.float64] | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The target's contrasts (n x C) and their weights (C,). ``"widest"``: ``scale`` (n,)
    turns each bot's model variance into its reported one (:func:`_reported_scale`; ones
    when None): weights ``s_i (s_i v_i / max_j s_j v_j)^7``, so that the weighted gain is
    the drop of the reported variances, the widest first."""
    n = len(theta)
    if target == "widest":
        a = np.eye(n) - 1.0 / n
        s = np.ones(n) if scale is None else scale
        reported = s * np.einsum("ic,ij,jc->c", a, cov, a)
        return a, s * (reported / reported.max()) ** 7
    order = np.argsort(-theta, kind="stable")
    k = min(top, n - 1)
    pairs = [(order[i], order[i + 1]) for i in range(k - 1)]
    pairs += [(order[k - 1], order[j]) for j in range(k, n)]
    a = np.zeros((n, len(pairs)))
    for c, (i, j) in enumerate(pairs):
        a[i, c], a[j, c] = 1.0, -1.0
    v = np.einsum("ic,ij,jc->c", a, cov, a)
    z = np.abs(theta @ a) / np.sqrt(v)
    return a, np.exp(-z) * np.maximum(z, 1.0) / v


def _gains(cov: NDArray[np.float64], info: NDArray[np.float64], tables: NDArray[np.intp],
           a: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum_c w_c Delta_T(a_c)`` for every table (Woodbury:
    ``Delta = g^T (I + E S)^{-1} E g`` with ``g = (cov a)[T]``, ``S = cov[T, T]``)."""
    ca = cov @ a                                                     # (n, C)
    g = ca[tables]                                                   # (T, 3, C)
    s = cov[tables[:, :, None], tables[:, None, :]]                  # (T, 3, 3)
    m = np.linalg.solve(np.eye(3) + info @ s, info)                  # (T, 3, 3)
    out: NDArray[np.float64] = np.einsum("tic,tij,tjc,c->t", g, m, g, w)
    return out


def next_tables(results: Sequence[RatedResult], bots: Sequence[str], k: int = 1, *,
                pending: Sequence[Sequence[str]] = (), target: str = "top", top: int = 3,
                seed: int | str = 0, warm_up: Sequence[Sequence[str]] = (),
                prior_sigma: float = DEFAULT_PRIOR_SIGMA) -> list[Table]:
    """The next ``k`` tables (3 bot names each, in roster order) to play as one duplicate
    block each, given the ``results`` so far (any :class:`~.model.RatedResult`; forfeits
    count as placed), the tables of blocks scheduled but not finished (``pending``), the
    roster ``bots`` (at least 3 distinct names; results of bots not in it are ignored) and the
    ``target`` (``"top"``: the order of the best ``top`` bots; ``"widest"``: the widest
    interval). ``warm_up``: tables (of roster bots) to cover unmet pairs with first, such as a
    balanced schedule's (:func:`arena.tournament.balanced.balanced_tables`: a smaller
    covering than the greedy one). See the module doc for the method.

    Raises:
        ValueError: fewer than 3 distinct bots, ``k < 0``, an unknown target, ``top < 2`` or
            a ``warm_up`` table that does not seat 3 distinct roster bots.
    """
    roster = list(bots)
    if len(roster) < 3 or len(set(roster)) != len(roster):
        raise ValueError("a schedule needs at least 3 distinct bots")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {TARGETS}")
    if top < 2:
        raise ValueError(f"top must be >= 2, got {top}")
    members = set(roster)
    if any(len(set(t)) != 3 or len(t) != 3 or not set(t) <= members for t in warm_up):
        raise ValueError("every warm_up table must seat 3 distinct bots of the roster")
    own = [validated(r) for r in results if set(r.players) <= members]
    blocks = _blocks_of(own, [t for t in pending if set(t) <= members])
    out = _warm_up(roster, blocks, k, seed, warm_up)
    if len(out) == k:
        return out
    index = {name: i for i, name in enumerate(roster)}
    n = len(roster)
    patterns = encode(own, index)
    theta = fit_theta(patterns, patterns.counts, n, prior_sigma)
    info_total = _played_information(theta, patterns) + np.eye(n) / prior_sigma**2
    played_cov = np.asarray(np.linalg.inv(info_total), dtype=np.float64)
    scale = (_reported_scale(own, roster, patterns, theta, played_cov, prior_sigma)
             if target == "widest" else None)
    scheduled = [t for t in pending if set(t) <= members] + out
    if scheduled:
        idx = np.array([[index[x] for x in t] for t in scheduled], dtype=np.intp)
        _add(info_total, idx, _table_information(theta, idx))
    tables = _candidates(roster, theta, seed)
    info = _table_information(theta, tables)
    cov = np.asarray(np.linalg.inv(info_total), dtype=np.float64)
    while len(out) < k:
        a, w = _weights(theta, cov, target, top, scale)    # after the tables chosen so far
        gain = _gains(cov, info, tables, a, w)
        best = int(np.argmax(gain))            # candidates are in seeded order: ties too
        chosen = tables[best]
        out.append((roster[chosen[0]], roster[chosen[1]], roster[chosen[2]]))
        _add(info_total, chosen[None], info[best][None])
        cov = np.asarray(np.linalg.inv(info_total), dtype=np.float64)
    return out


def _reported_scale(results: Sequence[RatedResult], roster: Sequence[str], patterns: Patterns,
                    theta: NDArray[np.float64], cov: NDArray[np.float64], prior_sigma: float
                    ) -> NDArray[np.float64]:
    """Per bot, its reported variance over its model variance (n,), shrunk towards 1 where
    the report is noisy: ``r^(df / (df + 30))`` with ``r = (half / z)^2 / v``, ``half`` the
    half-width of the interval :func:`arena.ratings.rate` reports
    (:func:`.intervals.robust_intervals`: block-robust variance, t factor, ``df`` its degrees
    of freedom), ``z`` the normal quantile and ``v = a^T cov a`` (``cov`` the inverse
    information of the played blocks and the prior: pending blocks have no report yet).

    The shrinkage keeps the intervals calibrated: a bot whose variance came out low by
    chance gets fewer blocks, and with few degrees of freedom that chance is large (without
    it, 9 bots x 2 rounds covered 0.937 pooled; with 30: 0.953; docs/ratings.md). A one-sided
    bot, whose report is a bound that never settles "widest", gets the largest scale of the
    others; all ones with fewer than 2 blocks."""
    n = len(roster)
    design = block_design(results, patterns)
    if len(design.blocks) < 2:
        return np.ones(n)
    flags = one_sided(results, roster)
    anchor = anchor_mask([flags[x] for x in roster])
    a = contrasts(anchor)[0][:, :n]
    robust = robust_intervals(patterns, design.membership, theta, prior_sigma, a)
    v = np.einsum("ic,ij,jc->c", a, cov, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (robust.half / _Z) ** 2 / v
        scale = ratio ** (robust.df / (robust.df + _SCALE_DF))
    bad = np.array([flags[x] is not None for x in roster]) | ~np.isfinite(scale) | (scale <= 0)
    if bad.all():
        return np.ones(n)
    scale[bad] = scale[~bad].max()
    out: NDArray[np.float64] = scale
    return out


def _played_information(theta: NDArray[np.float64], patterns: Patterns) -> NDArray[np.float64]:
    """The observed information of the matches of ``patterns`` at ``theta``."""
    n = len(theta)
    _, _, hess = pattern_terms(theta, patterns)
    if hess is None:      # never: derivatives were asked for
        raise RuntimeError("no Hessian from the pattern terms")
    out = np.zeros((n, n))
    _add(out, patterns.players, -patterns.counts[:, None, None] * hess)
    return out


def _add(total: NDArray[np.float64], tables: NDArray[np.intp], info: NDArray[np.float64]
         ) -> None:
    """Add the local 3 x 3 informations ``info`` of ``tables`` into ``total`` (in place)."""
    np.add.at(total, (tables[:, :, None], tables[:, None, :]), info)


def _candidates(roster: Sequence[str], theta: NDArray[np.float64], seed: int | str, *,
                every: bool = False) -> NDArray[np.intp]:
    """Every table (bot indices, ascending) in a seeded order; unless ``every``, for a roster
    with more than :data:`_MAX_CANDIDATES` tables only those seating one of the bots rated
    nearest the top."""
    n = len(roster)
    combos = list(itertools.combinations(range(n), 3))
    if len(combos) > _MAX_CANDIDATES and not every:
        keep = int(np.ceil(_MAX_CANDIDATES / ((n - 1) * (n - 2) / 2)))
        focus = set(np.argsort(-theta, kind="stable")[:keep].tolist())
        combos = [c for c in combos if focus & set(c)]
    combos.sort(key=lambda c: _order_key([roster[i] for i in c], seed))
    return np.array(combos, dtype=np.intp).reshape(-1, 3)
