"""Each route of the service as its own Lambda: the service's own handlers, behind Mangum.

A function's environment is read once, at cold start, into a frozen
value; nothing below reads the environment again.  Each function sees only the
secrets its route needs: the operator token reaches the rollback function
alone, the resume secret the resume function alone (template.yaml).

Who a request is from comes from API Gateway's JWT authorizer: the handler
reads the claims it verified from the request context of the Lambda event,
never from a header the client set.  ``STALWART_AUTH=none`` (the stack's
explicit no-authorizer mode) makes everyone one anonymous person instead.

Any ``Host`` is answered by default: API Gateway itself answers only for the
API's own domain name and the custom domains mapped to it, so a DNS-rebound
name never reaches a function.  ``STALWART_ALLOWED_HOSTS`` narrows it anyway.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .auth import ApiGatewayClaims, Auth, NoAuth

AUTHS: dict[str, Callable[[], Auth]] = {"api-gateway": ApiGatewayClaims, "none": NoAuth}
"""STALWART_AUTH's values: the claims API Gateway's JWT authorizer verified, or nobody is asked."""


@dataclass(frozen=True)
class FunctionEnvironment:
    config: str
    storage: str
    agent: str | None = None
    operator_token: str | None = None
    resume_secret: str | None = None
    auth: str = "api-gateway"
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ("*",)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> FunctionEnvironment:
        missing = [name for name in ("STALWART_CONFIG", "STALWART_STORAGE") if not environ.get(name)]
        if missing:
            raise RuntimeError(f"set {' and '.join(missing)} in the function's environment (template.yaml does)")
        return cls(
            config=environ["STALWART_CONFIG"],
            storage=environ["STALWART_STORAGE"],
            agent=environ.get("STALWART_AGENT") or None,
            operator_token=environ.get("QLS_OPERATOR_TOKEN") or None,
            resume_secret=environ.get("STALWART_RESUME_SECRET") or None,
            auth=_auth_mode(environ.get("STALWART_AUTH") or "api-gateway"),
            allowed_origins=_listed(environ.get("STALWART_ALLOWED_ORIGINS", "")),
            allowed_hosts=_listed(environ.get("STALWART_ALLOWED_HOSTS", "")) or ("*",),
        )


def _auth_mode(value: str) -> str:
    if value not in AUTHS:
        raise RuntimeError(f"STALWART_AUTH is {value!r}; it takes {' or '.join(AUTHS)}")
    return value


def _listed(value: str) -> tuple[str, ...]:
    """A comma-separated list, each item stripped, empty items dropped."""
    return tuple(item.strip() for item in value.split(",") if item.strip())


def handler(route: str, environ: Mapping[str, str] = os.environ) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda handler for one route, built once per cold start.

    API Gateway buffers whole responses, so the stream answers what is there,
    with a ``retry:`` hint, and closes; the browser reconnects with its cursor.
    """
    from mangum import Mangum

    from .serve import make_app

    settings = FunctionEnvironment.from_environ(environ)
    app = make_app(
        settings.config,
        storage=settings.storage,
        agent=settings.agent,
        operator_token=settings.operator_token,
        secret=settings.resume_secret,
        stream_mode="once",
        routes=(route,),
        auth=AUTHS[settings.auth](),
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.allowed_origins,
    )
    return Mangum(app, lifespan="off")
