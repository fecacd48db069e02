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
