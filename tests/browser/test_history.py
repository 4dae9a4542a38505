"""A thread's decision history in a real headless Chromium against a real `stalwart serve`: decisions made through
the interface, then read in `<stalwart-history>` by the thread's owner (behind the chat's "Decisions" disclosure), by
an operator (the element on its own, with the operator token), and by someone else (nothing); and a record changed
in the store, which the history says is not as written.  Each view is photographed at phone and desk sizes, light
and dark, into build/screenshots/, and axe-core finds no WCAG 2 A/AA violation in it."""

from __future__ import annotations

import json
import re
import sqlite3

import httpx
import pytest

from .conftest import AXE, SHOTS
from .test_desk import FOUR_EYES, SIZES, asks, card, inbox_rows, serving, signed_in
from .test_interface import CHARGE, answer, confirm_box, ledger, say

TITLE = "Charge 40.00 EUR to order 4411"
HISTORY = "stalwart-chat stalwart-history"
HEX = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def four_eyes(tmp_path):
    yield from serving(tmp_path, FOUR_EYES)


def open_decisions(page) -> None:
    """Open the chat's "Decisions" disclosure, and wait for its history to be read."""
    page.locator("stalwart-chat details[part=decisions] summary").click()
    page.locator(f"{HISTORY} [part=history-entry], {HISTORY} [part=history-empty]:visible").first.wait_for()


def entries(page, host: str = HISTORY):
    return page.locator(f"{host} [part=history-what]")


def decisions_read(page) -> list[str]:
    return [url for url in page.requests_made if url.endswith("/decisions")]


def looked_at(page, name: str, ready) -> None:
    """The page as it is, at phone and desk sizes, light and dark (the page's own `theme` left to the person's
    setting), into build/screenshots/; and axe-core's WCAG 2 A/AA rules on it, which find nothing."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            ready(page)
            shot = SHOTS / f"history-{name}-{size}-{scheme}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
    page.emulate_media(color_scheme="light")


def assert_accessible_here(page) -> None:
    """axe-core on the page as it stands (the page's context must bypass the CSP to load it)."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
        return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
    }""")
    assert found == []


def test_the_owner_approves_in_the_chat_and_reads_the_decision_in_its_history(browser, served):
    """A service that signs no one in knows nobody: its record says "Someone", and that who it was was not checked,
    where the chat's own record of the same decision (the page's, not the service's) says "You"."""
    context = browser.new_context(bypass_csp=True, viewport=SIZES["phone"])
    page = context.new_page()
    page.requests_made = []
    page.on("request", lambda request: page.requests_made.append(request.url))
    page.goto(served.base + "/")
    say(page, CHARGE)
    confirm_box(page)
    page.wait_for_timeout(1_000)  # a moment's wait, so the record has one to tell
    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert len(ledger(served, "charge")) == 1
    assert decisions_read(page) == [], "the history is not read before it is asked for"

    open_decisions(page)
    assert decisions_read(page), "read once opened (and again if the decision's event comes after)"
    history = page.locator(HISTORY)
    assert entries(page).all_inner_texts() == [f"Someone approved: {TITLE}"]
    entry = history.locator("[part=history-entry]")
    assert entry.locator("[part=history-rule]").inner_text() == "No approver rule: the person who asked decides"
    when = entry.locator("[part=history-when]")
    assert re.fullmatch(r".+ · in the app \(identity not checked\) · waited \d+ sec", when.inner_text()), (
        when.inner_text()
    )
    assert when.locator("time").get_attribute("datetime")
    assert history.locator("[part=history-broken]").count() == 0
    text = history.inner_text()
    assert not HEX.search(text), "no digest is shown"
    assert not re.search(r"\bp_|\br_", text), "no pause or run id is shown"
    assert HEX.fullmatch(entry.get_attribute("data-digest") or "")

    # A turn and a decision later, the open history reads itself again.
    say(page, "charge 40 to order 4412")
    answer(page, "Skip this step")
    entries(page).nth(1).wait_for()
    assert entries(page).all_inner_texts() == [
        f"Someone approved: {TITLE}",
        "Someone skipped: Charge 40.00 EUR to order 4412",
    ]
    assert_accessible_here(page)
    looked_at(page, "owner", lambda p: entries(p).nth(1).wait_for())
    context.close()


