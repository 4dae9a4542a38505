"""The same shop flow both ways: stalwart-agents on SQLite, and LangGraph with interrupt() over SqliteSaver.

One cycle: a turn that looks an order up and pauses before charging it, then the
approval that charges it.  Ours is a Desk on a SQLite file; LangGraph's is a
two-node graph whose charge node calls interrupt(), resumed with
Command(resume=...), over langgraph-checkpoint-sqlite's SqliteSaver.  Both files
use WAL; both run in this process.  Printed: median cycles per second of several
runs, the ratio of their times, and the bytes each stores per paused run.

    python bench/langgraph_compare.py [--cycles 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from stalwart_agents import Desk

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
sys.path.insert(0, str(ROOT))

from bench.pause_cycle import cycles_per_second  # noqa: E402
ORDERS = {"4411": {"order_id": "4411", "customer": "c-208", "card": "visa-0019", "status": "unpaid", "total": "40.00"}}


class Order(TypedDict, total=False):
    order_id: str
    order: dict
    charge: dict


def look_up(state: Order) -> Order:
    return {"order": dict(ORDERS[state["order_id"]])}


def charge(state: Order) -> Order:
    decision = interrupt({"tool": "charge_card", "arguments": {"order_id": state["order_id"], "amount": 40}})
    return {"charge": {"amount": "40", "charge_id": f"ch-{state['order_id']}", "order_id": state["order_id"]} if decision == "approve" else {}}


def langgraph_shop(path: Path):
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    builder = StateGraph(Order)
    builder.add_node("look_up", look_up)
    builder.add_node("charge", charge)
    builder.add_edge(START, "look_up")
    builder.add_edge("look_up", "charge")
    builder.add_edge("charge", END)
    return builder.compile(checkpointer=SqliteSaver(connection))


def theirs(graph, cycles: int, prefix: str) -> float:
    started = time.perf_counter()
    for n in range(cycles):
        config = {"configurable": {"thread_id": f"{prefix}-{n}"}}
        graph.invoke({"order_id": "4411"}, config)
        [pending] = graph.get_state(config).interrupts
        graph.invoke(Command(resume={pending.id: "approve"}), config)
    return cycles / (time.perf_counter() - started)


def bytes_per_paused_run(path: Path, pause) -> float:
    """The file's pages in use, per paused run, after pausing 100 runs (WAL checkpointed first)."""
    pause(100)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    used = connection.execute("PRAGMA page_count").fetchone()[0] - connection.execute("PRAGMA freelist_count").fetchone()[0]
    size = used * connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    return size / 100


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        desk = Desk.from_file(SHOP, storage=f"sqlite:///{folder}/ours.db")
        graph = langgraph_shop(Path(folder) / "theirs.db")
        our_rates, their_rates = [], []
        for run in range(args.runs):
            our_rates.append(cycles_per_second(desk, args.cycles, f"o{run}"))
            their_rates.append(theirs(graph, args.cycles, f"t{run}"))
        sized_desk = Desk.from_file(SHOP, storage=f"sqlite:///{folder}/ours-size.db")
        sized_graph = langgraph_shop(Path(folder) / "theirs-size.db")

        def pause_ours(count: int) -> None:
            for n in range(count):
                sized_desk.send(f"s-{n}", "look up order 4411 and charge 40 to order 4411")

        def pause_theirs(count: int) -> None:
            for n in range(count):
                sized_graph.invoke({"order_id": "4411"}, {"configurable": {"thread_id": f"s-{n}"}})

        our_bytes = bytes_per_paused_run(Path(folder) / "ours-size.db", pause_ours)
        their_bytes = bytes_per_paused_run(Path(folder) / "theirs-size.db", pause_theirs)
    our_rate, their_rate = statistics.median(our_rates), statistics.median(their_rates)
    print(f"stalwart-agents (SQLite)     : {our_rate:7.1f} cycles/s (median of {args.runs} x {args.cycles})")
    print(f"LangGraph (SqliteSaver)      : {their_rate:7.1f} cycles/s")
    print(f"time per cycle, ours/theirs  : {their_rate / our_rate:.2f}")
    print(f"bytes per paused run         : ours {our_bytes:,.0f}, theirs {their_bytes:,.0f} (ratio {our_bytes / their_bytes:.2f})")


if __name__ == "__main__":
    main()
