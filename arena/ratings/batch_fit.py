"""Many Plackett-Luce refits at once: the MAP fit of :mod:`.plackett_luce` for a batch of
weight vectors over the same :class:`~.plackett_luce.Patterns` (bootstrap resamples).

The objective, gradient and Hessian are those of
:func:`~.plackett_luce.negative_log_posterior`, evaluated for every row of the batch with
array operations; each row is minimised by Newton's method with a backtracking (Armijo) line
search, started from the full-data estimate. The objective is strictly convex and smooth (see
the module doc of :mod:`.plackett_luce`), so Newton converges; rows are fitted to the same
tolerance as :func:`~.plackett_luce.fit_theta` (gradient below ``1e-10`` per match) and agree
with it to ~1e-7 in theta (1e-5 Elo). About 50x faster than one ``fit_theta`` call per resample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix

from .plackett_luce import Patterns, pattern_terms

__all__ = ["BatchFit", "fit_batch", "fit_theta_batch"]

#: rows x patterns handled per array operation (bounds memory to ~100 MB)
_CHUNK_CELLS = 200_000


class _Scatter:
    """Sparse maps from per-pattern slots to bot indices (gradient) and bot pairs (Hessian)."""

    def __init__(self, patterns: Patterns, n: int) -> None:
        idx = patterns.players
        p = len(idx)
        self.grad = csr_matrix((np.ones(p * 3), (np.arange(p * 3), idx.ravel())),
                               shape=(p * 3, n))
        flat = (idx[:, :, None] * n + idx[:, None, :]).ravel()
        self.hess = csr_matrix((np.ones(p * 9), (np.arange(p * 9), flat)), shape=(p * 9, n * n))


@dataclass(frozen=True)
class _Eval:
    """The objective per row; with derivatives, its gradient (B, n) and Hessian (B, n, n) and
    the per-pattern log-likelihood gradients (B, P, 3)."""

    value: NDArray[np.float64]
    grad: NDArray[np.float64] | None = None
    hess: NDArray[np.float64] | None = None
    grad_local: NDArray[np.float64] | None = None


def _evaluate(theta: NDArray[np.float64], patterns: Patterns, weights: NDArray[np.float64],
              sigma: float, scatter: _Scatter | None) -> _Eval:
    """The objective at each row of ``theta``, with derivatives when ``scatter`` is given."""
    b, n = theta.shape
    log_lik, grad_local, hess_local = pattern_terms(theta, patterns,
                                                    derivatives=scatter is not None)
    value = -np.einsum("bp,bp->b", weights, log_lik) + 0.5 * np.einsum(
        "bi,bi->b", theta, theta) / sigma**2
    if scatter is None or grad_local is None or hess_local is None:
        return _Eval(value)
    p = len(patterns.players)
    grad = theta / sigma**2 - np.asarray(
        scatter.grad.T @ (weights[:, :, None] * grad_local).reshape(b, p * 3).T).T
    hess = np.eye(n)[None] / sigma**2 - np.asarray(
        scatter.hess.T @ (weights[:, :, None, None] * hess_local).reshape(b, p * 9).T
    ).T.reshape(b, n, n)
    return _Eval(value, grad, hess, grad_local)


@dataclass(frozen=True)
class BatchFit:
    """MAP log-strengths ``theta`` (B, n; rows centred), with the Hessian of the negative
    log-posterior there (B, n, n) and the per-pattern gradients of the log-likelihood
    (B, P, 3), as :func:`~.plackett_luce.pattern_terms` gives them."""

    theta: NDArray[np.float64]
    hess: NDArray[np.float64]
    grad_local: NDArray[np.float64]


def fit_theta_batch(patterns: Patterns, weights: NDArray[np.float64], n_players: int,
                    prior_sigma: float, theta0: NDArray[np.float64]) -> NDArray[np.float64]:
    """MAP log-strengths for each row of ``weights`` (shape (B, P): how often each pattern is
    counted), started from ``theta0`` (n,), or row by row from ``theta0`` (B, n). Returns
    (B, n), each row centred (mean 0).

    Raises:
        RuntimeError: a row did not converge in 100 Newton steps (a bug, not bad data).
    """
    return fit_batch(patterns, weights, n_players, prior_sigma, theta0, terms=False).theta


def fit_batch(patterns: Patterns, weights: NDArray[np.float64], n_players: int,
              prior_sigma: float, theta0: NDArray[np.float64], *, terms: bool = True
              ) -> BatchFit:
    """:func:`fit_theta_batch` with the derivatives at the optimum (``terms``; otherwise
    the :class:`BatchFit` holds empty ``hess`` and ``grad_local``).

    Raises:
        RuntimeError: a row did not converge in 100 Newton steps (a bug, not bad data).
    """
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    scatter = _Scatter(patterns, n_players)
    rows = max(1, _CHUNK_CELLS // max(1, len(patterns.players)))
    start_at = np.broadcast_to(np.asarray(theta0, dtype=float), (len(weights), n_players))
    parts = [_newton(patterns, weights[lo:lo + rows], n_players, prior_sigma,
                     start_at[lo:lo + rows], scatter, terms)
             for lo in range(0, len(weights), rows)]
    return BatchFit(*(np.concatenate([getattr(f, k) for f in parts])
                      for k in ("theta", "hess", "grad_local")))


def _newton(patterns: Patterns, w: NDArray[np.float64], n: int, sigma: float,
            theta0: NDArray[np.float64], scatter: _Scatter, terms: bool) -> BatchFit:
    x = np.array(theta0, dtype=float)
    b, p = w.shape
    hess = np.zeros((b, n, n) if terms else (0, n, n))
    grad_local = np.zeros((b, p, 3) if terms else (0, p, 3))
    have = np.zeros(b, dtype=bool)
    tol = 1e-10 * np.maximum(1.0, w.sum(axis=1))
    active = np.ones(b, dtype=bool)
    for _ in range(100):
        a = np.flatnonzero(active)
        if a.size == 0:
            break
        e = _evaluate(x[a], patterns, w[a], sigma, scatter)
        f, g, h = e.value, e.grad, e.hess
        if g is None or h is None or e.grad_local is None:   # never: a scatter was given
            raise RuntimeError("no gradient from the batch objective")
        done = np.max(np.abs(g), axis=1) <= tol[a]
        active[a[done]] = False
        if terms:
            hess[a[done]], grad_local[a[done]] = h[done], e.grad_local[done]
            have[a[done]] = True
        a, f, g, h = a[~done], f[~done], g[~done], h[~done]
        if a.size == 0:
            continue
        step = np.linalg.solve(h, g[..., None])[..., 0]
        slope = np.einsum("bi,bi->b", g, step)
        # a Newton decrement this small: the quadratic model is exact to rounding, no search
        tiny = slope < 1e-9
        x[a[tiny]] -= step[tiny]
        t = np.ones(a.size)
        pending = ~tiny
        for _ in range(40):
            if not pending.any():
                break
            trial = x[a[pending]] - t[pending, None] * step[pending]
            ft = _evaluate(trial, patterns, w[a[pending]], sigma, None).value
            # Armijo, allowing for rounding of f near the minimum (where a full Newton step fits)
            fp = f[pending]
            ok = ft <= fp - 1e-4 * t[pending] * slope[pending] + 1e-13 * np.abs(fp)
            idx = np.flatnonzero(pending)
            x[a[idx[ok]]] = trial[ok]
            pending[idx[ok]] = False
            t[idx[~ok]] *= 0.5
        if pending.any():   # no decrease possible: at the minimum up to rounding
            active[a[pending]] = False
    if active.any():
        raise RuntimeError("Plackett-Luce batch fit did not converge")
    if terms and not have.all():
        rest = np.flatnonzero(~have)
        e = _evaluate(x[rest], patterns, w[rest], sigma, scatter)
        if e.hess is None or e.grad_local is None:   # never: a scatter was given
            raise RuntimeError("no gradient from the batch objective")
        hess[rest], grad_local[rest] = e.hess, e.grad_local
    return BatchFit(_centred(x), hess, grad_local)


def _centred(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row of ``x`` minus its mean."""
    centred: NDArray[np.float64] = x - x.mean(axis=1, keepdims=True)
    return centred

