"""The interface at / signed in: a real headless Chromium against `stalwart serve --auth hs256`.

The page is reached as an OpenID Connect provider's redirect leaves it, with the access
token in the fragment; the bundle keeps it for the tab, takes it out of the address bar
and sends it as `Authorization: Bearer` on every request, and opens the step stream
with the ticket the server hands out.
"""

import json
import time

import httpx
import jwt
import pytest

from .conftest import SIGNIN_SECRET, stalwart_serving
from .test_interface import CHARGE, answer, confirm_box, ledger, say, thread_of


def token_for(subject: str) -> str:
    claims = {"sub": subject, "iss": "test", "aud": "stalwart", "exp": int(time.time()) + 600}
    return jwt.encode(claims, SIGNIN_SECRET, algorithm="HS256")


@pytest.fixture
def served(tmp_path):
    yield from stalwart_serving(tmp_path, signed_in=True)


@pytest.fixture
def context(browser):
    opened = browser.new_context()
    yield opened
    opened.close()


def recorded(page):
    """Every request the page makes, kept to read its headers afterwards."""
    requests = []
    page.on("request", lambda request: requests.append(request))
    return requests


def chat_status(page):
    return page.locator("[part=status]").inner_text()


def test_signed_in_through_a_pause_an_approval_and_the_stream(context, served):
    token = token_for("alice")
    page = context.new_page()
    requests = recorded(page)
    page.goto(f"{served.base}/#access_token={token}&token_type=Bearer&expires_in=600")
    page.wait_for_function("() => customElements.get('stalwart-chat') !== undefined")
    assert page.url == f"{served.base}/"
    assert page.evaluate("sessionStorage.getItem('stalwart-access-token')") == token

    say(page, CHARGE)
    box = confirm_box(page)
    assert box.locator("h2").inner_text() == "Charge 40.00 EUR to order 4411"
    assert chat_status(page) == "Waiting for your decision"

    page.reload()
    assert page.url == f"{served.base}/"
    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert "Done: look_up_order, charge_card." in page.locator(".entry.reply").last.inner_text()
    assert len(ledger(served, "charge")) == 1
    page.locator("stalwart-trace li").first.wait_for(state="attached")
    assert chat_status(page) == ""

    calls = [request for request in requests if request.resource_type == "fetch"]
    assert {request.url.rsplit("/", 1)[-1] for request in calls} >= {"interrupts", "messages", "resume"}
    assert all(request.all_headers().get("authorization") == f"Bearer {token}" for request in calls)
    streams = [request.url for request in requests if request.resource_type == "eventsource"]
    assert streams and all("/stream?ticket=" in url for url in streams)
    assert not any(token in request.url for request in requests), "the token travels in a header, never in an address"
    assert all(request.url.startswith(served.base) for request in requests)
    assert httpx.get(f"{served.base}/threads/{thread_of(page)}/interrupts", timeout=10).status_code == 401


def test_without_a_token_the_page_says_the_server_refused(context, served):
    page = context.new_page()
    requests = recorded(page)
    page.goto(f"{served.base}/")
    say(page, "look up order 4411")
    page.wait_for_function(
        "() => document.querySelector('stalwart-chat').shadowRoot.querySelector('[part=status]').textContent"
        ".startsWith('Something went wrong: ')"
    )
    assert page.locator(".entry.turn").count() == 0
    assert page.locator("textarea").input_value() == "look up order 4411"
    assert not any(request.resource_type == "eventsource" for request in requests)


def test_another_persons_token_does_not_open_the_thread(context, served):
    page = context.new_page()
    page.goto(f"{served.base}/#access_token={token_for('alice')}")
    say(page, CHARGE)
    confirm_box(page)
    thread = thread_of(page)

    other = context.new_page()
    requests = recorded(other)
    other.add_init_script(f"localStorage.setItem('stalwart-thread', {json.dumps(thread)})")
    with other.expect_response(lambda response: response.url.endswith("/interrupts")) as read:
        other.goto(f"{served.base}/#access_token={token_for('mallory')}")
    assert read.value.status == 404
    assert other.locator("stalwart-confirm").count() == 0
    assert chat_status(other) == ""
    assert not any(request.resource_type == "eventsource" for request in requests)
