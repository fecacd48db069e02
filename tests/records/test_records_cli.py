"""``arena replay``: exit codes, outputs, and one-line errors (never a traceback)."""

from __future__ import annotations

import gzip

import pytest

from arena.cli import main
from arena.records import record_from_result, write_record

from .helpers import HOSTILE, load_lines, play, save_lines


@pytest.fixture(scope="module")
def rec_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "m.jsonl.gz"
    write_record(record_from_result(play("blato", seed=6, hand_cap=2, names=HOSTILE)), path)
    return path


def run(capsys, *argv):
    code = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_replay(capsys, rec_file):
    code, out, err = run(capsys, rec_file)
    assert code == 0 and err == ""
    assert out.count("\ntrick ") == 32 and out.count("== Hand ") == 2
    for name in HOSTILE:  # plain text keeps the names as they are
        assert name in out
    assert "<script>alert(1)</script>" in out and 'O\'Brien, "Bobby"' in out


def test_hand_and_seat_options(capsys, rec_file):
    code, out, _ = run(capsys, rec_file, "--hand", "2", "--seat", "Jürgen ♠")
    assert code == 0
    assert "== Hand 2:" in out and "== Hand 1:" not in out
    assert "Seat view: Jürgen ♠ (seat 0)" in out and "your cards Jürgen ♠:" in out
    code, out2, _ = run(capsys, rec_file, "--hand", "2", "--seat", "0")
    assert code == 0 and out2 == out


def test_verify_summary(capsys, rec_file):
    code, out, err = run(capsys, rec_file, "--verify")
    assert code == 0 and err == ""
    assert out.startswith("OK ") and "verified against the rules engine" in out
    assert out.count("\n") == 1


def test_html_output(capsys, rec_file, tmp_path):
    out_file = tmp_path / "page.html"
    code, out, _ = run(capsys, rec_file, "--html", out_file)
    assert code == 0 and out == f"wrote {out_file}\n"
    html = out_file.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "Jürgen ♠" in html
    assert '"persp":["all","0","1","2"]' in html
    code, _, _ = run(capsys, rec_file, "--html", out_file, "--seat", "1")
    seat_page = out_file.read_text(encoding="utf-8")
    assert code == 0 and "view of &lt;script&gt;" in seat_page
    assert '"persp":["1"]' in seat_page and '"views":{"1":' in seat_page  # seat 1's frames only
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


@pytest.mark.parametrize("args, message", [
    (["--seat", "9"], "--seat '9' is not a seat"),
    (["--seat", "nobody"], "--seat 'nobody' is not a seat"),
    (["--hand", "3"], "--hand 3: the record has hands 1..2"),
])
def test_usage_mistakes_exit_2(capsys, rec_file, args, message):
    code, out, err = run(capsys, rec_file, *args)
    assert code == 2 and out == ""
    assert err.startswith("arena: error: ") and message in err and err.count("\n") == 1


def test_missing_file_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path / "none.jsonl")
    assert code == 2 and "record file not found" in err
    code, _, err = run(capsys, tmp_path)               # a tournament directory, say
    assert code == 2 and err == (f"arena: error: {tmp_path} is a directory: give one record "
                                 "file (a tournament's are in DIR/records/, e.g. "
                                 "records/<match>.jsonl.gz)\n")


def _plain_copy(rec_file, tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_bytes(gzip.decompress(rec_file.read_bytes()))
    return path


def test_tampered_record_exit_1_one_line(capsys, rec_file, tmp_path):
    path = _plain_copy(rec_file, tmp_path)
    objs = load_lines(path)
    objs[2]["tricks"][6]["winner"] = (objs[2]["tricks"][6]["winner"] + 1) % 3
    save_lines(path, objs)
    for extra in ([], ["--verify"], ["--html", tmp_path / "x.html"]):
        code, out, err = run(capsys, path, *extra)
        assert code == 1 and out == ""
        assert err.startswith("arena: error: hand 2, trick 7: winner: expected ")
        assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_truncated_and_unknown_version_exit_1(capsys, rec_file, tmp_path):
    path = _plain_copy(rec_file, tmp_path)
    data = path.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[:len(data) // 2])
    code, _, err = run(capsys, cut)
    assert code == 1 and err.count("\n") == 1 and "truncated" in err and str(cut) in err
    gz = tmp_path / "cut.jsonl.gz"
    gz.write_bytes(rec_file.read_bytes()[:200])
    code, _, err = run(capsys, gz)
    assert code == 1 and "truncated or corrupt gzip" in err
    objs = load_lines(path)
    objs[0]["schema_version"] = 99
    save_lines(path, objs)
    code, _, err = run(capsys, path)
    assert code == 1 and "unsupported schema_version 99" in err and err.count("\n") == 1
