"""Pause -> approve -> result cycles, in process: our SQLite store against memory:// and two floors.

Each cycle is one thread: a turn that looks an order up and pauses on the
charge, then the approval that runs it, each with a new order id and amount (the
agent of bench/orders, where every order exists).  The arms, each timed over a
short block of cycles, in an order that rotates round after round (A B C D, then
B C D A, ...), so a change in the machine's load falls on all of them alike:

- sqlite: a Desk on a SQLite file (WAL, synchronous=FULL);
- memory: a Desk on memory://;
- floor: the fair floor.  The writes one cycle of our SQLite store makes,
  recorded statement by statement with their parameters, replayed as the same
  BEGIN IMMEDIATE ... COMMIT transactions (WAL, synchronous=FULL) on a file of
  the same schema, with fresh ids each cycle: what the cycle's durable,
  conditional commits cost with nothing else around them;
- old floor: one tiny conditional insert and update per transaction, as many
  transactions as a cycle makes (the floor this bench printed before).

Each package's arms run in a process of their own; with ``--before PATH`` (a
checkout's ``shared`` folder) that package's arms run too, in the same rotation.
Printed: the load average, each arm's median time per cycle (and its CPU time,
which the machine's other work moves less than the wall clock), the median of the
per-round ratios (and the share of our cycle above the fair floor), the write
transactions per cycle, and what each commit of a cycle adds to the WAL.

    python bench/pause_cycle.py [--cycles 40] [--rounds 12] [--before /work/before/shared]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stalwart_agents import Desk
from stalwart_agents.storage.sqlite import SqliteStorage

ORDERS_AGENT = Path(__file__).resolve().parent / "orders" / "agent.yaml"
OURS = Path(__file__).resolve().parent.parent / "shared"
ARMS = ("sqlite", "memory", "floor", "old floor")
WARM_UP = 30
ORDER_IDS = itertools.count(100_000)
Statement = tuple[str, Mapping[str, Any]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=40, help="cycles per block")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--before", type=Path, help="another checkout's shared/ folder, run in the same rotation")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        work()
        return
    packages = {"ours": OURS, **({"before": args.before.resolve()} if args.before else {})}
    print(f"load average before: {load()}")
    workers = {name: Worker(path) for name, path in packages.items()}
    pairs = [(name, arm) for name in workers for arm in ARMS]
    times: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    cpu: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for round_ in range(args.rounds):
        shift = round_ % len(pairs)
        for name, arm in pairs[shift:] + pairs[:shift]:
            wall, used = workers[name].time(arm, args.cycles)
            times[name, arm].append(wall)
            cpu[name, arm].append(used)
    print(f"load average after : {load()}")
    print(f"blocks of {args.cycles} cycles, {args.rounds} rounds, the arms in rotating order")
    for name, worker in workers.items():
        report(name, worker, {arm: times[name, arm] for arm in ARMS}, {arm: cpu[name, arm] for arm in ARMS})
        worker.close()
    if "before" in workers:
        for arm in ARMS:
            ratio = median_ratio(times["ours", arm], times["before", arm])
            used = median_ratio(cpu["ours", arm], cpu["before", arm])
            print(f"{arm}, ours / before = {ratio:.2f}, CPU {used:.2f} (medians of per-round ratios)")


def report(name: str, worker: Worker, times: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    sqlite, memory, floor, old = (times[arm] for arm in ARMS)
    above = statistics.median((ours - bare) / ours for ours, bare in zip(sqlite, floor, strict=True))
    print(f"{name} ({worker.package}):")
    for arm in ARMS:
        wall, used = statistics.median(times[arm]) * 1000, statistics.median(cpu[arm]) * 1000
        print(f"  {arm:9s}: {wall:6.3f} ms per cycle, {used:6.3f} ms CPU (medians)")
    print(f"  write transactions per cycle on SQLite: {worker.transactions} (the fair floor replays as many)")
    print(f"  {above:.1%} of our cycle above the fair floor (median of per-round ratios; target <= 50%)")
    print(f"  sqlite / fair floor = {median_ratio(sqlite, floor):.2f}")
    print(f"  sqlite / old floor  = {median_ratio(sqlite, old):.2f} (one tiny insert+update per transaction)")
    print(f"  sqlite / memory     = {median_ratio(sqlite, memory):.2f}")
    print(f"  WAL per commit of a cycle: {worker.wal}")


def median_ratio(numerators: list[float], denominators: list[float]) -> float:
    return statistics.median(n / d for n, d in zip(numerators, denominators, strict=True))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Worker:
    """One package's arms, in a process of their own (so each imports its own package), a block at a time."""

    def __init__(self, package: Path) -> None:
        self.package = package
        environment = {**os.environ, "PYTHONPATH": str(package)}
        command = [sys.executable, __file__, "--worker"]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )
        self.transactions = int(self._line())
        self.wal = self._line()

    def time(self, arm: str, cycles: int) -> tuple[float, float]:
        """Seconds per cycle over one block of ``arm``, by the wall clock and in the worker's CPU."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{arm}\t{cycles}\n")
        self.process.stdin.flush()
        wall, used = self._line().split("\t")
        return float(wall), float(used)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker for {self.package} ended")
        return line.strip()


def work() -> None:
    """The worker: build the arms, say how many transactions a cycle commits and what they add to the WAL, then time
    a block of the arm named on each line read."""
    with tempfile.TemporaryDirectory() as name:
        arms = Arms(Path(name))
        print(arms.transactions, flush=True)
        print(arms.wal_per_commit(), flush=True)
        for line in sys.stdin:
            arm, cycles = line.split("\t")
            wall, used = arms.seconds_per_cycle(arm, int(cycles))
            print(f"{wall}\t{used}", flush=True)


class Arms:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sqlite = Desk.from_file(ORDERS_AGENT, storage=f"sqlite:///{folder}/runs.db")
        self.memory = Desk.from_file(ORDERS_AGENT, storage="memory://")
        cycles(self.sqlite, WARM_UP)
        cycles(self.memory, WARM_UP)
        self.recorded = recorded_cycle(self.sqlite)
        self.transactions = len(self.recorded)
        self.floor = Floor(folder / "floor.db", self.recorded)
        self.old_floor = OldFloor(folder / "old-floor.db", self.transactions)
        self.floor.cycles(WARM_UP)
        self.old_floor.cycles(WARM_UP)

    def seconds_per_cycle(self, arm: str, count: int) -> tuple[float, float]:
        """By the wall clock and in this process's CPU."""
        started, used = time.perf_counter(), time.process_time()
        if arm == "sqlite":
            cycles(self.sqlite, count)
        elif arm == "memory":
            cycles(self.memory, count)
        elif arm == "floor":
            self.floor.cycles(count)
        else:
            self.old_floor.cycles(count)
        return (time.perf_counter() - started) / count, (time.process_time() - used) / count

    def wal_per_commit(self) -> str:
        """What each commit of one cycle adds to the WAL file (automatic checkpoints off), in bytes and in frames
        (database pages written)."""
        storage: Any = self.sqlite.storage
        connection = storage._connection()
        wal = Path(f"{storage.path}-wal")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        page = int(connection.execute("PRAGMA page_size").fetchone()[0])
        sizes: list[int] = []
        with observed(storage, "_transaction", lambda: sizes.append(wal.stat().st_size)):
            cycles(self.sqlite, 1)
        connection.execute("PRAGMA wal_autocheckpoint = 1000")
        grown = [after - before for before, after in itertools.pairwise([0, *sizes])]
        frames = [size // (page + 24) for size in grown]
        return f"{', '.join(f'{size:,} B ({count} pages)' for size, count in zip(grown, frames, strict=True))}; " + (
            f"{sum(grown):,} B, {sum(frames)} pages a cycle"
        )


def cycles(desk: Any, count: int) -> None:
    for _ in range(count):
        number = next(ORDER_IDS)
        thread = f"t-{number}"
        reply = desk.send(thread, f"look up order {number} and charge {number % 400 + 1} to order {number}")
        pause = reply.waiting[0]
        done = desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)
        assert done.status == "done"


