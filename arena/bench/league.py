"""League benchmark (``arena bench league``): a real ``arena league serve`` subprocess in a
temporary league, driven over HTTP on loopback as participants would drive it.

Figures:

- **submission to first rated result**: three sample bots (random, greedy, random) sent one
  after the other to an empty league: seconds from each upload to its version being active
  (the sandboxed check), and from the third upload to the first ladder where all three have
  a rating; then a fourth bot (greedy, another participant's) sent into the running league:
  seconds from its upload to its first rated row (check, the running executor adopting it,
  its first duplicate blocks);
- **server RSS over uploads**: ``--uploads`` distinct archives (remote versions of one bot,
  so nothing is checked and every upload is a roster change: stored, activated, the previous
  version retired, the running executor adopting the change), VmRSS of the server process
  sampled every tenth of them;
- **server RSS over matches**: the league plays on until ``--matches`` results are stored,
  VmRSS of the server (and of its snapshot worker, the process that fits the standings)
  sampled every tenth of them (``hand_cap`` hands a match, 2 in flight: the
  random/greedy sample bots, in the sandbox where bubblewrap works, else as plain processes).

Run it under ``nice`` on a shared machine; the figures are wall-clock and noisy when others
work.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..league.archive import pack

#: seconds any one phase may take before the benchmark gives up
PHASE_S = 3600.0


def _config(hand_cap: int, sandbox: str) -> str:
    return (f'[tournament]\nname = "bench league"\nseed = 1\nconcurrency = 2\n'
            f"[rules]\nhand_cap = {hand_cap}\n[time]\nper_decision_ms = 300\ngrace_ms = 200\n"
            f'[sandbox]\nmode = "{sandbox}"\n'
            "[league]\nsubmissions_per_day = 10000\nfirst_blocks = 2\n")


def python_bot(root: Path, name: str, module: str = "random_bot", *extra: str) -> Path:
    """A participant's Python bot directory ``root/name``: its ``bot.toml`` and a ``bot.py``
    starting the sample bot ``sample_bots.<module>`` with ``extra`` arguments."""
    d = root / name
    d.mkdir(parents=True)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n')
    (d / "bot.py").write_text(f"from sample_bots.{module} import main\nmain({list(extra)!r})\n")
    return d


def _remote_archive(i: int) -> bytes:
    """Upload ``i`` of the RSS phase: a remote bot's manifest and a file of its own."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("bot.toml", b'name = "far"\nremote = true\n'),
                           ("VERSION", f"{i}\n".encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise OSError(f"no VmRSS for process {pid}")


class ServedLeague:
    """``arena league serve DIR --port 0`` in its own session (its URL read from its output,
    every stderr line kept in ``lines``) and an HTTP client of it (the benchmark's and the
    end-to-end tests').

    Raises:
        UserError: it printed no URL within ``start_s`` seconds.
    """

    def __init__(self, directory: Path, start_s: float = 120.0) -> None:
        self.dir = directory
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "league", "serve", str(directory), "--port", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.lines: list[str] = []
        self.url = ""
        got = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line)
                found = re.search(r"served at (http://\S+/) ", line)
                if found:
                    self.url = found[1]
                    got.set()
        threading.Thread(target=read, daemon=True).start()
        if not got.wait(start_s):
            self.stop()
            raise UserError("arena league serve printed no URL:\n" + "".join(self.lines))

    def call(self, path: str, data: bytes | None = None, token: str | None = None,
             content_type: str = "application/gzip") -> tuple[int, Any]:
        """GET ``path`` (POST ``data``): the status and the JSON answer (its text when it is
        not JSON), whatever the status."""
        headers = {"Content-Type": content_type} if data is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, headers=headers,
                                     method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=120) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

    def submit(self, data: bytes, token: str) -> dict[str, Any]:
        status, body = self.call("/api/submissions", data, token)
        if status not in (200, 201):
            raise UserError(f"the league refused a benchmark upload ({status}): {body}")
        return body  # type: ignore[no-any-return]

    def rated(self) -> dict[str, dict[str, Any]]:
        _, body = self.call("/api/standings")
        return {r["name"]: r for r in body["standings"] if r.get("rating") is not None}

    def matches(self) -> int:
        con = sqlite3.connect(self.dir / "results.sqlite", timeout=30)
        try:
            return int(con.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        finally:
            con.close()

    def rss(self) -> float:
        """The server process's VmRSS, MB."""
        return _rss_mb(self.proc.pid)

    def worker_rss(self) -> float:
        """VmRSS of the server's snapshot worker (its standings' fits), MB; 0 when none."""
        for pid in _children(self.proc.pid):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                if b"spawn_main" in cmd:
                    return _rss_mb(pid)
            except OSError:
                continue
        return 0.0

    def kill9(self) -> None:
        """SIGKILL the server's whole session (it and its bots), and reap it."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> int:
        """SIGTERM, and its exit status (SIGKILL after 120 s)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.kill9()
        return self.proc.returncode


def _active(league: ServedLeague, url: str) -> bool:
    return bool(league.call(url)[1]["state"] == "active")


def _played(league: ServedLeague, n: int) -> bool:
    return league.matches() >= n


def _until(what: str, ready: Callable[[], bool], pause_s: float = 0.1) -> float:
    """Seconds until ``ready()`` holds (polled)."""
    t0 = time.monotonic()
    while not ready():
        if time.monotonic() - t0 > PHASE_S:
            raise UserError(f"bench league: {what} took over {PHASE_S:g} s")
        time.sleep(pause_s)
    return time.monotonic() - t0


@dataclass
class LeagueFigures:
    """What :func:`bench_league` measured (seconds, MB)."""

    sandbox: str
    hand_cap: int
    check_s: list[float] = field(default_factory=list)
    first_rated_s: float = 0.0
    join_s: float = 0.0
    upload_rss: list[tuple[int, float]] = field(default_factory=list)
    uploads_s: float = 0.0
    match_rss: list[tuple[int, float]] = field(default_factory=list)
    worker_rss: list[tuple[int, float]] = field(default_factory=list)
    matches_s: float = 0.0

    def lines(self) -> list[str]:
        def series(samples: list[tuple[int, float]]) -> str:
            return ", ".join(f"{n:,}: {mb:.1f}" for n, mb in samples)

        def spread(samples: list[tuple[int, float]]) -> str:
            tail = [mb for _, mb in samples[1:]] or [samples[0][1]]
            return (f"{samples[-1][1] - samples[0][1]:+.1f} MB first to last, "
                    f"{max(tail) - min(tail):.1f} MB spread after the first sample")

        out = [f"league                  : sample bots, hand_cap {self.hand_cap}, 2 matches in "
               f"flight, sandbox {self.sandbox}, first_blocks 2",
               "submission -> active    : " + ", ".join(f"{s:.1f} s" for s in self.check_s)
               + " (the sandboxed check of each of the first 3 bots)",
               f"3rd submission -> rated : {self.first_rated_s:.1f} s (all three on the ladder "
               "with a rating)",
               f"join a running league   : {self.join_s:.1f} s from a 4th bot's upload to its "
               "first rated row"]
        if self.upload_rss:
            n = self.upload_rss[-1][0]
            out += [f"uploads                 : {n:,} in {self.uploads_s:.0f} s "
                    f"({n / self.uploads_s:.0f}/s; remote versions: stored, activated, "
                    "adopted)",
                    f"server RSS over uploads : {series(self.upload_rss)} MB",
                    f"                          {spread(self.upload_rss)}"]
        if self.match_rss:
            n = self.match_rss[-1][0]
            out += [f"matches                 : {n:,} stored, the last "
                    f"{n - self.match_rss[0][0]:,} in {self.matches_s:.0f} s",
                    f"server RSS over matches : {series(self.match_rss)} MB",
                    f"                          {spread(self.match_rss)}",
                    f"its snapshot worker RSS : {series(self.worker_rss)} MB (the standings' "
                    "fits, a process of its own)"]
        return out


def _first_results(league: ServedLeague, root: Path, tokens: dict[str, str],
                   figures: LeagueFigures, on_line: Callable[[str], None]) -> None:
    bots = [("ann", "random", "random_bot", "--seed", "1"), ("ben", "greedy", "greedy_bot"),
            ("cid", "random", "random_bot", "--seed", "2")]
    t_last = 0.0
    for who, name, module, *extra in bots:
        data = pack(python_bot(root / who, name, module, *extra))
        t_last = time.monotonic()
        url = league.submit(data, tokens[who])["url"]
        figures.check_s.append(_until("a check", functools.partial(_active, league, url)))
    _until("the first ratings", lambda: len(league.rated()) >= 3, 0.05)
    figures.first_rated_s = time.monotonic() - t_last
    on_line(f"first ratings {figures.first_rated_s:.1f} s after the third upload")
    data = pack(python_bot(root / "dee", "greedy", "greedy_bot"))
    t0 = time.monotonic()
    league.submit(data, tokens["dee"])
    _until("the fourth bot's rating", lambda: "dee/greedy@1" in league.rated(), 0.05)
    figures.join_s = time.monotonic() - t0
    on_line(f"a 4th bot rated {figures.join_s:.1f} s after its upload")


def _uploads(league: ServedLeague, token: str, uploads: int, figures: LeagueFigures,
             on_line: Callable[[str], None]) -> None:
    step = max(1, uploads // 10)
    figures.upload_rss.append((0, league.rss()))
    t0 = time.monotonic()
    for i in range(1, uploads + 1):
        league.submit(_remote_archive(i), token)
        if i % step == 0:
            figures.upload_rss.append((i, league.rss()))
            on_line(f"{i:,} uploads, server RSS {figures.upload_rss[-1][1]:.1f} MB")
    figures.uploads_s = time.monotonic() - t0


def _matches(league: ServedLeague, matches: int, figures: LeagueFigures,
             on_line: Callable[[str], None]) -> None:
    step = max(1, matches // 10)
    start = league.matches()
    figures.match_rss.append((start, league.rss()))
    figures.worker_rss.append((start, league.worker_rss()))
    t0 = time.monotonic()
    mark = (start // step + 1) * step
    while mark <= matches:
        _until(f"{mark} matches", functools.partial(_played, league, mark), 0.5)
        n = league.matches()
        figures.match_rss.append((n, league.rss()))
        figures.worker_rss.append((n, league.worker_rss()))
        on_line(f"{n:,} matches, server RSS {figures.match_rss[-1][1]:.1f} MB, its worker "
                f"{figures.worker_rss[-1][1]:.1f} MB")
        mark += step
    figures.matches_s = time.monotonic() - t0


def bench_league(uploads: int = 1000, matches: int = 10_000, hand_cap: int = 1,
                 on_line: Callable[[str], None] = lambda text: None) -> LeagueFigures:
    """Run the benchmark (see the module docstring); ``on_line``: progress news.

    Raises:
        UserError: the league did not start or refused an upload, or a phase took over
            :data:`PHASE_S` seconds.
    """
    from ..league.admin import init_league, invite
    from ..sandbox import which
    sandbox = "bwrap" if which.available() else "none"
    figures = LeagueFigures(sandbox, hand_cap)
    root = Path(tempfile.mkdtemp(prefix="arena-bench-league-"))
    league: ServedLeague | None = None
    try:
        (root / "league.toml").write_text(_config(hand_cap, sandbox))
        init_league(root / "L", root / "league.toml")
        tokens = {n: invite(root / "L", n) for n in ("ann", "ben", "cid", "dee")}
        league = ServedLeague(root / "L")
        _first_results(league, root, tokens, figures, on_line)
        if uploads:
            _uploads(league, tokens["dee"], uploads, figures, on_line)
        if matches:
            _matches(league, matches, figures, on_line)
        return figures
    finally:
        if league is not None:
            league.stop()
        shutil.rmtree(root, ignore_errors=True)
