"""Issue 27 in a real headless Chromium against a real `stalwart serve` of the shop: the amount of a charge changed on
its card before approving it, and several charges approved at once from the inbox."""

import httpx
import pytest

from .conftest import AXE, SHOTS, stalwart_serving
from .test_interface import confirm_box, ledger, say

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
LOOKS = [(size, scheme) for size in SIZES for scheme in ("light", "dark")]


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """One `stalwart serve` for the module: each test's pauses are its own threads', and each test answers them all."""
    yield from stalwart_serving(tmp_path_factory.mktemp("edit-batch"))


def axe(page):
    """What axe-core finds against WCAG 2 A/AA in the page as it is now (its context must bypass the CSP)."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
        return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
    }""")


def shoot(page, name):
    """The whole page from its top, where a sticky bar or summary sits in its place, not where a scroll left it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_the_amount_changed_on_the_card_is_what_runs_and_what_the_record_says(browser, shop):
    for size, scheme in LOOKS:
        context = browser.new_context(color_scheme=scheme, viewport=SIZES[size], bypass_csp=True)
        page = context.new_page()
        page.goto(shop.base + "/")
        say(page, "charge 150 to order 4411")
        box = confirm_box(page)
        amount = box.get_by_label("Amount")
        assert amount.input_value() == "150"
        assert box.locator("[part=asked-value]").count() == 0
        amount.fill("120")
        assert box.locator("[part=asked-value]").inner_text() == "asked 150.00 EUR"
        approve = box.locator("button[data-answer=approve]")
        assert approve.inner_text() == "Approve with changes"
        shoot(page, f"edit-card-{size}-{scheme}.png")
        if (size, scheme) != LOOKS[-1]:
            box.get_by_role("button", name="Skip this step").click()
            box.wait_for(state="detached")
            context.close()

    assert axe(page) == []
    amount.fill("")
    assert box.locator("[part=edit-error]").inner_text() == "Enter a number for Amount to approve."
    assert approve.is_disabled()
    amount.fill("600")
    approve.click()
    status = page.locator("stalwart-chat [part=status]")
    status.filter(has_text="500").wait_for()
    assert "Charges over 500 go through the finance desk" in status.inner_text()
    assert amount.input_value() == "600", "what was typed stays, to put right"
    assert ledger(shop, "charge") == []

    box.get_by_role("button", name="Undo my changes").click()
    assert amount.input_value() == "150"
    assert approve.inner_text() == "Approve"
    amount.fill("120")
    approve.click()
    box.wait_for(state="detached")
    record = page.locator("stalwart-chat .record .what").first
    record.wait_for()
    assert record.inner_text() == "You approved 120.00 EUR (asked 150.00 EUR): Charge 120.00 EUR to order 4411"
    assert "Done" in page.locator("stalwart-chat .entry.reply").last.inner_text()
    assert [charge["amount"] for charge in ledger(shop, "charge")] == [120]
    shoot(page, "edit-card-done.png")
    context.close()


def test_several_charges_approved_at_once_from_the_inbox(browser, shop):
    charged = len(ledger(shop, "charge"))
    for n, turn in enumerate(["charge 40 to order 4411", "charge 60 to order 4413", "charge 25.5 to order 4411"]):
        assert httpx.post(f"{shop.base}/threads/batch-{n}/messages", json={"text": turn}, timeout=30).status_code == 200
    mail = {"text": "send the receipt for order 4411"}
    receipt = httpx.post(f"{shop.base}/threads/receipt/messages", json=mail, timeout=30)
    assert receipt.json()["waiting"][0]["tool"] == "send_receipt"
    charges = ["Charge 40.00 EUR to order 4411", "Charge 60.00 EUR to order 4413", "Charge 25.50 EUR to order 4411"]

    for size, scheme in LOOKS:
        context = browser.new_context(color_scheme=scheme, viewport=SIZES[size], bypass_csp=True)
        page = context.new_page()
        page.goto(shop.base + "/inbox")
        inbox = page.locator("stalwart-inbox")
        inbox.locator("[part=row]").nth(3).wait_for()
        for title in charges:
            inbox.get_by_role("checkbox", name=f"Select {title}").check()
        assert inbox.get_by_role("checkbox", name="Select Mail the receipt for order 4411").is_disabled()
        assert "3 selected" in inbox.locator("[part=batch]").inner_text()
        if (size, scheme) == LOOKS[0]:
            shoot(page, "inbox-batch-selected.png")
        inbox.get_by_role("button", name="Approve 3").click()
        summary = inbox.locator("[part=batch-summary]")
        assert summary.locator("h3").inner_text() == "Approve these 3 calls?"
        assert summary.locator("li").all_inner_texts() == charges[::-1], "each call, in the inbox's order"
        assert summary.locator("[part=batch-total]").inner_text() == "Amount in total: 125.50 EUR"
        shoot(page, f"inbox-batch-{size}-{scheme}.png")
        if (size, scheme) != LOOKS[-1]:
            context.close()

    assert axe(page) == []
    # Meanwhile the first charge's owner answers it themselves: that one is someone else's answer.
    first = httpx.get(f"{shop.base}/threads/batch-0/interrupts", timeout=10).json()["waiting"][0]
    body = {"interrupt_id": first["id"], "decision": "skip", "token": first["token"]}
    assert httpx.post(f"{shop.base}/threads/batch-0/resume", json=body, timeout=30).status_code == 200
    summary.get_by_role("button", name="Approve 3").click()
    lines = inbox.locator("[part=status] .line")
    lines.nth(3).wait_for()
    assert lines.all_inner_texts() == [
        "You approved 2 of 3",
        "Charge 25.50 EUR to order 4411: done",
        "Charge 60.00 EUR to order 4413: done",
        "Charge 40.00 EUR to order 4411: someone else answered first",
    ]
    shoot(page, "inbox-batch-done.png")
    inbox.locator("[part=row]").nth(1).wait_for(state="detached")
    assert inbox.locator("[part=row] stalwart-confirm h2").all_inner_texts() == ["Mail the receipt for order 4411"]
    assert sorted(charge["amount"] for charge in ledger(shop, "charge")[charged:]) == [25.5, 60]
    context.close()
