"""Turn + resume cycles over HTTP against a fair floor and a bare route; what HTTP adds per cycle; webhook latency.

Ours is `stalwart serve bench/orders/agent.yaml` in its own process (``--package DIR`` names the package it runs,
``--before DIR`` adds a second server running another, both in the same rounds).  Against it:

- the fair floor: a FastAPI app doing per cycle what a cycle must, and nothing else: two requests (a turn, an
  answer), each body read by a pydantic model, and three fsynced conditional transactions (the turn's; the
  answer's claim; the outcome's), each one conditional insert and one conditional update, as in
  ``pause_cycle.py``'s floor;
- the bare route: one request, one conditional insert (what the issue's first HTTP figure compared against).

All three are served by the same call, the one ``stalwart serve`` makes (cli.py): uvicorn, one worker, its h11
parser with headers bounded, no access log.  On SQLite every file is WAL with synchronous=FULL.

What HTTP adds per cycle is ours over HTTP less ours in process (the same Desk cycle, ``pause_cycle.py``'s, in a
process of the same package on a SQLite file of its own), set against what HTTP adds to the fair floor (its cycle
over HTTP less its three transactions in process): "+X ms over bare".  It is printed twice more: against the Desk
called as the routes call it (the caller as the thread's owner, a session, the answer admitted first), which
leaves HTTP itself; and in CPU per cycle (each process's, from /proc), which the machine's load moves far less.

Every case runs once per round, the order rotated each round (ours, floor, bare, ...; then floor, bare, ...), so
each sees the same minutes of the machine; ratios and differences are taken within a round, and the median over
rounds printed, with the load average.  A cycle uses a new thread, order id and amount; each client keeps one
connection (http.client, so the load generator's own CPU stays small) and sends back the session it is handed.

On Postgres (unless ``--no-postgres``): ours against the bare route, on one throwaway cluster (tests/postgres.py:
fsync off), each its own database.  Webhook latency is the time from sending a turn to the signed delivery of its
pause reaching a receiver on 127.0.0.1.

    python bench/http_throughput.py [--cycles 100] [--runs 10] [--no-postgres] [--package DIR] [--before DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import os
import sqlite3
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

SERVE = (
    "uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[2]), log_config=None, access_log=False, http='h11', "
    "h11_max_incomplete_event_size=65536)"
)
"""How the floor and the bare route are served: the call `stalwart serve` makes (cli.py)."""

SQLITE_APP = textwrap.dedent("""
    import sqlite3, sys, threading, uvicorn
    from fastapi import FastAPI
    from pydantic import BaseModel
    app, local = FastAPI(), threading.local()
    def db():
        if not hasattr(local, "c"):
            local.c = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
            local.c.execute("PRAGMA journal_mode=WAL"); local.c.execute("PRAGMA synchronous=FULL")
            local.c.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, version INTEGER, body TEXT)")
        return local.c
    @app.get("/healthz")
    def healthz(): return {"ok": True}
""")
"""What the floor and the bare route share: a SQLite file (WAL, FULL) per worker thread, and the health route."""

FLOOR_SQLITE = SQLITE_APP + textwrap.dedent(f"""
    class Turn(BaseModel):
        text: str
    class Answer(BaseModel):
        interrupt_id: str
        decision: str
        token: str
    def commit(key, body):
        c = db(); c.execute("BEGIN IMMEDIATE")
        c.execute("INSERT OR IGNORE INTO t VALUES (?, 0, ?)", (key, body))
        done = c.execute("UPDATE t SET version = version + 1 WHERE id = ? AND version = 0", (key,)).rowcount
        c.execute("COMMIT"); return done
    @app.post("/threads/{{thread}}/messages")
    def turn(thread: str, turn: Turn):
        commit(thread, turn.text)
        return {{"thread": thread, "waiting": [{{"id": thread + "/pause", "token": "t"}}]}}
    @app.post("/threads/{{thread}}/resume")
    def resume(thread: str, answer: Answer):
        ran = commit(answer.interrupt_id, answer.decision) + commit(answer.interrupt_id + "/done", "{{}}")
        return {{"thread": thread, "steps": [{{"status": "done" if ran == 2 else "failed"}}]}}
    {SERVE}
""")

BARE_SQLITE = SQLITE_APP + textwrap.dedent(f"""
    class Order(BaseModel):
        text: str
    @app.post("/insert/{{key}}")
    def insert(key: str, order: Order):
        c = db(); c.execute("BEGIN IMMEDIATE")
        done = c.execute("INSERT INTO t VALUES (?, 0, ?) ON CONFLICT DO NOTHING", (key, order.text)).rowcount
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

