"""ASGI middleware: one server span per HTTP request, joined to the caller's trace where it sent a ``traceparent``.

The span is named and attributed by the route's template (``/threads/{thread}/resume``), found as the request log
finds it, never by the path sent: a signed link's path is a capability.  No query string, header or body is read
into it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from opentelemetry import propagate
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer
from starlette.datastructures import Headers
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..http.matched import route_of
from .spans import quiet_span


class TracedRequests:
    def __init__(self, app: ASGIApp, tracer: Tracer, routes: Callable[[], Iterable[BaseRoute]]) -> None:
        self.app, self.tracer, self.routes = app, tracer, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        route, _ = route_of(self.routes(), scope)
        caller = propagate.extract(dict(Headers(scope=scope)))
        attributes = {"http.request.method": method, "http.route": route, "url.scheme": scope.get("scheme", "http")}
        with quiet_span(
            self.tracer, f"{method} {route}", context=caller, kind=SpanKind.SERVER, attributes=attributes
        ) as span:

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status = message["status"]
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            await self.app(scope, receive, sending)
