"""A league that grows: bots added to the config of an existing tournament directory.

``arena run`` on a directory that already holds a tournament compares the config with what the
directory was played with (the ``league`` entry of the store's ``meta`` table):

* the **games** must be the same: preset, seed, deals per table, schedule and pair meetings,
  every rule option, the time control and ``max_faults``. A change is refused with a
  :class:`GrowthError` that names each changed field (old -> new value);
* every bot that played must still be there **with the same command** (the argument list as
  written in the config; ``remote = true`` for a remote bot). A removed bot or a changed command
  is refused, naming the bot and suggesting a new name (``NAME-v2``) or a new ``--out``
  directory. Its environment, working directory, sandbox settings and a remote bot's token may
  change (they do not change which program plays);
* bots in the config that did not play yet are **added**; a bot none of whose matches is
  stored yet may also change its command (nothing it played is kept under its name).

A directory that holds **no stored result** (an earlier run stopped before its first match
was stored: a bot that never started, Ctrl-C) holds nothing the config could contradict: where
the config would be refused (other games, a removed bot), its schedule is replaced by the
config's and its bots' start outcomes are forgotten, as in a new directory.

What a growth adds: the matches of the schedule of the whole new roster
(:func:`.schedule.make_schedule` on every bot of the config) whose table includes an added bot,
with their deals (seeds) and seatings unchanged. They get table numbers after the tables already
stored, so every stored match keeps its id, its result and its record; stored matches without a
result (an interrupted run) are still played. Nothing is replayed and nothing is dropped.

* ``schedule = "all-tables"``: the tables added are exactly those of ``C(N, 3)`` that include a
  new bot, so the grown schedule holds the same tables and deals as a fresh run of the whole
  roster (only the table numbers differ).
* ``schedule = "balanced"``: the balanced tables of the whole new roster
  (:func:`.balanced.balanced_tables`) that include a new bot. Every pair that includes a new
  bot meets as often as in a fresh balanced schedule of the whole roster (``pair_meetings``
  times when a Steiner triple system exists for the new N, at least that otherwise); a pair of
  old bots keeps its earlier meetings and meets once more at each added table that seats both
  beside a new bot. So every pair meets at least ``pair_meetings`` times, and old bots sit at a
  few more tables than new ones (the old tables cannot be re-balanced without dropping results).

A directory written before the ``league`` entry existed is adopted when the config, restricted
to the bots of its stored schedule, has the stored fingerprint (its commands are then taken as
they are in the config).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ..wording import plural
from .config import BotEntry, TournamentConfig
from ..processes.proctable import ProcessTable
from .schedule import ScheduledMatch, make_schedule
from .store import Store, StoreError

__all__ = ["Growth", "GrowthError", "added_matches", "games_fields", "prepare_schedule"]

#: the store's ``meta`` key holding the league (JSON: ``{"games": {...}, "bots": {...}}``)
LEAGUE_KEY = "league"


class GrowthError(UserError):
    """The config changes what the directory's stored matches were played with."""


@dataclass(frozen=True)
class Growth:
    """What :func:`prepare_schedule` did: ``new`` (a new directory), ``added`` bots and the
    number of ``matches`` and ``tables`` added to the stored schedule."""

    new: bool
    added: tuple[str, ...] = ()
    matches: int = 0
    tables: int = 0

    def summary(self) -> str:
        """One line for the log, e.g. ``league grown by 'd': 3 tables, 18 matches added``."""
        names = ", ".join(repr(n) for n in self.added)
        return (f"league grown by {names}: {plural(self.tables, 'table')}, "
                f"{plural(self.matches, 'match')} added (every earlier result is kept)")