@contextmanager
def observed(storage: Any, name: str, after: Any) -> Iterator[None]:
    """Call ``after()`` each time one of the storage's ``name`` transactions has committed."""
    original = getattr(storage, name)

    @contextmanager
    def transaction() -> Iterator[Any]:
        with original() as db:
            yield db
        after()

    setattr(storage, name, transaction)
    try:
        yield
    finally:
        delattr(storage, name)


def recorded_cycle(desk: Any) -> list[list[Statement]]:
    """The statements that write (with their parameters) in each write transaction of one cycle of ``desk``'s
    SQLite store, as the store sends them."""
    storage: Any = desk.storage
    transactions: list[list[Statement]] = []
    execute = storage._execute
    original: Any = storage._transaction

    @contextmanager
    def transaction() -> Iterator[Any]:
        transactions.append([])
        with original() as db:
            yield db

    def recording(db: Any, statement: str, params: Mapping[str, Any]) -> Any:
        rendered = storage.dialect.render(statement)
        if not rendered.lstrip().upper().startswith("SELECT"):
            transactions[-1].append((rendered, dict(params)))
        return execute(db, statement, params)

    storage._transaction, storage._execute = transaction, recording
    try:
        cycles(desk, 1)
    finally:
        del storage._transaction, storage._execute
    return [statements for statements in transactions if statements]


