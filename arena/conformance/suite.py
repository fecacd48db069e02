"""The conformance checks, run in order on one bot stream (see :mod:`arena.conformance`).

Lines, in order: ``register``; for each preset, one line per decision kind and variant
(:func:`~arena.conformance.positions.find_positions`), each sent as a one-decision match
(``MatchStart``, ``DecisionRequest``, ``MatchEnd``); ``single legal action``; ``interleaved
matches`` (three matches started, three requests sent at once with non-consecutive request ids,
answers accepted in any order, each within the time limit of the previous answer: a bot may
answer them one after another); ``full match: P`` for each preset (one hand in which the bot
plays all three seats, as three matches on its stream); ``unknown ArenaMessage kind``;
``Rejection``; ``MatchEnd, then a new match``; ``Goodbye`` (the bot must exit with status 0
within :data:`EXIT_WAIT_S`; not checked for a remote bot).

An answer passes when it arrives within ``time_ms + grace_ms``, names the request, and its
action text is one of ``view.legal_actions`` (compared as the arena does). Once the stream has
ended, the remaining lines are "NOT RUN" (not failures of their own: the line that ended the
stream failed).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from ..protocol.convert import ConversionError, action_from_text, rules_to_proto, view_to_proto
from ..rules import MatchState, RulesConfig, make_config
from ..rules.view import View, view_of
from .harness import BotStream, Ended, Incoming
from .positions import Position, find_positions, single_legal_action

#: seconds a started bot has to exit after Goodbye
EXIT_WAIT_S = 5.0
#: an ArenaMessage with only field 15 set (unknown to protocol "1": a newer arena's kind)
UNKNOWN_KIND = b"\x7a\x05hello"
_NAMES = ["checker-0", "checker-1", "checker-2"]


@dataclass
class CheckResult:
    """One line of the report. ``status``: ``"PASS"``, ``"FAIL"``, ``"SKIP"`` (not applicable
    here, e.g. no position found) or ``"NOT RUN"`` (the stream had ended before it);
    ``latencies_ms``: the round trips of its decisions, milliseconds."""

    name: str
    status: str
    reason: str = ""
    latencies_ms: list[float] = field(default_factory=list)


@dataclass
class SuiteReport:
    """All lines plus what the bot said at registration and its exit status (None: remote or
    not observed)."""

    bot: str
    results: list[CheckResult]
    registered: dict[str, str] = field(default_factory=dict)
    exit_status: int | None = None

    @property
    def passed(self) -> bool:
        return all(r.status not in ("FAIL", NOT_RUN) for r in self.results)

    @property
    def latencies_ms(self) -> list[float]:
        return [x for r in self.results for x in r.latencies_ms]


#: the status of a check that could not run because the stream had ended
NOT_RUN = "NOT RUN"


class CheckFailed(Exception):
    """A check failed; the message is its reason."""


class StreamEnded(CheckFailed):
    """The bot's stream ended: no later check can run."""


