"""Rule options and the five presets of RULES.md sections 3 and 5.

A :class:`RulesConfig` is an immutable bundle of option values. Build one with
:func:`make_config` (a preset name plus overrides); every value is checked and a bad one raises
:class:`RulesConfigError` naming the option and the valid choices.

Option reference (RULES.md section 3; seat roles S0 = dealer, S1 = next in play order, S2):

==========================  ==================================================================
``deck``                    52, or 51 (``removed_card`` taken out, no kitty, 17 cards each)
``removed_card``            card removed from a 51-card deck (default ``"2C"``)
``direction``               ``"clockwise"`` (seat p plays before p+1) or ``"counterclockwise"``
``declarer``                ``"S0"`` (dealer) or ``"S1"``: who chooses the contract, takes the kitty
``targets``                 tricks each role must take, ``(S0, S1, S2)``; must sum to tricks/hand
``first_lead``              ``"S1"`` or ``"declarer"``
``no_trump``, ``misere``    extra contracts besides the four suits
``contract_once``           each player may choose each contract at most once per cycle: once
                            he has chosen all of them, all are open again (RULES.md dec. 16)
``declarer_view``           what the declarer sees when choosing: ``"kitty"`` (takes the kitty
                            first, 20 cards), ``"hand"`` (16/17) or ``"first6"`` (his first 6
                            dealt cards; no exchange before the contract)
``kitty_shown``             kitty shown to all when taken (else only the declarer sees it)
``deal_pattern``            ``"packets"``, ``"singles"`` or ``"blato"`` (RULES.md section 6)
``exchange``                ``"none"``, ``"demand-suit"``, ``"pass-return-batch"``,
                            ``"pass-return-interactive"`` (section 4)
``exchange_timing``         ``"before-contract"``, or ``"after-contract"`` (trump contracts only)
``exchange_order``          ``"larger-up-first"`` or ``"higher-target-first"``
``double_payment``          2 cards per overtrick (demand-suit only)
``exchange_optional``       an up player may stop exchanging early
``follow``                  ``"F1"``, ``"F2"`` or ``"F3"`` in trump contracts (F1 otherwise)
``misere_limits``           ``(S0, S1, S2)`` most tricks allowed in misère; ``None`` = default
                            (targets with the declarer's and the lowest target swapped)
``twelve_trick_win``        a player taking 12+ tricks in a non-misère hand wins the match
``end_score``               match ends when a total reaches ``+end_score`` (``None`` = off)
``end_score_either_sign``   ... or ``-end_score``
``end_hands``               match ends after this many hands (hand limit / fixed hands; a
                            multiple of 3 with the six-contracts preset)
``tie_break``               first place shared when an end condition (score or hands) holds:
                            ``"extra-hands"`` (up to ``tie_extra_hands`` more hands, until it
                            is not shared), ``"shared"`` (end, shared place), or
                            ``"continue"`` (play on, conditions checked after every hand);
                            see ``arena.rules.scoring.end_reason``
``hand_cap``                hard limit on hands; the match then ends by match score
==========================  ==================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cards import parse_card
from .errors import CardParseError, RulesConfigError

_CHOICES: dict[str, tuple[Any, ...]] = {
    "deck": (52, 51),
    "direction": ("clockwise", "counterclockwise"),
    "declarer": ("S0", "S1"),
    "first_lead": ("S1", "declarer"),
    "declarer_view": ("kitty", "hand", "first6"),
    "deal_pattern": ("packets", "singles", "blato"),
    "exchange": ("none", "demand-suit", "pass-return-batch", "pass-return-interactive"),
    "exchange_timing": ("before-contract", "after-contract"),
    "exchange_order": ("larger-up-first", "higher-target-first"),
    "follow": ("F1", "F2", "F3"),
    "tie_break": ("extra-hands", "shared", "continue"),
}
_BOOLS = ("no_trump", "misere", "contract_once", "kitty_shown", "double_payment",
          "exchange_optional", "twelve_trick_win", "end_score_either_sign")


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Immutable option values of one rule set; see the module docstring for each option.

    Construct through :func:`make_config`, which validates; direct construction also validates
    (``__post_init__``) and raises :class:`RulesConfigError`.
    """

    preset: str = "sergeant-major"
    deck: int = 52
    removed_card: str = "2C"
    direction: str = "clockwise"
    declarer: str = "S0"
    targets: tuple[int, int, int] = (8, 5, 3)
    first_lead: str = "S1"
    no_trump: bool = False
    misere: bool = False
    contract_once: bool = False
    declarer_view: str = "kitty"
    kitty_shown: bool = False
    deal_pattern: str = "packets"
    exchange: str = "demand-suit"
    exchange_timing: str = "before-contract"
    exchange_order: str = "larger-up-first"
    double_payment: bool = False
    exchange_optional: bool = False
    follow: str = "F1"
    misere_limits: tuple[int, int, int] | None = None
    twelve_trick_win: bool = True
    end_score: int | None = None
    end_score_either_sign: bool = False
    end_hands: int | None = 10
    tie_break: str = "extra-hands"
    tie_extra_hands: int = 3
    hand_cap: int = 60

    def __post_init__(self) -> None:
        _validate(self)

    # ----- derived values -------------------------------------------------------------------
    @property
    def kitty_size(self) -> int:
        """Cards in the kitty (talon): 4 with 52 cards, 0 with 51."""
        return 4 if self.deck == 52 else 0

    @property
    def tricks_per_hand(self) -> int:
        """Tricks in one hand: 16 (52 cards) or 17 (51 cards)."""
        return (self.deck - self.kitty_size) // 3

    @property
    def declarer_role(self) -> int:
        """Role index of the declarer: 0 (S0, dealer) or 1 (S1)."""
        return 0 if self.declarer == "S0" else 1

    @property
    def limits(self) -> tuple[int, int, int]:
        """Misère limits per role (S0, S1, S2): explicit, or the targets with the declarer's
        and the lowest target swapped (RULES.md section 3)."""
        if self.misere_limits is not None:
            return self.misere_limits
        lim = list(self.targets)
        d = self.declarer_role
        low = min(range(3), key=lambda r: (lim[r], r))
        lim[d], lim[low] = lim[low], lim[d]
        return (lim[0], lim[1], lim[2])

    def options(self) -> dict[str, Any]:
        """All option values as a plain dict (JSON-friendly: tuples become lists)."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def replace(self, **overrides: Any) -> RulesConfig:
        """A copy with some options changed (validated like :func:`make_config`)."""
        return make_config(self.preset, base=self, **overrides)


def _fail(name: str, value: Any, expected: str) -> RulesConfigError:
    return RulesConfigError(
        f"invalid value {value!r} for rule option '{name}': expected {expected}")


def _strict_int(value: object) -> bool:
    """An ``int`` (or a subclass of it) but not a ``bool``; no float, no text."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int(value: object, low: int, high: int) -> bool:
    """A strict int (:func:`_strict_int`) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_triple(value: object) -> bool:
    """A tuple of three non-negative ints (a list is not a tuple: config files' lists are made
    tuples by :func:`make_config`)."""
    return isinstance(value, tuple) and len(value) == 3 and all(
        _strict_int(v) and v >= 0 for v in value)


def _is_card(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parse_card(value)
    except CardParseError:
        return False
    return True


def _one_of(choices: tuple[Any, ...]) -> Callable[[object], bool]:
    """A check that a value is one of ``choices``, of exactly their type (52.0 or True is not
    52, a StrEnum member is not its text)."""
    kind = type(choices[0])
    return lambda value: type(value) is kind and value in choices


def _optional(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: value is None or check(value)


#: each option's value check, in the order options are checked: the choices, the switches
#: (strict bool), the card, the role triples, the bounded integers (strict throughout: no
#: coercion, so True is not 1 and a list is not a tuple)
_CHECKS: dict[str, Callable[[object], bool]] = {
    **{name: _one_of(choices) for name, choices in _CHOICES.items()},
    **dict.fromkeys(_BOOLS, lambda value: type(value) is bool),
    "removed_card": _is_card,
    "targets": _is_triple,
    "misere_limits": _optional(_is_triple),
    "end_score": _optional(lambda value: _is_int(value, 1, 10_000)),
    "end_hands": _optional(lambda value: _is_int(value, 1, 10_000)),
    "tie_extra_hands": _optional(lambda value: _is_int(value, 0, 1_000)),
    "hand_cap": lambda value: _is_int(value, 1, 10_000),
}
#: what each option expects, in the words of the error message
_EXPECTED: dict[str, str] = {
    **{name: "one of " + ", ".join(repr(x) for x in choices)
       for name, choices in _CHOICES.items()},
    **dict.fromkeys(_BOOLS, "true or false"),
    "removed_card": "a card such as '2C'",
    "targets": "three non-negative integers for roles S0, S1, S2",
    "misere_limits": "three non-negative integers for roles S0, S1, S2",
    "end_score": "an integer from 1 to 10000, or none",
    "end_hands": "an integer from 1 to 10000, or none",
    "tie_extra_hands": "an integer from 0 to 1000, or none",
    "hand_cap": "an integer from 1 to 10000, or none",
}


def _check_sum(name: str, value: tuple[int, int, int], total: int) -> None:
    if sum(value) != total:
        raise RulesConfigError(
            f"rule option '{name}' {list(value)} adds up to {sum(value)}, "
            f"but a hand has {total} tricks")


def _validate(c: RulesConfig) -> None:
    """Raise :class:`RulesConfigError` for a bad option value or a bad combination."""
    _validate_values(c)
    _validate_combinations(c)


def _validate_values(c: RulesConfig) -> None:
    """Each value's type and range, reported for the first bad option in :data:`_CHECKS`
    order; then the role triples' sums."""
    for name, check in _CHECKS.items():
        value = getattr(c, name)
        if not check(value):
            expected = "an integer >= 1" if name == "hand_cap" and value is None \
                else _EXPECTED[name]
            raise _fail(name, value, expected)
    _check_sum("targets", c.targets, c.tricks_per_hand)
    if c.misere_limits is not None:
        _check_sum("misere_limits", c.misere_limits, c.tricks_per_hand)