def test_under_four_eyes_the_owner_and_an_operator_read_each_approval_and_someone_else_reads_nothing(
    browser, four_eyes
):
    asks(four_eyes, "alice", "alice-1", "charge 40 to order 4411")
    for person in ("frank", "gina"):
        approver = signed_in(browser, four_eyes, person, "/inbox", viewport=SIZES["desk"])
        row = inbox_rows(approver).first
        stored = row.get_attribute("data-thread")
        card(row).get_by_role("button", name="Approve", exact=True).click()
        approver.locator("stalwart-inbox [part=status]").filter(has_text=re.compile("counted|done")).wait_for()
        approver.context.close()
    assert len(ledger(four_eyes, "charge")) == 1
    assert stored and stored.endswith(":alice-1")

    owner = signed_in(browser, four_eyes, "alice", "/", "alice-1", viewport=SIZES["phone"], bypass_csp=True)
    owner.requests_made = []
    owner.locator("stalwart-chat [part=composer]").wait_for()
    open_decisions(owner)
    said = [f"Frank Ode approved, and more approvals are needed: {TITLE}", f"Gina Park approved: {TITLE}"]
    assert entries(owner).all_inner_texts() == said
    history = owner.locator(HISTORY)
    assert history.locator("[part=history-approvals]").all_inner_texts() == ["1 of 2 approvals", "2 of 2 approvals"]
    assert history.locator("[part=history-rule]").all_inner_texts() == ["Approver rule: finance"] * 2
    assert "alice-1" not in history.inner_text() and stored not in history.inner_text()
    assert_accessible_here(owner)
    looked_at(owner, "four-eyes-owner", lambda p: entries(p).nth(1).wait_for())
    owner.context.close()

    # An operator's page: the element on its own, its requests carrying the operator token; the stored id.
    operator = browser.new_context(viewport=SIZES["desk"], bypass_csp=True).new_page()
    operator.goto(four_eyes.base + "/inbox")
    operator.evaluate(
        """([thread, token]) => {
            const history = document.createElement('stalwart-history');
            history.fetcher = (url, init = {}) =>
                fetch(url, {...init, headers: {...init.headers, 'Stalwart-Operator-Token': token}});
            history.setAttribute('thread', thread);
            document.querySelector('main').replaceChildren(history);
        }""",
        [stored, four_eyes.token],
    )
    entries(operator, "stalwart-history").nth(1).wait_for()
    assert entries(operator, "stalwart-history").all_inner_texts() == said, "an operator gave neither"
    assert_accessible_here(operator)
    looked_at(operator, "operator", lambda p: entries(p, "stalwart-history").nth(1).wait_for())
    operator.context.close()

    # Someone the thread is not theirs: the service answers 404, and the history says there is nothing.
    mallory = signed_in(browser, four_eyes, "mallory", "/", "alice-1", viewport=SIZES["phone"])
    mallory.locator("stalwart-chat [part=composer]").wait_for()
    mallory.locator("stalwart-chat details[part=decisions] summary").click()
    empty = mallory.locator(f"{HISTORY} [part=history-empty]")
    empty.wait_for()
    assert empty.inner_text() == "No decisions yet."
    assert entries(mallory).count() == 0
    mallory.context.close()
    refused = httpx.get(f"{four_eyes.base}/threads/{stored}/decisions", timeout=10)
    assert refused.status_code in (401, 404)


def test_the_history_warns_when_the_record_was_changed_since_it_was_written(browser, served):
    context = browser.new_context(bypass_csp=True, viewport=SIZES["phone"])
    page = context.new_page()
    page.goto(served.base + "/")
    say(page, CHARGE)
    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    open_decisions(page)
    assert page.locator(f"{HISTORY} [part=history-broken]").count() == 0

    # Someone with the store's keys makes the approval a skip.
    with sqlite3.connect(served.storage.removeprefix("sqlite:///")) as db:
        [(thread, seq, body)] = db.execute("SELECT thread, seq, body FROM decisions").fetchall()
        changed = json.dumps({**json.loads(body), "decision": "skip"}, separators=(",", ":"))
        db.execute("UPDATE decisions SET body = ? WHERE thread = ? AND seq = ?", (changed, thread, seq))
    page.locator(f"{HISTORY} [part=history-refresh]").click()
    broken = page.locator(f"{HISTORY} [part=history-broken]")
    broken.wait_for()
    assert broken.get_attribute("role") == "alert"
    assert broken.inner_text().startswith("This record does not match what was written")
    assert entries(page).all_inner_texts() == [f"Someone skipped: {TITLE}"], "what it now says, under the warning"
    assert_accessible_here(page)
    looked_at(page, "changed", lambda p: broken.wait_for())
    context.close()
