"""The card: one model of a pause for whoever reads it, built on the server from the pause, the agent's words and
its rules.  Each reader sees the words from their side and only the answers theirs to give."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from stalwart_agents import Desk, NotAnApprover, NotFound
from stalwart_agents.approvals.admission import Admission
from stalwart_agents.approvals.card import card_of
from stalwart_agents.approvals.strings import said, say, shipped
from stalwart_agents.engine.answer import Answer
from stalwart_agents.http import card_page
from stalwart_agents.tools.python import shown_value, tool

from .test_approvers import ALICE, FINANCE_FOR_LARGE, FIONA, FOUR_EYES, FRANK, GINA, MALLORY, opened

LABELLED = FINANCE_FOR_LARGE.replace(
    "who: '\"finance\" in who.groups'", "who: '\"finance\" in who.groups'\n        label: finance"
)


def started(desk: Desk, thread: str, text: str, asker=ALICE):
    """``asker`` begins ``thread`` with ``text`` as a signed-in person does; the one pause it waits on."""
    [pause] = desk.send(thread, text, owner=asker.key, asker=asker.called).waiting
    return pause


def card(desk: Desk, pause, reader) -> dict[str, Any]:
    admitted = None if reader is None else desk.admit(pause.thread, reader, pause=pause.id)
    return dict(card_of(pause, desk.verdict(pause, admitted), admitted))


def decisions(shown) -> list[str]:
    return [answer["decision"] for answer in shown["answers"]]


def said_keys(value: Any) -> list[str]:
    """Every key of the shipped strings a card names, wherever it stands in it."""
    if isinstance(value, dict):
        own = [value["key"]] if set(value) == {"key", "values"} else []
        return own + [k for v in value.values() for k in said_keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in said_keys(v)]
    return []


def test_the_person_who_asked_sees_who_must_decide_and_only_the_answers_open_to_them(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        asker = card(desk, pause, ALICE)
        assert decisions(asker) == ["skip", "cancel_all"]
        assert asker["waits_for"] == {"key": "waitsFor", "values": {"who": "finance"}}
        assert asker["deciders"] == {"key": "decidesApprover", "values": {"who": "finance"}}
        assert asker["arguments"][0]["origin"] == {"key": "origin_typed", "values": {}}
        assert asker["asked"]["key"] == "askedByYou"
        with pytest.raises(NotAnApprover):
            desk.confirm("large", "approve", pause, token=pause.token, principal=ALICE)


def test_an_approver_reads_the_askers_name_and_every_answer(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        approver = card(desk, pause, FIONA)
        assert decisions(approver) == ["approve", "skip", "cancel_all"] and approver["waits_for"] is None
        assert approver["arguments"][0]["origin"] == {"key": "origin_typed_by", "values": {"who": "alice@shop.example"}}
        assert approver["asked"] == {
            "key": "askedBy",
            "values": {"who": "alice@shop.example", "when": pause.created_at},
        }
        assert say(approver["arguments"][0]["origin"]) == "alice@shop.example typed it"


def test_a_small_charge_no_rule_governs_is_the_askers_alone(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "small", "charge 40 to order 4411")
        own = card(desk, pause, ALICE)
        assert decisions(own) == ["approve", "skip", "cancel_all"]
        assert own["deciders"] is None and own["waits_for"] is None
        styles = {answer["decision"]: answer["style"] for answer in own["answers"]}
        assert styles == {"approve": "primary", "skip": "secondary", "cancel_all": "danger"}


def test_under_four_eyes_who_approved_already_sees_the_count_and_cannot_approve_again(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = started(desk, "t", "charge 40 to order 4411")
        desk.confirm(pause.thread, "approve", pause, token=pause.token, principal=FRANK)
        [counted] = desk.waiting(pause.thread)
        frank, gina = card(desk, counted, FRANK), card(desk, counted, GINA)
        assert "approve" not in decisions(frank) and "approve" in decisions(gina)
        assert frank["waits_for"] == {"key": "outcomeCounted", "values": {}} and gina["waits_for"] is None
        assert gina["deciders"] == {"key": "approvalsGiven", "values": {"names": "frank", "given": 1, "needed": 2}}
        assert say(gina["deciders"]) == "Approved by frank (1 of 2)"
        with pytest.raises(NotFound):
            card(desk, counted, MALLORY)  # nothing of hers waits there: she is not let in at all


def test_a_rule_that_cannot_be_evaluated_is_named_to_the_team_never_as_the_persons_refusal(tmp_path, ledger, caplog):
    broken = FINANCE_FOR_LARGE.replace('when: "args.amount > 1000"', 'when: "args.order_id > 1000"')
    with opened(tmp_path, broken) as desk, caplog.at_level(logging.ERROR, logger="stalwart_agents"):
        pause = started(desk, "t", "charge 40 to order 4411")
        shown = card(desk, pause, ALICE)
        assert {"key": "reason_rule_failed", "values": {"rule": "finance-large"}} in shown["reasons"]
        with pytest.raises(NotAnApprover) as refused:
            desk.confirm("t", "approve", pause, token=pause.token, principal=ALICE)
        assert decisions(card(desk, pause, FIONA)) == ["approve", "skip", "cancel_all"]  # it fails safe: to finance
    assert "finance-large could not be checked" in refused.value.message and "include you" not in refused.value.message
    assert any("finance-large" in record.getMessage() for record in caplog.records)


def test_the_channels_card_is_the_approvers_and_never_speaks_as_the_person_who_asked(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        channel = card(desk, pause, None)
        assert decisions(channel) == ["approve", "skip", "cancel_all"]
        assert channel["arguments"][0]["origin"]["key"] == "origin_typed_by"
        assert channel["asked"]["key"] == "askedBy"


def test_every_word_a_card_says_is_a_shipped_string_or_the_teams_own(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        for reader in (ALICE, FIONA, None):
            shown = card(desk, pause, reader)
            assert set(said_keys(shown)) <= shipped().keys(), reader
            assert shown["title"] == pause.title and [a["label"] for a in shown["arguments"]] == ["Amount", "Order"]


def test_a_value_is_shown_in_its_unit_and_the_title_says_it_so():
    @tool(write=True, describe="Refund {amount} on payment {payment}", units={"amount": "EUR"})
    def refund(payment: str, amount: float) -> str:
        return "refunded"

    assert refund.title({"payment": "p-200", "amount": 150}) == "Refund 150.00 EUR on payment p-200"
    assert shown_value("980.00", "EUR") == "980.00 EUR" and shown_value(2.5, "kg") == "2.5 kg"
    assert shown_value(40) == "40" and shown_value(True, "EUR") == "true"
    with pytest.raises(Exception, match="units names 'amounts'"):
        tool(units={"amounts": "EUR"})(lambda amount: amount)


def test_a_reader_admitted_to_the_thread_is_read_as_the_admission_says(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        pause = started(desk, "large", "charge 1500 to order 4411")
        stranger = Admission("large", MALLORY, ALICE.key)
        assert decisions(card_of(pause, desk.verdict(pause, stranger), stranger)) == []


def answer_events(desk: Desk, thread: str) -> list[dict[str, Any]]:
    return [body for _, body in desk.events(thread) if body["type"] == "answer"]


def test_a_record_of_an_answer_says_whether_the_asker_gave_it_and_names_who_did(tmp_path, ledger):
    with opened(tmp_path, LABELLED) as desk:
        large = started(desk, "large", "charge 1500 to order 4411")
        fiona = desk.admit(large.thread, FIONA, pause=large.id)  # an approver reaches it by the id its pause carries
        desk.answer(fiona, Answer.of("approve", None, large.token, "http", fiona), large.id)
        small = started(desk, "small", "charge 40 to order 4411")
        alice = desk.admit("small", ALICE)
        desk.answer(alice, Answer.of("skip", None, small.token, "http", alice), small.id)
        [by_fiona], [by_alice] = answer_events(desk, large.thread), answer_events(desk, small.thread)
    assert (by_fiona["by_owner"], by_fiona["name"], by_fiona["decision"]) == (False, "fiona", "approve")
    assert (by_alice["by_owner"], by_alice["name"], by_alice["decision"]) == (True, "alice@shop.example", "skip")


def test_a_deadline_and_its_escalation_are_shipped_strings_and_the_server_page_says_them_readably():
    """What a card says of its deadline, as the link page renders it: every key is the components' own string, each
    moment written as a person reads it (never the ISO time), and one nobody answered in time says so."""
    deadline = said("deadlineCancel", when="2027-01-15T12:00:00.000Z")
    escalation = said("escalatesAt", who="the duty managers", when="2027-01-15T10:00:00.000Z")
    keys = ["deadlineSkip", "deadlineCancel", "escalatesAt", "overdueAt", "escalated", "escalatedOverdue"]
    keys += ["expiredSkip", "expiredCancel", "outcome_expired", "requestExpired", "linkNothingDone"]
    assert set(keys) <= shipped().keys()
    shown: Any = {
        "kind": "confirm",
        "title": "Charge 40.00 EUR to order 4411",
        "question": "Charge 40.00 EUR to order 4411?",
        "irreversible": False,
        "arguments": [],
        "reasons": [],
        "deciders": None,
        "asked": said("askedAt", when="2027-01-15T08:00:00.000Z"),
        "answers": [],
        "waits_for": None,
        "deadline": deadline,
        "escalation": escalation,
    }
    page = card_page.card_html(shown, "<form></form>")
    by = "Answer by 15 Jan 2027, 12:00 UTC; after that the whole request is cancelled."
    assert f'<p class="deadline">{by}</p>' in page
    assert "If nobody answers by 15 Jan 2027, 10:00 UTC, the duty managers will be asked too." in page
    assert page.index("Asked 15 Jan 2027") < page.index("Answer by") < page.index("<form>")
    assert "2027-01-15T" not in page
    gone = card_page.expired_html("Charge <40>", said("expiredSkip", when="2027-01-15T12:00:00.000Z"))
    assert "Nobody answered by 15 Jan 2027, 12:00 UTC, so it was skipped." in gone and "Charge &lt;40&gt;" in gone
    assert "Nothing was done with this link." in gone and "<button" not in gone
    assert "Charge x: not done, nobody answered in time" in card_page.expired_html("Charge x", said("expiredSkip"))
    assert say(said("outcome_expired", title="Charge x")) == "Charge x: not done, nobody answered in time"
