"""Standings: a pure fold over stored results plus the ratings module.

Columns (the vocabulary of :mod:`arena.ratings.columns`, shared with ``arena ratings``): rank,
bot, Elo-scale rating with its 95% interval (Plackett-Luce fit and block bootstrap,
:func:`arena.ratings.rate`), matches, average place, first places, average match score,
faults, forfeits, mean milliseconds per decision (as the arena measured the wait), the bot
processes' own CPU milliseconds per decision and peak resident memory in MiB (from the
sandbox's accounting, :mod:`arena.sandbox`; "-" where not measured, e.g. a remote bot),
duplicate blocks played. The Markdown table (and the live page) carries every column, the
notes (no ratings yet; intervals resting on too few blocks) and the legend; JSON has them as
``legend`` and ``notes``; CSV has one table, the notes in its ``note`` column. The terminal's
text table fits :data:`TERMINAL_WIDTH` columns (bot names up to 13 characters): it leaves the
time and memory columns (:data:`WIDE_KEYS`) to ``wide=True`` (``arena run --wide``), wraps the
notes, and prints the legend only when asked (``arena run -v``; it is in ``standings.md``).
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace

from ..ratings import DEFAULT_BOOTSTRAP, BotRating, RatingReport, RatingsInputError, rate
from ..ratings.headtohead import BotCounts, bot_counts
from ..ratings.columns import COLUMNS, MIN_BLOCKS, few_blocks_note, legend
from ..ratings.formatting import interval_text, render_table
from ..safetext import markdown_cell, printable
from .store import ResultRow


@dataclass(frozen=True)
class StandingRow:
    """One bot's line. ``rating``/``ci_low``/``ci_high`` are Elo points (None when the
    ratings could not be computed, e.g. a single match); ``ms_per_decision`` milliseconds;
    ``cpu_ms_per_decision`` the bot's CPU milliseconds (user + system, all its processes) per
    decision asked, and ``peak_mib`` its largest peak resident memory in one match (MiB); both
    None when never measured; ``blocks`` the duplicate blocks the bot played in."""

    rank: int
    bot: str
    rating: float | None
    ci_low: float | None
    ci_high: float | None
    matches: int
    average_place: float
    firsts: int
    average_score: float
    faults: int
    forfeits: int
    ms_per_decision: float
    cpu_ms_per_decision: float | None = None
    peak_mib: float | None = None
    blocks: int = 0
    one_sided: str | None = None  #: see :attr:`arena.ratings.report.BotRating.one_sided`
    status: str | None = None  #: "never started" / "did not connect": kept out of the ratings


#: the CSV / JSON keys of a standings row, in order
STANDING_COLUMNS = tuple(f.name for f in fields(StandingRow))


@dataclass(frozen=True)
class Standings:
    rows: tuple[StandingRow, ...]
    ratings: RatingReport | None
    note: str | None        #: why ratings are missing, if they are

    @property
    def few_blocks(self) -> str | None:
        """The warning when the intervals rest on too few duplicate blocks, else None."""
        if self.ratings is None or not self.ratings.bootstrap:
            return None
        return few_blocks_note({r.bot: r.blocks for r in self.rows if r.matches})

    @property
    def notes(self) -> list[str]:
        """Every note to show with the table."""
        return [n for n in (self.note, self.few_blocks) if n]


def _ratings(results: Sequence[ResultRow], seed: int, bootstrap: int = DEFAULT_BOOTSTRAP
             ) -> tuple[RatingReport | None, str | None]:
    blocks = len({r.block for r in results})
    try:
        report = rate(results, bootstrap=bootstrap if blocks >= 2 else 0, seed=seed)
    except RatingsInputError as exc:
        return None, f"note: no ratings: {exc}"
    notes = [] if blocks >= 2 else ["one duplicate block only: no confidence intervals"]
    flagged = [f"{b.name} ({b.one_sided})" for b in report.bots if b.one_sided]
    if flagged:
        notes.append("one-sided results (the rating column shows a 95% bound, > or <; the "
                     "estimate is the prior's), not part of the 1500 anchor: "
                     + ", ".join(flagged))
    return report, ("note: " + "; ".join(notes)) if notes else None


@dataclass
class _ArenaTally:
    """The arena-only columns of one bot, summed over its matches (the ratings' own columns
    come from :func:`arena.ratings.headtohead.bot_counts`)."""

    score: int = 0
    faults: int = 0
    think_ms: float = 0.0
    decisions: int = 0
    cpu_s: float = 0.0
    cpu_decisions: int = 0      #: decisions of the matches whose CPU time was measured
    peak_mib: float | None = None

    def add(self, r: ResultRow, i: int) -> None:
        """Add seat ``i`` of match ``r``."""
        cpu, peak = r.cpu_s[i], r.peak_mib[i]
        if cpu is not None:
            self.cpu_s += cpu
            self.cpu_decisions += r.decisions[i]
        if peak is not None:
            self.peak_mib = max(self.peak_mib or 0.0, peak)
        self.score += r.scores[i]
        self.faults += r.faults[i]
        self.think_ms += r.think_ms[i]
        self.decisions += r.decisions[i]


def _row(counts: BotCounts, arena: _ArenaTally, rating: BotRating | None,
         status: str | None) -> StandingRow:
    """One bot's line (rank 0: set once sorted): the ratings report's columns (the rating
    where there is one, the counts over every match) plus the arena's."""
    m = counts.matches or 1
    return StandingRow(
        0, counts.name, rating.rating if rating else None, rating.ci_low if rating else None,
        rating.ci_high if rating else None, counts.matches, round(counts.place_sum / m, 3),
        counts.firsts, round(arena.score / m, 3), arena.faults, counts.forfeits,
        round(arena.think_ms / arena.decisions, 2) if arena.decisions else 0.0,
        round(arena.cpu_s * 1000 / arena.cpu_decisions, 2) if arena.cpu_decisions else None,
        arena.peak_mib, counts.blocks, rating.one_sided if rating else None, status)


