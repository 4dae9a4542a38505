"""Deadlines: what the clock costs with 100,000 open pauses, against the redelivery pass that ran before it.

Each store holds ``--open`` open pauses of as many waiting runs (and a second store of ``--small``, to show
what grows with them).  SQLite's are written through ``store.commit(Changes(begin=run, pauses=[pause]))``,
2,000 commits to one transaction while filling; Postgres gets the rows those commits wrote by COPY (through
its own commits, four round trips each, 100,000 took 100 s here).  Each pause is a real ``Pause.record()`` of
the shop's charge confirm (its payload, its amount and ids made new), announced (its delivery noted
delivered, as a webhook that takes every post leaves it); nine in ten have a deadline (reminded after 7 days,
expiring after 30, so due after every clock this script sets), the rest none.

Then, in rounds, for each K (0, 10, 100): K real pauses are opened through a Desk on the shop (examples/shop,
whose charge confirms expire after 4 hours) at the desk's injected clock, and the clock is moved 4 hours on,
so exactly K pauses are due.  Timed there, per store:

- **before**: one redelivery listing, ``store.due_deliveries(now, 100)``, the only background pass over open
  pauses before deadlines;
- **clock**: one clock listing, ``store.due_pauses(now, 100)``;
- **after**: both, what a store answers once deadlines exist (``stalwart serve`` lists deliveries every 5 s
  and due pauses every second);
- **tick**: a whole ``tick(desk)``, which claims and expires the K pauses through the engine (timed once a
  round: it ends them).

The listings go round in short blocks (``--block`` passes of one store and listing, then the next, the order
rotating block by block), ``--blocks`` blocks a round; a round's figure is the median of its passes; printed
are the medians over ``--rounds`` rounds, the median of per-round ratios (after / before; the large store over
the small), and the load average before and after.  SQLite is in WAL with ``synchronous=FULL``; Postgres a
throwaway cluster of tests/postgres.py (fsync off); both ANALYZEd after filling (Postgres plans by statistics
autovacuum would gather soon after such a load).  The plans of the listings' statements are printed last.

``dynamodb`` (moto's server, in-process): every request the store's client sends is recorded and billed by
bench/dynamodb_requests.py's rules, per listing and per tick, at ``--dynamodb-open`` open pauses and a tenth of
it, each written by its own commit (a TransactWriteItems, 0.1 to 0.15 s each on moto, so 100,000 would take
hours); the redelivery listing's requests grow by one a live thread, and are extrapolated to ``--open``.

    python bench/deadlines.py [--open 100000] [--small 1000] [--rounds 7] [--blocks 4] [--block 5]
                              [--backends sqlite,postgres,dynamodb] [--dynamodb-open 100] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stalwart_agents import Desk, Pause
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.config import Config, load_config
from stalwart_agents.storage import Changes, RunRecord, Storage
from stalwart_agents.storage._sql import DUE_FAILED, DUE_PAUSES, DUE_UNANNOUNCED, SqlStorage
from stalwart_agents.storage.base import UNANNOUNCED

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.postgres import Cluster  # noqa: E402

SHOP = ROOT / "examples" / "shop" / "agent.yaml"
T0 = float(int(time.time()))
"""The desks' clock when the first due pauses open, the real time (DynamoDB's reads take what is past the retention
after its last write, by the store's real clock, for expired); the filled pauses opened in the day before it."""
HOUR, DAY = 3600.0, 86_400.0
EXPIRES = 4 * HOUR
"""The shop's charge confirms expire after 4 hours (examples/shop/agent.yaml)."""
STEP = EXPIRES + 60.0
"""The clock moves by this from one K to the next: each tick finds only its own K due."""
FILL_DEADLINE = {"remind": 7 * DAY, "expires": 30 * DAY}
"""The filled pauses' deadline, after they opened: the first reminder is due after every clock this script sets."""
PER_TRANSACTION = 2_000
"""Filled runs committed in one transaction (SQL)."""
KS = (0, 10, 100)


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


class Clock:
    """The desks' clock, moved by the script."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def taken(thread: str, pause: Pause) -> None:
    """The webhook, taking every post: each pause's announcement is noted delivered, as in a service in use."""


# ---- filling a store


