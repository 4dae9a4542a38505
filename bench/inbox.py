"""Inbox latency: one page of ``storage.inbox(limit=50)`` over 100,000 open pauses across 10,000 threads.

Each thread is a waiting run with ten open pauses (confirms and asks over four tools, opened over a day,
some at the same second) and, one in ten, an owner; they are written with the store's own commits, a
thread's run and its pauses in one.  Then each read is timed ``--reads`` times, interleaved, and its
p50 and p99 printed: ``Desk.inbox`` (what ``GET /interrupts`` answers) for a person who may answer nine
pauses in ten (the anonymous owner of every thread nobody signed in to) and for one who owns a single
thread (who may answer 10 of the 100,000, so each request reads its 1,000 at most); then the store's index
read alone: the first page, a deep page (strictly before the pause half way down, and the
one 99% down), and the first page filtered by tool and by kind.

    python bench/inbox.py [--threads 10000] [--pauses-per-thread 10] [--reads 300] [--backends sqlite,postgres]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stalwart_agents import Desk
from stalwart_agents.approvals.principal import ANONYMOUS, Principal
from stalwart_agents.config import load_config
from stalwart_agents.storage import Changes, PauseRecord, RunRecord, Storage, open_storage

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
KINDS = ("confirm", "confirm", "confirm", "ask")
TOOLS = ("charge_card", "send_mail", "refund", "book_room")
T0 = 1_760_000_000.0
DAY = 86_400


def populate(store: Storage, threads: int, per_thread: int) -> list[tuple[float, str]]:
    """The open pauses' positions, newest first, after writing them."""
    positions = []
    for t in range(threads):
        ids = [f"p{t:05d}.{n:02d}" for n in range(per_thread)]
        state = {"turn": f"charge 12.50 to order {t}", "waiting": ids}
        run = RunRecord(f"r{t:05d}", f"thread-{t:05d}", "shop", "waiting", state=state, created_at=T0, updated_at=T0)
        pauses = [
            PauseRecord(
                pause_id,
                run.id,
                run.thread,
                KINDS[(t + n) % len(KINDS)],
                n,
                "tok",
                _payload(pause_id, run, KINDS[(t + n) % len(KINDS)], n, TOOLS[(t * 7 + n) % len(TOOLS)]),
                created_at=T0 + float((t * 7919 + n * 104_729) % DAY),  # spread over a day, many at one second
            )
            for n, pause_id in enumerate(ids)
        ]
        store.commit(Changes(begin=run, pauses=pauses))
        if t % 10 == 0:
            store.own(run.thread, Principal("https://id.example", f"user-{t}").key)
        positions += [(pause.created_at, pause.id) for pause in pauses]
    return sorted(positions, reverse=True)


def _payload(pause_id: str, run: RunRecord, kind: str, step: int, tool: str) -> dict[str, object]:
    """A pause's JSON as the engine writes it, so the Desk reads it as any other."""
    return {
        "id": pause_id,
        "kind": kind,
        "thread": run.thread,
        "run": run.id,
        "step": step,
        "tool": tool,
        "question": "Charge 12.50 EUR?",
        "arguments": [{"name": "amount", "value": 12.5, "origin": "typed"}],
        "reasons": ["write"],
        "irreversible": False,
        "answers": ["approve", "skip", "cancel_all"] if kind == "confirm" else ["answer"],
        "created_at": "2025-10-09T09:46:40.000Z",
    }


def timed(read: Callable[[], object], reads: int) -> list[float]:
    times = []
    for _ in range(reads):
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
    return times


def measure(desk: Desk, positions: list[tuple[float, str]], reads: int) -> dict[str, list[float]]:
    store = desk.storage
    half, deep = positions[len(positions) // 2], positions[len(positions) * 99 // 100]
    owner = Principal("https://id.example", "user-0")
    cases: dict[str, Callable[[], object]] = {
        "Desk.inbox, anonymous": lambda: desk.inbox(ANONYMOUS, limit=50),
        "Desk.inbox, owns 1 thread": lambda: desk.inbox(owner, limit=50),
        "first page": lambda: store.inbox(limit=50),
        "deep page (50%)": lambda: store.inbox(before=half, limit=50),
        "deep page (99%)": lambda: store.inbox(before=deep, limit=50),
        "first page, tool=refund": lambda: store.inbox(limit=50, tool="refund"),
        "first page, kind=ask": lambda: store.inbox(limit=50, kind="ask"),
    }
    for read in cases.values():
        assert len(store.inbox(limit=50)) == 50 and read() is not None  # warm, and a page is full
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(reads // 10):  # interleaved, ten reads of each case at a time
        for name, read in cases.items():
            times[name] += timed(read, 10)
    return times


def report(name: str, times: dict[str, list[float]]) -> None:
    for case, seconds in times.items():
        cuts = statistics.quantiles(seconds, n=100)
        p50, p99 = cuts[49] * 1000, cuts[98] * 1000
        print(f"{name:8} {case:24}: p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   ({len(seconds)} reads)")


def _url(name: str, folder: Path, stack: list[Callable[[], None]]) -> str:
    if name == "sqlite":
        return f"sqlite:///{folder / 'inbox.db'}"
    sys.path.insert(0, str(ROOT))
    from tests.postgres import Cluster

    cluster = Cluster()
    cluster.start()
    stack.append(cluster.stop)
    cluster.create_database("inbox")
    return cluster.url("inbox")


def analyze(url: str) -> None:
    """Postgres plans by statistics autovacuum would gather soon after such a load; gather them now."""
    if url.startswith("postgres"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as db:
            db.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--pauses-per-thread", type=int, default=10)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in args.backends.split(","):
        stack: list[Callable[[], None]] = []
        with tempfile.TemporaryDirectory() as folder:
            try:
                url = _url(name, Path(folder), stack)
                store = open_storage(url)
                desk = Desk(load_config(SHOP), store)
                started = time.perf_counter()
                positions = populate(store, args.threads, args.pauses_per_thread)
                analyze(url)
                took = time.perf_counter() - started
                print(f"{name:8} {len(positions)} open pauses across {args.threads} threads written in {took:.0f} s")
                report(name, measure(desk, positions, args.reads))
                desk.close()
            finally:
                for stop in reversed(stack):
                    stop()
    print(f"load average after : {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
