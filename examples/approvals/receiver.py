"""A channel for Stalwart's pauses: each posted to Slack with its buttons, each click answered by the resume route.

The pattern fits any channel: verify the delivery, post it, verify the way back, resume signed.

    STALWART_URL=https://agents.example STALWART_WEBHOOK_SECRET=whsec-... STALWART_RESUME_SECRET=... \\
    SLACK_BOT_TOKEN=xoxb-... SLACK_CHANNEL=C0123 SLACK_SIGNING_SECRET=... \\
    uvicorn --factory receiver:from_env --port 8080
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.signature import SignatureVerifier
from starlette.concurrency import run_in_threadpool

from stalwart_agents.approvals.signature import BadSignature, sign, verify_signature

SLACK_API = "https://slack.com/api/"
NEEDS_A_VALUE = {"answer"}
"""Decisions that carry a typed value: a button cannot give one, so the message sends the person to the app."""
BUTTON_STYLE = {"approve": "primary", "cancel_all": "danger", "decline": "danger", "abandon": "danger"}


@dataclass(frozen=True)
class Settings:
    """Where the service and Slack are, and the four secrets that prove who speaks on each leg."""

    stalwart_url: str
    webhook_secret: str
    resume_secret: str
    slack_token: str
    slack_channel: str
    slack_signing_secret: str
    slack_api: str = SLACK_API

    @classmethod
    def from_env(cls) -> Settings:
        """From the environment; a missing variable is named, so a misconfigured receiver never starts."""
        names = {
            "stalwart_url": "STALWART_URL",
            "webhook_secret": "STALWART_WEBHOOK_SECRET",
            "resume_secret": "STALWART_RESUME_SECRET",
            "slack_token": "SLACK_BOT_TOKEN",
            "slack_channel": "SLACK_CHANNEL",
            "slack_signing_secret": "SLACK_SIGNING_SECRET",
        }
        missing = [env for env in names.values() if not os.environ.get(env)]
        if missing:
            raise SystemExit(f"set {', '.join(missing)} in the environment")
        return cls(
            **{field: os.environ[env] for field, env in names.items()},
            slack_api=os.environ.get("SLACK_API_URL", SLACK_API),
        )


@dataclass(frozen=True)
class Waiting:
    """What answering a pause takes, kept here so that Slack only ever sees an opaque reference."""

    thread: str
    interrupt: str
    token: str


class Ledger:
    """Deliveries seen and pauses posted: in memory here; a receiver with replicas keeps them in a shared store."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deliveries: set[str] = set()
        self._waiting: dict[str, Waiting] = {}

    def first_sight(self, delivery: str) -> bool:
        """True once per delivery id: a retried delivery is acknowledged and not posted again."""
        with self._lock:
            seen = delivery in self._deliveries
            self._deliveries.add(delivery)
            return not seen

    def forget(self, delivery: str) -> None:
        """The post failed: the service's retry of this delivery must be posted."""
        with self._lock:
            self._deliveries.discard(delivery)

    def keep(self, waiting: Waiting) -> str:
        reference = secrets.token_urlsafe(16)
        with self._lock:
            self._waiting[reference] = waiting
        return reference

    def find(self, reference: str) -> Waiting | None:
        with self._lock:
            return self._waiting.get(reference)


def message_blocks(pause: dict[str, Any], reference: str) -> list[dict[str, Any]]:
    """The pause in Block Kit: the tool, each argument and its origin, why it stopped, one button per answer."""
    lines = [f"*{pause['tool']}* is waiting for a person", pause["question"]]
    lines += [f"• `{a['name']}` = `{json.dumps(a['value'])}` _(from {a['origin']})_" for a in pause["arguments"]]
    lines += [f"> {reason}" for reason in pause.get("reasons", [])]
    if pause.get("irreversible"):
        lines.append(":warning: This cannot be undone.")
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(lines)}}]
    buttons = [_button(decision, reference) for decision in pause["answers"] if decision not in NEEDS_A_VALUE]
    if buttons:
        blocks.append({"type": "actions", "block_id": "stalwart", "elements": buttons})
    else:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": "Answer this one in the app."}]})
    return blocks


def _button(decision: str, reference: str) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "action_id": decision,
        "text": {"type": "plain_text", "text": _label(decision)},
        "value": reference,
    }
    if decision in BUTTON_STYLE:
        button["style"] = BUTTON_STYLE[decision]
    return button


def _label(decision: str) -> str:
    return decision.replace("_", " ").capitalize()


def outcome_blocks(pause_text: str, outcome: str) -> list[dict[str, Any]]:
    """The message once answered: what was asked, and who answered what; no buttons left to click."""
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": pause_text}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": outcome}]},
    ]


