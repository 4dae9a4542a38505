"""The edge every app of the service stands behind, whichever door answers it.

The browser boundary, sessions, CORS for the origins a team lists, the request
log, one handler per error (so a code means the same status on every route),
the operator token, and a resume's signature.  ``guard`` puts the one pass
that logs, checks and gives sessions (``crossing.py``) on an app.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.routing import Match
from starlette.types import ASGIApp

from .. import telemetry
from ..approvals.principal import Principal
from ..approvals.signature import verify_signature
from ..errors import Forbidden, RunWaiting, StalwartError, Unauthorized
from .auth import bearer
from .boundary import LOOPBACK_HOSTS, Boundary
from .crossing import Crossing
from .json_answer import JsonAnswer
from .matched import UNMATCHED
from .schemas import NOT_TAKEN
from .session import HEADER as SESSION_HEADER
from .session import Sessions, digest
from .ticket import HEADER as TICKET_HEADER

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "CSP",
    "OPERATOR_HEADER",
    "PUBLIC",
    "SECURE",
    "allowed_origins",
    "check_operator",
    "guard",
    "handle_errors",
    "is_operator",
    "no_422",
    "session_of",
    "signed_resume",
]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "font-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'; object-src 'none'"
)
SECURE = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
PUBLIC = ("/", "/inbox", "/agent-ui.js", "/favicon.ico", "/healthz", "/config.json", "/openapi.json", "/links/*")
"""Paths a plain GET may reach from any site: a link to the interface, the inbox or a signed link opens it."""
OPERATOR_HEADER = "Stalwart-Operator-Token"
log = logging.getLogger("stalwart_agents")


def guard(
    app: Starlette,
    sessions: Sessions,
    hosts: Collection[str] | None,
    origins: list[str],
    *,
    signed: Collection[str] = (),
) -> None:
    """The edge's one pass (the request log, the boundary, CORS for the listed origins, the session:
    ``crossing.py``), and each request's span around it where telemetry is on.

    ``signed`` are the paths whose POSTs carry a signature of their sender's own (Slack's clicks), let through the
    boundary's origin and JSON checks (``boundary.py``)."""
    hosts = LOOPBACK_HOSTS if hosts is None else hosts
    boundary = Boundary(hosts=hosts, origins=origins, public=PUBLIC, signed=signed)
    cors = partial(_cors, origins=origins) if origins else None
    app.add_middleware(Crossing, boundary=boundary, sessions=sessions, routes=lambda: app.router.routes, cors=cors)
    telemetry.current().trace_requests(app)
    handle_errors(app)


def _cors(app: ASGIApp, origins: list[str]) -> ASGIApp:
    """CORS for the listed origins only: what their pages may send, and read back."""
    return CORSMiddleware(
        app,
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


def allowed_origins(origins: Collection[str]) -> list[str]:
    """Each allowed origin as a browser sends it: ``scheme://host[:port]``, nothing more, never ``null``."""
    listed = []
    for origin in origins:
        scheme, _, rest = origin.partition("://")
        if scheme not in ("http", "https") or not rest or any(c in rest for c in "/?#@*"):
            raise ValueError(f"an allowed origin is scheme://host[:port], like https://shop.example; not {origin!r}")
        listed.append(f"{scheme}://{rest.lower()}")
    return listed


def check_operator(
    request: Request, token: str | None, route: str = "rollback", doing: str = "rolling a thread back"
) -> None:
    """The operator token, from its own header (where Authorization carries a person's token) or as the bearer."""
    if not token:
        raise Forbidden(
            f"the {route} route is off: start the service with --operator-token, "
            "or set QLS_OPERATOR_TOKEN (or STALWART_OPERATOR_TOKEN)"
        )
    if not is_operator(request, token):
        raise Forbidden(f"{doing} needs the operator token, as {OPERATOR_HEADER} or Authorization: Bearer")


def is_operator(request: Request, token: str | None) -> bool:
    """Whether the request carries the operator token (compared in constant time), where the service has one."""
    if not token:
        return False
    given = [request.headers.get(OPERATOR_HEADER, ""), bearer(request)]
    return any(g and hmac.compare_digest(g.encode(), token.encode()) for g in given)


def signed_resume(secret: str | None, who: Principal, signature: str | None, body: bytes) -> bool:
    """Whether a resume came signed; refused when it must be and is not.

    A signature is what a channel without a signed-in person (a chat bridge, a mail
    link) proves itself with; a signed-in person's resume is authenticated as theirs,
    so the interface keeps working where a resume secret is set.
    """
    if secret is None or (who.verified and signature is None):
        return False
    verify_signature(secret, signature, body)
    return True


def session_of(request: Request) -> str:
    """The digest of the request's session: what the store keeps of it."""
    return digest(request.state.session)


def no_422(app: FastAPI) -> None:
    """FastAPI refuses a parameter with a 422, and documents one on every route with parameters; this service answers
    400 ``bad_request`` instead, as a lean route's refusal is answered (``lean.py``)."""
    from fastapi.exceptions import RequestValidationError

    app.add_exception_handler(RequestValidationError, _validation_error)
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


def handle_errors(app: Starlette) -> None:
    handlers: dict[type[Exception], Callable[[Request, Exception], JSONResponse]] = {
        StalwartError: _stalwart_error,
        HTTPException: _http_error,
        ClientDisconnect: _hung_up,
        Exception: _unexpected,
    }
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)


def _error(
    code: str, message: str, status: int, headers: Mapping[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JsonAnswer({"error": code, "message": message, **extra}, status_code=status, headers=headers)


def _stalwart_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StalwartError)
    extra = {"waiting": exc.shown or [w.to_dict() for w in exc.waiting]} if isinstance(exc, RunWaiting) else {}
    challenge = None
    if isinstance(exc, Unauthorized):
        challenge = {"WWW-Authenticate": 'Bearer error="invalid_token"' if exc.invalid_token else "Bearer"}
    return _error(exc.code, exc.message, exc.status, challenge, **extra)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    headers = {"Allow": _allowed(request)} if exc.status_code == 405 else exc.headers
    return _error(code, str(exc.detail), exc.status_code, headers=headers)


def _allowed(request: Request) -> str:
    """Every method the path is served by: a path two routes serve (a signed link's GET and POST) lists both, where
    the router's own 405 lists only the first route's."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if route.matches(request.scope)[0] != Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return ", ".join(sorted(methods))


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    return _error("bad_request", NOT_TAKEN, 400)


def _hung_up(request: Request, exc: Exception) -> JSONResponse:
    """A client gone before its body was whole: nothing ran, and nobody reads the answer.  Only the request's own
    line records it (status 400, at info), since anyone can hang up at will, and an error with a traceback per
    hang-up would fill the log and wake whoever watches it."""
    return _error("bad_request", "the request's body ended before its length", 400)


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    route = getattr(request.scope.get("route"), "path", UNMATCHED)  # the template: a link's path is a capability
    log.exception("unexpected error on %s %s", request.method, route)
    return _error("internal", "the service failed on this request; its log has the details", 500)
