"""Plackett-Luce maximum-a-posteriori fit of 3-player placings, reported on the Elo scale.

Model
-----
Bot ``i`` has a log-strength ``theta_i`` (strength ``w_i = exp(theta_i)``). A match orders its
three bots like drawing without replacement proportionally to strength (Luce 1959; Plackett
1975)::

    P(a first, b second, c third) = w_a / (w_a + w_b + w_c) * w_b / (w_b + w_c)

Ties mean *order unknown*: the probability of a placing with a tied group is the sum of the
probabilities of the orderings consistent with it, e.g. for places (1, 1, 3) of (a, b, c)::

    P = P(a, b, c) + P(b, a, c)

(For (1, 2, 2) this collapses to ``w_a / (w_a + w_b + w_c)``, for (1, 1, 1) to 1.)

Fit
---
All matches are fitted at once (the result does not depend on their order) by minimising the
negative log-posterior::

    F(theta) = -sum_m log P(placing_m | theta) + sum_i theta_i^2 / (2 * sigma^2)

The Gaussian prior ``theta_i ~ N(0, sigma^2)`` (default ``sigma = 1.5``, i.e. 1.5 * 173.7 =
260 Elo points) keeps bots that always win or always lose finite and pins the free additive
constant of PL (the likelihood only depends on differences, so at the optimum
``sum_i theta_i = 0``). With a few dozen matches per bot its pull is a fraction of a percent.
Without ties the likelihood is log-concave (Hunter 2004); with "order unknown" ties each
placing is the probability of a set of Gumbel race outcomes cut out by linear inequalities,
which is log-concave in theta by Prekopa's theorem (Prekopa 1973). With the strictly convex
prior ``F`` therefore has a unique minimum, found here by a trust-region Newton method
(``scipy.optimize.minimize(method="trust-exact")``) with analytic gradient and Hessian.

Elo scale
---------
``R_i = 1500 + 400 / ln(10) * theta_i`` with ``theta`` centred (mean 0): units are Elo points,
the mean rating is 1500. In a 3-player PL model the probability that ``i`` places above ``j``
(whoever the third bot is) is exactly ``w_i / (w_i + w_j)`` (Luce's choice axiom), i.e.::

    P(i above j) = 1 / (1 + 10 ** (-(R_i - R_j) / 400))

the Elo expected-score curve (Elo 1978): +200 points means placing above ~76% of the time.

Sources: R. L. Plackett, "The analysis of permutations", Applied Statistics 24 (1975) 193-202;
R. D. Luce, "Individual Choice Behavior", Wiley 1959; D. R. Hunter, "MM algorithms for
generalized Bradley-Terry models", Annals of Statistics 32 (2004) 384-406; A. Prekopa, "On
logarithmic concave measures and functions", Acta Sci. Math. 34 (1973) 335-343; A. E. Elo,
"The Rating of Chessplayers, Past and Present", 1978.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from .model import RatedResult

__all__ = [
    "DEFAULT_PRIOR_SIGMA",
    "ELO_BASE",
    "ELO_PER_NAT",
    "Patterns",
    "elo_to_theta",
    "encode",
    "fit_theta",
    "negative_log_posterior",
    "ordering_probability",
    "p_above",
    "pattern_terms",
    "placing_probability",
    "theta_to_elo",
]

DEFAULT_PRIOR_SIGMA = 1.5
"""Default standard deviation of the N(0, sigma^2) prior on log-strength theta (= 260 Elo)."""
ELO_BASE = 1500.0
"""Rating of the average bot."""
ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of theta (natural log-strength): 173.72..."""

# All 6 orderings of 3 local slots; _FIRST[k] / _U[k] are one-hot helpers for ordering k.
_PERMS = np.array(list(itertools.permutations(range(3))), dtype=np.intp)
_ONEHOT = np.eye(3)[_PERMS]  # (6, 3 positions, 3 slots)
_FIRST = _ONEHOT[:, 0, :]  # slot placed first
_U = _ONEHOT[:, 1, :] - _ONEHOT[:, 2, :]  # second minus third


