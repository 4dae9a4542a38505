"""Signed links, over real uvicorn: each link comes from a real webhook delivery to a receiver on 127.0.0.1.

The service is built once uvicorn has its port (``Later``), so its public URL is
the address the test really reaches it by, and every link is followed as a
person's browser would: GET the page, POST its one empty form.
"""

import base64
import json
import logging
import re
import time
from datetime import datetime

import httpx
import jwt
import pytest

from stalwart_agents import Desk, PauseExpired, cli
from stalwart_agents.approvals.links import Links
from stalwart_agents.approvals.redeliver import redeliver
from stalwart_agents.approvals.strings import say, when
from stalwart_agents.approvals.webhook import Webhook
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.serve import make_app
from stalwart_agents.storage import open_storage

from .conftest import SHOP
from .server import Later, at_once, receiving, serving, stalwart_serve

HOOK_SECRET = "whsec-links-test"
THREAD = "thread-7f3a"
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
JWT_SECRET = "a-team-secret-of-at-least-32-bytes!"
TEAM, AUDIENCE = "https://team.example", "stalwart-shop"


class Clock:
    """The desk's clock, moved by hand: links expire by it."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def desk(tmp_path, ledger, clock):
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock) as desk:
        yield desk


@pytest.fixture
def receiver():
    with receiving(HOOK_SECRET) as received:
        yield received


def served(desk, receiver, *, public=True, **options):
    """The shop, its pauses posted to ``receiver``, at its own address as its public URL."""
    later = Later()
    server = serving(later)
    base = server.__enter__()
    webhook = Webhook(receiver.url, HOOK_SECRET)
    later.app = make_app(desk, on_interrupt=webhook, public_url=base if public else None, **options)
    return base, server


@pytest.fixture
def service(desk, receiver):
    base, server = served(desk, receiver)
    yield base
    server.__exit__(None, None, None)


def paused(base, receiver, thread=THREAD, headers=None):
    """Start a charge in ``thread``; the pause as the turn gave it, and the links its delivery carried."""
    answer = httpx.post(f"{base}/threads/{thread}/messages", json=CHARGE, headers=headers, timeout=10)
    [pause] = answer.json()["waiting"]
    delivered: dict = next((d for d in receiver.got if d["interrupt"]["id"] == pause["id"]), {})
    return pause, delivered.get("links")


def waiting(base, thread=THREAD, headers=None):
    return httpx.get(f"{base}/threads/{thread}/interrupts", headers=headers, timeout=10).json()["waiting"]


def text(response: httpx.Response) -> str:
    """What a page says, without its markup (its head is its title and its style, not words)."""
    body = re.sub(r"<head>.*?</head>", " ", response.text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def test_a_pause_is_approved_by_its_link_and_the_call_runs_once(service, receiver, ledger, desk):
    pause, links = paused(service, receiver)
    assert set(links) == {"approve", "skip", "cancel_all"}
    assert all(url.startswith(f"{service}/links/") for url in links.values())

    page = httpx.get(links["approve"], timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    shown = text(page)
    assert "Charge 40.00 EUR to order 4411" in shown and "Amount 40" in shown and "Order 4411" in shown
    assert "charge_card" not in page.text and "amount" not in shown  # the team's words, never the code's
    assert "the person who asked typed it" in shown  # where each value came from, from this reader's side
    assert page.text.count("<button") == 1 and '<form method="post">' in page.text and "<input" not in page.text
    assert page.headers["content-security-policy"] and page.headers["cache-control"] == "no-store"

    done = httpx.post(links["approve"], timeout=10)
    assert done.status_code == 200, done.text
    assert len(ledger("charge")) == 1 and waiting(service) == []
    [taken] = [a for a in desk.history(THREAD) if a.get("outcome") == "taken"]
    assert taken["channel"] == "link" and taken["principal"]["iss"] == "stalwart:link"
    assert taken["principal"]["sub"] == f"{pause['id']}:approve"


def test_the_page_of_an_irreversible_call_warns_before_its_button(service, receiver, ledger):
    receipt = httpx.post(f"{service}/threads/{THREAD}/messages", json={"text": "send the receipt for order 4411"})
    [pause] = receipt.json()["waiting"]
    links = receiver.got[-1]["links"]
    page = text(httpx.get(links["approve"], timeout=10))
    assert "Mail the receipt for this order?" in page and "Nothing can undo this step" in page
    warned, asked = page.index("Nothing can undo this step"), page.index("Mail the receipt")
    assert warned < asked < page.index("Approve — cannot be undone")
    assert ledger("receipt") == [] and [p["id"] for p in waiting(service)] == [pause["id"]]


def test_a_link_used_once_is_409_and_says_what_was_decided(service, receiver, ledger):
    _, links = paused(service, receiver)
    assert httpx.post(links["approve"], timeout=10).status_code == 200
    again = httpx.post(links["approve"], timeout=10)
    other = httpx.post(links["skip"], timeout=10)
    shown = httpx.get(links["cancel_all"], timeout=10)
    for used in (again, other, shown):
        assert used.status_code == 409 and "already answered" in text(used)
        assert "It was answered: Approve, " in text(used) and " UTC." in text(used)
    assert len(ledger("charge")) == 1


def test_an_expired_link_is_410_and_changes_nothing(service, receiver, ledger, clock):
    pause, links = paused(service, receiver)
    clock.now += 24 * 3600 + 1
    opened, posted = httpx.get(links["approve"], timeout=10), httpx.post(links["approve"], timeout=10)
    assert (opened.status_code, posted.status_code) == (410, 410)
    assert "expired" in text(posted)
    assert ledger("charge") == [] and [p["id"] for p in waiting(service)] == [pause["id"]]


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def rewritten(url: str, change) -> str:
    """The link with its body's fields changed by ``change`` and its MAC kept."""
    prefix, _, link = url.rpartition("/")
    body, _, mac = link.partition(".")
    fields = json.loads(unb64(body))
    return f"{prefix}/{b64(json.dumps(change(fields), separators=(',', ':')).encode())}.{mac}"


