"""Edit, then approve: a person changes what a tool declares editable, the check runs again on the changed call, and
the approval means exactly the call that person saw and was allowed to give."""

from functools import partial
from typing import Any

import pytest

from stalwart_agents import BadRequest, Desk, EditRefused, InterruptStale, NotAnApprover
from stalwart_agents.approvals.admission import Admission
from stalwart_agents.approvals.card import card_of
from stalwart_agents.http.card_page import card_html

from .conftest import SHOP, present
from .server import at_once
from .test_approvers import ALICE, FINANCE_FOR_LARGE, FIONA, FOUR_EYES, FRANK, GINA, charge, opened, shop


def announced(desk: Desk) -> list:
    """Every pause the desk announces from now on, as its webhook would be told of it."""
    told: list = []
    desk.on_interrupt = lambda thread, pause: told.append(pause)
    return told


def test_an_edit_within_the_rules_runs_once_with_exactly_the_edited_values(tmp_path, ledger):
    with opened(tmp_path, "check: {}") as desk:
        pause = charge(desk, "t", 150)
        done = desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 120})
        assert done.status == "done"
        [step] = done.steps
        executed = [(c["order_id"], c["amount"]) for c in ledger("charge")]
        assert executed == [("4411", 120)]
        assert step.arguments == [
            {"name": "amount", "value": 120, "origin": "edited:alice@shop.example"},
            {"name": "order_id", "value": "4411", "origin": "typed"},
        ]
        [answer] = [r for r in desk.history("t") if r["outcome"] == "taken"]
        changed_to: Any = answer["changed_to"]
        assert answer["decision"] == "approve"
        assert answer["arguments"] == pause.arguments  # as asked
        assert changed_to["arguments"] == step.arguments  # as approved, which is what ran
        assert answer["edits"] == [
            {"name": "amount", "label": "Amount", "asked": 150, "value": 120, "from": "150.00 EUR", "to": "120.00 EUR"}
        ]
        journal = [e for _, e in desk.events("t") if e["type"] == "step" and e["tool"] == "charge_card"]
        assert [e["arguments"] for e in journal] == [step.arguments]


def test_an_edit_of_what_the_tool_does_not_declare_editable_is_refused_with_nothing_changed(tmp_path, ledger):
    with opened(tmp_path, "check: {}") as desk:
        pause = charge(desk, "t", 150)
        mistakes = {
            "order_id": ({"order_id": "9999"}, "edits.order_id: a person may change only amount"),
            "type": ({"amount": "120"}, "edits.amount: input should be a valid number"),
            "unknown": ({"note": "x"}, "edits.note: a person may change only amount"),
        }
        for edits, said in mistakes.values():
            with pytest.raises(BadRequest, match=said):
                desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits=edits)
        with pytest.raises(BadRequest, match="only an approval changes a call"):
            desk.confirm("t", "skip", pause.id, token=pause.token, principal=ALICE, edits={"amount": 1})
        assert desk.waiting("t") == [pause] and ledger("charge") == []
        assert [r["outcome"] for r in desk.history("t")] == ["refused"] * 4


def test_an_edit_the_check_refuses_is_refused_and_the_call_waits_as_asked(tmp_path, ledger):
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk:  # refuses charges over 500
        [pause] = desk.send("t", "charge 150 to order 4411").waiting
        with pytest.raises(EditRefused, match=r"Charge 900\.00 EUR to order 4411 would be refused: Charges over 500"):
            desk.confirm("t", "approve", pause.id, token=pause.token, edits={"amount": 900})
        assert desk.waiting("t") == [pause] and ledger("charge") == []
        assert desk.confirm("t", "approve", pause.id, token=pause.token, edits={"amount": 150.0}).status == "done"
        assert [(c["amount"]) for c in ledger("charge")] == [150]  # the same value changes nothing