def theta_to_elo(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Centre ``theta`` (mean 0) and map it to Elo points: ``1500 + 400/ln(10) * theta``."""
    theta = np.asarray(theta, dtype=np.float64)
    elo: NDArray[np.float64] = ELO_BASE + ELO_PER_NAT * (theta - theta.mean(axis=-1,
                                                                            keepdims=True))
    return elo


def elo_to_theta(ratings: NDArray[np.float64]) -> NDArray[np.float64]:
    """Inverse of :func:`theta_to_elo` for centred ratings: ``(R - 1500) * ln(10) / 400``."""
    theta: NDArray[np.float64] = (np.asarray(ratings, dtype=np.float64) - ELO_BASE) / ELO_PER_NAT
    return theta


def p_above(r_i: float, r_j: float) -> float:
    """P(bot rated ``r_i`` places above bot rated ``r_j``) = 1 / (1 + 10^(-(r_i - r_j)/400))."""
    return 1.0 / (1.0 + math.pow(10.0, -(r_i - r_j) / 400.0))


def ordering_probability(theta: Sequence[float], order: Sequence[int]) -> float:
    """PL probability that the 3 bots with log-strengths ``theta`` finish in ``order``.

    ``order`` lists indices into ``theta``, first place first. Straight from the definition,
    without any of the vectorisation of the fit (used as a reference in tests).
    """
    w = [math.exp(t) for t in theta]
    a, b, c = order
    return w[a] / (w[a] + w[b] + w[c]) * w[b] / (w[b] + w[c])


def placing_probability(theta: Sequence[float], places: Sequence[int]) -> float:
    """Probability of a (possibly tied) placing: sum over the consistent orderings."""
    total = 0.0
    for order in itertools.permutations(range(3)):
        if all(places[order[k]] <= places[order[k + 1]] for k in range(2)):
            total += ordering_probability(theta, order)
    return total


@dataclass(frozen=True)
class Patterns:
    """Distinct match outcomes, so that repeated outcomes are evaluated once.

    ``players[p]`` holds the 3 bot indices of pattern ``p`` (ascending), ``allowed[p, k]``
    whether ordering ``k`` of :data:`_PERMS` (over those 3 slots) is consistent with the
    placing, and ``of_match[m]`` the pattern of input match ``m``. Patterns are sorted, so
    the encoding does not depend on the order of the input.
    """

    players: NDArray[np.intp]  # (P, 3)
    allowed: NDArray[np.bool_]  # (P, 6)
    of_match: NDArray[np.intp]  # (M,)

    @property
    def counts(self) -> NDArray[np.float64]:
        """How many input matches have each pattern."""
        return np.bincount(self.of_match, minlength=len(self.players)).astype(float)


def encode(results: Sequence[RatedResult], index: Mapping[str, int]) -> Patterns:
    """Encode match results as :class:`Patterns` over bot indices ``index[name]``."""
    keys: list[tuple[tuple[int, ...], tuple[bool, ...]]] = []
    for r in results:
        slots = sorted(zip((index[name] for name in r.players), r.places, strict=True))
        ids = tuple(i for i, _ in slots)
        places = [p for _, p in slots]
        allowed = tuple(
            bool(places[a] <= places[b] <= places[c]) for a, b, c in _PERMS.tolist()
        )
        keys.append((ids, allowed))
    distinct = sorted(set(keys))
    pos = {key: k for k, key in enumerate(distinct)}
    return Patterns(
        players=np.array([ids for ids, _ in distinct], dtype=np.intp).reshape(-1, 3),
        allowed=np.array([al for _, al in distinct], dtype=bool).reshape(-1, 6),
        of_match=np.array([pos[key] for key in keys], dtype=np.intp),
    )


def _lse(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(sum(exp(x)))`` over the last axis (some entries may be ``-inf``, not all)."""
    top = x.max(axis=-1, keepdims=True)
    out: NDArray[np.float64] = top[..., 0] + np.log(np.exp(x - top).sum(axis=-1))
    return out


def pattern_terms(theta: NDArray[np.float64], patterns: Patterns, *, derivatives: bool = True
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                             NDArray[np.float64] | None]:
    """Per pattern: ``log P(placing | theta)`` (..., P) and, with ``derivatives``, its gradient
    (..., P, 3) and Hessian (..., P, 3, 3) with respect to the log-strengths of the pattern's 3
    bots (``patterns.players[p]``, in that order). ``theta`` is one vector (n,) or a batch
    (..., n).

    For a placing that is a mixture of orderings ``r`` with posterior weights ``v_r``, the
    gradient of ``log P`` is ``sum_r v_r g_r`` and its Hessian
    ``sum_r v_r (H_r + g_r g_r^T) - g g^T``.
    """
    local = np.asarray(theta, dtype=float)[..., patterns.players]  # (..., P, 3)
    ordered = local[..., _PERMS]  # (..., P, 6, 3)
    lse1 = _lse(local)  # first pick among all 3
    lse2 = np.logaddexp(ordered[..., 1], ordered[..., 2])  # second pick among the last 2
    logp = ordered[..., 0] + ordered[..., 1] - lse1[..., None] - lse2
    logp = np.where(patterns.allowed, logp, -np.inf)
    log_lik = _lse(logp)  # (..., P)
    if not derivatives:
        return log_lik, None, None
    v = np.exp(logp - log_lik[..., None])  # posterior weight of each ordering, 0 if disallowed
    p1 = np.exp(local - lse1[..., None])  # softmax over the 3 slots
    q = np.exp(ordered[..., 1] - lse2)  # P(second placed beats third in stage 2)
    h = _FIRST + (1.0 - q)[..., None] * _U  # (..., P, 6, 3): g_r + p1
    mean_h = np.einsum("...k,...ki->...i", v, h)
    grad_local: NDArray[np.float64] = mean_h - p1
    hess_local: NDArray[np.float64] = (
        np.einsum("...k,...ki,...kj->...ij", v, h, h)
        - mean_h[..., :, None] * mean_h[..., None, :]
        - np.einsum("...k,ki,kj->...ij", v * q * (1.0 - q), _U, _U)
        - (p1[..., :, None] * np.eye(3) - p1[..., :, None] * p1[..., None, :])
    )
    return log_lik, grad_local, hess_local


def negative_log_posterior(
    theta: NDArray[np.float64],
    patterns: Patterns,
    weights: NDArray[np.float64],
    prior_sigma: float,
    *,
    derivatives: bool = True,
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]] | float:
    """``F(theta)`` (see module doc) with pattern ``p`` counted ``weights[p]`` times.

    Returns ``(F, gradient, Hessian)``, or only ``F`` if ``derivatives`` is false (per
    pattern terms: :func:`pattern_terms`).
    """
    theta = np.asarray(theta, dtype=float)
    n = theta.shape[0]
    log_lik, grad_local, hess_local = pattern_terms(theta, patterns, derivatives=derivatives)
    prior = 0.5 * float(theta @ theta) / prior_sigma**2
    value = -float(weights @ log_lik) + prior
    if grad_local is None or hess_local is None:
        return value
    idx = patterns.players
    grad = theta / prior_sigma**2 - np.bincount(
        idx.ravel(), weights=(weights[:, None] * grad_local).ravel(), minlength=n
    )
    flat = (idx[:, :, None] * n + idx[:, None, :]).ravel()
    hess = np.eye(n) / prior_sigma**2 - np.bincount(
        flat, weights=(weights[:, None, None] * hess_local).ravel(), minlength=n * n
    ).reshape(n, n)
    return value, grad, hess


