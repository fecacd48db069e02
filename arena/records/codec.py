"""Reading and writing record files: JSON Lines, optionally gzip-compressed, written atomically.

Layout (docs/records.md): line 1 the header, then one line per hand, last line the result; UTF-8,
``\\n`` line ends, fields whose value is null may be omitted. A path ending in ``.gz`` is written
gzip-compressed; reading detects gzip by its magic bytes, whatever the name.

Writes are atomic (:func:`arena.atomic.atomic_write_bytes`): a crash or kill leaves either the
old file or the complete new one, never a half-written record (a SIGKILL may leave a stale
``.*.tmp`` file beside it, which readers ignore).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ..atomic import atomic_write_bytes

from .errors import RecordError
from .models import SCHEMA_VERSION, HandRecord, MatchRecord, RecordHeader, RecordResult

_M = TypeVar("_M", bound=BaseModel)

_GZIP_MAGIC = b"\x1f\x8b"


def dumps_record(record: MatchRecord) -> str:
    """The record as JSON Lines text (ends with a newline)."""
    parts: list[BaseModel] = [record.header, *record.hands, record.result]
    return "".join(p.model_dump_json(exclude_none=True) + "\n" for p in parts)


def write_record(record: MatchRecord, path: str | os.PathLike[str]) -> Path:
    """Write ``record`` to ``path`` atomically (gzip when the name ends in ``.gz``).

    Returns the path written. Raises ``OSError`` when the directory is not writable; on any
    failure the temporary file is removed and an existing target is left untouched.
    """
    target = Path(path)
    data = dumps_record(record).encode("utf-8")
    if target.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    return atomic_write_bytes(target, data)


def read_record(path: str | os.PathLike[str]) -> MatchRecord:
    """Read a record file (plain or gzip JSON Lines) and validate its shape.

    Does not re-simulate the match: see :func:`arena.records.verify_record`.

    Raises:
        RecordError: one line naming the problem -- missing/unreadable file, truncated gzip
            stream, a line that is not JSON (e.g. cut in the middle), a missing result line,
            an unknown ``schema_version``, or a field of the wrong shape (with its line).
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise RecordError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise RecordError(f"{p}: truncated or corrupt gzip data ({exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    try:
        return loads_record(text)
    except RecordError as exc:
        raise RecordError(f"{p}: {exc}") from None


def loads_record(text: str) -> MatchRecord:
    """Parse JSON Lines text into a :class:`MatchRecord` (see :func:`read_record`).

    Raises:
        RecordError: as :func:`read_record`, messages start with ``line N``.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        # no final newline: a writer always ends with one, so the last line was cut
        n = len(lines)
        try:
            json.loads(lines[-1])
        except ValueError:
            raise RecordError(f"line {n}: truncated (not complete JSON)") from None
    if not lines:
        raise RecordError("empty file, not a match record")
    objs = [_json_line(i, line) for i, line in enumerate(lines, start=1)]
    head = objs[0]
    if not isinstance(head, dict) or head.get("type") != "header":
        raise RecordError("line 1: not a match record header (no \"type\": \"header\")")
    version = head.get("schema_version")
    if version != SCHEMA_VERSION:
        raise RecordError(f"line 1: unsupported schema_version {version!r} "
                          f"(this arena reads version {SCHEMA_VERSION})")
    header = _model(RecordHeader, 1, head)
    hands: list[HandRecord] = []
    result: RecordResult | None = None
    for i, obj in enumerate(objs[1:], start=2):
        kind = obj.get("type") if isinstance(obj, dict) else None
        if result is not None:
            raise RecordError(f"line {i}: data after the result line")
        if kind == "hand":
            hands.append(_model(HandRecord, i, obj))
        elif kind == "result":
            result = _model(RecordResult, i, obj)
        else:
            raise RecordError(f"line {i}: unknown line type {kind!r} (expected hand or result)")
    if result is None:
        last = f"hand {hands[-1].hand}" if hands else "the header"
        raise RecordError(f"truncated: no result line after {last} (line {len(objs)})")
    return MatchRecord.model_construct(header=header, hands=hands, result=result)


def _json_line(number: int, line: str) -> object:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})"
                          ) from None
    except (ValueError, RecursionError) as exc:  # e.g. a number too long, nesting too deep
        raise RecordError(f"line {number}: not valid JSON ({type(exc).__name__}: "
                          f"{str(exc)[:120]})") from None


def _model(cls: type[_M], number: int, obj: object) -> _M:
    try:
        return cls.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "(line)"
        label = f"hand {obj.get('hand')}" if cls is HandRecord and isinstance(obj, dict) else (
            cls.__name__.replace("Record", "").lower() or "line")
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise RecordError(f"line {number} ({label}): field {loc}: {err['msg']}{more}") from None
