"""The driver side of the Ray backend: :class:`RayExecutor` (``[cluster] backend = "ray"``).

The runner keeps schedule, store, records, standings and progress, and awaits
:meth:`RayExecutor.play` for ``slots`` matches at a time. Each call takes an idle worker (a
:class:`~arena.cluster.worker.MatchWorker` actor reserving ``3 * cpus_per_bot`` CPUs, placed by
Ray with the ``SPREAD`` strategy), plays the match there and returns the store row and record
bytes; the bots' log bytes are appended to ``OUT/logs/`` here, so the output directory is the
same as with ``local``.

Faults: a worker whose actor or node dies mid-match (``RayActorError``) loses that match only;
the match goes to the next idle worker and the dead one is replaced by a new actor (placed
where the cluster has room). A match that loses ``MAX_LOST + slots`` workers in a row stops the
run with :class:`ClusterError` (the results so far are kept; rerun to resume). A bot crash is a
bot fault: workers report crashes and the driver counts them over the whole cluster,
disqualifying a bot at its ``faults.max_crashes``-th crash as ``local`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from ..tournament.config import RAY_MISSING, TournamentConfig
from ..tournament.reporter import Message, Reporter
from ..tournament.executor import PlayedMatch
from ..tournament.schedule import ScheduledMatch
from ..errors import UserError
from .connect import ClusterError, probe, sentence, start_init, wait_init
from .quiet import RayLogFilter

if TYPE_CHECKING:
    from ..events import EventSink
    from ..processes.pool import ProcessTracker
    from ..tournament.local import LobbyPlan
    from .worker import WorkerReply

#: workers a single match may lose (beyond one per slot: idle workers on a lost node) before
#: the run stops
MAX_LOST = 3
#: seconds workers get to end their bots on close before they are killed
CLOSE_TIMEOUT_S = 20.0
#: seconds the run waits with no worker placed and started (cluster full, runtime_env being
#: set up) before it stops with ClusterError
PLACEMENT_TIMEOUT_S = 600.0
_R_co = TypeVar("_R_co", covariant=True)


class RemoteMethod(Protocol[_R_co]):
    """An actor method seen through a Ray actor handle: ``.remote(...)`` submits the call and
    returns an ObjectRef, which is awaited for the method's return value."""

    def remote(self, *args: object) -> Awaitable[_R_co]: ...


class WorkerHandle(Protocol):
    """What the driver calls on a :class:`~arena.cluster.worker.MatchWorker` actor. Ray's own
    ``ActorHandle`` does not type the methods of the class it wraps, hence this protocol."""

    @property
    def play(self) -> RemoteMethod[WorkerReply]: ...
    @property
    def pids(self) -> RemoteMethod[list[int]]: ...
    @property
    def close(self) -> RemoteMethod[dict[str, bytes]]: ...


class _WorkerFactory(Protocol):
    """``ray.remote(MatchWorker).options(...)``: ``.remote(cfg, base_dir)`` creates an actor."""

    def remote(self, cfg: TournamentConfig, base_dir: str | None) -> WorkerHandle: ...


def import_ray() -> ModuleType:
    """Import Ray. Raises: ClusterError with the install hint when it is not installed."""
    try:
        import ray
    except ImportError:
        raise ClusterError(RAY_MISSING) from None
    return ray


def ray_executor(cfg: TournamentConfig, out: Path, report: Reporter,
                 tracker: ProcessTracker | None, events: EventSink | None,
                 lobby: LobbyPlan | None) -> RayExecutor:
    """The driver's executor factory for ``[cluster] backend = "ray"``
    (:class:`arena.tournament.driver.ExecutorFactory`; the CLI hands it down): its news to
    ``report`` as :class:`~arena.tournament.reporter.Message`. A Ray run publishes no
    per-decision ``events`` (the driver still publishes each finished match) and has no lobby
    (remote bots cannot join it: a config problem)."""
    def message(text: str) -> None:
        report(Message(text))
    return RayExecutor(cfg, out, message, tracker)


