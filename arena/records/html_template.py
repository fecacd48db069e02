"""The replay page's files: the jinja2 template ``assets/replay.html``, its style sheets
``assets/cards.css`` (shared with the live page) and ``assets/replay.css`` and its script
``assets/replay.js`` (package data of ``arena.records``,
linted in CI by ``tools/eslint-check``). :mod:`arena.records.html` renders the template with
autoescape and inlines the style sheet and the script, so a page is one self-contained file
that works offline.

Template variables: ``title``, ``header`` (RecordHeader), ``labels`` (display names by seat),
``versions``, ``reasons`` (cleaned per seat), ``seat`` (the seat of a seat page or None),
``result`` (RecordResult), ``chart`` (:func:`arena.records.html.score_chart`), ``persp``
(perspective keys), ``data`` (the JSON, pre-escaped by ``script_json``), ``style`` and
``script`` (the files, as markup).

DOM hooks (used by tests and documented in docs/records.md): ``body[data-step]``,
``body[data-hand]``, ``body[data-view]``; ``.seat[data-seat]`` with ``.won[data-won]`` and
``.cards .card[data-card]`` (face-down cards are ``.card.back`` without ``data-card``);
``#trick .tcard[data-seat][data-card]``; ``#kitty .card``, ``#discards .card``;
``#tricks li[data-step][data-winner]``; ``#moves li[data-step]``; ``#slider``;
``#persp button[data-view]``; ``#caption``; ``#chart``; ``.fly`` (a card in flight).
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

#: what would end an inline ``<script>`` or ``<style>`` element early (or open a comment)
_CLOSES = re.compile(r"</(?:script|style)|<!--", re.IGNORECASE)


@cache
def read_asset(package: str, name: str) -> str:
    """The text of ``assets/<name>`` in ``package`` (e.g. ``"arena.records"``), checked to be
    safe to inline in an HTML ``<script>`` or ``<style>`` element.

    Raises:
        FileNotFoundError: the package was installed without its data files.
        ValueError: the file holds ``</script``, ``</style`` or ``<!--`` (inlined, it would
            end its element early).
    """
    text = files(package).joinpath("assets", name).read_text(encoding="utf-8")
    if name.endswith((".js", ".css")) and _CLOSES.search(text):
        raise ValueError(f"{package} assets/{name}: cannot be inlined (it holds "
                         f"{_CLOSES.search(text).group(0)!r})")   # type: ignore[union-attr]
    return text


def template() -> str:
    """The replay page's jinja2 template."""
    return read_asset("arena.records", "replay.html")


def cards_style() -> str:
    """The style sheet of cards and of the cards on the table (``assets/cards.css``), shared
    with the live page."""
    return read_asset("arena.records", "cards.css")


def style() -> str:
    """The replay page's style sheet (the cards' included)."""
    return cards_style() + read_asset("arena.records", "replay.css")


def script() -> str:
    """The replay page's script."""
    return read_asset("arena.records", "replay.js")