def compute_standings(results: Sequence[ResultRow], bots: Sequence[str],
                      seed: int = 0, absent: Mapping[str, str] | None = None,
                      bootstrap: int = DEFAULT_BOOTSTRAP) -> Standings:
    """Standings of ``bots`` (all listed, even with no match yet) over ``results``.

    Sorted by rating when available, else by average placing. Pure; deterministic for a
    given ``seed`` (the bootstrap's). ``absent``: bots that never took part (never started,
    or a remote bot that never connected) -> the note shown for them; the matches they were
    scheduled in are kept out of the ratings (they measure only the absence), not out of the
    counts. ``bootstrap``: resamples of the 95% intervals (the live page uses fewer while a
    tournament runs).
    """
    absent = absent or {}
    rated = [r for r in results if not absent.keys() & set(r.players)]
    report, note = _ratings(rated, seed, bootstrap) if rated else (
        None, "note: no matches played yet" if not results else
        "note: no ratings: every match had a bot that never started")
    names = list(dict.fromkeys([*bots, *(name for r in results for name in r.players)]))
    counts = bot_counts(results, names)
    arena = {name: _ArenaTally() for name in names}
    for r in results:
        for i, name in enumerate(r.players):
            arena[name].add(r, i)
    rated_names = set(report.names) if report is not None else set()
    rows = [_row(counts[name], arena[name],
                 report.bot(name) if report is not None and name in rated_names else None,
                 absent.get(name)) for name in names]
    rows.sort(key=lambda r: (-(r.rating if r.rating is not None else -1e9),
                             r.average_place if r.matches else 9, r.bot))
    ranked = tuple(replace(r, rank=i + 1) for i, r in enumerate(rows))
    return Standings(ranked, report, note)


def _interval(r: StandingRow) -> str:
    if r.status:
        return r.status
    if r.rating is None:
        return "-"
    if r.ci_low is None and r.ci_high is None:
        return f"{r.rating:.0f}"
    if r.ci_low is None or r.ci_high is None:   # one-sided: the estimate is the prior's
        return interval_text(r.ci_low, r.ci_high, 0)
    return f"{r.rating:.0f} [{r.ci_low:.0f}, {r.ci_high:.0f}]"


#: the columns of the text and Markdown tables (rating and interval in one cell)
TABLE_KEYS = ("rank", "bot", "rating", "matches", "average_place", "firsts", "average_score",
              "faults", "forfeits", "ms_per_decision", "cpu_ms_per_decision", "peak_mib",
              "blocks")
HEADERS = [f"{COLUMNS['rating'].header} [{COLUMNS['ci_low'].header}]" if k == "rating"
           else COLUMNS[k].header for k in TABLE_KEYS]


def table_rows(st: Standings) -> list[list[object]]:
    return [[r.rank, r.bot, _interval(r), r.matches, f"{r.average_place:.2f}", r.firsts,
             f"{r.average_score:+.2f}", r.faults, r.forfeits, f"{r.ms_per_decision:.1f}",
             "-" if r.cpu_ms_per_decision is None else f"{r.cpu_ms_per_decision:.1f}",
             "-" if r.peak_mib is None else f"{r.peak_mib:.0f}",
             r.blocks] for r in st.rows]


