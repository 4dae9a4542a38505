"""Which route a request is for, by its template: what the request log and the request's span name it by, never
the path sent (a signed link's path is a capability)."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

UNMATCHED = "-"
"""The route of a request no route takes: its path is not logged."""


def route_of(routes: Iterable[BaseRoute], scope: Scope) -> tuple[str, str | None]:
    """The template of the route that takes this request (or takes its path by another method), and its thread
    where it has one."""
    found: tuple[BaseRoute, Scope] | None = None
    for route in routes:
        match, child = route.matches(scope)
        if match == Match.FULL or (match == Match.PARTIAL and found is None):
            found = route, child
        if match == Match.FULL:
            break
    if found is None:
        return UNMATCHED, None
    route, child = found
    thread = child.get("path_params", {}).get("thread")
    return str(getattr(route, "path", UNMATCHED)), thread if isinstance(thread, str) else None
