"""Every problem of a tournament config, one line each.

pydantic stops at a model's own checks once a field is wrong, and a first-problem message hides
the rest (an unknown key ``nmae`` behind ``name: Field required``). Here:

- :func:`field_problems` turns every pydantic error into ``(where, message)``: the field path
  as written in the file (``bots[3].name``, with the bot's name when the file gives one),
  unknown keys as ``bots[0].nmae: unknown field (did you mean 'name'?)``, one line for a union whose
  branches all failed (``expected integer or string``), and the value given for type errors;
- :func:`cross_problems` runs the checks between fields (bot count, unique names and tokens,
  schedule size, rule options one by one, then their combination) on the raw data, whatever
  else is wrong, so they are listed too.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..rules import RulesConfigError, config_from_options
from ..rules.config import DEFAULT_PRESET, OPTION_NAMES, PRESETS
from ..sandbox import which
from ..sandbox.config import require_bwrap
from ..wording import did_you_mean

#: the largest schedule a config may ask for (matches)
MAX_MATCHES = 1_000_000

Problem = tuple[str, str]


def _model_at(model: type[BaseModel], path: Sequence[Any]) -> type[BaseModel] | None:
    """The pydantic model that validates the value at ``path`` under ``model`` (list indexes
    and union branches skipped), or None."""
    for part in path:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        found = _first_model(field.annotation)
        if found is None:
            return None
        model = found
    return model


def _first_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _first_model(arg)
            if found is not None:
                return found
    return None


def _path(loc: Sequence[Any], data: Any, name_bots: bool) -> str:
    parts: list[str] = []
    for p in loc:
        if isinstance(p, str) and (p in ("int", "str", "float", "bool", "list[str]",
                                         "dict[str,str]") or p.startswith("function-")):
            continue  # pydantic's tag for one branch of a union type
        if isinstance(p, int):
            parts[-1:] = [f"{parts[-1] if parts else ''}[{p}]"]
        else:
            parts.append(str(p))
    text = ".".join(parts)
    if name_bots and len(loc) >= 2 and loc[0] == "bots" and isinstance(loc[1], int):
        bots = data.get("bots") if isinstance(data, dict) else None
        if isinstance(bots, list) and loc[1] < len(bots) and isinstance(bots[loc[1]], dict) \
                and isinstance(bots[loc[1]].get("name"), str):
            text += f" (bot {bots[loc[1]]['name']!r})"
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _sections_of(model: type[BaseModel], key: str) -> list[str]:
    """The top-level sections of ``model`` that accept an option named ``key``, in the
    model's order (``["tournament"]`` for ``seed``, ``["rules"]`` for ``hand_cap``,
    ``["tournament", "sandbox"]`` for ``mode``); ``[rules]`` takes the rule options of
    :data:`OPTION_NAMES` (not ``preset``: it is chosen in ``[tournament]``)."""
    def accepts(name: str, annotation: Any) -> bool:
        if name == "rules":
            return key in OPTION_NAMES
        sub = _first_model(annotation)
        return sub is not None and key in sub.model_fields
    return [name for name, info in model.model_fields.items() if accepts(name, info.annotation)]


def _belongs(model: type[BaseModel], homes: Sequence[str]) -> str:
    """``(it belongs in [tournament])``, ``... in [tournament] or [sandbox]``; a list of
    tables is written ``[[bots]]`` as in the file."""
    def header(name: str) -> str:
        annotation = model.model_fields[name].annotation
        return f"[[{name}]]" if typing.get_origin(annotation) is list else f"[{name}]"
    return f" (it belongs in {' or '.join(header(h) for h in homes)})"


def field_problems(exc: ValidationError, data: Any, model: type[BaseModel]) -> list[Problem]:
    """Every error of ``exc`` (raised validating ``data`` with ``model``) as ``(where,
    message)``, in the order pydantic found them. Model-level checks (empty location) are
    left to :func:`cross_problems`."""
    grouped: dict[str, list[ErrorDetails]] = {}
    for err in exc.errors():
        if not err["loc"]:
            continue
        where = _path(err["loc"], data, name_bots=True)
        grouped.setdefault(where, []).append(err)
    out: list[Problem] = []
    for where, errs in grouped.items():
        first = errs[0]
        msg = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            key = str(first["loc"][-1])
            parent = _model_at(model, first["loc"][:-1])
            homes = _sections_of(model, key)    # its real section before any fuzzy match
            close = [] if homes else difflib.get_close_matches(
                key, list(parent.model_fields) if parent else [], n=1, cutoff=0.6)
            msg = "unknown field" + (_belongs(model, homes) if homes else
                                     f" (did you mean {close[0]!r}?)" if close else
                                     " (check the spelling)")
        elif len(errs) > 1:       # a union type: every branch failed
            msg = "expected " + " or ".join(
                e["msg"].removeprefix("Input should be ").removeprefix("a valid ")
                for e in errs)
        if first["type"] not in ("missing", "extra_forbidden", "value_error") \
                and isinstance(first.get("input"), (str, int, float, bool)):
            msg += f" (got {_shown(first['input'])})"
        out.append((where, msg))
    return out


def cross_problems(data: Any, model: type[BaseModel]) -> list[Problem]:
    """The checks between fields, on raw config data (parts of it may be invalid: what cannot
    be checked is skipped; those parts have their own field problems). ``model``: the whole
    config's model (:class:`.config.TournamentConfig`), to say where a misplaced key
    belongs."""
    if not isinstance(data, dict):
        return []
    out: list[Problem] = []
    bots = data.get("bots")
    gauntlet = data.get("gauntlet")
    if isinstance(bots, list):
        out += _bot_problems(bots, gauntlet=gauntlet is not None)
        if isinstance(gauntlet, dict):
            out += _gauntlet_problems(gauntlet, bots)
    out += _mode_problems(data)
    out += _rules_problems(data, model)
    out += _cluster_problems(data)
    out += _sandbox_problems(data)
    section = data.get("tournament")
    section = section if isinstance(section, dict) else {}
    deals = section.get("deals_per_table", 1)
    n = len(bots) if isinstance(bots, list) else 0
    tables = _table_count(section, n)
    if tables is not None and isinstance(deals, int) and not isinstance(deals, bool):
        matches = tables * deals * 6
        if matches > MAX_MATCHES:
            out.append(("tournament.deals_per_table",
                        f"the schedule would have {matches:,} matches (more than "
                        f"{MAX_MATCHES:,}); use fewer bots or deals_per_table"))
    return out


def _table_count(section: dict[str, Any], n: int) -> int | None:
    """Tables of the schedule for ``n`` bots, as :meth:`TournamentSection.table_count` (the
    balanced size for ``schedule = "balanced"`` and ``"adaptive"``); None when the fields are
    invalid."""
    schedule = section.get("schedule", "all-tables")
    if schedule == "all-tables":
        return n * (n - 1) * (n - 2) // 6
    meetings = section.get("pair_meetings", 1)
    if schedule not in ("balanced", "adaptive") or not isinstance(meetings, int) \
            or isinstance(meetings, bool) or meetings < 1:
        return None          # a field problem
    from .balanced import covering_size
    return meetings * covering_size(n)


def _mode_problems(data: dict[str, Any]) -> list[Problem]:
    """``mode = "gauntlet"`` needs a ``[gauntlet]`` section."""
    section = data.get("tournament")
    if isinstance(section, dict) and section.get("mode") == "gauntlet" \
            and data.get("gauntlet") is None:
        return [("tournament.mode", 'mode = "gauntlet" needs a [gauntlet] section (candidate '
                 "= one of the bots; see `arena gauntlet --help`)")]
    return []


def _gauntlet_problems(gauntlet: dict[str, Any], bots: list[Any]) -> list[Problem]:
    """The ``[gauntlet]`` candidate is one of the bots; a field of one bot is seated twice,
    which needs a started bot, not a remote one."""
    names = [b["name"] for b in bots if isinstance(b, dict) and isinstance(b.get("name"), str)]
    candidate = gauntlet.get("candidate")
    if not isinstance(candidate, str):
        return []            # a field problem
    if candidate not in names:
        return [("gauntlet.candidate", f"{candidate!r} is not one of the bots "
                 f"({', '.join(names)})")]
    field = [b for b in bots if isinstance(b, dict) and b.get("name") != candidate]
    if len(field) == 1 and field[0].get("remote") is True:
        return [("gauntlet", "a field of one bot is seated twice, which needs a started bot, "
                 "not a remote one; add a second field bot")]
    return []


def _cluster_problems(data: dict[str, Any]) -> list[Problem]:
    """Remote bots cannot join a Ray run: each worker has its own arena server."""
    cluster, bots = data.get("cluster"), data.get("bots")
    if (isinstance(cluster, dict) and cluster.get("backend") == "ray" and isinstance(bots, list)
            and any(isinstance(b, dict) and b.get("remote") is True for b in bots)):
        return [("cluster.backend", "remote bots cannot join a tournament on a Ray cluster "
                 "(each worker runs its own arena server); use backend = \"local\"")]
    return []


def _sandbox_problems(data: dict[str, Any]) -> list[Problem]:
    """Bots started in ``mode = "bwrap"`` (``[sandbox]`` or the bot's own override) need a
    working bubblewrap on this machine (:mod:`arena.sandbox.which`); ``"auto"`` does not."""
    section = data.get("sandbox")
    base = section.get("mode", "bwrap") if isinstance(section, dict) else "bwrap"
    bots = data.get("bots")
    boxed = []
    for b in bots if isinstance(bots, list) else []:
        if not isinstance(b, dict) or b.get("remote") is True:
            continue
        own = b.get("sandbox")
        mode = own.get("mode") if isinstance(own, dict) and own.get("mode") is not None \
            else base
        if mode == "bwrap":
            boxed.append(str(b.get("name", "?")))
    if not boxed:
        return []
    try:
        require_bwrap()
    except which.SandboxUnavailable as exc:
        return [("sandbox.mode", f'sandbox mode "bwrap" (bots: {", ".join(boxed)}): {exc}')]
    return []


def _bot_problems(bots: list[Any], gauntlet: bool = False) -> list[Problem]:
    out: list[Problem] = []
    if len(bots) < 3 and not (gauntlet and len(bots) == 2):
        out.append(("bots", f"a tournament needs at least 3 bots, got {len(bots)}"
                    + (" (a gauntlet 2)" if gauntlet else "")))
    names = [b["name"] for b in bots if isinstance(b, dict) and isinstance(b.get("name"), str)]
    folded = [n.casefold() for n in names]
    dup = sorted({n for n in names if folded.count(n.casefold()) > 1})
    if dup:
        out.append(("bots", f"bot names must be unique (ignoring case); repeated: "
                            f"{', '.join(dup)}"))
    tokens = [b["token"] for b in bots if isinstance(b, dict) and b.get("remote") is True
              and isinstance(b.get("token"), str)]
    if len(set(tokens)) != len(tokens):
        out.append(("bots", "each remote bot needs its own token"))
    return out


def _rules_problems(data: dict[str, Any], model: type[BaseModel]) -> list[Problem]:
    section = data.get("tournament")
    preset = section.get("preset", DEFAULT_PRESET) if isinstance(section, dict) else \
        DEFAULT_PRESET
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        return []           # reported as a field problem
    known = preset in PRESETS   # else a field problem; options are still checked one by one
    out: list[Problem] = []
    for key, value in rules.items():   # each option's own value (combinations come after)
        try:
            config_from_options(preset if known else DEFAULT_PRESET, {key: value})
        except RulesConfigError as exc:
            text = str(exc)
            if text.startswith("unknown rule option"):
                homes = [h for h in _sections_of(model, key) if h != "rules"]
                if homes:    # e.g. per_decision_ms, preset
                    text = f"unknown rule option {key!r}{_belongs(model, homes)}"
                elif did_you_mean(key, OPTION_NAMES):
                    text = f"unknown rule option {key!r}{did_you_mean(key, OPTION_NAMES)}"
                out.append((f"rules.{key}", text))
            elif text.startswith("invalid value"):
                out.append((f"rules.{key}", text))
    if known and not out:
        try:
            config_from_options(preset, rules)
        except RulesConfigError as exc:
            out.append(("rules", str(exc)))
    return out
