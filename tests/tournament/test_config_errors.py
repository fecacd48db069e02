"""Bad config files: each gets one clear error line naming the file and field (exit 2)."""

from pathlib import Path

import pytest

from arena.cli import main

GOOD = """
[tournament]
seed = 1
[[bots]]
name = "a"
command = ["x"]
[[bots]]
name = "b"
command = ["x"]
[[bots]]
name = "c"
command = ["x"]
"""

CASES = [
    (GOOD.replace("seed = 1", "seed = 1\nconcurency = 2"),
     "tournament.concurency: unknown field (did you mean 'concurrency'?)"),
    (GOOD.replace("seed = 1", "seed = 1\nhand_cap = 1"),
     "tournament.hand_cap: unknown field (it belongs in [rules])"),
    (GOOD.replace("seed = 1", "seed = 1\nper_decision_ms = 100"),
     "tournament.per_decision_ms: unknown field (it belongs in [time])"),
    (GOOD.replace("seed = 1", 'preset = "bridge"'),
     "tournament.preset: unknown preset 'bridge'; valid presets: sergeant-major"),
    (GOOD + "[rules]\nhand_cap = 0\n",
     "rules.hand_cap: invalid value 0 for rule option 'hand_cap'"),
    (GOOD + "[rules]\ntrumps = true\n", "rules.trumps: unknown rule option 'trumps'"),
    (GOOD + "[rules]\nper_decision_ms = 300\n",
     "rules.per_decision_ms: unknown rule option 'per_decision_ms' (it belongs in [time])"),
    (GOOD + "[rules]\nconcurrency = 2\n",
     "rules.concurrency: unknown rule option 'concurrency' (it belongs in [tournament])"),
    (GOOD.replace('name = "b"', 'name = "a"'), "bot names must be unique (ignoring case); "
     "repeated: a"),
    (GOOD.replace('name = "b"', 'name = "A"'), "repeated: A, a"),
    (GOOD + '[rules]\npreset = "blato"\n',
     "rules.preset: unknown rule option 'preset' (it belongs in [tournament])"),
    (GOOD + '[time]\nmode = "bwrap"\n',
     "time.mode: unknown field (it belongs in [tournament] or [sandbox])"),
    (GOOD.replace("[[bots]]", '[faults]\ncommand = ["x"]\n[[bots]]', 1),
     "faults.command: unknown field (it belongs in [[bots]])"),
    (GOOD + "[rules]\nbase = 1\n", "rules.base: unknown rule option 'base'"),
    (GOOD + "[rules]\ndeck = 52.0\n", "invalid value 52.0 for rule option 'deck'"),
    (GOOD + "[rules]\nhand_cap = 3000000000\n", "an integer from 1 to 10000"),
    (GOOD.replace("seed = 1", "seed = 1.5"), "tournament.seed: expected integer or string"),
    (GOOD.replace("seed = 1", 'concurrency = "2"'), "tournament.concurrency: Input should be"),
    (GOOD.replace('name = "c"\ncommand = ["x"]', 'name = "c"\ncommand = ["x"]\n'
                  'env = { "A=B" = "1" }'), "bots[2].env (bot 'c'): 'A=B' is not an environment"),
    (GOOD.replace('name = "c"', 'name = "c\\u001b[31m"'), "control or bidi characters"),
    (GOOD.replace('name = "c"\ncommand = ["x"]', 'name = "c"\ncommand = ["x"]\ntoken = "t"'),
     "token is only for remote bots"),
    (GOOD + '[[bots]]\nname = "d"\nremote = true\ntoken = "0123456789abcdef"\n'
     '[[bots]]\nname = "e"\nremote = true\ntoken = "0123456789abcdef"\n',
     "each remote bot needs its own token"),
    (GOOD + '[[bots]]\nname = "d"\nremote = true\ntoken = "0123456789abcde"\n',
     "bots[3] (bot 'd'): a remote bot's token must have at least 16 characters (it has 15)"),
    (GOOD.replace("[[bots]]", "[faults]\nmax_crashes = 0\n[[bots]]", 1),
     "faults.max_crashes: Input should be greater than or equal to 1"),
    (GOOD.replace("seed = 1", "seed = 1\ndeals_per_table = 100000") + "".join(
        f'[[bots]]\nname = "x{i}"\ncommand = ["x"]\n' for i in range(3)),
     "the schedule would have 12,000,000 matches"),
    (GOOD.split('[[bots]]\nname = "c"', maxsplit=1)[0],
     "a tournament needs at least 3 bots, got 2"),
    (GOOD + '[[bots]]\nname = "d"\n', "bots[3] (bot 'd'): needs a command"),
    (GOOD + '[[bots]]\nname = "d"\nremote = true\n',
     "bots[3] (bot 'd'): a remote bot needs a token"),
    (GOOD + "[time]\nper_decision_ms = 0\n", "time.per_decision_ms: Input should be greater"),
    (GOOD + '[server]\nbind = "nowhere"\n', "server.bind: expected HOST:PORT"),
    ("[tournament\n", "not valid TOML"),
    (GOOD.replace('command = ["x"]', 'command = "x"', 1), "bots[0].command"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_bad_config_one_line(tmp_path, capsys, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"arena: error: {path}: ") and expected in err
    assert "Traceback" not in err


def test_a_missing_tournament_header_names_tournament(tmp_path, capsys):
    """examples/sample.toml without its ``[tournament]`` line: ``preset`` was said to belong
    in [rules] (which refuses it) and ``seed`` got "did you mean 'server'?"."""
    sample = Path(__file__).parents[2] / "examples" / "sample.toml"
    text = sample.read_text()
    path = tmp_path / "headless.toml"
    path.write_text(text.replace("[tournament]\n", "", 1))
    assert "[tournament]" not in path.read_text()
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
    lines = capsys.readouterr().err.splitlines()
    found = {ln.split(f"{path}: ")[1].split(": ")[0]: ln for ln in lines}
    assert sorted(found) == ["concurrency", "deals_per_table", "name", "preset", "seed"]
    for key, line in found.items():
        assert line.endswith(f"{key}: unknown field (it belongs in [tournament]"
                             + (" or [[bots]])" if key == "name" else ")")), line
    assert "did you mean" not in "\n".join(lines)


def test_missing_config_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: no such file" in capsys.readouterr().err


def test_ratings_on_a_directory_without_results(tmp_path, capsys):
    assert main(["ratings", str(tmp_path)]) == 2
    assert "no tournament results here" in capsys.readouterr().err


MANY = """
[tournament]
seed = 1.5
concurency = 2
[rules]
hand_cap = 0
trumps = true
[time]
per_decision_ms = 0
[[bots]]
nmae = "x"
command = ["x"]
[[bots]]
name = "b"
[[bots]]
name = "b"
command = ["x"]
"""


def test_every_problem_is_listed_one_line_each(tmp_path, capsys):
    """No "(and 1 more problem)": each problem on its own line, file and
    field first, unknown keys always shown, in the file's order."""
    path = tmp_path / "many.toml"
    path.write_text(MANY)
    assert main(["run", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    prefix = f"arena: error: {path}: "
    assert all(line.startswith(prefix) for line in lines)
    assert [line.removeprefix(prefix).split(": ")[0] for line in lines] == [
        "tournament.seed", "tournament.concurency", "rules.hand_cap", "rules.trumps",
        "time.per_decision_ms", "bots[0].name", "bots[0].nmae", "bots[1] (bot 'b')", "bots"]
    text = "\n".join(lines)
    assert "tournament.seed: expected integer or string (got 1.5)" in text
    assert "bots[0].nmae: unknown field (did you mean 'name'?)" in text
    assert "time.per_decision_ms: Input should be greater than or equal to 1 (got 0)" in text
    assert "bots: bot names must be unique (ignoring case); repeated: b" in text
    assert "more problem" not in text


def test_a_typo_beside_a_missing_field_is_shown(tmp_path, capsys):
    path = tmp_path / "typo.toml"
    path.write_text(GOOD + '[[bots]]\nnmae = "d"\ncommand = ["x"]\n')
    assert main(["run", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split(f"{path}: ")[1] for ln in lines] == [
        "bots[3].name: Field required", "bots[3].nmae: unknown field (did you mean 'name'?)"]


def test_rule_options_that_need_each_other_are_not_reported_alone(tmp_path, capsys):
    path = tmp_path / "ok.toml"
    path.write_text(GOOD + '[rules]\ndeck = 51\ndeal_pattern = "singles"\n'
                    'declarer_view = "hand"\ntargets = [8, 6, 3]\n')
    from arena.tournament.config import load_config
    assert load_config(path).rules_config().deck == 51
    path.write_text(GOOD + '[rules]\ndeck = 51\ntargets = [8, 6, 3]\n')
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: rules: a 51-card deck is dealt singly" in err


@pytest.mark.parametrize("name", ["c\\u0085d", "c\\u200b", "c\\u2028d", "\\u2066c"])
def test_names_the_store_would_refuse_are_refused_here(tmp_path, capsys, name):
    path = tmp_path / "n.toml"
    path.write_text(GOOD.replace('name = "c"', f'name = "{name}"'))
    assert main(["run", str(path)]) == 2
    assert "control or bidi characters" in capsys.readouterr().err


def test_relative_paths_of_a_config_file_are_read_from_its_directory(tmp_path, monkeypatch):
    from arena.tournament.config import load_config
    league = tmp_path / "league"
    (league / "bots" / "a").mkdir(parents=True)
    (league / "pem").mkdir()
    for name in ("cert.pem", "key.pem"):
        (league / "pem" / name).write_text("x")
    text = GOOD.replace('name = "a"\ncommand = ["x"]',
                        'name = "a"\ncommand = ["x", "rel/arg"]\ncwd = "bots/a"')
    (league / "t.toml").write_text(text + '[server]\ntls_cert = "pem/cert.pem"\n'
                                   f'tls_key = "{league}/pem/key.pem"\n')
    monkeypatch.chdir(tmp_path)
    cfg = load_config("league/t.toml")
    assert cfg.server.tls_cert == str(league / "pem" / "cert.pem")
    assert cfg.server.tls_key == str(league / "pem" / "key.pem")       # absolute: as it is
    a, b = cfg.bots[:2]
    assert a.cwd == str(league / "bots" / "a") and b.cwd is None   # no cwd: where arena runs
    assert a.command == ["x", "rel/arg"]           # the bot's own arguments: its business
    # with [cluster] working_dir, a bot's cwd is inside the shipped copy: as written
    from arena.tournament.config import with_base
    data = with_base({"cluster": {"working_dir": "bots"}, "bots": [{"cwd": "a"}]}, league)
    assert data == {"cluster": {"working_dir": str(league / "bots")}, "bots": [{"cwd": "a"}]}
    monkeypatch.chdir(league)
    assert load_config("t.toml").bots[0].cwd == str(league / "bots" / "a")
