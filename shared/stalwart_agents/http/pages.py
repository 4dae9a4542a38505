"""The interface's pages and files, what it shows before the first turn, and the health check."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ..door import Described, Door
from .declare import Declare
from .edge import SECURE
from .schemas import ConfigOut, HealthOut, errors

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<link rel="icon" href="{base}/favicon.ico" type="image/svg+xml">
<script type="module" src="{base}/agent-ui.js"></script></head>
<body><main><{element} base="{base}" data-signin="fragment"></{element}></main></body></html>
"""
BUNDLE = "agent-ui.js"
ICON = "favicon.svg"


def declare_pages(route: Declare, door: Door, shown: Described, *, sign_in: bool) -> None:
    """``/`` (the conversation), ``/inbox`` (an approver's desk), their script and icon, ``/config.json`` and
    ``/healthz``."""
    name = shown["agent"]

    @route("interface", "GET", "/", response_class=HTMLResponse)
    def interface(request: Request) -> HTMLResponse:
        return _page(request, name, "stalwart-chat")

    @route("interface", "GET", "/inbox", response_class=HTMLResponse)
    def inbox_page(request: Request) -> HTMLResponse:
        """Every pause the signed-in person may answer, across threads: an approver's desk."""
        return _page(request, f"{name}: inbox", "stalwart-inbox")

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

    @route("healthz", "GET", "/healthz", response_model=HealthOut, responses=errors(503))
    async def healthz() -> dict[str, bool]:
        await run_in_threadpool(door.storage.get_run, "healthz")
        return {"ok": True}

    @route("config", "GET", "/config.json", response_model=ConfigOut)
    def config_json(request: Request) -> dict[str, object]:
        """What the interface shows before the first turn: the agent, what it does, and turns it reads."""
        return {**shown, "base": request.scope.get("root_path", ""), "sign_in": sign_in}


def _page(request: Request, title: str, element: str) -> HTMLResponse:
    base = html.escape(request.scope.get("root_path", "").rstrip("/"), quote=True)
    return HTMLResponse(PAGE.format(title=html.escape(title), base=base, element=element), headers=SECURE)


@cache
def _static(name: str) -> bytes:
    """A file of the package's ``static/``, read once per process, not on every request."""
    return resources.files("stalwart_agents").joinpath("static", name).read_bytes()
