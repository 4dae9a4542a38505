"""The decision record says exactly what happened: each kind of pause decided through its real path (the Python API,
HTTP with a signed-in person, a signed link a mail carried, a Slack click, the clock, the LangGraph door), and each
entry checked field by field against the decision, against the thread's log, and against its chain.  Answers refused
or too late add nothing to it; ``stalwart audit`` exports it exactly and finds an entry changed in the database."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from stalwart_agents import Desk, InterruptStale, OutcomeUnknown, PauseExpired
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.approvals.record import COLUMNS, jsonl, verify
from stalwart_agents.approvals.rules import LINK_ISSUER
from stalwart_agents.channels import Channels
from stalwart_agents.channels.mail import Mail
from stalwart_agents.errors import AlreadyApproved, NotAnApprover
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.serve import make_app
from stalwart_agents.storage import Storage, open_storage
from stalwart_agents.storage.chain import GENESIS, digest_of

from .conftest import SHOP
from .server import Later, at_once, serving
from .test_approvers import (
    ALICE,
    AUDIENCE,
    FINANCE_FOR_LARGE,
    FIONA,
    FOUR_EYES,
    FRANK,
    GINA,
    MALLORY,
    SECRET,
    TEAM,
    charge,
    opened,
    token,
)
from .test_deadlines import Clock, desk_for
from .test_mail import channel_cards, hrefs, parts, smtp  # noqa: F401  (smtp: a fixture)
from .test_mail import config as mail_config
from .test_sagas import BANK, Bank
from .test_slack import FIONA as SLACK_FIONA
from .test_slack import LARGE, eventually, served  # noqa: F401  (served: a fixture)
from .test_slack import MALLORY as SLACK_MALLORY

OPERATOR = "operator-token-for-the-record"
NOBODY = {"issuer": None, "subject": None, "name": None, "verified": "none"}
"""Who decided, for an in-process answer with no principal and no word of the caller's."""
FORMULA = '=HYPERLINK("https://evil.example/","ok")'


def digest(pause_token: str) -> str:
    return hashlib.sha256(pause_token.encode()).hexdigest()[:16]


def shown(pause: Any) -> dict[str, Any]:
    """What the record says the person was shown of ``pause`` (a Pause, or its JSON)."""

    def get(name: str) -> Any:
        return pause[name] if isinstance(pause, dict) else getattr(pause, name)

    arguments = [{k: a[k] for k in ("name", "value", "origin")} for a in get("arguments")]
    return {
        "question": get("question"),
        "arguments": arguments,
        "reasons": get("reasons"),
        "irreversible": get("irreversible"),
    }


def recorded(store: Storage, thread: str) -> list[dict[str, Any]]:
    """``thread``'s record, checked: chained and digested, each entry answered after it was asked, and the whole
    record (every thread) intact."""
    kept = store.record(thread)
    assert [e["seq"] for e in kept] == list(range(1, len(kept) + 1))
    assert [e["prev"] for e in kept] == [GENESIS] + [e["digest"] for e in kept[:-1]]
    for entry in kept:
        assert entry["thread"] == thread and entry["digest"] == digest_of(entry)
        assert entry["waited"] >= 0 and entry["asked_at"] <= entry["at"], entry
    assert verify(store).intact
    return kept


def agrees(kept: list[dict[str, Any]], history: list[dict[str, Any]]) -> None:
    """The record and the thread's log tell the same decisions: every answer the log says was taken or counted, in
    order, and nothing the log says was refused."""
    decided = [h for h in history if h["outcome"] in ("taken", "approval")]
    assert [h["outcome"] for h in history if h not in decided] == ["refused"] * (len(history) - len(decided))
    fields = ("pause", "decision", "outcome", "channel", "token", "at", "kind", "tool")
    assert [tuple(e[f] for f in fields) for e in kept] == [tuple(h[f] for f in fields) for h in decided]
    for entry, told in zip(kept, decided, strict=True):
        assert entry["shown"]["arguments"] == told["arguments"] and entry["title"] == told["title"]
        assert entry["edits"] == told.get("edits", [])
        principal = told.get("principal") or {}
        assert (entry["by"]["issuer"], entry["by"]["subject"]) == (
            principal.get("iss"),
            principal.get("sub", told["by"]),
        )
        if entry["runs"] is not None and "arguments" in entry["runs"]:
            assert entry["runs"]["arguments"] == told["changed_to"]["arguments"]
        ran = [call for call in told.get("ran") or [] if call["tool"] == entry["tool"]]
        if entry["runs"] is None and entry["decision"] != "happened":  # which the log keeps as the call done, unsent
            assert ran == [], "a decision that runs nothing"


