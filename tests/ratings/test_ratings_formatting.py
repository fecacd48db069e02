"""Rendering: md / csv / json hold the right rows; hostile names survive."""

from __future__ import annotations

import csv
import io
import itertools
import json

import numpy as np
import pytest

from arena.ratings import MatchResult, format_report, rate
from arena.ratings.columns import MIN_BLOCKS, few_blocks_note
from arena.ratings.formatting import csv_tables, markdown_escape
from .ratings_synth import draw_places

HOSTILE = ["<script>alert(1)</script>", "Jürgen ♠", "comma, bot", 'say "hi"', "pipe|bot",
           "line\nbreak", "1e5", "=SUM(A1)", "back\\slash_*x*"]
STRENGTH = dict(zip(HOSTILE, np.linspace(1800, 1200, len(HOSTILE)), strict=True))


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(4)
    results = []
    tables = list(itertools.combinations(HOSTILE, 3))[::3]
    for t, table in enumerate(tables):
        for seating in itertools.permutations(table):
            places = draw_places([STRENGTH[n] for n in seating], rng)
            results.append(MatchResult(tuple(seating), places, f"block,{t}"))
    return rate(results, bootstrap=30, seed=1)


def table(text: str) -> list[list[str]]:
    """The rows of one CSV table (no blank separator lines: one table per text)."""
    rows = list(csv.reader(io.StringIO(text)))
    assert all(rows), "a CSV text holds one table"
    return rows


def test_csv_round_trips_hostile_names_and_numbers(report):
    files = csv_tables(report)
    assert sorted(files) == ["headtohead.csv", "los.csv", "ratings.csv"]
    ratings, los, h2h = (table(files[f]) for f in ("ratings.csv", "los.csv", "headtohead.csv"))
    assert ratings[0] == ["rank", "bot", "rating", "ci_low", "ci_high", "matches",
                          "average_place", "firsts", "forfeits", "blocks", "one_sided", "note"]
    assert [row[1] for row in ratings[1:]] == list(report.names)
    assert sorted(report.names) == sorted(HOSTILE)
    for row, bot in zip(ratings[1:], report.bots, strict=True):
        assert int(row[0]) == bot.rank
        assert float(row[2]) == bot.rating  # full precision
        assert float(row[3]) == bot.ci_low and float(row[4]) == bot.ci_high
        assert int(row[5]) == bot.matches and float(row[6]) == bot.average_place
        assert int(row[7]) == bot.firsts and int(row[8]) == bot.forfeits
        assert int(row[9]) == bot.blocks
        assert row[10] == (bot.one_sided or "")
        assert (row[11] == few_blocks_note({b.name: b.blocks for b in report.bots})) == \
            (bot.blocks < MIN_BLOCKS)
    n = len(report.bots)
    assert los[0] == ["a", "b", "los"] and len(los) == 1 + n * (n - 1)
    for a, b, value in los[1:]:
        assert float(value) == report.los_of(a, b)
    assert h2h[0] == ["a", "b", "matches", "above", "below", "equal", "difference",
                      "diff_ci_low", "diff_ci_high"]
    assert len(h2h) == 1 + n * (n - 1)
    for a, b, matches, above, below, equal, diff, low, high in h2h[1:]:
        h = report.head_to_head_of(a, b)
        assert (int(matches), int(above), int(below), int(equal)) == (
            h.matches, h.above, h.below, h.equal)
        d = report.difference_of(a, b)
        assert (float(diff), float(low), float(high)) == (d.difference, d.ci_low, d.ci_high)
        assert float(diff) == pytest.approx(report.bot(a).rating - report.bot(b).rating)
    assert format_report(report, "csv") == files["ratings.csv"]
    assert format_report(report, "csv", section="los") == files["los.csv"]


def test_csv_single_section(report):
    rows = table(format_report(report, "csv", section="ratings"))
    assert len(rows) == 1 + len(report.bots)


def test_json_parses_and_matches_report(report):
    data = json.loads(format_report(report, "json"))
    assert data == json.loads(json.dumps(report.to_dict()))
    assert [b["bot"] for b in data["bots"]] == list(report.names)
    assert list(data["bots"][0]) == ["rank", "bot", "rating", "ci_low", "ci_high", "matches",
                                     "average_place", "firsts", "forfeits", "blocks",
                                     "one_sided"]
    assert data["bots"][0]["rating"] == report.bots[0].rating
    assert data["los"]["bots"] == list(report.names)
    assert data["los"]["matrix"] == [list(row) for row in report.los]
    assert len(data["head_to_head"]) == len(report.head_to_head)
    assert len(data["differences"]) == len(report.differences) == len(report.head_to_head)
    assert data["differences"][0]["difference"] == report.differences[0].difference
    assert data["model"]["units"] == "Elo points" and data["model"]["bootstrap"] == 30
    assert data["matches"] == report.matches and data["blocks"] == report.blocks


