"""HTML of the live page: the document and its fragments (rendered server-side by jinja2 with
autoescape and :func:`arena.safetext.html_finalize`, so every bot-supplied string is text),
and the JSON the event stream carries.

The page's script only ever inserts server-rendered (escaped) fragments as HTML; everything
it builds itself from event data (the live matches' moves, names) goes in as ``textContent``.
"""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from ..safetext import html_finalize, printable
from ..tournament.standings import (HEADERS, TABLE_KEYS, Standings, standings_legend,
                                    table_rows)
from . import page_assets
from .eta import Eta
from .state import LiveState, Snapshot
from .svg import h2h_matrix, rating_plot

FRAGMENTS = {
    "progress": """
{% if s.scheduled %}<progress max="{{ s.scheduled }}" value="{{ s.done }}"></progress>{% endif %}
<span id="done">{{ s.done }}</span> of {{ s.scheduled }} matches finished{% if inflight %},
{{ inflight }} in flight{% endif %}.
{% if s.done >= s.scheduled and s.scheduled %}The tournament is complete.
{% elif eta is not none %}<span id="eta">ETA {{ eta }}</span>.{% else %}ETA: after a few more
matches.{% endif %}
""",
    "standings": """
<div class="scroll"><table class="standings"><thead>
<tr>{% for h in headers %}<th>{{ h }}</th>{% endfor %}</tr>
</thead><tbody>{% for row in rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>
{% endfor %}</tbody></table></div>
{% for n in notes %}<p class="note">{{ n }}</p>{% endfor %}
<ul class="legend">{% for line in legend %}<li>{{ line }}</li>{% endfor %}</ul>
""",
    "finished": """
{% if s.waiting %}<p class="note" id="waiting">{{ s.waiting }} finished match{{ '' if
s.waiting == 1 else 'es' }} not listed yet: a match (and its replay) is listed once its whole
duplicate block (one deal in all 6 seatings) is finished.</p>{% endif %}
{% if not s.finished %}{% if not s.waiting %}<p class="note">No finished match yet.</p>{% endif
%}{% else %}<div class="scroll"><table><thead>
<tr><th>match</th><th>seats (place, score)</th><th>end</th><th>replay</th></tr>
</thead><tbody>{% for r in s.finished %}<tr><td>{{ r.match_id }}</td><td>
{% for i in range(3) %}{{ r.players[i] }} ({{ r.places[i] }}, {{ '%+d' % r.scores[i] }})
{% if not loop.last %} &middot; {% endif %}{% endfor %}</td><td>{{ r.end_reason or r.status }}
</td><td><a class="replay" href="replay/{{ quote(r.match_id) }}">replay</a></td></tr>
{% endfor %}</tbody></table></div>{% endif %}
""",
    "faults": """
{% if s.logs_held %}<p class="note" id="logs-held">{{ s.logs_held }}</p>{% endif %}
{% for bot in s.bots %}{% set f = s.faults.get(bot, (0, 0, ())) %}
<details class="bot"{% if f[0] or f[1] %} open{% endif %}><summary>{{ bot }}: {{ f[0] }}
fault{{ '' if f[0] == 1 else 's' }}, {{ f[1] }} forfeit{{ '' if f[1] == 1 else 's' }}</summary>
{% for reason in f[2] %}<p class="reason">{{ reason }}</p>{% endfor %}
{% if not s.logs_held %}<pre class="log">{% for line in (s.log_tails.get(bot) or '(no log)'
).splitlines() %}{{ line }}
{% endfor %}</pre>{% endif %}</details>
{% endfor %}
""",
}


def _env() -> jinja2.Environment:
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                             finalize=html_finalize)
    env.globals["quote"] = lambda s: quote(str(s), safe="")
    return env


_ENV = _env()
_TEMPLATES = {k: _ENV.from_string(v) for k, v in FRAGMENTS.items()}
_PAGE = _ENV.from_string(page_assets.page_template())