def _validate_combinations(c: RulesConfig) -> None:
    if c.double_payment and c.exchange != "demand-suit":
        raise RulesConfigError("rule option 'double_payment' needs exchange 'demand-suit' "
                               f"(got exchange {c.exchange!r})")
    if c.deck == 51 and c.deal_pattern != "singles":
        raise RulesConfigError("a 51-card deck is dealt singly: set deal_pattern 'singles'")
    if c.declarer_view == "kitty":
        if c.kitty_size == 0:
            raise RulesConfigError("declarer_view 'kitty' needs a kitty (deck 52)")
        if c.exchange != "none" and c.exchange_timing != "before-contract":
            raise RulesConfigError("declarer_view 'kitty' takes the kitty before the contract, so "
                                   "exchange_timing must be 'before-contract'")
    if c.declarer_view == "first6" and c.exchange != "none" \
            and c.exchange_timing == "before-contract":
        # the declarer would exchange cards he may not see yet (RULES.md 5: six-contracts
        # exchanges after the contract)
        raise RulesConfigError(
            f"declarer_view 'first6' cannot be combined with exchange {c.exchange!r} and "
            "exchange_timing 'before-contract': the declarer sees only his first 6 cards until "
            "he has chosen the contract, so the exchange must come after it (exchange_timing "
            "'after-contract') or not at all (exchange 'none')")
    if c.preset == "six-contracts" and c.end_hands is not None and c.end_hands % 3:
        raise RulesConfigError(
            f"rule option 'end_hands' {c.end_hands} is not a multiple of 3: a six-contracts "
            "match is a fixed number of hands in which every player declares equally often "
            "(RULES.md decision 16)")


