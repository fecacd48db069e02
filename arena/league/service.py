"""The league service: one process that takes submissions, checks them, and plays the league's
matches for as long as it runs (``arena league serve DIR``; docs/league.md).

A league directory::

    DIR/league.toml           the league's config (copied by ``arena league init``)
    DIR/results.sqlite        the store: the tournament's schedule and results, participants,
                              submissions, versions (:mod:`.store`), the secret deal key
    DIR/archives/, DIR/bots/  submitted archives and their unpacked bots, by content
                              (:mod:`.archive`)
    DIR/records/, logs/, live/, arena.log   as for a tournament (docs/records.md)

Three tasks share one event loop:

- the **HTTP API and the page** (:mod:`.api`: submissions, standings, a page per bot; the live
  page of :mod:`arena.web` at ``/``);
- the **checker**: each queued submission in turn, in the sandbox (:mod:`.checker`); a pass
  becomes its bot's next version (older ones retire beyond ``versions_kept``), a failure is
  rejected with its report;
- the **scheduler**: the tournament driver (:mod:`arena.tournament.driver`) with the
  :class:`~.strategy.League` strategy, one run for the service's life: when the roster
  changes, the running executor takes the new versions and lets the retired ones go (bot
  processes and the gRPC server keep running, so remote bots stay connected); only an
  executor that cannot (the Ray executor; more than :data:`SPARE_BOTS` versions added) is
  replaced by a new run.

SIGTERM / SIGINT stop it cleanly (matches in flight are not stored and are played again); a
``kill -9`` loses nothing stored (each match and each submission is written whole or not at
all), and ``serve`` again resumes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..events import EventBus
from ..tournament.config import BotEntry, TournamentConfig
from ..tournament.driver import ExecutorFactory, drive, local_executor
from ..tournament.executor import PlayedMatch
from ..tournament.local import LocalExecutor, MatchDeferred, server_address
from ..tournament.outdir import out_dir_lock
from ..tournament.preflight import preflight
from ..tournament.reporter import ConsoleReporter
from ..tournament.schedule import ScheduledMatch
from . import tokens
from .admin import CONFIG_NAME, init_league, invite, open_league, revoke
from .archive import ArchiveError, Inspected, inspect, store, sweep
from .checker import check_submission, entry_for
from .manifest import NAME, Manifest, ManifestError, parse_manifest
from .store import Submission
from .strategy import League, first_of

log = logging.getLogger("arena.league")

#: seconds before the scheduler tries again when its executor could not start
RETRY_S = 30.0
#: versions the running executor takes beyond its first roster before a new one must start
#: (its gRPC server's connection cap is sized for them: :class:`LocalExecutor`'s ``spare``)
SPARE_BOTS = 64


class LeagueError(UserError):
    """A league request that cannot be met (its message is the answer's reason)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Accepted:
    """A submission as stored: its row, whether it is new, and a remote version's connection
    token (shown once)."""

    submission: Submission
    new: bool
    bot_token: str | None = None


class LeagueService:
    """The league of ``directory`` (see the module docstring).

    Args:
        executors: the executor factory (default: this process's; ``--ray``: the cluster's).
        on_event: one-line news (checks, versions, runs).
    """

    def __init__(self, directory: Path, *, executors: ExecutorFactory | None = None,
                 on_event: Callable[[str], None] = lambda text: None) -> None:
        self.dir = directory
        self.cfg, self.st = open_league(directory)
        self.custom_executors = executors
        self.on_event = on_event
        self.bus = EventBus()
        self.changed = asyncio.Event()      # the roster changed
        self.queued = asyncio.Event()       # a submission waits for its check
        self.stopping = asyncio.Event()
        self._uploads = asyncio.Lock()
        self.executor: Any = None           # the running executor (None between runs)
        self.strategy: League | None = None
        self.playing: set[str] = set()      # the versions the executor has taken
        self.remote: set[str] = set()       # the remote versions among the active ones
        self.unstartable: dict[str, str] = {}   # version -> why its command cannot start
        self.runs = 0
        self._swept = False                 # the half-written uploads removed (sweep)

    # ----- submissions (the API calls these) -------------------------------------------------
    def participant(self, token: str | None) -> str:
        """The participant a token belongs to.

        Raises:
            LeagueError: no token (401) or a wrong or revoked one (403)."""
        if not token:
            raise LeagueError("no token: send Authorization: Bearer TOKEN", 401)
        name = self.st.participant(tokens.digest(token))
        if name is None:
            raise LeagueError("this token is not a participant's (wrong or revoked)", 403)
        return name

    def inspect_upload(self, data: bytes) -> tuple[Inspected, Manifest]:
        """Check an archive and its manifest without writing anything (CPU only, no store:
        run it in a worker thread).

        Raises:
            LeagueError: a refused archive or manifest (400).
        """
        lg = self.cfg.league
        try:
            checked = inspect(data, max_bytes=lg.max_upload_mib << 20,
                              max_unpacked_bytes=lg.max_unpacked_mib << 20,
                              max_files=lg.max_files)
            manifest = parse_manifest(checked.manifest)
        except (ArchiveError, ManifestError) as exc:
            raise LeagueError(str(exc)) from None
        return checked, manifest

    async def accept(self, owner: str, checked: Inspected, manifest: Manifest, data: bytes,
                     name: str | None = None) -> Accepted:
        """Record an inspected archive from ``owner`` as a submission: the same bot and files
        again are the submission stored before; else, within the quotas, the archive is
        stored (content-addressed, written whole, once) and the submission queued for its
        check (a remote version is activated at once). One upload at a time (the quotas are
        counted and the row written together).

        Raises:
            LeagueError: a bad bot name (400), over a quota (429).
        """
        lg = self.cfg.league
        bot = name or manifest.name
        if not NAME.match(bot):
            raise LeagueError(f"bot name {bot!r}: 1-40 letters, digits, '-', '_' or '.'")
        async with self._uploads:
            earlier = [s for s in self.st.submissions(owner)
                       if s.digest == checked.sha256 and s.bot == bot]
            if earlier:                   # the same bot and files again: the same submission
                return Accepted(earlier[0], False)
            if self.st.submitted_since(owner, 24) >= lg.submissions_per_day:
                raise LeagueError(f"quota: {lg.submissions_per_day} submissions in 24 hours",
                                  429)
            active = {s.bot for s in self.st.active() if s.owner == owner}
            if bot not in active and len(active) >= lg.bots_per_participant:
                raise LeagueError(f"quota: {lg.bots_per_participant} active bots per "
                                  f"participant ({', '.join(sorted(active))})", 429)
            await asyncio.to_thread(store, self.dir, data, checked)
            sub, new = self.st.add_submission(owner, bot, checked.sha256, len(data),
                                              manifest.remote)
        token = None
        if manifest.remote and new:         # nothing to check: it connects with its token
            token = tokens.new_token()
            sub = self.st.set_state(sub.id, "checking", reason=None, bot_token=token)
            sub = self._activate(sub)
        elif new:
            self.queued.set()
        log.info("submission %d from %s: %s (%s bytes)%s", sub.id, owner, bot, len(data),
                 "" if new else ", stored before")
        return Accepted(sub, new, token)

    def _activate(self, sub: Submission) -> Submission:
        done = self.st.activate(sub.id, self.cfg.league.versions_kept)
        self.on_event(f"{done.full_name} is active")
        self.changed.set()
        return done

    def manifest_of(self, sub: Submission) -> Any:
        """A submission's parsed manifest (from its unpacked directory)."""
        return parse_manifest((self.dir / "bots" / sub.digest / "bot.toml").read_text())

    # ----- the checker -----------------------------------------------------------------------
    async def check_loop(self) -> None:
        """Check queued submissions one at a time until stopped."""
        while not self.stopping.is_set():
            sub = self.st.next_queued()
            if sub is None:
                self.queued.clear()
                await first_of(self.queued, self.stopping)
                continue
            self.st.set_state(sub.id, "checking")
            self.on_event(f"checking submission {sub.id} ({sub.owner}/{sub.bot})")
            try:
                verdict = await check_submission(
                    self.cfg, self.manifest_of(sub), self.dir / "bots" / sub.digest,
                    hide=[self.dir / "results.sqlite", self.dir / "archives",
                          self.dir / "records", self.dir / "logs", self.dir / CONFIG_NAME])
            except UserError as exc:          # no sandbox here: nothing is run
                self.st.set_state(sub.id, "queued", reason=str(exc))
                self.on_event(f"cannot check submission {sub.id}: {exc}")
                await first_of(self.stopping, asyncio.Event(), timeout_s=30)
                continue
            if verdict.passed:
                self.st.set_state(sub.id, "checking", report=verdict.report)
                self._activate(sub)
            else:
                self.st.set_state(sub.id, "rejected", reason=verdict.reason,
                                  report=verdict.report)
                self.on_event(f"submission {sub.id} rejected: {verdict.reason}")

    # ----- the scheduler ---------------------------------------------------------------------
    def roster_config(self) -> TournamentConfig | None:
        """The tournament config of the active versions, oldest first (None: fewer than 3)."""
        bots: list[dict[str, Any]] = []
        remote = set()
        for sub in self.st.active():
            name = sub.full_name or ""
            if sub.remote:
                remote.add(name)
                bots.append({"name": name, "remote": True, "token": self.st.bot_token(sub.id)})
            else:
                entry = entry_for(name, self.manifest_of(sub), self.dir / "bots" / sub.digest)
                if not self._startable(name, entry):
                    continue
                bots.append(entry)
        self.remote = remote
        if len(bots) < 3:
            return None
        return self.cfg.tournament_config(bots)

    def _startable(self, name: str, entry: dict[str, Any]) -> bool:
        """Whether version ``name``'s command can start here now (the pre-flight check a
        tournament makes: :mod:`arena.tournament.preflight`). One that cannot (it passed its
        check, but the server's machine changed since: a runtime removed) is left out of the
        roster until the server restarts and shown ``disqualified``, so the rest play on."""
        if name in self.unstartable:
            return False
        problems = preflight([BotEntry.model_validate(entry)])
        if problems:
            self.unstartable[name] = problems[0]
            self.on_event(f"{problems[0]}; {name} is left out until the server restarts")
            return False
        return True

    def online(self, name: str) -> bool:
        """Whether version ``name`` can play now: not disqualified in the running executor
        and, when remote, connected."""
        why = getattr(self.executor, "disqualified", None)
        if why is not None and why(name):
            return False
        return name not in self.remote or self._connected(name)

    def _connected(self, name: str) -> bool:
        """Whether remote version ``name`` is connected to the running executor now."""
        server = getattr(self.executor, "server", None)
        return server is not None and any(b.name == name and b.alive
                                          for b in server.bots.values())

    def status(self, sub: Submission) -> str:
        """A version's status on the ladder: its state, or ``offline`` (a remote version not
        connected) / ``disqualified`` (crashed too often while this server runs, or its
        command cannot start here now)."""
        name = sub.full_name or ""
        if sub.state != "active":
            return sub.state
        why = getattr(self.executor, "disqualified", None)
        if name in self.unstartable or (why is not None and why(name)):
            return "disqualified"
        return "offline" if sub.remote and not self._connected(name) else "active"

    def _make(self, cfg: TournamentConfig, out: Path, report: Any, tracker: Any,
              events: Any, lobby: Any) -> Any:
        make = self.custom_executors or local_executor
        ex: Any = make(cfg, out, report, tracker, events, lobby)
        if isinstance(ex, LocalExecutor):
            ex.spare = SPARE_BOTS            # new versions join it while it plays
        if hasattr(ex, "hide_cards"):
            # a league is public, and anyone may own a remote bot: the live views of matches
            # in flight show no card nor choice (docs/security.md)
            ex.hide_cards = True
        self.executor = ex
        self.playing = {b.name for b in cfg.bots}
        return _Deferring(ex, self)

    async def adopt(self) -> TournamentConfig | None:
        """The roster changed: the running executor takes the new versions and lets the
        retired ones go; the new roster's config, or None when the executor cannot (a new
        run then starts with the new roster)."""
        cfg = self.roster_config()
        ex = self.executor
        add = getattr(ex, "add_bots", None)
        if cfg is None or add is None:
            return None
        names = {b.name for b in cfg.bots}
        new = [b for b in cfg.bots if b.name not in self.playing]
        gone = sorted(self.playing - names)
        await ex.retire_bots(gone)
        self.playing -= set(gone)
        try:
            if not add(new):
                return None
        except UserError as exc:        # the command of a checked version cannot start now
            self.on_event(f"cannot add {', '.join(b.name for b in new)}: {exc}")
            return None
        self.playing |= {b.name for b in new}
        for b in new:
            if b.remote:
                self.on_event(f"{b.name} is remote: it plays once it connects to "
                              f"{self.arena_address()} with its token")
        return cfg

    def arena_address(self) -> str | None:
        """Where remote bots connect now (``HOST:PORT`` of the running executor's gRPC
        server; None while none runs). With ``[server] bind`` on port 0 it changes with each
        run: a league with remote bots binds a fixed port."""
        server = getattr(self.executor, "server", None)
        port = getattr(server, "port", None)
        return server_address(self.cfg.server.bind, port) if port else None

    async def schedule_loop(self) -> None:
        """One run of the driver after another (normally one, for the service's life: see
        :mod:`.strategy`) until stopped."""
        report = ConsoleReporter(False)
        while not self.stopping.is_set():
            self.changed.clear()
            cfg = self.roster_config()
            if cfg is None:
                await first_of(self.changed, self.stopping)
                continue
            self.runs += 1
            self.strategy = League(cfg, first_blocks=self.cfg.league.first_blocks,
                                   online=self.online, changed=self.changed,
                                   stopping=self.stopping, adopt=self.adopt)
            self.on_event(f"playing: {len(cfg.bots)} versions")
            try:
                await drive(self.strategy, cfg, self.dir, report, executors=self._make,
                            events=self.bus.publish)
            except UserError as exc:    # the executor could not start: try again later
                self.on_event(f"cannot play now: {exc}; trying again in {RETRY_S:g} s")
                await first_of(self.changed, self.stopping, timeout_s=RETRY_S)
            finally:
                self.executor = None
                self.playing = set()

    async def run(self) -> None:
        """The checker and the scheduler, until :meth:`stop`."""
        with out_dir_lock(self.dir, lend=True):
            await self.sweep()
            tasks = [asyncio.create_task(self.check_loop()),
                     asyncio.create_task(self.schedule_loop())]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for t in done:
                    t.result()
            finally:
                self.stopping.set()
                for t in tasks:
                    t.cancel()
                for t in tasks:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await t

    async def sweep(self) -> None:
        """Remove the half-written uploads a killed server left (once, before the first
        upload is accepted: :func:`serve` calls it before it listens, :meth:`run` if not
        called yet). Hold the league directory's lock."""
        if self._swept:
            return
        self._swept = True
        left = await asyncio.to_thread(sweep, self.dir)
        if left:
            log.info("removed %d half-written upload(s) a killed server left", left)

    def stop(self) -> None:
        """No new check or match; :meth:`run` returns once what runs has ended."""
        self.stopping.set()

    def close(self) -> None:
        self.st.close()


class _Deferring:
    """The running executor, as the driver sees it: a match deferred because a remote bot of
    it is away goes to the strategy's :attr:`League.retry` (played once its bots can)."""

    def __init__(self, inner: Any, service: LeagueService) -> None:
        self.inner, self.service = inner, service
        self.slots: int = inner.slots

    @property
    def disqualifications(self) -> list[str]:
        return list(self.inner.disqualifications)

    async def start(self) -> None:
        await self.inner.start()

    async def play(self, m: ScheduledMatch) -> PlayedMatch:
        try:
            return await self.inner.play(m)  # type: ignore[no-any-return]
        except MatchDeferred:
            if self.service.strategy is not None:
                self.service.strategy.retry.append(m)
            raise

    async def close(self) -> None:
        await self.inner.close()


__all__ = ["Accepted", "Inspected", "LeagueError", "LeagueService", "init_league", "invite",
           "open_league", "revoke"]


async def serve(directory: Path, host: str, port: int, *,
                executors: ExecutorFactory | None = None,
                on_event: Callable[[str], None] = lambda text: None,
                ready: Callable[[str], None] = lambda url: None) -> None:
    """``arena league serve``: the league's HTTP API, its pages and the live page on
    ``host:port``, the checker and the scheduler, until cancelled (SIGTERM / SIGINT in the
    CLI). ``ready`` gets the page's URL once it listens.

    Raises:
        UserError: not a league directory, another process serves it, or the address cannot
            be bound.
    """
    from ..web.app import WebServer, create_app, keep_fresh
    from ..web.state import LiveState, SnapshotWorker
    from .api import routes
    service = LeagueService(directory, executors=executors, on_event=on_event)
    try:
        with out_dir_lock(directory, lend=True):
            # a league is public and anyone may be a remote bot's owner: the live views of
            # matches in flight show no card nor choice, and no bot's log is shown but to its
            # owner (docs/security.md)
            await service.sweep()         # before an upload can come in
            state = LiveState(directory, (), True, private_logs=True)
            await asyncio.to_thread(state.refresh)
            service.bus.listen(state.on_event)
            app = create_app(state, service.bus, live=True, extra=routes(service, state))
            server = WebServer(app, host, port)
            try:
                await server.start()
            except OSError as exc:
                raise UserError(f"--host/--port: cannot listen on {host}:{port}: "
                                f"{exc.strerror or exc}") from None
            # the standings' fits run beside the server, not in its process (the API and
            # the scheduler keep their pace as the results grow)
            worker = SnapshotWorker()
            fresh = asyncio.create_task(keep_fresh(state, service.bus, poll_s=1.0,
                                                   worker=worker))
            ready(server.url)
            try:
                await service.run()
            finally:
                fresh.cancel()
                worker.close()
                service.bus.close()
                await asyncio.shield(server.stop())
    finally:
        service.close()
