"""A pause as a store keeps it reads back as the very pause it was, whether stored now or before its payload was
made compact, for every kind and every optional field."""

from __future__ import annotations

import pytest

from stalwart_agents.engine.pause import ANSWERS, Pause
from stalwart_agents.storage import PauseRecord

BASE = dict(
    id="p_1.0123456789abcdef01234567",
    thread="u-17",
    run="r_1",
    step=2,
    tool="charge_card",
    arguments=[
        {"name": "amount", "value": 40, "origin": "typed"},
        {"name": "order_id", "value": "4411", "origin": "result:1.0"},
    ],
    reasons=["write"],
    token="tok",
    created_at="2026-11-30T00:00:00.000Z",
)


def pause(kind, **fields):
    values = {
        **BASE,
        "kind": kind,
        "question": "Charge 40.00 EUR to order 4411?",
        "irreversible": False,
        "answers": list(ANSWERS[kind]),
        **fields,
    }
    return Pause(**values)


CASES = {
    "plain confirm": pause("confirm"),
    "described confirm": pause(
        "confirm",
        title="Charge 40.00 EUR to order 4411",
        label="Charge a card",
        labels={"amount": "Amount"},
        sources={"order_id": {"tool": "look_up_order", "step": 1, "value": {"order_id": "4411"}}},
    ),
    "the tool's own question": pause("confirm", title="Charge 40", question="Really charge the card?"),
    "irreversible": pause("confirm", irreversible=True, question="Mail it?"),
    "four eyes": pause("confirm", approvals={"needed": 2, "given": []}),
    "ask": pause("ask", question="What amount?", prompt="What amount?", argument="amount"),
    "outcome unknown": pause("outcome_unknown", question="Did charge_card happen?"),
    "saga stuck": pause(
        "saga_stuck",
        question="Undoing charge_card failed. What should happen?",
        undo={"tool": "refund_charge", "error": "down", "attempts": 3},
        pending=[],
    ),
    "delegate": pause("delegate", tool="", question="Let the model answer?", turn="what is the total?"),
    "answers of its own": pause("confirm", answers=["approve", "skip"]),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_stored_pause_reads_back_as_it_was(case):
    original = CASES[case]
    assert Pause.from_record(original.record()) == original
    assert Pause.from_record(original.record()).to_dict() == original.to_dict()


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_pause_stored_whole_before_reads_back_as_it_was(case):
    original = CASES[case]
    compact = original.record()
    whole = PauseRecord(
        id=compact.id,
        run=compact.run,
        thread=compact.thread,
        kind=compact.kind,
        step=compact.step,
        token=compact.token,
        payload=original.to_dict(token=False),
    )
    assert Pause.from_record(whole) == original


def test_the_stored_payload_keeps_neither_what_its_record_holds_nor_what_goes_without_saying():
    stored = CASES["plain confirm"].record().payload
    assert stored.keys().isdisjoint({"id", "kind", "thread", "run", "step", "answers", "irreversible", "label"})
    assert "question" not in pause("confirm", question="Run charge_card?").record().payload
    assert stored["tool"] == "charge_card"
    assert all("label" not in argument for argument in stored["arguments"])
