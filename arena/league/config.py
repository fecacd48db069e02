"""``league.toml``: a league's settings, as a tournament config without ``[[bots]]`` (the bots
come from submissions) plus a ``[league]`` section.

::

    [tournament]
    name = "my league"
    preset = "sergeant-major"
    seed = 1                      # deals: HMAC(the league's secret deal key, seed, table, deal)
    concurrency = 2               # matches at once

    [rules] / [time] / [faults] / [server] / [sandbox] / [cluster]   # as for `arena run`

    [league]
    max_upload_mib = 20           # a submission's archive, compressed
    max_unpacked_mib = 100        # ... and unpacked
    max_files = 5000              # ... entries in it
    submissions_per_day = 10      # per participant (rejected ones count)
    bots_per_participant = 3      # distinct bot names a participant may have active
    versions_kept = 1             # newest versions of each bot that stay active (older retire)
    first_blocks = 5              # blocks a new version plays before it joins the fill
    check_presets = []            # presets check-bot runs a submission through (default: the
                                  # league's)
    check_timeout_s = 300         # a check's time, s

``arena league init DIR --config league.toml`` copies it into ``DIR/league.toml``, where
``arena league serve`` reads it. Errors are one line each, ``FILE: field: problem``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import (BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError,
                      field_validator)

from ..errors import UserError
from ..rules.config import PRESETS
from ..sandbox import SandboxConfig
from ..tournament.config import (ClusterSection, FaultSection, ServerSection, TimeSection,
                                 TournamentConfig, TournamentSection, read_config_text)
from ..tournament.problems import field_problems


class LeagueConfigError(UserError):
    """A ``league.toml`` that cannot be used (one line per problem)."""


class LeagueSection(BaseModel):
    """``[league]`` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_upload_mib: StrictInt = Field(default=20, ge=1, le=1024)
    max_unpacked_mib: StrictInt = Field(default=100, ge=1, le=10_240)
    max_files: StrictInt = Field(default=5000, ge=1, le=1_000_000)
    submissions_per_day: StrictInt = Field(default=10, ge=1, le=10_000)
    bots_per_participant: StrictInt = Field(default=3, ge=1, le=1000)
    versions_kept: StrictInt = Field(default=1, ge=1, le=100)
    first_blocks: StrictInt = Field(default=5, ge=0, le=10_000)
    check_presets: list[StrictStr] = Field(default_factory=list)
    check_timeout_s: StrictInt = Field(default=300, ge=10, le=86_400)

    @field_validator("check_presets")
    @classmethod
    def _presets(cls, v: list[str]) -> list[str]:
        for p in v:
            if p not in PRESETS:
                raise ValueError(f"unknown preset {p!r} (presets: {', '.join(PRESETS)})")
        return v


class LeagueConfig(BaseModel):
    """A validated ``league.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tournament: TournamentSection = TournamentSection()
    rules: dict[str, Any] = Field(default_factory=dict)
    time: TimeSection = TimeSection()
    faults: FaultSection = FaultSection()
    server: ServerSection = ServerSection()
    cluster: ClusterSection = ClusterSection()
    sandbox: SandboxConfig = Field(default_factory=lambda: SandboxConfig.model_validate({}))
    league: LeagueSection = LeagueSection()

    def presets(self) -> list[str]:
        """The presets a submission is checked on."""
        return list(self.league.check_presets) or [self.tournament.preset]

    def tournament_config(self, bots: list[dict[str, Any]]) -> TournamentConfig:
        """The tournament config of one roster (``bots``: ``[[bots]]`` entries as dicts).

        Raises:
            ValueError: the roster is not a valid one (fewer than 3 bots, a bad entry).
        """
        data = self.model_dump(exclude={"league"})
        data["bots"] = bots
        return TournamentConfig.model_validate(data)


def parse_league_config(text: str, source: str = "league.toml") -> LeagueConfig:
    """Validate ``league.toml`` text.

    Raises:
        LeagueConfigError: bad TOML or invalid content (every problem, one line each).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{source}: not valid TOML: {exc}") from None
    if "bots" in data:
        raise LeagueConfigError(f"{source}: bots: a league's bots come from submissions "
                                "(arena submit), not from [[bots]]")
    try:
        cfg = LeagueConfig.model_validate(data)
    except ValidationError as exc:
        raise LeagueConfigError("\n".join(
            f"{source}: {where + ': ' if where else ''}{msg}"
            for where, msg in field_problems(exc, data, LeagueConfig))) from None
    try:   # the rules and the rest, as a tournament of three placeholder bots would have them
        cfg.tournament_config([{"name": f"check-{i}", "command": ["true"]} for i in range(3)])
    except ValidationError as exc:
        raise LeagueConfigError("\n".join(
            f"{source}: {err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors())) from None
    except UserError as exc:
        raise LeagueConfigError(f"{source}: {exc}") from None
    return cfg


def load_league_config(path: Path) -> LeagueConfig:
    """Read and validate a ``league.toml`` file.

    Raises:
        LeagueConfigError: missing or unreadable file, or invalid content.
    """
    return parse_league_config(read_config_text(path, LeagueConfigError), str(path))
