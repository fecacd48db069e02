// The live page's script (inlined by arena/web/page.py). It listens to the arena's server-sent
// events ("events", arena/web/app.py): "snapshot" replaces the server-rendered fragments and
// the matches in flight; "started", "decisions" and "finished" update the matches in flight,
// each drawn as a card table from its public table (arena/events.py PublicTable: roles,
// contract, tricks won against the target, scores, hand sizes, whose turn, the trick on the
// table and the last one) and its numbered moves. One match is featured full size ("TV") and
// the next one is taken when it ends; at live/<match> only that match is shown. When the
// stream fails (the arena restarts, a proxy answers 502, a cap answers 503) the page says it
// is stale and reconnects with back-off (1 s doubling to 30 s, jittered) until it works; the
// first event of every stream is a fresh snapshot. Everything built from event data goes
// into the page as textContent; only the server-rendered (escaped) fragments go in as HTML.
(function () {
  "use strict";
  var LIVE_MOVES = 40;               // moves kept per match (arena/web/state.py LIVE_MOVES)
  var SUIT = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
  var live = {};                     // match id -> {seats, hidden, moves, decisions, table}
  var featured = null, pinned = null;
  var body = document.body;
  var focus = body.dataset.focus || null;
  var stale = document.getElementById("stale"), retry = document.getElementById("retry");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } }
  // a card as the replay viewer draws it; "a card" (hidden) face down
  function cardEl(text) {
    if (!/^(?:10|[2-9JQKA])[SHDC]$/.test(text)) { return el("span", "card back", "??"); }
    var suit = text.slice(-1), e = el("span", "card", text.slice(0, -1) + SUIT[suit]);
    if (suit === "H" || suit === "D") { e.className += " red"; }
    e.setAttribute("data-card", text);
    return e;
  }
  function who(m, seat) { return m.seats[seat] !== undefined ? m.seats[seat] : "seat " + seat; }

  // ----- one match's card table --------------------------------------------------------
  function seatBox(m, s) {
    var t = m.table, box = el("div", "seat pos-" + s);
    box.setAttribute("data-seat", String(s));
    box.appendChild(el("div", "name", who(m, s)));
    if (!t) { return box; }
    if (t.to_act === s) { box.className += " to-move"; }
    var role = [];
    if (t.dealer === s) { role.push("dealer"); }
    if (t.declarer === s) { role.push("declarer"); }
    var info = el("div", "info");
    if (role.length) { info.appendChild(el("span", "role", role.join(", ") + " \u00b7 ")); }
    var won = el("span", "won", "tricks " + t.won[s] + "/" + t.need[s]);
    won.setAttribute("data-won", String(t.won[s]));
    info.appendChild(won);
    info.appendChild(el("span", "score", " \u00b7 score " + t.scores[s]));
    box.appendChild(info);
    var held = el("div", "held", t.hand_sizes[s] + " card" +
                                 (t.hand_sizes[s] === 1 ? "" : "s") + " in hand");
    held.setAttribute("data-cards", String(t.hand_sizes[s]));
    box.appendChild(held);
    var backs = el("div", "backs");   // face down: only how many
    for (var k = 0; k < t.hand_sizes[s]; k++) { backs.appendChild(el("i")); }
    box.appendChild(backs);
    return box;
  }
  function trickCard(m, sc, win) {
    var t = el("div", "tcard" + (win ? " win" : ""));
    t.setAttribute("data-seat", String(sc[0]));
    t.appendChild(el("span", "who", who(m, sc[0])));
    t.appendChild(cardEl(sc[1]));
    return t;
  }
  function center(m) {
    var t = m.table, c = el("div", "center");
    if (!t) { c.appendChild(el("div", "hand", "waiting for the first move")); return c; }
    c.appendChild(el("div", "hand", "Hand " + t.hand +
                     (t.contract ? " \u00b7 " + t.contract : " \u00b7 no contract yet")));
    var trick = el("div", "trick");
    t.trick.forEach(function (sc) { trick.appendChild(trickCard(m, sc, false)); });
    c.appendChild(trick);
    var last = el("div", "last");
    if (t.last_trick) {
      last.appendChild(document.createTextNode("last trick: "));
      t.last_trick[1].forEach(function (sc) { last.appendChild(cardEl(sc[1])); });
      last.appendChild(document.createTextNode(" \u2192 " + who(m, t.last_trick[2])));
      last.setAttribute("data-winner", String(t.last_trick[2]));
    }
    c.appendChild(last);
    return c;
  }
  function moveItem(m, mv) {
    var text = who(m, mv.seat) + " " + mv.kind + " " + mv.action + (mv.fault ? " (" + mv.fault + ")" : "");
    var li = el("li", mv.fault ? "fault" : "", text);
    li.value = mv.i + 1;             // the match's own decision number
    li.setAttribute("data-i", String(mv.i));
    return li;
  }
  function draw(box, m) {
    clear(box);
    box.className = "match";
    box.setAttribute("data-match", m.id);
    var head = el("div", "mhead");
    head.appendChild(el("strong", "mid", m.id + ": " + m.seats.join(" vs ")));
    head.appendChild(el("span", "status", (m.table ? "hand " + m.table.hand + ", " : "") +
                                          m.decisions + " decisions"));
    var open = el("a", "open", "open");
    open.href = "live/" + encodeURIComponent(m.id);
    head.appendChild(open);
    if (!focus) {
      var watch = el("button", "watch", m.id === featured ? "featured" : "watch");
      watch.type = "button";
      watch.disabled = m.id === featured;
      watch.addEventListener("click", function () { pinned = m.id; feature(); });
      head.appendChild(watch);
    }
    box.appendChild(head);
    var felt = el("div", "felt");
    [0, 1, 2].forEach(function (s) { felt.appendChild(seatBox(m, s)); });
    felt.appendChild(center(m));
    box.appendChild(felt);
    var list = el("ol", "moves");
    m.moves.forEach(function (mv) { list.appendChild(moveItem(m, mv)); });
    box.appendChild(list);
    list.scrollTop = list.scrollHeight;
  }

  // ----- the matches in flight and the featured one --------------------------------------
  function panel(id) {
    return document.querySelector('#inflight .match[data-match="' + CSS.escape(id) + '"]');
  }
  function show(id) {
    var m = live[id];
    if (!m) { return; }
    var box = panel(id);
    if (!box) {
      var none = document.querySelector("#inflight > p.note");
      if (none) { none.remove(); }
      box = el("div", "match");
      document.getElementById("inflight").appendChild(box);
    }
    draw(box, m);
    if (id === featured) { draw(document.querySelector("#tv .match") || tvBox(), m); }
  }
  function tvBox() {
    var tv = document.getElementById("tv");
    clear(tv);
    var box = el("div", "match");
    tv.appendChild(box);
    return box;
  }
  // the featured match: the pinned one (or this page's own) while in flight, else the one
  // featured so far, else the one in flight longest
  function feature() {
    var ids = Object.keys(live), was = featured;
    if (focus) { featured = live[focus] ? focus : null; }
    else if (pinned && live[pinned]) { featured = pinned; }
    else if (!(featured && live[featured])) {
      ids.sort(function (a, b) { return (live[a].started || 0) - (live[b].started || 0); });
      featured = ids.length ? ids[0] : null;
    }
    if (featured) {
      draw(document.querySelector("#tv .match") || tvBox(), live[featured]);
    } else {
      var tv = document.getElementById("tv");
      clear(tv);
      tv.appendChild(el("p", "note", focus ? "This match is not in flight: it has finished " +
        "(its replay is listed once its duplicate block is complete) or has not started." :
        "No match in flight."));
    }
    body.dataset.featured = featured || "";
    if (was !== featured) { ids.forEach(show); }   // the "watch" buttons
    hiddenNote();
  }
  function hiddenNote() {
    var any = Object.keys(live).some(function (id) { return live[id].hidden; });
    document.getElementById("hidden-note").hidden = !any;
  }
  function noneInFlight() {
    var box = document.getElementById("inflight");
    if (!Object.keys(live).length && !box.querySelector("p.note")) {
      box.appendChild(el("p", "note", "No match in flight."));
    }
  }
  function addMatch(m) {
    live[m.id] = {id: m.id, seats: m.seats, hidden: !!m.hidden, started: m.started || 0,
                  moves: [], decisions: m.decisions || 0, table: m.table || null};
    (m.moves || []).forEach(function (mv) { live[m.id].moves.push(mv); });
  }
  function applyMoves(id, moves, table) {
    var m = live[id];
    if (!m) { return; }
    moves.forEach(function (mv) {
      if (mv.i < m.decisions) { return; }    // a move already shown (after a snapshot)
      m.decisions = mv.i + 1;
      m.moves.push(mv);
    });
    while (m.moves.length > LIVE_MOVES) { m.moves.shift(); }
    if (table) { m.table = table; }
    show(id);
  }

  // ----- events --------------------------------------------------------------------------
  function snapshot(data) {
    Object.keys(data.fragments).forEach(function (k) {
      var e = document.getElementById(k);
      if (e) { e.innerHTML = data.fragments[k]; }  // server-rendered, escaped
    });
    document.getElementById("inflight").textContent = "";
    live = {};
    data.inflight.forEach(addMatch);
    Object.keys(live).forEach(show);
    noneInFlight();
    feature();
    if (data.name) {   // as text
      document.getElementById("name").textContent = data.name;
      document.title = "358 Arena: " + data.name;
    }
    body.dataset.done = String(data.done);
    body.dataset.snapshots = String(Number(body.dataset.snapshots || 0) + 1);
  }
  function parse(ev) { return JSON.parse(ev.data); }
  var delay = 1000, attempts = 0, timer = null, es = null;
  function setStale(on, text) {
    stale.hidden = !on;
    body.dataset.connected = on ? "0" : "1";
    if (text) { retry.textContent = text; }
  }
  function reconnectLater() {
    var wait = Math.round(delay * (0.8 + 0.4 * Math.random()));
    delay = Math.min(delay * 2, 30000);
    setStale(true, "Reconnecting in " + Math.max(1, Math.round(wait / 1000)) + " s\u2026");
    timer = setTimeout(connect, wait);
  }
  function connect() {
    timer = null;
    attempts += 1;
    body.dataset.attempts = String(attempts);
    es = new EventSource("events");
    es.onopen = function () { delay = 1000; setStale(false); };
    es.onerror = function () {   // down, or a non-200 answer: never left to the browser
      es.close();
      if (timer === null) { reconnectLater(); }
    };
    es.addEventListener("snapshot", function (ev) { snapshot(parse(ev)); });
    es.addEventListener("started", function (ev) {
      var m = parse(ev);
      if (live[m.id]) {   // a match restarted: a fresh table
        var old = panel(m.id);
        if (old) { old.remove(); }
      }
      addMatch(m);
      show(m.id);
      feature();
    });
    // a batch of one match's moves, each [i, hand, seat, kind, action, fault], and its table
    es.addEventListener("decisions", function (ev) {
      var d = parse(ev);
      applyMoves(d.id, d.moves.map(function (a) {
        return {i: a[0], hand: a[1], seat: a[2], kind: a[3], action: a[4], fault: a[5]};
      }), d.table);
    });
    es.addEventListener("finished", function (ev) {
      var id = parse(ev).id, box = panel(id);
      if (box) { box.remove(); }
      delete live[id];
      noneInFlight();
      feature();
    });
  }
  connect();
})();
