"""Bad config files: each gets one clear error line naming the file and field (exit 2)."""

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
     "tournament.concurency: unknown field"),
    (GOOD.replace("seed = 1", 'preset = "bridge"'),
     "tournament.preset: unknown preset 'bridge'; valid presets: sergeant-major"),
    (GOOD + "[rules]\nhand_cap = 0\n", "[rules] invalid value 0 for rule option 'hand_cap'"),
    (GOOD + "[rules]\ntrumps = true\n", "[rules] unknown rule option 'trumps'"),
    (GOOD.replace('name = "b"', 'name = "a"'), "bot names must be unique (ignoring case); "
     "repeated: a"),
    (GOOD.replace('name = "b"', 'name = "A"'), "repeated: A, a"),
    (GOOD + '[rules]\npreset = "blato"\n', "[rules] unknown rule option 'preset' (the preset"),
    (GOOD + "[rules]\nbase = 1\n", "[rules] unknown rule option 'base'"),
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
    (GOOD.split('[[bots]]\nname = "c"')[0], "a tournament needs at least 3 bots, got 2"),
    (GOOD + '[[bots]]\nname = "d"\n', "bots[3] (bot 'd'): needs a command"),
    (GOOD + '[[bots]]\nname = "d"\nremote = true\n', "bots[3] (bot 'd'): a remote bot needs a token"),
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


def test_missing_config_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: no such file" in capsys.readouterr().err


def test_ratings_on_a_directory_without_results(tmp_path, capsys):
    assert main(["ratings", str(tmp_path)]) == 2
    assert "no tournament results here" in capsys.readouterr().err
