"""The HTTP service: the chapter's routes over a Desk, as one FastAPI application.

Bodies are read as JSON whatever their Content-Type says, because API Gateway
forwards JSON without one, and never beyond a size limit; every error leaves as
``{"error", "message"}`` from one handler, so a code means the same status on
every route.  ``make_app`` is what ``stalwart serve`` runs and what a team
mounts in its own server.
"""

from __future__ import annotations

import hmac
import html
import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Collection
from functools import cache
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from . import feedback, stream
from .desk import Desk
from .errors import BadRequest, Forbidden, PayloadTooLarge, RunWaiting, StalwartError
from .pause import Pause
from .schemas import ConfigOut, FeedbackOut, HealthOut, ReplyOut, Resume, Thumb, Turn, WaitingOut, body_of, errors
from .session import SessionMiddleware, Sessions, digest
from .signature import verify_signature

MAX_BODY = 64 * 1024
ROUTES = ("interface", "messages", "interrupts", "resume", "stream", "rollback", "feedback", "healthz", "config")
log = logging.getLogger("stalwart_agents")

STATUS = {
    "bad_request": 400,
    "bad_signature": 401,
    "forbidden": 403,
    "not_found": 404,
    "interrupt_stale": 409,
    "run_waiting": 409,
    "run_busy": 409,
    "payload_too_large": 413,
    "storage_unavailable": 503,
}

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "font-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'; object-src 'none'"
)
SECURE = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<script type="module" src="{base}/agent-ui.js"></script></head>
<body><main><stalwart-chat base="{base}"></stalwart-chat></main></body></html>
"""
BUNDLE = "agent-ui.js"

OnInterrupt = Callable[[str, Pause], object]


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
) -> FastAPI:
    """The service for a file of agents (or a Desk already loaded).

    ``on_interrupt(thread, pause)`` is told of each new pause (``Webhook(url, secret)`` is one);
    with ``secret`` set, a resume must carry a valid ``Stalwart-Signature`` over its body;
    ``operator_token`` turns the rollback route on; ``stream_mode="once"`` sends what the
    stream has and closes, for hosts that buffer responses; ``routes`` names the routes to
    serve (all of ``ROUTES`` by default; a Lambda serves one).
    """
    unknown = set(routes) - set(ROUTES)
    if unknown:
        raise ValueError(f"no such route: {', '.join(sorted(unknown))}; the routes are {', '.join(ROUTES)}")
    desk = config if isinstance(config, Desk) else Desk.from_file(config, storage)
    if on_interrupt is not None:
        desk.on_interrupt = on_interrupt
    agent_name = desk.agent(agent).name
    app = FastAPI(title="stalwart-agents", version="0.1.0", description="People in the loop: pauses, answers, rollbacks.")
    app.add_middleware(SessionMiddleware, sessions=Sessions(desk.storage.secret("session", secrets.token_hex(32))))
    _handle_errors(app)

    @app.get("/", response_class=HTMLResponse, name="interface")
    def interface(request: Request) -> HTMLResponse:
        base = html.escape(request.scope.get("root_path", "").rstrip("/"), quote=True)
        return HTMLResponse(PAGE.format(name=html.escape(agent_name), base=base), headers=SECURE)

    @app.get(f"/{BUNDLE}", name="interface", include_in_schema=False)
    def interface_bundle() -> Response:
        """@stalwart-agents/agent-ui, built into the package: the interface needs no Node at run time."""
        return Response(_bundle(), media_type="text/javascript", headers={**SECURE, "Cache-Control": "public, max-age=300"})

    @app.post("/threads/{thread}/messages", name="messages", response_model=ReplyOut, openapi_extra=body_of(Turn), responses=errors(400, 409, 413, 503))
    async def messages(thread: str, request: Request) -> JSONResponse:
        turn = _parsed(Turn, await _raw(request))
        reply = await run_in_threadpool(desk.send, thread, turn.text, agent=agent_name, session=_session(request))
        return JSONResponse(reply.to_dict())

    @app.get("/threads/{thread}/interrupts", name="interrupts", response_model=WaitingOut, responses=errors(400, 503))
    async def interrupts(thread: str) -> dict[str, Any]:
        waiting = await run_in_threadpool(desk.waiting, thread)
        missed = [{"interrupt": p.id, "error": p.delivery.get("error")} for p in waiting if p.delivery and not p.delivery["delivered"]]
        return {"thread": thread, "waiting": [pause.to_dict() for pause in waiting], "not_notified": missed}

    @app.post("/threads/{thread}/resume", name="resume", response_model=ReplyOut, openapi_extra=body_of(Resume), responses=errors(400, 401, 404, 409, 413, 503))
    async def resume(thread: str, request: Request) -> JSONResponse:
        raw = await _raw(request)
        if secret is not None:
            verify_signature(secret, request.headers.get("stalwart-signature"), raw)
        body = _parsed(Resume, raw)
        reply = await run_in_threadpool(
            desk.confirm, thread, body.decision, waiting=body.interrupt_id, value=body.value, token=body.token,
            channel="signed" if secret is not None else "http", by=f"session:{_session(request)[:16]}", session=_session(request),
        )
        return JSONResponse(reply.to_dict())

    @app.get("/threads/{thread}/stream", name="stream", responses={200: {"content": {"text/event-stream": {}}}})
    async def steps(thread: str, request: Request) -> Response:
        read = _reader(desk, thread)
        after = stream.cursor(request)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        if stream_mode == "once":
            body = await run_in_threadpool(stream.once, read, after)
            return Response(body, media_type="text/event-stream", headers=headers)
        from sse_starlette import EventSourceResponse

        return EventSourceResponse(stream.live(read, after), ping=15, headers=headers)

    @app.post("/threads/{thread}/rollback", name="rollback", response_model=ReplyOut, responses=errors(403, 404, 409, 503))
    async def rollback(thread: str, request: Request) -> JSONResponse:
        _operator(request, operator_token)
        reply = await run_in_threadpool(desk.rollback, thread, session=_session(request))
        return JSONResponse(reply.to_dict())

    @app.post("/threads/{thread}/feedback", name="feedback", response_model=FeedbackOut, openapi_extra=body_of(Thumb), responses=errors(400, 403, 413, 503))
    async def thumb(thread: str, request: Request) -> dict[str, str]:
        body = _parsed(Thumb, await _raw(request))
        kept = await run_in_threadpool(feedback.rate, desk.storage, body.message, body.thumb, _session(request), time.time())
        return {"message": kept.message, "thumb": kept.thumb}

    @app.get("/healthz", name="healthz", response_model=HealthOut, responses=errors(503))
    async def healthz() -> dict[str, bool]:
        await run_in_threadpool(desk.storage.get_run, "healthz")
        return {"ok": True}

    @app.get("/config.json", name="config", response_model=ConfigOut)
    def config_json(request: Request) -> dict[str, str]:
        return {"agent": agent_name, "base": request.scope.get("root_path", "")}

    _keep(app, routes)
    app.state.desk = desk
    return app


def _keep(app: FastAPI, routes: Collection[str]) -> None:
    """Serve only the named routes (and the OpenAPI document); a Lambda serves one."""
    app.router.routes = [r for r in app.router.routes if getattr(r, "name", None) in routes or not isinstance(r, APIRoute)]


@cache
def _bundle() -> bytes:
    """Read from the package once per process, not on every request."""
    return resources.files(__package__).joinpath("static", BUNDLE).read_bytes()


def _reader(desk: Desk, thread: str) -> stream.Read:
    return lambda after, limit: desk.events(thread, after=after, limit=limit)


def _session(request: Request) -> str:
    """The digest of the request's session: what the store keeps of it."""
    return digest(request.state.session)