def test_a_tampered_link_is_404_and_changes_nothing(service, receiver, ledger, desk):
    pause, links = paused(service, receiver)
    other, _ = paused(service, receiver, thread="another-thread")
    url = links["skip"]
    prefix, _, link = url.rpartition("/")
    foreign = Links(open_storage("memory://"), service)
    tampered = {
        "decision changed": rewritten(url, lambda f: [f[0], "approve", *f[2:]]),
        "pause changed": rewritten(url, lambda f: [other["id"], *f[1:]]),
        "later expiry": rewritten(url, lambda f: [*f[:3], f[3] + 3600]),
        "mac changed": f"{url[:-2]}{'AA' if not url.endswith('AA') else 'BB'}",
        "no mac": f"{prefix}/{link.partition('.')[0]}",
        "not a link": f"{prefix}/nothing-here",
        "another service's key": foreign.mint(desk.waiting(THREAD)[0])["approve"],
    }
    for why, forged in tampered.items():
        for method in ("GET", "POST"):
            answer = httpx.request(method, forged, timeout=10)
            assert answer.status_code == 404, (why, method, answer.text)
            assert "does not work" in text(answer)
    assert ledger("charge") == [] and [p["id"] for p in waiting(service)] == [pause["id"]]


def test_a_get_never_acts(service, receiver, ledger):
    pause, links = paused(service, receiver)
    for url in (links["approve"], links["approve"], links["cancel_all"]):
        assert httpx.get(url, timeout=10).status_code == 200
    assert ledger("charge") == [] and [p["id"] for p in waiting(service)] == [pause["id"]]


def test_a_link_and_a_chat_answer_racing_run_the_call_once(service, receiver, ledger):
    for n in range(4):
        thread = f"race-{n}"
        pause, links = paused(service, receiver, thread=thread)
        chat = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        by_link, by_chat = at_once(
            lambda links=links: httpx.post(links["approve"], timeout=10),
            lambda thread=thread, chat=chat: httpx.post(f"{service}/threads/{thread}/resume", json=chat, timeout=10),
        )
        assert sorted([by_link.status_code, by_chat.status_code]) == [200, 409], (by_link.text, by_chat.text)
        assert len(ledger("charge")) == n + 1


def test_without_a_public_url_deliveries_carry_no_links_and_no_link_route_answers(desk, receiver):
    base, server = served(desk, receiver, public=False)
    try:
        paused(base, receiver)
        missing = httpx.get(f"{base}/links/anything", timeout=10)
    finally:
        server.__exit__(None, None, None)
    assert "links" not in receiver.got[0]
    assert missing.status_code == 404