def games_fields(cfg: TournamentConfig) -> dict[str, Any]:
    """What determines the games, flattened to ``"section.field" -> value`` (JSON values):
    a stored tournament and a config may differ only in bots added."""
    t = cfg.tournament
    out: dict[str, Any] = {"tournament.preset": t.preset, "tournament.seed": t.seed,
                           "tournament.deals_per_table": t.deals_per_table,
                           "tournament.schedule": t.schedule,
                           "tournament.pair_meetings": t.pair_meetings}
    if t.schedule == "adaptive":
        out["tournament.target"] = t.target
    out.update({f"rules.{k}": v for k, v in cfg.rules_config().options().items()})
    out.update({f"time.{k}": v for k, v in cfg.time.model_dump().items()})
    out["faults.max_faults"] = cfg.faults.max_faults
    flat: dict[str, Any] = json.loads(json.dumps(out))  # tuples -> lists, as read back
    return flat


def bot_identity(bot: BotEntry) -> dict[str, Any]:
    """What makes a bot the same bot: its command as written, or ``remote``."""
    return {"remote": True} if bot.remote else {"command": list(bot.command or [])}


def _league(cfg: TournamentConfig) -> dict[str, Any]:
    return {"games": games_fields(cfg), "bots": {b.name: bot_identity(b) for b in cfg.bots}}


def _shown(identity: dict[str, Any]) -> str:
    return "a remote bot" if identity.get("remote") else json.dumps(identity.get("command"))


def _changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """``"FIELD OLD -> NEW"`` for every games field that differs."""
    out = []
    for key in sorted(old.keys() | new.keys()):
        if old.get(key) != new.get(key):
            out.append(f"{key} {json.dumps(old.get(key))} -> {json.dumps(new.get(key))}")
    return out


def check_league(stored: dict[str, Any], cfg: TournamentConfig, where: str,
                 played: set[str] | None = None) -> list[str]:
    """The bots ``cfg`` adds to the ``stored`` league (config order). ``played``: the bots
    with a stored result (default: every stored bot); another may change its command.

    Raises:
        GrowthError: a games field changed, a bot was removed, or the command of a bot that
            played changed; one line naming what changed and what to do instead.
    """
    played = set(stored["bots"]) if played is None else played
    changed = _changes(stored["games"], games_fields(cfg))
    if changed:
        raise GrowthError(f"{where} holds a tournament played with other settings "
                          f"({'; '.join(changed)}); only bots may be added to it: put the "
                          "old values back, or use a new --out directory")
    now = {b.name: bot_identity(b) for b in cfg.bots}
    removed = [n for n in stored["bots"] if n not in now]
    if removed:
        did = "played" if set(removed) & played else "are scheduled" if len(removed) > 1 \
            else "is scheduled"
        raise GrowthError(f"{where}: bot{'s' if len(removed) > 1 else ''} "
                          f"{', '.join(repr(n) for n in removed)} {did} here but "
                          f"{'are' if len(removed) > 1 else 'is'} not in the config; a league "
                          "can only grow (results with them stay): put them back, or use a "
                          "new --out directory")
    for name, identity in stored["bots"].items():
        if now[name] != identity and name in played:
            raise GrowthError(f"{where}: bot {name!r} played here as {_shown(identity)}, the "
                              f"config now gives {_shown(now[name])}; give the new version a "
                              f"new name (e.g. {name + '-v2'!r}) to add it to the league, or "
                              "use a new --out directory")
    return [b.name for b in cfg.bots if b.name not in stored["bots"]]


def added_matches(cfg: TournamentConfig, added: set[str], first_table: int,
                  deal_key: bytes | None = None) -> list[ScheduledMatch]:
    """The matches of the whole roster's schedule whose table includes a bot of ``added``,
    renumbered from table ``first_table`` on (in their schedule order); deals, seeds and
    seatings as in :func:`.schedule.make_schedule` (``deal_key``: the directory's)."""
    t = cfg.tournament
    full = make_schedule([b.name for b in cfg.bots], t.deals_per_table, t.seed,
                         schedule=t.schedule, pair_meetings=t.pair_meetings,
                         deal_key=deal_key)
    tables = sorted({m.table for m in full if added & set(m.seats)})
    number = {old: first_table + k for k, old in enumerate(tables)}
    out = []
    for m in full:
        if m.table in number:
            block = f"t{number[m.table]:03d}-d{m.deal:04d}"
            out.append(ScheduledMatch(f"{block}-s{m.seating}", block, number[m.table], m.deal,
                                      m.seating, m.seats, m.seed))
    return out


