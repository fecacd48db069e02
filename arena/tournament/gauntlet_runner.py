"""Running a gauntlet (``arena gauntlet``): the schedule of :mod:`.gauntlet` played over gRPC
like a tournament (same store, records, logs, resume after a kill), stopped by the SPRT.

Output directory: as for ``arena run`` (``results.sqlite``, ``records/``, ``logs/``) plus
``sprt.json`` (the parameters and the state of the test). The whole capped schedule
(``max_blocks`` blocks) is written to the store up front; matches are handed out in schedule
order, and after each stored match the complete-block prefix is re-tested. Once the test
decides, no new match is started; matches already running finish and are stored, but the
decision is the one at the deciding block. Rerunning on the same directory resumes; when the
stored results already decide, nothing is played.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..ratings.model import MatchResult as RatedMatch
from ..ratings.sprt import SprtParameters, SprtState, sprt_state
from ..atomic import atomic_write_bytes
from .config import GauntletSection, TournamentConfig
from .gauntlet import (BlockPrefix, block_order, evaluate, gauntlet_entries, gauntlet_schedule,
                       sprt_parameters)
from .local import LocalExecutor, sandbox_banner
from .outdir import (leftovers_notice, out_dir_lock, prepare_out_dir, save_played,
                     sweep_unfinished_records)
from .proctable import ProcessTable
from .reporter import Alert, ConsoleReporter, Message, Notice, Reporter
from .schedule import ScheduledMatch
from .store import ResultRow, Store
from .tasks import run_workers, uncancellable


@dataclass(frozen=True)
class GauntletOutcome:
    """What :func:`run_gauntlet` did: the test's state, matches played now / before, and
    whether the cap was reached without a decision."""

    state: SprtState
    played_now: int
    already_done: int
    capped: bool
    out: Path
    disqualifications: tuple[str, ...] = ()


def _section(cfg: TournamentConfig) -> GauntletSection:
    """``cfg``'s ``[gauntlet]`` section. Raises ValueError when it has none."""
    if cfg.gauntlet is None:
        raise ValueError("the config has no [gauntlet] section")
    return cfg.gauntlet


def fingerprint(cfg: TournamentConfig) -> str:
    """The tournament fingerprint extended with the ``[gauntlet]`` section."""
    core = {"tournament": cfg.fingerprint(), "gauntlet": _section(cfg).model_dump()}
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


def _rated(row: ResultRow) -> RatedMatch:
    return RatedMatch(row.seats, tuple(row.placings), row.block_id, tuple(row.forfeited))


def _write_state(out: Path, cfg: TournamentConfig, state: SprtState, capped: bool) -> None:
    g = _section(cfg)
    data = {"candidate": g.candidate, "elo0": g.elo0, "elo1": g.elo1, "alpha": g.alpha,
            "beta": g.beta, "max_blocks": g.max_blocks, "blocks": state.blocks,
            "llr": state.llr, "lower": state.lower, "upper": state.upper,
            "score": state.score, "elo": state.elo, "elo_low": state.elo_low,
            "elo_high": state.elo_high, "decision": state.decision, "capped": capped}
    atomic_write_bytes(out / "sprt.json", (json.dumps(data, indent=2) + "\n").encode())


class _Test:
    """The SPRT as matches are stored: re-tested whenever a block completes, one line per
    block (``say``), frozen at the deciding block."""

    def __init__(self, prefix: BlockPrefix, params: SprtParameters, max_blocks: int,
                 say: Callable[[str], None]) -> None:
        self.prefix, self.params, self.say = prefix, params, say
        self.state = evaluate(prefix, params, max_blocks)

    def add(self, row: ResultRow) -> None:
        if self.state.decision is None and self.prefix.add(_rated(row)):
            # one line per block, also when several blocks completed at once
            for k in range(self.state.blocks + 1, len(self.prefix.scores) + 1):
                self.state = sprt_state(self.prefix.scores[:k], self.params)
                self.say(self.state.summary())
                if self.state.decision is not None:
                    break


