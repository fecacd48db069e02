"""Pure renderers of a :class:`~arena.ratings.report.RatingReport` as Markdown, CSV or JSON.

Bot names are arbitrary strings chosen by participants, so every format treats them as hostile:

* ``md``: GitHub pipe tables (via ``tabulate`` when installed, with number parsing disabled so
  a bot called ``1e5`` stays a name). In names, HTML specials are entity-escaped, Markdown
  punctuation (``\\ ` * _ [ ] |``) is backslash-escaped and control characters are shown as
  ``\\xNN``; a name therefore renders as itself and cannot break the table or inject markup.
* ``csv``: the :mod:`csv` module with minimal quoting, so commas, quotes and newlines survive
  a round trip through :func:`csv.reader`. Numbers are written at full precision. Cells are
  not defused against spreadsheet formula injection (a name starting with ``=``): doing so
  would alter the data; open untrusted CSV in a spreadsheet with care.
* ``json``: :func:`json.dumps` of :meth:`RatingReport.to_dict` (UTF-8 text, no NaN).

With ``section="all"`` the CSV output holds three tables (ratings, los, head_to_head), each
with its own header row, separated by one empty line; pick one table with ``section``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Sequence
from typing import Literal

from .report import RatingReport

__all__ = ["format_report", "markdown_escape"]

Format = Literal["md", "csv", "json"]
Section = Literal["all", "ratings", "los", "head_to_head"]
_SECTIONS = ("ratings", "los", "head_to_head")

RATINGS_COLUMNS = (
    "rank", "bot", "rating", "ci_low", "ci_high", "matches", "firsts", "average_place", "forfeits",
    "one_sided",
)
LOS_COLUMNS = ("a", "b", "los")
H2H_COLUMNS = ("a", "b", "matches", "above", "below", "equal", "difference", "diff_ci_low",
               "diff_ci_high")

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def markdown_escape(text: str) -> str:
    """Escape ``text`` for a Markdown table cell so that it renders literally."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = html.escape(text, quote=False)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]) -> str:
    try:
        from tabulate import tabulate
    except ImportError:  # tabulate is a dependency; keep the renderer usable without it
        marks = {"left": ":--", "right": "--:", "center": ":-:"}
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    return tabulate(
        [list(r) for r in rows],
        headers=list(headers),
        tablefmt="github",
        disable_numparse=True,
        colalign=list(align),
    )


def _fmt(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _markdown(report: RatingReport, sections: Sequence[str]) -> str:
    parts: list[str] = []
    if "ratings" in sections:
        rows = [
            [
                str(b.rank),
                markdown_escape(b.name),
                _fmt(b.rating, 1),
                "-" if b.ci_low is None else f"[{b.ci_low:.1f}, {b.ci_high:.1f}]",
                str(b.matches),
                str(b.firsts),
                _fmt(b.average_place, 2),
                str(b.forfeits),
                b.one_sided or "",
            ]
            for b in report.bots
        ]
        headers = ["#", "bot", "rating", "95% CI", "matches", "1st", "avg place", "forfeits",
                   "one-sided"]
        align = ["right", "left", "right", "right", "right", "right", "right", "right", "left"]
        flagged = [b for b in report.bots if b.one_sided]
        anchor = ("mean 1500" if not flagged or len(flagged) == len(report.bots) else
                  "mean 1500 over the bots that are not one-sided")
        legend = ("" if not flagged else
                  " One-sided bots (never beaten / never beat another bot) have no finite "
                  "estimate: their rating is a bound set by the prior and they are left out "
                  "of the 1500 anchor.")
        parts.append(
            f"## Ratings\n\n{report.matches} matches in {report.blocks} blocks; Elo points, "
            f"{anchor}; Plackett-Luce, prior sigma {report.prior_sigma:g}, "
            f"{report.bootstrap} bootstrap resamples over blocks (seed {report.seed})."
            f"{legend}\n\n" + _md_table(headers, rows, align)
        )
    if "los" in sections:
        title = "## Likelihood of superiority\n\n"
        if report.los is None:
            parts.append(title + "Not computed (no bootstrap).")
        else:
            names = [markdown_escape(n) for n in report.names]
            rows = [
                [names[i]] + ["-" if i == j else f"{v:.3f}" for j, v in enumerate(row)]
                for i, row in enumerate(report.los)
            ]
            parts.append(
                title
                + "Row bot rated above column bot in this fraction of bootstrap resamples.\n\n"
                + _md_table(["", *names], rows, ["left"] + ["right"] * len(names))
            )
    if "head_to_head" in sections:
        diffs = {(d.a, d.b): d for d in report.differences}
        rows = []
        for h in report.head_to_head:
            d = diffs.get((h.a, h.b))
            rows.append([markdown_escape(h.a), markdown_escape(h.b), str(h.matches), str(h.above),
                         str(h.below), str(h.equal), "-" if d is None else f"{d.difference:+.1f}",
                         "-" if d is None or d.ci_low is None
                         else f"[{d.ci_low:+.1f}, {d.ci_high:+.1f}]"])
        parts.append(
            "## Head-to-head\n\nMatches in which both bots played; a placed above / below / "
            "equal to b; rating difference a - b (Elo points) with its 95% interval.\n\n"
            + _md_table(
                ["a", "b", "matches", "above", "below", "equal", "a - b", "95% CI"],
                rows,
                ["left", "left", "right", "right", "right", "right", "right", "right"],
            )
        )
    return "\n\n".join(parts) + "\n"


def _csv(report: RatingReport, sections: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    first = True
    for section in sections:
        if not first:
            writer.writerow([])
        first = False
        if section == "ratings":
            writer.writerow(RATINGS_COLUMNS)
            for b in report.bots:
                writer.writerow(
                    [b.rank, b.name, repr(b.rating),
                     "" if b.ci_low is None else repr(b.ci_low),
                     "" if b.ci_high is None else repr(b.ci_high),
                     b.matches, b.firsts, repr(b.average_place), b.forfeits,
                     b.one_sided or ""]
                )
        elif section == "los":
            writer.writerow(LOS_COLUMNS)
            if report.los is not None:
                for i, a in enumerate(report.names):
                    for j, b in enumerate(report.names):
                        if i != j:
                            writer.writerow([a, b, repr(report.los[i][j])])
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


def format_report(report: RatingReport, fmt: Format, *, section: Section = "all") -> str:
    """Render ``report`` as ``"md"``, ``"csv"`` or ``"json"`` text.

    ``section`` restricts md/csv output to one table (``"ratings"``, ``"los"``,
    ``"head_to_head"``); JSON always holds the whole report. Raises ``ValueError`` for an
    unknown format or section.
    """
    if section == "all":
        sections: tuple[str, ...] = _SECTIONS
    elif section in _SECTIONS:
        sections = (section,)
    else:
        raise ValueError(f"unknown section {section!r}; expected 'all' or one of {_SECTIONS}")
    if fmt == "md":
        return _markdown(report, sections)
    if fmt == "csv":
        return _csv(report, sections)
    if fmt == "json":
        return json.dumps(report.to_dict(), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    raise ValueError(f"unknown format {fmt!r}; expected 'md', 'csv' or 'json'")