def test_no_link_token_or_thread_in_pages_or_logs(service, receiver, clock, caplog):
    caplog.set_level(logging.DEBUG)
    pause, links = paused(service, receiver)
    pages = [httpx.get(links["approve"], timeout=10), httpx.post(links["approve"], timeout=10)]
    pages += [httpx.post(links["approve"], timeout=10), httpx.post(links["skip"], timeout=10)]
    pages += [httpx.get(f"{links['skip'][:-3]}xyz", timeout=10)]
    clock.now += 25 * 3600
    pages += [httpx.get(links["skip"], timeout=10)]
    assert [p.status_code for p in pages] == [200, 200, 409, 409, 404, 410]
    secrets = [pause["token"], THREAD, *(url.rpartition("/")[2] for url in links.values())]
    # httpx and httpcore log the test's own requests, links and all: the service's records are the others.
    logged = [r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    for shown in [*(p.text for p in pages), *(str(v) for p in pages for v in p.headers.values()), *logged]:
        assert not any(secret in shown for secret in secrets)


def test_a_redelivered_pause_carries_fresh_links(receiver, desk, clock, ledger):
    base, server = served(desk, receiver, link_hours=1)
    try:
        receiver.status = 503
        pause, _ = paused(base, receiver)
        [first, *_] = [t["body"]["links"] for t in receiver.tried]
        receiver.status = 200
        clock.now += 50 * 60
        assert redeliver(desk.storage, desk.on_interrupt, clock.now).delivered == [pause["id"]]
        [again] = [d["links"] for d in receiver.got]
        clock.now += 20 * 60
        assert httpx.get(first["approve"], timeout=10).status_code == 410
        assert httpx.post(again["approve"], timeout=10).status_code == 200 and len(ledger("charge")) == 1
    finally:
        server.__exit__(None, None, None)


def test_a_link_never_outlives_its_pause_and_an_expired_one_acts_on_nothing(receiver, desk, clock, ledger):
    base, server = served(desk, receiver, link_hours=24)
    try:
        pause, links = paused(base, receiver)
        expires = datetime.fromisoformat(pause["expires_at"].replace("Z", "+00:00")).timestamp()
        clock.now = expires - 1
        assert httpx.get(links["approve"], timeout=10).status_code == 200
        clock.now = expires
        for answer in (httpx.get(links["approve"], timeout=10), httpx.post(links["approve"], timeout=10)):
            assert answer.status_code == 410
        assert ledger("charge") == []
        assert [p["id"] for p in httpx.get(f"{base}/threads/{THREAD}/interrupts", timeout=10).json()["waiting"]] == [
            pause["id"]
        ]  # the link acted on nothing: the clock ends the pause, not a link
    finally:
        server.__exit__(None, None, None)


FOUR_EYES = """agents:
  - name: shop
    tools: tools.py
    approvals:
      charge_card: 2
    approvers:
      - name: owner-and-finance
        tool: charge_card
        who: 'who.owner || "finance" in who.groups'
"""


def test_under_four_eyes_a_link_gives_one_approval_once(tmp_path, receiver, ledger, clock):
    (tmp_path / "tools.py").write_text((SHOP.parent / "tools.py").read_text())
    (tmp_path / "agent.yaml").write_text(FOUR_EYES)
    with Desk.from_file(tmp_path / "agent.yaml", storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock) as desk:
        base, server = served(desk, receiver)
        try:
            pause, links = paused(base, receiver)
            counted = httpx.post(links["approve"], timeout=10)
            again = httpx.post(links["approve"], timeout=10)
            still = waiting(base)
        finally:
            server.__exit__(None, None, None)
    assert counted.status_code == 200 and "waits for another person" in text(counted)
    assert again.status_code == 409 and "Your approval is counted" in text(again)
    assert [p["id"] for p in still] == [pause["id"]] and ledger("charge") == []


def hs_token(subject: str) -> dict:
    claims = {"sub": subject, "iss": TEAM, "aud": AUDIENCE, "exp": int(time.time()) + 300}
    return {"Authorization": f"Bearer {jwt.encode(claims, JWT_SECRET, algorithm='HS256')}"}


def test_with_auth_the_page_asks_to_sign_in_and_only_a_signed_in_post_answers(desk, receiver, ledger):
    auth = SharedSecret(JWT_SECRET, issuer=TEAM, audience=AUDIENCE)
    base, server = served(desk, receiver, auth=auth)
    try:
        alice = hs_token("alice")
        pause, links = paused(base, receiver, headers=alice)
        page = httpx.get(links["approve"], timeout=10)
        anonymous = httpx.post(links["approve"], timeout=10)
        signed_in = httpx.post(links["approve"], headers=alice, timeout=10)
    finally:
        server.__exit__(None, None, None)
    assert page.status_code == 200 and "<form" not in page.text and f'href="{base}/inbox"' in page.text
    assert "sign in" in text(page) and "Charge 40.00 EUR to order 4411" in text(page)
    assert anonymous.status_code == 401 and f'href="{base}/inbox"' in anonymous.text
    assert signed_in.status_code == 200, signed_in.text
    [taken] = [a for a in desk.history(pause["thread"]) if a.get("outcome") == "taken"]
    assert taken["principal"] == {"iss": TEAM, "sub": "alice", "verified": True} and len(ledger("charge")) == 1


def test_with_auth_and_links_alone_the_link_is_the_approval(desk, receiver, ledger):
    auth = SharedSecret(JWT_SECRET, issuer=TEAM, audience=AUDIENCE)
    base, server = served(desk, receiver, auth=auth, links_alone=True)
    try:
        pause, links = paused(base, receiver, headers=hs_token("alice"))
        page = httpx.get(links["approve"], timeout=10)
        done = httpx.post(links["approve"], timeout=10)
    finally:
        server.__exit__(None, None, None)
    assert page.text.count("<button") == 1 and done.status_code == 200, done.text
    [taken] = [a for a in desk.history(pause["thread"]) if a.get("outcome") == "taken"]
    assert taken["principal"]["iss"] == "stalwart:link" and len(ledger("charge")) == 1


def test_a_link_opened_from_another_site_shows_its_page(service, receiver):
    """Webmail and chat clients open links cross-site: the page must still show (it never acts)."""
    _, links = paused(service, receiver)
    assert httpx.get(links["approve"], headers={"Sec-Fetch-Site": "cross-site"}, timeout=10).status_code == 200


def test_stalwart_serve_delivers_links_to_its_public_url(receiver, tmp_path, monkeypatch, ledger):
    monkeypatch.setenv("STALWART_WEBHOOK_URL", receiver.url)
    monkeypatch.setenv("STALWART_WEBHOOK_SECRET", HOOK_SECRET)
    monkeypatch.setenv("STALWART_PUBLIC_URL", "http://localhost:9/approvals")
    with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}", "--link-hours", "2") as (base, _):
        _, links = paused(base, receiver)
        approve = links["approve"].replace("http://localhost:9/approvals", base)
        page, done = httpx.get(approve, timeout=10), httpx.post(approve, timeout=10)
    assert links["approve"].startswith("http://localhost:9/approvals/links/")
    assert page.status_code == 200 and done.status_code == 200 and len(ledger("charge")) == 1


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--links-alone"], "--links-alone is about signed links, which need --public-url"),
        (["--public-url", "http://approvals.example"], "must be https"),
        (["--public-url", "https://approvals.example/?next=x"], "scheme://host[:port][/path], nothing more"),
    ],
)
def test_stalwart_serve_refuses_link_options_that_cannot_work(flags, said, capsys, tmp_path):
    assert cli.main(["serve", str(SHOP), "--storage", f"sqlite:///{tmp_path / 'runs.db'}", *flags]) == 2
    assert said in capsys.readouterr().err