def _adopt(store: Store, cfg: TournamentConfig, where: str) -> dict[str, Any]:
    """The league of a directory written before the ``league`` entry: the config's bots that
    are in the stored schedule, if the config restricted to them has the stored fingerprint.

    Raises:
        GrowthError: a stored bot is not in the config, or the fingerprint differs.
    """
    stored = set(store.scheduled_bots())
    missing = sorted(stored - {b.name for b in cfg.bots})
    old = cfg.model_copy(update={"bots": [b for b in cfg.bots if b.name in stored]})
    if missing or len(old.bots) < 3 or old.fingerprint() != store.meta("fingerprint"):
        gone = (f"; bots {', '.join(repr(n) for n in missing)} played here but are not in "
                "the config" if missing else "")
        raise GrowthError(f"{where} holds results of a different tournament (other bots, "
                          f"seed, rules, time control or bot order{gone}); use another --out "
                          "directory")
    return _league(old)


def _stored_league(raw: str, store: Store) -> dict[str, Any]:
    """The stored ``league`` entry, checked.

    Raises:
        StoreError: it is not the JSON this module writes (one line naming the file).
    """
    try:
        league = json.loads(raw)
        ok = isinstance(league, dict) and isinstance(league.get("games"), dict) \
            and isinstance(league.get("bots"), dict) \
            and all(isinstance(v, dict) for v in league["bots"].values())
    except ValueError:
        ok = False
    if not ok:
        raise StoreError(f"{store.path}: the stored league (meta {LEAGUE_KEY!r}) is damaged; "
                         "restore the file, or run again into a new --out directory")
    result: dict[str, Any] = league
    return result


def prepare_schedule(store: Store, cfg: TournamentConfig,
                     schedule: list[ScheduledMatch]) -> Growth:
    """Write the schedule of a new directory, or check the stored league against ``cfg`` and
    add the matches of added bots (one transaction with the updated league).

    Args:
        store: the open store. cfg: the config. schedule: the full schedule of ``cfg`` (used
            for a new directory only).

    Raises:
        GrowthError: the config changes the games, removes a bot or changes the command of a
            bot that played, and the directory holds a stored result.
        StoreError: the directory holds another kind of tournament or a damaged league entry.
    """
    where = str(store.path.parent)
    if store.meta("fingerprint") is None:
        store.init_schedule(cfg.fingerprint(), cfg.tournament.name, schedule)
        store.set_meta({LEAGUE_KEY: json.dumps(_league(cfg))})
        return Growth(new=True)
    played = store.played_bots()
    raw = store.meta(LEAGUE_KEY)
    league = _stored_league(raw, store) if raw is not None else None
    try:
        added = check_league(league or _adopt(store, cfg, where), cfg, where, played)
    except GrowthError:
        if played:
            raise
        # nothing stored yet: nothing the config could contradict; start afresh
        store.replace_schedule(cfg.fingerprint(), cfg.tournament.name, schedule,
                               {LEAGUE_KEY: json.dumps(_league(cfg))})
        ProcessTable(store.db).forget_starts()
        return Growth(new=True)
    meta = {LEAGUE_KEY: json.dumps(_league(cfg)), "fingerprint": cfg.fingerprint()}
    if not added:
        store.set_meta(meta)   # adopted, or a bot that played nothing yet has a new command
        return Growth(new=False)
    matches = added_matches(cfg, set(added), store.max_table() + 1, store.deal_key())
    store.extend_schedule(matches, meta)
    return Growth(False, tuple(added), len(matches), len({m.table for m in matches}))