def _operator(request: Request, token: str | None) -> None:
    if not token:
        raise Forbidden("the rollback route is off: start the service with --operator-token, or set QLS_OPERATOR_TOKEN")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise Forbidden("rolling a thread back needs Authorization: Bearer <operator token>")


async def _raw(request: Request) -> bytes:
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise PayloadTooLarge(f"a request body may be at most {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise PayloadTooLarge(f"a request body may be at most {MAX_BODY} bytes")
    return bytes(body)


def _parsed(model: type[BaseModel], raw: bytes) -> Any:
    try:
        data = json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"the body is not valid JSON: {str(exc)[:200]}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors()[:5])
        raise BadRequest(f"the body is not what this route takes: {problems}") from None


def _handle_errors(app: FastAPI) -> None:
    app.add_exception_handler(StalwartError, _stalwart_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


def _error(code: str, message: str, status: int, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": code, "message": message, **extra}, status_code=status, headers=headers)


def _stalwart_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StalwartError)
    extra = {"waiting": [w.to_dict() for w in exc.waiting]} if isinstance(exc, RunWaiting) else {}
    return _error(exc.code, exc.message, STATUS.get(exc.code, 500), **extra)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    return _error(code, str(exc.detail), exc.status_code, headers=exc.headers)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    return _error("bad_request", "the request is not what this route takes", 400)


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return _error("internal", "the service failed on this request; its log has the details", 500)
