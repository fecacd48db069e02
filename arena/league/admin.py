"""A league directory's administration, without the service's weight (``arena league init``,
``invite``, ``revoke`` start quickly: no driver, no ratings): make the directory, open its
config and store, add and revoke participants."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import UserError
from . import tokens
from .config import LeagueConfig, load_league_config
from .manifest import NAME
from .store import SqliteLeagueStore

#: the league's config file inside its directory
CONFIG_NAME = "league.toml"


def init_league(directory: Path, config: Path) -> LeagueConfig:
    """Make ``directory`` a league (its config copied in, its store and deal key made).

    Raises:
        LeagueConfigError: the config is invalid. UserError: the directory holds a league
            or a tournament already, or cannot be created.
    """
    cfg = load_league_config(config)
    if (directory / CONFIG_NAME).exists() or (directory / "results.sqlite").exists():
        raise UserError(f"{directory} holds a league or a tournament already")
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copyfile(config, directory / CONFIG_NAME)
    except OSError as exc:
        raise UserError(f"cannot make the league {directory}: {exc.strerror or exc}") from None
    st = SqliteLeagueStore.open(directory)
    try:
        st.store.deal_key()
        st.store.set_meta({"name": cfg.tournament.name, "kind": "league"})
    finally:
        st.close()
    return cfg


def open_league(directory: Path) -> tuple[LeagueConfig, SqliteLeagueStore]:
    """The league of ``directory``: its config and store.

    Raises:
        UserError: not a league directory. LeagueConfigError: its config is invalid.
    """
    if not (directory / CONFIG_NAME).is_file():
        raise UserError(f"{directory} is not a league (no {CONFIG_NAME}: arena league init "
                        f"{directory} --config league.toml)")
    return load_league_config(directory / CONFIG_NAME), SqliteLeagueStore.open(directory)


def invite(directory: Path, name: str) -> str:
    """Add participant ``name``; its API token (shown once, stored hashed).

    Raises:
        UserError: a bad name, or taken.
    """
    if not NAME.match(name):
        raise UserError(f"participant {name!r}: 1-40 letters, digits, '-', '_' or '.'")
    _, st = open_league(directory)
    token = tokens.new_token()
    try:
        st.add_participant(name, tokens.digest(token))
    except Exception as exc:
        if "UNIQUE" in str(exc):
            raise UserError(f"participant {name!r} exists already") from None
        raise
    finally:
        st.close()
    return token


def revoke(directory: Path, name: str) -> None:
    """Revoke participant ``name``'s token (its active versions go on playing).

    Raises:
        UserError: no such participant, or revoked already.
    """
    _, st = open_league(directory)
    try:
        if not st.revoke(name):
            raise UserError(f"no participant {name!r} with a valid token")
    finally:
        st.close()
