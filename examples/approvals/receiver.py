"""A channel for Stalwart's pauses: each posted to Slack as its card, each click answered by the resume route.

The pattern fits any channel: verify the delivery, post it, verify the way back, resume signed.
Run it from the stalwart-agents checkout's root:

    STALWART_URL=https://agents.example STALWART_WEBHOOK_SECRET=whsec-... STALWART_RESUME_SECRET=... \\
    SLACK_BOT_TOKEN=xoxb-... SLACK_CHANNEL=C0123 SLACK_SIGNING_SECRET=... \\
    uvicorn --app-dir examples/approvals --factory receiver:from_env --port 8080
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.signature import SignatureVerifier
from starlette.concurrency import run_in_threadpool

from stalwart_agents.approvals.card import Answer, Argument, Card
from stalwart_agents.approvals.signature import BadSignature, sign, verify_signature
from stalwart_agents.approvals.strings import Said, read, said, when

Block = dict[str, Any]
SLACK_API = "https://slack.com/api/"
NEEDS_A_VALUE = {"answer"}
"""Decisions that carry a typed value: a button cannot give one, so the message sends the person to the app."""
SLACK_STYLE = {"primary": "primary", "danger": "danger"}
"""The card's styles as Slack's: ``secondary`` is a button without a style (Slack refuses any other)."""
RAW_STYLE = {"approve": "primary", "cancel_all": "danger", "decline": "danger", "abandon": "danger"}
"""The styles of a pause delivered without a card, by an older service."""
RECORDS = {
    "approve": "recordApproveBy",
    "skip": "recordSkipBy",
    "cancel_all": "recordCancelAllBy",
    "happened": "recordHappenedBy",
    "did_not_happen": "recordDidNotHappenBy",
    "retry": "recordRetryBy",
    "done_by_hand": "recordDoneByHandBy",
    "abandon": "recordAbandonBy",
    "decline": "recordDeclineBy",
}
"""The record of each decision, naming who gave it, in the interface's shipped strings."""
ARGUMENTS_PER_SECTION = 5
"""Two fields an argument (its label and origin, its value), and Slack takes ten fields a section."""
HEADER, BUTTON, FIELD, TEXT = 150, 75, 2000, 3000
"""Slack's limits on a header's, a button's, a field's and a section's text."""


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
    """What answering a pause takes, kept here so that Slack only ever sees an opaque reference; and what the
    message showed of it (the card, or the raw pause from a service that sends none), to show it once decided."""

    thread: str
    interrupt: str
    token: str
    card: Card | None
    pause: dict[str, Any]

    @property
    def title(self) -> str:
        if self.card is not None:
            return self.card["title"]
        return str(self.pause.get("title") or self.pause.get("tool") or "")


@dataclass(frozen=True)
class Decided:
    """The click that answered a pause: who gave which answer (its words), when, and the record that says so."""

    who: str
    decision: str
    words: str
    at: float
    record: str


class Ledger:
    """Deliveries seen, pauses posted and the decisions taken on them: in memory here; a receiver with replicas
    keeps them in a shared store."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deliveries: set[str] = set()
        self._waiting: dict[str, Waiting] = {}
        self._decided: dict[str, Decided] = {}
        self._turns: dict[str, threading.Lock] = {}

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

    def turn(self, reference: str) -> threading.Lock:
        """One click on a message at a time, so a second click finds the first one's decision, never a race."""
        with self._lock:
            return self._turns.setdefault(reference, threading.Lock())

    def decide(self, reference: str, decided: Decided) -> None:
        with self._lock:
            self._decided[reference] = decided

    def decided(self, reference: str) -> Decided | None:
        with self._lock:
            return self._decided.get(reference)