def test_the_link_page_says_what_the_chat_says_for_the_same_pause(service, receiver, ledger):
    """Every word of the delivery's card (the chat's model, read by the channel's reader) is on the link page."""
    _, links = paused(service, receiver)
    card = receiver.got[-1]["card"]
    page = text(httpx.get(links["cancel_all"], timeout=10))
    words = [card["title"], *(say(r) for r in card["reasons"])]
    words += [f"{a['label']} {a['shown']}" for a in card["arguments"]] + [say(a["origin"]) for a in card["arguments"]]
    words += [say(a["words"]) for a in card["answers"] if a["decision"] == "cancel_all"]
    assert all(word in page for word in words), [word for word in words if word not in page]
    assert "Approve" not in page  # a link shows its own answer only
    assert re.search(r"Asked \d+ \w{3} \d{4}, \d\d:\d\d UTC", page)  # when, as a person reads it


def test_after_acting_the_page_says_what_ran_in_words_with_the_result(service, receiver, ledger):
    _, links = paused(service, receiver)
    done = text(httpx.post(links["approve"], timeout=10))
    assert "You approved: Charge 40.00 EUR to order 4411" in done and "Charge 40.00 EUR to order 4411: done" in done
    assert "ch-4411" in done


ESCALATING = """agents:
  - name: shop
    tools: tools.py
    deadlines:
      - tool: charge_card
        expires: 4h
        on_expiry: cancel_all
        escalate: {after: 2h, to: '"managers" in who.groups', label: the duty managers}
"""


