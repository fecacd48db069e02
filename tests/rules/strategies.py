"""Hypothesis strategies over the rule options: every option of ``RulesConfig``, every value.

:func:`option_overrides` draws a preset and overrides any subset of the options with values
drawn across each option's range: every choice of every enumerated and boolean option, every
triple summing to the tricks per hand for targets and misère limits, every card for
``removed_card``, ``None`` where allowed, small and extreme values of the integer options.
:func:`accepted_configs` keeps the combinations ``make_config`` accepts; the draws lean towards
valid combinations (a 51-card deck is mostly dealt singly, double payment mostly comes with
demand-suit) so that few are thrown away, but every value of every option is reachable. The
hand cap is kept small (1..6) so that random matches stay short.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from arena.rules import OPTION_NAMES, PRESETS, RulesConfigError, card_str, make_config
from arena.rules.config import _BOOLS, _CHOICES

def triples(total: int) -> st.SearchStrategy[tuple[int, int, int]]:
    """Three non-negative ints adding up to ``total`` (every composition is reachable)."""
    return st.integers(0, total).flatmap(
        lambda a: st.integers(0, total - a).map(lambda b: (a, b, total - a - b)))


def _value(draw: Any, name: str, tricks: int) -> Any:
    if name in _CHOICES:
        return draw(st.sampled_from(_CHOICES[name]))
    if name in _BOOLS:
        return draw(st.booleans())
    if name == "removed_card":
        return card_str(draw(st.integers(0, 51)))
    if name == "targets":
        return draw(triples(tricks))
    if name == "misere_limits":
        return draw(st.none() | triples(tricks))
    if name == "end_score":
        return draw(st.none() | st.integers(1, 12) | st.just(10_000))
    if name == "end_hands":
        return draw(st.none() | st.integers(1, 7) | st.just(10_000))
    if name == "tie_extra_hands":
        return draw(st.integers(0, 4) | st.just(1_000))
    if name == "hand_cap":   # mostly 2+: hand 1 has no card exchange
        return draw(st.sampled_from((3, 4, 5, 6, 2, 1)))
    raise AssertionError(f"no strategy for rule option {name!r}")


@st.composite
def option_overrides(draw: Any) -> tuple[str, dict[str, Any]]:
    """(preset, overrides): a preset and random values for a random subset of the options.

    ``hand_cap`` is always drawn (1..6, mostly 3 or more); the deck is drawn first so that
    targets and misère limits can add up to the right number of tricks.
    """
    preset = draw(st.sampled_from(sorted(PRESETS)))
    base = make_config(preset)
    chosen = set(draw(st.sets(st.sampled_from(OPTION_NAMES))))
    chosen.add("hand_cap")
    opts: dict[str, Any] = {}
    deck = draw(st.sampled_from((52, 51))) if "deck" in chosen else base.deck
    if "deck" in chosen:
        opts["deck"] = deck
    tricks = 16 if deck == 52 else 17
    if deck != base.deck:
        # the preset's targets no longer fit: always draw them (and lean to a singles deal)
        chosen |= {"targets"}
        if deck == 51 and draw(st.integers(0, 9)):
            opts["deal_pattern"] = "singles"
            chosen.discard("deal_pattern")
        if deck == 51 and base.declarer_view == "kitty" and draw(st.integers(0, 9)):
            opts["declarer_view"] = draw(st.sampled_from(("hand", "first6")))
            chosen.discard("declarer_view")
        if base.misere_limits is not None:
            chosen.add("misere_limits")
    for name in sorted(chosen - {"deck"}):
        opts[name] = _value(draw, name, tricks)
    if opts.get("double_payment") and "exchange" not in opts and draw(st.integers(0, 3)):
        opts["exchange"] = "demand-suit"
    return preset, opts


@st.composite
def accepted_configs(draw: Any):
    """A :class:`RulesConfig` drawn by :func:`option_overrides` that ``make_config`` accepts."""
    preset, opts = draw(option_overrides())
    try:
        return make_config(preset, **opts)
    except RulesConfigError:
        assume(False)
        raise  # unreachable: assume(False) stops the example
