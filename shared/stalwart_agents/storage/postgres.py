"""The run store in one PostgreSQL database, shared by every machine that runs agents."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StorageUnavailable
from . import _records as records
from ._sql import SqlCommit, Statements
from .base import FINISHED, Feedback, JournalEntry, PauseRecord, RunRecord, ShownMessage, Snapshot

# JSON is kept as the compact text _records.dump writes (as in SQLite), so values come back exactly.
MIGRATIONS: list[str] = [
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

TIMEOUT = 5.0
MAX_CONNECTIONS = 10
SCHEMA_LOCK = 0x5354414C5741  # pg_advisory_xact_lock(bigint): one setup() at a time per database
EVENT_LOCKS = 0x45564E54  # pg_advisory_xact_lock(int, int) with a thread's hash: one event writer per thread
TABLES = {RunRecord: "runs", PauseRecord: "pauses", JournalEntry: "journal"}
KEYS = {RunRecord: "id = %s", PauseRecord: "id = %s", JournalEntry: "run = %s AND key = %s"}
# SQLSTATE classes that mean the server is gone or refuses us: connection exception, shutdown, out of resources.
UNREACHABLE = ("08", "57P", "53")
PAUSE_ORDER = "run = %s ORDER BY step, created_at, seq"
JOURNAL_ORDER = "run = %s ORDER BY started_order"


def _select(kind: type, condition: str) -> str:
    return f"SELECT {', '.join(records.columns(kind))} FROM {TABLES[kind]} WHERE {condition}"


def _insert(kind: type) -> str:
    names = records.columns(kind)
    values = ", ".join(f"%({name})s" for name in names)
    return f"INSERT INTO {TABLES[kind]} ({', '.join(names)}) VALUES ({values}) ON CONFLICT DO NOTHING"


def _update(kind: type, condition: str, *, keep: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{name} = %({name})s" for name in records.columns(kind) if name not in keep)
    return f"UPDATE {TABLES[kind]} SET {assignments} WHERE {condition}"


INSERT_RUN = _insert(RunRecord)
SAVE_RUN = _update(RunRecord, "id = %(id)s AND version = %(expected_version)s", keep=("id", "thread")) + " RETURNING thread"
INSERT_PAUSE = _insert(PauseRecord)
ANSWER_PAUSE = "UPDATE pauses SET status = 'answered', answer = %s WHERE id = %s AND status = 'open'"
START_ENTRY = _insert(JournalEntry)
UPDATE_ENTRY = _update(
    JournalEntry,
    "run = %(run)s AND key = %(key)s AND status = %(expected_status)s"
    " AND (%(expected_attempt)s::bigint IS NULL OR attempt = %(expected_attempt)s::bigint)",
    keep=("run", "key"),
)
# Taking the thread row locks it, so of two begins on one thread the second sees the first's run.
LOCK_THREAD = (
    "INSERT INTO threads (thread) VALUES (%s) ON CONFLICT (thread) DO UPDATE SET thread = excluded.thread"
    " RETURNING active_run"
)
APPEND_EVENT = "INSERT INTO events (thread, body) VALUES (%s, %s) RETURNING id"
STATEMENTS = Statements(
    answer_pause=ANSWER_PAUSE, insert_pause=INSERT_PAUSE, start_entry=START_ENTRY, update_entry=UPDATE_ENTRY,
    insert_shown="INSERT INTO shown (id, session, thread, text, shown_at) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
)
RATE = (
    "INSERT INTO feedback (message, text, thumb, rated_at) VALUES (%s, %s, %s, %s) ON CONFLICT (message)"
    " DO UPDATE SET text = excluded.text, thumb = excluded.thumb, rated_at = excluded.rated_at"
)


def masked(url: str) -> str:
    """The URL with its password (in the user part or the query) shown as ***."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostport = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}:***@{hostport}"
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(name == "password" for name, _ in query):
        query = [(name, "***" if name == "password" else value) for name, value in query]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="*")))
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresStorage(SqlCommit):
    """Keeps runs in PostgreSQL, so several machines share them.

    Every write is one READ COMMITTED transaction whose racing statements are
    conditional (``WHERE version = ...``, ``ON CONFLICT DO NOTHING``) and
    checked by row count, so every compare-and-set is decided by the database.
    Connections come from a pool that drops broken ones and reconnects.
    """

    statements = STATEMENTS

    def __init__(self, url: str, *, timeout: float = TIMEOUT, max_connections: int = MAX_CONNECTIONS) -> None:
        self.url = masked(url)
        params = conninfo_to_dict(url)
        self._conninfo, self._password = url, params.get("password") or ""
        self.address = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}/{params.get('dbname', '')}"
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=timeout,
            reconnect_timeout=timeout,
            check=ConnectionPool.check_connection,
            kwargs={"autocommit": True, "row_factory": dict_row, "connect_timeout": max(1, round(timeout))},
            name=f"stalwart {self.address}",
            open=True,
        )

    def setup(self) -> None:
        with self._transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else row["version"]
            if version > len(MIGRATIONS):
                raise StorageUnavailable(
                    f"the Postgres store {self.address} has schema version {version}, newer than the "
                    f"{len(MIGRATIONS)} this stalwart-agents knows; upgrade stalwart-agents"
                )
            for script in MIGRATIONS[version:]:
                db.execute(script)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (%s)", (len(MIGRATIONS),))
            elif version < len(MIGRATIONS):
                db.execute("UPDATE schema_version SET version = %s", (len(MIGRATIONS),))

    def close(self) -> None:
        self._pool.close()

    def snapshot(self, run_id: str) -> Snapshot | None:
        with self._transaction() as db:
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            run = self._first(db, RunRecord, KEYS[RunRecord], run_id)
            pauses = self._all(db, PauseRecord, PAUSE_ORDER, run_id)
            journal = self._all(db, JournalEntry, JOURNAL_ORDER, run_id)
        return None if run is None else Snapshot(run, pauses, journal)

    def get_run(self, run_id: str) -> RunRecord | None:
        return self._find(RunRecord, KEYS[RunRecord], run_id)

    def active_run(self, thread: str) -> RunRecord | None:
        return self._find(RunRecord, "id = (SELECT active_run FROM threads WHERE thread = %s)", thread)

    def last_run(self, thread: str) -> RunRecord | None:
        return self._find(RunRecord, "id = (SELECT last_run FROM threads WHERE thread = %s)", thread)

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        return self._find(PauseRecord, KEYS[PauseRecord], pause_id)

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._connection() as db:
            return self._all(db, PauseRecord, PAUSE_ORDER, run_id)

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._connection() as db:
            return self._all(db, JournalEntry, JOURNAL_ORDER, run_id)

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        query = "SELECT id, body FROM events WHERE thread = %s AND id > %s ORDER BY id LIMIT %s"
        with self._connection() as db:
            rows = db.execute(query, (thread, after, records.check_limit(limit))).fetchall()
        return [(row["id"], records.load(row["body"])) for row in rows]

    def secret(self, name: str, candidate: str) -> str:
        with self._transaction() as db:
            db.execute("INSERT INTO secrets (name, value) VALUES (%s, %s) ON CONFLICT DO NOTHING", (name, candidate))
            return db.execute("SELECT value FROM secrets WHERE name = %s", (name,)).fetchone()["value"]

    def owner(self, thread: str) -> str | None:
        with self._connection() as db:
            row = db.execute("SELECT owner FROM owners WHERE thread = %s", (thread,)).fetchone()
        return None if row is None else str(row["owner"])

    def own(self, thread: str, owner: str) -> str:
        with self._transaction() as db:
            db.execute("INSERT INTO owners (thread, owner) VALUES (%s, %s) ON CONFLICT DO NOTHING", (thread, owner))
            return str(db.execute("SELECT owner FROM owners WHERE thread = %s", (thread,)).fetchone()["owner"])

    def shown_message(self, message_id: str) -> ShownMessage | None:
        with self._connection() as db:
            row = db.execute("SELECT id, session, thread, text, shown_at FROM shown WHERE id = %s", (message_id,)).fetchone()
        return None if row is None else ShownMessage(**row)

    def rate_message(self, feedback: Feedback) -> None:
        with self._connection() as db:
            db.execute(RATE, astuple(feedback))

    def feedback(self, message_id: str) -> Feedback | None:
        with self._connection() as db:
            row = db.execute("SELECT message, text, thumb, rated_at FROM feedback WHERE message = %s", (message_id,)).fetchone()
        return None if row is None else Feedback(**row)

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        with self._connection() as db:
            db.execute("UPDATE pauses SET delivery = %s WHERE id = %s AND run = %s", (records.dump(outcome), pause_id, run_id))

    def _begin(self, db: psycopg.Connection[Any], row: dict[str, Any]) -> None:
        active = db.execute(LOCK_THREAD, (row["thread"],)).fetchone()["active_run"]
        if active is not None:
            raise records.thread_busy(row["thread"], active)
        if db.execute(INSERT_RUN, row).rowcount == 0:
            raise records.run_exists(self._stored(db, RunRecord, row["id"]))
        active_run = None if row["status"] in FINISHED else row["id"]
        db.execute("UPDATE threads SET active_run = %s, last_run = %s WHERE thread = %s", (active_run, row["id"], row["thread"]))

    def _save(self, db: psycopg.Connection[Any], row: dict[str, Any], expected_version: int) -> str:
        """Save over ``expected_version``; returns the run's thread, which a save never changes."""
        saved = db.execute(SAVE_RUN, row | {"expected_version": expected_version}).fetchone()
        if saved is None:
            raise records.version_conflict(row["id"], expected_version, self._stored(db, RunRecord, row["id"]))
        if row["status"] in FINISHED:
            db.execute("UPDATE threads SET active_run = NULL WHERE thread = %s AND active_run = %s", (saved["thread"], row["id"]))
        return saved["thread"]

    def _append(self, db: psycopg.Connection[Any], events: list[tuple[str, str]]) -> list[int]:
        """Append events, holding each thread's lock until commit, so ids rise in the order readers see them."""
        for thread in sorted({thread for thread, _ in events}):
            db.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (EVENT_LOCKS, thread))
        return [db.execute(APPEND_EVENT, event).fetchone()["id"] for event in events]

    def _find(self, kind: type[records.Record], condition: str, *params: Any) -> records.Record | None:
        with self._connection() as db:
            return self._first(db, kind, condition, *params)

    def _stored(self, db: psycopg.Connection[Any], kind: type[records.Record], *key: str) -> Any:
        return self._first(db, kind, KEYS[kind], *key)

    def _first(self, db: psycopg.Connection[Any], kind: type[records.Record], condition: str, *params: Any) -> Any:
        found = self._all(db, kind, condition, *params)
        return found[0] if found else None

    def _all(self, db: psycopg.Connection[Any], kind: type[records.Record], condition: str, *params: Any) -> list[Any]:
        return [records.from_row(kind, row) for row in db.execute(_select(kind, condition), params)]

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in autocommit: each statement is its own transaction."""
        with self._translated(), self._pool.connection() as db:
            yield db

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in one transaction, committed when the block ends and rolled back if it raises."""
        with self._connection() as db, db.transaction():
            yield db

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except psycopg.OperationalError as exc:  # PoolTimeout included: no server answered in time
            if exc.sqlstate is not None and not exc.sqlstate.startswith(UNREACHABLE):
                raise
            raise StorageUnavailable(
                f"the Postgres store {self.address} cannot be reached ({self._reason(exc)}); "
                "check that the server is up and that the storage URL names it"
            ) from exc

    def _reason(self, exc: psycopg.Error) -> str:
        """The first line of what went wrong, never the password; a pool timeout is told apart by one direct try."""
        if isinstance(exc, PoolTimeout):
            try:
                psycopg.connect(self._conninfo, connect_timeout=2).close()
            except psycopg.Error as direct:
                exc = direct
            else:
                return f"all {self._pool.max_size} connections stayed busy for {self._pool.timeout:g} s"
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return reason.replace(self._password, "***") if self._password else reason
