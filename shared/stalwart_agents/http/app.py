"""The HTTP service: the routes over a Desk, as one FastAPI application.

Every request crosses the browser boundary first (``boundary.py``: allowed
hosts, allowed origins, JSON bodies only).  Every thread route then asks who
the caller is (``auth.py``) and lets them into the thread only if it is theirs;
another person's thread answers 404, as one that does not exist.  Bodies are
strict JSON within a size limit (``body.py``); every error leaves as
``{"error", "message"}`` from one handler, so a code means the same status on
every route.  ``make_app`` is what ``stalwart serve`` runs and what a team
mounts in its own server.
"""

from __future__ import annotations

import hmac
import html
import logging
import os
import secrets
import time
from collections.abc import Callable, Collection, Mapping
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware

from .. import logs
from ..approvals.inbox import CURSOR_PATTERN, MAX_LIMIT, TOOL_PATTERN, Inbox, not_notified
from ..approvals.links import DEFAULT_HOURS
from ..approvals.principal import Principal
from ..approvals.rules import owner_of, owns
from ..approvals.signature import verify_signature
from ..desk import Desk
from ..engine.pause import Pause
from ..engine.reply import Reply
from ..errors import Forbidden, RunWaiting, StalwartError, Unauthorized
from ..vocabulary import PauseKind
from . import feedback, stream
from .auth import Auth, NoAuth, bearer
from .body import parsed, raw
from .boundary import LOOPBACK_HOSTS, Boundary
from .json_answer import JsonAnswer
from .schemas import (
    ConfigOut,
    FeedbackOut,
    HealthOut,
    InboxOut,
    ReplyOut,
    Resume,
    Thread,
    Thumb,
    Turn,
    WaitingOut,
    answers,
    body_of,
    errors,
)
from .session import HEADER as SESSION_HEADER
from .session import SessionMiddleware, Sessions, digest
from .ticket import HEADER as TICKET_HEADER
from .ticket import Tickets

ROUTES = (
    "interface",
    "messages",
    "interrupts",
    "resume",
    "stream",
    "rollback",
    "feedback",
    "healthz",
    "config",
    "links",
)
log = logging.getLogger("stalwart_agents")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "font-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'; object-src 'none'"
)
SECURE = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<link rel="icon" href="{base}/favicon.ico" type="image/svg+xml">
<script type="module" src="{base}/agent-ui.js"></script></head>
<body><main><stalwart-chat base="{base}" data-signin="fragment"></stalwart-chat></main></body></html>
"""
INBOX_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}: inbox</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<link rel="icon" href="{base}/favicon.ico" type="image/svg+xml">
<script type="module" src="{base}/agent-ui.js"></script></head>
<body><main><stalwart-inbox base="{base}" data-signin="fragment"></stalwart-inbox></main></body></html>
"""
BUNDLE = "agent-ui.js"
ICON = "favicon.svg"
EXAMPLES = 4
"""Example turns ``/config.json`` offers at most: one per tool, as many as a person takes in at a glance."""
PUBLIC = ("/", "/inbox", f"/{BUNDLE}", "/favicon.ico", "/healthz", "/config.json", "/openapi.json", "/links/*")
"""Paths a plain GET may reach from any site: a link to the interface, the inbox or a signed link opens it."""
OPERATOR_HEADER = "Stalwart-Operator-Token"