@dataclass(frozen=True)
class Template:
    """A real pause of the shop and its run, which each filled pause copies with new ids, amount and times."""

    pause: Pause
    state: dict[str, Any]


def template(config: Config) -> Template:
    clock = Clock()
    with Desk(config, "memory://", clock=clock) as desk:
        [shown] = desk.send("template", "charge 12 to order 4411").waiting
        stored = desk.storage.get_pause(shown.id)
        run = desk.storage.get_run(shown.run)
        assert stored is not None and run is not None
        return Template(Pause.from_record(stored), run.state)


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def filled(source: Template, n: int, rng: random.Random) -> Changes:
    """The ``n``-th filled run and its open pause, as the engine would have written them; one in ten without a
    deadline."""
    thread, run_id = f"fill-{n:06d}", f"r_fill{n:06d}"
    pause_id = f"p_fill{n:06d}.{rng.getrandbits(96):024x}"
    opened = T0 - DAY + n * (DAY / 200_000) + rng.random()
    amount = rng.randrange(1, 500)
    deadline: Any = None
    if n % 10:
        at = [opened + FILL_DEADLINE["remind"], opened + 3 * FILL_DEADLINE["remind"]]
        deadline = {"expires_at": opened + FILL_DEADLINE["expires"], "on_expiry": "skip", "remind": at}
    arguments = [{**a, "value": amount} if a["name"] == "amount" else dict(a) for a in source.pause.arguments]
    pause = dataclasses.replace(
        source.pause,
        id=pause_id,
        thread=thread,
        run=run_id,
        token=f"{rng.getrandbits(192):048x}",
        created_at=iso(opened),
        arguments=arguments,  # type: ignore[arg-type]
        title=f"Charge {amount:.2f} EUR to order 4411",
        deadline=deadline,
    )
    record = pause.record().replace(created_at=opened, delivery={"delivered": True, "at": opened, "attempts": 1})
    turn = f"charge {amount} to order 4411"
    plan = [{**step, "clause": turn, "arguments": arguments} for step in source.state["plan"]]
    state = {**source.state, "turn": turn, "plan": plan, "waiting": [pause_id]}
    run = RunRecord(run_id, thread, "shop", "waiting", state=state, created_at=opened, updated_at=opened)
    return Changes(begin=run, pauses=[record])


@contextmanager
def one_transaction(store: Storage) -> Iterator[None]:
    """Every commit to a SQL store in the block goes into one transaction, committed at its end: each is the
    store's own commit, its checks and writes, without a sync apiece."""
    if not isinstance(store, SqlStorage):
        yield
        return
    with store._transaction() as tx:
        setattr(store, "_transaction", lambda: nullcontext(tx))  # noqa: B010
        try:
            yield
        finally:
            delattr(store, "_transaction")


def fill(store: Storage, count: int, source: Template) -> float:
    """Write ``count`` waiting runs with an open pause each; the seconds it took."""
    rng = random.Random(count)
    started = time.perf_counter()
    for first in range(0, count, PER_TRANSACTION):
        with one_transaction(store):
            for n in range(first, min(count, first + PER_TRANSACTION)):
                store.commit(filled(source, n, rng))
    return time.perf_counter() - started


def analyze(store: Storage) -> None:
    if isinstance(store, SqlStorage):
        with store._reading() as db:
            db.execute("ANALYZE")


# ---- the passes


@dataclass
class Case:
    """One store, its desk and clock, and what was timed on it."""

    name: str
    backend: str
    size: int
    desk: Desk
    clock: Clock
    times: dict[tuple[int, str], list[list[float]]] = field(default_factory=dict)
    """(K, pass) -> one list of seconds per round"""
    rows: dict[tuple[int, str], int] = field(default_factory=dict)
    ticks: dict[int, list[float]] = field(default_factory=dict)
    threads: int = 0

    @property
    def store(self) -> Storage:
        return self.desk.storage

    def open_due(self, k: int, at: float, rng: random.Random) -> None:
        """Open ``k`` real pauses through the desk at ``at``, each a new thread and amount."""
        self.clock.now = at
        for _ in range(k):
            self.threads += 1
            [pause] = self.desk.send(f"due-{self.threads}", f"charge {rng.randrange(1, 500)} to order 4411").waiting
            assert pause.expires_at == at + EXPIRES


