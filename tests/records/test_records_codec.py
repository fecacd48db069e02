"""Record files: gzip, atomic writes, and unreadable / truncated / unknown-version files."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.records import (RecordError, dumps_record, read_record, record_from_result,
                           write_record)

from .helpers import load_lines, play, save_lines


@pytest.fixture(scope="module")
def record():
    return record_from_result(play("sergeant-major", seed=4, hand_cap=2))


def test_layout_header_hands_result(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl")
    objs = load_lines(path)
    assert [o["type"] for o in objs] == ["header", "hand", "hand", "result"]
    assert objs[0]["schema_version"] == 1 and objs[0]["seed"] == {"type": "int", "value": "4"}
    assert objs[1]["hand"] == 1 and objs[2]["hand"] == 2
    assert path.read_text(encoding="utf-8") == dumps_record(record)
    assert oct(path.stat().st_mode & 0o777) == "0o644"


def test_gzip_round_trip_and_detection(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl.gz")
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw).decode() == dumps_record(record)
    assert read_record(path) == record
    # gzip is detected by content, not by name
    other = tmp_path / "renamed.jsonl"
    other.write_bytes(raw)
    assert read_record(other) == record
    # deterministic bytes (mtime 0): same record, same file
    assert write_record(record, tmp_path / "again.jsonl.gz").read_bytes() == raw


def test_atomic_write_leaves_no_temp_files(tmp_path, record):
    write_record(record, tmp_path / "a.jsonl")
    write_record(record, tmp_path / "a.jsonl")  # overwrite
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_crash_during_write_leaves_old_file_and_no_temp(tmp_path, record, monkeypatch):
    target = tmp_path / "r.jsonl"
    target.write_text("old contents\n")

    def boom(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        write_record(record, target)
    assert target.read_text() == "old contents\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]
    fresh = tmp_path / "new.jsonl"
    with pytest.raises(OSError):
        write_record(record, fresh)
    assert not fresh.exists()


def test_killed_writer_never_leaves_a_partial_record(tmp_path, record):
    """SIGKILL a process in the middle of write_record: the target never appears."""
    src = tmp_path / "src.jsonl"
    write_record(record, src)
    target = tmp_path / "out" / "r.jsonl"
    target.parent.mkdir()
    code = textwrap.dedent(f"""
        import os, sys, time
        from arena.records import read_record, write_record
        rec = read_record({str(src)!r})
        real = os.fsync
        def slow(fd):
            sys.stdout.write("writing\\n"); sys.stdout.flush()
            time.sleep(30)
        os.fsync = slow
        write_record(rec, {str(target)!r})
    """)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout.readline() == b"writing\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not target.exists()
    leftovers = list(target.parent.iterdir())
    assert all(p.name.startswith(".r.jsonl.") and p.name.endswith(".tmp") for p in leftovers)


def _cut(path: Path, size: int) -> Path:
    out = path.with_name("cut-" + path.name)
    out.write_bytes(path.read_bytes()[:size])
    return out


def test_truncated_in_the_middle_of_a_line(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl")
    data = path.read_bytes()
    second_line_end = data.index(b"\n", data.index(b"\n") + 1)
    with pytest.raises(RecordError, match=r"line 2: truncated \(not complete JSON\)"):
        read_record(_cut(path, second_line_end - 100))
    with pytest.raises(RecordError, match=r"truncated: no result line after hand 1 \(line 2\)"):
        read_record(_cut(path, second_line_end + 1))
    with pytest.raises(RecordError, match="truncated: no result line after the header"):
        read_record(_cut(path, data.index(b"\n") + 1))


def test_truncated_gzip(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl.gz")
    with pytest.raises(RecordError, match="truncated or corrupt gzip"):
        read_record(_cut(path, path.stat().st_size // 2))


def test_unknown_schema_version(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl")
    objs = load_lines(path)
    objs[0]["schema_version"] = 2
    save_lines(path, objs)
    with pytest.raises(RecordError, match=r"line 1: unsupported schema_version 2 \(this arena "
                       r"reads version 1\)"):
        read_record(path)


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"),
    (b"\xff\xfe\n", "not UTF-8"),
    (b"hello\n", r"line 1: not valid JSON"),
    (b'{"type": "hand"}\n', "line 1: not a match record header"),
])
def test_garbage_files(tmp_path, content, message):
    path = tmp_path / "g.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        read_record(path)


def test_missing_file(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "nope.jsonl")


def test_wrong_shapes_name_line_and_field(tmp_path, record):
    path = write_record(record, tmp_path / "r.jsonl")
    objs = load_lines(path)
    objs[2]["dealt"][1][4] = "1X"
    save_lines(path, objs)
    with pytest.raises(RecordError, match=r"line 3 \(hand 2\): field dealt\.1\.4: .*not a card"):
        read_record(path)
    objs = load_lines(write_record(record, tmp_path / "r.jsonl"))
    objs[1]["decisions"][0]["seat"] = 7
    objs.insert(3, {"type": "weird"})
    save_lines(path, objs)
    with pytest.raises(RecordError, match=r"line 2 \(hand 1\): field decisions\.0\.seat"):
        read_record(path)
    objs.pop(1)
    save_lines(path, objs)
    with pytest.raises(RecordError, match=r"line 3: unknown line type 'weird'"):
        read_record(path)
    objs = load_lines(write_record(record, tmp_path / "r.jsonl"))
    save_lines(path, [*objs, objs[1]])
    with pytest.raises(RecordError, match=r"line 5: data after the result line"):
        read_record(path)
