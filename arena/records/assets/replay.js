// The replay viewer's script (inlined into each page by arena/records/html.py). It only
// displays the frames computed server-side (arena/records/html_frames.py: Frame, StepInfo,
// TrickInfo, HandInfo, whose field names are the JSON keys read here): no rules code, no
// visibility decisions. Everything shown is "up to the step": the seats table, the score
// sheet and the score chart never tell what comes later. Bot-supplied text is written with
// textContent only.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("replay-data").textContent);
  var STEPS = D.steps, N = STEPS.length, step = 0, view = D.persp[0], shown = -1;
  var SVG = "http://www.w3.org/2000/svg";
  D.persp.forEach(function (k) {  // frames come as deltas: fill each one forward
    var F = D.views[k].frames;
    for (var i = 1; i < F.length; i++) F[i] = Object.assign({}, F[i - 1], F[i]);
  });
  var SUIT = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
  var motion = !(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);
  var slider = document.getElementById("slider");
  slider.max = String(N - 1);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs, title) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (title !== undefined) {
      var t = document.createElementNS(SVG, "title");
      t.textContent = title;
      e.appendChild(t);
    }
    return e;
  }
  function cardEl(c) {
    if (c === null) return el("span", "card back", "??");
    var suit = c.slice(-1), e = el("span", "card", c.slice(0, -1) + SUIT[suit]);
    if (suit === "H" || suit === "D") e.className += " red";
    e.setAttribute("data-card", c);
    return e;
  }
  function cardsInto(box, list, count) {
    clear(box);
    if (list === null) { for (var k = 0; k < count; k++) box.appendChild(cardEl(null)); }
    else list.forEach(function (c) { box.appendChild(cardEl(c)); });
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  // scroll a list (its own box only, never the window) so that item is in view
  function keepVisible(list, item) {
    if (!item) return;
    var l = list.getBoundingClientRect(), r = item.getBoundingClientRect();
    if (r.top < l.top) list.scrollTop -= l.top - r.top;
    else if (r.bottom > l.bottom) list.scrollTop += r.bottom - l.bottom;
  }
  function frame(n) { return D.views[view].frames[n]; }
  function seconds(ms) { return ms === null ? "" : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s"; }
  function positions() {
    var me = view === "all" ? 0 : parseInt(view, 10), pos = {};
    pos[me] = "bottom"; pos[(me + 1) % 3] = "left"; pos[(me + 2) % 3] = "right";
    return pos;
  }
  function parseHash() {
    var h = location.hash || "";
    var m = /(?:^|[#&?])step=(\d+)/.exec(h), v = /(?:^|[#&?])view=(all|[0-2])/.exec(h);
    view = v && D.persp.indexOf(v[1]) >= 0 ? v[1] : D.persp[0];
    step = m ? Math.max(0, Math.min(N - 1, parseInt(m[1], 10))) : 0;
  }
  function handOf(n) { return STEPS[n].hand_index; }

  function renderSeats(f, h) {
    var pos = positions(), seats = document.querySelectorAll("#table .seat");
    var toMove = step + 1 < N && handOf(step + 1) === handOf(step) ? STEPS[step + 1].seat : null;
    var kitty = f.kitty_taken && f.kitty ? f.kitty : [];
    for (var i = 0; i < seats.length; i++) {
      var box = seats[i], s = parseInt(box.getAttribute("data-seat"), 10);
      box.className = "seat pos-" + pos[s] + (s === toMove ? " to-move" : "");
      box.querySelector(".name").textContent = D.names[s] + (view === String(s) ? " (view)" : "");
      var role = s === h.dealer ? "dealer" : "";
      if (s === h.declarer) role += (role ? ", " : "") + "declarer";
      box.querySelector(".role").textContent = role;
      var won = box.querySelector(".won");
      won.textContent = "tricks " + f.tricks_won[s] + "/" + f.tricks_needed[s];
      won.setAttribute("data-won", String(f.tricks_won[s]));
      box.querySelector(".score").textContent = "score " + f.scores[s];
      var cards = box.querySelector(".cards");
      cardsInto(cards, f.hands[s], f.hand_sizes[s]);
      if (s === h.declarer) {
        Array.prototype.forEach.call(cards.querySelectorAll(".card[data-card]"), function (c) {
          if (kitty.indexOf(c.getAttribute("data-card")) >= 0) {
            c.className += " kc"; c.title = "from the kitty";
          }
        });
      }
    }
  }
  function renderCenter(f, h) {
    document.getElementById("status").textContent = "Hand " + h.hand +
      (f.contract ? " \u00b7 " + f.contract : "") + " \u00b7 tricks played " + f.tricks_done;
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
    var kb = document.getElementById("kitty"), db = document.getElementById("discards");
    kb.style.display = db.style.display = f.kitty_size ? "" : "none";
    if (!f.kitty_size) return;
    var who = D.names[h.declarer];
    kb.querySelector(".lbl").textContent = "kitty: " +
      (f.kitty_taken ? "taken by " + who : "not taken yet") +
      (f.kitty === null ? " (not shown to this seat)" : "");
    cardsInto(kb.querySelector(".cards"), f.kitty, f.kitty_size);
    db.querySelector(".lbl").textContent = "discards by " + who + ": " + f.discard_count +
      (f.discards === null && f.discard_count ? " (face down)" : "");
    cardsInto(db.querySelector(".cards"), f.discards, f.discard_count);
  }
  function renderTricks(h) {
    var tl = document.getElementById("tricks"), last = null;
    clear(tl);
    h.tricks.forEach(function (t, k) {
      if (t.step > step) return;
      var li = el("li", t.step === step ? "cur" : "");
      li.setAttribute("data-step", String(t.step));
      li.setAttribute("data-winner", String(t.winner));
      li.tabIndex = 0;
      li.appendChild(el("span", "who", D.names[t.leader] + " led "));
      t.cards.forEach(function (sc) {
        var tc = el("span", "tc" + (sc[0] === t.winner ? " win" : ""));
        tc.setAttribute("data-seat", String(sc[0]));
        tc.title = D.names[sc[0]];
        tc.appendChild(cardEl(sc[1]));
        li.appendChild(tc);
      });
      li.appendChild(el("span", "who", "\u2192 " + D.names[t.winner]));
      li.title = "trick " + (k + 1) + ": jump to the step that completed it";
      tl.appendChild(li);
      last = li;
    });
    if (!tl.firstChild) tl.appendChild(el("li", "none", "none yet"));
    keepVisible(tl, last);   // the current trick, or the latest one before it
  }
  function renderSide(f, h) {
    renderTricks(h);
    var ml = document.getElementById("moves"), V = D.views[view], cur = null;
    clear(ml);
    ml.start = h.start;
    for (var n = h.start; n < N && handOf(n) === handOf(step); n++) {
      var s = STEPS[n], fr = V.frames[n];
      var li = el("li", (n === step ? "cur" : "") + (n > step ? " future" : ""));
      li.setAttribute("data-step", String(n));
      li.tabIndex = 0;
      li.appendChild(el("span", "mv", n > step ? (s.seat === null ? "deal" : D.names[s.seat] +
        ": " + s.kind) : V.moves[n]));
      if (s.think_ms !== null && s.think_ms !== undefined) {
        li.appendChild(el("span", "ms", seconds(s.think_ms)));
      }
      if (fr.fault && n <= step) {
        var b = el("span", "fault", "FAULT " + fr.fault[0]);
        b.title = fr.fault[1];
        li.appendChild(b);
      }
      if (n === step) cur = li;
      ml.appendChild(li);
    }
    keepVisible(ml, cur);
    var xl = document.getElementById("exlog");
    clear(xl);
    V.exchange[handOf(step)].slice(0, f.exchange_count).forEach(function (t) {
      xl.appendChild(el("li", "", t));
    });
    if (!f.exchange_count) xl.appendChild(el("li", "", "none so far"));
  }
  function renderSheet(f) {
    var head = document.querySelector("#sheet thead");
    var body = document.querySelector("#sheet tbody");
    clear(head); clear(body);
    var tr = el("tr");
    ["hand", "contract"].concat(D.names).forEach(function (t) { tr.appendChild(el("th", "", t)); });
    head.appendChild(tr);
    D.hands.forEach(function (h, i) {
      if (i > handOf(step)) return;
      var done = i < handOf(step) || f.hand_over;
      var row = el("tr", i === handOf(step) ? "current" : "");
      row.appendChild(el("td", "", String(h.hand)));
      row.appendChild(el("td", "", i < handOf(step) || f.contract ? (h.contract || "-") : ""));
      for (var s = 0; s < 3; s++) {
        var p = h.points[s];
        row.appendChild(el("td", "",
                           done ? (p > 0 ? "+" : "") + p + " (" + h.scores[s] + ")" : ""));
      }
      body.appendChild(row);
    });
  }
  // the seats table up to the step: faults and think time so far; the place, a forfeit and
  // the match's own totals at the last step only
  function renderSeatTable(f) {
    var end = step === N - 1, ending = document.getElementById("ending");
    ending.textContent = end ? ending.getAttribute("data-ending") : "how it ends: at the last step";
    for (var s = 0; s < 3; s++) {
      var row = document.querySelector('#seats tr[data-seat="' + s + '"]');
      if (!row) continue;
      var faults = 0, ms = 0, asked = 0;
      for (var n = 0; n <= step; n++) {
        if (STEPS[n].seat !== s) continue;
        if (STEPS[n].faulted) faults++;
        if (STEPS[n].think_ms !== null) { ms += STEPS[n].think_ms; asked++; }
      }
      var tot = D.seats[s];
      if (end) { faults = tot.faults; ms = tot.think_ms; asked = tot.asked; }
      var cell = function (col, text) {
        row.querySelector('[data-col="' + col + '"]').textContent = text;
      };
      cell("faults", String(faults));
      cell("forfeit", end ? tot.forfeit : "");
      cell("think", (ms / 1000).toFixed(2));
      cell("per", asked ? (ms / asked).toFixed(1) : "-");
      cell("score", String(end ? tot.score : f.scores[s]));
      cell("place", end ? String(tot.place) : "-");
    }
  }
  // the score chart up to the step: the start, then each hand finished by then, on a score
  // axis scaled to those scores only
  function renderChart(f) {
    var C = D.chart, upto = handOf(step) + (f.hand_over ? 1 : 0);
    var series = [0, 1, 2].map(function (s) {
      return [0].concat(D.hands.slice(0, upto).map(function (h) { return h.scores[s]; }));
    });
    var all = [].concat.apply([], series);
    var lo = Math.min(0, Math.min.apply(null, all)), hi = Math.max(1, Math.max.apply(null, all));
    var y = function (v) {
      return Math.round((C.bottom - (C.bottom - C.top) * (v - lo) / (hi - lo)) * 10) / 10;
    };
    var grid = document.getElementById("chart-grid"), lines = document.getElementById("chart-lines");
    clear(grid); clear(lines);
    var tick = Math.max(1, Math.ceil((hi - lo) / 5));
    for (var v = Math.floor(lo / tick) * tick; v <= hi; v += tick) {
      if (v < lo) continue;
      grid.appendChild(svgEl("line", {x1: C.left, x2: C.right, y1: y(v), y2: y(v), stroke: "#eee"}));
      var t = svgEl("text", {x: C.left - 4, y: y(v) + 4, "text-anchor": "end"});
      t.textContent = String(v);
      grid.appendChild(t);
    }
    grid.appendChild(svgEl("line", {x1: C.left, x2: C.right, y1: y(0), y2: y(0), stroke: "#999"}));
    series.forEach(function (pts, s) {
      var colour = C.colours[s];
      lines.appendChild(svgEl("polyline", {fill: "none", stroke: colour, "stroke-width": 2,
        points: pts.map(function (p, i) { return C.x[i] + "," + y(p); }).join(" ")}));
      pts.forEach(function (p, i) {
        lines.appendChild(svgEl("circle", {cx: C.x[i], cy: y(p), r: 3, fill: colour},
          i ? D.names[s] + ": " + p + " after hand " + i : D.names[s] + ": 0 at the start"));
      });
    });
    var x = C.x[upto], cur = document.getElementById("chart-cur");
    cur.setAttribute("x1", String(x)); cur.setAttribute("x2", String(x));
  }

  function flyCard(card, from, to, delay) {
    if (!from || !to) return;
    var a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
    var c = cardEl(card);
    c.className += " fly";
    c.style.left = a.left + "px"; c.style.top = a.top + "px";
    document.body.appendChild(c);
    var dx = b.left - a.left, dy = b.top - a.top, done = function () {
      if (c.parentNode) c.parentNode.removeChild(c);
    };
    if (c.animate) {
      var an = c.animate([{transform: "translate(0, 0)"},
                          {transform: "translate(" + dx + "px, " + dy + "px)"}],
                         {duration: 900, delay: delay || 0, easing: "ease-in-out",
                          fill: "backwards"});
      an.onfinish = done;
    }
    setTimeout(done, 1000 + (delay || 0));
  }
  function seatCards(s) {
    return document.querySelector('#table .seat[data-seat="' + s + '"] .cards');
  }
  function animate(prev, f, h) {
    if (!motion || !prev || prev.hand_index !== f.hand_index) return;
    var got = {};
    f.flights.forEach(function (m, i) {  // one after the other, in the order they happened
      flyCard(m[2], seatCards(m[0]), seatCards(m[1]), 250 * i);
      if (m[2] !== null) got[m[1] + ":" + m[2]] = true;
    });
    var kbox = document.querySelector("#kitty .cards");
    var dbox = document.querySelector("#discards .cards");
    if (f.kitty_taken && !prev.kitty_taken) {
      for (var k = 0; k < f.kitty_size; k++) {
        flyCard(f.kitty ? f.kitty[k] : null, kbox, seatCards(h.declarer), 100 * k);
      }
      (f.kitty || []).forEach(function (c) { got[h.declarer + ":" + c] = true; });
    }
    if (f.discard_count > prev.discard_count) {
      flyCard(f.discards ? f.discards[f.discards.length - 1] : null, seatCards(h.declarer), dbox);
    }
    [0, 1, 2].forEach(function (s) {
      Array.prototype.forEach.call(seatCards(s).querySelectorAll(".card[data-card]"), function (c) {
        if (got[s + ":" + c.getAttribute("data-card")]) c.className += " got";
      });
    });
  }

  function render() {
    var f = frame(step), h = D.hands[handOf(step)];
    document.body.setAttribute("data-step", String(step));
    document.body.setAttribute("data-hand", String(h.hand));
    document.body.setAttribute("data-view", view);
    Array.prototype.forEach.call(document.querySelectorAll("#persp button"), function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-view") === view));
    });
    renderSeats(f, h);
    renderCenter(f, h);
    renderSide(f, h);
    renderSheet(f);
    renderSeatTable(f);
    renderChart(f);
    document.getElementById("caption").textContent = f.caption;
    document.getElementById("pos").textContent = "step " + step + " / " + (N - 1);
    slider.value = String(step);
    if (shown === step - 1) animate(frame(shown), f, h);
    shown = step;
  }
  function go(n, newView) {
    step = Math.max(0, Math.min(N - 1, n));
    if (newView !== undefined) { view = newView; shown = -1; }
    var hash = "#step=" + step + (view === D.persp[0] ? "" : "&view=" + view);
    try { history.replaceState(null, "", hash); } catch { /* some file: URLs */ }
    render();
  }
  function handStart(dir) {
    var h = handOf(step) + dir;
    if (dir < 0 && step > D.hands[handOf(step)].start) h = handOf(step);
    if (h < 0) return go(0);
    if (h >= D.hands.length) return go(N - 1);
    go(D.hands[h].start);
  }
  function onClick(id, fn) { document.getElementById(id).addEventListener("click", fn); }
  onClick("b-first", function () { go(0); });
  onClick("b-last", function () { go(N - 1); });
  onClick("b-prev", function () { go(step - 1); });
  onClick("b-next", function () { go(step + 1); });
  onClick("b-prevhand", function () { handStart(-1); });
  onClick("b-nexthand", function () { handStart(1); });
  slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
  function jumpFrom(list) {
    function jump(ev) {
      var li = ev.target.closest ? ev.target.closest("li[data-step]") : null;
      if (li) { go(parseInt(li.getAttribute("data-step"), 10)); ev.preventDefault(); }
    }
    list.addEventListener("click", jump);
    list.addEventListener("keydown", function (ev) { if (ev.key === "Enter") jump(ev); });
  }
  jumpFrom(document.getElementById("moves"));
  jumpFrom(document.getElementById("tricks"));
  Array.prototype.forEach.call(document.querySelectorAll("#persp button"), function (b) {
    b.addEventListener("click", function () { go(step, b.getAttribute("data-view")); });
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.target === slider || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var k = {ArrowRight: 1, ArrowLeft: -1}[ev.key];
    if (k) { go(step + k); ev.preventDefault(); }
    else if (ev.key === "Home") { go(0); ev.preventDefault(); }
    else if (ev.key === "End") { go(N - 1); ev.preventDefault(); }
    else if (ev.key === "PageDown") { handStart(1); ev.preventDefault(); }
    else if (ev.key === "PageUp") { handStart(-1); ev.preventDefault(); }
  });
  window.addEventListener("hashchange", function () { parseHash(); shown = -1; render(); });
  parseHash();
  render();
})();
