"""A route that takes only its path's parameters and the request, and answers a Response of its own, served as
Starlette serves a route: without FastAPI's per-request machinery, and without FastAPI at all where no route of the
app needs it (``declare.py``).

FastAPI serves every route through its dependency solver: two exit stacks, the endpoint's context for error
messages, each declared parameter looked up and validated, the body read where one is declared.  A thread route
reads its body itself (``body.py``) and encodes its answer once (``json_answer.py``), so all it needs of FastAPI per
request is its path's parameters checked.  Each is declared as ``Annotated[str, InPath(...)]`` (``schemas.py``) and
checked here by a pydantic ``TypeAdapter`` of its ``Field``, which is how FastAPI checks the ``Path`` a route it
serves reads it as; a refusal is the 400 the edge answers for FastAPI's own (``NOT_TAKEN``).  On a FastAPI app the
route stays FastAPI's for matching, its name and the OpenAPI document; only what serves a matched request changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Collection
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import request_response

from ..errors import BadRequest
from .schemas import NOT_TAKEN, in_path

if TYPE_CHECKING:
    from fastapi.routing import APIRoute

Endpoint = Callable[..., Awaitable[Response]]
Handle = Callable[[Request], Awaitable[Response]]


def lean_handler(endpoint: Endpoint, path: str, parameters: Collection[str]) -> Handle:
    """``endpoint`` as a request's handler: it takes the path's ``parameters`` (each ``Annotated[str, InPath(...)]``)
    and ``request``, by name, and answers a Response."""
    hints = get_type_hints(endpoint, include_extras=True)
    named = [name for name in inspect.signature(endpoint).parameters if name != "request"]
    if set(named) != set(parameters):
        raise ValueError(f"{path} is served lean only where its endpoint takes its path's parameters alone")
    checks = {name: _adapter(hints[name]) for name in named}

    async def handle(request: Request) -> Response:
        return await endpoint(request=request, **_checked(checks, request.path_params))

    return handle


def serve_lean(route: APIRoute) -> None:
    """Serve FastAPI's ``route`` without its dependency solver."""
    if route.dependencies:
        raise ValueError(f"{route.path} is served lean only without dependencies, which nothing here would run")
    route.app = request_response(lean_handler(route.endpoint, route.path, route.param_convertors))


def _checked(checks: dict[str, TypeAdapter[Any]], given: dict[str, Any]) -> dict[str, Any]:
    """The path's parameters as their types take them, or the refusal FastAPI's check would end in."""
    try:
        return {name: check.validate_python(given[name]) for name, check in checks.items()}
    except ValidationError:
        raise BadRequest(NOT_TAKEN) from None


@cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    """One adapter per type (most routes share the thread's): the type with its ``InPath`` as pydantic's ``Field``."""
    declared = in_path(annotation)
    if declared is None:
        raise ValueError(f"a lean route's path parameter is declared Annotated[str, InPath(...)], not {annotation!r}")
    kind, spec = declared
    checked: Any = Annotated[kind, spec.field()]
    return TypeAdapter(checked)
