"""The LangGraph door whole, over HTTP, on InMemorySaver, SqliteSaver and PostgresSaver: a turn, an ask, a
confirmation, the operator's rollback, and a node that fails after it took an answer: it may have paid, so a
person is asked whether it happened, and nothing (not the same answer again, not a read, not a second process)
sends the payment again by itself."""

import contextlib
import os
import subprocess
import sys
import threading
import time
import uuid
from functools import partial

import httpx
import pytest

pytest.importorskip("langgraph")

from stalwart_agents import Webhook
from stalwart_agents.langchain.server import langgraph_app

from .conftest import ROOT
from .langgraph_shop import build_chat_graph, postgres_saver, sqlite_saver
from .server import at_once, free_port, receiving, serving, wait_until_healthy

OPERATOR = "op-token-for-tests"
REPLY_KEYS = {"thread", "reply", "steps", "waiting", "refusals", "rollback", "not_notified"}


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def places(request, tmp_path, monkeypatch):
    """Where the graph checkpoints and where the door keeps its claims: (checkpointer, store URL)."""
    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    if request.param == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver(), "memory://"
    elif request.param == "sqlite":
        yield sqlite_saver(str(tmp_path / "checkpoints.db")), f"sqlite:///{tmp_path / 'runs.db'}"
    else:
        url = request.getfixturevalue("postgres_cluster").create_database(f"lg_{uuid.uuid4().hex}")
        saver = postgres_saver(url)
        yield saver, url
        saver.conn.close()


@pytest.fixture
def door(places):
    saver, store = places
    with serving(langgraph_app(build_chat_graph(saver), storage=store, operator_token=OPERATOR)) as base:
        yield base


