"""Where one pause -> approve -> result cycle goes, in process: a profile by part, per cycle.

Each cycle is bench/pause_cycle.py's (a new thread, order id and amount).  After warming up, cProfile records
``--cycles`` cycles and each function's own time is put in one part: the durable COMMITs (and their BEGINs), the
other SQL statements, encoding JSON, decoding it, the engine, the stores' Python, reading the turn and the rules,
and the rest.  cProfile slows Python calls more than C ones, so the engine's share reads high; the statements,
encodes and commits per cycle are counted, not sampled.  The load average is printed.

    python bench/cycle_profile.py [--storage sqlite|memory] [--cycles 500]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pause_cycle import ORDERS_AGENT, cycles
from stalwart_agents import Desk
from stalwart_agents.storage.sqlite import SqliteStorage

PARTS = (
    ("COMMIT and BEGIN", lambda file, name, caller: name.startswith("<method 'execute'") and "_transaction" in caller),
    ("other SQL", lambda file, name, caller: "sqlite3" in name or "psycopg" in file),
    ("JSON encode", lambda file, name, caller: file.endswith(("json/encoder.py",)) or "c_make_encoder" in name),
    ("JSON decode", lambda file, name, caller: file.endswith(("json/decoder.py", "json/__init__.py"))),
    ("reading (selector, rules)", lambda file, name, caller: "/reading/" in file),
    ("engine", lambda file, name, caller: "/engine/" in file),
    ("stores' Python", lambda file, name, caller: "/storage/" in file),
)


def part_of(file: str, name: str, caller: str) -> str:
    return next((part for part, holds in PARTS if holds(file, name, caller)), "the rest")


def profile(desk: Desk, count: int) -> Counter[str]:
    """Seconds of own time by part over ``count`` cycles."""
    profiler = cProfile.Profile()
    profiler.enable()
    cycles(desk, count)
    profiler.disable()
    seconds: Counter[str] = Counter()
    for (file, _, name), (_, _, own, _, callers) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        if name.startswith("<method 'execute'") and callers:
            for (_, _, caller), (_, _, caller_own, _) in callers.items():
                seconds[part_of(file, name, caller)] += caller_own
        else:
            seconds[part_of(file, name, "")] += own
    return seconds


def counted(desk: Desk, count: int) -> dict[str, float]:
    """Statements and write transactions per cycle, from the statements SQLite runs."""
    storage = desk.storage
    if not isinstance(storage, SqliteStorage):
        return {}
    statements: list[str] = []
    connection: sqlite3.Connection = storage._connection()
    connection.set_trace_callback(statements.append)
    cycles(desk, count)
    connection.set_trace_callback(None)
    kinds = Counter(statement.split(None, 1)[0].upper() for statement in statements)
    return {kind: times / count for kind, times in kinds.most_common()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--storage", choices=("sqlite", "memory"), default="sqlite")
    parser.add_argument("--cycles", type=int, default=500)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        url = "memory://" if args.storage == "memory" else f"sqlite:///{folder}/runs.db"
        desk = Desk.from_file(ORDERS_AGENT, storage=url)
        cycles(desk, 100)
        started = time.perf_counter()
        cycles(desk, args.cycles)
        rate = args.cycles / (time.perf_counter() - started)
        seconds = profile(desk, args.cycles)
        statements = counted(desk, 50)
    total = sum(seconds.values())
    print(f"load average after : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.storage}: {1000 / rate:.3f} ms a cycle unprofiled ({rate:.0f} cycles/s); profiled, by part:")
    for part, own in seconds.most_common():
        print(f"  {part:28} {1000 * own / args.cycles:7.3f} ms  {100 * own / total:5.1f}%")
    if statements:
        print("statements per cycle: " + ", ".join(f"{kind} {count:g}" for kind, count in statements.items()))


if __name__ == "__main__":
    main()