def format_seconds(seconds: float) -> str:
    """``"1 h 02 min"`` / ``"3 min 05 s"`` / ``"12 s"``."""
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def format_eta(eta: Eta | None) -> str | None:
    """``"3 min 05 s to 4 min 10 s"`` (one figure when the range rounds to one), ``"at
    least ..."`` for a lower bound; None stays None."""
    if eta is None:
        return None
    low, high = format_seconds(eta.low_s), format_seconds(eta.high_s)
    text = low if low == high else f"{low} to {high}"
    if eta.lower_bound:
        return (f"at least {low} ({', '.join(map(printable, eta.unmeasured))} not "
                "measured yet)")
    return text


#: the snapshot whose standings, plots and lists were rendered last: (snapshot, fragments by
#: element id, the same as JSON object members without the braces); every browser gets the
#: same snapshot, and only the progress line changes with the matches in flight
_LAST: list[tuple[Snapshot | None, dict[str, str], str]] = [(None, {}, "")]


def fragments(snap: Snapshot, inflight: int) -> dict[str, str]:
    """Every server-rendered part of the page, by element id."""
    return {"progress": _progress(snap, inflight), **_rendered(snap)[0]}


def _progress(snap: Snapshot, inflight: int) -> str:
    return _TEMPLATES["progress"].render(s=snap, inflight=inflight, eta=format_eta(snap.eta))


def _rendered(snap: Snapshot) -> tuple[dict[str, str], str]:
    last, frags, members = _LAST[0]
    if last is not snap:
        st = snap.standings
        frags = {
            "standings": _TEMPLATES["standings"].render(
                headers=HEADERS, rows=_rows(st), notes=st.notes,
                legend=standings_legend(st)),
            "finished": _TEMPLATES["finished"].render(s=snap),
            "faults": _TEMPLATES["faults"].render(s=snap),
            # SVG strings escape every name themselves (arena.web.svg)
            "ratings": rating_plot(snap.history, snap.bots),
            "h2h": h2h_matrix(snap.head_to_head, snap.bots),
        }
        members = json.dumps(frags, ensure_ascii=True)[1:-1]
        _LAST[0] = (snap, frags, members)
    return frags, members


def _rows(st: Standings) -> list[list[object]]:
    """The terminal's standings rows, with ``-`` for the figures of a bot without a match
    (no average place of 0.00)."""
    rows = table_rows(st)
    at = TABLE_KEYS.index("matches")
    for r, row in zip(st.rows, rows, strict=True):
        if not r.matches:
            row[at + 1:] = ["-"] * (len(row) - at - 1)
    return rows


def snapshot_json(state: LiveState, live: bool) -> str:
    """The ``snapshot`` event's data: fragments, the matches in flight, counts."""
    snap = state.snapshot
    if snap is None:
        return json.dumps({"fragments": {}, "inflight": [], "done": 0, "scheduled": 0})
    progress = json.dumps(_progress(snap, len(state.inflight)), ensure_ascii=True)
    rest = json.dumps({
        "inflight": [m.to_json() for m in state.inflight.values()],
        "name": printable(snap.name), "done": snap.done, "scheduled": snap.scheduled,
        "live": live, "at": time.time()}, ensure_ascii=True)
    return f'{{"fragments":{{"progress":{progress},{_rendered(snap)[1]}}},{rest[1:]}'


def render_page(state: LiveState, live: bool, focus: str | None = None) -> str:
    """The whole document, with the current fragments in place (works without script);
    ``focus``: the page of that one match in flight (``/live/<match>``)."""
    snap = state.snapshot
    frags = fragments(snap, len(state.inflight)) if snap is not None else {}
    mode = ("live: updates while this arena runs" if live else
            "read-only view of the tournament directory (follows the arena writing it)")
    return _PAGE.render(name=snap.name if snap else state.out.name, frags=frags, mode=mode,
                        live=live, focus=focus,
                        hidden_note=HIDDEN_NOTE, style=Markup(page_assets.style()),
                        script=Markup(page_assets.script()),
                        fragments_markup={k: Markup(v)
                                          for k, v in frags.items()})


#: why the live views show "a card" (one line on the page)
HIDDEN_NOTE = ("Cards are shown as \u201ca card\u201d while a match is in flight: a remote bot "
               "plays in this tournament, and the moves would tell the deal that its duplicate "
               "block's other seatings still play.")
