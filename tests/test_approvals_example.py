"""examples/approvals end to end over real HTTP: the service, the receiver and a fake Slack, each under uvicorn."""

import contextlib
import json
import re
import shlex
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from stalwart_agents import Desk, Webhook
from stalwart_agents.approvals.card import card_of
from stalwart_agents.approvals.strings import say
from stalwart_agents.approvals.webhook import sign
from stalwart_agents.engine.pause import canonical
from stalwart_agents.serve import make_app
from tests.conftest import ROOT, SHOP
from tests.server import Later, at_once, free_port, serving
from tests.slack_api import BOT_TOKEN, SIGNING_SECRET, FakeSlack, buttons, slack_signed, words
from tests.test_approvers import opened
from tests.test_card import LABELLED, started

WEBHOOK_SECRET, RESUME_SECRET = "whsec-approvals", "resume-approvals"
CHANNEL, ANA, BEN = "C0OPS", "U0ANA", "U0BEN"
NAMES = {ANA: "ana", BEN: "ben"}
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
README = ROOT / "examples" / "approvals" / "README.md"
WHEN = r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC"
"""A moment as the message writes it: 1 Dec 2026, 16:26 UTC."""


def readme_command(port: int) -> list[str]:
    """The receiver's command exactly as the README gives it, on 127.0.0.1:``port`` and with this venv's uvicorn."""
    [line] = [line.strip() for line in README.read_text().splitlines() if line.strip().startswith("uvicorn ")]
    command = shlex.split(line)
    command[0] = str(Path(sys.executable).parent / "uvicorn")
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    return command


@contextlib.contextmanager
def receiver_as_the_readme_runs_it(log: Path):
    """The receiver started from the checkout's root by the README's own command, its environment already set."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("w") as out:
        process = subprocess.Popen(readme_command(port), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while not up(base):
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=10)
            print(log.read_text())  # shown where a test fails


def up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def when(iso: str) -> str:
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return f"{moment.day} {moment:%b %Y, %H:%M} UTC"


def context(posted: dict) -> list[str]:
    """The card's context: who must decide, where a rule says, and who asked, when."""
    first = next(block for block in posted["blocks"] if block["type"] == "context")
    return [element["text"] for element in first["elements"]]


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
        with receiver_as_the_readme_runs_it(tmp_path / "receiver.log") as receiver_base:
            desk = Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}")
            hook = Webhook(f"{receiver_base}/stalwart", WEBHOOK_SECRET)
            service.app = make_app(desk, on_interrupt=hook, secret=RESUME_SECRET)
            yield service_base, receiver_base, slack
            desk.close()
        assert slack.invalid == []


def click(posted: dict, decision: str, user: str = ANA) -> str:
    """The form body of a Slack block_actions interaction: a person pressed one of the posted message's buttons."""
    [button] = [b for b in buttons(posted) if b["action_id"] == decision]
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": NAMES[user], "name": NAMES[user], "team_id": "T0SHOP"},
        "channel": {"id": posted["channel"]},
        "message": {"ts": "1700000000.000001", "text": posted["text"], "blocks": posted["blocks"]},
        "actions": [{"type": "button", "block_id": "stalwart", "action_id": decision, "value": button["value"]}],
    }
    return urlencode({"payload": json.dumps(payload)})


