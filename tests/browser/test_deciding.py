"""What a person needs to decide (issue 16), in a real headless Chromium against a real `stalwart serve`:
results in the conversation, the card in words, a record of each decision, the composer while a run waits,
a refusal once, and the empty page's agent and examples."""

import json
import sys

import httpx
import pytest

from stalwart_agents import Desk, OutcomeUnknown

from ..conftest import ROOT
from .conftest import SHOTS, Served
from .test_interface import CHARGE, answer, assert_accessible, confirm_box, ledger, say, thread_of

REFUSED = "Charges over 500 go through the finance desk, not the chat."
PHONE = {"width": 390, "height": 844}


def chat(page):
    return page.locator("stalwart-chat")


def records(page):
    return page.locator("stalwart-chat .record .what")


def composer(page):
    return page.locator("stalwart-chat [part=composer] textarea")


def test_a_steps_result_is_in_the_conversation_and_opens_to_the_whole(page, served, browser):
    say(page, "look up order 4412")
    result = page.locator("stalwart-chat .entry.reply .results details").first
    result.wait_for()
    summary = result.locator("summary")
    assert summary.inner_text().startswith("look_up_order ")
    assert "total: 125.50" in summary.inner_text()
    assert not result.locator("pre").is_visible()
    summary.click()
    assert json.loads(result.locator("pre").inner_text())["card"] == "amex-2201"
    assert_accessible(page, browser, served)


def test_a_turn_nothing_read_goes_to_the_examples_model_on_yes_and_its_read_runs(page, served, browser):
    say(page, "what is the total of 4412?")
    confirm_box(page, "delegate")
    assert_accessible(page, browser, served)
    answer(page, "Yes, pass it on", "delegate")
    result = page.locator("stalwart-chat .entry.reply .results details").first
    result.wait_for()
    assert "total: 125.50" in result.locator("summary").inner_text()
    assert (
        "I read that as look_up_order for order 4412." in page.locator("stalwart-chat .entry.reply").last.inner_text()
    )
    assert ledger(served, "charge") == []


def test_an_argument_from_an_earlier_call_names_that_call_and_shows_what_it_gave(browser, tmp_path):
    served = Served(
        f"sqlite:///{tmp_path / 'steps.db'}",
        tmp_path / "ledger.jsonl",
        "operator-for-browser-tests",
        config=ROOT / "tests" / "steps" / "agent.yaml",
    )
    served.start()
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(served.base + "/")
        say(page, "settle order 4411")
        box = page.locator("stalwart-confirm section[data-kind=confirm]", has_text="charge").first
        box.wait_for()
        origin = box.locator("dd.origin[data-origin='result:1.1']")
        assert origin.inner_text().startswith("from look_up_order")
        origin.locator("summary").click()
        assert json.loads(origin.locator("pre").inner_text()) == {"order_id": "4411", "total": 40, "customer": "c-208"}
        assert_accessible(page, browser, served)
        context.close()
    finally:
        served.stop()


def test_the_irreversible_card_warns_first_and_its_approve_says_so(page, served, browser):
    say(page, "send the receipt for order 4411")
    box = confirm_box(page)
    assert box.locator(":scope > :first-child").get_attribute("part") == "irreversible"
    assert box.locator("h2").inner_text() == "Mail the receipt for order 4411"
    assert box.locator("p.question").inner_text() == "Mail the receipt for this order?"
    assert box.locator("[part=choices] button").all_inner_texts() == [
        "Approve — cannot be undone",
        "Skip this step",
        "Cancel everything",
    ]
    assert_accessible(page, browser, served)
    answer(page, "Approve — cannot be undone")
    records(page).first.wait_for()
    assert records(page).all_inner_texts() == ["You approved: Mail the receipt for order 4411"]
    assert len(ledger(served, "receipt")) == 1


def test_the_decision_record_says_what_and_when_and_survives_a_reload_and_a_new_tab(page, served, browser):
    say(page, CHARGE)
    answer(page, "Skip this step")
    records(page).first.wait_for()
    assert records(page).all_inner_texts() == ["You skipped: Charge 40.00 EUR to order 4411"]
    assert page.locator("stalwart-chat .record time").get_attribute("datetime").endswith("Z")
    page.reload()
    records(page).first.wait_for()
    assert records(page).all_inner_texts() == ["You skipped: Charge 40.00 EUR to order 4411"]

    context = browser.new_context()
    tab = context.new_page()
    tab.add_init_script(f"localStorage.setItem('stalwart-thread', {json.dumps(thread_of(page))})")
    tab.goto(served.base + "/")
    records(tab).first.wait_for()
    assert records(tab).all_inner_texts() == ["You skipped: Charge 40.00 EUR to order 4411"], (
        "made from the thread's events"
    )
    context.close()
    assert ledger(served, "charge") == []


