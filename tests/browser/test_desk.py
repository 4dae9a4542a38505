"""The card from each reader's side, and the inbox as a finance desk (issue 25): a real headless Chromium against
`stalwart serve --auth hs256`, people signed in with their names and groups.

Readers: the person who asked, under a rule that gives large charges to finance (she reads who it waits for and
has no Approve); an approver from finance (Approve, and "Alice Moreau typed it"); a second approver under four
eyes; and someone the rules give nothing to.  Each view is photographed at phone and desk sizes, light and dark,
into build/screenshots/, and axe-core finds no WCAG 2 A/AA violation in any of them.
"""

from __future__ import annotations

import json
import re
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest

from ..conftest import ROOT
from .conftest import AXE, SHOTS, SIGNIN_SECRET, Served, stalwart_serving
from .test_interface import ledger, say

SIZES = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 800}}
PEOPLE = {
    "alice": {"name": "Alice Moreau", "email": "alice@shop.example", "groups": ["sales"]},
    "fiona": {"name": "Fiona Walsh", "groups": ["finance"]},
    "frank": {"name": "Frank Ode", "groups": ["finance"]},
    "gina": {"name": "Gina Park", "groups": ["finance"]},
    "mallory": {"name": "Mallory Shaw", "groups": ["sales"]},
}
LARGE = "look up order 4413 and charge 1500 to order 4413"
TITLE = "Charge 1,500.00 EUR to order 4413"
FINANCE_FOR_LARGE = """
    approvers:
      - name: finance-large
        label: finance
        tool: charge_card
        kind: confirm
        when: "args.amount > 1000"
        who: '"finance" in who.groups'
"""
FIRST_APPROVAL = re.compile(r"Approved by Frank Ode \(1 of 2\)")
"""An approval is named as the card names people elsewhere: by the name the sign-in gives."""
FOUR_EYES = """
    approvals:
      charge_card: 2
    approvers:
      - name: finance
        label: finance
        tool: charge_card
        who: '"finance" in who.groups'
"""


def token_for(person: str) -> str:
    claims = {"sub": person, "iss": "test", "aud": "stalwart", "exp": int(time.time()) + 600, **PEOPLE[person]}
    return jwt.encode(claims, SIGNIN_SECRET, algorithm="HS256")


def desk_agent(folder: Path, rules: str) -> Path:
    """The shop's tools (amounts in euros), and ``rules`` (approvers, approvals) on its agent."""
    (folder / "tools.py").write_text((ROOT / "examples" / "shop" / "tools.py").read_text())
    rules = textwrap.indent(textwrap.dedent(rules).strip("\n"), "    ")
    (folder / "agent.yaml").write_text(
        f"agents:\n  - name: payments\n    description: Charges and refunds, with finance's approval.\n"
        f"    tools: tools.py\n{rules}\n"
    )
    return folder / "agent.yaml"


def serving(tmp_path: Path, rules: str) -> Iterator[Served]:
    yield from stalwart_serving(tmp_path, signed_in=True, config=desk_agent(tmp_path, rules))


@pytest.fixture
def finance(tmp_path):
    yield from serving(tmp_path, FINANCE_FOR_LARGE)


@pytest.fixture
def four_eyes(tmp_path):
    yield from serving(tmp_path, FOUR_EYES)


def asks(served: Served, person: str, thread: str, text: str) -> dict:
    """``person`` begins ``thread`` with ``text``, as the chat does; the one pause it waits on, as they read it."""
    answered = httpx.post(
        f"{served.base}/threads/{thread}/messages",
        json={"text": text},
        headers={"Authorization": f"Bearer {token_for(person)}"},
        timeout=30,
    )
    assert answered.status_code == 200, answered.text
    [pause] = answered.json()["waiting"]
    return pause


def signed_in(browser, served: Served, person: str, path: str, thread: str | None = None, **options):
    """A page of ``person`` signed in at ``path`` (the chat of ``thread``, or the inbox), as a provider's redirect
    leaves it."""
    context = browser.new_context(**options)
    if thread is not None:
        context.add_init_script(f"localStorage.setItem('stalwart-thread', {json.dumps(thread)})")
    page = context.new_page()
    page.goto(f"{served.base}{path}#access_token={token_for(person)}&token_type=Bearer&expires_in=600")
    return page


def card(page, kind: str = "confirm"):
    box = page.locator(f"stalwart-confirm section[data-kind={kind}]").first
    box.wait_for()
    return box


def inbox_rows(page):
    return page.locator("stalwart-inbox [part=row]")


