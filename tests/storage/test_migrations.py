"""A store an earlier stalwart-agents made opens under this one, its paused runs still answerable.

SQLite and Postgres kept a migration list each until they shared ``sql_schema``; the
two lists below are copied from then (SQLite had reached schema 4, Postgres 2) and
are data, never to be edited.  A store at each of their versions gets a paused run
written as that code wrote it, then opens with today's code and is answered.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents.storage import Event, Storage, open_storage
from stalwart_agents.storage.sql_schema import MIGRATIONS

from ..conftest import present
from .stores_before import postgres_at, sqlite_at
from .writes import claim

SQLITE_BEFORE: list[str] = [
    """
    CREATE TABLE threads (
        thread TEXT PRIMARY KEY,
        active_run TEXT,
        last_run TEXT
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        thread TEXT NOT NULL,
        agent TEXT NOT NULL,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        lease_owner TEXT,
        lease_until REAL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE pauses (
        id TEXT PRIMARY KEY,
        run TEXT NOT NULL,
        thread TEXT NOT NULL,
        kind TEXT NOT NULL,
        step INTEGER NOT NULL,
        token TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        answer TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX pauses_by_run ON pauses (run, step, created_at);
    CREATE TABLE journal (
        run TEXT NOT NULL,
        key TEXT NOT NULL,
        started_order INTEGER NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        idempotency_key TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL,
        PRIMARY KEY (run, key)
    );
    CREATE INDEX journal_in_started_order ON journal (run, started_order);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        thread TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX events_by_thread ON events (thread, id);
    """,
    """
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE shown (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL,
        thread TEXT NOT NULL,
        text TEXT NOT NULL,
        shown_at REAL NOT NULL
    );
    CREATE TABLE feedback (
        message TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        thumb TEXT NOT NULL,
        rated_at REAL NOT NULL
    );
    """,
    """
    ALTER TABLE pauses ADD COLUMN delivery TEXT;
    """,
    """
    CREATE TABLE owners (
        thread TEXT PRIMARY KEY,
        owner TEXT NOT NULL
    );
    """,
]

POSTGRES_BEFORE: list[str] = [
    """
    CREATE TABLE threads (
        thread TEXT PRIMARY KEY,
        active_run TEXT,
        last_run TEXT
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        thread TEXT NOT NULL,
        agent TEXT NOT NULL,
        status TEXT NOT NULL,
        version BIGINT NOT NULL,
        state TEXT NOT NULL,
        lease_owner TEXT,
        lease_until DOUBLE PRECISION,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE pauses (
        id TEXT PRIMARY KEY,
        seq BIGSERIAL NOT NULL,
        run TEXT NOT NULL,
        thread TEXT NOT NULL,
        kind TEXT NOT NULL,
        step BIGINT NOT NULL,
        token TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        answer TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        delivery TEXT
    );
    CREATE INDEX pauses_by_run ON pauses (run, step, created_at, seq);
    CREATE TABLE journal (
        run TEXT NOT NULL,
        key TEXT NOT NULL,
        started_order BIGSERIAL NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        idempotency_key TEXT NOT NULL,
        attempt BIGINT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        PRIMARY KEY (run, key)
    );
    CREATE INDEX journal_in_started_order ON journal (run, started_order);
    CREATE TABLE events (
        id BIGSERIAL PRIMARY KEY,
        thread TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX events_by_thread ON events (thread, id);
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE shown (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL,
        thread TEXT NOT NULL,
        text TEXT NOT NULL,
        shown_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE feedback (
        message TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        thumb TEXT NOT NULL,
        rated_at DOUBLE PRECISION NOT NULL
    );
    """,
    """
    CREATE TABLE owners (
        thread TEXT PRIMARY KEY,
        owner TEXT NOT NULL
    );
    """,
]

RUN = ("run-1", "thread-1", "helper", "waiting", 0, '{"step":1}', None, None, 1.5, 1.5)
THREAD = ("thread-1", "run-1", "run-1")
PAUSE = ("pause-1", "run-1", "thread-1", "approve", 1, "tok", '{"question":"send?"}', "open", None, 2.5)
ENTRY = ("run-1", "call-1", "send_mail", '{"to":"ana"}', "started", None, None, "run-1/call-1", 1, 3.5, None)
EVENT = ("thread-1", '{"what":"paused"}')
PAUSE_COLUMNS = "id, run, thread, kind, step, token, payload, status, answer, created_at"
ENTRY_COLUMNS = "run, key, tool, arguments, status, result, error, idempotency_key, attempt, started_at, finished_at"


def paused_run(execute: Callable[[str, tuple[Any, ...]], Any], mark: str, *, started_order: bool) -> None:
    """Write a run waiting on a pause, with a started journal entry and an event, as the earlier code stored them."""

    def marks(values: tuple[Any, ...]) -> str:
        return ", ".join([mark] * len(values))

    execute(f"INSERT INTO runs VALUES ({marks(RUN)})", RUN)
    execute(f"INSERT INTO threads VALUES ({marks(THREAD)})", THREAD)
    execute(f"INSERT INTO pauses ({PAUSE_COLUMNS}) VALUES ({marks(PAUSE)})", PAUSE)
    order = (", started_order", (1,)) if started_order else ("", ())
    execute(f"INSERT INTO journal ({ENTRY_COLUMNS}{order[0]}) VALUES ({marks(ENTRY + order[1])})", ENTRY + order[1])
    execute(f"INSERT INTO events (thread, body) VALUES ({mark}, {mark})", EVENT)


def assert_the_paused_run_is_answerable(url: str) -> None:
    store = open_storage(url)
    try:
        snapshot = store.snapshot("run-1")
        assert snapshot is not None and store.active_run("thread-1") == snapshot.run
        assert [(p.id, p.status, p.payload) for p in snapshot.pauses] == [("pause-1", "open", {"question": "send?"})]
        assert [(e.key, e.status) for e in snapshot.journal] == [("call-1", "started")]
        answered = [Event("thread-1", {"what": "answered"})]
        running = snapshot.run.replace(status="running")
        run = claim(store, "pause-1", {"ok": True}, running, expected_version=0, events=answered)
        assert run.version == 1 and present(store.get_pause("pause-1")).answer == {"ok": True}
        [(first, paused), (second, later)] = store.events("thread-1")
        assert (paused, later) == ({"what": "paused"}, {"what": "answered"}) and second > first
        assert_later_migrations_took(store)
    finally:
        store.close()


def assert_later_migrations_took(store: Storage) -> None:
    store.note_delivery("run-1", "pause-1", {"delivered": True})
    assert present(store.get_pause("pause-1")).delivery == {"delivered": True}
    assert store.own("thread-1", "ana") == "ana" and store.secret("session", "k") == "k"


def sqlite_store(path: Path, version: int) -> str:
    with sqlite3.connect(path) as db:
        for script in SQLITE_BEFORE[:version]:
            db.executescript(script)
        db.execute(f"PRAGMA user_version = {version}")
        paused_run(db.execute, "?", started_order=True)
    return f"sqlite:///{path}"


def sqlite_schema(path: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
    return [(kind, name, table, re.sub(r"\s+", " ", sql or "")) for kind, name, table, sql in rows]


@pytest.mark.parametrize("version", range(1, len(SQLITE_BEFORE) + 1))
def test_a_sqlite_store_from_before_opens_with_its_paused_run_answerable(tmp_path: Path, version: int) -> None:
    url = sqlite_store(tmp_path / "runs.db", version)
    assert_the_paused_run_is_answerable(url)
    with sqlite3.connect(tmp_path / "runs.db") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_fresh_sqlite_store_has_the_schema_the_earlier_migrations_made(tmp_path: Path) -> None:
    open_storage(sqlite_store(tmp_path / "before.db", len(SQLITE_BEFORE))).close()
    open_storage(f"sqlite:///{tmp_path / 'now.db'}").close()
    assert sqlite_schema(tmp_path / "now.db") == sqlite_schema(tmp_path / "before.db")


def postgres_store(url: str, version: int) -> str:
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(url) as db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (%s)", (version,))
        for script in POSTGRES_BEFORE[:version]:
            db.execute(script)
        paused_run(db.execute, "%s", started_order=False)
    return url


def postgres_schema(url: str) -> list[tuple[Any, ...]]:
    import psycopg

    columns = (
        "SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default"
        " FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
    )
    indexes = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"
    with psycopg.connect(url) as db:
        return [*db.execute(columns).fetchall(), *db.execute(indexes).fetchall()]


@pytest.mark.parametrize("version", range(1, len(POSTGRES_BEFORE) + 1))
def test_a_postgres_store_from_before_opens_with_its_paused_run_answerable(postgres_url: str, version: int) -> None:
    assert_the_paused_run_is_answerable(postgres_store(postgres_url, version))
    import psycopg

    with psycopg.connect(postgres_url) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(len(MIGRATIONS),)]


def test_a_fresh_postgres_store_has_the_schema_the_earlier_migrations_made(postgres_cluster: Any) -> None:
    before = postgres_store(postgres_cluster.create_database("before_shared_migrations"), len(POSTGRES_BEFORE))
    open_storage(before).close()
    now = postgres_cluster.create_database("with_shared_migrations")
    open_storage(now).close()
    assert postgres_schema(now) == postgres_schema(before)


FINISHED_RUN = ("run-2", "thread-2", "helper", "done", 3, "{}", None, None, 1.5, 1.5)
FINISHED_THREAD = ("thread-2", None, "run-2")


def test_a_store_from_before_retention_prunes_its_finished_threads_and_keeps_its_waiting_one(tmp_path: Path) -> None:
    """What was stored before threads kept their last activity gets it from their runs, so prune can judge them."""
    path = tmp_path / "runs.db"
    sqlite_store(path, len(SQLITE_BEFORE))
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", FINISHED_RUN)
        db.execute("INSERT INTO threads VALUES (?, ?, ?)", FINISHED_THREAD)
        db.execute("INSERT INTO events (thread, body) VALUES ('thread-2', '{}')")
        db.execute("INSERT INTO owners VALUES ('thread-3', 'ana')")  # owned, never begun
    store = open_storage(f"sqlite:///{path}", retention=3600)
    try:
        assert store.prune(1.5 + 3600).threads == 1  # the owned one: no activity of it is known
        assert store.owner("thread-3") is None and store.last_run("thread-2") is not None
        assert store.prune(1.5 + 3601).threads == 1
        assert store.last_run("thread-2") is None and store.events("thread-2") == []
        assert_the_paused_run_is_answerable(f"sqlite:///{path}")
    finally:
        store.close()


BEFORE_THE_INBOX = 6
"""The schema version before migration 7 gave pauses their tool and the inbox its indexes."""
PAUSES_BEFORE_THE_INBOX = [
    ("pause-1", "run-1", "thread-1", "confirm", 1, "tok", '{"tool":"charge_card"}', "open", None, 2.5),
    ("pause-2", "run-1", "thread-1", "confirm", 2, "tok", '{"tool":7}', "open", None, 3.5),
    ("pause-3", "run-1", "thread-1", "confirm", 0, "tok", '{"tool":"charge_card"}', "answered", '{"ok":true}', 1.5),
]


def before_the_inbox(execute: Callable[..., Any], mark: str) -> None:
    """A run waiting on two open pauses (one with a tool that is not text), and an answered one, at schema 6."""
    execute(f"INSERT INTO runs VALUES ({', '.join([mark] * len(RUN))})", RUN)
    execute(f"INSERT INTO threads (thread, active_run, last_run) VALUES ({mark}, {mark}, {mark})", THREAD)
    for pause in PAUSES_BEFORE_THE_INBOX:
        execute(f"INSERT INTO pauses ({PAUSE_COLUMNS}) VALUES ({', '.join([mark] * len(pause))})", pause)


def assert_the_inbox_lists_the_open_pauses_by_their_back_filled_tool(url: str) -> None:
    store = open_storage(url)
    try:
        assert [entry.pause.id for entry in store.inbox()] == ["pause-2", "pause-1"]
        assert [entry.pause.id for entry in store.inbox(tool="charge_card")] == ["pause-1"]
        assert store.inbox(tool="7") == [] and store.inbox()[0].run.id == "run-1"
    finally:
        store.close()


def test_a_sqlite_store_from_before_the_inbox_lists_its_open_pauses_by_tool(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    url = sqlite_at(path, BEFORE_THE_INBOX, before_the_inbox)
    assert_the_inbox_lists_the_open_pauses_by_their_back_filled_tool(url)
    with sqlite3.connect(path) as db:
        tools = db.execute("SELECT id, tool FROM pauses ORDER BY id").fetchall()
    assert tools == [("pause-1", "charge_card"), ("pause-2", None), ("pause-3", None)]  # the open ones alone


def test_a_postgres_store_from_before_the_inbox_lists_its_open_pauses_by_tool(postgres_url: str) -> None:
    assert_the_inbox_lists_the_open_pauses_by_their_back_filled_tool(
        postgres_at(postgres_url, BEFORE_THE_INBOX, before_the_inbox)
    )
    import psycopg

    with psycopg.connect(postgres_url) as db:
        tools = db.execute("SELECT id, tool FROM pauses ORDER BY id").fetchall()
    assert tools == [("pause-1", "charge_card"), ("pause-2", None), ("pause-3", None)]
