"""The one ASGI pass every request crosses before its route: its log line, the browser boundary, its session.

Each was a middleware of its own, and each read the request's headers again (Starlette's ``Headers`` walks them
at every lookup) and wrapped ``send`` once more.  Here the headers the checks read are picked out in one walk,
the boundary decides (``boundary.py``), the session is read or issued (``session.py``), and one wrapper of
``send`` notes the status for the log and hands a new session out.  Where origins are listed, Starlette's CORS
stands between the boundary and the session, as it always has: a preflight it answers carries no session.

The log line (one per request, at info, once its response is sent) names the route by its template, never the
path sent (``matched.py``), and is only composed where info is logged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..logs import event, log
from .matched import route_of
from .session import HEADER as SESSION_HEADER
from .session import Sessions

if TYPE_CHECKING:
    from .boundary import Boundary

READ = frozenset((b"host", b"origin", b"sec-fetch-site", b"content-type", b"content-length", b"transfer-encoding"))
"""The headers the boundary reads; the session's is read beside them."""
_SESSION = SESSION_HEADER.lower().encode("latin-1")
_ISSUED = "stalwart.session_issued"
"""Where the scope carries a session issued to this request, for the innermost step to hand out."""


def picked(raw: Iterable[tuple[bytes, bytes]]) -> tuple[dict[str, str], str | None]:
    """The first value of each header the boundary reads, and the session's, as Starlette's ``Headers.get`` gives
    them (names as the server lowered them, values in Latin-1)."""
    found: dict[str, str] = {}
    session: str | None = None
    for name, value in raw:
        if name in READ:
            found.setdefault(name.decode("latin-1"), value.decode("latin-1"))
        elif name == _SESSION and session is None:
            session = value.decode("latin-1")
    return found, session


class Crossing:
    """The request log, the boundary and the session in one pass; ``cors`` wraps the step that hands a session out,
    where origins are listed."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        boundary: Boundary,
        sessions: Sessions,
        routes: Callable[[], Iterable[BaseRoute]],
        cors: Callable[[ASGIApp], ASGIApp] | None = None,
    ) -> None:
        self.app, self.boundary, self.sessions, self.routes = app, boundary, sessions, routes
        self.inner = self.app if cors is None else cors(self.handing_out)
        self.behind_cors = cors is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500
        hand_out: str | None = None  # a session issued to this request, where no CORS stands behind to hand it out

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                if hand_out is not None:
                    message["headers"] = [*message["headers"], (_SESSION, hand_out.encode("latin-1"))]
            await send(message)

        try:
            headers, given = picked(scope["headers"])
            refusal = self.boundary.refusal(scope, headers)
            if refusal is not None:
                await refusal(scope, receive, sending)
                return
            session = given if given is not None and self.sessions.valid(given) else self.sessions.issue()
            scope.setdefault("state", {})["session"] = session
            issued = None if session == given else session
            if self.behind_cors:
                scope[_ISSUED] = issued
            else:
                hand_out = issued
            await self.inner(scope, receive, sending)
        finally:
            if log.isEnabledFor(logging.INFO):
                route, thread = route_of(self.routes(), scope)
                took = round((time.perf_counter() - started) * 1000, 1)
                event(
                    logging.INFO, "request", method=scope["method"], route=route, thread=thread, status=status, ms=took
                )

    async def handing_out(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Behind CORS: the app, with a session issued to this request handed out in its answer's headers."""
        issued: str | None = scope.get(_ISSUED)
        if issued is None:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (_SESSION, issued.encode("latin-1"))]
            await send(message)

        await self.app(scope, receive, sending)
