"""The run store in one SQLite file, for one machine."""

from __future__ import annotations

import os
import sqlite3
import string
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StorageUnavailable
from ._sql import Dialect, SqlStorage
from .base import DEFAULT_RETENTION

BUSY_TIMEOUT = 10.0
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


SQLITE = Dialect(
    words={
        "integer": "INTEGER",
        "real": "REAL",
        "counter": "INTEGER",
        "serial_key": "INTEGER PRIMARY KEY AUTOINCREMENT",
        "arrival_column": "",
        "arrival_indexed": "",
        "arrival": "rowid",
        "next_started_order": "(SELECT COALESCE(MAX(started_order), 0) + 1 FROM journal WHERE run = :run)",
        "lock_skipping": "",
        "delivered": "COALESCE(json_extract(delivery, '$.delivered') = 1, 0)",
        "payload_tool": "CASE json_type(payload, '$.tool') WHEN 'text' THEN json_extract(payload, '$.tool') END",
    }
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


class SqliteStorage(SqlStorage[sqlite3.Connection]):
    """Keeps runs in one SQLite file, so a paused run outlives the process on one machine.

    Each thread has its own connection, and every write is one ``BEGIN IMMEDIATE``
    transaction, so racing writers from any thread or process queue in the
    database and every compare-and-set is decided there, never in Python.  Pauses
    of one step and time keep the order they were opened in by their rowid, and a
    journal entry's place is one after its run's last.
    """

    dialect = SQLITE

    def __init__(
        self, path: Path | str, *, busy_timeout: float = BUSY_TIMEOUT, retention: float = DEFAULT_RETENTION
    ) -> None:
        self.retention, self.clock = retention, time.time
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.name = f"the SQLite store {self.path}"
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._opened: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            opened, self._opened, self._local = list(self._opened), weakref.WeakSet(), threading.local()
        for connection in opened:
            connection.close()

    def _schema_version(self, db: sqlite3.Connection) -> int:
        return int(db.execute("PRAGMA user_version").fetchone()[0])

    def _set_schema_version(self, db: sqlite3.Connection, version: int) -> None:
        db.execute(f"PRAGMA user_version = {int(version)}")

    def _migrate(self, db: sqlite3.Connection, script: str) -> None:
        for statement in _statements(script):
            db.execute(statement)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._translated():
            yield self._connection()

    @contextmanager
    def _reading_together(self) -> Iterator[sqlite3.Connection]:
        with self._reading() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

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
            raise StorageUnavailable(f"{self.name} {problem}") from exc

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
        _create_private(self.path)
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


def _create_private(path: Path) -> None:
    """Create the file readable by its owner alone: it keeps pause tokens and the key that signs sessions and
    stream tickets.  SQLite gives the -wal and -shm files it makes beside it the same permissions."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError:
        return
