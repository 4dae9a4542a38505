"""Changing a graph's call before approving it, through the LangGraph door: in the door's own interrupt shape (an
``editable`` list, an optional ``schema``) and in LangChain's ``HumanInTheLoopMiddleware`` shape (``edit`` among a
review's allowed decisions).  The graph runs the call once, as approved; a change nobody may make is refused with
nothing answered; and the thread's log keeps the call as asked and as approved."""

from functools import partial
from typing import Any

import httpx
import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver

from stalwart_agents import BadRequest, InterruptStale
from stalwart_agents.approvals.principal import ANONYMOUS
from stalwart_agents.engine.answer import Answer
from stalwart_agents.langchain.interrupts import CANCELLED, DECLINED
from stalwart_agents.langchain.server import GraphDoor, GraphFailed, langgraph_app

from .langgraph_shop import Till, build_refund_graph, build_review_graph, sqlite_saver
from .server import at_once, serving

OPERATOR = "op-token-for-tests"


def say(base, thread, text):
    return httpx.post(f"{base}/threads/{thread}/messages", json={"text": text}, timeout=30)


def answer(base, thread, pause, decision="approve", edits=None):
    body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"]}
    return httpx.post(f"{base}/threads/{thread}/resume", json=body | ({"edits": edits} if edits else {}), timeout=30)


def waiting(base, thread):
    return httpx.get(f"{base}/threads/{thread}/interrupts", timeout=30).json()["waiting"]


def edit_marks(pause):
    """Each argument the pause's card lets its reader change, with how it is typed in."""
    return {a["name"]: a["edit"] for a in pause["card"]["arguments"] if "edit" in a}


def values(arguments):
    return {a["name"]: (a["value"], a["origin"]) for a in arguments}


@pytest.fixture
def till():
    return Till()


@pytest.fixture
def refunds(till):
    """The door over a graph that asks in the door's own shape, ``amount`` editable, nothing typing it."""
    with serving(langgraph_app(build_refund_graph(InMemorySaver(), till), storage="memory://")) as base:
        yield base


def test_an_approval_that_changes_an_editable_argument_runs_the_call_once_with_the_new_value(refunds, till):
    [pause] = say(refunds, "t1", "refund order 4411").json()["waiting"]
    assert pause["editable"] == ["amount"] and edit_marks(pause) == {"amount": "integer"}

    done = answer(refunds, "t1", pause, edits={"amount": 30})
    assert done.status_code == 200, done.text
    assert done.json()["reply"]["text"] == "Done: refunded 30 to order 4411."
    [step] = done.json()["steps"]
    assert values(step["arguments"]) == {"amount": (30, "edited"), "order_id": ("4411", "model")}
    assert till.heard == [{"decision": "approve", "arguments": {"order_id": "4411", "amount": 30}}]
    assert till.refunds == [{"order_id": "4411", "amount": 30}]

    again = answer(refunds, "t1", pause, edits={"amount": 30})
    assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert till.refunds == [{"order_id": "4411", "amount": 30}]


def test_an_approval_without_changes_still_returns_the_decision_alone(refunds, till):
    [pause] = say(refunds, "t2", "refund order 4411").json()["waiting"]
    assert answer(refunds, "t2", pause, edits={"amount": 40}).status_code == 200
    assert till.heard == ["approve"] and till.refunds == [{"order_id": "4411", "amount": 40}]


@pytest.mark.parametrize(
    ("decision", "edits", "said"),
    [
        ("approve", {"order_id": "9999"}, "edits.order_id: a person may change only amount before approving"),
        ("approve", {"amount": "30"}, "edits.amount: it was asked as a number, so it takes a number, not text"),
        ("approve", {"amount": True}, "edits.amount: it was asked as a number"),
        ("skip", {"amount": 30}, "edits: only an approval changes a call"),
    ],
)
def test_a_change_nobody_may_make_is_refused_and_the_pause_waits_as_it_was(refunds, till, decision, edits, said):
    [pause] = say(refunds, "t3", "refund order 4411").json()["waiting"]
    refused = answer(refunds, "t3", pause, decision, edits)
    assert refused.status_code == 400 and refused.json()["error"] == "bad_request"
    assert refused.json()["message"].startswith(said)
    [still] = waiting(refunds, "t3")
    assert (still["id"], still["token"], still["arguments"]) == (pause["id"], pause["token"], pause["arguments"])
    assert till.heard == [] and till.refunds == []
    assert answer(refunds, "t3", still).status_code == 200 and till.refunds == [{"order_id": "4411", "amount": 40}]


