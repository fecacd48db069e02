"""``arena presets``: list the rule presets and their option values (RULES.md section 5)."""

from __future__ import annotations

import argparse
import json

from tabulate import tabulate

from ..errors import UserError
from ..rules.config import OPTION_NAMES, PRESETS, make_config


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena presets [NAME] [--json]``."""
    p = sub.add_parser("presets", help="list rule presets and their options")
    p.add_argument("name", nargs="?", help="show one preset's options")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the presets table (or one preset's options); exit code 0."""
    names = [args.name] if args.name else list(PRESETS)
    if args.name and args.name not in PRESETS:
        raise UserError(f"unknown preset {args.name!r}; valid presets: {', '.join(PRESETS)}")
    configs = {n: make_config(n).options() for n in names}
    if args.json:
        print(json.dumps(configs, indent=2))
        return 0
    rows = [[opt] + [configs[n][opt] for n in names] for opt in OPTION_NAMES]
    print(tabulate(rows, headers=["option"] + names))
    return 0
