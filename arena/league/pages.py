"""The league's own pages (server-rendered, escaped, self-contained): a page per bot and the
list of submissions. Templates, style and script are package data (``arena/league/assets/``),
inlined when a page is rendered.

A bot's page shows what anyone may see: its versions and their ratings, its rating over time,
its recent matches with replay links (only matches whose whole duplicate block is finished, as
on the live page), its faults and forfeit reasons (likewise); the tail of its log is fetched
by its owner's token (``/api/bots/OWNER/BOT/log``), never shown to others.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from ..records.html_template import read_asset
from ..web.svg import rating_plot

if TYPE_CHECKING:
    from ..web.state import LiveState
    from .service import LeagueService

#: recent matches a bot's page lists
RECENT = 30


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


def _render(template: str, **values: Any) -> str:
    return _env().from_string(read_asset("arena.league", template)).render(
        style=read_asset("arena.league", "league.css"), **values)


def _rating_cell(row: Any) -> str:
    if row is None or row.rating is None:
        return "-"
    if row.one_sided:
        return str(row.one_sided)
    ci = f" [{row.ci_low:.0f}, {row.ci_high:.0f}]" if row.ci_low is not None else ""
    return f"{row.rating:.0f}{ci}"


def bot_page(service: LeagueService, state: LiveState, owner: str, bot: str) -> str | None:
    """The page of bot ``owner/bot`` (None: no such bot)."""
    subs = [s for s in service.st.submissions(owner) if s.bot == bot]
    if not subs:
        return None
    snap = state.snapshot or state.refresh()     # the page's latest (kept fresh each second)
    rows = {r.bot: r for r in snap.standings.rows}
    names = [s.full_name for s in subs if s.full_name]
    versions = [{"name": s.full_name or f"submission {s.id}", "state": s.state,
                 "submitted": s.created_at, "rating": _rating_cell(rows.get(s.full_name or "")),
                 "matches": rows[s.full_name].matches if s.full_name in rows else 0,
                 "place": (f"{rows[s.full_name].average_place:.2f}"
                           if s.full_name in rows else "-")}
                for s in subs]
    complete = service.st.store.complete_blocks()
    mine = set(names)
    results = [r for r in service.st.store.results() if mine & set(r.players)]
    shown = [r for r in results if r.block in complete]
    recent = []
    for r in reversed(shown[-RECENT:]):
        seat = next(i for i, n in enumerate(r.players) if n in mine)
        recent.append({"id": r.match_id, "seats": ", ".join(r.players),
                       "place": r.places[seat], "score": r.scores[seat]})
    faults = sum(r.faults[i] for r in shown for i, n in enumerate(r.players) if n in mine)
    reasons = [f"{r.match_id} ({r.players[i]}): {r.forfeit_reasons[i]}" for r in shown
               for i, n in enumerate(r.players) if n in mine and r.forfeits[i]]
    plot = rating_plot(snap.history, tuple(n for n in names if n in snap.bots)) \
        if snap.history else "<p class=\"note\">No rating yet.</p>"
    return _render("bot.html", owner=owner, bot=bot, versions=versions,
                   plot=Markup(plot), matches=recent,
                   waiting=len(results) - len(shown), faults=faults, forfeits=len(reasons),
                   reasons=reasons[-20:], script=Markup(read_asset("arena.league", "bot.js")))


def submissions_page(service: LeagueService) -> str:
    """The submissions, newest first, with their states (a rejection's reason included)."""
    rows = [{"id": s.id, "owner": s.owner, "bot": s.bot, "state": s.state,
             "version": s.version or "", "submitted": s.created_at,
             "reason": (s.reason or "") if s.state == "rejected" else ""}
            for s in reversed(service.st.submissions())]
    return _render("submissions.html", name=service.cfg.tournament.name, rows=rows[:200])