def test_a_pause_is_posted_to_slack_as_its_card_and_an_approval_there_charges_once(channel, ledger):
    service, receiver, slack = channel
    answer = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()
    [pause] = answer["waiting"]
    assert answer["not_notified"] == []
    [posted] = slack.made("chat.postMessage")
    assert posted["channel"] == CHANNEL
    assert [b["action_id"] for b in buttons(posted)] == ["approve", "skip", "cancel_all"]
    assert [(b["text"]["text"], b.get("style")) for b in buttons(posted)] == [
        ("Approve", "primary"),
        ("Skip this step", None),
        ("Cancel everything", "danger"),
    ]
    title = {"type": "header", "text": {"type": "plain_text", "text": "Charge 40.00 EUR to order 4411", "emoji": False}}
    assert posted["blocks"][0] == title and posted["text"] == "Charge 40.00 EUR to order 4411?"
    [arguments] = [block for block in posted["blocks"] if "fields" in block]
    assert arguments["text"]["text"] == "*What it will use*"
    assert [(f["type"], f["text"]) for f in arguments["fields"]] == [
        ("mrkdwn", "*Amount*\n_the person who asked typed it_"),
        ("plain_text", "40.00 EUR"),
        ("mrkdwn", "*Order*\n_the person who asked typed it_"),
        ("plain_text", "4411"),
    ]
    said = words(posted["blocks"])
    assert "*Why this needs you*\n• It changes something outside this conversation." in said
    assert context(posted) == [f"Asked {when(pause['created_at'])}"]
    shown = json.dumps(posted)
    assert all(raw not in shown for raw in ("charge_card", "`amount`", "from typed", "> write", "origin_", "reason_"))
    assert pause["token"] not in shown

    body = click(posted, "approve")
    assert httpx.post(f"{receiver}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
    assert len(ledger("charge")) == 1
    [updated] = slack.made("chat.update")
    assert updated["ts"] == "1700000000.000001" and updated["channel"] == CHANNEL
    assert updated["text"] == "ana approved: Charge 40.00 EUR to order 4411"
    assert updated["blocks"][0] == title and all(b["type"] != "actions" for b in updated["blocks"])
    decided = re.fullmatch(
        rf"\*ana approved: Charge 40.00 EUR to order 4411\*\n({WHEN})", updated["blocks"][1]["text"]["text"]
    )
    assert decided is not None and arguments in updated["blocks"]  # who, what and when, and what it was about
    assert slack.made("chat.postEphemeral") == []

    again = click(posted, "approve", user=BEN)
    assert httpx.post(f"{receiver}/slack/actions", content=again, headers=slack_signed(again)).status_code == 200
    assert len(ledger("charge")) == 1
    assert slack.made("chat.update") == [updated]  # the record of who decided stands
    [told] = slack.made("chat.postEphemeral")
    assert (told["channel"], told["user"]) == (CHANNEL, BEN)
    assert told["text"] == f"ana already answered this: Approve, {decided.group(1)}."


def test_two_clicks_at_once_charge_once_and_the_one_that_lost_is_told_who_won(channel, ledger):
    service, receiver, slack = channel
    httpx.post(f"{service}/threads/u-17/messages", json=CHARGE)
    [posted] = slack.made("chat.postMessage")
    bodies = [click(posted, "approve", user=ANA), click(posted, "cancel_all", user=BEN)]
    answers = at_once(
        *(lambda b=b: httpx.post(f"{receiver}/slack/actions", content=b, headers=slack_signed(b)) for b in bodies)
    )
    assert [a.status_code for a in answers] == [200, 200]
    [updated], [told] = slack.made("chat.update"), slack.made("chat.postEphemeral")
    winner = "ana approved" if updated["text"].startswith("ana") else "ben cancelled"
    assert updated["text"] == f"{winner}: Charge 40.00 EUR to order 4411"
    assert len(ledger("charge")) == (1 if winner == "ana approved" else 0)
    loser, name, words_given = (
        (BEN, "ana", "Approve") if winner == "ana approved" else (ANA, "ben", "Cancel everything")
    )
    assert told["user"] == loser and re.fullmatch(
        rf"{name} already answered this: {words_given}, {WHEN}\.", told["text"]
    )


def test_a_click_on_a_pause_answered_elsewhere_is_told_so_and_the_message_left_as_it_was(channel, ledger):
    service, receiver, slack = channel
    [pause] = httpx.post(f"{service}/threads/u-17/messages", json=CHARGE).json()["waiting"]
    [posted] = slack.made("chat.postMessage")
    given = json.dumps({"interrupt_id": pause["id"], "decision": "skip", "token": pause["token"]}).encode()
    signed = {"Content-Type": "application/json", "Stalwart-Signature": sign(RESUME_SECRET, given)}
    assert httpx.post(f"{service}/threads/u-17/resume", content=given, headers=signed).status_code == 200

    body = click(posted, "approve")
    assert httpx.post(f"{receiver}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
    assert ledger("charge") == [] and slack.made("chat.update") == []
    [told] = slack.made("chat.postEphemeral")
    assert (told["user"], told["text"]) == (ANA, "Already answered: Charge 40.00 EUR to order 4411")


def test_a_call_nothing_undoes_is_said_first_and_a_question_that_needs_typing_is_sent_to_the_app(channel):
    service, _, slack = channel
    httpx.post(f"{service}/threads/u-17/messages", json={"text": "mail the receipt for order 4411"})
    [receipt] = slack.made("chat.postMessage")
    assert receipt["blocks"][0]["text"]["text"] == "Mail the receipt for order 4411"
    assert receipt["blocks"][1] == {
        "type": "section",
        "text": {"type": "mrkdwn", "text": ":warning: *Nothing can undo this step once it runs.*"},
    }
    assert receipt["text"] == "Nothing can undo this step once it runs. Mail the receipt for this order?"
    assert "Mail the receipt for this order?" in words(receipt["blocks"])
    assert [(b["text"]["text"], b.get("style")) for b in buttons(receipt)] == [
        ("Approve — cannot be undone", "primary"),
        ("Skip this step", None),
        ("Cancel everything", "danger"),
    ]

    httpx.post(f"{service}/threads/u-18/messages", json={"text": "look up order 4411 and charge order 4411"})
    [_, ask] = slack.made("chat.postMessage")
    said = words(ask["blocks"])
    assert ask["blocks"][0]["text"]["text"] == "Charge a card" and "Charge a card: what amount?" in said
    assert "*Why this needs you*\n• It needs amount, which was not given." in said
    assert all(b["type"] != "actions" for b in ask["blocks"])
    assert said[-1] == "To answer, sign in: it waits in your inbox."


def test_who_must_decide_who_asked_and_where_a_value_came_from_are_in_the_cards_words(channel, tmp_path, ledger):
    _, receiver, slack = channel
    (tmp_path / "finance").mkdir()
    with opened(tmp_path / "finance", LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        card: dict[str, Any] = dict(card_of(pause, desk.verdict(pause, None), None))
    card["arguments"][1] = {**card["arguments"][1], "source": {"title": "Look up an order"}}
    card["arguments"][1]["shown"] = "4411 <!channel>\n*paid*"  # markup in a value is shown, never read as markup
    delivery = {"delivery": "d_large", "type": "interrupt", "thread": "large", "interrupt": pause.to_dict()}
    with Webhook(f"{receiver}/stalwart", WEBHOOK_SECRET) as hook:
        hook.deliver("d_large", canonical({**delivery, "card": card}).encode())
    [posted] = slack.made("chat.postMessage")
    assert posted["blocks"][0]["text"]["text"] == card["title"] == "Charge 1,500.00 EUR to order 4411"
    assert say(card["deciders"]) == "Needs an approver from finance"
    asked = f"Asked by alice@shop.example, {when(pause.created_at)}"
    assert context(posted) == ["Needs an approver from finance", asked]
    [arguments] = [block for block in posted["blocks"] if "fields" in block]
    assert [(f["type"], f["text"]) for f in arguments["fields"]] == [
        ("mrkdwn", "*Amount*\n_alice@shop.example typed it_"),
        ("plain_text", "1,500.00 EUR"),
        ("mrkdwn", "*Order*\n_alice@shop.example typed it · from Look up an order_"),
        ("plain_text", "4411 <!channel> *paid*"),
    ]
    assert "<!channel>" not in json.dumps([b for b in posted["blocks"] if b is not arguments])


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
    assert ledger("charge") == [] and slack.made("chat.update") == [] and slack.made("chat.postEphemeral") == []
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

    older = {name: value for name, value in pause.items() if name != "card"}  # as a service without cards sends it
    retried = canonical({"delivery": "d_retried", "type": "interrupt", "thread": "u-17", "interrupt": older}).encode()
    with Webhook(f"{receiver}/stalwart", WEBHOOK_SECRET) as hook:
        hook.deliver("d_retried", retried)
        hook.deliver("d_retried", retried)
    [_, raw] = slack.made("chat.postMessage")
    assert [b["action_id"] for b in buttons(raw)] == ["approve", "skip", "cancel_all"]
    described = raw["blocks"][0]["text"]["text"]
    assert "charge_card" in described and all(f"`{a['name']}`" in described for a in pause["arguments"])
    assert pause["token"] not in json.dumps(raw)


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
    assert [b["action_id"] for b in buttons(posted)] == ["approve", "skip", "cancel_all"]


def test_a_click_the_receiver_holds_nothing_for_is_sent_to_the_app_and_nothing_runs(channel, ledger):
    service, receiver, slack = channel
    httpx.post(f"{service}/threads/u-17/messages", json=CHARGE)
    [posted] = slack.made("chat.postMessage")
    forgotten = {**posted, "blocks": json.loads(json.dumps(posted["blocks"]).replace(buttons(posted)[0]["value"], "x"))}
    body = click(forgotten, "approve")  # a message posted before the receiver restarted: its references are gone
    assert httpx.post(f"{receiver}/slack/actions", content=body, headers=slack_signed(body)).status_code == 200
    assert ledger("charge") == [] and slack.made("chat.update") == []
    [told] = slack.made("chat.postEphemeral")
    assert (told["user"], told["text"]) == (ANA, "To answer, sign in: it waits in your inbox.")
