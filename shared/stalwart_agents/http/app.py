"""The HTTP service as one FastAPI application: a door, behind the edge, with the routes declared once over it.

``make_app`` is the Desk's (what ``stalwart serve`` runs, what a team mounts in
its own server, what each Lambda serves one route of); ``door_app`` is any
door's, the LangGraph door's included.  Both are the same list of parts: the
edge (``edge.py``), the thread routes and the inbox (``threads.py``), the pages
(``pages.py``), the signed links (``link_page.py``).  ``lean_app`` is the same
parts over Starlette alone, for a Lambda whose routes are all served lean
(``LEAN``): FastAPI is not loaded where nothing of it is used.
"""

from __future__ import annotations

import inspect
import os
import secrets
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, cast

from starlette.applications import Starlette

from .. import __version__
from ..approvals.card import Card, card_of
from ..approvals.links import DEFAULT_HOURS, Links
from ..approvals.webhook import Webhook
from ..channels import Channels, Posted, channels_of
from ..desk import Desk
from ..door import Described, Door
from ..engine.pause import Pause
from . import edge
from .auth import Auth, NoAuth
from .budget import RESPONSE_BUDGET, budget_of
from .declare import Declare, LeanOnly
from .link_page import declare_links
from .pages import declare_pages
from .session import Sessions
from .slack import SLACK_PATH, declare_slack
from .threads import Threads, declare_threads
from .ticket import Tickets

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ..channels.slack import Slack

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
    "slack",
)
LEAN = ("messages", "resume", "stream", "feedback")
"""The routes whose every path is served lean (``lean.py``): a function serving only these needs no FastAPI."""

OnInterrupt = Callable[[str, Pause], object]
MAX_HEADERS = 64 * 1024
"""The most bytes of request line and headers a server of the service reads (a bearer token is at most 16 KiB);
uvicorn checks it after each 64 KiB it reads, so past it a request is refused with at most 128 KiB held.

A limit the HTTP server must hold, since the application sees headers only once all are read: ``stalwart serve``
runs uvicorn's h11 with it; under your own uvicorn, pass ``--http h11 --h11-max-incomplete-event-size 65536``
(httptools, uvicorn's default where installed, reads headers of any size); under gunicorn, a ``UvicornWorker``
subclass whose ``CONFIG_KWARGS`` say the same."""


class Service(TypedDict, total=False):
    """What every app of the service takes besides its door: ``door_app``'s options."""

    secret: str | None
    operator_token: str | None
    stream_mode: Literal["live", "once"]
    routes: Collection[str]
    auth: Auth | None
    allowed_hosts: Collection[str] | None
    allowed_origins: Collection[str]
    public_url: str | None
    link_hours: float
    links_alone: bool
    slack: Slack | None
    response_budget: int | None


def make_app(
    config: str | os.PathLike[str] | Desk,
    *,
    storage: str | None = None,
    agent: str | None = None,
    on_interrupt: OnInterrupt | None = None,
    **service: Unpack[Service],
) -> FastAPI:
    """The service for a file of agents (or a Desk already loaded): ``door_app`` over its Desk.

    ``on_interrupt(thread, pause)`` is told of each new pause (``Webhook(url, secret)`` is one;
    a ``redeliver.Redeliverer`` started with the app retries those that failed); ``agent`` names
    the agent a turn goes to (the file's first by default).  Everything else is ``door_app``'s.

    Serve it with headers bounded, as ``stalwart serve`` does (``MAX_HEADERS`` says how).
    """
    desk = config if isinstance(config, Desk) else Desk.from_file(config, storage)
    if on_interrupt is not None:
        desk.on_interrupt = on_interrupt
    desk.default_agent = desk.agent(agent).name
    # Channels given (on_interrupt, or a Slack for its route) are the caller's; otherwise agent.yaml's are made here.
    made = not isinstance(desk.on_interrupt, Channels) and service.get("slack") is None
    channels = _channels(desk, service) if made else None
    if channels is not None:
        desk.on_interrupt, desk.settle = channels, channels.settled
        service["slack"] = next((cast("Slack", c) for c in channels.channels if c.name == "slack"), None)
    app = door_app(desk, **service)
    app.state.desk = desk
    return app


