"""The live page's files: the jinja2 template ``assets/page.html``, its style sheet
``assets/page.css`` (after the cards' of ``arena/records/assets/cards.css``) and script
``assets/page.js`` (package data of ``arena.web``, linted in CI
by ``tools/eslint-check``), inlined when the page is rendered (no external resource: the page
works offline). The script listens to ``events`` (server-sent events): ``snapshot`` replaces
the server-rendered fragments and the matches in flight; ``started``, ``decisions`` and
``finished`` update the live matches; while the stream is down the page says it is stale and
reconnects with back-off, then takes a fresh snapshot.
"""

from __future__ import annotations

from ..records.html_template import cards_style, read_asset


def page_template() -> str:
    """The page's jinja2 template."""
    return read_asset("arena.web", "page.html")


def style() -> str:
    """The page's style sheet, after the cards' shared with the replay viewer."""
    return cards_style() + read_asset("arena.web", "page.css")


def script() -> str:
    """The page's script."""
    return read_asset("arena.web", "page.js")
