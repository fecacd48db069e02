"""The SDK's command line: bad arguments are one-line usage errors (exit status 2)."""

from __future__ import annotations

import pytest

from arena.sdk.client import _parse_args
from sample_bots.random_bot import RandomBot


@pytest.mark.parametrize("argv,message", [
    (["--token", "t"], "the arena address is required"),
    (["--arena", "127.0.0.1:1"], "the token is required"),
    (["--arena", "127.0.0.1:1", "--token", "\udcff"], "--token must be text (UTF-8)"),
    (["--arena", "127.0.0.1:1", "--token", "t", "--name", "x\udce9"], "--name must be text"),
    (["--arena", "127.0.0.1:1", "--token", "t", "--connect-timeout", "nan"],
     "--connect-timeout must be"),
    # a bot's own option, not parsed by the bot before run(): the way to do it is named
    (["--arena", "127.0.0.1:1", "--token", "t", "--depth", "3"],
     "unrecognized arguments: --depth 3 (a bot's own options: parse them first with "
     "parse_known_args() and pass the rest, run(player, argv=rest)"),
])
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("ARENA_ADDRESS", raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exc:
        _parse_args(RandomBot(), argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_good_arguments() -> None:
    args = _parse_args(RandomBot(), ["--arena", "h:1", "--token", "t", "--name", "été"])
    assert (args.arena, args.token, args.name, args.connect_timeout) == ("h:1", "t", "été", 10.0)
