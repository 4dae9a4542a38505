"""Scale: the pause -> approve cycle, the bytes and the reads of what waits, with 0, 100,000 and 1,000,000 threads.

Every seeded store holds N threads, each with one paused run (all paused: the worst case for the open-pauses
indexes, and what "bytes per paused run" divides by).  Seeding a million runs through the engine would take
hours, so a few hundred real paused runs are made through a Desk on the bench/orders agent (each its own order
id and amount); their rows are read back and copied, ``N / templates`` times each (SQLite: executemany in
transactions of 20,000 threads; Postgres: COPY), with every id rewritten: a new thread, a new run id, the
pause id the engine would compute for that thread and run (checked against each template's own), a new pause
token, and every timestamp (columns, in seconds or milliseconds, and the ISO strings in the JSON) moved back by
a random offset of up to a week.  Every column of every table that keeps a thread's rows (a ``thread`` or
``run`` column) is copied, found by reading the schema, so indexes added later are kept too.  A few copied
pauses are then answered through a Desk: their charge must run.  memory:// is seeded by real paused turns.
Seeded stores are kept under /tmp/stalwart-scale; ``--reuse`` reads them again.

Before timing, every store's files are read once into the OS page cache, as a server in use would hold them
(``--cold`` skips it: seeding writes past the cache, and a cold store reads its index pages from disk).
Then, with every store open at once (empty, 100k, 1M on each backend), rounds of ``--cycles`` pause ->
approve cycles go round-robin among them in blocks of ten (A B C ... A B C), each cycle a new thread with a
new order id and amount; the median time per cycle of ``--runs`` rounds, its ratio to the empty store's, and
the load average are printed.  Last, ``Desk.inbox`` and ``Desk.waiting`` (what ``GET /interrupts`` and ``GET
/threads/{thread}/interrupts`` answer) and the same two routes over HTTP on a real uvicorn, p50/p99.

    python bench/scale.py [--sizes 0,100000,1000000] [--memory-sizes 0,100000] [--backends sqlite,postgres,memory]
                          [--cycles 100] [--runs 5] [--reads 300] [--templates 300] [--reuse] [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from stalwart_agents import Desk
from stalwart_agents.approvals.principal import ANONYMOUS
from stalwart_agents.engine.pause import PausePoint
from stalwart_agents.serve import make_app
from stalwart_agents.storage._packed import pause_record
from stalwart_agents.storage.keys import PAUSE_ID, keys_of

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.postgres import USER, Cluster, binaries, free_port  # noqa: E402
from tests.server import serving  # noqa: E402

AGENT = ROOT / "bench" / "orders" / "agent.yaml"
DATA = Path("/tmp/stalwart-scale")
WEEK_MS = 7 * 86_400_000
BATCH = 20_000
"""Copied threads per write transaction."""
BLOCK = 10
"""Cycles a store runs before the next store's turn."""
SAMPLE = 2_000
"""Seeded threads remembered per store, to answer and to read."""
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
RUN = os.urandom(3).hex()
"""Marks this process's cycle threads, so a rerun on a kept store never meets its own."""


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def turn_text(rng: random.Random) -> str:
    order, amount = rng.randrange(100_000, 1_000_000), rng.randrange(1, 500)
    return f"look up order {order} and charge {amount} to order {order}"


def cycle(desk: Desk, thread: str, rng: random.Random) -> None:
    """One pause -> approve cycle, as an application runs it: the turn, then the approval with the shown token."""
    pause = desk.send(thread, turn_text(rng)).waiting[0]
    done = desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)
    assert done.status == "done", done


# ---- the rows of a thread, copied with new ids


@dataclass
class Template:
    """One real thread's rows, and what a copy rewrites in them."""

    thread: str
    run: str
    pause: str
    key: bytes
    """The store's key pause ids are made with."""
    payload: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]]
    stamps: list[str]


