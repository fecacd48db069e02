"""The jinja2 template of the HTML replay page (rendered with autoescape by
:mod:`arena.records.html`). Kept in a module, not a data file, so it ships with the package.

Template variables: ``title``, ``header`` (RecordHeader), ``labels`` (display names by seat),
``seat`` (viewing seat or None), ``result`` (RecordResult), ``data`` (frames JSON, pre-escaped
by ``script_json``). DOM hooks used by tests: ``body[data-step]``, ``body[data-hand]``,
``#trick .tcard[data-seat][data-card]``, ``.seat[data-seat] .won[data-won]``,
``.seat .cards .card[data-card]``, ``#caption``.
"""

TEMPLATE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em; color: #222; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
#table { display: grid; grid-template-columns: 1fr 1.2fr 1fr;
         grid-template-areas: "left center right" "bottom bottom bottom";
         gap: 10px; background: #1f6b3a; padding: 12px; border-radius: 10px; max-width: 1100px; }
.seat { background: #f4f4ee; border-radius: 8px; padding: 6px 8px; min-height: 80px; }
.seat.pos-left { grid-area: left; } .seat.pos-right { grid-area: right; }
.seat.pos-bottom { grid-area: bottom; }
.seat.to-move { outline: 3px solid #f3c623; }
.seat .name { font-weight: bold; overflow-wrap: anywhere; }
.seat .info span { margin-right: 1em; }
#center { grid-area: center; background: #28814a; border-radius: 8px; color: #fff;
          padding: 8px; min-height: 120px; }
#trick { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 6px; }
.tcard { background: #fff; color: #222; border-radius: 6px; padding: 4px 6px; min-width: 4em; }
.tcard.win { outline: 3px solid #f3c623; }
.tcard .who { font-size: .8em; display: block; overflow-wrap: anywhere; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 4px; }
.card { display: inline-block; background: #fff; border: 1px solid #999; border-radius: 4px;
        padding: 1px 4px; font-weight: bold; min-width: 2.2em; text-align: center; }
.red { color: #c21; } .hidden { background: #8aa; color: #fff; }
#controls { margin: 10px 0; } #controls button { font-size: 1em; margin-right: 4px; }
#caption { font-size: 1.05em; min-height: 1.4em; }
tr.current { background: #fff3bf; }
</style>
</head>
<body data-step="0" data-hand="1">
<h1>{{ title }}</h1>
<p>preset <b>{{ header.preset }}</b> &middot; seed {{ header.seed.type }}:{{ header.seed.value }}
&middot; {{ result.hands }} hand{{ "" if result.hands == 1 else "s" }} &middot; termination {{ header.termination }}
({{ header.end_reason }}) &middot; {{ header.started_at }} &ndash; {{ header.ended_at }}
&middot; arena {{ header.arena_version }}, record v{{ header.schema_version }}
{% if seat is not none %}&middot; <b>view of {{ labels[seat] }}</b> (hidden cards as ??){% endif %}</p>
<table id="seats">
<tr><th>seat</th><th>bot</th><th>version</th><th>faults</th><th>forfeit</th><th>score</th><th>place</th></tr>
{% for s in header.seats %}<tr data-seat="{{ s.seat }}"><td>{{ s.seat }}</td><td>{{ labels[s.seat] }}</td>
<td>{{ s.version }}</td><td>{{ s.faults }}</td><td>{{ s.forfeit_reason or "" }}</td>
<td>{{ result.scores[s.seat] }}</td><td>{{ result.placings[s.seat] }}</td></tr>
{% endfor %}</table>
<div id="table">
{% for s in range(3) %}<div class="seat" data-seat="{{ s }}"><div class="name"></div>
<div class="info"><span class="role"></span><span class="won"></span><span class="score"></span></div>
<div class="cards"></div></div>
{% endfor %}<div id="center"><div id="status"></div><div id="trick"></div></div>
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
<p id="caption"></p>
<table id="sheet"><thead></thead><tbody></tbody></table>
<script type="application/json" id="replay-data">{{ data }}</script>
<script>
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("replay-data").textContent);
  var F = D.frames, N = F.length, step = 0;
  var SUIT = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
  var me = D.view === null ? 0 : D.view;
  var pos = {};
  pos[me] = "bottom"; pos[(me + 1) % 3] = "left"; pos[(me + 2) % 3] = "right";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function cardEl(c) {
    if (c === null) return el("span", "card hidden", "??");
    var suit = c.slice(-1), e = el("span", "card", c.slice(0, -1) + SUIT[suit]);
    if (suit === "H" || suit === "D") e.className += " red";
    e.setAttribute("data-card", c);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function parseStep() {
    var m = /(?:^|[#&?])step=(\d+)/.exec(location.hash || "");
    return m ? Math.max(0, Math.min(N - 1, parseInt(m[1], 10))) : 0;
  }
  function renderSheet(f) {
    var head = document.querySelector("#sheet thead"), body = document.querySelector("#sheet tbody");
    clear(head); clear(body);
    var tr = el("tr");
    ["hand", "contract"].concat(D.names).forEach(function (t) { tr.appendChild(el("th", "", t)); });
    head.appendChild(tr);
    D.hands.forEach(function (h, i) {
      if (i > f.h) return;
      var done = i < f.h || f.end;
      var row = el("tr", i === f.h ? "current" : "");
      row.appendChild(el("td", "", String(h.hand)));
      row.appendChild(el("td", "", i < f.h || f.contract ? (h.contract || "-") : ""));
      for (var s = 0; s < 3; s++) {
        var p = h.points[s];
        row.appendChild(el("td", "", done ? (p > 0 ? "+" : "") + p + " (" + h.scores[s] + ")" : ""));
      }
      body.appendChild(row);
    });
  }
  function render() {
    var f = F[step], h = D.hands[f.h];
    document.body.setAttribute("data-step", String(step));
    document.body.setAttribute("data-hand", String(h.hand));
    var seats = document.querySelectorAll("#table .seat");
    for (var i = 0; i < seats.length; i++) {
      var box = seats[i], s = parseInt(box.getAttribute("data-seat"), 10);
      box.className = "seat pos-" + pos[s];
      box.querySelector(".name").textContent = D.names[s] + (D.view === s ? " (view)" : "");
      var role = s === h.dealer ? "dealer" : "";
      if (s === h.declarer) role += (role ? ", " : "") + "declarer";
      box.querySelector(".role").textContent = role;
      var won = box.querySelector(".won");
      won.textContent = "tricks " + f.won[s] + "/" + f.need[s];
      won.setAttribute("data-won", String(f.won[s]));
      box.querySelector(".score").textContent = "score " + f.scores[s];
      var cards = box.querySelector(".cards");
      clear(cards);
      if (f.hands[s] === null) { for (var k = 0; k < f.sizes[s]; k++) cards.appendChild(cardEl(null)); }
      else f.hands[s].forEach(function (c) { cards.appendChild(cardEl(c)); });
    }
    document.getElementById("status").textContent = "Hand " + h.hand +
      (f.contract ? " \u00b7 " + f.contract : "") + " \u00b7 tricks played " + f.tno;
    var trick = document.getElementById("trick");
    clear(trick);
    f.trick.forEach(function (sc) {
      var t = el("div", "tcard" + (f.winner === sc[0] ? " win" : ""));
      t.setAttribute("data-seat", String(sc[0]));
      t.setAttribute("data-card", sc[1]);
      t.appendChild(el("span", "who", D.names[sc[0]]));
      t.appendChild(cardEl(sc[1]));
      trick.appendChild(t);
    });
    document.getElementById("caption").textContent = f.cap;
    document.getElementById("pos").textContent = "step " + step + " / " + (N - 1);
    renderSheet(f);
  }
  function go(n) {
    step = Math.max(0, Math.min(N - 1, n));
    try { history.replaceState(null, "", "#step=" + step); } catch (e) { /* file: URL */ }
    render();
  }
  function handStart(dir) {
    var h = F[step].h + dir, i;
    if (dir < 0 && step > 0 && F[step - 1].h === F[step].h) h = F[step].h;
    for (i = 0; i < N; i++) if (F[i].h === h) return go(i);
    go(dir < 0 ? 0 : N - 1);
  }
  document.getElementById("b-first").onclick = function () { go(0); };
  document.getElementById("b-last").onclick = function () { go(N - 1); };
  document.getElementById("b-prev").onclick = function () { go(step - 1); };
  document.getElementById("b-next").onclick = function () { go(step + 1); };
  document.getElementById("b-prevhand").onclick = function () { handStart(-1); };
  document.getElementById("b-nexthand").onclick = function () { handStart(1); };
  document.addEventListener("keydown", function (ev) {
    var k = {ArrowRight: 1, ArrowLeft: -1}[ev.key];
    if (k) { go(step + k); ev.preventDefault(); }
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(N - 1);
    else if (ev.key === "PageDown") handStart(1);
    else if (ev.key === "PageUp") handStart(-1);
  });
  window.addEventListener("hashchange", function () { step = parseStep(); render(); });
  step = parseStep();
  render();
})();
</script>
</body>
</html>
"""
