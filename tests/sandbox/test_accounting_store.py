"""Accounting in the store and the standings: the new per-seat columns (``cpu_s``,
``peak_mib``), stores written before them, and the standings' CPU ms/decision and peak MiB;
the run's sandbox banner."""

from __future__ import annotations

import json
import sqlite3

from arena.tournament.config import parse_config
from arena.tournament.local import sandbox_banner
from arena.tournament.schedule import make_schedule
from arena.tournament.standings import compute_standings, format_standings
from arena.tournament.store import ResultRow, Store
from tests.rows import result_row

NAMES = ["a", "b", "c"]


def _row(m, cpu=(None, None, None), peak=(None, None, None)) -> ResultRow:
    return result_row(m.match_id, m.block_id, m.seats, scores=(3, 0, -3),
                      decisions=(10, 20, 40), think_ms=(5.0, 5.0, 5.0), cpu_s=cpu,
                      peak_mib=peak)


def test_usage_is_stored_and_shown(tmp_path) -> None:
    sched = make_schedule(NAMES, 1, 1)[:2]
    with Store(tmp_path / "results.sqlite") as store:
        store.init_schedule("f", "t", sched)
        store.save_result(_row(sched[0], (0.1, 0.2, None), (40.0, 90.5, None)))
        store.save_result(_row(sched[1], (0.3, 0.0, None), (60.0, 30.0, None)))
        rows = store.results()
    assert rows[0].cpu_s == (0.1, 0.2, None) and rows[1].peak_mib == (60.0, 30.0, None)
    st = compute_standings(rows, NAMES)
    by = {r.bot: r for r in st.rows}
    first, second = sched[0].seats, sched[1].seats
    cpu = {n: 0.0 for n in NAMES}
    dec = {n: 0 for n in NAMES}
    for seats, cpus in ((first, (0.1, 0.2, None)), (second, (0.3, 0.0, None))):
        for i, n in enumerate(seats):
            if cpus[i] is not None:
                cpu[n] += cpus[i]
                dec[n] += (10, 20, 40)[i]
    for n in NAMES:
        want = round(cpu[n] * 1000 / dec[n], 2) if dec[n] else None
        assert by[n].cpu_ms_per_decision == want
    peaks = {}
    for seats, pk in ((first, (40.0, 90.5, None)), (second, (60.0, 30.0, None))):
        for i, n in enumerate(seats):
            if pk[i] is not None:
                peaks[n] = max(peaks.get(n, 0.0), pk[i])
    assert {n: by[n].peak_mib for n in NAMES} == {n: peaks.get(n) for n in NAMES}
    text = format_standings(st, "text", wide=True)
    assert "CPU ms/decision" in text and "peak MiB" in text
    assert json.loads(format_standings(st, "json"))["standings"][0].keys() >= {
        "cpu_ms_per_decision", "peak_mib"}


def test_a_store_from_before_the_columns_is_upgraded(tmp_path) -> None:
    path = tmp_path / "results.sqlite"
    sched = make_schedule(NAMES, 1, 1)[:1]
    with Store(path) as store:
        store.init_schedule("f", "t", sched)
    con = sqlite3.connect(path)       # make it look like an older store with one result
    con.executescript("ALTER TABLE results DROP COLUMN cpu_s; "     # a schema-1 store
                      "ALTER TABLE results DROP COLUMN peak_mib; PRAGMA user_version = 1;")
    m = sched[0]
    con.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (m.match_id, "normal", "[1,2,3]", "[3,0,-3]", "[0,0,0]",
                 "[false,false,false]", "[null,null,null]", "hand-cap", 1, "[1,1,1]",
                 "[1.0,1.0,1.0]", "s", "e", f"records/{m.match_id}.jsonl.gz"))
    con.commit()
    con.close()
    with Store(path, readonly=True) as store:    # read-only: read as it is, nulls
        assert store.results()[0].peak_mib == (None, None, None)
    with Store(path) as store:        # opening for writing adds the columns
        rows = store.results()
        cols = {r[1] for r in store.db.execute("PRAGMA table_info(results)")}
        version = store.db.execute("PRAGMA user_version").fetchone()[0]
    assert {"cpu_s", "peak_mib"} <= cols and version == 2
    assert rows[0].cpu_s == (None, None, None) and rows[0].places == (1, 2, 3)
    st = compute_standings(rows, NAMES)
    assert all(r.cpu_ms_per_decision is None and r.peak_mib is None for r in st.rows)
    assert " - " in format_standings(st, "text", wide=True)


def test_banner_names_the_mode_and_per_bot_modes() -> None:
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = ["x"]\n' for i in range(3))
    cfg = parse_config('[sandbox]\nmemory_mib = 512\n' + bots.replace(
        'name = "b2"\n', 'name = "b2"\nsandbox = { mode = "none" }\n'), "t.toml")
    line = sandbox_banner(cfg)
    assert line.startswith("sandbox: bwrap (memory 512 MiB, 128 processes")
    assert line.endswith("; per bot: b2: none")
    cfg = parse_config('[sandbox]\nmode = "none"\n' + bots, "t.toml")
    assert sandbox_banner(cfg).startswith("sandbox: none (")
