"""Declaring a route only where it is served: a Lambda serves one route, and a route never declared never builds
its models, which FastAPI otherwise builds for every route it is given, served or not.  A route declared ``lean``
is served without FastAPI's per-request machinery (``lean.py``)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TypeVar

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel

from .lean import serve_lean
from .schemas import body_of

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


class Declare:
    """``@route(name, method, path, ...)``: the endpoint, on ``app`` only where ``name`` is among ``routes``
    (``named=`` gives the endpoint another name, where one route serves two; ``lean=True`` serves it as ``lean.py``
    says)."""

    def __init__(self, app: FastAPI, routes: Collection[str]) -> None:
        self.app, self.routes = app, routes

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
        if name not in self.routes:
            return _undeclared
        if body is not None:
            options["openapi_extra"] = body_of(body)
        declare = self.app.api_route(path, methods=[method], name=options.pop("named", name), **options)
        return self._lean(declare) if lean else declare

    def _lean(self, declare: Callable[[Endpoint], Endpoint]) -> Callable[[Endpoint], Endpoint]:
        def declared(endpoint: Endpoint) -> Endpoint:
            declare(endpoint)
            serve_lean(next(r for r in self.app.router.routes if isinstance(r, APIRoute) and r.endpoint is endpoint))
            return endpoint

        return declared


def _undeclared(endpoint: Endpoint) -> Endpoint:
    return endpoint
