"""MonteCarloBot: determinized ("perfect information") Monte Carlo search over the rules engine.

For each decision: candidate actions (every legal card in play; the greedy ranking's best few for
discards and exchanges, see :data:`MAX_CANDIDATES`), then rounds until the time budget is spent:
sample the hidden cards once with :meth:`MatchState.from_view` (common to all
candidates of the round), and for each candidate copy the sample, apply it and play the rest of
the HAND with a fast default policy (:func:`quick_play` for trick play, the greedy heuristics for
the few other decisions). A playout is scored by :func:`hand_value` (the seat's hand points,
RULES.md 2.6, plus the exchange and placing stakes) and the best average wins; ties go to the
greedy ranking's order. Trivial decisions (one legal action) return at once; when no playout
fits in the budget the greedy choice is played.

Time: search rounds start only within ``budget_fraction`` (default 0.65) of the time allowed per
decision: under the SDK the request's own time (``Player.request_time_ms``), else the
``time_per_decision_ms`` announced in ``on_match_start`` (the smallest among the matches in
progress), else the constructor's ``time_ms``. A round running past the
budget is dropped, and when not even one round fits in :data:`HARD_FRACTION` of the time the
greedy choice is played, so an answer never takes much more than one playout past the budget.

Run against an arena: ``ARENA_TOKEN=T python -m sample_bots.montecarlo_bot --arena HOST:PORT``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from arena.rules.actions import MISERE, Decision
from arena.rules.cards import SUIT_MASKS
from arena.rules.errors import RulesError
from arena.rules.state import MatchState
from arena.rules.tricks import legal_play_mask
from arena.rules.view import View, view_of
from arena.sdk import MatchEnd, MatchInfo, Player, run

from .greedy_bot import ranked_actions

#: candidates searched per decision kind (play: all legal cards).
MAX_CANDIDATES = {Decision.DISCARD: 6, Decision.EXCHANGE_GIVE: 6, Decision.EXCHANGE_RETURN: 5,
                  Decision.EXCHANGE_DEMAND: 8, Decision.CONTRACT: 6}
#: value of one point of being up (or down) for the next hand's card exchange, per point.
EXCHANGE_WEIGHT = 0.25
#: value per place gained when the playout ends the match (placing is what ratings use).
PLACE_WEIGHT = 2.0
#: a first search round still unfinished at this share of the allowed time is abandoned.
HARD_FRACTION = 0.85
#: bonus of the greedy choice (in points) so that near-ties keep the heuristic choice.
PRIOR_BONUS = 0.05


class MonteCarloBot(Player):
    """Determinized Monte Carlo bot (see the module docstring).

    Args:
        time_ms: time allowed per decision in milliseconds (when no match announced one).
        seed: seed of the bot's RNG (samples and nothing else).
        budget_fraction: share of the allowed time the search may use (0 < f <= 1).
        max_playouts: stop early after this many playouts per candidate (None: time only).
    """

    name = "montecarlo"
    version = "1.0"

    def __init__(self, time_ms: int = 1000, seed: int | str | None = 0,
                 budget_fraction: float = 0.65, max_playouts: int | None = None) -> None:
        if time_ms <= 0 or not 0 < budget_fraction <= 1:
            raise ValueError(f"need time_ms > 0 and 0 < budget_fraction <= 1, got "
                             f"{time_ms!r}, {budget_fraction!r}")
        self.time_ms = time_ms
        self.budget_fraction = budget_fraction
        self.max_playouts = max_playouts
        self._rng = random.Random(seed)
        self._match_times: dict[str, int] = {}
        self.stats = {"decisions": 0, "playouts": 0, "fallbacks": 0}

    # ----- SDK hooks ----------------------------------------------------------------------------
    def on_match_start(self, info: MatchInfo) -> None:
        """Remember the match's time per decision (MatchInfo.time_per_decision_ms)."""
        ms = getattr(info, "time_per_decision_ms", None)
        if ms:
            self._match_times[info.match_id] = int(ms)

    def on_match_end(self, end: MatchEnd) -> None:
        """Forget the match's time per decision."""
        self._match_times.pop(end.match_id, None)

    def allowed_s(self) -> float:
        """Time allowed for this decision in seconds: the request's (set by the SDK), else the
        smallest announced per match, else ``time_ms``."""
        if self.request_time_ms > 0:
            return self.request_time_ms / 1000.0
        ms = min(self._match_times.values()) if self._match_times else self.time_ms
        return ms / 1000.0

    def budget_s(self) -> float:
        """Search budget in seconds for the next decision: rounds start only before it."""
        return self.allowed_s() * self.budget_fraction

    # ----- search -------------------------------------------------------------------------------
    def decide(self, view: View) -> int:
        """The candidate with the best average playout value (always a legal action)."""
        start = time.perf_counter()
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        self.stats["decisions"] += 1
        ranked = ranked_actions(view)
        decision = view.decision
        if decision is None or decision is Decision.PLAY:
            cands = ranked
        else:
            cands = ranked[:MAX_CANDIDATES.get(decision, 6)]
        hard = start + self.allowed_s() * max(self.budget_fraction, HARD_FRACTION)
        means = self._search(view, cands, start + self.budget_s(), hard)
        if means is None:
            self.stats["fallbacks"] += 1
            return ranked[0] if ranked[0] in legal else legal[0]
        best = max(range(len(cands)), key=lambda i: (means[i] + (PRIOR_BONUS if i == 0 else 0),
                                                    -i))
        return cands[best]

    def _search(self, view: View, cands: list[int], deadline: float,
                hard: float) -> list[float] | None:
        """Average playout value per candidate over whole rounds (None when none finished).

        A round (one sample, one playout per candidate) starts only before ``deadline``; a
        started round is dropped at ``deadline`` once one round is complete, and the first
        round is abandoned at ``hard`` (the caller then plays the greedy choice)."""
        seat = view.seat
        totals = [0.0] * len(cands)
        rounds = 0
        while time.perf_counter() < deadline:
            if self.max_playouts is not None and rounds >= self.max_playouts:
                break
            try:
                base = MatchState.from_view(view, self._rng)
            except RulesError:
                break
            values = []
            try:
                for a in cands:
                    st = base.copy()
                    st.apply(a)
                    values.append(playout(st, seat, self._rng))
                    now = time.perf_counter()
                    if (rounds and now >= deadline) or now >= hard:
                        break
            except RulesError:  # a sample the engine rejects: keep the finished rounds
                break
            self.stats["playouts"] += len(values)
            if len(values) < len(cands):
                break
            rounds += 1
            for i, v in enumerate(values):
                totals[i] += v
        if not rounds:
            return None
        return [t / rounds for t in totals]


