"""The tournament's output directory: its lock, the sweep of what a killed arena left, the
record-then-row write of a finished match, and the standings files.

Layout (shared by ``arena run`` and ``arena gauntlet``)::

    OUT/.arena.lock           held (flock) by the arena running on OUT
    OUT/results.sqlite        schedule and one row per finished match (resume reads it)
    OUT/records/<match>.jsonl.gz   one record per match (docs/records.md), written atomically
                              (0600, in a 0700 directory)
    OUT/logs/<bot>.log        each bot's stdout/stderr (in a 0700 directory)
    OUT/standings.{md,csv,json}   the standings (ratings plus arena columns)
    OUT/los.csv, OUT/headtohead.csv   likelihood of superiority, head-to-head (one table each)

Files are only ever replaced whole (:func:`arena.atomic.atomic_write_bytes`: a
``.<name>.<random>.tmp`` beside the target, then a rename), so a killed arena leaves temp
files, never half-written ones; the next run on the directory removes them.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..atomic import atomic_write_bytes
from ..errors import UserError
from ..ratings.columns import HEAD_TO_HEAD_COLUMNS, LOS_COLUMNS
from ..ratings.formatting import CSV_FILES, csv_tables
from .executor import PlayedMatch
from .schedule import ScheduledMatch
from .standings import Standings, format_standings
from .store import Store


class OutDirError(UserError):
    """The output directory cannot be used (not creatable, or another arena holds it)."""


def lock_out_dir(out: Path) -> int:
    """Create ``out`` and hold an exclusive lock on ``out/.arena.lock`` (released when the
    returned file descriptor is closed, or the process exits), so two arenas never write the
    same tournament.

    Raises:
        OutDirError: the directory cannot be created or another arena holds the lock.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / ".arena.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutDirError(f"cannot use output directory {out}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutDirError(f"another arena is running on {out}; wait for it or use another "
                          "--out directory") from None
    return fd


@contextmanager
def out_dir_lock(out: Path, *, lend: bool = False) -> Iterator[None]:
    """:func:`lock_out_dir` for the duration of a ``with`` block. Raises OutDirError, also
    when this process already holds the lock, unless its holder passed ``lend=True``: then a
    nested ``out_dir_lock`` of the same directory shares it (the league service holds its
    directory while the tournament driver runs in it, a new run whenever its executor
    cannot adopt a roster change)."""
    key = os.path.realpath(out)
    held = _HELD.get(key)
    if held is not None:
        if not held[1]:
            raise OutDirError(f"another arena is running on {out} (in this process)")
        _HELD[key] = (held[0] + 1, True)
        try:
            yield
        finally:
            _HELD[key] = (_HELD[key][0] - 1, True)
        return
    fd = lock_out_dir(out)
    _HELD[key] = (1, lend)
    try:
        yield
    finally:
        del _HELD[key]
        os.close(fd)   # releases the lock


#: directories this process holds the lock of (realpath -> (holders, lent to nested holders))
_HELD: dict[str, tuple[int, bool]] = {}


def prepare_out_dir(out: Path) -> None:
    """Create ``records/`` and ``logs/``, readable by the arena's user only (0700: a record
    or a log tells the deal of a block still being played; an older directory is closed to
    others before anything new is written), and remove stale temp files. Call with the lock
    held (no other writer). Raises OSError."""
    for sub in (out / "records", out / "logs"):
        sub.mkdir(mode=0o700, exist_ok=True)
        if sub.stat().st_mode & 0o077:
            os.chmod(sub, 0o700)
    sweep_temp_files(out)


def sweep_temp_files(out: Path) -> int:
    """Remove temp files a killed arena left behind (``.<name>.<random>.tmp`` beside records
    and standings; the real files are only ever replaced whole). Returns how many."""
    stale = [*(out / "records").glob(".*.tmp"), *out.glob(".*.tmp")]
    for p in stale:
        p.unlink(missing_ok=True)
    return len(stale)


def sweep_unfinished_records(out: Path, pending: list[ScheduledMatch]) -> int:
    """Remove record files of matches without a result row (the arena was killed between
    writing a record and committing its row): only stored results have records. Returns how
    many."""
    n = 0
    for m in pending:
        path = out / "records" / f"{m.match_id}.jsonl.gz"
        if path.exists():
            path.unlink()
            n += 1
    return n


def leftovers_notice(count: int, out: Path) -> str:
    """The line shown when bot processes of an earlier arena on ``out`` were ended."""
    return (f"arena: ended {count} bot process{'es' if count > 1 else ''} left running by "
            f"an earlier arena on {out}")


async def save_played(out: Path, store: Store, done: PlayedMatch) -> None:
    """Write the record of a finished match (atomically), then its result row: a row never
    names a missing record, and a record without a row is swept on resume."""
    await asyncio.to_thread(atomic_write_bytes, out / done.row.record, done.record, 0o600)
    store.save_result(done.row)


def write_standings(out: Path, st: Standings) -> None:
    """standings.md / .csv / .json, and los.csv / headtohead.csv (one table per CSV file;
    header only while there are no ratings) in ``out`` (atomic each)."""
    for fmt in ("md", "csv", "json"):
        atomic_write_bytes(out / f"standings.{fmt}", format_standings(st, fmt).encode("utf-8"))
    tables = csv_tables(st.ratings) if st.ratings is not None else {
        CSV_FILES["los"]: ",".join(LOS_COLUMNS) + "\n",
        CSV_FILES["head_to_head"]: ",".join(HEAD_TO_HEAD_COLUMNS) + "\n"}
    for name in (CSV_FILES["los"], CSV_FILES["head_to_head"]):
        atomic_write_bytes(out / name, tables[name].encode("utf-8"))