def test_a_schema_types_the_change_and_bounds_it(till):
    schema = {"type": "object", "properties": {"amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 40}}}
    with serving(langgraph_app(build_refund_graph(InMemorySaver(), till, schema=schema), storage="memory://")) as base:
        [pause] = say(base, "t4", "refund order 4411").json()["waiting"]
        assert edit_marks(pause) == {"amount": "number"}
        over = answer(base, "t4", pause, edits={"amount": 50})
        assert (
            over.status_code == 400 and over.json()["message"] == "edits.amount: 50 is greater than the maximum of 40"
        )
        assert answer(base, "t4", pause, edits={"amount": 12.5}).status_code == 200
    assert till.refunds == [{"order_id": "4411", "amount": 12.5}]


def test_a_schema_that_bounds_a_value_without_typing_it_still_keeps_the_kind_asked(till):
    schema = {"type": "object", "properties": {"amount": {"maximum": 40}}}
    with serving(langgraph_app(build_refund_graph(InMemorySaver(), till, schema=schema), storage="memory://")) as base:
        [pause] = say(base, "t9", "refund order 4411").json()["waiting"]
        words = answer(base, "t9", pause, edits={"amount": "all of it"})
        assert words.status_code == 400 and words.json()["message"].startswith("edits.amount: it was asked as a number")
        assert answer(base, "t9", pause, edits={"amount": 12}).status_code == 200
    assert till.refunds == [{"order_id": "4411", "amount": 12}]


def test_two_identical_changed_approvals_at_once_run_the_call_once(refunds, till):
    [pause] = say(refunds, "t5", "refund order 4411").json()["waiting"]
    answers = at_once(*(partial(answer, refunds, "t5", pause, edits={"amount": 30}) for _ in range(2)))
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert till.refunds == [{"order_id": "4411", "amount": 30}]


def test_the_log_and_the_pause_keep_the_call_as_asked_and_as_approved(till):
    door = GraphDoor(build_refund_graph(InMemorySaver(), till), storage="memory://")
    door.send("t6", "refund order 4411")
    [pause] = door.interrupts("t6")
    door.resume("t6", pause.id, "approve", pause.token, edits={"amount": 30})

    [kept] = door.storage.run_pauses(pause.run)
    assert kept.answer is not None and (kept.answer["decision"], kept.answer["edits"]) == ("approve", {"amount": 30})
    assert kept.answer["editor"] is None and kept.answer["channel"] == "langgraph"
    [said] = [body for _, body in door.events("t6") if body["type"] == "answer"]
    assert (said["pause"], said["decision"], said["outcome"]) == (pause.id, "approve", "taken")
    assert values(said["arguments"]) == {"amount": (40, "model"), "order_id": ("4411", "model")}
    assert said["edits"] == [{"name": "amount", "label": "amount", "asked": 40, "value": 30, "from": "40", "to": "30"}]
    approved: Any = said["changed_to"]
    assert said["title"] == approved["title"] == "refund_order"
    assert values(approved["arguments"]) == {"amount": (30, "edited"), "order_id": ("4411", "model")}


def test_a_signed_link_never_changes_a_call(till):
    door = GraphDoor(build_refund_graph(InMemorySaver(), till), storage="memory://")
    door.send("t7", "refund order 4411")
    [pause] = door.interrupts("t7")
    admitted = door.admit("t7", ANONYMOUS)
    linked = Answer("approve", None, pause.token, "link", edits={"amount": 1})
    with pytest.raises(BadRequest, match="a signed link approves a call as it was asked"):
        door.answer(admitted, linked, pause.id)
    assert door.interrupts("t7") == [pause] and till.refunds == []


def test_a_node_safe_to_rerun_is_given_the_changed_call_again_and_makes_it_once(tmp_path, till):
    till.failures = 1
    graph = build_refund_graph(sqlite_saver(str(tmp_path / "checkpoints.db")), till)
    door = GraphDoor(graph, storage=f"sqlite:///{tmp_path / 'runs.db'}", rerun=["refund"])
    door.send("t8", "refund order 4411")
    [pause] = door.interrupts("t8")
    with pytest.raises(GraphFailed, match="ConnectionError"):
        door.resume("t8", pause.id, "approve", pause.token, edits={"amount": 30})
    assert till.refunds == []
    with pytest.raises(InterruptStale):
        door.resume("t8", pause.id, "approve", pause.token, edits={"amount": 20})
    assert door.resume("t8", pause.id, "approve", pause.token, edits={"amount": 30}).status == "done"
    assert till.refunds == [{"order_id": "4411", "amount": 30}]


def test_a_person_who_says_the_changed_call_did_not_happen_runs_it_again_as_approved(till):
    till.failures = 1
    door = GraphDoor(build_refund_graph(InMemorySaver(), till), storage="memory://")
    door.send("t9", "refund order 4411")
    [pause] = door.interrupts("t9")
    [unknown] = door.resume("t9", pause.id, "approve", pause.token, edits={"amount": 30}).waiting
    assert unknown.kind == "outcome_unknown" and unknown.editable is None
    assert door.resume("t9", unknown.id, "did_not_happen", unknown.token).status == "done"
    assert till.refunds == [{"order_id": "4411", "amount": 30}]


@pytest.fixture
def reviewed(till):
    """The door over a graph reviewed as LangChain's HumanInTheLoopMiddleware reviews it."""
    with serving(
        langgraph_app(build_review_graph(InMemorySaver(), till), storage="memory://", operator_token=OPERATOR)
    ) as base:
        yield base


def test_the_middlewares_request_is_a_confirmation_of_its_call_with_every_argument_editable(reviewed, till):
    [pause] = say(reviewed, "h1", "refund order 4411").json()["waiting"]
    assert (pause["kind"], pause["tool"], pause["question"]) == ("confirm", "refund_order", "Refund order 4411?")
    assert values(pause["arguments"]) == {"amount": (40, "model"), "order_id": ("4411", "model")}
    assert pause["answers"] == ["approve", "skip", "cancel_all"]
    assert edit_marks(pause) == {"amount": "integer", "order_id": "string"}


@pytest.mark.parametrize(
    ("decision", "edits", "heard", "refunded", "text"),
    [
        (
            "approve",
            None,
            {"type": "approve"},
            [{"order_id": "4411", "amount": 40}],
            "Done: refunded 40 to order 4411.",
        ),
        (
            "approve",
            {"amount": 25},
            {"type": "edit", "edited_action": {"name": "refund_order", "args": {"order_id": "4411", "amount": 25}}},
            [{"order_id": "4411", "amount": 25}],
            "Done: refunded 25 to order 4411.",
        ),
        ("skip", None, {"type": "reject", "message": DECLINED}, [], f"Nothing was refunded: {DECLINED}"),
    ],
)
def test_each_answer_is_the_middlewares_decision(reviewed, till, decision, edits, heard, refunded, text):
    [pause] = say(reviewed, "h2", "refund order 4411").json()["waiting"]
    done = answer(reviewed, "h2", pause, decision, edits)
    assert done.status_code == 200, done.text
    assert till.heard == [{"decisions": [heard]}] and till.refunds == refunded
    assert done.json()["reply"]["text"] == text
    assert answer(reviewed, "h2", pause, decision, edits).json()["error"] == "interrupt_stale"
    assert till.refunds == refunded


def test_the_operators_rollback_rejects_the_middlewares_calls(reviewed, till):
    say(reviewed, "h3", "refund order 4411")
    done = httpx.post(f"{reviewed}/threads/h3/rollback", headers={"Authorization": f"Bearer {OPERATOR}"})
    assert done.json()["rollback"]["status"] == "complete"
    assert till.heard == [{"decisions": [{"type": "reject", "message": CANCELLED}]}] and till.refunds == []


def test_a_review_that_allows_no_edit_marks_nothing_editable_and_refuses_changes(till):
    graph = build_review_graph(InMemorySaver(), till, allowed=("approve", "reject"))
    with serving(langgraph_app(graph, storage="memory://")) as base:
        [pause] = say(base, "h4", "refund order 4411").json()["waiting"]
        assert "editable" not in pause and edit_marks(pause) == {}
        refused = answer(base, "h4", pause, edits={"amount": 25})
        assert refused.status_code == 400 and "none of its arguments" in refused.json()["message"]
        assert waiting(base, "h4")[0]["id"] == pause["id"] and till.heard == []


def test_a_review_that_allows_no_rejection_is_only_approved_and_a_rollback_leaves_it(till):
    graph = build_review_graph(InMemorySaver(), till, allowed=("edit",))
    with serving(langgraph_app(graph, storage="memory://", operator_token=OPERATOR)) as base:
        [pause] = say(base, "h5", "refund order 4411").json()["waiting"]
        assert pause["answers"] == ["approve"] and [a["decision"] for a in pause["card"]["answers"]] == ["approve"]
        assert answer(base, "h5", pause, "skip").status_code == 400
        rolled = httpx.post(f"{base}/threads/h5/rollback", headers={"Authorization": f"Bearer {OPERATOR}"}).json()
        assert rolled["rollback"]["status"] == "waiting" and rolled["waiting"][0]["id"] == pause["id"]
        assert answer(base, "h5", pause).status_code == 200
    edited = {"type": "edit", "edited_action": {"name": "refund_order", "args": {"order_id": "4411", "amount": 40}}}
    assert till.heard == [{"decisions": [edited]}] and till.refunds == [{"order_id": "4411", "amount": 40}]


def test_a_reviews_args_schema_names_and_types_what_may_change(till):
    args_schema = {"type": "object", "properties": {"amount": {"type": "integer", "minimum": 1, "maximum": 40}}}
    graph = build_review_graph(InMemorySaver(), till, args_schema=args_schema)
    with serving(langgraph_app(graph, storage="memory://")) as base:
        [pause] = say(base, "h6", "refund order 4411").json()["waiting"]
        assert pause["editable"] == ["amount"] and edit_marks(pause) == {"amount": "integer"}
        assert answer(base, "h6", pause, edits={"order_id": "1"}).status_code == 400
        assert "is not of type 'integer'" in answer(base, "h6", pause, edits={"amount": 2.5}).json()["message"]
        assert answer(base, "h6", pause, edits={"amount": 5}).status_code == 200
    assert till.refunds == [{"order_id": "4411", "amount": 5}]


def test_several_calls_in_one_request_are_one_pause_whose_answer_decides_them_all_unchanged(reviewed, till):
    [pause] = say(reviewed, "h7", "refund orders 4411 and 4412").json()["waiting"]
    assert pause["tool"] == "refund_order, refund_order" and "editable" not in pause
    assert [(a["name"], a["label"], a["value"]) for a in pause["arguments"]] == [
        ("1.amount", "refund_order amount", 40),
        ("1.order_id", "refund_order order_id", "4411"),
        ("2.amount", "refund_order amount", 40),
        ("2.order_id", "refund_order order_id", "4412"),
    ]
    assert answer(reviewed, "h7", pause, edits={"1.amount": 5}).status_code == 400
    assert answer(reviewed, "h7", pause).status_code == 200
    assert till.heard == [{"decisions": [{"type": "approve"}, {"type": "approve"}]}]
    assert till.refunds == [{"order_id": "4411", "amount": 40}, {"order_id": "4412", "amount": 40}]
