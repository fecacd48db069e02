"""Standings outputs: one column vocabulary shared with ``arena
ratings``, one table per CSV file, a legend under the tables, a note when the intervals rest on
too few duplicate blocks, and plurals that agree with their numbers."""

from __future__ import annotations

import csv
import io
import json

from dataclasses import replace

import pytest

from arena.cli import main
from arena.ratings import MatchResult, RatingsInputError, rate
from arena.ratings.columns import COLUMNS, HEAD_TO_HEAD_COLUMNS as H2H_COLUMNS, RATING_COLUMNS
from arena.safetext import markdown_text
from arena.tournament.standings import (STANDING_COLUMNS, compute_standings, format_standings,
                                        standings_legend, terminal_keys)
from arena.tournament.store import ResultRow
from tests.rows import result_row

from .helpers import config_text, new_tag, wait_no_processes

BOTS = ("a", "b", "c")


def rows(blocks: int) -> list[ResultRow]:
    out = []
    for k in range(blocks * 6):
        seats = tuple(BOTS[(k + i) % 3] for i in range(3))
        places = [(1, 2, 3), (2, 3, 1), (3, 1, 2), (1, 3, 2)][k % 4]
        out.append(result_row(f"m{k}", f"blk{k // 6}", seats, places=places, scores=(2, 0, -2),
                              faults=(0, 1, 0), decisions=(4, 4, 4), think_ms=(2.0, 4.0, 6.0)))
    return out


def test_stored_results_are_rated_as_they_are_and_standings_extend_the_report():
    """One result type: the store's rows go into the ratings unconverted,
    and the standings' rating columns are the report's (one tally of the counts)."""
    stored = rows(3)
    as_results = [MatchResult(r.players, r.places, r.block, r.forfeits) for r in stored]
    assert rate(stored, seed=1, bootstrap=50) == rate(as_results, seed=1, bootstrap=50)
    st = compute_standings(stored, list(BOTS), seed=1)
    assert st.ratings is not None
    for row in st.rows:
        line = st.ratings.bot(row.bot).to_dict()
        mine = {k: getattr(row, k) for k in RATING_COLUMNS}
        assert mine == {**line, "average_place": round(line["average_place"], 3)}
    # a damaged row (placings that are no competition ranking) is named, not a traceback
    bad = replace(stored[4], places=(1, 1, 2))
    with pytest.raises(RatingsInputError, match=r"results\[4\]: places \(1, 1, 2\) are not"):
        rate([*stored[:4], bad], bootstrap=0)


def test_standings_columns_extend_the_ratings_vocabulary():
    shared = [k for k in STANDING_COLUMNS if k in RATING_COLUMNS]
    assert shared == list(RATING_COLUMNS)                  # same names, same order
    assert set(STANDING_COLUMNS) - set(RATING_COLUMNS) == {
        "average_score", "faults", "ms_per_decision", "cpu_ms_per_decision", "peak_mib",
        "status"}
    assert all(k in COLUMNS for k in STANDING_COLUMNS)


def test_csv_is_one_table_with_the_shared_names():
    st = compute_standings(rows(2), list(BOTS))
    table = list(csv.reader(io.StringIO(format_standings(st, "csv"))))
    assert table[0] == [*STANDING_COLUMNS, "note"] and all(table)
    assert len(table) == 4 and {r[1] for r in table[1:]} == set(BOTS)
    assert all(r[-1].startswith("note: every bot played only 2 duplicate blocks") for r in
               table[1:])


@pytest.mark.parametrize("blocks,noted", [(2, True), (3, False), (10, False)])
def test_few_blocks_note_in_every_format(blocks, noted):
    st = compute_standings(rows(blocks), list(BOTS))
    assert all(r.blocks == blocks for r in st.rows)
    note = st.few_blocks
    assert (note is not None) == noted
    text, md = format_standings(st, "text"), format_standings(st, "md")
    data = json.loads(format_standings(st, "json"))
    if noted:
        assert f"only {blocks} duplicate blocks, fewer than 3" in note
        assert " ".join(note.split()) in " ".join(text.split())       # wrapped at 100
        assert note in md and data["notes"] == [note]
    else:
        assert "note:" not in text and "note:" not in md and data["notes"] == []