def the(store: Storage, thread: str, history: list[dict[str, Any]]) -> dict[str, Any]:
    """The one entry of ``thread``'s record, which agrees with its log."""
    kept = recorded(store, thread)
    agrees(kept, history)
    [entry] = kept
    return entry


def expect(entry: dict[str, Any], **fields: Any) -> None:
    assert {name: entry[name] for name in fields} == fields


# --- confirm, in process --------------------------------------------------------------------------------------


@pytest.mark.sqlite
def test_approve_skip_and_cancel_all_in_process_are_recorded_as_given_and_refused_answers_are_not(desk, ledger):
    pause = desk.send("approve", "look up order 4411 and charge 40 to order 4411").waiting[0]
    with pytest.raises(InterruptStale):
        desk.confirm("approve", "approve", pause.id, token="guessed", by="mallory")
    desk.confirm("approve", "approve", pause.id, token=pause.token, by="ana@shop")
    with pytest.raises(InterruptStale):  # answered already: a second answer loses
        desk.confirm("approve", "approve", pause.id, token=pause.token, by="bob")
    history = desk.history("approve")
    assert [h["outcome"] for h in history] == ["refused", "taken", "refused"]
    entry = the(desk.storage, "approve", history)
    expect(
        entry,
        run=pause.run,
        pause=pause.id,
        kind="confirm",
        tool="charge_card",
        title="Charge 40.00 EUR to order 4411",
        decision="approve",
        outcome="taken",
        value=None,
        by={"issuer": None, "subject": "ana@shop", "name": None, "verified": "none"},
        channel="python",
        shown=shown(pause),
        runs={"tool": "charge_card", "as_shown": True},
        edits=[],
        rules=[],
        approvals=None,
        token=digest(pause.token),
        asked_at=pause.created_at,
    )
    assert entry["shown"]["arguments"] == [
        {"name": "amount", "value": 40, "origin": "typed"},
        {"name": "order_id", "value": "4411", "origin": "typed"},
    ]
    assert [(h["tool"], h["status"]) for h in history[1]["ran"]] == [("charge_card", "done")]
    assert len(ledger("charge")) == 1

    for decision in ("skip", "cancel_all"):
        asked = desk.send(decision, "send the receipt for order 4411").waiting[0]
        desk.confirm(decision, decision, asked.id, token=asked.token)
        entry = the(desk.storage, decision, desk.history(decision))
        expect(entry, kind="confirm", tool="send_receipt", decision=decision, outcome="taken", runs=None, by=NOBODY)
        assert entry["shown"] == shown(asked) and entry["shown"]["irreversible"] is True
    assert ledger("receipt") == []


# --- edits, rules, four eyes, a race --------------------------------------------------------------------------