def fit_theta(
    patterns: Patterns,
    weights: NDArray[np.float64],
    n_players: int,
    prior_sigma: float = DEFAULT_PRIOR_SIGMA,
    *,
    theta0: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """MAP log-strengths (centred, mean 0) for ``n_players`` bots; see module doc.

    Raises ``RuntimeError`` if the optimiser does not converge (the objective is strictly
    convex and smooth, so this indicates a bug rather than bad data).
    """
    cache: dict[bytes, tuple[float, NDArray[np.float64], NDArray[np.float64]]] = {}

    def evaluate(x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        key = x.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = negative_log_posterior(x, patterns, weights, prior_sigma)  # type: ignore[assignment]
        return cache[key]

    x0 = np.zeros(n_players) if theta0 is None else np.array(theta0, dtype=float)
    # The gradient scales with the number of matches; ask for a tolerance well below the
    # curvature of one match so that theta is exact to ~1e-10.
    gtol = 1e-10 * max(1.0, float(np.sum(weights)))
    def value(x: NDArray[np.float64]) -> float:
        return evaluate(x)[0]

    def gradient(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return evaluate(x)[1]

    def hessian(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return evaluate(x)[2]

    res = minimize(value, x0, jac=gradient, hess=hessian, method="trust-exact",
                   options={"gtol": gtol, "maxiter": 500})
    grad = evaluate(res.x)[1]
    if not np.all(np.isfinite(res.x)) or float(np.max(np.abs(grad))) > 1e3 * gtol:
        raise RuntimeError(f"Plackett-Luce fit did not converge: {res.message}")
    theta = np.asarray(res.x, dtype=np.float64)
    centred: NDArray[np.float64] = theta - theta.mean()
    return centred
