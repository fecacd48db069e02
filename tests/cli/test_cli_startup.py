"""What the CLI costs before it does anything, and its did-you-mean for misspelt names.

``arena --help`` (and every ``arena COMMAND --help``) must not import the numerical or
protocol libraries: numpy/scipy alone cost 1.5-2 s of CPU per command on a busy machine.
The check reads ``sys.modules`` in a fresh interpreter (never a timing).
"""

import json
import subprocess
import sys
import textwrap

import pytest

from arena.cli import COMMAND_MODULES, main

HEAVY = ("numpy", "scipy", "pydantic", "grpc", "tabulate", "jinja2")


def _modules_after(code: str) -> set[str]:
    probe = textwrap.dedent(code) + textwrap.dedent("""
        import json, sys
        sys.__stdout__.write(json.dumps(sorted(sys.modules)))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_help_imports_no_heavy_library():
    names = [m.rsplit(".", 1)[1].replace("_", "-") for m in COMMAND_MODULES]
    loaded = _modules_after(f"""
        import contextlib, io
        import arena.cli
        with contextlib.redirect_stdout(io.StringIO()):
            assert arena.cli.main(["--help"]) == 0
            for name in {names!r}:
                assert arena.cli.main([name, "--help"]) == 0, name
    """)
    assert "arena.commands.run" in loaded and "arena.commands.check_bot" in loaded
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []


def test_ratings_bootstrap_default_is_the_ratings_modules(capsys):
    from arena.commands.ratings import BOOTSTRAP_DEFAULT
    from arena.ratings import DEFAULT_BOOTSTRAP
    assert BOOTSTRAP_DEFAULT == DEFAULT_BOOTSTRAP
    assert main(["ratings", "--help"]) == 0
    assert f"default {DEFAULT_BOOTSTRAP}" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "hint"), [
    (["rnu", "x.toml"], "invalid choice: 'rnu' (did you mean 'run'?)"),
    (["presets", "sergent-major"],
     "unknown preset 'sergent-major' (did you mean 'sergeant-major'?)"),
    (["bench", "engine", "--preset", "blatto"], "unknown preset 'blatto' (did you mean 'blato'?)"),
    (["play", "a", "b", "c", "--preset", "six-contract"],
     "--preset: unknown preset 'six-contract' (did you mean 'six-contracts'?)"),
    (["play", "a", "b", "c", "--set", "hand_capp=3"],
     "--set hand_capp: unknown rule option 'hand_capp' (did you mean 'hand_cap'?)"),
    (["ratings", "DIR", "--format", "jsn"], "invalid choice: 'jsn' (did you mean 'json'?)"),
])
def test_misspelt_names_get_the_closest_one(capsys, argv, hint):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert hint in err and err.count("\n") == 1 and err.startswith("arena: error: ")


def test_a_name_far_from_every_choice_gets_the_list_only(capsys):
    assert main(["presets", "whist"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and "valid presets: sergeant-major, nine-five-two" in err


def test_config_file_misspellings_get_the_closest_name(tmp_path, capsys):
    from tests.tournament.helpers import config_text
    cfg = tmp_path / "t.toml"
    cfg.write_text(config_text(None, tag="x").replace(
        "[tournament]\n", '[tournament]\npreset = "sergent-major"\n').replace(
        "[rules]\n", "[rules]\nhand_capp = 3\n"))
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"arena: error: {cfg}: tournament.preset: unknown preset 'sergent-major' (did you " \
           "mean 'sergeant-major'?); valid presets: sergeant-major, nine-five-two, " \
           "six-three-eight, six-contracts, blato" in err
    assert f"arena: error: {cfg}: rules.hand_capp: unknown rule option 'hand_capp' (did you " \
           "mean 'hand_cap'?)" in err
