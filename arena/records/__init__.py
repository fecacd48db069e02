"""Match records: the format (schema version 1, docs/records.md), files, verification, replay.

Public API::

    from arena.records import record_from_result, write_record, read_record, verify_record
    record = record_from_result(result)          # MatchOutcome -> MatchRecord
    write_record(record, "m1.jsonl.gz")          # atomic; gzip when the name ends in .gz
    record = read_record("m1.jsonl.gz")          # RecordError when unreadable / truncated
    verify_record(record)                        # RecordMismatch naming the first mismatch
    print(render_text(record, seat=1))           # text replay (what seat 1 knew)
    html = render_html(record)                   # self-contained HTML page
"""

from .build import record_from_result
from .codec import dumps_record, loads_record, read_record, write_record
from .errors import RecordError, RecordMismatch
from .html import render_html
from .models import (SCHEMA_VERSION, DecisionRecord, ExchangeRecord, HandRecord, MatchRecord,
                     RecordHeader, RecordResult, SeatInfo, SeedText, TrickRecordModel)
from .text import render_text
from .verify import rules_of, verify_record

__all__ = [
                     "SCHEMA_VERSION",
                     "DecisionRecord",
                     "ExchangeRecord",
                     "HandRecord",
                     "MatchRecord",
                     "RecordError",
                     "RecordHeader",
                     "RecordMismatch",
                     "RecordResult",
                     "SeatInfo",
                     "SeedText",
                     "TrickRecordModel",
                     "dumps_record",
                     "loads_record",
                     "read_record",
                     "record_from_result",
                     "render_html",
                     "render_text",
                     "rules_of",
                     "verify_record",
                     "write_record",
]
