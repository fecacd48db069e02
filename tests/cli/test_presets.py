"""``arena presets``: a readable table, a meaning for every option,
``-`` where an option does not apply, and ``--json`` unchanged."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from arena.commands.presets import MEANINGS
from arena.rules.config import OPTION_NAMES, PRESETS, make_config


def test_every_option_has_a_meaning():
    assert set(MEANINGS) == set(OPTION_NAMES)
    assert all(m and "\n" not in m for m in MEANINGS.values())


def table(capsys, *args) -> tuple[dict[str, list[str]], str]:
    assert main(["presets", *args]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    rows = {}
    for line in lines[2:]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = cells[1:]
    return rows, out


def test_all_presets_table_is_in_words(capsys):
    rows, out = table(capsys)
    assert list(rows) == list(OPTION_NAMES)
    names = list(PRESETS)
    col = {n: i for i, n in enumerate(names)}
    assert rows["removed_card"][col["six-three-eight"]] == "2C"
    assert all(rows["removed_card"][col[n]] == "-" for n in names if n != "six-three-eight")
    assert rows["targets"] == ["8/5/3", "9/5/2", "8/6/3", "3/8/5", "3/8/5"]
    assert rows["follow"] == ["F1", "F1", "F1", "F2", "F3"]
    assert rows["misere_limits"][col["six-contracts"]] == "8/3/5"
    assert rows["no_trump"][col["blato"]] == "yes" and rows["misere"][col["blato"]] == "no"
    for word in ("True", "False", "None", "[8, 5, 3]"):
        assert word not in out
    assert "S0 = the dealer, S1 = the first to play after the dealer" in out
    for opt in OPTION_NAMES:                      # the meanings, one line each
        assert f"{opt}  " in out and MEANINGS[opt] in out
    assert "F1 any card; F2 a trump if he holds one; F3 as F2" in out


@pytest.mark.parametrize("name", list(PRESETS))
def test_one_preset_has_value_and_meaning_per_line(capsys, name):
    assert main(["presets", name]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["option", name, "meaning"]
    body = lines[2:2 + len(OPTION_NAMES)]
    assert [ln.split()[0] for ln in body] == list(OPTION_NAMES)
    assert all(ln.endswith(MEANINGS[ln.split()[0]]) for ln in body)


def test_json_is_unchanged(capsys):
    assert main(["presets", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {n: make_config(n).options() for n in PRESETS}
    assert main(["presets", "blato", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"blato": make_config("blato").options()}
