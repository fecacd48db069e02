"""The league's HTTP API and its pages, beside the live page of :mod:`arena.web`.

- ``POST /api/submissions`` (``Authorization: Bearer TOKEN``): a bot directory as one
  gzip-compressed tar archive, either the request body itself (``Content-Type:
  application/gzip``) or the ``archive`` file of a ``multipart/form-data`` form (with an
  optional ``name`` field); ``?name=NAME`` names the bot instead of its manifest. Answers
  ``201`` with the new submission (``200`` when the same files were sent before), ``400`` with
  the reason for a refused archive or manifest, ``401``/``403`` without a participant's token,
  ``413`` for an upload over ``max_upload_mib``, ``429`` over a quota. A remote submission's
  answer holds its connection token, once (``bot_token``), and where it connects
  (``arena_address``, ``HOST:PORT``; null while no match runs).
- ``GET /api/submissions/ID``: its state (``queued``, ``checking``, ``rejected`` with the
  reason, ``active``, ``retired``); with the owner's token also the check's report (and
  a remote version's ``arena_address``).
- ``GET /api/standings``: the ladder (rows as in ``standings.json``, each with ``bot``,
  ``version``, ``owner``, ``status``).
- ``GET /bots/OWNER/BOT``: a page per bot (:mod:`.pages`): its versions, their ratings over
  time, recent matches with replay links (whole blocks only), faults and forfeit reasons;
  ``GET /api/bots/OWNER/BOT/log`` (the owner's token): the tail of its log.
- ``GET /submissions``: the submissions and their states.

Every answer is JSON or escaped HTML; nothing is served by a client-supplied path.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..tournament.standings import compute_standings, format_standings
from ..tournament.store import ResultRow
from . import pages
from .service import LeagueError, LeagueService
from .store import Submission
from .tokens import bearer

if TYPE_CHECKING:
    from ..web.state import LiveState

log = logging.getLogger("arena.league")


def _submission_json(sub: Submission, *, owner_view: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sub.id, "owner": sub.owner, "bot": sub.bot,
                           "state": sub.state, "version": sub.version, "name": sub.full_name,
                           "remote": sub.remote, "created_at": sub.created_at,
                           "updated_at": sub.updated_at, "url": f"/api/submissions/{sub.id}"}
    if sub.state == "rejected" or owner_view:
        out["reason"] = sub.reason
    if owner_view and sub.report:
        out["report"] = json.loads(sub.report)
    return out


def _error(exc: LeagueError) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


#: an upload over the cap is still read (and dropped) up to this many times the cap, so the
#: client, busy sending, reads the 413 instead of a connection reset; beyond, it is cut off
DRAIN_FACTOR = 4


async def _too_large(request: Request, cap: int, seen: int = 0) -> LeagueError:
    """The 413 of an upload over ``cap`` bytes, once the rest of its body is dropped."""
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > DRAIN_FACTOR * cap:
            break
    return LeagueError(f"the upload is over {cap >> 20} MiB", 413)


async def _body(request: Request, cap: int) -> tuple[bytes, str | None]:
    """The archive's bytes and the optional name of a form (413 past ``cap`` bytes)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap + (64 << 10):
        raise await _too_large(request, cap)
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/form-data"):
        form = await request.form(max_files=1, max_fields=4, max_part_size=1 << 16)
        upload = form.get("archive")
        if upload is None or isinstance(upload, str):
            raise LeagueError("the form has no 'archive' file")
        data = await upload.read(cap + 1)
        name = form.get("name")
        await form.close()
        if len(data) > cap:
            raise LeagueError(f"the upload is over {cap >> 20} MiB", 413)
        return data, name if isinstance(name, str) and name else None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise await _too_large(request, cap, size)
        chunks.append(chunk)
    return b"".join(chunks), None


