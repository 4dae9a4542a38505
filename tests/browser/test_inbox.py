"""The approver's pages in a real headless Chromium: the inbox at /inbox, and the page a signed link opens."""

import httpx
import pytest

from ..server import receiving
from .conftest import SHOTS, Served
from .test_interface import CHARGE, assert_accessible, ledger

SECRET = "whsec-for-browser-tests"


def ask_to_charge(served, thread):
    answered = httpx.post(f"{served.base}/threads/{thread}/messages", json={"text": CHARGE}, timeout=30)
    assert answered.status_code == 200, answered.text
    assert answered.json()["waiting"][0]["tool"] == "charge_card"


def rows(page):
    return page.locator("stalwart-inbox [part=row]")


def test_the_inbox_lists_what_waits_across_threads_and_approving_a_row_runs_its_call(browser, served):
    ask_to_charge(served, "alice-1")
    ask_to_charge(served, "bob-2")
    context = browser.new_context()
    page = context.new_page()
    page.goto(served.base + "/inbox")
    rows(page).nth(1).wait_for()
    assert rows(page).count() == 2
    newest = rows(page).first
    assert newest.get_attribute("data-thread") == "bob-2"
    assert "bob-2" not in newest.inner_text(), "a row is headed by its thread's words, not its id"
    assert CHARGE in newest.locator("[part=last-words]").inner_text()
    assert newest.locator("stalwart-confirm section[data-kind=confirm]").count() == 1
    assert_accessible(page, browser, served, "/inbox")

    newest.get_by_role("button", name="Approve", exact=True).click()
    rows(page).nth(1).wait_for(state="detached")
    assert rows(page).count() == 1
    assert len(ledger(served, "charge")) == 1
    waiting = httpx.get(f"{served.base}/threads/bob-2/interrupts", timeout=10).json()["waiting"]
    assert waiting == []
    context.close()


def test_screenshots_of_the_inbox_light_and_dark(browser, served):
    ask_to_charge(served, "alice-1")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme, viewport={"width": 900, "height": 900})
        page = context.new_page()
        page.goto(served.base + "/inbox")
        rows(page).first.wait_for()
        path = SHOTS / f"inbox-{scheme}.png"
        page.screenshot(path=str(path), full_page=True)
        context.close()
        assert path.stat().st_size > 10_000


@pytest.fixture
def linked(tmp_path):
    """`stalwart serve` with a public address and a webhook receiver, so each delivery carries signed links."""
    with receiving(SECRET) as receiver:
        port_holder = Served(f"sqlite:///{tmp_path / 'runs.db'}", tmp_path / "ledger.jsonl", "operator-for-links")
        port_holder.options = ["--public-url", port_holder.base]
        port_holder.env = {"STALWART_WEBHOOK_URL": receiver.url, "STALWART_WEBHOOK_SECRET": SECRET}
        port_holder.start()
        try:
            yield port_holder, receiver
        finally:
            port_holder.stop()


def test_a_link_shows_the_call_acts_only_on_its_button_and_says_so_when_used_again(browser, linked):
    served, receiver = linked
    ask_to_charge(served, "mail-1")
    link = receiver.got[-1]["links"]["approve"]
    assert link.startswith(served.base + "/links/")
    context = browser.new_context()
    page = context.new_page()
    page.goto(link)
    text = page.locator("main").inner_text()
    # The call by its card's title where the page shows the card, by its tool where it does not.
    assert ("Charge 40.00 EUR to order 4411" in text or "charge_card" in text) and "4411" in text and "40" in text
    page.goto(link)
    assert ledger(served, "charge") == []
    assert_accessible(page, browser, served, link.removeprefix(served.base))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "link-confirmation.png"), full_page=True)

    buttons = page.get_by_role("button")
    assert buttons.count() == 1
    with page.expect_navigation():
        buttons.first.click()
    done = page.locator("main").inner_text()
    assert "You approved: Charge 40.00 EUR to order 4411" in done or "You answered: Approve." in done
    assert len(ledger(served, "charge")) == 1
    page.screenshot(path=str(SHOTS / "link-done.png"), full_page=True)

    again = page.request.post(link)
    assert again.status == 409
    assert len(ledger(served, "charge")) == 1
    context.close()
