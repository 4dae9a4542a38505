"""Turn + resume cycles per second over HTTP against a bare FastAPI route doing one conditional insert; webhook latency.

Ours is `stalwart serve bench/orders/agent.yaml` in its own process; the baseline is a
bare FastAPI route in its own process, each request one conditional insert
(``INSERT ... ON CONFLICT DO NOTHING``) of a new key, with the request's JSON body read
by a pydantic model.  Both sides are started by the same ``uvicorn.run(app, host, port,
log_config=None, access_log=False)`` call, one worker, on the same server settings
(uvicorn's "auto" loop and HTTP parser: uvloop and httptools where installed, printed).

On SQLite both files use WAL with synchronous=FULL.  On Postgres both use one throwaway
cluster (tests/postgres.py: fsync off), each its own database, the bare route through a
psycopg pool with autocommit and no check on checkout (ours checks a connection only when
it may have broken: new, idle, or its socket readable).

A cycle is two requests, the turn that pauses on a charge and the resume that runs it,
with a new thread, order id and amount every cycle.  The issue's target compares a
cycle with one bare request: ours cycles/s over the bare route's requests/s.  Rounds
interleave every case (ours, bare, ours, bare ...); each side keeps one connection
(http.client, so the load generator's own CPU stays small on a 2-core machine) and sends
back the session the service hands out, as the interface does.  Short rounds, many of them:
on a shared machine the load drifts within a minute.  Printed:
the load average before and after, each round, the medians and their ratio.

Webhook latency is the time from sending a turn to the signed delivery of its pause
reaching a receiver on 127.0.0.1.

    python bench/http_throughput.py [--cycles 100] [--runs 10] [--no-postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import importlib.util
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from fastapi import FastAPI, Request

ROOT = Path(__file__).resolve().parent.parent
ORDERS_AGENT = ROOT / "bench" / "orders" / "agent.yaml"
sys.path.insert(0, str(ROOT))

from tests.server import free_port, serving, wait_until_healthy  # noqa: E402

SERVE = "uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[2]), log_config=None, access_log=False)"
"""How both sides are served: `stalwart serve` makes this same call (cli.py)."""

BARE_SQLITE = textwrap.dedent(f"""
    import sqlite3, sys, threading, uvicorn
    from fastapi import FastAPI
    from pydantic import BaseModel
    app, local = FastAPI(), threading.local()
    class Order(BaseModel):
        text: str
    def db():
        if not hasattr(local, "c"):
            local.c = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
            local.c.execute("PRAGMA journal_mode=WAL"); local.c.execute("PRAGMA synchronous=FULL")
            local.c.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)")
        return local.c
    @app.get("/healthz")
    def healthz(): return {{"ok": True}}
    @app.post("/insert/{{key}}")
    def insert(key: str, order: Order):
        c = db(); c.execute("BEGIN IMMEDIATE")
        done = c.execute("INSERT INTO t VALUES (?, ?) ON CONFLICT DO NOTHING", (key, order.text)).rowcount
        c.execute("COMMIT"); return {{"inserted": done}}
    {SERVE}
""")

BARE_POSTGRES = textwrap.dedent(f"""
    import sys, uvicorn
    from fastapi import FastAPI
    from psycopg_pool import ConnectionPool
    from pydantic import BaseModel
    app = FastAPI()
    pool = ConnectionPool(sys.argv[1], min_size=1, max_size=10, kwargs={{"autocommit": True}}, open=True)
    with pool.connection() as c:
        c.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)")
    class Order(BaseModel):
        text: str
    @app.get("/healthz")
    def healthz(): return {{"ok": True}}
    @app.post("/insert/{{key}}")
    def insert(key: str, order: Order):
        with pool.connection() as c:
            done = c.execute("INSERT INTO t VALUES (%s, %s) ON CONFLICT DO NOTHING", (key, order.text)).rowcount
        return {{"inserted": done}}
    {SERVE}
""")

ORDER_IDS = itertools.count(100_000)


def turn_text() -> str:
    """A turn about a new order, with an amount that varies with it (1 to 400: the check never refuses)."""
    number = next(ORDER_IDS)
    return f"look up order {number} and charge {number % 400 + 1} to order {number}"


def server_settings() -> str:
    """What uvicorn's "auto" picks in this environment, for both sides."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"uvicorn loop={loop} http={parser}, one worker each"


@contextlib.contextmanager
def running(command: list[str], port: int) -> Iterator[int]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}")
        yield process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


def ours(port: int, storage: str) -> list[str]:
    serve = [sys.executable, "-m", "stalwart_agents", "serve", str(ORDERS_AGENT), "--storage", storage]
    return [*serve, "--port", str(port)]


def bare(script: str, target: str, port: int) -> list[str]:
    return [sys.executable, "-c", script, target, str(port)]


