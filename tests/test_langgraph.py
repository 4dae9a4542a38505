"""The LangGraph door: a real graph and a real SqliteSaver, served with tokens, claims and webhooks."""

import httpx
import pytest

pytest.importorskip("langgraph")

from stalwart_agents import InterruptStale, Webhook
from stalwart_agents.langchain.server import GraphDoor

from .langgraph_shop import build_graph, sqlite_saver
from .server import receiving, serving


@pytest.fixture
def shop(tmp_path, monkeypatch):
    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    graph = build_graph(sqlite_saver(str(tmp_path / "checkpoints.db")))
    return graph, tmp_path


def charges(folder):
    ledger = folder / "ledger.jsonl"
    return ledger.read_text().splitlines() if ledger.exists() else []


def test_an_interrupt_before_a_tool_call_is_a_pause_with_langgraphs_id_and_a_token(shop):
    graph, folder = shop
    server = GraphDoor(graph, storage=f"sqlite:///{folder / 'runs.db'}")
    graph.invoke({"order_id": "4411"}, {"configurable": {"thread_id": "u-17"}})
    [pause] = server.interrupts("u-17")
    [interrupt] = graph.get_state({"configurable": {"thread_id": "u-17"}}).interrupts
    assert pause.id == interrupt.id and (pause.kind, pause.tool) == ("confirm", "charge_card")
    assert {"name": "amount", "value": 40, "origin": "result:look_up"} in pause.arguments
    assert server.interrupts("u-17") == [pause]

    with pytest.raises(InterruptStale):
        server.resume("u-17", pause.id, "approve", "not-the-token")
    assert server.resume("u-17", pause.id, "approve", pause.token).waiting == []
    assert charges(folder) == ['{"charge": "4411"}']
    with pytest.raises(InterruptStale):
        server.resume("u-17", pause.id, "approve", pause.token)
    assert len(charges(folder)) == 1


def test_each_interrupt_is_posted_signed_to_the_webhook(shop):
    graph, folder = shop
    with receiving("whsec-lg") as receiver:
        server = GraphDoor(
            graph, storage=f"sqlite:///{folder / 'runs.db'}", on_interrupt=Webhook(receiver.url, "whsec-lg")
        )
        graph.invoke({"order_id": "4411"}, {"configurable": {"thread_id": "u-17"}})
        [pause] = server.interrupts("u-17")
        server.interrupts("u-17")
    assert [delivery["interrupt"]["id"] for delivery in receiver.got] == [pause.id]


def test_several_pending_interrupts_are_answered_by_id_and_the_others_stay_open(tmp_path):
    import sqlite3
    from typing import TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt

    class State(TypedDict, total=False):
        charged: str
        mailed: str

    def charge(state):
        return {"charged": interrupt({"tool": "charge_card", "arguments": {"amount": 40}})}

    def mail(state):
        return {"mailed": interrupt({"tool": "send_receipt", "arguments": {"to": "c-208"}})}

    builder = StateGraph(State)
    builder.add_node("charge", charge)
    builder.add_node("mail", mail)
    builder.add_edge(START, "charge")
    builder.add_edge(START, "mail")
    builder.add_edge("charge", END)
    builder.add_edge("mail", END)
    graph = builder.compile(checkpointer=SqliteSaver(sqlite3.connect(str(tmp_path / "c.db"), check_same_thread=False)))
    server = GraphDoor(graph, storage=f"sqlite:///{tmp_path / 'runs.db'}")
    graph.invoke({}, {"configurable": {"thread_id": "side"}})
    charge_pause, mail_pause = sorted(server.interrupts("side"), key=lambda p: p.tool)
    assert {charge_pause.tool, mail_pause.tool} == {"charge_card", "send_receipt"}

    assert server.resume("side", mail_pause.id, "skip", mail_pause.token).waiting == [charge_pause]
    assert server.resume("side", charge_pause.id, "approve", charge_pause.token).waiting == []
    assert graph.get_state({"configurable": {"thread_id": "side"}}).values == {"charged": "approve", "mailed": "skip"}


