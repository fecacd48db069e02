"""Tournament configuration (TOML), validated with pydantic.

Example (see ``examples/sample.toml``)::

    [tournament]
    preset = "sergeant-major"       # RULES.md section 5
    seed = 1
    deals_per_table = 2             # each deal is played in all 6 seatings (a duplicate block)
    concurrency = 2                 # matches played at once
    schedule = "all-tables"         # or "balanced": every pair meets pair_meetings times;
                                    # or "adaptive": as many blocks as "balanced", chosen
                                    # where they inform most (arena/tournament/adaptive.py)
    pair_meetings = 1               # balanced and adaptive only
    target = "top"                  # adaptive only: "top" (order of the best 3), "widest"
    mode = "round-robin"            # or "gauntlet": arena run plays the [gauntlet] section

    [rules]                         # option overrides, e.g. hand_cap = 10, no_trump = true
    [time]
    per_decision_ms = 500           # time allowed per decision
    grace_ms = 250                  # margin before an answer is late
    bank_ms = 0                     # optional per-match time bank (0 = none)
    [faults]
    max_faults = 3                  # a bot forfeits a match at its 3rd fault in it
    max_crashes = 3                 # a bot is disqualified at its 3rd crash / failed start
    register_timeout_s = 20         # to connect after a start; remote bots: wait per match
    # ([tournament] start_after = 600: wait up to 10 minutes for every remote bot first)
    [server]
    bind = "127.0.0.1:0"            # port 0 = ephemeral
    tls_cert = "server.pem"         # optional: serve TLS (PEM chain + key; both or neither)
    tls_key = "server.key"
    client_ca = "clients-ca.pem"    # optional: require client certificates (mutual TLS)
    tls_ca = "ca.pem"               # accepted, no effect: started bots use the Unix socket
    [cluster]                       # where matches run (docs: README "Ray cluster")
    backend = "local"               # or "ray" (needs the extra: pip install 'arena358[ray]')
    [sandbox]                       # see arena/sandbox/config.py
    mode = "bwrap"                  # default; "none" runs bots unisolated (trusted bots)

    [[bots]]
    name = "random"
    command = ["{python}", "-m", "sample_bots.random_bot"]   # {python} = this interpreter
    [[bots]]
    name = "visitor"
    remote = true                   # joins by itself with this token (16 characters or more)
    token = "a-long-random-secret"

Errors are reported as ``FILE: field.path: problem`` (:class:`ConfigError`), one line per
problem and every problem at once (:mod:`arena.tournament.problems`), never a traceback.

Relative paths in a config file (the ``[server]`` TLS files, ``[cluster] working_dir``, a bot's
``cwd``) are read from the file's directory, wherever ``arena`` runs (:func:`load_config`;
:data:`RELATIVE_PATHS`). A bot without ``cwd`` starts in the directory ``arena`` runs in, and
the relative paths of its command are its own (read from its working directory). With
``[cluster] working_dir`` a bot's ``cwd`` is a directory inside that shipped copy and is left
as written.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, StrictFloat,
                      StrictInt, StrictStr, ValidationError, field_validator, model_validator)

from ..errors import UserError
from ..rules import RulesConfig, config_from_options
from ..rules.config import PRESETS
from ..safetext import printable
from ..wording import unknown_choice
from ..sandbox.config import BotSandbox, SandboxConfig
from .problems import MAX_MATCHES, Problem, cross_problems, field_problems

if TYPE_CHECKING:
    from ..protocol.tls import TlsConfig


class ConfigError(UserError):
    """A tournament config file is unreadable or invalid; the message names file and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: shortest token of a remote bot (characters)
MIN_TOKEN_LENGTH = 16
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _printable(text: str, what: str) -> str:
    """``text`` unless it holds a character :func:`arena.safetext.printable` would escape
    (control, format such as bidi overrides, line separators); the store checks the same."""
    if printable(text) != text:
        raise ValueError(f"{what} must not contain control or bidi characters")
    return text


