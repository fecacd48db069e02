"""Rendering: md / csv / json hold the right rows; hostile names survive."""

from __future__ import annotations

import csv
import io
import itertools
import json

import numpy as np
import pytest

from arena.ratings import MatchResult, format_report, rate
from arena.ratings.formatting import markdown_escape
from .ratings_synth import draw_places

HOSTILE = ["<script>alert(1)</script>", "Jürgen ♠", "comma, bot", 'say "hi"', "pipe|bot",
           "line\nbreak", "1e5", "=SUM(A1)", "back\\slash_*x*"]
STRENGTH = dict(zip(HOSTILE, np.linspace(1800, 1200, len(HOSTILE))))


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


def split_sections(text: str) -> list[list[list[str]]]:
    sections: list[list[list[str]]] = [[]]
    for row in csv.reader(io.StringIO(text)):
        if row:
            sections[-1].append(row)
        else:
            sections.append([])
    return sections


def test_csv_round_trips_hostile_names_and_numbers(report):
    ratings, los, h2h = split_sections(format_report(report, "csv"))
    assert ratings[0] == ["rank", "bot", "rating", "ci_low", "ci_high", "matches", "firsts",
                          "average_place", "forfeits", "one_sided"]
    assert [row[1] for row in ratings[1:]] == list(report.names)
    assert sorted(report.names) == sorted(HOSTILE)
    for row, bot in zip(ratings[1:], report.bots):
        assert int(row[0]) == bot.rank
        assert float(row[2]) == bot.rating  # full precision
        assert float(row[3]) == bot.ci_low and float(row[4]) == bot.ci_high
        assert int(row[5]) == bot.matches and int(row[6]) == bot.firsts
        assert float(row[7]) == bot.average_place and int(row[8]) == bot.forfeits
        assert row[9] == (bot.one_sided or "")
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


def test_csv_single_section(report):
    [rows] = split_sections(format_report(report, "csv", section="ratings"))
    assert len(rows) == 1 + len(report.bots)


def test_json_parses_and_matches_report(report):
    data = json.loads(format_report(report, "json"))
    assert data == json.loads(json.dumps(report.to_dict()))
    assert [b["name"] for b in data["bots"]] == list(report.names)
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
    assert "pipe\\|bot" in text and "line\\x0abreak" in text
    ratings_table = text.split("## Likelihood")[0]
    rows = [line for line in ratings_table.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(report.bots)  # header, separator, bots
    for line, bot in zip(rows[2:], report.bots):
        # every row has exactly 9 unescaped cell separators + 1 border
        assert line.replace("\\|", "").count("|") == 10
        assert markdown_escape(bot.name) in line
        assert f"{bot.rating:.1f}" in line
    assert "1e5" in text  # a numeric-looking name is left as text, not reformatted
    assert "100000" not in text


def test_markdown_escape():
    assert markdown_escape("a|b") == "a\\|b"
    assert markdown_escape("<b>&") == "&lt;b&gt;&amp;"
    assert markdown_escape("x_y*z`") == "x\\_y\\*z\\`"
    assert markdown_escape("tab\there") == "tab\\x09here"
    assert markdown_escape("plain name-1.2") == "plain name-1.2"


def test_formats_without_bootstrap():
    results = [MatchResult(("a", "b", "c"), (1, 2, 3), "x"), MatchResult(("a", "b", "c"), (2, 1, 3), "x")]
    report = rate(results, bootstrap=0)
    data = json.loads(format_report(report, "json"))
    assert data["los"] is None and all(b["ci_low"] is None for b in data["bots"])
    assert "Not computed (no bootstrap)" in format_report(report, "md")
    ratings, los, _ = split_sections(format_report(report, "csv"))
    assert ratings[1][3] == "" and los == [["a", "b", "los"]]


def test_unknown_format_or_section_is_rejected(report):
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        format_report(report, "xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown section"):
        format_report(report, "md", section="nope")  # type: ignore[arg-type]