def test_an_edit_crossing_a_rule_becomes_a_new_pause_for_the_approver_that_rule_names(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        pause = charge(desk, "t", 400)
        told = announced(desk)
        moved = desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 2000})
        [again] = moved.waiting
        assert moved.status == "waiting" and ledger("charge") == []
        assert again.id != pause.id and again.token != pause.token
        assert again.arguments[0] == {"name": "amount", "value": 2000, "origin": "edited:alice@shop.example"}
        assert again.proposed == pause.arguments and again.edited_by == "alice@shop.example"
        assert [p.id for p in told] == [again.id]
        delivered = told[0]
        assert delivered.after_answer is not None and delivered.after_answer["decision"] == "edited"
        assert delivered.to_dict()["proposed"][0]["value"] == 400
        assert delivered.to_dict()["arguments"][0]["value"] == 2000

        with pytest.raises(NotAnApprover):  # Alice could change it, not approve it as changed
            desk.confirm("t", "approve", again.id, token=again.token, principal=ALICE)
        card = card_of(again, desk.verdict(again, Admission("t", FIONA, ALICE.key)), None)
        assert card["arguments"][0]["asked"] == {"value": 400, "shown": "400.00 EUR"}
        assert "2,000.00 EUR<small>asked 400.00 EUR · changed by alice@shop.example</small>" in card_html(card, "")
        done = desk.confirm("t", "approve", again.id, token=again.token, principal=FIONA)
        assert done.status == "done" and [c["amount"] for c in ledger("charge")] == [2000]
        history = [(r["by"], r["decision"], r["outcome"]) for r in desk.history("t")]
        assert history == [("alice", "edited", "taken"), ("alice", "approve", "refused"), ("fiona", "approve", "taken")]


def test_under_four_eyes_an_edit_voids_the_approvals_given_and_two_people_approve_the_changed_call(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = charge(desk, "t", 400)
        counted = desk.confirm("t", "approve", pause.id, token=pause.token, principal=FIONA)
        assert counted.status == "waiting" and present(counted.waiting[0].approvals)["given"][0]["by"] == "fiona"
        moved = desk.confirm("t", "approve", pause.id, token=pause.token, principal=FRANK, edits={"amount": 300})
        [again] = moved.waiting
        assert again.approvals == {"needed": 2, "given": []}  # Fiona's approval was of 400
        assert desk.confirm("t", "approve", again.id, token=again.token, principal=FRANK).status == "waiting"
        assert ledger("charge") == []
        assert desk.confirm("t", "approve", again.id, token=again.token, principal=GINA).status == "done"
        assert [c["amount"] for c in ledger("charge")] == [300]


def test_two_people_editing_the_same_pause_at_once_one_wins_and_the_call_runs_once(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk, opened(tmp_path, FINANCE_FOR_LARGE) as other:
        for round in range(3):
            pause = charge(desk, f"t{round}", 2000)
            fiona = partial(_edited, desk, pause, FIONA, 1900)
            frank = partial(_edited, other, pause, FRANK, 1800)
            outcomes = at_once(fiona, frank)
            assert sorted(type(o).__name__ for o in outcomes) == ["InterruptStale", "Reply"], outcomes
            [won] = [o for o in outcomes if not isinstance(o, InterruptStale)]
            assert won.status == "done" and len(ledger("charge")) == round + 1
            assert ledger("charge")[-1]["amount"] == won.steps[0].arguments[0]["value"]


def _edited(desk: Desk, pause, who, amount):
    try:
        return desk.confirm(
            pause.thread, "approve", pause.id, token=pause.token, principal=who, edits={"amount": amount}
        )
    except InterruptStale as stale:
        return stale


def test_a_signed_link_never_changes_a_call_even_where_its_answer_carries_changes(tmp_path, ledger):
    from stalwart_agents.engine.answer import Answer

    with opened(tmp_path, "check: {}") as desk:
        pause = charge(desk, "t", 150)
        admitted = Admission("t", ALICE, ALICE.key)
        linked = Answer.of("approve", None, pause.token, "link", admitted, edits={"amount": 1})
        with pytest.raises(BadRequest, match="a signed link approves exactly what it shows"):
            desk.answer(admitted, linked, pause.id)
        assert desk.waiting("t") == [pause] and ledger("charge") == []


def test_on_every_backend_a_change_asked_again_keeps_both_calls_and_runs_the_approved_one(each_store, tmp_path, ledger):
    store = each_store
    with Desk.from_file(shop(tmp_path, FINANCE_FOR_LARGE), storage=store) as desk:
        pause = charge(desk, "t", 400)
        moved = desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 1250.5})
        [again] = desk.waiting("t")
        assert again == moved.waiting[0] and again.arguments[0]["value"] == 1250.5
        assert again.proposed == pause.arguments and again.edited_by == "alice@shop.example"
        stored = present(store.get_pause(pause.id)).answer or {}
        assert (stored["decision"], stored["edits"], stored["editor"]) == ("edited", {"amount": 1250.5}, ALICE.called)
        assert desk.confirm("t", "approve", again.id, token=again.token, principal=FIONA).status == "done"
        assert [c["amount"] for c in ledger("charge")] == [1250.5]