LISTINGS = ("before", "clock", "after")


def listing(store: Storage, which: str, now: float) -> int:
    """One pass; the pauses it listed."""
    if which == "before":
        return len(store.due_deliveries(now, 100))
    if which == "clock":
        return len(store.due_pauses(now, 100))
    return len(store.due_deliveries(now, 100)) + len(store.due_pauses(now, 100))


def rotated(items: list[Any], by: int) -> list[Any]:
    by %= len(items)
    return items[by:] + items[:by]


def measure(cases: list[Case], rounds: int, blocks: int, block: int) -> None:
    rng = random.Random(7)
    step = 0
    for r in range(rounds):
        for k in rotated(list(KS), r):
            at = T0 + step * STEP
            step += 1
            for case in cases:
                case.open_due(k, at, rng)
            now = at + EXPIRES + 1
            for case in cases:
                case.clock.now = now
                for which in LISTINGS:
                    case.times.setdefault((k, which), []).append([])
                    case.rows[(k, which)] = listing(case.store, which, now)  # and warm
            pairs = [(case, which) for case in cases for which in LISTINGS]
            for b in range(blocks):
                for case, which in rotated(pairs, b + r):
                    passes = case.times[(k, which)][-1]
                    for _ in range(block):
                        started = time.perf_counter()
                        listing(case.store, which, now)
                        passes.append(time.perf_counter() - started)
            for case in rotated(cases, r + k):
                started = time.perf_counter()
                done = tick(case.desk, now=now)
                case.ticks.setdefault(k, []).append(time.perf_counter() - started)
                assert len(done.expired) == k and not done.failed, (case.name, k, done)
                assert case.store.due_pauses(now, 100) == []


def round_medians(case: Case, k: int, which: str) -> list[float]:
    return [statistics.median(passes) for passes in case.times[(k, which)]]


def ratio(over: list[float], under: list[float]) -> float:
    """The median of per-round ratios."""
    return statistics.median(a / b for a, b in zip(over, under, strict=True))


def report(cases: list[Case], rounds: int) -> None:
    width = 18
    ms = statistics.median
    head = "".join(f"{case.name:>{width}}" for case in cases)
    print(f"\nmedian ms per pass over {rounds} rounds (rows listed)   K{head}")
    titles = {"before": "before: due_deliveries", "clock": "clock : due_pauses", "after": "after : both"}
    for k in KS:
        for which in LISTINGS:
            cells = "".join(
                f"{ms(round_medians(c, k, which)) * 1000:>{width - 6}.3f} ({c.rows[(k, which)]:>3})" for c in cases
            )
            print(f"  {titles[which]:45}{k:>3}{cells}")
        ratios = "".join(
            f"{ratio(round_medians(c, k, 'after'), round_medians(c, k, 'before')):>{width - 1}.2f}x" for c in cases
        )
        print(f"  {'after / before (median of per-round ratios)':45}{k:>3}{ratios}")
        serve = "".join(
            f"{ms(round_medians(c, k, 'before')) * 200:>{width - 9}.3f} -> "
            f"{(ms(round_medians(c, k, 'before')) / 5 + ms(round_medians(c, k, 'clock'))) * 1000:.3f}"
            for c in cases
        )
        print(f"  {'serve, ms a second (before -> after)':45}{k:>3}{serve}")
        ticks = "".join(f"{ms(c.ticks[k]) * 1000:>{width - 6}.2f} ({k:>3})" for c in cases)
        print(f"  {'tick, whole (K expired)':45}{k:>3}{ticks}")
    by_backend: dict[str, list[Case]] = {}
    for case in cases:
        by_backend.setdefault(case.backend, []).append(case)
    print("\nthe large store over the small one (median of per-round ratios):")
    for backend, (small, large) in by_backend.items():
        for k in KS:
            parts = [
                f"{which} {ratio(round_medians(large, k, which), round_medians(small, k, which)):.2f}x"
                for which in LISTINGS
            ]
            parts.append(f"tick {ratio(large.ticks[k], small.ticks[k]):.2f}x")
            print(f"  {backend:8} {large.size:,} / {small.size:,} open, K={k:<3}: {', '.join(parts)}")
    print("\ntick, ms per expired pause (median over rounds, K=100):")
    print("  " + ", ".join(f"{c.name} {ms(c.ticks[100]) * 10:.2f}" for c in cases))