def moment(iso_time: str) -> float:
    return datetime.fromisoformat(iso_time.replace("Z", "+00:00")).timestamp()


def test_the_link_page_says_by_when_to_answer_and_who_else_is_asked(tmp_path, receiver, ledger, clock):
    (tmp_path / "tools.py").write_text((SHOP.parent / "tools.py").read_text())
    (tmp_path / "agent.yaml").write_text(ESCALATING)
    with Desk.from_file(tmp_path / "agent.yaml", storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock) as desk:
        base, server = served(desk, receiver)
        try:
            pause, links = paused(base, receiver)
            page = text(httpx.get(links["approve"], timeout=10))
        finally:
            server.__exit__(None, None, None)
    expires, escalates = when(moment(pause["expires_at"])), when(moment(pause["escalation"]["at"]))
    assert f"Answer by {expires}; after that the whole request is cancelled." in page
    assert f"If nobody answers by {escalates}, the duty managers will be asked too." in page
    assert page.index("Answer by") < page.index("What it will use") < page.index("Approve")
    assert pause["expires_at"] not in page  # a moment as a person reads it, never the ISO string


def test_a_link_to_a_pause_nobody_answered_in_time_is_410_and_says_nothing_was_done(service, receiver, ledger, desk):
    pause, links = paused(service, receiver)
    when_it_ended = when(moment(pause["expires_at"]))
    desk.clock.now = moment(pause["expires_at"]) + 60  # the clock has not ticked: the pause is still open, but late
    pages = [httpx.get(links["approve"], timeout=10), httpx.post(links["approve"], timeout=10)]
    desk.expire(desk.waiting(THREAD)[0])  # the clock's answer: skipped
    pages += [httpx.get(links["skip"], timeout=10), httpx.post(links["cancel_all"], timeout=10)]
    for page in pages:
        shown = text(page)
        assert page.status_code == 410 and "Traceback" not in page.text
        assert "This request has expired" in shown and "Charge 40.00 EUR to order 4411" in shown
        assert f"Nobody answered by {when_it_ended}, so it was skipped." in shown
        assert "Nothing was done with this link." in shown
        assert "<button" not in page.text and pause["expires_at"] not in shown
    assert ledger("charge") == []


def test_a_link_past_its_hours_on_a_pause_that_still_waits_says_nothing_was_done(receiver, desk, clock, ledger):
    base, server = served(desk, receiver, link_hours=1)
    try:
        pause, links = paused(base, receiver)
        clock.now += 2 * 3600  # the link's hour is over; the pause's four are not
        page = httpx.get(links["approve"], timeout=10)
    finally:
        server.__exit__(None, None, None)
    assert page.status_code == 410
    said = " ".join(text(page).split())
    assert said == "This link has expired Nothing was done with this link. Waiting for a decision"
    assert ledger("charge") == [] and [p.id for p in desk.waiting(THREAD)] == [pause["id"]]


def test_a_late_answer_the_engine_refuses_as_expired_is_a_page_in_words(service, receiver, ledger, desk, monkeypatch):
    pause, links = paused(service, receiver)

    def late(*args, **kwargs):
        raise PauseExpired(f"this pause expired at {pause['expires_at']}: nobody answered in time")

    monkeypatch.setattr(desk, "answer", late)
    page = httpx.post(links["approve"], timeout=10)
    shown = text(page)
    assert page.status_code == 410 and "This request has expired" in shown
    assert f"Nobody answered by {when(moment(pause['expires_at']))}, so it was skipped." in shown
    assert pause["expires_at"] not in shown and ledger("charge") == []