def test_the_door_works_over_an_in_memory_checkpointer_and_streams_its_pauses(tmp_path, monkeypatch):
    from langgraph.checkpoint.memory import InMemorySaver

    from stalwart_agents.langchain.server import langgraph_app

    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    graph = build_graph(InMemorySaver())
    graph.invoke({"order_id": "4411"}, {"configurable": {"thread_id": "m"}})
    with serving(langgraph_app(graph, storage="memory://")) as base:
        [pause] = httpx.get(f"{base}/threads/m/interrupts").json()["waiting"]
        received = b""
        try:
            with httpx.stream("GET", f"{base}/threads/m/stream", timeout=1) as answer:
                for chunk in answer.iter_bytes():
                    received += chunk
        except httpx.ReadTimeout:
            pass
        done = httpx.post(
            f"{base}/threads/m/resume",
            json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]},
        )
    assert b"event: pause" in received and pause["id"].encode() in received
    assert done.json()["waiting"] == [] and charges(tmp_path) == ['{"charge": "4411"}']


def test_webhook_is_importable_from_the_doors_module_as_the_chapter_places_it():
    from stalwart_agents.langchain import server

    assert server.Webhook is Webhook and "Webhook" in server.__all__


@pytest.fixture
def chat(tmp_path, monkeypatch):
    """A chat graph's door, and what each of its store's commits carried, in order."""
    from .langgraph_shop import build_chat_graph

    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    server = GraphDoor(build_chat_graph(sqlite_saver(str(tmp_path / "checkpoints.db"))), storage="memory://")
    committed, commit = [], server.storage.commit

    def counted(changes):
        committed.append(sorted(name for name, value in vars(changes).items() if value not in (None, [], {})))
        return commit(changes)

    monkeypatch.setattr(server.storage, "commit", counted)
    return server, committed


def test_a_cycle_is_four_commits_the_pause_kept_with_the_hold_let_go_and_the_claim_with_its_record(chat):
    """A turn begins its run held and owned, and keeps its pause (with the event) in the commit that lets the hold
    go; an answer's claim holds the thread and writes its decision record's entry in one commit, then lets it go."""
    server, committed = chat
    [pause] = server.send("t", "charge order 4411").waiting
    assert server.resume("t", pause.id, "approve", pause.token).text == "Charged order 4411: ch-4411."
    assert committed == [
        ["begin", "owner"],
        ["events", "pauses", "run", "version"],
        ["claim", "events", "run", "version"],
        ["run", "version"],
    ]
    [(_, decided)] = [(n, e) for n, e in server.events("t") if e["type"] == "answer"]
    assert decided["pause"] == pause.id


def test_a_pause_a_reader_registered_first_is_the_one_the_turn_shows_and_its_hold_is_let_go(chat):
    """A read while the turn still holds the thread registers the interrupt first: the turn's own pause loses (one
    pause, one token), the hold is let go on its own, and the turn shows the reader's pause."""
    server, _ = chat
    commit = server.storage.commit

    def read_first(changes):
        if changes.pauses and changes.run is not None:
            server.interrupts("t")
        return commit(changes)

    server.storage.commit = read_first
    [pause] = server.send("t", "charge order 4411").waiting
    assert server.interrupts("t") == [pause]
    assert [e["type"] for _, e in server.events("t")].count("pause") == 1
    assert server.resume("t", pause.id, "approve", pause.token).waiting == []


def test_a_turn_whose_hold_was_taken_meanwhile_still_registers_its_pause(chat, caplog):
    """The hold ran out and another request took the thread before the turn let it go: nothing the turn staged is
    lost, its pause is registered as a read registers it."""
    server, _ = chat
    commit = server.storage.commit

    def taken_meanwhile(changes):
        if changes.pauses and changes.run is not None:
            stored = server.storage.get_run(changes.run.id)
            commit(type(changes)(run=stored.replace(lease_owner=None, lease_until=None), version=stored.version))
        return commit(changes)

    server.storage.commit = taken_meanwhile
    [pause] = server.send("t", "charge order 4411").waiting
    assert "ran out before its graph ended" in caplog.text
    assert server.interrupts("t") == [pause]
    assert server.resume("t", pause.id, "approve", pause.token).waiting == []