_BASE = RulesConfig()

#: The presets of RULES.md section 5, as overrides of the sergeant-major defaults.
PRESETS: dict[str, dict[str, Any]] = {
    "sergeant-major": {},
    "nine-five-two": {"targets": (9, 5, 2)},
    "six-three-eight": {
        "deck": 51, "targets": (8, 6, 3), "declarer_view": "hand", "deal_pattern": "singles",
        "twelve_trick_win": False, "end_score": 10, "end_score_either_sign": True,
        "end_hands": None, "tie_break": "shared",
    },
    "six-contracts": {
        "declarer": "S1", "targets": (3, 8, 5), "first_lead": "declarer", "no_trump": True,
        "misere": True, "contract_once": True, "declarer_view": "first6", "kitty_shown": True,
        "deal_pattern": "singles", "exchange": "pass-return-interactive",
        "exchange_timing": "after-contract", "exchange_order": "higher-target-first",
        "exchange_optional": True, "follow": "F2", "twelve_trick_win": False,
        "end_hands": 18, "tie_break": "shared",
    },
    "blato": {
        "direction": "counterclockwise", "declarer": "S1", "targets": (3, 8, 5),
        "first_lead": "declarer", "no_trump": True, "declarer_view": "hand", "kitty_shown": True,
        "deal_pattern": "blato", "exchange": "pass-return-batch",
        "exchange_timing": "after-contract", "exchange_order": "higher-target-first",
        "follow": "F3", "twelve_trick_win": False, "end_score": 21, "end_hands": None,
        "tie_break": "continue",
    },
}
DEFAULT_PRESET = "sergeant-major"
OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RulesConfig) if f.name != "preset")


