"""Ratings at the edges: bots with one-sided results and the anchor of the Elo scale.

A bot that was **never beaten** (no bot ever placed strictly above it) or that **never beat
anyone** (it never placed strictly above another bot) has no finite maximum-likelihood
strength: under Plackett-Luce its estimate runs to +-infinity and only the prior holds it, so its
rating says "at least" / "at most", with a value set by ``prior_sigma``. If such a bot were part
of the 1500 anchor (the mean rating), its prior-driven value would shift every other bot too:
with 4 bots and one always last, the best bot reads 1720 with prior sigma 1.5 and 1771 with
sigma 3.0 although the differences between the other three do not move.

Therefore one-sided bots are **flagged** in every output and **left out of the anchor**: the
mean rating of the other bots is 1500 (if every bot is one-sided, all of them form the anchor).
Differences between bots are unchanged by the anchor; only the common offset moves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .model import RatedResult
from .plackett_luce import ELO_BASE, ELO_PER_NAT

__all__ = ["NEVER_BEATEN", "NEVER_WON", "anchor_mask", "anchored_elo", "one_sided"]

NEVER_BEATEN = "never beaten"
"""Flag of a bot no other bot ever placed above (its rating is a lower bound)."""
NEVER_WON = "never beat another bot"
"""Flag of a bot that never placed above another bot (its rating is an upper bound)."""


def one_sided(results: Sequence[RatedResult], names: Sequence[str]) -> dict[str, str | None]:
    """For every bot in ``names``: :data:`NEVER_BEATEN`, :data:`NEVER_WON` or None.

    A bot whose every match was a full tie is both; it is reported as :data:`NEVER_WON`.
    """
    beat = {n: False for n in names}
    beaten = {n: False for n in names}
    for r in results:
        for a, pa in zip(r.players, r.places, strict=True):
            if any(pa < pb for pb in r.places):
                beat[a] = True
            if any(pb < pa for pb in r.places):
                beaten[a] = True
    return {n: NEVER_WON if not beat[n] else NEVER_BEATEN if not beaten[n] else None
            for n in names}


def anchor_mask(flags: Sequence[str | None]) -> NDArray[np.bool_]:
    """Bots that set the 1500 anchor: those without a flag (all bots if every one has one)."""
    mask = np.array([f is None for f in flags], dtype=bool)
    return mask if mask.any() else np.ones(len(flags), dtype=bool)


def anchored_elo(theta: NDArray[np.float64], anchor: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Elo points ``1500 + 400/ln(10) * (theta - mean(theta[anchor]))``; ``theta`` may be one
    vector (n,) or a batch (B, n)."""
    theta = np.asarray(theta, dtype=np.float64)
    centre = theta[..., anchor].mean(axis=-1, keepdims=True)
    elo: NDArray[np.float64] = ELO_BASE + ELO_PER_NAT * (theta - centre)
    return elo