def test_an_approval_with_changes_runs_them_and_one_the_person_could_not_approve_alone_runs_nothing(tmp_path, ledger):
    with opened(tmp_path, FINANCE_FOR_LARGE) as desk:
        pause = charge(desk, "alone", 400)
        desk.confirm("alone", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 120})
        history = desk.history("alone")
        entry = the(desk.storage, "alone", history)
        changed = [
            {"name": "amount", "value": 120, "origin": "edited:alice@shop.example"},
            {"name": "order_id", "value": "4411", "origin": "typed"},
        ]
        expect(
            entry,
            decision="approve",
            outcome="taken",
            by={"issuer": TEAM, "subject": "alice", "name": None, "verified": "token"},
            channel="python",
            shown=shown(pause),
            runs={"tool": "charge_card", "arguments": changed},
            rules=[],  # the rule governs charges over 1000 only
            approvals=None,
        )
        assert entry["edits"] == [
            {"name": "amount", "label": "Amount", "asked": 400, "value": 120, "from": "400.00 EUR", "to": "120.00 EUR"}
        ]
        ran: Any = history[0]["ran"]
        assert ran[0]["arguments"] == changed and [c["amount"] for c in ledger("charge")] == [120]

        pause = charge(desk, "crossing", 400)
        moved = desk.confirm(
            "crossing", "approve", pause.id, token=pause.token, principal=ALICE, edits={"amount": 2000}
        )
        [again] = moved.waiting
        with pytest.raises(NotAnApprover):  # Alice could change it, not approve it as changed
            desk.confirm("crossing", "approve", again.id, token=again.token, principal=ALICE)
        desk.confirm("crossing", "approve", again.id, token=again.token, principal=FIONA)
        edited, taken = recorded(desk.storage, "crossing")
        agrees([edited, taken], desk.history("crossing"))
        expect(edited, pause=pause.id, decision="edited", outcome="taken", runs=None, shown=shown(pause), rules=[])
        assert [(e["name"], e["asked"], e["value"]) for e in edited["edits"]] == [("amount", 400, 2000)]
        expect(
            taken,
            pause=again.id,
            decision="approve",
            by={"issuer": TEAM, "subject": "fiona", "name": None, "verified": "token"},
            shown=shown(again),
            runs={"tool": "charge_card", "as_shown": True},
            edits=[],
            rules=["finance-large"],
        )
        assert taken["shown"]["arguments"][0] == {
            "name": "amount",
            "value": 2000,
            "origin": "edited:alice@shop.example",
        }
        assert [c["amount"] for c in ledger("charge")] == [120, 2000]


def test_four_eyes_records_each_approval_with_how_far_it_has_come_and_never_a_refused_one(tmp_path, ledger):
    with opened(tmp_path, FOUR_EYES) as desk:
        pause = charge(desk, "t", 40)
        desk.confirm("t", "approve", pause.id, token=pause.token, principal=FIONA)
        with pytest.raises(AlreadyApproved):
            desk.confirm("t", "approve", pause.id, token=pause.token, principal=FIONA)
        with pytest.raises(NotAnApprover):
            desk.confirm("t", "approve", pause.id, token=pause.token, principal=MALLORY)
        assert ledger("charge") == []
        desk.confirm("t", "approve", pause.id, token=pause.token, principal=FRANK)
        with pytest.raises(InterruptStale):
            desk.confirm("t", "approve", pause.id, token=pause.token, principal=GINA)

        history = desk.history("t")
        assert [(h["by"], h["outcome"]) for h in history] == [
            ("fiona", "approval"),
            ("fiona", "refused"),
            ("mallory", "refused"),
            ("frank", "taken"),
            ("gina", "refused"),
        ]
        first, second = recorded(desk.storage, "t")
        agrees([first, second], history)
        for entry, who, given in ((first, "fiona", 1), (second, "frank", 2)):
            assert entry["by"] == {"issuer": TEAM, "subject": who, "name": None, "verified": "token"}
            expect(
                entry, pause=pause.id, decision="approve", rules=["finance"], approvals={"given": given, "needed": 2}
            )
        expect(first, outcome="approval", runs=None)
        expect(second, outcome="taken", runs={"tool": "charge_card", "as_shown": True})
        assert len(ledger("charge")) == 1


def test_of_two_answers_racing_only_the_winner_is_recorded(tmp_path, ledger):
    with opened(tmp_path, "check: {}") as one, opened(tmp_path, "check: {}") as two:
        pause = charge(one, "race", 40)

        def answer(desk: Desk, who: str) -> str:
            try:
                desk.confirm("race", "approve", pause.id, token=pause.token, by=who)
            except InterruptStale:
                return "stale"
            return "taken"

        outcomes = at_once(lambda: answer(one, "ana"), lambda: answer(two, "bob"))
        assert sorted(outcomes) == ["stale", "taken"]
        winner = "ana" if outcomes[0] == "taken" else "bob"
        history = one.history("race")
        assert sorted((h["by"], h["outcome"]) for h in history) == sorted(
            [(winner, "taken"), ({"ana", "bob"}.difference({winner}).pop(), "refused")]
        )
        entry = the(one.storage, "race", history)
        assert entry["by"]["subject"] == winner and len(ledger("charge")) == 1


