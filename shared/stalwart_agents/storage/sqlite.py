"""The run store in one SQLite file, for one machine."""

from __future__ import annotations

import sqlite3
import string
import threading
import time
import weakref
from dataclasses import astuple
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StorageUnavailable
from . import _records as records
from ._sql import SqlCommit, Statements
from .base import FINISHED, Feedback, JournalEntry, PauseRecord, RunRecord, ShownMessage, Snapshot

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

BUSY_TIMEOUT = 10.0
TABLES = {RunRecord: "runs", PauseRecord: "pauses", JournalEntry: "journal"}
KEYS = {RunRecord: "id = ?", PauseRecord: "id = ?", JournalEntry: "run = ? AND key = ?"}
UNAVAILABLE = {
    sqlite3.SQLITE_BUSY: "stayed locked by another writer for longer than the busy timeout",
    sqlite3.SQLITE_LOCKED: "stayed locked by another writer for longer than the busy timeout",
    sqlite3.SQLITE_CANTOPEN: "cannot be opened; check that it is a file this process may read and write",
    sqlite3.SQLITE_PERM: "cannot be opened; check that it is a file this process may read and write",
    sqlite3.SQLITE_READONLY: "is read-only; this process needs write access to the file and its folder",
    sqlite3.SQLITE_IOERR: "hit a disk I/O error; the disk may be failing, full or gone",
    sqlite3.SQLITE_FULL: "is on a full disk",
    sqlite3.SQLITE_NOTADB: "is not a SQLite database",
    sqlite3.SQLITE_CORRUPT: "is corrupt",
}


def _select(kind: type, condition: str) -> str:
    return f"SELECT {', '.join(records.columns(kind))} FROM {TABLES[kind]} WHERE {condition}"


def _insert(kind: type, **computed: str) -> str:
    names = [*records.columns(kind), *computed]
    values = [*(f":{name}" for name in records.columns(kind)), *computed.values()]
    return f"INSERT INTO {TABLES[kind]} ({', '.join(names)}) VALUES ({', '.join(values)}) ON CONFLICT DO NOTHING"


