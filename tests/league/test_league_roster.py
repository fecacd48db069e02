"""The roster the league service plays: active versions only, oldest first, and a version
whose command cannot start on this machine any more left out (shown disqualified) while the
rest play on. Real league directories and bot files; no server."""

from __future__ import annotations

import hashlib

from arena.league.admin import init_league, invite
from arena.league.service import LeagueService

from .league_server import LEAGUE_TOML


def _version(service: LeagueService, owner: str, bot: str, command: str) -> str:
    """An active version of ``owner/bot`` running ``command`` (stored as a checked upload
    would be: its files under bots/<digest>/)."""
    digest = hashlib.sha256(f"{owner}/{bot}/{command}".encode()).hexdigest()
    files = service.dir / "bots" / digest
    files.mkdir(parents=True)
    (files / "bot.toml").write_text(f'name = "{bot}"\ncommand = {command}\n')
    (files / "bot.py").write_text("")
    sub, _ = service.st.add_submission(owner, bot, digest, 10, False)
    return service.st.activate(sub.id, 1).full_name or ""


def test_a_version_that_cannot_start_here_is_left_out_and_shown_disqualified(tmp_path) -> None:
    (tmp_path / "league.toml").write_text(LEAGUE_TOML)
    init_league(tmp_path / "L", tmp_path / "league.toml")
    for who in ("ann", "ben", "cid", "dee"):
        invite(tmp_path / "L", who)
    news: list[str] = []
    service = LeagueService(tmp_path / "L", on_event=news.append)
    try:
        good = [_version(service, who, "b", '["{python}", "bot.py"]')
                for who in ("ann", "ben", "cid")]
        gone = _version(service, "dee", "b", '["/nonexistent/runtime", "bot.py"]')
        cfg = service.roster_config()
        assert cfg is not None and [b.name for b in cfg.bots] == good
        assert len(news) == 1 and news[0].startswith("bot 'dee/b@1': ")
        assert news[0].endswith("dee/b@1 is left out until the server restarts")
        subs = {s.full_name: s for s in service.st.submissions()}
        assert service.status(subs[gone]) == "disqualified"
        assert [service.status(subs[n]) for n in good] == ["active"] * 3
        service.roster_config()
        assert len(news) == 1                        # found once, not at every roster change
    finally:
        service.close()


def test_fewer_than_three_startable_versions_play_nothing(tmp_path) -> None:
    (tmp_path / "league.toml").write_text(LEAGUE_TOML)
    init_league(tmp_path / "L", tmp_path / "league.toml")
    for who in ("ann", "ben", "cid"):
        invite(tmp_path / "L", who)
    service = LeagueService(tmp_path / "L")
    try:
        _version(service, "ann", "b", '["{python}", "bot.py"]')
        _version(service, "ben", "b", '["{python}", "bot.py"]')
        _version(service, "cid", "b", '["missing-runtime-xyz", "bot.py"]')
        assert service.roster_config() is None
    finally:
        service.close()
