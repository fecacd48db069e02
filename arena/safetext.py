"""Text that came from bots (or from files they could write), made safe to show. Every writer
of a terminal line or a page uses these helpers:

- :func:`printable`: for terminals and plain text. Control characters (C0, DEL, C1: ``ESC``
  starts the ANSI sequences that clear a screen or retitle a window), format characters (Unicode
  category Cf: the bidi overrides and isolates such as U+202E that reorder what follows, zero
  width characters) and line/paragraph separators are written as ``\\uXXXX`` escapes (astral
  ones as ``\\UXXXXXXXX``); everything else, accents and emoji included, is kept. The zero
  width joiner (U+200D) is kept: it only joins emoji.
- :func:`markdown_cell`: for Markdown tables (standings.md, ``arena ratings --format md``):
  Markdown punctuation backslash-escaped, HTML specials entity-escaped, then
  :func:`printable`, so a name renders as itself (``<img src=x onerror=...>`` as text,
  ``*bold*`` with its stars) and cannot break the table.
- :func:`markdown_text`: for a line of prose under a table (notes, legend): the same, except
  that ``<``, ``>`` and ``&`` are entity-escaped only where Markdown or HTML would read markup
  (a tag, an entity, a blockquote), so ``"> x" / "< x"`` stays as written on a terminal.
- HTML pages (``arena replay --html``) are rendered by jinja2 with autoescape and
  :func:`printable` as the ``finalize`` of every value (:func:`html_finalize`).

These escapes are one-way (for display); data files (CSV, JSON, records) keep the text as it
was, with their own quoting.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["html_finalize", "markdown_cell", "markdown_text", "printable"]

_UNSAFE_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp"))
_KEEP = frozenset("\u200d")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!])")
#: what starts markup in Markdown prose: a tag, comment or autolink (``<`` then a letter, ``/``,
#: ``!`` or ``?``), an entity (``&`` then a letter or ``#``), a blockquote (a leading ``>``)
_MARKUP = re.compile(r"<(?=[A-Za-z/!?])|&(?=[A-Za-z#])|^\s*>")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every control, format (bidi) and line-separator character written as an
    escape (see the module docstring); ``str(text)`` first for non-strings."""
    text = str(text)
    if text.isprintable():   # the common case (no Cc, Cf, Zl, Zp in it): nothing to do
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _UNSAFE_CATEGORIES
                   and ch not in _KEEP else ch for ch in text)


def markdown_cell(text: str) -> str:
    """``text`` for a Markdown table cell (GitHub flavour): it renders literally, on one line,
    with no markup, link, image or HTML."""
    # escapes added by printable() are plain text: they are added last, not re-escaped
    return printable(html.escape(_MD_SPECIAL.sub(r"\\\1", str(text)), quote=False))


def markdown_text(text: str) -> str:
    """``text`` for a line of Markdown prose (a note or a legend line under a table): it
    renders literally, with no markup, link, image or HTML, while a ``<`` or ``>`` that starts
    no markup is kept (``"> x"``, ``(> or <)``: no ``&gt;`` on a terminal)."""
    entities = _MARKUP.sub(lambda m: html.escape(m.group(0), quote=False), str(text))
    return printable(_MD_SPECIAL.sub(r"\\\1", entities))


def html_finalize(value: object) -> object:
    """jinja2 ``finalize``: every value printed into the page goes through :func:`printable`
    (jinja2's autoescape then escapes markup); already-safe markup (``Markup``) and
    non-text values pass unchanged."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return printable(value)
    return value