def _update(kind: type, condition: str, *, keep: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{name} = :{name}" for name in records.columns(kind) if name not in keep)
    return f"UPDATE {TABLES[kind]} SET {assignments} WHERE {condition}"


INSERT_RUN = _insert(RunRecord)
SAVE_RUN = _update(RunRecord, "id = :id AND version = :expected_version", keep=("id", "thread")) + " RETURNING thread"
INSERT_PAUSE = _insert(PauseRecord)
ANSWER_PAUSE = "UPDATE pauses SET status = 'answered', answer = ? WHERE id = ? AND status = 'open'"
START_ENTRY = _insert(
    JournalEntry, started_order="(SELECT COALESCE(MAX(started_order), 0) + 1 FROM journal WHERE run = :run)"
)
UPDATE_ENTRY = _update(
    JournalEntry,
    "run = :run AND key = :key AND status = :expected_status AND (:expected_attempt IS NULL OR attempt = :expected_attempt)",
    keep=("run", "key"),
)


APPEND_EVENT = "INSERT INTO events (thread, body) VALUES (?, ?)"
STATEMENTS = Statements(
    answer_pause=ANSWER_PAUSE, insert_pause=INSERT_PAUSE, start_entry=START_ENTRY, update_entry=UPDATE_ENTRY,
    insert_shown="INSERT INTO shown VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
)


class _Connection(sqlite3.Connection):
    """A connection a WeakSet can hold, so one whose thread has ended is closed when it is collected."""


def _statements(script: str) -> Iterator[str]:
    """Split a script where SQLite says a statement ends; executescript() would commit the open transaction."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip(string.whitespace + ";"):
        yield pending


class SqliteStorage(SqlCommit):
    """Keeps runs in one SQLite file, so a paused run outlives the process on one machine.

    Each thread has its own connection, and every write is one ``BEGIN IMMEDIATE``
    transaction, so racing writers from any thread or process queue in the
    database and every compare-and-set is decided there, never in Python.
    """

    statements = STATEMENTS

    def __init__(self, path: Path | str, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._opened: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._lock = threading.Lock()

    def setup(self) -> None:
        with self._transaction() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StorageUnavailable(
                    f"the SQLite store {self.path} has schema version {version}, newer than the {len(MIGRATIONS)} "
                    "this stalwart-agents knows; upgrade stalwart-agents"
                )
            for script in MIGRATIONS[version:]:
                for statement in _statements(script):
                    db.execute(statement)
            if version < len(MIGRATIONS):
                db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")

    def close(self) -> None:
        with self._lock:
            opened, self._opened, self._local = list(self._opened), weakref.WeakSet(), threading.local()
        for connection in opened:
            connection.close()

    def snapshot(self, run_id: str) -> Snapshot | None:
        with self._read() as db:
            db.execute("BEGIN")
            try:
                run = self._first(db, RunRecord, KEYS[RunRecord], run_id)
                pauses = self._all(db, PauseRecord, "run = ? ORDER BY step, created_at, rowid", run_id)
                journal = self._all(db, JournalEntry, "run = ? ORDER BY started_order", run_id)
            finally:
                db.execute("COMMIT")
        return None if run is None else Snapshot(run, pauses, journal)

    def get_run(self, run_id: str) -> RunRecord | None:
        return self._find(RunRecord, KEYS[RunRecord], run_id)

    def active_run(self, thread: str) -> RunRecord | None:
        return self._find(RunRecord, "id = (SELECT active_run FROM threads WHERE thread = ?)", thread)

    def last_run(self, thread: str) -> RunRecord | None:
        return self._find(RunRecord, "id = (SELECT last_run FROM threads WHERE thread = ?)", thread)

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        return self._find(PauseRecord, KEYS[PauseRecord], pause_id)

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._read() as db:
            return self._all(db, PauseRecord, "run = ? ORDER BY step, created_at, rowid", run_id)

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._read() as db:
            return self._all(db, JournalEntry, "run = ? ORDER BY started_order", run_id)

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        query = "SELECT id, body FROM events WHERE thread = ? AND id > ? ORDER BY id LIMIT ?"
        with self._read() as db:
            rows = db.execute(query, (thread, after, records.check_limit(limit))).fetchall()
        return [(row["id"], records.load(row["body"])) for row in rows]

    def secret(self, name: str, candidate: str) -> str:
        with self._transaction() as db:
            db.execute("INSERT INTO secrets VALUES (?, ?) ON CONFLICT DO NOTHING", (name, candidate))
            return db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0]

    def owner(self, thread: str) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT owner FROM owners WHERE thread = ?", (thread,)).fetchone()
        return None if row is None else str(row[0])

    def own(self, thread: str, owner: str) -> str:
        with self._transaction() as db:
            db.execute("INSERT INTO owners VALUES (?, ?) ON CONFLICT DO NOTHING", (thread, owner))
            return str(db.execute("SELECT owner FROM owners WHERE thread = ?", (thread,)).fetchone()[0])

    def shown_message(self, message_id: str) -> ShownMessage | None:
        with self._read() as db:
            row = db.execute("SELECT * FROM shown WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else ShownMessage(*row)

    def rate_message(self, feedback: Feedback) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?)", astuple(feedback))

    def feedback(self, message_id: str) -> Feedback | None:
        with self._read() as db:
            row = db.execute("SELECT * FROM feedback WHERE message = ?", (message_id,)).fetchone()
        return None if row is None else Feedback(*row)

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE pauses SET delivery = ? WHERE id = ? AND run = ?", (records.dump(outcome), pause_id, run_id))

    def _append(self, db: sqlite3.Connection, events: list[tuple[str, str]]) -> list[int]:
        return [db.execute(APPEND_EVENT, event).lastrowid for event in events]

    def _begin(self, db: sqlite3.Connection, row: dict[str, Any]) -> None:
        active = db.execute("SELECT active_run FROM threads WHERE thread = ?", (row["thread"],)).fetchone()
        if active is not None and active[0] is not None:
            raise records.thread_busy(row["thread"], active[0])
        if db.execute(INSERT_RUN, row).rowcount == 0:
            raise records.run_exists(self._stored(db, RunRecord, row["id"]))
        active_run = None if row["status"] in FINISHED else row["id"]
        db.execute("INSERT OR REPLACE INTO threads VALUES (?, ?, ?)", (row["thread"], active_run, row["id"]))

    def _save(self, db: sqlite3.Connection, row: dict[str, Any], expected_version: int) -> str:
        """Save over ``expected_version``; returns the run's thread, which a save never changes."""
        saved = db.execute(SAVE_RUN, row | {"expected_version": expected_version}).fetchone()
        if saved is None:
            raise records.version_conflict(row["id"], expected_version, self._stored(db, RunRecord, row["id"]))
        if row["status"] in FINISHED:
            db.execute("UPDATE threads SET active_run = NULL WHERE active_run = ?", (row["id"],))
        return saved[0]

    def _find(self, kind: type[records.Record], condition: str, *params: Any) -> records.Record | None:
        with self._read() as db:
            return self._first(db, kind, condition, *params)

    def _stored(self, db: sqlite3.Connection, kind: type[records.Record], *key: str) -> Any:
        return self._first(db, kind, KEYS[kind], *key)

    def _first(self, db: sqlite3.Connection, kind: type[records.Record], condition: str, *params: Any) -> Any:
        found = self._all(db, kind, condition, *params)
        return found[0] if found else None

    def _all(
        self, db: sqlite3.Connection, kind: type[records.Record], condition: str, *params: Any
    ) -> list[records.Record]:
        return [records.from_row(kind, row) for row in db.execute(_select(kind, condition), params)]

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._translated():
            yield self._connection()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._translated():
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            problem = UNAVAILABLE.get(getattr(exc, "sqlite_errorcode", 0) & 0xFF)
            if problem is None:
                raise
            raise StorageUnavailable(f"the SQLite store {self.path} {problem}") from exc

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
        return connection

    def _connect(self) -> sqlite3.Connection:
        if not self.path.parent.is_dir():
            raise StorageUnavailable(
                f"the folder {self.path.parent} for the SQLite store {self.path} does not exist; "
                "create it or fix the storage URL"
            )
        connection = sqlite3.connect(
            self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False, factory=_Connection
        )
        try:
            connection.row_factory = sqlite3.Row
            self._use_wal(connection)
            connection.execute("PRAGMA synchronous = FULL")
        except BaseException:
            connection.close()
            raise
        with self._lock:
            self._opened.add(connection)
        return connection

    def _use_wal(self, connection: sqlite3.Connection) -> None:
        """Switch the file to WAL, retrying: SQLite refuses a racing switch at once instead of waiting."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
