"""The engine as a person and an application see it: turns, pauses, answers."""

import pytest

from stalwart_agents import ANSWERS, BadRequest, Desk, InterruptStale, NotFound, RunWaiting

from .conftest import SHOP
from .storage.writes import save_run

CHARGE = "look up order 4411 and charge 40 to order 4411"


def test_a_write_waits_for_a_person_with_the_call_its_arguments_and_reasons(desk, ledger):
    reply = desk.send("u-17", CHARGE)

    assert reply.steps[0].tool == "look_up_order" and reply.steps[0].result["total"] == "40.00"
    [pause] = reply.waiting
    assert (pause.kind, pause.tool, pause.question, pause.step) == (
        "confirm",
        "charge_card",
        "Charge 40.00 EUR to order 4411?",
        2,
    )
    assert pause.answers == ["approve", "skip", "cancel_all"]
    assert pause.arguments == [
        {"name": "amount", "value": 40, "origin": "typed"},
        {"name": "order_id", "value": "4411", "origin": "typed"},
    ]
    assert type(pause.arguments[0]["value"]) is int
    assert pause.reasons == ["write"] and pause.irreversible is False
    assert len(pause.token) >= 32 and pause.id.startswith("p_")
    assert ledger("charge") == []
    assert reply.status == "waiting" and "Charge 40.00 EUR to order 4411 waits for your decision" in reply.text


def test_the_pause_json_has_the_designed_shape(desk):
    body = desk.send("u-17", CHARGE).to_dict()
    [pause] = body["waiting"]
    assert set(pause) == {
        "id",
        "kind",
        "thread",
        "run",
        "step",
        "tool",
        "title",
        "label",
        "question",
        "arguments",
        "reasons",
        "irreversible",
        "answers",
        "token",
        "created_at",
        "expires_at",
        "on_expiry",
        "editable",
    }
    assert pause["thread"] == "u-17" and pause["created_at"].endswith("Z")
    assert pause["expires_at"].endswith("Z") and pause["on_expiry"] == "skip"  # the shop's charges wait 4 hours
    assert set(body) == {"thread", "reply", "steps", "waiting", "refusals", "rollback", "not_notified"}
    assert set(body["reply"]) == {"id", "text"}


def test_approve_runs_exactly_the_call_shown_once(desk, ledger):
    desk.send("u-17", CHARGE)
    reply = desk.confirm("u-17", "approve")

    assert reply.status == "done" and reply.waiting == []
    assert reply.steps[-1].result == {"amount": "40", "charge_id": "ch-4411", "order_id": "4411"}
    assert ledger("charge") == [{"kind": "charge", "order_id": "4411", "amount": 40}]


def test_skip_runs_nothing_and_the_run_goes_on(desk, ledger):
    desk.send("u-17", "charge 40 to order 4411 and look up order 4412")
    reply = desk.confirm("u-17", "skip")

    assert [(s.tool, s.status) for s in reply.steps] == [("charge_card", "skipped"), ("look_up_order", "done")]
    assert ledger("charge") == [] and reply.status == "done"


def test_cancel_all_runs_nothing_more_and_stops_the_run(desk, ledger):
    desk.send("u-17", "charge 40 to order 4411 and look up order 4412")
    reply = desk.confirm("u-17", "cancel_all")

    assert [(s.tool, s.status) for s in reply.steps] == [("charge_card", "cancelled")]
    assert reply.status == "cancelled" and ledger("charge") == []


def test_a_decision_the_pause_does_not_take_is_a_bad_request_and_changes_nothing(desk, ledger):
    reply = desk.send("u-17", CHARGE)
    with pytest.raises(BadRequest, match="approve, skip, cancel_all"):
        desk.confirm("u-17", "happened")
    assert [p.id for p in desk.waiting("u-17")] == [reply.waiting[0].id]


def test_a_wrong_token_is_stale_and_changes_nothing(desk, ledger):
    pause = desk.send("u-17", CHARGE).waiting[0]
    with pytest.raises(InterruptStale, match="token"):
        desk.confirm("u-17", "approve", waiting=pause.id, token="not-the-token")
    assert desk.waiting("u-17") == [pause] and ledger("charge") == []
    assert desk.confirm("u-17", "approve", waiting=pause.id, token=pause.token).status == "done"


def test_a_second_answer_to_the_same_pause_is_stale(desk, ledger):
    pause = desk.send("u-17", CHARGE).waiting[0]
    desk.confirm("u-17", "approve", waiting=pause.id, token=pause.token)
    with pytest.raises(InterruptStale):
        desk.confirm("u-17", "skip", waiting=pause.id, token=pause.token)
    assert len(ledger("charge")) == 1


def test_an_answer_with_nothing_waiting_is_stale_and_an_unknown_thread_is_not_found(desk):
    with pytest.raises(NotFound):
        desk.confirm("nobody", "approve")
    desk.send("u-17", "look up order 4411")
    with pytest.raises(InterruptStale):
        desk.confirm("u-17", "approve")
    with pytest.raises(NotFound):
        desk.confirm("u-17", "approve", waiting="p_unknown")


def test_a_new_turn_while_a_run_waits_is_refused_listing_what_waits(desk):
    pause = desk.send("u-17", CHARGE).waiting[0]
    with pytest.raises(RunWaiting) as caught:
        desk.send("u-17", "look up order 4412")
    assert caught.value.waiting == [pause]


def test_the_same_call_paused_for_the_same_reason_has_the_same_id_on_another_desk(tmp_path, ledger):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    first, second = Desk.from_file(SHOP, storage=url), Desk.from_file(SHOP, storage=url)
    pause = first.send("u-17", CHARGE).waiting[0]

    assert [p.id for p in second.waiting("u-17")] == [pause.id]
    reply = second.confirm("u-17", "approve", waiting=pause.id, token=pause.token)
    assert reply.status == "done" and len(ledger("charge")) == 1
    with pytest.raises(InterruptStale):
        first.confirm("u-17", "approve", waiting=pause.id, token=pause.token)


