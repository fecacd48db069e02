"""Tournament configuration (TOML), validated with pydantic.

Example (see ``examples/sample.toml``)::

    [tournament]
    preset = "sergeant-major"       # RULES.md section 5
    seed = 1
    deals_per_table = 2             # each deal is played in all 6 seatings (a duplicate block)
    concurrency = 2                 # matches played at once

    [rules]                         # option overrides, e.g. hand_cap = 10, no_trump = true
    [time]
    per_decision_ms = 500           # time allowed per decision
    grace_ms = 250                  # margin before an answer is late
    bank_ms = 0                     # optional per-match time bank (0 = none)
    [faults]
    max_faults = 3                  # faults in one match before a forfeit
    max_crashes = 3                 # crashes before a bot is disqualified
    register_timeout_s = 20
    [server]
    bind = "127.0.0.1:0"            # port 0 = ephemeral
    [sandbox]                       # see arena/sandbox/config.py
    mode = "bwrap"                  # default; "none" runs bots unisolated (trusted bots)

    [[bots]]
    name = "random"
    command = ["{python}", "-m", "sample_bots.random_bot"]   # {python} = this interpreter
    [[bots]]
    name = "visitor"
    remote = true                   # joins by itself with this token
    token = "s3cret"

Errors are reported as ``FILE: field.path: problem`` (:class:`ConfigError`), never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import math
import re

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr,
                      ValidationError, field_validator, model_validator)

from ..errors import UserError
from ..rules import RulesConfig, RulesConfigError, config_from_options
from ..rules.config import PRESETS
from ..sandbox.config import INSTALL_HINT, BotSandbox, SandboxConfig, bwrap_path, effective


class ConfigError(UserError):
    """A tournament config file is unreadable or invalid; the message names file and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: the largest schedule a config may ask for (matches)
MAX_MATCHES = 1_000_000
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _printable(text: str, what: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 or 0x202A <= ord(ch) <= 0x202E
           or 0x2066 <= ord(ch) <= 0x2069 for ch in text):
        raise ValueError(f"{what} must not contain control or bidi characters")
    return text


class TournamentSection(_Strict):
    name: StrictStr = "tournament"
    preset: StrictStr = "sergeant-major"
    seed: StrictInt | StrictStr = 1
    deals_per_table: StrictInt = Field(1, ge=1, le=100_000)
    concurrency: StrictInt = Field(1, ge=1, le=64)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, v: str) -> str:
        if v not in PRESETS:
            raise ValueError(f"unknown preset {v!r}; valid presets: {', '.join(PRESETS)}")
        return v


class TimeSection(_Strict):
    per_decision_ms: StrictInt = Field(1000, ge=1, le=3_600_000)
    grace_ms: StrictInt = Field(250, ge=0, le=600_000)
    bank_ms: StrictInt = Field(0, ge=0, le=36_000_000)


class FaultSection(_Strict):
    max_faults: StrictInt = Field(3, ge=1, le=100_000)
    max_crashes: StrictInt = Field(3, ge=0, le=100_000)
    register_timeout_s: StrictInt | StrictFloat = Field(20.0, gt=0, le=3600)


class ServerSection(_Strict):
    bind: StrictStr = "127.0.0.1:0"

    @field_validator("bind")
    @classmethod
    def _host_port(cls, v: str) -> str:
        host, sep, port = v.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"expected HOST:PORT such as 127.0.0.1:0, got {v!r}")
        return v


class BotEntry(_Strict):
    name: StrictStr = Field(min_length=1, max_length=64)
    command: list[StrictStr] | None = None
    env: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    cwd: StrictStr | None = None
    remote: StrictBool = False
    token: StrictStr | None = None
    sandbox: BotSandbox | None = None      # this bot's [sandbox] overrides (arena/sandbox)

    @field_validator("name")
    @classmethod
    def _clean_name(cls, v: str) -> str:
        if v != v.strip() or not v.strip():
            raise ValueError("a bot name must not be blank or start/end with spaces")
        return _printable(v, "a bot name")

    @field_validator("env")
    @classmethod
    def _env_names(cls, v: dict[str, str]) -> dict[str, str]:
        for key, val in v.items():
            if not _ENV_NAME.match(key):
                raise ValueError(f"{key!r} is not an environment variable name")
            if "\0" in val:
                raise ValueError(f"the value of {key} contains a NUL character")
        return v

    @model_validator(mode="after")
    def _command_or_remote(self) -> BotEntry:
        if any("\0" in a for a in (self.command or [])) or "\0" in (self.cwd or ""):
            raise ValueError("the command or cwd contains a NUL character")
        if self.remote:
            if self.command:
                raise ValueError("a remote bot has a token, not a command")
            if not self.token:
                raise ValueError("a remote bot needs a token")
            if self.sandbox is not None:
                raise ValueError("a remote bot is not started by the arena: no sandbox")
        elif not self.command:
            raise ValueError("needs a command (an argument list) or remote = true with a token")
        elif self.token is not None:
            raise ValueError("token is only for remote bots (started bots get a fresh one)")
        return self