def message_blocks(card: Card, reference: str) -> list[Block]:
    """The card in Block Kit: its title, the warning where nothing undoes the call, each argument with its value
    and where it came from, why it asks, who decides and who asked; one button per answer, styled as the card says.
    """
    blocks = card_blocks(card)
    if card["waits_for"] is not None:
        blocks.append(_section(_esc(_say(card["waits_for"]))))
    buttons = [_button(answer, reference) for answer in card["answers"] if answer["decision"] not in NEEDS_A_VALUE]
    if buttons:
        blocks.append({"type": "actions", "block_id": "stalwart", "elements": buttons})
    typed = any(answer["decision"] in NEEDS_A_VALUE for answer in card["answers"])
    if typed or not (buttons or card["waits_for"]):
        blocks.append(_context(_say(said("linkSignIn"))))
    return blocks


def decided_blocks(card: Card, decided: Decided) -> list[Block]:
    """The card once answered: its title, who decided what and when, then what was asked; no buttons left."""
    [header, *rest] = card_blocks(card)
    return [header, _record(decided), *rest]


def card_blocks(card: Card) -> list[Block]:
    """What the message says of the pause, open or decided: every word the card's, none the receiver's own."""
    blocks: list[Block] = [{"type": "header", "text": _plain(card["title"] or card["question"], HEADER)}]
    if card["irreversible"]:
        blocks.append(_section(f":warning: *{_esc(_say(said('irreversible')))}*"))
    if card["question"] and card["question"].rstrip("?") != card["title"]:
        blocks.append({"type": "section", "text": _plain(card["question"], TEXT)})
    arguments = card["arguments"]
    for start in range(0, len(arguments), ARGUMENTS_PER_SECTION):
        shown = arguments[start : start + ARGUMENTS_PER_SECTION]
        section: Block = {"type": "section", "fields": [f for argument in shown for f in _fields(argument)]}
        if start == 0:
            section["text"] = _mrkdwn(f"*{_esc(_say(said('argumentsTitle')))}*")
        blocks.append(section)
    if card["reasons"]:
        reasons = "".join(f"\n• {_esc(_say(reason))}" for reason in card["reasons"])
        blocks.append(_section(f"*{_esc(_say(said('reasonsTitle')))}*{reasons}"))
    who = [card["deciders"], card["asked"]] if card["deciders"] is not None else [card["asked"]]
    blocks.append({"type": "context", "elements": [_mrkdwn(_esc(_say(words))) for words in who]})
    return blocks


def _fields(argument: Argument) -> list[Block]:
    """An argument as a row of two fields: its label over where its value came from; the value, exactly as it is
    (plain text, on one line, as the link page shows it), so no markup in it can hide or restyle what it says."""
    origin = _say(argument["origin"])
    if "source" in argument:
        origin += " · " + _say(said("origin_from", tool=argument["source"]["title"]))
    value = " ".join(argument["shown"].split()) or json.dumps(argument["shown"])
    return [_mrkdwn(f"*{_esc(argument['label'])}*\n_{_esc(origin)}_", FIELD), _plain(value, FIELD)]


def _button(answer: Answer, reference: str) -> Block:
    button: Block = {
        "type": "button",
        "action_id": answer["decision"],
        "text": _plain(_say(answer["words"]), BUTTON),
        "value": reference,
    }
    if answer["style"] in SLACK_STYLE:
        button["style"] = SLACK_STYLE[answer["style"]]
    return button


def _record(decided: Decided) -> Block:
    return _section(f"*{_esc(decided.record)}*\n{when(decided.at)}")


def notice(card: Card) -> str:
    """The message's text, for notifications and screen readers: the warning first where there is one."""
    words = card["question"] or card["title"]
    return _esc(f"{_say(said('irreversible'))} {words}" if card["irreversible"] else words)


def raw_blocks(pause: dict[str, Any], reference: str) -> list[Block]:
    """A pause from a service that sends no card, as it came: the tool, each argument and its origin code, why it
    stopped, one button per answer."""
    lines = [f"*{pause['tool']}* is waiting for a person", pause["question"]]
    lines += [f"• `{a['name']}` = `{json.dumps(a['value'])}` _(from {a['origin']})_" for a in pause["arguments"]]
    lines += [f"> {reason}" for reason in pause.get("reasons", [])]
    if pause.get("irreversible"):
        lines.append(":warning: This cannot be undone.")
    blocks: list[Block] = [_section("\n".join(lines))]
    buttons = [_raw_button(decision, reference) for decision in pause["answers"] if decision not in NEEDS_A_VALUE]
    if buttons:
        blocks.append({"type": "actions", "block_id": "stalwart", "elements": buttons})
    else:
        blocks.append(_context(_say(said("linkSignIn"))))
    return blocks


