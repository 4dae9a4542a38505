"""Deadlines in a real headless Chromium against `stalwart serve`.

On the shop example (a charge waits 4 hours, then it is skipped) the chat's card and the inbox row say by when to
answer, visibly, under the call's title.  On a shop whose charges wait seconds, a card whose deadline passes while it
is shown says nobody answered in time in place of its answers, and the chat records that nobody did.  Every view is
photographed at phone and desk sizes, light and dark, into build/screenshots/, and axe-core finds no WCAG 2 A/AA
violation in any of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from ..conftest import ROOT
from .conftest import AXE, SHOTS, Served, stalwart_serving
from .test_interface import ledger, say

SIZES = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 800}}
SCHEMES = ("light", "dark")
TURN = "charge 40 to order 4411"
TITLE = "Charge 40.00 EUR to order 4411"
DEADLINE = re.compile(r"Answer by .+; after that it is skipped\.")
EXPIRED = re.compile(r"Nobody answered by .+, so it was skipped\.")
AXE_RUN = """async () => {
    const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
    return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
}"""
SECONDS = 8
"""How long a charge waits on the hurried shop: long enough to be read, short enough to watch it end."""


def card(page):
    box = page.locator("stalwart-confirm section[data-kind=confirm]").first
    box.wait_for()
    return box


def rows(page):
    return page.locator("stalwart-inbox [part=row]")


def asked(served: Served, thread: str) -> dict:
    answered = httpx.post(f"{served.base}/threads/{thread}/messages", json={"text": TURN}, timeout=30)
    assert answered.status_code == 200, answered.text
    [pause] = answered.json()["waiting"]
    return pause


def accessible(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN)


def photographed(browser, url: str, name: str, ready: Callable, thread: str | None = None) -> None:
    """The page at ``url`` at each size and scheme, once ``ready``: photographed, and read by axe-core."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    found = {}
    for size, viewport in SIZES.items():
        for scheme in SCHEMES:
            context = browser.new_context(viewport=viewport, color_scheme=scheme, bypass_csp=True)
            if thread is not None:
                context.add_init_script(f"localStorage.setItem('stalwart-thread', {json.dumps(thread)})")
            page = context.new_page()
            page.goto(url)
            ready(page)
            page.wait_for_timeout(200)
            shot = SHOTS / f"deadline-{name}-{size}-{scheme}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            found[(size, scheme)] = accessible(page)
            context.close()
    assert found == {key: [] for key in found}


def in_place(page, name: str) -> None:
    """This one page (whose state a reload would lose) at each size and scheme, photographed and read by axe-core."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.add_script_tag(path=str(AXE))
    found = {}
    for size, viewport in SIZES.items():
        for scheme in SCHEMES:
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            page.wait_for_timeout(150)
            page.screenshot(path=str(SHOTS / f"deadline-{name}-{size}-{scheme}.png"), full_page=True)
            found[(size, scheme)] = page.evaluate(AXE_RUN)
    assert found == {key: [] for key in found}


def below(upper, lower) -> bool:
    return upper.bounding_box()["y"] < lower.bounding_box()["y"]


def test_the_chat_card_says_by_when_to_answer_under_its_title(browser, served):
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    page.goto(served.base + "/")
    say(page, TURN)
    box = card(page)
    deadline = box.locator("[part=deadline]")
    assert deadline.is_visible()
    assert DEADLINE.fullmatch(deadline.inner_text())
    assert deadline.get_attribute("data-urgent") is None, "four hours left is not urgent"
    assert below(box.locator("h2"), deadline) and below(deadline, box.locator("[part=arguments]"))
    assert below(deadline, box.get_by_role("button", name="Approve", exact=True))
    colours = deadline.evaluate("p => { const s = getComputedStyle(p); return [s.color, s.display, s.visibility]; }")
    assert colours[1:] == ["block", "visible"]
    thread = page.evaluate("localStorage.getItem('stalwart-thread')")
    context.close()
    photographed(browser, served.base + "/", "chat", lambda p: card(p).locator("[part=deadline]").wait_for(), thread)
    assert ledger(served, "charge") == []


def test_the_inbox_row_says_by_when_to_answer(browser, served):
    asked(served, "alice-1")
    context = browser.new_context(viewport=SIZES["desk"])
    page = context.new_page()
    page.goto(served.base + "/inbox")
    deadline = card(rows(page).first).locator("[part=deadline]")
    deadline.wait_for()
    assert deadline.is_visible() and DEADLINE.fullmatch(deadline.inner_text())
    context.close()
    photographed(
        browser, served.base + "/inbox", "inbox", lambda p: card(rows(p).first).locator("[part=deadline]").wait_for()
    )


def hurried_shop(folder: Path) -> Path:
    """The shop, its charges waiting seconds: a deadline to watch pass."""
    (folder / "tools.py").write_text((ROOT / "examples" / "shop" / "tools.py").read_text())
    (folder / "agent.yaml").write_text(
        "agents:\n  - name: shop\n    description: Charges, with a person's approval, or not at all.\n"
        f"    tools: tools.py\n    deadlines:\n      - tool: charge_card\n        expires: {SECONDS}s\n"
        "        escalate: {after: 5s, to: '\"managers\" in who.groups', label: the duty managers}\n"
    )
    return folder / "agent.yaml"


@pytest.fixture
def hurried(tmp_path):
    yield from stalwart_serving(tmp_path, config=hurried_shop(tmp_path))


def test_a_card_whose_deadline_passes_says_nobody_answered_in_place_of_its_answers(browser, hurried):
    asked(hurried, "alice-1")
    context = browser.new_context(viewport=SIZES["desk"], bypass_csp=True)
    inbox = context.new_page()
    inbox.goto(hurried.base + "/inbox")
    box = card(rows(inbox).first)
    deadline = box.locator("[part=deadline]")
    assert deadline.get_attribute("data-urgent") is not None, "seconds left: it looks urgent"
    assert deadline.evaluate("p => getComputedStyle(p).color") == "rgb(138, 75, 0)", "in the warning colour"
    escalation = box.locator("[part=escalation]")
    assert re.fullmatch(r"If nobody answers by .+, the duty managers will be asked too\.", escalation.inner_text())
    SHOTS.mkdir(parents=True, exist_ok=True)
    inbox.screenshot(path=str(SHOTS / "deadline-urgent-desk-light.png"), full_page=True)

    chat = context.new_page()
    chat.add_init_script("localStorage.setItem('stalwart-thread', 'alice-1')")
    chat.goto(hurried.base + "/")
    card(chat)

    expired = box.locator("[part=expired]")
    expired.wait_for(timeout=(SECONDS + 10) * 1000)
    assert EXPIRED.fullmatch(expired.inner_text())
    assert box.locator("[part=choices]").count() == 0 and box.locator("button").count() == 0
    assert box.locator("[part=deadline]").count() == 0
    assert box.locator("h2").inner_text() == TITLE, "what it was about stays"
    in_place(inbox, "expired-card")

    # The chat reads what waits again as the clock ends the pause, and records that nobody answered in time.
    record = chat.locator("stalwart-chat .record .what")
    record.first.wait_for(timeout=15_000)
    assert record.all_inner_texts() == [f"Nobody answered in time, so it was not done: {TITLE}"]
    chat.locator("stalwart-confirm").wait_for(state="detached")
    assert chat.locator("stalwart-chat textarea").is_enabled()
    in_place(chat, "chat-expired")
    context.close()
    assert ledger(hurried, "charge") == []
    assert httpx.get(f"{hurried.base}/threads/alice-1/interrupts", timeout=10).json()["waiting"] == []