# --- what an attack found (each failed before its mend) --------------------------------------------------------

ESCALATING = (
    FINANCE_FOR_LARGE
    + """        deadline: {expires: 8h}
    deadlines:
      - tool: charge_card
        expires: 8h
        escalate: {after: 2h, to: '"managers" in who.groups', label: the managers}
"""
)


def test_an_escalation_never_lets_its_managers_approve_a_change_past_a_rule_they_do_not_satisfy(tmp_path, ledger):
    from stalwart_agents.approvals.overdue import tick
    from stalwart_agents.approvals.principal import Principal

    bea = Principal(ALICE.issuer, "bea", {"groups": ["managers"]})
    now = [1_800_000_000.0]
    with opened(tmp_path, ESCALATING, clock=lambda: now[0]) as desk:
        pause = charge(desk, "t", 40)
        now[0] += 2 * 3600 + 1
        assert tick(desk).escalated == [pause.id]
        moved = desk.confirm("t", "approve", pause.id, token=pause.token, principal=bea, edits={"amount": 900_000})
        assert moved.status == "waiting" and ledger("charge") == []  # asked again, of finance
        [again] = moved.waiting
        assert not desk.may_answer(again, bea, ALICE.key) and desk.may_answer(again, FIONA, ALICE.key)


ASKS_TYPED = (
    "check: {confirm_writes: false, rules: [{name: typed, when: 'origins.amount == \"typed\"', then: confirm}]}"
)
ASKS_OVER_100 = "check: {confirm_writes: false, rules: [{name: big, when: 'args.amount > 100', then: confirm}]}"


@pytest.mark.parametrize(
    "rules",
    [
        # the check asks only about typed amounts: the changed amount would be allowed outright
        f"\n    {ASKS_TYPED}" + FINANCE_FOR_LARGE,
        # four eyes, and the check asks only over 100: a change down to 100 would need nobody
        f"\n    {ASKS_OVER_100}" + FOUR_EYES,
    ],
    ids=["check-would-allow", "four-eyes"],
)
def test_a_call_asked_again_after_a_change_waits_for_approval_whatever_the_check_now_says(tmp_path, ledger, rules):
    with opened(tmp_path, rules) as desk:
        pause = charge(desk, "t", 400 if "typed" in rules else 2000)
        who, amount = (ALICE, 900_000) if "typed" in rules else (FIONA, 100)
        moved = desk.confirm("t", "approve", pause.id, token=pause.token, principal=who, edits={"amount": amount})
        [again] = moved.waiting
        assert ledger("charge") == [] and "edited" in again.reasons
        assert [r["decision"] for r in desk.history("t")] == ["edited"]


def test_a_call_changed_and_asked_again_ten_times_is_approved_or_declined_as_it_is(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = charge(desk, "t", 400)
        for amount in range(300, 310):
            [pause] = desk.confirm(
                "t", "approve", pause.id, token=pause.token, principal=FIONA, edits={"amount": amount}
            ).waiting
        with pytest.raises(BadRequest, match="changed 10 times already; approve or decline it as it is"):
            desk.confirm("t", "approve", pause.id, token=pause.token, principal=FIONA, edits={"amount": 1})
        desk.confirm("t", "approve", pause.id, token=pause.token, principal=FIONA)
        assert desk.confirm("t", "approve", pause.id, token=pause.token, principal=FRANK).status == "done"
        assert [c["amount"] for c in ledger("charge")] == [309]


def test_a_float_amount_in_a_module_of_text_annotations_is_typed_in_as_a_number_with_at_most_two_decimals(
    tmp_path, ledger
):
    with opened(tmp_path, "check: {}") as desk:  # examples/shop/tools.py: from __future__ import annotations
        pause = charge(desk, "t", 2000)
        verdict = desk.verdict(pause, Admission("t", ALICE, ALICE.key))
        assert verdict.inputs == {"amount": "number"}
        with pytest.raises(BadRequest, match=r"edits\.amount: an amount in EUR has at most two decimals"):
            desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 1.005})
        desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 1500.5})
        assert [c["amount"] for c in ledger("charge")] == [1500.5]
