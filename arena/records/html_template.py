"""The jinja2 template of the HTML replay page (rendered with autoescape by
:mod:`arena.records.html`; the script is :data:`arena.records.html_script.SCRIPT`). Kept in
modules, not data files, so they ship with the package.

Template variables: ``title``, ``header`` (RecordHeader), ``labels`` (display names by seat),
``versions``, ``reasons`` (cleaned per seat), ``seat`` (the seat of a seat page or None),
``result`` (RecordResult), ``chart`` (:func:`arena.records.html.score_chart`), ``persp``
(perspective keys), ``data`` (the JSON, pre-escaped by ``script_json``).

DOM hooks (used by tests and documented in docs/records.md): ``body[data-step]``,
``body[data-hand]``, ``body[data-view]``; ``.seat[data-seat]`` with ``.won[data-won]`` and
``.cards .card[data-card]`` (face-down cards are ``.card.back`` without ``data-card``);
``#trick .tcard[data-seat][data-card]``; ``#kitty .card``, ``#discards .card``;
``#tricks li[data-step][data-winner]``; ``#moves li[data-step]``; ``#slider``;
``#persp button[data-view]``; ``#caption``; ``#chart``; ``.fly`` (a card in flight).
"""

from .html_script import SCRIPT

TEMPLATE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em; color: #222; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0 0 .3em; overflow-wrap: anywhere; }
h2 { font-size: 1.05em; margin: .8em 0 .3em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
td.num, th.num { text-align: right; }
.meta { margin: 0 0 .5em; }
#persp { margin: .4em 0; } #persp button { font-size: .95em; margin-right: 4px; }
#persp button[aria-pressed="true"] { background: #1f6b3a; color: #fff; border-color: #1f6b3a; }
#layout { display: grid; grid-template-columns: minmax(0, 1100px) minmax(260px, 360px);
          gap: 12px; align-items: start; }