def _coerce(name: str, value: Any) -> Any:
    """Accept config-file spellings: lists for triples, ``"none"`` for None, ints for deck."""
    if name in ("targets", "misere_limits") and isinstance(value, list):
        return tuple(value)
    if isinstance(value, str) and value.lower() in ("none", "off") and name in (
            "misere_limits", "end_score", "end_hands"):
        return None
    return value


def config_from_options(preset: str, options: dict[str, Any]) -> RulesConfig:
    """Like :func:`make_config` with the overrides as a mapping (e.g. a config file's
    ``[rules]`` table), so that any key, even ``preset`` or ``base``, is checked as an option.

    Raises:
        RulesConfigError: as :func:`make_config`.
    """
    unknown = [k for k in options if k not in OPTION_NAMES]
    if unknown:
        hint = " (the preset is chosen on its own, not among the options)" if unknown[0] == \
            "preset" else ""
        raise RulesConfigError(f"unknown rule option {unknown[0]!r}{hint}; valid options: "
                               f"{', '.join(OPTION_NAMES)}")
    return make_config(preset, **options)


def make_config(preset: str = DEFAULT_PRESET, *, base: RulesConfig | None = None,
                **overrides: Any) -> RulesConfig:
    """Build a validated :class:`RulesConfig` from a preset name plus option overrides.

    Args:
        preset: one of :data:`PRESETS` (``sergeant-major`` is the default).
        base: start from this config instead of the preset's values (used by ``replace``).
        overrides: option name -> value (see the module docstring); lists are accepted for
            ``targets`` and ``misere_limits``.

    Raises:
        RulesConfigError: unknown preset, unknown option, or invalid value/combination; the
            message names the valid choices.
    """
    if preset not in PRESETS:
        raise RulesConfigError(f"unknown preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    unknown = [k for k in overrides if k not in OPTION_NAMES]
    if unknown:
        raise RulesConfigError(f"unknown rule option {unknown[0]!r}; valid options: "
                               f"{', '.join(OPTION_NAMES)}")
    values = {k: _coerce(k, v) for k, v in overrides.items()}
    if base is None:
        return dataclasses.replace(_BASE, preset=preset, **{**PRESETS[preset], **values})
    return dataclasses.replace(base, **values)
