"""The results store: it refuses SQLite files that are not 358 Arena stores
and validates every row it reads; both as one-line errors from the CLI."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from arena.cli import main
from arena.tournament.schedule import make_schedule
from arena.tournament.store import (APPLICATION_ID, SCHEMA, SCHEMA_VERSION, Store,
                                    StoreError, open_existing)
from tests.rows import result_row

from .helpers import config_text, new_tag, wait_no_processes

BOTS = ["a", "b", "c", "d"]


def fake_store(path, *, marked: bool = True) -> list[str]:
    """A store with the 4-bot schedule (2 deals) and a plausible result for every match."""
    schedule = make_schedule(BOTS, 2, 1)
    with Store(path) as store:
        store.init_schedule("f" * 64, "fake", schedule)
        for k, m in enumerate(schedule):
            places = [(1, 2, 3), (2, 1, 3), (3, 2, 1)][k % 3]
            store.save_result(result_row(
                m.match_id, m.block_id, m.seats, places=places, scores=(5, 0, -5),
                decisions=(20, 20, 20), think_ms=(1.5, 2.0, 0.25), started_at="t0",
                ended_at="t1"))
    if not marked:   # as written before the identity marks existed
        con = sqlite3.connect(path)
        con.execute("PRAGMA application_id = 0")
        con.execute("PRAGMA user_version = 0")
        con.close()
    return [m.match_id for m in schedule]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arena: error: "), err
    assert "Traceback" not in err
    return err


# ----- identity -----------------------------------------------------------------------------
def test_new_store_is_marked(tmp_path):
    fake_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(tmp_path / "results.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID == 0x33353841
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    con.close()


def test_store_from_before_the_marks_still_opens_and_is_marked(tmp_path, capsys):
    ids = fake_store(tmp_path / "results.sqlite", marked=False)
    assert main(["ratings", str(tmp_path), "--format", "json"]) == 0     # read only: as is
    capsys.readouterr()
    con = sqlite3.connect(tmp_path / "results.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == 0
    con.close()
    with Store(tmp_path / "results.sqlite") as store:                     # writable: marked
        assert len(store.results()) == len(ids)
    con = sqlite3.connect(tmp_path / "results.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()


def unrelated_tables(path):
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
                      "INSERT INTO users (name) VALUES ('alice');")
    con.close()


def other_application(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA application_id = 1234")
    con.execute("CREATE TABLE t (x)")
    con.close()


def our_names_other_columns(path):
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE meta (k, v); CREATE TABLE schedule (x);"
                      "CREATE TABLE results (y);")
    con.close()


def newer_store(path):
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()


def not_sqlite(path):
    path.write_bytes(b"hello, this is a text file and not a database\n" * 20)


@pytest.mark.parametrize("make,expected", [
    (unrelated_tables, "not a 358 Arena results store (an SQLite database with other tables: "
                       "users)"),
    (other_application, "another application, application_id 0x000004d2"),
    (our_names_other_columns, "with other tables: meta, results, schedule"),
    (newer_store, "written by a newer 358 Arena"),
    (not_sqlite, "not a 358 Arena results store: file is not a database"),
])
def test_foreign_database_is_refused_untouched(tmp_path, capsys, make, expected):
    out = tmp_path / "o"
    out.mkdir()
    db = out / "results.sqlite"
    make(db)
    before = db.read_bytes()
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 2
    err = one_error_line(capsys)
    assert f"{db}: " in err and expected in err
    if "other tables" in expected or "another application" in expected:
        assert err.endswith("; use another --out directory\n")
    assert main(["ratings", str(out)]) == 2
    err = one_error_line(capsys)
    assert expected in err
    assert "--out directory" not in err     # ratings has no --out
    if "other tables" in expected or "another application" in expected:
        assert err.endswith("; give a tournament directory (the --out of arena run)\n")
    assert db.read_bytes() == before
    # the refusal is logged in arena.log; nothing else is written
    assert sorted(p.name for p in out.iterdir()) == [".arena.lock", "arena.log", "results.sqlite"]


def test_empty_file_becomes_a_store(tmp_path):
    (tmp_path / "results.sqlite").write_bytes(b"")
    with Store(tmp_path / "results.sqlite") as store:
        assert store.results() == []


# ----- row validation ------------------------------------------------------------------------
DAMAGE = [
    ("placings", "'[1,2]'", "placings is '[1,2]', expected 3 places, each 1 to 3"),
    ("placings", "'[1,2,4]'", "expected 3 places, each 1 to 3"),
    ("placings", "'{\"a\": 1}'", "placings is"),
    ("scores", "'[1,2,\"x\"]'", "scores is '[1,2,\"x\"]', expected 3 integers"),
    ("scores", "'[1,2,3.5]'", "expected 3 integers"),
    ("forfeited", "'[0,0,1]'", "expected 3 booleans"),
    ("faults", "'[0,-1,0]'", "expected 3 counts"),
    ("forfeit_reasons", "'[null,null,5]'", "expected 3 texts or nulls"),
    ("decisions", "'not json'", "decisions is 'not json', not JSON"),
    ("think_ms", "'[1, 2, null]'", "expected 3 finite numbers"),
    ("status", "'weird'", "status is 'weird'"),
    ("status", "'forfeit'", "status is 'forfeit', expected 'normal' or 'forfeit' ('forfeit' "
                            "exactly when a seat forfeited)"),
    ("hands", "'three'", "hands is 'three'"),
    ("record", "'/etc/passwd'", "expected a relative path under records/"),
    ("end_reason", "X'ff'", "end_reason is b'\\xff', expected text or null"),
]


@pytest.mark.parametrize("column,value,expected", DAMAGE,
                         ids=[f"{c}={v}" for c, v, _ in DAMAGE])
def test_damaged_result_row_is_one_line_naming_the_match(tmp_path, capsys, column, value,
                                                         expected):
    ids = fake_store(tmp_path / "results.sqlite")
    victim = ids[7]
    con = sqlite3.connect(tmp_path / "results.sqlite")
    with con:
        con.execute(f"UPDATE results SET {column} = {value} WHERE match_id = ?", (victim,))
    con.close()
    assert main(["ratings", str(tmp_path)]) == 2
    err = one_error_line(capsys)
    assert f"the stored result of match '{victim}' is damaged (" in err and expected in err
    with pytest.raises(StoreError, match=victim), open_existing(tmp_path) as store:
        store.results()


@pytest.mark.parametrize("column,value,expected", [
    ("seed", "'zz'", "seed is 'zz', expected hexadecimal text"),
    ("seat1", "X'ff'", "seats is"),
    ("table_idx", "'x'", "table_idx is 'x'"),
])
def test_damaged_schedule_row_is_named(tmp_path, column, value, expected):
    ids = fake_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(tmp_path / "results.sqlite")
    with con:
        con.execute("DELETE FROM results WHERE match_id = ?", (ids[3],))
        con.execute(f"UPDATE schedule SET {column} = {value} WHERE match_id = ?", (ids[3],))
    con.close()
    with Store(tmp_path / "results.sqlite") as store, pytest.raises(
            StoreError, match=f"scheduled match '{ids[3]}' is damaged " rf"\({expected}"):
        store.pending()


@pytest.mark.e2e
def test_arena_run_on_a_damaged_store_is_one_line(tmp_path, capsys):
    tag = new_tag()
    (tmp_path / "t.toml").write_text(config_text(None, tag=tag))
    out = tmp_path / "o"
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    shutil.copy(out / "results.sqlite", tmp_path / "backup.sqlite")
    con = sqlite3.connect(out / "results.sqlite")
    with con:
        victim = con.execute("SELECT match_id FROM results LIMIT 1 OFFSET 2").fetchone()[0]
        con.execute("UPDATE results SET placings = '[1,2]' WHERE match_id = ?", (victim,))
        con.execute("DELETE FROM results WHERE match_id = (SELECT max(match_id) FROM results)")
    con.close()
    assert main(["run", str(tmp_path / "t.toml"), "--out", str(out), "--quiet"]) == 2
    err = one_error_line(capsys)
    assert f"the stored result of match '{victim}' is damaged (placings is '[1,2]'" in err
    assert main(["ratings", str(out)]) == 2
    assert victim in one_error_line(capsys)
    assert wait_no_processes(tag) == []