def charges(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    return ledger.read_text().splitlines() if ledger.exists() else []


def say(base, thread, text):
    return httpx.post(f"{base}/threads/{thread}/messages", json={"text": text}, timeout=30)


def answer(base, thread, pause, decision="approve", value=None):
    body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"], "value": value}
    return httpx.post(f"{base}/threads/{thread}/resume", json=body, timeout=30)


def test_a_turn_runs_the_graph_and_pauses_before_its_tool_call_then_the_approval_runs_it(door, tmp_path):
    turn = say(door, "t1", "charge order 4411")
    assert turn.status_code == 200 and set(turn.json()) == REPLY_KEYS
    [pause] = turn.json()["waiting"]
    assert (pause["kind"], pause["tool"]) == ("confirm", "charge_card")
    assert {"name": "order_id", "value": "4411", "origin": "computed", "label": "order_id"} in pause["arguments"]
    assert turn.json()["steps"] == [] and charges(tmp_path) == []

    refused = say(door, "t1", "and order 4412")
    assert refused.status_code == 409 and refused.json()["error"] == "run_waiting"
    assert [w["id"] for w in refused.json()["waiting"]] == [pause["id"]]

    done = answer(door, "t1", pause).json()
    assert done["reply"]["text"] == "Charged order 4411: ch-4411." and done["reply"]["id"].startswith("m_")
    [step] = done["steps"]
    assert (step["tool"], step["status"], step["result"]) == ("charge_card", "done", "ch-4411")
    assert {"name": "amount", "value": 40, "origin": "model"} in step["arguments"]
    assert (done["waiting"], done["refusals"], done["rollback"], done["not_notified"]) == ([], [], None, [])
    assert charges(tmp_path) == ['{"charge": "4411"}']

    again = say(door, "t1", "charge order 4412").json()
    assert again["waiting"][0]["arguments"][1]["value"] == "4412" and again["steps"] == []


def test_an_ask_shows_its_question_and_takes_its_value(door, tmp_path):
    [ask] = say(door, "t2", "charge my order").json()["waiting"]
    assert (ask["kind"], ask["question"], ask["answers"]) == ("ask", "Which order should I charge?", ["answer"])
    assert answer(door, "t2", ask, "answer").status_code == 400
    [confirm] = answer(door, "t2", ask, "answer", "4411").json()["waiting"]
    assert {"name": "order_id", "value": "4411", "origin": "computed", "label": "order_id"} in confirm["arguments"]


def test_the_rollback_route_takes_only_the_operator_token_and_cancels_what_waits_through_the_graph(door, tmp_path):
    [pause] = say(door, "t3", "charge order 4411").json()["waiting"]
    rollback = f"{door}/threads/t3/rollback"
    assert httpx.post(rollback).status_code == 403
    wrong = httpx.post(rollback, headers={"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "forbidden" and OPERATOR not in wrong.text
    done = httpx.post(rollback, headers={"Authorization": f"Bearer {OPERATOR}"})
    assert done.status_code == 200 and set(done.json()) == REPLY_KEYS
    assert done.json()["rollback"] == {"reason": "operator", "status": "complete", "undone": [], "not_undone": []}
    assert done.json()["reply"]["text"] == "Nothing was charged: the charge was cancelled."
    assert done.json()["waiting"] == [] and charges(tmp_path) == []
    assert answer(door, "t3", pause).json()["error"] == "interrupt_stale"


def test_without_an_operator_token_the_rollback_route_is_off(places):
    saver, store = places
    with serving(langgraph_app(build_chat_graph(saver), storage=store)) as base:
        say(base, "t4", "charge order 4411")
        off = httpx.post(f"{base}/threads/t4/rollback", headers={"Authorization": "Bearer anything"})
    assert off.status_code == 403 and "rollback route is off" in off.json()["message"]


def unknown_of(reply):
    """The one pause a reply waits on, which must ask whether charge_card happened."""
    [unknown] = reply["waiting"]
    assert unknown["kind"] == "outcome_unknown" and unknown["tool"] == "charge_card"
    assert unknown["answers"] == ["happened", "did_not_happen"]
    return unknown


def test_a_node_that_pays_then_raises_asks_a_person_and_nothing_sends_the_payment_again(door, tmp_path, monkeypatch):
    monkeypatch.setenv("LANGGRAPH_PAID_THEN_FAILED", str(tmp_path / "paid-then-failed"))
    [pause] = say(door, "t5", "charge order 4411").json()["waiting"]
    taken = answer(door, "t5", pause)
    assert taken.status_code == 200 and charges(tmp_path) == ['{"charge": "4411"}']
    unknown = unknown_of(taken.json())
    assert "TimeoutError" in unknown["reasons"][0] and unknown["arguments"] == pause["arguments"]

    assert answer(door, "t5", pause).json()["error"] == "interrupt_stale"
    assert httpx.get(f"{door}/threads/t5/interrupts").json()["waiting"] == [unknown]
    refused = say(door, "t5", "thanks")
    assert refused.json()["error"] == "run_waiting" and refused.json()["waiting"] == [unknown]
    assert charges(tmp_path) == ['{"charge": "4411"}']

    settled = answer(door, "t5", unknown, "happened")
    assert settled.status_code == 200 and settled.json()["waiting"] == []
    assert answer(door, "t5", unknown, "did_not_happen").json()["error"] == "interrupt_stale"
    assert say(door, "t5", "thanks").status_code == 200
    assert charges(tmp_path) == ['{"charge": "4411"}']


def test_a_person_who_says_it_did_not_happen_runs_the_node_again_once(door, tmp_path, monkeypatch):
    monkeypatch.setenv("LANGGRAPH_FAIL_ONCE", str(tmp_path / "failed-once"))
    [pause] = say(door, "t6", "charge order 4411").json()["waiting"]
    unknown = unknown_of(answer(door, "t6", pause).json())
    assert httpx.get(f"{door}/threads/t6/interrupts").json()["waiting"] == [unknown] and charges(tmp_path) == []
    retried = answer(door, "t6", unknown, "did_not_happen")
    assert retried.status_code == 200 and retried.json()["reply"]["text"] == "Charged order 4411: ch-4411."
    assert answer(door, "t6", unknown, "did_not_happen").json()["error"] == "interrupt_stale"
    assert answer(door, "t6", pause, "skip").json()["error"] == "interrupt_stale"
    assert charges(tmp_path) == ['{"charge": "4411"}']


def test_a_node_declared_safe_to_rerun_takes_its_kept_answer_on_the_next_write_never_on_a_read(
    places, tmp_path, monkeypatch
):
    monkeypatch.setenv("LANGGRAPH_FAIL_ONCE", str(tmp_path / "failed-once"))
    saver, store = places
    app = langgraph_app(build_chat_graph(saver), storage=store, rerun=["tools"])
    with serving(app) as base:
        [pause] = say(base, "t7", "charge order 4411").json()["waiting"]
        failed = answer(base, "t7", pause)
        assert failed.status_code == 503 and failed.json()["error"] == "graph_failed"
        assert "ConnectionError" in failed.json()["message"]
        assert httpx.get(f"{base}/threads/t7/interrupts").json()["waiting"] == [] and charges(tmp_path) == []
        retried = answer(base, "t7", pause)
        assert retried.status_code == 200 and retried.json()["reply"]["text"] == "Charged order 4411: ch-4411."
        assert answer(base, "t7", pause).json()["error"] == "interrupt_stale"
        [next_pause] = say(base, "t7", "charge order 4412").json()["waiting"]
    assert next_pause["arguments"][1]["value"] == "4412" and charges(tmp_path) == ['{"charge": "4411"}']


def test_a_webhook_that_fails_is_listed_under_not_notified_and_the_pause_still_waits(places):
    saver, store = places
    with receiving("whsec-lg") as receiver:
        receiver.status = 503
        hook = Webhook(receiver.url, "whsec-lg")
        with serving(langgraph_app(build_chat_graph(saver), storage=store, on_interrupt=hook)) as base:
            turn = say(base, "t8", "charge order 4411").json()
            read = httpx.get(f"{base}/threads/t8/interrupts").json()
    [pause] = turn["waiting"]
    assert [missed["interrupt"] for missed in turn["not_notified"]] == [pause["id"]]
    assert read["waiting"] == [pause] and [m["interrupt"] for m in read["not_notified"]] == [pause["id"]]


@contextlib.contextmanager
def two_processes(where, tmp_path, request, **env):
    """Two uvicorn processes serving the team's application over one checkpointer and one store."""
    if where == "postgres":
        checkpoints = runs = request.getfixturevalue("postgres_cluster").create_database(f"lg_{uuid.uuid4().hex}")
        postgres_saver(checkpoints).conn.close()  # the tables, before two processes set them up at once
    else:
        checkpoints, runs = str(tmp_path / "checkpoints.db"), f"sqlite:///{tmp_path / 'runs.db'}"
    env = {
        **os.environ,
        "LANGGRAPH_CHECKPOINTS": checkpoints,
        "LANGGRAPH_RUNS": runs,
        "LANGGRAPH_LEDGER": str(tmp_path / "ledger.jsonl"),
        **env,
    }
    servers = []
    try:
        for _ in range(2):
            port = free_port()
            command = [sys.executable, "-m", "uvicorn", "tests.langgraph_shop:app", "--port", str(port)]
            command += ["--log-level", "warning"]
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            servers.append((process, f"http://127.0.0.1:{port}"))
        for _, base in servers:
            wait_until_healthy(base)
        yield [(process, f"{base}/agent") for process, base in servers]
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=10)


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_two_uvicorn_processes_racing_one_answer_run_it_once(where, tmp_path, request):
    with two_processes(where, tmp_path, request) as [(_, first), (_, second)]:
        for n in range(4):
            thread = f"race-{n}"
            [pause] = say(first, thread, f"charge order 44{n}").json()["waiting"]
            assert httpx.get(f"{second}/threads/{thread}/interrupts").json()["waiting"] == [pause]
            answers = at_once(*(partial(answer, base, thread, pause) for base in (first, second)))
            assert sorted(a.status_code for a in answers) == [200, 409]
    assert len(charges(tmp_path)) == 4


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_a_payment_that_raised_is_made_once_whichever_process_is_asked_again(where, tmp_path, request):
    """Both processes answer at once, the winner's node pays and raises; then the same answer and a read reach the
    other process: one payment, and one outcome_unknown pause that a person answers on either."""
    marker = str(tmp_path / "paid-then-failed")
    with two_processes(where, tmp_path, request, LANGGRAPH_PAID_THEN_FAILED=marker) as [(_, first), (_, second)]:
        [pause] = say(first, "t", "charge order 4411").json()["waiting"]
        answers = at_once(*(partial(answer, base, "t", pause) for base in (first, second)))
        assert sorted(a.status_code for a in answers) == [200, 409]
        unknown = unknown_of(next(a for a in answers if a.status_code == 200).json())
        for base in (first, second):
            assert answer(base, "t", pause).json()["error"] == "interrupt_stale"
            assert httpx.get(f"{base}/threads/t/interrupts").json()["waiting"] == [unknown]
        assert charges(tmp_path) == ['{"charge": "4411"}']
        settled = at_once(*(partial(answer, base, "t", unknown, "happened") for base in (first, second)))
        assert sorted(a.status_code for a in settled) == [200, 409]
        assert httpx.get(f"{first}/threads/t/interrupts").json()["waiting"] == []
    assert charges(tmp_path) == ['{"charge": "4411"}']


def test_a_graph_slower_than_the_hold_keeps_its_thread_and_its_answer_runs_once():
    """The hold is renewed while the graph runs: a request meanwhile neither resumes the answer again nor runs it."""
    import threading
    import time
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt

    from stalwart_agents.langchain.server import GraphDoor

    ran = []

    class State(TypedDict, total=False):
        done: int

    def charge(state: State) -> State:
        if interrupt({"tool": "charge", "arguments": {"amount": 40}}) == "approve":
            time.sleep(1.5)
            ran.append("charge")
        return {"done": len(ran)}

    builder = StateGraph(State)
    builder.add_node("charge", charge)
    builder.add_edge(START, "charge")
    builder.add_edge("charge", END)
    server = GraphDoor(
        builder.compile(checkpointer=InMemorySaver()), storage="memory://", hold_seconds=0.5, turn=lambda text: {}
    )
    server.send("t", "charge 40")
    [pause] = server.interrupts("t")
    resumed = []
    worker = threading.Thread(target=lambda: resumed.append(server.resume("t", pause.id, "approve", pause.token)))
    worker.start()
    time.sleep(0.8)
    assert server.interrupts("t") == []
    worker.join()
    assert [reply.status for reply in resumed] == ["done"] and ran == ["charge"]


def answered_or_cut_off(base, thread, pause):
    """An answer whose worker may be killed before it replies."""
    with contextlib.suppress(httpx.HTTPError):
        answer(base, thread, pause)


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_a_worker_killed_after_its_node_paid_leaves_a_question_not_a_second_payment(where, tmp_path, request):
    """The process giving the graph an answer is killed mid-node, after the payment: once its hold runs out, the
    other process asks a person whether it happened, and a person's answer there settles it with one payment."""
    hung = {"LANGGRAPH_PAID_THEN_HUNG": str(tmp_path / "hung"), "LANGGRAPH_HOLD_SECONDS": "1"}
    with two_processes(where, tmp_path, request, **hung) as [(worker, first), (_, second)]:
        [pause] = say(first, "t", "charge order 4411").json()["waiting"]
        answering = threading.Thread(target=partial(answered_or_cut_off, first, "t", pause))
        answering.start()
        deadline = time.monotonic() + 30
        while not charges(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert httpx.get(f"{second}/threads/t/interrupts").json()["waiting"] == []  # the worker still holds it
        worker.kill()
        worker.wait(timeout=10)
        time.sleep(1.5)
        [unknown] = httpx.get(f"{second}/threads/t/interrupts").json()["waiting"]
        assert unknown["kind"] == "outcome_unknown" and "worker" in unknown["reasons"][0]
        assert answer(second, "t", pause).json()["error"] == "interrupt_stale"
        assert answer(second, "t", unknown, "happened").status_code == 200
        assert httpx.get(f"{second}/threads/t/interrupts").json()["waiting"] == []
        answering.join(timeout=10)
    assert charges(tmp_path) == ['{"charge": "4411"}']