# ---- plans


def generic(statement: str) -> tuple[str, list[str]]:
    """The statement with $n placeholders for PREPARE, and the names in their order."""
    names: list[str] = []

    def number(found: re.Match[str]) -> str:
        if found[1] not in names:
            names.append(found[1])
        return f"${names.index(found[1]) + 1}"

    return re.sub(r"(?<!:):([a-z_]+)", number, statement), names


EXPLAIN = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)"


def shown(rows: list[Any]) -> list[str]:
    """A Postgres plan's lines, without its planning's."""
    lines = [str(next(iter(row.values()))) for row in rows]
    return lines[: next((n for n, line in enumerate(lines) if line.startswith("Planning")), len(lines))]


def plans(case: Case, now: float) -> None:
    """The listings' plans: SQLite's EXPLAIN QUERY PLAN; Postgres's, run, as planned for the values and as the
    generic plan a prepared statement may settle on after five runs (printed where it differs)."""
    store = case.store
    assert isinstance(store, SqlStorage)
    params = {"now": now, "opened": now - UNANNOUNCED, "limit": 100}
    statements = {
        "due_pauses": DUE_PAUSES,
        "due_deliveries, failed": DUE_FAILED,
        "due_deliveries, unannounced": DUE_UNANNOUNCED,
    }
    print(f"\nplans on {case.name} ({len(store.due_pauses(now, 100))} due):")
    with store._reading() as db:
        for name, statement in statements.items():
            if case.backend == "sqlite":
                rows = db.execute(f"EXPLAIN QUERY PLAN {store.dialect.render(statement)}", params).fetchall()
                print(f"  {name}: " + "; ".join(row["detail"] for row in rows))
                continue
            custom = shown(db.execute(f"{EXPLAIN} {store.dialect.render(statement)}", params).fetchall())
            prepared, names = generic(statement.format_map(store.dialect.words))
            db.execute("SET plan_cache_mode = force_generic_plan")
            db.execute(f"PREPARE bench_plan AS {prepared}")
            values = ", ".join(repr(params[n]) for n in names)
            general = shown(db.execute(f"{EXPLAIN} EXECUTE bench_plan({values})").fetchall())
            db.execute("DEALLOCATE bench_plan")
            db.execute("RESET plan_cache_mode")
            print(f"  {name}:")
            print("".join(f"      {line}\n" for line in custom), end="")
            nodes = [re.sub(r"\$\d+|'[^']*'::double precision", "?", line) for line in custom if "Buffers" not in line]
            if [re.sub(r"\$\d+", "?", line) for line in general if "Buffers" not in line] == nodes:
                print("    the generic plan: the same")
            else:
                print("    the generic plan:")
                print("".join(f"      {line}\n" for line in general), end="")


def leftovers(case: Case, now: float) -> None:
    """What a Postgres listing with nothing due reads once the rounds have ended pauses (the dead entries of the
    partial index stay until a vacuum), and the plans the store's prepared statements ran with: a plan made for
    each execution's values (custom) plans it again every time."""
    store = case.store
    assert isinstance(store, SqlStorage)
    with store._reading() as db:
        plan = shown(db.execute(f"{EXPLAIN} {store.dialect.render(DUE_PAUSES)}", {"now": now, "limit": 100}).fetchall())
        stats = db.execute(
            "SELECT n_live_tup, n_dead_tup, autovacuum_count FROM pg_stat_user_tables WHERE relname = 'pauses'"
        ).fetchone()
        prepared = db.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements").fetchall()
    buffers = next((line.strip() for line in plan if "Buffers" in line), "")
    print(
        f"  {case.name:17} due_pauses, none due: {buffers}; pauses {stats['n_live_tup']:,} live,"
        f" {stats['n_dead_tup']:,} dead, autovacuumed {stats['autovacuum_count']} times"
    )
    statements = {"due_pauses": "wake_at <=", "due_deliveries, failed": "due_at <=", "unannounced": "created_at <="}
    for name, where in statements.items():
        for row in (row for row in prepared if row["statement"].startswith("SELECT") and where in row["statement"]):
            runs = f"{row['generic_plans']} runs on the generic plan, {row['custom_plans']} planned for their values"
            print(f"  {'':17} {name}: {runs}")


