"""Standings: a pure fold over stored results plus the ratings module (issue 4 item 7).

Columns: rank, bot, Elo-scale rating with its 95% interval (Plackett-Luce fit and block
bootstrap, :func:`arena.ratings.rate`), matches, average placing, first places, average match
score, faults, forfeits, mean milliseconds per decision (as the arena measured the wait), and
the bot processes' own CPU milliseconds per decision and peak resident memory in MiB (from the
sandbox's accounting, :mod:`arena.sandbox`; "-" where not measured, e.g. a remote bot).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from tabulate import tabulate

from ..ratings import MatchResult as RatedMatch
from ..ratings import RatingReport, RatingsInputError, rate
from .store import ResultRow


@dataclass(frozen=True)
class StandingRow:
    """One bot's line. ``rating``/``ci_low``/``ci_high`` are Elo points (None when the
    ratings could not be computed, e.g. a single match); ``ms_per_decision`` milliseconds;
    ``cpu_ms_per_decision`` the bot's CPU milliseconds (user + system, all its processes) per
    decision asked, and ``peak_mib`` its largest peak resident memory in one match (MiB); both
    None when never measured."""

    rank: int
    bot: str
    rating: float | None
    ci_low: float | None
    ci_high: float | None
    matches: int
    avg_place: float
    firsts: int
    avg_score: float
    faults: int
    forfeits: int
    ms_per_decision: float
    cpu_ms_per_decision: float | None = None
    peak_mib: float | None = None


@dataclass(frozen=True)
class Standings:
    rows: tuple[StandingRow, ...]
    ratings: RatingReport | None
    note: str | None        #: why ratings are missing, if they are


def _ratings(results: Sequence[ResultRow], seed: int) -> tuple[RatingReport | None, str | None]:
    rated = [RatedMatch(r.seats, tuple(r.placings), r.block_id, tuple(r.forfeited))
             for r in results]
    blocks = len({r.block_id for r in results})
    try:
        return rate(rated, bootstrap=200 if blocks >= 2 else 0, seed=seed), (
            None if blocks >= 2 else "one duplicate block only: no confidence intervals")
    except RatingsInputError as exc:
        return None, f"no ratings: {exc}"


def compute_standings(results: Sequence[ResultRow], bots: Sequence[str],
                      seed: int = 0) -> Standings:
    """Standings of ``bots`` (all listed, even with no match yet) over ``results``.

    Sorted by rating when available, else by average placing. Pure; deterministic for a
    given ``seed`` (the bootstrap's).
    """
    report, note = _ratings(results, seed) if results else (None, "no matches played yet")
    def zero() -> dict:
        return {"m": 0, "place": 0, "first": 0, "score": 0, "faults": 0, "forfeits": 0,
                "ms": 0.0, "dec": 0, "cpu": 0.0, "cpu_dec": 0, "peak": None}
    acc = {b: zero() for b in bots}
    for r in results:
        for i, name in enumerate(r.seats):
            a = acc.setdefault(name, zero())
            if r.cpu_s[i] is not None:
                a["cpu"] += r.cpu_s[i]
                a["cpu_dec"] += r.decisions[i]
            if r.peak_mib[i] is not None:
                a["peak"] = max(a["peak"] or 0.0, r.peak_mib[i])
            a["m"] += 1
            a["place"] += r.placings[i]
            a["first"] += r.placings[i] == 1
            a["score"] += r.scores[i]
            a["faults"] += r.faults[i]
            a["forfeits"] += bool(r.forfeited[i])
            a["ms"] += r.think_ms[i]
            a["dec"] += r.decisions[i]
    rows = []
    for name, a in acc.items():
        rating = report.bot(name) if report is not None and name in report.names else None
        m = a["m"] or 1
        rows.append(StandingRow(
            0, name, rating.rating if rating else None, rating.ci_low if rating else None,
            rating.ci_high if rating else None, a["m"], round(a["place"] / m, 3), a["first"],
            round(a["score"] / m, 3), a["faults"], a["forfeits"],
            round(a["ms"] / a["dec"], 2) if a["dec"] else 0.0,
            round(a["cpu"] * 1000 / a["cpu_dec"], 2) if a["cpu_dec"] else None, a["peak"]))
    rows.sort(key=lambda r: (-(r.rating if r.rating is not None else -1e9),
                             r.avg_place if r.matches else 9, r.bot))
    ranked = tuple(StandingRow(i + 1, *list(asdict(r).values())[1:]) for i, r in enumerate(rows))
    return Standings(ranked, report, note)


def _interval(r: StandingRow) -> str:
    if r.rating is None:
        return "-"
    if r.ci_low is None:
        return f"{r.rating:.0f}"
    return f"{r.rating:.0f} [{r.ci_low:.0f}, {r.ci_high:.0f}]"


HEADERS = ["rank", "bot", "rating [95% CI]", "matches", "avg place", "1st", "avg score",
           "faults", "forfeits", "ms/decision", "CPU ms/decision", "peak MiB"]


def table_rows(st: Standings) -> list[list[object]]:
    return [[r.rank, r.bot, _interval(r), r.matches, f"{r.avg_place:.2f}", r.firsts,
             f"{r.avg_score:+.2f}", r.faults, r.forfeits, f"{r.ms_per_decision:.1f}",
             "-" if r.cpu_ms_per_decision is None else f"{r.cpu_ms_per_decision:.1f}",
             "-" if r.peak_mib is None else f"{r.peak_mib:.0f}"]
            for r in st.rows]


def format_standings(st: Standings, fmt: str = "text") -> str:
    """Render as ``text`` (console), ``md``, ``csv`` or ``json``. Names are data: csv quotes
    them, md escapes ``|``, json escapes everything."""
    if fmt == "json":
        return json.dumps({"standings": [asdict(r) for r in st.rows], "note": st.note},
                          indent=2, ensure_ascii=False)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(list(StandingRow.__dataclass_fields__))
        for r in st.rows:
            w.writerow(list(asdict(r).values()))
        return buf.getvalue()
    rows = table_rows(st)
    if fmt == "md":
        for row in rows:
            row[1] = str(row[1]).replace("|", "\\|").replace("\n", " ")
        text = tabulate(rows, headers=HEADERS, tablefmt="github")
    else:
        text = tabulate(rows, headers=HEADERS, tablefmt="simple")
    return text + (f"\n\n{st.note}" if st.note else "") + "\n"
