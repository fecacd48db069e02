"""CLI basics: presets, bench engine, and one-line errors for user mistakes."""

import json

import pytest

from arena.sandbox import which

from arena.cli import main


def test_presets_json_lists_all_five(capsys):
    assert main(["presets", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data) == ["blato", "nine-five-two", "sergeant-major", "six-contracts",
                            "six-three-eight"]
    assert data["blato"]["targets"] == [3, 8, 5]


def test_unknown_preset_is_one_line_exit_2(capsys):
    assert main(["presets", "whist"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown preset 'whist'" in err and "Traceback" not in err


def test_bench_engine_prints_figures(capsys):
    assert main(["bench", "engine", "--matches", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 random matches" in out and "hands/s" in out and "us/decision" in out


def test_bench_engine_rejects_bad_preset(capsys):
    assert main(["bench", "engine", "--preset", "x"]) == 2
    assert "unknown preset 'x'" in capsys.readouterr().err


@pytest.mark.e2e           # real bot processes over gRPC, sandboxed ones too
def test_bench_arena_prints_both_rates_and_the_ratio(capsys):
    assert main(["bench", "arena", "--decisions", "200", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "raw gRPC bidi ping-pong" in out and "ratio arena / raw" in out
    assert "arena, trivial bots" in out and "arena, SDK random bots" in out
    rounds = next(line for line in out.splitlines() if line.startswith("rounds"))
    assert rounds.count("/") == 2 + 2 * 2  # "(raw / arena / SDK)", then a triple per round
    unix = next(line for line in out.splitlines() if line.startswith("Unix rounds"))
    assert unix.count("/") == 1 + 2           # "(raw / arena)", then a pair per round
    assert "ratio arena / raw (unix)" in out
    if which.available():
        assert "bot start, no sandbox" in out and "bot start, bwrap sandbox" in out
    else:
        assert "bot start times: skipped (the bubblewrap sandbox cannot run here" in out


def test_bench_arena_rejects_bad_rounds(capsys):
    assert main(["bench", "arena", "--rounds", "0"]) == 2
    assert "--rounds must be between 1 and 50" in capsys.readouterr().err


def test_bench_memory_prints_rss_figures(capsys):
    assert main(["bench", "memory", "--matches", "12", "--warmup", "6"]) == 0
    out = capsys.readouterr().out
    assert "tournament              : 12 matches (sergeant-major, hand_cap 1" in out
    assert "MB after 6 matches" in out and "MB after 12" in out
    assert "growth after warm-up    : " in out and "run --matches 2000" in out


@pytest.mark.parametrize("argv", [["--matches", "10", "--warmup", "10"],
                                  ["--concurrency", "0"]])
def test_bench_memory_rejects_bad_counts(capsys, argv):
    assert main(["bench", "memory", *argv]) == 2
    assert capsys.readouterr().err.startswith("arena: error: ")