class _Driver:
    """Sends requests and checks answers on one stream."""

    def __init__(self, stream: BotStream, time_ms: int, grace_ms: int) -> None:
        self.stream, self.time_ms, self.grace_ms = stream, time_ms, grace_ms
        self.next_id = 0
        self.matches = 0
        #: requests whose check already failed (late answers to them are ignored)
        self.stale: set[int] = set()

    def new_id(self, gap: int = 1) -> int:
        self.next_id += gap
        return self.next_id

    async def send(self, msg: pb.ArenaMessage | bytes) -> float:
        try:
            return await self.stream.send(msg)
        except ConnectionError as exc:
            raise StreamEnded(str(exc)) from None

    async def start_match(self, cfg: RulesConfig, seat: int, tag: str) -> str:
        self.matches += 1
        match_id = f"check-{self.matches}-{tag}"
        await self.send(pb.ArenaMessage(match_start=pb.MatchStart(
            match_id=match_id, rules=rules_to_proto(cfg), seat=seat, names=_NAMES,
            time_per_decision_ms=self.time_ms)))
        return match_id

    async def end_match(self, match_id: str, scores: Sequence[int] = (0, 0, 0),
                        placings: Sequence[int] = (1, 1, 1)) -> None:
        await self.send(pb.ArenaMessage(match_end=pb.MatchEnd(
            match_id=match_id, scores=list(scores), placings=list(placings),
            reason="conformance-check")))

    async def request(self, view: View, match_id: str, gap: int = 1) -> tuple[int, float]:
        rid = self.new_id(gap)
        sent = await self.send(pb.ArenaMessage(decision=pb.DecisionRequest(
            request_id=rid, match_id=match_id, view=view_to_proto(view), time_ms=self.time_ms)))
        return rid, sent

    async def answer(self, pending: dict[int, tuple[View, float]],
                     since: float = 0.0) -> tuple[int, int, float]:
        """Wait for the answer to one of ``pending`` (request id -> (view, sent at)); returns
        (request id, action code, latency ms) and removes it from ``pending``. The time allowed
        runs from the last request sent, or from ``since`` (the previous answer) if later: a
        bot may answer several pending requests one after another."""
        start = max(since, *(sent for _, sent in pending.values()))
        deadline = start + (self.time_ms + self.grace_ms) / 1e3
        while True:
            item = await self.stream.recv(max(0.0, deadline - time.monotonic()))
            if item is None:
                ids = ", ".join(map(str, sorted(pending)))
                self.stale.update(pending)
                raise CheckFailed(f"no answer to request {ids} within {self.time_ms} ms + "
                                  f"{self.grace_ms} ms grace")
            if isinstance(item, Ended):
                raise StreamEnded(f"the stream ended: {item.reason} (while request "
                                  f"{', '.join(map(str, sorted(pending)))} was pending)")
            if (item.msg is not None and item.msg.WhichOneof("kind") == "decision"
                    and item.msg.decision.request_id in self.stale):
                continue  # a late answer to a request whose check already failed
            try:
                return self._check_answer(item, pending)
            except CheckFailed:
                self.stale.update(pending)
                raise

    def _check_answer(self, item: Incoming, pending: dict[int, tuple[View, float]]
                      ) -> tuple[int, int, float]:
        if item.msg is None:
            raise CheckFailed(f"sent {len(item.raw)} bytes that do not parse as a BotMessage")
        kind = item.msg.WhichOneof("kind")
        if kind == "error":
            raise CheckFailed(f"sent ErrorReport for request {item.msg.error.request_id}: "
                              f"{item.msg.error.message[:200]!r}")
        if kind != "decision":
            raise CheckFailed("sent a second RegisterRequest" if kind == "register"
                              else "sent a BotMessage with no kind set")
        d = item.msg.decision
        if d.request_id not in pending:
            want = ", ".join(map(str, sorted(pending)))
            raise CheckFailed(f"answered request id {d.request_id}; pending: {want} (echo the "
                              "request_id of the DecisionRequest)")
        view, sent = pending.pop(d.request_id)
        try:
            code = action_from_text(d.action)
        except ConversionError:
            raise CheckFailed(f"request {d.request_id}: malformed action {d.action[:40]!r}") \
                from None
        if code not in view.legal_actions:
            legal = list(view_to_proto(view).legal_actions)
            shown = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
            raise CheckFailed(f"request {d.request_id}: illegal action {d.action[:40]!r} "
                              f"({view.decision.value if view.decision else '-'}; legal: "
                              f"{shown})")
        return d.request_id, code, (item.at - sent) * 1e3

    async def ask(self, view: View, match_id: str, gap: int = 1) -> tuple[int, float]:
        """One request, its checked answer: (action code, latency ms)."""
        rid, sent = await self.request(view, match_id, gap)
        _, code, ms = await self.answer({rid: (view, sent)})
        return code, ms


Check = Callable[[_Driver, CheckResult], Awaitable[None]]


def _position_check(pos: Position) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        match_id = await drv.start_match(pos.cfg, pos.view.seat, "position")
        _, ms = await drv.ask(pos.view, match_id)
        res.latencies_ms.append(ms)
        await drv.end_match(match_id)
    return check


def _single_check(pos: Position) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        match_id = await drv.start_match(pos.cfg, pos.view.seat, "single")
        _, ms = await drv.ask(pos.view, match_id)
        res.latencies_ms.append(ms)
        await drv.end_match(match_id)
        res.reason = f"answered {pos.legal_texts[0]}"
    return check


def _interleaved_check(positions: list[Position]) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        ids = [await drv.start_match(p.cfg, p.view.seat, "interleaved") for p in positions]
        pending: dict[int, tuple[View, float]] = {}
        for pos, match_id in zip(positions, ids, strict=True):
            rid, sent = await drv.request(pos.view, match_id, gap=1000)
            pending[rid] = (pos.view, sent)
        asked = sorted(pending)
        since = 0.0
        while pending:
            _, _, ms = await drv.answer(pending, since)
            since = time.monotonic()
            res.latencies_ms.append(ms)
        for match_id in ids:
            await drv.end_match(match_id)
        res.reason = f"{len(positions)} matches, request ids {', '.join(map(str, asked))}"
    return check


def _full_match_check(preset: str, seed: int) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        cfg = make_config(preset, hand_cap=1)
        state = MatchState.new(cfg, seed=f"conformance/full/{preset}/{seed}")
        ids = [await drv.start_match(cfg, seat, f"full-s{seat}") for seat in range(3)]
        while not state.finished:
            seat = state.seat_to_act()
            code, ms = await drv.ask(view_of(state, seat), ids[seat])
            res.latencies_ms.append(ms)
            state.apply(code)
        placings = state.placings
        if placings is None:                # cannot happen: the loop ends with the match
            raise RuntimeError("the match did not finish")
        for match_id in ids:
            await drv.end_match(match_id, state.scores, placings)
        res.reason = f"{len(res.latencies_ms)} decisions in all three seats"
    return check


def _unknown_kind_check(pos: Position) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        match_id = await drv.start_match(pos.cfg, pos.view.seat, "unknown-kind")
        try:  # the bot may crash on the first message: the second send then fails
            await drv.send(UNKNOWN_KIND)
            await drv.send(b"")  # an ArenaMessage with no field set at all
            _, ms = await drv.ask(pos.view, match_id)
        except StreamEnded as exc:
            raise StreamEnded(f"after an unknown ArenaMessage kind: {exc}") from None
        res.latencies_ms.append(ms)
        await drv.end_match(match_id)
    return check


