"""Slack as a channel of the product, over real HTTP: the service under uvicorn, Slack's Web API on 127.0.0.1 with
Slack's request shapes (``slack_api.py``), and clicks verified by slack_sdk's own verifier.

Who clicked is a person to the rules: a Slack user of the workspace, named and mailed as Slack's users API says and
put in the team's groups by agent.yaml.  Every click is checked against the shop's own ledger."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.approvals.card import card_of
from stalwart_agents.approvals.links import Links
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.channels import Channels
from stalwart_agents.channels.slack import Slack
from stalwart_agents.serve import make_app

from .server import Later, at_once, serving
from .slack_api import BOT_TOKEN, SIGNING_SECRET, FakeSlack, buttons, interaction, slack_signed, words
from .test_approvers import FINANCE_FOR_LARGE, FOUR_EYES, shop

pytestmark = pytest.mark.sqlite

CHANNEL, FINANCE_CHANNEL = "C0OPS", "C0FINANCE"
FIONA, GINA, MALLORY, NOBODY = "U0FIONA", "U0GINA", "U0MALLORY", "U0GONE"
PEOPLE = {
    FIONA: {"name": "fiona", "real_name": "Fiona Walsh", "email": "fiona@shop.example"},
    GINA: {"name": "gina", "real_name": "Gina Ortiz", "email": "Gina@Shop.example"},
    MALLORY: {"name": "mallory", "real_name": "Mallory Lane", "email": "mallory@shop.example"},
}
ENV = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
LARGE, SMALL = {"text": "charge 1500 to order 4411"}, {"text": "charge 40 to order 4411"}
LARGE_TITLE = "Charge 1,500.00 EUR to order 4411"
WHEN = r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC"
"""A moment as the message writes it: 1 Dec 2026, 16:26 UTC."""


def channels(api: str, more: str = "") -> str:
    """agent.yaml's ``channels:``: Slack at ``api``, finance given by a Slack id and by an e-mail."""
    return (
        "channels:\n"
        "  slack:\n"
        "    bot_token: {env: SLACK_BOT_TOKEN}\n"
        "    signing_secret: {env: SLACK_SIGNING_SECRET}\n"
        f"    channel: {CHANNEL}\n"
        f"    api_url: {api}/api/\n"
        f"    groups: {{finance: [{FIONA}, gina@shop.example], managers: [{MALLORY}]}}\n"
        f"{more}"
    )


@dataclass
class Served:
    """The shop served with Slack as its channel: where it is, its desk, and Slack as it stands."""

    base: str
    desk: Desk
    slack: FakeSlack

    def turn(self, text: dict, thread: str = "u-17") -> dict:
        answer = httpx.post(f"{self.base}/threads/{thread}/messages", json=text).json()
        assert answer["not_notified"] == []
        return answer

    def click(self, message: dict, action: str, user: str, headers: Callable[[str], dict] = slack_signed):
        body = interaction(message, action, user, PEOPLE.get(user, {"name": "gone"})["name"])
        return httpx.post(f"{self.base}/slack/actions", content=body, headers=headers(body))

    def told(self, user: str) -> list[str]:
        """What was said to ``user`` alone."""
        return [m["text"] for m in self.slack.made("chat.postEphemeral") if m["user"] == user]


