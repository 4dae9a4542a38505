"""The LangGraph door's cycle against plain LangGraph, on the same graph and the same kind of checkpointer.

One cycle is one new thread: a turn whose graph proposes a charge and stops on
``interrupt()`` before it, then the approval that runs it.  Plain LangGraph is
run as its documentation shows (invoke, read ``__interrupt__``, invoke
``Command(resume=...)``); the door runs the same graph through ``GraphDoor``
in this process (``send``, then ``resume`` with the pause's token), which adds
the pause registered with its token, the claim, the hold on the thread and the
reply built from the state.  Each side has its own SqliteSaver file (or
InMemorySaver with ``--memory``); the door's claims go to a SQLite store.  Runs
are interleaved (door, plain, door, plain ...); printed: the load average, the
median cycles per second of each, and the ratio of their times per cycle.

    python bench/langgraph_door.py [--cycles 200] [--runs 5] [--memory]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from stalwart_agents.langchain.server import GraphDoor

THREADS = itertools.count()


def model(state: MessagesState) -> dict[str, Any]:
    last = state["messages"][-1]
    if last.type == "tool":
        return {"messages": [AIMessage(f"Charged: {last.content}.")]}
    order_id = str(last.content).rsplit(" ", 1)[-1]
    call = {"name": "charge_card", "args": {"order_id": order_id, "amount": 40}, "id": f"call_{order_id}"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def tools(state: MessagesState) -> dict[str, Any]:
    asked = state["messages"][-1]
    assert isinstance(asked, AIMessage)
    [call] = asked.tool_calls
    decision = interrupt({"tool": call["name"], "arguments": call["args"]})
    result = f"ch-{call['args']['order_id']}" if decision == "approve" else "not charged"
    return {"messages": [ToolMessage(result, tool_call_id=call["id"], name=call["name"])]}


def build_graph(checkpointer: Any) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", lambda state: "tools" if state["messages"][-1].tool_calls else END)
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=checkpointer)


def saver(folder: Path, name: str, memory: bool) -> Any:
    if memory:
        return InMemorySaver()
    connection = sqlite3.connect(folder / f"{name}.db", check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(connection)


def plain_cycle(graph: Any) -> None:
    thread = {"configurable": {"thread_id": f"plain-{next(THREADS)}"}}
    paused = graph.invoke({"messages": [("user", f"charge order {next(THREADS)}")]}, thread)
    [pending] = paused["__interrupt__"]
    done = graph.invoke(Command(resume={pending.id: "approve"}), thread)
    assert done["messages"][-1].content.startswith("Charged"), done


def door_cycle(server: GraphDoor) -> None:
    thread = f"door-{next(THREADS)}"
    [pause] = server.send(thread, f"charge order {next(THREADS)}").waiting
    done = server.resume(thread, pause.id, "approve", pause.token)
    assert done.text.startswith("Charged") and done.waiting == [], done


def rate(cycle: Callable[[], None], cycles: int) -> float:
    began = time.perf_counter()
    for _ in range(cycles):
        cycle()
    return cycles / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="InMemorySaver on both sides, memory:// for the door")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        plain = build_graph(saver(Path(folder), "plain", options.memory))
        store = "memory://" if options.memory else f"sqlite:///{Path(folder) / 'runs.db'}"
        server = GraphDoor(build_graph(saver(Path(folder), "door", options.memory)), storage=store)
        sides: dict[str, Callable[[], None]] = {"door": lambda: door_cycle(server), "plain": lambda: plain_cycle(plain)}
        for cycle in sides.values():  # warm both up, unmeasured
            rate(cycle, 10)
        rates: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(options.runs):
            for name, cycle in sides.items():
                rates[name].append(rate(cycle, options.cycles))
    checkpointer = "InMemorySaver" if options.memory else "SqliteSaver (WAL)"
    print(f"load average: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    print(f"checkpointer: {checkpointer}; cycles per run: {options.cycles}, runs: {options.runs}, interleaved")
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, median in medians.items():
        print(f"{name:6}: {median:8.1f} cycles/s (median; runs {', '.join(f'{r:.1f}' for r in rates[name])})")
    print(f"door / plain time per cycle = {medians['plain'] / medians['door']:.2f}")


if __name__ == "__main__":
    main()
