"""Pause -> approve -> result cycles per second, in process.

Each cycle is one thread: a turn that looks an order up and pauses on the
charge, then the approval that runs it, each with a new order id and amount (the
agent of bench/orders, where every order exists).  SQLite (a file, WAL,
synchronous=FULL), memory:// and the floor run in turns within each run (A B C
A B C).  Printed: the load average, the median of several runs of each, and the
ratio of SQLite's rate to the floor of the same storage work done by hand in the
same process (one conditional insert and one conditional update per SQLite
transaction, as many transactions as a cycle makes).

    python bench/pause_cycle.py [--cycles 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from stalwart_agents import Desk
from stalwart_agents.storage.sqlite import SqliteStorage

ORDERS_AGENT = Path(__file__).resolve().parent / "orders" / "agent.yaml"
ORDER_IDS = itertools.count(100_000)


def cycles_per_second(desk: Desk, cycles: int, prefix: str) -> float:
    started = time.perf_counter()
    for n in range(cycles):
        thread = f"{prefix}-{n}"
        number = next(ORDER_IDS)
        reply = desk.send(thread, f"look up order {number} and charge {number % 400 + 1} to order {number}")
        pause = reply.waiting[0]
        done = desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)
        assert done.status == "done"
    return cycles / (time.perf_counter() - started)


def transactions_per_cycle(desk: Desk) -> int:
    """How many write transactions one cycle commits, counted from the statements SQLite runs."""
    statements: list[str] = []
    storage = desk.storage
    assert isinstance(storage, SqliteStorage)
    storage._connection().set_trace_callback(statements.append)
    cycles_per_second(desk, 1, "count")
    storage._connection().set_trace_callback(None)
    return sum(1 for statement in statements if statement.startswith("BEGIN IMMEDIATE"))


def floor_per_second(path: Path, transactions: int, cycles: int) -> float:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, version INTEGER, body TEXT)")
    started = time.perf_counter()
    for n in range(cycles * transactions):
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT OR IGNORE INTO t VALUES (?, 0, ?)", (f"k{n}", "{}"))
        connection.execute("UPDATE t SET version = version + 1 WHERE id = ? AND version = 0", (f"k{n}",))
        connection.execute("COMMIT")
    connection.close()
    return cycles / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        sqlite_desk = Desk.from_file(ORDERS_AGENT, storage=f"sqlite:///{folder}/runs.db")
        memory_desk = Desk.from_file(ORDERS_AGENT, storage="memory://")
        writes = transactions_per_cycle(sqlite_desk)
        sqlite_rates, memory_rates, floor_rates = [], [], []
        for run in range(args.runs):
            sqlite_rates.append(cycles_per_second(sqlite_desk, args.cycles, f"s{run}"))
            memory_rates.append(cycles_per_second(memory_desk, args.cycles, f"m{run}"))
            floor_rates.append(floor_per_second(Path(folder) / f"floor{run}.db", writes, args.cycles))
    sqlite_rate, memory_rate, floor_rate = (statistics.median(r) for r in (sqlite_rates, memory_rates, floor_rates))
    print(f"load average after : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"cycles per run: {args.cycles}, runs: {args.runs}, write transactions per cycle on SQLite: {writes}")
    print(f"sqlite  : {sqlite_rate:8.1f} cycles/s (median)")
    print(f"memory  : {memory_rate:8.1f} cycles/s (median)")
    print(f"floor   : {floor_rate:8.1f} cycles/s (bare SQLite, {writes} conditional transactions per cycle)")
    print(f"sqlite / floor  = {sqlite_rate / floor_rate:.2f}")
    print(f"sqlite / memory = {sqlite_rate / memory_rate:.2f}")


if __name__ == "__main__":
    main()
