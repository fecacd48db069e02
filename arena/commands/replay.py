"""``arena replay RECORD [--hand N] [--seat S] [--verify] [--html OUT.html]``.

Reads a match record (``.jsonl`` or ``.jsonl.gz``, docs/records.md), always verifies it by
re-simulation with the rules engine, then:

- by default prints the trick-by-trick text replay (``--hand N`` limits it to hand N,
  ``--seat S`` shows only what seat S -- a number 0..2 or a bot name -- knew);
- ``--verify`` prints one summary line instead of the replay;
- ``--verify --json`` prints that summary as one line of JSON instead (``"ok": true`` plus
  the keys of :func:`arena.commands._summary.record_summary`), and a failed verification as
  ``{"ok": false, "path": ..., "error": ...}`` on stdout (exit 1);
- ``--html OUT.html`` writes a self-contained HTML replay page (atomically) instead of the text
  (``--seat`` applies to it as well).

Exit codes: 0 success; 1 the record is unreadable, truncated, of an unknown schema version or
fails verification (one ``arena: error: ...`` line naming the first problem, never a
traceback); 2 a usage mistake (missing file, bad ``--seat`` / ``--hand``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import UserError
from ..wording import plural
from ._values import cli_int
from ..atomic import atomic_write_bytes
from ..safetext import printable as clean   # = records.text.clean

if TYPE_CHECKING:
    from ..records import MatchRecord


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena replay``."""
    p = sub.add_parser("replay", help="replay, verify or render a match record",
                       description="Replay a match record trick by trick (it is always "
                       "verified against the rules engine first).")
    p.add_argument("record", help="record file (.jsonl or .jsonl.gz)")
    p.add_argument("--hand", type=cli_int(), metavar="N", help="show only hand N (1-based)")
    p.add_argument("--seat", metavar="S",
                   help="show only what seat S (0, 1, 2 or a bot name) knew at each moment")
    p.add_argument("--verify", action="store_true",
                   help="only verify the record and print a summary line")
    p.add_argument("--json", action="store_true",
                   help="with --verify: print the result as one line of JSON")
    p.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML replay page")
    p.set_defaults(func=run)


def _seat(record: MatchRecord, text: str | None) -> int | None:
    if text is None:
        return None
    if text.strip() in ("0", "1", "2"):
        return int(text)
    names = record.names
    hits = [s for s in range(3) if names[s] == text]
    if len(hits) == 1:
        return hits[0]
    shown = ", ".join(f"{s} {clean(n)!r}" for s, n in enumerate(names))
    what = "names more than one seat" if hits else "is not a seat"
    raise UserError(f"--seat {clean(text)!r} {what}; seats: {shown}")


def _emit(text: str, stream: TextIO | None = None) -> None:
    """Write text; characters the stream cannot encode are written as escapes."""
    stream = stream or sys.stdout
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(enc, "backslashreplace").decode(enc))


def _failed(args: argparse.Namespace, path: Path, message: str) -> int:
    """Report a record that cannot be read or verified; exit status 1."""
    if args.json:
        from ._summary import dumps
        _emit(dumps({"ok": False, "path": str(path), "error": message}))
    _emit(f"arena: error: {message}\n", sys.stderr)
    return 1


def _record_file(text: str) -> Path:
    """The record file named on the command line. Raises: UserError when it is a directory
    or does not exist."""
    path = Path(text)
    if path.is_dir():
        raise UserError(f"{path} is a directory: give one record file (a tournament's are in "
                        "DIR/records/, e.g. records/<match>.jsonl.gz)")
    if not path.is_file():
        raise UserError(f"record file not found: {path}")
    return path


def run(args: argparse.Namespace) -> int:
    """Run the command; see the module docstring for output and exit codes."""
    if args.json and not args.verify:
        raise UserError("--json goes with --verify (the replay itself is text or --html)")
    from ..records import RecordError, read_record, render_html, render_text, verify_record
    path = _record_file(args.record)
    if args.html and Path(args.html).resolve() == path.resolve():
        raise UserError(f"--html {args.html} would overwrite the record itself")
    try:
        record = read_record(path)
        verify_record(record)
    except RecordError as exc:
        return _failed(args, path, clean(str(exc)))
    except (RecursionError, MemoryError) as exc:
        return _failed(args, path, f"{path}: not a usable record ({type(exc).__name__}: "
                       "nested too deeply or too large)")
    seat = _seat(record, args.seat)
    n = len(record.hands)
    if args.hand is not None and not 1 <= args.hand <= n:
        raise UserError(f"--hand {args.hand}: the record has hands 1..{n}")
    if args.verify and args.json:
        from ._summary import dumps, record_summary
        _emit(dumps({"ok": True, "path": str(path), **record_summary(record)}))
    elif args.verify:
        decisions = sum(len(h.decisions) for h in record.hands)
        faults = sum(s.faults for s in record.header.seats)
        _emit(f"OK {path}: match {clean(record.header.match_id)}, {plural(n, 'hand')}, "
              f"{plural(decisions, 'decision')}, {plural(faults, 'fault')}, scores "
              f"{list(record.result.scores)}, placings "
              f"{list(record.result.placings)}: verified against the rules engine\n")
    if args.html:
        out = Path(args.html)
        try:
            page = render_html(record, seat=seat, verify=False)
        except ModuleNotFoundError as exc:
            raise UserError(f"--html needs the {exc.name} package (pip install jinja2)") from None
        try:
            atomic_write_bytes(out, page.encode("utf-8"))
        except OSError as exc:
            raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
        _emit(f"wrote {out}\n")
    if not args.verify and not args.html:
        _emit(render_text(record, seat=seat, hand=args.hand, verify=False))
    return 0
