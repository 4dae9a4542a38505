"""A route served lean (``http/lean.py``) skips FastAPI's dependency solver, so it is refused wherever that solver
would have done something for it: read a parameter other than its path's, or run a dependency."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from fastapi import Depends, FastAPI, Path
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message

from stalwart_agents.http.lean import serve_lean

Thread = Annotated[str, Path(max_length=8)]


def declared(app: FastAPI) -> APIRoute:
    return next(route for route in app.router.routes if isinstance(route, APIRoute))


def test_a_route_that_reads_more_than_its_path_is_not_served_lean() -> None:
    app = FastAPI()

    @app.get("/threads/{thread}")
    async def read(thread: Thread, request: Request, limit: int = 10) -> Response:
        return Response()

    with pytest.raises(ValueError, match="path's parameters alone"):
        serve_lean(declared(app))


def test_a_route_with_a_dependency_is_not_served_lean() -> None:
    ran: list[str] = []
    app = FastAPI()

    @app.get("/threads/{thread}", dependencies=[Depends(lambda: ran.append("checked"))])
    async def read(thread: Thread, request: Request) -> Response:
        return Response()

    with pytest.raises(ValueError, match="without dependencies"):
        serve_lean(declared(app))


def test_a_lean_route_checks_its_path_as_fastapi_would_and_answers_what_its_endpoint_does() -> None:
    app = FastAPI()

    @app.get("/threads/{thread}")
    async def read(thread: Thread, request: Request) -> Response:
        return Response(f"{thread} at {request.url.path}")

    route = declared(app)
    serve_lean(route)
    assert asyncio.run(called(route, "t-1")) == (200, b"t-1 at /threads/t-1")
    with pytest.raises(RequestValidationError) as refused:
        asyncio.run(called(route, "far-too-long"))
    assert [error["type"] for error in refused.value.errors()] == ["string_too_long"]


async def called(route: APIRoute, thread: str) -> tuple[int, bytes]:
    """``route``'s answer for ``thread``, called as Starlette calls a matched route."""
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    path = f"/threads/{thread}"
    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []}
    await route.app(scope | {"path_params": {"thread": thread}}, receive, send)
    return sent[0]["status"], b"".join(message.get("body", b"") for message in sent[1:])