def _channels(desk: Desk, service: Service) -> Channels | None:
    """The channels agent.yaml names (``channels:``), with the desk's ``on_interrupt`` (a webhook) among them, each
    reading the card a channel reads, and minting signed links where the service has a public URL; None for none."""
    named = desk.config.channels
    if named.slack is None and named.mail is None:
        return None
    public_url = service.get("public_url")
    hours = service.get("link_hours", DEFAULT_HOURS)
    links = Links(desk.storage, public_url, hours=hours, clock=desk.clock) if public_url else None

    def cards(pause: Pause) -> Card:
        return card_of(pause, desk.verdict(pause, None), None, edits=False)

    return channels_of(named, os.environ, cards, links.mint if links else None, desk.on_interrupt)


def door_app(door: Door, *, title: str = "stalwart-agents", **service: Unpack[Service]) -> FastAPI:
    """The service's routes over ``door``.

    With ``secret`` set, a resume from no one signed in must carry a valid ``Stalwart-Signature``
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

    ``response_budget`` is the most a reply or a page of the stream may take, in bytes as Lambda carries a body
    (5 MiB by default, under Lambda's 6 MB; None for no budget): a reply over it has its largest results summarised,
    each readable whole at ``GET /threads/{id}/results/{run}/{key}``, and the stream's pages stop before it
    (``budget.py``).
    """
    from fastapi import FastAPI

    # No /docs or /redoc: FastAPI's pages load their scripts from a CDN, which would run on the service's origin.
    app = FastAPI(
        title=title,
        version=__version__,
        description="People in the loop: pauses, answers, rollbacks.",
        docs_url=None,
        redoc_url=None,
        **_native_telemetry_off(FastAPI),
    )
    _serve(app, Declare, door, **service)
    edge.no_422(app)
    return app


def lean_app(door: Door, **service: Unpack[Service]) -> Starlette:
    """``door_app``'s service where every route it serves is lean (``LEAN``), on Starlette alone: the same edge, the
    same routes and the same answers, with no FastAPI loaded, for a Lambda's cold start.  A route that needs FastAPI
    is refused (``declare.LeanOnly``); nor has this app an OpenAPI document, which ``door_app``'s serves."""
    app = Starlette()
    _serve(app, LeanOnly, door, **service)
    return app


def _serve(
    app: Starlette,
    declare: type[Declare],
    door: Door,
    *,
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
    slack: Slack | None = None,
    response_budget: int | None = RESPONSE_BUDGET,
) -> None:
    """The service's parts on ``app``, each route declared by ``declare`` (``door_app`` says what each option does)."""
    unknown = set(routes) - set(ROUTES)
    if unknown:
        raise ValueError(f"no such route: {', '.join(sorted(unknown))}; the routes are {', '.join(ROUTES)}")
    origins = edge.allowed_origins(allowed_origins)
    auth = auth or NoAuth()
    key = door.storage.secret("session", secrets.token_hex(32))
    clicks = slack is not None and "slack" in routes
    edge.guard(app, Sessions(key), allowed_hosts, origins, signed=(SLACK_PATH,) if clicks else ())
    route = declare(app, routes)
    described = door.describe() if "config" in routes or "interface" in routes else _UNNAMED
    declare_pages(route, door, described, sign_in=not isinstance(auth, NoAuth))
    budget = budget_of(response_budget)
    declare_threads(route, Threads(door, auth, Tickets(key.encode()), secret, operator_token, stream_mode, budget))
    webhook = _webhook_of(door.on_interrupt)
    if webhook is not None and webhook.cards is None:
        # Deliveries carry the card beside the pause, as a channel reads it (never as the person who asked).
        webhook.cards = lambda pause: card_of(pause, door.verdict(pause, None), None)
    if public_url is not None:
        links = Links(door.storage, public_url, hours=link_hours, clock=door.clock)
        if webhook is not None and webhook.links is None:
            webhook.links = links
        declare_links(route, door, links, auth, alone=links_alone)
        app.state.links = links
    if slack is not None:
        declare_slack(route, door, slack)
    app.state.door = door


def _webhook_of(notify: object) -> Webhook | None:
    """The webhook ``on_interrupt`` posts to, alone or as one of the channels."""
    if isinstance(notify, Channels):
        return next(
            (c.notify for c in notify.channels if isinstance(c, Posted) and isinstance(c.notify, Webhook)), None
        )
    return notify if isinstance(notify, Webhook) else None


def _native_telemetry_off(fastapi: type[FastAPI]) -> dict[str, Any]:
    """FastAPI's own OpenTelemetry spans off, where its version has them: they carry the path sent, which for a
    signed link is the capability itself, and the query string (a stream's ticket).  The service traces each
    request by its route's template instead (``telemetry/asgi.py``)."""
    if "telemetry" not in inspect.signature(fastapi.__init__).parameters:
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}}


_UNNAMED: Described = {"agent": "", "description": "", "examples": []}
