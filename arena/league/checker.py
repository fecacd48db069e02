"""Checking a submission before it plays: ``check-bot`` in the sandbox, exactly as a tournament
runs the bot (:func:`arena.tournament.checkbot.check_started_bot`), on the league's presets.

A submission that passes every check becomes its bot's next version; one that fails is
rejected with the report (which checks failed, and the last line of its output). Remote
submissions (``remote = true``) are not started by the league: they are accepted without a
check and get a connection token.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..conformance import render_json
from ..processes.pool import last_log_line
from ..tournament.checkbot import check_started_bot
from ..tournament.config import BotEntry
from .config import LeagueConfig
from .manifest import Manifest


@dataclass(frozen=True)
class Verdict:
    """A check's outcome: ``passed``, a one-line ``reason`` when not, and the suite's report
    (:func:`arena.conformance.render_json`, as JSON text)."""

    passed: bool
    reason: str | None
    report: str


def entry_for(name: str, manifest: Manifest, directory: Path) -> dict[str, Any]:
    """The ``[[bots]]`` entry of a version: its manifest's command run in its unpacked,
    read-only ``directory`` (its own in the sandbox), with its ``env``."""
    return {"name": name, "command": list(manifest.command or []), "cwd": str(directory),
            "env": dict(manifest.env)}


async def check_submission(cfg: LeagueConfig, manifest: Manifest, directory: Path,
                           hide: list[Path]) -> Verdict:
    """Run ``check-bot`` on the bot in ``directory`` under the league's ``[sandbox]`` (at most
    ``check_timeout_s`` seconds); ``hide``: the league's own directories.

    Raises:
        UserError: no sandbox can run here (the league refuses to check, rather than run the
            bot with less isolation).
    """
    entry = BotEntry.model_validate(entry_for("candidate", manifest, directory))
    with tempfile.TemporaryDirectory(prefix="arena-league-check-") as tmp:
        log = Path(tmp) / "bot.log"
        try:
            report = await asyncio.wait_for(check_started_bot(
                entry, cfg.presets(), sandbox=cfg.sandbox, log_path=log,
                time_ms=cfg.time.per_decision_ms, grace_ms=cfg.time.grace_ms,
                register_timeout_s=float(cfg.faults.register_timeout_s),
                label=f"{manifest.name}", hide=hide), cfg.league.check_timeout_s)
        except TimeoutError:
            last = last_log_line(log)
            return Verdict(False, f"check-bot did not finish within "
                           f"{cfg.league.check_timeout_s} s" + (f" ({last})" if last else ""),
                           json.dumps({"passed": False, "checks": []}))
        text = render_json(report)
        if report.passed:
            return Verdict(True, None, text)
        failed = [r for r in report.results if r.status in ("FAIL", "NOT RUN")]
        why = "; ".join(f"{r.name}: {r.reason}" for r in failed[:3])
        last = last_log_line(log)
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        return Verdict(False, f"check-bot: {len(failed)} check{'s' if len(failed) > 1 else ''} "
                       f"failed: {why}{more}" + (f"; its last output: {last}" if last else ""),
                       text)
