"""Command-line values go through one validated path, the tournament config's pydantic model
: ``str.isdigit`` accepted ``²`` that ``int`` then rejected with a traceback.
Every mistake is one ``arena: error:`` line per problem and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.commands._values import cli_value, play_config
from arena.errors import UserError
from arena.tournament.config import ConfigError, parse_config

BOTS = ["a", "b", "c"]
SAMPLE = Path(__file__).parents[2] / "examples" / "sample.toml"


def error_lines(capsys) -> list[str]:
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert lines and all(line.startswith("arena: error: ") for line in lines), lines
    return lines


@pytest.mark.parametrize("args,expected", [
    (["--set", "hand_cap=\u00b2"], "--set hand_cap: invalid value '\u00b2' for rule option"),
    (["--seed", "\u00b2"], "--seed: '\u00b2' is not a number written with the digits 0-9"),
    (["--seed", "-\u0663"], "--seed: '-\u0663' is not a number"),
    (["--set", "targets=\u00b3,5,8"], "--set targets: invalid value '\u00b3,5,8'"),
    (["--set", "targets=9,5"], "--set targets: invalid value (9, 5)"),
    (["--set", "hand_cap=1.5"], "--set hand_cap: invalid value '1.5'"),
    (["--set", "no_trump=yes"], "--set no_trump: invalid value 'yes'"),
    (["--set", "hand_cap"], "--set expects OPTION=VALUE, got 'hand_cap'"),
    (["--set", "=3"], "--set expects OPTION=VALUE"),
    (["--set", "trumps=1"], "--set trumps: unknown rule option 'trumps'"),
    (["--set", "seed=1"], "--set seed: not a rule option; arena play takes it as --seed"),
    (["--set", "per_decision_ms=5"], "--set per_decision_ms: not a rule option; arena play "
                                     "takes it as --time-ms"),
    (["--set", "sandbox=none"], "--set sandbox: not a rule option; arena play takes it as "
                                "--sandbox"),
    (["--set", "memory_mib=2048"], "--set memory_mib: not a rule option; arena play takes it "
                                   "as --limit memory_mib=..."),
    (["--time-ms", "\u00b2"], "--time-ms: Input should be a valid integer (got '\u00b2')"),
    (["--time-ms", "\u0663"], "--time-ms: Input should be a valid integer (got '\u0663')"),
    (["--time-ms", "0"], "--time-ms: Input should be greater than or equal to 1 (got 0)"),
    (["--grace-ms", "1e3"], "--grace-ms: Input should be a valid integer (got '1e3')"),
    (["--preset", "whist"], "--preset: unknown preset 'whist'"),
    (["--seat", "\u0662"], "arena play: argument --seat: expected an integer (digits 0-9)"),
    (["--seat", "3"], "argument --seat: expected an integer from 0 to 2, got 3"),
    (["--nope"], "unrecognized arguments: --nope"),
])
def test_bad_play_values_are_one_line_exit_2(capsys, args, expected):
    assert main(["play", *BOTS, *args]) == 2
    (line,) = error_lines(capsys)
    assert expected in line


def test_several_bad_play_values_are_each_reported(capsys):
    assert main(["play", *BOTS, "--seed", "\u00b2", "--set", "hand_cap=0", "--time-ms", "x"]) \
        == 2
    lines = error_lines(capsys)
    # in the model's order
    assert [ln.split(": ")[2] for ln in lines] == ["--seed", "--set hand_cap", "--time-ms"]


@pytest.mark.parametrize("args,expected", [
    (["ratings", ".", "--seed", "\u00b2"], "arena ratings: argument --seed: expected an integer"),
    (["ratings", ".", "--bootstrap", "-1"], "argument --bootstrap: expected an integer from 0"),
    (["bench", "engine", "--matches", "\u0663"], "argument --matches: expected an integer"),
    (["replay", "x.jsonl", "--hand", "\u00b2"], "argument --hand: expected an integer"),
    (["run"], "the following arguments are required: config"),
    (["presets", "--jsno"], "unrecognized arguments: --jsno"),
])
def test_other_commands_integer_options(capsys, args, expected):
    assert main(args) == 2
    (line,) = error_lines(capsys)
    assert expected in line


@pytest.mark.parametrize("raw,typed", [
    ("3", 3), ("-3", -3), ("+7", 7), ("true", True), ("FALSE", False), ("9,5,2", [9, 5, 2]),
    ("9, 5, 2", [9, 5, 2]), ("none", "none"), ("F2", "F2"), ("\u00b2", "\u00b2"),
    ("\u00b3,5,8", "\u00b3,5,8"), ("1.5", "1.5"), ("", ""), ("0x10", "0x10"),
])
def test_cli_value_types_like_toml(raw, typed):
    assert cli_value(raw) == typed and type(cli_value(raw)) is type(typed)


OPTIONS = [("hand_cap", "3", "3"), ("hand_cap", "0", "0"), ("hand_cap", "\u00b2", '"\u00b2"'),
           ("no_trump", "true", "true"), ("no_trump", "1", "1"),
           ("targets", "9,5,2", "[9, 5, 2]"), ("targets", "9,5", "[9, 5]"),
           ("targets", "\u00b3,5,8", '"\u00b3,5,8"'), ("end_score", "none", '"none"'),
           ("end_score", "21", "21"), ("follow", "F2", '"F2"'), ("follow", "F9", '"F9"'),
           ("deck", "51", "51")]


@pytest.mark.parametrize("option,cli,toml", OPTIONS)
def test_set_and_toml_give_the_same_result(option, cli, toml):
    """``--set k=v`` and ``[rules] k = v`` are checked by the same model: the same rules or
    the same problem."""
    text = ("[rules]\n" f"{option} = {toml}\n" + "".join(
        f'[[bots]]\nname = "{n}"\ncommand = ["{n}"]\n' for n in BOTS))
    try:
        from_toml = parse_config(text, "f.toml").rules_config()
    except ConfigError as exc:
        from_toml = str(exc).split(": ", 2)[2]
    try:
        from_cli = play_config(BOTS, preset="sergeant-major", seed="1", sets=[f"{option}={cli}"],
                               time_ms="1000", grace_ms="250").rules_config()
    except UserError as exc:
        from_cli = str(exc).split(": ", 1)[1]
    assert from_cli == from_toml


@settings(max_examples=200, deadline=None)
@given(seed=st.text(max_size=12), value=st.text(max_size=12), time_ms=st.text(max_size=8))
def test_any_cli_text_is_accepted_or_one_user_error(seed, value, time_ms):
    try:
        cfg = play_config(BOTS, preset="sergeant-major", seed=seed, sets=[f"hand_cap={value}"],
                          time_ms=time_ms, grace_ms="250")
    except UserError as exc:
        assert str(exc) and all(line for line in str(exc).splitlines())
        return
    assert 1 <= cfg.rules_config().hand_cap <= 10_000 and cfg.time.per_decision_ms >= 1
    assert isinstance(cfg.tournament.seed, (int, str))


@pytest.mark.parametrize("args", [["--bogus"], ["bogus"], ["run", "x.toml", "-q"]])
def test_top_level_parser_errors_name_arena_once(capsys, args):
    assert main(args) == 2
    (line,) = error_lines(capsys)
    assert line.startswith("arena: error: ") and "arena: error: arena:" not in line
    assert line.endswith("(see arena --help)")


@pytest.mark.parametrize("args", [
    ["serve", "DIR", "--port", "70000"], ["serve", "DIR", "--port", "-1"],
    ["serve", "DIR", "--port", "\u00b2"], ["league", "serve", "DIR", "--port", "65536"],
])
def test_a_port_out_of_range_is_a_usage_error(capsys, tmp_path, args):
    """``bind()`` raised ``OverflowError: port must be 0-65535`` (a traceback, exit 1)."""
    argv = [str(tmp_path) if a == "DIR" else a for a in args]
    assert main(argv) == 2
    (line,) = error_lines(capsys)
    assert "argument --port: expected a port number 0-65535" in line


@pytest.mark.parametrize("url", ["notaurl", "ftp://x/", "http://", "127.0.0.1:8358"])
def test_submit_refuses_a_url_that_is_not_http(capsys, tmp_path, url):
    """``notaurl`` gave ``ValueError: unknown url type`` (a traceback), ``ftp://x/`` "cannot
    reach" with exit 3: the URL is a usage mistake, refused before the bot is packed."""
    assert main(["submit", url, str(tmp_path), "--token", "X"]) == 2
    (line,) = error_lines(capsys)
    assert "the league's URL must be http://HOST[:PORT]/ or https://HOST[:PORT]/" in line
    assert repr(url) in line


@pytest.mark.parametrize("web", ["\u00b2", "70000", "localhost:-1"])
def test_run_web_port_names_the_range(capsys, tmp_path, web):
    """``--web \u00b2`` passed ``str.isdigit`` and then said ``invalid literal for int()``."""
    pytest.importorskip("starlette")
    out = tmp_path / "out"
    assert main(["run", str(SAMPLE), "--web", web, "--out", str(out)]) == 2
    (line,) = error_lines(capsys)
    assert "--web expects [HOST:]PORT (PORT 0-65535)" in line and not out.exists()
