"""The rows of the results store (:mod:`arena.tournament.store`), each declared once.

A stored row is a frozen dataclass whose fields are its columns: :class:`MetaEntry`,
:class:`ScheduleRow` and :class:`ResultRow`. Each field's type says what a valid value is
(pydantic checks it) and carries a :class:`Column`: the SQL type, the column's name where it
differs from the field's, whether the value is a JSON list of one value per seat, what a
valid value is in words, and the schema version that added the column. A :class:`Table`
derives everything else from the row's fields: the ``CREATE TABLE`` statement, the column
list the store's identity check compares, the ``INSERT`` and its values, the ``SELECT`` list
and the reading (with validation) of a row read back.

Validation: SQLite keeps what it is given, so a row may have been damaged by hand, by another
tool or on disk: well-formed JSON of the wrong shape (``placings = '[1,2]'``) must not reach
the standings or ratings as a traceback. :meth:`Table.read` checks every column of one row
and raises :class:`RowError` with one line naming the column, what it holds and what was
expected.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar, get_type_hints

from pydantic import (AfterValidator, Field, StrictBool, StrictFloat, StrictInt, StrictStr,
                      TypeAdapter, ValidationError)

from ..safetext import printable
from .schedule import ScheduledMatch

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "META",
    "RESULTS",
    "SCHEDULE",
    "SCHEMA_VERSION",
    "TABLES",
    "Column",
    "MetaEntry",
    "ResultRow",
    "RowError",
    "ScheduleRow",
    "Table",
]


class RowError(ValueError):
    """A stored row does not have the expected shape; the message names the column."""


@dataclass(frozen=True)
class Column:
    """How one field of a stored row is stored (the metadata of its type).

    Attributes:
        sql: the column's SQL type and constraint (``"TEXT NOT NULL"``).
        expected: what a valid value is, in the damaged-row message.
        name: the column's name (default: the field's); a field stored in several columns
            (the seats) names them in ``names`` and is called ``name`` in messages.
        names: the columns of a field stored one value per column.
        per_seat: the value is one JSON list of three values, one per seat.
        since: the schema version that added the column (added to older stores).
        joined: read from the schedule row of the same match (a result row's block and
            seats), not stored in the row's own table.
        null: what a NULL in the column reads as (an added column in rows older than it);
            None: NULL is read as it is.
    """

    sql: str
    expected: str
    name: str | None = None
    names: tuple[str, ...] | None = None
    per_seat: bool = False
    since: int = 1
    joined: bool = False
    null: tuple[None, None, None] | None = None


def _bot_name(v: str) -> str:
    if not v or printable(v) != v:
        raise ValueError("not a bot name")   # a config never gives such names
    return v


def _finite(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError("not finite")
    return float(v)


def _records_path(v: str) -> str:
    if not v.startswith("records/") or ".." in v.split("/"):
        raise ValueError("not under records/")
    return v


def _hex(v: str) -> str:
    bytes.fromhex(v)
    return v


_Place = Annotated[StrictInt, Field(ge=1, le=3)]
_Count = Annotated[StrictInt, Field(ge=0)]
_Name = Annotated[StrictStr, AfterValidator(_bot_name)]
_Millis = Annotated[StrictInt | StrictFloat, Field(ge=0), AfterValidator(_finite)]
_Reason = StrictStr | None
#: a sandbox accounting figure (CPU seconds, peak MiB), null where not measured
_Usage = Annotated[StrictInt | StrictFloat, Field(ge=0), AfterValidator(float)] | None

_TEXT, _INT = "TEXT NOT NULL", "INTEGER NOT NULL"
_SEATS = ("seat0", "seat1", "seat2")


@dataclass(frozen=True, slots=True, kw_only=True)
class MetaEntry:
    """One row of ``meta``: the config fingerprint, name, arena version, deal key..."""

    key: Annotated[StrictStr, Column("TEXT PRIMARY KEY", "text")]
    value: Annotated[StrictStr, Column(_TEXT, "text")]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleRow:
    """One row of ``schedule``: a :class:`~arena.tournament.schedule.ScheduledMatch` as
    stored (its seed as hexadecimal text)."""

    match_id: Annotated[StrictStr, Column("TEXT PRIMARY KEY", "text")]
    block_id: Annotated[StrictStr, Column(_TEXT, "text")]
    table_idx: Annotated[_Count, Column(_INT, "an integer >= 0")]
    deal_idx: Annotated[_Count, Column(_INT, "an integer >= 0")]
    seating_idx: Annotated[_Count, Column(_INT, "an integer >= 0")]
    seats: Annotated[tuple[_Name, _Name, _Name],
                     Column(_TEXT, "3 bot names (printable text)", names=_SEATS)]
    seed: Annotated[StrictStr, AfterValidator(_hex), Column(_TEXT, "hexadecimal text")]

    @classmethod
    def of(cls, m: ScheduledMatch) -> ScheduleRow:
        """The stored form of ``m``."""
        return cls(match_id=m.match_id, block_id=m.block_id, table_idx=m.table,
                   deal_idx=m.deal, seating_idx=m.seating, seats=m.seats, seed=m.seed.hex())

    def scheduled(self) -> ScheduledMatch:
        """The scheduled match this row stores."""
        return ScheduledMatch(self.match_id, self.block_id, self.table_idx, self.deal_idx,
                              self.seating_idx, self.seats, bytes.fromhex(self.seed))


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultRow:
    """A finished match as stored: one row of ``results`` with its match's block and seats
    from ``schedule``; per-seat tuples follow ``players`` (the bots by seat).

    The one result of a match past the runner: written and read back by the store, rated as
    it is (``players``, ``places``, ``block``, ``forfeits`` are what the ratings read,
    :class:`arena.ratings.model.RatedResult`), folded into the standings. Times are ISO-8601
    UTC; ``think_ms`` is milliseconds; ``cpu_s`` (CPU seconds) and ``peak_mib`` (peak
    resident MiB) are the sandbox's accounting of each seat's bot processes, None where not
    measured (a remote bot, a store older than schema 2).
    """

    match_id: Annotated[StrictStr, Column("TEXT PRIMARY KEY REFERENCES schedule(match_id)",
                                          "text")]
    block: Annotated[StrictStr, Column(_TEXT, "text", name="block_id", joined=True)]
    players: Annotated[tuple[_Name, _Name, _Name],
                       Column(_TEXT, "3 bot names (printable text)", name="seats",
                              names=_SEATS, joined=True)]
    status: Annotated[Literal["normal", "forfeit"], Column(
        _TEXT, "'normal' or 'forfeit' ('forfeit' exactly when a seat forfeited)")]
    places: Annotated[tuple[_Place, _Place, _Place], Column(
        _TEXT, "3 places, each 1 to 3", name="placings", per_seat=True)]
    scores: Annotated[tuple[StrictInt, StrictInt, StrictInt],
                      Column(_TEXT, "3 integers", per_seat=True)]
    faults: Annotated[tuple[_Count, _Count, _Count],
                      Column(_TEXT, "3 counts (integers >= 0)", per_seat=True)]
    forfeits: Annotated[tuple[StrictBool, StrictBool, StrictBool],
                        Column(_TEXT, "3 booleans", name="forfeited", per_seat=True)]
    forfeit_reasons: Annotated[tuple[_Reason, _Reason, _Reason],
                               Column(_TEXT, "3 texts or nulls", per_seat=True)]
    end_reason: Annotated[_Reason, Column("TEXT", "text or null")]
    hands: Annotated[_Count, Column(_INT, "a count (integer >= 0)")]
    decisions: Annotated[tuple[_Count, _Count, _Count],
                         Column(_TEXT, "3 counts (integers >= 0)", per_seat=True)]
    think_ms: Annotated[tuple[_Millis, _Millis, _Millis],
                        Column(_TEXT, "3 finite numbers >= 0 (milliseconds)", per_seat=True)]
    started_at: Annotated[StrictStr, Column(_TEXT, "text (an ISO-8601 time)")]
    ended_at: Annotated[StrictStr, Column(_TEXT, "text (an ISO-8601 time)")]
    record: Annotated[StrictStr, AfterValidator(_records_path),
                      Column(_TEXT, "a relative path under records/")]
    cpu_s: Annotated[tuple[_Usage, _Usage, _Usage], Column(
        "TEXT", "null or 3 numbers >= 0 or nulls (CPU seconds)", per_seat=True, since=2,
        null=(None, None, None))] = (None, None, None)
    peak_mib: Annotated[tuple[_Usage, _Usage, _Usage], Column(
        "TEXT", "null or 3 numbers >= 0 or nulls (MiB)", per_seat=True, since=2,
        null=(None, None, None))] = (None, None, None)

    def check(self) -> None:
        """Raise :class:`RowError` when the row contradicts itself (the checks across
        columns: ``status`` is ``"forfeit"`` exactly when a seat forfeited)."""
        if (self.status == "forfeit") != any(self.forfeits):
            raise RowError(f"status is {self.status!r}, expected "
                           f"{RESULTS.column('status').expected}")


R = TypeVar("R", bound="DataclassInstance")


@dataclass(frozen=True)
class _Field:
    name: str
    column: Column

    @property
    def label(self) -> str:
        """The field's name in messages: its column's."""
        return self.column.name or self.name

    @property
    def sql_names(self) -> tuple[str, ...]:
        return self.column.names or (self.label,)


class Table(Generic[R]):
    """The SQL table that stores ``row`` (see the module docstring).

    Args:
        name: the table's name.
        row: the row's dataclass; its fields in order are the table's columns in order
            (the ``joined`` ones excepted).
        check: the checks across columns of a row read back (raise :class:`RowError`).
    """

    def __init__(self, name: str, row: type[R],
                 check: Callable[[R], None] | None = None) -> None:
        self.name = name
        self.row = row
        self.check = check
        hints = get_type_hints(row, include_extras=True)
        self.fields = tuple(_Field(f.name, next(
            m for m in hints[f.name].__metadata__ if isinstance(m, Column))) for f in fields(row))
        self.own = tuple(f for f in self.fields if not f.column.joined)
        self._adapter = TypeAdapter(row)

    def column(self, label: str) -> Column:
        """The column named ``label`` (a field's name in messages)."""
        return next(f.column for f in self.fields if f.label == label)

    @property
    def version(self) -> int:
        """The schema version of the table's newest column."""
        return max(f.column.since for f in self.own)

    def columns(self, version: int) -> tuple[str, ...]:
        """The table's columns in a store of schema ``version``, in order."""
        return tuple(n for f in self.own if f.column.since <= version for n in f.sql_names)

    def create(self) -> str:
        """``CREATE TABLE IF NOT EXISTS`` with every column."""
        cols = ", ".join(f"{n} {f.column.sql}" for f in self.own for n in f.sql_names)
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({cols})"

    def add_missing(self, have: set[str]) -> Iterator[str]:
        """The ``ALTER TABLE`` statements that add the columns not in ``have`` (a store of an
        older schema: its columns are the first ones of the table)."""
        for f in self.own:
            for n in f.sql_names:
                if n not in have:
                    yield f"ALTER TABLE {self.name} ADD COLUMN {n} {f.column.sql}"

    def insert(self, verb: str = "INSERT") -> str:
        """``INSERT INTO`` every column (``verb``: e.g. ``"INSERT OR IGNORE"``)."""
        cols = self.columns(self.version)
        return (f"{verb} INTO {self.name} ({', '.join(cols)}) "
                f"VALUES ({', '.join('?' * len(cols))})")

    def values(self, row: R) -> tuple[object, ...]:
        """The values of :meth:`insert` for ``row``."""
        out: list[object] = []
        for f in self.own:
            value = getattr(row, f.name)
            if f.column.per_seat:
                out.append(json.dumps(value))
            elif f.column.names:
                out.extend(value)
            else:
                out.append(value)
        return tuple(out)

    def select(self, own: str, joined: str = "", have: set[str] | None = None) -> str:
        """The ``SELECT`` list of :meth:`read`: the own columns from table alias ``own``,
        the joined ones from ``joined``; a column not in ``have`` (an added column of an
        older store opened read-only) is selected as NULL."""
        out = []
        for f in self.fields:
            alias = joined if f.column.joined else own
            for n in f.sql_names:
                out.append(f"{alias}.{n}" if have is None or n in have or f.column.joined
                           else "NULL")
        return ", ".join(out)

    def read(self, values: Sequence[Any]) -> R:
        """The row of the values a :meth:`select` returned, checked.

        Raises:
            RowError: a column does not parse or has the wrong shape (names the column).
        """
        raw: dict[str, Any] = {}
        data: dict[str, Any] = {}
        k = 0
        for f in self.fields:
            col = f.column
            if col.names:
                value: Any = tuple(values[k:k + len(col.names)])
                k += len(col.names)
            else:
                value = values[k]
                k += 1
            raw[f.name] = value
            if value is None and col.null is not None:
                value = col.null
            elif col.per_seat and isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    raise RowError(f"{f.label} is {value!r}, not JSON; expected "
                                   f"{col.expected}") from None
            data[f.name] = value
        try:
            row: R = self._adapter.validate_python(data)
        except ValidationError as exc:
            loc = exc.errors()[0]["loc"]
            bad = next((f for f in self.fields if loc and f.name == loc[0]), self.fields[0])
            raise RowError(f"{bad.label} is {raw[bad.name]!r}, expected "
                           f"{bad.column.expected}") from None
        if self.check is not None:
            self.check(row)
        return row


META = Table("meta", MetaEntry)
SCHEDULE = Table("schedule", ScheduleRow)
RESULTS = Table("results", ResultRow, ResultRow.check)
#: the store's tables, in the order they are created
TABLES: tuple[Table[Any], ...] = (META, SCHEDULE, RESULTS)
#: ``PRAGMA user_version``: the layout of the tables above. 1: the first release's tables;
#: 2: plus the ``since=2`` columns (``cpu_s``, ``peak_mib``: the sandbox's accounting).
#: Older stores are upgraded on their next writable open.
SCHEMA_VERSION = max(t.version for t in TABLES)
