"""``POST /slack/actions`` on AWS: a function of its own, behind no JWT authorizer, Slack's signature instead.

Slack gives an app three seconds to answer a click, and a click may carry a run on
(the model, the tools) for much longer.  Under Mangum a route's background task runs
before the Lambda returns, so the function does not serve the route through the app:

1. the request (API Gateway's event): Slack's signature over the raw body is checked
   with slack_sdk's verifier before anything is read (401, and nothing handed on,
   where it fails or was taken before); the click is read (``http/slack.clicked``);
   then handed to this same function in an invocation of its own (``InvocationType``
   ``Event``: Lambda queues it and answers at once), and Slack is answered 200.
   This half reads no table and calls no Slack API, so it answers within Slack's
   three seconds even from a cold start: the desk is not built for it.
2. the hand-off (an event that is not API Gateway's, ``{"stalwart_slack_click": ...}``):
   the click is taken as ``stalwart serve`` takes one (``http/slack.Clicks``): as the
   Slack user who clicked, through the pause's claim, the message then settled.

Only this function's own role may invoke it (template.yaml: ``lambda:InvokeFunction``
on its own ARN), so a hand-off is a click this function verified.  The function
reads the signing secret and the bot token at cold start, from the ARNs the stack
gives (``channels.py``).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import StalwartError
from .channels import channel_environ
from .collector import built_for_life
from .handlers import FunctionEnvironment, LinkSettings
from .observe import Handler, observer_from_environ

if TYPE_CHECKING:
    from ..desk import Desk
    from ..engine.pause import Pause

__all__ = ["HAND_OFF", "handler"]

HAND_OFF = "stalwart_slack_click"
"""The key of the event a click is handed on in: its value is the click (``http/slack.Click``'s fields)."""


def handler(environ: Mapping[str, str] = os.environ) -> Handler:
    """The Slack function's handler, built once per cold start: Slack's request, or a click handed on.  In Lambda,
    built without the garbage collector (``collector.py``)."""
    with built_for_life(environ):
        return _slack_handler(environ)


def _slack_handler(environ: Mapping[str, str]) -> Handler:
    import boto3

    from ..approvals.card import card_of
    from ..approvals.links import Links
    from ..channels.slack import Slack
    from ..http.slack import MAX_BODY, NOT_FROM_SLACK, Click, Clicks, attach, clicked

    settings = FunctionEnvironment.from_environ(environ)
    observer = observer_from_environ(environ)
    config = settings.agents().channels
    if config.slack is None:
        raise RuntimeError(
            "the Slack function serves the channel agent.yaml names (channels: slack:), and it names none"
        )
    itself = environ.get("AWS_LAMBDA_FUNCTION_NAME")
    if not itself:
        raise RuntimeError("AWS_LAMBDA_FUNCTION_NAME is not set: Lambda sets it, and clicks are handed on to it")
    links = LinkSettings.from_environ(environ)

    @cache
    def desk() -> Desk:
        """The desk, built by the first click taken, never for Slack's request."""
        return settings.desk(observer.meter)

    def mint(pause: Pause) -> dict[str, str]:
        assert links.public_url is not None
        return Links(desk().storage, links.public_url, hours=links.hours).mint(pause)

    slack = Slack(
        config.slack,
        channel_environ(config, environ, verifies=True),
        lambda pause: card_of(pause, desk().verdict(pause, None), None, edits=False),
        None if links.public_url is None else mint,
    )
    handing = boto3.client("lambda")

    @cache
    def clicks() -> Clicks:
        attach(slack, desk())
        return Clicks(desk(), slack)

    def request(event: dict[str, Any], context: Any) -> dict[str, Any]:
        body = _body(event)
        if len(body) > MAX_BODY:
            return _answer(413, "payload_too_large", f"a request body may be at most {MAX_BODY} bytes")
        if not slack.verified(body, event.get("headers") or {}):
            return _answer(401, "bad_signature", NOT_FROM_SLACK)
        try:
            click = clicked(body)
        except StalwartError as exc:
            return _answer(exc.status, exc.code, exc.message)
        if click is not None:
            payload = json.dumps({HAND_OFF: dataclasses.asdict(click)}).encode()
            handing.invoke(FunctionName=itself, InvocationType="Event", Payload=payload)
        return {"statusCode": 200, "headers": {"cache-control": "no-store"}, "body": ""}

    answer = observer.route("slack", request)

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        handed = event.get(HAND_OFF)
        if handed is None:
            return answer(event, context)
        click = Click(**{field.name: str(handed[field.name]) for field in dataclasses.fields(Click)})
        with observer.invocation(event, context):
            clicks().take(click)
            observer.info("click taken", pause=click.pause, decision=click.decision)
        return {"taken": click.pause}

    return handle


def _body(event: Mapping[str, Any]) -> bytes:
    body = event.get("body") or ""
    return base64.b64decode(body) if event.get("isBase64Encoded") else str(body).encode()


def _answer(status: int, code: str, message: str) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json", "cache-control": "no-store"},
        "body": json.dumps({"error": code, "message": message}),
    }
