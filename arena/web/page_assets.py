"""The live page's document template, style sheet and script (no external resource: the page
works offline). The script listens to ``events`` (server-sent events): ``snapshot`` replaces
the server-rendered fragments and the matches in flight; ``started``, ``decisions`` and
``finished`` update the live matches; while the stream is down the page says it is stale (the
browser reconnects by itself and gets a fresh snapshot).
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>358 Arena: {{ name }}</title><style>{{ style }}</style></head>
<body>
<header><h1>358 Arena: <span id="name">{{ name }}</span></h1>
<p class="mode">{{ mode }}</p>
<p id="stale" hidden>Disconnected from the arena: this page is stale. Reconnecting&hellip;</p>
</header>
<section><h2>Progress</h2><div id="progress">{{ fragments_markup.get('progress', '') }}</div>
</section>
<section><h2>Standings</h2><div id="standings">{{ fragments_markup.get('standings', '') }}</div>
</section>
<section><h2>Matches in flight</h2><div id="inflight"><p class="note">No match in flight.</p>
</div></section>
<section><h2>Rating over time</h2><div id="ratings">{{ fragments_markup.get('ratings', '') }}
</div></section>
<section><h2>Head-to-head</h2><div id="h2h">{{ fragments_markup.get('h2h', '') }}</div>
</section>
<section><h2>Finished matches</h2><div id="finished">{{ fragments_markup.get('finished', '') }}
</div></section>
<section><h2>Faults and logs</h2><div id="faults">{{ fragments_markup.get('faults', '') }}</div>
</section>
<script>{{ script }}</script>
</body></html>
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; } h2 { font-size: 1.1em; margin: 1.2em 0 0.4em; }
.mode { color: #666; margin-top: 0; }
#stale { background: #fdd; border: 1px solid #c66; padding: 0.4em 0.8em; font-weight: bold; }
table { border-collapse: collapse; } th, td { padding: 2px 8px; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #f4f4f4; }
table.standings td:not(:nth-child(2)) { text-align: right; font-variant-numeric: tabular-nums; }
.note, .legend { color: #555; font-size: 0.9em; }
progress { width: 20em; vertical-align: middle; }
.match { border: 1px solid #ccc; border-radius: 6px; padding: 0.4em 0.8em; margin: 0.4em 0;
         max-width: 48em; }
.match .trick span, .card { display: inline-block; border: 1px solid #999; border-radius: 4px;
         padding: 1px 5px; margin: 0 2px; background: #fff; font-family: monospace; }
.match ol { max-height: 9em; overflow-y: auto; font-size: 0.9em; margin: 0.3em 0; }
.fault { color: #b00; }
pre.log { background: #f7f7f7; padding: 0.5em; max-height: 14em; overflow: auto;
          white-space: pre-wrap; word-break: break-all; }
svg text { font-size: 11px; font-family: system-ui, sans-serif; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var live = {};
  var stale = document.getElementById("stale");
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function panel(m) {
    var box = el("div", "match");
    box.dataset.match = m.id;
    box.appendChild(el("strong", "", m.id + ": " + m.seats.join(" vs ")));
    box.appendChild(el("div", "status", ""));
    box.appendChild(el("div", "trick", ""));
    box.appendChild(el("ol", "moves"));
    live[m.id] = {seats: m.seats, box: box, hand: 0, trick: [], decisions: 0};
    document.getElementById("inflight").appendChild(box);
    (m.moves || []).forEach(function (mv) { move(m.id, mv); });
    live[m.id].decisions = m.decisions || 0;
    status(m.id);
  }
  function status(id) {
    var m = live[id];
    m.box.querySelector(".status").textContent =
      "hand " + (m.hand || 1) + ", " + m.decisions + " decisions";
  }
  function move(id, mv) {
    var m = live[id];
    if (!m || mv.i < m.decisions) { return; }   // unknown match, or a move already shown
    m.decisions = mv.i + 1;
    if (mv.hand !== m.hand) { m.hand = mv.hand; m.trick = []; }
    var who = m.seats[mv.seat] || ("seat " + mv.seat);
    var line = el("li", mv.fault ? "fault" : "",
                  who + " " + mv.kind + " " + mv.action + (mv.fault ? " (" + mv.fault + ")" : ""));
    var list = m.box.querySelector(".moves");
    list.appendChild(line);
    // the last 40 moves, as many as a snapshot carries (LIVE_MOVES, arena/web/state.py)
    while (list.children.length > 40) { list.removeChild(list.firstChild); }
    list.scrollTop = list.scrollHeight;
    if (mv.kind === "play") {
      if (m.trick.length === 3) { m.trick = []; }
      m.trick.push(who + ": " + mv.action);
      var t = m.box.querySelector(".trick");
      t.textContent = "";
      m.trick.forEach(function (c) { t.appendChild(el("span", "card", c)); });
    }
    status(id);
  }
  function noneInFlight() {
    var box = document.getElementById("inflight");
    if (!Object.keys(live).length && !box.querySelector("p.note")) {
      box.appendChild(el("p", "note", "No match in flight."));
    }
  }
  function snapshot(data) {
    Object.keys(data.fragments).forEach(function (k) {
      var e = document.getElementById(k);
      if (e) { e.innerHTML = data.fragments[k]; }  // server-rendered, escaped
    });
    document.getElementById("inflight").textContent = "";
    live = {};
    data.inflight.forEach(panel);
    noneInFlight();
    if (data.name) {   // as text
      document.getElementById("name").textContent = data.name;
      document.title = "358 Arena: " + data.name;
    }
    document.body.dataset.done = String(data.done);
  }
  function parse(ev) { return JSON.parse(ev.data); }
  var es = new EventSource("events");
  es.onopen = function () { stale.hidden = true; document.body.dataset.connected = "1"; };
  es.onerror = function () { stale.hidden = false; document.body.dataset.connected = "0"; };
  es.addEventListener("snapshot", function (ev) { snapshot(parse(ev)); });
  es.addEventListener("started", function (ev) {
    var m = parse(ev);
    var none = document.querySelector("#inflight > p.note");
    if (none) { none.remove(); }
    if (live[m.id]) { live[m.id].box.remove(); }   // a match restarted: a fresh panel
    panel(m);
  });
  // a batch of one match's moves, each [i, hand, seat, kind, action, fault]
  es.addEventListener("decisions", function (ev) {
    var d = parse(ev);
    d.moves.forEach(function (a) {
      move(d.id, {i: a[0], hand: a[1], seat: a[2], kind: a[3], action: a[4], fault: a[5]});
    });
  });
  es.addEventListener("finished", function (ev) {
    var m = live[parse(ev).id];
    if (m) { m.box.remove(); delete live[parse(ev).id]; }
    noneInFlight();
  });
})();
"""
