"""A route served lean (``http/lean.py``) skips FastAPI's dependency solver, so it is refused wherever that solver
would have done something for it: read a parameter other than its path's, or run a dependency.  An app of lean routes
alone is Starlette's (``declare.LeanOnly``), which refuses a route that FastAPI would have to serve."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message

from stalwart_agents.channels.slack import Slack
from stalwart_agents.config import FromEnv, SlackConfig
from stalwart_agents.desk import Desk
from stalwart_agents.errors import BadRequest
from stalwart_agents.http.app import LEAN, ROUTES, lean_app
from stalwart_agents.http.declare import LeanOnly
from stalwart_agents.http.lean import serve_lean
from stalwart_agents.http.schemas import NOT_TAKEN, InPath

from .conftest import SHOP

Thread = Annotated[str, InPath(max_length=8, pattern="^[a-z0-9-]+$", description="a thread")]


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
    for refused in ("far-too-long", "T-1"):
        with pytest.raises(BadRequest, match=NOT_TAKEN):
            asyncio.run(called(route, refused))


def test_an_app_of_lean_routes_alone_refuses_a_route_fastapi_would_serve() -> None:
    route = LeanOnly(Starlette(), ("threads", "feedback"))

    @route("threads", "GET", "/threads/{thread}", lean=True)
    async def read(thread: Thread, request: Request) -> Response:
        return Response()

    with pytest.raises(ValueError, match="served by FastAPI"):

        @route("feedback", "POST", "/threads/{thread}/feedback")
        async def thumb(thread: Thread, request: Request) -> Response:
            return Response()

    served = [(r.path, r.methods) for r in route.app.router.routes if isinstance(r, Route)]
    assert served == [("/threads/{thread}", {"GET"})] and len(route.app.router.routes) == 1


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


def test_lean_names_the_routes_whose_every_path_is_lean() -> None:
    """http/app.py's LEAN, the functions built without FastAPI, is every route lean_app can serve, and no other."""
    slack_config = SlackConfig(bot_token=FromEnv(env="BOT"), signing_secret=FromEnv(env="SIGNING"), channel="C0OPS")
    slack = Slack(slack_config, {"BOT": "xoxb-1", "SIGNING": "s"}, cards=lambda pause: NotImplemented)
    desk = Desk.from_file(SHOP, "memory://")
    try:
        for name in ROUTES:
            if name in LEAN:
                assert lean_app(desk, routes=(name,)).router.routes, name
            else:
                with pytest.raises(ValueError, match="served by FastAPI"):
                    lean_app(desk, routes=(name,), public_url="https://approvals.shop.example", slack=slack)
    finally:
        desk.close()