def test_the_composer_is_disabled_while_a_run_waits_and_keeps_what_was_typed(page, served):
    say(page, "look up order 4411")
    page.locator("stalwart-chat .entry.reply").first.wait_for()
    composer(page).fill("and mail the receipt")
    sent = httpx.post(f"{served.base}/threads/{thread_of(page)}/messages", json={"text": CHARGE}, timeout=30)
    assert sent.json()["waiting"], sent.text
    confirm_box(page)
    assert composer(page).is_disabled()
    assert chat(page).locator("[part=composer] button").is_disabled()
    assert composer(page).input_value() == "and mail the receipt"
    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert composer(page).is_enabled()
    assert composer(page).input_value() == "and mail the receipt"


def test_an_ask_is_answered_in_its_card_with_one_labelled_field_and_one_send(page, served, browser):
    say(page, "charge order 4411")
    box = confirm_box(page, "ask")
    assert box.locator("input").count() == 1
    assert box.get_by_role("textbox", name="Your answer").is_visible()
    assert page.get_by_role("button", name="Send", exact=True, disabled=False).count() == 1
    assert composer(page).is_disabled()
    assert_accessible(page, browser, served)
    box.get_by_role("textbox", name="Your answer").fill("40")
    box.get_by_role("button", name="Send", exact=True).click()
    assert confirm_box(page).locator("h2").inner_text() == "Charge 40.00 EUR to order 4411"


def test_a_refusal_is_shown_once(page, served):
    say(page, "charge 600 to order 4413")
    page.locator("stalwart-decision").wait_for()
    assert page.get_by_text(REFUSED).count() == 1


def test_the_empty_page_says_what_the_agent_does_and_an_example_goes_into_the_composer(page, served, browser):
    about = httpx.get(f"{served.base}/config.json", timeout=10).json()
    intro = page.locator("stalwart-chat .about")
    intro.wait_for()
    assert intro.locator("h2").inner_text() == "shop"
    assert intro.locator(".description").inner_text() == "Looks up orders and charges them, with a person's approval."
    examples = intro.locator(".examples button")
    assert examples.all_inner_texts() == about["examples"] and "look up order 4411" in about["examples"]
    assert_accessible(page, browser, served)
    examples.filter(has_text="look up order 4411").click()
    assert composer(page).input_value() == "look up order 4411"
    page.keyboard.press("Enter")
    page.locator("stalwart-chat .entry.reply .results").wait_for()
    assert intro.count() == 0


def real_pause(kind):
    """An outcome_unknown or saga_stuck pause as the engine makes it (the bank's arranged failures, in process):
    `stalwart serve` has no way to make a tool fail on cue."""
    desk = Desk.from_file(ROOT / "tests" / "bank" / "agent.yaml", sleep=lambda seconds: None)
    tools = sys.modules[desk.agents["bank"].tools["pay"].fn.__module__]
    try:
        if kind == "outcome_unknown":
            tools.FAIL["pay"] = [OutcomeUnknown("the bank timed out")]
            reply = desk.send("t", "pay 5 to ana")
        else:
            tools.FAIL["refund"] = [RuntimeError("bank down")] * 3
            desk.send("t", "pay 5 to ana and pay 7 to bob and pay 100 to cy")
            reply = desk.confirm("t", "cancel_all")
        return reply.waiting[0].to_dict()
    finally:
        tools.FAIL.clear()
        desk.close()


SERVED_KINDS = {
    "confirm": CHARGE,
    "confirm-irreversible": "send the receipt for order 4411",
    "ask": "charge order 4411",
    "delegate": "book me a flight to Lisbon",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_every_pause_kind_at_phone_width(browser, served, scheme):
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = []
    for name, turn in SERVED_KINDS.items():
        context = browser.new_context(color_scheme=scheme, viewport=PHONE)
        page = context.new_page()
        page.goto(served.base + "/")
        say(page, turn)
        confirm_box(page, name.split("-")[0])
        shots.append(shoot(page, f"pause-{name}-{scheme}.png"))
        context.close()
    for kind in ("outcome_unknown", "saga_stuck"):
        context = browser.new_context(color_scheme=scheme, viewport=PHONE)
        page = context.new_page()
        page.goto(served.base + "/")
        page.evaluate(
            """(pause) => {
            const card = document.createElement('stalwart-confirm');
            card.interrupt = pause;
            document.querySelector('main').prepend(card);
        }""",
            real_pause(kind),
        )
        confirm_box(page, kind)
        shots.append(shoot(page, f"pause-{kind}-{scheme}.png"))
        context.close()
    assert all(path.stat().st_size > 10_000 for path in shots)


def shoot(page, name):
    path = SHOTS / name
    page.screenshot(path=str(path), full_page=True)
    return path
