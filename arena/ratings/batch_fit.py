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

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.special import logsumexp

from .plackett_luce import _FIRST, _PERMS, _U, Patterns

__all__ = ["fit_theta_batch"]

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


def _evaluate(theta: NDArray[np.float64], patterns: Patterns, weights: NDArray[np.float64],
              sigma: float, scatter: _Scatter | None
              ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                         NDArray[np.float64] | None]:
    """Objective per row, and (if ``scatter``) gradient (B, n) and Hessian (B, n, n)."""
    b, n = theta.shape
    local = theta[:, patterns.players]                          # (B, P, 3)
    ordered = local[:, :, _PERMS]                               # (B, P, 6, 3)
    lse1 = logsumexp(local, axis=2)
    lse2 = np.logaddexp(ordered[..., 1], ordered[..., 2])       # (B, P, 6)
    logp = ordered[..., 0] + ordered[..., 1] - lse1[..., None] - lse2
    logp = np.where(patterns.allowed[None], logp, -np.inf)
    log_lik = logsumexp(logp, axis=2)                           # (B, P)
    value = -np.einsum("bp,bp->b", weights, log_lik) + 0.5 * np.einsum(
        "bi,bi->b", theta, theta) / sigma**2
    if scatter is None:
        return value, None, None
    v = np.exp(logp - log_lik[..., None])
    p1 = np.exp(local - lse1[..., None])
    q = np.exp(ordered[..., 1] - lse2)
    h = _FIRST[None, None] + (1.0 - q)[..., None] * _U[None, None]   # (B, P, 6, 3)
    mean_h = np.einsum("bpk,bpki->bpi", v, h)
    grad_local = mean_h - p1
    hess_local = (np.einsum("bpk,bpki,bpkj->bpij", v, h, h)
                  - mean_h[..., :, None] * mean_h[..., None, :]
                  - np.einsum("bpk,ki,kj->bpij", v * q * (1.0 - q), _U, _U)
                  - (p1[..., :, None] * np.eye(3) - p1[..., :, None] * p1[..., None, :]))
    p = local.shape[1]
    grad = theta / sigma**2 - np.asarray(
        scatter.grad.T @ (weights[:, :, None] * grad_local).reshape(b, p * 3).T).T
    hess = np.eye(n)[None] / sigma**2 - np.asarray(
        scatter.hess.T @ (weights[:, :, None, None] * hess_local).reshape(b, p * 9).T
    ).T.reshape(b, n, n)
    return value, grad, hess


def fit_theta_batch(patterns: Patterns, weights: NDArray[np.float64], n_players: int,
                    prior_sigma: float, theta0: NDArray[np.float64]) -> NDArray[np.float64]:
    """MAP log-strengths for each row of ``weights`` (shape (B, P): how often each pattern is
    counted), started from ``theta0`` (n,). Returns (B, n), each row centred (mean 0).

    Raises:
        RuntimeError: a row did not converge in 100 Newton steps (a bug, not bad data).
    """
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    scatter = _Scatter(patterns, n_players)
    rows = max(1, _CHUNK_CELLS // max(1, len(patterns.players)))
    out = np.empty((len(weights), n_players))
    for start in range(0, len(weights), rows):
        w = weights[start:start + rows]
        out[start:start + rows] = _newton(patterns, w, n_players, prior_sigma, theta0, scatter)
    return out


def _newton(patterns: Patterns, w: NDArray[np.float64], n: int, sigma: float,
            theta0: NDArray[np.float64], scatter: _Scatter) -> NDArray[np.float64]:
    x = np.tile(np.asarray(theta0, dtype=float), (len(w), 1))
    tol = 1e-10 * np.maximum(1.0, w.sum(axis=1))
    active = np.ones(len(w), dtype=bool)
    for _ in range(100):
        a = np.flatnonzero(active)
        if a.size == 0:
            return _centred(x)
        f, g, h = _evaluate(x[a], patterns, w[a], sigma, scatter)
        if g is None or h is None:   # never: a scatter was given
            raise RuntimeError("no gradient from the batch objective")
        done = np.max(np.abs(g), axis=1) <= tol[a]
        active[a[done]] = False
        a, f, g, h = a[~done], f[~done], g[~done], h[~done]
        if a.size == 0:
            continue
        step = np.linalg.solve(h, g[..., None])[..., 0]
        slope = np.einsum("bi,bi->b", g, step)
        t = np.ones(a.size)
        pending = np.ones(a.size, dtype=bool)
        for _ in range(40):
            trial = x[a[pending]] - t[pending, None] * step[pending]
            ft, _, _ = _evaluate(trial, patterns, w[a[pending]], sigma, None)
            # Armijo, allowing for rounding of f near the minimum (where a full Newton step fits)
            fp = f[pending]
            ok = ft <= fp - 1e-4 * t[pending] * slope[pending] + 1e-13 * np.abs(fp)
            idx = np.flatnonzero(pending)
            x[a[idx[ok]]] = trial[ok]
            pending[idx[ok]] = False
            t[idx[~ok]] *= 0.5
            if not pending.any():
                break
        if pending.any():   # no decrease possible: at the minimum up to rounding
            active[a[pending]] = False
    if active.any():
        raise RuntimeError("Plackett-Luce batch fit did not converge")
    return _centred(x)


def _centred(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row of ``x`` minus its mean."""
    centred: NDArray[np.float64] = x - x.mean(axis=1, keepdims=True)
    return centred