#: column alignment of the text and Markdown tables (numbers right, the name left)
ALIGN = ["right", "left"] + ["right"] * (len(TABLE_KEYS) - 2)

#: the columns the terminal shows only with ``wide=True`` (``arena run --wide``)
WIDE_KEYS = ("ms_per_decision", "cpu_ms_per_decision", "peak_mib")
#: the width the terminal's table, notes and legend fit by default (characters)
TERMINAL_WIDTH = 100


def standings_legend(st: Standings | None = None, keys: Sequence[str] = TABLE_KEYS
                     ) -> list[str]:
    """What the columns ``keys`` (of :data:`TABLE_KEYS`) of the text and Markdown tables
    mean, one line each; with ``st``, also what a status in the rating column means when one
    of its rows has one (a bot that never started or did not connect)."""
    rating, ci = COLUMNS["rating"], COLUMNS["ci_low"]
    status = legend(["status"]) if st is not None and any(r.status for r in st.rows) else []
    return [f"{HEADERS[2]}: {rating.meaning}; {ci.header}: {ci.meaning}", *status,
            *legend([k for k in TABLE_KEYS[3:] if k in keys])]


def _cell_width(text: str) -> int:
    """Terminal columns of ``text`` (East Asian wide characters count 2, as tabulate's)."""
    try:
        from wcwidth import wcswidth
    except ImportError:       # a dependency (tabulate[widechars]); len() if it is absent
        return len(text)
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _terminal_table(st: Standings, wide: bool) -> str:
    """The standings as an aligned text table, two spaces between columns and no padding
    beyond the widest cell (tabulate's ``simple`` adds 2 to every header: 159 columns for the
    13 columns); the time and memory columns only when ``wide``."""
    from tabulate import tabulate
    keep = [TABLE_KEYS.index(k) for k in terminal_keys(wide)]
    body = [[printable(str(row[i])) if i == 1 else str(row[i]) for i in keep]
            for row in table_rows(st)]
    head = [HEADERS[i] for i in keep]
    rule = ["-" * max(_cell_width(c) for c in column) for column in zip(head, *body, strict=True)]
    return tabulate([head, rule, *body], tablefmt="plain", disable_numparse=True,
                    colalign=[ALIGN[i] for i in keep])


def terminal_keys(wide: bool = False) -> list[str]:
    """The columns of the terminal's table: :data:`TABLE_KEYS`, less :data:`WIDE_KEYS`
    unless ``wide``."""
    return [k for k in TABLE_KEYS if wide or k not in WIDE_KEYS]


def _wrapped(lines: Sequence[str], width: int) -> list[str]:
    """``lines`` wrapped to ``width``, continuation lines indented by 4."""
    return [textwrap.fill(line, width, subsequent_indent="    ", break_on_hyphens=False)
            for line in lines]


def format_standings(st: Standings, fmt: str = "text", *, wide: bool = False,
                     legend: bool = False) -> str:
    """Render as ``text`` (console), ``md``, ``csv`` or ``json``. Names are data: csv quotes
    them, json escapes them, md and text show them with :mod:`arena.safetext`.

    ``text`` fits :data:`TERMINAL_WIDTH` columns: without ``wide`` it leaves out
    :data:`WIDE_KEYS`; the notes are wrapped, the legend (``legend=True``) too. md, csv and
    json always hold every column, the notes and the legend; ``wide`` and ``legend`` are for
    ``text`` only."""
    if fmt == "json":
        return json.dumps({"standings": [asdict(r) for r in st.rows], "notes": st.notes,
                           "legend": standings_legend(st)}, indent=2, ensure_ascii=False)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow([*STANDING_COLUMNS, "note"])
        few = st.few_blocks
        for r in st.rows:
            note = few if few and r.matches and r.blocks < MIN_BLOCKS else st.note
            w.writerow([*asdict(r).values(), note or ""])
        return buf.getvalue()
    if fmt == "text":
        legend_lines = _wrapped(standings_legend(st, terminal_keys(wide)), TERMINAL_WIDTH)
        lines = [*_wrapped(st.notes, TERMINAL_WIDTH), *(["\n".join(legend_lines)] if legend
                                                         else [])]
        return "\n\n".join([_terminal_table(st, wide), *lines]) + "\n"
    rows = table_rows(st)
    for row in rows:
        row[1] = markdown_cell(str(row[1]))
    return render_table(HEADERS, rows, ALIGN, "md", notes=st.notes,
                        legend_lines=standings_legend(st)) + "\n"