class TournamentSection(_Strict):
    name: StrictStr = "tournament"
    preset: StrictStr = "sergeant-major"
    seed: StrictInt | StrictStr = 1
    deals_per_table: StrictInt = Field(default=1, ge=1, le=100_000)
    concurrency: StrictInt = Field(default=1, ge=1, le=64)
    schedule: Literal["all-tables", "balanced", "adaptive"] = "all-tables"
    pair_meetings: StrictInt = Field(default=1, ge=1, le=1000)
    #: what an adaptive schedule spends its blocks on (:func:`arena.ratings.adaptive.next_tables`)
    target: Literal["top", "widest"] = "top"
    #: what ``arena run`` plays: the round-robin of ``schedule``, or the SPRT gauntlet of the
    #: ``[gauntlet]`` section (as ``arena gauntlet``)
    mode: Literal["round-robin", "gauntlet"] = "round-robin"
    #: the lobby: seconds ``arena run`` waits, before its first match, for every remote bot
    #: with a match to play to connect (None: ``[faults] register_timeout_s``; ``arena run
    #: --wait-remote`` overrides it); see :mod:`.lobby`
    start_after: StrictInt | StrictFloat | None = Field(default=None, ge=0, le=7 * 86_400)

    @model_validator(mode="after")
    def _meetings_need_balanced(self) -> TournamentSection:
        # by value, not by fields set: a config rebuilt from model_dump (with_cluster) sets all
        if self.pair_meetings != 1 and self.schedule not in ("balanced", "adaptive"):
            raise ValueError('pair_meetings applies only to schedule = "balanced" or '
                             '"adaptive"')
        if self.target != "top" and self.schedule != "adaptive":
            raise ValueError('target applies only to schedule = "adaptive"')
        return self

    def table_count(self, n_bots: int) -> int:
        """Tables of the schedule for ``n_bots`` bots (see :mod:`.schedule`; an adaptive
        schedule plays as many blocks as a balanced one, :mod:`.adaptive`)."""
        if self.schedule == "all-tables":
            return n_bots * (n_bots - 1) * (n_bots - 2) // 6
        from .balanced import covering_size
        return self.pair_meetings * covering_size(n_bots)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, v: str) -> str:
        if v not in PRESETS:
            raise ValueError(unknown_choice("preset", v, PRESETS))
        return v

    @field_validator("seed")
    @classmethod
    def _seed_text(cls, v: int | str) -> int | str:
        if isinstance(v, str):
            _printable(v, "a seed")
            digits = v.strip().lstrip("+-")
            if digits and all(ch.isdigit() or ch.isdecimal() for ch in digits) \
                    and not digits.isascii():
                raise ValueError(f"{v!r} is not a number written with the digits 0-9; "
                                 "a seed is an integer or a text")
        return v


class TimeSection(_Strict):
    per_decision_ms: StrictInt = Field(default=1000, ge=1, le=3_600_000)
    grace_ms: StrictInt = Field(default=250, ge=0, le=600_000)
    bank_ms: StrictInt = Field(default=0, ge=0, le=36_000_000)


class FaultSection(_Strict):
    """Both limits mean "when the count reaches N": a bot forfeits a match at its
    ``max_faults``-th fault in it, and is disqualified at its ``max_crashes``-th crash."""

    max_faults: StrictInt = Field(default=3, ge=1, le=100_000)
    max_crashes: StrictInt = Field(default=3, ge=1, le=100_000)
    register_timeout_s: StrictInt | StrictFloat = Field(default=20.0, gt=0, le=3600)


class ServerSection(_Strict):
    bind: StrictStr = "127.0.0.1:0"
    #: TLS (PEM files; relative paths are read from the config file's directory):
    #: see arena.protocol.tls
    tls_cert: StrictStr | None = None
    tls_key: StrictStr | None = None
    client_ca: StrictStr | None = None
    #: the CA that bots started by the arena would verify the server with on TCP
    #: (ARENA_TLS_CA; default tls_cert). No effect: started bots dial the arena's private
    #: Unix socket, which is plaintext (:mod:`.local`); accepted for older configs
    tls_ca: StrictStr | None = None

    @model_validator(mode="after")
    def _tls_files(self) -> ServerSection:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together (TLS needs both)")
        if self.tls_cert is None and (self.client_ca or self.tls_ca):
            raise ValueError("client_ca and tls_ca need tls_cert and tls_key")
        for field in ("tls_cert", "tls_key", "client_ca", "tls_ca"):
            path = getattr(self, field)
            if path is not None and not Path(path).is_file():
                raise ValueError(f"{field}: no such file: {path} (a relative path is read "
                                 "from the config file's directory)")
        return self

    def tls_config(self) -> TlsConfig | None:
        """The server's :class:`arena.protocol.tls.TlsConfig`, None without TLS."""
        if self.tls_cert is None or self.tls_key is None:
            return None
        from ..protocol.tls import TlsConfig as Tls
        return Tls(self.tls_cert, self.tls_key, self.client_ca)

    def bot_env(self) -> dict[str, str]:
        """Environment for bots the arena starts: ``ARENA_TLS_CA`` (absolute) under TLS."""
        ca = self.tls_ca or self.tls_cert
        return {"ARENA_TLS_CA": str(Path(ca).resolve())} if ca else {}

    @field_validator("bind")
    @classmethod
    def _host_port(cls, v: str) -> str:
        host, sep, port = v.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"expected HOST:PORT such as 127.0.0.1:0, got {v!r}")
        return v


