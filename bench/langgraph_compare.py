"""The same shop flow both ways: stalwart-agents on SQLite, and LangGraph with interrupt() over SqliteSaver.

One cycle: a turn that looks an order up and pauses before charging it, then the
approval that charges it.  Every cycle uses a new order id and amount, so no
cache sees the same values twice.  Ours is a Desk on a SQLite file (the agent of
bench/orders, where every order id exists); LangGraph's is a two-node graph
whose charge node calls interrupt(), resumed with Command(resume=...), over
langgraph-checkpoint-sqlite's SqliteSaver, run as its documentation shows
(invoke, read ``__interrupt__`` from the result, invoke again; the default
durability).  Both files use WAL with synchronous=FULL; both run in this
process, interleaved in blocks, which goes first rotating (ours theirs, theirs
ours, ...).  Printed: the load average, the median cycles per second of each,
the median of the per-run ratios of their times per cycle, and the bytes one
more paused run adds to each file, ours by table and index (SQLite's dbstat)
and by JSON column.

    python bench/langgraph_compare.py [--cycles 200] [--runs 5]
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
from typing import Any, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from stalwart_agents import Desk

ORDERS_AGENT = Path(__file__).resolve().parent / "orders" / "agent.yaml"
ORDER_IDS = itertools.count(100_000)


def next_order() -> tuple[str, int]:
    """A new order id, and an amount that varies with it (1 to 400, so the check's rule never refuses)."""
    number = next(ORDER_IDS)
    return str(number), number % 400 + 1


class Order(TypedDict, total=False):
    order_id: str
    amount: int
    order: dict
    charge: dict


def look_up(state: Order) -> Order:
    order_id = state["order_id"]
    return {
        "order": {"order_id": order_id, "customer": "c-208", "card": "visa-0019", "status": "unpaid", "total": "40.00"}
    }


def charge(state: Order) -> Order:
    decision = interrupt(
        {"tool": "charge_card", "arguments": {"order_id": state["order_id"], "amount": state["amount"]}}
    )
    if decision != "approve":
        return {}
    return {
        "charge": {
            "amount": str(state["amount"]),
            "charge_id": f"ch-{state['order_id']}",
            "order_id": state["order_id"],
        }
    }


def langgraph_shop(path: Path) -> Any:
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    builder = StateGraph(Order)
    builder.add_node("look_up", look_up)
    builder.add_node("charge", charge)
    builder.add_edge(START, "look_up")
    builder.add_edge("look_up", "charge")
    builder.add_edge("charge", END)
    return builder.compile(checkpointer=SqliteSaver(connection))


def our_cycles(desk: Desk, cycles: int, prefix: str) -> float:
    started = time.perf_counter()
    for n in range(cycles):
        thread = f"{prefix}-{n}"
        order_id, amount = next_order()
        reply = desk.send(thread, f"look up order {order_id} and charge {amount} to order {order_id}")
        pause = reply.waiting[0]
        done = desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)
        assert done.status == "done", done
    return cycles / (time.perf_counter() - started)


def their_cycles(graph: Any, cycles: int, prefix: str) -> float:
    started = time.perf_counter()
    for n in range(cycles):
        config = {"configurable": {"thread_id": f"{prefix}-{n}"}}
        order_id, amount = next_order()
        paused = graph.invoke({"order_id": order_id, "amount": amount}, config)
        assert paused["__interrupt__"]
        done = graph.invoke(Command(resume="approve"), config)
        assert done["charge"]["order_id"] == order_id
    return cycles / (time.perf_counter() - started)


def used_bytes(path: Path) -> int:
    """The file's pages in use, the WAL checkpointed into it first."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = (
        connection.execute("PRAGMA page_count").fetchone()[0]
        - connection.execute("PRAGMA freelist_count").fetchone()[0]
    )
    size = int(pages * connection.execute("PRAGMA page_size").fetchone()[0])
    connection.close()
    return size


JSON_COLUMNS = (
    ("runs", "state"),
    ("pauses", "payload"),
    ("events", "body"),
    ("journal", "arguments"),
    ("journal", "result"),
)
"""Our columns that hold the engine's JSON, whose bytes per paused run are printed."""