def raw_decided_blocks(pause: dict[str, Any], decided: Decided) -> list[Block]:
    [described, *_] = raw_blocks(pause, "")
    return [described, _record(decided)]


def _raw_button(decision: str, reference: str) -> Block:
    button: Block = {
        "type": "button",
        "action_id": decision,
        "text": _plain(_label(decision), BUTTON),
        "value": reference,
    }
    if decision in RAW_STYLE:
        button["style"] = RAW_STYLE[decision]
    return button


def _label(decision: str) -> str:
    return decision.replace("_", " ").capitalize()


def _say(words: Said) -> str:
    return read(words)


def _esc(text: str) -> str:
    """Text for Slack's mrkdwn: what it would read as a link, a mention or a command (``<...>``) shown as written."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(text: str, limit: int) -> Block:
    return {"type": "plain_text", "text": _cut(text, limit) or " ", "emoji": False}


def _mrkdwn(text: str, limit: int = TEXT) -> Block:
    return {"type": "mrkdwn", "text": _cut(text, limit)}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(text)}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_mrkdwn(_esc(text))]}


@dataclass(frozen=True)
class Resumed:
    """What the resume route said of a click: taken (the pause is answered), counted (an approval, and more are
    needed), answered already (from here or anywhere else), or not taken, and why."""

    outcome: Literal["taken", "counted", "answered", "failed"]
    why: str = ""


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
        pause, card = body["interrupt"], body.get("card")
        shown = {name: value for name, value in pause.items() if name != "token"}
        reference = self.ledger.keep(Waiting(body["thread"], pause["id"], pause["token"], card, shown))
        if card is not None:
            text, blocks = notice(card), message_blocks(card, reference)
        else:  # an older service, which sends the pause alone
            text, blocks = f"{pause['tool']} is waiting for a person: {pause['question']}", raw_blocks(pause, reference)
        try:
            self.slack.chat_postMessage(channel=self.settings.slack_channel, text=text, blocks=blocks)
        except SlackClientError as exc:
            self.ledger.forget(delivery or body["delivery"])
            why = exc.response["error"] if isinstance(exc, SlackApiError) else type(exc).__name__
            return JSONResponse({"error": "not_posted", "message": f"Slack did not take the message: {why}"}, 502)
        return JSONResponse({"ok": True})

    def clicked(self, raw: bytes, headers: dict[str, str]) -> JSONResponse:
        """A button from Slack, its signature checked by slack_sdk.  The first click that answers the pause turns
        the message into the record of the decision; any other click is answered to its clicker alone, and the
        message, with its record of who decided, stays as it is."""
        if not self._from_slack(raw, headers):
            return refused("the request is not signed by Slack, or was signed more than five minutes ago")
        try:
            payload = json.loads(parse_qs(raw.decode())["payload"][0])
            [action] = payload["actions"] if payload["type"] == "block_actions" else []
            reference, decision = action["value"], action["action_id"]
            user, channel, ts = payload["user"], payload["channel"]["id"], payload["message"]["ts"]
        except (KeyError, TypeError, ValueError):
            return JSONResponse({"error": "unexpected", "message": "not a click on one of our buttons"}, 400)
        waiting = self.ledger.find(reference)
        if waiting is None:  # posted before a restart, or by another replica: the app's inbox still has it
            self._tell(channel, user["id"], _say(said("linkSignIn")))
            return JSONResponse({"ok": True})
        with self.ledger.turn(reference):
            done = self.ledger.decided(reference)
            if done is None:
                resumed = self._resume(waiting, decision)
                if resumed.outcome != "taken":
                    self._tell(channel, user["id"], self._sentence(resumed, waiting))
                    return JSONResponse({"ok": True})
                done = self._record(waiting, decision, _name(user))
                self.ledger.decide(reference, done)
                blocks = (
                    decided_blocks(waiting.card, done)
                    if waiting.card is not None
                    else raw_decided_blocks(waiting.pause, done)
                )
                self.slack.chat_update(channel=channel, ts=ts, text=_esc(done.record), blocks=blocks)
                return JSONResponse({"ok": True})
        late = said("linkUsedBy", who=done.who, decision=done.words, when=when(done.at))
        self._tell(channel, user["id"], _say(late))
        return JSONResponse({"ok": True})

    def _from_slack(self, raw: bytes, headers: dict[str, str]) -> bool:
        try:
            return self.slack_verifier.is_valid_request(raw, headers)
        except ValueError:
            return False

    def _tell(self, channel: str, user: str, sentence: str) -> None:
        """A reply only the clicker sees: the message everyone sees is left as it was."""
        self.slack.chat_postEphemeral(channel=channel, user=user, text=_esc(sentence))

    def _record(self, waiting: Waiting, decision: str, who: str) -> Decided:
        """The decision as the message keeps it: who (as Slack names them), the answer's words, when."""
        answers = waiting.card["answers"] if waiting.card is not None else []
        words = next((_say(a["words"]) for a in answers if a["decision"] == decision), _label(decision))
        delegated = waiting.card is not None and waiting.card["kind"] == "delegate" and decision == "approve"
        key = "recordDelegateBy" if delegated else RECORDS.get(decision, "recordOtherBy")
        record = _say(said(key, who=who, title=waiting.title, decision=words))
        return Decided(who, decision, words, time.time(), record)

    def _sentence(self, resumed: Resumed, waiting: Waiting) -> str:
        if resumed.outcome == "answered":
            return f"{_say(said('linkUsed'))}: {waiting.title}"
        if resumed.outcome == "counted":
            return _say(said("outcomeCounted"))
        return f"{_say(said('linkNotTaken'))}: {resumed.why}"

    def _resume(self, waiting: Waiting, decision: str) -> Resumed:
        """The resume route, signed with the resume secret: a channel has no signed-in person, so it proves itself."""
        body = json.dumps({"interrupt_id": waiting.interrupt, "decision": decision, "token": waiting.token}).encode()
        headers = {"Content-Type": "application/json", "Stalwart-Signature": sign(self.settings.resume_secret, body)}
        try:
            response = self.stalwart.post(f"/threads/{waiting.thread}/resume", content=body, headers=headers)
        except httpx.TransportError:
            return Resumed("failed", "the agent service could not be reached")
        if response.status_code == 200:
            still = [p for p in _json(response).get("waiting") or [] if p.get("id") == waiting.interrupt]
            return Resumed("counted" if still else "taken")
        if response.status_code == 409 and _code(response) in ("interrupt_stale", "pause_closed"):
            return Resumed("answered")
        if response.status_code == 409 and _code(response) == "already_approved":
            return Resumed("counted")
        return Resumed("failed", _message(response))


def _name(user: dict[str, Any]) -> str:
    """Who clicked, as the interaction's payload names them."""
    return str(user.get("username") or user.get("name") or user["id"])


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        found = response.json()
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _code(response: httpx.Response) -> str:
    return str(_json(response).get("error", ""))


def _message(response: httpx.Response) -> str:
    return str(_json(response).get("message", f"status {response.status_code}"))


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

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        """Up: for a load balancer, and for the tests that start the receiver as the README does."""
        return {"ok": True}

    return app


async def _in_thread(function: Any, *args: Any) -> JSONResponse:
    """Slack's client and the resume call block: run them off the event loop, so deliveries and clicks overlap."""
    result: JSONResponse = await run_in_threadpool(function, *args)
    return result


def from_env() -> FastAPI:
    """The receiver as ``uvicorn --app-dir examples/approvals --factory receiver:from_env`` serves it."""
    return make_receiver(Settings.from_env())