def test_an_argument_changed_after_it_was_shown_is_checked_and_asked_again(desk, ledger):
    shown = desk.send("u-17", "charge 40 to order 4411").waiting[0]
    store = desk.storage
    run = store.active_run("u-17")
    plan = [
        dict(
            run.state["plan"][0],
            arguments=[
                {"name": "amount", "value": 400, "origin": "typed"},
                {"name": "order_id", "value": "4411", "origin": "typed"},
            ],
        )
    ]
    save_run(store, run.replace(state={**run.state, "plan": plan}), expected_version=run.version)

    reply = desk.confirm("u-17", "approve", waiting=shown.id, token=shown.token)

    assert ledger("charge") == []
    [again] = reply.waiting
    assert again.id != shown.id and again.arguments[0]["value"] == 400


def test_a_missing_argument_is_asked_and_the_answer_has_origin_reply(desk, ledger):
    reply = desk.send("u-17", "charge order 4411")
    [ask] = reply.waiting
    assert (ask.kind, ask.answers, ask.prompt) == ("ask", ["answer"], "Charge a card: what amount?")
    with pytest.raises(BadRequest, match="value"):
        desk.confirm("u-17", "answer")
    with pytest.raises(BadRequest, match="number"):
        desk.confirm("u-17", "answer", value="forty")

    [confirm] = desk.confirm("u-17", "answer", value="40").waiting
    assert confirm.kind == "confirm"
    assert {"name": "amount", "value": 40, "origin": "reply"} in confirm.arguments
    assert desk.confirm("u-17", "approve").status == "done"
    assert ledger("charge") == [{"kind": "charge", "order_id": "4411", "amount": 40}]


def test_an_unread_turn_asks_whether_the_model_may_have_it(desk):
    reply = desk.send("u-17", "what is the weather like")
    [pause] = reply.waiting
    assert (pause.kind, pause.answers, pause.turn) == ("delegate", ["approve", "decline"], "what is the weather like")
    assert desk.confirm("u-17", "decline").text.endswith("Alright, I won't pass it on.")


def test_delegate_approve_without_a_model_says_so(tmp_path):
    from .test_approvers import shop

    with Desk.from_file(shop(tmp_path, ""), storage="memory://") as modelless:
        modelless.send("u-17", "what is the weather like")
        reply = modelless.confirm("u-17", "approve")
    assert "No model is configured" in reply.text and reply.status == "done"


def test_a_portuguese_turn_is_not_read_and_the_reply_names_the_language(desk, ledger):
    reply = desk.send("u-17", "procurar o pedido 4411 e cobrar 40 no pedido 4411")
    assert "looks like Portuguese" in reply.text
    assert reply.steps == [] and reply.waiting[0].kind == "delegate"
    assert "language: pt" in reply.waiting[0].reasons
    assert ledger() == []


def test_a_rule_refuses_with_its_sentence_and_rule(desk, ledger):
    reply = desk.send("u-17", "charge 600 to order 4413 and look up order 4413")
    [refusal] = reply.refusals
    assert (refusal.tool, refusal.rule) == ("charge_card", "charges-over-500")
    assert refusal.sentence == "Charges over 500 go through the finance desk, not the chat."
    assert reply.steps == [] and reply.waiting == [] and ledger() == []


def test_reading_an_untrusted_result_taints_later_writes(desk):
    reply = desk.send("u-17", "read messages for order 4411 and charge 40 to order 4411")
    assert reply.waiting[0].reasons == ["write", "tainted_call: untrusted:read_messages"]


def test_an_irreversible_tool_is_flagged_on_its_pause(desk):
    pause = desk.send("u-17", "send the receipt for order 4411").waiting[0]
    assert pause.irreversible is True and pause.question == "Mail the receipt for this order?"


def test_a_tool_that_fails_fails_the_run_with_its_error(desk):
    reply = desk.send("u-17", "look up order 9999 and look up order 4411")
    assert reply.status == "failed"
    assert [(s.tool, s.status) for s in reply.steps] == [("look_up_order", "failed")]
    assert "there is no order 9999" in reply.steps[0].error


def test_the_thread_event_log_tells_what_happened_in_order(desk):
    desk.send("u-17", CHARGE)
    desk.confirm("u-17", "approve")
    events = desk.storage.events("u-17")
    assert [e["type"] for _, e in events] == ["turn", "step", "pause", "answer", "step", "run"]
    assert [i for i, _ in events] == sorted(i for i, _ in events)
    assert "token" not in events[2][1]["pause"]


def test_answers_table_is_the_chapters():
    assert ANSWERS == {
        "confirm": ("approve", "skip", "cancel_all"),
        "outcome_unknown": ("happened", "did_not_happen"),
        "saga_stuck": ("retry", "done_by_hand", "abandon"),
        "ask": ("answer",),
        "delegate": ("approve", "decline"),
    }


def test_runs_begun_later_have_ids_that_sort_later_and_stay_unguessable():
    """Time-ordered ids keep the store's indexes growing at one end (bench/scale.py), with 84 random bits each."""
    from stalwart_agents.engine.move import run_id

    made = [run_id(1_796_000_000 + n / 1000) for n in range(200)]
    assert made == sorted(made) and len(set(made)) == 200
    same_moment = {run_id(1_796_000_000.0) for _ in range(200)}
    assert len(same_moment) == 200 and all(len(made_id) == 24 and made_id.startswith("r_") for made_id in same_moment)
