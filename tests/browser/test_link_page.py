"""The page behind a signed link, as a person opens it from a mail on a phone or a desk, light and dark: before
acting (with by when to answer), after, used, past its hours, and once nobody answered in time.  A real headless
Chromium; every view photographed into build/screenshots/ and read by axe-core with no WCAG 2 A/AA violation."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from stalwart_agents import Desk, Webhook
from stalwart_agents.serve import make_app

from ..conftest import SHOP
from ..server import Later, Receiver, receiving, serving
from .conftest import AXE, SHOTS

SIZES = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 800}}
AXE_RUN = """async () => {
    const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
    return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
}"""


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@dataclass
class Shop:
    base: str
    receiver: Receiver
    clock: Clock

    def links(self, thread: str, text: str) -> dict[str, str]:
        assert httpx.post(f"{self.base}/threads/{thread}/messages", json={"text": text}).status_code == 200
        return self.receiver.got[-1]["links"]


def shop_served(tmp_path, **options) -> Iterator[Shop]:
    """The shop example (a charge waits 4 hours), its pauses posted with their links; ``options`` for ``make_app``."""
    clock = Clock()
    with (
        Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock) as desk,
        receiving("whsec-pages") as receiver,
    ):
        later = Later()
        with serving(later) as base:
            webhook = Webhook(receiver.url, "whsec-pages")
            later.app = make_app(desk, on_interrupt=webhook, public_url=base, **options)
            yield Shop(base, receiver, clock)


@pytest.fixture
def shop(tmp_path, ledger) -> Iterator[Shop]:
    yield from shop_served(tmp_path)


@pytest.fixture
def hour_links(tmp_path, ledger) -> Iterator[Shop]:
    """Links good for an hour, on pauses that wait four."""
    yield from shop_served(tmp_path, link_hours=1)


def looked_at(browser, url: str, name: str, *, post: bool = False) -> list[str]:
    """The page at ``url`` (or what its button does, with ``post``: once, on the first view) at each size and
    scheme, photographed and read by axe; what it says, as the first view showed it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    said: list[str] = []
    found = {}
    for size, viewport in SIZES.items():
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport=viewport, color_scheme=scheme, bypass_csp=True)
            page.goto(url)
            if post and not said:
                page.get_by_role("button").click()
                page.wait_for_load_state()
            said = said or [line.strip() for line in page.locator("main").inner_text().splitlines() if line.strip()]
            page.screenshot(path=str(SHOTS / f"link-{name}-{size}-{scheme}.png"), full_page=True)
            page.add_script_tag(path=str(AXE))
            found[(size, scheme)] = page.evaluate(AXE_RUN)
            page.close()
    assert found == {key: [] for key in found}
    return said


def test_before_acting_the_page_is_the_card_with_the_links_one_answer(browser, shop):
    links = shop.links("t", "look up order 4411 and charge 40 to order 4411")
    said = looked_at(browser, links["approve"], "approve")
    assert said[0] == "Charge 40.00 EUR to order 4411" and "What it will use" in said and "Amount" in said
    assert "the person who asked typed it" in said and "It changes something outside this conversation." in said
    assert said[-2] == "Approve" and said[-1].startswith("This link answers once, until ")
    assert re.fullmatch(r"Answer by \d+ \w{3} \d{4}, \d\d:\d\d UTC; after that it is skipped\.", said[2])
    cancel = looked_at(browser, links["cancel_all"], "cancel")
    assert "Cancel everything" in cancel and "Approve" not in cancel


def test_an_irreversible_call_warns_first_and_its_button_says_it_cannot_be_undone(browser, shop):
    links = shop.links("r", "send the receipt for order 4411")
    said = looked_at(browser, links["approve"], "irreversible")
    assert said[0] == "Nothing can undo this step once it runs." and "Approve — cannot be undone" in said


def test_the_destructive_answer_does_not_look_like_the_primary_one(browser, shop):
    links = shop.links("t", "look up order 4411 and charge 40 to order 4411")
    colours = []
    for decision in ("approve", "cancel_all"):
        page = browser.new_page(viewport=SIZES["phone"])
        page.goto(links[decision])
        colours.append(page.get_by_role("button").evaluate("b => getComputedStyle(b).backgroundColor"))
        page.close()
    assert colours[0] != colours[1]


def test_after_acting_it_says_what_ran_and_its_result(browser, shop, ledger):
    links = shop.links("t", "look up order 4411 and charge 40 to order 4411")
    said = looked_at(browser, links["approve"], "done", post=True)
    assert said[:2] == ["Answer taken", "You approved: Charge 40.00 EUR to order 4411"]
    assert "Charge 40.00 EUR to order 4411: done" in said and any("ch-4411" in line for line in said)
    assert len(ledger("charge")) == 1


def test_a_used_link_says_what_was_answered_and_when(browser, shop, ledger):
    links = shop.links("t", "look up order 4411 and charge 40 to order 4411")
    assert httpx.post(links["skip"], headers={"Origin": shop.base}).status_code == 200
    said = looked_at(browser, links["approve"], "used")
    assert said[0] == "Already answered" and said[1].startswith("It was answered: Skip this step, ")
    assert ledger("charge") == []


def test_a_link_past_its_hours_says_nothing_was_done_and_where_the_pause_still_waits(browser, hour_links, ledger):
    links = hour_links.links("t", "look up order 4411 and charge 40 to order 4411")
    hour_links.clock.now += 2 * 3600
    said = looked_at(browser, links["approve"], "expired")
    assert said == ["This link has expired", "Nothing was done with this link.", "Waiting for a decision"]
    assert ledger("charge") == []


def test_a_link_to_a_pause_nobody_answered_in_time_says_so_and_that_nothing_was_done(browser, shop, ledger):
    links = shop.links("t", "look up order 4411 and charge 40 to order 4411")
    shop.clock.now += 25 * 3600
    said = looked_at(browser, links["approve"], "request-expired")
    assert said[:2] == ["This request has expired", "Charge 40.00 EUR to order 4411"]
    assert re.fullmatch(r"Nobody answered by \d+ \w{3} \d{4}, \d\d:\d\d UTC, so it was skipped\.", said[2])
    assert said[3:] == ["Nothing was done with this link."] and ledger("charge") == []
