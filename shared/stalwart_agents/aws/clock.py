"""The clock on AWS: a function EventBridge runs every minute, doing what pauses' deadlines make due.

Each invocation is one ``tick`` (``approvals.overdue``): it reads the due pauses from
the table's sparse ``wake`` index, claims each event with a conditional write, and
expires, escalates or reminds; an expiry is the engine's own commit, the one a
person's answer makes.  A minute is EventBridge's finest rate, and enough: an answer
that comes after the deadline expires its pause itself, in the request, so nothing is
ever approved late; the clock only finishes the runs nobody answers and posts
reminders, within the minute.  Two invocations that overlap (a slow tick, Lambda's
retry of a failed one) do each event once, through the same claims.

Where the stack has a webhook, reminders and escalations are posted to it, signed
with its secret and with links where there is a ``PublicUrl``, as the fan-out posts a
new pause; without one, the clock still expires what is due and counts reminders as
told.  Desk, webhook and observer are built once, at cold start, from the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..approvals.announce import Notify
from ..approvals.links import Links
from ..approvals.overdue import tick
from ..approvals.webhook import Webhook
from .handlers import FunctionEnvironment, LinkSettings
from .observe import Observer, observer_from_environ
from .secrets import secret_from_environ

if TYPE_CHECKING:
    from ..desk import Desk
    from ..storage import Storage

__all__ = ["handler", "webhook_from_environ"]


def handler(event: Mapping[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda entry, run by the schedule: one tick; what it did, by pause id."""
    desk, notify, observer = _cold_start()
    with observer.invocation(event, context):
        ticked = tick(desk, notify)
        observer.info("ticked", **{what: len(ids) for what, ids in ticked.to_dict().items()})
    return ticked.to_dict()


def webhook_from_environ(environ: Mapping[str, str], store: Storage) -> Webhook | None:
    """The stack's webhook (``STALWART_WEBHOOK_URL``), signed with the secret its ARN names and minting links where
    there is a public URL; None where the stack has no webhook."""
    url = environ.get("STALWART_WEBHOOK_URL")
    if not url:
        return None
    secret = secret_from_environ(environ, "STALWART_WEBHOOK_SECRET", "STALWART_WEBHOOK_SECRET_ARN")
    if not secret:
        raise RuntimeError("STALWART_WEBHOOK_URL is set without STALWART_WEBHOOK_SECRET_ARN, the secret to sign with")
    links = LinkSettings.from_environ(environ)
    minted = None if links.public_url is None else Links(store, links.public_url, hours=links.hours)
    return Webhook(url, secret, links=minted)


@cache
def _cold_start() -> tuple[Desk, Notify | None, Observer]:
    environ = os.environ
    observer = observer_from_environ(environ)
    desk = FunctionEnvironment.from_environ(environ).desk(observer.meter)
    return desk, webhook_from_environ(environ, desk.storage), observer