# --- ask, delegate, outcome_unknown, saga_stuck -----------------------------------------------------------------


def test_an_ask_and_a_delegate_are_recorded_with_the_value_and_what_then_runs(desk, ledger):
    [ask] = desk.send("ask", "charge order 4411").waiting
    [confirm] = desk.confirm("ask", "answer", ask.id, value="40", by="ana").waiting
    desk.confirm("ask", "approve", confirm.id, token=confirm.token, by="ana")
    asked, approved = recorded(desk.storage, "ask")
    agrees([asked, approved], desk.history("ask"))
    expect(
        asked,
        kind="ask",
        tool="charge_card",
        decision="answer",
        value="40",
        shown=shown(ask),
        runs={"tool": "charge_card", "as_shown": True},
        token=None,
    )
    assert asked["shown"]["question"] == "Charge a card: what amount?" and asked["shown"]["reasons"] == [
        "missing: amount"
    ]
    assert {"name": "amount", "value": 40, "origin": "reply"} in approved["shown"]["arguments"]
    expect(approved, kind="confirm", decision="approve", runs={"tool": "charge_card", "as_shown": True})

    for decision, runs in (("approve", {"tool": "model", "as_shown": True}), ("decline", None)):
        [offered] = desk.send(decision, "what is the weather like").waiting
        desk.confirm(decision, decision, offered.id)
        history = desk.history(decision)
        entry = the(desk.storage, decision, history)
        expect(entry, kind="delegate", decision=decision, outcome="taken", runs=runs, shown=shown(offered), by=NOBODY)
        assert [call["tool"] for call in history[0]["ran"]] == (["model"] if runs else [])


@pytest.fixture
def bank() -> Iterator[Bank]:
    desk = Bank.from_file(BANK, sleep=lambda seconds: None)
    assert isinstance(desk, Bank)
    desk.tools = sys.modules[desk.agents["bank"].tools["pay"].fn.__module__]
    desk.tools.CALLS.clear()
    desk.tools.FAIL.clear()
    yield desk
    desk.close()


def test_an_outcome_unknown_and_a_stuck_undo_are_recorded_with_what_each_answer_then_runs(bank):
    for decision, runs in (("happened", None), ("did_not_happen", {"tool": "pay", "as_shown": True})):
        bank.tools.FAIL["pay"] = [OutcomeUnknown("the bank timed out")]
        [unknown] = bank.send(decision, "pay 5 to ana").waiting
        bank.confirm(decision, decision, unknown.id, token=unknown.token, by="ops")
        history = bank.history(decision)
        entry = the(bank.storage, decision, history)
        expect(entry, kind="outcome_unknown", tool="pay", decision=decision, runs=runs, shown=shown(unknown))
        assert entry["shown"]["reasons"] == ["outcome_unknown: OutcomeUnknown: the bank timed out"]
    assert [a["payee"] for name, a in bank.tools.CALLS if name == "pay"] == ["ana", "ana", "ana"]  # sent again once

    undoes = {"retry": {"tool": "refund", "as_shown": True}, "done_by_hand": None, "abandon": None}
    for decision, runs in undoes.items():
        bank.tools.FAIL.clear()
        bank.tools.FAIL["refund"] = [RuntimeError("bank down")] * 3
        [big] = bank.send(decision, "pay 5 to ana and pay 7 to bob and pay 100 to cy").waiting
        [stuck] = bank.confirm(decision, "cancel_all", big.id, token=big.token).waiting
        bank.tools.FAIL.clear()
        bank.confirm(decision, decision, stuck.id, token=stuck.token)
        cancelled, entry = recorded(bank.storage, decision)
        history = bank.history(decision)
        agrees([cancelled, entry], history)
        expect(cancelled, kind="confirm", decision="cancel_all", runs=None, rules=[], shown=shown(big))
        assert cancelled["shown"]["reasons"] == ["rule: big-payments"]  # a check rule, not an approver rule
        expect(entry, kind="saga_stuck", tool="pay", decision=decision, runs=runs, shown=shown(stuck))
        assert entry["shown"]["question"] == "Undoing pay failed. What should happen?"
        refunds = [(c["tool"], c["status"]) for c in history[1]["ran"] if c["tool"] == "refund"]
        assert (refunds != []) is (decision != "abandon")


