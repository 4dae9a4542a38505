"""The LangGraph door's cycle against plain LangGraph, on the same graph and the same kind of checkpointer.

One cycle is one new thread: a turn whose graph proposes a charge and stops on
``interrupt()`` before it, then the approval that runs it.  Plain LangGraph is
run as its documentation shows (invoke, read ``__interrupt__``, invoke
``Command(resume=...)``); the door runs the same graph through ``GraphDoor``
in this process (``send``, then ``resume`` with the pause's token), which adds
the pause registered with its token, the claim, the hold on the thread and the
reply built from the state.  Each side has its own SqliteSaver file (WAL, FULL;
or InMemorySaver with ``--memory``); the door's claims go to a SQLite store
(``memory://`` with ``--memory``).  Runs are interleaved (door, plain, door,
plain ...); printed: the load average, the door's commits to its store per
cycle, the median cycles per second and CPU time per cycle of each (the CPU of
the whole process, LangGraph's threads too: on a loaded machine it moves far
less than the rates), and the medians of the rounds' ratios of both.

With ``--package`` (repeated: a stalwart_agents folder each, to compare
checkouts) every package runs in a process of its own, and the processes take
their turns in rotating blocks, each block a door run and a plain run; printed
besides, for each package after the first, the medians of the rounds' ratios
of its door's time and CPU per cycle to the first's.

With ``--parts`` the door's cycle is split, in this process, into the graph's
runs, its state read back, the store's commits, the store's reads and the door's
own Python (the rest), in CPU milliseconds a cycle, beside plain LangGraph's whole
cycle, and the number of times each is called.

    python bench/langgraph_door.py [--cycles 200] [--runs 5] [--memory] [--package DIR ...]
    python bench/langgraph_door.py --parts [--cycles 500] [--memory]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sqlite3
import statistics
import subprocess
import sys
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

import stalwart_agents
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
    connection.execute("PRAGMA synchronous=FULL")
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


Measured = tuple[float, float]
"""A run's cycles per second, and its process's CPU milliseconds per cycle (every thread's: LangGraph's pool too)."""
Round = tuple[Measured, Measured]
"""A door run and a plain run, one after the other."""


def rate(cycle: Callable[[], None], cycles: int) -> Measured:
    began, cpu = time.perf_counter(), time.process_time()
    for _ in range(cycles):
        cycle()
    return cycles / (time.perf_counter() - began), (time.process_time() - cpu) * 1000 / cycles


def commits_per_cycle(server: GraphDoor, cycles: int = 20) -> float:
    """The door's writes to its store per cycle, each one transaction: its commits and its side tables' writes."""
    store, counted = server.storage, [0]
    writes = [name for name in WRITES if hasattr(store, name)]
    for name in writes:
        setattr(store, name, counting(getattr(store, name), counted))
    try:
        for _ in range(cycles):
            door_cycle(server)
    finally:
        for name in writes:
            delattr(store, name)
    return counted[0] / cycles


WRITES = ("commit", "own", "secret", "rate_message", "note_delivery", "claim_wake", "set_wake", "claim_delivery")
"""Every method of the storage protocols that writes, each in a transaction of its own."""


def counting(write: Callable[..., Any], counted: list[int]) -> Callable[..., Any]:
    def counted_write(*args: Any, **kwargs: Any) -> Any:
        counted[0] += 1
        return write(*args, **kwargs)

    return counted_write


def parts(server: GraphDoor, cycles: int) -> dict[str, tuple[float, float]]:
    """Where the door's cycle goes: each part's CPU milliseconds a cycle (``time.process_time``, every thread's) and
    calls a cycle; a call made inside another part's call is that part's (a read inside a commit is the commit's)."""
    spent: dict[str, tuple[float, int]] = {}
    inside = [False]

    def timed(call: Callable[..., Any], part: str) -> Callable[..., Any]:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            if inside[0]:
                return call(*args, **kwargs)
            inside[0], began = True, time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                inside[0] = False
                seconds, calls = spent.get(part, (0.0, 0))
                spent[part] = (seconds + time.process_time() - began, calls + 1)

        return timed_call

    graph, store = server.graph, server.storage
    reads = [name for name in dir(type(store)) if not name.startswith("_") and callable(getattr(store, name))]
    wrapped = [(graph, "invoke", "the graph's runs (invoke)"), (graph, "get_state", "its state read (get_state)")]
    wrapped += [(store, name, "commits to the store" if name in WRITES else "reads of the store") for name in reads]
    for target, name, part in wrapped:
        setattr(target, name, timed(getattr(target, name), part))
    try:
        began = time.process_time()
        for _ in range(cycles):
            door_cycle(server)
        total = time.process_time() - began
    finally:
        for target, name, _ in wrapped:
            delattr(target, name)
    spent["the door's own Python (the rest)"] = (total - sum(seconds for seconds, _ in spent.values()), 0)
    return {part: (seconds * 1000 / cycles, calls / cycles) for part, (seconds, calls) in spent.items()}


class Sides:
    """The door and plain LangGraph, each on its own checkpointer, in this process."""

    def __init__(self, folder: Path, memory: bool) -> None:
        self.plain = build_graph(saver(folder, "plain", memory))
        store = "memory://" if memory else f"sqlite:///{folder / 'runs.db'}"
        self.server = GraphDoor(build_graph(saver(folder, "door", memory)), storage=store)
        for cycle in (self.door, self.plain_cycle):  # warm both up, unmeasured
            rate(cycle, 10)
        self.commits = commits_per_cycle(self.server)

    def door(self) -> None:
        door_cycle(self.server)

    def plain_cycle(self) -> None:
        plain_cycle(self.plain)

    def block(self, cycles: int) -> Round:
        """A door run, then a plain run."""
        return rate(self.door, cycles), rate(self.plain_cycle, cycles)


def serve(memory: bool) -> None:
    """A package's worker: a block for each number of cycles read from stdin, its rates written to stdout."""
    with tempfile.TemporaryDirectory() as folder:
        sides = Sides(Path(folder), memory)
        print(json.dumps({"commits": sides.commits, "package": stalwart_agents.__file__}), flush=True)
        for line in sys.stdin:
            print(json.dumps(sides.block(int(line))), flush=True)


class Worker:
    """A process running the cycles with one package."""

    def __init__(self, package: Path, memory: bool) -> None:
        env = {**os.environ, "PYTHONPATH": str(package.parent)}
        command = [sys.executable, __file__, "--serve"] + (["--memory"] if memory else [])
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        started = self._read()
        self.commits: float = started["commits"]
        self.package: str = str(Path(started["package"]).parent)

    def block(self, cycles: int) -> Round:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{cycles}\n")
        self.process.stdin.flush()
        (door, door_cpu), (plain, plain_cpu) = self._read()
        return (door, door_cpu), (plain, plain_cpu)

    def _read(self) -> Any:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def show_parts(cycles: int, memory: bool) -> None:
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory() as folder:
        sides = Sides(Path(folder), memory)
        split = parts(sides.server, cycles)
        plain = rate(sides.plain_cycle, cycles)[1]
    print(f"load average after: {load()}")
    checkpointer = "InMemorySaver, memory://" if memory else "SqliteSaver (WAL, FULL), SQLite"
    print(f"{stalwart_agents.__file__}; {checkpointer}; {cycles} cycles, CPU ms a cycle")
    for part, (ms, calls) in sorted(split.items(), key=lambda item: -item[1][0]):
        print(f"  {part:36s} {ms:6.3f}" + (f"  ({calls:g} calls)" if calls else ""))
    print(f"  {'the door, whole':36s} {sum(ms for ms, _ in split.values()):6.3f}")
    print(f"  {'plain LangGraph, whole, just after':36s} {plain:6.3f}")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def report(label: str, commits: float, rounds: list[Round]) -> None:
    print(f"{label}door commits to its store per cycle: {commits:g}")
    for name, side in (("door ", 0), ("plain", 1)):
        rates, cpu = [r[side][0] for r in rounds], statistics.median(r[side][1] for r in rounds)
        runs = ", ".join(f"{rate:.1f}" for rate in rates)
        print(f"{label}{name} : {statistics.median(rates):8.1f} cycles/s, CPU {cpu:.2f} ms/cycle (median; runs {runs})")
    ratio = statistics.median(plain[0] / door[0] for door, plain in rounds)
    cpu_ratio = statistics.median(door[1] / plain[1] for door, plain in rounds)
    print(f"{label}door / plain time per cycle = {ratio:.2f}, CPU = {cpu_ratio:.2f} (medians of the rounds' ratios)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="InMemorySaver on both sides, memory:// for the door")
    parser.add_argument("--package", type=Path, action="append", help="a stalwart_agents folder (repeat to compare)")
    parser.add_argument("--parts", action="store_true", help="where the door's cycle goes, in this process")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.memory)
        return
    if options.parts:
        show_parts(options.cycles, options.memory)
        return
    checkpointer = "InMemorySaver" if options.memory else "SqliteSaver (WAL, FULL)"
    print(f"load average before: {load()}")
    print(f"checkpointer: {checkpointer}; cycles per run: {options.cycles}, runs: {options.runs}, interleaved")
    if not options.package:
        with tempfile.TemporaryDirectory() as folder:
            sides = Sides(Path(folder), options.memory)
            rounds = [sides.block(options.cycles) for _ in range(options.runs)]
        print(f"load average after: {load()}")
        report("", sides.commits, rounds)
        return
    packages = [package.resolve() for package in options.package]
    workers = [Worker(package, options.memory) for package in packages]
    measured: list[list[Round]] = [[] for _ in workers]
    for turn in range(options.runs):
        for n in range(len(workers)):  # a rotating start, so no package always runs first
            index = (turn + n) % len(workers)
            measured[index].append(workers[index].block(options.cycles))
    for worker in workers:
        worker.close()
    print(f"load average after: {load()}")
    for n, (worker, rounds) in enumerate(zip(workers, measured, strict=True), 1):
        print(f"[{n}] = {worker.package}")
        report(f"[{n}] ", worker.commits, rounds)
    for n, rounds in enumerate(measured[1:], 2):
        pairs = [(door, first[0]) for (door, _), first in zip(rounds, measured[0], strict=True)]
        ratio = statistics.median(before[0] / after[0] for after, before in pairs)
        cpu_ratio = statistics.median(after[1] / before[1] for after, before in pairs)
        print(f"[{n}] / [1] door time per cycle = {ratio:.2f}, CPU = {cpu_ratio:.2f} (medians of the rounds' ratios)")


if __name__ == "__main__":
    main()