class ClusterSection(_Strict):
    """``[cluster]``: where matches are played.

    ``backend = "local"`` (default) plays them in this process; ``"ray"`` on a Ray cluster
    (``arena/cluster/``): ``address`` is ``"auto"`` (the cluster started on this machine with
    ``ray start``, or ``RAY_ADDRESS``), ``"local"`` (a private single-machine Ray instance for
    this run), ``"ray://HOST:PORT"`` (Ray Client) or ``"HOST:PORT"`` (a cluster's GCS).
    ``slots`` workers (default: ``tournament.concurrency``) each play one match at a time and
    reserve ``3 * cpus_per_bot`` CPUs. ``working_dir`` (a local directory) is shipped to every
    node with Ray's ``runtime_env`` and is the bots' working directory there; ``runtime_env``
    holds further Ray runtime-environment fields (e.g. ``env_vars``).
    """

    backend: Literal["local", "ray"] = "local"
    address: StrictStr = "auto"
    slots: StrictInt | None = Field(default=None, ge=1, le=4096)
    cpus_per_bot: StrictInt | StrictFloat = Field(default=1.0, ge=0, le=1024)
    working_dir: StrictStr | None = None
    runtime_env: dict[StrictStr, Any] = Field(default_factory=dict)

    @field_validator("backend")
    @classmethod
    def _ray_installed(cls, v: str) -> str:
        if v == "ray" and importlib.util.find_spec("ray") is None:
            raise ValueError(RAY_MISSING)
        return v

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        if v in ("auto", "local") or re.fullmatch(r"(ray://)?[^\s:/]+:\d{1,5}", v):
            return v
        raise ValueError(f'expected "auto", "local", "ray://HOST:PORT" or "HOST:PORT", got {v!r}')

    @model_validator(mode="after")
    def _env(self) -> ClusterSection:
        if "working_dir" in self.runtime_env:
            raise ValueError("give working_dir as [cluster] working_dir, not in runtime_env")
        return self


RAY_MISSING = ("backend \"ray\" needs Ray, which is not installed; install it with: "
               "python3 -m pip install 'arena358[ray]'")


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
            if len(self.token) < MIN_TOKEN_LENGTH:
                raise ValueError(f"a remote bot's token must have at least {MIN_TOKEN_LENGTH} "
                                 f"characters (it has {len(self.token)}); use a random one, "
                                 "e.g. python3 -c 'import secrets; print(secrets.token_hex(16))'")
        elif not self.command:
            raise ValueError("needs a command (an argument list) or remote = true with a token")
        elif self.token is not None:
            raise ValueError("token is only for remote bots (started bots get a fresh one)")
        return self


