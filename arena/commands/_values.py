"""Values typed on the command line, read by one validated path.

A command-line value is text. :func:`cli_value` gives it the type a TOML file would (``true``
/ ``false``, an integer written with the ASCII digits 0-9, a comma-separated list of such
integers, otherwise the text itself: ``str.isdigit`` is never used, since it accepts ``²``
that ``int`` rejects); the typed values then go through the same pydantic model as a
tournament config (:func:`play_config`), so ``--set hand_cap=²`` and ``hand_cap = "²"`` in a
file get the same check and the same message. Integer options of the other commands use
:func:`cli_int`. Every mistake is an ``arena: error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import UserError

if TYPE_CHECKING:
    from ..tournament.config import TournamentConfig

#: an integer as the CLI accepts it: ASCII digits, optional sign (Python's int() limit)
_INT = re.compile(r"[+-]?[0-9]{1,4000}")
_FLAGS = {"tournament.preset": "--preset", "tournament.seed": "--seed",
          "time.per_decision_ms": "--time-ms", "time.grace_ms": "--grace-ms",
          "rules": "--set", "bots": "bot commands", "sandbox.mode": "--sandbox",
          "sandbox": "--limit"}
#: the options ``arena play`` takes as flags of its own, by field name (``seed``: ``--seed``;
#: ``sandbox``, the section's own name, for its mode)
_OWN_FLAGS = {**{where.partition(".")[2]: flag for where, flag in _FLAGS.items() if "." in where},
              "sandbox": _FLAGS["sandbox.mode"]}


def cli_scalar(raw: str) -> int | str:
    """An integer when ``raw`` is one written with ASCII digits, else the text."""
    return int(raw) if _INT.fullmatch(raw) else raw


def cli_value(raw: str) -> bool | int | list[int] | str:
    """``raw`` typed as in a TOML file: ``true``/``false`` (any case), an integer, a list of
    integers (``9,5,2``), otherwise the text (``none``, ``F2``, ``²``, ``³,5,8``)."""
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if _INT.fullmatch(raw):
        return int(raw)
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) > 1 and all(_INT.fullmatch(p) for p in parts):
        return [int(p) for p in parts]
    return raw


def cli_int(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for an integer option in ``[low, high]`` (ASCII digits only)."""
    def parse(raw: str) -> int:
        if not _INT.fullmatch(raw.strip()):
            raise argparse.ArgumentTypeError(f"expected an integer (digits 0-9), got {raw!r}")
        value = int(raw)
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {span}, got {value}")
        return value
    parse.__name__ = "integer"   # argparse names the type in its messages
    return parse


#: the TCP port numbers a socket can bind (0: any free one)
PORTS = range(0, 65536)


def _port(text: str) -> int | None:
    """``text`` as a port number (ASCII digits, 0-65535), or None."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 5 or int(text) not in PORTS:
        return None
    return int(text)


def cli_port(raw: str) -> int:
    """An argparse ``type`` for ``--port``: an integer 0-65535 (ASCII digits), checked as
    ``arena run --web [HOST:]PORT`` checks its port (:func:`parse_web_address`); ``bind()``
    would raise OverflowError.

    Raises:
        argparse.ArgumentTypeError: not such a number (argparse: exit status 2).
    """
    port = _port(raw)
    if port is None:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {raw!r}")
    return port


def parse_web_address(text: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``[HOST:]PORT`` (IPv6 hosts in brackets) -> (host, port).

    Raises:
        ValueError: not a port number 0..65535.
    """
    host, sep, raw = text.rpartition(":")
    host = host.strip("[]") if sep else default_host
    port = _port(raw)
    if port is None:
        raise ValueError(f"--web expects [HOST:]PORT (PORT 0-65535), e.g. 8358 or 0.0.0.0:8358; "
                         f"got {text!r}")
    return host or default_host, port


def parse_sets(items: Sequence[str], flag: str = "--set"
               ) -> dict[str, bool | int | list[int] | str]:
    """``["hand_cap=3", "no_trump=true", "targets=9,5,2"]`` -> typed option values
    (``flag``: the option named in errors).

    Raises:
        UserError: an item without ``=`` or with an empty name.
    """
    out: dict[str, bool | int | list[int] | str] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{flag} expects OPTION=VALUE, got {item!r}")
        out[key.strip()] = cli_value(raw.strip())
    return out


def _flag(where: str) -> str:
    if where.startswith("rules."):
        return f"--set {where.removeprefix('rules.')}"
    if where.startswith("sandbox.") and where != "sandbox.mode":
        return f"--limit {where.removeprefix('sandbox.')}"
    if where.startswith("bots["):
        index = int(where[5:where.index("]")])
        return f"bot command {index + 1}"
    return _FLAGS.get(where, where)


def play_config(commands: Sequence[str], *, preset: str, seed: str, sets: Sequence[str],
                time_ms: str, grace_ms: str, sandbox: str | None = None,
                limits: Sequence[str] = ()) -> TournamentConfig:
    """The options of ``arena play`` validated by the tournament config model.

    Args:
        commands: the shell-quoted bot commands (their names come from
            :func:`arena.tournament.play.bot_names`).
        preset, seed, sets, time_ms, grace_ms: the option texts as typed.
        sandbox: ``--sandbox`` (the ``[sandbox] mode``; None: the config's default).
        limits: ``--limit KEY=VALUE`` texts (the other ``[sandbox]`` fields).

    Raises:
        UserError: one line per problem, naming the flag (``--set hand_cap: ...``).
    """
    from ..sandbox.config import SandboxConfig
    from ..tournament.play import bot_names
    argvs = [_argv(c) for c in commands]       # bad quoting first: names need the words
    rules = parse_sets(sets)
    for key in rules:                          # play's own flags, not rule options
        flag = _OWN_FLAGS.get(key) or (
            f"{_FLAGS['sandbox']} {key}=..." if key in SandboxConfig.model_fields else None)
        if flag is not None:
            raise UserError(f"--set {key}: not a rule option; arena play takes it as {flag}")
    names = bot_names(commands)
    data = {
        "tournament": {"preset": preset, "seed": cli_scalar(seed)},
        "rules": rules,
        "time": {"per_decision_ms": cli_scalar(time_ms), "grace_ms": cli_scalar(grace_ms)},
        "bots": [{"name": n, "command": a} for n, a in zip(names, argvs, strict=True)],
        "sandbox": {**({"mode": sandbox} if sandbox is not None else {}),
                    **sandbox_fields(limits)},
    }
    from ..tournament.config import config_problems   # pydantic: not at `arena --help`
    cfg, problems = config_problems(data, rename=_flag)
    if cfg is None:
        raise UserError("\n".join(f"{where}: {msg}" for where, msg in problems))
    return cfg


def sandbox_fields(items: Sequence[str]) -> dict[str, object]:
    """``--limit`` texts -> ``[sandbox]`` fields (``ro_paths=/a,/b``: a list of paths)."""
    out: dict[str, object] = dict(parse_sets(
        [i for i in items if not i.strip().startswith("ro_paths=")], flag="--limit"))
    for item in items:
        if item.strip().startswith("ro_paths="):
            out["ro_paths"] = [p for p in item.partition("=")[2].split(",") if p]
    return out


def _argv(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UserError(f"bot command {command!r}: {exc}") from None
    if not argv:
        raise UserError("an empty bot command")
    return argv