IN_PROCESS = textwrap.dedent("""
    import hashlib, sys, time
    sys.path.append(sys.argv[1])
    from bench.pause_cycle import ORDER_IDS, cycles
    from stalwart_agents import Desk
    from stalwart_agents.approvals.principal import ANONYMOUS
    from stalwart_agents.engine.answer import Answer
    desk = Desk.from_file(sys.argv[2], storage=sys.argv[3])
    def as_routed(desk, count, prefix):
        session, who = hashlib.sha256(prefix.encode()).hexdigest(), ANONYMOUS
        started = time.perf_counter()
        for n in range(count):
            thread, number = f"{prefix}-{n}", next(ORDER_IDS)
            text = f"look up order {number} and charge {number % 400 + 1} to order {number}"
            pause = desk.send(thread, text, owner=who.key, session=session, asker=who.called).waiting[0]
            admitted = desk.admit(thread, who, pause=pause.id)
            answer = Answer.of("approve", None, pause.token, "http", admitted, edits=None)
            assert desk.answer(admitted, answer, pause.id, session=session).status == "done"
        return count / (time.perf_counter() - started)
    def plain(desk, count, prefix):
        started = time.perf_counter()
        cycles(desk, count)
        return count / (time.perf_counter() - started)
    cycle = as_routed if sys.argv[4] == "routed" else plain
    print("ready", flush=True)
    for line in sys.stdin:
        count, prefix = line.split()
        print(cycle(desk, int(count), prefix), flush=True)
""")
"""The in-process cycle of one package, in a process of its own: told a count and a prefix, it prints cycles/s.
``plain`` is pause_cycle.py's; ``routed`` calls the Desk as the routes do (the caller as owner, a session, the
answer admitted first), so what HTTP adds splits into the routes' own store work and HTTP itself."""

Measure = Callable[[int, str], float]
"""Runs ``count`` cycles (or requests) named by a prefix; their rate per second."""
Cpu = Callable[[], float]
"""The CPU seconds the process doing a case's work has used so far (a server's, or an in-process cycle's)."""
Case = tuple[Measure, Cpu]


ORDER_IDS = itertools.count(100_000)
TRANSACTIONS = 3
"""Fsynced transactions per cycle: the turn's, the answer's claim, the outcome's (pause_cycle.py counts them)."""


def turn_text() -> str:
    """A turn about a new order, with an amount that varies with it (1 to 400: the check never refuses)."""
    number = next(ORDER_IDS)
    return f"look up order {number} and charge {number % 400 + 1} to order {number}"


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def process_cpu(pid: int) -> Cpu:
    """A process's user and system CPU so far, from /proc: load moves it far less than the time a cycle takes."""

    def used() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    return used


def with_package(package: Path) -> dict[str, str]:
    """The environment of a process that imports ``stalwart_agents`` from ``package`` (a folder holding it)."""
    return {**os.environ, "PYTHONPATH": str(package)}


@contextlib.contextmanager
def running(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[int]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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


def cycles(port: int) -> Measure:
    """Turn + resume cycles per second over HTTP, each a new thread and order (ours, or the fair floor)."""

    def measure(count: int, prefix: str) -> float:
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

    return measure


def inserts(port: int) -> Measure:
    """Conditional inserts per second over HTTP, each a new key."""

    def measure(count: int, prefix: str) -> float:
        client = Client(port)
        started = time.perf_counter()
        for n in range(count):
            status, done = client.post(f"/insert/{prefix}-{n}", {"text": turn_text()})
            if status != 200 or done["inserted"] != 1:
                raise RuntimeError(f"the insert did not insert: {status} {done}")
        rate = count / (time.perf_counter() - started)
        client.connection.close()
        return rate

    return measure


@contextlib.contextmanager
def in_process(package: Path, storage: str, cycle: str) -> Iterator[Case]:
    """Ours in process: the Desk cycle of ``package``, in a process of its own (so each package runs its own)."""
    command = [sys.executable, "-c", IN_PROCESS, str(ROOT), str(ORDERS_AGENT), storage, cycle]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=with_package(package)
    )
    assert process.stdin is not None and process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError("the in-process cycle did not start")

    def measure(count: int, prefix: str) -> float:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(f"{count} {prefix}\n")
        process.stdin.flush()
        return float(process.stdout.readline())

    try:
        yield measure, process_cpu(process.pid)
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def floor_in_process(path: Path) -> Case:
    """The fair floor's three transactions per cycle, in this process, on a file of their own."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, version INTEGER, body TEXT)")

    def measure(count: int, prefix: str) -> float:
        started = time.perf_counter()
        for n in range(count * TRANSACTIONS):
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT OR IGNORE INTO t VALUES (?, 0, ?)", (f"{prefix}-{n}", turn_text()))
            connection.execute("UPDATE t SET version = version + 1 WHERE id = ? AND version = 0", (f"{prefix}-{n}",))
            connection.execute("COMMIT")
        return count / (time.perf_counter() - started)

    return measure, time.process_time


def interleaved(cases: dict[str, Case], count: int, runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Every case once per round, the order rotated each round: each side sees the same minutes of the machine.
    Each case's rate per second, and the CPU milliseconds its process used per cycle."""
    names = list(cases)
    for name in names:
        cases[name][0](20, f"warm-{name}")
    rates: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs):
        turn = run % len(names)
        for name in names[turn:] + names[:turn]:
            measure, used = cases[name]
            before = used()
            rates[name].append(measure(count, f"r{run}-{name}"))
            cpu[name].append((used() - before) * 1000 / count)
        shown = "  ".join(f"{name} {rates[name][-1]:7.1f}" for name in names)
        print(f"  round {run + 1:2}  {shown}  (load {load()})", flush=True)
    return rates, cpu


