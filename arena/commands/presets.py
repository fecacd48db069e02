"""``arena presets [NAME] [--json]``: the rule presets and their options (RULES.md 3 and 5).

The table shows each option's value per preset in words (``yes``/``no``, targets as
``8/5/3`` for S0/S1/S2, ``-`` where an option does not apply, e.g. ``removed_card`` with a
52-card pack), then one line per option saying what it means. ``--json`` prints the raw option
values (:meth:`arena.rules.RulesConfig.options`), unchanged.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from typing import TYPE_CHECKING

from ..errors import UserError
from ..wording import unknown_choice

if TYPE_CHECKING:
    from ..rules import RulesConfig

SEATS = ("Seats of a hand: S0 = the dealer, S1 = the first to play after the dealer, "
         "S2 = the third player. Override options in a config's [rules] or with "
         "`arena play --set OPTION=VALUE`.")

#: one line per option: what it means (RULES.md sections 2-4 and the option reference of
#: arena/rules/config.py)
MEANINGS: dict[str, str] = {
    "deck": "cards in the pack: 52 (4 of them form the kitty) or 51 (one card removed, no kitty)",
    "removed_card": "the card taken out of a 51-card pack",
    "direction": "direction of play (clockwise: each seat plays before the next one)",
    "declarer": "who chooses the contract (trump suit, no-trump or misère) and takes the kitty",
    "targets": "tricks each seat must take in a hand, as S0/S1/S2",
    "first_lead": "who leads the first trick of a hand",
    "no_trump": "no-trump is one of the contracts",
    "misere": "misère (take at most the limit) is one of the contracts",
    "contract_once": "each player may choose each contract only once per match",
    "declarer_view": "what the declarer sees when choosing: kitty = hand and kitty, "
                     "hand = own hand only, first6 = the first 6 cards dealt",
    "kitty_shown": "the kitty is shown to everyone when the declarer takes it",
    "deal_pattern": "how the cards are dealt (RULES.md 6): packets of 4, singles, or blato's "
                    "rounds",
    "exchange": "card exchange from the second hand on (RULES.md 4): demand-suit, "
                "pass-return (batch or interactive), or none",
    "exchange_timing": "exchange before the contract, or after it (trump contracts only)",
    "exchange_order": "which up player exchanges first: the larger up, or the higher target",
    "double_payment": "an up player gives 2 cards per overtrick instead of 1",
    "exchange_optional": "an up player may stop exchanging early",
    "follow": "what a player void in the suit led must play: F1 any card; F2 a trump if he "
              "holds one; F3 as F2, but over a trump only a higher one (if he holds one), and "
              "on a trump lead he must beat the highest trump if able (RULES.md 2.3)",
    "misere_limits": "most tricks each seat may take in misère, S0/S1/S2 (default: the "
                     "targets with the declarer's and the lowest swapped)",
    "twelve_trick_win": "taking 12 or more tricks in a hand (not misère) wins the match",
    "end_score": "the match ends when a player's total reaches +N",
    "end_score_either_sign": "the match also ends when a total reaches -N",
    "end_hands": "the match ends after this many hands",
    "tie_break": "a shared first place at the end: extra-hands (play up to tie_extra_hands "
                 "more), shared, or continue until it is broken",
    "tie_extra_hands": "most extra hands played to break a tie for first place",
    "hand_cap": "hard limit on hands per match; the match then ends by match score",
}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena presets [NAME] [--json]``."""
    p = sub.add_parser("presets", help="list rule presets and their options")
    p.add_argument("name", nargs="?", help="show one preset's options")
    p.add_argument("--json", action="store_true", help="print the raw option values as JSON")
    p.set_defaults(func=run)


def _triple(v: Any) -> str:
    return "/".join(str(x) for x in v)


def shown(cfg: RulesConfig, option: str) -> str:
    """The value of ``option`` in ``cfg`` in words; ``-`` where it does not apply."""
    value = getattr(cfg, option)
    exchanges = cfg.exchange != "none"
    not_applicable = {
        "removed_card": cfg.deck == 52,
        "kitty_shown": cfg.kitty_size == 0,
        "misere_limits": not cfg.misere,
        "exchange_timing": not exchanges, "exchange_order": not exchanges,
        "double_payment": not exchanges, "exchange_optional": not exchanges,
        "end_score_either_sign": cfg.end_score is None,
        "tie_extra_hands": cfg.tie_break != "extra-hands",
    }
    if not_applicable.get(option, False) or value is None:
        return "-" if option != "misere_limits" or not cfg.misere else _triple(cfg.limits)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return _triple(value)
    if option in ("declarer", "first_lead") and value == "S0":
        return "S0 (dealer)"
    return str(value)


def run(args: argparse.Namespace) -> int:
    """Print the presets table (or one preset's options); exit code 0."""
    from tabulate import tabulate

    from ..rules.config import OPTION_NAMES, PRESETS, make_config
    names = [args.name] if args.name else list(PRESETS)
    if args.name and args.name not in PRESETS:
        raise UserError(unknown_choice("preset", args.name, PRESETS))
    if args.json:
        print(json.dumps({n: make_config(n).options() for n in names}, indent=2))
        return 0
    configs = {n: make_config(n) for n in names}
    rows = [[opt, *(shown(configs[n], opt) for n in names)] for opt in OPTION_NAMES]
    if args.name:   # one preset: the meaning fits beside the value
        print(tabulate([[*row, MEANINGS[row[0]]] for row in rows],
                       headers=["option", args.name, "meaning"], disable_numparse=True))
        print(f"\n{SEATS}")
        return 0
    print(tabulate(rows, headers=["option", *names], disable_numparse=True))
    print(f"\n{SEATS}\n")
    width = max(len(o) for o in OPTION_NAMES)
    for opt in OPTION_NAMES:
        print(f"{opt:<{width}}  {MEANINGS[opt]}")
    return 0
