"""Declaring a route only where it is served: a Lambda serves one route, and a route never declared never builds
its models, which FastAPI otherwise builds for every route it is given, served or not.  A route declared ``lean``
is served without FastAPI's per-request machinery (``lean.py``), and an app whose every route is lean is Starlette's
alone (``LeanOnly``): a function serving it loads no FastAPI."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast, get_type_hints

from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import Route, compile_path

from .lean import lean_handler, serve_lean
from .schemas import body_of, in_path

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.routing import APIRoute

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


class Declare:
    """``@route(name, method, path, ...)``: the endpoint, on ``app`` only where ``name`` is among ``routes``
    (``named=`` gives the endpoint another name, where one route serves two; ``lean=True`` serves it as ``lean.py``
    says).  Over FastAPI's app (door_app's), any route; the other options are FastAPI's (OpenAPI, a response's
    model)."""

    def __init__(self, app: Starlette, routes: Collection[str]) -> None:
        self.app, self.routes = app, routes

    def serves(self, name: str) -> bool:
        """Whether the app serves the route ``name``: where a route reads a query, it is declared only then."""
        return name in self.routes

    def __call__(
        self,
        name: str,
        method: str,
        path: str,
        *,
        body: type[BaseModel] | None = None,
        lean: bool = False,
        **options: Any,
    ) -> Callable[[Endpoint], Endpoint]:
        if not self.serves(name):
            return _undeclared
        return self._declared(name, method, path, body, lean, options)

    def _declared(
        self, name: str, method: str, path: str, body: type[BaseModel] | None, lean: bool, options: dict[str, Any]
    ) -> Callable[[Endpoint], Endpoint]:
        if body is not None:
            options["openapi_extra"] = body_of(body)
        app = cast("FastAPI", self.app)
        declare = app.api_route(path, methods=[method], name=options.pop("named", name), **options)

        def declared(endpoint: Endpoint) -> Endpoint:
            declare(_read_by_fastapi(endpoint))
            if lean:
                serve_lean(cast("APIRoute", app.router.routes[-1]))
            return endpoint

        return declared


class LeanOnly(Declare):
    """Routes on a Starlette app, every one served lean: a route that needs FastAPI is refused, so a function whose
    routes are all lean is served as FastAPI would serve it, without loading FastAPI."""

    def _declared(
        self, name: str, method: str, path: str, body: type[BaseModel] | None, lean: bool, options: dict[str, Any]
    ) -> Callable[[Endpoint], Endpoint]:
        if not lean:
            raise ValueError(f"{method} {path} is served by FastAPI, not lean: its app is door_app's")

        def declared(endpoint: Endpoint) -> Endpoint:
            route = Route(path, lean_handler(endpoint, path, compile_path(path)[2]), name=options.get("named", name))
            route.methods = {method}  # one method, as FastAPI's route has: no HEAD beside a GET
            self.app.router.routes.append(route)
            return endpoint

        return declared


def _read_by_fastapi(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with each path parameter declared ``Annotated[type, InPath(...)]`` read by FastAPI as its
    ``Path`` of the same constraints: what FastAPI checks, and documents in the OpenAPI document."""
    from fastapi import Path

    hints = get_type_hints(endpoint, include_extras=True)
    signature = inspect.signature(endpoint)
    parameters, read = [], False
    for parameter in signature.parameters.values():
        declared = in_path(hints.get(parameter.name))
        if declared is not None:
            kind, spec = declared
            parameter, read = parameter.replace(annotation=Annotated[kind, Path(**spec.constraints())]), True
        parameters.append(parameter)
    if read:
        endpoint.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return endpoint


def _undeclared(endpoint: Endpoint) -> Endpoint:
    return endpoint
