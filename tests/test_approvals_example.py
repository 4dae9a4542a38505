"""examples/approvals end to end over real HTTP: the service, the receiver and a fake Slack, each under uvicorn."""

import hashlib
import hmac
import importlib.util
import json
import sys
import time
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI, Request

from stalwart_agents import Desk, Webhook
from stalwart_agents.approvals.webhook import sign
from stalwart_agents.engine.pause import canonical
from stalwart_agents.serve import make_app
from tests.conftest import ROOT, SHOP, present
from tests.server import Later, serving

WEBHOOK_SECRET, RESUME_SECRET, SIGNING_SECRET = "whsec-approvals", "resume-approvals", "slack-signing-secret"
BOT_TOKEN, CHANNEL, ANA = "xoxb-test-token", "C0OPS", "U0ANA"
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}


def load_receiver():
    spec = present(
        importlib.util.spec_from_file_location("approvals_receiver", ROOT / "examples" / "approvals" / "receiver.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    present(spec.loader).exec_module(module)
    return module


class FakeSlack:
    """Slack's Web API as far as the receiver uses it: it keeps every call and answers as Slack does."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.refusals: list[str] = []
        """Errors to answer the next calls with, as Slack does with ok: false."""

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/api/{method}")
        async def method(method: str, request: Request):
            if request.headers.get("authorization") != f"Bearer {BOT_TOKEN}":
                return {"ok": False, "error": "invalid_auth"}
            if self.refusals:
                return {"ok": False, "error": self.refusals.pop(0)}
            body = await request.json()
            self.calls.append((method, body))
            return {"ok": True, "channel": body["channel"], "ts": body.get("ts", f"1700000000.{len(self.calls):06d}")}

        return app

    def made(self, method: str) -> list[dict]:
        return [body for name, body in self.calls if name == method]


@pytest.fixture
def channel(tmp_path, ledger, monkeypatch):
    """The service (the shop, webhook to the receiver, signed resumes only), the receiver, and the fake Slack."""
    slack, service = FakeSlack(), Later()  # the service and the receiver each need the other's URL
    with serving(slack.app()) as slack_base, serving(service) as service_base:
        monkeypatch.setenv("STALWART_URL", service_base)
        monkeypatch.setenv("STALWART_WEBHOOK_SECRET", WEBHOOK_SECRET)
        monkeypatch.setenv("STALWART_RESUME_SECRET", RESUME_SECRET)
        monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
        monkeypatch.setenv("SLACK_CHANNEL", CHANNEL)
        monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
        monkeypatch.setenv("SLACK_API_URL", f"{slack_base}/api/")
        with serving(load_receiver().from_env()) as receiver_base:
            desk = Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}")
            hook = Webhook(f"{receiver_base}/stalwart", WEBHOOK_SECRET)
            service.app = make_app(desk, on_interrupt=hook, secret=RESUME_SECRET)
            yield service_base, receiver_base, slack
            desk.close()


def slack_signed(body: str, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """Headers as Slack sends them: v0= the HMAC-SHA256 of "v0:{timestamp}:{body}" under the app's signing secret."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": str(timestamp),
        "X-Slack-Signature": f"v0={mac}",
    }


def click(posted: dict, decision: str, user: str = ANA) -> str:
    """The form body of a Slack block_actions interaction: a person pressed one of the posted message's buttons."""
    [button] = [b for b in posted["blocks"][1]["elements"] if b["action_id"] == decision]
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": "ana"},
        "channel": {"id": posted["channel"]},
        "message": {"ts": "1700000000.000001", "text": posted["text"], "blocks": posted["blocks"]},
        "actions": [{"type": "button", "block_id": "stalwart", "action_id": decision, "value": button["value"]}],
    }
    return urlencode({"payload": json.dumps(payload)})