def eventually(condition: Callable[[], object], seconds: float = 5.0) -> None:
    """Wait for what a click does in the background, after Slack was answered."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "it never happened"
        time.sleep(0.02)


@pytest.fixture
def served(tmp_path: Path, ledger) -> Iterator[Callable[..., Served]]:
    """``served(agent, more="", clock=..., settles=True)``: the shop with ``agent``'s rules, and Slack as its channel;
    where ``settles``, its desk settles Slack's message after every answer, as the service's does."""
    with contextlib.ExitStack() as stack:

        def serve(agent: str, more: str = "", clock: Callable[[], float] = time.time, settles: bool = True) -> Served:
            fake = FakeSlack(PEOPLE)
            api = stack.enter_context(serving(fake.app()))
            path = shop(tmp_path, agent)
            path.write_text(path.read_text() + channels(api, more))
            desk = Desk.from_file(path, storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock)
            stack.callback(desk.close)
            service = Later()
            base = stack.enter_context(serving(service))
            links = Links(desk.storage, base, clock=clock)
            config = desk.config.channels.slack
            assert config is not None
            slack = Slack(config, ENV, lambda pause: card_of(pause, desk.verdict(pause, None), None), links.mint)
            announcing = Channels([slack])
            service.app = make_app(desk, on_interrupt=announcing, public_url=base, slack=slack)
            if settles:  # as the service has its desk settle its channels after every answer
                desk.settle = announcing.settled
            stack.callback(lambda: _valid(fake))
            return Served(base, desk, fake)

        yield serve


def _valid(fake: FakeSlack) -> None:
    assert fake.invalid == []


def record(message: dict) -> str:
    """What the message says was decided: the section under its title, once decided."""
    assert all(block["type"] != "actions" for block in message["blocks"]), "a decided message has no buttons"
    return message["blocks"][1]["text"]["text"]


def context(message: dict) -> list[str]:
    first = next(block for block in message["blocks"] if block["type"] == "context")
    return [element["text"] for element in first["elements"]]


# --- posting -----------------------------------------------------------------------------------------------------


def test_a_pause_is_posted_as_its_card_with_one_button_per_answer_and_never_its_token(served, ledger):
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    message = shop.slack.message()
    assert message["channel"] == CHANNEL and message["text"] == f"{LARGE_TITLE}?"
    assert message["blocks"][0]["text"]["text"] == LARGE_TITLE
    assert context(message)[0] == "Needs an approver from finance-large"
    assert [(b["action_id"], b["text"]["text"], b.get("style"), b["value"]) for b in buttons(message)] == [
        ("approve", "Approve", "primary", f"approve:{pause['id']}"),
        ("skip", "Skip this step", None, f"skip:{pause['id']}"),
        ("cancel_all", "Cancel everything", "danger", f"cancel_all:{pause['id']}"),
    ]
    assert pause["token"] not in json.dumps(shop.slack.calls)
    stored = shop.desk.storage.get_pause(pause["id"])
    assert stored.delivery["receipts"]["slack"] == {"channel": CHANNEL, "ts": message["ts"], "woken": 0}


def test_where_a_call_is_posted_and_whether_one_click_answers_it_are_the_teams_to_say(served, ledger):
    more = "    channel_for: 'args.amount > 1000 ? \"C0FINANCE\" : \"C0OPS\"'\n    link_only: 'args.amount > 1000'\n"
    shop = served(FINANCE_FOR_LARGE, more)
    shop.turn(LARGE, "large")
    shop.turn(SMALL, "small")
    shop.turn({"text": "charge order 4411"}, "ask")
    large, small, ask = (shop.slack.message(i) for i in range(3))
    assert (large["channel"], small["channel"], ask["channel"]) == (FINANCE_CHANNEL, CHANNEL, CHANNEL)
    assert [b["action_id"] for b in buttons(large)] == ["link:approve", "link:skip", "link:cancel_all"]
    assert all(b["url"].startswith(f"{shop.base}/links/") and "value" not in b for b in buttons(large))
    assert [b["action_id"] for b in buttons(small)] == ["approve", "skip", "cancel_all"]
    assert buttons(ask) == [] and words(ask["blocks"])[-1] == "To answer, sign in: it waits in your inbox."


def test_a_call_nothing_undoes_gets_buttons_that_open_its_signed_link_and_a_click_there_runs_nothing(served, ledger):
    shop = served(FINANCE_FOR_LARGE)
    shop.turn({"text": "mail the receipt for order 4411"})
    message = shop.slack.message()
    assert message["blocks"][1]["text"]["text"] == ":warning: *Nothing can undo this step once it runs.*"
    [approve, *_] = buttons(message)
    assert approve["action_id"] == "link:approve" and approve["url"].startswith(f"{shop.base}/links/")
    assert approve["text"]["text"] == "Approve — cannot be undone" and "value" not in approve

    assert shop.click(message, "link:approve", FIONA).status_code == 200  # Slack reports a link's click too
    page = httpx.get(approve["url"])
    assert page.status_code == 200 and "Mail the receipt for order 4411" in page.text
    time.sleep(0.2)
    assert ledger("receipt") == [] and shop.slack.made("chat.postEphemeral") == []
    assert httpx.post(approve["url"]).status_code == 200  # the page's own button: the link answers
    assert len(ledger("receipt")) == 1


# --- clicks --------------------------------------------------------------------------------------------------------


def test_a_click_by_an_allowed_person_runs_the_call_once_as_them_and_the_message_says_who_and_when(served, ledger):
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    assert shop.click(shop.slack.message(), "approve", FIONA).status_code == 200
    eventually(lambda: ledger("charge") and "actions" not in json.dumps(shop.slack.message()))
    assert [c["amount"] for c in ledger("charge")] == [1500]
    decided = shop.slack.message()
    assert re.fullmatch(rf"\*Fiona Walsh approved: {LARGE_TITLE}\*\n{WHEN}", record(decided))
    assert decided["text"] == f"Fiona Walsh approved: {LARGE_TITLE}" and decided["blocks"][0]["text"]["text"]
    [taken] = [a for a in shop.desk.history("u-17") if a["outcome"] == "taken"]
    assert (taken["by"], taken["channel"], taken["principal"]) == (
        "Fiona Walsh",
        "slack",
        {"iss": "slack:T0SHOP", "sub": FIONA, "verified": True},
    )
    assert shop.told(FIONA) == [] and shop.desk.storage.get_pause(pause["id"]).status == "answered"


def test_two_people_clicking_at_once_under_four_eyes_count_as_two(served, ledger):
    shop = served(FOUR_EYES)
    shop.turn(SMALL)
    message = shop.slack.message()
    answers = at_once(lambda: shop.click(message, "approve", FIONA), lambda: shop.click(message, "approve", GINA))
    assert [a.status_code for a in answers] == [200, 200]
    eventually(lambda: ledger("charge") and "actions" not in json.dumps(shop.slack.message()))
    assert len(ledger("charge")) == 1
    approvals = [(a["by"], a["outcome"]) for a in shop.desk.history("u-17") if a["decision"] == "approve"]
    assert sorted(approvals) == [("Fiona Walsh", "approval"), ("Gina Ortiz", "taken")] or sorted(approvals) == [
        ("Fiona Walsh", "taken"),
        ("Gina Ortiz", "approval"),
    ]
    assert re.fullmatch(rf"\*(Fiona Walsh|Gina Ortiz) approved: Charge 40.00 EUR to order 4411\*\n{WHEN}",
                        record(shop.slack.message()))  # fmt: skip


def test_the_same_person_clicking_twice_under_four_eyes_counts_once(served, ledger):
    shop = served(FOUR_EYES)
    shop.turn(SMALL)
    message = shop.slack.message()
    counted = "Your approval is counted; it waits for another person\u2019s before it runs."
    shop.click(message, "approve", FIONA)
    eventually(lambda: shop.told(FIONA) == [counted])
    assert "Approved by Fiona Walsh (1 of 2)" in context(shop.slack.message())
    assert [b["action_id"] for b in buttons(shop.slack.message())] == ["approve", "skip", "cancel_all"]

    shop.click(message, "approve", FIONA)
    eventually(lambda: shop.told(FIONA) == [counted, counted])
    assert ledger("charge") == []
    shop.click(message, "approve", GINA)
    eventually(lambda: ledger("charge"))
    eventually(lambda: "actions" not in json.dumps(shop.slack.message()))
    assert len(ledger("charge")) == 1 and record(shop.slack.message()).startswith("*Gina Ortiz approved:")
    assert [m["user"] for m in shop.slack.made("users.info")] == [FIONA, GINA]  # who each is, asked once
    assert len(shop.slack.made("chat.update")) == 2  # Fiona's approval, then the record: her second changed nothing


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
def test_a_click_slack_did_not_sign_just_now_is_refused_and_changes_nothing(served, ledger, headers):
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    message = shop.slack.message()
    refused = shop.click(message, "approve", FIONA, headers=headers)
    assert (refused.status_code, refused.json()["error"]) == (401, "bad_signature")
    time.sleep(0.2)
    assert ledger("charge") == [] and shop.slack.made("chat.update") == [] and shop.slack.made("users.info") == []
    assert shop.slack.made("chat.postEphemeral") == [] and shop.slack.message() == message
    assert [p.id for p in shop.desk.waiting("u-17")] == [pause["id"]]


def test_a_replayed_click_is_refused_and_runs_nothing_more(served, ledger):
    shop = served(FOUR_EYES)
    shop.turn(SMALL)
    body = interaction(shop.slack.message(), "approve", FIONA, "fiona")
    signed = slack_signed(body)
    assert httpx.post(f"{shop.base}/slack/actions", content=body, headers=signed).status_code == 200
    eventually(lambda: shop.told(FIONA))
    again = httpx.post(f"{shop.base}/slack/actions", content=body, headers=signed)
    assert (again.status_code, again.json()["error"]) == (401, "bad_signature")
    time.sleep(0.2)
    assert len(shop.told(FIONA)) == 1 and ledger("charge") == []
    assert [a["by"] for a in shop.desk.history("u-17")] == ["Fiona Walsh"]


def test_a_click_by_someone_the_rules_refuse_changes_nothing_and_they_alone_are_told_why(served, ledger):
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    message = shop.slack.message()
    assert shop.click(message, "approve", MALLORY).status_code == 200
    eventually(lambda: shop.told(MALLORY))
    assert shop.told(MALLORY) == [
        "This answer was not taken: the approver rules for this confirm of charge_card do not include you"
    ]
    [told] = shop.slack.made("chat.postEphemeral")
    assert (told["channel"], told["user"]) == (CHANNEL, MALLORY)
    assert shop.click(message, "approve", NOBODY).status_code == 200  # Slack does not know them: nobody to judge
    eventually(lambda: shop.told(NOBODY))
    assert shop.told(NOBODY) == ["This answer was not taken: Slack refused users.info: user_not_found"]
    assert ledger("charge") == [] and shop.slack.made("chat.update") == [] and shop.slack.message() == message
    assert [p.id for p in shop.desk.waiting("u-17")] == [pause["id"]]


def test_the_message_keeps_who_decided_and_a_late_click_never_erases_it(served, ledger):
    shop = served(FINANCE_FOR_LARGE)
    shop.turn(LARGE)
    message = shop.slack.message()
    shop.click(message, "approve", FIONA)
    eventually(lambda: "actions" not in json.dumps(shop.slack.message()))
    decided = shop.slack.message()
    updates = len(shop.slack.made("chat.update"))

    shop.click(message, "cancel_all", GINA)  # the message as Gina's Slack still showed it
    eventually(lambda: shop.told(GINA))
    [late] = shop.told(GINA)
    assert re.fullmatch(rf"Fiona Walsh already answered this: Approve, {WHEN}\.", late)
    assert shop.slack.message() == decided and len(shop.slack.made("chat.update")) == updates
    assert [c["amount"] for c in ledger("charge")] == [1500] and ledger("refund") == []


@pytest.mark.parametrize("settles", [True, False], ids=["the desk settles", "the click settles"])
def test_a_pause_answered_in_the_chat_is_recorded_on_the_message_and_a_click_on_its_old_buttons_is_told(
    served, ledger, settles
):
    shop = served(FINANCE_FOR_LARGE, settles=settles)
    [pause] = shop.turn(LARGE)["waiting"]
    posted = shop.slack.message()
    skip = {"interrupt_id": pause["id"], "decision": "skip", "token": pause["token"]}
    assert httpx.post(f"{shop.base}/threads/u-17/resume", json=skip).status_code == 200  # the owner declines
    if settles:  # the service settles its channels after every answer, wherever it was given
        assert re.fullmatch(rf"\*It was answered: Skip this step, {WHEN}\.\*", record(shop.slack.message()))

    shop.click(posted, "approve", FIONA)  # the message as Fiona's Slack still showed it
    eventually(lambda: shop.told(FIONA))
    assert re.fullmatch(rf"It was answered: Skip this step, {WHEN}\.", shop.told(FIONA)[0])
    eventually(lambda: "actions" not in json.dumps(shop.slack.message()))
    assert re.fullmatch(rf"\*It was answered: Skip this step, {WHEN}\.\*", record(shop.slack.message()))
    assert ledger("charge") == [] and len(shop.slack.made("chat.update")) == 1


def test_the_browser_boundary_lets_a_form_through_on_the_slack_route_alone_and_only_slacks_signature_acts(
    served, ledger
):
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    body = interaction(shop.slack.message(), "approve", FIONA, "fiona")
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    hostile = {**form, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    page = httpx.post(f"{shop.base}/slack/actions", content=body, headers=hostile)  # a page's form, posted across
    assert (page.status_code, page.json()["error"]) == (401, "bad_signature")
    for path in ("/threads/u-17/resume", "/slack/actions/more", "/slack"):
        other = httpx.post(f"{shop.base}{path}", content=body, headers=slack_signed(body))
        assert (other.status_code, other.json()["error"]) == (415, "unsupported_media_type"), path
    rebound = httpx.post(f"{shop.base}/slack/actions", content=body, headers={**slack_signed(body), "Host": "evil"})
    assert rebound.status_code == 400
    with serving(make_app(shop.desk)) as without_slack:
        closed = httpx.post(f"{without_slack}/slack/actions", content=body, headers=slack_signed(body))
        assert (closed.status_code, closed.json()["error"]) == (415, "unsupported_media_type")
    time.sleep(0.2)
    assert ledger("charge") == [] and shop.slack.made("users.info") == []
    assert [p.id for p in shop.desk.waiting("u-17")] == [pause["id"]]


# --- the clock -----------------------------------------------------------------------------------------------------


def test_a_reminder_and_the_escalation_are_replies_in_its_thread_and_a_click_after_the_deadline_says_so(served, ledger):
    now = [time.time()]
    deadlines = (
        "    deadlines:\n"
        "      - tool: charge_card\n"
        "        expires: 4h\n"
        "        remind: 1h\n"
        "        escalate: {after: 2h, to: '\"managers\" in who.groups', label: the managers}\n"
    )
    shop = served(FINANCE_FOR_LARGE + deadlines, clock=lambda: now[0])
    shop.turn(LARGE)
    message = shop.slack.message()
    assert "If nobody answers by" in " ".join(context(message))

    assert tick(shop.desk, now=now[0] + 3601).reminded
    [reminder] = shop.slack.replies(message)
    assert reminder["channel"] == CHANNEL and not reminder["reply_broadcast"]
    assert words(reminder["blocks"])[0] == f"*Waiting for a decision*\n{LARGE_TITLE}"
    assert re.fullmatch(rf"Answer by {WHEN}; after that it is skipped\.", words(reminder["blocks"])[1])

    now[0] += 2 * 3600 + 1
    assert tick(shop.desk).escalated
    [_, escalation] = shop.slack.replies(message)
    assert escalation["reply_broadcast"] is True
    assert (
        words(escalation["blocks"])[0]
        == f"*Nobody has answered yet, so the managers may answer now too.*\n{LARGE_TITLE}"
    )
    assert "Nobody has answered yet, so the managers may answer now too." in context(shop.slack.message())

    now[0] += 2 * 3600
    assert tick(shop.desk).expired
    shop.click(message, "approve", FIONA)
    eventually(lambda: shop.told(FIONA))
    assert shop.told(FIONA) == [f"Nobody answered in time, so it was not done: {LARGE_TITLE}"]
    eventually(lambda: "actions" not in json.dumps(shop.slack.message()))
    said = record(shop.slack.message()).split("\n")
    assert said[0] == f"*Nobody answered in time, so it was not done: {LARGE_TITLE}*"
    assert re.fullmatch(rf"Nobody answered by {WHEN}, so it was skipped\.", said[1])
    assert ledger("charge") == []