# ---- DynamoDB, by its requests


def dynamodb(config: Config, source: Template, sizes: list[int], full: int) -> None:
    import boto3

    from bench.dynamodb_requests import Bill, Recorder, read_units
    from stalwart_agents.aws.local import start_moto
    from stalwart_agents.storage.dynamodb import DynamoStorage
    from stalwart_agents.storage.dynamodb_sizes import item_size

    class Billing(Recorder):
        """bench/dynamodb_requests.py's recorder, billing BatchGetItem too (each item read, by its own size), and
        counting the items each request read (a Query's before its filter)."""

        items = 0

        def taken(self) -> tuple[Bill, int]:
            items, self.items = self.items, 0
            return self.take(), items

        def _charge(self, model: Any, **rest: Any) -> None:
            parsed = rest.get("parsed", {})
            if model.name == "Query":
                self.items += int(parsed.get("ScannedCount", 0))
            if model.name != "BatchGetItem":
                super()._charge(model, **rest)
                return
            self.items += sum(len(found) for found in parsed.get("Responses", {}).values())
            self.bill.calls["BatchGetItem"] += 1
            for table, asked in self._params["RequestItems"].items():
                for key in asked["Keys"]:
                    item = self._item(table, key)
                    self.bill.read += read_units(item_size(item) if item else 0, asked.get("ConsistentRead", False))

    def said(taken: tuple[Bill, int]) -> str:
        bill, items = taken
        calls = ", ".join(f"{name} {count}" for name, count in sorted(bill.calls.items()))
        write = f", {bill.write:g} WRU + {bill.index:g} WRU on indexes" if bill.write else ""
        return f"{bill.requests:>5} requests, {items:>5} items read, {bill.read:>5g} RRU{write} ({calls})"

    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server, endpoint = start_moto()
    shadow = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    rng = random.Random(11)
    k = 10
    before: list[tuple[int, Bill]] = []
    print(f"\ndynamodb (moto's server): requests and read units per pass, K={k} due, billed by DynamoDB's rules")
    try:
        for size in sizes:
            clock = Clock()
            desk = Desk(
                config, f"dynamodb://dl{size}?region=us-east-1&endpoint={endpoint}", clock=clock, on_interrupt=taken
            )
            store = desk.storage
            assert isinstance(store, DynamoStorage)
            took = fill(store, size, source)
            case = Case(f"dynamodb {size:,}", "dynamodb", size, desk, clock)
            case.open_due(k, T0, rng)
            now = clock.now = T0 + EXPIRES + 1
            recorder = Billing(store.client, shadow)
            print(f"  {size:,} open pauses written in {took:.0f} s (each commit one TransactWriteItems)")
            for which in LISTINGS:
                recorder.taken()
                listed = listing(store, which, now)
                if which == "before":
                    before.append((size, recorder.bill))
                print(f"  {size:>7,} open  {which:6} pass, listed {listed:>3}: {said(recorder.taken())}")
            recorder.taken()
            done = tick(desk, now=now)
            assert len(done.expired) == k, done
            print(f"  {size:>7,} open  tick, {k} expired       : {said(recorder.taken())}")
            desk.close()
    finally:
        server.stop()
    (small, small_bill), (large, large_bill) = before[0], before[-1]
    per = (large_bill.requests - small_bill.requests) / (large - small)
    base = small_bill.requests - per * small
    read = (large_bill.read - small_bill.read) / (large - small)
    print(
        f"  at {full:,} open, the before pass (linear in the open pauses, as the code reads one query per live"
        f" thread): {base + per * full:,.0f} requests, {small_bill.read + read * (full - small):,.0f} RRU;"
        " the clock's listing stays 16 queries and one BatchGetItem of the K due"
    )


# ---- main