def per_round(figure: Callable[..., float], *series: list[float]) -> float:
    """The median over rounds of a figure taken within each round from the rates of several cases."""
    return statistics.median(figure(*rates) for rates in zip(*series, strict=True))


def ms(rate: float) -> float:
    return 1000 / rate


def http_adds(over_http: float, in_process: float) -> float:
    """Milliseconds per cycle over HTTP, less those in process."""
    return ms(over_http) - ms(in_process)


def report_sqlite(rates: dict[str, list[float]], packages: list[str], count: int) -> None:
    floor_http, floor_inproc, bare_http = rates["floor-http"], rates["floor-inproc"], rates["bare-http"]
    floor_adds = [http_adds(h, i) for h, i in zip(floor_http, floor_inproc, strict=True)]
    print(
        f"sqlite fair floor over HTTP  : {statistics.median(floor_http):7.1f} cycles/s (2 requests, 3 fsynced commits)"
    )
    print(f"sqlite bare route over HTTP  : {statistics.median(bare_http):7.1f} requests/s (1 request, 1 commit)")
    print(f"sqlite floor in process      : {statistics.median(floor_inproc):7.1f} cycles/s")
    print(f"what HTTP adds to the floor  : +{statistics.median(floor_adds):.2f} ms per cycle (bare FastAPI)")
    for package in packages:
        report_package(package, rates, floor_adds, count)
    if len(packages) == 2:
        after, before = packages
        gain = per_round(lambda a, b: a / b, rates[f"{after}-http"], rates[f"{before}-http"])
        print(f"{after} / {before} over HTTP : {gain:.2f} (median of each round's)")


def report_package(name: str, rates: dict[str, list[float]], floor_adds: list[float], count: int) -> None:
    """One package's figures, each taken within a round against the floor and the bare route of that round; what
    HTTP adds, whole (over pause_cycle.py's cycle) and less the routes' own store work (over the Desk called as
    the routes call it)."""
    over_http, in_process, routed = rates[f"{name}-http"], rates[f"{name}-inproc"], rates[f"{name}-routed"]
    median, rounds = statistics.median, f"median of {len(over_http)} x {count}"
    print(f"{name:7} over HTTP          : {median(over_http):7.1f} cycles/s ({rounds})")
    called = f"called as the routes call: {median(routed):.1f}"
    print(f"{name:7} in process         : {median(in_process):7.1f} cycles/s ({called})")
    to_floor = per_round(lambda o, f: o / f, over_http, rates["floor-http"])
    to_bare = per_round(lambda o, b: o / b, over_http, rates["bare-http"])
    print(f"{name:7} / fair floor       : {to_floor:.2f} (median of each round's; target >= 0.6)")
    print(f"{name:7} / bare route       : {to_bare:.2f} (cycles/s over requests/s, median of each round's)")
    bare = f"bare FastAPI +{statistics.median(floor_adds):.2f} ms"
    for against, series in (("whole", in_process), ("as routed", routed)):
        adds = per_round(http_adds, over_http, series)
        over = per_round(lambda h, i, f: http_adds(h, i) - f, over_http, series, floor_adds)
        print(f"{name:7} HTTP adds ({against:9}): +{adds:.2f} ms per cycle, {bare}: {over:+.2f} ms over bare")


