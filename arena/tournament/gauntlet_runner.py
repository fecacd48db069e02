"""Running a gauntlet (``arena gauntlet``): the schedule of :mod:`.gauntlet` played over gRPC
like a tournament (same store, records, logs, resume after a kill), stopped by the SPRT.

Output directory: as for ``arena run`` (``results.sqlite``, ``records/``, ``logs/``) plus
``sprt.json`` (the parameters and the state of the test). The whole capped schedule
(``max_blocks`` blocks) is written to the store up front; matches are handed out in schedule
order, and after each stored match the complete-block prefix is re-tested. Once the test
decides, no new match is started; matches already running finish and are stored, but the
decision is the one at the deciding block. Rerunning on the same directory resumes; when the
stored results already decide, nothing is played.

It is the :class:`Gauntlet` strategy of the tournament driver (:mod:`.driver`): matches are
played by the executor of ``[cluster] backend`` (this process, or a Ray cluster with ``arena
gauntlet --ray``), as with ``arena run``. A bot that
never started (a remote bot that never connected) is kept out of the SPRT: blocks at its
tables are passed over without a score (:class:`.gauntlet.BlockPrefix`), and once its starts
have failed ``faults.max_crashes`` times and no table is left without such a bot (e.g. the
candidate never started) no further match is started. It is named in the outcome
(``never_started``; ``arena gauntlet`` exits with status 3, as ``arena run``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..atomic import atomic_write_bytes
from ..events import EventSink
from ..ratings.model import RatedResult
from ..ratings.sprt import SprtState, sprt_state
from .config import TournamentConfig
from .driver import ExecutorFactory, Tally, drive
from .gauntlet import (BlockPrefix, block_order, evaluate, gauntlet_entries, gauntlet_schedule,
                       gauntlet_section, sprt_parameters)
from ..processes.proctable import ProcessTable
from .reporter import ConsoleReporter, Message, Reporter
from .schedule import SEATINGS, ScheduledMatch
from .store import ResultRow, Store


@dataclass(frozen=True)
class GauntletOutcome:
    """What :func:`run_gauntlet` did: the test's state, matches played now / before, whether
    the cap was reached without a decision, and the bots that never started (name -> the last
    failure's reason; kept out of the SPRT)."""

    state: SprtState
    played_now: int
    already_done: int
    capped: bool
    out: Path
    disqualifications: tuple[str, ...] = ()
    never_started: tuple[tuple[str, str], ...] = ()
    #: the matches of the blocks the test used (up to its decision), and all stored results
    tested: tuple[RatedResult, ...] = ()
    stored: int = 0


def fingerprint(cfg: TournamentConfig) -> str:
    """The tournament fingerprint extended with the ``[gauntlet]`` section."""
    core = {"tournament": cfg.fingerprint(), "gauntlet": gauntlet_section(cfg).model_dump()}
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


def _write_state(out: Path, cfg: TournamentConfig, state: SprtState, capped: bool,
                 excluded: frozenset[str]) -> None:
    g = gauntlet_section(cfg)
    data = {"candidate": g.candidate, "elo0": g.elo0, "elo1": g.elo1, "alpha": g.alpha,
            "beta": g.beta, "max_blocks": g.max_blocks, "blocks": state.blocks,
            "llr": state.llr, "lower": state.lower, "upper": state.upper,
            "elo": state.elo, "elo_low": state.elo_low, "elo_high": state.elo_high,
            "decision": state.decision, "zero_variance": state.zero_variance,
            "capped": capped, "never_started": sorted(excluded)}
    atomic_write_bytes(out / "sprt.json", (json.dumps(data, indent=2) + "\n").encode())


class _Test:
    """The SPRT over the stored results, re-tested as matches are stored; blocks of bots that
    never started are passed over (the prefix is rebuilt when that set changes)."""

    def __init__(self, cfg: TournamentConfig, schedule: list[ScheduledMatch],
                 procs: ProcessTable) -> None:
        self.g = gauntlet_section(cfg)
        self.params = sprt_parameters(cfg)
        self.procs = procs
        self.order = block_order(schedule)
        self.tables = {frozenset(m.seats) for m in schedule}
        self.max_crashes = cfg.faults.max_crashes
        self.prefix = BlockPrefix(self.g.candidate, self.order)
        self.state = evaluate(self.prefix, self.params, self.g.max_blocks)

    def rebuild(self, rows: list[ResultRow]) -> None:
        """Test all of ``rows`` afresh, leaving out the bots that never started so far."""
        self.prefix = BlockPrefix(self.g.candidate, self.order,
                                  frozenset(self.procs.never_started()))
        for row in rows:
            self.prefix.add(row)
        self.state = evaluate(self.prefix, self.params, self.g.max_blocks)

    def add(self, row: ResultRow, store: Store, say: Callable[[str], None]) -> None:
        """Add one stored match; a summary line per newly tested block."""
        if self.state.decision is not None:
            return
        if frozenset(self.procs.never_started()) != self.prefix.excluded:
            self.rebuild(store.results())
            say(self.state.summary())
            return
        if self.prefix.add(row):
            # one line per block, also when several blocks completed at once; the deciding
            # block's line is the command's result line, printed once at the end
            for k in range(self.state.blocks + 1, len(self.prefix.blocks) + 1):
                self.state = sprt_state(self.prefix.blocks, self.params, k)
                if self.state.decision is not None:
                    break
                say(self.state.summary())

    def hopeless(self) -> bool:
        """True when every table seats a bot that never started and has used up its
        ``max_crashes`` starts (it is disqualified: nothing more can be learnt)."""
        gone = {b for b, n in self.procs.failed_starts().items() if n >= self.max_crashes}
        return bool(gone) and all(gone & t for t in self.tables)

    def done(self) -> bool:
        return self.state.decision is not None or self.prefix.consumed >= len(self.order)


class Gauntlet:
    """The gauntlet strategy of :mod:`.driver`: the capped schedule written up front, matches
    handed out in schedule order until the SPRT decides (or nothing more can be learnt)."""

    def __init__(self, cfg: TournamentConfig, out: Path) -> None:
        self.cfg, self.out = cfg, out
        self.g = gauntlet_section(cfg)
        self.entries = gauntlet_entries(cfg)
        self.field = [e.name for e in self.entries if e.name != self.g.candidate]
        self.test: _Test | None = None
        self.before = 0

    def say(self, report: Reporter, text: str) -> None:
        report(Message(text))   # logged (OUT/arena.log), shown unless quiet

    def schedule(self, store: Store, report: Reporter) -> None:
        g = self.g
        self.plan = gauntlet_schedule(g.candidate, self.field, g.max_blocks,
                                      self.cfg.tournament.seed, store.deal_key())
        store.init_schedule(fingerprint(self.cfg), self.cfg.tournament.name, self.plan)

    def begin(self, store: Store, procs: ProcessTable, pending: list[ScheduledMatch],
              report: Reporter) -> list[ScheduledMatch] | None:
        g = self.g
        self.test = test = _Test(self.cfg, self.plan, procs)
        rows = store.results()
        self.before = len(rows)
        test.rebuild(rows)
        self.say(report, f"gauntlet {g.candidate} vs {', '.join(self.field)}: elo0 "
                 f"{g.elo0:g}, elo1 {g.elo1:g}, alpha {g.alpha:g}, beta {g.beta:g}, at most "
                 f"{g.max_blocks} blocks")
        return pending if pending and not self.done() else None

    def executor_config(self) -> TournamentConfig:
        # the gauntlet's bots: with the twin of a one-bot field
        return self.cfg.model_copy(update={"bots": self.entries})

    def lobby(self, store: Store, pending: list[ScheduledMatch]) -> None:
        return None       # a remote bot that does not come forfeits: the test goes on

    async def refill(self) -> list[ScheduledMatch]:
        return []

    def done(self) -> bool:
        return self.test is not None and (self.test.done() or self.test.hopeless())

    def stored(self, m: ScheduledMatch, row: ResultRow, store: Store,
               report: Reporter) -> None:
        if self.test is not None:
            self.test.add(row, store, lambda text: self.say(report, text))

    def finish(self, store: Store, procs: ProcessTable, tally: Tally) -> GauntletOutcome:
        test = self.test
        if test is None:    # pragma: no cover - begin always runs first
            raise RuntimeError("the gauntlet finished before it began")
        rows = store.results()
        test.rebuild(rows)      # the final word: stored results, final absentees
        absent = procs.never_started()
        state = test.state
        capped = state.decision is None and test.prefix.consumed >= len(test.order)
        _write_state(self.out, self.cfg, state, capped, test.prefix.excluded)
        tested = tuple(test.prefix.matches[:len(SEATINGS) * state.blocks])
        return GauntletOutcome(state, tally.played, self.before, capped, self.out,
                               tally.disqualified, tuple(absent.items()), tested, len(rows))


async def run_gauntlet(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                       on_match: Callable[[ScheduledMatch], None] | None = None,
                       events: EventSink | None = None,
                       executors: ExecutorFactory | None = None) -> GauntletOutcome:
    """Run (or resume) the gauntlet of ``cfg`` (which must have a ``[gauntlet]`` section)
    into ``out``; progress lines (one per complete block) go to stderr. ``events``,
    ``executors``: as :func:`.runner.run_tournament`.

    Raises:
        OutDirError, StoreError, ServerStartError: as :func:`.runner.run_tournament`;
        ClusterError: with the Ray backend (:mod:`arena.cluster.executor`).
        ValueError: ``cfg`` has no ``[gauntlet]`` section.
    """
    gauntlet_section(cfg)
    report = ConsoleReporter(progress)   # no RunStarted: plain lines, never a bar
    return await drive(Gauntlet(cfg, out), cfg, out, report, executors=executors,
                       on_match=on_match, events=events)
