"""Validation of the rows read back from the results store (:mod:`arena.tournament.store`).

SQLite keeps what it is given, so a row may have been damaged by hand, by another tool or on
disk: well-formed JSON of the wrong shape (``placings = '[1,2]'``) must not reach the
standings or ratings as a traceback. :func:`result_values` and :func:`schedule_values` check
every column of one row with pydantic and return plain values, or raise :class:`RowError`
with one line naming the column, what it holds and what was expected.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr,
                      ValidationError, field_validator, model_validator)


from ..safetext import printable


class RowError(ValueError):
    """A stored row does not have the expected shape; the message names the column."""


Place = Annotated[StrictInt, Field(ge=1, le=3)]
Count = Annotated[StrictInt, Field(ge=0)]
Millis = Annotated[StrictInt | StrictFloat, Field(ge=0)]
Reason = StrictStr | None
#: a sandbox accounting figure (CPU seconds, peak MiB), null where not measured
Usage = Annotated[StrictInt | StrictFloat, Field(ge=0)] | None

#: what each column must hold, for the error message
EXPECTED = {
    "match_id": "text", "block_id": "text", "seats": "3 bot names (printable text)",
    "status": "'normal' or 'forfeit' ('forfeit' exactly when a seat forfeited)",
    "placings": "3 places, each 1 to 3", "scores": "3 integers",
    "faults": "3 counts (integers >= 0)", "forfeited": "3 booleans",
    "forfeit_reasons": "3 texts or nulls", "end_reason": "text or null",
    "hands": "a count (integer >= 0)", "decisions": "3 counts (integers >= 0)",
    "think_ms": "3 finite numbers >= 0 (milliseconds)",
    "record": "a relative path under records/",
    "cpu_s": "null or 3 numbers >= 0 or nulls (CPU seconds)",
    "peak_mib": "null or 3 numbers >= 0 or nulls (MiB)",
    "table_idx": "an integer >= 0", "deal_idx": "an integer >= 0",
    "seating_idx": "an integer >= 0", "seed": "hexadecimal text",
}


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _names(v: tuple[str, str, str]) -> tuple[str, str, str]:
    if any(not name or printable(name) != name for name in v):
        raise ValueError("not bot names")   # a config never gives such names
    return v


class StoredResult(_Row):
    """One row of ``results`` joined with its schedule row (per-seat tuples follow ``seats``)."""

    match_id: StrictStr
    block_id: StrictStr
    seats: tuple[StrictStr, StrictStr, StrictStr]
    status: Literal["normal", "forfeit"]
    placings: tuple[Place, Place, Place]
    scores: tuple[StrictInt, StrictInt, StrictInt]
    faults: tuple[Count, Count, Count]
    forfeited: tuple[StrictBool, StrictBool, StrictBool]
    forfeit_reasons: tuple[Reason, Reason, Reason]
    end_reason: Reason
    hands: Count
    decisions: tuple[Count, Count, Count]
    think_ms: tuple[Millis, Millis, Millis]
    record: StrictStr
    #: per seat, the sandbox's accounting; null in stores older than it
    cpu_s: tuple[Usage, Usage, Usage] | None = None
    peak_mib: tuple[Usage, Usage, Usage] | None = None

    _seat_names = field_validator("seats")(_names)

    @field_validator("think_ms")
    @classmethod
    def _finite(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        if not all(math.isfinite(x) for x in v):
            raise ValueError("not finite")
        return v

    @field_validator("record")
    @classmethod
    def _relative(cls, v: str) -> str:
        if not v.startswith("records/") or ".." in v.split("/"):
            raise ValueError("not under records/")
        return v

    @model_validator(mode="after")
    def _status(self) -> StoredResult:
        if (self.status == "forfeit") != any(self.forfeited):
            raise ValueError("status")
        return self


class StoredSchedule(_Row):
    """One row of ``schedule``."""

    match_id: StrictStr
    block_id: StrictStr
    table_idx: Count
    deal_idx: Count
    seating_idx: Count
    seats: tuple[StrictStr, StrictStr, StrictStr]
    seed: StrictStr

    _seat_names = field_validator("seats")(_names)

    @field_validator("seed")
    @classmethod
    def _hex(cls, v: str) -> str:
        bytes.fromhex(v)
        return v


_JSON_COLUMNS = ("placings", "scores", "faults", "forfeited", "forfeit_reasons", "decisions",
                 "think_ms", "cpu_s", "peak_mib")


def _row_error(exc: ValidationError, raw: dict[str, Any]) -> RowError:
    err = exc.errors()[0]
    column = str(err["loc"][0]) if err["loc"] else "status"   # the model check is on status
    return RowError(f"{column} is {raw.get(column)!r}, expected "
                    f"{EXPECTED.get(column, 'another value')}")


def result_values(raw: dict[str, Any]) -> StoredResult:
    """Validate one stored result: ``raw`` maps column names to what SQLite returned (JSON
    columns as text).

    Raises:
        RowError: a column does not parse or has the wrong shape.
    """
    data = dict(raw)
    for column in _JSON_COLUMNS:
        text = raw.get(column)
        try:
            data[column] = json.loads(text) if isinstance(text, str) else text
        except ValueError:
            raise RowError(f"{column} is {text!r}, not JSON; expected "
                           f"{EXPECTED[column]}") from None
    try:
        return StoredResult.model_validate(data)
    except ValidationError as exc:
        raise _row_error(exc, raw) from None


def schedule_values(raw: dict[str, Any]) -> StoredSchedule:
    """Validate one schedule row (``raw``: column name -> value).

    Raises:
        RowError: a column has the wrong type or form.
    """
    try:
        return StoredSchedule.model_validate(raw)
    except ValidationError as exc:
        raise _row_error(exc, raw) from None