class GauntletSection(_Strict):
    """``[gauntlet]``: one candidate against the other bots (the field), decided by an SPRT on
    the Elo scale of the ratings (:mod:`arena.ratings.sprt`); run with ``arena gauntlet``, or
    ``arena run`` with ``[tournament] mode = "gauntlet"``."""

    candidate: StrictStr
    elo0: StrictInt | StrictFloat = 0.0
    elo1: StrictInt | StrictFloat = 5.0
    alpha: StrictFloat = 0.05
    beta: StrictFloat = 0.05
    max_blocks: StrictInt = Field(default=10_000, ge=1, le=MAX_MATCHES // 6)

    @model_validator(mode="after")
    def _sprt(self) -> GauntletSection:
        from ..ratings.sprt import SprtParameters
        SprtParameters(self.elo0, self.elo1, self.alpha, self.beta)   # ValueError with reason
        return self


class TournamentConfig(_Strict):
    """The whole validated file. ``rules`` holds rule-option overrides for the preset."""

    tournament: TournamentSection = TournamentSection()
    rules: dict[str, Any] = Field(default_factory=dict)
    time: TimeSection = TimeSection()
    faults: FaultSection = FaultSection()
    server: ServerSection = ServerSection()
    gauntlet: GauntletSection | None = None
    cluster: ClusterSection = ClusterSection()
    sandbox: SandboxConfig = Field(default_factory=lambda: SandboxConfig.model_validate({}))
    bots: list[BotEntry]
    #: the file it was read from (:func:`load_config`), hidden from sandboxed bots: it may
    #: hold remote bots' tokens
    _source: Path | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The config file this was read from, resolved (None: parsed from text)."""
        return self._source

    @model_validator(mode="after")
    def _check(self) -> TournamentConfig:
        problems = cross_problems(self.model_dump(), type(self))   # parse_config: all
        if problems:
            where, msg = problems[0]
            raise ValueError(f"{where}: {msg}")
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
        core: dict[str, Any] = {"preset": self.tournament.preset, "seed": self.tournament.seed,
                "deals_per_table": self.tournament.deals_per_table,
                "rules": self.rules_config().options(), "bots": [b.name for b in self.bots],
                "time": self.time.model_dump(), "max_faults": self.faults.max_faults}
        if self.tournament.schedule != "all-tables":  # older directories keep their fingerprint
            core["schedule"] = [self.tournament.schedule, self.tournament.pair_meetings]
        if self.tournament.schedule == "adaptive":
            core["target"] = self.tournament.target
        return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


#: the fields holding a path that a config file gives relative to its own directory
RELATIVE_PATHS = ("server.tls_cert", "server.tls_key", "server.client_ca", "server.tls_ca",
                  "cluster.working_dir", "bots[].cwd")


def _from_base(value: Any, base: Path) -> Any:
    """``value`` joined to ``base`` when it is a relative path (anything else as it is)."""
    if not isinstance(value, str) or not value or "\0" in value or "://" in value \
            or Path(value).is_absolute():
        return value
    return str(base / value)


def with_base(data: Any, base: Path) -> Any:
    """Raw config data with the relative paths of :data:`RELATIVE_PATHS` joined to ``base``
    (the config file's directory); a bot's ``cwd`` is kept as written when ``[cluster]
    working_dir`` is set (it is a directory inside that copy). Malformed parts are left to
    validation."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for section in ("server", "cluster"):
        if isinstance(out.get(section), dict):
            out[section] = {k: _from_base(v, base) if f"{section}.{k}" in RELATIVE_PATHS else v
                            for k, v in out[section].items()}
    cluster = out.get("cluster")
    shipped = isinstance(cluster, dict) and cluster.get("working_dir") is not None
    if isinstance(out.get("bots"), list) and not shipped:
        out["bots"] = [{**b, "cwd": _from_base(b["cwd"], base)} if isinstance(b, dict)
                       and "cwd" in b else b for b in out["bots"]]
    return out


def config_problems(data: Any, rename: Callable[[str], str] = lambda where: where,
                    base: Path | None = None
                    ) -> tuple[TournamentConfig | None, list[Problem]]:
    """Validate raw config data: the config, or None and every problem as ``(where,
    message)`` in the order of the data's sections (see :mod:`arena.tournament.problems`);
    ``rename`` maps field paths to what the user typed (CLI flags); ``base``: the config
    file's directory, that its relative paths are read from (:func:`with_base`)."""
    if base is not None:
        data = with_base(data, base)
    try:
        return TournamentConfig.model_validate(data), []
    except ValidationError as exc:
        problems = (field_problems(exc, data, TournamentConfig)
                    + cross_problems(data, TournamentConfig))
    order = list(data) if isinstance(data, dict) else []

    def position(problem: Problem) -> int:
        section = re.split(r"[.\[ ]", problem[0], maxsplit=1)[0]
        return order.index(section) if section in order else len(order)

    return None, [(rename(where), msg) for where, msg in sorted(problems, key=position)]


def parse_config(text: str, source: str = "<config>", base: Path | None = None
                 ) -> TournamentConfig:
    """Parse and validate TOML text; ``base``: the directory relative paths are read from
    (:func:`with_base`; None: as written, i.e. from the directory arena runs in).

    Raises:
        ConfigError: one line ``"SOURCE: field: problem"`` per problem, all of them.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        bom = " (the file starts with a byte-order mark; save it as UTF-8 without BOM)" \
            if text.startswith("\ufeff") else ""
        raise ConfigError(f"{source}: not valid TOML: {exc}{bom}") from None
    cfg, problems = config_problems(data, base=base)
    if cfg is None:
        raise ConfigError("\n".join(f"{source}: {where + ': ' if where else ''}{msg}"
                                     for where, msg in problems))
    return cfg


def read_config_text(path: Path, error: type[Exception]) -> str:
    """A config file's text (UTF-8). Raises ``error`` with a one-line message naming the file
    when it is missing or cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read: {exc}") from None


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a TOML config file; its relative paths are read from its directory
    (:data:`RELATIVE_PATHS`).

    Raises:
        ConfigError: missing/unreadable file, bad TOML, or invalid content (names the file).
    """
    p = Path(path)
    text = read_config_text(p, ConfigError)
    cfg = parse_config(text, str(p), base=Path(os.path.abspath(p)).parent)
    cfg._source = p.resolve()
    return cfg


def with_cluster(cfg: TournamentConfig, source: str, **fields: Any) -> TournamentConfig:
    """``cfg`` with ``[cluster]`` fields replaced (``arena run --ray``), validated as if the file
    said so.

    Raises:
        ConfigError: ``"SOURCE: cluster.FIELD: problem"`` (e.g. Ray is not installed).
    """
    data = cfg.model_dump()
    data["cluster"] = {**data["cluster"], **fields}
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{source}: {where + ': ' if where else ''}{msg}") from None