@media (max-width: 1000px) { #layout { grid-template-columns: minmax(0, 1fr); } }
#table { display: grid; grid-template-columns: 1fr 1.3fr 1fr;
         grid-template-areas: "left center right" "bottom bottom bottom";
         gap: 10px; background: #1f6b3a; padding: 12px; border-radius: 10px; }
.seat { background: #f4f4ee; border-radius: 8px; padding: 6px 8px; min-height: 80px; }
.seat.pos-left { grid-area: left; } .seat.pos-right { grid-area: right; }
.seat.pos-bottom { grid-area: bottom; }
.seat.to-move { outline: 3px solid #f3c623; }
.seat .name { font-weight: bold; overflow-wrap: anywhere; }
.seat .info span { margin-right: 1em; }
#center { grid-area: center; background: #28814a; border-radius: 8px; color: #fff;
          padding: 8px; min-height: 120px; }
#trick { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 6px; min-height: 3.2em; }
.tcard { background: #fff; color: #222; border-radius: 6px; padding: 4px 6px; min-width: 4em; }
.tcard.win { outline: 3px solid #f3c623; }
.tcard .who { font-size: .8em; display: block; overflow-wrap: anywhere; }
.pile { margin-top: 8px; } .pile .lbl { font-size: .85em; overflow-wrap: anywhere; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 4px; }
.card { display: inline-block; background: #fff; color: #222; border: 1px solid #999;
        border-radius: 4px; padding: 1px 4px; font-weight: bold; min-width: 2.2em;
        text-align: center; }
.card.red { color: #c21; }
.card.back { background: repeating-linear-gradient(45deg, #35609a, #35609a 4px, #4a78b5 4px,
             #4a78b5 8px); color: #dfe8f5; }
.card.kc { box-shadow: inset 0 -3px 0 #f3c623; }
.card.got { animation: got 1.2s ease-out; }
@keyframes got { from { background: #f3c623; transform: translateY(-6px); } to { } }
.fly { position: fixed; z-index: 10; pointer-events: none; box-shadow: 0 3px 8px #0006; }
@media (prefers-reduced-motion: reduce) { .card.got { animation: none; } }
#controls { margin: 10px 0 4px; display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
#controls button { font-size: 1em; }
#slider { width: 100%; margin: 4px 0; }
#caption { font-size: 1.05em; min-height: 1.4em; margin: .3em 0; }
#side { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 6px 10px; }
#side ol { margin: 0; padding-left: 2.8em; max-height: 18em; overflow-y: auto; }
#side li { cursor: pointer; padding: 1px 2px; border-radius: 3px; }
#side li:hover { background: #eef4ff; }
#side li.cur { background: #fff3bf; }
#moves li.future { color: #888; }
#side li.none { list-style: none; cursor: default; }
.ms { color: #666; font-size: .85em; margin-left: .4em; }
.fault { color: #fff; background: #c21; border-radius: 3px; padding: 0 4px; font-size: .8em;
         margin-left: .4em; }
#tricks .tc { margin-right: .25em; }
#tricks .tc.win .card { outline: 3px solid #f3c623; }
#tricks .who { overflow-wrap: anywhere; }
#exlog { font-size: .9em; }
tr.current { background: #fff3bf; }
#chart { max-width: 100%; height: auto; background: #fff; border: 1px solid #ddd; }
#chart text { font-size: 11px; fill: #444; }
.legend span { margin-right: 1.2em; overflow-wrap: anywhere; }
.legend i { display: inline-block; width: 1.4em; height: 3px; vertical-align: middle;
            margin-right: .3em; }
</style>
</head>
<body data-step="0" data-hand="1" data-view="{{ persp[0] }}">
<h1>{{ title }}</h1>
<p class="meta">preset <b>{{ header.preset }}</b> &middot; seed
{{ header.seed.type }}:{{ header.seed.value }}
&middot; {{ result.hands }} hand{{ "" if result.hands == 1 else "s" }} &middot; termination
{{ header.termination }}
({{ header.end_reason }}) &middot; {{ header.started_at }} &ndash; {{ header.ended_at }}
&middot; arena {{ header.arena_version }}, record v{{ header.schema_version }}
{% if seat is not none %}&middot; <b>view of {{ labels[seat] }}</b> (this file holds only what
this seat knew; hidden cards face down as ??){% endif %}</p>
<div id="persp" role="group" aria-label="perspective">show:
{% for k in persp %}<button type="button" data-view="{{ k }}"
 aria-pressed="false">{% if k == "all" %}all cards{% else %}seat {{ k }}: {{ labels[k|int] }}{%
 endif %}</button>
{% endfor %}</div>
<div id="layout">
<div id="main">
<div id="table">
{% for s in range(3) %}<div class="seat" data-seat="{{ s }}"><div class="name"></div>
<div class="info"><span class="role"></span><span class="won"></span><span
 class="score"></span></div>
<div class="cards"></div></div>
{% endfor %}<div id="center"><div id="status"></div><div id="trick"></div>
<div id="kitty" class="pile"><div class="lbl"></div><div class="cards"></div></div>
<div id="discards" class="pile"><div class="lbl"></div><div class="cards"></div></div>
</div>
</div>
<div id="controls">
<button id="b-first" title="first step (Home)">|&#x25C0; first</button>
<button id="b-prevhand" title="previous hand (PageUp)">&laquo; hand</button>
<button id="b-prev" title="back (Left arrow)">&#x25C0; back</button>
<span id="pos"></span>
<button id="b-next" title="forward (Right arrow)">forward &#x25B6;</button>
<button id="b-nexthand" title="next hand (PageDown)">hand &raquo;</button>
<button id="b-last" title="last step (End)">last &#x25B6;|</button>
</div>
<input type="range" id="slider" min="0" max="0" value="0" aria-label="step">
<p id="caption" aria-live="polite"></p>
</div>
<div id="side">
<h2>Tricks this hand</h2><ol id="tricks"></ol>
<h2>Moves this hand</h2><ol id="moves" start="0"></ol>
<h2>Exchange</h2><ol id="exlog"></ol>
</div>
</div>
<h2>Seats</h2>
<table id="seats">
<tr><th>seat</th><th>bot</th><th>version</th><th class="num">faults</th><th>forfeit</th>
<th class="num">think time (s)</th><th class="num">ms per decision</th><th class="num">score</th>
<th class="num">place</th></tr>
{% for s in header.seats %}<tr data-seat="{{ s.seat }}"><td>{{ s.seat }}</td>
<td>{{ labels[s.seat] }}</td>
<td>{{ versions[s.seat] }}</td><td class="num">{{ s.faults }}</td><td>{{ reasons[s.seat] }}</td>
<td class="num">{{ "%.2f"|format(s.think_ms / 1000) }}</td>
<td class="num">{{ "%.1f"|format(s.think_ms / s.decisions_asked) if s.decisions_asked else "-"
}}</td>
<td class="num">{{ result.scores[s.seat] }}</td>
<td class="num">{{ result.placings[s.seat] }}</td></tr>
{% endfor %}</table>
<h2>Scores</h2>
<div class="legend">{% for ln in chart.lines %}<span><i
 style="background: {{ ln.colour }}"></i>{{ ln.name }}</span>{% endfor %}</div>
<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{{ chart.w }}" height="{{ chart.h }}"
     viewBox="0 0 {{ chart.w }} {{ chart.h }}" role="img" aria-label="match score after each hand">
{% for y, t in chart.yticks %}<line x1="{{ chart.left }}" x2="{{ chart.right }}" y1="{{ y }}"
 y2="{{ y }}" stroke="#eee"/>
<text x="{{ chart.left - 4 }}" y="{{ y + 4 }}" text-anchor="end">{{ t }}</text>
{% endfor %}<line x1="{{ chart.left }}" x2="{{ chart.right }}" y1="{{ chart.zero }}"
 y2="{{ chart.zero }}" stroke="#999"/>
{% for x, t in chart.xticks %}<text x="{{ x }}" y="{{ chart.bottom + 16 }}"
 text-anchor="middle">{{ t }}</text>
{% endfor %}<text x="{{ chart.right }}" y="{{ chart.h - 1 }}" text-anchor="end">hand</text>
<line id="chart-cur" x1="{{ chart.left }}" x2="{{ chart.left }}" y1="{{ chart.top }}"
 y2="{{ chart.bottom }}" stroke="#f3c623" stroke-width="6" opacity=".6"/>
{% for ln in chart.lines %}<polyline fill="none" stroke="{{ ln.colour }}" stroke-width="2"
 points="{{ ln.points }}"/>
{% for x, y, t in ln.dots %}<circle cx="{{ x }}" cy="{{ y }}" r="3"
 fill="{{ ln.colour }}"><title>{{ t }}</title></circle>
{% endfor %}{% endfor %}</svg>
<table id="sheet"><thead></thead><tbody></tbody></table>
<script type="application/json" id="replay-data">{{ data }}</script>
<script>{% raw %}""" + SCRIPT + r"""{% endraw %}</script>
</body>
</html>
"""
