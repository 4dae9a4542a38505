"""Every statement a turn, an answer and the readings of a thread run on SQLite and Postgres is keyed: the database's
plan for each scans no table whole, so their cost does not grow with the number of threads in the store.

The statements are the ones really sent (recorded with sqlite3's trace callback, and at psycopg's cursor) while the
shop's agent pauses on a charge, the pause is read (the thread's interrupts, the inbox, the log) and then approved,
in a store that already holds other threads, some waiting and some done.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from stalwart_agents import Desk
from stalwart_agents.approvals.principal import ANONYMOUS
from stalwart_agents.storage import open_storage
from stalwart_agents.storage.sqlite import SqliteStorage

from ..conftest import SHOP, present

CHARGE = "look up order 4411 and charge {} to order 4411"
WHOLE_TABLE = re.compile(r"SCAN (?!\d+ CONSTANT ROWS\b)(?!.*\bUSING (COVERING )?INDEX\b)")
"""A step of a SQLite plan that reads a table from end to end; a SCAN ... USING INDEX walks an index in its order,
and a SCAN of N CONSTANT ROWS reads the statement's own VALUES (the rows a multi-row INSERT writes)."""
WRITES_AND_READS = ("SELECT", "INSERT", "UPDATE", "DELETE")


def crowd(desk: Desk, threads: int, prefix: str = "other", owner: str | None = None) -> None:
    """Other threads in the store, each pausing on a charge, and every other one approved; each thread is
    ``owner``'s, or (by default) one of its own, whose pauses the anonymous principal's inbox reads past."""
    for n in range(threads):
        thread = f"{prefix}-{n}"
        desk.enter(thread, owner or f"iss|{thread}", start=True)
        desk.send(thread, CHARGE.format(n % 400 + 1))
        if n % 2:
            desk.confirm(thread, "approve")


def a_turn_an_answer_and_the_readings(desk: Desk, thread: str) -> None:
    """What a person's cycle asks of the store: own a thread, a turn that pauses, the thread's interrupts, the inbox,
    the log and the history, then the approval that runs the charge."""
    desk.enter(thread, ANONYMOUS.key, start=True)
    desk.send(thread, CHARGE.format(40))
    desk.waiting(thread, ANONYMOUS)
    desk.inbox(ANONYMOUS, limit=5)
    desk.events(thread)
    desk.history(thread)
    assert desk.confirm(thread, "approve").status == "done"


def test_sqlite_keys_every_statement_of_a_turn_an_answer_and_the_readings(tmp_path, ledger):
    store = open_storage(f"sqlite:///{tmp_path / 'runs.db'}")
    with Desk.from_file(SHOP, storage=store) as desk:
        crowd(desk, 20)
        sent: list[str] = []
        assert isinstance(store, SqliteStorage)
        connection = store._connection()
        connection.set_trace_callback(sent.append)
        a_turn_an_answer_and_the_readings(desk, "t")
        connection.set_trace_callback(None)
        statements = [s for s in sent if s.lstrip().upper().startswith(WRITES_AND_READS)]
        scans = {
            statement: steps
            for statement in statements
            if (
                steps := [
                    row[-1]
                    for row in connection.execute(f"EXPLAIN QUERY PLAN {statement}")
                    if WHOLE_TABLE.match(row[-1])
                ]
            )
        }
    assert len(statements) > 20 and scans == {}
    assert len(ledger("charge")) == 11


@pytest.fixture
def postgres_sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every statement psycopg's cursors send while the test records, with its parameters."""
    psycopg = pytest.importorskip("psycopg")
    sent: list[tuple[str, Any]] = []
    send = psycopg.Cursor.execute

    def recorded(cursor: Any, query: Any, params: Any = None, **options: Any) -> Any:
        sent.append((query, params))
        return send(cursor, query, params, **options)

    monkeypatch.setattr(psycopg.Cursor, "execute", recorded)
    yield sent


def seq_scans(plan: dict[str, Any]) -> list[str]:
    """The tables a Postgres plan (EXPLAIN's JSON) reads from end to end."""
    own = [plan["Relation Name"]] if plan["Node Type"] == "Seq Scan" else []
    return own + [table for child in plan.get("Plans", []) for table in seq_scans(child)]


GROWING = ("threads", "runs", "pauses", "journal", "events", "owners", "shown")
"""The tables that grow with the threads in the store."""
RENAMED = {"id", "thread", "run", "active_run", "last_run"}


def copied(db: Any, times: int) -> None:
    """Every row of every growing table copied ``times`` over, each copy under keys of its own: a store of tens of
    thousands of threads shaped as the desk wrote them, in seconds. Columns the database numbers are numbered anew."""
    for table in GROWING:
        columns = [
            row[0]
            for row in db.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s AND column_default IS NULL",
                (table,),
            )
        ]
        values = ", ".join(f"{name} || '~' || copy" if name in RENAMED else name for name in columns)
        db.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {values} FROM {table},"
            f" generate_series(1, {times}) AS copy"
        )
    db.execute("ANALYZE")


def test_postgres_keys_every_statement_of_a_turn_an_answer_and_the_readings(
    postgres_url, postgres_sent, ledger, monkeypatch
):
    """The store holds some 20,000 threads and is ANALYZEd, so each plan is the one Postgres really picks where a
    whole-table read costs more than a keyed one (on a few hundred threads, reading a table whole can be cheaper)."""
    import psycopg

    store = open_storage(postgres_url)
    with Desk.from_file(SHOP, storage=store) as desk:
        crowd(desk, 1000)
        with psycopg.connect(postgres_url, autocommit=True) as db:
            copied(db, 19)
        postgres_sent.clear()
        a_turn_an_answer_and_the_readings(desk, "t")
    monkeypatch.undo()
    statements = [
        (query, params) for query, params in postgres_sent if query.lstrip().upper().startswith(WRITES_AND_READS)
    ]
    with psycopg.connect(postgres_url, autocommit=True) as db:
        scans = {
            query: tables
            for query, params in statements
            if (
                tables := seq_scans(
                    present(db.execute(f"EXPLAIN (FORMAT JSON) {query}", params).fetchone())[0][0]["Plan"]
                )
            )
        }
    assert len(statements) > 20 and scans == {}
    assert len(ledger("charge")) == 501
