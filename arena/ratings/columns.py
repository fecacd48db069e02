"""One vocabulary for the columns of every ratings and standings output.

A column has one key (the CSV header and the JSON key, everywhere: ``standings.{csv,json}``,
``arena ratings --format csv|json``), one header for tables meant to be read
(``standings.md``, the terminal, ``arena ratings --format md``) and one line of meaning for the
legend printed under those tables. The standings are the ratings columns plus the arena's own
(match score, faults, time per decision).

:func:`few_blocks_note` is the warning shown in every format when the 95% intervals rest on
too few duplicate blocks to be trusted (:data:`MIN_BLOCKS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["COLUMNS", "HEAD_TO_HEAD_COLUMNS", "LOS_COLUMNS", "MIN_BLOCKS", "RATING_COLUMNS",
           "Column", "few_blocks_note", "legend"]


@dataclass(frozen=True)
class Column:
    """``key``: CSV header / JSON key; ``header``: table header; ``meaning``: legend text
    (None: self-explanatory, not in the legend)."""

    key: str
    header: str
    meaning: str | None = None


_ALL = (
    Column("rank", "rank"),
    Column("bot", "bot"),
    Column("rating", "rating",
           "Elo scale, mean 1500: a bot 100 points above another places above it in about 64% "
           "of their matches (200 points: 76%)"),
    Column("ci_low", "95% CI",
           "95% confidence interval of the rating, from the variance over duplicate blocks "
           "with a small-sample correction; \"> x\" / \"< x\": a one-sided bot's bound"),
    Column("ci_high", "95% CI"),
    Column("matches", "matches"),
    Column("average_place", "avg place",
           "average place, 1 (best) to 3; a forfeited match counts as last"),
    Column("firsts", "1st", "first places, shared ones included"),
    Column("average_score", "avg score",
           "average final match score: the sum over the match's hands of tricks taken minus "
           "the target (misère: limit minus tricks; RULES.md 2.6)"),
    Column("faults", "faults", "illegal, late or malformed answers (each answered by the "
                               "fallback)"),
    Column("forfeits", "forfeits", "matches forfeited (too many faults, a crash or a "
                                   "disqualification)"),
    Column("ms_per_decision", "ms/decision",
           "average time per decision as the arena's clock counts it, in ms: from sending the "
           "request to receiving the answer, so the bot's thinking plus the round trip through "
           "gRPC and its SDK (0.2-3 ms); the bot's own time is CPU ms/decision"),
    Column("cpu_ms_per_decision", "CPU ms/decision",
           "CPU time of the bot's own processes (user + system) per decision, in ms, from the "
           "sandbox's accounting; - where not measured (a remote bot)"),
    Column("peak_mib", "peak MiB",
           "largest peak resident memory of the bot's processes in one match, in MiB; - where "
           "not measured"),
    Column("blocks", "blocks",
           "duplicate blocks played (one deal of one table in all 6 seatings); with fewer "
           "than 3 the interval is very wide"),
    Column("one_sided", "one-sided",
           "\"never beaten\" or \"never beat another bot\": no finite estimate; the rating is "
           "set by the prior, the 95% bound (> or <) by the data, and the bot is left out of "
           "the 1500 anchor"),
    Column("note", "note"),
    Column("status", "status", "\"never started\" or \"did not connect\": the bot never took part; "
           "its matches are kept out of the ratings"),
    Column("a", "a"),
    Column("b", "b"),
    Column("los", "LOS", "likelihood of superiority: share of bootstrap resamples in which a "
                         "is rated above b"),
    Column("above", "above", "matches in which a placed above b"),
    Column("below", "below", "matches in which a placed below b"),
    Column("equal", "equal", "matches in which a and b shared a place"),
    Column("difference", "a - b", "rating difference a - b in Elo points"),
    Column("diff_ci_low", "95% CI",
           "95% confidence interval of the difference a - b, from the variance over duplicate "
           "blocks with a small-sample correction"),
    Column("diff_ci_high", "95% CI"),
)
COLUMNS: dict[str, Column] = {c.key: c for c in _ALL}

#: the ratings table (``arena ratings``; the standings add their own columns)
RATING_COLUMNS = ("rank", "bot", "rating", "ci_low", "ci_high", "matches", "average_place",
                  "firsts", "forfeits", "blocks", "one_sided")
LOS_COLUMNS = ("a", "b", "los")
HEAD_TO_HEAD_COLUMNS = ("a", "b", "matches", "above", "below", "equal", "difference",
                        "diff_ci_low", "diff_ci_high")

#: fewer duplicate blocks per bot than this, and a bot's 95% interval is very wide: the
#: intervals (:mod:`arena.ratings.intervals`) cover 0.95-0.96 in simulation from 3 blocks per
#: bot on (docs/ratings.md), and still about 0.95 with 2 (one table), but with a t factor of 12
#: or more (1 degree of freedom): a width of 1,000 Elo points and more
MIN_BLOCKS = 3


def legend(keys: Iterable[str]) -> list[str]:
    """One ``header: meaning`` line per column of ``keys`` that has a meaning (once each)."""
    out, seen = [], set()
    for key in keys:
        col = COLUMNS[key]
        if col.meaning and col.header not in seen:
            seen.add(col.header)
            out.append(f"{col.header}: {col.meaning}")
    return out


def few_blocks_note(blocks: Mapping[str, int]) -> str | None:
    """The warning for intervals resting on fewer than :data:`MIN_BLOCKS` duplicate blocks
    per bot (``blocks``: bot -> blocks played), or None when every bot has enough."""
    few = {name: n for name, n in blocks.items() if n < MIN_BLOCKS}
    if not few:
        return None
    low, high = min(few.values()), max(few.values())
    span = f"{low}" if low == high else f"{low} to {high}"
    who = "every bot" if len(few) == len(blocks) else \
        f"{len(few)} of {len(blocks)} bots"
    return (f"note: {who} played only {span} duplicate block{'s' if high != 1 else ''}, "
            f"fewer than {MIN_BLOCKS}: their 95% intervals are very wide; play more deals "
            "per table for useful ones")