def test_a_pause_is_posted_to_slack_with_its_buttons_and_an_approval_there_charges_once(channel, ledger):
    service, receiver, slack = channel
    answer = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()
    [pause] = answer["waiting"]
    assert answer["not_notified"] == []
    [posted] = slack.made("chat.postMessage")
    assert posted["channel"] == CHANNEL
    assert [b["action_id"] for b in posted["blocks"][1]["elements"]] == ["approve", "skip", "cancel_all"]
    described = posted["blocks"][0]["text"]["text"]
    assert "charge_card" in described and all(f"`{a['name']}`" in described for a in pause["arguments"])
    assert pause["token"] not in json.dumps(posted)

    body = click(posted, "approve")
    assert httpx.post(f"{receiver}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
    assert len(ledger("charge")) == 1
    [updated] = slack.made("chat.update")
    assert updated["ts"] == "1700000000.000001" and updated["channel"] == CHANNEL
    assert "Approve by <@U0ANA>" in json.dumps(updated) and all(b["type"] != "actions" for b in updated["blocks"])

    again = click(posted, "approve", user="U0BEN")
    assert httpx.post(f"{receiver}/slack/actions", content=again, headers=slack_signed(again)).status_code == 200
    assert len(ledger("charge")) == 1
    assert "already answered (clicked by <@U0BEN>)" in json.dumps(slack.made("chat.update")[1])


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(lambda body: slack_signed(body, secret="not-the-signing-secret"), id="forged"),
        pytest.param(lambda body: slack_signed(body, timestamp=int(time.time()) - 310), id="stale"),
        pytest.param(lambda body: slack_signed(body, timestamp=int(time.time()) + 310), id="future"),
        pytest.param(lambda body: {**slack_signed(body), "X-Slack-Request-Timestamp": "soon"}, id="malformed"),
        pytest.param(lambda body: {"Content-Type": "application/x-www-form-urlencoded"}, id="unsigned"),
    ],
)
def test_a_click_slack_did_not_sign_just_now_is_refused_and_nothing_runs(channel, ledger, headers):
    service, receiver, slack = channel
    [pause] = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()["waiting"]
    body = click(slack.made("chat.postMessage")[0], "approve")
    refused = httpx.post(f"{receiver}/slack/actions", content=body, headers=headers(body))
    assert (refused.status_code, refused.json()["error"]) == (401, "bad_signature")
    assert ledger("charge") == [] and slack.made("chat.update") == []
    assert httpx.get(f"{service}/threads/u-17/interrupts").json()["waiting"] == [pause]


def test_a_forged_delivery_is_refused_and_a_retried_one_posted_once(channel):
    service, receiver, slack = channel
    [pause] = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()["waiting"]
    [posted] = slack.made("chat.postMessage")
    delivery = {"delivery": "d_forged", "type": "interrupt", "thread": "u-17", "interrupt": {"id": "i-1"}}
    raw = json.dumps(delivery).encode()
    forged = httpx.post(f"{receiver}/stalwart", content=raw, headers={"Stalwart-Signature": sign("guess", raw)})
    old = httpx.post(
        f"{receiver}/stalwart",
        content=raw,
        headers={"Stalwart-Signature": sign(WEBHOOK_SECRET, raw, timestamp=int(time.time()) - 301)},
    )
    assert [(r.status_code, r.json()["error"]) for r in (forged, old)] == [(401, "bad_signature")] * 2
    assert slack.made("chat.postMessage") == [posted]

    retried = canonical({"delivery": "d_retried", "type": "interrupt", "thread": "u-17", "interrupt": pause}).encode()
    with Webhook(f"{receiver}/stalwart", WEBHOOK_SECRET) as hook:
        hook.deliver("d_retried", retried)
        hook.deliver("d_retried", retried)
    assert len(slack.made("chat.postMessage")) == 2


def test_a_signed_interaction_that_is_not_a_button_click_is_refused_with_a_sentence(channel, ledger):
    service, receiver, _ = channel
    httpx.post(f"{service}/threads/u-17/messages", json=CHARGE)
    body = urlencode({"payload": json.dumps({"type": "view_submission", "user": {"id": ANA}})})
    answer = httpx.post(f"{receiver}/slack/actions", content=body, headers=slack_signed(body))
    assert (answer.status_code, answer.json()["message"]) == (400, "not a click on one of our buttons")
    assert ledger("charge") == []


def test_a_message_slack_refuses_is_posted_when_the_service_retries_the_delivery(channel):
    service, _, slack = channel
    slack.refusals.append("ratelimited")
    answer = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()
    assert answer["not_notified"] == []
    [posted] = slack.made("chat.postMessage")
    assert [b["action_id"] for b in posted["blocks"][1]["elements"]] == ["approve", "skip", "cancel_all"]
