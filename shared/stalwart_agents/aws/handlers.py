"""Each route of the service as its own Lambda: the service's own handlers, behind Mangum.

A function's environment is read once, at cold start, into a frozen
value; nothing below reads the environment again.  Each function sees only the
secrets its route needs: the operator token reaches the rollback function
alone, the resume secret the resume function alone (template.yaml).  The stack
gives their ARNs, read here once (aws_secrets.py); a secret that cannot be read
stops the cold start with a sentence naming its variable.  A model's API key
arrives the same way and is put where the agent's ``model.api_key_env`` reads it.

Who a request is from comes from API Gateway's JWT authorizer: the handler
reads the claims it verified from the request context of the Lambda event,
never from a header the client set.  ``STALWART_AUTH=none`` (the stack's
explicit no-authorizer mode) makes everyone one anonymous person instead.

Any ``Host`` is answered by default: API Gateway itself answers only for the
API's own domain name and the custom domains mapped to it, so a DNS-rebound
name never reaches a function.  ``STALWART_ALLOWED_HOSTS`` narrows it anyway.

Signed links (``STALWART_PUBLIC_URL``, ``STALWART_LINK_HOURS``,
``STALWART_LINKS_ALONE``) are read here for the links function and the fan-out
alike, so the one that mints a link and the one that answers it agree.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..approvals.links import DEFAULT_HOURS, MAX_HOURS, link_hours
from ..http.auth import ApiGatewayClaims, Auth, NoAuth
from ..http.budget import MIN_BUDGET, RESPONSE_BUDGET
from .collector import built_for_life
from .observe import Handler, observer_from_environ
from .secrets import SecretUnreadable, read_secret, secret_from_environ

if TYPE_CHECKING:
    from ..approvals.webhook import Webhook
    from ..config import Config
    from ..desk import Desk
    from ..storage import Storage
    from .metrics import Meter

AUTHS: dict[str, Callable[[], Auth]] = {"api-gateway": ApiGatewayClaims, "none": NoAuth}
"""STALWART_AUTH's values: the claims API Gateway's JWT authorizer verified, or nobody is asked."""


@dataclass(frozen=True)
class LinkSettings:
    """Signed links as the stack configures them: none without a public URL (the template's PublicUrl)."""

    public_url: str | None = None
    hours: float = DEFAULT_HOURS
    alone: bool = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> LinkSettings:
        settings = cls(
            public_url=environ.get("STALWART_PUBLIC_URL") or None,
            hours=_link_hours(environ.get("STALWART_LINK_HOURS") or str(DEFAULT_HOURS)),
            alone=_flag(environ, "STALWART_LINKS_ALONE"),
        )
        if settings.alone and settings.public_url is None:
            raise RuntimeError("STALWART_LINKS_ALONE is about signed links, which need STALWART_PUBLIC_URL")
        return settings


@dataclass(frozen=True)
class FunctionEnvironment:
    config: str
    storage: str
    agent: str | None = None
    operator_token: str | None = field(default=None, repr=False)
    resume_secret: str | None = field(default=None, repr=False)
    model_key: tuple[str, str] | None = field(default=None, repr=False)
    """(the variable the agent's model.api_key_env names, the key), where the stack gives one."""
    auth: str = "api-gateway"
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ("*",)
    links: LinkSettings = field(default_factory=LinkSettings)
    response_budget: int = RESPONSE_BUDGET

    def desk(self, meter: Meter | None = None) -> Desk:
        """The function's Desk over the stack's store, its model key put where the agents read it first."""
        from ..desk import Desk

        if self.model_key is not None:
            variable, key = self.model_key
            os.environ[variable] = key
        return Desk(self.agents(), self.storage, meter=meter)

    def agents(self) -> Config:
        """agent.yaml, as the agent layer's build validated it where that is exactly this file (``built_agent``)."""
        from .built_agent import load

        return load(Path(self.config))

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> FunctionEnvironment:
        missing = [name for name in ("STALWART_CONFIG", "STALWART_STORAGE") if not environ.get(name)]
        if missing:
            raise RuntimeError(f"set {' and '.join(missing)} in the function's environment (template.yaml does)")
        return cls(
            config=environ["STALWART_CONFIG"],
            storage=environ["STALWART_STORAGE"],
            agent=environ.get("STALWART_AGENT") or None,
            operator_token=secret_from_environ(environ, "QLS_OPERATOR_TOKEN", "STALWART_OPERATOR_TOKEN_ARN"),
            resume_secret=secret_from_environ(environ, "STALWART_RESUME_SECRET", "STALWART_RESUME_SECRET_ARN"),
            model_key=_model_key(environ),
            auth=_auth_mode(environ.get("STALWART_AUTH") or "api-gateway"),
            allowed_origins=_listed(environ.get("STALWART_ALLOWED_ORIGINS", "")),
            allowed_hosts=_listed(environ.get("STALWART_ALLOWED_HOSTS", "")) or ("*",),
            links=LinkSettings.from_environ(environ),
            response_budget=_budget(environ.get("STALWART_RESPONSE_BUDGET") or str(RESPONSE_BUDGET)),
        )


def _model_key(environ: Mapping[str, str]) -> tuple[str, str] | None:
    arn, variable = environ.get("STALWART_MODEL_KEY_ARN"), environ.get("STALWART_MODEL_KEY_ENV")
    if not arn:
        return None
    if not variable:
        raise SecretUnreadable(
            "STALWART_MODEL_KEY_ARN is set without STALWART_MODEL_KEY_ENV, the variable to put it in"
        )
    return variable, read_secret(arn, "STALWART_MODEL_KEY_ARN")


def _auth_mode(value: str) -> str:
    if value not in AUTHS:
        raise RuntimeError(f"STALWART_AUTH is {value!r}; it takes {' or '.join(AUTHS)}")
    return value


def _link_hours(value: str) -> float:
    hours = link_hours(value)
    if hours is None:
        raise RuntimeError(f"STALWART_LINK_HOURS is {value!r}; it takes hours above 0, at most {MAX_HOURS:g}")
    return hours


def _budget(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) < MIN_BUDGET or int(value) > RESPONSE_BUDGET:
        raise RuntimeError(
            f"STALWART_RESPONSE_BUDGET is {value!r}; it takes bytes from {MIN_BUDGET} to {RESPONSE_BUDGET}"
            " (Lambda refuses a response over 6 MB)"
        )
    return int(value)


def _flag(environ: Mapping[str, str], name: str) -> bool:
    value = environ.get(name) or "false"
    if value not in ("true", "false"):
        raise RuntimeError(f"{name} is {value!r}; it takes true or false")
    return value == "true"


def _listed(value: str) -> tuple[str, ...]:
    """A comma-separated list, each item stripped, empty items dropped."""
    return tuple(item.strip() for item in value.split(",") if item.strip())


def handler(route: str, environ: Mapping[str, str] = os.environ) -> Handler:
    """The Lambda handler for one route, built once per cold start.

    API Gateway buffers whole responses, so the stream answers what is there,
    with a ``retry:`` hint, and closes; the browser reconnects with its cursor.
    No route function announces a pause: the fan-out does.  (Slack's clicks have a
    handler of their own, ``aws/slack.py``.)  In Lambda, built without the garbage
    collector (``collector.py``).  A route whose every path is served lean (``http.app.LEAN``)
    is served on Starlette alone (``lean_app``): FastAPI is not loaded where nothing of it is used.
    """
    with built_for_life(environ):
        return _route_handler(route, environ)


def _route_handler(route: str, environ: Mapping[str, str]) -> Handler:
    from mangum import Mangum

    from ..http import app as service

    settings = FunctionEnvironment.from_environ(environ)
    observer = observer_from_environ(environ)
    desk = settings.desk(observer.meter)
    desk.default_agent = desk.agent(settings.agent).name
    # The service without the channels agent.yaml names (make_app would announce on them): on AWS the fan-out
    # announces each new pause from the table's stream, once, and settles it there; the Slack function takes clicks.
    serve = service.lean_app if route in service.LEAN else service.door_app
    app = serve(
        desk,
        operator_token=settings.operator_token,
        secret=settings.resume_secret,
        stream_mode="once",
        routes=(route,),
        auth=AUTHS[settings.auth](),
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.allowed_origins,
        public_url=settings.links.public_url,
        link_hours=settings.links.hours,
        links_alone=settings.links.alone,
        response_budget=settings.response_budget,
    )
    return observer.route(route, Mangum(app, lifespan="off"))


def webhook_from_environ(environ: Mapping[str, str], store: Storage) -> Webhook | None:
    """The stack's webhook (``STALWART_WEBHOOK_URL``), signed with the secret its ARN names and minting links where
    there is a public URL; None where the stack has no webhook."""
    url = environ.get("STALWART_WEBHOOK_URL")
    if not url:
        return None
    secret = secret_from_environ(environ, "STALWART_WEBHOOK_SECRET", "STALWART_WEBHOOK_SECRET_ARN")
    if not secret:
        raise RuntimeError("STALWART_WEBHOOK_URL is set without STALWART_WEBHOOK_SECRET_ARN, the secret to sign with")
    from ..approvals.links import Links
    from ..approvals.webhook import Webhook

    links = LinkSettings.from_environ(environ)
    minted = None if links.public_url is None else Links(store, links.public_url, hours=links.hours)
    return Webhook(url, secret, links=minted)