OnInterrupt = Callable[[str, Pause], object]
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def make_app(
    config: str | os.PathLike[str] | Desk,
    *,
    storage: str | None = None,
    agent: str | None = None,
    on_interrupt: OnInterrupt | None = None,
    secret: str | None = None,
    operator_token: str | None = None,
    stream_mode: Literal["live", "once"] = "live",
    routes: Collection[str] = ROUTES,
    auth: Auth | None = None,
    allowed_hosts: Collection[str] | None = None,
    allowed_origins: Collection[str] = (),
    public_url: str | None = None,
    link_hours: float = DEFAULT_HOURS,
    links_alone: bool = False,
) -> FastAPI:
    """The service for a file of agents (or a Desk already loaded).

    ``on_interrupt(thread, pause)`` is told of each new pause (``Webhook(url, secret)`` is one;
    a ``redeliver.Redeliverer`` started with the app retries those that failed);
    with ``secret`` set, a resume from no one signed in must carry a valid ``Stalwart-Signature``
    over its body (one from a signed-in person is theirs, as every other route's is);
    ``operator_token`` turns the rollback route on; ``stream_mode="once"`` sends what the
    stream has and closes, for hosts that buffer responses; ``routes`` names the routes to
    serve (all of ``ROUTES`` by default; a Lambda serves one).

    ``auth`` tells who a request is from (``NoAuth()`` by default: one anonymous person,
    right only on loopback); ``allowed_hosts`` are the names the service answers for
    (loopback's by default; ``"*"`` for any, where a proxy already checks); ``allowed_origins``
    are the other sites whose pages may call it, and the only ones given CORS.

    ``public_url`` is the address people reach the service by: with it, the deliveries of an
    ``on_interrupt`` webhook carry signed links, good for ``link_hours``, which the ``links``
    route answers; ``links_alone`` lets a link answer without signing in (docs/links.md).
    """
    unknown = set(routes) - set(ROUTES)
    if unknown:
        raise ValueError(f"no such route: {', '.join(sorted(unknown))}; the routes are {', '.join(ROUTES)}")
    origins = _origins(allowed_origins)
    desk = config if isinstance(config, Desk) else Desk.from_file(config, storage)
    if on_interrupt is not None:
        desk.on_interrupt = on_interrupt
    auth = auth or NoAuth()
    agent_name = desk.agent(agent).name
    shown = _config_json(desk, agent_name) if "config" in routes else {}
    key = desk.storage.secret("session", secrets.token_hex(32))
    tickets = Tickets(key.encode())
    # No /docs or /redoc: FastAPI's pages load their scripts from a CDN, which would run on the service's origin.
    app = FastAPI(
        title="stalwart-agents",
        version="0.1.0",
        description="People in the loop: pauses, answers, rollbacks.",
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(SessionMiddleware, sessions=Sessions(key))
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            max_age=600,
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Last-Event-ID",
                SESSION_HEADER,
                OPERATOR_HEADER,
                "Stalwart-Signature",
            ],
            expose_headers=[SESSION_HEADER, TICKET_HEADER],
        )
    app.add_middleware(
        Boundary, hosts=LOOPBACK_HOSTS if allowed_hosts is None else allowed_hosts, origins=origins, public=PUBLIC
    )
    app.add_middleware(logs.RequestLog, routes=lambda: app.router.routes)
    _handle_errors(app)
    route = _Declare(app, routes)

    def enter(request: Request, thread: str) -> Principal:
        """Who calls, let into the thread only if it is theirs."""
        who = auth.principal(request)
        desk.enter(thread, who.key)
        return who

    def admit(request: Request, thread: str) -> Principal:
        """Who calls, let in to read and answer what waits: the owner, or someone the approver rules allow."""
        who = auth.principal(request)
        desk.admit(thread, who)
        return who

    def admit_to_answer(request: Request, thread: str, body: bytes) -> tuple[Principal, Resume, str | None]:
        """Who calls, what they answer and the thread's owner, let in as ``admit`` does; also someone who may answer
        the pause they name though another answered it first, who is then told so (409), not that the thread does
        not exist."""
        who = auth.principal(request)
        answer = parsed(Resume, body)
        owner = desk.admit(thread, who, pause=answer.interrupt_id)
        return who, answer, owner

    def enter_stream(request: Request, thread: str) -> None:
        """The stream takes a ticket minted for this thread and person, or a token like every other route."""
        ticket = request.query_params.get("ticket")
        if ticket is None:
            enter(request, thread)
            return
        owner = tickets.owner(ticket, thread, time.time())
        if owner is None:
            raise Unauthorized(
                "this stream ticket is not valid for this thread, or has expired; read what waits again for a new one"
            )
        desk.enter(thread, owner)

    def ticketed(body: dict[str, Any], thread: str, who: Principal) -> JSONResponse:
        """An answer on a thread, with a ticket to open its stream (an EventSource cannot send a token)."""
        return JsonAnswer(body, headers={TICKET_HEADER: tickets.mint(thread, who.key, time.time())})

    @route("interface", "GET", "/", response_class=HTMLResponse)
    def interface(request: Request) -> HTMLResponse:
        return _page(PAGE, request, agent_name)

    @route("interface", "GET", "/inbox", response_class=HTMLResponse)
    def inbox_page(request: Request) -> HTMLResponse:
        """Every pause the signed-in person may answer, across threads: an approver's desk."""
        return _page(INBOX_PAGE, request, agent_name)

    @route("interface", "GET", f"/{BUNDLE}", include_in_schema=False)
    def interface_bundle() -> Response:
        """@stalwart-agents/agent-ui, built into the package: the interface needs no Node at run time."""
        return Response(
            _static(BUNDLE), media_type="text/javascript", headers={**SECURE, "Cache-Control": "public, max-age=300"}
        )

    @route("interface", "GET", "/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """The page's icon, so a browser's request for it is answered, not a 404."""
        return Response(
            _static(ICON), media_type="image/svg+xml", headers={**SECURE, "Cache-Control": "public, max-age=86400"}
        )

    @route(
        "messages",
        "POST",
        "/threads/{thread}/messages",
        body=Turn,
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 404, 409, 413, 415, 503),
    )
    async def messages(thread: Thread, request: Request) -> JSONResponse:
        body = await raw(request)

        def send() -> JSONResponse:
            who = auth.principal(request)
            turn = parsed(Turn, body)
            reply = desk.send(thread, turn.text, agent=agent_name, session=_session(request), owner=who.key)
            return ticketed(reply.to_dict(), thread, who)

        return await run_in_threadpool(send)

    @route(
        "interrupts",
        "GET",
        "/threads/{thread}/interrupts",
        response_model=None,
        responses=answers(WaitingOut, 400, 401, 404, 503),
    )
    async def interrupts(thread: Thread, request: Request) -> JSONResponse:
        def read() -> tuple[Principal, list[Pause]]:
            who = admit(request, thread)
            return who, desk.waiting(thread, who)

        who, waiting = await run_in_threadpool(read)
        return ticketed(
            {
                "thread": thread,
                "waiting": [pause.to_dict() for pause in waiting],
                "not_notified": not_notified(waiting),
            },
            thread,
            who,
        )

    @route(
        "interrupts",
        "GET",
        "/interrupts",
        response_model=None,
        responses=answers(InboxOut, 400, 401, 503),
    )
    async def inbox(
        request: Request,
        kind: PauseKind | None = None,
        tool: str | None = Query(None, pattern=TOOL_PATTERN, description="only pauses about this tool"),
        cursor: str | None = Query(None, pattern=CURSOR_PATTERN, description="the `next` of the page before"),
        limit: int = Query(50, ge=1, le=MAX_LIMIT),
    ) -> JSONResponse:
        """Every open pause the caller may answer, across threads, newest first; ``next`` reads on."""

        def read() -> Inbox:
            who = auth.principal(request)
            return desk.inbox(who, kind=kind, tool=tool, cursor=cursor, limit=limit)

        return JsonAnswer((await run_in_threadpool(read)).to_dict())

    @route(
        "resume",
        "POST",
        "/threads/{thread}/resume",
        body=Resume,
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 404, 409, 413, 415, 503),
    )
    async def resume(thread: Thread, request: Request) -> JSONResponse:
        body = await raw(request)

        def confirm() -> JSONResponse:
            who, answer, owner = admit_to_answer(request, thread, body)
            signed = _signed_resume(secret, who, request.headers.get("stalwart-signature"), body)
            reply = desk.confirm(
                thread,
                answer.decision,
                waiting=answer.interrupt_id,
                value=answer.value,
                token=answer.token,
                channel="signed" if signed else "http",
                principal=who,
                session=_session(request),
            )
            seen = seen_by(desk, reply, who, owner)
            if seen is not reply:  # an approver's: no ticket, since the thread's stream is its owner's
                return JsonAnswer(seen.to_dict())
            return ticketed(reply.to_dict(), thread, who)

        return await run_in_threadpool(confirm)

    @route(
        "stream",
        "GET",
        "/threads/{thread}/stream",
        responses={200: {"content": {"text/event-stream": {}}}, **errors(400, 401, 404, 503)},
    )
    async def steps(thread: Thread, request: Request) -> Response:
        await run_in_threadpool(enter_stream, request, thread)
        read = _reader(desk, thread)
        after = stream.cursor(request)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        if stream_mode == "once":
            body = await run_in_threadpool(stream.once, read, after)
            return Response(body, media_type="text/event-stream", headers=headers)
        from sse_starlette import EventSourceResponse

        return EventSourceResponse(stream.live(read, after), ping=15, headers=headers)

    @route(
        "rollback",
        "POST",
        "/threads/{thread}/rollback",
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 403, 404, 409, 415, 503),
    )
    async def rollback(thread: Thread, request: Request) -> JSONResponse:
        await run_in_threadpool(auth.principal, request)
        _operator(request, operator_token)
        reply = await run_in_threadpool(desk.rollback, thread, session=_session(request))
        return JsonAnswer(reply.to_dict())

    @route(
        "feedback",
        "POST",
        "/threads/{thread}/feedback",
        body=Thumb,
        response_model=FeedbackOut,
        responses=errors(400, 401, 403, 404, 413, 415, 503),
    )
    async def thumb(thread: Thread, request: Request) -> dict[str, str]:
        await run_in_threadpool(enter, request, thread)
        body = parsed(Thumb, await raw(request))
        kept = await run_in_threadpool(
            feedback.rate, desk.storage, thread, body.message, body.thumb, _session(request), time.time()
        )
        return {"message": kept.message, "thumb": kept.thumb}

    @route("healthz", "GET", "/healthz", response_model=HealthOut, responses=errors(503))
    async def healthz() -> dict[str, bool]:
        await run_in_threadpool(desk.storage.get_run, "healthz")
        return {"ok": True}

    @route("config", "GET", "/config.json", response_model=ConfigOut)
    def config_json(request: Request) -> dict[str, object]:
        """What the interface shows before the first turn: the agent, what it does, and turns it reads."""
        return {**shown, "base": request.scope.get("root_path", "")}

    if public_url is not None:
        _serve_links(app, desk, auth, routes, public_url, link_hours, links_alone)
    _no_422(app)
    app.state.desk = desk
    return app


def _serve_links(
    app: FastAPI, desk: Desk, auth: Auth, routes: Collection[str], public_url: str, hours: float, alone: bool
) -> None:
    """Signed links in the webhook's deliveries, and their pages where the ``links`` route is served."""
    from ..approvals.links import Links
    from ..approvals.webhook import Webhook
    from .link_page import add_link_routes

    links = Links(desk.storage, public_url, hours=hours, clock=desk.clock)
    if isinstance(desk.on_interrupt, Webhook) and desk.on_interrupt.links is None:
        desk.on_interrupt.links = links
    if "links" in routes:
        add_link_routes(app, desk, links, auth, alone=alone)
    app.state.links = links


def as_seen_by(desk: Desk, reply: Reply, who: Principal) -> Reply:
    """The reply to ``who``'s answer: the whole of it for the thread's owner (or a link, which stands for them);
    for an approver in another person's conversation, what became of the call they answered and what now waits
    for them, never the owner's other results or words."""
    return seen_by(desk, reply, who, owner_of(desk.storage, reply.thread))


def seen_by(desk: Desk, reply: Reply, who: Principal, owner: str | None) -> Reply:
    """``as_seen_by`` where the thread's owner (a principal's key) was read already: it never changes."""
    if owns(who, owner):
        return reply
    step = reply.answered.step if reply.answered is not None else None
    return reply.seen_by_approver(step, lambda pause: desk.may_answer(pause, who, owner))


def _config_json(desk: Desk, name: str) -> dict[str, object]:
    """The agent's name, its description ("" where it has none) and a few turns made from its tools' patterns."""
    return {
        "agent": name,
        "description": desk.config.agent(name).description or "",
        "examples": desk.agent(name).selector.examples(EXAMPLES),
    }


def _page(template: str, request: Request, name: str) -> HTMLResponse:
    base = html.escape(request.scope.get("root_path", "").rstrip("/"), quote=True)
    return HTMLResponse(template.format(name=html.escape(name), base=base), headers=SECURE)


def _no_422(app: FastAPI) -> None:
    """FastAPI documents a 422 on every route with parameters; this service answers 400 ``bad_request`` instead."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for operation in (op for path in schema.get("paths", {}).values() for op in path.values()):
                operation.get("responses", {}).pop("422", None)
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _origins(origins: Collection[str]) -> list[str]:
    """Each allowed origin as a browser sends it: ``scheme://host[:port]``, nothing more, never ``null``."""
    listed = []
    for origin in origins:
        scheme, _, rest = origin.partition("://")
        if scheme not in ("http", "https") or not rest or any(c in rest for c in "/?#@*"):
            raise ValueError(f"an allowed origin is scheme://host[:port], like https://shop.example; not {origin!r}")
        listed.append(f"{scheme}://{rest.lower()}")
    return listed


class _Declare:
    """Declares a route only where it is served (a Lambda serves one): a route never declared never builds its
    models, which FastAPI otherwise builds for every route it is given, served or not."""

    def __init__(self, app: FastAPI, routes: Collection[str]) -> None:
        self.app, self.routes = app, routes

    def __call__(
        self, name: str, method: str, path: str, *, body: type[BaseModel] | None = None, **options: Any
    ) -> Callable[[Endpoint], Endpoint]:
        if name not in self.routes:
            return _undeclared
        if body is not None:
            options["openapi_extra"] = body_of(body)
        return self.app.api_route(path, methods=[method], name=name, **options)


def _undeclared(endpoint: Endpoint) -> Endpoint:
    return endpoint


@cache
def _static(name: str) -> bytes:
    """A file of the package's ``static/``, read once per process, not on every request."""
    return resources.files("stalwart_agents").joinpath("static", name).read_bytes()


def _reader(desk: Desk, thread: str) -> stream.Read:
    return lambda after, limit: desk.events(thread, after=after, limit=limit)


def _signed_resume(secret: str | None, who: Principal, signature: str | None, body: bytes) -> bool:
    """Whether a resume came signed; refused when it must be and is not.

    A signature is what a channel without a signed-in person (a chat bridge, a mail
    link) proves itself with; a signed-in person's resume is authenticated as theirs,
    so the interface keeps working where a resume secret is set.
    """
    if secret is None or (who.verified and signature is None):
        return False
    verify_signature(secret, signature, body)
    return True


def _session(request: Request) -> str:
    """The digest of the request's session: what the store keeps of it."""
    return digest(request.state.session)


def _operator(request: Request, token: str | None) -> None:
    """The operator token, from its own header (where Authorization carries a person's token) or as the bearer."""
    if not token:
        raise Forbidden("the rollback route is off: start the service with --operator-token, or set QLS_OPERATOR_TOKEN")
    given = [request.headers.get(OPERATOR_HEADER, ""), bearer(request)]
    if not any(g and hmac.compare_digest(g.encode(), token.encode()) for g in given):
        raise Forbidden(
            f"rolling a thread back needs the operator token, as {OPERATOR_HEADER} or Authorization: Bearer"
        )


def _handle_errors(app: FastAPI) -> None:
    app.add_exception_handler(StalwartError, _stalwart_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


def _error(
    code: str, message: str, status: int, headers: Mapping[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JsonAnswer({"error": code, "message": message, **extra}, status_code=status, headers=headers)


def _stalwart_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StalwartError)
    extra = {"waiting": [w.to_dict() for w in exc.waiting]} if isinstance(exc, RunWaiting) else {}
    challenge = None
    if isinstance(exc, Unauthorized):
        challenge = {"WWW-Authenticate": 'Bearer error="invalid_token"' if exc.invalid_token else "Bearer"}
    return _error(exc.code, exc.message, exc.status, challenge, **extra)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    return _error(code, str(exc.detail), exc.status_code, headers=exc.headers)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    return _error("bad_request", "the request is not what this route takes", 400)


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    route = getattr(request.scope.get("route"), "path", logs.UNMATCHED)  # the template: a link's path is a capability
    log.exception("unexpected error on %s %s", request.method, route)
    return _error("internal", "the service failed on this request; its log has the details", 500)