def report_cpu(cpu: dict[str, list[float]], packages: list[str]) -> None:
    """What HTTP adds in CPU per cycle, server less in-process, ours against the fair floor's: a figure the machine's
    load moves far less than the time a cycle takes (the clients' CPU, in this process, is not counted)."""
    floor_adds = [h - i for h, i in zip(cpu["floor-http"], cpu["floor-inproc"], strict=True)]
    median = statistics.median
    floor = f"{median(cpu['floor-http']):.2f} ms served, {median(cpu['floor-inproc']):.2f} ms in process"
    print(f"CPU per cycle, fair floor    : {floor}")
    for name in packages:
        served, whole, routed = cpu[f"{name}-http"], cpu[f"{name}-inproc"], cpu[f"{name}-routed"]
        print(
            f"CPU per cycle, {name:7}       : {median(served):.2f} ms served, {median(whole):.2f} ms in process "
            f"({median(routed):.2f} called as the routes call)"
        )
        for against, series in (("whole", whole), ("as routed", routed)):
            adds = per_round(lambda h, i: h - i, served, series)
            over = per_round(lambda h, i, f: h - i - f, served, series, floor_adds)
            bare = f"bare FastAPI +{median(floor_adds):.2f} ms"
            print(f"{name:7} CPU HTTP adds ({against:9}): +{adds:.2f} ms per cycle, {bare}: {over:+.2f} ms over bare")


def report_postgres(rates: dict[str, list[float]], count: int) -> None:
    ours_rates, bare_rates = rates["ours-postgres"], rates["bare-postgres"]
    in_rounds = statistics.median(o / b for o, b in zip(ours_rates, bare_rates, strict=True))
    shown = f"{statistics.median(ours_rates):7.1f} /s (median of {len(ours_rates)} x {count})"
    print(f"postgres turn+resume cycles  : {shown}")
    print(f"postgres bare insert         : {statistics.median(bare_rates):7.1f} /s")
    print(f"postgres ratio               : {in_rounds:.2f} (cycles/s over bare requests/s, median of each round's)")


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


def sqlite_cases(stack: contextlib.ExitStack, folder: Path, packages: dict[str, Path]) -> dict[str, Case]:
    """Ours over HTTP and in process for each package, the fair floor both ways, and the bare route."""
    cases: dict[str, Case] = {}
    for name, package in packages.items():
        port = free_port()
        served = ours(port, f"sqlite:///{folder}/{name}-http.db")
        pid = stack.enter_context(running(served, port, with_package(package)))
        cases[f"{name}-http"] = cycles(port), process_cpu(pid)
    floor_port, bare_port = free_port(), free_port()
    floor_pid = stack.enter_context(running(bare(FLOOR_SQLITE, f"{folder}/floor.db", floor_port), floor_port))
    bare_pid = stack.enter_context(running(bare(BARE_SQLITE, f"{folder}/bare.db", bare_port), bare_port))
    cases["floor-http"] = cycles(floor_port), process_cpu(floor_pid)
    cases["bare-http"] = inserts(bare_port), process_cpu(bare_pid)
    for name, package in packages.items():
        for cycle, case in (("plain", "inproc"), ("routed", "routed")):
            storage = f"sqlite:///{folder}/{name}-{case}.db"
            cases[f"{name}-{case}"] = stack.enter_context(in_process(package, storage, cycle))
    cases["floor-inproc"] = floor_in_process(folder / "floor-inproc.db")
    return cases


def postgres_cases(stack: contextlib.ExitStack, package: Path) -> dict[str, Case]:
    ours_db, bare_db = stack.enter_context(postgres_databases())
    ours_port, bare_port = free_port(), free_port()
    ours_pid = stack.enter_context(running(ours(ours_port, ours_db), ours_port, with_package(package)))
    bare_pid = stack.enter_context(running(bare(BARE_POSTGRES, bare_db, bare_port), bare_port))
    return {
        "ours-postgres": (cycles(ours_port), process_cpu(ours_pid)),
        "bare-postgres": (inserts(bare_port), process_cpu(bare_pid)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--package", type=Path, default=ROOT / "shared", help="the folder ours imports from")
    parser.add_argument("--before", type=Path, default=None, help="another package's folder, run beside it")
    args = parser.parse_args()
    packages = {"ours": args.package} | ({"before": args.before} if args.before else {})
    print("server settings (every side): uvicorn h11, headers bounded, one worker, as `stalwart serve` runs")
    print(f"packages: {', '.join(f'{name} {path}' for name, path in packages.items())}")
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        cases = sqlite_cases(stack, Path(folder), packages)
        if not args.no_postgres:
            cases |= postgres_cases(stack, args.package)
        rates, cpu = interleaved(cases, args.cycles, args.runs)
        stack.close()
        latencies = webhook_latency(50, Path(folder))
    print(f"load average after : {load()}")
    report_sqlite(rates, list(packages), args.cycles)
    report_cpu(cpu, list(packages))
    if not args.no_postgres:
        report_postgres(rates, args.cycles)
    p50, longest = statistics.median(latencies) * 1000, max(latencies) * 1000
    print(f"pause -> webhook received : p50 {p50:.1f} ms, max {longest:.1f} ms (50 pauses)")


if __name__ == "__main__":
    main()