# --- the clock -------------------------------------------------------------------------------------------------


def test_a_pause_ended_at_its_deadline_is_the_clocks_decision_and_a_late_answer_adds_nothing(tmp_path, ledger):
    clock = Clock()
    desk = desk_for(open_storage("memory://"), tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk, "ticked", 40)
    late = charge(desk, "late", 40)
    clock.later(31 * 60)
    assert sorted(tick(desk).expired) == sorted([pause.id, late.id])
    with pytest.raises(PauseExpired):
        desk.confirm("late", "approve", late.id, token=late.token, principal=ALICE)
    clocked = {"issuer": "stalwart:clock", "subject": "deadline", "name": None, "verified": "clock"}
    for thread, asked in (("ticked", pause), ("late", late)):
        history = desk.history(thread)
        entry = the(desk.storage, thread, history)
        expect(entry, decision="expired", outcome="taken", by=clocked, channel="clock", runs=None, shown=shown(asked))
        assert entry["waited"] == 31 * 60 and entry["asked_at"] == asked.created_at
    assert [h["outcome"] for h in desk.history("late")] == ["taken", "refused"] and ledger("charge") == []


def test_a_late_answer_that_finds_the_deadline_passed_records_the_clocks_decision_alone(tmp_path, ledger):
    clock = Clock()
    desk = desk_for(open_storage("memory://"), tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk, "t", 40)
    clock.later(45 * 60)  # nobody ticked: the answer itself finds the deadline passed
    with pytest.raises(PauseExpired):
        desk.confirm("t", "approve", pause.id, token=pause.token, principal=ALICE)
    history = desk.history("t")
    assert [(h["decision"], h["outcome"]) for h in history] == [("expired", "taken"), ("approve", "refused")]
    entry = the(desk.storage, "t", history)
    expect(entry, decision="expired", channel="clock", runs=None, waited=45 * 60.0)
    assert entry["by"]["verified"] == "clock"


# --- HTTP, links, mail, Slack, the LangGraph door ---------------------------------------------------------------