def inbox_ready(page) -> None:
    page.wait_for_function(
        "() => { const inbox = document.querySelector('stalwart-inbox');"
        " return inbox && inbox.shadowRoot && !inbox.shadowRoot.querySelector('[part=status]').textContent.trim()"
        " .startsWith('Loading') && (inbox.shadowRoot.querySelector('[part=row]')"
        " || !inbox.shadowRoot.querySelector('[part=empty]').hidden); }"
    )


def buttons(box) -> list[str]:
    return box.locator("[part=choices] button").all_inner_texts()


def looked_at(browser, served: Served, person: str, path: str, name: str, ready, thread: str | None = None) -> None:
    """``person``'s view at ``path``, at phone and desk sizes, light and dark: photographed into build/screenshots/,
    and read by axe-core (in a copy of the page that may run it) with no WCAG 2 A/AA violation."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    found = {}
    for size, viewport in SIZES.items():
        for scheme in ("light", "dark"):
            page = signed_in(
                browser, served, person, path, thread, viewport=viewport, color_scheme=scheme, bypass_csp=True
            )
            ready(page)
            page.wait_for_timeout(200)
            shot = SHOTS / f"desk-{name}-{size}-{scheme}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            page.add_script_tag(path=str(AXE))
            found[(size, scheme)] = page.evaluate("""async () => {
                const result = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']});
                return result.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
            }""")
            page.context.close()
    assert found == {key: [] for key in found}


def colours(button) -> dict[str, str]:
    return button.evaluate(
        "b => { const s = getComputedStyle(b);"
        " return {color: s.color, background: s.backgroundColor, border: s.borderTopColor}; }"
    )


def test_the_owner_under_a_finance_rule_reads_who_it_waits_for_and_has_no_approve(browser, finance):
    page = signed_in(browser, finance, "alice", "/", viewport=SIZES["phone"])
    say(page, LARGE)
    box = card(page)
    assert box.locator("h2").inner_text() == TITLE
    assert box.locator("[part=waits-for]").inner_text() == "Waits for finance to decide"
    assert box.locator("[part=waits-for]").is_visible()
    assert box.locator("[part=asked]").inner_text().startswith("You asked, ")
    assert buttons(box) == ["Skip this step", "Cancel everything"]
    assert box.get_by_role("button", name="Approve").count() == 0
    assert box.locator("dd.value").all_inner_texts() == ["1,500.00 EUR", "4413"]
    assert box.locator("dd.origin").all_inner_texts() == ["you typed it", "you typed it"]
    assert page.locator("stalwart-chat [part=status]").inner_text() == "Waits for finance to decide"
    thread = page.evaluate("localStorage.getItem('stalwart-thread')")
    page.context.close()
    looked_at(browser, finance, "alice", "/", "owner-waits-for-finance", card, thread)
    assert ledger(finance, "charge") == []


def test_an_approver_reads_who_typed_it_approves_from_the_inbox_and_the_asker_reads_her_name(browser, finance):
    asks(finance, "alice", "alice-1", LARGE)
    asks(finance, "alice", "alice-2", "charge 1200 to order 4411")
    page = signed_in(browser, finance, "fiona", "/inbox", viewport=SIZES["desk"])
    inbox_rows(page).nth(1).wait_for()
    row = inbox_rows(page).filter(has_text=LARGE)
    assert LARGE in row.locator("[part=thread]").inner_text()
    assert "alice-1" not in row.locator("[part=thread]").inner_text()
    box = card(row)
    assert box.locator("h2").inner_text() == TITLE
    assert box.locator("dd.origin").first.inner_text() == "Alice Moreau typed it"
    assert re.fullmatch(r"Asked by Alice Moreau, .+", box.locator("[part=asked]").inner_text())
    assert box.locator("[part=deciders]").inner_text() == "Needs an approver from finance"
    assert box.locator("[part=waits-for]").count() == 0
    assert buttons(box) == ["Approve", "Skip this step", "Cancel everything"]
    approve, cancel = box.get_by_role("button", name="Approve"), box.get_by_role("button", name="Cancel everything")
    assert colours(cancel)["color"] == "rgb(179, 38, 30)", "a destructive answer is drawn in the refusal colour"
    assert colours(cancel)["background"] != colours(approve)["background"], "and never as the primary answer is"
    looked_at(browser, finance, "fiona", "/inbox", "approver-inbox", lambda p: inbox_rows(p).nth(1).wait_for())

    # The filters: by kind, then by tool, from the controls; the attribute follows.
    inbox = page.locator("stalwart-inbox")
    inbox.get_by_label("Kind").select_option(label="Questions to answer")
    page.wait_for_function("() => document.querySelector('stalwart-inbox').getAttribute('kind') === 'ask'")
    inbox.locator("[part=empty]").wait_for()
    assert inbox_rows(page).count() == 0
    inbox.get_by_label("Kind").select_option(label="All kinds")
    inbox.get_by_label("Tool").select_option(label="Charge a card")
    inbox_rows(page).nth(1).wait_for()
    assert inbox.get_attribute("tool") == "charge_card"

    owner = signed_in(browser, finance, "alice", "/", "alice-1", viewport=SIZES["desk"])
    card(owner)
    owner.locator("stalwart-chat [part=status]").filter(has_text="Waits for finance to decide").wait_for()

    box = card(inbox_rows(page).filter(has_text=LARGE))
    box.get_by_role("button", name="Approve", exact=True).click()
    status = inbox.locator("[part=status]")
    status.filter(has_text="done").wait_for()
    assert status.locator(".line").all_inner_texts() == [f"You answered Approve: {TITLE}", f"{TITLE}: done"]
    assert inbox_rows(page).count() == 1
    assert [entry["amount"] for entry in ledger(finance, "charge")] == [1500]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=str(SHOTS / f"desk-approver-answered-{size}-light.png"), full_page=True)
    page.context.close()

    record = owner.locator("stalwart-chat .record .what")
    record.first.wait_for()
    assert record.all_inner_texts() == [f"Fiona Walsh approved: {TITLE}"]
    assert "by " not in owner.locator("stalwart-chat .record .meta").inner_text()
    owner.locator("stalwart-confirm").wait_for(state="detached")
    owner.context.close()
    looked_at(
        browser,
        finance,
        "alice",
        "/",
        "owner-record-by-name",
        lambda p: p.locator("stalwart-chat .record .what").first.wait_for(),
        "alice-1",
    )


def test_under_four_eyes_the_second_approver_reads_the_first_and_approves_and_the_first_cannot_again(
    browser, four_eyes
):
    asks(four_eyes, "alice", "alice-1", "charge 40 to order 4411")
    frank = signed_in(browser, four_eyes, "frank", "/inbox", viewport=SIZES["desk"])
    box = card(inbox_rows(frank).first)
    assert box.locator("[part=deciders]").inner_text() == "Needs 2 approvals, none given yet"
    box.get_by_role("button", name="Approve", exact=True).click()
    frank.locator("stalwart-inbox [part=status]").filter(has_text="Your approval is counted").wait_for()
    box = card(inbox_rows(frank).first)
    box.locator("[part=deciders]").filter(has_text=FIRST_APPROVAL).wait_for()
    assert buttons(box) == ["Skip this step", "Cancel everything"], "nobody approves twice"
    assert box.locator("[part=waits-for]").inner_text().startswith("Your approval is counted")
    frank.context.close()
    looked_at(browser, four_eyes, "frank", "/inbox", "four-eyes-first-approver", lambda p: card(inbox_rows(p).first))

    gina = signed_in(browser, four_eyes, "gina", "/inbox", viewport=SIZES["phone"])
    box = card(inbox_rows(gina).first)
    assert FIRST_APPROVAL.fullmatch(box.locator("[part=deciders]").inner_text())
    assert box.locator("dd.origin").first.inner_text() == "Alice Moreau typed it"
    assert buttons(box) == ["Approve", "Skip this step", "Cancel everything"]
    looked_at(browser, four_eyes, "gina", "/inbox", "four-eyes-second-approver", lambda p: card(inbox_rows(p).first))
    assert ledger(four_eyes, "charge") == []
    box.get_by_role("button", name="Approve", exact=True).click()
    status = gina.locator("stalwart-inbox [part=status]")
    status.filter(has_text="done").wait_for()
    assert status.locator(".line").all_inner_texts() == [
        "You answered Approve: Charge 40.00 EUR to order 4411",
        "Charge 40.00 EUR to order 4411: done",
    ]
    assert len(ledger(four_eyes, "charge")) == 1
    gina.locator("stalwart-inbox [part=empty]").wait_for()
    gina.context.close()


def test_someone_the_rules_give_nothing_to_sees_an_empty_desk_and_cannot_answer(browser, finance):
    pause = asks(finance, "alice", "alice-1", LARGE)
    page = signed_in(browser, finance, "mallory", "/inbox", viewport=SIZES["desk"])
    inbox_ready(page)
    assert page.locator("stalwart-inbox [part=empty]").inner_text() == "Nothing is waiting for a decision."
    assert inbox_rows(page).count() == 0
    page.context.close()
    looked_at(browser, finance, "mallory", "/inbox", "not-an-approver-inbox", inbox_ready)
    refused = httpx.post(
        f"{finance.base}/threads/alice-1/resume",
        json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]},
        headers={"Authorization": f"Bearer {token_for('mallory')}"},
        timeout=10,
    )
    assert refused.status_code in (403, 404), refused.text
    assert ledger(finance, "charge") == []