def _rejection_check(pos: Position) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        match_id = await drv.start_match(pos.cfg, pos.view.seat, "rejection")
        _, ms = await drv.ask(pos.view, match_id)
        await drv.send(pb.ArenaMessage(rejection=pb.Rejection(
            request_id=drv.next_id, reason=pb.REJECTION_REASON_ILLEGAL, match_id=match_id,
            detail="conformance check: a rejection the bot must take in its stride")))
        await drv.send(pb.ArenaMessage(rejection=pb.Rejection(
            request_id=0, reason=pb.REJECTION_REASON_UNEXPECTED, detail="conformance check")))
        _, ms2 = await drv.ask(pos.view, match_id)
        res.latencies_ms += [ms, ms2]
        await drv.end_match(match_id)
    return check


def _match_end_check(pos: Position) -> Check:
    async def check(drv: _Driver, res: CheckResult) -> None:
        first = await drv.start_match(pos.cfg, pos.view.seat, "ended")
        await drv.end_match(first, (10, -5, -5), (1, 2, 2))
        match_id = await drv.start_match(pos.cfg, pos.view.seat, "after-end")
        _, ms = await drv.ask(pos.view, match_id)
        res.latencies_ms.append(ms)
        await drv.end_match(match_id)
    return check


def plan(presets: list[str], seed: int = 1) -> list[tuple[str, Check | str]]:
    """The checks in order: (line name, check or the reason it is skipped).

    Raises:
        arena.rules.RulesConfigError: an unknown preset.
    """
    lines: list[tuple[str, Check | str]] = []
    firsts: list[Position] = []
    for preset in presets:
        positions, missing = find_positions(preset, seed)
        lines += [(p.check, _position_check(p)) for p in positions]
        lines += [(name, "not reached in the searched deals") for name in missing]
        firsts += positions[:1]
    single = single_legal_action(seed)
    lines.append(("single legal action", _single_check(single)))
    trio = (firsts * 3)[:3]
    lines.append(("interleaved matches (3 at once)", _interleaved_check(trio)))
    lines += [(f"full match: {p} (all three seats)", _full_match_check(p, seed)) for p in presets]
    lines.append(("unknown ArenaMessage kind (ignored)", _unknown_kind_check(single)))
    lines.append(("Rejection (then keeps answering)", _rejection_check(single)))
    lines.append(("MatchEnd, then a new match", _match_end_check(single)))
    return lines


async def run_suite(stream: BotStream, presets: list[str], *, time_ms: int, grace_ms: int,
                    bot: str, wait_exit: Callable[[float], Awaitable[int | None]] | None = None,
                    seed: int = 1) -> SuiteReport:
    """Run every check on ``stream`` (already registered), then say Goodbye.

    Args:
        wait_exit: for a started bot: waits up to the given seconds and returns its exit
            status (None while it still runs); None for a remote bot.
    """
    reg = stream.register
    report = SuiteReport(bot, [CheckResult("register", "PASS", (
        f"name {reg.name[:40]!r}, version {reg.version[:20]!r}, client {reg.client[:40]!r}"))],
        {"name": reg.name, "version": reg.version, "client": reg.client})
    drv = _Driver(stream, time_ms, grace_ms)
    ended: str | None = None
    for name, check in plan(presets, seed):
        res = CheckResult(name, "PASS")
        report.results.append(res)
        if isinstance(check, str):
            res.status, res.reason = "SKIP", check
            continue
        if ended is not None:
            res.status, res.reason = NOT_RUN, ended
            continue
        try:
            await check(drv, res)
        except StreamEnded as exc:
            res.status, res.reason = "FAIL", str(exc)
            ended = f"the stream ended at {name!r}"
        except CheckFailed as exc:
            res.status, res.reason = "FAIL", str(exc)
    report.results.append(await _goodbye(drv, ended, wait_exit, report))
    return report


async def _goodbye(drv: _Driver, ended: str | None,
                   wait_exit: Callable[[float], Awaitable[int | None]] | None,
                   report: SuiteReport) -> CheckResult:
    res = CheckResult("Goodbye (exit status 0)", "PASS")
    if ended is None:
        with contextlib.suppress(StreamEnded):
            await drv.send(pb.ArenaMessage(goodbye=pb.Goodbye(reason="conformance check done")))
    drv.stream.close()
    if wait_exit is None:
        res.status, res.reason = "SKIP", "a remote bot's exit status is not seen"
        return res
    status = await wait_exit(EXIT_WAIT_S)
    report.exit_status = status
    if status is None:
        res.status, res.reason = "FAIL", f"still running {EXIT_WAIT_S:g} s after Goodbye " \
            "(killed)"
    elif ended is not None:
        res.status, res.reason = NOT_RUN, f"{ended}; the bot exited with status {status}"
    elif status != 0:
        res.status, res.reason = "FAIL", f"exit status {status} after Goodbye"
    return res