def where_it_goes(path: Path) -> dict[str, int]:
    """Bytes in use per table and index (SQLite's dbstat), and the bytes of each JSON column's values (ours)."""
    connection = sqlite3.connect(path)
    used = dict(connection.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall())
    for table, column in (json for json in JSON_COLUMNS if json[0] in used):
        total = connection.execute(f"SELECT COALESCE(SUM(LENGTH({column})), 0) FROM {table}").fetchone()[0]
        used[f"{table}.{column} (JSON text)"] = total
    connection.close()
    return used


def bytes_per_paused_run(
    path: Path, pause: Callable[[int, int], None], first: int = 1000, then: int = 2000
) -> tuple[float, dict[str, float]]:
    """What one more paused run adds to the file: its growth from ``first`` paused runs to ``first + then``, per run,
    so the pages every file has however few runs it keeps (each table's and index's first) are not counted; and
    that growth per table and index, and per JSON column of ours."""
    pause(0, first)
    before, parts = used_bytes(path), where_it_goes(path)
    pause(first, first + then)
    grown = {name: (size - parts.get(name, 0)) / then for name, size in where_it_goes(path).items()}
    return (used_bytes(path) - before) / then, {name: size for name, size in grown.items() if size > 0}


def sizes(folder: Path) -> tuple[float, float, dict[str, float]]:
    desk = Desk.from_file(ORDERS_AGENT, storage=f"sqlite:///{folder}/ours-size.db")
    graph = langgraph_shop(folder / "theirs-size.db")

    def pause_ours(start: int, end: int) -> None:
        for n in range(start, end):
            order_id, amount = next_order()
            desk.send(f"s-{n}", f"look up order {order_id} and charge {amount} to order {order_id}")

    def pause_theirs(start: int, end: int) -> None:
        for n in range(start, end):
            order_id, amount = next_order()
            graph.invoke({"order_id": order_id, "amount": amount}, {"configurable": {"thread_id": f"s-{n}"}})

    ours, where = bytes_per_paused_run(folder / "ours-size.db", pause_ours)
    theirs, _ = bytes_per_paused_run(folder / "theirs-size.db", pause_theirs)
    return ours, theirs, where


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        desk = Desk.from_file(ORDERS_AGENT, storage=f"sqlite:///{folder}/ours.db")
        graph = langgraph_shop(folder / "theirs.db")
        our_cycles(desk, 20, "warm")
        their_cycles(graph, 20, "warm")
        ours, theirs = [], []
        for run in range(args.runs):
            for side in ("ours", "theirs") if run % 2 == 0 else ("theirs", "ours"):  # which goes first rotates
                if side == "ours":
                    ours.append(our_cycles(desk, args.cycles, f"o{run}"))
                else:
                    theirs.append(their_cycles(graph, args.cycles, f"t{run}"))
            print(
                f"  run {run + 1}: ours {ours[-1]:7.1f}/s  theirs {theirs[-1]:7.1f}/s"
                f"  ratio {theirs[-1] / ours[-1]:.2f}"
            )
        our_bytes, their_bytes, where = sizes(folder)
    our_rate, their_rate = statistics.median(ours), statistics.median(theirs)
    ratio = statistics.median(their / our for our, their in zip(ours, theirs, strict=True))
    print(f"load average after : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"stalwart-agents (SQLite)     : {our_rate:7.1f} cycles/s (median of {args.runs} x {args.cycles}, interleaved)"
    )
    print(f"LangGraph (SqliteSaver)      : {their_rate:7.1f} cycles/s")
    print(f"time per cycle, ours/theirs  : {ratio:.2f} (median of per-run ratios; target <= 0.2)")
    print(
        f"bytes per paused run         : ours {our_bytes:,.0f}, theirs {their_bytes:,.0f}"
        f" (ratio {our_bytes / their_bytes:.2f}; target <= 0.5)"
    )
    print("where ours go, per paused run (pages of each table and index; the JSON columns' text within them):")
    for name, size in sorted(where.items(), key=lambda item: -item[1]):
        print(f"  {name:34s} {size:7.1f}")


if __name__ == "__main__":
    main()
