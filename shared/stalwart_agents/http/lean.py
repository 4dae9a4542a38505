"""A route that takes only its path's parameters and the request, and answers a Response of its own, served as
Starlette serves a route: without FastAPI's per-request machinery.

FastAPI serves every route through its dependency solver: two exit stacks, the endpoint's context for error
messages, each declared parameter looked up and validated, the body read where one is declared.  A thread route
reads its body itself (``body.py``) and encodes its answer once (``json_answer.py``), so all it needs of FastAPI per
request is its path's parameters checked.  They are checked here by the types FastAPI documents them with (a
pydantic ``TypeAdapter`` of each ``Annotated[str, Path(...)]``, which is how FastAPI checks them too), and a refusal
is raised as FastAPI raises it (``RequestValidationError``, which the edge answers 400).  The route stays FastAPI's
for matching, its name and the OpenAPI document; only what serves a matched request changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any, get_type_hints

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import request_response

Endpoint = Callable[..., Awaitable[Response]]


def serve_lean(route: APIRoute) -> None:
    """Serve ``route`` without FastAPI's dependency solver; its endpoint takes its path's parameters (as
    ``Annotated`` types) and ``request``, by name, and answers a Response."""
    endpoint: Endpoint = route.endpoint
    hints = get_type_hints(endpoint, include_extras=True)
    named = [name for name in inspect.signature(endpoint).parameters if name != "request"]
    if set(named) != set(route.param_convertors):
        raise ValueError(f"{route.path} is served lean only where its endpoint takes its path's parameters alone")
    if route.dependencies:
        raise ValueError(f"{route.path} is served lean only without dependencies, which nothing here would run")
    checks = {name: _adapter(hints[name]) for name in named}

    async def handle(request: Request) -> Response:
        return await endpoint(request=request, **_checked(checks, request.path_params))

    route.app = request_response(handle)


def _checked(checks: dict[str, TypeAdapter[Any]], given: dict[str, Any]) -> dict[str, Any]:
    """The path's parameters as their types take them, or the refusal FastAPI raises for them."""
    try:
        return {name: check.validate_python(given[name]) for name, check in checks.items()}
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


@cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    """One adapter per type: most routes share the thread's."""
    return TypeAdapter(annotation)