class RayExecutor:
    """Plays matches on Ray workers (see the module docstring).

    Args:
        cfg: the tournament config (``cfg.cluster`` says where and how).
        out: the output directory (bot logs go to ``out/logs``).
        on_event: one-line messages (lost workers, crashes, disqualifications).
        tracker: told the outcome of every bot start on the workers (the store's process
            table: the bots that never started), or None.
    """

    def __init__(self, cfg: TournamentConfig, out: Path, on_event: Callable[[str], None],
                 tracker: ProcessTracker | None = None) -> None:
        self.cfg = cfg
        self.tracker = tracker
        self.cluster = cfg.cluster
        self.log_dir = out / "logs"
        self.on_event = on_event
        self.slots = self.cluster.slots or cfg.tournament.concurrency
        self.crashes: Counter[str] = Counter()
        self.disqualified: dict[str, str] = {}
        self._disqualifications: list[str] = []
        self.workers: list[WorkerHandle] = []       # every live actor handle
        self.idle: asyncio.Queue[WorkerHandle] = asyncio.Queue()
        self.lost = 0                 # workers lost during the run
        self.ray: ModuleType | None = None
        self._owns_ray = False
        self._actor_cls: _WorkerFactory | None = None
        self.closing = False
        self.start_failures = 0
        self.ready: set[WorkerHandle] = set()       # workers placed and started
        self._starting: set[asyncio.Future[None]] = set()
        self.base_dir: str | None = None
        self._quiet = RayLogFilter(self.log_dir / "ray.log")
        self._init_done: asyncio.Future[None] | None = None

    @property
    def disqualifications(self) -> list[str]:
        return self._disqualifications

    # ----- start ----------------------------------------------------------------------------
    async def start(self) -> None:
        """Connect to (or start) Ray and create ``slots`` workers.

        Raises:
            ClusterError: Ray missing, cluster unreachable, or no node has the CPUs a worker
            needs.
        """
        ray = self.ray = import_ray()
        runtime_env = self._runtime_env()
        if not ray.is_initialized():
            await self._connect(ray, runtime_env)
            runtime_env = {}               # the job's: every worker gets it
        elif (wd := self.cluster.working_dir) is not None and "://" not in wd:
            raise ClusterError("[cluster] working_dir: Ray is already initialized in this "
                               "process, and a local directory can only be shipped by the "
                               "job's ray.init; let arena connect to the cluster")
        from .worker import MatchWorker
        need = 3 * float(self.cluster.cpus_per_bot)
        self._check_room(ray, need)
        self.base_dir = None if self.cluster.working_dir is not None else os.getcwd()
        options: dict[str, object] = {"num_cpus": need, "max_restarts": 0,
                                      "scheduling_strategy": "SPREAD"}
        if runtime_env:
            options["runtime_env"] = runtime_env
        # Ray types an actor class's .remote() as "handle or the class itself"; it is a handle
        self._actor_cls = cast(_WorkerFactory, ray.remote(MatchWorker).options(**options))
        for _ in range(self.slots):
            self._new_worker()

    def _runtime_env(self) -> dict[str, object]:
        """``[cluster] runtime_env`` plus ``working_dir`` (a local directory, made absolute,
        or a URI such as ``s3://bucket/bots.zip`` passed as is)."""
        env: dict[str, object] = dict(self.cluster.runtime_env)
        wd = self.cluster.working_dir
        if wd is not None:
            if "://" in wd:
                env["working_dir"] = wd
            else:
                path = Path(wd).resolve()
                if not path.is_dir():
                    raise ClusterError(f"[cluster] working_dir {wd}: no such directory")
                env["working_dir"] = str(path)
        return env

    async def _connect(self, ray: ModuleType, runtime_env: dict[str, object]) -> None:
        """``ray.init`` for ``[cluster] address`` (:mod:`arena.cluster.connect`: a TCP probe
        first, then ray.init in a thread of its own under a watchdog, so a signal stops the run
        at any moment); Ray's own log lines go to ``OUT/logs/ray.log``.

        Raises:
            ClusterError: nothing listens at the address, Ray did not connect in time, or
                ray.init failed.
        """
        address = self.cluster.address
        probe(address)
        kwargs: dict[str, object] = {"logging_level": logging.WARNING, "log_to_driver": False}
        if runtime_env:
            kwargs["runtime_env"] = runtime_env
        # "local" is passed too: a new private instance even where a cluster runs on this
        # machine (ray.init() without an address would join that one)
        kwargs["address"] = address
        if address == "local":    # the private instance, sized for its workers
            kwargs["include_dashboard"] = False
            kwargs["num_cpus"] = self._private_cpus()
        self._quiet.start()
        before = signal.getsignal(signal.SIGTERM)   # ray.init replaces it with sys.exit
        self._init_done = start_init(ray, kwargs)
        try:
            await wait_init(self._init_done, address)
        finally:
            if before is not None and signal.getsignal(signal.SIGTERM) is not before:
                signal.signal(signal.SIGTERM, before)   # the CLI's clean shutdown again
        self._owns_ray = True

    def _private_cpus(self) -> int:
        """The logical CPUs of a private Ray instance (``address = "local"``): this machine's,
        or as many as ``slots`` workers of 3 bots x ``cpus_per_bot`` need when that is more
        (Ray's CPUs are a count for placing actors; the bots then share the real cores, as
        with the local backend); said in one message when it is more."""
        cores = os.cpu_count() or 1
        need = math.ceil(self.slots * 3 * float(self.cluster.cpus_per_bot))
        if need > cores:
            self.on_event(f"private Ray instance: {need} logical CPUs, for {self.slots} "
                          f"worker{'s' if self.slots > 1 else ''} x 3 bots x cpus_per_bot "
                          f"{self.cluster.cpus_per_bot:g} (this machine has {cores}: the bots "
                          "share its cores)")
        return max(cores, need)

    def _check_room(self, ray: ModuleType, need: float) -> None:
        cpus = [n.get("Resources", {}).get("CPU", 0.0) for n in ray.nodes() if n.get("Alive")]
        if cpus and max(cpus) < need:
            raise ClusterError(
                f"a worker needs {need:g} CPUs (3 bots x cpus_per_bot = "
                f"{self.cluster.cpus_per_bot:g}) but the largest node has {max(cpus):g}; "
                "lower [cluster] cpus_per_bot")

    def _new_worker(self) -> None:
        """Create a worker; it joins the idle queue once Ray has placed and started it (an
        actor waiting for room never holds a match)."""
        if self._actor_cls is None:
            raise RuntimeError("RayExecutor.start() has not run")
        actor = self._actor_cls.remote(self.cfg, self.base_dir)
        self.workers.append(actor)
        task = asyncio.ensure_future(self._when_ready(actor))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _when_ready(self, actor: WorkerHandle) -> None:
        from ray.exceptions import RayActorError
        try:
            await actor.pids.remote()
        except RayActorError:
            self._forget(actor)
            self.lost += 1
            self.start_failures += 1
            if self.closing:
                return
            if self.start_failures > MAX_LOST * self.slots:
                self.on_event("Ray workers keep dying while starting; not starting more")
                return
            self.on_event("a Ray worker died while starting; starting another")
            self._new_worker()
            return
        if not self.closing:
            self.ready.add(actor)
            self.idle.put_nowait(actor)

    # ----- play -----------------------------------------------------------------------------
    async def play(self, m: ScheduledMatch) -> PlayedMatch:
        """Play ``m`` on an idle worker; on a lost worker, again on another.

        Raises:
            ClusterError: ``m`` lost ``MAX_LOST + slots`` workers, a worker cannot start, or
            it raised (one line, the cause's type and message).
        """
        from ray.exceptions import RayActorError, RayTaskError
        lost = 0
        while True:
            actor = await self._idle_worker()
            try:
                reply = await actor.play.remote(m, dict(self.disqualified))
            except RayActorError as exc:
                if self.closing:
                    raise asyncio.CancelledError() from None
                lost += 1
                self.lost += 1
                self._forget(actor)
                why = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else "died"
                if lost >= MAX_LOST + self.slots:
                    raise ClusterError(f"match {m.match_id} lost {lost} Ray workers in a row "
                                       f"(last: {why}); results so far are kept, rerun to "
                                       "resume") from None
                self.on_event(f"worker lost during match {m.match_id} ({why}); playing it "
                              "again on another worker")
                self._new_worker()
                continue
            except RayTaskError as exc:
                self.idle.put_nowait(actor)
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                if isinstance(cause, UserError):
                    raise ClusterError(str(cause)) from None
                first = sentence((str(cause).strip().splitlines() or [""])[0], 200)
                raise ClusterError(f"a Ray worker failed in match {m.match_id}: "
                                   f"{type(cause).__name__}: {first}; results so far are "
                                   "kept, rerun to resume") from None
            self.idle.put_nowait(actor)
            self._absorb(reply)
            return reply.played

    async def _idle_worker(self) -> WorkerHandle:
        """The next idle worker. Raises ClusterError when for :data:`PLACEMENT_TIMEOUT_S` no
        worker at all is placed and started (waiting behind busy workers has no limit)."""
        waited, step, told = 0.0, 5.0, False
        getter = asyncio.ensure_future(self.idle.get())   # never cancelled while waiting
        try:
            while True:
                done, _ = await asyncio.wait({getter}, timeout=step)
                if done:
                    return getter.result()
                if self.ready:
                    waited, told = 0.0, False
                    continue
                waited += step
                need = 3 * float(self.cluster.cpus_per_bot)
                if not told and waited >= 30:
                    told = True
                    self.on_event(f"waiting for Ray to place a worker ({need:g} CPUs each)")
                if waited >= PLACEMENT_TIMEOUT_S:
                    raise ClusterError(
                        f"no Ray worker could be placed and started for "
                        f"{PLACEMENT_TIMEOUT_S:g} s: no node has {need:g} free CPUs, or the "
                        "runtime_env cannot be set up; results so far are kept, rerun to "
                        "resume")
        finally:
            if not getter.done():
                getter.cancel()

    def _forget(self, actor: WorkerHandle) -> None:
        if actor in self.workers:
            self.workers.remove(actor)
        self.ready.discard(actor)
        if self.ray is not None:
            with contextlib.suppress(Exception):
                self.ray.kill(actor, no_restart=True)

    def _absorb(self, reply: WorkerReply) -> None:
        self._append_logs(reply.logs)
        local_logs = str(self.log_dir)

        def here(text: str) -> str:     # the worker's log paths, as the driver's
            return text.replace(reply.log_dir, local_logs) if reply.log_dir else text

        for line in reply.events:
            self.on_event(here(line))
        if self.tracker is not None:
            for bot, ok, error in reply.starts:
                self.tracker.start_result(bot, ok, None if error is None else here(error))
        limit = self.cfg.faults.max_crashes
        for name, n in reply.crashes.items():
            self.crashes[name] += n
            total = self.crashes[name]
            if total >= limit and name not in self.disqualified:   # as BotPool counts
                reason = f"disqualified after {total} crash{'es' if total > 1 else ''}"
                self.disqualified[name] = reason
                self._disqualifications.append(
                    f"{name!r} was {reason} (on the cluster); see {self.log_dir}")
                self.on_event(f"bot {name!r} is {reason}; its remaining matches are "
                              "forfeited")

    def _append_logs(self, logs: dict[str, bytes]) -> None:
        for name, data in logs.items():
            with open(self.log_dir / Path(name).name, "ab") as f:
                f.write(data)

    # ----- close ----------------------------------------------------------------------------
    async def close(self) -> None:
        """Ask every worker to end its bots (bounded by :data:`CLOSE_TIMEOUT_S`), kill the
        actors, and shut Ray down when this run started or connected it."""
        ray = self.ray
        self.closing = True
        try:
            await self._close(ray)
        finally:
            if self._init_done is None or self._init_done.done():
                self._quiet.stop()   # else at exit: ray.init still retries, and logs it

    async def _close(self, ray: ModuleType | None) -> None:
        if ray is None:
            return
        for task in list(self._starting):
            task.cancel()
        try:
            refs = [a.close.remote() for a in self.workers if a in self.ready]
            if refs:
                done = await asyncio.wait_for(
                    asyncio.gather(*refs, return_exceptions=True), CLOSE_TIMEOUT_S)
                for logs in done:
                    if isinstance(logs, dict):
                        self._append_logs(logs)
        except (TimeoutError, Exception):
            pass
        finally:
            for a in self.workers:
                with contextlib.suppress(Exception):
                    ray.kill(a, no_restart=True)
            self.workers.clear()
            self.ready.clear()
            if self._owns_ray:
                ray.shutdown()