def copied(source: Path, url: str) -> float:
    """Copy the rows a SQLite store's commits wrote (every table that has any) into a Postgres store with COPY;
    the seconds it took.  Through its own commits, 100,000 runs take Postgres about 100 s here (four round trips
    a commit), more than this whole script may."""
    import sqlite3

    import psycopg

    started = time.perf_counter()
    rows = sqlite3.connect(source)
    with psycopg.connect(url) as db:
        for (table,) in rows.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            if table.startswith("sqlite_") or not rows.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                continue
            theirs = db.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,))
            kept = {row[0] for row in theirs.fetchall()}
            columns = [row[1] for row in rows.execute(f"PRAGMA table_info({table})") if row[1] in kept]
            with db.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY rowid"):
                    copy.write_row(row)
    rows.close()
    return time.perf_counter() - started


class Stores:
    """Where each case's store is: SQLite files in a temporary folder, Postgres databases in one throwaway cluster."""

    def __init__(self, folder: Path, stack: ExitStack) -> None:
        self.folder, self.stack = folder, stack
        self.cluster: Cluster | None = None

    def sqlite(self, size: int) -> Path:
        return self.folder / f"dl{size}.db"

    def url(self, backend: str, size: int) -> str:
        if backend == "sqlite":
            return f"sqlite:///{self.sqlite(size)}"
        if self.cluster is None:
            self.cluster = Cluster()
            self.cluster.start()
            self.stack.callback(self.cluster.remove)
            self.stack.callback(self.cluster.stop)
        return self.cluster.create_database(f"dl{size}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--open", type=int, default=100_000, help="open pauses in the large store")
    parser.add_argument("--small", type=int, default=1_000, help="open pauses in the small store")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--blocks", type=int, default=4, help="blocks of each store and listing a round")
    parser.add_argument("--block", type=int, default=5, help="passes in a block")
    parser.add_argument("--backends", default="sqlite,postgres,dynamodb")
    parser.add_argument("--dynamodb-open", type=int, default=100, help="open pauses in moto's larger table")
    parser.add_argument("--quick", action="store_true", help="10,000 open, 3 rounds, 50 on moto")
    args = parser.parse_args()
    if args.quick:
        args.open, args.rounds, args.dynamodb_open = 10_000, 3, 50
    backends = args.backends.split(",")
    last_clock = T0 + args.rounds * len(KS) * STEP
    assert last_clock < T0 - DAY + FILL_DEADLINE["remind"], "more rounds than the filled deadlines allow"
    config = load_config(SHOP)
    source = template(config)
    print(f"load average before: {load()}")
    started = time.perf_counter()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        stores = Stores(Path(folder), stack)
        cases: list[Case] = []
        for backend in [b for b in backends if b in ("sqlite", "postgres")]:
            for size in (args.small, args.open):
                clock = Clock()
                if backend == "postgres" and not stores.sqlite(size).exists():  # the rows to copy
                    with Desk(config, stores.url("sqlite", size)) as filler:
                        fill(filler.storage, size, source)
                url = stores.url(backend, size)
                desk = Desk(config, url, clock=clock, on_interrupt=taken)
                stack.callback(desk.close)
                if backend == "sqlite":
                    took, how = fill(desk.storage, size, source), "by the store's commits, 2,000 to a transaction"
                else:
                    took, how = copied(stores.sqlite(size), url), "COPY of the SQLite store's rows"
                analyze(desk.storage)
                print(f"{backend:8} {size:>7,} open pauses written in {took:5.1f} s ({how})")
                cases.append(Case(f"{backend} {size:,}", backend, size, desk, clock))
        if cases:
            measured = time.perf_counter()
            measure(cases, args.rounds, args.blocks, args.block)
            print(f"rounds: {args.rounds}, {time.perf_counter() - measured:.0f} s; load average now: {load()}")
            report(cases, args.rounds)
            now = T0 + args.rounds * len(KS) * STEP
            if any(case.backend == "postgres" for case in cases):
                print("\nafter the rounds (each store has had its due pauses expired):")
            for case in cases:
                if case.backend == "postgres":
                    leftovers(case, now)
            for case in cases:
                if case.size == args.open:
                    case.open_due(100, now, random.Random(3))
                    plans(case, now + EXPIRES + 1)
        if "dynamodb" in backends:
            dynamodb(config, source, [args.dynamodb_open // 10, args.dynamodb_open], args.open)
    print(f"load average after : {load()}; {time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