def pause_id(key: bytes, thread: str, run: str, payload: dict[str, Any]) -> str:
    """The id the engine gives the charge's confirm in this thread and run (its place, its call, its kind), with the
    store's key."""
    point = PausePoint.call(payload["step"], str(payload["step"]))
    called = [{"name": arg["name"], "value": arg["value"], "origin": arg["origin"]} for arg in payload["arguments"]]
    return point.pause_id(key, thread, run, payload["tool"], called, payload["kind"])  # type: ignore[arg-type]


def template(thread: str, rows: dict[str, list[dict[str, Any]]], key: bytes) -> Template:
    (run,) = rows["runs"]
    (pause,) = rows["pauses"]
    payload = {**pause_record(pause).payload, "step": pause["step"], "kind": pause["kind"]}  # kept by the row alone
    if pause_id(key, thread, run["id"], payload) != pause["id"]:
        raise SystemExit(f"the pause id of {thread} is not computed as this script computes it; update pause_id()")
    texts = [value for table in rows.values() for row in table for value in row.values() if isinstance(value, str)]
    stamps = sorted({stamp for text in texts for stamp in ISO.findall(text)})
    return Template(thread, run["id"], pause["id"], key, payload, rows, stamps)


def shifted(stamp: str, offset_ms: int) -> str:
    moved = datetime.fromisoformat(stamp.replace("Z", "+00:00")) - timedelta(milliseconds=offset_ms)
    return moved.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def copy_of(source: Template, thread: str, offset_ms: int) -> dict[str, list[dict[str, Any]]]:
    """The template's rows for a new thread and run, every id and time rewritten as a real run would have them."""
    run = "r_" + secrets.token_urlsafe(16)
    paused = pause_id(source.key, thread, run, source.payload)
    swaps = [(source.pause, paused), (source.run, run), (source.thread, thread)]
    swaps += [(stamp, shifted(stamp, offset_ms)) for stamp in source.stamps]
    offset = offset_ms / 1000
    copied: dict[str, list[dict[str, Any]]] = {}
    for table, rows in source.rows.items():
        copied[table] = [{name: _rewritten(name, value, swaps, offset) for name, value in row.items()} for row in rows]
    for pause in copied.get("pauses", []):
        pause["token"] = secrets.token_urlsafe(24)
    return copied


def _rewritten(name: str, value: Any, swaps: list[tuple[str, str]], offset: float) -> Any:
    if isinstance(value, str):
        for old, new in swaps:
            value = value.replace(old, new)
        return value
    if isinstance(value, float) and name.endswith(("_at", "_until")):
        return value - offset
    if isinstance(value, int) and name.endswith("_ms"):
        return value - round(offset * 1000)
    return value


# ---- one database's side of the copy


class Rows:
    """Reads a thread's rows from one database and writes copies in big transactions; says its size."""

    tables: dict[str, tuple[list[str], str, str | None]]
    """table -> (the columns copied, the column a thread's rows are found by, the column rows are ordered by)"""

    def read(self, threads: list[str], runs: list[str]) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """thread -> table -> rows, for the given threads and their runs."""
        found: dict[str, dict[str, list[dict[str, Any]]]] = {thread: {} for thread in threads}
        run_thread: dict[str, str] = {}
        for table in sorted(self.tables, key=lambda name: name != "runs"):  # runs first: they name the threads
            columns, key, order = self.tables[table]
            keys = threads if key == "thread" else runs
            for row in self._select(table, [*columns, key] if key not in columns else columns, key, keys, order):
                owner = row[key] if key == "thread" else run_thread[row[key]]
                found[owner].setdefault(table, []).append({name: row[name] for name in columns})
                if table == "runs":
                    run_thread[row["id"]] = row["thread"]
        return found

    def _select(self, table: str, columns: list[str], key: str, keys: list[str], order: str | None) -> list[Any]:
        raise NotImplementedError

    def write(self, batch: list[dict[str, list[dict[str, Any]]]]) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """What a store in use would have by now: its log checkpointed, its statistics gathered where it keeps any."""

    def size(self) -> dict[str, int]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


