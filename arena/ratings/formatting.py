"""Pure renderers of a :class:`~arena.ratings.report.RatingReport` as Markdown, CSV or JSON.

Bot names are arbitrary strings chosen by participants, so every format treats them as hostile:

* ``md``: GitHub pipe tables (``tabulate``, a dependency, with number parsing disabled so
  a bot called ``1e5`` stays a name). Names go through :func:`arena.safetext.markdown_cell`
  (HTML specials entity-escaped, Markdown punctuation backslash-escaped, control and bidi
  characters shown as ``\\uXXXX``): a name renders as itself and cannot break the table or
  inject markup.
* ``csv``: the :mod:`csv` module with minimal quoting, so commas, quotes and newlines survive
  a round trip through :func:`csv.reader`. Numbers are written at full precision. Cells are
  not defused against spreadsheet formula injection (a name starting with ``=``): doing so
  would alter the data; open untrusted CSV in a spreadsheet with care.
* ``json``: :func:`json.dumps` of :meth:`RatingReport.to_dict` (UTF-8 text, no NaN).

CSV holds one table per text (ratings, los or head_to_head; :func:`csv_tables` gives the three
as ``ratings.csv``, ``los.csv``, ``headtohead.csv``). Column names follow
:mod:`arena.ratings.columns`, as do the Markdown headers and the legend under the ratings table;
the few-blocks warning (:func:`~arena.ratings.columns.few_blocks_note`) is under the Markdown
table, in the JSON ``notes`` and in the CSV ``note`` column of each bot it concerns.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Literal

from tabulate import tabulate

from ..safetext import markdown_cell, markdown_text, printable
from ..wording import plural
from .columns import (COLUMNS, HEAD_TO_HEAD_COLUMNS, LOS_COLUMNS, MIN_BLOCKS, RATING_COLUMNS,
                      few_blocks_note, legend)
from .report import RatingReport

__all__ = ["csv_tables", "format_report", "interval_text", "markdown_escape", "render_table"]

Format = Literal["md", "text", "csv", "json"]
Section = Literal["all", "ratings", "los", "head_to_head"]
_SECTIONS = ("ratings", "los", "head_to_head")

#: the CSV headers of each table (the column vocabulary of :mod:`arena.ratings.columns`)
RATINGS_COLUMNS = (*RATING_COLUMNS, "note")
H2H_COLUMNS = HEAD_TO_HEAD_COLUMNS
#: the file name of each table when written one per CSV file (:func:`csv_tables`)
CSV_FILES = {"ratings": "ratings.csv", "los": "los.csv", "head_to_head": "headtohead.csv"}

#: ``text`` escaped for a Markdown table cell so that it renders literally (the arena's one
#: helper for Markdown and HTML text, :func:`arena.safetext.markdown_cell`)
markdown_escape = markdown_cell


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]],
                 align: Sequence[str], fmt: Literal["md", "text"], *,
                 notes: Sequence[str] = (), legend_lines: Sequence[str] = ()) -> str:
    """The one table renderer of the ratings and the standings: ``md`` a GitHub pipe table,
    ``text`` a plain one (both by ``tabulate``, number parsing off so a name stays text), then
    each note as a paragraph and the legend under it (a list in ``md``; notes and legend
    escaped with :func:`~arena.safetext.markdown_text` there: prose, so ``> x`` stays
    as written). Cells are shown as given:
    escaping names is the caller's (md: ``markdown_cell``, text: ``printable``). No trailing
    newline."""
    table = tabulate([list(r) for r in rows], headers=list(headers),
                     tablefmt="github" if fmt == "md" else "simple", disable_numparse=True,
                     colalign=list(align))
    if fmt == "md":
        notes = [markdown_text(n) for n in notes]
        legend_lines = [f"- {markdown_text(line)}" for line in legend_lines]
    else:       # a terminal's: names in notes as written, control characters escaped
        notes = [printable(n) for n in notes]
        legend_lines = [printable(line) for line in legend_lines]
    return "\n\n".join([table, *notes, *(["\n".join(legend_lines)] if legend_lines else [])])


def _fmt(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def interval_text(low: float | None, high: float | None, digits: int = 1, *,
                  sign: bool = False) -> str:
    """A 95% interval as shown in tables: ``[low, high]``; a one-sided bound (a one-sided
    bot, :mod:`.bounds`) as ``> low`` or ``< high``; ``-`` without either (no bootstrap, or
    no bound). ``sign``: numbers with their sign (differences)."""
    spec = f"+.{digits}f" if sign else f".{digits}f"
    if low is None and high is None:
        return "-"
    if high is None:
        return f"> {low:{spec}}"
    if low is None:
        return f"< {high:{spec}}"
    return f"[{low:{spec}}, {high:{spec}}]"


def _title(text: str, fmt: Literal["md", "text"]) -> str:
    return f"## {text}\n\n" if fmt == "md" else f"{text}\n\n"


def _tables(report: RatingReport, sections: Sequence[str],
              fmt: Literal["md", "text"] = "md") -> str:
    """The md report (``fmt="md"``), or the same tables for a terminal (``"text"``: plain
    tables, names as written, only control characters escaped: :func:`printable`)."""
    cell = markdown_escape if fmt == "md" else printable
    parts: list[str] = []
    if "ratings" in sections:
        rows = [
            [
                str(b.rank),
                cell(b.name),
                _fmt(b.rating, 1),
                interval_text(b.ci_low, b.ci_high),
                str(b.matches),
                _fmt(b.average_place, 2),
                str(b.firsts),
                str(b.forfeits),
                str(b.blocks),
                b.one_sided or "",
            ]
            for b in report.bots
        ]
        keys = [k for k in RATING_COLUMNS if k != "ci_high"]
        headers = [COLUMNS[k].header for k in keys]
        align = ["right", "left"] + ["right"] * (len(keys) - 3) + ["left"]
        flagged = [b for b in report.bots if b.one_sided]
        anchor = ("" if not flagged or len(flagged) == len(report.bots) else
                  "; the 1500 mean is over the bots that are not one-sided")
        parts.append(
            _title("Ratings", fmt) + f"{plural(report.matches, 'match')} in "
            f"{plural(report.blocks, 'block')}; Plackett-Luce, prior sigma "
            f"{report.prior_sigma:g}, {report.bootstrap} bootstrap resamples over blocks "
            f"(seed {report.seed}){anchor}.\n\n"
            + render_table(headers, rows, align, fmt, notes=report.notes,
                           legend_lines=legend(keys))
        )
    if "los" in sections:
        title = _title("Likelihood of superiority", fmt)
        if report.los is None:
            parts.append(title + "Not computed (no bootstrap).")
        else:
            names = [cell(n) for n in report.names]
            rows = [
                [names[i]] + ["-" if i == j else f"{v:.3f}" for j, v in enumerate(row)]
                for i, row in enumerate(report.los)
            ]
            parts.append(
                title
                + "Row bot rated above column bot in this fraction of bootstrap resamples.\n\n"
                + render_table(["", *names], rows, ["left"] + ["right"] * len(names), fmt)
            )
    if "head_to_head" in sections:
        diffs = {(d.a, d.b): d for d in report.differences}
        rows = []
        for h in report.head_to_head:
            d = diffs.get((h.a, h.b))
            rows.append([cell(h.a), cell(h.b), str(h.matches), str(h.above),
                         str(h.below), str(h.equal), "-" if d is None else f"{d.difference:+.1f}",
                         "-" if d is None else interval_text(d.ci_low, d.ci_high, sign=True)])
        parts.append(
            _title("Head-to-head", fmt)
            + "Matches in which both bots played; a placed above / below / equal to b;"
            " rating difference a - b (Elo points) with its 95% interval.\n\n"
            + render_table(
                [COLUMNS[k].header for k in HEAD_TO_HEAD_COLUMNS if k != "diff_ci_high"],
                rows,
                ["left", "left", "right", "right", "right", "right", "right", "right"],
                fmt,
            )
        )
    return "\n\n".join(parts) + "\n"


def _csv(report: RatingReport, section: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if section == "ratings":
        writer.writerow(RATINGS_COLUMNS)
        note = few_blocks_note({b.name: b.blocks for b in report.bots}) \
            if report.bootstrap else None
        for b in report.bots:
            writer.writerow(
                [b.rank, b.name, repr(b.rating),
                 "" if b.ci_low is None else repr(b.ci_low),
                 "" if b.ci_high is None else repr(b.ci_high),
                 b.matches, repr(b.average_place), b.firsts, b.forfeits, b.blocks,
                 b.one_sided or "",
                 note if note and b.blocks < MIN_BLOCKS else ""]
            )
    elif section == "los":
        writer.writerow(LOS_COLUMNS)
        if report.los is not None:
            for i, above in enumerate(report.names):
                for j, below in enumerate(report.names):
                    if i != j:
                        writer.writerow([above, below, repr(report.los[i][j])])
    else:
        writer.writerow(H2H_COLUMNS)
        diffs = {(d.a, d.b): d for d in report.differences}
        for h in report.head_to_head:
            d = diffs.get((h.a, h.b))
            extra = ["", "", ""] if d is None else [
                repr(d.difference), "" if d.ci_low is None else repr(d.ci_low),
                "" if d.ci_high is None else repr(d.ci_high)]
            writer.writerow([h.a, h.b, h.matches, h.above, h.below, h.equal, *extra])
    return out.getvalue()


def csv_tables(report: RatingReport) -> dict[str, str]:
    """Every table as its own CSV text, keyed by file name (:data:`CSV_FILES`)."""
    return {CSV_FILES[s]: _csv(report, s) for s in _SECTIONS}


def format_report(report: RatingReport, fmt: Format, *, section: Section = "all") -> str:
    """Render ``report`` as ``"md"``, ``"text"`` (the md report's tables for a terminal:
    plain, names unescaped), ``"csv"`` or ``"json"`` text.

    ``section`` restricts md output to one table (``"ratings"``, ``"los"``,
    ``"head_to_head"``); CSV is one table per text, ``"ratings"`` unless ``section`` names
    another (:func:`csv_tables` gives all three); JSON always holds the whole report. Raises
    ``ValueError`` for an unknown format or section.
    """
    if section == "all":
        sections: tuple[str, ...] = _SECTIONS
    elif section in _SECTIONS:
        sections = (section,)
    else:
        raise ValueError(f"unknown section {section!r}; expected 'all' or one of {_SECTIONS}")
    if fmt in ("md", "text"):
        return _tables(report, sections, fmt)
    if fmt == "csv":
        return _csv(report, "ratings" if section == "all" else section)
    if fmt == "json":
        return json.dumps(report.to_dict(), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    raise ValueError(f"unknown format {fmt!r}; expected 'md', 'text', 'csv' or 'json'")