def test_each_request_reads_the_graphs_state_once_and_takes_the_state_a_run_left_from_the_run(chat, monkeypatch):
    """A turn reads the checkpoint before it runs the graph (what waits there refuses the turn) and an answer before
    it claims (the interrupt's value); the reply and the pauses come from the state the run returned."""
    server, _ = chat
    reads, get_state = [], server.graph.get_state

    def counted(config, *args, **kwargs):
        reads.append(config["configurable"]["thread_id"])
        return get_state(config, *args, **kwargs)

    monkeypatch.setattr(server.graph, "get_state", counted)
    [pause] = server.send("t", "charge order 4411").waiting
    assert reads == ["t"]
    assert server.interrupts("t") == [pause]
    reads.clear()
    done = server.resume("t", pause.id, "approve", pause.token)
    assert reads == ["t"]
    assert (done.text, done.waiting, [step.tool for step in done.steps]) == (
        "Charged order 4411: ch-4411.",
        [],
        ["charge_card"],
    )


def test_a_graph_whose_output_leaves_its_messages_out_still_replies_with_them(tmp_path, monkeypatch):
    """The reply is read from the whole state, as the checkpoint keeps it, not from what the graph outputs."""
    from typing import TypedDict

    from langgraph.graph import END, START, MessagesState, StateGraph

    from .langgraph_shop import model, tools

    class Shop(MessagesState):
        orders: int

    class Outcome(TypedDict):
        orders: int

    def counted(state: Shop) -> dict:
        return {**model(state), "orders": state.get("orders", 0) + 1}

    monkeypatch.setenv("LANGGRAPH_LEDGER", str(tmp_path / "ledger.jsonl"))
    builder = StateGraph(Shop, output_schema=Outcome)
    builder.add_node("model", counted)
    builder.add_node("tools", tools)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", lambda state: "tools" if state["messages"][-1].tool_calls else END)
    builder.add_edge("tools", "model")
    server = GraphDoor(builder.compile(checkpointer=sqlite_saver(str(tmp_path / "c.db"))), storage="memory://")

    [pause] = server.send("t", "charge order 4411").waiting
    assert (pause.tool, pause.arguments[1]["value"]) == ("charge_card", "4411")
    done = server.resume("t", pause.id, "approve", pause.token)
    assert (done.text, [step.result for step in done.steps]) == ("Charged order 4411: ch-4411.", ["ch-4411"])


def test_an_interrupt_inside_a_subgraph_is_the_turns_pause_and_its_answer_ends_the_graph(tmp_path):
    """What a run returned names the interrupts its subgraphs stopped on, as the checkpoint does."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt

    class Order(TypedDict, total=False):
        said: str
        charged: str

    def charge(state: Order) -> Order:
        return {"charged": interrupt({"tool": "charge_card", "arguments": {"order_id": state["said"]}})}

    inner = StateGraph(Order)
    inner.add_node("charge", charge)
    inner.add_edge(START, "charge")
    inner.add_edge("charge", END)
    outer = StateGraph(Order)
    outer.add_node("checkout", inner.compile())
    outer.add_edge(START, "checkout")
    outer.add_edge("checkout", END)
    graph = outer.compile(checkpointer=sqlite_saver(str(tmp_path / "c.db")))
    server = GraphDoor(
        graph, storage="memory://", turn=lambda text: {"said": text}, reply=lambda values: values.get("charged", "")
    )

    [pause] = server.send("t", "4411").waiting
    [interrupt_] = graph.get_state({"configurable": {"thread_id": "t"}}).interrupts
    assert (pause.id, pause.tool, pause.arguments[0]["value"]) == (interrupt_.id, "charge_card", "4411")
    done = server.resume("t", pause.id, "approve", pause.token)
    assert (done.text, done.waiting) == ("approve", [])
