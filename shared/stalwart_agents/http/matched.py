"""Which route a request is for, by its template: what the request log and the request's span name it by, never
the path sent (a signed link's path is a capability)."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

UNMATCHED = "-"
"""The route of a request no route takes: its path is not logged."""
_FOUND = "stalwart.route"
"""Where a request's scope keeps its route once found: the span finds it before the request runs, the log after."""


def route_of(routes: Iterable[BaseRoute], scope: Scope) -> tuple[str, str | None]:
    """The template of the route that takes this request (or takes its path by another method), and its thread
    where it has one: found once per request, or taken from the router where it already chose."""
    found: tuple[str, str | None] | None = scope.get(_FOUND)
    if found is None:
        found = scope[_FOUND] = _routed(scope) or _matched(routes, scope)
    return found


def _routed(scope: Scope) -> tuple[str, str | None] | None:
    """The route the router chose for this request and its path parameters set in the scope, where it ran."""
    route = scope.get("route")
    if route is None:
        return None
    return str(getattr(route, "path", UNMATCHED)), _thread(scope)


def _matched(routes: Iterable[BaseRoute], scope: Scope) -> tuple[str, str | None]:
    """The route the router would choose, matched as it matches: the first full match, else the first partial."""
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
    return str(getattr(route, "path", UNMATCHED)), _thread(child)


def _thread(scope: Scope) -> str | None:
    thread = scope.get("path_params", {}).get("thread")
    return thread if isinstance(thread, str) else None