class TournamentConfig(_Strict):
    """The whole validated file. ``rules`` holds rule-option overrides for the preset."""

    tournament: TournamentSection = TournamentSection()
    rules: dict[str, Any] = Field(default_factory=dict)
    time: TimeSection = TimeSection()
    faults: FaultSection = FaultSection()
    server: ServerSection = ServerSection()
    sandbox: SandboxConfig = SandboxConfig()
    bots: list[BotEntry]

    @model_validator(mode="after")
    def _check(self) -> TournamentConfig:
        names = [b.name for b in self.bots]
        if len(names) < 3:
            raise ValueError(f"a tournament needs at least 3 bots, got {len(names)}")
        folded = [n.casefold() for n in names]
        dup = sorted({n for n in names if folded.count(n.casefold()) > 1})
        if dup:
            raise ValueError(f"bot names must be unique (ignoring case); repeated: "
                             f"{', '.join(dup)}")
        tokens = [b.token for b in self.bots if b.remote]
        if len(set(tokens)) != len(tokens):
            raise ValueError("each remote bot needs its own token")
        n = len(names)
        matches = n * (n - 1) * (n - 2) // 6 * self.tournament.deals_per_table * 6
        if matches > MAX_MATCHES:
            raise ValueError(f"the schedule would have {matches:,} matches (more than "
                             f"{MAX_MATCHES:,}); use fewer bots or deals_per_table")
        try:
            self.rules_config()
        except RulesConfigError as exc:
            raise ValueError(f"[rules] {exc}") from None
        boxed = [b.name for b in self.bots if not b.remote
                 and effective(self.sandbox, b.sandbox).mode == "bwrap"]
        if boxed and bwrap_path() is None:
            raise ValueError(f'sandbox mode "bwrap" (bots: {", ".join(boxed)}) needs '
                             f"bubblewrap, which is not installed: {INSTALL_HINT}")
        return self

    def rules_config(self) -> RulesConfig:
        """The match rules: the preset plus ``[rules]`` overrides.

        Raises:
            RulesConfigError: unknown or invalid option.
        """
        return config_from_options(self.tournament.preset, self.rules)

    def fingerprint(self) -> str:
        """SHA-256 of what determines the schedule and the games (not concurrency, binding or
        bot commands), so a rerun on the same output directory can check it is the same
        tournament."""
        core = {"preset": self.tournament.preset, "seed": self.tournament.seed,
                "deals_per_table": self.tournament.deals_per_table,
                "rules": self.rules_config().options(), "bots": [b.name for b in self.bots],
                "time": self.time.model_dump(), "max_faults": self.faults.max_faults}
        return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


_UNION_TAGS = {"int", "str", "float", "bool", "list[str]", "dict[str,str]", "function-after"}


def _loc(loc: tuple[Any, ...], data: dict[str, Any]) -> str:
    parts = []
    for p in loc:
        if isinstance(p, str) and (p in _UNION_TAGS or p.startswith("function-")):
            continue  # pydantic's tag for one branch of a union type
        if isinstance(p, int):
            parts[-1:] = [f"{parts[-1] if parts else ''}[{p}]"]
        else:
            parts.append(str(p))
    text = ".".join(parts)
    # name a bot by its name where the file gives one
    if len(loc) >= 2 and loc[0] == "bots" and isinstance(loc[1], int):
        bots = data.get("bots") or []
        if loc[1] < len(bots) and isinstance(bots[loc[1]], dict) and "name" in bots[loc[1]]:
            text += f" (bot {bots[loc[1]]['name']!r})"
    return text


def parse_config(text: str, source: str = "<config>") -> TournamentConfig:
    """Parse and validate TOML text.

    Raises:
        ConfigError: ``"SOURCE: field: problem"`` for the first problem (and how many more).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        bom = " (the file starts with a byte-order mark; save it as UTF-8 without BOM)" \
            if text.startswith("\ufeff") else ""
        raise ConfigError(f"{source}: not valid TOML: {exc}{bom}") from None
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        errs = exc.errors()
        first = errs[0]
        where = _loc(tuple(first["loc"]), data)
        msg = first["msg"].removeprefix("Value error, ")
        same_field = [e for e in errs if _loc(tuple(e["loc"]), data) == where]
        if len(same_field) > 1:  # a union type: every branch failed
            msg = "expected " + " or ".join(
                e["msg"].removeprefix("Input should be ").removeprefix("a valid ")
                for e in same_field)
            errs = [e for e in errs if e not in same_field[1:]]
        if first["type"] == "extra_forbidden":
            msg = "unknown field (check the spelling)"
        more = f" (and {len(errs) - 1} more problem{'s' if len(errs) > 2 else ''})" if len(errs) > 1 else ""
        raise ConfigError(f"{source}: {where + ': ' if where else ''}{msg}{more}") from None


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a TOML config file.

    Raises:
        ConfigError: missing/unreadable file, bad TOML, or invalid content (names the file).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read: {exc}") from None
    return parse_config(text, str(p))
