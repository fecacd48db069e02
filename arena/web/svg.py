"""Inline SVG made server-side for the live page: the rating-over-time plot and the
head-to-head matrix. No script, no external resource; every bot name is escaped
(:func:`arena.safetext.printable`, then HTML-escaped).
"""

from __future__ import annotations

import html

from ..safetext import printable

#: line colours of the rating plot, by bot order (repeats past 8 bots)
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf")


#: the Elo scale's mean (arena.ratings: ratings average 1500), drawn as a dashed line
MEAN = 1500.0


def _t(text: object) -> str:
    return html.escape(printable(str(text)), quote=True)


def rating_plot(history: tuple[tuple[int, dict[str, float]], ...], bots: tuple[str, ...],
                width: int = 640, height: int = 260) -> str:
    """An SVG line chart: x = matches finished, y = Elo rating (no-bootstrap fit) per bot.
    Returns a short note (HTML) while there are fewer than two points."""
    if len(history) < 2:
        return '<p class="note">The rating plot appears after a few matches.</p>'
    left, right, top, bottom = 48, 150, 10, 28
    xs = [k for k, _ in history]
    ys = [v for _, r in history for v in r.values()]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min([*ys, MEAN]), max([*ys, MEAN])   # the scale's mean always in view
    pad = max(25.0, (y1 - y0) * 0.08)
    y0, y1 = y0 - pad, y1 + pad

    def px(k: float) -> float:
        return left + (k - x0) / max(1, x1 - x0) * (width - left - right)

    def py(v: float) -> float:
        return top + (y1 - v) / (y1 - y0) * (height - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
             '<title>Rating over time</title>',
             f'<line x1="{left}" y1="{py(MEAN):.1f}" x2="{width - right}" '
             f'y2="{py(MEAN):.1f}" stroke="#bbb" stroke-dasharray="4 3"/>',
             f'<text x="{left - 4}" y="{py(y1) + 10:.1f}" text-anchor="end">{y1:.0f}</text>',
             f'<text x="{left - 4}" y="{py(y0):.1f}" text-anchor="end">{y0:.0f}</text>',
             f'<text x="{left - 4}" y="{py(MEAN) + 4:.1f}" text-anchor="end">{MEAN:.0f}</text>',
             f'<text x="{left}" y="{height - 8}">{x0}</text>',
             f'<text x="{width - right}" y="{height - 8}" text-anchor="end">{x1} matches'
             '</text>']
    for i, bot in enumerate(bots):
        pts = [(k, r[bot]) for k, r in history if bot in r]
        if not pts:
            continue
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{px(k):.1f},{py(v):.1f}" for k, v in pts)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{path}"><title>{_t(bot)}</title></polyline>')
        y = top + 14 + 16 * i
        parts.append(f'<rect x="{width - right + 8}" y="{y - 9}" width="10" height="10" '
                     f'fill="{colour}"/><text x="{width - right + 22}" y="{y}">'
                     f'{_t(bot[:18])} {pts[-1][1]:.0f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def h2h_matrix(h2h: dict[tuple[str, str], tuple[int, int, int, int]], bots: tuple[str, ...],
               cell: int = 64) -> str:
    """An SVG matrix: row bot ``a`` against column bot ``b``, the share of their common matches
    in which ``a`` placed above ``b`` (ties count half), shaded red (0) to green (1), with
    ``above-below-equal`` in each cell."""
    if not h2h:
        return '<p class="note">The head-to-head matrix appears after the first match.</p>'
    label = 120
    n = len(bots)
    w, h = label + n * cell, 24 + n * cell
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="matrix" role="img" '
             f'viewBox="0 0 {w} {h}" width="{w}" height="{h}"><title>Head-to-head</title>']
    for j, b in enumerate(bots):
        parts.append(f'<text x="{label + j * cell + cell / 2}" y="16" text-anchor="middle">'
                     f'{_t(b[:9])}<title>{_t(b)}</title></text>')
    for i, a in enumerate(bots):
        y = 24 + i * cell
        parts.append(f'<text x="{label - 6}" y="{y + cell / 2 + 4}" text-anchor="end">'
                     f'{_t(a[:16])}<title>{_t(a)}</title></text>')
        for j, b in enumerate(bots):
            x = label + j * cell
            m, above, below, equal = h2h.get((a, b), (0, 0, 0, 0))
            if i == j or not m:
                fill, text = "#eee", "" if i == j else "-"
            else:
                share = (above + equal / 2) / m
                fill = f"rgb({int(230 - 130 * share)},{int(100 + 130 * share)},120)"
                text = f"{above}-{below}-{equal}"
            parts.append(f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                         f'fill="{fill}"><title>{_t(a)} vs {_t(b)}: {text}</title></rect>'
                         f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 + 4}" '
                         f'text-anchor="middle">{text}</text>')
    parts.append("</svg>")
    parts.append(H2H_LEGEND)
    return "".join(parts)


#: what the head-to-head matrix's cells mean (shown under it)
H2H_LEGEND = ('<p class="legend" id="h2h-legend">Row bot against column bot, over the matches '
              'they played together: <b>above-below-level</b>, how often the row bot placed '
              'above the column bot, below it, or level with it. Colour: '
              '<span style="background:rgb(100,230,120)">&nbsp;green&nbsp;</span> the row bot '
              'placed above more often, <span style="background:rgb(230,100,120)">&nbsp;red'
              '&nbsp;</span> below (level counts half); &ldquo;-&rdquo;: they never met.</p>')
