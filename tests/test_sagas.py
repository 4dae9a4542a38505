"""When writes go wrong: undo newest first, retries, saga_stuck, outcome_unknown, operator rollback."""

import sys
from pathlib import Path
from types import ModuleType

import pytest

from stalwart_agents import Desk, InterruptStale, NotFound, OutcomeUnknown
from stalwart_agents.approvals.admission import scoped
from stalwart_agents.approvals.principal import ANONYMOUS

BANK = Path(__file__).resolve().parent / "bank" / "agent.yaml"


class Bank(Desk):
    """The bank's desk, and beside it what a test arranges or reads: its tools module (CALLS, the calls it made, and
    FAIL, the failures arranged for them) and the seconds its retries slept."""

    tools: ModuleType
    slept: list[float]


@pytest.fixture
def bank():
    """The bank's desk, with its tools' record of calls and their arranged failures reset."""
    desk = Bank.from_file(BANK, sleep=lambda seconds: slept.append(seconds))
    assert isinstance(desk, Bank)
    slept: list[float] = []
    tools = sys.modules[desk.agents["bank"].tools["pay"].fn.__module__]
    tools.CALLS.clear()
    tools.FAIL.clear()
    tools.SPOIL.clear()
    desk.slept = slept
    desk.tools = tools
    yield desk
    desk.close()


def calls(bank, *names):
    return [(name, arguments) for name, arguments in bank.tools.CALLS if not names or name in names]


def test_cancel_all_undoes_the_done_writes_newest_first(bank):
    bank.send("t", "pay 5 to ana and pay 7 to bob and pay 100 to cy")
    reply = bank.confirm("t", "cancel_all")

    assert calls(bank, "refund") == [
        ("refund", {"payee": "bob", "amount": 7, "result": {"payment": "pm-bob-7"}}),
        ("refund", {"payee": "ana", "amount": 5, "result": {"payment": "pm-ana-5"}}),
    ]
    assert reply.status == "cancelled"
    assert reply.rollback["status"] == "complete" and reply.rollback["reason"] == "cancel_all"
    assert [(line["step"], line["tool"], line["by"]) for line in reply.rollback["undone"]] == [
        (2, "pay", "tool"),
        (1, "pay", "tool"),
    ]
    assert "Undone: pay, pay." in reply.text


def test_a_call_that_fails_for_certain_ends_the_run_and_undoes_it(bank):
    bank.tools.FAIL["pay"] = [None, RuntimeError("card declined")]
    reply = bank.send("t", "pay 5 to ana and pay 7 to bob and mail ana")

    assert reply.status == "failed"
    assert [(s.tool, s.status) for s in reply.steps] == [("pay", "done"), ("pay", "failed")]
    assert calls(bank, "refund", "mail") == [
        ("refund", {"payee": "ana", "amount": 5, "result": {"payment": "pm-ana-5"}})
    ]
    assert reply.rollback["reason"] == "failed"


def test_an_undo_that_fails_is_retried_with_backoff_and_then_succeeds(bank):
    bank.tools.FAIL["refund"] = [RuntimeError("bank busy"), RuntimeError("bank busy")]
    bank.send("t", "pay 5 to ana and pay 100 to cy")
    reply = bank.confirm("t", "cancel_all")

    assert len(calls(bank, "refund")) == 3 and bank.slept == [0.5, 1.0]
    assert reply.rollback["status"] == "complete" and reply.status == "cancelled"
    entry = bank.storage.journal(reply.run)[-1]
    assert (entry.key, entry.status, entry.attempt) == ("1.undo", "done", 3)


def test_an_undo_that_changes_its_arguments_is_sent_again_and_journaled_with_the_arguments_it_was_given(bank):
    bank.tools.SPOIL.add("refund")
    bank.tools.FAIL["refund"] = [RuntimeError("bank busy")]
    bank.send("t", "pay 5 to ana and pay 100 to cy")
    reply = bank.confirm("t", "cancel_all")

    given = {"payee": "ana", "amount": 5, "result": {"payment": "pm-ana-5"}}
    assert calls(bank, "refund") == [("refund", given), ("refund", given)]
    kept = bank.storage.journal(reply.run)[-1]
    assert (kept.key, kept.status) == ("1.undo", "done")
    assert {a["name"]: a["value"] for a in kept.arguments} == given