class Floor:
    """The recorded transactions, replayed on a bare connection to a file of the same schema; each cycle's ids (the
    thread, the run's and the pause's) replaced by fresh ones of the same length."""

    def __init__(self, path: Path, transactions: list[list[Statement]]) -> None:
        SqliteStorage(path).setup()
        self.transactions = transactions
        self.ids = sorted(ids_of(transactions), key=len, reverse=True)
        self.fresh = itertools.count()
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode = WAL")
        self.connection.execute("PRAGMA synchronous = FULL")

    def cycles(self, count: int) -> None:
        for _ in range(count):
            renamed = self.renaming()
            for statements in self.transactions:
                self.connection.execute("BEGIN IMMEDIATE")
                for statement, params in statements:
                    self.connection.execute(statement, {k: renamed(v) for k, v in params.items()}).fetchall()
                self.connection.execute("COMMIT")

    def renaming(self) -> Any:
        n = next(self.fresh)
        fresh = {old: f"{i}{n:0{len(old) - 1}d}" for i, old in enumerate(self.ids)}

        def renamed(value: Any) -> Any:
            if not isinstance(value, str):
                return value
            for old, new in fresh.items():
                value = value.replace(old, new)
            return value

        return renamed


def ids_of(transactions: list[list[Statement]]) -> set[str]:
    """The ids a cycle's rows are kept under: its thread, its run's id and each of its pauses' ids."""
    begin = transactions[0]
    found: set[str] = set()
    for statement, params in begin:
        if statement.startswith("INSERT INTO runs"):
            found |= {params["id"], params["thread"]}
        if statement.startswith("INSERT INTO pauses"):
            found.add(params["id"])
    return found


class OldFloor:
    """One tiny conditional insert and update per transaction: the floor this bench printed before."""

    def __init__(self, path: Path, transactions: int) -> None:
        self.transactions = transactions
        self.keys = itertools.count()
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, version INTEGER, body TEXT)")

    def cycles(self, count: int) -> None:
        for _ in range(count * self.transactions):
            key = f"k{next(self.keys)}"
            self.connection.execute("BEGIN IMMEDIATE")
            self.connection.execute("INSERT OR IGNORE INTO t VALUES (?, 0, ?)", (key, "{}"))
            self.connection.execute("UPDATE t SET version = version + 1 WHERE id = ? AND version = 0", (key,))
            self.connection.execute("COMMIT")


if __name__ == "__main__":
    main()
