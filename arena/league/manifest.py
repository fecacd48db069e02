"""``bot.toml``: the manifest at the top of a submitted bot's directory.

::

    name = "mybot"                       # 1-40 letters, digits, '-', '_' or '.'
    command = ["{python}", "bot.py"]     # as a [[bots]] command; run in the bot's directory
    env = { MY_OPTION = "1" }            # optional
    remote = false                       # optional: true = the bot runs elsewhere and
                                         # connects with the token its submission prints

A bot is known in the league as ``OWNER/NAME@VERSION`` (``alice/mybot@3``): the owner is the
participant who submitted it, the version counts that owner's accepted submissions of that
name.
"""

from __future__ import annotations

import re
import difflib
import tomllib

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError
from pydantic import field_validator, model_validator

from ..errors import UserError

#: a bot's or participant's name
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ManifestError(UserError):
    """A ``bot.toml`` that cannot be used (one line: the field and the problem)."""


class Manifest(BaseModel):
    """A validated ``bot.toml`` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: StrictStr
    command: list[StrictStr] | None = Field(default=None, min_length=1)
    env: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    remote: StrictBool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME.match(v):
            raise ValueError("1-40 letters, digits, '-', '_' or '.', starting with a letter or "
                             "digit")
        return v

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not _ENV.match(key) or key.startswith("ARENA_"):
                raise ValueError(f"{key!r} is not an environment variable name a bot may set")
            if "\0" in value:
                raise ValueError(f"the value of {key} holds a NUL character")
        return v

    @model_validator(mode="after")
    def _command_or_remote(self) -> Manifest:
        if self.remote and self.command:
            raise ValueError("a remote bot runs elsewhere: no command")
        if not self.remote and not self.command:
            raise ValueError("needs a command (an argument list), or remote = true")
        if any("\0" in a for a in self.command or []):
            raise ValueError("the command holds a NUL character")
        return self


def parse_manifest(text: str) -> Manifest:
    """Validate ``bot.toml`` text.

    Raises:
        ManifestError: bad TOML or an invalid field (the first problem, one line).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"bot.toml: not valid TOML: {exc}") from None
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        # an unknown field first: a misspelt one explains the "Field required" that follows
        err = min(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        where = ".".join(str(p) for p in err["loc"]) or "bot.toml"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            close = difflib.get_close_matches(where, list(Manifest.model_fields), n=1)
            msg = "unknown field" + (f" (did you mean {close[0]!r}?)" if close else "")
        raise ManifestError(f"bot.toml: {where}: {msg}") from None
