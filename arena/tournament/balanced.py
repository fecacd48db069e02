"""Balanced tables: every pair of bots shares a table ``L`` times (O(N^2) tables, not O(N^3)).

A set of 3-bot tables in which every pair of the N bots meets exactly once is a **Steiner
triple system** STS(N); it exists exactly when ``N = 1 or 3 (mod 6)`` (Kirkman 1847) and has
``N(N-1)/6`` tables, every bot sitting at ``(N-1)/2`` of them. Constructions used here (C. C.
Lindner and C. A. Rodger, "Design Theory", 2nd ed., CRC 2008, sections 1.2 and 1.3):

* **Bose** (``N = 6k+3``, ``v = 2k+1``): points ``(x, i)`` for ``x`` in Z_v, ``i`` in Z_3, with
  the idempotent commutative quasigroup ``x o y = (x + y) * (v + 1)/2 mod v``; tables
  ``{(x,0), (x,1), (x,2)}`` and, for ``x < y``, ``{(x,i), (y,i), (x o y, i+1)}``.
* **Skolem** (``N = 6k+1``, ``n = 2k``): points ``inf`` and ``(x, i)`` for ``x`` in Z_n, with
  the half-idempotent commutative quasigroup ``x o y = ((x + y) mod n) / 2`` if even,
  ``((x + y) mod n - 1)/2 + n/2`` if odd; tables ``{(x,0),(x,1),(x,2)}`` for ``x < n/2``,
  ``{inf, (x + n/2, i), (x, i+1)}`` for ``x < n/2`` and, for ``x < y``,
  ``{(x,i), (y,i), (x o y, i+1)}``.

``L`` meetings per pair: the union of ``L`` copies of the system under different bot labellings
(each copy is again an STS), so every pair meets exactly ``L`` times and every bot sits at
``L (N-1)/2`` tables. A table may repeat between copies; its deals then differ (the table's
position is part of the deal seed, see :mod:`.schedule`).

Other N (no STS): a **covering** built from the STS on a neighbouring admissible number of
points (:func:`covering_design`): every pair meets at least once (a few pairs more often) and
the number of tables per bot differs by at most one. The table count is the Schonheim lower
bound ``ceil(N/3 * ceil((N-1)/2))`` for ``N = 4 mod 6`` and less than 10% above it otherwise
for N >= 8 (7 tables instead of 6 for N = 6). With ``L`` copies the points that carry the most
tables in the covering go to the bots with the fewest tables so far, so tables per bot still
differ by at most one (tested for N = 3..40, L = 1..3 in ``tests/tournament/test_balanced.py``).

Everything is a pure function of (bot names, seed, L): bots are mapped to design points in the
order of ``SHA-256(seed, copy, name)`` (after the load balancing just described), so which
bots meet is fixed by the seed and not by the order of the config file, and the same inputs
always give the same tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.deal import derive_seed

__all__ = ["balanced_tables", "covering_design", "covering_size", "has_steiner_system",
           "steiner_triple_system"]

Table = tuple[int, int, int]


def _ascending(t: Table) -> Table:
    """The table's points in ascending order."""
    a, b, c = sorted(t)
    return a, b, c


def has_steiner_system(n: int) -> bool:
    """Whether a Steiner triple system on ``n >= 3`` points exists (``n = 1, 3 mod 6``)."""
    return n >= 3 and n % 6 in (1, 3)


def _bose(n: int) -> list[Table]:
    v = n // 3
    half = (v + 1) // 2

    def pt(x: int, i: int) -> int:
        return x + v * (i % 3)
    out = [(pt(x, 0), pt(x, 1), pt(x, 2)) for x in range(v)]
    for i in range(3):
        for x in range(v):
            for y in range(x + 1, v):
                out.append((pt(x, i), pt(y, i), pt((x + y) * half % v, i + 1)))
    return out


def _skolem(n: int) -> list[Table]:
    m = (n - 1) // 3          # order of the half-idempotent quasigroup (even)
    h = m // 2
    inf = n - 1

    def pt(x: int, i: int) -> int:
        return x + m * (i % 3)

    def op(x: int, y: int) -> int:
        s = (x + y) % m
        return s // 2 if s % 2 == 0 else (s - 1) // 2 + h

    out = [(pt(x, 0), pt(x, 1), pt(x, 2)) for x in range(h)]
    for i in range(3):
        for x in range(h):
            out.append((inf, pt(x + h, i), pt(x, i + 1)))
        for x in range(m):
            for y in range(x + 1, m):
                out.append((pt(x, i), pt(y, i), pt(op(x, y), i + 1)))
    return out


def steiner_triple_system(n: int) -> list[Table]:
    """The tables of an STS on points ``0..n-1`` (Bose or Skolem construction), each table
    sorted ascending.

    Raises:
        ValueError: ``n`` is not 1 or 3 mod 6 (or < 3): no such system exists.
    """
    if not has_steiner_system(n):
        raise ValueError(f"no Steiner triple system on {n} points (needs n = 1 or 3 mod 6)")
    raw = _bose(n) if n % 6 == 3 else _skolem(n)
    return sorted(map(_ascending, raw))


