"""The conformance report: a PASS/FAIL table with a reason per line and latency percentiles
(text), or one JSON object (``arena check-bot --json``)."""

from __future__ import annotations

import json

import numpy as np
from tabulate import tabulate

from .suite import NOT_RUN, SuiteReport


def latency_summary(values_ms: list[float]) -> dict[str, float | int]:
    """``count`` and ``p50`` / ``p90`` / ``p99`` / ``max`` in milliseconds (rounded to 0.01;
    empty dict without values)."""
    if not values_ms:
        return {}
    arr = np.asarray(values_ms)
    out: dict[str, float | int] = {"count": len(values_ms)}
    for name, q in (("p50", 50), ("p90", 90), ("p99", 99)):
        out[name] = round(float(np.percentile(arr, q)), 2)
    out["max"] = round(float(arr.max()), 2)
    return out


def render_table(report: SuiteReport) -> str:
    """The text report: one row per check, then the totals and the latency line."""
    rows = [(r.status, r.name, r.reason) for r in report.results]
    text = f"conformance check of {report.bot}\n"
    text += tabulate(rows, headers=("result", "check", "reason"), tablefmt="simple",
                     maxcolwidths=[None, 56, 80]) + "\n"
    counts = {s: sum(r.status == s for r in report.results)
              for s in ("PASS", "FAIL", "SKIP", NOT_RUN)}
    text += f"\n{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped"
    text += f", {counts[NOT_RUN]} not run" if counts[NOT_RUN] else ""
    lat = latency_summary(report.latencies_ms)
    if lat:
        text += (f"; latency over {lat['count']} decisions: p50 {lat['p50']:.2f} ms, p90 "
                 f"{lat['p90']:.2f} ms, p99 {lat['p99']:.2f} ms, max {lat['max']:.2f} ms")
    verdict = "PASS: the bot conforms to protocol 1" if report.passed else "FAIL"
    return text + f"\n{verdict}\n"


def render_json(report: SuiteReport) -> str:
    """The report as one line of JSON (keys documented in docs/protocol.md 11.13): ``bot``
    (the command, or the remote address), ``passed`` (no line FAIL or NOT RUN),
    ``registered`` (``name``, ``version``, ``client`` as the bot registered), ``exit_status``
    (after Goodbye; null for a remote bot or one still running), ``checks`` (each ``name``,
    ``status`` PASS / FAIL / SKIP / NOT RUN, ``reason``, ``latency_ms``) and ``latency_ms``
    over every answer (``count``, ``p50``, ``p90``, ``p99``, ``max`` in ms; {} without
    answers)."""
    return json.dumps({
        "bot": report.bot, "passed": report.passed, "registered": report.registered,
        "exit_status": report.exit_status,
        "checks": [{"name": r.name, "status": r.status, "reason": r.reason,
                    "latency_ms": latency_summary(r.latencies_ms)} for r in report.results],
        "latency_ms": latency_summary(report.latencies_ms),
    }, ensure_ascii=False) + "\n"
