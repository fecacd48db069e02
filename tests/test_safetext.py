"""Bot-supplied text is made printable before it reaches a terminal or a page, through one
helper module: names, versions, error messages, answers, log lines."""

from __future__ import annotations

import asyncio
import unicodedata

import pytest

from arena.match import LocalBot, MatchSpec, run_match
from arena.records import read_record, record_from_result, render_html, render_text, write_record
from arena.rules import make_config
from arena.safetext import markdown_cell, markdown_text, printable
from arena.tournament.standings import compute_standings, format_standings
from arena.tournament.store import ResultRow
from tests.rows import result_row

ESC_CLEAR = "\x1b[2J\x1b[H"
HOSTILE_TEXT = [ESC_CLEAR + "gotcha", "rtl\u202eevil", "bell\x07", "c1\x9b31m", "nul\x00",
                "iso\u2066x\u2069", "zw\u200bsp", "ls\u2028ps\u2029", "tag\U000e0041"]
UNSAFE = {"Cc", "Cf", "Zl", "Zp"}


def unsafe_chars(text: str, allowed: str = "\n") -> set[str]:
    return {ch for ch in text if unicodedata.category(ch) in UNSAFE and ch not in allowed
            and ch != "\u200d"}


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_printable_escapes_controls_and_bidi(text):
    out = printable(text)
    assert unsafe_chars(out, allowed="") == set()
    assert printable(out) == out                      # idempotent
    assert all(ch in out for ch in text if unicodedata.category(ch) not in UNSAFE)


def test_printable_keeps_ordinary_text():
    for text in ("Jürgen ♠", "O'Brien, \"Bobby\"", "👩‍💻 coder", "日本語", "tab-less", ""):
        assert printable(text) == text
    assert printable("a\x1bb\u202ec\U000e0041") == "a\\u001bb\\u202ec\\U000e0041"


@pytest.mark.parametrize("name,expected", [
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("*bold* _x_", "\\*bold\\* \\_x\\_"),
    ("[link](http://x)", "\\[link\\](http://x)"),
    ("a|b", "a\\|b"), ("~~s~~", "\\~\\~s\\~\\~"), ("![i](x)", "\\!\\[i\\](x)"),
    ("`code`", "\\`code\\`"), ("#1", "\\#1"), ("&amp;", "&amp;amp;"),
    ("two\nlines", "two\\u000alines"), ("rtl\u202e", "rtl\\u202e"),
])
def test_markdown_cell(name, expected):
    assert markdown_cell(name) == expected


@pytest.mark.parametrize("line,expected", [
    ('"> x" / "< x": a bound', '"> x" / "< x": a bound'),       # no &gt; on a terminal
    ("the 95% bound (> or <) by the data", "the 95% bound (> or <) by the data"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"),
    ("</b> <!-- c --> <?php", "&lt;/b> &lt;\\!-- c --> &lt;?php"),
    ("<http://x>", "&lt;http://x>"), ("> quote", "&gt; quote"),
    ("&amp; &#60; a & b", "&amp;amp; &amp;\\#60; a & b"),
    ("*bold* _x_ [l](u)", "\\*bold\\* \\_x\\_ \\[l\\](u)"), ("rtl\u202e", "rtl\\u202e"),
])
def test_markdown_text_escapes_only_what_starts_markup(line, expected):
    assert markdown_text(line) == expected


HOSTILE_NAMES = ("<img src=x onerror=alert(1)>", "*bold* _x_", "pipe|bot")


def rows() -> list[ResultRow]:
    out = []
    for k in range(12):
        seats = tuple(HOSTILE_NAMES[(k + i) % 3] for i in range(3))
        places = [(1, 2, 3), (2, 3, 1), (3, 1, 2)][k % 3]
        out.append(result_row(f"m{k}", f"b{k // 6}", seats, places=places, scores=(1, 0, -1),
                              decisions=(5, 5, 5)))
    return out


def test_standings_md_escapes_hostile_names():
    st = compute_standings(rows(), list(HOSTILE_NAMES))
    md = format_standings(st, "md")
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "\\*bold\\* \\_x\\_" in md and "pipe\\|bot" in md
    table = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len({ln.replace("\\|", "").count("|") for ln in table}) == 1   # no broken row
    text = format_standings(st, "text")
    assert "<img src=x onerror=alert(1)>" in text          # a terminal shows it as it is


class Hostile:
    """Plays the first legal action, but raises a hostile error on its 2nd decision and
    answers a hostile non-action on its 3rd."""

    def __init__(self) -> None:
        self.n = 0

    def decide(self, view):
        self.n += 1
        if self.n == 2:
            raise RuntimeError(ESC_CLEAR + "pwned \u202eevil\x07")
        if self.n == 3:
            return "\x1b]0;title\x07"
        return view.legal_actions[0]


class First:
    def decide(self, view):
        return view.legal_actions[0]


@pytest.fixture(scope="module")
def hostile_record(tmp_path_factory):
    bots = [LocalBot(First(), "a\x1b[31mred", version="1\x1b]0;x\x07"),
            LocalBot(Hostile(), "rtl\u202eevil", version="v\u2066"),
            LocalBot(First(), "plain", version="\x9b2J")]
    spec = MatchSpec("m\x1b[2J1", make_config(hand_cap=1), seed=1, max_faults=2)
    result = asyncio.run(run_match(spec, bots))
    assert result.forfeited == (False, True, False)
    path = tmp_path_factory.mktemp("hostile") / "h.jsonl"
    write_record(record_from_result(result), path)
    return read_record(path)


def test_text_replay_is_printable(hostile_record):
    text = render_text(hostile_record)
    assert unsafe_chars(text) == set()
    assert "pwned \\u202eevil\\u0007" in text and "rtl\\u202eevil" in text


@pytest.mark.parametrize("seat", [None, 1])
def test_html_replay_has_no_control_or_bidi_character(hostile_record, seat):
    html = render_html(hostile_record, seat=seat)
    assert unsafe_chars(html) == set()
    assert "\\u001b]0;x\\u0007" in html            # the version, shown escaped


def test_log_lines_are_made_printable():
    import logging
    from arena.commands._logging import PrintableFormatter
    record = logging.LogRecord("arena.protocol", logging.WARNING, __file__, 1,
                               "bot %r: reported an error: %s", ("x", ESC_CLEAR + "\u202e"),
                               None)
    line = PrintableFormatter("%(message)s").format(record)
    assert unsafe_chars(line, allowed="") == set() and "\\u001b[2J" in line
