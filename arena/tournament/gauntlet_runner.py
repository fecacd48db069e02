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
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..ratings.sprt import SprtParameters, SprtState, sprt_state
from ..records.codec import atomic_write_bytes
from ..safetext import printable
from .config import BotEntry, TournamentConfig
from .gauntlet import (BlockPrefix, block_order, evaluate, gauntlet_entries, gauntlet_schedule,
                       gauntlet_section, sprt_parameters)
from .proctable import ProcessTable
from .runner import (LocalExecutor, _run_workers, _save, _uncancellable, lock_out_dir,
                     sandbox_banner, sweep_temp_files, sweep_unfinished_records)
from .schedule import ScheduledMatch
from .store import ResultRow, Store


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


def fingerprint(cfg: TournamentConfig) -> str:
    """The tournament fingerprint extended with the ``[gauntlet]`` section."""
    core = {"tournament": cfg.fingerprint(), "gauntlet": gauntlet_section(cfg).model_dump()}
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


def _write_state(out: Path, cfg: TournamentConfig, state: SprtState, capped: bool) -> None:
    g = gauntlet_section(cfg)
    data = {"candidate": g.candidate, "elo0": g.elo0, "elo1": g.elo1, "alpha": g.alpha,
            "beta": g.beta, "max_blocks": g.max_blocks, "blocks": state.blocks,
            "llr": state.llr, "lower": state.lower, "upper": state.upper,
            "score": state.score, "elo": state.elo, "elo_low": state.elo_low,
            "elo_high": state.elo_high, "decision": state.decision, "capped": capped}
    atomic_write_bytes(out / "sprt.json", (json.dumps(data, indent=2) + "\n").encode())


async def run_gauntlet(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                       on_match: Callable[[ScheduledMatch], None] | None = None
                       ) -> GauntletOutcome:
    """Run (or resume) the gauntlet of ``cfg`` (which must have a ``[gauntlet]`` section)
    into ``out``; progress lines (one per complete block) go to stderr.

    Raises:
        OutDirError, StoreError, ServerStartError: as :func:`.runner.run_tournament`.
    """
    lock = lock_out_dir(out)
    try:
        return await _run_locked(cfg, out, progress, on_match)
    finally:
        os.close(lock)


@dataclass
class _Test:
    """The running test: the complete-block prefix, its state, and what was played now."""

    prefix: BlockPrefix
    params: SprtParameters
    state: SprtState
    say: Callable[[str], None]
    played: int = 0

    def add(self, row: ResultRow) -> None:
        """Add a match just played to the prefix; one line per block, also when several
        blocks completed at once."""
        if self.state.decision is None and self.prefix.add(row):
            for k in range(self.state.blocks + 1, len(self.prefix.scores) + 1):
                self.state = sprt_state(self.prefix.scores[:k], self.params)
                self.say(self.state.summary())
                if self.state.decision is not None:
                    break


async def _run_locked(cfg: TournamentConfig, out: Path, progress: bool,
                      on_match: Callable[[ScheduledMatch], None] | None) -> GauntletOutcome:
    g = gauntlet_section(cfg)
    params = sprt_parameters(cfg)
    entries = gauntlet_entries(cfg)
    field_names = [e.name for e in entries if e.name != g.candidate]
    schedule = gauntlet_schedule(g.candidate, field_names, g.max_blocks, cfg.tournament.seed)

    def say(text: str) -> None:
        logging.getLogger("arena.tournament").info("%s", text)   # also in OUT/arena.log
        if progress:
            print(printable(text), file=sys.stderr, flush=True)

    with Store(out / "results.sqlite") as store:   # refuses a file that is not a store
        (out / "records").mkdir(exist_ok=True)
        (out / "logs").mkdir(exist_ok=True)
        sweep_temp_files(out)  # we hold the directory's lock: no other writer
        store.init_schedule(fingerprint(cfg), cfg.tournament.name, schedule)
        procs = ProcessTable(store.db)
        left = procs.end_leftovers()  # an arena that died on this directory left them
        if left:
            print(f"arena: ended {left} bot process{'es' if left > 1 else ''} left running by "
                  f"an earlier arena on {out}", file=sys.stderr, flush=True)
        prefix = BlockPrefix(g.candidate, block_order(schedule))
        done_before = store.results()   # every stored row is checked before anything is played
        for row in done_before:
            prefix.add(row)
        test = _Test(prefix, params, evaluate(prefix, params, g.max_blocks), say)
        say(f"gauntlet {g.candidate} vs {', '.join(field_names)}: elo0 {g.elo0:g}, elo1 "
            f"{g.elo1:g}, alpha {g.alpha:g}, beta {g.beta:g}, at most {g.max_blocks} blocks")
        disqualified: list[str] = []
        pending = store.pending()
        sweep_unfinished_records(out, pending)
        if test.state.decision is None and test.state.blocks < g.max_blocks and pending:
            disqualified = await _play(cfg, out, store, procs, entries, pending, test, on_match)
    state = test.state
    capped = state.decision is None and state.blocks >= g.max_blocks
    _write_state(out, cfg, state, capped)
    return GauntletOutcome(state, test.played, len(done_before), capped, out,
                           tuple(disqualified))


async def _play(cfg: TournamentConfig, out: Path, store: Store, procs: ProcessTable,
                entries: list[BotEntry], pending: list[ScheduledMatch], test: _Test,
                on_match: Callable[[ScheduledMatch], None] | None) -> list[str]:
    """Play ``pending`` in order until the test decides; returns the disqualified bots.

    The same hardening as ``arena run``: pre-flight check, server limits and TLS, bot
    processes recorded in the store (ended by the next run if we are killed)."""

    def warn(text: str) -> None:   # a security or process warning: shown even with --quiet
        print(f"arena: WARNING: {text}", file=sys.stderr, flush=True)

    executor = LocalExecutor(cfg, out / "logs", test.say, on_warning=warn, tracker=procs,
                             bots=entries, hide=[out])
    queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
    for m in pending:
        queue.put_nowait(m)

    async def worker() -> None:
        while test.state.decision is None and not queue.empty():
            m = queue.get_nowait()
            done = await executor.play(m)
            await _uncancellable(_save(out, store, done))   # stored whole or not at all
            test.played += 1
            if on_match is not None:
                on_match(m)
            test.add(done.row)

    try:
        await executor.start()
        print(sandbox_banner(cfg), file=sys.stderr, flush=True)
        await _run_workers(worker, executor.slots)
    finally:
        # shielded: a cancellation arriving now must not cut the bots' shutdown short
        await asyncio.shield(executor.close())
    return list(executor.disqualifications)
