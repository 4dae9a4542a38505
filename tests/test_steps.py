"""Steps a team writes: calls side by side, each pause answered by its own id, replays that never run a call twice."""

import sys
from pathlib import Path

import pytest

from stalwart_agents import Desk

STEPS = Path(__file__).resolve().parent / "steps" / "agent.yaml"


def calls_of(desk: Desk) -> list[tuple[str, dict]]:
    """Every call the steps' tools really made (steps_calls.CALLS, shared by both agents' tool modules)."""
    return sys.modules[desk.agents["desk"].tools["charge"].fn.__module__].CALLS


@pytest.fixture
def desk():
    desk = Desk.from_file(STEPS)
    calls_of(desk).clear()
    yield desk
    desk.close()


def made(desk, name=None):
    return [call for call in calls_of(desk) if name is None or call[0] == name]


def test_two_writes_side_by_side_pause_together_each_with_its_own_id_and_token(desk):
    reply = desk.send("t", "settle order 4411")
    charge, mail = reply.waiting
    assert (charge.tool, mail.tool) == ("charge", "mail") and charge.step == mail.step == 1
    assert charge.id != mail.id and charge.token != mail.token
    assert made(desk) == [("look_up_order", {"order_id": "4411"})]
    assert {"name": "amount", "value": 40, "origin": "result:1.1"} in charge.arguments
    assert {"name": "order_id", "value": "4411", "origin": "typed"} in charge.arguments


def test_answering_one_by_id_leaves_the_other_open_and_the_step_waits(desk):
    charge, mail = desk.send("t", "settle order 4411").waiting
    reply = desk.confirm("t", "approve", waiting=mail.id, token=mail.token)
    assert reply.waiting == [charge] and reply.status == "waiting"
    assert made(desk, "mail") == [] and made(desk, "charge") == []
    assert desk.waiting("t") == [charge]


def test_with_no_id_confirm_answers_the_first_that_waits(desk):
    _, mail = desk.send("t", "settle order 4411").waiting
    assert desk.confirm("t", "approve").waiting == [mail]


def test_the_step_finishes_only_when_both_are_answered_and_no_call_runs_twice(desk):
    charge, mail = desk.send("t", "settle order 4411").waiting
    desk.confirm("t", "approve", waiting=charge.id, token=charge.token)
    reply = desk.confirm("t", "approve", waiting=mail.id, token=mail.token)

    assert reply.status == "done" and reply.waiting == []
    assert [name for name, _ in made(desk)] == ["look_up_order", "charge", "mail"]
    settle = next(s for s in reply.steps if s.tool == "settle")
    assert settle.result == {"charged": {"charge_id": "ch-4411"}, "mailed": {"mailed": "c-208"}}
    assert [(s.tool, s.call) for s in reply.steps if s.call] == [("look_up_order", 1), ("charge", 2), ("mail", 3)]


def test_a_call_of_a_step_skipped_by_the_person_gives_the_step_none(desk):
    charge, mail = desk.send("t", "settle order 4411").waiting
    desk.confirm("t", "skip", waiting=mail.id, token=mail.token)
    reply = desk.confirm("t", "approve", waiting=charge.id, token=charge.token)
    assert next(s for s in reply.steps if s.tool == "settle").result == {
        "charged": {"charge_id": "ch-4411"},
        "mailed": None,
    }


def test_cancel_all_inside_a_step_undoes_what_the_step_did(desk):
    charge, mail = desk.send("t", "settle order 4411").waiting
    desk.confirm("t", "approve", waiting=charge.id, token=charge.token)
    reply = desk.confirm("t", "cancel_all", waiting=mail.id, token=mail.token)
    assert reply.status == "cancelled" and made(desk, "refund") == [("refund", {"order_id": "4411", "amount": 40})]


def test_a_step_whose_calls_change_on_replay_is_stopped_before_it_runs_anything_unapproved(desk):
    reply = desk.send("t", "wobble order 4411", agent="quick")
    [charge] = reply.waiting
    assert made(desk) == [("quick:mail", {"order_id": "4411", "to": "c-1"})]

    reply = desk.confirm("t", "approve", waiting=charge.id, token=charge.token)
    assert reply.status == "failed" and made(desk, "quick:charge") == []
    [failed] = [s for s in reply.steps if s.status == "failed"]
    assert failed.tool == "wobble" and "mail(order_id='4411', to='c-2') on replay" in failed.error
    assert "the same calls in the same order" in failed.error


def test_a_call_handed_to_another_agent_has_origin_agent_and_its_check(desk):
    reply = desk.send("t", "hand order 4411 to quick")
    [pause] = reply.waiting
    assert pause.reasons == ["rule: charges-ask"]
    assert {"name": "amount", "value": 5, "origin": "agent"} in pause.arguments
    assert desk.confirm("t", "approve").status == "done" and made(desk, "quick:charge")


def test_an_operator_rollback_closes_every_pause_the_run_moved_past(desk):
    """Nothing the run no longer waits on is listed, announced or woken: the rollback's commit closes both."""
    charge, mail = desk.send("t", "settle order 4411").waiting
    rolled = desk.rollback("t")
    assert rolled.waiting == [] and desk.waiting("t") == []
    stored = {pause.id: pause.status for pause in desk.storage.run_pauses(charge.run)}
    assert stored == {charge.id: "closed", mail.id: "closed"}
    assert desk.storage.inbox() == [] and desk.storage.due_deliveries(1e12) == []
    assert made(desk, "charge") == [] and made(desk, "mail") == []


def test_a_call_of_a_step_changed_before_approval_runs_as_changed_and_the_step_replays_past_it(desk):
    [charge] = desk.send("t", "charge then mail order 4411").waiting
    [mail] = desk.confirm("t", "approve", waiting=charge.id, token=charge.token, edits={"amount": 30}).waiting
    assert made(desk, "charge") == [("charge", {"order_id": "4411", "amount": 30})]
    reply = desk.confirm("t", "approve", waiting=mail.id, token=mail.token)

    assert reply.status == "done", reply.steps
    assert made(desk, "charge") == [("charge", {"order_id": "4411", "amount": 30})]
    assert next(s for s in reply.steps if s.tool == "charge_then_mail").result == {
        "charged": {"charge_id": "ch-4411"},
        "mailed": {"mailed": "c-208"},
    }
