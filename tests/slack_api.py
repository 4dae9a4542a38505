"""Slack's Web API on 127.0.0.1, as far as the product and the example use it, with Slack's request and answer shapes;
and what Slack sends back: a signed interaction when a person clicks a button."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, Request

BOT_TOKEN, SIGNING_SECRET, TEAM = "xoxb-test-token", "slack-signing-secret", "T0SHOP"


class FakeSlack:
    """Slack's Web API: it keeps every call, the messages as they stand, and answers as Slack does.

    ``users`` are the workspace's people by id: ``{"name", "real_name", "email"}`` each, as ``users.info`` gives them.
    """

    def __init__(self, users: dict[str, dict[str, str]] | None = None) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.refusals: list[str] = []
        """Errors to answer the next calls with, as Slack does with ok: false."""
        self.invalid: list[str] = []
        """Blocks Slack would have refused (invalid_blocks), and why."""
        self.users = users or {}
        self.messages: dict[tuple[str, str], dict] = {}
        """Each message posted, by channel and ts, as it now reads (after every chat.update)."""
        self.posted: list[tuple[str, str]] = []
        """The channel and ts of each message posted, in order."""

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.api_route("/api/{method}", methods=["GET", "POST"])
        async def method(method: str, request: Request):
            if request.headers.get("authorization") != f"Bearer {BOT_TOKEN}":
                return {"ok": False, "error": "invalid_auth"}
            if self.refusals:
                return {"ok": False, "error": self.refusals.pop(0)}
            body = await arguments(request)
            if invalid := refused_blocks(body.get("blocks", [])):
                self.invalid.append(invalid)
                return {"ok": False, "error": "invalid_blocks", "errors": [invalid]}
            self.calls.append((method, body))
            return self.answer(method, body)

        return app

    def answer(self, method: str, body: dict) -> dict[str, Any]:
        if method == "chat.postMessage":
            ts = f"1700000000.{len(self.calls):06d}"
            self.messages[(body["channel"], ts)] = {**body, "ts": ts}
            self.posted.append((body["channel"], ts))
            return {"ok": True, "channel": body["channel"], "ts": ts, "message": {"type": "message", "ts": ts}}
        if method == "chat.update":
            key = (body["channel"], body["ts"])
            if key not in self.messages:
                return {"ok": False, "error": "message_not_found"}
            self.messages[key] = {**self.messages[key], **body}
            return {"ok": True, "channel": body["channel"], "ts": body["ts"], "text": body.get("text", "")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1700000001.{len(self.calls):06d}"}
        if method == "users.info":
            return self.user(body.get("user", ""))
        return {"ok": False, "error": "unknown_method"}

    def user(self, user: str) -> dict[str, Any]:
        if user not in self.users:
            return {"ok": False, "error": "user_not_found"}
        known = self.users[user]
        profile = {"real_name": known["real_name"], "display_name": known["name"], "email": known["email"]}
        person = {"id": user, "team_id": TEAM, "name": known["name"], "real_name": known["real_name"]}
        return {"ok": True, "user": {**person, "deleted": False, "is_bot": False, "profile": profile}}

    def made(self, method: str) -> list[dict]:
        return [body for name, body in self.calls if name == method]

    def message(self, index: int = 0) -> dict:
        """A message posted to a channel (not in a thread), as it reads now: the first by default."""
        return [self.messages[key] for key in self.posted if "thread_ts" not in self.messages[key]][index]

    def replies(self, message: dict) -> list[dict]:
        """The messages posted in ``message``'s thread, as they read now."""
        return [self.messages[key] for key in self.posted if self.messages[key].get("thread_ts") == message["ts"]]


async def arguments(request: Request) -> dict[str, Any]:
    """A method's arguments, as Slack takes them: a JSON body, a form, or the query string."""
    if request.headers.get("content-type", "").startswith("application/json"):
        return await request.json()
    form = await request.form()
    return {**request.query_params, **{name: str(value) for name, value in form.items()}}