def test_over_http_a_signed_in_approver_is_recorded_by_their_token_and_the_routes_read_the_record(tmp_path, ledger):
    auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
    with (
        opened(tmp_path, FINANCE_FOR_LARGE) as desk,
        serving(make_app(desk, auth=auth, operator_token=OPERATOR)) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        turn = client.post("/threads/t/messages", json={"text": "charge 2000 to order 4411"}, headers=token(ALICE))
        [pause] = turn.json()["waiting"]
        thread = pause["thread"]
        body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
        assert client.post(f"/threads/{thread}/resume", json=body, headers=token(ALICE)).status_code == 403
        wrong = client.post(f"/threads/{thread}/resume", json=body | {"token": "guessed"}, headers=token(FIONA))
        assert wrong.status_code == 409
        assert client.post(f"/threads/{thread}/resume", json=body, headers=token(FIONA)).status_code == 200

        history = desk.history(thread)
        assert [(h["by"], h["outcome"]) for h in history] == [
            ("alice", "refused"),
            ("fiona", "refused"),
            ("fiona", "taken"),
        ]
        entry = the(desk.storage, thread, history)
        expect(
            entry,
            decision="approve",
            outcome="taken",
            by={"issuer": TEAM, "subject": "fiona", "name": "fiona", "verified": "token"},
            channel="http",
            shown=shown(pause),
            runs={"tool": "charge_card", "as_shown": True},
            rules=["finance-large"],
            token=digest(pause["token"]),
        )
        assert [c["amount"] for c in ledger("charge")] == [2000]

        mine = client.get(f"/threads/{thread}/decisions", headers=token(ALICE)).json()
        assert mine["intact"] is True and mine["decisions"] == [entry | {"mine": False}]
        operator = client.get(f"/threads/{thread}/decisions", headers={"Authorization": f"Bearer {OPERATOR}"})
        assert operator.json()["decisions"] == [entry | {"mine": False}]
        everything = client.get("/audit", headers={"Authorization": f"Bearer {OPERATOR}"})
        assert everything.status_code == 200 and everything.text == "".join(jsonl(desk.storage.recorded()))
        assert client.get("/audit", headers=token(ALICE)).status_code in (401, 403)


def test_a_mailed_link_answers_through_the_link_channel_and_is_recorded_as_the_link(tmp_path, ledger, smtp):  # noqa: F811
    inbox, port = smtp
    later = Later()
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk, serving(later) as base:
        minted: list[Any] = []
        mail = Mail(mail_config(port), {}, channel_cards(desk), lambda pause: minted[0].mint(pause))
        later.app = app = make_app(desk, on_interrupt=Channels([mail]), public_url=base)
        minted.append(app.state.links)
        turn = httpx.post(f"{base}/threads/mailed/messages", json={"text": "charge 40 to order 4411"}, timeout=10)
        [pause] = turn.json()["waiting"]
        [(_, message)] = inbox.got
        approve, skip, _ = hrefs(parts(message)[1])
        assert httpx.post(approve, timeout=10).status_code == 200
        assert httpx.post(approve, timeout=10).status_code == 409  # used once
        assert httpx.post(skip, timeout=10).status_code == 409  # the pause was answered

        history = desk.history(pause["thread"])
        entry = the(desk.storage, pause["thread"], history)
        expect(
            entry,
            decision="approve",
            outcome="taken",
            channel="link",
            shown=shown(pause),
            runs={"tool": "charge_card", "as_shown": True},
            token=digest(pause["token"]),
        )
        assert entry["by"] == {
            "issuer": LINK_ISSUER,
            "subject": f"{pause['id']}:approve",
            "name": None,
            "verified": "link",
        }
        assert len(ledger("charge")) == 1


def test_a_slack_click_is_recorded_as_the_slack_user_and_a_refused_click_is_not(served, ledger):  # noqa: F811
    shop = served(FINANCE_FOR_LARGE)
    [pause] = shop.turn(LARGE)["waiting"]
    message = shop.slack.message()
    assert shop.click(message, "approve", SLACK_MALLORY).status_code == 200
    eventually(lambda: shop.told(SLACK_MALLORY))
    assert shop.desk.storage.record(pause["thread"]) == []
    assert shop.click(message, "approve", SLACK_FIONA).status_code == 200
    eventually(lambda: ledger("charge") and shop.desk.storage.record(pause["thread"]))

    history = shop.desk.history(pause["thread"])
    assert [(h["by"], h["outcome"]) for h in history][-1] == ("Fiona Walsh", "taken")
    entry = the(shop.desk.storage, pause["thread"], history)
    expect(
        entry,
        decision="approve",
        outcome="taken",
        by={"issuer": "slack:T0SHOP", "subject": SLACK_FIONA, "name": "Fiona Walsh", "verified": "slack"},
        channel="slack",
        rules=["finance-large"],
        runs={"tool": "charge_card", "as_shown": True},
        shown=shown(pause),
    )
    assert [c["amount"] for c in ledger("charge")] == [1500]


def test_the_langgraph_door_records_its_answers_over_http_and_from_python(tmp_path, monkeypatch):
    """Over HTTP the door's answers come by the same route as the desk's (channel ``http``); from Python, by
    ``GraphDoor.resume`` (channel ``langgraph``)."""
    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver

    from stalwart_agents.http.app import door_app
    from stalwart_agents.langchain.server import GraphDoor

    from .langgraph_shop import build_chat_graph

    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    door = GraphDoor(build_chat_graph(InMemorySaver()), storage="memory://")
    with serving(door_app(door)) as base:
        turn = httpx.post(f"{base}/threads/g/messages", json={"text": "charge my order"}, timeout=30).json()
        [ask] = turn["waiting"]
        body = {"interrupt_id": ask["id"], "decision": "answer", "token": ask["token"], "value": "4411"}
        [confirm] = httpx.post(f"{base}/threads/g/resume", json=body, timeout=30).json()["waiting"]
    thread = confirm["thread"]
    with pytest.raises(InterruptStale):
        door.resume(thread, confirm["id"], "approve", "guessed")
    assert door.resume(thread, confirm["id"], "approve", confirm["token"]).status == "done"
    with pytest.raises(InterruptStale):
        door.resume(thread, confirm["id"], "approve", confirm["token"])

    history = [body for _, body in door.storage.events(thread) if body["type"] == "answer"]
    # the door's log keeps the answers taken alone; the refused ones left nothing, in the record either
    assert [(h["decision"], h["outcome"]) for h in history] == [("answer", "taken"), ("approve", "taken")]
    kept = recorded(door.storage, thread)
    taken = [h for h in history if h["outcome"] == "taken"]
    fields = ("pause", "decision", "at", "token", "channel", "kind", "tool")
    assert [tuple(e[f] for f in fields) for e in kept] == [tuple(h[f] for f in fields) for h in taken]
    asked, approved = kept
    for entry, pause in ((asked, ask), (approved, confirm)):
        expect(entry, outcome="taken", rules=[], approvals=None, edits=[], shown=shown(pause))
    anonymous = {"issuer": "stalwart:none", "subject": "anonymous", "name": None, "verified": "none"}
    expect(asked, kind="ask", value="4411", channel="http", by=anonymous, token=digest(ask["token"]))
    expect(
        approved,
        kind="confirm",
        tool="charge_card",
        channel="langgraph",
        by=NOBODY,
        runs={"tool": "charge_card", "as_shown": True},
        token=digest(confirm["token"]),
    )
    assert {"name": "order_id", "value": "4411", "origin": "computed"} in approved["shown"]["arguments"]
    door.storage.close()


# --- stalwart audit ---------------------------------------------------------------------------------------------


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "stalwart_agents", "audit", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_stalwart_audit_exports_the_record_exactly_and_finds_an_entry_changed_in_the_database(tmp_path, ledger):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    with Desk.from_file(SHOP, storage=url) as desk:
        for thread, decision in (("one", "approve"), ("two", "skip"), ("one", "cancel_all")):
            [pause] = desk.send(thread, "charge 40 to order 4411").waiting
            desk.confirm(thread, decision, pause.id, token=pause.token, by=FORMULA if thread == "two" else "ana")
        everything = desk.storage.recorded()
    assert [(e["thread"], e["seq"], e["decision"]) for e in everything] == [
        ("one", 1, "approve"),
        ("two", 1, "skip"),
        ("one", 2, "cancel_all"),
    ]

    exported = audit("export", "--storage", url)
    assert exported.returncode == 0, exported.stderr
    assert [json.loads(line) for line in exported.stdout.splitlines()] == everything
    assert exported.stdout == "".join(jsonl(everything))

    table = audit("export", "--storage", url, "--format", "csv")
    assert table.returncode == 0, table.stderr
    rows = list(csv.reader(io.StringIO(table.stdout)))
    assert rows[0] == list(COLUMNS) and len(rows) == 1 + len(everything)
    by_row = [dict(zip(COLUMNS, row, strict=True)) for row in rows[1:]]
    assert [(r["thread"], r["seq"], r["decision"], r["digest"]) for r in by_row] == [
        (e["thread"], str(e["seq"]), e["decision"], e["digest"]) for e in everything
    ]
    assert by_row[1]["by_subject"] == "'" + FORMULA and by_row[0]["by_subject"] == "ana"
    assert not any(cell.startswith("=") for row in rows for cell in row)

    verified = audit("verify", "--storage", url)
    assert verified.returncode == 0, verified.stderr
    assert "3 decisions in 2 threads, intact" in verified.stdout

    path = tmp_path / "runs.db"
    with sqlite3.connect(path) as db:
        [(body,)] = db.execute("SELECT body FROM decisions WHERE thread = 'one' AND seq = 1").fetchall()
        changed = json.loads(body) | {"decision": "skip"}
        db.execute("UPDATE decisions SET body = ? WHERE thread = 'one' AND seq = 1", (json.dumps(changed),))
    broken = audit("verify", "--storage", url)
    assert broken.returncode == 1
    assert "thread one, entry 1: changed since it was written" in broken.stderr
    assert "BROKEN" in broken.stdout and "thread two" not in broken.stderr
    stored = open_storage(url)
    try:
        assert not verify(stored).intact and verify(stored, "two").intact
    finally:
        stored.close()


def test_the_record_is_kept_apart_from_the_log_so_a_thread_without_decisions_has_none(desk):
    desk.send("lookup", "look up order 4411")
    assert desk.storage.record("lookup") == [] and desk.storage.record_head("lookup") is None
