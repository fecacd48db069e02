"""The league store: participants by token hash, submissions stored once, versions counted
per owner and bot, older versions retired, quotas counted."""

from __future__ import annotations

import sqlite3

import pytest

from arena.league.store import SqliteLeagueStore
from arena.league.tokens import bearer, digest, new_token


def test_participants_are_found_by_token_hash_only(tmp_path) -> None:
    st = SqliteLeagueStore.open(tmp_path)
    token = new_token()
    assert len(token) == 43 and digest(token) != token
    assert not any(new_token().startswith("-") for _ in range(500))   # not an option
    st.add_participant("alice", digest(token))
    with pytest.raises(sqlite3.IntegrityError):
        st.add_participant("alice", digest(new_token()))
    assert st.participant(digest(token)) == "alice"
    assert st.participant(digest(new_token())) is None
    assert token not in (tmp_path / "results.sqlite").read_bytes().decode("latin-1")
    assert st.revoke("alice") and not st.revoke("alice") and not st.revoke("bob")
    assert st.participant(digest(token)) is None
    assert st.participants() == [("alice", True)]
    st.close()


def test_submissions_are_stored_once_and_versions_count_per_bot(tmp_path) -> None:
    st = SqliteLeagueStore.open(tmp_path)
    st.add_participant("alice", digest("a" * 43))
    st.add_participant("bob", digest("b" * 43))
    s1, new = st.add_submission("alice", "mybot", "d1", 100, False)
    assert new and s1.state == "queued" and s1.version is None and s1.full_name is None
    again, new = st.add_submission("alice", "mybot", "d1", 100, False)
    assert not new and again.id == s1.id                        # idempotent
    s2, _ = st.add_submission("alice", "mybot", "d2", 100, False)
    s3, _ = st.add_submission("alice", "mybot", "d3", 100, False)
    b1, new = st.add_submission("bob", "mybot", "d1", 100, False)     # same files, other owner
    assert new and b1.id != s1.id
    other, new = st.add_submission("alice", "other", "d1", 100, False)  # same files, other bot
    assert new and other.id not in (s1.id, b1.id) and other.bot == "other"
    st.set_state(other.id, "rejected", reason="a test")
    assert st.next_queued().id == s1.id
    st.set_state(s1.id, "checking")
    assert st.next_queued().id == s1.id           # a check left unfinished comes first
    assert st.activate(s1.id, keep_active=2).full_name == "alice/mybot@1"
    rejected = st.set_state(s2.id, "rejected", reason="check-bot: 2 checks failed")
    assert rejected.reason == "check-bot: 2 checks failed" and rejected.version is None
    assert st.activate(s3.id, keep_active=2).full_name == "alice/mybot@2"
    assert st.activate(b1.id, keep_active=2).full_name == "bob/mybot@1"
    s4, _ = st.add_submission("alice", "mybot", "d4", 100, False)
    assert st.activate(s4.id, keep_active=2).full_name == "alice/mybot@3"
    assert [s.full_name for s in st.active()] == ["alice/mybot@2", "bob/mybot@1",
                                                 "alice/mybot@3"]
    assert st.submission(s1.id).state == "retired"                   # beyond the newest 2
    assert st.submitted_since("alice", 24) == 5 and st.submitted_since("bob", 24) == 1
    with pytest.raises(ValueError, match="unknown submission state"):
        st.set_state(s1.id, "winning")
    with pytest.raises(KeyError):
        st.set_state(999, "active")
    st.close()


@pytest.mark.parametrize("header,token", [("Bearer abc", "abc"), ("bearer  abc ", "abc"),
                                          ("Basic abc", None), ("Bearer", None), (None, None)])
def test_bearer_header(header, token) -> None:
    assert bearer(header) == token


def test_a_foreign_database_in_a_league_is_refused_naming_the_league_directory(
        tmp_path, capsys) -> None:
    from pathlib import Path

    from arena.cli import main
    league = tmp_path / "lg"
    config = Path(__file__).parents[2] / "examples" / "league.toml"
    assert main(["league", "init", str(league), "--config", str(config)]) == 0
    capsys.readouterr()
    db = league / "results.sqlite"
    for p in league.glob("results.sqlite*"):
        p.unlink()
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE users (name TEXT)")
    con.close()
    before = db.read_bytes()
    assert main(["league", "invite", str(league), "alice"]) == 2
    err = capsys.readouterr().err
    assert err == (f"arena: error: {db}: not a 358 Arena results store (an SQLite database "
                   "with other tables: users); give the league another directory "
                   "(arena league init DIR)\n")
    assert db.read_bytes() == before