def refused_blocks(blocks: list[dict]) -> str | None:
    """Why Slack would refuse ``blocks`` (the limits and the shapes our messages could break), or None."""
    if len(blocks) > 50:
        return "more than 50 blocks"
    for block in blocks:
        texts = [block.get("text"), *block.get("fields", []), *block.get("elements", [])]
        if any(isinstance(t, dict) and t.get("type") in ("plain_text", "mrkdwn") and not t["text"] for t in texts):
            return f"an empty text in a {block['type']}"
        if block["type"] == "header" and (block["text"]["type"] != "plain_text" or len(block["text"]["text"]) > 150):
            return "a header must be plain text of at most 150 characters"
        if block["type"] == "section":
            if "text" not in block and not block.get("fields"):
                return "a section needs a text or fields"
            if len(block.get("fields", [])) > 10 or any(len(f["text"]) > 2000 for f in block.get("fields", [])):
                return "a section takes at most 10 fields of at most 2000 characters"
            if "text" in block and len(block["text"]["text"]) > 3000:
                return "a section's text is at most 3000 characters"
        if block["type"] == "context" and len(block["elements"]) > 10:
            return "a context takes at most 10 elements"
        if block["type"] == "actions" and len(block["elements"]) > 25:
            return "an actions block takes at most 25 elements"
        for button in (e for e in block.get("elements", []) if e.get("type") == "button"):
            if button.get("style", "primary") not in ("primary", "danger"):
                return f"a button's style is primary or danger, or none: {button['style']!r}"
            if button["text"]["type"] != "plain_text" or len(button["text"]["text"]) > 75:
                return "a button's text is plain text of at most 75 characters"
            if len(button.get("value", "")) > 2000 or len(button.get("url", "")) > 3000:
                return "a button's value is at most 2000 characters, its url at most 3000"
            if len(button["action_id"]) > 255:
                return "an action_id is at most 255 characters"
    return None


def words(blocks: list[dict]) -> list[str]:
    """Every text a person reads in ``blocks``: headers, sections, fields, context and buttons."""
    found: list[str] = []
    for block in blocks:
        texts = [block.get("text"), *block.get("fields", []), *block.get("elements", [])]
        found += [t["text"] for t in texts if isinstance(t, dict) and "text" in t and isinstance(t["text"], str)]
        found += [e["text"]["text"] for e in block.get("elements", []) if isinstance(e.get("text"), dict)]
    return found


def buttons(posted: dict) -> list[dict]:
    """The buttons of a message; none where it has no actions block."""
    return [e for block in posted["blocks"] if block["type"] == "actions" for e in block["elements"]]


def slack_signed(body: str, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """Headers as Slack sends them: v0= the HMAC-SHA256 of "v0:{timestamp}:{body}" under the app's signing secret."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": str(timestamp),
        "X-Slack-Signature": f"v0={mac}",
    }


def interaction(message: dict, action_id: str, user: str, name: str, team: str = TEAM) -> str:
    """The form body of a ``block_actions`` interaction, as Slack posts it when ``user`` presses the button
    ``action_id`` of ``message`` (as posted, with its channel and ts)."""
    [button] = [b for b in buttons(message) if b["action_id"] == action_id]
    action = {
        "type": "button",
        "block_id": "stalwart",
        "action_id": action_id,
        "text": button["text"],
        "action_ts": f"{time.time():.6f}",
        **{key: button[key] for key in ("value", "url", "style") if key in button},
    }
    channel, ts = message["channel"], message["ts"]
    payload = {
        "type": "block_actions",
        "team": {"id": team, "domain": "shop"},
        "user": {"id": user, "username": name, "name": name, "team_id": team},
        "api_app_id": "A0STALWART",
        "token": "a-deprecated-verification-token",
        "container": {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False},
        "trigger_id": secrets.token_hex(8),
        "channel": {"id": channel, "name": "ops"},
        "message": {"type": "message", "ts": ts, "text": message["text"], "blocks": message["blocks"]},
        "response_url": f"https://hooks.slack.com/actions/{team}/1/{secrets.token_hex(8)}",
        "actions": [action],
    }
    return urlencode({"payload": json.dumps(payload)})