def stuck(bank):
    """Two done payments, then a cancel whose first undo (bob's) keeps failing."""
    bank.tools.FAIL["refund"] = [RuntimeError("bank down")] * 3
    bank.send("t", "pay 5 to ana and pay 7 to bob and pay 100 to cy")
    return bank.confirm("t", "cancel_all")


def test_an_undo_that_keeps_failing_pauses_as_saga_stuck_with_what_still_needs_undoing(bank):
    reply = stuck(bank)

    [pause] = reply.waiting
    assert (pause.kind, pause.tool, pause.step) == ("saga_stuck", "pay", 2)
    assert pause.answers == ["retry", "done_by_hand", "abandon"]
    assert pause.question == "Undoing pay failed. What should happen?"
    assert pause.undo == {"tool": "refund", "error": "RuntimeError: bank down", "attempts": 3}
    assert [(p["step"], p["tool"]) for p in pause.pending] == [(1, "pay")]
    assert {"name": "payee", "value": "bob", "origin": "typed"} in pause.arguments
    assert reply.status == "waiting" and reply.rollback["status"] == "waiting"
    assert len(calls(bank, "refund")) == 3 and bank.slept == [0.5, 1.0]


def test_saga_stuck_retry_tries_again_and_goes_on_with_the_rest(bank):
    stuck(bank)
    reply = bank.confirm("t", "retry")

    assert [a["payee"] for _, a in calls(bank, "refund")] == ["bob"] * 4 + ["ana"]
    assert reply.status == "cancelled" and reply.rollback["status"] == "complete"
    assert [line["by"] for line in reply.rollback["undone"]] == ["tool", "tool"]


def test_saga_stuck_retry_that_fails_again_asks_again(bank):
    stuck(bank)
    bank.tools.FAIL["refund"] = [RuntimeError("still down")] * 3
    reply = bank.confirm("t", "retry")

    [pause] = reply.waiting
    assert pause.kind == "saga_stuck" and pause.undo["attempts"] == 6


def test_saga_stuck_done_by_hand_records_the_person_and_goes_on(bank):
    stuck(bank)
    reply = bank.confirm("t", "done_by_hand")

    assert [a["payee"] for _, a in calls(bank, "refund")] == ["bob"] * 3 + ["ana"]
    assert [(line["tool"], line["by"]) for line in reply.rollback["undone"]] == [("pay", "person"), ("pay", "tool")]
    assert reply.status == "cancelled"


def test_saga_stuck_abandon_stops_undoing_and_records_what_was_left(bank):
    stuck(bank)
    reply = bank.confirm("t", "abandon")

    assert [a["payee"] for _, a in calls(bank, "refund")] == ["bob"] * 3
    assert reply.rollback["status"] == "abandoned"
    assert [(line["step"], line["why"]) for line in reply.rollback["not_undone"]] == [
        (2, "abandoned"),
        (1, "abandoned"),
    ]
    assert reply.status == "cancelled" and reply.waiting == []


def test_irreversible_and_undo_less_writes_are_reported_as_not_undone(bank):
    bank.send("t", "mail ana and note hello and pay 5 to ana and pay 100 to cy")
    reply = bank.confirm("t", "cancel_all")

    assert calls(bank, "refund")[0][1]["payee"] == "ana"
    assert [(line["tool"], line["why"]) for line in reply.rollback["not_undone"]] == [
        ("note", "no_undo"),
        ("mail", "irreversible"),
    ]
    assert "Could not be undone: note, mail." in reply.text


def test_an_outcome_unknown_write_pauses_and_is_not_sent_again(bank):
    bank.tools.FAIL["pay"] = [OutcomeUnknown("the bank timed out")]
    reply = bank.send("t", "pay 5 to ana and balance of ana")

    [pause] = reply.waiting
    assert (pause.kind, pause.tool, pause.answers) == ("outcome_unknown", "pay", ["happened", "did_not_happen"])
    assert pause.reasons == ["outcome_unknown: OutcomeUnknown: the bank timed out"]
    assert len(calls(bank, "pay")) == 1 and calls(bank, "balance") == []


