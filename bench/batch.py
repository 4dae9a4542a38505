"""Batch answers: 100 approvals in one ``POST /interrupts/answers`` against the same 100 sent one by one.

Each round opens 200 charge confirms of the shop (examples/shop) on a served desk (real uvicorn on 127.0.0.1,
SQLite in WAL with ``synchronous=FULL``, no sign-in), one a thread, then approves 100 of them in one request
(**batch**) and the other 100 with a ``POST /threads/{id}/resume`` each (**singles**, the fair floor: the same
claims, the same commits, the same guarantees), the order rotating round by round.  In process, the same
with ``Desk.answer_many`` against ``Desk.confirm`` one by one, and, as the peer, LangGraph resuming 100
interrupted graphs (a node that calls ``interrupt()``, then "charges") one ``Command(resume=...)`` each on its
SqliteSaver, which has no batch across threads.  Printed per round and as medians: milliseconds per 100
answers, the median of per-round ratios (batch / singles), and the load average before and after.  Every
charge is counted, so each variant is checked to have run exactly its 100.

    python bench/batch.py [--rounds 7] [--answers 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from stalwart_agents import BatchAnswer, Desk

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.server import serving  # noqa: E402

SHOP = ROOT / "examples" / "shop" / "agent.yaml"


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def charges() -> int:
    path = Path(os.environ["STALWART_SHOP_LEDGER"])
    return sum(1 for line in path.read_text().splitlines() if '"charge"' in line)


def opened(desk: Desk, prefix: str, n: int) -> list[tuple[str, str, str]]:
    """``n`` charge confirms, one a thread: (thread, pause id, token)."""
    found = []
    for i in range(n):
        [pause] = desk.send(f"{prefix}-{i}", "charge 40 to order 4411").waiting
        found.append((pause.thread, pause.id, pause.token))
    return found


def timed(run: Callable[[], object], expected: int) -> float:
    before = charges()
    start = time.perf_counter()
    run()
    elapsed = (time.perf_counter() - start) * 1000
    assert charges() - before == expected, "each answer runs its charge exactly once"
    return elapsed


def over_http(client: httpx.Client, pauses: list[tuple[str, str, str]], batch: bool) -> None:
    if batch:
        body = {"answers": [{"interrupt_id": p, "token": t, "decision": "approve"} for _, p, t in pauses]}
        answered = client.post("/interrupts/answers", json=body).json()["answers"]
        assert all(a["status"] == 200 for a in answered)
        return
    for thread, pause, token in pauses:
        one = {"interrupt_id": pause, "token": token, "decision": "approve"}
        assert client.post(f"/threads/{thread}/resume", json=one).status_code == 200


def in_process(desk: Desk, pauses: list[tuple[str, str, str]], batch: bool) -> None:
    if batch:
        given = [BatchAnswer(p, t, "approve") for _, p, t in pauses]
        assert all(o["status"] == 200 for o in desk.answer_many(given))
        return
    for thread, pause, token in pauses:
        desk.confirm(thread, "approve", pause, token=token)


def peer(folder: Path, n: int, round_: int) -> Callable[[], None]:
    """LangGraph's graphs, each interrupted before its charge; resuming them is what is timed."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, interrupt
    from typing_extensions import TypedDict

    sys.path.insert(0, str(ROOT / "examples" / "shop"))
    from tools import record  # type: ignore[import-not-found]

    class State(TypedDict):
        amount: int

    def charge(state: State) -> State:
        if interrupt({"tool": "charge_card", "arguments": {"amount": state["amount"]}}) == "approve":
            record("charge", order_id="4411", amount=state["amount"])
        return state

    builder = StateGraph(State)
    builder.add_node("charge", charge)
    builder.add_edge(START, "charge")
    builder.add_edge("charge", END)
    connection = sqlite3.connect(folder / f"graph-{round_}.db", check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    graph = builder.compile(checkpointer=SqliteSaver(connection))
    configs: list[Any] = [{"configurable": {"thread_id": f"g{round_}-{i}"}} for i in range(n)]
    for config in configs:
        graph.invoke(State(amount=40), config)

    def resume() -> None:
        for config in configs:
            graph.invoke(Command(resume="approve"), config)

    return resume


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--answers", type=int, default=100)
    args = parser.parse_args()
    n = args.answers
    folder = Path(tempfile.mkdtemp(prefix="stalwart-batch-"))
    os.environ["STALWART_SHOP_LEDGER"] = str(folder / "ledger.jsonl")
    (folder / "ledger.jsonl").touch()
    print(f"load average before: {load()}")
    rows: dict[str, list[float]] = {k: [] for k in ("http batch", "http singles", "desk batch", "desk singles", "peer")}
    with (
        Desk.from_file(SHOP, storage=f"sqlite:///{folder / 'runs.db'}") as desk,
        serving(_app(desk)) as base,
        httpx.Client(base_url=base, timeout=60) as client,
    ):
        for round_ in range(args.rounds):
            variants: list[tuple[str, Callable[[], object]]] = []
            for name, batch in (("http batch", True), ("http singles", False)):
                pauses = opened(desk, f"{name}-{round_}".replace(" ", "-"), n)
                variants.append((name, partial(over_http, client, pauses, batch)))
            for name, batch in (("desk batch", True), ("desk singles", False)):
                pauses = opened(desk, f"{name}-{round_}".replace(" ", "-"), n)
                variants.append((name, partial(in_process, desk, pauses, batch)))
            variants.append(("peer", peer(folder, n, round_)))
            shift = round_ % len(variants)
            for name, run in variants[shift:] + variants[:shift]:
                rows[name].append(timed(run, n))
            print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1]:.0f} ms" for k, v in rows.items()))
    print(f"\nmilliseconds per {n} answers (median of {args.rounds} rounds):")
    for name, values in rows.items():
        print(f"  {name:13s} {statistics.median(values):8.1f}")
    for label, a, b in (
        ("http batch / singles", "http batch", "http singles"),
        ("desk batch / singles", "desk batch", "desk singles"),
        ("http batch / peer", "http batch", "peer"),
    ):
        ratios = [x / y for x, y in zip(rows[a], rows[b], strict=True)]
        print(f"  {label:22s} {statistics.median(ratios):.2f} (median of per-round ratios)")
    print(f"load average after: {load()}")


def _app(desk: Desk) -> Any:
    from stalwart_agents.serve import make_app

    return make_app(desk)


if __name__ == "__main__":
    main()
