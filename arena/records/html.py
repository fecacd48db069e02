"""A self-contained HTML replay page of a record (``arena replay RECORD --html OUT.html``).

One file, inline CSS, JavaScript and SVG, no network. The page shows the card table (the three
hands, the kitty and the discards, the cards on the table, tricks won vs target, scores), the
exchange as cards flying between hands, a trick history of the current hand (leader, cards in
order, winner), a clickable move list with each decision's think time and faults, a step
slider, a per-hand score sheet and an inline-SVG chart of the match scores. Navigation: the
slider, the move list, buttons, arrow keys Left/Right, Home/End, PageUp/PageDown per hand; the
URL fragment ``#step=N`` (0-based; ``&view=all|0|1|2`` picks the perspective) selects what is
shown, so ``chromium --headless --dump-dom 'file:///.../replay.html#step=40'`` renders step 40.

Frames are computed here by re-simulating the match with the engine
(:mod:`arena.records.html_frames`), so the page holds no rules code. A full page embeds four
perspectives (all cards, and each seat's view from ``view_of(state, seat)``) and switches between
them in the page; with ``seat=S`` only seat S's perspective is embedded, so the file holds
nothing seat S did not know.

Safety: the page is rendered by jinja2 with autoescape (names in markup are escaped, and
every value made printable by :func:`arena.safetext.html_finalize`); the data is embedded as JSON
in a ``<script type="application/json">`` block with ``<``, ``>``, ``&`` and every control,
format and line/paragraph-separator character written as a ``\\uXXXX`` escape (no raw ESC
byte, no way to close the script element); the script writes bot-supplied text only with
``textContent``.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from typing import TYPE_CHECKING

from ..safetext import html_finalize
from .html_frames import Json, key_of, perspective_data, public_data
from . import html_template
from .models import MatchRecord
from .text import clean, seat_labels

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup
from .verify import verify_record

_UNSAFE = re.compile("[<>&\u2028\u2029]|[^\x20-\x7e]")


def _escape(m: re.Match[str]) -> str:
    ch: str = m.group(0)
    if ch in "<>&\u2028\u2029" or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
        if ord(ch) > 0xFFFF:  # as a UTF-16 surrogate pair, as JSON wants
            v = ord(ch) - 0x10000
            return f"\\u{0xD800 + (v >> 10):04x}\\u{0xDC00 + (v & 0x3FF):04x}"
        return f"\\u{ord(ch):04x}"
    return ch


def script_json(data: object) -> Markup:
    """JSON safe to embed inside a ``<script>`` element: no ``</script>``, no ``<!--``, and no
    raw control/format/separator character (each is a ``\\uXXXX`` escape, so the text parses
    to the same value)."""
    text = _UNSAFE.sub(_escape, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    from markupsafe import Markup  # jinja2's dependency; imported late (optional for text)
    return Markup(text)


def render_html(record: MatchRecord, *, seat: int | None = None, verify: bool = True) -> str:
    """The replay page of ``record`` as one HTML document (text).

    Args:
        seat: embed only what this seat (0..2) knew; None embeds all four perspectives.
        verify: run :func:`verify_record` first.

    Raises:
        RecordMismatch / RecordError: when verification fails. ValueError: bad ``seat``.
    """
    if seat is not None and seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    if verify:
        verify_record(record)
    data = page_data(record, seat)
    labels = list(seat_labels(record.names))
    from markupsafe import Markup
    h = record.header
    return _template().render(
        title=f"358 Arena replay: {clean(h.match_id)}", header=h, labels=labels,
        seat=seat, result=record.result, chart=score_chart(record, labels),
        versions=[clean(s.version) for s in h.seats],
        persp=data["persp"], data=script_json(data),
        style=Markup(html_template.style()), script=Markup(html_template.script()))


@functools.cache
def _template() -> jinja2.Template:
    import jinja2  # imported here so text replays work without it
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                             finalize=html_finalize)   # no control or bidi character on the page
    return env.from_string(html_template.template())


def page_data(record: MatchRecord, seat: int | None = None) -> Json:
    """The JSON the page renders (see :mod:`arena.records.html_frames` for the shapes).

    Keys: ``names`` labels by seat, ``view`` the only seat of a ``seat=S`` page or None,
    ``match``, ``persp`` the perspective keys embedded (``["all", "0", "1", "2"]``, or
    ``["S"]`` for a seat page), ``hands`` and ``steps`` (public, :func:`public_data`),
    ``views`` perspective key -> :func:`perspective_data`, ``seats`` per seat the match's
    totals (``faults``, ``think_ms`` total, ``asked`` decisions, ``forfeit`` reason or "",
    final ``score`` and ``place``: the page shows them at the last step only; before it, the
    figures up to the step shown), ``chart`` the score chart's geometry (:func:`score_chart`
    without the seat lines, which the page draws up to the step shown).
    """
    labels = list(seat_labels(record.names))
    persp = [None, 0, 1, 2] if seat is None else [seat]
    chart = score_chart(record, labels)
    res = record.result
    return {"names": labels, "view": seat, "match": clean(record.header.match_id),
            "persp": [key_of(p) for p in persp], **public_data(record),
            "views": {key_of(p): perspective_data(record, labels, p) for p in persp},
            "seats": [{"faults": s.faults, "think_ms": s.think_ms, "asked": s.decisions_asked,
                       "forfeit": clean(s.forfeit_reason or ""), "score": res.scores[s.seat],
                       "place": res.placings[s.seat]} for s in record.header.seats],
            "chart": {k: v for k, v in chart.items() if k != "lines"}}


#: score chart geometry (SVG user units) and the seat colours (colour-blind safe, Okabe-Ito)
CHART_W, CHART_H, CHART_PAD = 640, 220, 36
COLOURS = ("#0072b2", "#d55e00", "#009e73")


def score_chart(record: MatchRecord, labels: list[str]) -> Json:
    """Geometry of the per-hand match-score chart (inline SVG: the frame and the hand axis
    drawn by the template, the score axis and a line per seat drawn by the page up to the
    step shown, scaled to the scores shown so far, so the chart never tells what is to come).

    Returns ``x`` (x of "start" then of each hand), ``xticks`` [(x, label)], ``lines`` per
    seat {``name``, ``colour``}, ``colours``, the plot box ``left``, ``right``, ``top``,
    ``bottom`` and the size ``w``, ``h`` (SVG user units).
    """
    n = len(record.hands)
    left, right, top, bottom = CHART_PAD + 8, CHART_W - 12, 12, CHART_H - 28

    def x_of(i: int) -> float:
        return round(left + (right - left) * i / max(1, n), 1)

    every = max(1, -(-n // 12))
    return {"x": [x_of(i) for i in range(n + 1)],
            "xticks": [(x_of(i), str(i)) for i in range(0, n + 1, every)],
            "lines": [{"name": labels[s], "colour": COLOURS[s]} for s in range(3)],
            "colours": list(COLOURS), "w": CHART_W, "h": CHART_H,
            "left": left, "right": right, "top": top, "bottom": bottom}