def test_happened_records_the_write_as_done_and_its_undo_joins_the_saga_with_the_result_unknown(bank):
    bank.tools.FAIL["pay"] = [TimeoutError()]
    bank.send("t", "pay 5 to ana and pay 100 to cy")
    reply = bank.confirm("t", "happened")
    assert len(calls(bank, "pay")) == 1 and reply.waiting[0].kind == "confirm"

    reply = bank.confirm("t", "cancel_all")
    assert calls(bank, "refund") == [("refund", {"payee": "ana", "amount": 5, "result": None})]


def test_did_not_happen_sends_the_write_again(bank):
    bank.tools.FAIL["pay"] = [OutcomeUnknown()]
    bank.send("t", "pay 5 to ana")
    reply = bank.confirm("t", "did_not_happen")

    assert len(calls(bank, "pay")) == 2 and reply.status == "done"
    assert reply.steps[0].result == {"payment": "pm-ana-5"}


def test_an_idempotent_write_is_sent_again_with_the_same_key(bank):
    bank.tools.FAIL["transfer"] = [OutcomeUnknown(), None]
    reply = bank.send("t", "transfer 5 to ana")

    keys = [arguments["key"] for _, arguments in calls(bank, "transfer")]
    assert len(keys) == 2 and keys[0] == keys[1] and reply.status == "done" and reply.waiting == []


def test_an_idempotent_write_that_stays_uncertain_asks_a_person(bank):
    bank.tools.FAIL["transfer"] = [OutcomeUnknown()] * 3
    reply = bank.send("t", "transfer 5 to ana")
    assert len(calls(bank, "transfer")) == 3 and reply.waiting[0].kind == "outcome_unknown"


def test_an_uncertain_undo_asks_whether_the_undo_took_effect(bank):
    bank.tools.FAIL["refund"] = [OutcomeUnknown("no answer")]
    bank.send("t", "pay 5 to ana and pay 100 to cy")
    [pause] = bank.confirm("t", "cancel_all").waiting
    assert (pause.kind, pause.tool) == ("outcome_unknown", "refund")

    reply = bank.confirm("t", "happened")
    assert len(calls(bank, "refund")) == 1 and reply.rollback["status"] == "complete"


def test_operator_rollback_undoes_a_finished_run_once(bank):
    bank.send("t", "pay 5 to ana and mail ana and pay 7 to bob")
    reply = bank.rollback("t")

    assert [a["payee"] for _, a in calls(bank, "refund")] == ["bob", "ana"]
    assert reply.rollback["reason"] == "operator" and reply.status == "cancelled"
    assert [line["why"] for line in reply.rollback["not_undone"]] == ["irreversible"]

    again = bank.rollback("t")
    assert len(calls(bank, "refund")) == 2
    assert [line["tool"] for line in again.rollback["undone"]] == ["pay", "pay"]


def test_operator_rollback_of_a_waiting_run_closes_what_waited(bank):
    pause = bank.send("t", "pay 5 to ana and pay 100 to cy").waiting[0]
    reply = bank.rollback("t")

    assert calls(bank, "refund")[0][1]["payee"] == "ana" and reply.status == "cancelled"
    assert bank.waiting("t") == []
    with pytest.raises(InterruptStale):
        bank.confirm("t", "approve", waiting=pause.id, token=pause.token)
    assert calls(bank, "pay") == [("pay", {"payee": "ana", "amount": 5})]


def test_a_rollback_that_gets_stuck_is_answered_like_any_saga(bank):
    bank.send("t", "pay 7 to bob")
    bank.tools.FAIL["refund"] = [RuntimeError("down")] * 3
    [pause] = bank.rollback("t").waiting
    assert pause.kind == "saga_stuck"
    assert bank.confirm("t", "done_by_hand").rollback["undone"][0]["by"] == "person"


def test_a_strangers_turn_on_a_thread_someone_owns_runs_nothing_not_even_a_read(bank):
    """The turn's owner is checked before any call runs: the begin's commit would refuse the stranger too, but only
    after a read had run on their behalf."""
    alice = "alice-key"
    bank.send("acct", "balance of bob", owner=alice)
    stored = scoped(bank.storage, "acct", alice)
    with pytest.raises(NotFound):
        bank.send(stored, "balance of eve", owner=ANONYMOUS.key)
    assert calls(bank, "balance") == [("balance", {"payee": "bob"})]