class Receiver:
    """The two legs of the channel: deliveries in from Stalwart, clicks back from Slack."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.ledger = Ledger()
        self.slack = WebClient(token=settings.slack_token, base_url=settings.slack_api.rstrip("/") + "/")
        self.slack_verifier = SignatureVerifier(settings.slack_signing_secret)
        self.stalwart = httpx.Client(base_url=settings.stalwart_url, timeout=30.0)

    def delivered(self, raw: bytes, signature: str | None, delivery: str | None) -> JSONResponse:
        """A pause from Stalwart: verified (five minutes either way), posted once however often it is retried."""
        try:
            verify_signature(self.settings.webhook_secret, signature, raw)
        except BadSignature as exc:
            return refused(str(exc))
        body = json.loads(raw)
        if body["type"] != "interrupt":
            return JSONResponse({"ok": True, "ignored": body["type"]})
        if not self.ledger.first_sight(delivery or body["delivery"]):
            return JSONResponse({"ok": True, "duplicate": True})
        pause = body["interrupt"]
        reference = self.ledger.keep(Waiting(body["thread"], pause["id"], pause["token"]))
        try:
            self.slack.chat_postMessage(
                channel=self.settings.slack_channel,
                text=f"{pause['tool']} is waiting for a person: {pause['question']}",
                blocks=message_blocks(pause, reference),
            )
        except SlackClientError as exc:
            self.ledger.forget(delivery or body["delivery"])
            why = exc.response["error"] if isinstance(exc, SlackApiError) else type(exc).__name__
            return JSONResponse({"error": "not_posted", "message": f"Slack did not take the message: {why}"}, 502)
        return JSONResponse({"ok": True})

    def clicked(self, raw: bytes, headers: dict[str, str]) -> JSONResponse:
        """A button from Slack: its signature checked by slack_sdk, the pause answered, the message updated."""
        if not self._from_slack(raw, headers):
            return refused("the request is not signed by Slack, or was signed more than five minutes ago")
        try:
            payload = json.loads(parse_qs(raw.decode())["payload"][0])
            [action] = payload["actions"] if payload["type"] == "block_actions" else []
        except (KeyError, TypeError, ValueError):
            return JSONResponse({"error": "unexpected", "message": "not a click on one of our buttons"}, 400)
        waiting = self.ledger.find(action["value"])
        who = f"<@{payload['user']['id']}>"
        if waiting is None:
            outcome = f"this approval is no longer known here (clicked by {who})"
        else:
            outcome = self._resume(waiting, action["action_id"], who)
        message = payload["message"]
        self.slack.chat_update(
            channel=payload["channel"]["id"],
            ts=message["ts"],
            text=f"{message.get('text', '')}: {outcome}",
            blocks=outcome_blocks(message["blocks"][0]["text"]["text"], outcome),
        )
        return JSONResponse({"ok": True})

    def _from_slack(self, raw: bytes, headers: dict[str, str]) -> bool:
        try:
            return self.slack_verifier.is_valid_request(raw, headers)
        except ValueError:
            return False

    def _resume(self, waiting: Waiting, decision: str, who: str) -> str:
        """The resume route, signed with the resume secret: a channel has no signed-in person, so it proves itself."""
        body = json.dumps({"interrupt_id": waiting.interrupt, "decision": decision, "token": waiting.token}).encode()
        headers = {"Content-Type": "application/json", "Stalwart-Signature": sign(self.settings.resume_secret, body)}
        try:
            response = self.stalwart.post(f"/threads/{waiting.thread}/resume", content=body, headers=headers)
        except httpx.TransportError:
            return f"not answered: the agent service could not be reached (clicked by {who})"
        if response.status_code == 200:
            return f"{_label(decision)} by {who}"
        if response.status_code == 409 and _code(response) == "interrupt_stale":
            return f"already answered (clicked by {who})"
        return f"not answered: {_message(response)} (clicked by {who})"


def _code(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error", ""))
    except ValueError:
        return ""


def _message(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message", f"status {response.status_code}"))
    except ValueError:
        return f"status {response.status_code}"


def refused(why: str) -> JSONResponse:
    return JSONResponse({"error": "bad_signature", "message": why}, status_code=401)


def make_receiver(settings: Settings) -> FastAPI:
    receiver = Receiver(settings)
    app = FastAPI(title="Stalwart approvals in Slack")

    @app.post("/stalwart")
    async def stalwart(request: Request) -> JSONResponse:
        raw = await request.body()
        return await _in_thread(
            receiver.delivered, raw, request.headers.get("stalwart-signature"), request.headers.get("stalwart-delivery")
        )

    @app.post("/slack/actions")
    async def slack_actions(request: Request) -> JSONResponse:
        raw = await request.body()
        return await _in_thread(receiver.clicked, raw, dict(request.headers))

    return app


async def _in_thread(function: Any, *args: Any) -> JSONResponse:
    """Slack's client and the resume call block: run them off the event loop, so deliveries and clicks overlap."""
    result: JSONResponse = await run_in_threadpool(function, *args)
    return result


def from_env() -> FastAPI:
    """The receiver as ``uvicorn --factory receiver:from_env`` serves it."""
    return make_receiver(Settings.from_env())