def _guarded(handler: Callable[[Request], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` answering an unexpected error with a plain ``500`` (the error logged to the
    league's arena.log, once), never a traceback on the terminal."""
    @functools.wraps(handler)
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception:
            log.exception("league API: %s %s failed", request.method, request.url.path)
            return JSONResponse({"error": "internal error (logged by the league)"},
                                status_code=500)
    return guarded


def routes(service: LeagueService, state: LiveState) -> list[Route]:
    """The API's and pages' routes over ``service`` (``state``: the live page's)."""

    async def submit(request: Request) -> Response:
        try:
            owner = service.participant(bearer(request.headers.get("authorization")))
            data, form_name = await _body(request, service.cfg.league.max_upload_mib << 20)
            name = request.query_params.get("name") or form_name
            checked, manifest = await asyncio.to_thread(service.inspect_upload, data)
            accepted = await service.accept(owner, checked, manifest, data, name)
        except LeagueError as exc:
            return _error(exc)
        body = _submission_json(accepted.submission, owner_view=True)
        if accepted.bot_token:
            body["bot_token"] = accepted.bot_token
        if accepted.submission.remote:
            body["arena_address"] = service.arena_address()
        return JSONResponse(body, status_code=201 if accepted.new else 200)

    async def submission(request: Request) -> Response:
        try:
            sid = int(request.path_params["sid"])
        except ValueError:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        sub = service.st.submission(sid)
        if sub is None:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        token = bearer(request.headers.get("authorization"))
        try:
            owner_view = token is not None and service.participant(token) == sub.owner
        except LeagueError:
            owner_view = False
        body = _submission_json(sub, owner_view=owner_view)
        if owner_view and sub.remote:
            body["arena_address"] = service.arena_address()
        return JSONResponse(body)

    async def standings(request: Request) -> Response:
        versions = {s.full_name: s for s in service.st.submissions()
                    if s.full_name is not None}
        results = service.st.store.results()
        status = {n: service.status(s) for n, s in versions.items()}
        rows = await asyncio.to_thread(_standings, versions, results, status)
        return JSONResponse(rows)

    async def bot_page(request: Request) -> Response:
        owner, bot = request.path_params["owner"], request.path_params["bot"]
        html = pages.bot_page(service, state, owner, bot)
        if html is None:
            return PlainTextResponse("no such bot", status_code=404)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def bot_log(request: Request) -> Response:
        owner, bot = request.path_params["owner"], request.path_params["bot"]
        try:
            who = service.participant(bearer(request.headers.get("authorization")))
        except LeagueError as exc:
            return _error(exc)
        if who != owner:
            return JSONResponse({"error": "only the bot's owner reads its log"},
                                status_code=403)
        tails = {s.full_name: state.log_tail(s.full_name or "")
                 for s in service.st.submissions(owner) if s.bot == bot and s.full_name}
        return JSONResponse({"logs": tails})

    async def submissions_page(request: Request) -> Response:
        return HTMLResponse(pages.submissions_page(service), headers={"Cache-Control":
                                                                      "no-store"})

    return [Route("/api/submissions", _guarded(submit), methods=["POST"]),
            Route("/api/submissions/{sid:str}", _guarded(submission)),
            Route("/api/standings", _guarded(standings)),
            Route("/api/bots/{owner:str}/{bot:str}/log", _guarded(bot_log)),
            Route("/bots/{owner:str}/{bot:str}", _guarded(bot_page)),
            Route("/submissions", _guarded(submissions_page))]


def _standings(versions: dict[str, Submission], results: list[ResultRow],
               status: dict[str, str]) -> dict[str, Any]:
    """The ladder: standings.json's rows, each with the version's bot, version, owner and
    status (active, retired, offline, disqualified). CPU only (the fit): run in a worker
    thread."""
    played = {n for r in results for n in r.players}
    names = [n for n, s in versions.items() if s.state == "active" or n in played]
    standings = compute_standings(results, names) if results else None
    data = json.loads(format_standings(standings, "json")) if standings else {
        "standings": [], "notes": []}
    for row in data["standings"]:
        sub = versions.get(row["bot"])
        if sub is None:
            continue
        row.update({"name": row["bot"], "bot": sub.bot, "version": sub.version,
                    "owner": sub.owner, "status": status.get(row["bot"], sub.state)})
    return data