async def run_gauntlet(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                       on_match: Callable[[ScheduledMatch], None] | None = None
                       ) -> GauntletOutcome:
    """Run (or resume) the gauntlet of ``cfg`` (which must have a ``[gauntlet]`` section)
    into ``out``; progress lines (one per complete block) go to stderr.

    Raises:
        OutDirError, StoreError, ServerStartError: as :func:`.runner.run_tournament`.
        ValueError: ``cfg`` has no ``[gauntlet]`` section.
    """
    _section(cfg)
    with out_dir_lock(out):
        return await _run_locked(cfg, out, progress, on_match)


async def _run_locked(cfg: TournamentConfig, out: Path, progress: bool,
                      on_match: Callable[[ScheduledMatch], None] | None) -> GauntletOutcome:
    g = _section(cfg)
    entries = gauntlet_entries(cfg)
    field_names = [e.name for e in entries if e.name != g.candidate]
    schedule = gauntlet_schedule(g.candidate, field_names, g.max_blocks, cfg.tournament.seed)
    report = ConsoleReporter(progress)   # no RunStarted: plain lines, never a bar

    def say(text: str) -> None:
        report(Message(text))   # logged (OUT/arena.log), shown unless quiet

    with Store(out / "results.sqlite") as store:   # refuses a file that is not a store
        prepare_out_dir(out)  # we hold the directory's lock: no other writer
        store.init_schedule(fingerprint(cfg), cfg.tournament.name, schedule)
        procs = ProcessTable(store.db)
        left = procs.end_leftovers()  # an arena that died on this directory left them
        if left:
            report(Notice(leftovers_notice(left, out)))
        prefix = BlockPrefix(g.candidate, block_order(schedule))
        done_before = store.results()   # every stored row is checked before anything is played
        for row in done_before:
            prefix.add(_rated(row))
        test = _Test(prefix, sprt_parameters(cfg), g.max_blocks, say)
        say(f"gauntlet {g.candidate} vs {', '.join(field_names)}: elo0 {g.elo0:g}, elo1 "
            f"{g.elo1:g}, alpha {g.alpha:g}, beta {g.beta:g}, at most {g.max_blocks} blocks")
        played = 0
        disqualified: list[str] = []
        pending = store.pending()
        sweep_unfinished_records(out, pending)
        if test.state.decision is None and test.state.blocks < g.max_blocks and pending:
            # the same hardening as ``arena run``: pre-flight check, server limits and TLS,
            # bot processes recorded in the store (ended by the next run if we are killed)
            executor = LocalExecutor(cfg, out / "logs", say, on_warning=lambda text: report(
                Alert(text)), tracker=procs, bots=entries, hide=[out])
            try:
                played = await _play(cfg, out, store, executor, pending, test, report,
                                     on_match)
            finally:
                disqualified = executor.disqualifications
                # shielded: a cancellation arriving now must not cut the bots' shutdown short
                await asyncio.shield(executor.close())
    state = test.state
    capped = state.decision is None and state.blocks >= g.max_blocks
    _write_state(out, cfg, state, capped)
    return GauntletOutcome(state, played, len(done_before), capped, out, tuple(disqualified))


async def _play(cfg: TournamentConfig, out: Path, store: Store, executor: LocalExecutor,
                pending: list[ScheduledMatch], test: _Test, report: Reporter,
                on_match: Callable[[ScheduledMatch], None] | None) -> int:
    """Play ``pending`` in schedule order until the test decides; matches played."""
    queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
    for m in pending:
        queue.put_nowait(m)
    played = 0

    async def worker() -> None:
        nonlocal played
        while test.state.decision is None and not queue.empty():
            m = queue.get_nowait()
            done = await executor.play(m)
            await uncancellable(save_played(out, store, done))   # stored whole or not at all
            played += 1
            if on_match is not None:
                on_match(m)
            test.add(done.row)

    await executor.start()
    report(Notice(sandbox_banner(cfg)))
    await run_workers(worker, executor.slots)
    return played