def test_legend_in_markdown_and_on_the_terminal_when_asked():
    st = compute_standings(rows(2), list(BOTS))
    md = format_standings(st, "md")
    legend = standings_legend()
    assert legend[0].startswith("rating [95% CI]: Elo scale, mean 1500")
    assert any(line.startswith("avg score: average final match score") for line in legend)
    assert all(f"- {markdown_text(line)}" in md for line in legend)
    assert "&gt;" not in md and '"> x" / "< x"' in md      # prose: no escape needed
    assert "Elo scale" not in format_standings(st, "text")        # the legend once: in .md
    for wide in (False, True):
        text = format_standings(st, "text", wide=wide, legend=True)
        shown = standings_legend(st, terminal_keys(wide))
        assert " ".join(text.split()).endswith(" ".join(" ".join(shown).split()))
        assert ("CPU ms/decision:" in text) == wide and "avg place: average place" in text
        header = text.splitlines()[0].split()
        assert header[:3] == ["rank", "bot", "rating"] and "avg" in header
        assert max(len(line) for line in text.splitlines()) <= 100 or wide
    data = json.loads(format_standings(st, "json"))
    assert data["legend"] == legend
    assert list(data["standings"][0]) == list(STANDING_COLUMNS)


def test_terminal_table_fits_100_columns_and_wide_has_every_column():
    names = ("random", "random-2", "montecarlo-v2")     # names up to 13 characters fit
    results = [replace(r, players=tuple(names[BOTS.index(b)] for b in r.players),
                       cpu_s=(1.5, 0.2, 12.0), peak_mib=(40.0, 512.0, 1024.0))
               for r in rows(3)]
    st = compute_standings(results, list(names))
    for fmt_wide, limit in ((False, 100), (True, 200)):
        text = format_standings(st, "text", wide=fmt_wide, legend=True)
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= limit
        assert ("CPU ms/decision" in lines[0]) == fmt_wide == ("peak MiB" in lines[0])
        assert all(set(cell) == {"-"} for cell in lines[1].split())
        widths = {len(line) for line in lines[:5]}
        assert len(widths) == 1                          # header, rule and rows aligned
        row = next(line for line in lines[2:5] if "montecarlo-v2" in line).split()
        assert row[1] == "montecarlo-v2" and row[-1] == "3"      # blocks, the last column
    md = format_standings(st, "md")                     # the file keeps every column
    assert "CPU ms/decision" in md and "peak MiB" in md and "ms/decision" in md


def test_no_ratings_yet_is_a_note():
    st = compute_standings([], list(BOTS))
    assert st.notes == ["note: no matches played yet"]
    assert "note: no matches played yet" in format_standings(st, "text")


@pytest.mark.e2e
def test_arena_run_writes_one_table_per_csv_and_notes(tmp_path, capsys):
    tag = new_tag()
    (tmp_path / "t.toml").write_text(config_text(None, tag=tag, deals=2))
    out = tmp_path / "o"
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 0
    stdout = capsys.readouterr().out
    assert "note: every bot played only 2 duplicate blocks, fewer than 3" in stdout
    # the legend once, in standings.md; on the terminal a line pointing there
    assert "Elo scale, mean 1500" not in stdout
    assert f"(legend: -v or {out / 'standings.md'}; --wide adds the time and memory " \
        "columns)" in stdout
    assert "- rating \\[95% CI\\]: Elo scale, mean 1500" in (out / "standings.md").read_text()
    assert "12 matches played now" in stdout
    for name, header in (("standings.csv", ",".join(STANDING_COLUMNS) + ",note"),
                         ("los.csv", "a,b,los"),
                         ("headtohead.csv", ",".join(H2H_COLUMNS))):
        table = list(csv.reader(io.StringIO((out / name).read_text())))
        assert ",".join(table[0]) == header and all(table), name
        assert len(table) == (4 if name == "standings.csv" else 7)
    assert main(["ratings", str(out), "--format", "csv", "--table", "headtohead"]) == 0
    assert capsys.readouterr().out == (out / "headtohead.csv").read_text()
    assert main(["ratings", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["bot"] for b in data["bots"]] and data["notes"][0].startswith("note: every bot")
    # one more (resumed) run plays nothing: "0 matches"; -v shows the legend on the terminal
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet", "-v"]) == 0
    again = capsys.readouterr().out
    assert "0 matches played now, 12 resumed" in again
    assert "rating [95% CI]: Elo scale, mean 1500" in again and "(legend: " not in again
    assert wait_no_processes(tag) == []


def test_plurals():
    from arena.wording import plural
    assert [plural(n, "hand") for n in (0, 1, 2)] == ["0 hands", "1 hand", "2 hands"]
    assert plural(1, "match") == "1 match" and plural(3, "match") == "3 matches"
    assert plural(1, "crash") == "1 crash" and plural(2, "crash") == "2 crashes"


def test_one_hand_replay_says_hand():
    from arena.records import record_from_result, render_text
    from tests.records.helpers import play
    text = render_text(record_from_result(play(hand_cap=1)))
    assert "; 1 hand; termination" in text and "after 1 hand\n" in text
    assert "1 hands" not in text
