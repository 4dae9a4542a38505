"""The interface as a person uses it: a real headless Chromium against a real `stalwart serve`."""

import json

import httpx
import pytest

from .conftest import AXE, SHOTS

CHARGE = "look up order 4411 and charge 40 to order 4411"


def say(page, text):
    page.locator("textarea[part=composer], form[part=composer] textarea").fill(text)
    page.keyboard.press("Enter")


def confirm_box(page, kind="confirm"):
    box = page.locator(f"stalwart-confirm section[data-kind={kind}]")
    box.wait_for()
    return box


def answer(page, label, kind="confirm"):
    confirm_box(page, kind).get_by_role("button", name=label, exact=True).click()


def ledger(served, kind):
    if not served.ledger.exists():
        return []
    return [entry for entry in map(json.loads, served.ledger.read_text().splitlines()) if entry["kind"] == kind]


def thread_of(page):
    return page.evaluate("localStorage.getItem('stalwart-thread')")


def assert_accessible(page, browser, served, path="/"):
    """axe-core (injected in a copy of the page that may run it) finds no WCAG 2 A/AA violation."""
    context = browser.new_context(bypass_csp=True)
    copy = context.new_page()
    copy.add_init_script(f"localStorage.setItem('stalwart-thread', {json.dumps(thread_of(page))})")
    copy.goto(served.base + path)
    copy.wait_for_timeout(300)
    copy.add_script_tag(path=str(AXE))
    found = copy.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
        return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
    }""")
    context.close()
    assert found == []


def test_a_turn_shows_the_confirmation_with_arguments_in_words_and_approve_runs_it(page, served, browser):
    say(page, CHARGE)
    box = confirm_box(page)
    assert box.locator("h2").inner_text() == "Charge 40.00 EUR to order 4411"
    assert box.locator("p.question").count() == 0
    assert box.locator("dt").all_inner_texts() == ["Amount", "Order"]
    assert box.locator("dd.origin").all_inner_texts() == ["you typed it", "you typed it"]
    assert box.locator("[part=reasons] li").all_inner_texts() == ["It changes something outside this conversation."]
    assert box.locator("[part=reasons] li").get_attribute("data-reason") == "write"
    assert page.locator("[part=status]").inner_text() == "Waiting for your decision"
    assert_accessible(page, browser, served)

    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert "Done: look_up_order, charge_card." in page.locator(".entry.reply").last.inner_text()
    assert len(ledger(served, "charge")) == 1
    assert all(url.startswith(served.base) for url in page.requests_made)


def test_skip_runs_nothing_and_cancel_all_undoes_what_ran(page, served, browser):
    say(page, "charge 40 to order 4411 and send the receipt for order 4411")
    answer(page, "Approve")
    box = confirm_box(page)
    assert box.locator("[part=irreversible]").inner_text() == "Nothing can undo this step once it runs."
    answer(page, "Cancel everything")
    report = page.locator("stalwart-rollback")
    report.wait_for()
    assert report.locator("ul.undone li").all_inner_texts() == ["Undone charge_card"]
    assert [entry["kind"] for entry in ledger(served, "refund")] == ["refund"] and ledger(served, "receipt") == []
    assert_accessible(page, browser, served)

    say(page, "charge 40 to order 4412")
    answer(page, "Skip this step")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert "Skipped charge_card, as you asked." in page.locator(".entry.reply").last.inner_text()
    assert [entry["order_id"] for entry in ledger(served, "charge")] == ["4411"]


def test_an_ask_is_answered_in_its_own_field(page, served, browser):
    say(page, "charge order 4411")
    box = confirm_box(page, "ask")
    waiting = httpx.get(f"{served.base}/threads/{thread_of(page)}/interrupts", timeout=10).json()["waiting"]
    assert box.locator("h2").inner_text() == waiting[0]["prompt"]
    assert_accessible(page, browser, served)
    box.locator("input").fill("40")
    box.get_by_role("button", name="Send").click()
    box = confirm_box(page)
    assert "you answered it" in box.locator("dd.origin").all_inner_texts()


def test_a_refusal_says_why_in_a_sentence_and_shows_its_rule_on_request(page, served, browser):
    say(page, "charge 600 to order 4413")
    decision = page.locator("stalwart-decision")
    decision.wait_for()
    assert (
        "Charges over 500 go through the finance desk, not the chat."
        in decision.locator("[part=decision]").inner_text()
    )
    assert not decision.locator("[part=rule]").is_visible()
    decision.get_by_role("button", name="Which rule?").click()
    assert "charges-over-500" in decision.locator("[part=rule]").inner_text()
    assert_accessible(page, browser, served)


def test_a_pending_confirmation_is_still_there_after_a_reload(page, served):
    say(page, CHARGE)
    waiting = confirm_box(page).locator("h2").inner_text()
    page.reload()
    assert confirm_box(page).locator("h2").inner_text() == waiting
    answer(page, "Approve")
    page.locator("stalwart-confirm").wait_for(state="detached")
    assert len(ledger(served, "charge")) == 1


def test_the_stream_resumes_after_the_server_drops_it(page, served):
    say(page, "look up order 4411")
    trace = page.locator("stalwart-trace li")
    trace.first.wait_for(state="attached")
    seen = trace.count()
    served.restart()
    httpx.post(f"{served.base}/threads/{thread_of(page)}/messages", json={"text": "look up order 4412"}, timeout=10)
    page.wait_for_function(
        f"() => document.querySelector('stalwart-chat').shadowRoot.querySelector('stalwart-trace')"
        f".shadowRoot.querySelectorAll('li').length > {seen}",
        timeout=20_000,
    )


def test_set_strings_replaces_the_words_shown(page):
    page.evaluate(
        "async () => (await import('/agent-ui.js')).setStrings({approve: 'Aprovar', skip: 'Pular este passo'})"
    )
    say(page, CHARGE)
    box = confirm_box(page)
    assert box.get_by_role("button", name="Aprovar").is_visible()
    assert box.get_by_role("button", name="Pular este passo").is_visible()


@pytest.mark.parametrize(
    ("scheme", "theme", "background"),
    [
        ("light", None, "rgb(255, 255, 255)"),
        ("dark", None, "rgb(18, 18, 18)"),
        ("dark", "light", "rgb(255, 255, 255)"),
        ("light", "dark", "rgb(18, 18, 18)"),
    ],
)
def test_theme_and_prefers_color_scheme_choose_the_colours(browser, served, scheme, theme, background):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(served.base + "/")
    if theme:
        page.evaluate(f"document.querySelector('stalwart-chat').setAttribute('theme', '{theme}')")
    page.wait_for_function("customElements.get('stalwart-chat') !== undefined")
    colour = page.evaluate("getComputedStyle(document.querySelector('stalwart-chat')).backgroundColor")
    context.close()
    assert colour == background


def test_screenshots_of_the_light_and_dark_interface_with_a_confirmation_waiting(browser, served):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme, viewport={"width": 900, "height": 900})
        page = context.new_page()
        page.goto(served.base + "/")
        say(page, CHARGE)
        confirm_box(page)
        path = SHOTS / f"confirmation-{scheme}.png"
        page.screenshot(path=str(path), full_page=True)
        context.close()
        assert path.stat().st_size > 10_000