PAGES = ("page_size", "page_count", "freelist_count")
SIZED = ("runs", "pauses", "journal", "events", "threads")


class SqliteRows(Rows):
    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.tables = {}
        names = [row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in names:
            info = self.db.execute(f"PRAGMA table_info({table})").fetchall()
            serial = [row["name"] for row in info if row["pk"] and row["type"].upper() == "INTEGER"]
            columns = [row["name"] for row in info if row["name"] not in serial]
            key = "thread" if "thread" in columns else "run" if "run" in columns else None
            if key is not None:
                self.tables[table] = (columns, key, "rowid")
        self.db.execute("PRAGMA journal_mode = DELETE")  # out of WAL, unjournalled: a seed broken off is made again
        self.db.execute("PRAGMA journal_mode = OFF")
        self.db.execute("PRAGMA synchronous = OFF")
        self.db.execute("PRAGMA cache_size = -1000000")

    def _select(self, table: str, columns: list[str], key: str, keys: list[str], order: str | None) -> list[Any]:
        marks = ", ".join("?" * len(keys))
        query = f"SELECT {', '.join(columns)} FROM {table} WHERE {key} IN ({marks}) ORDER BY {order}"
        return self.db.execute(query, keys).fetchall()

    def write(self, batch: list[dict[str, list[dict[str, Any]]]]) -> None:
        self.db.execute("BEGIN")
        for table, (columns, _, _) in self.tables.items():
            statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            rows = [tuple(row[name] for name in columns) for thread in batch for row in thread.get(table, [])]
            self.db.executemany(statement, rows)
        self.db.execute("COMMIT")

    def finish(self) -> None:
        self.db.execute("PRAGMA journal_mode = WAL")

    def size(self) -> dict[str, int]:
        page, pages, free = (self.db.execute(f"PRAGMA {name}").fetchone()[0] for name in PAGES)
        path = Path(self.db.execute("PRAGMA database_list").fetchone()["file"])
        sizes = {"file": path.stat().st_size, "pages in use": (pages - free) * page}
        parts = self.db.execute(
            "SELECT m.tbl_name AS t, m.type AS kind, SUM(s.pgsize) AS n FROM dbstat s"
            " JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name, m.type"
        ).fetchall()
        found = {(row["t"], row["kind"]): row["n"] for row in parts}
        for table in SIZED:
            sizes[f"{table} table"] = found.get((table, "table"), 0)
            sizes[f"{table} indexes"] = found.get((table, "index"), 0)
        return sizes

    def close(self) -> None:
        self.db.close()


class PostgresRows(Rows):
    def __init__(self, url: str) -> None:
        import psycopg
        from psycopg.rows import dict_row

        self.db = psycopg.connect(url, autocommit=True, row_factory=dict_row)
        self.tables = {}
        listed = self.db.execute(
            "SELECT table_name, column_name, column_default FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ).fetchall()
        for table in dict.fromkeys(row["table_name"] for row in listed):
            mine = [row for row in listed if row["table_name"] == table]
            serial = [row["column_name"] for row in mine if str(row["column_default"] or "").startswith("nextval")]
            columns = [row["column_name"] for row in mine if row["column_name"] not in serial]
            key = "thread" if "thread" in columns else "run" if "run" in columns else None
            if key is not None:
                self.tables[table] = (columns, key, serial[0] if serial else None)

    def _select(self, table: str, columns: list[str], key: str, keys: list[str], order: str | None) -> list[Any]:
        ordered = f" ORDER BY {order}" if order else ""
        query = f"SELECT {', '.join(columns)} FROM {table} WHERE {key} = ANY(%s){ordered}"
        return self.db.execute(query, (keys,)).fetchall()

    def write(self, batch: list[dict[str, list[dict[str, Any]]]]) -> None:
        with self.db.transaction(), self.db.cursor() as cursor:
            for table, (columns, _, _) in self.tables.items():
                with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for thread in batch:
                        for row in thread.get(table, []):
                            copy.write_row([row[name] for name in columns])

    def finish(self) -> None:
        self.db.execute("VACUUM ANALYZE")  # what autovacuum does soon after such a load

    def size(self) -> dict[str, int]:
        sizes = {}
        for table in SIZED:
            sizes[f"{table} table"] = self._number("SELECT pg_table_size(%s)", table)
            sizes[f"{table} indexes"] = self._number("SELECT pg_indexes_size(%s)", table)
        sizes["tables + indexes"] = sum(sizes.values())
        sizes["database"] = self._number("SELECT pg_database_size(%s)", self.db.info.dbname)
        return sizes

    def _number(self, query: str, name: str) -> int:
        (row,) = self.db.execute(query, (name,)).fetchall()
        return int(next(iter(row.values())))

    def close(self) -> None:
        self.db.close()


# ---- seeding


def make_templates(desk: Desk, count: int, rng: random.Random) -> list[str]:
    """``count`` threads, each a real run paused on the charge, each its own order and amount."""
    threads = [f"tmpl-{n:04d}-{secrets.token_hex(4)}" for n in range(count)]
    for thread in threads:
        assert desk.send(thread, turn_text(rng)).waiting
    return threads


def seed(url: str, rows_of: Callable[[], Rows], threads: int, templates: int, rng: random.Random) -> dict[str, Any]:
    """Fill the store at ``url`` to ``threads`` paused threads; what was done, for the manifest."""
    started = time.perf_counter()
    with Desk.from_file(AGENT, storage=url) as desk:
        made = make_templates(desk, min(templates, threads), rng)
        runs = [desk.storage.active_run(thread).id for thread in made]  # type: ignore[union-attr]
        key = keys_of(desk.storage).key(PAUSE_ID)
    rows = rows_of()
    try:
        found = rows.read(made, runs)
        sources = [template(thread, found[thread], key) for thread in made]
        sample: list[str] = []
        batch: list[dict[str, list[dict[str, Any]]]] = []
        copied = 0
        for n in range(threads - len(made)):
            thread = f"seed-{secrets.token_urlsafe(12)}"
            batch.append(copy_of(sources[n % len(sources)], thread, rng.randrange(60_000, WEEK_MS)))
            if len(sample) < SAMPLE and rng.random() < 4 * SAMPLE / threads:
                sample.append(thread)
            if len(batch) == BATCH:
                rows.write(batch)
                copied += len(batch)
                batch = []
                if copied % 100_000 == 0:
                    took = time.perf_counter() - started
                    print(f"  {copied:>9,} threads copied, {took:.0f} s, load {load()}", flush=True)
        if batch:
            rows.write(batch)
        rows.finish()
        size = rows.size()
    finally:
        rows.close()
    took = time.perf_counter() - started
    return {"threads": threads, "templates": len(made), "seconds": round(took), "size": size, "sample": sample}


def verify(url: str, manifest: dict[str, Any], answers: int = 3) -> None:
    """Answer a few copied pauses through a Desk: each must run its charge, with its own order's id."""
    sample: list[str] = manifest["sample"]
    with Desk.from_file(AGENT, storage=url) as desk:
        for _ in range(min(answers, len(sample))):
            thread = sample.pop()
            (pause,) = desk.waiting(thread)
            order = next(arg["value"] for arg in pause.arguments if arg["name"] == "order_id")
            done = desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)
            run = desk.storage.last_run(thread)
            charged = [entry for entry in desk.storage.journal(run.id) if entry.tool == "charge_card"]  # type: ignore[union-attr]
            assert done.status == "done" and charged and charged[0].status == "done", (thread, done)
            assert charged[0].result["order_id"] == order, charged
            print(f"  answered copied pause {pause.id[:18]}... of {thread}: {done.status}, charged order {order}")


# ---- the stores


@dataclass
class Store:
    label: str
    url: str
    threads: int
    desk: Desk
    paused: list[str] = field(default_factory=list)
    size: dict[str, int] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


class KeptCluster(Cluster):
    """A Postgres cluster in a folder that outlives the run, so ``--reuse`` finds its databases again."""

    def __init__(self, folder: Path) -> None:
        bin_dir = binaries()
        if bin_dir is None:
            raise SystemExit("no PostgreSQL binaries: apt-get install postgresql")
        self.bin_dir, self.folder, self.data, self.port = bin_dir, folder, folder / "data", free_port()
        self._as_postgres = os.geteuid() == 0
        if (self.data / "PG_VERSION").exists():
            return
        folder.mkdir(parents=True, exist_ok=True)
        if self._as_postgres:
            shutil.chown(folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C", "-N")


def manifest_path(label: str) -> Path:
    return DATA / f"{label}.json"


def sql_store(label: str, url: str, rows_of: Callable[[], Rows], threads: int, args: argparse.Namespace) -> Store:
    """The seeded store ``label``, seeded now unless ``--reuse`` finds it seeded before."""
    path = manifest_path(label)
    if args.reuse and path.exists():
        manifest = json.loads(path.read_text())
        print(f"{label}: reusing {manifest['threads']:,} seeded threads (seeded in {manifest['seconds']} s)")
    else:
        print(f"{label}: seeding {threads:,} threads, load {load()}", flush=True)
        manifest = seed(url, rows_of, threads, args.templates, random.Random(label))
        print(f"{label}: seeded in {manifest['seconds']} s, sizes {manifest['size']}")
    verify(url, manifest)
    path.write_text(json.dumps(manifest))
    desk = Desk.from_file(AGENT, storage=url)
    return Store(label, url, threads, desk, paused=list(manifest["sample"]), size=manifest["size"])


def sqlite_stores(sizes: list[int], args: argparse.Namespace) -> list[Store]:
    stores = []
    for threads in sizes:
        label, path = f"sqlite-{threads}", DATA / f"sqlite-{threads}.db"
        if threads == 0 or not (args.reuse and manifest_path(label).exists()):
            for leftover in DATA.glob(f"sqlite-{threads}.db*"):
                leftover.unlink()
            manifest_path(label).unlink(missing_ok=True)
        url = f"sqlite:///{path}"
        if threads == 0:
            stores.append(Store(label, url, 0, Desk.from_file(AGENT, storage=url)))
        else:
            stores.append(sql_store(label, url, partial(SqliteRows, path), threads, args))
        stores[-1].files = [path]
    return stores


def postgres_stores(sizes: list[int], args: argparse.Namespace, stack: ExitStack) -> list[Store]:
    import psycopg

    if not args.reuse:
        shutil.rmtree(DATA / "pg", ignore_errors=True)
    cluster = KeptCluster(DATA / "pg")
    cluster.start()
    stack.callback(cluster.stop)
    stores = []
    with psycopg.connect(cluster.url(), autocommit=True) as admin:
        for threads in sizes:
            label, db = f"postgres-{threads}", f"scale_{threads}"
            if threads == 0 or not (args.reuse and manifest_path(label).exists()):
                admin.execute(f"DROP DATABASE IF EXISTS {db}")
                admin.execute(f"CREATE DATABASE {db}")
                manifest_path(label).unlink(missing_ok=True)
            url = cluster.url(db)
            if threads == 0:
                stores.append(Store(label, url, 0, Desk.from_file(AGENT, storage=url)))
            else:
                stores.append(sql_store(label, url, partial(PostgresRows, url), threads, args))
            (oid,) = admin.execute("SELECT oid FROM pg_database WHERE datname = %s", (db,)).fetchall()[0]
            stores[-1].files = sorted((cluster.data / "base" / str(oid)).iterdir())
    return stores


def memory_stores(sizes: list[int]) -> list[Store]:
    """memory:// stores seeded by real paused turns, through the Desk."""
    stores = []
    for threads in sizes:
        rng, started = random.Random(threads), time.perf_counter()
        desk = Desk.from_file(AGENT, storage="memory://")
        paused = [f"seed-{n:07d}" for n in range(threads)]
        for thread in paused:
            desk.send(thread, turn_text(rng))
        if threads:
            print(f"memory-{threads}: {threads:,} paused turns in {time.perf_counter() - started:.0f} s")
        stores.append(Store(f"memory-{threads}", "memory://", threads, desk, paused=paused[-SAMPLE:]))
    return stores


# ---- measuring


def warm(stores: list[Store]) -> None:
    """Read every store's files once, so the OS holds them as it would for a store in use.

    Seeding writes past the page cache; a cold store's random-keyed index pages come from disk, which is
    not what a server that has been answering for a while sees.
    """
    started, read = time.perf_counter(), 0
    for path in (path for store in stores for path in store.files):
        with path.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                read += len(chunk)
    took = time.perf_counter() - started
    print(f"read {read / 2**20:,.0f} MiB of the stores' files into the page cache in {took:.0f} s")


def time_cycles(stores: list[Store], cycles: int, runs: int) -> None:
    """Rounds of ``cycles`` cycles on each store, each round in blocks of ``BLOCK`` cycles that go round-robin
    among the stores (A B C ... A B C, starting one store later each time), so a slow second of the disk or
    of another process falls on every store alike; each store's time per cycle in each round noted."""
    rng = random.Random(7)
    for store in stores:
        for n in range(20):
            cycle(store.desk, f"warm-{RUN}-{store.label}-{n}", rng)
    for round_ in range(runs):
        spent = dict.fromkeys((store.label for store in stores), 0.0)
        for block in range(cycles // BLOCK):
            for store in stores[block % len(stores) :] + stores[: block % len(stores)]:
                started = time.perf_counter()
                for n in range(BLOCK):
                    cycle(store.desk, f"cycle-{RUN}-{store.label}-{round_}-{block}-{n}", rng)
                spent[store.label] += time.perf_counter() - started
        for store in stores:
            store.seconds.append(spent[store.label] / (cycles // BLOCK * BLOCK))
        line = ", ".join(f"{store.label} {store.seconds[-1] * 1000:.2f}" for store in stores)
        print(f"round {round_ + 1}: {line} ms/cycle; load {load()}", flush=True)


def report_cycles(stores: list[Store]) -> None:
    print("\npause -> approve cycle, median of the rounds (ms per cycle), ratio to the empty store of its backend:")
    empty: dict[str, Store] = {}
    for store in stores:
        backend = store.label.split("-")[0]
        empty.setdefault(backend, store)
        base = empty[backend]
        median, base_median = statistics.median(store.seconds), statistics.median(base.seconds)
        paired = statistics.median(a / b for a, b in zip(store.seconds, base.seconds, strict=True))
        print(
            f"  {store.label:18} {store.threads:>9,} threads: {median * 1000:6.2f} ms"
            f"  ratio {median / base_median:.2f} (median of per-round ratios {paired:.2f})"
        )


def report_sizes(stores: list[Store]) -> None:
    print("\nbytes per paused run (after seeding, every thread one paused run):")
    for store in stores:
        if not store.size or not store.threads:
            continue
        total = store.size.get("file") or store.size.get("tables + indexes", 0)
        parts = ", ".join(f"{name} {value / store.threads:,.0f}" for name, value in store.size.items())
        print(f"  {store.label:18} {total / 2**20:9,.0f} MiB: per paused run {parts}")


@contextmanager
def served(stores: list[Store]) -> Iterator[dict[str, str]]:
    """Each store's Desk behind the package's HTTP service on a real uvicorn: label -> base URL."""
    with ExitStack() as stack:
        yield {store.label: stack.enter_context(serving(make_app(store.desk))) for store in stores}


def time_reads(stores: list[Store], reads: int) -> dict[tuple[str, str], list[float]]:
    """Each read ``reads`` times on each store, ten at a time, interleaved across stores and reads."""
    rng = random.Random(11)
    for store in stores:
        fresh = [f"read-{RUN}-{store.label}-{n}" for n in range(50)]
        for thread in fresh:
            store.desk.send(thread, turn_text(rng))
        store.paused += fresh
    times: dict[tuple[str, str], list[float]] = {}
    with served(stores) as bases, httpx.Client(timeout=30) as client:

        def cases(store: Store) -> dict[str, Callable[[], None]]:
            def waiting() -> None:
                assert store.desk.waiting(rng.choice(store.paused))

            def inbox() -> None:
                assert len(store.desk.inbox(ANONYMOUS, limit=50).waiting) == 50

            def http_waiting() -> None:
                answer = client.get(f"{bases[store.label]}/threads/{rng.choice(store.paused)}/interrupts")
                assert answer.status_code == 200 and answer.json()["waiting"], answer.text

            def http_inbox() -> None:
                answer = client.get(f"{bases[store.label]}/interrupts", params={"limit": 50})
                assert answer.status_code == 200 and len(answer.json()["waiting"]) == 50, answer.text[:300]

            return {
                "Desk.inbox(limit=50)": inbox,
                "Desk.waiting(thread)": waiting,
                "GET /interrupts": http_inbox,
                "GET /threads/{t}/interrupts": http_waiting,
            }

        for _ in range(max(1, reads // 10)):
            for store in stores:
                for name, read in cases(store).items():
                    for _ in range(10):
                        started = time.perf_counter()
                        read()
                        times.setdefault((store.label, name), []).append(time.perf_counter() - started)
    return times


def report_reads(stores: list[Store], times: dict[tuple[str, str], list[float]]) -> None:
    print("\nreads of what waits, p50 / p99 in ms (the inbox of every open pause; one seeded thread's pauses):")
    for store in stores:
        cells = []
        for (label, name), seconds in times.items():
            if label == store.label:
                cuts = statistics.quantiles(seconds, n=100)
                cells.append(f"{name} {cuts[49] * 1000:.2f} / {cuts[98] * 1000:.2f}")
        print(f"  {store.label:18} {'; '.join(cells)}  ({len(seconds)} reads each)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="0,100000,1000000", help="threads in the SQL stores, 0 first")
    parser.add_argument("--memory-sizes", default="0,100000")
    parser.add_argument("--backends", default="sqlite,postgres,memory")
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--templates", type=int, default=300)
    parser.add_argument("--reuse", action="store_true", help="use the seeded stores of an earlier run")
    parser.add_argument("--cold", action="store_true", help="time the stores as seeding left them in the page cache")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    backends = args.backends.split(",")
    DATA.mkdir(parents=True, exist_ok=True)
    DATA.chmod(0o755)
    print(f"load average before: {load()}")
    with ExitStack() as stack:
        stores: list[Store] = []
        if "sqlite" in backends:
            stores += sqlite_stores(sizes, args)
        if "postgres" in backends:
            stores += postgres_stores(sizes, args, stack)
        if "memory" in backends:
            stores += memory_stores([int(size) for size in args.memory_sizes.split(",")])
        for store in stores:
            stack.callback(store.desk.close)
        if not args.cold:
            warm(stores)
        print(f"\nall seeded; load {load()}; {args.runs} rounds of {args.cycles} cycles on each store, round-robin")
        time_cycles(stores, args.cycles, args.runs)
        report_cycles(stores)
        report_sizes(stores)
        report_reads(stores, time_reads(stores, args.reads))
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
