"""A self-contained HTML replay page of a record (``arena replay RECORD --html OUT.html``).

One file, inline CSS and JavaScript, no network: the table with the three seats' cards, the
cards on the table, tricks won vs target, scores, and a per-hand score sheet. The page steps
through every decision (buttons, arrow keys Left/Right, Home/End, PageUp/PageDown per hand);
the URL fragment ``#step=N`` (0-based) selects the step shown, so ``chromium --headless
--dump-dom 'file:///.../replay.html#step=40'`` renders step 40.

Frames are computed here by re-simulating the match with the engine (one frame at the start of
each hand plus one after each decision), so the page holds no rules code. With ``seat=S`` the
frames show only what seat S knew (others' cards as ``??``, from ``state.view(S)``).

Safety: the page is rendered by jinja2 with autoescape (names in markup are escaped) and every
value made printable (:func:`arena.safetext.html_finalize`: no control or bidi character); the
frame data is embedded as JSON in a ``<script type="application/json">`` block with ``<``, ``>``,
``&``, U+2028 and U+2029 written as ``\\uXXXX``, so no bot name can close the script element;
the script only ever writes names with ``textContent``.
"""

from __future__ import annotations

import json

from ..rules import MISERE, card_str, contract_name, parse_action
from ..safetext import html_finalize
from ..rules import parse_card as _card
from ..rules.cards import rank_of, suit_of
from .html_template import TEMPLATE
from .models import HandRecord, MatchRecord
from .simulate import Replayer, Step, deal_from_seats
from .text import clean, event_text, seat_labels
from .verify import rules_of, verify_record


def script_json(data: object):  # noqa: ANN201 - markupsafe.Markup
    """JSON safe to embed inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    from markupsafe import Markup  # jinja2's dependency; imported late (optional for text)
    return Markup(text)


def render_html(record: MatchRecord, *, seat: int | None = None, verify: bool = True) -> str:
    """The replay page of ``record`` as one HTML document (text).

    Args:
        seat: show only what this seat (0..2) knew; None shows every hand.
        verify: run :func:`verify_record` first.

    Raises:
        RecordMismatch / RecordError: when verification fails. ValueError: bad ``seat``.
    """
    if seat is not None and seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    if verify:
        verify_record(record)
    data = page_data(record, seat)
    import jinja2  # imported here so text replays work without it
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                             finalize=html_finalize)   # no control or bidi character on the page
    h = record.header
    return env.from_string(TEMPLATE).render(
        title=f"358 Arena replay: {clean(h.match_id)}", header=h, labels=data["names"],
        seat=seat, result=record.result, data=script_json(data))


def page_data(record: MatchRecord, seat: int | None = None) -> dict:
    """The JSON the page renders: ``names``, ``view`` (seat or None), ``hands`` (summary per
    hand), ``frames`` (one per step: ``h`` hand index, ``cap`` caption, ``hands`` cards per
    seat or None when hidden, ``sizes``, ``trick`` [[seat, card]], ``winner``, ``won``,
    ``need``, ``scores``, ``contract``, ``tno`` tricks completed, ``end`` the hand is over)."""
    labels = list(seat_labels(record.names))
    cfg = rules_of(record)
    deals = {hr.hand: deal_from_seats(tuple(tuple(map(_card, hr.dealt[s])) for s in range(3)),
                                      hr.roles, tuple(map(_card, hr.kitty)))
             for hr in record.hands}
    rep = Replayer(cfg, record.header.seed.to_seed(), deals, seat=seat)
    frames: list[dict] = []
    hands: list[dict] = []
    for i, hr in enumerate(record.hands):
        hands.append({"hand": hr.hand, "dealer": hr.dealer, "declarer": hr.declarer,
                      "contract": hr.contract, "targets": list(hr.targets),
                      "points": list(hr.points), "scores": list(hr.scores)})
        _hand_frames(rep, hr, i, labels, seat, frames)
    return {"names": labels, "view": seat, "match": clean(record.header.match_id),
            "hands": hands, "frames": frames}


def _hand_frames(rep: Replayer, hr: HandRecord, index: int, labels: list[str],
                 seat: int | None, frames: list[dict]) -> None:
    st = rep.state
    need = list(hr.targets)
    scores_before = list(st.scores)
    if seat is None:
        start_hands = [sorted(map(_card, hr.dealt[s])) for s in range(3)]
    else:
        v = rep.view(seat)
        start_hands = [list(v.hand) if s == seat else None for s in range(3)]
    base = {"h": index, "need": need, "contract": None, "tno": 0, "end": False}
    frames.append({**base, "cap": f"Hand {hr.hand}: dealt; dealer {labels[hr.dealer]}, "
                   f"declarer {labels[hr.declarer]}",
                   "hands": [None if c is None else _texts(c, len(hr.dealt[s]))
                             for s, c in enumerate(start_hands)],
                   "sizes": [len(hr.dealt[s]) for s in range(3)], "trick": [],
                   "winner": None, "won": [0, 0, 0], "scores": scores_before})
    contract, tno = None, 0
    for d in hr.decisions:
        step = rep.step(parse_action(d.action))
        if step.contract is not None:
            contract = contract_name(step.contract)
            if step.contract == MISERE:
                need = list(hr.limits)
        if step.trick is not None:
            tno = step.trick[0]
        cap = _caption(step, d, labels, seat, rep)
        t = step.table
        frames.append({
            "h": index, "cap": cap, "need": need, "contract": contract, "tno": tno,
            "end": step.hand_end is not None,
            "hands": [None if c is None else _texts(c, n) for c, n in zip(t.hands, t.sizes)],
            "sizes": list(t.sizes), "trick": [[s, card_str(c)] for s, c in t.trick],
            "winner": t.winner, "won": list(t.tricks_won), "scores": list(t.scores)})


def _texts(cards, size: int) -> list[str | None]:  # noqa: ANN001 - card ints
    """Card texts by suit (S H D C), high to low within a suit, padded with None (shown as
    ``??``) up to ``size`` for own cards not yet seen (six-contracts declarer's first 6)."""
    out: list[str | None] = [card_str(c) for c in sorted(cards, key=lambda c: (suit_of(c),
                                                                               -rank_of(c)))]
    return out + [None] * (size - len(out))


def _caption(step: Step, d, labels: list[str], seat: int | None,  # noqa: ANN001
             rep: Replayer) -> str:
    who = labels[step.seat]
    if step.kind == "play":
        text = f"{who} plays {card_str(step.action)}"
    elif step.discard is not None:
        text = f"{who} discards " + (card_str(step.action) if seat in (None, step.seat)
                                     else "a card")
    elif step.contract is not None:
        text = f"{who} chooses {contract_name(step.contract)}"
    else:
        events = step.events
        if seat is not None and events:
            events = rep.view(seat).exchange_events[-len(events):]
        text = "; ".join(event_text(e, labels) for e in events) or f"{who} exchanges"
    if step.trick is not None:
        k, tr = step.trick
        text += f"; {labels[tr.winner]} wins trick {k}"
    if step.hand_end is not None:
        pts = ", ".join(f"{labels[s]} {p:+d}" for s, p in enumerate(step.hand_end.points))
        text += f"; hand over: {pts}"
    if d.fault is not None and seat in (None, d.seat):
        text += f"; FAULT by {who}: {d.fault}" + (f" ({clean(d.detail)})" if d.detail else "")
    return text