class Client:
    """One kept-alive connection that sends back the session the service hands out, as the interface does."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.headers = {"Content-Type": "application/json"}

    def post(self, path: str, body: dict[str, object]) -> tuple[int, dict]:
        self.connection.request("POST", path, json.dumps(body), self.headers)
        answer = self.connection.getresponse()
        session = answer.getheader("Stalwart-Session")
        if session is not None:
            self.headers["Stalwart-Session"] = session
        return answer.status, json.loads(answer.read())


def cycles(port: int, count: int, prefix: str) -> float:
    """Turn + resume cycles per second, each a new thread and order."""
    client = Client(port)
    started = time.perf_counter()
    for n in range(count):
        status, reply = client.post(f"/threads/{prefix}-{n}/messages", {"text": turn_text()})
        pause = reply["waiting"][0]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        status, done = client.post(f"/threads/{prefix}-{n}/resume", body)
        if status != 200 or done["steps"][-1]["status"] != "done":
            raise RuntimeError(f"the resume did not run the charge: {status} {done}")
    rate = count / (time.perf_counter() - started)
    client.connection.close()
    return rate


def inserts(port: int, count: int, prefix: str) -> float:
    """Conditional inserts per second, each a new key."""
    client = Client(port)
    started = time.perf_counter()
    for n in range(count):
        status, done = client.post(f"/insert/{prefix}-{n}", {"text": turn_text()})
        if status != 200 or done["inserted"] != 1:
            raise RuntimeError(f"the insert did not insert: {status} {done}")
    rate = count / (time.perf_counter() - started)
    client.connection.close()
    return rate


Case = tuple[str, Callable[[int, int, str], float], int]


def interleaved(cases: list[Case], count: int, runs: int) -> dict[str, list[float]]:
    """Every case once per round, rounds one after the other: each side sees the same minutes of the machine."""
    for name, measure, port in cases:
        measure(port, 20, f"warm-{name}")
    rates: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for run in range(runs):
        for name, measure, port in cases:
            rates[name].append(measure(port, count, f"r{run}-{name}"))
        print("  round", run + 1, "  ".join(f"{name} {rates[name][-1]:7.1f}" for name, _, _ in cases), flush=True)
    return rates


def report(store: str, rates: dict[str, list[float]], count: int) -> None:
    ours_rates, bare_rates = rates[f"ours-{store}"], rates[f"bare-{store}"]
    ours_rate, bare_rate = statistics.median(ours_rates), statistics.median(bare_rates)
    in_rounds = statistics.median(o / b for o, b in zip(ours_rates, bare_rates, strict=True))
    print(f"{store:8} turn+resume cycles : {ours_rate:7.1f} /s (median of {len(ours_rates)} x {count})")
    print(f"{store:8} bare insert        : {bare_rate:7.1f} /s")
    ratio = f"{ours_rate / bare_rate:.2f} (cycles/s over bare requests/s; {in_rounds:.2f} the median of each round's)"
    print(f"{store:8} ratio              : {ratio}")


def webhook_latency(count: int, folder: Path) -> list[float]:
    from stalwart_agents import Webhook
    from stalwart_agents.serve import make_app

    arrived: dict[str, float] = {}
    receiver = FastAPI()

    @receiver.post("/hook")
    async def hook(request: Request) -> dict[str, bool]:
        arrived[(await request.json())["thread"]] = time.perf_counter()
        return {"ok": True}

    latencies = []
    with serving(receiver) as hook_url:
        webhook = Webhook(f"{hook_url}/hook", "whsec-bench")
        app = make_app(ORDERS_AGENT, storage=f"sqlite:///{folder / 'hook.db'}", on_interrupt=webhook)
        with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
            for n in range(count):
                sent = time.perf_counter()
                answer = client.post(f"/threads/w-{n}/messages", json={"text": turn_text()}).json()
                if answer.get("not_notified") or not answer.get("waiting"):
                    raise RuntimeError(f"the pause was not posted: {answer}")
                while f"w-{n}" not in arrived:
                    time.sleep(0.001)
                latencies.append(arrived[f"w-{n}"] - sent)
    return latencies


@contextlib.contextmanager
def postgres_databases() -> Iterator[tuple[str, str]]:
    from tests.postgres import Cluster

    cluster = Cluster()
    try:
        cluster.start()
        yield cluster.create_database("ours"), cluster.create_database("bare")
        cluster.stop()
    finally:
        cluster.remove()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"server settings (both sides): {server_settings()}")
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    stores = ["sqlite"] if args.no_postgres else ["sqlite", "postgres"]
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        ports = {name: free_port() for name in ("ours-sqlite", "bare-sqlite", "ours-postgres", "bare-postgres")}
        stack.enter_context(running(ours(ports["ours-sqlite"], f"sqlite:///{folder}/runs.db"), ports["ours-sqlite"]))
        bare_sqlite = bare(BARE_SQLITE, f"{folder}/bare.db", ports["bare-sqlite"])
        stack.enter_context(running(bare_sqlite, ports["bare-sqlite"]))
        if "postgres" in stores:
            ours_db, bare_db = stack.enter_context(postgres_databases())
            stack.enter_context(running(ours(ports["ours-postgres"], ours_db), ports["ours-postgres"]))
            stack.enter_context(running(bare(BARE_POSTGRES, bare_db, ports["bare-postgres"]), ports["bare-postgres"]))
        cases: list[Case] = []
        for store in stores:
            cases += [
                (f"ours-{store}", cycles, ports[f"ours-{store}"]),
                (f"bare-{store}", inserts, ports[f"bare-{store}"]),
            ]
        rates = interleaved(cases, args.cycles, args.runs)
        stack.close()
        latencies = webhook_latency(50, Path(folder))
    print(f"load average after : {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for store in stores:
        report(store, rates, args.cycles)
    p50, longest = statistics.median(latencies) * 1000, max(latencies) * 1000
    print(f"pause -> webhook received : p50 {p50:.1f} ms, max {longest:.1f} ms (50 pauses)")


if __name__ == "__main__":
    main()