# ----- playouts --------------------------------------------------------------------------------
def playout(st: MatchState, seat: int, rng: random.Random) -> float:
    """Play ``st`` to the end of the current hand and return :func:`hand_value` for ``seat``."""
    hands_done = len(st.hand_points)
    while not st.finished and len(st.hand_points) == hands_done:
        if st.decision is Decision.PLAY:
            st.apply(quick_play(st, rng))
        else:
            st.apply(ranked_actions(view_of(st, st.seat_to_act()))[0])
    return hand_value(st, seat)


def hand_value(st: MatchState, seat: int) -> float:
    """Value of a just-finished hand for ``seat``: its hand points (RULES.md 2.6), plus
    :data:`EXCHANGE_WEIGHT` per point when a card exchange follows (up players take cards from
    down players, RULES.md 4), plus :data:`PLACE_WEIGHT` per place above second when the match
    ended (a 12-trick win included, RULES.md 5)."""
    pts = st.hand_points[-1][seat]
    placings = st.placings
    if placings is not None:        # the match ended
        return pts + PLACE_WEIGHT * (2 - placings[seat])
    if st.cfg.exchange != "none":
        return pts * (1.0 + EXCHANGE_WEIGHT)
    return float(pts)


def _low(mask: int, trump: int | None) -> int:
    """Lowest-ranked card of a non-empty ``mask``, plain suits before trumps."""
    best, key = -1, 99
    for s in range(4):
        m = mask & SUIT_MASKS[s]
        if m:
            c = (m & -m).bit_length() - 1
            k = c % 13 + (20 if s == trump else 0)
            if k < key:
                best, key = c, k
    return best