def _matching_tables(extra: int, points: Sequence[int], spare: int) -> list[Table]:
    """Tables ``{extra, a, b}`` over consecutive pairs of ``points``; an odd last point gets
    ``spare`` as its table mate."""
    out = [(extra, points[k], points[k + 1]) for k in range(0, len(points) - 1, 2)]
    if len(points) % 2:
        out.append((extra, points[-1], spare))
    return out


def covering_design(n: int) -> list[Table]:
    """Tables on points ``0..n-1`` covering every pair at least once, each table sorted.

    * ``n = 1, 3 mod 6``: an STS (every pair exactly once, every point at ``(n-1)/2`` tables);
    * ``n = 0, 2 mod 6``: the STS on ``n+1`` points without its last point; the ``n/2`` pairs
      that shared a table with it form a perfect matching and each gets a new table with a
      third point taken from the next pair (so ``n/2`` distinct points sit at one extra
      table): ``n(n+1)/6`` tables, points at ``n/2`` or ``n/2 + 1`` tables;
    * ``n = 4 mod 6``: the STS on ``n-1`` points plus a new point paired with all others in
      ``n/2`` tables: ``(n-1)(n-2)/6 + n/2`` tables, the Schonheim lower bound;
    * ``n = 5 mod 6``: the STS on ``n-2`` points plus two new points ``x, y``: one table
      ``{x, w, y}`` and matchings of the other old points with ``x`` and with ``y``.

    Raises:
        ValueError: ``n < 3``.
    """
    if n < 3:
        raise ValueError(f"a covering needs at least 3 points, got {n}")
    r = n % 6
    if r in (1, 3):
        return steiner_triple_system(n)
    if r in (0, 2):
        big = steiner_triple_system(n + 1)
        out = [t for t in big if n not in t]
        lost = [(t[0], t[1]) for t in big if n in t]
        for k, (a, b) in enumerate(lost):
            out.append((a, b, lost[(k + 1) % len(lost)][0]))
    elif r == 4:
        out = steiner_triple_system(n - 1) + _matching_tables(n - 1, range(n - 1), 0)
    else:
        x, y, w = n - 2, n - 1, n - 3
        out = [*steiner_triple_system(n - 2), (x, w, y)]
        out += _matching_tables(x, range(n - 3), 0) + _matching_tables(y, range(n - 3), 1)
    return sorted(map(_ascending, out))


def covering_size(n: int) -> int:
    """``len(covering_design(n))`` in closed form (for size checks of large rosters)."""
    r = n % 6
    if r in (1, 3):
        return n * (n - 1) // 6
    if r in (0, 2):
        return n * (n + 1) // 6
    if r == 4:
        return (n - 1) * (n - 2) // 6 + n // 2
    return (n - 2) * (n - 3) // 6 + n - 2


def _order(bots: Sequence[str], seed: int | str | bytes, copy: int) -> list[str]:
    """Bots sorted by SHA-256 of (seed, copy, name): the labelling of design copy ``copy``."""
    return sorted(bots, key=lambda name: derive_seed(seed, "balanced-order", copy, name))


def balanced_tables(bots: Sequence[str], pair_meetings: int,
                    seed: int | str | bytes) -> list[tuple[str, str, str]]:
    """Tables (3 bot names each, in config order within a table) such that every pair of bots
    shares a table ``pair_meetings`` times (exactly, when an STS on ``len(bots)`` points
    exists; at least, otherwise). See the module doc for constructions and guarantees.

    Size: ``pair_meetings * N(N-1)/6`` tables for ``N = 1, 3 mod 6``; a little more otherwise.

    Raises:
        ValueError: fewer than 3 bots, repeated names, or ``pair_meetings < 1``.
    """
    if len(bots) < 3 or len(set(bots)) != len(bots):
        raise ValueError("a schedule needs at least 3 distinct bots")
    if isinstance(pair_meetings, bool) or not isinstance(pair_meetings, int) \
            or pair_meetings < 1:
        raise ValueError(f"pair_meetings must be an integer >= 1, got {pair_meetings!r}")
    n = len(bots)
    position = {name: k for k, name in enumerate(bots)}
    design = covering_design(n)
    point_load = [0] * n
    for t in design:
        for x in t:
            point_load[x] += 1
    busiest_points = sorted(range(n), key=lambda x: -point_load[x])   # stable
    load = dict.fromkeys(bots, 0)
    out: list[tuple[str, str, str]] = []
    for copy in range(pair_meetings):
        # the points with most tables go to the bots with fewest tables so far (in hash order
        # among equals), so that the copies even out the covering's uneven loads
        free = sorted(_order(bots, seed, copy), key=load.__getitem__)
        label = [""] * n
        for point, name in zip(busiest_points, free, strict=True):
            label[point] = name
        for t in design:
            out.append(_named(t, label, position))
            for k in t:
                load[label[k]] += 1
    return out


def _named(t: Table, label: Sequence[str], position: dict[str, int]) -> tuple[str, str, str]:
    names = sorted((label[k] for k in t), key=position.__getitem__)
    return (names[0], names[1], names[2])