def test_markdown_has_one_row_per_bot_and_escapes_names(report):
    text = format_report(report, "md")
    assert "## Ratings" in text and "## Likelihood of superiority" in text
    assert "## Head-to-head" in text
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "Jürgen ♠" in text and "comma, bot" in text and 'say "hi"' in text
    assert "pipe\\|bot" in text and "line\\u000abreak" in text
    ratings_table = text.split("## Likelihood")[0]
    rows = [line for line in ratings_table.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(report.bots)  # header, separator, bots
    for line, bot in zip(rows[2:], report.bots, strict=True):
        # every row has exactly 10 unescaped cell separators + 1 border
        assert line.replace("\\|", "").count("|") == 11
        assert markdown_escape(bot.name) in line
        assert f"{bot.rating:.1f}" in line
    assert "1e5" in text  # a numeric-looking name is left as text, not reformatted
    assert "100000" not in text


def test_markdown_escape():
    assert markdown_escape("a|b") == "a\\|b"
    assert markdown_escape("<b>&") == "&lt;b&gt;&amp;"
    assert markdown_escape("x_y*z`") == "x\\_y\\*z\\`"
    assert markdown_escape("tab\there") == "tab\\u0009here"
    assert markdown_escape("plain name-1.2") == "plain name-1.2"


def test_formats_without_bootstrap():
    results = [MatchResult(("a", "b", "c"), (1, 2, 3), "x"),
               MatchResult(("a", "b", "c"), (2, 1, 3), "x")]
    report = rate(results, bootstrap=0)
    data = json.loads(format_report(report, "json"))
    assert data["los"] is None and all(b["ci_low"] is None for b in data["bots"])
    assert "Not computed (no bootstrap)" in format_report(report, "md")
    ratings = table(format_report(report, "csv"))
    assert ratings[1][3] == "" and table(csv_tables(report)["los.csv"]) == [["a", "b", "los"]]


def test_unknown_format_or_section_is_rejected(report):
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        format_report(report, "xml")  # type: ignore[arg-type]  # a bad format is the test
    with pytest.raises(ValueError, match="unknown section"):
        format_report(report, "md", section="nope")  # type: ignore[arg-type]  # bad section


def block_results(blocks: int) -> list[MatchResult]:
    """3 bots, ``blocks`` duplicate blocks of 6 matches with varied placings."""
    rng = np.random.default_rng(blocks)
    out = []
    for k in range(blocks):
        for seating in itertools.permutations(("a", "b", "c")):
            out.append(MatchResult(seating, draw_places([1600, 1500, 1400], rng), f"b{k}"))
    return out


@pytest.mark.parametrize("blocks", [2])
def test_too_few_blocks_are_noted_in_every_format(blocks):
    """Intervals from fewer than 3 blocks per bot (where they are calibrated but very wide,
    docs/ratings.md) carry a note."""
    report = rate(block_results(blocks), bootstrap=20, seed=1)
    assert all(b.blocks == blocks for b in report.bots)
    note = few_blocks_note({b.name: b.blocks for b in report.bots})
    assert note == (f"note: every bot played only {blocks} duplicate blocks, fewer than 3: "
                    "their 95% intervals are very wide; play more deals per table for useful "
                    "ones")
    assert markdown_escape(note) in format_report(report, "md")
    assert json.loads(format_report(report, "json"))["notes"] == [note]
    rows = table(format_report(report, "csv"))
    assert all(row[-1] == note for row in rows[1:])


def test_enough_blocks_have_no_note():
    report = rate(block_results(3), bootstrap=20, seed=1)
    assert report.notes == [] and "note:" not in format_report(report, "md")
    assert json.loads(format_report(report, "json"))["notes"] == []
    assert all(row[-1] == "" for row in table(format_report(report, "csv"))[1:])
    assert rate(block_results(4), bootstrap=0).notes == []     # no intervals, nothing to warn


def test_some_bots_with_few_blocks():
    assert few_blocks_note({"a": 12, "b": 2, "c": 1}) == (
        "note: 2 of 3 bots played only 1 to 2 duplicate blocks, fewer than 3: their 95% "
        "intervals are very wide; play more deals per table for useful ones")
    assert few_blocks_note({"a": 12, "b": 3}) is None
    assert "only 1 duplicate block," in few_blocks_note({"a": 1})


def test_markdown_legend_uses_the_shared_vocabulary(report):
    from arena.ratings.columns import COLUMNS
    text = format_report(report, "md", section="ratings")
    header = next(line for line in text.splitlines() if line.startswith("|"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "rank", "bot", "rating", "95% CI", "matches", "avg place", "1st", "forfeits", "blocks",
        "one-sided"]
    for key in ("rating", "average_place", "firsts", "forfeits", "blocks"):
        assert f"- {markdown_escape(COLUMNS[key].header)}: " in text
    # the legend is prose: a one-sided bound reads "> x" / "< x" where `arena ratings` prints
    # it on a terminal, not "&gt; x" (that stays for markup: a name's "<img")
    legend = "\n".join(line for line in text.splitlines() if line.startswith("- "))
    assert '"> x" / "< x"' in legend and "(> or <)" in legend and "&gt;" not in legend


def test_text_shows_names_as_written_for_a_terminal(report):
    """``--format text`` (the terminal's default): plain tables and titles, names unescaped
    (``back\\slash_*x*``, not ``back\\\\slash\\_\\*x\\*``), control characters still escaped."""
    text = format_report(report, "text")
    md = format_report(report, "md")
    assert "back\\slash_*x*" in text and "back\\slash_*x*" not in md
    assert "<script>alert(1)</script>" in text
    assert "line\\u000abreak" in text and "line\nbreak" not in text
    assert "##" not in text and "|" not in text.replace("pipe|bot", "")
    for title in ("Ratings", "Likelihood of superiority", "Head-to-head"):
        assert f"\n{title}\n" in f"\n{text}" and f"## {title}" in md
    rating_rows = [line for line in text.splitlines() if line.strip().startswith(
        tuple(f"{b.rank} " for b in report.bots))]
    assert len(rating_rows) >= len(report.bots)


def test_arena_ratings_prints_text_on_a_terminal_and_md_when_piped(monkeypatch):
    """The CLI's default format follows where the report goes."""
    import sys

    from arena.commands import ratings as cmd

    seen = []
    for tty in (True, False):
        monkeypatch.setattr(sys.stdout, "isatty", lambda tty=tty: tty, raising=False)
        seen.append(cmd.default_format())
    assert seen == ["text", "md"]