def _high(mask: int) -> int:
    """Highest-ranked card of a non-empty ``mask``."""
    best, key = -1, -1
    for s in range(4):
        m = mask & SUIT_MASKS[s]
        if m:
            c = m.bit_length() - 1
            if c % 13 > key:
                best, key = c, c % 13
    return best


def _beating(mask: int, best: int, trump: int | None) -> int:
    """Cards of ``mask`` that beat ``best``, the card winning the trick so far."""
    bs = best // 13
    out = (mask & SUIT_MASKS[bs]) >> (best + 1) << (best + 1)
    if trump is not None and bs != trump:
        out |= mask & SUIT_MASKS[trump]
    return out


def _masters(mask: int, others: int) -> int:
    """Cards of ``mask`` that no card of ``others`` in the same suit ranks above."""
    out = 0
    for s in range(4):
        m = mask & SUIT_MASKS[s]
        if m:
            top = m.bit_length() - 1
            if not (others & SUIT_MASKS[s]) >> (top + 1):
                out |= 1 << top
    return out


def quick_play(st: MatchState, rng: random.Random) -> int:
    """Fast default policy for playouts, on the engine's bitmasks: every player takes tricks
    cheaply (lowest winning card when last, a master when second, masters or trump-drawing
    leads), ducks with the lowest card otherwise, and ducks everything in misère."""
    seat = st.seat_to_act()
    hand = st.hands[seat]
    trick, trump = st.trick, st.trump
    legal = legal_play_mask(hand, trick, trump, st.follow)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    others = (st.hands[0] | st.hands[1] | st.hands[2]) & ~hand
    if not trick:
        return _quick_lead(legal, others, trump, st.contract == MISERE, rng)
    best = trick[0]
    for c in trick[1:]:
        if (c // 13 == best // 13 and c > best) or (c // 13 == trump and best // 13 != trump):
            best = c
    win = _beating(legal, best, trump)
    if st.contract == MISERE:
        return _quick_duck(legal, win, len(trick))
    if win:
        if len(trick) == 2:
            return _low(win, trump)
        sure = _masters(win, others)
        if sure and (trump is None or best // 13 == trump or sure & SUIT_MASKS[trump]
                     or not others & SUIT_MASKS[trump]):
            return _low(sure, trump)
    lose = legal & ~win
    return _low(lose if lose else legal, trump)


def _quick_duck(legal: int, win: int, played: int) -> int:
    """Misère follow for :func:`quick_play` (``played``: cards already in the trick): the
    highest card that loses the trick; with none, the highest card when last to play (the trick
    is lost anyway), else the lowest."""
    lose = legal & ~win
    if lose:
        return _high(lose)
    return _high(legal) if played == 2 else _low(legal, None)


def _quick_lead(legal: int, others: int, trump: int | None, misere: bool,
                rng: random.Random) -> int:
    """Lead for :func:`quick_play`: misère leads its lowest card; else draw trumps when holding
    more than the others, cash a master, or lead a low card (random among the low ones)."""
    if misere:
        return _low(legal, None)
    if trump is not None:
        mine = legal & SUIT_MASKS[trump]
        theirs = others & SUIT_MASKS[trump]
        if mine and theirs and bin(mine).count("1") >= bin(theirs).count("1"):
            top = mine.bit_length() - 1
            return top if not theirs >> (top + 1) else (mine & -mine).bit_length() - 1
    plain = legal & ~SUIT_MASKS[trump] if trump is not None else legal
    sure = _masters(plain, others)
    if sure:
        return _high(sure)
    pool = plain if plain else legal
    lows = [(m & -m).bit_length() - 1 for m in (pool & SUIT_MASKS[s] for s in range(4)) if m]
    return rng.choice(lows)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``--time-ms`` (used until a match announces its time), ``--seed``,
    plus the SDK's ``--arena``, ``--token`` and ``--name``, passed on to ``arena.sdk.run``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--time-ms", type=int, default=1000, help="time per decision, ms")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's RNG")
    parser.add_argument("--budget", type=float, default=0.65, help="share of the time to use")
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    bot = MonteCarloBot(time_ms=args.time_ms, seed=args.seed, budget_fraction=args.budget)
    run(bot, rest)


if __name__ == "__main__":
    main()
