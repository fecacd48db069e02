"""One-sided 95% bounds for the ratings of one-sided bots (never beaten, or never beat another
bot; :mod:`.edges`).

Such a bot's likelihood keeps rising (never beaten) or falling (never beat) as its strength
goes to infinity, so its estimate and any two-sided interval are set by the prior alone. What
the data do say is a bound: the profile likelihood ratio bound (Wilks; one-sided, 95%)::

    bound = the rating r where  log Lp(inf) - log Lp(r) = z_{0.95}^2 / 2 = 1.353

``Lp(r)`` is the posterior with the bot's own prior term removed, maximised over every other
bot's strength with the bot's anchored rating held at ``r`` (``+inf`` for a bot never beaten,
``-inf`` for one that never beat another bot). It does not depend on the bot's prior: the
other bots keep theirs, which only fixes the scale's additive constant. A bot whose every
match was a full tie has a flat profile and no bound (None).

Differences with a one-sided bot (:func:`difference_bounds`) combine the two bots' bounds:
``R_a - R_b`` has a lower bound ``low_a - high_b`` when ``R_a`` has a lower and ``R_b`` an upper
bound (their interval ends), an upper bound ``high_a - low_b`` likewise; a union of the two
statements, so the bound holds at least 92.5% of the time, usually far more.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq, minimize

from .plackett_luce import ELO_BASE, ELO_PER_NAT, Patterns, negative_log_posterior

__all__ = ["DROP", "difference_bounds", "profile_bound"]

#: the drop of the log-likelihood at a one-sided 95% bound: z_{0.95}^2 / 2
DROP = 1.6448536269514722**2 / 2
#: how far (log-strength units, 1 = 174 Elo) the profile is followed towards infinity
_FAR = 40.0


class _Profile:
    """The profile of bot ``i``'s anchored rating ``d = theta_i - mean(theta[anchor])``."""

    def __init__(self, patterns: Patterns, weights: NDArray[np.float64], theta: NDArray[np.float64],
                 i: int, anchor: NDArray[np.bool_], sigma: float) -> None:
        n = len(theta)
        w = np.asarray(anchor, dtype=float) / float(np.sum(anchor))
        self.keep = np.array([j for j in range(n) if j != i])
        scale = 1.0 - w[i]
        self.t = np.zeros((n, n - 1))
        self.t[self.keep, np.arange(n - 1)] = 1.0
        self.t[i] = w[self.keep] / scale
        self.c = np.zeros(n)
        self.c[i] = 1.0 / scale
        self.patterns, self.weights, self.sigma, self.i = patterns, weights, sigma, i
        self.start = theta[self.keep].copy()

    def _objective(self, phi: NDArray[np.float64], d: float
                   ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        theta = self.t @ phi + self.c * d
        value, grad, hess = negative_log_posterior(theta, self.patterns, self.weights, self.sigma)  # type: ignore[misc]
        ti = theta[self.i]
        grad = grad.copy()
        hess = hess.copy()
        grad[self.i] -= ti / self.sigma**2          # the bot's own prior term removed
        hess[self.i, self.i] -= 1.0 / self.sigma**2
        return value - 0.5 * ti * ti / self.sigma**2, self.t.T @ grad, self.t.T @ hess @ self.t

    def value(self, d: float) -> float:
        """``log Lp(d)`` (up to a constant)."""
        def fun(x: NDArray[np.float64]) -> float:
            return self._objective(x, d)[0]

        def jac(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return self._objective(x, d)[1]

        def hess(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return self._objective(x, d)[2]

        res = minimize(fun, self.start, jac=jac, hess=hess, method="trust-exact",
                       options={"gtol": 1e-9 * max(1.0, float(self.weights.sum()))})
        return -float(res.fun)


def profile_bound(patterns: Patterns, weights: NDArray[np.float64], theta: NDArray[np.float64],
                  i: int, anchor: NDArray[np.bool_], sigma: float, *, upward: bool
                  ) -> float | None:
    """The one-sided 95% bound (Elo points, anchored like the ratings) of bot ``i``, at the
    MAP fit ``theta``: a lower bound when the bot was never beaten (``upward``: its profile
    rises to a limit), an upper bound when it never beat another bot. None when the profile
    is flat (every match of the bot a full tie)."""
    profile = _Profile(patterns, weights, theta, i, anchor, sigma)
    w = np.asarray(anchor, dtype=float) / float(np.sum(anchor))
    d_hat = float(theta[i] - w @ theta)
    sign = 1.0 if upward else -1.0
    limit = profile.value(d_hat + sign * _FAR)
    target = limit - DROP

    def gap(d: float) -> float:
        return profile.value(d) - target

    if gap(d_hat) <= 0:             # the bound lies beyond the estimate: search outwards
        outer = d_hat + sign * _FAR
        if gap(outer) <= 0:
            return None
        inner = d_hat
    else:                           # the usual case: search towards the centre
        outer, step = d_hat, 1.0
        inner = d_hat - sign * step
        while gap(inner) > 0:
            if step > 2 * _FAR:
                return None         # flat: no information on this bot
            outer, step = inner, step * 2
            inner = d_hat - sign * step
    root = brentq(gap, min(inner, outer), max(inner, outer), xtol=1e-6)
    return ELO_BASE + ELO_PER_NAT * float(root)


def difference_bounds(low_a: float | None, high_a: float | None, low_b: float | None,
                      high_b: float | None) -> tuple[float | None, float | None]:
    """Bounds of ``R_a - R_b`` from the bounds of ``R_a`` and ``R_b`` (None: unbounded on that
    side), as in the module doc."""
    low = None if low_a is None or high_b is None else low_a - high_b
    high = None if high_a is None or low_b is None else high_a - low_b
    return low, high
